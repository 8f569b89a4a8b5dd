//! `tuios send-keys`: the `send-keys` verb from the command line.
use std::path::Path;

use crate::failure::Failure;
#[allow(unused_imports)]
use crate::*;

pub const NAME: Option<&str> = Some("send-keys");
pub const ALIASES: &[&str] = &[];
pub use crate::cli::SendKeysArgs as Args;

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    {
        let requests = params::send_keys_tmux(&a);
        let mut client = JsonClient::connect(socket)?;
        let mut last = Value::Null;
        for req in &requests {
            last = client.call(req.verb, req.params_value().as_ref())?;
        }
        if a.target.json {
            print_json(&last)
        } else {
            Ok(0)
        }
    }
}

// Not yet sent by run(), which still builds its request by hand (being moved over).
#[allow(dead_code)]
/// The typed params this command sends.
pub fn params(a: &Args) -> protocol::verbs::send_keys::Params {
    super::from_legacy(crate::params::send_keys(a))
}
