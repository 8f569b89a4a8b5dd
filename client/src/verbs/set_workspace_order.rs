//! `tuios set-workspace-order`: the order clients show a session's workspaces in.
use std::path::Path;

use protocol::verbs::set_workspace_order::{Params, Reply, SPEC};

use super::target::SessionTarget;
use crate::failure::Failure;

pub const NAME: Option<&str> = Some("set-workspace-order");
pub const ALIASES: &[&str] = &[];

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub target: SessionTarget,
    /// Several arguments, or one comma-separated list: `3 1 2` or `3,1,2`.
    #[arg(required = true, value_delimiter = ',', value_name = "N")]
    pub order: Vec<i64>,
}

/// The typed params this command sends.
pub fn params(a: &Args) -> Params {
    Params {
        session: a.target.session.clone(),
        order: a.order.clone(),
    }
}

pub fn run(socket: &Path, a: Args) -> Result<i32, Failure> {
    super::verb(socket, SPEC.name, &params(&a), a.target.json, print)
}

fn print(r: &Reply) -> String {
    match &r.workspace_order {
        Some(order) => {
            let list: Vec<String> = order.iter().map(i64::to_string).collect();
            format!("workspace order: {}\n", list.join(" "))
        }
        None => "workspace order: natural (1, 2, 3, ...)\n".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::testing::refused;
    use crate::verbs::testing::sends;

    use serde_json::json;

    #[test]
    fn the_order_is_taken_as_words_or_a_list() {
        assert_eq!(
            sends(&["set-workspace-order", "3", "1", "2"]),
            json!({"order": [3, 1, 2]})
        );
        assert_eq!(
            sends(&["set-workspace-order", "-s", "w", "3,1"]),
            json!({"session": "w", "order": [3, 1]})
        );
        assert_eq!(
            refused(&["set-workspace-order", "x"]),
            clap::error::ErrorKind::ValueValidation
        );
    }

    #[test]
    fn the_order_in_effect_is_shown() {
        let order = |o: Option<Vec<i64>>| Reply {
            workspace_order: o,
            ..Default::default()
        };
        assert_eq!(
            print(&order(Some(vec![3, 1, 2]))),
            "workspace order: 3 1 2\n"
        );
        assert!(print(&order(None)).contains("natural"));
    }
}
