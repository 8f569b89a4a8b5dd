//! `list-themes`: list the colour themes there are (built in, plus JSON files in the themes
//! directory), or describe one theme's palette with the contrast of each colour against its
//! background.
use super::option_lookup::*;
use super::{mailbox, VerbEnv};
use crate::errors;
use crate::session::{self as sess};
use config::themes::{self};
use protocol::closest::echo_name;
use protocol::verbs::list_themes::{Params, Reply};
use protocol::{ErrorCode, Hint, VerbError};

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let s = maybe_session(env, p.session).await?;
    let registry = load_themes().await?;
    let theme = p.theme.filter(|t| !t.is_empty());
    let listing = themes::list_themes(&registry, theme.as_deref(), p.filter.as_deref()).map_err(
        |unknown| {
            VerbError::new(
                ErrorCode::OptionNotFound,
                format!("no theme named {}", echo_name(&unknown.id)),
            )
            .with_hint(
                Hint::new()
                    .param("theme")
                    .verb("list-themes")
                    .command(format!("tuios list-themes --filter {}", unknown.id))
                    .did_you_mean(unknown.did_you_mean.clone())
                    .detail(format!(
                        "It is neither built in nor a file in {}; write {}.json there to add it.",
                        registry.dir().display(),
                        unknown.id
                    )),
            )
        },
    )?;
    // The theme listing is built by the config crate as JSON; read it into the reply type, which
    // refuses a key the verb does not declare.
    let mut result: Reply = serde_json::from_value(listing)
        .map_err(|e| errors::internal(format!("the theme listing has an unexpected shape: {e}")))?;
    if let Some(s) = s {
        let overrides = mailbox(s.addr.send(sess::GetOptions).await)?;
        let (active, source) = match overrides.get("appearance.theme") {
            Some(v) => (v.clone(), "session"),
            None => (String::new(), "default"),
        };
        result.session = Some(s.name);
        result.active = Some(active);
        result.active_source = Some(source.to_string());
    }
    Ok(result)
}
