//! `get-option`: read one option: the session's own value if it set one, otherwise the built-in
//! default.
use super::option_lookup::*;
use super::{mailbox, session, VerbEnv};
use crate::session::{self as sess};
use protocol::verbs::get_option::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let key = trimmed_key(p.key)?;
    let s = session(env, p.session).await?;
    let spec = resolve(&key)?;
    let overrides = mailbox(s.addr.send(sess::GetOptions).await)?;
    let (value, source) = match overrides.get(spec.path) {
        Some(v) => (v.clone(), "session"),
        None => (spec.default.to_string(), "default"),
    };
    Ok(Reply {
        key: spec.path.to_string(),
        value,
        source: source.to_string(),
        default: spec.default.to_string(),
        option_type: spec.ty.as_str().to_string(),
        ..Default::default()
    })
}
