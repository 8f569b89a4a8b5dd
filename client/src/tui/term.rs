//! The terminal the attach client draws on, abstracted: the local one (`/dev/tty`) or a byte
//! stream (a browser's xterm.js, an SSH channel; see [`super::stream`]). The run loop only sees
//! [`Term`], so every kind of terminal gets the same client.
//!
//! termwiz's own `Terminal` trait cannot serve here: its `waker()` returns termwiz's concrete
//! Unix waker, which nothing outside termwiz can construct, so a stream terminal could not
//! implement it. [`Screen`] stands in for termwiz's `BufferedTerminal` over this trait.

use std::fs::File;
use std::io::Write;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;
use std::time::Duration;

use termwiz::caps::Capabilities;
use termwiz::input::InputEvent;
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
    fn waker(&self) -> Waker;
    /// Writes a control sequence between frames (OSC 52, OSC 9, BEL, a status line), so the
    /// screen model is not disturbed. Failures are ignored: these are best effort.
    fn write_raw(&mut self, seq: &[u8]);
    /// True when the terminal is on another machine (browser, SSH): links are not opened on
    /// this one.
    fn is_remote(&self) -> bool;
}

/// The terminal this process runs in: `/dev/tty`, through termwiz's Unix terminal (raw mode,
/// SIGWINCH as resize events). Dropping it restores the terminal.
pub struct LocalTerminal {
    inner: UnixTerminal,
    /// The same device, for sequences written between frames.
    tty: File,
}

impl LocalTerminal {
    /// Opens `/dev/tty` with capabilities from the environment (TERM, COLORTERM), as any local
    /// program does.
    pub fn open() -> Result<LocalTerminal, String> {
        let caps = Capabilities::new_from_env()
            .map_err(|e| format!("cannot read the terminal's capabilities: {e}"))?;
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .map_err(|e| format!("cannot open the terminal: {e}"))?;
        let inner = UnixTerminal::new_with(caps, &tty, &tty)
            .map_err(|e| format!("cannot open the terminal: {e}"))?;
        Ok(LocalTerminal { inner, tty })
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
        self.inner
            .poll_input(wait)
            .map_err(|e| TermError::Failed(e.to_string()))
    }

    fn waker(&self) -> Waker {
        let w = self.inner.waker();
        Waker::new(move || {
            let _ = w.wake();
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
pub struct Screen<T: Term> {
    term: T,
    surface: Surface,
    seqno: SequenceNo,
}

impl<T: Term> Screen<T> {
    pub fn new(mut term: T) -> Result<Screen<T>, String> {
        let (cols, rows) = term.size()?;
        Ok(Screen {
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

impl<T: Term> Deref for Screen<T> {
    type Target = Surface;

    fn deref(&self) -> &Surface {
        &self.surface
    }
}

impl<T: Term> DerefMut for Screen<T> {
    fn deref_mut(&mut self) -> &mut Surface {
        &mut self.surface
    }
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
