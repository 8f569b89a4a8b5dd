//! From a request line to a typed [`Request`]: the registry's validation, its declared defaults,
//! then the verb's params type.
//!
//! Kept apart from the verb list in `mod.rs` because it calls the registry, which reads that
//! list's table: the declarations import only the registry's leaf `spec.rs`, so the two do not
//! import each other.

use super::Request;
use crate::registry::{validate, with_defaults};
use crate::VerbError;

impl Request {
    /// Validates a request line's verb and params against the registry (names, types, required
    /// params, limits), fills in declared defaults, and decodes the params.
    pub fn parse(req: &crate::envelope::RequestLine) -> Result<Request, VerbError> {
        let spec = validate(req)?;
        Request::decode(spec, &with_defaults(spec, &req.params))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_parse_applies_defaults_and_requires() {
        let parse = |line: &str| Request::parse(&crate::envelope::parse_request(line).unwrap());
        match parse(r#"{"id":1,"verb":"wait-for","params":{"condition":"window-idle"}}"#).unwrap() {
            Request::WaitFor(p) => {
                assert_eq!(p.condition, "window-idle");
                assert_eq!(p.timeout, Some(30000));
                // Its default depends on the condition: the handler fills it in.
                assert_eq!(p.idle, None);
                assert_eq!(p.source.as_deref(), Some("recent"));
                assert_eq!(p.fresh, Some(false));
                assert_eq!(p.until, None);
            }
            other => panic!("{other:?}"),
        }
        for line in [
            r#"{"id":1,"verb":"send-keys","params":{}}"#,
            r#"{"id":1,"verb":"send-keys","params":{"keys":null}}"#,
            r#"{"id":1,"verb":"send-keys","params":{"keys":""}}"#,
            r#"{"id":1,"verb":"select-workspace","params":{"workspace":0}}"#,
            r#"{"id":1,"verb":"set-workspace-order","params":{"order":[]}}"#,
        ] {
            let err = parse(line).unwrap_err();
            assert_eq!(err.code, crate::ErrorCode::InvalidParams, "{line}");
            assert!(
                err.message.contains("is required"),
                "{line}: {}",
                err.message
            );
            assert!(err.hint.param.is_some(), "{line}");
        }
        let r = parse(r#"{"id":1,"verb":"list-sessions"}"#).unwrap();
        assert_eq!(r.verb(), "list-sessions");
    }
}
