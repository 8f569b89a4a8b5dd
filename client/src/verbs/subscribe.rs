//! `tuios subscribe`: the daemon's event stream on stdout, one JSON line per event.
use std::io::{self, Write};
use std::path::Path;

use protocol::verbs::subscribe::{Params, Reply, SPEC};

use crate::failure::Failure;
use crate::json_client::JsonClient;

pub const NAME: Option<&str> = Some("subscribe");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(short = 's', long, value_name = "NAME")]
    pub session: Option<String>,
    #[arg(short = 'w', long, value_name = "WINDOW")]
    pub window: Option<String>,
    #[arg(long, value_delimiter = ',', value_name = "TYPE,...")]
    pub types: Vec<String>,
    #[arg(long, value_name = "N")]
    pub queue: Option<i64>,
    /// Do not report the subscription on stderr; only events are printed.
    #[arg(short = 'q', long)]
    pub quiet: bool,
}

pub fn params(a: &Args) -> Params {
    Params {
        session: a.session.clone(),
        window: a.window.clone(),
        types: (!a.types.is_empty()).then(|| a.types.clone()),
        queue: a.queue,
    }
}

/// Every line after the ack goes to stdout as received, flushed one by one so a reader at the
/// other end of a pipe sees each event as it happens. Ends with status 0 when the daemon closes
/// the stream, stdout goes away, or the user interrupts.
pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    let mut client = JsonClient::connect(socket)?;
    let ack = client.call(SPEC.name, super::params_value(&params(&a)).as_ref())?;
    exit_on_interrupt();
    if !a.quiet {
        let ack: Reply = super::typed_reply(SPEC.name, &ack)?;
        let _ = io::stderr().lock().write_all(print(&ack).as_bytes());
    }
    let mut stream = client.into_stream()?;
    let mut out = io::stdout().lock();
    while let Some(mut line) = stream.next_line()? {
        if line.last() != Some(&b'\n') {
            line.push(b'\n');
        }
        match out.write_all(&line).and_then(|()| out.flush()) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => break,
            Err(e) => return Err(Failure::msg(format!("cannot write output: {e}"))),
        }
    }
    Ok(0)
}

/// The stderr note once the stream is flowing.
fn print(r: &Reply) -> String {
    format!("subscribed (seq {})\n", r.seq)
}

/// Ctrl+C or SIGTERM is how a stream is meant to end, not a failure. Every line is flushed as it
/// is written, so leaving at once loses nothing.
fn exit_on_interrupt() {
    extern "C" fn leave(_: libc::c_int) {
        // SAFETY: _exit is async-signal-safe and touches no Rust state.
        unsafe { libc::_exit(0) }
    }
    let handler: extern "C" fn(libc::c_int) = leave;
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: the handler only calls an async-signal-safe function.
        unsafe { libc::signal(sig, handler as libc::sighandler_t) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// What `tuios subscribe ARGS` sends (`None`: no params), parsed as main parses it.
    fn sent(args: &[&str]) -> Option<Value> {
        let argv = ["tuios", "subscribe"].iter().chain(args);
        let m = crate::help::command()
            .try_get_matches_from(argv)
            .expect("arguments parse");
        let cli = <crate::cli::Cli as clap::FromArgMatches>::from_arg_matches(&m).unwrap();
        let crate::cli::Command::Verb(super::super::VerbCommand::Subscribe(a)) = cli.command else {
            panic!("not subscribe");
        };
        super::super::params_value(&params(&a))
    }

    #[test]
    fn subscribe_splits_types_on_commas() {
        assert_eq!(sent(&[]), None);
        assert_eq!(sent(&["-q"]), None);
        assert_eq!(
            sent(&[
                "-s",
                "w",
                "-w",
                "1",
                "--types",
                "window-created,window-closed",
                "--types",
                "bell",
                "--queue",
                "16"
            ]),
            Some(json!({
                "session": "w", "window": "1",
                "types": ["window-created", "window-closed", "bell"], "queue": 16
            }))
        );
        let typo = crate::help::command().try_get_matches_from([
            "tuios",
            "subscribe",
            "--types",
            "window-created,windw-closed",
        ]);
        assert!(
            typo.is_err(),
            "event types are checked against the registry"
        );
    }

    #[test]
    fn the_ack_names_its_sequence_number() {
        let ack = Reply {
            seq: 7,
            ..Default::default()
        };
        assert_eq!(print(&ack), "subscribed (seq 7)\n");
    }
}
