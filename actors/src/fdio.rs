//! Non-blocking descriptors registered with the reactor for one direction only. tokio registers
//! a socket or pipe for reading and writing at once, so every change of the other direction
//! (the peer reading what we wrote, the program reading its input) wakes the registering
//! thread for nothing; on the keystroke path those wake-ups cost a thread hop each.
use std::io;
use std::os::fd::OwnedFd;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, Interest, ReadBuf};

/// Register `fd` (non-blocking) with the current reactor for `interest` only.
fn register(fd: OwnedFd, interest: Interest) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: the AsyncFd owns `fd` for its whole life, and an OwnedFd always returns the same
    // open descriptor.
    unsafe { AsyncFd::register_with_interest(fd, interest) }.map_err(io::Error::from)
}

/// Write all of `bytes` to the non-blocking `fd`. The descriptor is registered (in `blocked`,
/// a second descriptor of the same file) only once a write would block, and stays registered
/// until the caller drops it: an idle writer is not woken by the other direction.
pub async fn write_all(
    fd: &OwnedFd,
    mut bytes: &[u8],
    blocked: &mut Option<AsyncFd<OwnedFd>>,
) -> io::Result<()> {
    while !bytes.is_empty() {
        match rustix::io::write(fd, bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => {
                let reg = match blocked {
                    Some(reg) => reg,
                    None => blocked.insert(register(fd.try_clone()?, Interest::WRITABLE)?),
                };
                // Readiness is cleared only by a write that would block, so no wake is lost.
                let mut guard = reg.writable().await?;
                match guard.try_io(|inner| Ok(rustix::io::write(inner, bytes)?)) {
                    Ok(Ok(n)) => bytes = &bytes[n..],
                    Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                    Ok(Err(e)) => return Err(e),
                    Err(_would_block) => {}
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// The reading side of a descriptor, registered for readability only.
pub struct FdReader(AsyncFd<OwnedFd>);

impl FdReader {
    pub fn new(fd: OwnedFd) -> io::Result<FdReader> {
        Ok(FdReader(register(fd, Interest::READABLE)?))
    }
}

impl AsyncRead for FdReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            let mut guard = ready!(self.0.poll_read_ready(cx))?;
            let dst = buf.initialize_unfilled();
            match guard.try_io(|inner| Ok(rustix::io::read(inner, &mut *dst)?)) {
                Ok(Ok(n)) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Ok(Err(e)) => return Poll::Ready(Err(e)),
                Err(_would_block) => {}
            }
        }
    }
}
