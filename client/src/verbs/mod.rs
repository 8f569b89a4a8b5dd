//! The verb-backed commands: one module per verb, named as in `protocol::for_each_verb!`. Each
//! holds its command's name (`None`: the verb has no command) and aliases, its clap arguments
//! (`Args`) and `run`, which sends the request and prints the reply. The command enum, its clap
//! wiring and its dispatch are generated from the list.

pub mod target;
#[cfg(test)]
mod tests;

use clap::error::ErrorKind;
use clap::{ArgMatches, Args as _, FromArgMatches};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::failure::Failure;
use crate::json_client::JsonClient;

/// The commands, one per verb, and their dispatch.
macro_rules! verb_commands {
    ($($variant:ident => $module:ident,)*) => {
        $(pub mod $module;)*

        #[derive(Debug)]
        pub enum VerbCommand {
            $($variant($module::Args),)*
        }

        impl VerbCommand {
            /// Carry out the command against the daemon at `socket`; the exit status.
            pub fn run(self, socket: &std::path::Path) -> Result<i32, crate::failure::Failure> {
                match self {
                    $(VerbCommand::$variant(a) => $module::run(socket, a),)*
                }
            }

            #[cfg(test)]
            /// The verb this command sends and its params object, as [`params_value`] writes it.
            pub fn request(&self) -> (&'static str, Option<Value>) {
                match self {
                    $(VerbCommand::$variant(a) => (
                        protocol::verbs::$module::SPEC.name,
                        params_value(&$module::params(a)),
                    ),)*
                }
            }

            /// The verb behind a command name (its own name, not an alias).
            pub fn verb_of(command: &str) -> Option<&'static str> {
                $(
                    if $module::NAME == Some(command) {
                        return Some(protocol::verbs::$module::SPEC.name);
                    }
                )*
                None
            }
        }

        impl FromArgMatches for VerbCommand {
            fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
                Self::from_arg_matches_mut(&mut m.clone())
            }

            fn from_arg_matches_mut(m: &mut ArgMatches) -> Result<Self, clap::Error> {
                let Some((name, mut sub)) = m.remove_subcommand() else {
                    return Err(clap::Error::new(ErrorKind::MissingSubcommand));
                };
                $(
                    if $module::NAME == Some(name.as_str()) {
                        return Ok(VerbCommand::$variant(
                            <$module::Args as FromArgMatches>::from_arg_matches_mut(&mut sub)?,
                        ));
                    }
                )*
                Err(clap::Error::raw(
                    ErrorKind::InvalidSubcommand,
                    format!("the subcommand '{name}' wasn't recognized"),
                ))
            }

            fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
                *self = Self::from_arg_matches(m)?;
                Ok(())
            }
        }

        impl clap::Subcommand for VerbCommand {
            fn augment_subcommands(mut cmd: clap::Command) -> clap::Command {
                $(
                    if let Some(name) = $module::NAME {
                        cmd = cmd.subcommand(
                            $module::Args::augment_args(clap::Command::new(name))
                                .visible_aliases($module::ALIASES),
                        );
                    }
                )*
                cmd
            }

            fn augment_subcommands_for_update(cmd: clap::Command) -> clap::Command {
                Self::augment_subcommands(cmd)
            }

            fn has_subcommand(name: &str) -> bool {
                Self::verb_of(name).is_some()
            }
        }
    };
}

protocol::for_each_verb!(verb_commands);

/// A verb's typed params as the request's params object. Params serialize every field, `None`
/// as null; those are left out, so a request carries only what the user gave (and `None` when
/// that is nothing: the envelope then has no params).
pub fn params_value(params: &impl Serialize) -> Option<Value> {
    let Ok(Value::Object(mut map)) = serde_json::to_value(params) else {
        return None;
    };
    map.retain(|_, v| !v.is_null());
    (!map.is_empty()).then_some(Value::Object(map))
}

/// Send one verb request; the result as the daemon sent it.
pub fn send(
    socket: &std::path::Path,
    verb: &str,
    params: &impl Serialize,
) -> Result<Value, Failure> {
    JsonClient::connect(socket)?.call(verb, params_value(params).as_ref())
}

/// The typed reply in `result`, every string escaped for the terminal first (human output
/// never writes a daemon's control characters raw).
pub fn typed_reply<R: DeserializeOwned>(verb: &str, result: &Value) -> Result<R, Failure> {
    serde_json::from_value(crate::output::escape_value(result)).map_err(|e| {
        Failure::msg(format!(
            "the daemon's {verb} reply is not what this client reads: {e}"
        ))
    })
}

/// Run one verb: print the result as JSON with `json`, else `print`'s rendering of the typed
/// reply.
pub fn verb<R: DeserializeOwned>(
    socket: &std::path::Path,
    verb: &'static str,
    params: &impl Serialize,
    json: bool,
    print: impl FnOnce(&R) -> String,
) -> Result<i32, Failure> {
    let result = send(socket, verb, params)?;
    if json {
        crate::print_json(&result)
    } else {
        crate::emit(&print(&typed_reply(verb, &result)?))
    }
}

/// The directory a window started by a command (`new`, `new-window`) begins in: the one the
/// user named, else the one the command runs in (tmux's rule), so it opens where the user is
/// rather than where the daemon happened to start. `None` only when neither is known.
pub fn client_cwd(named: Option<String>) -> Option<String> {
    named.or_else(|| {
        std::env::current_dir()
            .ok()
            .map(|dir| dir.to_string_lossy().into_owned())
    })
}

/// Command lines parsed the way `main` parses them (registry help and accepted sets applied),
/// for the modules' tests of their `Args` and `params`.
#[cfg(test)]
pub mod testing {
    use clap::FromArgMatches;

    use super::VerbCommand;
    use crate::cli::{Cli, Command};

    /// `tuios ARGS...` as the verb command it parses to.
    pub fn parse(args: &[&str]) -> VerbCommand {
        let matches = crate::help::command()
            .try_get_matches_from(std::iter::once("tuios").chain(args.iter().copied()))
            .expect("arguments parse");
        match Cli::from_arg_matches(&matches)
            .expect("matches convert")
            .command
        {
            Command::Verb(v) => v,
            other => panic!("not a verb command: {other:?}"),
        }
    }

    /// How clap refuses `tuios ARGS...`.
    pub fn refused(args: &[&str]) -> clap::error::ErrorKind {
        crate::help::command()
            .try_get_matches_from(std::iter::once("tuios").chain(args.iter().copied()))
            .expect_err("arguments are refused")
            .kind()
    }

    /// The params object `tuios ARGS...` sends (`None`: it sends none), as the generated
    /// request table builds it.
    pub fn params_sent(args: &[&str]) -> Option<serde_json::Value> {
        parse(args).request().1
    }

    /// The same, `{}` when none.
    pub fn sends(args: &[&str]) -> serde_json::Value {
        params_sent(args).unwrap_or_else(|| serde_json::json!({}))
    }

    /// A typed params object as the JSON sent: `{}` when nothing is.
    pub fn sent(params: &impl serde::Serialize) -> serde_json::Value {
        super::params_value(params)
            .unwrap_or_else(|| serde_json::Value::Object(serde_json::Map::new()))
    }
}
