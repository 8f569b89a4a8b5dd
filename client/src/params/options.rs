//! Option and theme verbs.

use crate::cli::{GetOptionArgs, ListOptionsArgs, ListThemesArgs, SetOptionArgs};

use super::{session_target, Request};

pub fn list_options(a: &ListOptionsArgs) -> Request {
    let mut req = Request::new("list-options");
    session_target(&mut req, &a.target);
    req.set_opt("prefix", a.prefix.clone());
    req.set_opt("section", a.section.clone());
    req
}

pub fn get_option(a: &GetOptionArgs) -> Request {
    let mut req = Request::new("get-option");
    session_target(&mut req, &a.target);
    req.set("key", a.key.clone());
    req
}

pub fn set_option(a: &SetOptionArgs) -> Request {
    let mut req = Request::new("set-option");
    session_target(&mut req, &a.target);
    req.set("key", a.key.clone());
    req.set("value", a.value.clone());
    req
}

pub fn list_themes(a: &ListThemesArgs) -> Request {
    let mut req = Request::new("list-themes");
    session_target(&mut req, &a.target);
    req.set_opt("theme", a.theme.clone());
    req.set_opt("filter", a.filter.clone());
    req
}

#[cfg(test)]
mod tests {
    use crate::params::tests::{params, refused};
    use serde_json::json;

    #[test]
    fn option_and_theme_commands_map_their_arguments() {
        assert_eq!(
            params(&["list-options", "appearance.sidebar", "--section", "sidebar"]),
            json!({"prefix": "appearance.sidebar", "section": "sidebar"})
        );
        assert_eq!(params(&["list-options"]), json!({}));
        assert_eq!(
            params(&["get-config", "-s", "w", "theme"]),
            json!({"session": "w", "key": "theme"})
        );
        assert_eq!(
            params(&["set-config", "theme", ""]),
            json!({"key": "theme", "value": ""})
        );
        assert_eq!(
            params(&[
                "set-option",
                "-s",
                "w",
                "appearance.border_style",
                "rounded"
            ]),
            json!({"session": "w", "key": "appearance.border_style", "value": "rounded"})
        );
        assert_eq!(
            refused(&["set-option", "theme"]),
            clap::error::ErrorKind::MissingRequiredArgument
        );
        assert_eq!(
            params(&["list-themes", "dracula", "--filter", "dark"]),
            json!({"theme": "dracula", "filter": "dark"})
        );
        assert_eq!(
            params(&["hello", "--json"]),
            json!({
                "client": "tuios", "version": env!("CARGO_PKG_VERSION"),
                "protocol": protocol::PROTOCOL_VERSION
            })
        );
    }
}
