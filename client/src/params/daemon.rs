//! The daemon and its protocol: `hello` and `list-verbs`.

use super::Request;

pub fn list_verbs(verb: Option<&str>) -> Request {
    let mut req = Request::new("list-verbs");
    req.set_opt("verb", verb);
    req
}

/// Always states our protocol version, so a daemon that cannot serve us says so here.
pub fn hello() -> Request {
    let mut req = Request::new("hello");
    req.set("client", "tuios");
    req.set("version", env!("CARGO_PKG_VERSION"));
    req.set("protocol", protocol::PROTOCOL_VERSION);
    req
}

#[cfg(test)]
mod tests {
    use crate::params::tests::params;
    use serde_json::json;

    #[test]
    fn hello_states_client_version_and_protocol() {
        assert_eq!(
            params(&["hello", "--json"]),
            json!({
                "client": "tuios", "version": env!("CARGO_PKG_VERSION"),
                "protocol": protocol::PROTOCOL_VERSION
            })
        );
    }
}
