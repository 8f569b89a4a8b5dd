//! The Lumen input rules (issue 7) end to end: a real daemon, the real attach client running
//! inside a tmux server of the test's own (tmux plays the outer terminal: it delivers real
//! bracketed pastes, keys and mouse reports), and programs in the windows that show every byte
//! they receive, `cat -v` in raw mode.
//!
//! What a program received is read with `capture-pane`; what the client shows (dialogs, notices,
//! the mode badge) with `tmux capture-pane`. "Nothing arrived" is proven with a barrier: once the
//! client has shown the outcome (which it does only after the daemon decided), `send-text` writes
//! a tag to the window, and the program must show the tag and nothing before it.
//! Every pasted payload is also run through `tuios paste-check`, which must agree with what the
//! program received or what the client held.

use serde_json::{json, Value};
use std::path::Path;
use tuios_integration_tests::*;

/// Bracketed paste on (DECSET 2004), raw input, every byte shown by `cat -v`; `READY` marks
/// the start of what the program received. `opost` stays on so a received LF starts a new line.
const BRACKETED_CAT: &str =
    r"printf '\033[?2004h'; stty raw -echo opost; printf READY; exec cat -v";
/// The same without bracketed paste.
const PLAIN_CAT: &str = "stty raw -echo opost; printf READY; exec cat -v";
/// A full-screen program: the alternate screen, then every byte shown.
const FULL_SCREEN_CAT: &str =
    r"printf '\033[?1049h\033[H'; stty raw -echo opost; printf READY; exec cat -v";
/// Asks for focus reports (mode 1004), then shows every byte.
const FOCUS_CAT: &str = r"printf '\033[?1004h'; stty raw -echo opost; printf READY; exec cat -v";
/// Asks for SGR mouse reports, then shows every byte.
const MOUSE_CAT: &str =
    r"printf '\033[?1000h\033[?1006h'; stty raw -echo opost; printf READY; exec cat -v";

const SESSION: &str = "lumen";

/// A daemon with one session whose windows run the given programs, and the client attached.
struct Rig {
    // Declared first: the client goes before the daemon.
    tmux: TmuxClient,
    conn: JsonConn,
    windows: Vec<String>,
    daemon: TestDaemon,
}

impl Rig {
    /// One window per `(name, script)`, in order (the last one has the focus), each started
    /// and showing `READY` before the client attaches. None when tmux is not installed.
    fn start(programs: &[(&str, &str)]) -> Option<Rig> {
        Rig::start_with(programs, |_| {})
    }

    /// [`Rig::start`], with `setup` run on the test's environment before the client attaches
    /// (to write the user's policy file, say).
    fn start_with(programs: &[(&str, &str)], setup: impl FnOnce(&TestEnv)) -> Option<Rig> {
        require_tmux!(None);
        let daemon = TestDaemon::start();
        setup(daemon.env());
        let (_, shell) = daemon.session_with_window(SESSION);
        let mut conn = daemon.conn();
        // Notices stay up for the whole test, so each new one can be counted on screen.
        conn.ok(
            "set-option",
            json!({"session": SESSION, "key": "notifications.duration", "value": "60"}),
        );
        let windows: Vec<String> = programs
            .iter()
            .map(|(name, script)| {
                conn.new_window_id(
                    SESSION,
                    json!({"name": name, "command": ["/bin/sh", "-c", script]}),
                )
            })
            .collect();
        for w in &windows {
            conn.wait_for_text(SESSION, w, "READY");
        }
        conn.ok("close-window", json!({"session": SESSION, "window": shell}));
        let tmux = TmuxClient::start(daemon.env(), SESSION, 100, 30);
        // The client starts in terminal mode; these tests start from window management (whose
        // shorter dock hint leaves room for every window's full name).
        tmux.wait_mode("TERM");
        tmux.leader("Escape");
        tmux.wait_screen("the client with every window", |s| {
            dock(s).is_some_and(|(_, d)| {
                d.ends_with(" WM")
                    && programs
                        .iter()
                        .enumerate()
                        .all(|(i, (name, _))| d.contains(&format!("{}:{name}", i + 1)))
            })
        });
        Some(Rig {
            tmux,
            conn,
            windows,
            daemon,
        })
    }

    /// Into terminal mode: keys go to the focused window.
    fn terminal_mode(&self) {
        self.tmux.send_keys(&["i"]);
        self.tmux.wait_mode("TERM");
    }

    /// What the program in `window` has received so far, as `cat -v` shows it.
    fn received(&mut self, window: &str) -> String {
        received_in(&self.conn.capture(SESSION, window, json!({})))
    }

    /// Polls until the program in `window` has received exactly `expected` (trailing blanks
    /// aside: the screen does not show them).
    fn wait_received(&mut self, window: &str, expected: &str) {
        let expected = expected.trim_end();
        let what = format!("the program to have received exactly {expected:?}");
        self.wait_received_until(window, &what, |got| got == expected);
    }

    /// Polls until what the program received satisfies `pred`; returns it.
    fn wait_received_until(
        &mut self,
        window: &str,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> String {
        poll(DEADLINE, what, || {
            let got = self.received(window);
            if pred(&got) {
                Ok(got)
            } else {
                Err(format!("the program received {got:?}"))
            }
        })
    }

    /// Writes `tag` to the window through the daemon and waits until the program has received
    /// exactly `before` followed by the tag: whatever reached the window earlier is in `before`.
    fn barrier(&mut self, window: &str, before: &str, tag: &str) -> String {
        self.conn.send_text(SESSION, window, tag);
        let expected = format!("{before}{tag}");
        self.wait_received(window, &expected);
        expected
    }

    fn paste_check(&self, paste: &[u8], bracketed: bool) -> Value {
        paste_check(self.daemon.env(), paste, bracketed)
    }

    fn wait_focused(&mut self, window: &str) {
        poll(
            DEADLINE,
            &format!("window {window} to have the focus"),
            || {
                let list = self.conn.ok("list-windows", json!({"session": SESSION}));
                if list["focused_window_id"] == window {
                    Ok(())
                } else {
                    Err(list.to_string())
                }
            },
        );
    }
}

/// The part of a capture after the program's `READY`, with line ends trimmed as the screen
/// cannot tell trailing blanks from nothing.
fn received_in(capture: &str) -> String {
    let after = capture.split_once("READY").map_or("", |(_, rest)| rest);
    let lines: Vec<&str> = after.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end().to_string()
}

/// How `cat -v` shows `bytes` (LF and TAB as themselves, other controls `^X`, DEL `^?`, bytes
/// from 0x80 as `M-` and the rest).
fn cat_v(bytes: &[u8]) -> String {
    let mut s = String::new();
    for &b in bytes {
        let (meta, c) = if b >= 0x80 {
            (true, b - 0x80)
        } else {
            (false, b)
        };
        if meta {
            s.push_str("M-");
        }
        match c {
            b'\n' | b'\t' if !meta => s.push(char::from(c)),
            0..=0x1f => {
                s.push('^');
                s.push(char::from(c + 0x40));
            }
            0x7f => s.push_str("^?"),
            _ => s.push(char::from(c)),
        }
    }
    s
}

/// A paste-check field as `cat -v` would show those bytes.
fn shown(report: &Value, field: &str) -> String {
    let escaped = report[field]
        .as_str()
        .unwrap_or_else(|| panic!("paste-check report without {field}: {report}"));
    cat_v(&unescape(escaped))
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("temporary paths are UTF-8")
}

#[test]
fn bracket_escapes_in_a_paste_never_reach_the_program() {
    let Some(mut rig) = Rig::start(&[("br", BRACKETED_CAT)]) else {
        return;
    };
    let w = rig.windows[0].clone();
    rig.terminal_mode();
    let dir = rig.daemon.dir().to_path_buf();
    let pwned: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|s| dir.join(format!("PWNED-{s}")))
        .collect();

    // The classic: close the bracket early, then a second command. tmux 3.3a pastes the bytes
    // unfiltered, so the client's own terminal parser (termwiz) already ends the paste at that
    // marker: the client gets "echo safe" as the paste and the rest as typed keys, which no
    // terminal can tell from typing. The program must see one bracket pair with no escape
    // inside, exactly what paste-check makes of the part delivered as the paste.
    let payload = format!("echo safe\x1b[201~; touch {}\n", path_str(&pwned[0]));
    rig.tmux.paste(payload.as_bytes());
    let got = rig.wait_received_until(&w, "the paste and the typed rest", |r| {
        // The typed rest ends with the Enter the line feed became.
        r.contains("^[[201~") && r.contains("PWNED-a^M")
    });
    assert_eq!(got.matches("^[[200~").count(), 1, "{got:?}");
    assert_eq!(got.matches("^[[201~").count(), 1, "{got:?}");
    assert_eq!(
        got.matches("^[").count(),
        2,
        "an ESC inside the paste: {got:?}"
    );
    let delivered = b"echo safe";
    let report = rig.paste_check(delivered, true);
    assert_eq!(report["action"], "send", "{report}");
    let expected = shown(&report, "bytes");
    assert_eq!(expected, "^[[200~echo safe^[[201~");
    assert!(got.contains(&expected), "{got:?} lacks {expected:?}");
    // Barriers end with a line feed, so no line of what the program shows wraps.
    let mut seen = rig.barrier(&w, &got, "#A\n");

    // The 8-bit spelling of the end marker (U+009B, C1 CSI) and a broken-up ESC spelling reach
    // the client whole: the daemon must strip them, so the program gets the text in one
    // bracket pair, exactly as paste-check says.
    let cases = [
        format!("echo safe\u{9b}201~; touch {}\n", path_str(&pwned[1])),
        format!(
            "echo safe\x1b[201\x1b~\x03\x7f; touch {}\n",
            path_str(&pwned[2])
        ),
    ];
    for (i, payload) in cases.iter().enumerate() {
        let report = rig.paste_check(payload.as_bytes(), true);
        assert_eq!(report["action"], "send", "{report}");
        let expected = shown(&report, "bytes");
        let inner = expected
            .strip_prefix("^[[200~")
            .and_then(|r| r.strip_suffix("^[[201~"))
            .unwrap_or_else(|| panic!("paste-check did not wrap {payload:?}: {expected:?}"));
        assert!(
            !inner.contains("^[") && !inner.contains("M-") && !inner.contains("^C"),
            "{inner:?}"
        );
        rig.tmux.paste(payload.as_bytes());
        rig.wait_received(&w, &format!("{seen}{expected}"));
        seen = rig.barrier(&w, &format!("{seen}{expected}"), &format!("#{i}\n"));
    }
    for p in &pwned {
        assert!(!p.exists(), "{} was created", p.display());
    }
}

#[test]
fn multi_line_paste_without_bracketed_paste_is_held_until_confirmed() {
    let Some(mut rig) = Rig::start(&[("plain", PLAIN_CAT)]) else {
        return;
    };
    let w = rig.windows[0].clone();
    rig.terminal_mode();
    let held = |s: &str| s.contains("held paste");

    // Held: the dialog shows the text with its line breaks visible, and nothing is written.
    let payload = b"echo one\necho two\n";
    let report = rig.paste_check(payload, false);
    assert_eq!(report["action"], "hold", "{report}");
    let preview = report["preview"].as_str().expect("a preview").to_string();
    assert_eq!(preview, r"echo one\necho two\n");
    rig.tmux.paste(payload);
    rig.tmux
        .wait_screen("the held-paste dialog", |s| held(s) && s.contains(&preview));
    let mut seen = rig.barrier(&w, "", "#1");
    // Still held after the barrier: the dialog is up and nothing but the barrier arrived.
    assert!(held(&rig.tmux.capture()));
    // "One line": exactly the one line paste-check computes, no line break at all.
    rig.tmux.send_keys(&["o"]);
    rig.tmux.wait_screen("the dialog to close", |s| !held(s));
    let one_line = shown(&report, "one_line");
    assert_eq!(one_line, "echo one echo two");
    rig.wait_received(&w, &format!("{seen}{one_line}"));
    seen = rig.barrier(&w, &format!("{seen}{one_line}"), "#2");

    // Cancel: nothing at all.
    let payload = b"rm -rf ~\n";
    let report = rig.paste_check(payload, false);
    assert_eq!(report["action"], "hold", "{report}");
    rig.tmux.paste(payload);
    rig.tmux.wait_screen("the held-paste dialog", |s| {
        held(s) && s.contains(report["preview"].as_str().unwrap())
    });
    rig.tmux.send_keys(&["Escape"]);
    rig.tmux.wait_screen("the dialog to close", |s| !held(s));
    seen = rig.barrier(&w, &seen, "#3");

    // A control character: shown as an escape in the dialog; "paste" strips it, "keep
    // controls" keeps it; both exactly as paste-check says.
    let payload = b"a\x03b\nc";
    let report = rig.paste_check(payload, false);
    assert_eq!(report["action"], "hold", "{report}");
    assert_eq!(report["has_controls"], true, "{report}");
    let preview = report["preview"].as_str().unwrap().to_string();
    assert_eq!(preview, r"a\x03b\nc");
    for (key, field, tag) in [("p", "bytes", "#4"), ("k", "keep_controls", "#5")] {
        rig.tmux.paste(payload);
        rig.tmux
            .wait_screen("the held-paste dialog with keep controls", |s| {
                held(s) && s.contains(&preview) && s.contains("[k] keep controls")
            });
        rig.tmux.send_keys(&[key]);
        rig.tmux.wait_screen("the dialog to close", |s| !held(s));
        let expected = shown(&report, field);
        rig.wait_received(&w, &format!("{seen}{expected}"));
        seen = rig.barrier(&w, &format!("{seen}{expected}"), tag);
    }
    assert_eq!(
        seen, "#1echo one echo two#2#3ab\nc#4a^Cb\nc#5",
        "what the program received in all"
    );
}

#[test]
fn paste_with_a_frame_introducer_is_rejected_with_a_notice() {
    let Some(mut rig) = Rig::start(&[("br", BRACKETED_CAT), ("nb", PLAIN_CAT)]) else {
        return;
    };
    let (br, nb) = (rig.windows[0].clone(), rig.windows[1].clone());
    let payload = b"\x1b_lumen;v=0,t=x,id=1;AA\x1b\\";
    for bracketed in [false, true] {
        let report = rig.paste_check(payload, bracketed);
        assert_eq!(report["action"], "reject", "{report}");
        assert_eq!(report["bytes"], "", "{report}");
        assert!(
            report["reason"].as_str().unwrap().contains("introducer"),
            "{report}"
        );
    }
    let notices = |s: &str| s.matches("introducer").count();

    // Into the window without bracketed paste (it has the focus): rejected, not held.
    rig.tmux.paste(payload);
    let screen = rig
        .tmux
        .wait_screen("the rejection notice", |s| notices(s) == 1);
    assert!(!screen.contains("held paste"), "{screen}");
    rig.barrier(&nb, "", "#1");

    // Into the window with bracketed paste.
    rig.tmux.send_keys(&["h"]);
    rig.wait_focused(&br);
    rig.tmux.paste(payload);
    rig.tmux
        .wait_screen("a second rejection notice", |s| notices(s) == 2);
    rig.barrier(&br, "", "#2");
    for w in [&br, &nb] {
        let all = rig.conn.capture(SESSION, w, json!({"source": "recent"}));
        assert!(!all.contains("lumen") && !all.contains("AA"), "{all:?}");
    }
}

#[test]
fn focus_return_chord_takes_focus_back_without_the_program_seeing_it() {
    let Some(mut rig) = Rig::start(&[("full", FULL_SCREEN_CAT)]) else {
        return;
    };
    let w = rig.windows[0].clone();
    rig.terminal_mode();
    // The chord's hint is chrome only: in the dock, never in the window.
    let screen = rig.tmux.capture();
    assert!(
        dock(&screen).is_some_and(|(_, d)| d.contains("ctrl+shift+esc")),
        "{screen}"
    );
    // Keys do reach the program in terminal mode.
    rig.tmux.send_keys(&["-l", "x"]);
    rig.wait_received(&w, "x");

    // The kitty CSI u form, then xterm's modifyOtherKeys form.
    let mut seen = "x".to_string();
    for (i, chord) in [&b"\x1b[27;6u"[..], b"\x1b[27;6;27~"].iter().enumerate() {
        rig.tmux.send_hex(chord);
        rig.tmux.wait_mode("WM");
        seen = rig.barrier(&w, &seen, &format!("#{i}"));
        rig.terminal_mode();
    }
    assert_eq!(seen, "x#0#1");
    let content = rig.conn.capture(SESSION, &w, json!({}));
    assert!(!content.contains("ctrl+shift"), "{content:?}");
}

#[test]
fn programs_that_enable_focus_reporting_get_no_focus_reports() {
    let Some(mut rig) = Rig::start(&[("left", FOCUS_CAT), ("right", FOCUS_CAT)]) else {
        return;
    };
    let (left, right) = (rig.windows[0].clone(), rig.windows[1].clone());
    rig.tmux
        .tmux_ok(&["set-option", "-g", "focus-events", "on"]);

    // Focus moves in the client: keys in window-management mode, the verb, a click.
    for (key, target) in [("h", &left), ("l", &right), ("n", &left), ("p", &right)] {
        rig.tmux.send_keys(&[key]);
        rig.wait_focused(target);
    }
    rig.conn
        .ok("focus-window", json!({"session": SESSION, "window": left}));
    rig.wait_focused(&left);
    // A click inside the right window's content (neither program asked for mouse reports); it
    // also enters terminal mode, which the chord leaves.
    rig.tmux.send_hex(b"\x1b[<0;75;10M\x1b[<0;75;10m");
    rig.wait_focused(&right);
    rig.tmux.wait_mode("TERM");
    rig.tmux.send_hex(b"\x1b[27;6u");
    rig.tmux.wait_mode("WM");

    // Focus moves in the outer terminal: another tmux window and pane, and back.
    rig.tmux
        .tmux_ok(&["new-window", "-d", "-t", "t:5", "sleep 600"]);
    rig.tmux.tmux_ok(&["select-window", "-t", "t:5"]);
    rig.tmux.tmux_ok(&["select-window", "-t", "t:0"]);
    rig.tmux
        .tmux_ok(&["split-window", "-d", "-t", "t:0", "-l", "3", "sleep 600"]);
    rig.tmux.tmux_ok(&["select-pane", "-t", "t:0.1"]);
    rig.tmux.tmux_ok(&["select-pane", "-t", "t:0.0"]);

    // Nothing but the barriers arrived.
    rig.barrier(&left, "", "#L");
    rig.barrier(&right, "", "#R");
}

#[test]
fn focus_reports_from_the_outer_terminal_are_not_passed_to_programs() {
    // An outer terminal that still has focus reporting on (a program before the client turned
    // it on and never off) sends CSI I / CSI O; they must not reach a window as input.
    let Some(mut rig) = Rig::start(&[("focus", FOCUS_CAT)]) else {
        return;
    };
    let w = rig.windows[0].clone();
    rig.terminal_mode();
    rig.tmux.send_hex(b"\x1b[I");
    rig.tmux.send_hex(b"\x1b[O");
    rig.tmux.send_keys(&["-l", "x"]);
    let got = rig.wait_received_until(&w, "the typed x", |r| r.ends_with('x'));
    assert_eq!(got, "x", "focus reports reached the program");
}

#[test]
fn failed_frames_on_output_are_dropped_counted_and_noticed() {
    // Each frame is printed once the client is attached (a byte of input releases it), so its
    // notice has someone to reach.
    let script = r"stty raw -echo opost; printf READY; head -c1 >/dev/null; printf 'A\033_lumen;v=0,t=focus,id=1;AA\033\\B'; head -c1 >/dev/null; printf 'C\033_lumen;v=0,t=blk,id=2,o=t;AA\033\\D'; exec cat -v";
    let Some(mut rig) = Rig::start(&[("emit", script)]) else {
        return;
    };
    let w = rig.windows[0].clone();
    let notices = |s: &str| s.matches("dropped a Lumen frame").count();
    assert_eq!(rig.conn.window_row(SESSION, &w)["failed_frames"], 0);

    rig.conn.send_text(SESSION, &w, "x");
    rig.wait_received(&w, "AB");
    let screen = rig
        .tmux
        .wait_screen("the dropped-frame notice", |s| notices(s) == 1);
    assert!(screen.contains("terminal_origin"), "{screen}");
    assert_eq!(rig.conn.window_row(SESSION, &w)["failed_frames"], 1);

    rig.conn.send_text(SESSION, &w, "y");
    rig.wait_received(&w, "ABCD");
    rig.tmux
        .wait_screen("a second dropped-frame notice", |s| notices(s) == 2);
    assert_eq!(rig.conn.window_row(SESSION, &w)["failed_frames"], 2);

    // Never rendered: no trace in the screen or the scrollback.
    let all = rig.conn.capture(SESSION, &w, json!({"source": "recent"}));
    assert!(
        !all.contains("lumen") && !all.contains("AA") && !all.contains('_'),
        "{all:?}"
    );
    assert_eq!(received_in(&all), "ABCD");
}

#[test]
fn decrqm_reports_focus_and_in_band_resize_as_permanently_reset() {
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window(SESSION);
    let mut conn = daemon.conn();
    // Asked to turn both on first: requests to enable them are ignored.
    let script = r"stty raw -echo opost; printf '\033[?1004h\033[?2048h'; printf READY; printf '\033[?1004$p\033[?2048$p'; exec cat -v";
    let w = conn.new_window_id(
        &session,
        json!({"name": "rq", "command": ["/bin/sh", "-c", script]}),
    );
    let got = conn.wait_for_capture(&session, &w, "both DECRQM replies", DEADLINE, |c| {
        let r = received_in(c);
        (r.matches("$y").count() == 2).then_some(r)
    });
    assert!(got.starts_with("^[[?1004;4$y"), "mode 1004: {got:?}");
    assert_eq!(
        got, "^[[?1004;4$y^[[?2048;4$y",
        "mode 2048 must be reported permanently reset too"
    );
}

#[test]
fn clicks_on_chrome_reach_no_program() {
    let Some(mut rig) = Rig::start(&[("nomouse", PLAIN_CAT), ("mouse", MOUSE_CAT)]) else {
        return;
    };
    let (nomouse, mouse) = (rig.windows[0].clone(), rig.windows[1].clone());
    let screen = rig.tmux.capture();
    let top = screen.lines().next().unwrap_or("");
    // The right window's frame starts at the second corner of the top row.
    let left_edge = top
        .chars()
        .enumerate()
        .filter(|(_, c)| *c == '╭')
        .nth(1)
        .map(|(i, _)| i)
        .unwrap_or_else(|| panic!("two windows side by side expected:\n{screen}"));
    let click = |x: usize, y: usize| format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m").into_bytes();
    // Title bar and left border of the window that asked for mouse reports: chrome.
    rig.tmux.send_hex(&click(left_edge + 8, 1));
    rig.tmux.send_hex(&click(left_edge + 1, 12));
    // Content of the window that did not ask: it takes the focus and gets nothing.
    rig.tmux.send_hex(&click(10, 5));
    rig.wait_focused(&nomouse);
    // Content of the one that asked: the first click only focuses it, the second is reported,
    // at the window's own coordinates.
    let (x, y) = (left_edge + 10, 5);
    rig.tmux.send_hex(&click(x, y));
    rig.wait_focused(&mouse);
    rig.tmux.send_hex(&click(x, y));
    let (cx, cy) = (x - 1 - left_edge, y - 1);
    let report = format!("^[[<0;{cx};{cy}M^[[<0;{cx};{cy}m");
    rig.wait_received(&mouse, &report);
    rig.barrier(&mouse, &report, "#M");
    rig.barrier(&nomouse, "", "#N");
}

#[test]
fn keys_typed_right_after_a_paste_reach_the_program_after_it() {
    let Some(mut rig) = Rig::start(&[("plain", PLAIN_CAT)]) else {
        return;
    };
    let w = rig.windows[0].clone();
    rig.terminal_mode();
    // One write from the outer terminal: a paste, then a key typed right after it.
    rig.tmux.send_hex(b"\x1b[200~abc\x1b[201~Z");
    let got = rig.wait_received_until(&w, "the paste and the key", |r| r.len() >= 4);
    assert_eq!(got, "abcZ", "input reached the program out of order");
}

/// Where `needle` starts on a client screen, as a 1-based (column, row) for a mouse report.
fn screen_pos(screen: &str, needle: &str) -> (usize, usize) {
    screen
        .lines()
        .enumerate()
        .find_map(|(y, line)| {
            let byte = line.find(needle)?;
            Some((line[..byte].chars().count() + 1, y + 1))
        })
        .unwrap_or_else(|| panic!("{needle:?} is not on the client's screen:\n{screen}"))
}

/// OSC 8 links on screen: "LINK" to an https URL with a right-to-left override in its path,
/// "JSLINK" to a `javascript:` URL.
const LINKS_CAT: &str = concat!(
    r"printf '\033]8;;https://example.com/\342\200\256evil\033\\LINK\033]8;;\033\\\n';",
    r"printf '\033]8;;javascript:alert(1)\033\\JSLINK\033]8;;\033\\\n';",
    "stty raw -echo opost; printf READY; exec cat -v"
);

#[test]
fn links_open_only_after_the_policy_check_and_a_confirmation() {
    let opened = std::sync::OnceLock::<std::path::PathBuf>::new();
    let Some(mut rig) = Rig::start_with(&[("links", LINKS_CAT)], |env| {
        // The user's policy: the default schemes, an opener that records its argument.
        let out = env.dir().join("opened");
        let opener = env.dir().join("opener.sh");
        std::fs::write(
            &opener,
            format!(
                "#!/bin/sh\nprintf '%s\\n' \"$1\" >> {}\n",
                sh_quote(path_str(&out))
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&opener, std::fs::Permissions::from_mode(0o755)).unwrap();
        let policy_dir = env.dir().join("config").join("tuios");
        std::fs::create_dir_all(&policy_dir).unwrap();
        std::fs::write(
            policy_dir.join("policy.toml"),
            format!("[links]\nopener = {:?}\n", path_str(&opener)),
        )
        .unwrap();
        opened.set(out).unwrap();
    }) else {
        return;
    };
    let opened = opened.get().unwrap().clone();
    let window = rig.windows[0].clone();
    let click = |(x, y): (usize, usize)| format!("\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m").into_bytes();

    // A javascript: link is refused with a notice naming the scheme; nothing runs.
    let screen = rig.tmux.wait_for("JSLINK");
    rig.tmux.send_hex(&click(screen_pos(&screen, "JSLINK")));
    rig.tmux.wait_for("\"javascript:\" is not");
    assert!(!rig.tmux.capture().contains("[o] open"));

    // The https link (a click in window management mode) asks first, showing the override
    // escaped; nothing has run yet.
    rig.tmux.send_hex(&click(screen_pos(&screen, "LINK")));
    let dialog = rig.tmux.wait_for("[o] open");
    assert!(
        dialog.contains("https://example.com/\\u{202E}evil"),
        "{dialog}"
    );
    assert!(!dialog.contains('\u{202E}'));
    assert!(!opened.exists(), "the opener ran before the answer");
    rig.tmux.send_keys(&["o"]);
    let got = poll(DEADLINE, "the opener to record the URL", || {
        let got = std::fs::read_to_string(&opened).unwrap_or_default();
        if got.ends_with('\n') {
            Ok(got)
        } else {
            Err(format!("the opener recorded {got:?}"))
        }
    });
    // Exactly one run, with exactly the URL as its argument: the refused link never ran.
    assert_eq!(got, "https://example.com/\u{202E}evil\n");
    rig.tmux
        .wait_screen("the dialog to close", |s| !s.contains("[o] open"));
    // The program saw none of the clicks or the answer.
    rig.barrier(&window, "", "#L");
}
