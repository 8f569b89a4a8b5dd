//! Restoring, inside the Session actor.
use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::path::Path;

use actix::prelude::*;
use protocol::VerbError;

use super::format::{SavedSession, SavedWindow};
use crate::session::{NewWindowSpec, Session};
use crate::Services;

/// The session option listing commands that may be re-run when a session is restored.
pub const RESURRECT_COMMANDS_OPTION: &str = "daemon.resurrect_commands";

/// Programs that are shells: a window running one is restored by running it again.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "fish", "dash", "ksh", "mksh", "oksh", "tcsh", "csh", "nu", "elvish",
    "xonsh", "pwsh", "ash", "yash",
];

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
            .filter(|(k, _)| crate::session::workspaces::check_workspace(**k).is_ok())
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
/// command may not run again), or, given its PTY kept through a crash, the program still
/// running there. Answers a line for the restore report when something differed.
#[derive(Message)]
#[rtype(result = "Result<Option<String>, VerbError>")]
pub struct RestoreWindow(pub SavedWindow, pub Option<OwnedFd>);

impl Handler<RestoreWindow> for Session {
    type Result = ResponseActFuture<Self, Result<Option<String>, VerbError>>;
    fn handle(&mut self, msg: RestoreWindow, ctx: &mut Self::Context) -> Self::Result {
        let RestoreWindow(w, kept) = msg;
        // Its PTY survived a crash of the previous daemon: take the running program over.
        if let Some(master) = kept {
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
        let workspace = if crate::session::workspaces::check_workspace(w.workspace).is_ok() {
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
        if crate::session::workspaces::check_workspace(msg.current_workspace).is_ok() {
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
        master: OwnedFd,
        ctx: &mut Context<Session>,
    ) -> Option<String> {
        let label = w.name.clone().unwrap_or_else(|| w.id.clone());
        let Some(pid) = crate::pty::pty_session(&master) else {
            tracing::info!(window = %label, "a kept PTY has no program any more; restoring the window anew");
            self.services.ptys.unstore_pty(&w.id);
            return None;
        };
        let (cols, rows) = crate::pty::pty_winsize(&master).unwrap_or((self.width, self.height));
        let handed = crate::handover::format::HandedWindow {
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
            // A crash ended its writer mid-file: the recording is not carried on.
            recording: None,
        };
        let adopt = crate::session::handover::AdoptWindow {
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

    #[test]
    fn command_words() {
        assert_eq!(shell_words(&["vim".into(), "a b".into()]), "vim 'a b'");
        assert_eq!(
            allowed_commands("htop, top  btop").collect::<Vec<_>>(),
            ["htop", "top", "btop"]
        );
    }
}
