//! `tuios web` under a flood, through the real server: stalled requests, a huge header and
//! hundreds of upgrades without the cookie, and meanwhile the owner signs in and gets the page.

use std::io::{Read, Write};
use std::net::TcpStream;

use tuios_integration_tests::web::{Resp, Web};
use tuios_integration_tests::{TestDaemon, DEADLINE};

/// Sends `bytes` on a new connection; write errors are the server closing early, which is fine.
fn send(web: &Web, bytes: &[u8]) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", web.port)).expect("connect to tuios web");
    s.set_read_timeout(Some(DEADLINE)).unwrap();
    let _ = s.write_all(bytes);
    s
}

/// The response on `s`, up to the server's close (a reset counts as one). A server that
/// neither answers nor closes fails the test at the read timeout.
fn response(mut s: TcpStream) -> Resp {
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("no answer and no close from tuios web: {e}"),
        }
    }
    Resp::parse(&raw)
}

/// Signed in with the token, the page and the sessions API answer.
fn owner_gets_in(web: &Web) {
    let cookie = web.sign_in();
    let app = web.get("/", &[("Cookie", &cookie)]);
    assert_eq!(app.status, 200, "{app:?}");
    assert!(app.body.contains("/assets/xterm.css"), "{}", app.body);
    let api = web.get("/api/sessions", &[("Cookie", &cookie)]);
    assert_eq!(api.status, 200, "{api:?}");
    assert!(api.body.contains("work"), "{}", api.body);
}

#[test]
fn a_flood_of_stalled_huge_and_cookieless_requests_leaves_the_owner_in() {
    let daemon = TestDaemon::start();
    daemon.new_session("work");
    let web = Web::start(daemon.env(), &[]);
    let head = |path: &str| format!("GET {path} HTTP/1.1\r\nHost: {}\r\n", web.host());

    // 200 requests that never finish their head, held open throughout.
    let stalled: Vec<TcpStream> = (0..200).map(|_| send(&web, head("/").as_bytes())).collect();
    owner_gets_in(&web);

    // A 1 MiB header: refused (or the connection closed), never buffered whole, never a hang.
    let mut big = head("/").into_bytes();
    big.extend_from_slice(b"X-Big: ");
    big.resize(big.len() + (1 << 20), b'a');
    big.extend_from_slice(b"\r\n\r\n");
    let r = response(send(&web, &big));
    assert!(
        r.status == 0 || (400..500).contains(&r.status),
        "a 1 MiB header: {} {:?}",
        r.status,
        r.headers
    );
    owner_gets_in(&web);

    // 500 upgrades without the cookie, all sent before any answer is read: each is refused.
    let mut upgrade = head("/ws?session=work");
    for (k, v) in Web::upgrade_headers(None, Some(&web.origin())) {
        upgrade.push_str(&format!("{k}: {v}\r\n"));
    }
    // As web.rs's refusals: actix closes after refusing an upgrade.
    upgrade.push_str("\r\n");
    let upgrades: Vec<TcpStream> = (0..500).map(|_| send(&web, upgrade.as_bytes())).collect();
    owner_gets_in(&web);
    for s in upgrades {
        let r = response(s);
        assert_eq!(r.status, 401, "an upgrade without the cookie: {r:?}");
        assert!(r.header("upgrade").is_none(), "{r:?}");
    }

    owner_gets_in(&web);
    drop(stalled);
    web.stop();
}
