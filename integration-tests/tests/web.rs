//! `tuios web` through the real thing: the real daemon, the real `tuios web` on a free port,
//! plain HTTP and WebSocket spoken over a TcpStream. What must be refused is refused: no token,
//! a wrong token, a foreign Origin, a foreign Host, a remote address without the flag; and
//! with the token, the cookie has its flags and a WebSocket attaches for real.

use std::io::Write;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::Stdio;

use tuios_integration_tests::web::{open_ws, ws_frame, Web};
use tuios_integration_tests::{poll, tuios_bin, TestDaemon, TestEnv, DEADLINE};

#[test]
fn without_the_token_only_a_sign_in_page_and_refusals() {
    let daemon = TestDaemon::start();
    daemon.new_session("secret-project");
    let web = Web::start(daemon.env(), &[]);

    let page = web.get("/", &[]);
    assert_eq!(page.status, 200, "{page:?}");
    assert!(page.body.contains("Access token"), "{}", page.body);
    assert!(!page.body.contains("secret-project"), "{}", page.body);
    assert!(page.header("set-cookie").is_none());
    let csp = page.header("content-security-policy").expect("a CSP");
    let script_src = csp
        .split(';')
        .find(|d| d.trim().starts_with("script-src"))
        .expect("script-src");
    assert_eq!(script_src.trim(), "script-src 'self'", "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(page.header("x-frame-options"), Some("DENY"));

    let api = web.get("/api/sessions", &[]);
    assert_eq!(api.status, 401, "{api:?}");
    assert!(api.body.contains("\"unauthorized\""), "{}", api.body);
    assert!(!api.body.contains("secret-project"));
    assert_eq!(web.get("/assets/app.js", &[]).status, 401);
    assert_eq!(web.get("/assets/xterm.mjs", &[]).status, 401);

    let origin = web.origin();
    let ws = web.get(
        "/ws?session=secret-project",
        &Web::upgrade_headers(None, Some(&origin)),
    );
    assert_eq!(ws.status, 401, "an upgrade without the cookie: {ws:?}");
    assert!(ws.header("upgrade").is_none());

    // A cookie of our name with a made-up value is no better than none.
    let forged = format!("tuios-web-{}=00ff", web.port);
    let ws = web.get("/ws", &Web::upgrade_headers(Some(&forged), Some(&origin)));
    assert_eq!(ws.status, 401, "{ws:?}");
}

#[test]
fn a_wrong_token_is_refused() {
    let daemon = TestDaemon::start();
    let web = Web::start(daemon.env(), &[]);
    let mut wrong = web.token.clone();
    // Same length, last digit changed.
    let last = wrong.pop().unwrap();
    wrong.push(if last == '0' { '1' } else { '0' });
    let r = web.get(&format!("/?token={wrong}"), &[]);
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.header("set-cookie").is_none());
    let r = web.request(
        "POST",
        "/login",
        &[
            ("Origin", &web.origin()),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        &format!("token={wrong}"),
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.header("set-cookie").is_none());
    // The right token posted from another site's page (login CSRF) is refused too.
    let r = web.request(
        "POST",
        "/login",
        &[
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        &format!("token={}", web.token),
    );
    assert_eq!(r.status, 403, "{r:?}");
    assert!(r.header("set-cookie").is_none());
}

#[test]
fn the_token_becomes_a_strict_http_only_cookie() {
    let daemon = TestDaemon::start();
    daemon.new_session("visible-after-sign-in");
    let web = Web::start(daemon.env(), &[]);
    let r = web.get(&format!("/?token={}", web.token), &[]);
    assert_eq!(r.status, 303, "{r:?}");
    assert_eq!(r.header("location"), Some("/"));
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let set = r.header("set-cookie").unwrap();
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(flag), "{set}");
    }
    assert!(!set.contains("Secure"), "plain HTTP on loopback: {set}");
    let cookie = set.split(';').next().unwrap().to_string();
    assert!(
        !cookie.contains(&web.token),
        "the cookie must not be the token"
    );

    // The form gives the same.
    let r = web.request(
        "POST",
        "/login",
        &[
            ("Origin", &web.origin()),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        &format!("token={}", web.token),
    );
    assert_eq!(r.status, 303, "{r:?}");

    let app = web.get("/", &[("Cookie", &cookie)]);
    assert_eq!(app.status, 200);
    assert!(app.body.contains("/assets/app.js"), "{}", app.body);
    let api = web.get("/api/sessions", &[("Cookie", &cookie)]);
    assert_eq!(api.status, 200, "{api:?}");
    assert!(api.body.contains("visible-after-sign-in"), "{}", api.body);
    assert_eq!(
        web.get("/assets/app.js", &[("Cookie", &cookie)]).status,
        200
    );
}

/// The binary carries the tracked xterm.js files (client/web-assets/vendor/), unchanged, with no
/// npm step before the build.
#[test]
fn signed_in_the_page_gets_the_vendored_xterm_js() {
    let daemon = TestDaemon::start();
    let web = Web::start(daemon.env(), &[]);
    let cookie = web.sign_in();
    let vendor =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../client/web-assets/vendor");
    for (name, ty) in [
        ("xterm.mjs", "text/javascript"),
        ("xterm.css", "text/css"),
        ("addon-fit.mjs", "text/javascript"),
        ("addon-webgl.mjs", "text/javascript"),
        ("addon-clipboard.mjs", "text/javascript"),
    ] {
        let r = web.get(&format!("/assets/{name}"), &[("Cookie", &cookie)]);
        assert_eq!(r.status, 200, "{name}: {}", r.status);
        let got = r.header("content-type").unwrap_or("");
        assert!(got.starts_with(ty), "{name}: {got}");
        let file = std::fs::read(vendor.join(name)).expect("the vendored file");
        assert!(
            r.body == String::from_utf8_lossy(&file),
            "{name}: served bytes differ from {}",
            vendor.join(name).display()
        );
    }
    let app = web.get("/", &[("Cookie", &cookie)]);
    assert!(app.body.contains("/assets/xterm.css"), "{}", app.body);
}

#[test]
fn upgrades_need_our_origin_and_host() {
    let daemon = TestDaemon::start();
    daemon.new_session("w");
    let web = Web::start(daemon.env(), &[]);
    let cookie = web.sign_in();

    for origin in [
        Some("http://evil.example"),
        Some("null"),
        Some("https://127.0.0.1:1"),
        None,
    ] {
        let r = web.get(
            "/ws?session=w",
            &Web::upgrade_headers(Some(&cookie), origin),
        );
        assert_eq!(r.status, 403, "origin {origin:?}: {r:?}");
        assert!(r.body.contains("forbidden_origin"), "{}", r.body);
    }
    // DNS rebinding: a foreign name resolving to 127.0.0.1, its page the Origin.
    let evil_host = format!("evil.example:{}", web.port);
    let evil_origin = format!("http://{evil_host}");
    let mut h = Web::upgrade_headers(Some(&cookie), Some(&evil_origin));
    h.push(("Host", &evil_host));
    let r = web.get("/ws?session=w", &h);
    assert_eq!(r.status, 421, "{r:?}");
    let r = web.get("/", &[("Host", &evil_host)]);
    assert_eq!(r.status, 421, "{r:?}");

    let origin = web.origin();
    let ok = web.get(
        "/ws?session=w",
        &Web::upgrade_headers(Some(&cookie), Some(&origin)),
    );
    assert_eq!(ok.status, 101, "{ok:?}");
}

#[test]
fn a_remote_address_needs_the_flag() {
    let env = TestEnv::new();
    let out = env.cli(&["web", "--bind", "0.0.0.0", "--port", "0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refusing to listen on 0.0.0.0"), "{err}");
    assert!(err.contains("--allow-remote"), "{err}");
    assert!(out.stdout.is_empty(), "no URL for a refused server");
    // Nothing was made either: no token, no certificate.
    assert!(!env.dir().join("state/tuios/web-token").exists());
}

#[test]
fn url_prints_the_running_servers_sign_in_url_and_files_are_private() {
    let daemon = TestDaemon::start();
    let none = daemon.cli(&["web", "--url"]);
    assert!(!none.status.success());
    assert!(String::from_utf8_lossy(&none.stderr).contains("no tuios web server is running"));

    let web = Web::start(daemon.env(), &[]);
    let out = daemon.cli(&["web", "--url"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), web.url);
    let token_file = daemon.dir().join("state/tuios/web-token");
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(std::fs::read_to_string(&token_file)
        .unwrap()
        .contains(&web.token));
    assert!(web.token.len() >= 32, "at least 128 bits in hex");

    let status = web.stop();
    assert!(status.success(), "{status}");
    let after = daemon.cli(&["web", "--url"]);
    assert!(!after.status.success(), "the URL file goes with the server");
}

#[test]
fn tls_on_loopback_with_a_generated_certificate() {
    let daemon = TestDaemon::start();
    let web = Web::start(daemon.env(), &["--tls"]);
    assert!(web.url.starts_with("https://127.0.0.1:"), "{}", web.url);
    let state = daemon.dir().join("state/tuios");
    let key_mode = std::fs::metadata(state.join("web-key.pem"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(key_mode, 0o600);
    assert!(std::fs::read_to_string(state.join("web-cert.pem"))
        .unwrap()
        .contains("BEGIN CERTIFICATE"));
    // Plain HTTP to a TLS port gets no HTTP answer.
    let r = web.get("/", &[]);
    assert_ne!(r.status, 200, "{r:?}");

    // Over TLS (python3's ssl module, trusting the generated certificate): the token gives a
    // cookie marked Secure, with the __Host- prefix.
    let script = r#"
import http.client, ssl, sys
ctx = ssl.create_default_context(cafile=sys.argv[1])
ctx.check_hostname = True
c = http.client.HTTPSConnection("localhost", int(sys.argv[2]), context=ctx)
c.request("GET", "/?token=" + sys.argv[3])
r = c.getresponse()
print(r.status)
print(r.getheader("Set-Cookie"))
"#;
    let mut py = std::process::Command::new("python3");
    py.arg("-c")
        .arg(script)
        .arg(state.join("web-cert.pem"))
        .arg(web.port.to_string())
        .arg(&web.token);
    let out = tuios_integration_tests::run_with_deadline(py, DEADLINE);
    assert!(
        out.status.success(),
        "python3 (needed for this test) failed: {}",
        tuios_integration_tests::describe(&out)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("303"), "{text}");
    let cookie = lines.next().unwrap_or("");
    assert!(cookie.starts_with("__Host-tuios-web-"), "{cookie}");
    for flag in ["Secure", "HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(flag), "{cookie}");
    }
}

/// The session's size as session-info reports it.
fn session_size(conn: &mut tuios_integration_tests::JsonConn, session: &str) -> (u64, u64) {
    let info = conn.call("session-info", serde_json::json!({ "session": session }));
    let r = &info["result"];
    (
        r["width"].as_u64().unwrap_or(0),
        r["height"].as_u64().unwrap_or(0),
    )
}

#[test]
fn two_browsers_on_a_session_share_the_smallest_size() {
    let daemon = TestDaemon::start();
    daemon.new_session("shared");
    let web = Web::start(daemon.env(), &[]);
    let cookie = web.sign_in();
    let mut conn = daemon.conn();
    let (_a, _ra) = open_ws(&web, &cookie, "session=shared&cols=100&rows=30");
    poll(
        DEADLINE,
        "the first browser's size",
        || match session_size(&mut conn, "shared") {
            (100, 30) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    let (mut b, _rb) = open_ws(&web, &cookie, "session=shared&cols=90&rows=40");
    poll(
        DEADLINE,
        "the smaller of each dimension",
        || match session_size(&mut conn, "shared") {
            (90, 30) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    // The second page grows: the first one's width is the limit now.
    b.write_all(&ws_frame(0x1, br#"{"type":"resize","cols":150,"rows":50}"#))
        .unwrap();
    poll(
        DEADLINE,
        "the first browser's size again",
        || match session_size(&mut conn, "shared") {
            (100, 30) => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
}

#[test]
fn a_websocket_attaches_types_and_sees_output() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("webattach");
    let web = Web::start(daemon.env(), &[]);
    let cookie = web.sign_in();

    let (mut s, rx) = open_ws(
        &web,
        &cookie,
        &format!("session={session}&cols=100&rows=30"),
    );
    let mut conn = daemon.conn();
    poll(
        DEADLINE,
        "the page's attach to be seen by the daemon",
        || {
            attached(&mut conn, &session)
                .then_some(())
                .ok_or_else(String::new)
        },
    );
    s.write_all(&ws_frame(0x2, b"echo web-$((6*7))\r")).unwrap();
    conn.wait_for_text(&session, &window, "web-42");
    let mut seen = Vec::new();
    poll(DEADLINE, "web-42 in the attach's output", || {
        while let Ok((op, payload)) = rx.try_recv() {
            if op == 0x2 {
                seen.extend_from_slice(&payload);
            }
        }
        let text = String::from_utf8_lossy(&seen);
        if text.contains("web-42") {
            Ok(())
        } else {
            Err(format!("{} bytes so far", seen.len()))
        }
    });

    // A resize message reaches the window as a new PTY size (SIGWINCH to its program).
    s.write_all(&ws_frame(0x1, br#"{"type":"resize","cols":120,"rows":40}"#))
        .unwrap();
    poll(DEADLINE, "the session to take the page's new size", || {
        let info = conn.call("session-info", serde_json::json!({"session": session}));
        let w = info["result"]["width"].as_u64();
        if w == Some(120) {
            Ok(())
        } else {
            Err(format!("session-info: {info}"))
        }
    });

    // Closing the socket detaches: the session lives on, unattached.
    s.write_all(&ws_frame(0x8, &[0x03, 0xe8])).unwrap();
    poll(DEADLINE, "the session to be detached", || {
        (!attached(&mut conn, &session))
            .then_some(())
            .ok_or_else(String::new)
    });
}

/// Whether list-sessions shows `session` with a client attached (panics if it is gone).
fn attached(conn: &mut tuios_integration_tests::JsonConn, session: &str) -> bool {
    let info = conn.call("list-sessions", serde_json::json!({}));
    let sess = info["result"]["sessions"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["name"] == session).cloned())
        .unwrap_or_else(|| panic!("session {session} is gone: {info}"));
    sess["attached"] == true
}

#[test]
fn the_state_directory_must_be_private() {
    let daemon = TestDaemon::start();
    let state = daemon.dir().join("state/tuios");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = daemon.cli(&["web", "--port", "0"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("chmod 700"), "{err}");
}

/// tuios-web.socket: systemd listens and passes the socket as fd 3 (LISTEN_FDS); the server
/// serves on it instead of binding. The test plays systemd, as tests/socket_activation.rs does.
#[test]
fn serves_on_a_socket_passed_by_systemd() {
    let daemon = TestDaemon::start();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let fd = listener.as_raw_fd();
    let base = daemon.env().command(&["web"]);
    let mut cmd = std::process::Command::new("/bin/sh");
    // --port is ignored: the passed socket is the one served.
    cmd.arg("-c")
        .arg("LISTEN_PID=$$ LISTEN_FDS=1 exec \"$0\" web --port 1")
        .arg(tuios_bin());
    for (key, value) in base.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.current_dir(daemon.dir()).stdin(Stdio::null());
    // SAFETY: only async-signal-safe calls (dup2, fcntl) between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if fd == 3 {
                if libc::fcntl(3, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            } else if libc::dup2(fd, 3) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let web = Web::spawn(cmd, daemon.dir().join("web-activated.stderr"));
    drop(listener);
    assert_eq!(web.port, port, "{}", web.url);
    let page = web.get("/", &[]);
    assert_eq!(page.status, 200, "{page:?}");
    assert!(page.body.contains("Access token"));
    let cookie = web.sign_in();
    assert_eq!(web.get("/api/sessions", &[("Cookie", &cookie)]).status, 200);
}
