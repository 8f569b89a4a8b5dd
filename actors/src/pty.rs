//! PTY plumbing for a window: spawning the child, the non-blocking reader stream (the PtyReader),
//! the writer task, and reaping the child.
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::path::PathBuf;

use bytes::BytesMut;
use portable_pty::{native_pty_system, MasterPty, PtySize};
use tokio::net::unix::pipe;

use crate::spawn::SpawnSpec;

/// Bytes read per PTY read. Large reads keep a flood cheap; the actor handles one chunk at a time,
/// so a window that cannot keep up stops reading and the child blocks on its PTY (backpressure).
const READ_CHUNK: usize = 64 * 1024;

/// Most bytes read per wake-up, and so the most unparsed output a window has in flight.
pub const BURST: usize = 256 * 1024;

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    /// Why neither is known (a program taken over after a crash is not our child).
    pub reason: Option<&'static str>,
}

pub struct SpawnedPty {
    pub master: Box<dyn MasterPty + Send>,
    /// The program; the Supervisor reaps it by pid.
    pub pid: i32,
}

pub fn pty_size(cols: u16, rows: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

/// Open a PTY and start the program in it (`spawn.rs`). Errors are the OS reason, for the
/// caller to classify.
pub fn spawn(spec: &SpawnSpec) -> Result<SpawnedPty, String> {
    let pair = native_pty_system()
        .openpty(pty_size(spec.cols, spec.rows))
        .map_err(|e| format!("could not open a PTY: {e}"))?;
    // The child opens the slave by name, which is what makes it its controlling terminal.
    let tty = pair
        .master
        .tty_name()
        .ok_or_else(|| "the new PTY has no name".to_string())?;
    let pid = crate::spawn::spawn(spec, &tty)?;
    // The slave must be closed here, or reads never see the end of output.
    drop(pair.slave);
    Ok(SpawnedPty {
        master: pair.master,
        pid,
    })
}

fn dup_fd(fd: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    let owned = rustix::io::fcntl_dupfd_cloexec(fd, 0)?;
    // tokio's unchecked constructors do not set it, and a blocking read or write would stall
    // every actor on the thread. (The flag belongs to the open file, shared by every dup.)
    let flags = rustix::fs::fcntl_getfl(&owned)?;
    rustix::fs::fcntl_setfl(&owned, flags | rustix::fs::OFlags::NONBLOCK)?;
    Ok(owned)
}

/// A non-blocking dup of the master for the window's PtyReader.
pub fn reader_fd(master: &dyn MasterPty) -> io::Result<OwnedFd> {
    let fd = master
        .as_raw_fd()
        .ok_or_else(|| io::Error::other("PTY has no descriptor"))?;
    // SAFETY: portable-pty only hands out the raw descriptor; `master` owns it and stays
    // borrowed (so open) for the whole dup.
    dup_fd(unsafe { BorrowedFd::borrow_raw(fd) })
}

/// A non-blocking dup of the master for the window's writer task.
pub fn writer_fd(master: &dyn MasterPty) -> io::Result<OwnedFd> {
    reader_fd(master)
}

/// The most one call of [`read_burst`] reads. Every window's reader shares one thread: while a
/// flooding program keeps its PTY readable, a pass that read until `BURST` (or until the
/// kernel ran dry, which a fast program may never let happen) kept that thread from every
/// other PTY, and a key's echo in a quiet window waited behind it for up to a third of a second.
/// A pass this size takes well under a millisecond; the reader then yields (see `PtyReader`).
pub const PASS: usize = 16 * 1024;

/// Wait until the PTY is readable, then read what is available now, up to `BURST` in the
/// buffer and `PASS` in this call. One wake-up per burst instead of per kernel chunk (a PTY
/// hands out about 4 KiB per read) keeps the per-chunk cost of the actor, the event and the
/// emulator call off a flood's hot path.
pub async fn read_burst(rx: &pipe::Receiver, buf: &mut BytesMut) -> io::Result<usize> {
    loop {
        rx.readable().await?;
        let mut total = 0;
        loop {
            if buf.capacity() - buf.len() < READ_CHUNK {
                buf.reserve(BURST);
            }
            let spare = buf.spare_capacity_mut();
            // SAFETY: the bytes read are initialised by the kernel before `set_len`; the
            // slice is only written by `read`.
            let dst = unsafe {
                std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<u8>(), spare.len())
            };
            match rx.try_read(dst) {
                Ok(0) => return Ok(total),
                Ok(n) => {
                    // SAFETY: `n` bytes were just written into the spare capacity.
                    unsafe { buf.set_len(buf.len() + n) };
                    total += n;
                    // The buffer may already hold output read ahead: it never passes a burst.
                    if buf.len() >= BURST || total >= PASS {
                        return Ok(total);
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if total > 0 {
                        return Ok(total);
                    }
                    // Spurious readiness: wait again.
                    break;
                }
                Err(e) => {
                    return if total > 0 { Ok(total) } else { Err(e) };
                }
            }
        }
    }
}

/// Read whatever is buffered now, up to one burst, without waiting. Returns true when the
/// output has ended (EOF or an error such as EIO).
pub fn read_available(rx: &pipe::Receiver, buf: &mut BytesMut) -> bool {
    let mut total = 0;
    loop {
        if buf.capacity() - buf.len() < READ_CHUNK {
            buf.reserve(READ_CHUNK);
        }
        let spare = buf.spare_capacity_mut();
        // SAFETY: as in read_burst: only the kernel writes the slice before `set_len`.
        let dst =
            unsafe { std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast::<u8>(), spare.len()) };
        // A plain read(2), not `try_read`: tokio's try_read reports WouldBlock without reading
        // while the reactor has not yet seen the descriptor readable, which here (the program
        // just exited) would leave its last output unread when the window settles the exit.
        match rustix::io::read(rx, dst) {
            Ok(0) => return true,
            Ok(n) => {
                // SAFETY: `n` bytes were just written into the spare capacity.
                unsafe { buf.set_len(buf.len() + n) };
                total += n;
                if total >= BURST {
                    return false;
                }
            }
            Err(rustix::io::Errno::AGAIN) => return false,
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => return true,
        }
    }
}

/// Signal the child's process group (it is a session leader, so the group is its pid) and the child.
/// `sig` is a libc signal number (callers name them as `libc::SIG…`); one rustix does not
/// know, or a pid that cannot be one, is ignored.
pub fn signal_child(pid: i32, sig: rustix::process::Signal) {
    let Some(pid) = rustix::process::Pid::from_raw(pid) else {
        return;
    };
    // Failures (already gone) are fine.
    let _ = rustix::process::kill_process_group(pid, sig);
    let _ = rustix::process::kill_process(pid, sig);
}

/// Send `sig` to `pid`; failures (a vanished process) are harmless here.
fn kill(pid: i32, sig: rustix::process::Signal) {
    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// Every process in the terminal session the window's program leads (its session id is the
/// program's pid), with its start time: background jobs and `nohup`ed servers that left the
/// shell's process group are still in it, unless they called setsid themselves. Reads /proc:
/// call it off the actors' threads.
pub fn session_members(sid: i32) -> Vec<(i32, u64)> {
    crate::tree::all()
        .into_iter()
        .filter(|p| p.sid == sid && p.pid != sid)
        .map(|p| (p.pid, p.start))
        .collect()
}

/// The session id and start time of `pid` (one /proc stat parser: `tree::stat`).
fn process_session(pid: i32) -> Option<(i32, u64)> {
    crate::tree::stat(pid).map(|p| (p.sid, p.start))
}

/// Hang up everything started in a window: the program's group and every other member of its
/// terminal session, then SIGKILL what is left after `grace`. Runs on the blocking pool.
pub fn end_session_tree(pid: i32, grace: std::time::Duration) {
    tokio::task::spawn_blocking(move || {
        // The program itself, identified by its start time: after the grace its pid may be a
        // new process (another window's program), which must not be killed.
        let leader = process_session(pid);
        // Found now, while the session is surely the window's: once every member is gone its
        // id may be reused by another window's shell, so it is never searched for again.
        let members = session_members(pid);
        hang_up_members(pid, members, grace);
        if leader.is_some() && process_session(pid) == leader {
            signal_child(pid, rustix::process::Signal::KILL);
        }
    });
}

/// What is left in the terminal session of a window's program just after it was reaped: its
/// background jobs. Reads /proc on the blocking pool.
pub type Leftovers = tokio::task::JoinHandle<Vec<(i32, u64)>>;

pub fn find_leftovers(sid: i32) -> Leftovers {
    tokio::task::spawn_blocking(move || session_members(sid))
}

/// End the background jobs a reaped program left behind, when its window is closed. The
/// session id cannot be given to a new process while any member still uses it, so if one of
/// the members found now was already there at the reap (same pid and start time), the id was
/// never free and every member is the window's. Otherwise (all gone at some point, the id
/// perhaps reused by another window) nothing is signalled.
pub fn end_leftovers(sid: i32, at_reap: Leftovers, grace: std::time::Duration) {
    tokio::spawn(async move {
        let Ok(at_reap) = at_reap.await else { return };
        if at_reap.is_empty() {
            return;
        }
        let _ = tokio::task::spawn_blocking(move || {
            let members = session_members(sid);
            if members.iter().any(|m| at_reap.contains(m)) {
                hang_up_members(sid, members, grace);
            }
        })
        .await;
    });
}

/// SIGHUP each member of session `sid`, wait `grace`, then SIGKILL the ones still there (the
/// same process: same session and start time, never a reused pid). Blocks for `grace`.
fn hang_up_members(sid: i32, members: Vec<(i32, u64)>, grace: std::time::Duration) {
    for &(p, _) in &members {
        // Pids just read from /proc; a vanished one fails harmlessly.
        kill(p, rustix::process::Signal::HUP);
    }
    std::thread::sleep(grace);
    let mut targets: Vec<(i32, u64)> = members
        .into_iter()
        .filter(|&(p, start)| process_session(p) == Some((sid, start)))
        .collect();
    if !targets.is_empty() {
        // A member is still there, so the session id never came free: whatever joined the
        // session meanwhile (a job a dying shell had just forked) was started in the window too.
        for m in session_members(sid) {
            if !targets.contains(&m) {
                targets.push(m);
            }
        }
    }
    for (p, start) in targets {
        if process_session(p) == Some((sid, start)) {
            kill(p, rustix::process::Signal::KILL);
        }
    }
}

/// The master side of a PTY this process did not open itself: handed over by the daemon that
/// ran before a live upgrade (or kept for it by systemd). portable-pty cannot wrap a descriptor,
/// so this does the few things a window needs of its master.
pub struct AdoptedMaster {
    fd: OwnedFd,
}

impl AdoptedMaster {
    pub fn new(fd: OwnedFd) -> Self {
        AdoptedMaster { fd }
    }

    fn dup_file(&self) -> Result<std::fs::File, anyhow::Error> {
        Ok(std::fs::File::from(dup_fd(self.fd.as_fd())?))
    }
}

impl MasterPty for AdoptedMaster {
    fn resize(&self, size: PtySize) -> Result<(), anyhow::Error> {
        let ws = rustix::termios::Winsize {
            ws_row: size.rows,
            ws_col: size.cols,
            ws_xpixel: size.pixel_width,
            ws_ypixel: size.pixel_height,
        };
        rustix::termios::tcsetwinsize(&self.fd, ws).map_err(io::Error::from)?;
        Ok(())
    }

    fn get_size(&self) -> Result<PtySize, anyhow::Error> {
        let ws = rustix::termios::tcgetwinsize(&self.fd).map_err(io::Error::from)?;
        Ok(PtySize {
            rows: ws.ws_row,
            cols: ws.ws_col,
            pixel_width: ws.ws_xpixel,
            pixel_height: ws.ws_ypixel,
        })
    }

    fn try_clone_reader(&self) -> Result<Box<dyn io::Read + Send>, anyhow::Error> {
        Ok(Box::new(self.dup_file()?))
    }

    fn take_writer(&self) -> Result<Box<dyn io::Write + Send>, anyhow::Error> {
        Ok(Box::new(self.dup_file()?))
    }

    fn process_group_leader(&self) -> Option<libc::pid_t> {
        // No foreground group (rustix reports Linux's 0 as an error) is None too.
        match rustix::termios::tcgetpgrp(&self.fd) {
            Ok(pid) if pid.as_raw_nonzero().get() > 0 => Some(pid.as_raw_nonzero().get()),
            _ => None,
        }
    }

    fn as_raw_fd(&self) -> Option<RawFd> {
        use std::os::fd::AsRawFd;
        Some(self.fd.as_raw_fd())
    }

    fn tty_name(&self) -> Option<PathBuf> {
        None
    }
}

/// Make `fd` close-on-exec again (a descriptor received across an exec has it cleared).
pub fn set_cloexec(fd: impl AsFd, on: bool) -> io::Result<()> {
    use rustix::io::FdFlags;
    let mut flags = rustix::io::fcntl_getfd(&fd)?;
    flags.set(FdFlags::CLOEXEC, on);
    rustix::io::fcntl_setfd(&fd, flags)?;
    Ok(())
}

/// The session (the program's pid: it leads it) of the terminal whose master is `fd`; `None`
/// when nothing holds the terminal's other side any more.
pub fn pty_session(fd: &OwnedFd) -> Option<i32> {
    // TIOCGSID: on a master, Linux answers for the terminal pair. Asked directly rather than
    // through rustix's tcgetsid, which asserts a pid > 0: a session led from outside our PID
    // namespace reads as 0.
    let mut sid: libc::pid_t = 0;
    // SAFETY: TIOCGSID writes one pid_t through the pointer, which outlives the call.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TIOCGSID, &mut sid) };
    (rc == 0 && sid > 0).then_some(sid)
}

/// The size (cols, rows) of the terminal whose master is `fd`.
pub fn pty_winsize(fd: &OwnedFd) -> Option<(u16, u16)> {
    let ws = rustix::termios::tcgetwinsize(fd).ok()?;
    (ws.ws_col > 0 && ws.ws_row > 0).then_some((ws.ws_col, ws.ws_row))
}
