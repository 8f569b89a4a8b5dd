//! Project tapes (issue 34 item 3): a `.tuios.tape` in the directory the focused window's shell
//! enters is offered, read in the client's tray, and runs only as the user decides; trust is
//! bound to the tape's bytes, `tape.autorun = auto` runs a trusted one at once, an edit asks
//! again, "never" is kept, and a tape others may write is refused. Through a real attach.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use serde_json::json;
use tuios_integration_tests::*;

const DEADLINE: Duration = Duration::from_secs(30);

fn write_tape(dir: &Path, text: &str) {
    let p = dir.join(".tuios.tape");
    std::fs::write(&p, text).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
}

/// How many lines of the window's text are exactly `line` (the output, not the echoed
/// command, which holds the arithmetic).
fn count_lines(conn: &mut JsonConn, s: &str, w: &str, line: &str) -> usize {
    let text = conn.ok(
        "capture-pane",
        json!({"session": s, "window": w, "scrollback": true}),
    );
    text["content"]
        .as_str()
        .unwrap_or_default()
        .lines()
        .filter(|l| l.trim_end() == line)
        .count()
}

/// Moves the window's shell to a new directory whose tape others may write, and waits for the
/// client to refuse it: proof the client saw the window leave the project.
fn away(conn: &mut JsonConn, client: &TmuxClient, s: &str, w: &str, root: &Path, n: u32) {
    let dir = root.join(format!("away-{n}"));
    std::fs::create_dir_all(&dir).unwrap();
    write_tape(&dir, "Enter\n");
    std::fs::set_permissions(
        dir.join(".tuios.tape"),
        std::fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    cd(conn, s, w, &dir);
    client.wait_for(&format!("away-{n}/.tuios.tape will not run"));
}

/// Leader T until the review shows `choice`: the client learns the window's directory from the
/// daemon a moment after the shell's prompt, and a T pressed before that looks where the
/// window was (each press looks again, so a later one finds the tape).
fn review(client: &TmuxClient, choice: &str) -> String {
    let mut pressed_at: Option<std::time::Instant> = None;
    poll(DEADLINE, &format!("the review offering {choice:?}"), || {
        let screen = client.capture();
        if screen.contains(choice) {
            return Ok(screen);
        }
        if pressed_at.is_none_or(|t| t.elapsed() > Duration::from_secs(1)) {
            client.leader("T");
            pressed_at = Some(std::time::Instant::now());
        }
        Err(screen)
    })
}

fn cd(conn: &mut JsonConn, s: &str, w: &str, dir: &Path) {
    conn.ok(
        "send-text",
        json!({"session": s, "window": w, "text": format!("cd '{}'\n", dir.display())}),
    );
}

#[test]
fn a_project_tape_runs_only_as_the_user_decides() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("proj");
    let project = daemon.dir().join("project");
    std::fs::create_dir_all(&project).unwrap();
    write_tape(&project, "Type \"echo from-project-$((20+1))\"\nEnter\n");
    let store = daemon.dir().join("home/.local/share/tuios/tape-trust.toml");
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 120, 40);
    client.wait_mode("TERM");

    // Entering the directory offers the tape; nothing runs yet.
    cd(&mut conn, &s, &w, &project);
    client.wait_for("a project tape is in");
    assert_eq!(count_lines(&mut conn, &s, &w, "from-project-21"), 0);
    // Read it, run it once: it runs, and nothing is trusted.
    client.leader("T");
    let screen = client.wait_for("[r] run once");
    assert!(screen.contains("echo from-project-$((20+1))"), "{screen}");
    client.send_keys(&["r"]);
    wait_until(DEADLINE, "the tape's output", || {
        (count_lines(&mut conn, &s, &w, "from-project-21") == 1).then_some(())
    });
    assert!(!store.exists(), "run once trusted nothing");

    // Away and back: offered again quietly; trust it this time.
    away(&mut conn, &client, &s, &w, daemon.dir(), 1);
    cd(&mut conn, &s, &w, &project);
    review(&client, "[t] trust and run");
    client.send_keys(&["t"]);
    wait_until(DEADLINE, "the trusted tape's output", || {
        (count_lines(&mut conn, &s, &w, "from-project-21") == 2).then_some(())
    });
    let mode = std::fs::metadata(&store).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    // With autorun = auto a trusted tape runs on entering, without a question.
    conn.ok(
        "set-option",
        json!({"session": s, "key": "tape.autorun", "value": "auto"}),
    );
    away(&mut conn, &client, &s, &w, daemon.dir(), 2);
    cd(&mut conn, &s, &w, &project);
    wait_until(DEADLINE, "the tape run by itself", || {
        (count_lines(&mut conn, &s, &w, "from-project-21") == 3).then_some(())
    });

    // An edit makes it a stranger: offered, not run; "never" is kept for the path.
    write_tape(&project, "Type \"echo edited-$((1+1))\"\nEnter\n");
    away(&mut conn, &client, &s, &w, daemon.dir(), 3);
    cd(&mut conn, &s, &w, &project);
    let screen = review(&client, "[n] never here");
    assert!(screen.contains("edited-"), "{screen}");
    client.send_keys(&["n"]);
    client.wait_for("will not be offered again");
    let kept = std::fs::read_to_string(&store).unwrap();
    assert!(kept.contains("denied"), "{kept}");
    assert_eq!(count_lines(&mut conn, &s, &w, "edited-2"), 0);
}

#[test]
fn a_tape_others_may_write_is_refused_with_a_reason() {
    require_tmux!();
    let daemon = TestDaemon::start();
    let (s, w) = daemon.session_with_window("shared");
    let project = daemon.dir().join("shared-project");
    std::fs::create_dir_all(&project).unwrap();
    write_tape(&project, "Enter\n");
    std::fs::set_permissions(
        project.join(".tuios.tape"),
        std::fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    let mut conn = daemon.conn();
    let client = TmuxClient::start(daemon.env(), &s, 120, 40);
    client.wait_mode("TERM");
    cd(&mut conn, &s, &w, &project);
    client.wait_for("others may write to it");
}
