//! Live upgrade, the daemon's part: check the binary on disk, freeze the actors, hand the state
//! over in a memfd and exec in the same process; on the other side of the exec, take it back.
//! The format and the actors' part are in `actors::handover`.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use actors::handover::UpgradeAnswer;
use actors::handover::{self, HandoverState, IncomingHandover, ENV_FD};
use rustix::io::FdFlags;
use tokio::sync::oneshot;

/// The hidden option of `tuios daemon` that prints the handover versions a binary reads.
pub const VERSIONS_FLAG: &str = "--handover-versions";

/// How long the binary on disk may take to say which versions it reads.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);

/// Largest handover document read back (50 windows with 10,000 styled lines each fit).
const MAX_STATE_BYTES: u64 = 2 << 30;

/// `tuios daemon --handover-versions`: the handover format versions this binary reads.
pub fn print_versions() -> i32 {
    let versions: Vec<String> = handover::READS.iter().map(u32::to_string).collect();
    println!("{} {}", handover::MAGIC, versions.join(" "));
    0
}

/// What an upgrade needs from the daemon's start: its own handle on the listening socket and
/// how the service manager is reached.
pub struct Context {
    /// A close-on-exec dup of the listening socket; only this one crosses the exec.
    pub listener: OwnedFd,
    pub systemd_socket: bool,
    pub notify_socket: Option<String>,
    /// systemd keeps the window PTYs (see `crate::fdstore`).
    pub fd_store: bool,
}

/// Carry out an upgrade (or, with `check`, only say whether one would work), answering
/// `reply` once the binary on disk has been checked. Returns only when no upgrade happened,
/// with the reason when one was wanted; the daemon then carries on as before.
pub async fn perform(
    handle: &mut actors::DaemonHandle,
    ctx: &Context,
    check: bool,
    reply: Option<oneshot::Sender<Result<UpgradeAnswer, String>>>,
) -> Option<String> {
    let answer = |r: Result<UpgradeAnswer, String>| {
        if let Some(reply) = reply {
            let _ = reply.send(r);
        }
    };
    let checked = match binary_on_disk() {
        Ok(exe) => check_binary(&exe).await.map(|reads| (exe, reads)),
        Err(why) => Err(why),
    };
    let exe = match checked {
        Err(why) => {
            answer(Err(why.clone()));
            return Some(why);
        }
        Ok((exe, reads)) if check => {
            answer(Ok(UpgradeAnswer::WouldUpgrade {
                binary: exe.display().to_string(),
                reads,
            }));
            return None;
        }
        Ok((exe, _)) => exe,
    };
    answer(Ok(UpgradeAnswer::Upgrading {
        binary: exe.display().to_string(),
    }));
    // Whatever JSON requests are in flight (this upgrade's among them) are answered before
    // the exec closes their connections; new ones wait in the socket's queue for the new
    // daemon, so nobody is answered by this one past this point.
    handle.stop_accepting().await;
    let why = switch(handle, ctx, &exe).await;
    // Still here: serve again.
    let again = rustix::io::fcntl_dupfd_cloexec(&ctx.listener, 3)
        .map_err(|e| format!("cannot duplicate the listening socket: {e}"))
        .and_then(|fd| handle.accept_again(std::os::unix::net::UnixListener::from(fd)));
    if let Err(e) = again {
        tracing::error!("the daemon cannot accept connections any more: {e}");
    }
    Some(why)
}

/// Freeze, hand over and exec; returns only when that failed, with the reason (the windows
/// read again by then).
async fn switch(handle: &actors::DaemonHandle, ctx: &Context, exe: &Path) -> String {
    tracing::info!(binary = %exe.display(), "live upgrade: handing the sessions over");
    let started = std::time::Instant::now();
    let mut out = match handle.freeze().await {
        Ok(out) => out,
        Err(why) => return format!("the sessions could not be handed over: {why}"),
    };
    let state = HandoverState {
        version: handover::VERSION,
        written_by: env!("CARGO_PKG_VERSION").to_string(),
        listener_fd: ctx.listener.as_raw_fd(),
        systemd_socket: ctx.systemd_socket,
        notify_socket: ctx.notify_socket.clone(),
        fd_store: ctx.fd_store,
        sessions: std::mem::take(&mut out.sessions),
    };
    let windows: usize = state.sessions.iter().map(|s| s.windows.len()).sum();
    let why = match handover::encode(&state) {
        Ok(bytes) => {
            let mut handed: Vec<BorrowedFd<'_>> = vec![ctx.listener.as_fd()];
            handed.extend(out.fds.iter().map(|f| f.as_fd()));
            tracing::info!(
                sessions = state.sessions.len(),
                windows,
                bytes = bytes.len(),
                prepared_ms = started.elapsed().as_millis() as u64,
                "live upgrade: executing the new binary"
            );
            exec(exe, &bytes, &handed)
        }
        Err(why) => why,
    };
    // Still here: nothing was handed over. Windows read again; the exported dups close.
    out.thaw().await;
    why
}

/// The binary to run: where /proc/self/exe points, which after a reinstall is the path with
/// " (deleted)" appended by the kernel; the file now at that path is the new binary.
fn binary_on_disk() -> Result<PathBuf, String> {
    let link = std::fs::read_link("/proc/self/exe")
        .map_err(|e| format!("cannot find the daemon's binary (/proc/self/exe): {e}"))?;
    let bytes = link.as_os_str().as_bytes();
    let path = match bytes.strip_suffix(b" (deleted)") {
        Some(stripped) => PathBuf::from(OsStr::from_bytes(stripped)),
        None => link,
    };
    if !path.is_file() {
        return Err(format!(
            "the tuios binary {} is no longer there; install the new one at that path",
            path.display()
        ));
    }
    Ok(path)
}

/// Ask the binary on disk which handover versions it reads; it must read the one written here.
async fn check_binary(exe: &Path) -> Result<Vec<u32>, String> {
    let run = tokio::process::Command::new(exe)
        .args(["daemon", VERSIONS_FLAG])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .output();
    let out = match tokio::time::timeout(PROBE_TIMEOUT, run).await {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Err(format!("cannot run the new binary {}: {e}", exe.display())),
        Err(_) => {
            return Err(format!(
                "the new binary {} did not answer within {}s",
                exe.display(),
                PROBE_TIMEOUT.as_secs()
            ))
        }
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let reads: Vec<u32> = text
        .trim()
        .strip_prefix(handover::MAGIC)
        .map(|rest| {
            rest.split_whitespace()
                .filter_map(|v| v.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    if !out.status.success() || reads.is_empty() {
        return Err(format!(
            "the new binary {} does not support live upgrade (it is an older tuios, or not \
             tuios); restart the daemon instead",
            exe.display()
        ));
    }
    if !reads.contains(&handover::VERSION) {
        return Err(format!(
            "the new binary {} reads handover format {reads:?}, and this daemon writes {}; \
             restart the daemon instead (sessions are restored, programs are not)",
            exe.display(),
            handover::VERSION
        ));
    }
    Ok(reads)
}

/// Write the state to a memfd, clear close-on-exec on exactly the handed descriptors and exec.
/// Returns the reason when the exec failed, with close-on-exec set again.
fn exec(exe: &Path, state: &[u8], handed: &[BorrowedFd<'_>]) -> String {
    let memfd = match state_memfd(state) {
        Ok(fd) => fd,
        Err(e) => return format!("cannot write the state to hand over: {e}"),
    };
    let mut all: Vec<BorrowedFd<'_>> = handed.to_vec();
    all.push(memfd.as_fd());
    let c = |s: &OsStr| CString::new(s.as_bytes()).ok();
    let Some(path) = c(exe.as_os_str()) else {
        return format!("the binary's path {} holds a NUL byte", exe.display());
    };
    let argv: Option<Vec<CString>> = std::env::args_os().map(|a| c(&a)).collect();
    let mut envp: Option<Vec<CString>> = std::env::vars_os()
        .filter(|(k, _)| k != ENV_FD)
        .map(|(k, v)| {
            let mut kv = k.as_bytes().to_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_bytes());
            CString::new(kv).ok()
        })
        .collect();
    if let Some(envp) = envp.as_mut() {
        envp.push(
            CString::new(format!("{ENV_FD}={}", memfd.as_raw_fd())).expect("no NUL in a number"),
        );
    }
    let (Some(argv), Some(envp)) = (argv, envp) else {
        return "the daemon's arguments or environment hold a NUL byte".to_string();
    };
    if let Err(e) = set_cloexec(&all, false) {
        set_cloexec(&all, true).ok();
        return format!("cannot pass the descriptors on: {e}");
    }
    let mut argv_p: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    argv_p.push(std::ptr::null());
    let mut envp_p: Vec<*const libc::c_char> = envp.iter().map(|a| a.as_ptr()).collect();
    envp_p.push(std::ptr::null());
    // SAFETY: every pointer is to a NUL-terminated string kept alive above, and both arrays
    // end with a null pointer. On success this process image is replaced.
    unsafe { libc::execve(path.as_ptr(), argv_p.as_ptr(), envp_p.as_ptr()) };
    let err = io::Error::last_os_error();
    if let Err(e) = set_cloexec(&all, true) {
        tracing::warn!("cannot make the handed descriptors close-on-exec again: {e}");
    }
    format!("cannot execute {}: {err}", exe.display())
}

fn state_memfd(state: &[u8]) -> io::Result<OwnedFd> {
    let fd = rustix::fs::memfd_create("tuios-handover", rustix::fs::MemfdFlags::CLOEXEC)?;
    let mut file = File::from(fd);
    file.write_all(state)?;
    file.rewind()?;
    Ok(OwnedFd::from(file))
}

fn set_cloexec(fds: &[BorrowedFd<'_>], on: bool) -> io::Result<()> {
    for fd in fds {
        let flags = rustix::io::fcntl_getfd(fd)?;
        let flags = if on {
            flags | FdFlags::CLOEXEC
        } else {
            flags - FdFlags::CLOEXEC
        };
        rustix::io::fcntl_setfd(fd, flags)?;
    }
    Ok(())
}

/// The state a previous daemon handed over, if this process was started by a live upgrade.
/// The variable is removed at once. Must run while the process has one thread.
pub fn receive() -> Result<Option<IncomingHandover>, String> {
    let Some(value) = std::env::var_os(ENV_FD) else {
        return Ok(None);
    };
    std::env::remove_var(ENV_FD);
    let fd: RawFd = value
        .to_str()
        .and_then(|v| v.parse().ok())
        .filter(|&fd| fd > 2)
        .ok_or_else(|| format!("{ENV_FD} is not a descriptor number"))?;
    let memfd = claim(fd).ok_or_else(|| format!("{ENV_FD} names no open descriptor ({fd})"))?;
    let mut bytes = Vec::new();
    File::from(memfd)
        .take(MAX_STATE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the handed-over state: {e}"))?;
    let state = handover::decode(&bytes)?;
    let mut fds = std::collections::HashMap::new();
    let numbers = std::iter::once(state.listener_fd).chain(
        state
            .sessions
            .iter()
            .flat_map(|s| s.windows.iter().map(|w| w.fd)),
    );
    for n in numbers {
        if n <= 2 || n == fd || fds.contains_key(&n) {
            continue;
        }
        match claim(n) {
            Some(owned) => {
                fds.insert(n, owned);
            }
            None => tracing::warn!(fd = n, "a handed-over descriptor is not open"),
        }
    }
    Ok(Some(IncomingHandover { state, fds }))
}

/// Own descriptor `fd`, if it is open, and make it close-on-exec again.
fn claim(fd: RawFd) -> Option<OwnedFd> {
    // SAFETY: fcntl(F_GETFD) only asks whether `fd` is open; nothing is changed.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return None;
    }
    // SAFETY: the previous image of this process passed `fd` across its exec (it is open, see
    // above) and nothing else in this process knows of it: it is taken exactly once, the
    // numbers are deduplicated by the caller.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    set_cloexec(&[owned.as_fd()], true).ok()?;
    Some(owned)
}
