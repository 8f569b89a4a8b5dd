//! Keystroke echo on a PTY of our own, phase (g).

use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::attached::{ATT_COLS, ATT_ROWS};
use super::measure::median;
use super::pty::{contains, open_pty, Pty};
use super::tuios::Tuios;
use super::util::stop_child;
use super::{ctx, R};

/// How long the output must be quiet before the next key (and so the idle time before each).
pub(crate) const KEY_IDLE: Duration = Duration::from_millis(30);

/// Reads and drops what arrives until the output has been quiet for [`KEY_IDLE`].
fn drain_pty(pty: &mut Pty) -> R<()> {
    let mut buf = [0u8; 65536];
    while pty.readable(KEY_IDLE)? {
        match pty.master.read(&mut buf) {
            Ok(0) => return Err("the program on the PTY ended".into()),
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("PTY read: {e}")),
        }
    }
    Ok(())
}

/// Types `n` letters into whatever runs on `pty` (a shell echoing them, directly or through a
/// client), timing each from the write until the letter is in the output. Every 40 keys ^U
/// clears the line.
fn time_keys(pty: &mut Pty, n: usize) -> R<Vec<f64>> {
    const KEYS: &[u8] = b"abcdefghijklmnopqrstuvwxyz";
    let mut times = Vec::with_capacity(n);
    let mut acc = Vec::new();
    for i in 0..n {
        drain_pty(pty)?;
        let key = KEYS[i % KEYS.len()];
        acc.clear();
        let t0 = Instant::now();
        pty.master
            .write_all(&[key])
            .map_err(ctx("writing a key to the PTY"))?;
        pty.read_until(&mut acc, Duration::from_secs(10), "the echoed key", |a| {
            a.contains(&key)
        })?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        if i % 40 == 39 {
            pty.master.write_all(&[0x15]).map_err(ctx("writing ^U"))?;
        }
    }
    Ok(times)
}

/// Medians of `n` one-byte round trips between this thread and an echoing thread over a Unix
/// socket pair: (back to back, after [`KEY_IDLE`] of idle). What a cold wake-up costs on this
/// machine, for reading the (g) figures: on a VM it can be several times the warm one.
pub(crate) fn wake_round_trips(n: usize) -> R<(f64, f64)> {
    let (mut near, mut far) = UnixStream::pair().map_err(ctx("a socket pair"))?;
    let echo = std::thread::spawn(move || {
        let mut b = [0u8; 1];
        while matches!(far.read(&mut b), Ok(1)) {
            if far.write_all(&b).is_err() {
                break;
            }
        }
    });
    let mut trip = |idle: Option<Duration>| -> R<Vec<f64>> {
        let mut times = Vec::with_capacity(n);
        let mut b = [0u8; 1];
        for _ in 0..n {
            if let Some(d) = idle {
                std::thread::sleep(d);
            }
            let t0 = Instant::now();
            near.write_all(b"x")
                .map_err(ctx("writing to the echo thread"))?;
            near.read_exact(&mut b)
                .map_err(ctx("reading from the echo thread"))?;
            times.push(t0.elapsed().as_secs_f64() * 1e3);
        }
        Ok(times)
    };
    let warm = trip(None).map(|t| median(&t));
    let cold = trip(Some(KEY_IDLE)).map(|t| median(&t));
    drop(near);
    let _ = echo.join();
    Ok((warm?, cold?))
}

/// The floor: /bin/sh on a bare PTY, the kernel echoing.
pub(crate) fn bare_keys(n: usize) -> R<Vec<f64>> {
    let mut pty = open_pty(ATT_COLS, ATT_ROWS)?;
    let mut child = pty.spawn(&["/bin/sh"], &[("PS1", "$ "), ("TERM", "xterm-256color")])?;
    let mut acc = Vec::new();
    let r = pty
        .read_until(&mut acc, Duration::from_secs(10), "the prompt", |a| {
            contains(a, b"$ ")
        })
        .and_then(|()| time_keys(&mut pty, n));
    stop_child(&mut child);
    r
}

/// A tmux client (its own server) on a PTY of ours, a shell in its window.
pub(crate) fn tmux_keys(dir: &Path, n: usize) -> R<Vec<f64>> {
    let name = format!("tuiosbench-{}-keys", std::process::id());
    let mut pty = open_pty(ATT_COLS, ATT_ROWS)?;
    let conf = dir.join("keys-tmux.conf");
    std::fs::write(&conf, "set -g status off\n").map_err(ctx("writing tmux.conf"))?;
    let conf = conf.to_string_lossy().into_owned();
    let mut child = pty.spawn(
        &["tmux", "-L", &name, "-f", &conf, "new-session", "/bin/sh"],
        &[("PS1", "$ "), ("TERM", "xterm-256color"), ("TMUX", "")],
    )?;
    let mut acc = Vec::new();
    // dash ignores PS1 for root.
    let r = pty
        .read_until(&mut acc, Duration::from_secs(10), "the prompt", |a| {
            contains(a, b"$ ") || contains(a, b"# ")
        })
        .and_then(|()| time_keys(&mut pty, n));
    let _ = Command::new("tmux")
        .args(["-L", &name, "kill-server"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    stop_child(&mut child);
    r
}

impl Tuios {
    /// `tuios attach` on a PTY of ours, switched to terminal mode, a shell in its window.
    pub(crate) fn keys(&self, n: usize) -> R<Vec<f64>> {
        let mut pty = open_pty(ATT_COLS, ATT_ROWS)?;
        let bin = self.bin.to_string_lossy().into_owned();
        let mut env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        env.push(("TERM", "xterm-256color"));
        let mut child = pty.spawn(&[&bin, "attach", &self.session], &env)?;
        let mut acc = Vec::new();
        let r = (|| {
            // The dock names the mode: terminal at the start; window management in older builds.
            pty.read_until(
                &mut acc,
                Duration::from_secs(10),
                "the client's dock",
                |a| contains(a, b"WM") || contains(a, b"TERM"),
            )?;
            if !contains(&acc, b"TERM") {
                pty.master.write_all(b"i").map_err(ctx("writing i"))?;
                pty.read_until(&mut acc, Duration::from_secs(10), "terminal mode", |a| {
                    contains(a, b"TERM")
                })?;
            }
            time_keys(&mut pty, n)
        })();
        stop_child(&mut child);
        r
    }
}
