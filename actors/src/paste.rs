//! Pastes from attached clients, checked as a whole before one byte is written (Lumen rules,
//! `protocol::lumen::decide_paste`): a paste with a frame introducer is rejected; into a program
//! with bracketed paste it is sanitised and wrapped; otherwise one with line breaks or controls is
//! held until the user chooses how to deliver it.
use protocol::lumen::{decide_paste, PasteDecision};

pub struct Held {
    pub preview: String,
    pub one_line: String,
    pub has_controls: bool,
}

/// What to do with a paste: write these bytes, hold it for the user's choice, or refuse it.
pub enum PasteAction {
    Write(Vec<u8>),
    Hold(Held),
    Reject(String),
}

/// What to do with `data` for a window with or without bracketed paste, given the user's
/// `choice` for a held paste ("" on the first attempt).
pub fn deliver(data: &[u8], bracketed: bool, choice: &str) -> PasteAction {
    match decide_paste(data, bracketed) {
        PasteDecision::Send(bytes) => PasteAction::Write(bytes),
        PasteDecision::Reject(reason) => PasteAction::Reject(reason),
        PasteDecision::Hold(held) => match choice {
            "send" => PasteAction::Write(held.stripped),
            "one-line" => PasteAction::Write(held.one_line),
            "keep-controls" => PasteAction::Write(held.keep_controls),
            _ => PasteAction::Hold(Held {
                preview: held.preview,
                one_line: String::from_utf8_lossy(&held.one_line).into_owned(),
                has_controls: held.has_controls,
            }),
        },
    }
}
