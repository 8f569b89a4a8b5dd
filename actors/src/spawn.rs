//! Starting a window's program on its PTY with posix_spawn(3).
//!
//! fork() copies the daemon's page tables, and a daemon holding many windows is large and
//! multi-threaded: with a thousand windows each new one spent tens of milliseconds in fork
//! alone. glibc's posix_spawn clones with CLONE_VM|CLONE_VFORK, so the child borrows the
//! daemon's memory until it execs and the cost no longer grows with the daemon.
//!
//! The child is what portable-pty's fork+exec made it: a session leader whose controlling
//! terminal is the PTY (on 0, 1 and 2, nothing else open), no signal blocked, in the spec's
//! directory or else `$HOME`, with the daemon's environment minus what is not for windows plus
//! the spec's. The program is looked up as portable-pty's `CommandBuilder` did, with its error
//! texts; a file the kernel cannot exec (ENOEXEC: a script without `#!`) is run by /bin/sh, as
//! execvp did for it. Every signal starts at its default, except glibc's own two, 32 and 33:
//! its posix_spawn leaves them ignored so that neither can hit the child before the exec (a
//! glibc program's SIGRTMIN is 34). Needs glibc 2.34 (the closefrom file action).
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, CStr, CString, OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};

use rustix::fs::Access;

/// What to run in a new PTY.
#[derive(Debug, Clone)]
pub struct SpawnSpec {
    /// argv; empty means the shell.
    pub command: Vec<String>,
    pub shell: String,
    pub cwd: Option<PathBuf>,
    pub cols: u16,
    pub rows: u16,
    pub env: Vec<(String, String)>,
}

/// Variables of the daemon's environment a window must not inherit: tmux's (a window is not
/// inside tmux, and tmux-aware programs would talk to the wrong server), every `TUIOS_*` (the
/// daemon's settings such as `TUIOS_LOG` and `TUIOS_SHELL`; the window's own `TUIOS_SOCKET`,
/// `TUIOS_SESSION`, `TUIOS_WINDOW_ID`, `TUIOS_PANE_ID` and `TUIOS_ENV` are set afresh), and
/// systemd's per-service ones (a program could otherwise notify the service manager as if it were
/// the daemon, or take the journal for its stderr).
pub fn not_for_windows(name: &str) -> bool {
    matches!(
        name,
        "TMUX"
            | "TMUX_PANE"
            | "NOTIFY_SOCKET"
            | "LISTEN_FDS"
            | "LISTEN_PID"
            | "LISTEN_FDNAMES"
            | "JOURNAL_STREAM"
            | "INVOCATION_ID"
            | "WATCHDOG_PID"
            | "WATCHDOG_USEC"
    ) || name.starts_with("TUIOS_")
}

/// The shell a file without `#!` is given to, as glibc's execvp does.
const BOURNE_SHELL: &str = "/bin/sh";

/// Start `spec`'s program on the terminal `tty` (the slave side, opened by name in the child)
/// and return its pid. Blocks on the filesystem: call it off the actors' threads. Errors are
/// the reason, for the caller to classify.
pub fn spawn(spec: &SpawnSpec, tty: &Path) -> Result<i32, String> {
    let env = window_env(std::env::vars_os(), &spec.env, passwd_shell);
    let cwd = start_dir(spec.cwd.as_deref(), &env, passwd_home);
    let argv: Vec<OsString> = if spec.command.is_empty() {
        // A shell on a terminal is interactive by itself; no flags needed.
        vec![spec.shell.clone().into()]
    } else {
        spec.command.iter().map(OsString::from).collect()
    };
    let program = search_path(
        &argv[0],
        &cwd,
        env.get(OsStr::new("PATH")).map(OsString::as_os_str),
    )?;

    let envp = env
        .iter()
        .map(|(k, v)| {
            let mut kv = k.clone().into_vec();
            kv.push(b'=');
            kv.extend_from_slice(v.as_bytes());
            c_string(kv)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let c_argv = argv
        .iter()
        .map(|a| c_string(a.as_bytes().to_vec()))
        .collect::<Result<Vec<_>, _>>()?;
    let c_program = c_string(program.into_os_string().into_vec())?;
    let c_cwd = c_string(cwd.into_os_string().into_vec())?;
    let c_tty = c_string(tty.as_os_str().as_bytes().to_vec())?;

    let run = |path: &CStr, argv: &[&CStr]| spawn_on_tty(path, argv, &envp, &c_cwd, &c_tty);
    let args: Vec<&CStr> = c_argv.iter().map(CString::as_c_str).collect();
    match run(&c_program, &args) {
        Err(libc::ENOEXEC) => {
            // glibc's posix_spawn leaves this to the caller; execvp ran such a file as
            // `/bin/sh FILE ARGS...`, so that is what the program gets.
            let sh = c_string(BOURNE_SHELL.into())?;
            let mut sh_args = vec![sh.as_c_str(), c_program.as_c_str()];
            sh_args.extend_from_slice(&args[1..]);
            run(&sh, &sh_args)
        }
        other => other,
    }
    .map_err(|errno| std::io::Error::from_raw_os_error(errno).to_string())
}

/// std's wording for an argument or variable holding a NUL, which no exec can pass on.
fn c_string(bytes: Vec<u8>) -> Result<CString, String> {
    CString::new(bytes).map_err(|_| "nul byte found in provided data".to_string())
}

/// The window's environment: the daemon's (`base`), where a missing `SHELL` is the user's
/// login shell (portable-pty's base environment added it), minus what [`not_for_windows`]
/// names, then `extra` on top. Sorted by name, as the builder's map was.
fn window_env(
    base: impl Iterator<Item = (OsString, OsString)>,
    extra: &[(String, String)],
    login_shell: impl FnOnce() -> OsString,
) -> BTreeMap<OsString, OsString> {
    let mut env: BTreeMap<OsString, OsString> = base.collect();
    if !env.contains_key(OsStr::new("SHELL")) {
        env.insert("SHELL".into(), login_shell());
    }
    env.retain(|k, _| !k.to_str().is_some_and(not_for_windows));
    for (k, v) in extra {
        env.insert(k.into(), v.into());
    }
    env
}

/// Where the program starts: the spec's directory when it is one, else `$HOME` of the
/// window's environment, else the passwd entry's home, else `/` (portable-pty's order). An
/// empty `HOME` counts as unset: as a directory it could only make the start fail.
fn start_dir(
    cwd: Option<&Path>,
    env: &BTreeMap<OsString, OsString>,
    passwd_home: impl FnOnce() -> Option<OsString>,
) -> PathBuf {
    if let Some(dir) = cwd.filter(|d| d.is_dir()) {
        return dir.to_path_buf();
    }
    env.get(OsStr::new("HOME"))
        .filter(|h| !h.is_empty())
        .cloned()
        .or_else(passwd_home)
        .map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

/// True for `./x`, `../x` and `.`: names portable-pty looks up in the start directory only.
fn is_cwd_relative(p: &Path) -> bool {
    matches!(
        p.components().next(),
        Some(Component::CurDir | Component::ParentDir)
    )
}

fn executable(p: &Path) -> Result<(), std::io::Error> {
    rustix::fs::access(p, Access::EXEC_OK).map_err(Into::into)
}

fn exists(p: &Path) -> bool {
    rustix::fs::access(p, Access::EXISTS).is_ok()
}

/// The file to exec for `exe`, by portable-pty's `search_path` rules and with its messages: an
/// absolute name as it is; `./x` and `../x` in `cwd`; any other relative name in each `PATH`
/// entry (relative entries taken from `cwd`), skipping directories and files we may not
/// execute.
fn search_path(exe: &OsStr, cwd: &Path, path: Option<&OsStr>) -> Result<PathBuf, String> {
    let exe_path = Path::new(exe);
    if exe_path.is_relative() {
        if is_cwd_relative(exe_path) {
            let abs = cwd.join(exe_path);
            return if abs.is_dir() {
                Err(format!(
                    "Unable to spawn {} because it is a directory",
                    abs.display()
                ))
            } else if executable(&abs).is_ok() {
                Ok(abs)
            } else if exists(&abs) {
                Err(format!(
                    "Unable to spawn {} because it is not executable",
                    abs.display()
                ))
            } else {
                Err(format!(
                    "Unable to spawn {} because it does not exist",
                    abs.display()
                ))
            };
        }
        let mut errors = Vec::new();
        match path {
            Some(path) => {
                for dir in std::env::split_paths(path) {
                    let candidate = cwd.join(dir).join(exe_path);
                    if candidate.is_dir() {
                        errors.push(format!("{} exists but is a directory", candidate.display()));
                    } else if executable(&candidate).is_ok() {
                        return Ok(candidate);
                    } else if exists(&candidate) {
                        errors.push(format!(
                            "{} exists but is not executable",
                            candidate.display()
                        ));
                    }
                }
                errors.push(format!("No viable candidates found in PATH {path:?}"));
            }
            None => errors.push("Unable to resolve the PATH".to_string()),
        }
        Err(format!(
            "Unable to spawn {} because:\n{}",
            exe_path.display(),
            errors.join(".\n")
        ))
    } else if exe_path.is_dir() {
        Err(format!(
            "Unable to spawn {} because it is a directory",
            exe_path.display()
        ))
    } else {
        match executable(exe_path) {
            Ok(()) => Ok(exe_path.to_path_buf()),
            Err(e) if exists(exe_path) => Err(format!(
                "Unable to spawn {} because it is not executable ({e})",
                exe_path.display()
            )),
            Err(e) => Err(format!(
                "Unable to spawn {} because it doesn't exist on the filesystem ({e})",
                exe_path.display()
            )),
        }
    }
}

/// A string field of the user's passwd entry (getpwuid_r: several windows may start at once).
fn passwd_field(field: impl Fn(&libc::passwd) -> *const c_char) -> Option<OsString> {
    let mut buf: Vec<c_char> = vec![0; 1024];
    loop {
        // SAFETY: all-zero is a valid passwd (null pointers, zero ids); getpwuid_r fills it.
        let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        // SAFETY: every pointer is to a live local; `buf.len()` is the buffer's true size.
        let rc = unsafe {
            libc::getpwuid_r(
                libc::getuid(),
                &mut entry,
                buf.as_mut_ptr(),
                buf.len(),
                &mut found,
            )
        };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        if rc != 0 || found.is_null() {
            return None;
        }
        let p = field(&entry);
        if p.is_null() {
            return None;
        }
        // SAFETY: a non-null field of a found entry is a NUL-terminated string in `buf`.
        let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
        return Some(OsStr::from_bytes(bytes).to_os_string());
    }
}

/// The user's login shell when it is executable, else /bin/sh (portable-pty's `get_shell`).
fn passwd_shell() -> OsString {
    passwd_field(|e| e.pw_shell)
        .filter(|s| executable(Path::new(s)).is_ok())
        .unwrap_or_else(|| BOURNE_SHELL.into())
}

fn passwd_home() -> Option<OsString> {
    passwd_field(|e| e.pw_dir)
}

/// posix_spawn attributes, destroyed when dropped. Boxed: POSIX does not allow moving one.
struct Attr(Box<libc::posix_spawnattr_t>);

impl Attr {
    fn new() -> Result<Attr, c_int> {
        // SAFETY: zeroed storage that posix_spawnattr_init initialises.
        let mut attr = Attr(Box::new(unsafe { std::mem::zeroed() }));
        // SAFETY: `attr.0` points to storage of the right type.
        match unsafe { libc::posix_spawnattr_init(&mut *attr.0) } {
            0 => Ok(attr),
            e => {
                // Not initialised: must not be destroyed.
                std::mem::forget(attr);
                Err(e)
            }
        }
    }
}

impl Drop for Attr {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawnattr_destroy(&mut *self.0) };
    }
}

/// posix_spawn file actions, destroyed when dropped.
struct Actions(Box<libc::posix_spawn_file_actions_t>);

impl Actions {
    fn new() -> Result<Actions, c_int> {
        // SAFETY: zeroed storage that posix_spawn_file_actions_init initialises.
        let mut actions = Actions(Box::new(unsafe { std::mem::zeroed() }));
        // SAFETY: `actions.0` points to storage of the right type.
        match unsafe { libc::posix_spawn_file_actions_init(&mut *actions.0) } {
            0 => Ok(actions),
            e => {
                std::mem::forget(actions);
                Err(e)
            }
        }
    }
}

impl Drop for Actions {
    fn drop(&mut self) {
        // SAFETY: initialised in `new`, destroyed once.
        unsafe { libc::posix_spawn_file_actions_destroy(&mut *self.0) };
    }
}

/// A posix_spawn(3)-style result: 0 or the error number.
fn check(rc: c_int) -> Result<(), c_int> {
    if rc == 0 {
        Ok(())
    } else {
        Err(rc)
    }
}

/// posix_spawn `path` with `argv` and `envp`: a new session whose controlling terminal is
/// `tty`, on fds 0-2 and nothing else, in `cwd`, every signal at its default and none blocked.
/// The error is the errno of whatever failed, exec included.
fn spawn_on_tty(
    path: &CStr,
    argv: &[&CStr],
    envp: &[CString],
    cwd: &CStr,
    tty: &CStr,
) -> Result<i32, c_int> {
    let mut attr = Attr::new()?;
    let mut actions = Actions::new()?;
    let (attr_p, actions_p) = (&mut *attr.0, &mut *actions.0);
    let flags = libc::POSIX_SPAWN_SETSID
        | (libc::POSIX_SPAWN_SETSIGDEF | libc::POSIX_SPAWN_SETSIGMASK) as libc::c_short;
    // SAFETY: sigset_t is plain data; sigfillset/sigemptyset initialise it.
    let (mut all, mut none): (libc::sigset_t, libc::sigset_t) =
        unsafe { (std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY (this block): `attr_p` and `actions_p` are initialised and live until the end of
    // the function; every string is NUL-terminated and outlives the posix_spawn call, and the
    // pointer arrays end with a null pointer as exec requires.
    unsafe {
        libc::sigfillset(&mut all);
        libc::sigemptyset(&mut none);
        check(libc::posix_spawnattr_setflags(attr_p, flags))?;
        // Ignored signals survive exec: the daemon ignores SIGPIPE (Rust's runtime does), and
        // a shell started with it ignored could not get it back.
        check(libc::posix_spawnattr_setsigdefault(attr_p, &all))?;
        check(libc::posix_spawnattr_setsigmask(attr_p, &none))?;
        // Opened by name after setsid (which POSIX_SPAWN_SETSID runs before the file
        // actions) and without O_NOCTTY: Linux makes it the new session's controlling terminal.
        check(libc::posix_spawn_file_actions_addopen(
            actions_p,
            0,
            tty.as_ptr(),
            libc::O_RDWR,
            0,
        ))?;
        check(libc::posix_spawn_file_actions_adddup2(actions_p, 0, 1))?;
        check(libc::posix_spawn_file_actions_adddup2(actions_p, 0, 2))?;
        // The daemon's descriptors are close-on-exec, but a library's might not be; the old
        // fork path closed everything above 2 as well.
        check(libc::posix_spawn_file_actions_addclosefrom_np(actions_p, 3))?;
        check(libc::posix_spawn_file_actions_addchdir_np(
            actions_p,
            cwd.as_ptr(),
        ))?;

        let argv_p: Vec<*mut c_char> = argv
            .iter()
            .map(|a| a.as_ptr().cast_mut())
            .chain(std::iter::once(std::ptr::null_mut()))
            .collect();
        let envp_p: Vec<*mut c_char> = envp
            .iter()
            .map(|e| e.as_ptr().cast_mut())
            .chain(std::iter::once(std::ptr::null_mut()))
            .collect();
        let mut pid: libc::pid_t = 0;
        check(libc::posix_spawn(
            &mut pid,
            path.as_ptr(),
            actions_p,
            attr_p,
            argv_p.as_ptr(),
            envp_p.as_ptr(),
        ))?;
        Ok(pid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn file(dir: &Path, name: &str, mode: u32) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        p
    }

    #[test]
    fn a_bare_name_is_found_in_path_skipping_what_cannot_run() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("c"),
        );
        for d in [&a, &b, &c] {
            std::fs::create_dir(d).unwrap();
        }
        // Root may execute a file without x bits only if some x bit is set, so 0o644 is
        // not executable for anyone.
        file(&a, "prog", 0o644);
        std::fs::create_dir(b.join("prog")).unwrap();
        let want = file(&c, "prog", 0o755);
        let path = std::env::join_paths([&a, &b, &c]).unwrap();
        assert_eq!(
            search_path("prog".as_ref(), tmp.path(), Some(&path)).unwrap(),
            want
        );
    }

    #[test]
    fn relative_path_entries_are_taken_from_the_start_directory() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("bin")).unwrap();
        let want = file(&tmp.path().join("bin"), "tool", 0o755);
        let got = search_path("tool".as_ref(), tmp.path(), Some("bin".as_ref())).unwrap();
        assert_eq!(got, want);
    }

    #[test]
    fn a_missing_bare_name_says_what_was_found_instead() {
        let tmp = tempfile::tempdir().unwrap();
        file(tmp.path(), "prog", 0o644);
        let path = tmp.path().as_os_str();
        let e = search_path("prog".as_ref(), Path::new("/"), Some(path)).unwrap_err();
        assert!(e.starts_with("Unable to spawn prog because:\n"), "{e}");
        assert!(e.contains("prog exists but is not executable"), "{e}");
        assert!(e.contains("No viable candidates found in PATH"), "{e}");
        let e = search_path("prog".as_ref(), Path::new("/"), None).unwrap_err();
        assert!(e.ends_with("Unable to resolve the PATH"), "{e}");
    }

    #[test]
    fn dot_slash_names_are_looked_up_in_the_start_directory_only() {
        let tmp = tempfile::tempdir().unwrap();
        let want = file(tmp.path(), "run.sh", 0o755);
        let got = search_path("./run.sh".as_ref(), tmp.path(), Some("/bin".as_ref())).unwrap();
        assert_eq!(got, want);
        let e = search_path("./sh".as_ref(), tmp.path(), Some("/bin".as_ref())).unwrap_err();
        assert!(e.ends_with("because it does not exist"), "{e}");
        file(tmp.path(), "plain", 0o644);
        let e = search_path("./plain".as_ref(), tmp.path(), None).unwrap_err();
        assert!(e.ends_with("because it is not executable"), "{e}");
        let e = search_path("..".as_ref(), tmp.path(), None).unwrap_err();
        assert!(e.ends_with("because it is a directory"), "{e}");
    }

    #[test]
    fn an_absolute_name_is_used_as_it_is_or_refused_with_the_reason() {
        let tmp = tempfile::tempdir().unwrap();
        let prog = file(tmp.path(), "prog", 0o755);
        assert_eq!(
            search_path(prog.as_os_str(), Path::new("/"), None).unwrap(),
            prog
        );
        let e = search_path("/nonexistent/program-xyz".as_ref(), Path::new("/"), None).unwrap_err();
        assert!(e.contains("doesn't exist on the filesystem"), "{e}");
        let plain = file(tmp.path(), "plain", 0o644);
        let e = search_path(plain.as_os_str(), Path::new("/"), None).unwrap_err();
        assert!(e.contains("because it is not executable"), "{e}");
        let e = search_path(tmp.path().as_os_str(), Path::new("/"), None).unwrap_err();
        assert!(e.ends_with("because it is a directory"), "{e}");
    }

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    #[test]
    fn the_environment_drops_the_daemons_own_and_takes_the_specs() {
        let base = vars(&[
            ("PATH", "/usr/bin"),
            ("TUIOS_LOG", "debug"),
            ("TMUX", "/tmp/tmux-0/default,1,0"),
            ("NOTIFY_SOCKET", "/run/systemd/notify"),
            ("TERM", "screen"),
            ("SHELL", "/bin/zsh"),
        ]);
        let extra = vec![
            ("TERM".to_string(), "xterm-256color".to_string()),
            ("TUIOS_SESSION".to_string(), "work".to_string()),
        ];
        let env = window_env(base.into_iter(), &extra, || unreachable!("SHELL is set"));
        let got: Vec<(&str, &str)> = env
            .iter()
            .map(|(k, v)| (k.to_str().unwrap(), v.to_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("PATH", "/usr/bin"),
                ("SHELL", "/bin/zsh"),
                ("TERM", "xterm-256color"),
                ("TUIOS_SESSION", "work"),
            ]
        );
    }

    #[test]
    fn a_missing_shell_variable_is_the_login_shell() {
        let env = window_env(vars(&[("HOME", "/h")]).into_iter(), &[], || {
            "/bin/fish".into()
        });
        assert_eq!(env.get(OsStr::new("SHELL")).unwrap(), "/bin/fish");
    }

    #[test]
    fn the_start_directory_falls_back_to_home_then_passwd_then_root() {
        let tmp = tempfile::tempdir().unwrap();
        let env: BTreeMap<OsString, OsString> = vars(&[("HOME", "/home/u")]).into_iter().collect();
        let no_passwd = || None;
        assert_eq!(start_dir(Some(tmp.path()), &env, no_passwd), tmp.path());
        let missing = tmp.path().join("gone");
        assert_eq!(
            start_dir(Some(&missing), &env, no_passwd),
            Path::new("/home/u")
        );
        assert_eq!(start_dir(None, &env, no_passwd), Path::new("/home/u"));
        let empty: BTreeMap<OsString, OsString> = vars(&[("HOME", "")]).into_iter().collect();
        assert_eq!(
            start_dir(None, &empty, || Some("/home/pw".into())),
            Path::new("/home/pw")
        );
        assert_eq!(start_dir(None, &BTreeMap::new(), no_passwd), Path::new("/"));
    }
}
