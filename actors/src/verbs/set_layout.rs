//! `set-layout`: change the tiling layout of the current workspace: turn tiling on or off, turn the
//! focused split the other way, make the splits even, or pick bsp, master-stack or scrolling.
use super::{session, VerbEnv};
use protocol::attach::RoutedRequest;
use protocol::verbs::set_layout::{Params, Reply, SPEC};
use protocol::VerbError;
use serde_json::Value;

pub(super) async fn handle(env: &VerbEnv, p: Params) -> Result<Reply, VerbError> {
    if p.tiling.is_none()
        && p.layout.is_none()
        && !p.equalize.unwrap_or(false)
        && !p.rotate.unwrap_or(false)
    {
        return Err(VerbError::invalid_params(
            "tiling",
            "nothing to set: pass tiling, layout, equalize or rotate",
        ));
    }
    if let Some(layout) = &p.layout {
        protocol::registry::check_accepted(SPEC.name, "layout", layout)?;
    }
    let s = session(env, p.session).await?;
    let data = super::route(
        &s,
        RoutedRequest::Layout {
            tiling: p.tiling,
            equalize: p.equalize.unwrap_or(false),
            rotate: p.rotate.unwrap_or(false),
            layout: p.layout,
        },
        "changing the layout",
    )
    .await?;
    // The client's answer is free-form; what it leaves out (or sends in another shape) reads
    // as unknown.
    let text = |k: &str| {
        data.get(k)
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string()
    };
    Ok(Reply {
        tiling_mode: text("tiling_mode"),
        layout_mode: text("layout_mode"),
        master_ratio: data
            .get("master_ratio")
            .and_then(Value::as_f64)
            .unwrap_or(0.5),
        ..Default::default()
    })
}
