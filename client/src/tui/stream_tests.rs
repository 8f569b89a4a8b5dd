//! The attach client on byte streams, for real: the real daemon (the `tuios` binary next to
//! this test executable) on a temporary socket, `/bin/sh` in real PTYs, two `attach_stream`s
//! at once on threads, each drawing into a byte buffer that is parsed back into a screen.
//!
//! The attach reads its configuration and state directories from the environment, so the test
//! runs itself again as a child process with those pointing into a temporary directory (the
//! user's own must not be read or written).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use termwiz::escape::csi::{Cursor, Edit, EraseInDisplay, EraseInLine, CSI};
use termwiz::escape::parser::Parser;
use termwiz::escape::{Action, ControlCode};
use termwiz::surface::{Change, Position, Surface};

use super::{AttachEnd, SendError, StreamTerminal};
use crate::tui::attach_stream;

const CHILD_VAR: &str = "TUIOS_STREAM_TEST_DIR";
const TIMEOUT: Duration = Duration::from_secs(20);

/// What the attach wrote, shared with the test thread.
#[derive(Clone, Default)]
struct Output(Arc<(Mutex<Vec<u8>>, Condvar)>);

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let (bytes, changed) = &*self.0;
        bytes.lock().unwrap().extend_from_slice(buf);
        changed.notify_all();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The far end's screen: the attach's bytes applied to a termwiz Surface.
struct Far {
    out: Output,
    seen: usize,
    parser: Parser,
    screen: Surface,
}

impl Far {
    fn new(out: Output, cols: usize, rows: usize) -> Far {
        Far {
            out,
            seen: 0,
            parser: Parser::new(),
            screen: Surface::new(cols, rows),
        }
    }

    fn resize(&mut self, cols: usize, rows: usize) {
        self.screen.resize(cols, rows);
    }

    fn apply(&mut self, bytes: &[u8]) {
        let mut actions = Vec::new();
        self.parser.parse(bytes, |a| actions.push(a));
        for a in actions {
            let change = match a {
                Action::Print(c) => Some(Change::Text(c.to_string())),
                Action::PrintString(s) => Some(Change::Text(s)),
                Action::Control(ControlCode::CarriageReturn) => Some(Change::CursorPosition {
                    x: Position::Absolute(0),
                    y: Position::Relative(0),
                }),
                Action::Control(ControlCode::LineFeed) => Some(Change::CursorPosition {
                    x: Position::Relative(0),
                    y: Position::Relative(1),
                }),
                Action::Control(ControlCode::Backspace) => Some(Change::CursorPosition {
                    x: Position::Relative(-1),
                    y: Position::Relative(0),
                }),
                Action::CSI(CSI::Cursor(c)) => Some(match c {
                    Cursor::Position { line, col }
                    | Cursor::CharacterAndLinePosition { line, col } => Change::CursorPosition {
                        x: Position::Absolute(col.as_zero_based() as usize),
                        y: Position::Absolute(line.as_zero_based() as usize),
                    },
                    Cursor::CharacterAbsolute(col) | Cursor::CharacterPositionAbsolute(col) => {
                        Change::CursorPosition {
                            x: Position::Absolute(col.as_zero_based() as usize),
                            y: Position::Relative(0),
                        }
                    }
                    Cursor::Left(n) => rel(-(n as isize), 0),
                    Cursor::Right(n) => rel(n as isize, 0),
                    Cursor::Up(n) => rel(0, -(n as isize)),
                    Cursor::Down(n) => rel(0, n as isize),
                    // Cursor style and saved positions do not change the text.
                    Cursor::CursorStyle(_) | Cursor::SaveCursor | Cursor::RestoreCursor => continue,
                    other => panic!("the test's screen does not know {other:?}"),
                }),
                Action::CSI(CSI::Edit(e)) => Some(match e {
                    Edit::EraseInLine(EraseInLine::EraseToEndOfLine) => {
                        Change::ClearToEndOfLine(Default::default())
                    }
                    Edit::EraseInDisplay(EraseInDisplay::EraseToEndOfDisplay) => {
                        Change::ClearToEndOfScreen(Default::default())
                    }
                    Edit::EraseInDisplay(EraseInDisplay::EraseDisplay) => {
                        Change::ClearScreen(Default::default())
                    }
                    other => panic!("the test's screen does not know {other:?}"),
                }),
                // Colours, modes, titles, clipboard: no text.
                _ => None,
            };
            if let Some(change) = change {
                self.screen.add_change(change);
            }
        }
    }

    fn text(&self) -> String {
        self.screen.screen_chars_to_string()
    }

    /// Waits until the screen satisfies `probe`, applying output as it comes.
    fn wait_for<T>(&mut self, what: &str, mut probe: impl FnMut(&str) -> Option<T>) -> T {
        let end = Instant::now() + TIMEOUT;
        loop {
            let fresh = {
                let (bytes, changed) = &*self.out.0;
                let mut bytes = bytes.lock().unwrap();
                if bytes.len() == self.seen {
                    let left = end.saturating_duration_since(Instant::now());
                    bytes = changed.wait_timeout(bytes, left).unwrap().0;
                }
                let fresh = bytes[self.seen..].to_vec();
                self.seen = bytes.len();
                fresh
            };
            self.apply(&fresh);
            if let Some(v) = probe(&self.text()) {
                return v;
            }
            if Instant::now() >= end {
                panic!("timed out waiting for {what}; the screen:\n{}", self.text());
            }
        }
    }

    fn all_bytes(&self) -> Vec<u8> {
        self.out.0 .0.lock().unwrap().clone()
    }
}

fn rel(x: isize, y: isize) -> Change {
    Change::CursorPosition {
        x: Position::Relative(x),
        y: Position::Relative(y),
    }
}

/// `MARK=<rows> <cols>` as the shell printed it (not the command line that asked for it).
fn size_line(text: &str, mark: &str) -> Option<(u32, u32)> {
    text.lines().find_map(|l| {
        let rest = l.split_once(&format!("{mark}="))?.1;
        let mut it = rest.split_whitespace();
        let rows = it.next()?.parse().ok()?;
        let cols = it.next()?.parse().ok()?;
        Some((rows, cols))
    })
}

/// The real `tuios` binary: `target/<profile>/tuios` beside `target/<profile>/deps/` where this
/// test executable lives.
fn tuios_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let bin = dir.join("tuios");
    assert!(
        bin.is_file(),
        "the tuios binary is missing at {}: build it first (cargo build -p tuios-client)",
        bin.display()
    );
    bin
}

fn tuios(args: &[&str]) -> std::process::Output {
    Command::new(tuios_bin())
        .args(args)
        .output()
        .expect("the tuios binary runs")
}

/// Stops the daemon when the child ends, even on a failure.
struct KillServer;

impl Drop for KillServer {
    fn drop(&mut self) {
        let _ = tuios(&["kill-server"]);
    }
}

/// One attach on a thread: the far end's screen, its input handle, and the thread.
struct Attached {
    far: Far,
    input: super::StreamInput,
    thread: std::thread::JoinHandle<Result<AttachEnd, crate::failure::Failure>>,
}

fn attach(socket: &Path, session: &str) -> Attached {
    let out = Output::default();
    let (term, input) =
        StreamTerminal::new(Box::new(out.clone()), 80, 24, Some("xterm-256color"), None);
    let socket = socket.to_path_buf();
    let name = session.to_string();
    let thread = std::thread::spawn(move || attach_stream(&socket, Some(name), false, term));
    Attached {
        far: Far::new(out, 80, 24),
        input,
        thread,
    }
}

fn child() {
    let socket = PathBuf::from(std::env::var("TUIOS_SOCKET").expect("TUIOS_SOCKET"));
    let _stop = KillServer;
    for name in ["one", "two"] {
        let out = tuios(&["new", "-d", name]);
        assert!(out.status.success(), "tuios new -d {name}: {out:?}");
    }
    let mut a = attach(&socket, "one");
    let mut b = attach(&socket, "two");

    // Typed on each stream, run by each session's shell, drawn on that stream only.
    a.input.send(b"echo one-$((40+2))\r");
    b.input
        .try_send(b"echo two-$((50+5))\r")
        .expect("room for a line of input");
    a.far
        .wait_for("one's echo", |t| t.contains("one-42").then_some(()));
    b.far
        .wait_for("two's echo", |t| t.contains("two-55").then_some(()));
    assert!(!a.far.text().contains("two-55"), "{}", a.far.text());
    assert!(!b.far.text().contains("one-42"), "{}", b.far.text());

    // A size change reaches the program in the window: 20 more columns, 6 more rows.
    a.input.send(b"echo A=$(stty size)\r");
    let before = a.far.wait_for("stty size", |t| size_line(t, "A"));
    a.input.resize(100, 30);
    a.far.resize(100, 30);
    // The new size travels client -> daemon -> the window's PTY while the next command is
    // typed: ask again until the program sees a change (or the deadline passes).
    let end = Instant::now() + TIMEOUT;
    let mut ask = 0;
    let after = loop {
        ask += 1;
        let mark = format!("B{ask}");
        a.input
            .send(format!("echo {mark}=$(stty size)\r").as_bytes());
        let seen = a
            .far
            .wait_for("stty size after the resize", |t| size_line(t, &mark));
        if seen != before || Instant::now() >= end {
            break seen;
        }
    };
    assert_eq!(
        (after.0 - before.0, after.1 - before.1),
        (6, 20),
        "before {before:?}, after {after:?}"
    );

    // The far end going away is a detach; the stream is left on the main screen.
    a.input.close();
    let end = a.thread.join().expect("attach thread").expect("attach");
    assert_eq!(
        end,
        AttachEnd::Detached {
            session: "one".into()
        }
    );
    assert!(a.input.is_gone());
    assert_eq!(a.input.try_send(b"x"), Err(SendError::Gone));
    let bytes = String::from_utf8_lossy(&a.far.all_bytes()).into_owned();
    let tail = &bytes[bytes
        .rfind("\x1b[?1049l")
        .expect("left the alternate screen")..];
    assert!(tail.contains("[detached from session one]"), "{tail:?}");
    // The other attach carries on. A bracketed paste with a line end in it is held by the
    // Lumen rules (pastejacking) and offered in a dialog, as on a local terminal.
    b.input.send(b"\x1b[200~echo pasted-$((2+3))\r\x1b[201~");
    b.far.wait_for("the paste dialog", |t| {
        t.contains("[p] paste").then_some(())
    });
    b.input.send(b"\x1b");
    b.far.wait_for("the dialog gone", |t| {
        (!t.contains("[p] paste")).then_some(())
    });
    b.input.send(b"echo still-$((6*7))\r");
    b.far.wait_for("two still attached", |t| {
        t.contains("still-42").then_some(())
    });
    assert!(!b.far.text().contains("pasted-5"), "{}", b.far.text());
    drop(b.input);
    let end = b.thread.join().expect("attach thread").expect("attach");
    assert_eq!(
        end,
        AttachEnd::Detached {
            session: "two".into()
        }
    );
}

#[test]
fn two_stream_attaches_type_see_and_resize() {
    if std::env::var_os(CHILD_VAR).is_some() {
        child();
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let socket = dir.path().join("tuios.sock");
    let mut run = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "tui::stream::tests::two_stream_attaches_type_see_and_resize",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_VAR, dir.path())
        .env("TUIOS_SOCKET", &socket)
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .env("SHELL", "/bin/sh")
        .env("PS1", "$ ")
        .spawn()
        .expect("the test runs itself");
    // Each wait in the child has its own deadline; this one catches a hang between them.
    let end = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(status) = run.try_wait().expect("the child test") {
            break status;
        }
        if Instant::now() >= end {
            let _ = run.kill();
            let _ = run.wait();
            panic!("the attach test did not finish in 180 s (its output is above)");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "the attach test failed (its output is above)"
    );
}
