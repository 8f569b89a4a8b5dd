//! `[hooks]` of config.toml: shell commands run when something happens in the attached session.
//! The event names and `TUIOS_*` variables are the Go TUIOS's, so its users' configurations
//! work unchanged, and as there they run in the client (once per attached client). Each runs
//! with `sh -c` in a process group of its own, detached from the terminal (its input and output
//! go to /dev/null), under a time limit; the run loop only starts them and never waits.
//!
//! What happened is found by comparing what the client knows before and after a change
//! ([`Snapshot`], [`changes`]), a pure function, so every event is testable without a terminal.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use config::HOOK_EVENTS;
use figment::providers::{Format, Toml};
use figment::Figment;
use protocol::attach::SessionView;
use serde::Deserialize;

/// How long a hook may run before its process group is killed: long enough for a notification
/// or a log line, short enough that a hung one does not linger.
const TIME_LIMIT: Duration = Duration::from_secs(10);
/// Hooks running at once. One more is dropped (with a log line) rather than queued: a burst of
/// events (a layout with forty windows opening) must not fork forty shells behind each other.
const RUNNING_MAX: usize = 16;
/// How long the client, as it exits, gives the hooks still running (`after-detach` among
/// them) before it ends them, so none outlives the client without a limit.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How often a hook's watcher looks whether it ended.
const WATCH_EVERY: Duration = Duration::from_millis(50);

/// What the client knows that hooks react to.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Snapshot {
    pub session: String,
    pub workspace: i64,
    pub focused: Option<String>,
    /// Window id -> what a hook is told about it.
    pub windows: BTreeMap<String, WindowFacts>,
    /// `bsp` when the current workspace tiles, else `floating`.
    pub layout: &'static str,
    /// The outer terminal's size.
    pub size: (u16, u16),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct WindowFacts {
    pub name: String,
    pub workspace: i64,
    pub agent_state: String,
}

impl Snapshot {
    pub fn of(session: &SessionView, layout: &'static str, size: (u16, u16)) -> Snapshot {
        Snapshot {
            session: session.name.clone(),
            workspace: session.current_workspace,
            focused: session.focused.clone(),
            windows: session
                .windows
                .iter()
                .map(|w| {
                    let facts = WindowFacts {
                        name: w.display_name.clone(),
                        workspace: w.workspace,
                        agent_state: w.agent_state.clone(),
                    };
                    (w.id.clone(), facts)
                })
                .collect(),
            layout,
            size,
        }
    }

    /// The variables every hook gets, for `event` about `window` (if any).
    fn env(&self, event: &str, window: Option<&str>) -> Vec<(String, String)> {
        let mut env = vec![
            ("TUIOS_EVENT".to_string(), event.to_string()),
            ("TUIOS_SESSION_ID".into(), self.session.clone()),
            ("TUIOS_WORKSPACE".into(), self.workspace.to_string()),
            ("TUIOS_LAYOUT".into(), self.layout.to_string()),
            ("TUIOS_WIDTH".into(), self.size.0.to_string()),
            ("TUIOS_HEIGHT".into(), self.size.1.to_string()),
        ];
        if let Some(id) = window {
            env.push(("TUIOS_WINDOW_ID".into(), id.to_string()));
            if let Some(w) = self.windows.get(id) {
                env.push(("TUIOS_WINDOW_NAME".into(), w.name.clone()));
            }
        }
        env
    }
}

/// One hook event to run, with its variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Fire {
    pub event: &'static str,
    pub env: Vec<(String, String)>,
}

impl Fire {
    #[cfg(test)]
    fn get(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The events between two looks at the session, in a stable order: closes before opens, so a
/// hook sees the windows it is told about; agent states last.
pub fn changes(prev: &Snapshot, next: &Snapshot) -> Vec<Fire> {
    let mut out = Vec::new();
    if prev.session != next.session {
        // Another session (a reconnect that attached elsewhere): not a run of changes.
        return out;
    }
    for id in prev
        .windows
        .keys()
        .filter(|id| !next.windows.contains_key(*id))
    {
        // Told with the facts it had, since the window is gone from `next`.
        let mut env = prev.env("after-close-window", Some(id));
        env.retain(|(k, _)| k != "TUIOS_WORKSPACE");
        env.push(("TUIOS_WORKSPACE".into(), next.workspace.to_string()));
        out.push(Fire {
            event: "after-close-window",
            env,
        });
    }
    for id in next
        .windows
        .keys()
        .filter(|id| !prev.windows.contains_key(*id))
    {
        out.push(Fire {
            event: "after-new-window",
            env: next.env("after-new-window", Some(id)),
        });
    }
    if prev.workspace != next.workspace {
        let mut env = next.env("after-workspace-switch", next.focused.as_deref());
        env.push(("TUIOS_PREV_WORKSPACE".into(), prev.workspace.to_string()));
        out.push(Fire {
            event: "after-workspace-switch",
            env,
        });
    }
    if prev.focused != next.focused {
        if let Some(id) = &next.focused {
            out.push(Fire {
                event: "after-focus-change",
                env: next.env("after-focus-change", Some(id)),
            });
        }
    }
    if prev.layout != next.layout {
        out.push(Fire {
            event: "after-layout-change",
            env: next.env("after-layout-change", None),
        });
    }
    if prev.size != next.size {
        out.push(Fire {
            event: "after-resize",
            env: next.env("after-resize", None),
        });
    }
    for (id, w) in &next.windows {
        let Some(before) = prev.windows.get(id) else {
            continue;
        };
        if before.agent_state != w.agent_state {
            let mut env = next.env("after-agent-state", Some(id));
            env.push(("TUIOS_AGENT_STATE".into(), w.agent_state.clone()));
            env.push(("TUIOS_AGENT_PREV_STATE".into(), before.agent_state.clone()));
            out.push(Fire {
                event: "after-agent-state",
                env,
            });
        }
    }
    out
}

/// A hook's commands: one string or a list, each run in turn by its own shell.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Commands {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    hooks: BTreeMap<String, Commands>,
}

/// The configured hooks, the last look at the session, and the ones running.
#[derive(Default)]
pub struct Hooks {
    commands: BTreeMap<&'static str, Vec<String>>,
    last: Option<Snapshot>,
    /// What the last look was taken at (session version, layout, size): the loop runs far
    /// more often than the session changes, and an unchanged look needs no snapshot.
    looked_at: Option<(u64, &'static str, (u16, u16))>,
    running: Arc<AtomicUsize>,
    children: Vec<Arc<Watched>>,
}

/// A started hook, watched by its own thread, ended from there or at the client's exit.
struct Watched {
    pgid: i32,
    done: std::sync::atomic::AtomicBool,
}

impl Hooks {
    /// The `[hooks]` of `config` (missing file or table: no hooks), with a warning for each
    /// thing that was not understood.
    pub fn load(config: Option<&Path>) -> (Hooks, Vec<String>) {
        let mut warnings = Vec::new();
        let Some(path) = config.filter(|p| p.exists()) else {
            return (Hooks::default(), warnings);
        };
        let file: ConfigFile = match Figment::from(Toml::file(path)).extract() {
            Ok(f) => f,
            Err(e) => {
                warnings.push(format!("{}: [hooks] not read: {e}", path.display()));
                return (Hooks::default(), warnings);
            }
        };
        let mut hooks = Hooks::default();
        for (event, commands) in file.hooks {
            let Some(known) = HOOK_EVENTS.iter().find(|e| **e == event) else {
                warnings.push(format!(
                    "{}: [hooks] has no event {event:?} (known: {})",
                    path.display(),
                    HOOK_EVENTS.join(", ")
                ));
                continue;
            };
            let list = match commands {
                Commands::One(c) => vec![c],
                Commands::Many(v) => v,
            };
            let list: Vec<String> = list.into_iter().filter(|c| !c.trim().is_empty()).collect();
            if !list.is_empty() {
                hooks.commands.insert(known, list);
            }
        }
        (hooks, warnings)
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// The session as it is now: runs the hooks of what changed since the last look. The
    /// first look is the attach.
    pub fn look(&mut self, session: &SessionView, layout: &'static str, size: (u16, u16)) {
        let at = (session.version, layout, size);
        if self.is_empty() || self.looked_at == Some(at) {
            return;
        }
        self.looked_at = Some(at);
        self.observe(Snapshot::of(session, layout, size));
    }

    fn observe(&mut self, now: Snapshot) {
        if self.last.as_ref() == Some(&now) {
            return;
        }
        let fires = match &self.last {
            None => vec![Fire {
                event: "after-attach",
                env: now.env("after-attach", now.focused.as_deref()),
            }],
            Some(prev) => changes(prev, &now),
        };
        self.last = Some(now);
        for fire in fires {
            self.run(&fire);
        }
    }

    /// The client is leaving: `after-detach` runs (when the attach ended by a detach), then
    /// every hook still running gets a short grace and is ended.
    pub fn exit(&mut self, detached: bool) {
        if detached {
            if let Some(last) = &self.last {
                let fire = Fire {
                    event: "after-detach",
                    env: last.env("after-detach", last.focused.as_deref()),
                };
                self.run(&fire);
            }
        }
        let deadline = Instant::now() + EXIT_GRACE;
        while self.running.load(Ordering::Acquire) > 0 && Instant::now() < deadline {
            std::thread::sleep(WATCH_EVERY);
        }
        for w in &self.children {
            if !w.done.load(Ordering::Acquire) {
                kill_group(w.pgid);
            }
        }
    }

    fn run(&mut self, fire: &Fire) {
        let Some(commands) = self.commands.get(fire.event) else {
            return;
        };
        self.children.retain(|w| !w.done.load(Ordering::Acquire));
        for command in commands.clone() {
            if self.running.load(Ordering::Acquire) >= RUNNING_MAX {
                tracing::warn!(
                    event = fire.event,
                    "hook dropped: {RUNNING_MAX} hooks already running"
                );
                continue;
            }
            match start(&command, &fire.env) {
                Ok(child) => self.watch(child, fire.event),
                Err(e) => tracing::warn!(event = fire.event, "hook {command:?} did not start: {e}"),
            }
        }
    }

    /// A thread per hook waits for it, reaping it, and kills its group at the time limit.
    fn watch(&mut self, mut child: Child, event: &'static str) {
        let watched = Arc::new(Watched {
            pgid: child.id() as i32,
            done: Default::default(),
        });
        self.children.push(watched.clone());
        let running = self.running.clone();
        running.fetch_add(1, Ordering::AcqRel);
        std::thread::spawn(move || {
            let deadline = Instant::now() + TIME_LIMIT;
            loop {
                match child.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) if Instant::now() >= deadline => {
                        tracing::warn!(event, "hook ran past {TIME_LIMIT:?}: ended");
                        kill_group(watched.pgid);
                        let _ = child.wait();
                        break;
                    }
                    Ok(None) => std::thread::sleep(WATCH_EVERY),
                }
            }
            watched.done.store(true, Ordering::Release);
            running.fetch_sub(1, Ordering::AcqRel);
        });
    }
}

fn start(command: &str, env: &[(String, String)]) -> std::io::Result<Child> {
    use std::os::unix::process::CommandExt;
    Command::new("sh")
        .arg("-c")
        .arg(command)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own group, so the time limit ends whatever it started too.
        .process_group(0)
        .spawn()
}

fn kill_group(pgid: i32) {
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(test)]
#[path = "hooks_tests.rs"]
mod tests;
