//! The terminal the attach client draws on, abstracted: the local one (`/dev/tty`) or a byte
//! stream (a browser's xterm.js, an SSH channel; see [`super::stream`]). The run loop only sees
//! [`Term`], so every kind of terminal gets the same client.
//!
//! termwiz's own `Terminal` trait cannot serve here: its `waker()` returns termwiz's concrete
//! Unix waker, which nothing outside termwiz can construct, so a stream terminal could not
//! implement it. [`BufferedTerm`] stands in for termwiz's `BufferedTerminal` over this trait.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read, Write};
use std::ops::{Deref, DerefMut};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, Timespec};
use signal_hook::SigId;
use termwiz::caps::Capabilities;
use termwiz::input::{InputEvent, InputParser};
use termwiz::surface::{Change, SequenceNo, Surface};
use termwiz::terminal::{Terminal, UnixTerminal};

/// Wakes a terminal's [`Term::poll_input`] from another thread (the daemon reader).
#[derive(Clone)]
pub struct Waker(Arc<dyn Fn() + Send + Sync>);

impl Waker {
    pub fn new(wake: impl Fn() + Send + Sync + 'static) -> Waker {
        Waker(Arc::new(wake))
    }

    pub fn wake(&self) {
        (self.0)()
    }
}

/// Why a terminal gave no input.
#[derive(Debug)]
pub enum TermError {
    /// The far end went away (browser tab closed, SSH channel gone): the attach ends as a
    /// detach.
    Closed,
    Failed(String),
}

impl std::fmt::Display for TermError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TermError::Closed => f.write_str("the terminal closed"),
            TermError::Failed(why) => f.write_str(why),
        }
    }
}

/// What [`Term::poll_input_or`] saw.
#[derive(Debug)]
pub enum Polled {
    /// As from [`Term::poll_input`]: `None` on timeout.
    Input(Option<InputEvent>),
    /// The daemon has something to read (its socket is readable, or, for a terminal that
    /// cannot wait on it, the reader thread woke the wait).
    Daemon,
}

/// What the attach loop needs from a terminal.
pub trait Term {
    /// Raw input, and the reports the client relies on (bracketed paste, mouse) turned on.
    fn set_raw_mode(&mut self) -> Result<(), String>;
    fn enter_alternate_screen(&mut self) -> Result<(), String>;
    /// (cols, rows).
    fn size(&mut self) -> Result<(usize, usize), String>;
    /// Draws changes (the terminfo renderer) and flushes them.
    fn render(&mut self, changes: &[Change]) -> Result<(), String>;
    /// The next input event, waiting up to `wait` (None: forever). `Ok(None)` on timeout.
    fn poll_input(&mut self, wait: Option<Duration>) -> Result<Option<InputEvent>, TermError>;
    /// Whether [`Term::poll_input_or`] waits on the daemon's socket itself. When it does, the
    /// run loop reads the socket on its own thread (no reader thread, no waker: one wake-up
    /// per echo instead of three).
    fn polls_daemon(&self) -> bool {
        false
    }
    /// [`Term::poll_input`], also ending the wait when `daemon` becomes readable. Only called
    /// with a descriptor when [`Term::polls_daemon`]; otherwise the reader thread's wake-up
    /// stands for the daemon.
    fn poll_input_or(
        &mut self,
        wait: Option<Duration>,
        daemon: Option<BorrowedFd<'_>>,
    ) -> Result<Polled, TermError> {
        debug_assert!(
            daemon.is_none(),
            "this terminal cannot wait on a descriptor"
        );
        Ok(match self.poll_input(wait)? {
            Some(InputEvent::Wake) => Polled::Daemon,
            ev => Polled::Input(ev),
        })
    }
    fn waker(&self) -> Waker;
    /// Writes a control sequence between frames (OSC 52, OSC 9, BEL, a status line), so the
    /// screen model is not disturbed. Failures are ignored: these are best effort.
    fn write_raw(&mut self, seq: &[u8]);
    /// True when the terminal is on another machine (browser, SSH): links are not opened on
    /// this one.
    fn is_remote(&self) -> bool;
}

/// Bytes read from the terminal at a time.
const TTY_READ: usize = 4096;

/// The terminal this process runs in: `/dev/tty`, through termwiz's Unix terminal for raw mode
/// and drawing. Input is read here rather than by termwiz's `poll_input`, so that one poll(2)
/// waits on the terminal, SIGWINCH, the waker and the daemon's socket together. Dropping it
/// restores the terminal.
pub struct LocalTerminal {
    inner: UnixTerminal,
    /// The same device, for sequences written between frames.
    tty: File,
    /// The device opened again, non-blocking, for input. A separate open: `O_NONBLOCK` belongs
    /// to the open file, and termwiz's writes to `tty` must stay blocking.
    input: File,
    parser: InputParser,
    /// Events parsed and not yet returned.
    queue: VecDeque<InputEvent>,
    /// SIGWINCH arrives here (signal-hook's self-pipe).
    winch: UnixStream,
    winch_id: SigId,
    wake: UnixStream,
    wake_write: Arc<UnixStream>,
}

impl LocalTerminal {
    /// Opens `/dev/tty` with capabilities from the environment (TERM, COLORTERM), as any local
    /// program does.
    pub fn open() -> Result<LocalTerminal, String> {
        let caps = Capabilities::new_from_env()
            .map_err(|e| format!("cannot read the terminal's capabilities: {e}"))?;
        let open_err = |e: io::Error| format!("cannot open the terminal: {e}");
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(open_err)?;
        let input = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open("/dev/tty")
            .map_err(open_err)?;
        let inner = UnixTerminal::new_with(caps, &tty, &tty)
            .map_err(|e| format!("cannot open the terminal: {e}"))?;
        let pipes = || -> io::Result<_> {
            let (winch, winch_write) = UnixStream::pair()?;
            winch.set_nonblocking(true)?;
            let (wake, wake_write) = UnixStream::pair()?;
            wake.set_nonblocking(true)?;
            wake_write.set_nonblocking(true)?;
            Ok((winch, winch_write, wake, wake_write))
        };
        let (winch, winch_write, wake, wake_write) =
            pipes().map_err(|e| format!("cannot set up the terminal's wake-ups: {e}"))?;
        // signal-hook owns the write end from here (writes to it without blocking, closes it
        // when the handler is unregistered on drop).
        let winch_id = signal_hook::low_level::pipe::register(libc::SIGWINCH, winch_write)
            .map_err(|e| format!("cannot watch for terminal resizes: {e}"))?;
        Ok(LocalTerminal {
            inner,
            tty,
            input,
            parser: InputParser::new(),
            queue: VecDeque::new(),
            winch,
            winch_id,
            wake,
            wake_write: Arc::new(wake_write),
        })
    }

    /// A resize event when SIGWINCH came (the pipe had something), with the size now.
    fn caught_sigwinch(&mut self) -> Result<Option<InputEvent>, TermError> {
        let mut buf = [0u8; 64];
        match self.winch.read(&mut buf) {
            Ok(0) => Ok(None),
            Ok(_) => {
                let (cols, rows) = self.size().map_err(TermError::Failed)?;
                Ok(Some(InputEvent::Resized { cols, rows }))
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(TermError::Failed(format!(
                "cannot read the resize notifications: {e}"
            ))),
        }
    }

    /// Reads what the terminal has and parses it into the queue. A read that fills the buffer
    /// may have cut a sequence (or an ESC may start one): the parser holds the ambiguous tail
    /// for the next read, as termwiz's own `poll_input` does.
    fn read_input(&mut self) -> Result<(), TermError> {
        let mut buf = [0u8; TTY_READ];
        match self.input.read(&mut buf) {
            // End of file: the terminal hung up.
            Ok(0) => Err(TermError::Closed),
            Ok(n) => {
                let queue = &mut self.queue;
                self.parser
                    .parse(&buf[..n], |ev| queue.push_back(ev), n == buf.len());
                Ok(())
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(TermError::Failed(format!("failed to read input: {e}"))),
        }
    }
}

impl Drop for LocalTerminal {
    fn drop(&mut self) {
        // Also closes the pipe's write end.
        signal_hook::low_level::unregister(self.winch_id);
    }
}

impl Term for LocalTerminal {
    fn set_raw_mode(&mut self) -> Result<(), String> {
        self.inner.set_raw_mode().map_err(|e| e.to_string())
    }

    fn enter_alternate_screen(&mut self) -> Result<(), String> {
        self.inner
            .enter_alternate_screen()
            .map_err(|e| e.to_string())
    }

    fn size(&mut self) -> Result<(usize, usize), String> {
        let s = self.inner.get_screen_size().map_err(|e| e.to_string())?;
        Ok((s.cols, s.rows))
    }

    fn render(&mut self, changes: &[Change]) -> Result<(), String> {
        self.inner.render(changes).map_err(|e| e.to_string())
    }

    fn poll_input(&mut self, wait: Option<Duration>) -> Result<Option<InputEvent>, TermError> {
        loop {
            match self.poll_input_or(wait, None)? {
                Polled::Input(ev) => return Ok(ev),
                Polled::Daemon => {}
            }
        }
    }

    fn polls_daemon(&self) -> bool {
        true
    }

    fn poll_input_or(
        &mut self,
        wait: Option<Duration>,
        daemon: Option<BorrowedFd<'_>>,
    ) -> Result<Polled, TermError> {
        if let Some(ev) = self.queue.pop_front() {
            return Ok(Polled::Input(Some(ev)));
        }
        let timeout = match wait {
            // Longer than poll(2) can say is as good as forever.
            Some(w) => Timespec::try_from(w).ok(),
            None => None,
        };
        let (winch, input, wake) = (self.winch.as_fd(), self.input.as_fd(), self.wake.as_fd());
        let mut fds = [
            PollFd::from_borrowed_fd(winch, PollFlags::IN),
            PollFd::from_borrowed_fd(input, PollFlags::IN),
            PollFd::from_borrowed_fd(wake, PollFlags::IN),
            PollFd::from_borrowed_fd(daemon.unwrap_or(wake), PollFlags::IN),
        ];
        let used = if daemon.is_some() { 4 } else { 3 };
        match rustix::event::poll(&mut fds[..used], timeout.as_ref()) {
            Ok(_) => {}
            // SIGWINCH may have been the interruption: answer the resize now.
            Err(rustix::io::Errno::INTR) => {
                return Ok(Polled::Input(self.caught_sigwinch()?));
            }
            Err(e) => return Err(TermError::Failed(format!("poll(2) failed: {e}"))),
        }
        let ready = |i: usize| i < used && !fds[i].revents().is_empty();
        let (winch, input, wake, daemon) = (ready(0), ready(1), ready(2), ready(3));
        if winch {
            if let Some(resize) = self.caught_sigwinch()? {
                return Ok(Polled::Input(Some(resize)));
            }
        }
        if input {
            self.read_input()?;
            if let Some(ev) = self.queue.pop_front() {
                return Ok(Polled::Input(Some(ev)));
            }
            // Only the start of a sequence came: the daemon need not wait for the rest.
        }
        if daemon {
            return Ok(Polled::Daemon);
        }
        if wake {
            let mut buf = [0u8; 64];
            if let Ok(n) = (&self.wake).read(&mut buf) {
                if n > 0 {
                    return Ok(Polled::Input(Some(InputEvent::Wake)));
                }
            }
        }
        Ok(Polled::Input(None))
    }

    fn waker(&self) -> Waker {
        let w = self.wake_write.clone();
        Waker::new(move || {
            // A full pipe already holds a wake-up.
            let _ = (&*w).write(b"W");
        })
    }

    fn write_raw(&mut self, seq: &[u8]) {
        let _ = self.tty.write_all(seq).and_then(|()| self.tty.flush());
    }

    fn is_remote(&self) -> bool {
        false
    }
}

/// A terminal with a model of what it shows: frames are drawn into the model and only the
/// differences are sent (what termwiz's `BufferedTerminal` does, over [`Term`]). Derefs to the
/// model's [`Surface`].
pub struct BufferedTerm<T: Term> {
    term: T,
    surface: Surface,
    seqno: SequenceNo,
}

impl<T: Term> BufferedTerm<T> {
    pub fn new(mut term: T) -> Result<BufferedTerm<T>, String> {
        let (cols, rows) = term.size()?;
        Ok(BufferedTerm {
            term,
            surface: Surface::new(cols, rows),
            seqno: 0,
        })
    }

    pub fn terminal(&mut self) -> &mut T {
        &mut self.term
    }

    /// Sends what changed in the model since the last flush.
    pub fn flush(&mut self) -> Result<(), String> {
        let (seq, changes) = self.surface.get_changes(self.seqno);
        // A failed render leaves the terminal unknown: the next flush paints everything.
        self.seqno = 0;
        self.term.render(&changes)?;
        self.seqno = seq;
        self.surface.flush_changes_older_than(seq);
        Ok(())
    }

    /// Paints the whole model again (the terminal's contents are unknown).
    pub fn repaint(&mut self) -> Result<(), String> {
        self.seqno = 0;
        self.flush()
    }
}

impl<T: Term> Deref for BufferedTerm<T> {
    type Target = Surface;

    fn deref(&self) -> &Surface {
        &self.surface
    }
}

impl<T: Term> DerefMut for BufferedTerm<T> {
    fn deref_mut(&mut self) -> &mut Surface {
        &mut self.surface
    }
}

/// A terminal size as the protocol carries it (cells beyond 65535 are not drawn anyway).
pub fn clamp16(n: usize) -> u16 {
    n.min(usize::from(u16::MAX)) as u16
}

/// A terminal borrowed for one attach (the caller restores it afterwards).
impl<T: Term + ?Sized> Term for &mut T {
    fn set_raw_mode(&mut self) -> Result<(), String> {
        (**self).set_raw_mode()
    }

    fn enter_alternate_screen(&mut self) -> Result<(), String> {
        (**self).enter_alternate_screen()
    }

    fn size(&mut self) -> Result<(usize, usize), String> {
        (**self).size()
    }

    fn render(&mut self, changes: &[Change]) -> Result<(), String> {
        (**self).render(changes)
    }

    fn poll_input(&mut self, wait: Option<Duration>) -> Result<Option<InputEvent>, TermError> {
        (**self).poll_input(wait)
    }

    fn polls_daemon(&self) -> bool {
        (**self).polls_daemon()
    }

    fn poll_input_or(
        &mut self,
        wait: Option<Duration>,
        daemon: Option<BorrowedFd<'_>>,
    ) -> Result<Polled, TermError> {
        (**self).poll_input_or(wait, daemon)
    }

    fn waker(&self) -> Waker {
        (**self).waker()
    }

    fn write_raw(&mut self, seq: &[u8]) {
        (**self).write_raw(seq)
    }

    fn is_remote(&self) -> bool {
        (**self).is_remote()
    }
}
