//! Bare PTY: a PTY of the benchmark's own, and the bare floors of phases (a), (b) and (d).

use std::ffi::CStr;
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::util::stop_child;
use super::{ctx, FLOOD_COLS, FLOOD_ROWS, R};

pub(crate) struct Pty {
    pub(crate) master: File,
    slave: Option<File>,
}

pub(crate) fn open_pty(cols: u16, rows: u16) -> R<Pty> {
    // SAFETY: libc PTY calls on a descriptor we own; ptsname_r writes into our buffer.
    unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(format!("posix_openpt: {}", std::io::Error::last_os_error()));
        }
        let master = File::from(OwnedFd::from_raw_fd(fd));
        if libc::grantpt(fd) != 0 || libc::unlockpt(fd) != 0 {
            return Err(format!(
                "grantpt/unlockpt: {}",
                std::io::Error::last_os_error()
            ));
        }
        let mut name = [0 as libc::c_char; 128];
        if libc::ptsname_r(fd, name.as_mut_ptr(), name.len()) != 0 {
            return Err(format!("ptsname_r: {}", std::io::Error::last_os_error()));
        }
        let sfd = libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        if sfd < 0 {
            let path = CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned();
            return Err(format!("open {path}: {}", std::io::Error::last_os_error()));
        }
        let slave = File::from(OwnedFd::from_raw_fd(sfd));
        let ws = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        if libc::ioctl(fd, libc::TIOCSWINSZ, &ws) != 0 {
            return Err(format!("TIOCSWINSZ: {}", std::io::Error::last_os_error()));
        }
        Ok(Pty {
            master,
            slave: Some(slave),
        })
    }
}

impl Pty {
    /// Starts `argv` on the slave as a session leader with the PTY as its controlling terminal,
    /// then drops our slave so the end of output shows as EIO.
    pub(crate) fn spawn(&mut self, argv: &[&str], env: &[(&str, &str)]) -> R<Child> {
        let slave = self.slave.take().ok_or("PTY slave already used")?;
        let io = |f: &File| f.try_clone().map(Stdio::from).map_err(ctx("dup slave"));
        let mut cmd = Command::new(argv[0]);
        cmd.args(&argv[1..])
            .stdin(io(&slave)?)
            .stdout(io(&slave)?)
            .stderr(io(&slave)?);
        cmd.env_remove("ENV").envs(env.iter().copied());
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().map_err(ctx("spawning on the PTY"))?;
        drop(slave);
        Ok(child)
    }

    /// Waits up to `limit` for the master to become readable.
    pub(crate) fn readable(&self, limit: Duration) -> R<bool> {
        let mut pfd = libc::pollfd {
            fd: self.master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = limit.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one pollfd on a descriptor we own.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(format!("poll: {e}"));
        }
        Ok(n > 0)
    }

    /// Reads into `acc` until `done(acc)` or the deadline.
    pub(crate) fn read_until(
        &mut self,
        acc: &mut Vec<u8>,
        limit: Duration,
        what: &str,
        done: impl Fn(&[u8]) -> bool,
    ) -> R<()> {
        let deadline = Instant::now() + limit;
        let mut buf = [0u8; 65536];
        while !done(acc) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let tail =
                    String::from_utf8_lossy(&acc[acc.len().saturating_sub(200)..]).into_owned();
                return Err(format!(
                    "bare PTY: timed out waiting for {what}; last output: {tail:?}"
                ));
            }
            if !self.readable(left)? {
                continue;
            }
            match self.master.read(&mut buf) {
                Ok(0) => return Err(format!("bare PTY: end of output before {what}")),
                Ok(n) => acc.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("bare PTY read: {e}")),
            }
        }
        Ok(())
    }
}

pub(crate) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The physical limit: `cat FILE` on a PTY drained in 64 KiB reads until EIO.
pub(crate) fn bare_throughput(file: &Path, size: u64) -> R<f64> {
    let mut pty = open_pty(FLOOD_COLS, FLOOD_ROWS)?;
    let t0 = Instant::now();
    let mut child = pty.spawn(&["cat", &file.to_string_lossy()], &[])?;
    let mut buf = vec![0u8; 65536];
    let mut total = 0u64;
    loop {
        match pty.master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => total += n as u64,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // EIO: every slave descriptor is closed, i.e. cat exited and all output was read.
            Err(e) if e.raw_os_error() == Some(libc::EIO) => break,
            Err(e) => return Err(format!("bare PTY read: {e}")),
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let status = child.wait().map_err(ctx("waiting for cat"))?;
    if !status.success() {
        return Err(format!("cat exited with {status}"));
    }
    // ONLCR only adds bytes, so anything short of the file size means lost output.
    if total < size {
        return Err(format!("read {total} bytes of a {size}-byte file"));
    }
    Ok(secs)
}

/// Round trip on a bare PTY: write the command line, read until the shell printed the result.
pub(crate) fn bare_roundtrip(n: usize, home: &Path) -> R<Vec<f64>> {
    let mut pty = open_pty(FLOOD_COLS, FLOOD_ROWS)?;
    let home = home.to_string_lossy();
    let mut child = pty.spawn(
        &["/bin/sh", "-i"],
        &[("PS1", "$ "), ("HOME", &home), ("TERM", "xterm-256color")],
    )?;
    let result = (|| {
        let mut acc = Vec::new();
        pty.read_until(&mut acc, Duration::from_secs(10), "the first prompt", |a| {
            contains(a, b"$ ")
        })?;
        let mut times = Vec::with_capacity(n);
        for i in 0..n {
            acc.clear();
            let want = format!("\n{}\r\n", i + 1000).into_bytes();
            let t0 = Instant::now();
            pty.master
                .write_all(format!("echo $(({i}+1000))\n").as_bytes())
                .map_err(ctx("writing to the PTY"))?;
            pty.read_until(&mut acc, Duration::from_secs(10), "the echo result", |a| {
                contains(a, &want)
            })?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            let prompt = format!("\n{}\r\n$ ", i + 1000).into_bytes();
            pty.read_until(&mut acc, Duration::from_secs(10), "the next prompt", |a| {
                contains(a, &prompt)
            })?;
        }
        Ok(times)
    })();
    stop_child(&mut child);
    result
}

/// The program of the latency phase: answers each input line N with a line `M-N`.
pub(crate) const LATENCY_SCRIPT: &str = "while read n; do echo M-$n; done";

/// The bare floor of the latency phase: write `N` plus newline to the PTY, read until `M-N`.
pub(crate) fn bare_latency(n: usize) -> R<Vec<f64>> {
    let mut pty = open_pty(FLOOD_COLS, FLOOD_ROWS)?;
    let mut child = pty.spawn(&["/bin/sh", "-c", LATENCY_SCRIPT], &[])?;
    let result = (|| {
        let mut acc = Vec::new();
        let mut times = Vec::with_capacity(n);
        for i in 0..n {
            acc.clear();
            let want = format!("\nM-{i}\r\n").into_bytes();
            let t0 = Instant::now();
            pty.master
                .write_all(format!("{i}\n").as_bytes())
                .map_err(ctx("writing to the PTY"))?;
            pty.read_until(&mut acc, Duration::from_secs(10), "the marker", |a| {
                contains(a, &want)
            })?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        Ok(times)
    })();
    stop_child(&mut child);
    result
}
