//! `run-command`: the named-command vocabulary (the one tapes use). The vocabulary is one table
//! in `protocol::commands`; commands the daemon can carry out itself run here, the rest need an
//! attached client.
use protocol::commands::{self, Runner};
use protocol::params::*;
use protocol::{Hint, VerbError};
use serde_json::{json, Map, Value};

use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess, NewWindowSpec, NUM_WORKSPACES};

pub(super) async fn run_command(env: &VerbEnv, p: RunCommandParams) -> Result<Value, VerbError> {
    let name = p.command.unwrap_or_default();
    if name.is_empty() {
        return Err(VerbError::invalid_params(
            "command",
            "command is required, e.g. \"SwitchWorkspace\"",
        )
        .with_hint(
            Hint::new()
                .param("command")
                .command("tuios list-verbs run-command")
                .accepted(commands::command_names().iter().copied()),
        ));
    }
    let args = p.args.unwrap_or_default();
    let spec = commands::check(&name, &args)?;
    let s = session(env, p.session).await?;
    if spec.runner == Runner::Client {
        let data = super::route(
            &s,
            protocol::attach::RoutedRequest::Command {
                name: spec.name.to_string(),
                args: args.clone(),
            },
            &format!("command {name}"),
        )
        .await?;
        let mut result = Map::new();
        result.insert("type".into(), json!("command_result"));
        result.insert("command".into(), json!(spec.name));
        result.insert("routed".into(), json!(true));
        if let Value::Object(fields) = data {
            result.extend(fields.into_iter().filter(|(k, _)| k != "type"));
        }
        return Ok(Value::Object(result));
    }
    let arg = |i: usize| args.get(i).filter(|a| !a.is_empty()).cloned();
    let data: Value = match spec.name {
        "NewWindow" => {
            let spec = NewWindowSpec {
                name: arg(0),
                workspace: 0,
                cwd: None,
                focus: true,
                command: args.iter().skip(1).cloned().collect(),
                remain: false,
                env: Vec::new(),
            };
            if spec.command.first().is_some_and(|c| c.is_empty()) {
                return Err(VerbError::invalid_params(
                    "args",
                    "NewWindow: the program to run (the second argument) cannot be empty",
                ));
            }
            let created = mailbox(s.addr.send(sess::NewWindow(spec)).await)??;
            json!({"window_id": created["window_id"], "name": created["name"]})
        }
        "CloseWindow" => {
            mailbox(s.addr.send(sess::CloseWindow(arg(0))).await)??;
            json!({})
        }
        "NextWindow" | "PrevWindow" => {
            mailbox(
                s.addr
                    .send(sess::FocusWindow::Relative {
                        forward: spec.name == "NextWindow",
                    })
                    .await,
            )??;
            json!({})
        }
        "FocusWindow" => {
            mailbox(
                s.addr
                    .send(sess::FocusWindow::Target(arg(0).unwrap_or_default()))
                    .await,
            )??;
            json!({})
        }
        "RenameWindow" => {
            // One argument renames the focused window; two name the target first.
            let (target, new_name) = match args.len() {
                1 => (None, args[0].clone()),
                _ => (arg(0), args[1].clone()),
            };
            mailbox(
                s.addr
                    .send(sess::WindowCommand::Rename {
                        target,
                        name: new_name,
                    })
                    .await,
            )??
        }
        "MinimizeWindow" | "RestoreWindow" => mailbox(
            s.addr
                .send(sess::WindowCommand::Minimize {
                    target: arg(0),
                    minimized: spec.name == "MinimizeWindow",
                })
                .await,
        )??,
        "SwitchWorkspace" => {
            let n = commands::workspace_arg(spec.name, args.first(), NUM_WORKSPACES)?;
            mailbox(s.addr.send(sess::WindowCommand::SwitchWorkspace(n)).await)??
        }
        "MoveToWorkspace" | "MoveAndFollowWorkspace" => {
            let n = commands::workspace_arg(spec.name, args.first(), NUM_WORKSPACES)?;
            mailbox(
                s.addr
                    .send(sess::WindowCommand::MoveFocused {
                        workspace: n,
                        follow: spec.name == "MoveAndFollowWorkspace",
                    })
                    .await,
            )??
        }
        "ListWindows" => mailbox(s.addr.send(sess::ListWindows).await)?,
        "GetSessionInfo" => mailbox(s.addr.send(sess::SessionInfo).await)?,
        "GetWindow" => mailbox(s.addr.send(sess::GetWindow(arg(0))).await)??,
        other => {
            return Err(crate::errors::internal(format!(
                "command {other} is marked daemon-runnable but has no implementation"
            )))
        }
    };
    let mut result = Map::new();
    result.insert("type".into(), json!("command_result"));
    result.insert("command".into(), json!(spec.name));
    result.insert("routed".into(), json!(false));
    if let Value::Object(fields) = data {
        for (k, v) in fields {
            // The command's own data, without the inner result's type tag.
            if k != "type" {
                result.insert(k, v);
            }
        }
    }
    Ok(Value::Object(result))
}
