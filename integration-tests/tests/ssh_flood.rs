//! `tuios ssh` under a flood, through the real server and the real OpenSSH client: connections
//! that send a banner and then nothing never lock the owner out, a connection that does not
//! authenticate in time is closed, and the 65th logged-in connection is told that all 64
//! places are taken while the 64 go on working.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddrV4, TcpStream};
use std::os::fd::FromRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tuios_integration_tests::ssh::{
    authorized_keys, clients, keygen, require_all, ssh_batch, ssh_options, SshPane, SshServer,
};
use tuios_integration_tests::{describe, poll, TestDaemon, DEADLINE};

/// The server's cap on logged-in connections (`limits::MAX_SESSIONS`).
const MAX_SESSIONS: usize = 64;

/// A TCP connection to the server from `source` (any 127/8 address: all are this machine's on
/// Linux), so a flood can come from many addresses.
fn connect_from(source: Ipv4Addr, port: u16) -> TcpStream {
    let sockaddr = |addr: SocketAddrV4| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: addr.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*addr.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: a new socket, owned by the TcpStream at the end (or closed on failure); the
    // addresses are plain sockaddr_in values that live across the calls.
    unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        let local = sockaddr(SocketAddrV4::new(source, 0));
        let remote = sockaddr(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port));
        let bound = libc::bind(fd, (&local as *const libc::sockaddr_in).cast(), len);
        let connected =
            bound == 0 && libc::connect(fd, (&remote as *const libc::sockaddr_in).cast(), len) == 0;
        if !connected {
            let e = std::io::Error::last_os_error();
            libc::close(fd);
            panic!("connect from {source} to port {port}: {e}");
        }
        TcpStream::from_raw_fd(fd)
    }
}

/// A connection that sends an SSH banner and then nothing.
fn stall(source: Ipv4Addr, port: u16) -> TcpStream {
    let mut s = connect_from(source, port);
    s.write_all(b"SSH-2.0-flood\r\n").expect("send the banner");
    s
}

/// Reads `s` until the server closes it; how long that took. Fails after `limit`.
fn wait_closed(s: &mut TcpStream, limit: Duration) -> Duration {
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        let left = limit.saturating_sub(start.elapsed());
        assert!(
            !left.is_zero(),
            "the server kept the connection open past {limit:?}"
        );
        s.set_read_timeout(Some(left)).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return start.elapsed(),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return start.elapsed(),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => panic!("waiting for the server to close the connection: {e}"),
        }
    }
}

/// A key pair and the authorized keys file naming it, in the daemon's directory.
fn owner_key(dir: &Path) -> (PathBuf, PathBuf) {
    let keys = dir.join("keys");
    std::fs::create_dir(&keys).unwrap();
    let key = keygen(&keys, "id");
    let authorized = authorized_keys(&keys, &[&key]);
    (key, authorized)
}

/// Typing in the pane comes back from the session's shell: the login is alive and attached.
fn works(pane: &SshPane, word: &str) {
    pane.type_line(&format!("echo {word}-$((6*7))"));
    pane.wait_for(&format!("{word}-42"));
}

#[test]
fn a_banner_flood_does_not_lock_the_owner_out() {
    require_all();
    let daemon = TestDaemon::start();
    let (session, _window) = daemon.session_with_window("work");
    let (key, authorized) = owner_key(daemon.dir());
    let server = SshServer::start(daemon.env(), &authorized);

    // 100 stalled connections from the owner's own address, and one each from 100 others:
    // more than either cap, all held open by this test while the owner logs in.
    let mut flood: Vec<TcpStream> = (0..100)
        .map(|_| stall(Ipv4Addr::LOCALHOST, server.port))
        .collect();
    flood.extend((2..102u8).map(|n| stall(Ipv4Addr::new(127, 0, 0, n), server.port)));

    let pane = SshPane::start(&key, server.port, &[&session], 100, 30);
    pane.wait_for(&session);
    works(&pane, "flooded");
    assert_eq!(clients(daemon.env()).len(), 1);
    assert!(
        server.log().contains("closed to make room"),
        "the flood was noticed in the log:\n{}",
        server.log()
    );
    drop(flood);
}

#[test]
fn a_connection_that_does_not_authenticate_in_time_is_closed() {
    require_all();
    let daemon = TestDaemon::start();
    let (session, _window) = daemon.session_with_window("work");
    let (key, authorized) = owner_key(daemon.dir());
    let grace = Duration::from_millis(1500);
    let mut cmd = daemon
        .env()
        .command(&["ssh", "--port", "0", "--login-grace-ms", "1500"]);
    cmd.arg("--authorized-keys").arg(&authorized);
    let server = SshServer::spawn(daemon.env(), cmd);

    // Logged in first: the grace is for waiting connections only.
    let pane = SshPane::start(&key, server.port, &[&session], 100, 30);
    pane.wait_for(&session);

    // A banner and then nothing, and not even a banner: both closed at the grace, not before.
    let mut banner = stall(Ipv4Addr::LOCALHOST, server.port);
    let mut silent = connect_from(Ipv4Addr::LOCALHOST, server.port);
    let took = wait_closed(&mut banner, DEADLINE);
    assert!(
        took >= grace - Duration::from_millis(100),
        "closed after {took:?}"
    );
    wait_closed(&mut silent, DEADLINE);

    // The session opened before them is past its grace and still works.
    works(&pane, "after-grace");
}

/// `ssh -N`: logs in and holds the connection, opening no channel.
fn hold_login(key: &Path, port: u16) -> Child {
    Command::new("ssh")
        .args(ssh_options(key, port))
        .args(["-o", "BatchMode=yes", "-N", "127.0.0.1"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn ssh -N")
}

/// Kills the `ssh -N` children this test started (by their pids) when it ends.
struct Logins(Vec<Child>);

impl Drop for Logins {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn the_sixty_fifth_login_is_told_all_places_are_taken() {
    require_all();
    let daemon = TestDaemon::start();
    let (session, _window) = daemon.session_with_window("work");
    let (key, authorized) = owner_key(daemon.dir());
    let server = SshServer::start(daemon.env(), &authorized);

    // One attached terminal and 63 held logins: the cap, all real OpenSSH clients.
    let pane = SshPane::start(&key, server.port, &[&session], 100, 30);
    pane.wait_for(&session);
    // In batches of 8: more handshakes at once from one address than its share of waiting
    // places (8) would push the oldest out, as a flood's would.
    let mut logins = Logins(Vec::new());
    while logins.0.len() < MAX_SESSIONS - 1 {
        let batch = (MAX_SESSIONS - 1 - logins.0.len()).min(8);
        logins
            .0
            .extend((0..batch).map(|_| hold_login(&key, server.port)));
        let want = 1 + logins.0.len();
        poll(DEADLINE, &format!("{want} logged-in connections"), || {
            let n = clients(daemon.env()).len();
            if n == want {
                Ok(())
            } else {
                Err(format!("{n} connected"))
            }
        });
    }

    // The 65th has the right key and is told why it cannot stay.
    let out = ssh_batch(&key, server.port, &["-T", "127.0.0.1"], &[]);
    assert_eq!(out.status.code(), Some(255), "{}", describe(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("all 64 sessions are in use"),
        "{}",
        describe(&out)
    );
    assert_eq!(clients(daemon.env()).len(), MAX_SESSIONS);
    works(&pane, "still-in");

    // One leaves: the next login gets its place (and, without a terminal, is told to ask).
    let mut one = logins.0.pop().expect("a held login");
    let _ = one.kill();
    let _ = one.wait();
    poll(DEADLINE, "a place to free", || {
        let n = clients(daemon.env()).len();
        if n < MAX_SESSIONS {
            Ok(())
        } else {
            Err(format!("{n} connected"))
        }
    });
    let out = ssh_batch(&key, server.port, &["-T", "127.0.0.1"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no terminal"),
        "{}",
        describe(&out)
    );
    works(&pane, "last");
}
