//! The run loop's side of project tapes: looking for `.tuios.tape` where the focused window's
//! program works (file work the client's state does not do), and carrying out what the user
//! decided: trust-store writes, and the run itself, a child `tuios tape run --attached` told
//! the hash of the bytes the user read, so a file changed since is refused rather than run.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use protocol::attach::NoticeLevel;

use super::app::App;
use super::model::{TapeDecision, TapeOffer};
use crate::tape::trust::{self, Status, TrustStore, PROJECT_TAPE};

pub struct ProjectTapes {
    socket: PathBuf,
    store: Option<PathBuf>,
    /// The focused window and its directory when last looked at.
    looked: Option<(String, String)>,
    /// Tapes (path, hash) this client already told about: coming back is not a new notice.
    told: HashSet<(PathBuf, String)>,
    warned_store: bool,
    /// The project tape running now, one at a time.
    running: Option<(Child, PathBuf)>,
}

impl ProjectTapes {
    pub fn new(socket: &Path) -> ProjectTapes {
        ProjectTapes {
            socket: socket.to_path_buf(),
            store: trust::default_store_path(),
            looked: None,
            told: HashSet::new(),
            warned_store: false,
            running: None,
        }
    }

    /// One turn of the run loop: decisions first, then a finished run, then a look.
    pub fn tick(&mut self, app: &mut App) {
        for decision in app.take_tape_decisions() {
            self.carry_out(app, decision);
        }
        self.reap(app);
        if app.take_tape_look_request() {
            // Asked for: look whatever was seen before, and open what is found.
            self.looked = None;
            if !self.look_now(app, true) {
                app.no_project_tape();
            }
        } else {
            self.look_now(app, false);
        }
    }

    fn load_store(&mut self, app: &mut App) -> Option<TrustStore> {
        let store = TrustStore::load(self.store.as_deref()?);
        if let Some(w) = &store.warning {
            if !self.warned_store {
                self.warned_store = true;
                app.notice(NoticeLevel::Warning, w.clone());
            }
        }
        Some(store)
    }

    /// Looks for a tape where the focused window works, if that changed (or `asked`: leader
    /// T, which also opens the review). Returns whether a tape was there.
    fn look_now(&mut self, app: &mut App, asked: bool) -> bool {
        if app.settings().tape_autorun == "off" && !asked {
            return false;
        }
        let Some((id, cwd)) = app.focused_cwd() else {
            return false;
        };
        let key = (id.to_string(), cwd.to_string());
        if self.looked.as_ref() == Some(&key) {
            return false;
        }
        let tape = Path::new(cwd).join(PROJECT_TAPE);
        self.looked = Some(key);
        if std::fs::symlink_metadata(&tape).is_err() {
            return false;
        }
        let Some(store) = self.load_store(app) else {
            return false;
        };
        let checked = store.check(&tape);
        let offer = TapeOffer {
            path: checked.path.clone(),
            sha256: checked.sha256.clone(),
            content: checked.content,
        };
        let first = self
            .told
            .insert((checked.path.clone(), checked.sha256.clone()));
        let settings = app.settings();
        let auto = settings.tape_autorun == "auto" && !asked;
        let review = (settings.tape_auto_review && first) || asked;
        match checked.status {
            Status::Denied => {
                if asked {
                    app.notice(
                        NoticeLevel::Info,
                        format!("{} is marked never to run", checked.path.display()),
                    );
                }
            }
            Status::Ineligible(why) => {
                if first || asked {
                    app.notice(
                        NoticeLevel::Warning,
                        format!(
                            "the project tape {} will not run: {why}",
                            checked.path.display()
                        ),
                    );
                }
            }
            Status::Trusted if auto => self.start(app, offer),
            Status::Trusted | Status::Untrusted => app.offer_project_tape(offer, review, first),
        }
        true
    }

    fn carry_out(&mut self, app: &mut App, decision: TapeDecision) {
        match decision {
            TapeDecision::Run(offer) => self.start(app, offer),
            TapeDecision::TrustAndRun(offer) => {
                let Some(mut store) = self.load_store(app) else {
                    return;
                };
                if let Err(e) = store.trust(&offer.path, &offer.sha256) {
                    app.notice(NoticeLevel::Error, e);
                    return;
                }
                self.start(app, offer);
            }
            TapeDecision::Never(path) => {
                let Some(mut store) = self.load_store(app) else {
                    return;
                };
                match store.deny(&path) {
                    Ok(()) => app.notice(
                        NoticeLevel::Info,
                        format!("{} will not be offered again", path.display()),
                    ),
                    Err(e) => app.notice(NoticeLevel::Error, e),
                }
            }
        }
    }

    fn start(&mut self, app: &mut App, offer: TapeOffer) {
        if self.running.is_some() {
            app.notice(NoticeLevel::Warning, "a project tape is running already");
            return;
        }
        let exe = match std::env::current_exe() {
            Ok(e) => e,
            Err(e) => {
                app.notice(
                    NoticeLevel::Error,
                    format!("cannot find tuios to run the tape: {e}"),
                );
                return;
            }
        };
        let spawned = Command::new(exe)
            .arg("--socket")
            .arg(&self.socket)
            .args(["tape", "run", "--attached", "-s", app.session_name()])
            .arg("--sha256")
            .arg(&offer.sha256)
            .arg(&offer.path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn();
        match spawned {
            Ok(child) => {
                app.notice(
                    NoticeLevel::Info,
                    format!("running the project tape {}", offer.path.display()),
                );
                self.running = Some((child, offer.path));
            }
            Err(e) => app.notice(NoticeLevel::Error, format!("the tape did not start: {e}")),
        }
    }

    fn reap(&mut self, app: &mut App) {
        let Some((child, path)) = self.running.as_mut() else {
            return;
        };
        let status = match child.try_wait() {
            Ok(Some(status)) => status,
            Ok(None) => return,
            Err(_) => return,
        };
        let mut said = String::new();
        if let Some(mut err) = child.stderr.take() {
            // The child has exited: this reads what it left in the pipe, then the end.
            let _ = err.by_ref().take(64 * 1024).read_to_string(&mut said);
        }
        if status.success() {
            app.notice(
                NoticeLevel::Info,
                format!("the project tape {} ran", path.display()),
            );
        } else {
            let why = said
                .lines()
                .next()
                .unwrap_or("it failed")
                .trim_start_matches("error: ");
            app.notice(
                NoticeLevel::Error,
                format!("the project tape {} stopped: {why}", path.display()),
            );
        }
        self.running = None;
    }
}

impl Drop for ProjectTapes {
    /// A tape still running when the client leaves would only meet `needs_client`.
    fn drop(&mut self) {
        if let Some((mut child, _)) = self.running.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
