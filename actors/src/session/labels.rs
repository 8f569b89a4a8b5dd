//! Session messages about labels and settings: the session's display name and accent,
//! workspace names and order, and the session's option values.
use std::collections::BTreeMap;

use actix::prelude::*;
use protocol::VerbError;

use super::views::{SessionLabels, WorkspaceLabel};
use super::workspaces::check_workspace;
use super::{Session, NUM_WORKSPACES};

#[derive(Message)]
#[rtype(result = "SessionLabels")]
pub struct SetSessionName(pub String);

impl Handler<SetSessionName> for Session {
    type Result = MessageResult<SetSessionName>;
    fn handle(&mut self, msg: SetSessionName, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        let name = msg.0.trim().to_string();
        self.display_name = (!name.is_empty()).then_some(name);
        // Attached clients show the session's name: they redraw it now.
        self.broadcast_state();
        MessageResult(self.labels())
    }
}

/// Set (or with an empty string, clear) the accent; the caller has validated it.
#[derive(Message)]
#[rtype(result = "SessionLabels")]
pub struct SetSessionAccent(pub String);

impl Handler<SetSessionAccent> for Session {
    type Result = MessageResult<SetSessionAccent>;
    fn handle(&mut self, msg: SetSessionAccent, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        self.accent = (!msg.0.is_empty()).then_some(msg.0);
        self.broadcast_state();
        MessageResult(self.labels())
    }
}

impl Session {
    /// What set-session-name and set-session-accent answer: every label, as it now stands.
    fn labels(&self) -> SessionLabels {
        SessionLabels {
            session: self.name.clone(),
            display_name: self.display_name.clone(),
            accent: self.accent.clone(),
        }
    }
}

#[derive(Message)]
#[rtype(result = "Result<WorkspaceLabel, VerbError>")]
pub struct SetWorkspaceName {
    pub workspace: i64,
    pub name: String,
}

impl Handler<SetWorkspaceName> for Session {
    type Result = Result<WorkspaceLabel, VerbError>;
    fn handle(&mut self, msg: SetWorkspaceName, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        let n = check_workspace(msg.workspace)?;
        let name = msg.name.trim().to_string();
        if name.is_empty() {
            self.workspace_names.remove(&n);
        } else {
            self.workspace_names.insert(n, name);
        }
        Ok(WorkspaceLabel {
            workspace: n,
            name: self.workspace_names.get(&n).cloned(),
        })
    }
}

/// Set the display order: entries out of range and repeats are dropped; an ascending result
/// is the natural order and clears the setting. Answers the order now in effect (`None`: the
/// natural one).
#[derive(Message)]
#[rtype(result = "Result<Option<Vec<i64>>, VerbError>")]
pub struct SetWorkspaceOrder(pub Vec<i64>);

impl Handler<SetWorkspaceOrder> for Session {
    type Result = Result<Option<Vec<i64>>, VerbError>;
    fn handle(&mut self, msg: SetWorkspaceOrder, ctx: &mut Self::Context) -> Self::Result {
        self.save_soon(ctx);
        let mut kept: Vec<i64> = Vec::new();
        for n in msg.0 {
            if (1..=NUM_WORKSPACES).contains(&n) && !kept.contains(&n) {
                kept.push(n);
            }
        }
        if kept.is_empty() {
            return Err(VerbError::invalid_params(
                "order",
                format!("no workspace in the order is in range (1-{NUM_WORKSPACES})"),
            ));
        }
        self.workspace_order = if kept.windows(2).all(|w| w[0] < w[1]) {
            None
        } else {
            Some(kept)
        };
        Ok(self.workspace_order.clone())
    }
}

/// Record an option value (already validated) for this session.
#[derive(Message)]
#[rtype(result = "()")]
pub struct SetOption {
    pub path: String,
    pub value: String,
}

impl Handler<SetOption> for Session {
    type Result = ();
    fn handle(&mut self, msg: SetOption, ctx: &mut Self::Context) {
        self.save_soon(ctx);
        let agent_option = msg.path.starts_with("daemon.agent_");
        self.options.insert(msg.path, msg.value);
        if agent_option {
            self.agent_reconfigure(ctx);
        }
    }
}

/// The option values this session has set, by path.
#[derive(Message)]
#[rtype(result = "BTreeMap<String, String>")]
pub struct GetOptions;

impl Handler<GetOptions> for Session {
    type Result = MessageResult<GetOptions>;
    fn handle(&mut self, _: GetOptions, _: &mut Self::Context) -> Self::Result {
        MessageResult(self.options.clone())
    }
}
