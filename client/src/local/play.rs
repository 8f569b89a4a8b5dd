//! `tuios play FILE`: plays an asciicast recording (v2, or v3 as asciinema 3 writes it) in
//! this terminal, on the main screen like `asciinema play`, so the last frame stays. Output goes
//! through [`Sanitiser`] first: a recording is a file from anywhere. `--info` reads the file and
//! prints what it holds without playing.
//!
//! The formats, as asciinema documents them: a JSON header line, then one JSON array per event,
//! `[time, code, data]`. v2 headers carry `width`/`height` and event times are seconds since the
//! start; v3 headers carry `term: {cols, rows}`, times are seconds since the previous event, and
//! lines starting with `#` are comments. Codes: `o` output, `i` input, `r` resize (`COLSxROWS`),
//! `m` marker, `x` exit status (v3). Unknown codes are counted and skipped, not refused.

use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Value};

use super::play_sanitise::Sanitiser;
use crate::failure::Failure;

#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The recording: an asciicast v2 or v3 file (`.cast`).
    pub file: PathBuf,
    /// Play this many times faster (0.5 is half speed).
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Cap every pause at this many seconds (default: the file's idle_time_limit, if any).
    #[arg(long, value_name = "SECS")]
    pub idle_limit: Option<f64>,
    /// Print the header and the event counts as JSON instead of playing.
    #[arg(long, visible_alias = "check")]
    pub info: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Output(String),
    Input,
    Resize(u16, u16),
    Marker(String),
    Exit(String),
    Other,
}

/// One event, at `time` seconds from the start whatever the version.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub time: f64,
    pub kind: Kind,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cast {
    pub version: u64,
    pub cols: u64,
    pub rows: u64,
    pub title: Option<String>,
    pub idle_time_limit: Option<f64>,
    pub events: Vec<Event>,
}

/// Parses a whole recording. Errors name the line.
pub fn parse(text: &str) -> Result<Cast, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, first) = lines.next().ok_or("the file is empty")?;
    let header: Value =
        serde_json::from_str(first).map_err(|e| format!("line 1: not an asciicast header: {e}"))?;
    let version = header["version"]
        .as_u64()
        .ok_or("line 1: the header has no version")?;
    let (cols, rows) = match version {
        2 => (&header["width"], &header["height"]),
        3 => (&header["term"]["cols"], &header["term"]["rows"]),
        v => {
            return Err(format!(
                "asciicast version {v} is not supported (2 and 3 are)"
            ))
        }
    };
    let (cols, rows) = (cols.as_u64().unwrap_or(0), rows.as_u64().unwrap_or(0));
    let mut events = Vec::new();
    let mut time = 0.0f64;
    for (i, line) in lines {
        if version == 3 && line.starts_with('#') {
            continue;
        }
        let bad = |what: &str| format!("line {}: {what}", i + 1);
        let v: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        let (t, code, data) = match v.as_array().map(Vec::as_slice) {
            Some([t, c, d, ..]) => (t.as_f64(), c.as_str(), d.as_str()),
            _ => return Err(bad("an event is [time, code, data]")),
        };
        let (Some(t), Some(code)) = (t, code) else {
            return Err(bad("an event is [time, code, data]"));
        };
        if !t.is_finite() || t < 0.0 {
            return Err(bad("the time is negative"));
        }
        // v2 times are absolute; v3 times are intervals. Either way events stay in order (a v2
        // file going back in time plays the event at once).
        time = if version == 2 { time.max(t) } else { time + t };
        let data = data.unwrap_or("").to_string();
        let kind = match code {
            "o" => Kind::Output(data),
            "i" => Kind::Input,
            "r" => match data.split_once('x').map(|(c, r)| (c.parse(), r.parse())) {
                Some((Ok(c), Ok(r))) => Kind::Resize(c, r),
                _ => return Err(bad("a resize is \"COLSxROWS\"")),
            },
            "m" => Kind::Marker(data),
            "x" => Kind::Exit(data),
            _ => Kind::Other,
        };
        events.push(Event { time, kind });
    }
    Ok(Cast {
        version,
        cols,
        rows,
        title: header["title"].as_str().map(str::to_string),
        idle_time_limit: header["idle_time_limit"].as_f64(),
        events,
    })
}

/// How long to wait before each event: the gap since the previous one, capped at `idle_limit`,
/// divided by `speed`.
pub fn delays(events: &[Event], speed: f64, idle_limit: Option<f64>) -> Vec<Duration> {
    let mut prev = 0.0;
    events
        .iter()
        .map(|e| {
            let mut gap = (e.time - prev).max(0.0);
            prev = e.time;
            if let Some(limit) = idle_limit {
                gap = gap.min(limit);
            }
            Duration::from_secs_f64(gap / speed)
        })
        .collect()
}

/// What `--info` prints.
pub fn info(cast: &Cast) -> Value {
    let count = |f: fn(&Kind) -> bool| cast.events.iter().filter(|e| f(&e.kind)).count();
    json!({
        "version": cast.version,
        "cols": cast.cols,
        "rows": cast.rows,
        "title": cast.title,
        "idle_time_limit": cast.idle_time_limit,
        "duration": cast.events.last().map_or(0.0, |e| e.time),
        "events": cast.events.len(),
        "output": count(|k| matches!(k, Kind::Output(_))),
        "input": count(|k| matches!(k, Kind::Input)),
        "resize": count(|k| matches!(k, Kind::Resize(..))),
        "markers": count(|k| matches!(k, Kind::Marker(_))),
        "exit": cast.events.iter().find_map(|e| match &e.kind {
            Kind::Exit(s) => Some(s.clone()),
            _ => None,
        }),
    })
}

pub fn run(a: &PlayArgs) -> Result<i32, Failure> {
    if !(a.speed.is_finite() && a.speed > 0.0) {
        return Err(Failure::msg("--speed must be a number above 0"));
    }
    if a.idle_limit.is_some_and(|l| !(l.is_finite() && l > 0.0)) {
        return Err(Failure::msg(
            "--idle-limit must be a number of seconds above 0",
        ));
    }
    let text = std::fs::read_to_string(&a.file)
        .map_err(|e| Failure::msg(format!("cannot read {}: {e}", a.file.display())))?;
    let cast = parse(&text).map_err(|e| Failure::msg(format!("{}: {e}", a.file.display())))?;
    if a.info {
        let text =
            serde_json::to_string_pretty(&info(&cast)).map_err(|e| Failure::msg(e.to_string()))?;
        // A closed pipe (`| head`) is not a failure.
        return match writeln!(io::stdout(), "{text}") {
            Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(Failure::msg(e.to_string())),
            _ => Ok(0),
        };
    }
    let waits = delays(&cast.events, a.speed, a.idle_limit.or(cast.idle_time_limit));
    play(&cast.events, &waits).map_err(|e| Failure::msg(format!("cannot play: {e}")))?;
    Ok(0)
}

/// Keys from the terminal while playing. Without a terminal (stdin redirected), there are no
/// keys and playback just runs.
struct Keys {
    tty: Option<std::fs::File>,
    saved: Option<libc::termios>,
}

impl Keys {
    fn open() -> Keys {
        let Ok(tty) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
        else {
            return Keys {
                tty: None,
                saved: None,
            };
        };
        let fd = tty.as_raw_fd();
        // SAFETY: tcgetattr/tcsetattr on an fd we own, with a termios they fill in.
        let saved = unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            (libc::tcgetattr(fd, &mut t) == 0).then_some(t)
        };
        if let Some(orig) = saved {
            let mut raw = orig;
            // No echo, no line buffering, and ctrl+c as a byte: keys must not draw over the
            // playback, and quitting must go through the restore below.
            raw.c_lflag &= !(libc::ECHO | libc::ICANON | libc::ISIG | libc::IEXTEN);
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            // SAFETY: as above.
            unsafe { libc::tcsetattr(fd, libc::TCSANOW, &raw) };
        }
        Keys {
            tty: Some(tty),
            saved,
        }
    }

    /// Waits up to `timeout` (for ever with None) for a key; the bytes read.
    fn wait(&mut self, timeout: Option<Duration>) -> Vec<u8> {
        let Some(tty) = &mut self.tty else {
            if let Some(t) = timeout {
                std::thread::sleep(t);
            }
            return Vec::new();
        };
        let mut pfd = libc::pollfd {
            fd: tty.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = timeout.map_or(-1, |t| t.as_millis().min(i32::MAX as u128) as i32);
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n <= 0 {
            return Vec::new();
        }
        let mut buf = [0u8; 64];
        match tty.read(&mut buf) {
            Ok(n) => buf[..n].to_vec(),
            // The terminal went away: play on without keys.
            Err(_) => {
                self.tty = None;
                Vec::new()
            }
        }
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        if let (Some(tty), Some(t)) = (&self.tty, &self.saved) {
            // SAFETY: restores what tcgetattr gave us.
            unsafe { libc::tcsetattr(tty.as_raw_fd(), libc::TCSANOW, t) };
        }
    }
}

/// Plays the events with their waits; space pauses and resumes, `q` or ctrl+c stops.
fn play(events: &[Event], waits: &[Duration]) -> io::Result<()> {
    let mut keys = Keys::open();
    let mut out = io::stdout().lock();
    let mut clean = Sanitiser::new();
    'events: for (event, wait) in events.iter().zip(waits) {
        let mut left = *wait;
        let mut paused = false;
        while paused || !left.is_zero() {
            let start = Instant::now();
            let pressed = keys.wait((!paused).then_some(left));
            if !paused {
                left = left.saturating_sub(start.elapsed());
            }
            for b in pressed {
                match b {
                    b'q' | 0x03 => break 'events,
                    b' ' => paused = !paused,
                    _ => {}
                }
            }
        }
        // Resizes are not replayed: resizing the viewer's window is a window op, which the
        // sanitiser refuses too; programs in the recording redraw for the new size anyway.
        if let Kind::Output(data) = &event.kind {
            out.write_all(clean.feed(data).as_bytes())?;
            out.flush()?;
        }
    }
    // The frame stays; what it may have left switched on goes back to normal: attributes,
    // cursor visibility and keys, keypad, synchronized output, the scroll region (inside a
    // cursor save, since resetting it moves the cursor home).
    out.write_all(b"\x1b[0m\x1b[?25h\x1b[?1l\x1b>\x1b[?2026l\x1b7\x1b[r\x1b8")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written by hand like `asciinema rec` v2 output: absolute times.
    const V2: &str = r#"{"version": 2, "width": 80, "height": 24, "timestamp": 1700000000, "idle_time_limit": 2.0, "title": "demo", "env": {"SHELL": "/bin/bash", "TERM": "xterm-256color"}}
[0.25, "o", "$ "]
[1.0, "i", "l"]
[1.1, "o", "\u001b[32mls\u001b[0m\r\n"]
[1.5, "r", "100x30"]
[9.5, "m", "chapter"]
[10.0, "o", "done\r\n"]
"#;

    /// Like asciinema 3 output: intervals, a `term` object, a comment and an exit event.
    const V3: &str = r#"{"version": 3, "term": {"cols": 100, "rows": 40, "type": "xterm-256color"}, "timestamp": 1700000000, "command": "/bin/bash"}
# a comment line
[0.5, "o", "hello "]
[0.25, "o", "world\r\n"]
[1.0, "r", "90x30"]
[0.0, "m", ""]
[2.0, "x", "0"]
"#;

    #[test]
    fn v2_times_stay_absolute() {
        let c = parse(V2).unwrap();
        assert_eq!((c.version, c.cols, c.rows), (2, 80, 24));
        assert_eq!(c.title.as_deref(), Some("demo"));
        assert_eq!(c.idle_time_limit, Some(2.0));
        let times: Vec<f64> = c.events.iter().map(|e| e.time).collect();
        assert_eq!(times, [0.25, 1.0, 1.1, 1.5, 9.5, 10.0]);
        assert_eq!(
            c.events[2].kind,
            Kind::Output("\x1b[32mls\x1b[0m\r\n".into())
        );
        assert_eq!(c.events[3].kind, Kind::Resize(100, 30));
        assert_eq!(c.events[4].kind, Kind::Marker("chapter".into()));
    }

    #[test]
    fn v3_intervals_become_absolute() {
        let c = parse(V3).unwrap();
        assert_eq!((c.version, c.cols, c.rows), (3, 100, 40));
        let times: Vec<f64> = c.events.iter().map(|e| e.time).collect();
        assert_eq!(times, [0.5, 0.75, 1.75, 1.75, 3.75]);
        assert_eq!(c.events[4].kind, Kind::Exit("0".into()));
        let i = info(&c);
        assert_eq!(i["events"], 5);
        assert_eq!(i["output"], 2);
        assert_eq!(i["exit"], "0");
        assert_eq!(i["duration"], 3.75);
    }

    #[test]
    fn bad_files_say_where() {
        assert!(parse("").is_err());
        assert!(parse(r#"{"version": 1}"#)
            .unwrap_err()
            .contains("version 1"));
        let bad = "{\"version\": 2, \"width\": 8, \"height\": 2}\n[0.1, \"o\"]\n";
        assert!(parse(bad).unwrap_err().starts_with("line 2"));
        let bad = "{\"version\": 2, \"width\": 8, \"height\": 2}\n[0.1, \"r\", \"80\"]\n";
        assert!(parse(bad).unwrap_err().contains("COLSxROWS"));
    }

    #[test]
    fn delays_follow_speed_and_idle_limit() {
        let c = parse(V2).unwrap();
        let ms = |d: Vec<Duration>| d.iter().map(|d| d.as_millis()).collect::<Vec<_>>();
        assert_eq!(
            ms(delays(&c.events, 1.0, None)),
            [250, 750, 100, 400, 8000, 500]
        );
        assert_eq!(
            ms(delays(&c.events, 2.0, Some(2.0))),
            [125, 375, 50, 200, 1000, 250]
        );
    }
}
