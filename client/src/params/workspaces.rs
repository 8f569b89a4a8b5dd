//! Workspace verbs: listing, switching, naming and ordering workspaces.

use crate::cli::{SelectWorkspaceArgs, SessionTarget, SetWorkspaceNameArgs, SetWorkspaceOrderArgs};

use super::{session_target, Request};

pub fn list_workspaces(t: &SessionTarget) -> Request {
    let mut req = Request::new("list-workspaces");
    session_target(&mut req, t);
    req
}

pub fn select_workspace(a: &SelectWorkspaceArgs) -> Request {
    let mut req = Request::new("select-workspace");
    session_target(&mut req, &a.target);
    req.set("workspace", a.workspace);
    req
}

pub fn set_workspace_name(a: &SetWorkspaceNameArgs) -> Request {
    let mut req = Request::new("set-workspace-name");
    session_target(&mut req, &a.target);
    req.set("workspace", a.workspace);
    req.set_opt("name", a.name.clone());
    req
}

pub fn set_workspace_order(a: &SetWorkspaceOrderArgs) -> Request {
    let mut req = Request::new("set-workspace-order");
    session_target(&mut req, &a.target);
    req.set("order", a.order.clone());
    req
}

#[cfg(test)]
mod tests {
    use crate::params::tests::{params, refused};
    use serde_json::json;

    #[test]
    fn workspace_and_label_commands_map_their_arguments() {
        assert_eq!(
            params(&["list-workspaces", "-s", "w"]),
            json!({"session": "w"})
        );
        assert_eq!(params(&["select-workspace", "4"]), json!({"workspace": 4}));
        assert_eq!(
            params(&["set-workspace-name", "2", "logs"]),
            json!({"workspace": 2, "name": "logs"})
        );
        assert_eq!(
            params(&["set-workspace-name", "2"]),
            json!({"workspace": 2})
        );
        assert_eq!(
            params(&["set-workspace-order", "3", "1", "2"]),
            json!({"order": [3, 1, 2]})
        );
        assert_eq!(
            params(&["set-workspace-order", "-s", "w", "3,1"]),
            json!({"session": "w", "order": [3, 1]})
        );
        assert_eq!(
            refused(&["set-workspace-order", "x"]),
            clap::error::ErrorKind::ValueValidation
        );
        assert_eq!(
            params(&["set-session-name", "Deploy 42"]),
            json!({"name": "Deploy 42"})
        );
        assert_eq!(params(&["set-session-name"]), json!({}));
        assert_eq!(
            params(&["set-session-accent", "-s", "w", "bright blue"]),
            json!({"session": "w", "accent": "bright blue"})
        );
    }
}
