//! `list-options`: list the options that can be set, with their type, section, default and accepted
//! values, and the session's own value where it set one.
use super::option_lookup::*;
use super::{mailbox, VerbEnv};
use crate::session::{self as sess};
use config::options::{self};
use protocol::closest::closest_match;
use protocol::verbs::list_options::{Params, Reply};
use protocol::{ErrorCode, Hint, VerbError};
use serde_json::Value;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = maybe_session(env, p.session).await?;
    let overrides = match &s {
        Some(s) => mailbox(s.addr.send(sess::GetOptions).await)?,
        None => Default::default(),
    };
    let section = p.section.filter(|x| !x.is_empty());
    let prefix = p.prefix.filter(|x| !x.is_empty());
    let rows: Vec<Value> = options::options()
        .iter()
        .filter(|o| section.as_deref().is_none_or(|sec| o.section == sec))
        .filter(|o| prefix.as_deref().is_none_or(|pre| o.path.starts_with(pre)))
        .map(|o| option_row(o, overrides.get(o.path)))
        .collect();
    let sections = options::sections();
    if rows.is_empty() {
        let filter = section.clone().or(prefix.clone()).unwrap_or_default();
        return Err(
            VerbError::new(ErrorCode::OptionNotFound, "no options match that filter").with_hint(
                Hint::new()
                    .param(if section.is_some() {
                        "section"
                    } else {
                        "prefix"
                    })
                    .did_you_mean(closest_match(&filter, sections.iter().copied()))
                    .available(sections.iter().map(|s| s.to_string()))
                    .detail("section is exact; prefix matches the start of a path."),
            ),
        );
    }
    Ok(Reply {
        total: rows.len(),
        options: rows,
        sections: sections.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    })
}
