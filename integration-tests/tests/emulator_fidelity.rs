//! Emulator fidelity through a real window: a program writes a byte stream (`cat FILE` under
//! /bin/sh, output post-processing off) and `capture-pane`, plain and styled, must show what
//! xterm shows. One test per behaviour that was wrong (issue 16), plus the OSC and title caps
//! (issue 13).

use std::fs;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};
use tuios_integration_tests::*;

/// A window of `cols` x `rows` that writes `bytes` once it has that size, then stays.
struct Shown<'a> {
    conn: JsonConn,
    session: &'a str,
    window: String,
    dir: PathBuf,
}

/// Waits for a go on `$1/fifo`, then runs `$2` (a shell command) with output post-processing
/// off, so a line feed is a line feed; then stays, so the screen stays.
const SCRIPT: &str = r#"d=$1
stty -opost -echo
read go < "$d/fifo"
eval "$2"
: > "$d/done"
exec sleep 1000
"#;

impl<'a> Shown<'a> {
    /// A window running `command` (a shell command line, `$d` its directory) at the given
    /// size.
    fn command(daemon: &TestDaemon, session: &'a str, cols: u16, rows: u16, command: &str) -> Self {
        let shown = Self::window(daemon, session, cols, rows, command);
        shown.go();
        shown
    }

    fn window(daemon: &TestDaemon, session: &'a str, cols: u16, rows: u16, command: &str) -> Self {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = daemon
            .dir()
            .join(format!("fidelity-{}", N.fetch_add(1, Ordering::Relaxed)));
        fs::create_dir_all(&dir).expect("case directory");
        let script = dir.join("run.sh");
        fs::write(&script, SCRIPT).expect("script");
        let fifo = std::ffi::CString::new(dir.join("fifo").to_str().expect("UTF-8")).expect("path");
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo");
        let mut conn = daemon.conn();
        let argv = json!([
            "/bin/sh",
            script.to_str().expect("UTF-8"),
            dir.to_str().expect("UTF-8"),
            command
        ]);
        let window = conn.new_window_id(session, json!({ "command": argv }));
        conn.ok(
            "resize",
            json!({"session": session, "window": window, "width": cols, "height": rows}),
        );
        Shown {
            conn,
            session,
            window,
            dir,
        }
    }

    /// A window that writes `bytes` (from a file in its directory).
    fn bytes(daemon: &TestDaemon, session: &'a str, cols: u16, rows: u16, bytes: &[u8]) -> Self {
        let shown = Self::window(daemon, session, cols, rows, r#"cat "$d/bytes""#);
        fs::write(shown.dir.join("bytes"), bytes).expect("bytes file");
        shown.go();
        shown.wait_done();
        shown
    }

    fn go(&self) {
        let fifo = self.dir.join("fifo");
        let mut file = poll(DEADLINE, "the window's script to open its FIFO", || {
            fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo)
                .map_err(|e| e.to_string())
        });
        file.write_all(b"go\n").expect("write the FIFO");
    }

    fn wait_done(&self) {
        let done = self.dir.join("done");
        poll(DEADLINE, "the window's program to finish writing", || {
            done.exists().then_some(()).ok_or("not yet".to_string())
        });
    }

    fn capture(&mut self, extra: Value) -> String {
        let (session, window) = (self.session, self.window.clone());
        self.conn.capture(session, &window, extra)
    }

    /// The capture the program's output settles to: polls until it equals `want`.
    fn expect(&mut self, extra: Value, want: &str) {
        let (session, window) = (self.session, self.window.clone());
        let conn = &mut self.conn;
        poll(DEADLINE, &format!("capture {extra} to be {want:?}"), || {
            let got = conn.capture(session, &window, extra.clone());
            if got == want {
                Ok(())
            } else {
                Err(format!("last capture {got:?}"))
            }
        });
    }

    fn resize(&mut self, cols: u16, rows: u16) {
        let p =
            json!({"session": self.session, "window": self.window, "width": cols, "height": rows});
        self.conn.ok("resize", p);
    }

    fn row(&mut self) -> Value {
        let (session, window) = (self.session, self.window.clone());
        self.conn.window_row(session, &window)
    }
}

fn plain() -> Value {
    json!({})
}

fn styled() -> Value {
    json!({"styled": true})
}

fn recent() -> Value {
    json!({"source": "recent"})
}

#[test]
fn dch_with_a_large_count_keeps_cells_left_of_the_cursor() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let mut w = Shown::bytes(&daemon, &session, 10, 2, b"0123456789\x1b[1;6H\x1b[99P");
    w.expect(plain(), "01234\n");
    let mut w = Shown::bytes(
        &daemon,
        &session,
        10,
        1,
        b"0123456789\x1b[1;3H\x1b[44m\x1b[2P\x1b[m",
    );
    w.expect(styled(), "01456789\x1b[44m  \x1b[m");
}

#[test]
fn cuu_and_cud_respect_the_scroll_margins() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let mut w = Shown::bytes(
        &daemon,
        &session,
        10,
        8,
        b"\x1b[3;6r\x1b[5;1H\x1b[10AU\x1b[10BD\x1b[1;1H\x1b[20Ba",
    );
    w.expect(plain(), "\n\nU\n\n\naD\n\n");
}

#[test]
fn relative_moves_in_origin_mode_add_the_margin_once() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let mut w = Shown::bytes(
        &daemon,
        &session,
        10,
        8,
        b"\x1b[3;6r\x1b[?6h\x1b[2;1HX\x1b[AY\x1b[2BZ\x1b[5GW",
    );
    w.expect(plain(), "\n\n Y\nX\n  Z W\n\n\n");
}

#[test]
fn dl_at_the_top_margin_does_not_feed_the_scrollback() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let mut w = Shown::bytes(
        &daemon,
        &session,
        10,
        3,
        b"one\r\ntwo\r\nthree\x1b[H\x1b[2M",
    );
    w.expect(plain(), "three\n\n");
    w.expect(recent(), "three\n\n");
}

#[test]
fn rep_repeats_only_right_after_a_printed_character() {
    // xterm (and vttest 11.7): a REP after another control, a REP included, does nothing.
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let mut w = Shown::bytes(
        &daemon,
        &session,
        12,
        1,
        b"ab\x1b[2b\x1b[3b\x1b[31m\x1b[1b\x1b[m",
    );
    w.expect(plain(), "abbb");
    w.expect(styled(), "abbb        ");
}

#[test]
fn blink_and_sgr_21_show_in_styled_capture() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let mut w = Shown::bytes(
        &daemon,
        &session,
        8,
        1,
        b"\x1b[5mB\x1b[25mn\x1b[6mF\x1b[m\x1b[21mD\x1b[24mu",
    );
    w.expect(plain(), "BnFDu");
    w.expect(styled(), "\x1b[5mB\x1b[mn\x1b[5mF\x1b[0;4:2mD\x1b[mu   ");
}

#[test]
fn alternate_screens_47_and_1047() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    for mode in ["47", "1047"] {
        let shown = format!("main\x1b[?{mode}h\x1b[2;1Halt");
        let mut w = Shown::bytes(&daemon, &session, 10, 2, shown.as_bytes());
        w.expect(plain(), "\nalt");
        let back = format!("main\x1b[?{mode}h\x1b[2;1Halt\x1b[?{mode}lX");
        let mut w = Shown::bytes(&daemon, &session, 10, 2, back.as_bytes());
        // Back on the main screen, where the program's cursor was (no restore for 47/1047).
        w.expect(plain(), "main\n   X");
    }
}

#[test]
fn mode_1048_restores_the_cursor_after_leaving_1047() {
    // vttest 11.8.7: DECSC at 7;5, `?1048h` at 9;7, the alternate screen's own DECSC at
    // 15;7; back on the main screen DECRC and `?1048l` must land on 9;7.
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let mut w = Shown::bytes(
        &daemon,
        &session,
        20,
        20,
        b"\x1b[7;5H\x1b7\x1b[9;7H\x1b[?1048h\x1b[?1047h\x1b#8\x1b[15;7H\x1b7\x1b[18;1H\
          \x1b[?1047l\x1b8\x1b[?1048lX",
    );
    w.expect(
        plain(),
        &format!("{}      X{}", "\n".repeat(8), "\n".repeat(11)),
    );
}

#[test]
fn narrowing_then_widening_keeps_the_rows_in_use() {
    // 24 rows of 60 columns at 80x24; at 40 columns each takes two rows, pushing half of
    // them into the scrollback; back at 80 all 24 are on the screen again (tmux reflows
    // them back) and the scrollback is empty.
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let lines: Vec<String> = (0..24)
        .map(|i| format!("{i:02}{}", "x".repeat(58)))
        .collect();
    let mut w = Shown::bytes(&daemon, &session, 80, 24, lines.join("\r\n").as_bytes());
    let full = lines.join("\n");
    w.expect(plain(), &full);
    w.resize(40, 24);
    let narrow: Vec<String> = lines[12..]
        .iter()
        .map(|l| format!("{}\n{}", &l[..40], &l[40..]))
        .collect();
    w.expect(plain(), &narrow.join("\n"));
    w.resize(80, 24);
    w.expect(plain(), &full);
    w.expect(recent(), &full);
}

#[test]
fn growing_a_window_brings_its_scrollback_back() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let mut w = Shown::bytes(
        &daemon,
        &session,
        10,
        3,
        b"l1\r\nl2\r\n\x1b[31ml3\x1b[m\r\nl4\r\nl5",
    );
    w.expect(recent(), "l1\nl2\nl3\nl4\nl5");
    w.expect(plain(), "l3\nl4\nl5");
    w.resize(10, 5);
    w.expect(plain(), "l1\nl2\nl3\nl4\nl5");
    w.resize(10, 2);
    w.expect(plain(), "l4\nl5");
    w.resize(10, 5);
    w.expect(plain(), "l1\nl2\nl3\nl4\nl5");
    let styled = w.capture(styled());
    assert!(
        styled
            .split('\n')
            .nth(2)
            .is_some_and(|row| row.starts_with("\x1b[31ml3\x1b[m")),
        "{styled:?}"
    );
    w.expect(recent(), "l1\nl2\nl3\nl4\nl5");
}

#[test]
fn a_huge_unterminated_osc_is_dropped_and_memory_stays_bounded() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let rss_before = rss_kib(daemon.pid());
    // 100 MiB of an OSC 2 title that never ends within the limit, then a terminator.
    let mut w = Shown::command(
        &daemon,
        &session,
        20,
        2,
        r"printf '\033]2;'; head -c 104857600 /dev/zero | tr '\0' x; printf '\007after'",
    );
    w.wait_done();
    w.expect(plain(), "after\n");
    let rss_after = rss_kib(daemon.pid());
    // A window's emulator holds at most 64 KiB of an OSC string.
    assert!(
        rss_after < rss_before + 32 * 1024,
        "daemon RSS grew from {rss_before} KiB to {rss_after} KiB"
    );
    let row = w.row();
    assert!(
        !row["title"].as_str().unwrap_or("").contains("xxxx"),
        "the dropped OSC set the title: {row}"
    );
}

#[test]
fn titles_are_capped_at_4_kib() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    let title = format!("\x1b]2;{}\x07t", "y".repeat(10_000));
    let mut w = Shown::bytes(&daemon, &session, 10, 1, title.as_bytes());
    w.expect(plain(), "t");
    // Titles reach the session in the window's next event batch, a little after the screen.
    let row = wait_until(Duration::from_secs(10), "the retitle", || {
        let row = w.row();
        row["title"]
            .as_str()
            .is_some_and(|t| t.starts_with('y'))
            .then_some(row)
    });
    let shown = row["title"].as_str().unwrap_or("");
    assert_eq!(shown.len(), 4096, "title of {} bytes: {row}", shown.len());
}

/// Needs the daemon's send-keys to consult the window's DECCKM state (see the report of
/// issue 16: `Emulator::app_cursor()` and `protocol::keys::keys_to_bytes_in`).
#[test]
fn send_keys_honours_application_cursor_mode() {
    let daemon = TestDaemon::start();
    let session = daemon.new_session("fid");
    for (mode, want) in [("l", b"\x1b[A\x1b[H"), ("h", b"\x1bOA\x1bOH")] {
        let command = format!(
            r#"printf '\033[?1{mode}ready'; stty raw -echo; dd bs=1 count=6 of="$d/keys" 2>/dev/null"#
        );
        let mut w = Shown::command(&daemon, &session, 20, 1, &command);
        w.expect(plain(), "ready");
        let (session, window) = (w.session, w.window.clone());
        w.conn.send_keys(session, &window, "Up Home");
        w.wait_done();
        let got = fs::read(w.dir.join("keys")).expect("keys file");
        assert_eq!(got, want, "DECCKM {mode}");
    }
}

fn rss_kib(pid: u32) -> u64 {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}
