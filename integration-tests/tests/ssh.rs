//! `tuios ssh` through the real thing: the real OpenSSH client (`ssh -tt`, keys made by
//! `ssh-keygen`) in a real terminal (tmux), the real `tuios ssh` server on a free port, and the
//! real daemon with `/bin/sh` in its windows.

use std::process::{Command, Stdio};

use serde_json::{json, Value};
use tuios_integration_tests::ssh::{
    authorized_keys, clients, fingerprint, keygen, require_all, ssh_batch, ssh_options, SshPane,
    SshServer,
};
use tuios_integration_tests::{
    describe, poll, run_with_deadline, sh_quote, TestDaemon, TestEnv, DEADLINE,
};

#[test]
fn ssh_attaches_types_resizes_and_disconnects_leaving_the_session() {
    require_all();
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("work");
    let keys = daemon.dir().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let key = keygen(&keys, "id");
    let authorized = authorized_keys(&keys, &[&key]);
    let mut server = SshServer::start(daemon.env(), &authorized);

    let pane = SshPane::start(&key, server.port, &[&session], 100, 30);
    // The attach client draws the session: its dock names it.
    pane.wait_for(&session);
    let mut conn = daemon.conn();
    poll(DEADLINE, "the ssh client attached", || {
        let info = conn.ok("session-info", json!({ "session": session }));
        if info["clients"] == 1 {
            Ok(())
        } else {
            Err(info.to_string())
        }
    });

    // Typing reaches the window's shell, and its output comes back through ssh.
    pane.type_line("echo ssh-$((6*7))");
    pane.wait_for("ssh-42");
    conn.wait_for_text(&session, &window, "ssh-42");

    // `tuios ssh --list` shows who is connected, with which key, on which session.
    let rows = clients(daemon.env());
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["session"], session.as_str(), "{rows:?}");
    assert_eq!(
        rows[0]["key"],
        fingerprint(&key.with_extension("pub")).as_str()
    );
    assert!(
        rows[0]["peer"]
            .as_str()
            .is_some_and(|p| p.starts_with("127.0.0.1:")),
        "{rows:?}"
    );
    let table = daemon.cli(&["ssh", "--list"]);
    assert!(
        String::from_utf8_lossy(&table.stdout).contains(&session),
        "{}",
        describe(&table)
    );

    // A smaller terminal: the window shrinks with it, its program gets SIGWINCH and sees
    // the new size.
    pane.type_line("trap 'echo winch-seen' WINCH");
    let size = |row: &Value| (row["width"].as_u64(), row["height"].as_u64());
    let before = size(&conn.window_row(&session, &window));
    pane.resize(70, 20);
    let (cols, rows) = poll(
        DEADLINE,
        "the window to shrink with the terminal",
        || match size(&conn.window_row(&session, &window)) {
            // list-windows gives the outer box, border included; the PTY is inside it.
            (Some(w), Some(h)) if w <= 70 && h < 20 => Ok((w - 2, h - 2)),
            now => Err(format!("window size {now:?}, was {before:?}")),
        },
    );
    pane.type_line("echo winch-check");
    conn.wait_for_text(&session, &window, "winch-seen");
    pane.type_line("stty size");
    conn.wait_for_text(&session, &window, &format!("{rows} {cols}"));

    // Disconnect abruptly (ssh's escape: Enter, ~.): ssh exits, the session stays.
    pane.tmux_ok(&["send-keys", "-t", "t", "Enter"]);
    pane.tmux_ok(&["send-keys", "-t", "t", "-l", "~."]);
    let status = pane.wait_exit();
    assert_eq!(status, 255, "ssh ~. exits 255");
    poll(DEADLINE, "the session to lose its ssh client", || {
        let info = conn.ok("session-info", json!({ "session": session }));
        if info["clients"] == 0 {
            Ok(())
        } else {
            Err(info.to_string())
        }
    });
    poll(DEADLINE, "--list to show nobody connected", || {
        let rows = clients(daemon.env());
        if rows.is_empty() {
            Ok(())
        } else {
            Err(format!("{rows:?}"))
        }
    });
    // The shell lives on: a command typed through the daemon still runs there.
    conn.send_text(&session, &window, "echo still-$((2+3))\n");
    conn.wait_for_text(&session, &window, "still-5");
    assert!(server.stop().success(), "tuios ssh exits 0 on SIGTERM");
    // The daemon it used was not its own: still serving.
    let out = daemon.cli(&["ls"]);
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains(&session),
        "{}",
        describe(&out)
    );
}

#[test]
fn detaching_over_ssh_exits_zero_with_the_attach_message() {
    require_all();
    let daemon = TestDaemon::start();
    let (session, _) = daemon.session_with_window("det");
    let keys = daemon.dir().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let key = keygen(&keys, "id");
    let authorized = authorized_keys(&keys, &[&key]);
    let server = SshServer::start(daemon.env(), &authorized);
    let pane = SshPane::start(&key, server.port, &[], 90, 25);
    // No session named: the most recent one, here the only one.
    pane.wait_for(&session);
    pane.tmux_ok(&["send-keys", "-t", "t", "C-b", "d"]);
    let status = pane.wait_exit();
    let screen = pane.capture();
    assert!(
        screen.contains(&format!("[detached from session {session}]")),
        "{screen}"
    );
    assert_eq!(status, 0, "{screen}");
}

#[test]
fn unknown_keys_passwords_and_missing_terminals_are_refused() {
    require_all();
    // No daemon runs: tuios ssh serves one in its own process.
    let env = TestEnv::new();
    let keys = env.dir().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let known = keygen(&keys, "known");
    let stranger = keygen(&keys, "stranger");
    let authorized = authorized_keys(&keys, &[&known]);
    let mut server = SshServer::start(&env, &authorized);
    let hello = env.cli(&["call", "hello"]);
    assert!(
        String::from_utf8_lossy(&hello.stdout).contains("\"daemon_version\":\"in-process\""),
        "{}",
        describe(&hello)
    );

    // A key not in authorized_keys.
    let out = ssh_batch(&stranger, server.port, &["-tt", "127.0.0.1"], &[]);
    assert_eq!(out.status.code(), Some(255), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Permission denied (publickey)"), "{err}");

    // Passwords: the server offers public keys only, so the client never even asks for one.
    let askpass = keys.join("askpass");
    let asked = keys.join("asked");
    std::fs::write(
        &askpass,
        format!(
            "#!/bin/sh\ntouch {}\necho hunter2\n",
            sh_quote(&asked.to_string_lossy())
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &askpass,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let mut cmd = Command::new("ssh");
    cmd.args(ssh_options(&stranger, server.port))
        .args([
            "-o",
            "PubkeyAuthentication=no",
            "-o",
            "PreferredAuthentications=password,keyboard-interactive",
            "-o",
            "NumberOfPasswordPrompts=1",
            "127.0.0.1",
        ])
        .env("SSH_ASKPASS", &askpass)
        .env("SSH_ASKPASS_REQUIRE", "force")
        .env("DISPLAY", ":0")
        .stdin(Stdio::null());
    let out = run_with_deadline(cmd, DEADLINE);
    assert_eq!(out.status.code(), Some(255), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Permission denied (publickey)"),
        "{}",
        describe(&out)
    );
    assert!(!asked.exists(), "the client was asked for a password");

    // The right key without a terminal: a clear message and a failure status, not a hang.
    let out = ssh_batch(&known, server.port, &["-T", "127.0.0.1", "work"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no terminal"),
        "{}",
        describe(&out)
    );
    // A command that is not a session name.
    let out = ssh_batch(&known, server.port, &["-T", "127.0.0.1", "a/b"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a valid session name"),
        "{}",
        describe(&out)
    );

    // Refusals are logged with the key's fingerprint.
    assert!(
        server
            .log()
            .contains(&fingerprint(&stranger.with_extension("pub"))),
        "{}",
        server.log()
    );
    // Stopping the server stops its in-process daemon: the socket goes.
    assert!(server.stop().success());
    assert!(
        !env.socket().exists(),
        "the in-process daemon's socket is gone"
    );
}

#[test]
fn the_host_key_is_made_once_and_private() {
    require_all();
    let env = TestEnv::new();
    let keys = env.dir().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let known = keygen(&keys, "known");
    let authorized = authorized_keys(&keys, &[&known]);
    let host_key = env.dir().join("state/tuios/ssh_host_ed25519_key");
    let mut first = SshServer::start(&env, &authorized);
    let meta = std::fs::metadata(&host_key).expect("the host key was written");
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o600
    );
    let key_text = std::fs::read(&host_key).unwrap();
    assert!(first.stop().success());
    let mut second = SshServer::start(&env, &authorized);
    assert_eq!(
        std::fs::read(&host_key).unwrap(),
        key_text,
        "the key is kept"
    );
    // The server presents that key: ssh-keyscan's fingerprint matches the file's.
    let mut cmd = Command::new("ssh-keygen");
    cmd.arg("-yf").arg(&host_key);
    let public = run_with_deadline(cmd, DEADLINE);
    assert!(public.status.success(), "{}", describe(&public));
    std::fs::write(keys.join("host.pub"), &public.stdout).unwrap();
    let expected = fingerprint(&keys.join("host.pub"));
    let out = ssh_batch(
        &known,
        second.port,
        &["-o", "FingerprintHash=sha256", "-v", "-T", "127.0.0.1", "x"],
        &[],
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(&expected),
        "ssh saw another host key than {expected}: {}",
        describe(&out)
    );
    assert!(second.stop().success());
}

#[test]
fn serves_on_a_port_systemd_passes() {
    require_all();
    let env = TestEnv::new();
    let keys = env.dir().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let known = keygen(&keys, "known");
    let authorized = authorized_keys(&keys, &[&known]);
    // The port systemd would hold (tuios-ssh.socket), passed as fd 3 with LISTEN_PID/LISTEN_FDS.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let fd = std::os::fd::AsRawFd::as_raw_fd(&listener);
    let base = env.command(&["ssh"]);
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg("LISTEN_PID=$$ LISTEN_FDS=1 exec \"$0\" ssh --port 1 --authorized-keys \"$1\"")
        .arg(tuios_integration_tests::tuios_bin())
        .arg(&authorized);
    for (key, value) in base.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.current_dir(env.dir()).stdin(Stdio::null());
    // SAFETY: only async-signal-safe calls (dup2, fcntl) between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
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
    let mut server = SshServer::spawn(&env, cmd);
    // The passed port, not the --port given.
    assert_eq!(server.port, port);
    drop(listener);
    let out = ssh_batch(&known, port, &["-T", "127.0.0.1"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no terminal"),
        "{}",
        describe(&out)
    );
    assert!(server.stop().success());
}

#[test]
fn a_connection_naming_no_session_gets_the_default_one() {
    require_all();
    let daemon = TestDaemon::start();
    daemon.session_with_window("other");
    let keys = daemon.dir().join("keys");
    std::fs::create_dir(&keys).unwrap();
    let key = keygen(&keys, "id");
    let authorized = authorized_keys(&keys, &[&key]);
    let mut cmd = daemon.env().command(&[
        "ssh",
        "--port",
        "0",
        "--default-session",
        "dflt",
        "--authorized-keys",
    ]);
    cmd.arg(&authorized);
    let server = SshServer::spawn(daemon.env(), cmd);
    let pane = SshPane::start(&key, server.port, &[], 90, 25);
    // --default-session names a session that does not exist yet: it is made and attached.
    pane.wait_for("dflt");
    let mut conn = daemon.conn();
    poll(DEADLINE, "session dflt with the ssh client", || {
        let info = conn.call("session-info", json!({ "session": "dflt" }));
        if info["result"]["clients"] == 1 {
            Ok(())
        } else {
            Err(info.to_string())
        }
    });
    let rows = clients(daemon.env());
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["session"], "dflt", "{rows:?}");
    pane.tmux_ok(&["send-keys", "-t", "t", "C-b", "d"]);
    assert_eq!(pane.wait_exit(), 0);
}
