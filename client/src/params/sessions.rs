//! Session verbs: every one builds its typed params in its own module (`verbs/<verb>.rs`);
//! what is left here checks other commands' params.

#[cfg(test)]
mod tests {
    use crate::params::tests::params;
    use serde_json::json;

    #[test]
    fn session_commands_map_the_session() {
        assert_eq!(
            params(&["list-windows", "-s", "a"]),
            json!({"session": "a"})
        );
        assert_eq!(
            params(&["resize", "-w", "1", "100", "30"]),
            json!({"window": "1", "width": 100, "height": 30})
        );
    }

    #[test]
    fn new_session_and_run_map_their_flags() {
        assert_eq!(
            params(&["run", "-w", "2", "--", "printf", "'%s\\n'", "-x"]),
            json!({"window": "2", "command": "printf '%s\\n' -x"})
        );
        assert_eq!(
            params(&["new-window", "-c", "/srv", "-e", "X=y"]),
            json!({"cwd": "/srv", "env": ["X=y"]})
        );
    }
}
