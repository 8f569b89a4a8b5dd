//! `tuios keybinds`: the bindings an attach started now would use, leader and focus-return
//! chord read from the same files, with the same fallbacks and warnings.

use clap::Args;

use crate::failure::Failure;

#[derive(Debug, Args)]
pub struct KeybindsArgs {
    /// Print them as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &KeybindsArgs) -> Result<i32, Failure> {
    let keys = crate::tui::keys_in_effect(
        config::default_config_path().as_deref(),
        Some(&config::options::policy_file_path()),
    );
    if args.json {
        let value = serde_json::to_value(&keys)
            .map_err(|e| Failure::msg(format!("cannot render JSON: {e}")))?;
        return crate::print_json(&value);
    }
    crate::emit(&render(&keys))
}

fn render(keys: &crate::tui::KeysInEffect) -> String {
    let mut out = format!(
        "leader: {}   ([keybindings] leader_key in config.toml)\n\
         focus return: {}   (from a window back to window management, where the keys below\n\
         \x20 work without the leader; [lumen] focus_return_chord in policy.toml)\n\n\
         after the leader:\n",
        keys.leader,
        keys.focus_return.join(" or "),
    );
    let width = keys
        .after_leader
        .iter()
        .map(|b| b.keys.chars().count())
        .max()
        .unwrap_or(0);
    for b in &keys.after_leader {
        out.push_str(&format!("  {:<width$}  {}\n", b.keys, b.what));
    }
    for w in &keys.warnings {
        out.push_str(&format!("\nwarning: {w}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_a_configured_leader() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.toml");
        let keys = crate::tui::keys_in_effect(Some(&missing), Some(&missing));
        assert_eq!(keys.leader, "ctrl+b");
        assert!(keys
            .after_leader
            .iter()
            .any(|b| b.keys == "d" && b.what == "detach"));
        let text = render(&keys);
        assert!(text.starts_with("leader: ctrl+b"), "{text}");

        let cfg = dir.path().join("config.toml");
        std::fs::write(&cfg, "[keybindings]\nleader_key = \"ctrl+a\"\n").unwrap();
        let keys = crate::tui::keys_in_effect(Some(&cfg), Some(&missing));
        assert_eq!(keys.leader, "ctrl+a");
        assert_eq!(keys.after_leader.last().unwrap().keys, "ctrl+a");
    }
}
