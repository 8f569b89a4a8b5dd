//! A cgroup per window, where the service manager delegated one to the daemon (systemd's
//! `Delegate=yes`; the shipped unit also sets `TUIOS_CGROUP_DELEGATED=1` to say so). Every
//! process a window's program starts stays in the window's cgroup whatever it does (setsid,
//! double fork, a cleared environment), so `close-window`/`kill-session` with `tree` end them
//! all with one write to `cgroup.kill` (Linux 5.14). Without a delegated cgroup the daemon is
//! a child subreaper instead and walks the process tree (`tree.rs`), which a process that
//! cleared its environment and left its session can escape.
//!
//! Layout, under the daemon's own cgroup `BASE`: the daemon moves itself into `BASE/daemon`
//! (cgroup v2 wants processes in leaves), and window `ID` gets `BASE/window-ID`.
//! Everything here is a few small writes to cgroupfs; the kill waits, so call it off the actors.
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The environment variable the unit sets next to `Delegate=yes`.
pub const DELEGATED_ENV: &str = "TUIOS_CGROUP_DELEGATED";

/// Another cgroup directory to use as the base instead of the daemon's own (one the caller
/// made and may write, as the tests do).
pub const BASE_ENV: &str = "TUIOS_CGROUP_BASE";

/// How long a kill waits for the cgroup to empty.
const KILL_WAIT: Duration = Duration::from_secs(2);

/// The delegated cgroup the daemon manages windows' cgroups in.
#[derive(Debug, Clone)]
pub struct WindowCgroups {
    base: Arc<PathBuf>,
}

impl WindowCgroups {
    /// The per-window cgroups, if the environment says the daemon's cgroup is delegated and
    /// it is usable: cgroup v2 with `cgroup.kill`, writable. Moves the daemon into its leaf.
    /// `Err` says why not (logged by the caller), `Ok(None)` means not asked for.
    pub fn from_env() -> Result<Option<WindowCgroups>, String> {
        let asked = std::env::var(DELEGATED_ENV).is_ok_and(|v| v == "1" || v == "yes");
        if !asked {
            return Ok(None);
        }
        if let Some(base) = std::env::var_os(BASE_ENV).filter(|b| !b.is_empty()) {
            return WindowCgroups::at(Path::new(&base)).map(Some);
        }
        let own = own_cgroup_dir().ok_or("the daemon's cgroup v2 directory was not found")?;
        // After a live upgrade the process is already in its leaf.
        let base = if own.file_name().is_some_and(|n| n == "daemon") {
            own.parent().map(Path::to_path_buf).unwrap_or(own)
        } else {
            own
        };
        WindowCgroups::at(&base).map(Some)
    }

    /// Window cgroups under `base`, with this process moved into `base/daemon`.
    pub fn at(base: &Path) -> Result<WindowCgroups, String> {
        if !base.join("cgroup.kill").exists() {
            return Err(format!(
                "{} has no cgroup.kill (cgroup v2 on Linux 5.14 or later is needed)",
                base.display()
            ));
        }
        let leaf = base.join("daemon");
        mkdir(&leaf).map_err(|e| format!("cannot create {}: {e}", leaf.display()))?;
        std::fs::write(leaf.join("cgroup.procs"), std::process::id().to_string())
            .map_err(|e| format!("cannot move the daemon into {}: {e}", leaf.display()))?;
        Ok(WindowCgroups {
            base: Arc::new(base.to_path_buf()),
        })
    }

    pub fn dir_of(&self, window: &str) -> PathBuf {
        self.base.join(format!("window-{window}"))
    }

    /// Puts a window's freshly spawned program in the window's own cgroup. Whatever it forked
    /// before this (a shell's start-up helper, in the microseconds since the spawn) stays in
    /// the daemon's leaf, where the tree walk still finds it.
    pub fn adopt(&self, window: &str, pid: i32) -> io::Result<()> {
        let dir = self.dir_of(window);
        mkdir(&dir)?;
        std::fs::write(dir.join("cgroup.procs"), pid.to_string())
    }

    /// The processes in the window's cgroup now.
    pub fn members(&self, window: &str) -> Vec<i32> {
        std::fs::read_to_string(self.dir_of(window).join("cgroup.procs"))
            .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
            .unwrap_or_default()
    }

    /// Kills everything in the window's cgroup and waits (briefly) until it is empty, then
    /// removes it. Returns how many processes it held.
    pub fn kill(&self, window: &str) -> usize {
        let dir = self.dir_of(window);
        let members = self.members(window).len();
        if members > 0 {
            if let Err(e) = std::fs::write(dir.join("cgroup.kill"), "1") {
                tracing::warn!(window, error = %e, "cgroup.kill failed");
                return 0;
            }
            let deadline = Instant::now() + KILL_WAIT;
            while !self.members(window).is_empty() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        self.remove(window);
        members
    }

    /// Removes the window's cgroup if nothing is left in it (a job left running on purpose
    /// keeps it until it ends).
    pub fn remove(&self, window: &str) {
        let _ = std::fs::remove_dir(self.dir_of(window));
    }
}

fn mkdir(dir: &Path) -> io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    }
}

/// This process's cgroup v2 directory: the `0::PATH` line of /proc/self/cgroup under the
/// cgroup2 mount point from /proc/self/mountinfo.
fn own_cgroup_dir() -> Option<PathBuf> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    cgroup_dir_from(&cgroup, &mountinfo)
}

/// [`own_cgroup_dir`] from the two files' text.
pub fn cgroup_dir_from(cgroup: &str, mountinfo: &str) -> Option<PathBuf> {
    let rel = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    // mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE SUPER
    let mount = mountinfo.lines().find_map(|l| {
        let (left, right) = l.split_once(" - ")?;
        (right.split_whitespace().next()? == "cgroup2").then(|| left.split_whitespace().nth(4))?
    })?;
    Some(Path::new(mount).join(rel.trim().trim_start_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cgroup_dir_is_the_v2_path_under_the_cgroup2_mount() {
        let cgroup = "1:name=systemd:/user.slice\n0::/user.slice/user@1000.service/app.slice/tuios.service\n";
        let mountinfo = "25 1 0:23 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw\n\
                         26 25 0:24 / /proc rw - proc proc rw\n";
        assert_eq!(
            cgroup_dir_from(cgroup, mountinfo),
            Some(PathBuf::from(
                "/sys/fs/cgroup/user.slice/user@1000.service/app.slice/tuios.service"
            ))
        );
        // A hybrid layout mounts cgroup2 elsewhere.
        let hybrid = "30 1 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            cgroup_dir_from("0::/\n", hybrid),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
        assert_eq!(cgroup_dir_from("1:cpu:/\n", hybrid), None);
    }
}
