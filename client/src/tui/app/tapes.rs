//! Project tapes in the client's state: an offer (found by the run loop, which does the file
//! work), its review in the tray, and the decision handed back. Nothing runs from here.

use protocol::attach::NoticeLevel;

use super::App;
use crate::tui::model::{Overlay, TapeDecision, TapeDialog, TapeOffer};

impl App {
    /// A project tape the user has not decided about: opened for review at once when
    /// `review`, else said in a notice when `announce` (leader T reviews it).
    pub fn offer_project_tape(&mut self, offer: TapeOffer, review: bool, announce: bool) {
        let dir = offer
            .path
            .parent()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        self.tape_offer = Some(offer);
        if review {
            self.review_tape();
        } else if announce {
            let leader = self.router.leader.label();
            self.notice(
                NoticeLevel::Info,
                format!("a project tape is in {dir}: {leader} T to read it and decide"),
            );
        }
    }

    /// The review of the last offered tape (leader T).
    pub(super) fn review_tape(&mut self) {
        match self.tape_offer.clone() {
            Some(offer) => {
                self.overlay = Overlay::Tape(TapeDialog { offer, scroll: 0 });
                self.dirty = true;
            }
            // Nothing offered (or decided already): look again where the focused window is.
            None => self.tape_look_asked = true,
        }
    }

    /// Whether leader T asked for a fresh look (taken).
    pub fn take_tape_look_request(&mut self) -> bool {
        std::mem::take(&mut self.tape_look_asked)
    }

    /// The run loop looked and found nothing to offer.
    pub fn no_project_tape(&mut self) {
        self.flash("no project tape here");
    }

    pub(super) fn tape_choice(&mut self, choice: &str) {
        let Overlay::Tape(d) = std::mem::replace(&mut self.overlay, Overlay::None) else {
            return;
        };
        let decision = match choice {
            "run" => TapeDecision::Run(d.offer),
            "trust" => TapeDecision::TrustAndRun(d.offer),
            "never" => TapeDecision::Never(d.offer.path),
            // Not now: the offer stays for leader T.
            _ => return,
        };
        self.tape_offer = None;
        self.tape_decisions.push(decision);
    }

    /// What the user decided since the last call, for the run loop.
    pub fn take_tape_decisions(&mut self) -> Vec<TapeDecision> {
        std::mem::take(&mut self.tape_decisions)
    }

    /// The focused window's id and working directory, when the daemon knows it.
    pub fn focused_cwd(&self) -> Option<(&str, &str)> {
        let id = self.session.focused.as_deref()?;
        let w = self.session.windows.iter().find(|w| w.id == id)?;
        (!w.cwd.is_empty()).then_some((id, w.cwd.as_str()))
    }
}
