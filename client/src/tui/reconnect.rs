//! Reconnecting when the daemon goes away under an attached client. A live upgrade
//! (`tuios upgrade`) closes every connection and the new daemon, the same process, answers
//! again within moments with the same sessions: the client says so on its bottom line and
//! attaches again by itself. A daemon that does not come back in time ends the attach as before.

use std::path::Path;
use std::time::{Duration, Instant};

use protocol::attach::DaemonOp;

use super::app::App;
use super::conn::DaemonConn;
use super::term::{clamp16, BufferedTerm, Term};

/// How long the client keeps trying.
const RETRY_FOR: Duration = Duration::from_secs(5);
/// Pause between attempts.
const RETRY_EVERY: Duration = Duration::from_millis(100);

/// Attach again to the session shown, for up to [`RETRY_FOR`]; the new connection, started
/// for the terminal as the first one was, or `None` when the daemon (or the session) did not
/// come back.
pub fn again<T: Term>(
    socket: &Path,
    app: &mut App,
    bt: &mut BufferedTerm<T>,
) -> Option<DaemonConn> {
    let name = app.session_name().to_string();
    if name.is_empty() {
        return None;
    }
    let deadline = Instant::now() + RETRY_FOR;
    loop {
        let (cols, rows) = bt.dimensions();
        show_line(bt.terminal(), rows);
        if let Ok(mut c) = DaemonConn::connect(socket) {
            // A refusal (the session is gone) is final: there is nothing to come back to.
            let state = c
                .attach(Some(name.clone()), false, clamp16(cols), clamp16(rows))
                .ok()?;
            c.start_for(bt.terminal());
            app.forget_connection();
            app.on_op(DaemonOp::Attached { state });
            app.redraw();
            // The status line was drawn behind the screen model's back.
            let _ = bt.repaint();
            return Some(c);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(RETRY_EVERY);
    }
}

/// "daemon restarting" on the bottom row, in reverse video, without disturbing the screen model.
fn show_line<T: Term>(term: &mut T, rows: usize) {
    term.write_raw(
        format!(
            "\x1b7\x1b[{rows};1H\x1b[7m tuios: daemon restarting, reconnecting... \x1b[m\x1b[K\x1b8"
        )
        .as_bytes(),
    );
}
