//! Watching a session without the power to act, through the web and SSH servers: a shared web
//! link scoped to one session (read-only or not, revocable), and SSH keys listed as read-only.
//! In both, a read-only client beside a read-write one cannot type, paste or resize, and the
//! read-write one can; the session's clients and the client events say who is who.

use serde_json::{json, Value};
use std::io::Write;
use std::sync::mpsc;
use tuios_integration_tests::ssh::{
    authorized_keys, fingerprint, keygen, require_all, SshPane, SshServer,
};
use tuios_integration_tests::web::{open_ws, ws_frame, Web};
use tuios_integration_tests::*;

fn session_info(conn: &mut JsonConn, session: &str) -> Value {
    conn.ok("session-info", json!({ "session": session }))
}

fn size(info: &Value) -> (u64, u64) {
    (
        info["width"].as_u64().unwrap_or(0),
        info["height"].as_u64().unwrap_or(0),
    )
}

fn wait_clients(conn: &mut JsonConn, session: &str, n: u64) -> Value {
    poll(DEADLINE, &format!("{n} clients on {session}"), || {
        let info = session_info(conn, session);
        if info["clients"] == n {
            Ok(info)
        } else {
            Err(info.to_string())
        }
    })
}

/// The next event of type `kind` on a subscribed connection.
fn next_event(conn: &mut JsonConn, kind: &str) -> Value {
    loop {
        let line = conn.read_line();
        if line["type"] == kind {
            return line;
        }
    }
}

/// What a page's terminal shows, as text: every frame so far with escape sequences taken out.
struct PageText {
    frames: mpsc::Receiver<(u8, Vec<u8>)>,
    text: String,
    ended: Option<String>,
}

impl PageText {
    fn new(frames: mpsc::Receiver<(u8, Vec<u8>)>) -> PageText {
        PageText {
            frames,
            text: String::new(),
            ended: None,
        }
    }

    fn drain(&mut self) {
        while let Ok((opcode, payload)) = self.frames.try_recv() {
            match opcode {
                0x2 => self.text.push_str(&strip_escapes(&payload)),
                0x1 => self.ended = Some(String::from_utf8_lossy(&payload).into_owned()),
                _ => {}
            }
        }
    }

    fn wait_for(&mut self, needle: &str) {
        poll(DEADLINE, &format!("the page to show {needle:?}"), || {
            self.drain();
            if self.text.contains(needle) {
                Ok(())
            } else {
                Err(format!("{} bytes of text", self.text.len()))
            }
        });
    }

    fn wait_end(&mut self) -> String {
        poll(DEADLINE, "the server to end the page's attach", || {
            self.drain();
            self.ended
                .clone()
                .ok_or_else(|| "still attached".to_string())
        })
    }
}

/// Printable text of terminal output: CSI and OSC sequences and other controls dropped.
fn strip_escapes(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            if !c.is_control() {
                out.push(c);
            }
            continue;
        }
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\x07' || (c == '\x1b' && chars.peek() == Some(&'\\')) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn a_shared_web_link_opens_one_session_read_only_until_revoked() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("shared");
    daemon.new_session("private");
    let mut conn = daemon.conn();
    let mut events = daemon.conn();
    events.subscribe(json!({"session": session, "types": ["client-attached", "client-detached"]}));
    let web = Web::start(daemon.env(), &[]);
    let owner = web.sign_in();

    // Asking for a link to a session that does not exist is refused; a real one is printed.
    let missing = daemon.cli(&["web", "--share", "nope", "--read-only"]);
    assert!(!missing.status.success(), "{}", describe(&missing));
    let out = daemon.cli(&[
        "web",
        "--share",
        &session,
        "--read-only",
        "--expires",
        "10m",
    ]);
    assert!(out.status.success(), "{}", describe(&out));
    let printed = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        printed.contains("read-only") && printed.contains("10 minutes"),
        "{printed}"
    );
    let link = printed
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("http") && l.contains("?token="))
        .unwrap_or_else(|| panic!("no link in {printed:?}"));
    let share_token = link.split("?token=").nth(1).unwrap().to_string();
    assert_ne!(share_token, web.token);

    // The link signs a browser in; that browser sees its one session and no other.
    let r = web.get(&format!("/?token={share_token}"), &[]);
    assert_eq!(r.status, 303, "{r:?}");
    let viewer = r
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let listed = web.get("/api/sessions", &[("Cookie", &viewer)]);
    assert_eq!(listed.status, 200, "{listed:?}");
    let body: Value = serde_json::from_str(&listed.body).unwrap();
    let names: Vec<&str> = body["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, vec![session.as_str()], "{body}");
    let all = web.get("/api/sessions", &[("Cookie", &owner)]);
    assert!(all.body.contains("private"), "{all:?}");
    let mut headers = Web::upgrade_headers(Some(&viewer), None);
    let origin = web.origin();
    headers.push(("Origin", &origin));
    let other = web.get("/ws?session=private", &headers);
    assert_eq!(other.status, 403, "{other:?}");
    assert!(other.body.contains("forbidden_session"), "{other:?}");

    // The owner's browser reads and writes; the viewer's watches, on a smaller screen.
    let (mut owner_ws, _owner_frames) =
        open_ws(&web, &owner, &format!("session={session}&cols=100&rows=30"));
    wait_clients(&mut conn, &session, 1);
    let (mut viewer_ws, viewer_frames) =
        open_ws(&web, &viewer, &format!("session={session}&cols=70&rows=20"));
    let mut page = PageText::new(viewer_frames);
    let info = wait_clients(&mut conn, &session, 2);
    let list = info["client_list"].as_array().expect("client_list").clone();
    assert!(list.iter().all(|c| c["kind"] == "web"), "{info}");
    let watcher = list
        .iter()
        .find(|c| c["read_only"] == true)
        .expect("a read-only client");
    assert!(
        watcher["peer"].as_str().unwrap().starts_with("127.0.0.1:"),
        "{info}"
    );
    assert_eq!(
        size(&info),
        (100, 30),
        "the watcher's smaller screen shrank the session"
    );
    let attached = next_event(&mut events, "client-attached");
    assert_eq!(attached["client"]["read_only"], false, "{attached}");
    let attached = next_event(&mut events, "client-attached");
    assert_eq!(attached["client"]["read_only"], true, "{attached}");
    assert_eq!(attached["client"]["kind"], "web", "{attached}");
    page.wait_for("[read-only]");

    // The viewer types, pastes and resizes: refused, and told so.
    viewer_ws
        .write_all(&ws_frame(0x2, b"echo viewer-typed\r"))
        .unwrap();
    viewer_ws
        .write_all(&ws_frame(0x2, b"\x1b[200~echo viewer-pasted\x1b[201~\r"))
        .unwrap();
    let resize = json!({"type": "resize", "cols": 50, "rows": 12}).to_string();
    viewer_ws
        .write_all(&ws_frame(0x1, resize.as_bytes()))
        .unwrap();
    page.wait_for("refused");

    // The owner types and resizes: both count.
    owner_ws
        .write_all(&ws_frame(0x2, b"echo owner-$((6*7))\r"))
        .unwrap();
    let screen = conn.wait_for_text(&session, &window, "owner-42");
    assert!(
        !screen.contains("viewer-typed") && !screen.contains("viewer-pasted"),
        "{screen}"
    );
    let resize = json!({"type": "resize", "cols": 90, "rows": 26}).to_string();
    owner_ws
        .write_all(&ws_frame(0x1, resize.as_bytes()))
        .unwrap();
    poll(DEADLINE, "the owner's resize", || {
        let info = session_info(&mut conn, &session);
        if size(&info) == (90, 26) {
            Ok(())
        } else {
            Err(info.to_string())
        }
    });

    // Revoked: the viewer is detached at once and its cookie opens nothing more.
    let out = daemon.cli(&["web", "--revoke", link]);
    assert!(out.status.success(), "{}", describe(&out));
    let end = page.wait_end();
    assert!(end.contains("revoked"), "{end}");
    let info = wait_clients(&mut conn, &session, 1);
    assert_eq!(info["client_list"][0]["read_only"], false, "{info}");
    let left = next_event(&mut events, "client-detached");
    assert_eq!(left["client"]["read_only"], true, "{left}");
    let after = web.get("/api/sessions", &[("Cookie", &viewer)]);
    assert_eq!(after.status, 401, "{after:?}");
    let again = web.get(&format!("/?token={share_token}"), &[]);
    assert_eq!(again.status, 403, "{again:?}");
    let none = daemon.cli(&["web", "--revoke", &share_token]);
    assert!(!none.status.success(), "{}", describe(&none));
}

#[test]
fn sharing_without_a_running_web_server_says_to_start_one() {
    let daemon = TestDaemon::start();
    daemon.new_session("s");
    let out = daemon.cli(&["web", "--share", "s"]);
    assert!(!out.status.success(), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("tuios web"),
        "{}",
        describe(&out)
    );
}

#[test]
fn an_ssh_key_listed_read_only_watches_beside_one_that_types() {
    require_all();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("watched");
    let keys = daemon.dir().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let writer = keygen(&keys, "writer");
    let watcher = keygen(&keys, "watcher");
    let authorized = authorized_keys(&keys, &[&writer, &watcher]);
    // The watcher's key is in both files: the read-only listing is the one that counts.
    let read_only = keys.join("ssh-read-only-keys");
    std::fs::write(
        &read_only,
        std::fs::read_to_string(watcher.with_extension("pub")).unwrap(),
    )
    .unwrap();
    let mut cmd = daemon
        .env()
        .command(&["ssh", "--port", "0", "--authorized-keys"]);
    cmd.arg(&authorized).arg("--read-only-keys").arg(&read_only);
    let mut server = SshServer::spawn(daemon.env(), cmd);
    let mut conn = daemon.conn();

    let rw = SshPane::start(&writer, server.port, &[&session], 100, 30);
    rw.wait_for(&session);
    wait_clients(&mut conn, &session, 1);
    let ro = SshPane::start(&watcher, server.port, &[&session], 70, 20);
    ro.wait_for("[read-only]");
    let info = wait_clients(&mut conn, &session, 2);
    assert_eq!(
        size(&info),
        (100, 30),
        "the watcher's smaller terminal shrank the session"
    );
    let list = info["client_list"].as_array().unwrap();
    let entry = list
        .iter()
        .find(|c| c["read_only"] == true)
        .expect("a read-only client");
    assert_eq!(entry["kind"], "ssh", "{info}");
    assert_eq!(
        entry["peer"],
        fingerprint(&watcher.with_extension("pub")).as_str(),
        "{info}"
    );

    // The watcher types, pastes and resizes its terminal: refused.
    ro.type_line("echo watcher-typed");
    ro.paste(b"echo watcher-pasted\r");
    ro.resize(60, 15);
    ro.wait_for("refused");
    // The writer types: it counts.
    rw.type_line("echo writer-$((6*7))");
    let screen = conn.wait_for_text(&session, &window, "writer-42");
    assert!(
        !screen.contains("watcher-typed") && !screen.contains("watcher-pasted"),
        "{screen}"
    );
    let info = session_info(&mut conn, &session);
    assert_eq!(size(&info), (100, 30), "{info}");
    // A watcher cannot create a session by naming one that does not exist.
    let ghost = SshPane::start(&watcher, server.port, &["ghost"], 80, 24);
    assert_ne!(ghost.wait_exit(), 0);
    let listed = conn.ok("list-sessions", json!({}));
    assert!(!listed.to_string().contains("ghost"), "{listed}");
    drop(ro);
    drop(rw);
    assert!(server.stop().success(), "{}", server.log());
}
