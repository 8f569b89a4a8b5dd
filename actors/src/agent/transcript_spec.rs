//! A harness manifest's `[transcript]` table: where the agent keeps its transcripts and which
//! reader understands them. Apart from `transcript.rs` so the manifest can hold one without the
//! two files importing each other.
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The only reader there is.
pub const READER_CLAUDE_JSONL: &str = "claude-code-jsonl";

/// A manifest's `[transcript]` table as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct TranscriptFile {
    pub(super) reader: String,
    pub(super) dir: String,
    pub(super) glob: String,
}

/// Where an agent's transcripts are and how to read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptSpec {
    /// Directory template: `{home}` and `{cwd:dashes}` are filled in.
    pub dir: String,
    /// File-name pattern (`*` and `?`).
    pub glob: String,
}

impl TranscriptSpec {
    pub fn compile(f: &TranscriptFile) -> Result<TranscriptSpec, String> {
        if f.reader != READER_CLAUDE_JSONL {
            return Err(format!(
                "[transcript] reader {:?} is unknown; the only reader is {READER_CLAUDE_JSONL:?}",
                f.reader
            ));
        }
        if f.dir.trim().is_empty() {
            return Err("[transcript] names no dir".into());
        }
        let glob = if f.glob.is_empty() {
            "*.jsonl"
        } else {
            &f.glob
        };
        if glob.contains('/') {
            return Err("[transcript] glob matches file names; it may not hold '/'".into());
        }
        Ok(TranscriptSpec {
            dir: f.dir.clone(),
            glob: glob.to_string(),
        })
    }

    /// The directory for an agent running in `cwd`, with `home` the daemon's home.
    pub fn dir_for(&self, home: &Path, cwd: &str) -> PathBuf {
        PathBuf::from(
            self.dir
                .replace("{home}", &home.to_string_lossy())
                .replace("{cwd:dashes}", &dashed(cwd)),
        )
    }
}

/// Claude Code's project directory name for a working directory: every character but ASCII
/// letters and digits becomes `-`, one per UTF-16 unit as its JavaScript does, runs kept
/// (`/home/u/my.proj` -> `-home-u-my-proj`).
pub fn dashed(cwd: &str) -> String {
    let mut out = String::with_capacity(cwd.len());
    for c in cwd.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('-');
            }
        }
    }
    out
}
