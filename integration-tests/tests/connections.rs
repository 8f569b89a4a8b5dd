//! Issue 33: the daemon serves many concurrent clients. It raises its descriptor limit to the
//! hard one and derives its connection cap from it, so a harness holding 1,000 blocking waits
//! at once is served in full.

use serde_json::{json, Value};
use tuios_integration_tests::{poll, JsonConn, TestDaemon, DEADLINE};

const CONNECTIONS: usize = 1_000;
const WINDOWS: usize = 10;

/// Descriptors the daemon needs before it serves `CONNECTIONS`: restated from
/// `protocol::limits` (128 reserved, 1,000 planned windows at 5 each, 3 per connection), plus
/// a few connections for the test's control and the readiness probe.
const DAEMON_NOFILE_NEEDED: u64 = 128 + 1_000 * 5 + 3 * (CONNECTIONS as u64 + 8);

/// Raise this process's soft descriptor limit to the hard one: it holds every connection
/// itself, and the daemon it starts inherits the hard limit. Panics when the hard limit is too
/// low for the test.
fn raise_own_descriptor_limit() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct we own.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    assert_eq!(rc, 0, "getrlimit: {}", std::io::Error::last_os_error());
    assert!(
        limit.rlim_max >= DAEMON_NOFILE_NEEDED,
        "this test needs a hard RLIMIT_NOFILE of at least {DAEMON_NOFILE_NEEDED} (it is {}): \
         raise it (ulimit -Hn, or LimitNOFILE= in systemd) and run again",
        limit.rlim_max
    );
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: setrlimit reads the struct we own; raising the soft limit up to the hard one is
    // always allowed.
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
    assert_eq!(rc, 0, "setrlimit: {}", std::io::Error::last_os_error());
}

#[test]
fn a_thousand_blocking_waits_at_once_are_all_answered() {
    raise_own_descriptor_limit();
    let daemon = TestDaemon::start();
    let (session, first) = daemon.session_with_window("many");
    let mut control = daemon.conn();
    let mut windows = vec![first];
    while windows.len() < WINDOWS {
        windows.push(control.new_window_id(&session, json!({})));
    }
    // One blocking wait per connection, spread over the windows, all held open at once.
    let mut waits: Vec<(JsonConn, String)> = (0..CONNECTIONS)
        .map(|i| {
            let mut conn = daemon.conn();
            let id = conn.send_request(
                "wait-for",
                json!({"session": session, "window": windows[i % WINDOWS],
                       "condition": "window-output", "pattern": format!("served-{}", i % WINDOWS),
                       "timeout": 120_000}),
            );
            (conn, id)
        })
        .collect();
    // Output only matches waits already registered, so print once the session counts them all.
    poll(DEADLINE, "every wait to be registered", || {
        let info = control.ok("session-info", json!({"session": session}));
        match info["waiters"].as_u64() {
            Some(n) if n == CONNECTIONS as u64 => Ok(()),
            other => Err(format!("{other:?} waiters")),
        }
    });
    // The daemon still answers other clients while holding them.
    let listed = control.ok("list-sessions", Value::Null);
    assert!(listed.to_string().contains("many"), "{listed}");
    for (k, window) in windows.iter().enumerate() {
        // The typed command's echo reads `served-%s`: only the printed line matches.
        control.send_text(&session, window, &format!("printf 'served-%s\\n' {k}\n"));
    }
    let mut refused = Vec::new();
    for (i, (conn, id)) in waits.iter_mut().enumerate() {
        let (answer, _) = conn.read_response(id);
        if answer.get("result").is_none() {
            refused.push((i, answer));
        }
    }
    assert!(
        refused.is_empty(),
        "{} of {CONNECTIONS} waits were not answered with a result; first: {:?}",
        refused.len(),
        refused.first()
    );
}
