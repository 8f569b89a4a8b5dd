//! Every verb, declared once: one module per verb holds its `Params` (what a request carries),
//! its `Reply` (every key the daemon sends back, extensions included) and its `SPEC` (the
//! metadata `list-verbs` publishes: description, parameters with their required flags, defaults
//! and accepted values, the keys the reply carries, and examples; plus each parameter's limit,
//! which validation applies and `list-verbs` does not publish).
//!
//! The [`for_each_verb!`] list below generates from those declarations the registry table, the
//! exhaustive [`Request`] enum the daemon dispatches on, request decoding (after the registry's
//! central validation), and the JSON Schema of every request and reply. A module that lacks one
//! of the three items does not compile, and a verb the daemon does not handle is a
//! non-exhaustive `match`.
//!
//! Adding a verb: write `protocol/src/verbs/<verb>.rs` and list it in [`for_each_verb!`]; the
//! daemon (`actors/src/verbs/<verb>.rs`) and the CLI (`client/src/verbs/<verb>.rs`) then each
//! need a module of that name, which their tables (expanded from the same list) name.
//!
//! Params serialize every field, `None` as `null`, which the daemon reads as left out; a reply's
//! optional keys are left out instead, as the wire shapes have them.

use serde::Serialize;
use serde_json::Value;

use crate::registry::spec::VerbSpec;
use crate::VerbError;

/// A reply's `type` tag: a unit type that serializes as its one string and accepts only that
/// string, so a reply cannot carry the wrong tag.
macro_rules! reply_tag {
    ($(#[$meta:meta])* $name:ident = $value:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name;

        impl $name {
            pub const VALUE: &'static str = $value;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($value)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                if s == $value {
                    Ok($name)
                } else {
                    Err(serde::de::Error::custom(format!(
                        "reply type {s:?} is not {:?}",
                        $value
                    )))
                }
            }
        }

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"type": "string", "const": $value})
            }
        }
    };
}

pub mod common;
mod parse;

/// What each verb module imports.
mod prelude {
    pub use super::common::*;
    pub use crate::registry::spec::ParamType::{
        Bool, Float, Int, IntList, Object, ObjectList, String as Str, StringList,
    };
    pub(crate) use crate::registry::spec::{param, required, with_default};
    pub use crate::registry::spec::{Limit, VerbSpec};
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
    pub use serde_json::{Map, Value};
}

/// The JSON Schema of one verb's params and of its reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VerbSchema {
    pub verb: &'static str,
    pub params: Value,
    pub reply: Value,
}

macro_rules! verbs {
    ($($variant:ident => $module:ident,)*) => {
        $(pub mod $module;)*

        /// A request that passed validation, decoded into its verb's params. One variant per
        /// verb, so the daemon's dispatch is an exhaustive match.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Request {
            $($variant($module::Params),)*
        }

        /// A verb's answer, typed. Serialized as the reply alone (the variant is not written).
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Reply {
            $($variant($module::Reply),)*
        }

        /// The registry table, sorted by name (checked by a test).
        pub(crate) static VERBS: &[VerbSpec] = &[$($module::SPEC,)*];

        impl Request {
            /// Decodes params that passed the registry's validation (defaults filled in) into
            /// the variant of the verb `spec` names; [`Request::parse`] (in `parse.rs`) is the
            /// way in from a request line.
            fn decode(spec: &VerbSpec, params: &Value) -> Result<Request, VerbError> {
                $(
                    if spec.name == $module::SPEC.name {
                        return Ok(Request::$variant(crate::registry::decode::decode(params)?));
                    }
                )*
                unreachable!("registry::validate returned a verb the table does not hold")
            }

            /// The verb's name.
            pub fn verb(&self) -> &'static str {
                match self {
                    $(Request::$variant(_) => $module::SPEC.name,)*
                }
            }
        }

        /// The JSON Schema of one verb's params and reply, generated from their types.
        pub fn schema(verb: &str) -> Option<VerbSchema> {
            $(
                if verb == $module::SPEC.name {
                    return Some(VerbSchema {
                        verb: $module::SPEC.name,
                        params: titled(
                            schemars::schema_for!($module::Params).to_value(),
                            format!("{} params", $module::SPEC.name),
                        ),
                        reply: titled(
                            schemars::schema_for!($module::Reply).to_value(),
                            format!("{} reply", $module::SPEC.name),
                        ),
                    });
                }
            )*
            None
        }
    };
}

/// The one list of verbs: `Variant => module`, sorted by wire name. Every crate that has a
/// module per verb expands its own table from it: `protocol::for_each_verb!(my_macro)` calls
/// `my_macro! { CapturePane => capture_pane, ... }` (the daemon's dispatch, the CLI's commands).
/// Adding a verb is one line here and one module per crate.
#[macro_export]
macro_rules! for_each_verb {
    ($callback:ident) => {
        $callback! {
            CapturePane => capture_pane,
            CloseWindow => close_window,
            ExplainAgentDetect => explain_agent_detect,
            ExplainAgentScreen => explain_agent_screen,
            FocusWindow => focus_window,
            GetAgentState => get_agent_state,
            GetOption => get_option,
            Hello => hello,
            KillSession => kill_session,
            ListOptions => list_options,
            ListSessions => list_sessions,
            ListThemes => list_themes,
            ListVerbs => list_verbs,
            ListWindows => list_windows,
            ListWorkspaces => list_workspaces,
            MoveWindow => move_window,
            NewSession => new_session,
            NewWindow => new_window,
            RecordStart => record_start,
            RecordStop => record_stop,
            Resize => resize,
            Resurrect => resurrect,
            Run => run,
            RunCommand => run_command,
            Search => search,
            SelectWorkspace => select_workspace,
            SendKeys => send_keys,
            SendText => send_text,
            SessionInfo => session_info,
            SetAgentState => set_agent_state,
            SetLayout => set_layout,
            SetOption => set_option,
            SetSessionAccent => set_session_accent,
            SetSessionName => set_session_name,
            SetWindow => set_window,
            SetWorkspaceName => set_workspace_name,
            SetWorkspaceOrder => set_workspace_order,
            SplitWindow => split_window,
            Subscribe => subscribe,
            Unsubscribe => unsubscribe,
            Upgrade => upgrade,
            WaitFor => wait_for,
        }
    };
}

for_each_verb!(verbs);

/// A schema titled after its verb (the Rust type names, Params and Reply, say nothing).
fn titled(mut schema: Value, title: String) -> Value {
    if let Some(map) = schema.as_object_mut() {
        map.insert("title".into(), title.into());
    }
    schema
}

/// The schema of every verb, in registry order.
pub fn schemas() -> Vec<VerbSchema> {
    VERBS.iter().filter_map(|v| schema(v.name)).collect()
}

/// The top-level keys a reply schema can carry (properties of the object, of each alternative
/// of an untagged enum, and of `$ref`erenced definitions), without `type`. Used to hold each
/// reply type against the `returns` its verb publishes.
pub fn reply_keys(schema: &Value) -> std::collections::BTreeSet<String> {
    fn walk(root: &Value, node: &Value, out: &mut std::collections::BTreeSet<String>) {
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or_default();
            if let Some(def) = root.get("$defs").and_then(|d| d.get(name)) {
                walk(root, def, out);
            }
        }
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            out.extend(props.keys().filter(|k| *k != "type").cloned());
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for alt in node
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                walk(root, alt, out);
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(schema, schema, &mut out);
    out
}

#[cfg(test)]
mod decode_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reply_type_matches_its_published_returns() {
        for v in VERBS {
            let s = schema(v.name).unwrap();
            let typed = reply_keys(&s.reply);
            let published: std::collections::BTreeSet<String> =
                v.returns.iter().map(|p| p.name.to_owned()).collect();
            assert_eq!(typed, published, "{}: reply type vs returns", v.name);
        }
    }

    #[test]
    fn every_params_type_matches_its_published_params() {
        for v in VERBS {
            let s = schema(v.name).unwrap();
            let typed = reply_keys(&s.params);
            let published: std::collections::BTreeSet<String> =
                v.params.iter().map(|p| p.name.to_owned()).collect();
            assert_eq!(typed, published, "{}: params type vs params", v.name);
        }
    }

    #[test]
    fn every_verb_has_a_schema() {
        let all = schemas();
        assert_eq!(all.len(), VERBS.len());
        for s in all {
            assert_eq!(s.params["type"], "object", "{}", s.verb);
        }
    }
}
