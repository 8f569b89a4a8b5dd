//! The session list for the rail: a thread asks the daemon `list-sessions` on a JSON connection
//! of its own every [`PERIOD`] while the rail is shown, and hands the answer to the run loop,
//! which takes it without waiting. The attach stream only describes this client's session, and
//! a request on the draw path could stall a frame behind a busy daemon.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::time::Duration;

use crate::json_client::JsonClient;

use super::rail::{parse_sessions, RailSession};

const PERIOD: Duration = Duration::from_secs(2);

/// The poller, started the first time the rail is shown; dropping it stops the thread.
pub struct SessionsPoll {
    socket: PathBuf,
    running: Option<(Arc<AtomicBool>, Receiver<Vec<RailSession>>)>,
}

impl SessionsPoll {
    pub fn new(socket: &Path) -> SessionsPoll {
        SessionsPoll {
            socket: socket.to_path_buf(),
            running: None,
        }
    }

    /// The newest list polled since the last call, if any. `wanted`: the rail is shown, so
    /// polling goes on (or starts); otherwise it pauses.
    pub fn take(&mut self, wanted: bool) -> Option<Vec<RailSession>> {
        if wanted && self.running.is_none() {
            let (tx, rx) = mpsc::channel();
            let on = Arc::new(AtomicBool::new(true));
            let socket = self.socket.clone();
            let flag = on.clone();
            std::thread::spawn(move || poll(&socket, &flag, &tx));
            self.running = Some((on, rx));
        }
        let (on, rx) = self.running.as_ref()?;
        on.store(wanted, Ordering::Relaxed);
        rx.try_iter().last()
    }
}

impl Drop for SessionsPoll {
    fn drop(&mut self) {
        // A polling thread notices the closed channel at its next send; a paused one notices
        // it holds the flag's last reference.
        if let Some((on, _)) = &self.running {
            on.store(false, Ordering::Relaxed);
        }
    }
}

fn poll(socket: &Path, wanted: &Arc<AtomicBool>, tx: &Sender<Vec<RailSession>>) {
    let mut client: Option<JsonClient> = None;
    loop {
        if wanted.load(Ordering::Relaxed) {
            if client.is_none() {
                client = JsonClient::connect(socket).ok();
            }
            let answer = client.as_mut().map(|c| c.call("list-sessions", None));
            match answer {
                Some(Ok(v)) => {
                    if tx.send(parse_sessions(&v)).is_err() {
                        return;
                    }
                }
                // The daemon may be restarting: connect again next time.
                _ => client = None,
            }
        } else if Arc::strong_count(wanted) == 1 {
            // The poller was dropped while paused.
            return;
        }
        std::thread::sleep(PERIOD);
    }
}
