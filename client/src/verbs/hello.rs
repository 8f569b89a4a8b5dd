//! `tuios hello`: the daemon's build, pid and protocol range.
use std::path::Path;

use protocol::verbs::hello::{Params, Reply, SPEC};

use crate::failure::Failure;

pub const NAME: Option<&str> = Some("hello");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the daemon's hello result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Always states our protocol version, so a daemon that cannot serve us says so here.
pub fn params(_a: &Args) -> Params {
    Params {
        client: Some("tuios".to_string()),
        version: Some(env!("CARGO_PKG_VERSION").to_string()),
        protocol: Some(protocol::PROTOCOL_VERSION),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.json, print)
}

/// One line with the daemon's build, pid and protocol range.
fn print(r: &Reply) -> String {
    format!(
        "tuios daemon {} (pid {}), protocol {} (serves {} to {}), {} session{}\n",
        r.daemon_version,
        r.pid,
        r.protocol,
        r.min_protocol,
        r.protocol,
        r.sessions,
        if r.sessions == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_is_one_line() {
        let reply = Reply {
            protocol: 1,
            min_protocol: 1,
            daemon_version: "0.1.0".into(),
            pid: 42,
            sessions: 1,
            ..Default::default()
        };
        assert_eq!(
            print(&reply),
            "tuios daemon 0.1.0 (pid 42), protocol 1 (serves 1 to 1), 1 session\n"
        );
    }

    #[test]
    fn hello_states_this_client_and_its_protocol() {
        let sent = super::super::params_value(&params(&Args { json: false })).unwrap();
        assert_eq!(sent["client"], "tuios");
        assert_eq!(sent["version"], env!("CARGO_PKG_VERSION"));
        assert_eq!(sent["protocol"], protocol::PROTOCOL_VERSION);
    }
}
