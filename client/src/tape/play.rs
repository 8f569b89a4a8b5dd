//! `tuios tape play FILE`: watch a tape run. A new session is made for it, this terminal
//! attaches to it, and the tape runs through the attached client (as `tape exec`) as soon as
//! the client is there. Leaving the client (leader d) ends the session unless `--keep`.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::failure::Failure;
use crate::json_client::JsonClient;

/// How long the tape waits for the client of its session to attach.
const ATTACH_LIMIT: Duration = Duration::from_secs(30);
/// How often it looks.
const ATTACH_POLL: Duration = Duration::from_millis(50);

pub struct PlayOptions<'a> {
    pub file: &'a Path,
    pub session: Option<&'a str>,
    pub keep: bool,
}

pub fn play(socket: &Path, opts: &PlayOptions<'_>) -> Result<i32, Failure> {
    // Parse everything first: a typo plays nothing.
    let steps = super::load(opts.file)?;
    crate::autostart::ensure_daemon(socket)?;
    let mut client = JsonClient::connect(socket)?;
    let session = create_session(&mut client, opts)?;

    let outcome: Arc<Mutex<Option<Result<usize, Failure>>>> = Arc::default();
    let runner = {
        let (socket, session, file, outcome) = (
            socket.to_path_buf(),
            session.clone(),
            opts.file.to_path_buf(),
            outcome.clone(),
        );
        std::thread::spawn(move || {
            let result = wait_attached(&socket, &session).and_then(|()| {
                super::run(
                    &socket,
                    &super::RunOptions {
                        file: &file,
                        session: Some(&session),
                        attached: true,
                        sha256: None,
                    },
                )
            });
            *outcome.lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        })
    };
    let attached = crate::tui::attach(socket, Some(session.clone()), false);
    if !opts.keep {
        let _ = JsonClient::connect(socket)
            .and_then(|mut c| c.call("kill-session", Some(&json!({"session": session}))));
    }
    // The tape stops at its next step once its session is gone; a detach mid-tape is no error.
    let _ = runner.join();
    let status = attached?;
    match outcome.lock().unwrap_or_else(|e| e.into_inner()).take() {
        Some(Ok(n)) => eprintln!(
            "tape {}: {n} of {} commands ran",
            opts.file.display(),
            steps.len()
        ),
        Some(Err(e)) if opts.keep => return Err(e),
        Some(Err(_)) => eprintln!(
            "tape {}: stopped when its session ended",
            opts.file.display()
        ),
        None => {}
    }
    Ok(status)
}

/// A session named after the tape (`tape-<stem>`, with a number when taken) unless one is
/// named.
fn create_session(client: &mut JsonClient, opts: &PlayOptions<'_>) -> Result<String, Failure> {
    let name = match opts.session {
        Some(name) => name.to_string(),
        None => {
            let listed = client.call("list-sessions", None)?;
            let taken: Vec<&str> = listed["sessions"]
                .as_array()
                .map(|a| a.iter().filter_map(|s| s["name"].as_str()).collect())
                .unwrap_or_default();
            let stem: String = opts
                .file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '-'
                    }
                })
                .take(40)
                .collect();
            (1..)
                .map(|n| match n {
                    1 => format!("tape-{stem}"),
                    n => format!("tape-{stem}-{n}"),
                })
                .find(|n| !taken.contains(&n.as_str()))
                .unwrap_or_default()
        }
    };
    let made = client.call("new-session", Some(&json!({"name": name})))?;
    Ok(made["name"].as_str().unwrap_or(&name).to_string())
}

fn wait_attached(socket: &Path, session: &str) -> Result<(), Failure> {
    let mut client = JsonClient::connect(socket)?;
    let deadline = Instant::now() + ATTACH_LIMIT;
    loop {
        let info = client.call("session-info", Some(&json!({"session": session})))?;
        if info.get("tui_attached").and_then(Value::as_bool) == Some(true) {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(Failure::msg(format!(
                "no client attached to {session} within {ATTACH_LIMIT:?}"
            )));
        }
        std::thread::sleep(ATTACH_POLL);
    }
}
