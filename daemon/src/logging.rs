//! Logging to stderr through tracing-subscriber.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Install a tracing subscriber that writes to stderr. The filter comes from `level` if given,
/// else `TUIOS_LOG`, else `RUST_LOG`, else `info`; empty values count as unset. A filter that
/// does not parse falls back to `info` with a warning. Calling this again does nothing.
pub fn init_logging(level: Option<&str>) {
    let from_env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let wanted = level
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .or_else(|| from_env("TUIOS_LOG"))
        .or_else(|| from_env("RUST_LOG"))
        .unwrap_or_else(|| "info".to_owned());
    let (filter, rejected) = match EnvFilter::try_new(&wanted) {
        Ok(filter) => (filter, None),
        Err(e) => (EnvFilter::new("info"), Some(e)),
    };
    let installed = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // Colour codes only help a person at a terminal; the journal would store them raw.
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(filter)
        .try_init()
        .is_ok();
    if let (true, Some(e)) = (installed, rejected) {
        tracing::warn!("log filter `{wanted}` is not valid ({e}); using `info`");
    }
}
