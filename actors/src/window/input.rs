//! What goes to the program: bytes, keys and pastes, queued for the PTY in message order.
use actix::prelude::*;
use protocol::VerbError;
use tokio::sync::oneshot;

use super::Window;
use crate::errors;
use crate::pty_input::{Queued, Ticket, WriteJob};

impl Window {
    /// Queue bytes for the PTY now, in message order (so a later message cannot overtake an
    /// earlier one), and resolve once they are written.
    fn queue_write(&mut self, bytes: Vec<u8>) -> ResponseFuture<Result<(), VerbError>> {
        if let Some(recording) = &mut self.recording {
            recording.input(&bytes);
        }
        let id = self.id.clone();
        let input = match (&self.input, self.exited.or(self.reaped)) {
            (Some(input), None) => input.clone(),
            _ => return Box::pin(async move { Err(errors::pty_not_found(&id)) }),
        };
        let (done, wait) = oneshot::channel();
        let job = WriteJob {
            bytes,
            done: Some(done),
        };
        // A full queue (the program is not reading) waits its turn; senders queue in order.
        let waiting = match input.queue(job) {
            Queued::Now => None,
            Queued::Full(waiting) => Some(waiting),
            Queued::Closed => return Box::pin(async move { Err(errors::pty_not_found(&id)) }),
        };
        Box::pin(async move {
            if let Some(waiting) = waiting {
                waiting
                    .send()
                    .await
                    .map_err(|_| errors::pty_not_found(&id))?;
            }
            match wait.await {
                Ok(Ok(())) => Ok(()),
                Ok(Err(e)) if e.raw_os_error() == Some(libc::EIO) => {
                    Err(errors::pty_not_found(&id))
                }
                Ok(Err(e)) => Err(errors::internal(format!(
                    "writing to window {id} failed: {e}"
                ))),
                Err(_) => Err(errors::pty_not_found(&id)),
            }
        })
    }
}

/// Write bytes to the PTY; resolves once they are written. The ticket (see `pty_input`) is
/// given back once the bytes are queued.
#[derive(Message)]
#[rtype(result = "Result<(), VerbError>")]
pub struct WriteInput(pub Vec<u8>, pub Option<Ticket>);

impl Handler<WriteInput> for Window {
    type Result = ResponseFuture<Result<(), VerbError>>;
    fn handle(&mut self, msg: WriteInput, _: &mut Self::Context) -> Self::Result {
        self.queue_write(msg.0)
    }
}

/// Key tokens for the PTY, encoded here with the modes in force (application cursor keys), so
/// a mode switch cannot fall between the encoding and the write.
#[derive(Message)]
#[rtype(result = "Result<(), VerbError>")]
pub struct SendKeys {
    pub keys: String,
    pub literal: bool,
    pub raw: bool,
    pub ticket: Option<Ticket>,
}

impl Handler<SendKeys> for Window {
    type Result = ResponseFuture<Result<(), VerbError>>;
    fn handle(&mut self, msg: SendKeys, _: &mut Self::Context) -> Self::Result {
        let modes = protocol::keys::KeyModes {
            app_cursor: self.emulator.app_cursor(),
        };
        match protocol::keys::keys_to_bytes_in(&msg.keys, msg.literal, msg.raw, modes) {
            Ok(bytes) => self.queue_write(bytes),
            Err(e) => {
                let e = e.to_verb_error();
                Box::pin(async move { Err(e) })
            }
        }
    }
}

/// A paste from an attached client for this window, decided and queued in one step: the
/// bracketed-paste mode it is checked against is the one in force when it is written, and keys
/// typed after it (later messages) cannot overtake it.
#[derive(Message)]
#[rtype(result = "Result<crate::paste::PasteAction, VerbError>")]
pub struct Paste {
    pub data: Vec<u8>,
    pub choice: String,
    pub ticket: Option<Ticket>,
}

impl Handler<Paste> for Window {
    type Result = ResponseFuture<Result<crate::paste::PasteAction, VerbError>>;
    fn handle(&mut self, msg: Paste, _: &mut Self::Context) -> Self::Result {
        let bracketed = self.emulator.modes().bracketed_paste;
        let outcome = crate::paste::deliver(&msg.data, bracketed, &msg.choice);
        let crate::paste::PasteAction::Write(bytes) = outcome else {
            return Box::pin(async move { Ok(outcome) });
        };
        let written = self.queue_write(bytes.clone());
        Box::pin(async move {
            written.await?;
            Ok(crate::paste::PasteAction::Write(bytes))
        })
    }
}
