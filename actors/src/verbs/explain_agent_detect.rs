//! `explain-agent-detect`: explain why a window was or was not recognised as running an agent: the
//! foreground process read now (comm, argv, exe), and which harness manifest or built-in name
//! matched it, or why each did not.
use super::agent_lookup::*;
use super::VerbEnv;
use crate::agent::proc;
use protocol::verbs::explain_agent_detect::{Params, Reply};
use protocol::VerbError;
use serde_json::json;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    let info = window_info(env, p.session, p.window).await?;
    let pid = info.pid;
    let alive = info.alive;
    let manifests = env.services.manifests.clone();
    let (registry, fg) = blocking(move || {
        let registry = manifests.fresh();
        let fg = if alive { proc::foreground(pid) } else { None };
        (registry, fg)
    })
    .await?;
    let mut out = Reply {
        window_id: info.window_id.clone(),
        state: info.state.as_str().to_string(),
        source: info.source.to_string(),
        harness_id: info.harness.clone().unwrap_or_default(),
        auto_detected: info.auto,
        running: fg.is_some(),
        matched: false,
        transcript: info.transcript.clone(),
        ..Default::default()
    };
    let Some(fg) = fg else {
        out.reason = Some(
            if alive {
                "no foreground process could be read for this window"
            } else {
                "the window's program has exited"
            }
            .to_string(),
        );
        return Ok(out);
    };
    let e = registry.explain(&fg, &env.services.info.agent.extra_names);
    out.process = Some(e.facts.to_json(&fg));
    out.manifests = Some(
        e.manifests
            .iter()
            .map(|(id, v)| {
                let mut m = json!({"id": id, "matched": v.matched});
                if let Some(r) = &v.rule {
                    m["rule"] = json!(r);
                }
                if let Some(r) = &v.reason {
                    m["reason"] = json!(r);
                }
                m
            })
            .collect(),
    );
    out.name_list = e.name_list.clone();
    if !registry.problems.is_empty() {
        out.manifest_problems = Some(registry.problems.clone());
    }
    match &e.identified {
        Some(found) => {
            out.matched = true;
            out.matched_rule = Some(found.rule.to_string());
            out.matched_harness = Some(found.harness.clone().unwrap_or_default());
            if found.harness.is_none() {
                out.note = Some(
                    "identified by the agent name list rather than a manifest, so no harness is named and no screen rules run".to_string(),
                );
            }
        }
        None => {
            out.reason = Some(format!(
                "{} is not a known agent: no manifest and no name in the agent list matches it",
                fg.comm
            ));
        }
    }
    Ok(out)
}
