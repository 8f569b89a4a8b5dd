//! The attach client on a byte stream: a browser's xterm.js over a WebSocket, an SSH channel,
//! anything that carries a terminal's output one way and its input the other. The very same
//! client (the run loop, the renderer, the Lumen paste rules) as `tuios attach`; only the
//! terminal differs.
//!
//! ```ignore
//! let (term, input) = StreamTerminal::new(Box::new(writer), 80, 24, Some("xterm-256color"), None);
//! // on the transport's reader (any thread, sync or async: these calls do not block):
//! input.send(&bytes);          // keys, pastes, mouse and focus reports, as the terminal sent them
//! input.resize(cols, rows);    // the far end's window changed size
//! drop(input);                 // the far end went away: the attach ends as a detach
//! // on a thread of its own:
//! let end = tui::attach_stream(&socket, Some("work".into()), false, term)?;
//! ```
//!
//! Many may run at once in one process, each on its own thread: nothing here is process-wide.

use std::collections::VecDeque;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use termwiz::caps::{Capabilities, ProbeHints};
use termwiz::escape::csi::{
    DecPrivateMode, DecPrivateModeCode, Mode, XtermKeyModifierResource, CSI,
};
use termwiz::input::{InputEvent, InputParser};
use termwiz::render::terminfo::TerminfoRenderer;
use termwiz::render::RenderTty;
use termwiz::surface::Change;

use super::term::{Term, TermError, Waker};

/// The terminal type assumed when the caller knows none: browsers (xterm.js) and SSH clients
/// are xterm-like.
pub const DEFAULT_TERM: &str = "xterm-256color";

/// Input bytes waiting for the attach loop beyond which [`StreamInput::try_send`] refuses
/// more (a stalled loop must not let a peer grow this process without bound).
const INPUT_LIMIT: usize = 4 << 20;

/// Bytes handed to the input parser at once, with "more may follow" set on a full slice: the
/// same slicing as termwiz's local terminal reading its tty, so a lone Escape and a split
/// sequence parse the same way on every kind of terminal.
const PARSE_SLICE: usize = 64;

/// What the far end sent, in order.
enum InboxItem {
    Bytes(Vec<u8>),
    Resize(usize, usize),
}

#[derive(Default)]
struct Inbox {
    items: VecDeque<InboxItem>,
    /// Bytes in `items`.
    queued: usize,
    /// A waker call not yet seen by the loop.
    woken: bool,
    /// Every [`StreamInput`] is gone, or one called `close`.
    closed: bool,
    /// The [`StreamTerminal`] is gone: sending is pointless.
    terminal_gone: bool,
    /// Live [`StreamInput`] handles.
    senders: usize,
}

/// The inbox and the condition its waiters sleep on, shared by the terminal and its input
/// handles.
#[derive(Default)]
struct SharedInbox {
    inbox: Mutex<Inbox>,
    ready: Condvar,
}

impl SharedInbox {
    fn lock(&self) -> MutexGuard<'_, Inbox> {
        // A panic while holding the lock leaves plain data behind; keep using it.
        self.inbox.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Why [`StreamInput::try_send`] did not take the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendError {
    /// The attach has ended (or never started): stop reading from the far end.
    Gone,
    /// Over 4 MiB of input is waiting; try again later or use the blocking [`StreamInput::send`].
    Full,
}

/// The input side of a [`StreamTerminal`], held by whatever reads the far end (a WebSocket
/// task, an SSH channel handler). Cheap to clone; when the last clone is dropped (or
/// [`close`](Self::close) is called) the attach ends as a detach.
pub struct StreamInput {
    shared: Arc<SharedInbox>,
}

impl Clone for StreamInput {
    fn clone(&self) -> StreamInput {
        self.shared.lock().senders += 1;
        StreamInput {
            shared: self.shared.clone(),
        }
    }
}

impl Drop for StreamInput {
    fn drop(&mut self) {
        let mut inbox = self.shared.lock();
        inbox.senders -= 1;
        if inbox.senders == 0 {
            inbox.closed = true;
            self.shared.ready.notify_all();
        }
    }
}

impl StreamInput {
    /// Passes bytes the terminal sent (keys, pastes, mouse, focus and other reports, exactly
    /// as they came). Never blocks: over 4 MiB waiting is [`SendError::Full`].
    pub fn try_send(&self, bytes: &[u8]) -> Result<(), SendError> {
        let mut inbox = self.shared.lock();
        if inbox.terminal_gone || inbox.closed {
            return Err(SendError::Gone);
        }
        if inbox.queued + bytes.len() > INPUT_LIMIT && inbox.queued > 0 {
            return Err(SendError::Full);
        }
        if !bytes.is_empty() {
            inbox.queued += bytes.len();
            inbox.items.push_back(InboxItem::Bytes(bytes.to_vec()));
            self.shared.ready.notify_all();
        }
        Ok(())
    }

    /// As [`try_send`](Self::try_send), but waits while the input queue is full (call it from
    /// a thread that may block, e.g. tokio's `spawn_blocking`, or use `try_send`). False when
    /// the attach has ended. (The servers use `try_send` with their own overflow policy.)
    #[cfg(test)]
    pub fn send(&self, bytes: &[u8]) -> bool {
        let mut inbox = self.shared.lock();
        loop {
            if inbox.terminal_gone || inbox.closed {
                return false;
            }
            if inbox.queued == 0 || inbox.queued + bytes.len() <= INPUT_LIMIT {
                break;
            }
            inbox = self
                .shared
                .ready
                .wait(inbox)
                .unwrap_or_else(|p| p.into_inner());
        }
        if !bytes.is_empty() {
            inbox.queued += bytes.len();
            inbox.items.push_back(InboxItem::Bytes(bytes.to_vec()));
            self.shared.ready.notify_all();
        }
        true
    }

    /// The far end's window is now `cols` x `rows` (what SIGWINCH is to a local terminal).
    /// Zero sizes are taken as 1. False when the attach has ended.
    pub fn resize(&self, cols: u16, rows: u16) -> bool {
        let mut inbox = self.shared.lock();
        if inbox.terminal_gone || inbox.closed {
            return false;
        }
        inbox.items.push_back(InboxItem::Resize(
            usize::from(cols.max(1)),
            usize::from(rows.max(1)),
        ));
        self.shared.ready.notify_all();
        true
    }

    /// The far end went away: the attach ends as a detach (as when every handle is dropped).
    pub fn close(&self) {
        self.shared.lock().closed = true;
        self.shared.ready.notify_all();
    }

    /// Whether the attach has ended (the terminal was dropped).
    #[cfg(test)]
    pub fn is_gone(&self) -> bool {
        self.shared.lock().terminal_gone
    }
}

/// A terminal on a byte stream: output to any `Write + Send` (buffered here, flushed once per
/// frame), input and size changes through its [`StreamInput`]. Draws with termwiz's terminfo
/// renderer for the terminal type given (default `xterm-256color`) and parses input with
/// termwiz's `InputParser`, exactly as for a local terminal. Pass it to
/// [`attach_stream`](super::attach_stream).
pub struct StreamTerminal {
    out: BufWriter<Box<dyn Write + Send>>,
    shared: Arc<SharedInbox>,
    renderer: TerminfoRenderer,
    caps: Capabilities,
    parser: InputParser,
    events: VecDeque<InputEvent>,
    size: (usize, usize),
    in_alternate_screen: bool,
    raw: bool,
    /// A write to `out` failed: the far end is gone.
    broken: bool,
}

impl StreamTerminal {
    /// A terminal `cols` x `rows` writing to `output`. `term` is the far end's terminal type
    /// when known (an SSH pty-req's TERM; a browser is `xterm-256color`); an unknown or
    /// malformed name falls back to `xterm-256color`. `colorterm` is as the COLORTERM variable
    /// (`Some("truecolor")` for xterm.js); None decides by the terminal type.
    pub fn new(
        output: Box<dyn Write + Send>,
        cols: u16,
        rows: u16,
        term: Option<&str>,
        colorterm: Option<&str>,
    ) -> (StreamTerminal, StreamInput) {
        let caps = capabilities(term, colorterm);
        let shared = Arc::new(SharedInbox::default());
        shared.lock().senders = 1;
        let terminal = StreamTerminal {
            out: BufWriter::with_capacity(64 * 1024, output),
            shared: shared.clone(),
            renderer: TerminfoRenderer::new(caps.clone()),
            caps,
            parser: InputParser::new(),
            events: VecDeque::new(),
            size: (usize::from(cols.max(1)), usize::from(rows.max(1))),
            in_alternate_screen: false,
            raw: false,
            broken: false,
        };
        (terminal, StreamInput { shared })
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), String> {
        if self.broken {
            return Err("the terminal's output is closed".into());
        }
        self.out
            .write_all(bytes)
            .and_then(|()| self.out.flush())
            .map_err(|e| {
                self.broken = true;
                format!("writing to the terminal failed: {e}")
            })
    }

    fn decset(&mut self, code: DecPrivateModeCode, on: bool) -> String {
        let mode = DecPrivateMode::Code(code);
        let mode = if on {
            Mode::SetDecPrivateMode(mode)
        } else {
            Mode::ResetDecPrivateMode(mode)
        };
        CSI::Mode(mode).to_string()
    }

    /// Puts the far end back as it was before the attach: cursor shown, reports off, main
    /// screen. Done by [`attach_stream`](super::attach_stream) at the end; idempotent.
    pub fn restore(&mut self) {
        let mut seq = String::new();
        if self.raw {
            seq.push_str(
                &CSI::Mode(Mode::SetDecPrivateMode(DecPrivateMode::Code(
                    DecPrivateModeCode::ShowCursor,
                )))
                .to_string(),
            );
            if self.caps.bracketed_paste() {
                seq.push_str(&self.decset(DecPrivateModeCode::BracketedPaste, false));
            }
            if self.caps.mouse_reporting() {
                seq.push_str(&self.decset(DecPrivateModeCode::SGRMouse, false));
                seq.push_str(&self.decset(DecPrivateModeCode::AnyEventMouse, false));
            }
            seq.push_str(&modify_other_keys(0));
            self.raw = false;
        }
        if self.in_alternate_screen {
            seq.push_str(&self.decset(DecPrivateModeCode::ClearAndEnableAlternateScreen, false));
            self.in_alternate_screen = false;
        }
        if !seq.is_empty() {
            let _ = self.write_all(seq.as_bytes());
        }
    }

    /// Writes a line of text after the attach (e.g. "[detached from session x]"), CRLF-ended.
    pub fn write_line(&mut self, text: &str) {
        let line = format!("{text}\r\n");
        let _ = self.write_all(line.as_bytes());
    }

    /// Whether the output failed (the far end is gone).
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// Parses what the inbox holds into events; true when anything was taken.
    fn take_input(&mut self, inbox: &mut Inbox) -> bool {
        let mut took = false;
        while let Some(item) = inbox.items.pop_front() {
            took = true;
            match item {
                InboxItem::Bytes(bytes) => {
                    inbox.queued -= bytes.len();
                    let events = &mut self.events;
                    for slice in bytes.chunks(PARSE_SLICE) {
                        self.parser.parse(
                            slice,
                            |e| events.push_back(e),
                            slice.len() == PARSE_SLICE,
                        );
                    }
                }
                InboxItem::Resize(cols, rows) => {
                    self.size = (cols, rows);
                    self.events.push_back(InputEvent::Resized { cols, rows });
                }
            }
        }
        took
    }
}

impl Drop for StreamTerminal {
    fn drop(&mut self) {
        self.restore();
        let mut inbox = self.shared.lock();
        inbox.terminal_gone = true;
        // Senders blocked on a full queue learn it now.
        self.shared.ready.notify_all();
    }
}

/// The sizes RenderTty asks for, next to the writer.
struct Sink<'a> {
    out: &'a mut BufWriter<Box<dyn Write + Send>>,
    size: (usize, usize),
}

impl Write for Sink<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl RenderTty for Sink<'_> {
    fn get_size_in_cells(&mut self) -> termwiz::Result<(usize, usize)> {
        Ok(self.size)
    }
}

impl Term for StreamTerminal {
    fn set_raw_mode(&mut self) -> Result<(), String> {
        // A stream has no line discipline to switch: only the reports the client relies on.
        let mut seq = String::new();
        if self.caps.bracketed_paste() {
            seq.push_str(&self.decset(DecPrivateModeCode::BracketedPaste, true));
        }
        if self.caps.mouse_reporting() {
            seq.push_str(&self.decset(DecPrivateModeCode::AnyEventMouse, true));
            seq.push_str(&self.decset(DecPrivateModeCode::SGRMouse, true));
        }
        seq.push_str(&modify_other_keys(2));
        self.raw = true;
        self.write_all(seq.as_bytes())
    }

    fn enter_alternate_screen(&mut self) -> Result<(), String> {
        if self.in_alternate_screen {
            return Ok(());
        }
        self.in_alternate_screen = true;
        let seq = self.decset(DecPrivateModeCode::ClearAndEnableAlternateScreen, true);
        self.write_all(seq.as_bytes())
    }

    fn size(&mut self) -> Result<(usize, usize), String> {
        Ok(self.size)
    }

    fn render(&mut self, changes: &[Change]) -> Result<(), String> {
        if self.broken {
            return Err("the terminal's output is closed".into());
        }
        let mut sink = Sink {
            out: &mut self.out,
            size: self.size,
        };
        // render_to flushes at its end: one frame, one write to the far end.
        let result = self.renderer.render_to(changes, &mut sink);
        result.map_err(|e| {
            self.broken = true;
            format!("drawing failed: {e}")
        })
    }

    fn poll_input(&mut self, wait: Option<Duration>) -> Result<Option<InputEvent>, TermError> {
        if let Some(e) = self.events.pop_front() {
            return Ok(Some(e));
        }
        let deadline = wait.map(|w| Instant::now() + w);
        let shared = self.shared.clone();
        let mut inbox = shared.lock();
        loop {
            if self.take_input(&mut inbox) {
                // Room again for a sender waiting on a full queue.
                shared.ready.notify_all();
                if let Some(e) = self.events.pop_front() {
                    return Ok(Some(e));
                }
                // Only the start of a sequence came: wait for the rest like for anything else.
            }
            if inbox.woken {
                inbox.woken = false;
                return Ok(Some(InputEvent::Wake));
            }
            if inbox.closed {
                return Err(TermError::Closed);
            }
            inbox = match deadline {
                None => shared.ready.wait(inbox).unwrap_or_else(|p| p.into_inner()),
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Ok(None);
                    }
                    shared
                        .ready
                        .wait_timeout(inbox, left)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
    }

    fn waker(&self) -> Waker {
        let shared = self.shared.clone();
        Waker::new(move || {
            shared.lock().woken = true;
            shared.ready.notify_all();
        })
    }

    fn write_raw(&mut self, seq: &[u8]) {
        let _ = self.write_all(seq);
    }

    fn is_remote(&self) -> bool {
        true
    }
}

fn modify_other_keys(level: i64) -> String {
    CSI::Mode(Mode::XtermKeyMode {
        resource: XtermKeyModifierResource::OtherKeys,
        value: Some(level),
    })
    .to_string()
}

/// Capabilities for a terminal type named by the far end. The name is checked before it is
/// used to look up a terminfo file (it comes from the network); an unusable one, or one with
/// no terminfo entry here, gives `xterm-256color`.
fn capabilities(term: Option<&str>, colorterm: Option<&str>) -> Capabilities {
    let named = term.filter(|t| {
        !t.is_empty()
            && t.len() <= 64
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'+'))
            && !t.starts_with('.')
    });
    let colorterm = colorterm.filter(|c| c.len() <= 32).map(str::to_string);
    let with = |name: &str| {
        Capabilities::new_with_hints(
            ProbeHints::default()
                .term(Some(name.to_string()))
                .colorterm(colorterm.clone())
                // Browsers and SSH clients of today have both; the client relies on them for
                // paste safety and the mouse.
                .bracketed_paste(Some(true))
                .mouse_reporting(Some(true)),
        )
        .ok()
    };
    // A name with no terminfo entry here draws as xterm-256color; without even that, the
    // renderer emits plain ANSI/xterm sequences.
    named
        .and_then(|t| with(t).filter(|c| c.terminfo_db().is_some()))
        .or_else(|| with(DEFAULT_TERM))
        .expect("capabilities from hints without probing")
}

/// How an attach on a stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachEnd {
    /// The user detached, or the far end went away.
    Detached { session: String },
    /// The session ended (its last window closed, or it was killed).
    Ended { session: String, reason: String },
    /// The daemon went away and did not come back.
    Lost { session: String, why: String },
}

impl AttachEnd {
    /// What `tuios attach` prints at the end, for the same case.
    pub fn message(&self) -> String {
        match self {
            AttachEnd::Detached { session } => format!("[detached from {}]", shown(session)),
            AttachEnd::Ended { session, reason } if reason.is_empty() => {
                format!("session {session} ended")
            }
            AttachEnd::Ended { session, reason } => format!("session {session} ended: {reason}"),
            AttachEnd::Lost { session, why } => format!("error: lost {}: {why}", shown(session)),
        }
    }

    /// The exit status `tuios attach` would give (0 detached, 1 otherwise): what an SSH
    /// session's exit-status should carry.
    pub fn exit_code(&self) -> i32 {
        match self {
            AttachEnd::Detached { .. } => 0,
            _ => crate::failure::EXIT_FAILURE,
        }
    }
}

fn shown(session: &str) -> String {
    if session.is_empty() {
        "the session".to_string()
    } else {
        format!("session {session}")
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
