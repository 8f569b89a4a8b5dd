//! The verb-backed commands: one module per verb, named as in `protocol::for_each_verb!`. Each
//! holds its command's name (`None`: the verb has no command) and aliases, its clap arguments
//! (`Args`) and `run`, which sends the request and prints the reply. The command enum, its clap
//! wiring and its dispatch are generated from the list.

use clap::error::ErrorKind;
use clap::{ArgMatches, Args as _, FromArgMatches};

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
