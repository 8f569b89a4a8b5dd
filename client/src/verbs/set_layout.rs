//! `tuios set-layout`: tiling on or off, the layout (bsp, master-stack, scrolling), rotate the
//! focused split, even out the splits.
use std::path::Path;

use clap::ArgGroup;
use protocol::verbs::set_layout::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("set-layout");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
#[command(group(
    ArgGroup::new("change")
        .required(true)
        .multiple(true)
        .args(["tiling", "layout", "equalize", "rotate"])
))]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    #[arg(long, value_name = "BOOL")]
    pub tiling: Option<bool>,
    #[arg(long, value_name = "LAYOUT")]
    pub layout: Option<String>,
    #[arg(long)]
    pub equalize: bool,
    #[arg(long)]
    pub rotate: bool,
}

/// The typed params this command sends; the two flags only when given (the verb's default is
/// false).
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        tiling: a.tiling,
        layout: a.layout.clone(),
        equalize: a.equalize.then_some(true),
        rotate: a.rotate.then_some(true),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    format!(
        "{}, layout {}, master ratio {:.2}\n",
        r.tiling_mode, r.layout_mode, r.master_ratio
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::refused;
    use crate::verbs::testing::sends;

    use serde_json::json;

    #[test]
    fn set_layout_needs_a_change() {
        assert_eq!(
            sends(&["set-layout", "--tiling", "false"]),
            json!({"tiling": false})
        );
        assert_eq!(
            sends(&["set-layout", "-s", "w", "--equalize", "--rotate"]),
            json!({"session": "w", "equalize": true, "rotate": true})
        );
        assert_eq!(
            sends(&["set-layout", "--layout", "master-stack"]),
            json!({"layout": "master-stack"})
        );
        assert_eq!(
            refused(&["set-layout", "--layout", "spiral"]),
            clap::error::ErrorKind::InvalidValue
        );
        assert_eq!(
            refused(&["set-layout"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            refused(&["set-layout", "--tiling", "on"]),
            clap::error::ErrorKind::InvalidValue
        );
    }

    #[test]
    fn the_layout_is_one_line() {
        let reply = Reply {
            tiling_mode: "tiling".into(),
            layout_mode: "bsp".into(),
            master_ratio: 0.5,
            ..Default::default()
        };
        assert_eq!(print(&reply), "tiling, layout bsp, master ratio 0.50\n");
    }
}
