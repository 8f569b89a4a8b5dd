//! Sessions that survive a restart: each session's structure is saved to
//! `<state dir>/<name>.json` and brought back by a later daemon.
//!
//! Saving: a session compares its structure (names, workspaces, windows, options, layout) with
//! what it last handed to the writer a second after anything asked it to change (every handler
//! that can change the structure, or the place its change lands, calls [`Session::save_soon`];
//! a restore calls it once, when it finishes); only a change is written, so a
//! session is written at most once per second. The check looks again for [`LINGER_CHECKS`]
//! more seconds after the last change, for changes that land after their message (a window
//! whose program is still starting), then stops: an idle session has no timer at all. The
//! working directories come from /proc, which is read on the blocking pool with the write, and
//! are refreshed [`CWD_REFRESH`] after a window's output (a `cd` at a prompt prints the next
//! prompt) even without a structural change. Shutdown writes once more, and kill-session
//! deletes the file. Writes are atomic (temporary file in the same directory, fsync, rename,
//! directory fsync) and private (0600 in a 0700 directory).
//!
//! Scrollback is not saved: it holds whatever went through the terminal (passwords typed at a
//! prompt that echoed, tokens printed by tools), and a file under ~/.local/state outlives the
//! session by design.
//!
//! The format carries a `version`. A newer daemon reads older files through [`migrate`]; a file
//! from a newer tuios, or one that is corrupt or truncated, is reported (list-sessions'
//! `unreadable`) and left alone, never deleted and never allowed to stop other sessions.

use std::collections::BTreeMap;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use actix::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{NewWindowSpec, Session};
use crate::Services;
use protocol::VerbError;

/// The format this daemon writes; it reads every version up to this one.
pub const FORMAT_VERSION: u64 = 1;
/// How long after a change the session looks for it: the debounce bound (one write per second).
pub const SAVE_INTERVAL: Duration = Duration::from_secs(1);
/// Checks that found nothing before the session stops looking until the next change.
pub const LINGER_CHECKS: u32 = 3;
/// Working directories are looked up again this long after a window's output without a
/// structural change (a `cd` at a prompt prints the next prompt): an idle session costs no
/// /proc reads (or, with the programs kept across a crash, no screen copies) and no wake-ups.
pub const CWD_REFRESH: Duration = Duration::from_secs(10);
/// A saved file larger than this is not read (a session's structure is a few kilobytes).
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// The session option listing commands that may be re-run when a session is restored.
pub const RESURRECT_COMMANDS_OPTION: &str = "daemon.resurrect_commands";

/// Programs that are shells: a window running one is restored by running it again.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "oksh", "tcsh", "csh", "nu", "elvish",
    "xonsh", "pwsh", "ash", "yash",
];

static STORE: OnceLock<PathBuf> = OnceLock::new();

/// Turn saving and restoring on, with saved sessions in `dir`. Called once by the daemon before
/// the actors start; without it (embedded or test actor systems) nothing is saved or restored.
pub fn configure(dir: PathBuf) {
    if STORE.set(dir).is_err() {
        tracing::warn!("the sessions directory was configured twice; keeping the first");
    }
}

/// The sessions directory, when saving is on.
pub fn store_dir() -> Option<&'static Path> {
    STORE.get().map(PathBuf::as_path)
}

// ---------------------------------------------------------------------------------------------
// The file format.

/// One saved session, as written to `<name>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedSession {
    pub version: u64,
    /// Unix seconds of the write.
    #[serde(default)]
    pub saved_at: u64,
    pub name: String,
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub created: u64,
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default)]
    pub accent: Option<String>,
    pub width: u16,
    pub height: u16,
    pub current_workspace: i64,
    #[serde(default)]
    pub workspace_names: BTreeMap<i64, String>,
    #[serde(default)]
    pub workspace_order: Option<Vec<i64>>,
    /// The window each workspace last had focused.
    #[serde(default)]
    pub workspace_focus: BTreeMap<i64, String>,
    #[serde(default)]
    pub focused: Option<String>,
    /// Option values the session set, by full path.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
    /// The attached client's layout blob, opaque to the daemon.
    #[serde(default)]
    pub layout: Option<String>,
    /// In window order.
    #[serde(default)]
    pub windows: Vec<SavedWindow>,
}

/// One saved window.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedWindow {
    pub id: String,
    /// The name the user gave it, if any.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub workspace: i64,
    #[serde(default)]
    pub minimized: bool,
    /// Working directory of the window's foreground process when last saved.
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    /// The argv the window was created with; empty for a shell window.
    #[serde(default)]
    pub command: Vec<String>,
    #[serde(default)]
    pub remain: bool,
    /// The visible screen as replay bytes (`Emulator::replay` without scrollback), so a window
    /// taken over after a crash shows something until its program draws again. Only the screen:
    /// scrollback is never saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screen: Option<String>,
}

/// Parse a saved file, migrating older formats. The error is a reason for a person to read.
pub fn parse(bytes: &[u8]) -> Result<SavedSession, String> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        if e.is_eof() {
            format!("the file ends early (truncated?): {e}")
        } else {
            format!("not valid JSON: {e}")
        }
    })?;
    let Some(version) = value.get("version").and_then(Value::as_u64) else {
        return Err("no \"version\" field: not a tuios session file".to_string());
    };
    let current = migrate(value, version)?;
    serde_json::from_value(current)
        .map_err(|e| format!("format version {version} but a field is wrong: {e}"))
}

/// Bring a file of format `version` up to [`FORMAT_VERSION`], one step at a time. When the
/// format changes, bump the constant and add the step from the previous version here, so that
/// every older file keeps loading.
fn migrate(value: Value, version: u64) -> Result<Value, String> {
    match version {
        0 => Err("format version 0 does not exist".to_string()),
        FORMAT_VERSION => Ok(value),
        n if n > FORMAT_VERSION => Err(format!(
            "written by a newer tuios (format version {n}; this one reads up to \
             {FORMAT_VERSION}); upgrade tuios, or remove the file to forget the session"
        )),
        // Unreachable while FORMAT_VERSION is 1; the place for `1 => migrate(v1_to_v2(value), 2)`.
        n => Err(format!("format version {n} is not supported")),
    }
}

/// The file of session `name` in `dir`.
pub fn file_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.json"))
}

/// Write `bytes` as `name`'s file: temporary file in the same directory, fsync, rename over the
/// old one, fsync the directory. A crash at any point leaves the old file or the new one whole.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    ensure_dir(dir)?;
    let path = file_path(dir, name);
    let tmp = dir.join(format!("{name}.json.tmp-{}", std::process::id()));
    // A leftover of a crashed write; unlink never follows a link.
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, &path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Delete `name`'s file (a missing one is fine) and make the deletion durable.
pub fn remove(dir: &Path, name: &str) -> io::Result<()> {
    match fs::remove_file(file_path(dir, name)) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn ensure_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    // The umask may have taken bits away; the owner needs all three.
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Remove temporary files that writes interrupted by a crash left behind (`<name>.json.tmp-<pid>`);
/// the saved file beside each is whole. Blocking: run it on the blocking pool, at start only.
pub fn remove_leftovers(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        if name.to_string_lossy().contains(".json.tmp-") {
            match fs::remove_file(entry.path()) {
                Ok(()) => {
                    tracing::debug!(file = %entry.path().display(), "removed an unfinished save")
                }
                Err(e) => {
                    tracing::warn!(file = %entry.path().display(), "cannot remove an unfinished save: {e}")
                }
            }
        }
    }
}

/// One `*.json` file of the sessions directory: its session, or why it cannot be used.
#[derive(Debug, Clone)]
pub struct ScanEntry {
    pub file: PathBuf,
    pub session: Result<SavedSession, String>,
}

/// Every saved session in `dir`, sorted by file name. A missing directory holds none; a file
/// that cannot be used is listed with the reason. Blocking: run it on the blocking pool.
pub fn scan(dir: &Path) -> Vec<ScanEntry> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            return vec![ScanEntry {
                file: dir.to_path_buf(),
                session: Err(format!("cannot read the sessions directory: {e}")),
            }]
        }
    };
    let mut out: Vec<ScanEntry> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|file| {
            let session = load(&file);
            ScanEntry { file, session }
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

fn load(file: &Path) -> Result<SavedSession, String> {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(file)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => "it is a symbolic link, which tuios never follows".to_string(),
            _ => format!("cannot open it: {e}"),
        })?;
    let meta = f
        .metadata()
        .map_err(|e| format!("cannot inspect it: {e}"))?;
    if !meta.is_file() {
        return Err("it is not a regular file".to_string());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "it is {} bytes, more than the {MAX_FILE_BYTES} a session file may have",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    let session = parse(&bytes)?;
    if session.name != stem {
        return Err(format!(
            "it holds session {:?}, not {stem:?} as its name says",
            session.name
        ));
    }
    protocol::binary::validate_session_name(&session.name)?;
    if session.name.is_empty() {
        return Err("the session name is empty".to_string());
    }
    Ok(session)
}

// ---------------------------------------------------------------------------------------------
// Saving, inside the Session actor.

/// A session's saving state.
#[derive(Default)]
pub struct SaveState {
    /// The session was brought back from a file.
    pub restored: bool,
    /// A client attached since: `restored` is no longer reported (it still decides saving).
    pub attached_since: bool,
    /// Windows are still being restored: the file must not be replaced by a partial table.
    restoring: bool,
    /// No more saving: the session is ending.
    stopped: bool,
    /// The structure last handed to the writer (working directories left out).
    last: Option<SavedSession>,
    /// The next check, when one is scheduled.
    check: Option<SpawnHandle>,
    /// When the scheduled check runs (`agent::now_ms`), to bring it forward.
    check_at_ms: u64,
    /// Checks in a row that found no change.
    quiet: u32,
    /// When working directories (and kept screens) were last read for a write (`agent::now_ms`).
    read_ms: u64,
    generation: u64,
    writer: Arc<Mutex<Writer>>,
}

/// What the blocking writes of one session share; the lock also keeps them one at a time.
#[derive(Default)]
struct Writer {
    /// The session was killed: its file is gone and must not come back.
    forgotten: bool,
    /// The newest generation written; an older job that lost the race is dropped.
    generation: u64,
    /// The content last written (without `saved_at`), to skip identical writes.
    last: Option<SavedSession>,
    /// The file is this session's: it was restored from it, or it was checked before the
    /// first write.
    claimed: bool,
}

impl SaveState {
    pub(super) fn stop(&mut self) {
        self.stopped = true;
    }

    fn active(&self) -> bool {
        !self.stopped && !self.restoring && store_dir().is_some()
    }

    /// This session was handed over by a live upgrade: it keeps the `restored` it had, and its
    /// file is already its own (nothing to keep aside before the first write).
    pub(super) fn handed_over(&mut self, restored: bool) {
        self.restored = restored;
        self.writer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .claimed = true;
    }

    pub(super) fn was_restored(&self) -> bool {
        self.restored
    }
}

impl Session {
    /// Something may have changed the structure: look a second from now (and for
    /// [`LINGER_CHECKS`] seconds after that), unless a check is already due sooner.
    pub(super) fn save_soon(&mut self, ctx: &mut Context<Session>) {
        self.saved.quiet = 0;
        self.schedule_check(SAVE_INTERVAL, ctx);
    }

    /// A window printed something: its working directory may have changed. Look once
    /// [`CWD_REFRESH`] has passed since the directories were last read.
    pub(super) fn save_after_output(&mut self, ctx: &mut Context<Session>) {
        let since = crate::agent::now_ms().saturating_sub(self.saved.read_ms);
        let wait = CWD_REFRESH
            .saturating_sub(Duration::from_millis(since))
            .max(SAVE_INTERVAL);
        self.schedule_check(wait, ctx);
    }

    fn schedule_check(&mut self, wait: Duration, ctx: &mut Context<Session>) {
        if !self.saved.active() {
            return;
        }
        let at = crate::agent::now_ms() + wait.as_millis() as u64;
        if let Some(handle) = self.saved.check {
            if self.saved.check_at_ms <= at {
                return;
            }
            ctx.cancel_future(handle);
        }
        self.saved.check_at_ms = at;
        self.saved.check = Some(ctx.run_later(wait, |act, ctx| {
            act.saved.check = None;
            act.save_tick(ctx);
        }));
    }

    /// The structure to save; working directories are filled in later from the returned pids.
    pub(super) fn structure(&self) -> (SavedSession, Vec<i32>) {
        let windows = self
            .windows
            .iter()
            .map(|w| SavedWindow {
                id: w.id.clone(),
                name: w.custom_name.clone(),
                workspace: w.workspace,
                minimized: w.minimized,
                cwd: None,
                command: w.argv.clone(),
                remain: w.remain,
                screen: None,
            })
            .collect();
        let pids = self
            .windows
            .iter()
            .map(|w| {
                if w.exited.is_some() {
                    0
                } else {
                    w.agent.link.pid
                }
            })
            .collect();
        let doc = SavedSession {
            version: FORMAT_VERSION,
            saved_at: 0,
            name: self.name.clone(),
            id: self.id.clone(),
            created: self.created,
            display_name: self.display_name.clone(),
            accent: self.accent.clone(),
            width: self.width,
            height: self.height,
            current_workspace: self.current_workspace,
            workspace_names: self.workspace_names.clone(),
            workspace_order: self.workspace_order.clone(),
            workspace_focus: self
                .workspace_focus
                .iter()
                .map(|(k, v)| (*k, v.clone()))
                .collect(),
            focused: self.focused.clone(),
            options: self.options.clone(),
            layout: self.clients.layout.clone(),
            windows,
        };
        (doc, pids)
    }

    fn save_tick(&mut self, ctx: &mut Context<Session>) {
        if !self.saved.active() {
            return;
        }
        let now = crate::agent::now_ms();
        let read_ms = self.saved.read_ms;
        let output = self
            .windows
            .iter()
            .any(|w| w.agent.link.last_output_ms() >= read_ms);
        let refresh = output && now.saturating_sub(read_ms) >= CWD_REFRESH.as_millis() as u64;
        let (doc, pids) = self.structure();
        if !refresh && self.saved.last.as_ref() == Some(&doc) {
            self.saved.quiet += 1;
            if self.saved.quiet <= LINGER_CHECKS {
                self.schedule_check(SAVE_INTERVAL, ctx);
            } else if output {
                // Output came since the last read: its refresh is still due.
                self.save_after_output(ctx);
            }
            return;
        }
        self.saved.quiet = 0;
        self.schedule_check(SAVE_INTERVAL, ctx);
        self.saved.last = Some(doc.clone());
        self.saved.read_ms = crate::agent::now_ms();
        if !crate::handover::keeps_ptys() {
            self.enqueue_write(doc, pids);
            return;
        }
        // The programs outlive a crash (systemd keeps their terminals): their screens are saved
        // too, so the windows taken over show them until the programs draw again.
        let addrs: Vec<Addr<crate::window::Window>> =
            self.windows.iter().map(|w| w.addr.clone()).collect();
        ctx.spawn(
            async move {
                futures_util::future::join_all(
                    addrs.iter().map(|a| a.send(crate::window::ScreenReplay)),
                )
                .await
            }
            .into_actor(self)
            .map(move |screens, act, _| {
                let mut doc = doc;
                for (w, screen) in doc.windows.iter_mut().zip(screens) {
                    w.screen = screen.ok();
                }
                act.enqueue_write(doc, pids);
            }),
        );
    }

    /// Hand a write to the blocking pool; the handle resolves once it is on disk (or failed).
    fn enqueue_write(
        &mut self,
        doc: SavedSession,
        pids: Vec<i32>,
    ) -> Option<tokio::task::JoinHandle<()>> {
        let dir = store_dir()?.to_path_buf();
        self.saved.generation += 1;
        let generation = self.saved.generation;
        let writer = self.saved.writer.clone();
        let restored = self.saved.restored;
        Some(tokio::task::spawn_blocking(move || {
            let mut doc = doc;
            for (w, pid) in doc.windows.iter_mut().zip(pids) {
                w.cwd = window_cwd(pid);
            }
            let mut state = writer.lock().unwrap_or_else(|p| p.into_inner());
            if state.forgotten || generation < state.generation {
                return;
            }
            if state.last.as_ref() == Some(&doc) {
                return;
            }
            if !state.claimed {
                if !restored {
                    keep_aside(&dir, &doc.name);
                }
                state.claimed = true;
            }
            let mut stamped = doc.clone();
            stamped.saved_at = crate::unix_now_secs();
            let bytes = match serde_json::to_vec_pretty(&stamped) {
                Ok(b) => b,
                Err(e) => {
                    tracing::warn!(session = %doc.name, "cannot encode the session to save it: {e}");
                    return;
                }
            };
            match write_atomic(&dir, &doc.name, &bytes) {
                Ok(()) => {
                    tracing::debug!(session = %doc.name, bytes = bytes.len(), "session saved");
                    state.generation = generation;
                    state.last = Some(doc);
                }
                Err(e) => tracing::warn!(
                    session = %doc.name,
                    dir = %dir.display(),
                    "cannot save the session: {e}"
                ),
            }
        }))
    }
}

/// A new session is about to be saved under a name whose file already exists: a saved session
/// that was not restored (unreadable, from a newer tuios, or put there by hand). It is renamed
/// aside rather than overwritten, so nothing saved is lost silently.
fn keep_aside(dir: &Path, name: &str) {
    let path = file_path(dir, name);
    if fs::symlink_metadata(&path).is_err() {
        return;
    }
    let aside = dir.join(format!("{name}.json.replaced-{}", crate::unix_now_secs()));
    match fs::rename(&path, &aside) {
        Ok(()) => tracing::warn!(
            session = %name,
            kept = %aside.display(),
            "a saved session of this name was not restored; it is kept aside and the new session is saved in its place"
        ),
        Err(e) => tracing::warn!(session = %name, "cannot move the old saved session aside: {e}"),
    }
}

/// The working directory of the terminal's foreground process, else of the window's own
/// program; `None` when neither can be read (the program is gone, or /proc is not there).
fn window_cwd(pid: i32) -> Option<PathBuf> {
    if pid <= 0 {
        return None;
    }
    let fg = crate::agent::proc::foreground_pgid(pid).unwrap_or(pid);
    fs::read_link(format!("/proc/{fg}/cwd"))
        .or_else(|_| fs::read_link(format!("/proc/{pid}/cwd")))
        .ok()
        .filter(|p| p.is_absolute())
}

/// Save now and stop saving: the daemon is shutting down. Resolves once the file is written.
#[derive(Message)]
#[rtype(result = "()")]
pub struct SaveNow;

impl Handler<SaveNow> for Session {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: SaveNow, _: &mut Self::Context) -> Self::Result {
        let job = if self.saved.active() {
            let (doc, pids) = self.structure();
            self.enqueue_write(doc, pids)
        } else {
            None
        };
        self.saved.stop();
        Box::pin(async move {
            if let Some(job) = job {
                let _ = job.await;
            }
        })
    }
}

/// Stop saving and delete the file: the session was killed and must not come back.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Forget;

impl Handler<Forget> for Session {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, _: Forget, _: &mut Self::Context) -> Self::Result {
        self.saved.stop();
        let Some(dir) = store_dir() else {
            return Box::pin(async {});
        };
        let writer = self.saved.writer.clone();
        let name = self.name.clone();
        Box::pin(async move {
            let _ = tokio::task::spawn_blocking(move || {
                let mut state = writer.lock().unwrap_or_else(|p| p.into_inner());
                state.forgotten = true;
                if let Err(e) = remove(dir, &name) {
                    tracing::warn!(session = %name, "cannot delete the saved session: {e}");
                }
            })
            .await;
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Restoring, inside the Session actor.

impl Session {
    /// A session as saved, without its windows (they follow through [`RestoreWindow`]).
    pub fn from_saved(saved: &SavedSession, services: Services) -> Session {
        let mut s = Session::new(
            saved.name.clone(),
            saved.width.max(1),
            saved.height.max(1),
            services,
        );
        if !saved.id.is_empty() {
            s.id = saved.id.clone();
        }
        if saved.created > 0 {
            s.created = saved.created;
        }
        s.display_name = saved.display_name.clone();
        s.accent = saved.accent.clone();
        s.workspace_names = saved
            .workspace_names
            .iter()
            .filter(|(k, _)| super::workspaces::check_workspace(**k).is_ok())
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        s.workspace_order = saved.workspace_order.clone();
        s.options = saved.options.clone();
        s.clients.layout = saved.layout.clone();
        s.saved.restored = true;
        s.saved.restoring = true;
        s
    }

    /// Whether a window's saved command may run again: shells always, anything else only when
    /// the session's [`RESURRECT_COMMANDS_OPTION`] lists its program.
    fn may_rerun(&self, argv: &[String]) -> bool {
        let Some(program) = argv.first() else {
            return true;
        };
        let base = Path::new(program)
            .file_name()
            .map(|b| b.to_string_lossy().into_owned())
            .unwrap_or_default();
        let base = base.trim_start_matches('-');
        if SHELLS.contains(&base) {
            return true;
        }
        let allowed = self
            .options
            .get(RESURRECT_COMMANDS_OPTION)
            .map(String::as_str)
            .unwrap_or("");
        allowed_commands(allowed).any(|a| a == "*" || a == program || a == base)
    }
}

/// The entries of a `daemon.resurrect_commands` value: separated by commas or whitespace.
pub fn allowed_commands(value: &str) -> impl Iterator<Item = &str> {
    value
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
}

/// Bring back one saved window: its program in its directory (or a shell with a note when the
/// command may not run again). Answers a line for the restore report when something differed.
#[derive(Message)]
#[rtype(result = "Result<Option<String>, VerbError>")]
pub struct RestoreWindow(pub SavedWindow);

impl Handler<RestoreWindow> for Session {
    type Result = ResponseActFuture<Self, Result<Option<String>, VerbError>>;
    fn handle(&mut self, msg: RestoreWindow, ctx: &mut Self::Context) -> Self::Result {
        let w = msg.0;
        // Its PTY survived a crash of the previous daemon: take the running program over.
        if let Some(master) = crate::handover::take_survivor(&w.id) {
            if self.index_of(&w.id).is_none() {
                if let Some(done) = self.adopt_survivor(&w, master, ctx) {
                    return Box::pin(fut::ready(Ok(Some(done))));
                }
            }
        }
        let id = if w.id.is_empty() || self.index_of(&w.id).is_some() {
            uuid::Uuid::new_v4().to_string()
        } else {
            w.id.clone()
        };
        let workspace = if super::workspaces::check_workspace(w.workspace).is_ok() {
            w.workspace
        } else {
            0
        };
        // Checked here rather than left to fail the spawn: a directory that is gone costs the
        // window its directory, not its existence.
        let mut note = None;
        let cwd = match &w.cwd {
            Some(dir) if dir.is_dir() => Some(dir.clone()),
            Some(dir) => {
                note = Some(format!(
                    "window {}: directory {} is gone; started in the default one",
                    w.name.as_deref().unwrap_or(&id),
                    dir.display()
                ));
                None
            }
            None => None,
        };
        let held = w.command.clone();
        let rerun = self.may_rerun(&held);
        let command = if rerun {
            held.clone()
        } else {
            note = Some(format!(
                "window {}: {} was not run again (add it to {RESURRECT_COMMANDS_OPTION} to allow it)",
                w.name.as_deref().unwrap_or(&id),
                shell_words(&held)
            ));
            note_then_shell(&held, &self.shell())
        };
        let spec = NewWindowSpec {
            name: w.name.clone(),
            workspace,
            cwd,
            focus: false,
            command,
            remain: w.remain,
            // Extra variables given at creation are not saved (they may hold secrets).
            env: Vec::new(),
        };
        let minimized = w.minimized;
        Box::pin(
            self.spawn_window(id.clone(), spec, true)
                .map(move |res, act, _| {
                    res?;
                    if let Some(i) = act.index_of(&id) {
                        let entry = &mut act.windows[i];
                        entry.minimized = minimized;
                        if !rerun {
                            // A shell now, holding the command for the next restore.
                            entry.argv = held;
                            entry.command = false;
                        }
                    }
                    Ok(note)
                }),
        )
    }
}

impl Session {
    /// The shell a new window of this session runs.
    fn shell(&self) -> String {
        self.options
            .get("appearance.preferred_shell")
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim().to_string())
            .or_else(|| self.services.info.default_shell.clone())
            .or_else(|| std::env::var("SHELL").ok().filter(|s| !s.is_empty()))
            .unwrap_or_else(|| "/bin/sh".to_string())
    }
}

/// An argv that prints a one-line note about `held` in the window, then becomes `shell`.
fn note_then_shell(held: &[String], shell: &str) -> Vec<String> {
    vec![
        "/bin/sh".to_string(),
        "-c".to_string(),
        "printf 'tuios: this window ran %s; it was not run again after the restart\\n' \"$1\"; exec \"$2\""
            .to_string(),
        "tuios-restore".to_string(),
        shell_words(held),
        shell.to_string(),
    ]
}

/// An argv as one line a person can read (and mostly paste).
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The windows are back: apply focus and the current workspace, publish, and start saving.
#[derive(Message)]
#[rtype(result = "()")]
pub struct FinishRestore {
    pub current_workspace: i64,
    pub focused: Option<String>,
    pub workspace_focus: BTreeMap<i64, String>,
}

impl Handler<FinishRestore> for Session {
    type Result = ();
    fn handle(&mut self, msg: FinishRestore, ctx: &mut Self::Context) {
        let before = self.snapshot();
        for (ws, id) in msg.workspace_focus {
            if self.index_of(&id).is_some() {
                self.workspace_focus.insert(ws, id);
            }
        }
        if super::workspaces::check_workspace(msg.current_workspace).is_ok() {
            self.current_workspace = msg.current_workspace;
        }
        self.focused = msg
            .focused
            .filter(|id| self.index_of(id).is_some())
            .or_else(|| self.windows.first().map(|w| w.id.clone()));
        self.saved.restoring = false;
        self.save_soon(ctx);
        self.publish_changes(before);
    }
}

impl Session {
    /// Take over a window whose PTY master the service manager kept through a crash: its
    /// program still runs (it leads the terminal's session). The line for the restore report,
    /// or `None` when the program is gone (the window is then restored as usual).
    fn adopt_survivor(
        &mut self,
        w: &SavedWindow,
        master: std::os::fd::OwnedFd,
        ctx: &mut Context<Session>,
    ) -> Option<String> {
        let label = w.name.clone().unwrap_or_else(|| w.id.clone());
        let Some(pid) = crate::pty::pty_session(&master) else {
            tracing::info!(window = %label, "a kept PTY has no program any more; restoring the window anew");
            crate::handover::unstore_pty(&w.id);
            return None;
        };
        let (cols, rows) = crate::pty::pty_winsize(&master).unwrap_or((self.width, self.height));
        let handed = crate::handover::HandedWindow {
            id: w.id.clone(),
            pty_id: uuid::Uuid::new_v4().to_string(),
            stored_title: w
                .name
                .clone()
                .unwrap_or_else(|| format!("Terminal {}", w.id.get(..8).unwrap_or(&w.id))),
            live_title: None,
            fd: -1,
            pid,
            cols,
            rows,
            scrollback: self.scrollback_lines(),
            replay: w.screen.clone().unwrap_or_default(),
            reaped: false,
            exited: false,
            exit_code: None,
            exit_signal: None,
            failed_frames: 0,
            modes: Default::default(),
            command: !w.command.is_empty(),
        };
        let adopt = super::handover::AdoptWindow {
            window: handed,
            master,
            saved: w.clone(),
            foreign: true,
        };
        match self.adopt_window(adopt, ctx) {
            Ok(()) => Some(format!(
                "window {label}: its program (pid {pid}) survived the crash and was taken over"
            )),
            Err(why) => {
                tracing::warn!(window = %label, "cannot take over a kept PTY: {why}");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SavedSession {
        SavedSession {
            version: FORMAT_VERSION,
            saved_at: 7,
            name: "work".into(),
            id: "abc".into(),
            created: 5,
            display_name: Some("Work".into()),
            accent: Some("#112233".into()),
            width: 100,
            height: 30,
            current_workspace: 2,
            workspace_names: [(2, "code".to_string())].into(),
            workspace_order: Some(vec![2, 1]),
            workspace_focus: [(2, "w1".to_string())].into(),
            focused: Some("w1".into()),
            options: [("appearance.theme".to_string(), "nord".to_string())].into(),
            layout: Some(r#"{"workspaces":{}}"#.into()),
            windows: vec![SavedWindow {
                id: "w1".into(),
                name: Some("editor".into()),
                workspace: 2,
                minimized: true,
                cwd: Some("/tmp".into()),
                command: vec!["vim".into(), "a b".into()],
                remain: false,
                screen: None,
            }],
        }
    }

    #[test]
    fn round_trips() {
        let s = sample();
        let bytes = serde_json::to_vec_pretty(&s).unwrap();
        assert_eq!(parse(&bytes).unwrap(), s);
    }

    #[test]
    fn bad_files_are_explained() {
        let bytes = serde_json::to_vec(&sample()).unwrap();
        let err = parse(&bytes[..bytes.len() / 2]).unwrap_err();
        assert!(err.contains("truncated"), "{err}");
        assert!(parse(b"{nonsense").unwrap_err().contains("JSON"));
        assert!(parse(b"{\"name\":\"x\"}").unwrap_err().contains("version"));
        let mut future = serde_json::to_value(sample()).unwrap();
        future["version"] = (FORMAT_VERSION + 1).into();
        let err = parse(&serde_json::to_vec(&future).unwrap()).unwrap_err();
        assert!(err.contains("newer tuios"), "{err}");
        let mut wrong = serde_json::to_value(sample()).unwrap();
        wrong["windows"] = "no".into();
        assert!(parse(&serde_json::to_vec(&wrong).unwrap()).is_err());
    }

    #[test]
    fn atomic_write_is_private_and_replaces() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state/tuios/sessions");
        write_atomic(&dir, "work", b"one").unwrap();
        write_atomic(&dir, "work", b"two").unwrap();
        assert_eq!(fs::read(file_path(&dir, "work")).unwrap(), b"two");
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            fs::metadata(file_path(&dir, "work")).unwrap().mode() & 0o777,
            0o600
        );
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["work.json"], "no temporary file is left behind");
        fs::write(dir.join("work.json.tmp-12345"), b"half").unwrap();
        remove_leftovers(&dir);
        assert!(!dir.join("work.json.tmp-12345").exists());
        assert!(file_path(&dir, "work").exists());
        remove(&dir, "work").unwrap();
        remove(&dir, "work").unwrap();
        assert!(!file_path(&dir, "work").exists());
    }

    #[test]
    fn scan_reports_bad_files_beside_good_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let good = serde_json::to_vec(&sample()).unwrap();
        fs::write(dir.join("work.json"), &good).unwrap();
        fs::write(dir.join("other.json"), &good).unwrap();
        fs::write(dir.join("cut.json"), &good[..10]).unwrap();
        fs::write(dir.join("ignored.txt"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.join("work.json"), dir.join("link.json")).unwrap();
        let found = scan(dir);
        let by_name = |n: &str| {
            found
                .iter()
                .find(|e| e.file.file_name().unwrap() == n)
                .unwrap_or_else(|| panic!("{n} not scanned"))
        };
        assert!(by_name("work.json").session.is_ok());
        assert!(by_name("other.json")
            .session
            .as_ref()
            .unwrap_err()
            .contains("not \"other\""));
        assert!(by_name("cut.json").session.is_err());
        assert!(by_name("link.json")
            .session
            .as_ref()
            .unwrap_err()
            .contains("symbolic link"));
        assert_eq!(found.len(), 4);
        assert!(scan(&dir.join("missing")).is_empty());
    }

    #[test]
    fn command_words() {
        assert_eq!(shell_words(&["vim".into(), "a b".into()]), "vim 'a b'");
        assert_eq!(
            allowed_commands("htop, top  btop").collect::<Vec<_>>(),
            ["htop", "top", "btop"]
        );
    }
}
