//! The transcript tier: an agent's own session log, read to refine a window's state (source
//! `transcript`, ranked between `report` and `osc`). Only Claude Code's JSONL is understood.
//!
//! A window attributed to a harness whose manifest has a `[transcript]` table is *joined* to
//! one file: the file in the harness's directory whose latest record names the agent process's
//! working directory and version (the base name of its executable, since Claude Code installs
//! one executable per release). Two such files mean we cannot tell which one is ours, so no
//! join. Once joined, only the bytes appended since the last look are read.
//!
//! Everything here but [`search`] and [`read_tail`] is pure; those two do blocking file I/O and
//! run on the blocking pool.
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use protocol::agent::AgentState;
use serde_json::Value;

use super::manifest::glob_match;
pub use super::transcript_spec::{dashed, TranscriptFile, TranscriptSpec, READER_CLAUDE_JSONL};

/// Most bytes one look reads from a joined file. More new bytes than this and only the newest
/// are read: the state is decided by the last records.
pub const MAX_READ: u64 = 1 << 20;
/// Bytes read from the end of each candidate file when searching for the join.
pub const SEARCH_TAIL: u64 = 64 << 10;
/// Candidate files looked at in one search (the newest first); a project directory can hold
/// thousands of old sessions.
pub const MAX_CANDIDATES: usize = 64;
/// Consecutive reads that find the joined file gone before the join ends.
pub const MISSING_READS: u8 = 3;
/// A file last written this long before the agent process started cannot be its transcript.
/// (The start time is known to the second only.)
const START_SLACK: Duration = Duration::from_secs(2);

/// The state one record says, if it says one: a main-thread assistant message that ended its
/// turn is `done`, any other assistant or user message `working`. Sidechain records (subagents)
/// and every other kind (summaries, snapshots, system notes) say nothing.
pub fn record_state(line: &[u8]) -> Option<AgentState> {
    let v: Value = serde_json::from_slice(line).ok()?;
    if v.get("isSidechain").and_then(Value::as_bool) == Some(true) {
        return None;
    }
    match v.get("type")?.as_str()? {
        "assistant" => {
            let stop = v.get("message").and_then(|m| m.get("stop_reason"));
            Some(if stop.and_then(Value::as_str) == Some("end_turn") {
                AgentState::Done
            } else {
                AgentState::Working
            })
        }
        "user" => Some(AgentState::Working),
        _ => None,
    }
}

/// The state the last state-bearing record of `lines` says. Malformed lines are skipped.
pub fn last_state(lines: &[u8]) -> Option<AgentState> {
    lines
        .split(|&b| b == b'\n')
        .rev()
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .find_map(record_state)
}

/// Where reading a joined file left off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TailReader {
    /// Bytes of the file already consumed (always at a line start unless `skip`).
    pub offset: u64,
    /// The bytes at `offset` are the rest of a line whose start was skipped: drop them up to
    /// the next newline.
    pub skip: bool,
}

impl TailReader {
    /// Where the next look reads, for a file of `len` bytes: from the offset, or only the last
    /// [`MAX_READ`] bytes when more than that is new (then from the middle of a line). A file
    /// shorter than the offset was truncated or replaced: read it from the start.
    pub fn plan(&mut self, len: u64) -> (u64, u64) {
        if len < self.offset {
            *self = TailReader::default();
        }
        let mut start = self.offset;
        if len - start > MAX_READ {
            start = len - MAX_READ;
            self.skip = true;
        }
        (start, len - start)
    }

    /// Consume `chunk`, read from `start`: the complete lines it holds move the offset past
    /// them; a last line without its newline is left for the next look. Returns the state the
    /// last complete state-bearing record says.
    pub fn consume(&mut self, start: u64, chunk: &[u8]) -> Option<AgentState> {
        let mut body = chunk;
        let mut at = start;
        if self.skip {
            match body.iter().position(|&b| b == b'\n') {
                Some(p) => {
                    body = &body[p + 1..];
                    at += p as u64 + 1;
                    self.skip = false;
                }
                None => {
                    self.offset = start + chunk.len() as u64;
                    return None;
                }
            }
        }
        let Some(last_nl) = body.iter().rposition(|&b| b == b'\n') else {
            self.offset = at;
            return None;
        };
        let complete = &body[..=last_nl];
        self.offset = at + complete.len() as u64;
        last_state(complete)
    }
}

/// What one look at a joined file found.
#[derive(Debug)]
pub enum ReadOutcome {
    /// The file is there; the state its new records say, if any.
    Read(Option<AgentState>),
    Missing,
    Failed(String),
}

/// Read what was appended to `path` since `reader` last looked (blocking).
pub fn read_tail(path: &Path, reader: &mut TailReader) -> ReadOutcome {
    let mut f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return ReadOutcome::Missing,
        Err(e) => return ReadOutcome::Failed(e.to_string()),
    };
    let len = match f.metadata() {
        Ok(m) => m.len(),
        Err(e) => return ReadOutcome::Failed(e.to_string()),
    };
    let (start, want) = reader.plan(len);
    match read_range(&mut f, start, want) {
        Ok(chunk) => ReadOutcome::Read(reader.consume(start, &chunk)),
        Err(e) => ReadOutcome::Failed(e.to_string()),
    }
}

fn read_range(f: &mut File, start: u64, want: u64) -> std::io::Result<Vec<u8>> {
    f.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::with_capacity(want as usize);
    f.take(want).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Whether the newest record of a file's tail that names a working directory and a version
/// names these. (Earlier records may be a resumed session's, from another version.)
pub fn tail_matches(tail: &[u8], cwd: &str, version: &str) -> bool {
    tail.split(|&b| b == b'\n').rev().find_map(|line| {
        let v: Value = serde_json::from_slice(line).ok()?;
        let c = v.get("cwd")?.as_str()?;
        let ver = v.get("version")?.as_str()?;
        Some(c == cwd && ver == version)
    }) == Some(true)
}

/// A transcript file looked at in a search: its path and the end of its text.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub path: PathBuf,
    pub tail: Vec<u8>,
}

/// How a search ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Search {
    Joined(PathBuf),
    /// No file is believed; the reason, for explain-agent-detect.
    NoJoin(String),
}

/// The join among the candidates: the one file whose newest record names the agent's cwd and
/// version; none when no file or several do.
pub fn choose(candidates: &[Candidate], cwd: &str, version: &str) -> Search {
    let matching: Vec<&Candidate> = candidates
        .iter()
        .filter(|c| tail_matches(&c.tail, cwd, version))
        .collect();
    match matching.as_slice() {
        [one] => Search::Joined(one.path.clone()),
        [] => Search::NoJoin(format!(
            "no transcript names cwd {cwd} and version {version}"
        )),
        many => Search::NoJoin(format!(
            "ambiguous: {} transcripts name cwd {cwd} and version {version}",
            many.len()
        )),
    }
}

/// A window joined to a transcript file.
#[derive(Debug, Clone)]
pub struct Join {
    pub path: PathBuf,
    pub reader: TailReader,
    /// Consecutive looks that found the file gone.
    pub missing: u8,
    /// The agent process the join was made for; another process in its place ends it.
    pub pid: i32,
}

/// One window's transcript tier: its join, or why the last search made none.
#[derive(Debug, Default)]
pub struct TranscriptWatch {
    pub join: Option<Join>,
    pub last_miss: Option<String>,
    /// A search or a read is running on the blocking pool (one at a time per window).
    pub busy: bool,
    /// A read was asked for while busy: one more follows.
    pub again: bool,
    /// A read after output is scheduled.
    pub debounce: bool,
    /// Changes whenever the join does, so a late answer about an older join is dropped.
    pub generation: u64,
}

/// The agent process a search is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentProc {
    pub pid: i32,
    /// Its executable's path.
    pub exe: String,
}

/// Search the harness's directory for the agent's transcript (blocking): the agent's cwd from
/// /proc, its version from its executable's name, candidates written since it started.
pub fn search(spec: &TranscriptSpec, home: &Path, agent: &AgentProc) -> Search {
    let Ok(cwd) = std::fs::read_link(format!("/proc/{}/cwd", agent.pid)) else {
        return Search::NoJoin("the agent's working directory cannot be read".into());
    };
    let cwd = cwd.to_string_lossy().into_owned();
    let version = Path::new(&agent.exe)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if version.is_empty() {
        return Search::NoJoin("the agent's executable cannot be read".into());
    }
    let dir = spec.dir_for(home, &cwd);
    let since = process_start(agent.pid)
        .and_then(|t| t.checked_sub(START_SLACK))
        .unwrap_or(UNIX_EPOCH);
    let candidates = match list_candidates(&dir, &spec.glob, since) {
        Ok(c) => c,
        Err(e) => return Search::NoJoin(format!("{}: {e}", dir.display())),
    };
    choose(&candidates, &cwd, &version)
}

/// The files of `dir` matching `glob` written since `since`, newest first, at most
/// [`MAX_CANDIDATES`], each with its last [`SEARCH_TAIL`] bytes.
fn list_candidates(dir: &Path, glob: &str, since: SystemTime) -> std::io::Result<Vec<Candidate>> {
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        if !glob_match(glob, &name.to_string_lossy()) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        let Ok(mtime) = meta.modified() else { continue };
        if meta.is_file() && mtime >= since {
            found.push((mtime, entry.path()));
        }
    }
    found.sort_by_key(|f| std::cmp::Reverse(f.0));
    found.truncate(MAX_CANDIDATES);
    Ok(found
        .into_iter()
        .filter_map(|(_, path)| {
            let mut f = File::open(&path).ok()?;
            let len = f.metadata().ok()?.len();
            let start = len.saturating_sub(SEARCH_TAIL);
            let tail = read_range(&mut f, start, len - start).ok()?;
            Some(Candidate { path, tail })
        })
        .collect())
}

/// When a process started, from its `starttime` (clock ticks after boot) and the boot time.
fn process_start(pid: i32) -> Option<SystemTime> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let boot = std::fs::read_to_string("/proc/stat").ok()?;
    start_time(&stat, &boot, clock_ticks())
}

/// The start time out of a `/proc/<pid>/stat` and `/proc/stat`. Fields are counted from the
/// last `)`, as the command name may hold anything.
pub fn start_time(stat: &str, proc_stat: &str, ticks_per_second: u64) -> Option<SystemTime> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name, field 3 (state) is index 0; starttime is field 22.
    let ticks: u64 = rest.split_whitespace().nth(19)?.parse().ok()?;
    let btime: u64 = proc_stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()?;
    let since_boot = Duration::from_millis(ticks * 1000 / ticks_per_second.max(1));
    Some(UNIX_EPOCH + Duration::from_secs(btime) + since_boot)
}

fn clock_ticks() -> u64 {
    // SAFETY: sysconf reads a constant of the system and touches no memory of ours.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as u64
    } else {
        100
    }
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
