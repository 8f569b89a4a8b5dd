//! Reads the foreground process of a window's terminal from /proc: the terminal's foreground
//! process group (field `tpgid` of the shell's `/proc/<pid>/stat`), then that group leader's
//! `comm`, `cmdline` and `exe`. A handful of small reads; nothing here blocks for long.
use std::path::Path;

/// A process as the detector sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcInfo {
    pub pid: i32,
    /// The kernel's short name (for a script, the script's file name).
    pub comm: String,
    pub argv: Vec<String>,
    /// The executable's path, `" (deleted)"` removed; empty when it cannot be read.
    pub exe: String,
}

/// `tpgid` out of the text of a `/proc/<pid>/stat`: the foreground process group of the process's
/// controlling terminal, or `None` when it has none. The command name in field 2 may hold spaces
/// and parentheses, so fields are counted from the last `)`.
pub fn parse_tpgid(stat: &str) -> Option<i32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name: state, ppid, pgrp, session, tty_nr, tpgid.
    let tpgid: i32 = rest.split_whitespace().nth(5)?.parse().ok()?;
    (tpgid > 0).then_some(tpgid)
}

/// The working directory of the terminal's foreground process, else of the window's own
/// program `pid`; `None` when neither can be read (the program is gone, or /proc is not there).
pub fn window_cwd(pid: i32) -> Option<std::path::PathBuf> {
    if pid <= 0 {
        return None;
    }
    let fg = foreground_pgid(pid).unwrap_or(pid);
    std::fs::read_link(format!("/proc/{fg}/cwd"))
        .or_else(|_| std::fs::read_link(format!("/proc/{pid}/cwd")))
        .ok()
        .filter(|p| p.is_absolute())
}

/// The foreground process group of the terminal `shell_pid` controls.
pub fn foreground_pgid(shell_pid: i32) -> Option<i32> {
    if shell_pid <= 0 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{shell_pid}/stat")).ok()?;
    parse_tpgid(&stat)
}

/// `comm`, `cmdline` and `exe` of one process; `None` when it is gone.
pub fn read_process(pid: i32) -> Option<ProcInfo> {
    let dir = format!("/proc/{pid}");
    let comm = std::fs::read_to_string(format!("{dir}/comm")).ok()?;
    let cmdline = std::fs::read(format!("{dir}/cmdline")).unwrap_or_default();
    let exe = std::fs::read_link(Path::new(&dir).join("exe"))
        .map(|p| clean_exe(&p.to_string_lossy()))
        .unwrap_or_default();
    Some(ProcInfo {
        pid,
        comm: comm.trim_end_matches('\n').to_string(),
        argv: split_cmdline(&cmdline),
        exe,
    })
}

/// The foreground process of the terminal whose session leader is `shell_pid`.
pub fn foreground(shell_pid: i32) -> Option<ProcInfo> {
    read_process(foreground_pgid(shell_pid)?)
}

/// NUL-separated arguments; a trailing NUL ends the last one.
pub fn split_cmdline(raw: &[u8]) -> Vec<String> {
    let raw = raw.strip_suffix(b"\0").unwrap_or(raw);
    if raw.is_empty() {
        return Vec::new();
    }
    raw.split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// The kernel marks an executable replaced on disk with `" (deleted)"`.
pub fn clean_exe(exe: &str) -> String {
    exe.strip_suffix(" (deleted)").unwrap_or(exe).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tpgid_is_the_sixth_field_after_the_name() {
        let stat = "4242 (bash) S 4000 4242 4242 34816 4300 4194304 100 0 0 0";
        assert_eq!(parse_tpgid(stat), Some(4300));
        // A name with spaces and parentheses does not shift the fields.
        let odd = "77 (a) b (c) R 1 77 77 34817 91 0";
        assert_eq!(parse_tpgid(odd), Some(91));
        // No controlling terminal.
        assert_eq!(parse_tpgid("5 (kthreadd) S 2 0 0 0 -1 0"), None);
        assert_eq!(parse_tpgid("garbage"), None);
    }

    #[test]
    fn cmdline_and_exe_cleanup() {
        assert_eq!(
            split_cmdline(b"node\0/usr/lib/cli.js\0--yes\0"),
            ["node", "/usr/lib/cli.js", "--yes"]
        );
        assert_eq!(split_cmdline(b""), Vec::<String>::new());
        assert_eq!(split_cmdline(b"a\0\0b"), ["a", "", "b"]);
        assert_eq!(clean_exe("/usr/bin/x (deleted)"), "/usr/bin/x");
        assert_eq!(clean_exe("/usr/bin/x"), "/usr/bin/x");
    }

    #[test]
    fn reads_this_process() {
        let me = read_process(std::process::id() as i32).expect("own /proc entry");
        assert!(!me.comm.is_empty());
        assert!(!me.argv.is_empty());
        assert!(me.exe.starts_with('/'), "{}", me.exe);
    }
}
