//! Recording a window to an asciicast v2 file. The window hands each chunk to a bounded queue
//! (`QUEUE_CHUNKS`) read by a thread of the recording's own, which does all the writing: a
//! slow or full disk never slows the window. A full queue drops the recording (reason
//! `overflow`) rather than wait; the file stops at `max_bytes` (`max_bytes`) or at a write error
//! (`disk_full`).
use std::fs::File;
use std::io::{BufWriter, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// A recording's size limit unless record-start says (the protocol's default, which a test of
/// the verb module checks this against).
pub const DEFAULT_MAX_BYTES: u64 = 256 << 20;

/// Chunks a recording may have queued and unwritten; more drops the recording.
pub const QUEUE_CHUNKS: usize = 4096;

enum Chunk {
    Output(Instant, Vec<u8>),
    Input(Instant, Vec<u8>),
    Resize(Instant, u16, u16),
}

/// The reason a recording's writer stops for a live upgrade (no event: it carries on).
pub const HANDOVER: &str = "handover";

/// How a session records its new windows (a session-wide record-start), carried through a
/// live upgrade in the handover document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RecordingPlan {
    pub dir: PathBuf,
    pub input: bool,
    pub max_bytes: u64,
}

/// Where a recording stood when its window was handed to the next daemon.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RecordingResume {
    pub path: String,
    /// Written so far (max_bytes counts them).
    pub bytes: u64,
    /// The recording's clock when it stopped.
    pub elapsed_ms: u64,
    pub input: bool,
    pub max_bytes: u64,
}

impl RecordingResume {
    /// The file again, for appending. Never follows a symbolic link put in its place.
    pub fn reopen(&self) -> std::io::Result<File> {
        std::fs::OpenOptions::new()
            .append(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&self.path)
    }
}

/// How a recording ended, and what it wrote.
#[derive(Debug, Clone)]
pub struct RecordingSummary {
    pub path: String,
    pub bytes: u64,
    pub duration_ms: u64,
    pub reason: &'static str,
}

/// Told once, from the writer's thread, how the recording ended.
pub type OnEnd = Box<dyn FnOnce(&'static str) + Send>;

/// What a recording is told when it starts.
pub struct RecordingSetup {
    pub dir: PathBuf,
    pub session: String,
    pub window: String,
    pub input: bool,
    pub max_bytes: u64,
}

/// The screen a recording starts from: a replay draws it first, so that what follows lands
/// where it did.
pub struct ScreenStart {
    pub cols: u16,
    pub rows: u16,
    /// The visible screen, styled (SGR), one line per row.
    pub styled: String,
    /// (col, row), 0-based.
    pub cursor: (u16, u16),
    pub cursor_visible: bool,
    pub alt_screen: bool,
}

impl ScreenStart {
    /// The bytes that draw it on a blank terminal: each row placed by itself (a line feed
    /// after the bottom row would scroll), the cursor where it was, hidden if it was.
    pub fn frame(&self) -> String {
        let mut out = String::new();
        if self.alt_screen {
            out.push_str("\x1b[?1049h");
        }
        out.push_str("\x1b[0m\x1b[H\x1b[2J");
        for (n, row) in self.styled.split('\n').take(self.rows as usize).enumerate() {
            let row = trim_plain_end(row);
            if row.is_empty() {
                continue;
            }
            out.push_str(&format!("\x1b[{};1H{row}\x1b[0m", n + 1));
        }
        let (col, row) = self.cursor;
        out.push_str(&format!("\x1b[{};{}H", row + 1, col + 1));
        if !self.cursor_visible {
            out.push_str("\x1b[?25l");
        }
        out
    }
}

/// `row` without the blanks at its end that carry no style: a replay in a narrower terminal
/// would wrap them onto the next rows. Blanks after a colour that is still on are kept.
fn trim_plain_end(row: &str) -> &str {
    let trimmed = row.trim_end_matches(' ');
    let styled_tail = match trimmed.rfind("\x1b[") {
        // The last SGR before the blanks: a reset (or nothing) leaves them plain.
        Some(at) => !matches!(&trimmed[at..], "\x1b[m" | "\x1b[0m") && trimmed.len() < row.len(),
        None => false,
    };
    if styled_tail {
        row
    } else {
        trimmed
    }
}

/// The window's end of a recording.
pub struct Recording {
    tx: Option<SyncSender<Chunk>>,
    pub path: String,
    pub input: bool,
    max_bytes: u64,
    /// Why the window ended it (read by the writer once the queue closes).
    reason: Arc<Mutex<&'static str>>,
    /// The writer stopped by itself (max_bytes, a write error).
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<RecordingSummary>>,
}

impl Recording {
    /// Create the recordings directory (0700) and a new file in it (0600), named after the
    /// session, the window and the time. Blocking: called on the blocking pool.
    pub fn create(setup: &RecordingSetup) -> std::io::Result<(File, String)> {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&setup.dir)?;
        let unix = unix_now();
        let short: String = setup.window.chars().take(8).collect();
        let safe: String = setup
            .session
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut n = 0;
        loop {
            let name = match n {
                0 => format!("{safe}-{short}-{unix}.cast"),
                n => format!("{safe}-{short}-{unix}-{n}.cast"),
            };
            let path = setup.dir.join(name);
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
            {
                Ok(file) => return Ok((file, path.display().to_string())),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => n += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// Start the writer on `file`: the header and the screen as it stands first.
    pub fn start(
        file: File,
        path: String,
        setup: &RecordingSetup,
        screen: &ScreenStart,
        on_end: OnEnd,
    ) -> std::io::Result<Recording> {
        let (cols, rows) = (screen.cols, screen.rows);
        let unix = unix_now();
        let mut head = serde_json::json!({
            "version": 2, "width": cols, "height": rows, "timestamp": unix,
            "env": {"TERM": "xterm-256color"},
        })
        .to_string();
        head.push('\n');
        head.push_str(&event_line(0.0, "o", &screen.frame()));
        Recording::spawn(file, path, setup, head, 0, Instant::now(), on_end)
    }

    /// Carry on a recording after a live upgrade (or a failed one): `file` is the same file
    /// opened for appending, and the times go on from where they stopped.
    pub fn resume(
        file: File,
        setup: &RecordingSetup,
        from: &RecordingResume,
        on_end: OnEnd,
    ) -> std::io::Result<Recording> {
        let offset = std::time::Duration::from_millis(from.elapsed_ms);
        let started = Instant::now()
            .checked_sub(offset)
            .unwrap_or_else(Instant::now);
        Recording::spawn(
            file,
            from.path.clone(),
            setup,
            String::new(),
            from.bytes,
            started,
            on_end,
        )
    }

    fn spawn(
        file: File,
        path: String,
        setup: &RecordingSetup,
        head: String,
        bytes: u64,
        started: Instant,
        on_end: OnEnd,
    ) -> std::io::Result<Recording> {
        let (tx, rx) = sync_channel(QUEUE_CHUNKS);
        let reason = Arc::new(Mutex::new("window_closed"));
        let done = Arc::new(AtomicBool::new(false));
        let writer = Writer {
            out: BufWriter::new(file),
            path: path.clone(),
            bytes,
            max: setup.max_bytes,
            started,
            last: started.elapsed().as_secs_f64(),
            carry: Vec::new(),
        };
        let (r, d) = (reason.clone(), done.clone());
        let thread = std::thread::Builder::new()
            .name("tuios-recorder".into())
            .spawn(move || {
                let summary = writer.run(head, rx, r, d);
                on_end(summary.reason);
                summary
            })?;
        Ok(Recording {
            tx: Some(tx),
            path,
            input: setup.input,
            max_bytes: setup.max_bytes,
            reason,
            done,
            thread: Some(thread),
        })
    }

    /// End the writer for a live upgrade: once it has written what is queued, how to carry on
    /// (None when the recording had already ended by itself).
    pub fn hand_over(mut self) -> impl FnOnce() -> Option<RecordingResume> + Send {
        let (input, max_bytes) = (self.input, self.max_bytes);
        self.end(HANDOVER);
        let thread = self.thread.take();
        move || {
            let summary = thread?.join().ok()?;
            (summary.reason == HANDOVER).then_some(RecordingResume {
                path: summary.path,
                bytes: summary.bytes,
                elapsed_ms: summary.duration_ms,
                input,
                max_bytes,
            })
        }
    }

    fn send(&mut self, chunk: Chunk) {
        let Some(tx) = &self.tx else { return };
        match tx.try_send(chunk) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => self.end("overflow"),
            Err(TrySendError::Disconnected(_)) => self.tx = None,
        }
    }

    pub fn output(&mut self, bytes: &[u8]) {
        self.send(Chunk::Output(Instant::now(), bytes.to_vec()));
    }

    pub fn input(&mut self, bytes: &[u8]) {
        if self.input {
            self.send(Chunk::Input(Instant::now(), bytes.to_vec()));
        }
    }

    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.send(Chunk::Resize(Instant::now(), cols, rows));
    }

    /// Whether the writer still takes chunks.
    pub fn is_live(&self) -> bool {
        self.tx.is_some() && !self.done.load(Ordering::Acquire)
    }

    /// Close the queue with a reason; the writer finishes what is queued and closes the file.
    pub fn end(&mut self, reason: &'static str) {
        // The reason is set before the queue closes: the writer reads it once closed.
        let Some(tx) = self.tx.take() else { return };
        if let Ok(mut r) = self.reason.lock() {
            *r = reason;
        }
        drop(tx);
    }

    /// Stop (reason `stopped` unless it already ended) and hand back the writer to wait on.
    pub fn finish(mut self) -> std::thread::JoinHandle<RecordingSummary> {
        self.end("stopped");
        self.thread
            .take()
            .expect("a recording's writer is taken once")
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        // A window closing ends its recording; the writer finishes by itself.
        self.end("window_closed");
    }
}

struct Writer {
    out: BufWriter<File>,
    path: String,
    bytes: u64,
    max: u64,
    started: Instant,
    last: f64,
    /// The start of a UTF-8 character split between two chunks.
    carry: Vec<u8>,
}

impl Writer {
    fn run(
        mut self,
        head: String,
        rx: Receiver<Chunk>,
        reason: Arc<Mutex<&'static str>>,
        done: Arc<AtomicBool>,
    ) -> RecordingSummary {
        let mut ended: Option<&'static str> = self.put(&head).err();
        while ended.is_none() {
            let Ok(chunk) = rx.recv() else { break };
            let line = match chunk {
                Chunk::Output(at, bytes) => self.text_event(at, "o", &bytes),
                Chunk::Input(at, bytes) => self.text_event(at, "i", &bytes),
                Chunk::Resize(at, cols, rows) => {
                    let t = self.time(at);
                    event_line(t, "r", &format!("{cols}x{rows}"))
                }
            };
            ended = self.put(&line).err();
        }
        if ended.is_none() && self.out.flush().is_err() {
            ended = Some("disk_full");
        }
        done.store(true, Ordering::Release);
        drop(rx);
        let reason = ended.unwrap_or_else(|| reason.lock().map(|r| *r).unwrap_or("stopped"));
        RecordingSummary {
            path: self.path,
            bytes: self.bytes,
            duration_ms: self.started.elapsed().as_millis() as u64,
            reason,
        }
    }

    fn time(&mut self, at: Instant) -> f64 {
        // Never earlier than the event before it.
        let t = at.saturating_duration_since(self.started).as_secs_f64();
        self.last = self.last.max(t);
        self.last
    }

    fn text_event(&mut self, at: Instant, kind: &str, bytes: &[u8]) -> String {
        let t = self.time(at);
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(bytes);
        let keep = incomplete_tail(&data);
        self.carry = data.split_off(data.len() - keep);
        event_line(t, kind, &String::from_utf8_lossy(&data))
    }

    /// Write a line unless it would pass the limit; the reason the recording ends, if it does.
    fn put(&mut self, line: &str) -> Result<(), &'static str> {
        if self.bytes + line.len() as u64 > self.max {
            let _ = self.out.flush();
            return Err("max_bytes");
        }
        self.out
            .write_all(line.as_bytes())
            .map_err(|_| "disk_full")?;
        self.bytes += line.len() as u64;
        Ok(())
    }
}

/// How many bytes at the end of `data` begin a UTF-8 character that is not complete yet.
fn incomplete_tail(data: &[u8]) -> usize {
    for back in 1..=3.min(data.len()) {
        let b = data[data.len() - back];
        if b & 0xC0 != 0x80 {
            let need = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 0,
            };
            return if need > back { back } else { 0 };
        }
    }
    0
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn event_line(t: f64, kind: &str, data: &str) -> String {
    let mut line = serde_json::json!([(t * 1e6).round() / 1e6, kind, data]).to_string();
    line.push('\n');
    line
}

/// The default recordings directory: `$XDG_STATE_HOME/tuios/recordings`.
pub fn default_dir() -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into());
            Path::new(&home).join(".local/state")
        });
    state.join("tuios/recordings")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_frame_places_each_row_and_the_cursor() {
        let start = ScreenStart {
            cols: 10,
            rows: 3,
            styled: "$ ls\n\n\x1b[31mred\x1b[0m".into(),
            cursor: (4, 0),
            cursor_visible: false,
            alt_screen: false,
        };
        assert_eq!(
            start.frame(),
            "\x1b[0m\x1b[H\x1b[2J\x1b[1;1H$ ls\x1b[0m\x1b[3;1H\x1b[31mred\x1b[0m\x1b[0m\x1b[1;5H\x1b[?25l"
        );
    }

    #[test]
    fn plain_blanks_at_a_row_end_go_and_coloured_ones_stay() {
        assert_eq!(trim_plain_end("$ ls   "), "$ ls");
        assert_eq!(trim_plain_end("\x1b[31mred\x1b[m   "), "\x1b[31mred\x1b[m");
        assert_eq!(trim_plain_end("\x1b[42m   "), "\x1b[42m   ");
        assert_eq!(trim_plain_end("     "), "");
    }

    #[test]
    fn a_split_character_waits_for_its_end() {
        let e = "é".as_bytes();
        assert_eq!(incomplete_tail(&[b'a', e[0]]), 1);
        assert_eq!(incomplete_tail(e), 0);
        assert_eq!(incomplete_tail(b"abc"), 0);
    }
}
