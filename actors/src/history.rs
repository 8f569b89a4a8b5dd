//! Where windows keep the history that passes their memory budget: one file per window under
//! `$XDG_STATE_HOME/tuios/history/` (directory 0700, files 0600, created by the emulator when
//! first needed and removed with the window), all counted in one shared disk budget.
//!
//! Files are named `<daemon pid>-<pty id>.hist`. At startup the daemon removes the files of
//! daemons that are gone and its own pid's (left by the previous image of this process after a
//! live upgrade, which hands over only the history in memory): no live daemon uses them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use emulator::{DiskBudget, HistoryPlan, HistoryWriter};

/// The daemon's history directory and disk budget, shared by every window.
#[derive(Clone, Debug)]
pub struct HistoryFiles {
    /// None when the directory cannot be made: history past the memory budget is dropped.
    dir: Option<PathBuf>,
    pid: u32,
    pub budget: Arc<DiskBudget>,
    /// The thread that packs and writes every window's blocks (None: each window does).
    writer: Option<HistoryWriter>,
}

/// What a window needs to bound its history: its memory budget and where its file goes.
#[derive(Clone, Debug)]
pub struct WindowHistory {
    pub memory_bytes: usize,
    pub files: HistoryFiles,
}

impl WindowHistory {
    /// The memory budget and the file for the window whose PTY id is `pty_id`.
    pub fn plan(&self, pty_id: &str) -> (usize, Option<HistoryPlan>) {
        (self.memory_bytes, self.files.path_for(pty_id))
    }
}

impl HistoryFiles {
    /// Prepares `dir` (created 0700) and removes stale files in it.
    pub fn new(dir: PathBuf, pid: u32, disk_bytes: u64) -> HistoryFiles {
        let dir = match prepare(&dir, pid) {
            Ok(()) => Some(dir),
            Err(e) => {
                tracing::warn!(dir = %dir.display(), error = %e, "cannot use the history directory; scrollback past the memory budget is dropped");
                None
            }
        };
        let writer = HistoryWriter::start()
            .map_err(|e| tracing::warn!(error = %e, "cannot start the history writer; windows write their own history"))
            .ok();
        HistoryFiles {
            dir,
            pid,
            budget: DiskBudget::new(disk_bytes),
            writer,
        }
    }

    fn path_for(&self, pty_id: &str) -> Option<HistoryPlan> {
        if self.budget.limit() == 0 {
            return None;
        }
        let dir = self.dir.as_ref()?;
        // PTY ids are UUIDs; anything else is kept to a safe file name.
        let id: String = pty_id
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        Some(HistoryPlan {
            path: dir.join(format!("{}-{id}.hist", self.pid)),
            budget: self.budget.clone(),
            writer: self.writer.clone(),
        })
    }
}

/// The default history directory: `$XDG_STATE_HOME/tuios/history`.
pub fn default_dir() -> PathBuf {
    crate::recorder::default_dir()
        .parent()
        .map(|p| p.join("history"))
        .unwrap_or_else(|| PathBuf::from("/tmp/tuios-history"))
}

fn prepare(dir: &Path, own_pid: u32) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    for entry in std::fs::read_dir(dir)?.flatten() {
        let name = entry.file_name();
        let Some(pid) = stale_owner(&name.to_string_lossy()) else {
            continue;
        };
        if pid == own_pid || !alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(())
}

/// The pid in a history file's name (`<pid>-<id>.hist`), None for any other name.
fn stale_owner(name: &str) -> Option<u32> {
    let stem = name.strip_suffix(".hist")?;
    let (pid, _) = stem.split_once('-')?;
    pid.parse().ok()
}

fn alive(pid: u32) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(pid as i32) else {
        return false;
    };
    // EPERM means a process of someone else's: alive, and not ours to touch anyway.
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_history_file_names_carry_an_owner() {
        assert_eq!(stale_owner("123-ab-cd.hist"), Some(123));
        assert_eq!(stale_owner("123-ab.cast"), None);
        assert_eq!(stale_owner("x-ab.hist"), None);
        assert_eq!(stale_owner("123.hist"), None);
    }

    #[test]
    fn stale_files_go_and_live_ones_stay() {
        let dir = std::env::temp_dir().join(format!("tuios-hist-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // pid 1 is alive (and never this daemon); a pid past pid_max is not.
        for name in ["1-a.hist", "4194305-b.hist", "7-c.txt"] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        let own = std::process::id();
        std::fs::write(dir.join(format!("{own}-d.hist")), b"").unwrap();
        let files = HistoryFiles::new(dir.clone(), own, 1 << 20);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["1-a.hist", "7-c.txt"]);
        let plan = files.path_for("x/y-1").unwrap();
        assert_eq!(plan.path, dir.join(format!("{own}-xy-1.hist")));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
