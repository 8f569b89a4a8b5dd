//! `explain-agent-screen`: show what the screen rules of a harness make of a window: its last
//! non-blank rows and, for each rule, whether it matched and what was missing or in the way.
use super::agent_lookup::*;
use super::VerbEnv;
use crate::agent::screen::{tail_lines, DEFAULT_TAIL_LINES};
use crate::errors;
use crate::window;
use protocol::verbs::explain_agent_screen::{Params, Reply};
use protocol::VerbError;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let manifests = env.services.manifests.clone();
    let registry = blocking(move || manifests.fresh()).await?;
    let asked = p.harness.clone().filter(|h| !h.is_empty());
    if let Some(h) = &asked {
        if registry.get(h).is_none() {
            return Err(unknown_harness(h, &registry));
        }
    }
    let info = window_info(env, p.session, p.window).await?;
    let harness = asked.or(info.harness.clone());
    let manifest = harness.as_deref().and_then(|h| registry.get(h)).cloned();
    let rules = manifest.as_ref().and_then(|m| m.screen.clone());
    let lines = p
        .lines
        .filter(|n| *n > 0)
        .map(|n| n as usize)
        .or(rules.as_ref().map(|r| r.lines))
        .unwrap_or(DEFAULT_TAIL_LINES);
    let screen = info
        .addr
        .send(window::Capture {
            scrollback: false,
            styled: false,
        })
        .await
        .map_err(|_| errors::window_gone(&info.window_id))?;
    let tail = tail_lines(&screen, lines);
    let mut out = Reply {
        window_id: info.window_id.clone(),
        harness_id: manifest.as_ref().map(|m| m.id.clone()).unwrap_or_default(),
        state: info.state.as_str().to_string(),
        source: info.source.to_string(),
        lines: lines as i64,
        tail: Vec::new(),
        rules: Vec::new(),
        matched: false,
        rule: -1,
        ..Default::default()
    };
    match (&manifest, &rules) {
        (Some(_), Some(rules)) => {
            let v = rules.evaluate(&tail);
            out.enabled = Some(rules.enabled);
            out.rules = v.rules.iter().map(|r| r.to_json()).collect();
            let winner = v.winner.filter(|_| rules.enabled);
            out.matched = winner.is_some();
            out.rule = winner.map(|w| w as i64).unwrap_or(-1);
            out.rule_state = Some(
                winner
                    .map(|w| rules.rules[w].state.as_str())
                    .unwrap_or("")
                    .to_string(),
            );
        }
        (Some(m), None) => {
            out.enabled = Some(false);
            out.note = Some(format!("the {} manifest has no screen rules", m.id));
        }
        (None, _) => {
            out.note = Some(
                "the window is attributed to no harness; pass harness to evaluate a manifest's rules"
                    .to_string(),
            );
        }
    }
    out.tail = tail;
    Ok(out)
}
