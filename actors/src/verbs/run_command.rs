//! `run-command`: the named-command vocabulary (the one tapes use). The vocabulary is one table
//! in `protocol::commands`; commands the daemon can carry out itself run here, the rest need an
//! attached client.
use protocol::closest::echo_name;
use protocol::commands::{self, Runner};
use protocol::verbs::run_command::{Params, Reply};
use protocol::{Hint, VerbError};
use serde_json::{json, Map, Value};

use super::{mailbox, reply_value, session, VerbEnv};
use crate::session::{self as sess, NewWindowSpec, NUM_WORKSPACES};

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let name = p.command;
    if name.is_empty() {
        // Only a client's own run-command reaches here without the registry's required check.
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
    check_option_args(spec.name, &args).await?;
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
        return Ok(command_result(spec.name, true, data));
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
            json!({"window_id": created.window_id, "name": created.name})
        }
        "CloseWindow" => {
            mailbox(
                s.addr
                    .send(sess::CloseWindow {
                        window: arg(0),
                        tree: false,
                    })
                    .await,
            )??;
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
            )??;
            json!({})
        }
        "MinimizeWindow" | "RestoreWindow" => {
            mailbox(
                s.addr
                    .send(sess::WindowCommand::Minimize {
                        target: arg(0),
                        minimized: spec.name == "MinimizeWindow",
                    })
                    .await,
            )??;
            json!({})
        }
        "SwitchWorkspace" => {
            let n = commands::workspace_arg(spec.name, args.first(), NUM_WORKSPACES)?;
            mailbox(s.addr.send(sess::WindowCommand::SwitchWorkspace(n)).await)??;
            json!({})
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
            )??;
            json!({})
        }
        // The same wire forms as list-windows, session-info and a list-windows row.
        "ListWindows" => {
            let list = super::list_windows::reply(mailbox(s.addr.send(sess::ListWindows).await)?);
            reply_value(super::list_windows::with_recording(&s, list).await)
        }
        "GetSessionInfo" => reply_value(super::session_info::reply(mailbox(
            s.addr.send(sess::DescribeSession).await,
        )?)),
        "GetWindow" => reply_value(super::rows::window_row(mailbox(
            s.addr.send(sess::GetWindow(arg(0))).await,
        )??)),
        other => {
            return Err(crate::errors::internal(format!(
                "command {other} is marked daemon-runnable but has no implementation"
            )))
        }
    };
    Ok(command_result(spec.name, false, data))
}

/// The arguments of the commands that set a client option (SetConfig, SetTheme,
/// SetBorderStyle, SetDockbarPosition), checked against the option registry as the client will
/// check them, so a bad one is `invalid_params` here rather than `command_failed` from the
/// client.
async fn check_option_args(command: &str, args: &[String]) -> Result<(), VerbError> {
    let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
    let (path, value) = match command {
        "SetConfig" => (arg(0).trim(), arg(1)),
        // As the client reads it: none and default clear the theme.
        "SetTheme" if matches!(arg(0).trim(), "none" | "default") => return Ok(()),
        "SetTheme" => ("appearance.theme", arg(0)),
        "SetBorderStyle" => ("appearance.border_style", arg(0)),
        "SetDockbarPosition" => ("appearance.dockbar_position", arg(0)),
        _ => return Ok(()),
    };
    let usage = || {
        commands::find_command(command)
            .map(|c| format!("usage: {}", c.usage()))
            .unwrap_or_default()
    };
    let Some(spec) = config::options::resolve(path) else {
        return Err(VerbError::invalid_params(
            "args",
            format!("{command}: no option called {}", echo_name(path)),
        )
        .with_hint(
            Hint::new()
                .param("args")
                .verb("list-options")
                .command("tuios list-options")
                .did_you_mean(config::options::did_you_mean(path))
                .detail(usage()),
        ));
    };
    let themes = actix_rt::task::spawn_blocking(|| {
        config::themes::ThemeRegistry::load(&config::themes::themes_dir())
    })
    .await
    .map_err(|e| crate::errors::internal(format!("could not read the themes: {e}")))?;
    config::options::validate_value(spec, value, &themes).map_err(|e| {
        let mut hint = Hint::new()
            .param("args")
            .accepted(spec.accepted.iter().copied())
            .did_you_mean(e.did_you_mean.clone())
            .detail(format!("{} ({})", e.detail, usage()));
        if spec.kind == config::options::OptionKind::Theme {
            hint = hint
                .verb("list-themes")
                .command(format!("tuios list-themes --filter {}", value.trim()));
        }
        VerbError::invalid_params("args", format!("{command}: {}", e.message)).with_hint(hint)
    })?;
    Ok(())
}

/// The reply: the command, who ran it, and the command's own data without the inner result's
/// type tag.
fn command_result(command: &str, routed: bool, data: Value) -> Reply {
    let mut data = match data {
        Value::Object(fields) => fields,
        _ => Map::new(),
    };
    data.remove("type");
    let mut text = |k: &str| match data.remove(k) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            data.insert(k.to_string(), other);
            None
        }
        None => None,
    };
    Reply {
        command: command.to_string(),
        routed,
        window_id: text("window_id"),
        name: text("name"),
        data,
        ..Default::default()
    }
}
