//! `search`: lines of a window's history (memory and disk) and screen matching a regex.
use super::{mailbox, session, window, VerbEnv};
use crate::errors;
use crate::window as win;
use protocol::limits::truncate_utf8;
use protocol::verbs::search::{
    check_limit, newest_first, Match, Params, Reply, MAX_MATCH_TEXT_BYTES, MAX_PATTERN_BYTES,
    MAX_PATTERN_PROGRAM_BYTES,
};
use protocol::{ErrorCode, Hint, VerbError};

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let newest = newest_first(p.order.as_deref())?;
    let limit = check_limit(p.limit)?;
    let from = match p.from {
        Some(n) if n < 0 => {
            return Err(VerbError::invalid_params(
                "from",
                format!("from {n} is negative; pass a line number or a previous reply's next"),
            ))
        }
        n => n.map(|n| n as u64),
    };
    let regex = compile(&p.pattern)?;
    let s = session(env, p.session).await?;
    let w = window(&s, p.window).await?;
    let (hits, next) = mailbox(
        w.addr
            .send(win::Search {
                regex,
                newest,
                from,
                limit,
            })
            .await,
    )
    .map_err(|_| errors::window_gone(&w.id))?;
    Ok(Reply {
        matches: hits
            .into_iter()
            .map(|h| Match {
                line: h.line,
                text: truncate_utf8(&h.text, MAX_MATCH_TEXT_BYTES).to_owned(),
            })
            .collect(),
        next,
        window_id: w.id,
        ..Default::default()
    })
}

/// The pattern as a regex, bounded in length and compiled size.
fn compile(pattern: &str) -> Result<regex::Regex, VerbError> {
    protocol::limits::check_len("pattern", pattern, MAX_PATTERN_BYTES, "MAX_PATTERN_BYTES")?;
    regex::RegexBuilder::new(pattern)
        .size_limit(MAX_PATTERN_PROGRAM_BYTES)
        .build()
        .map_err(|e| {
            VerbError::new(
                ErrorCode::InvalidParams,
                "pattern is not a valid regular expression",
            )
            .with_hint(Hint::new().param("pattern").detail(format!(
                "Rust regex syntax (escape literal characters such as ( [ . * with \\). {e}"
            )))
        })
}
