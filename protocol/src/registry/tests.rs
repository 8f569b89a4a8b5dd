//! The registry's tests: the table itself, validation, defaults and decoding, and `list-verbs`.

use super::*;
use crate::envelope::{parse_request, RequestLine};
use crate::error::ErrorCode;
use crate::{MIN_PROTOCOL_VERSION, PROTOCOL_VERSION};
use serde_json::{json, Map, Value};

fn req(verb: &str, params: Value) -> RequestLine {
    RequestLine::new(Some(json!(1)), verb, params)
}

#[test]
fn registry_is_sorted_and_complete() {
    let names = verb_names();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(names, sorted);
    assert_eq!(
        names,
        [
            "capture-pane",
            "close-window",
            "explain-agent-detect",
            "explain-agent-screen",
            "focus-window",
            "get-agent-state",
            "get-option",
            "hello",
            "kill-session",
            "list-options",
            "list-sessions",
            "list-themes",
            "list-verbs",
            "list-windows",
            "list-workspaces",
            "move-window",
            "new-session",
            "new-window",
            "record-start",
            "record-stop",
            "resize",
            "resurrect",
            "run",
            "run-command",
            "search",
            "select-workspace",
            "send-keys",
            "send-text",
            "session-info",
            "set-agent-state",
            "set-layout",
            "set-option",
            "set-session-accent",
            "set-session-name",
            "set-window",
            "set-workspace-name",
            "set-workspace-order",
            "split-window",
            "subscribe",
            "unsubscribe",
            "upgrade",
            "wait-for"
        ]
    );
    // The spec's 35 verbs and the extensions: new-session, record-start, record-stop,
    // resurrect, run, search, upgrade.
    assert_eq!(names.len(), 42);
    for v in verbs() {
        assert!(!v.description.is_empty(), "{}", v.name);
        assert!(!v.examples.is_empty(), "{} has no example", v.name);
        let mut seen = std::collections::HashSet::new();
        for p in v.params.iter().chain(v.returns) {
            assert!(!p.description.is_empty(), "{}.{}", v.name, p.name);
        }
        for p in v.params {
            assert!(seen.insert(p.name), "{} declares {} twice", v.name, p.name);
            if let Some(d) = p.default {
                if !p.accepted.is_empty() {
                    assert!(
                        p.accepted.contains(&d),
                        "{}.{} default outside accepted",
                        v.name,
                        p.name
                    );
                }
            }
        }
    }
    assert!(find_verb("new-window").is_some_and(|v| !v.returns.is_empty()));
    for name in [
        "new-window",
        "split-window",
        "focus-window",
        "move-window",
        "set-window",
        "select-workspace",
        "list-workspaces",
        "set-layout",
        "run-command",
        "list-options",
        "set-option",
        "list-themes",
        "get-option",
    ] {
        assert!(
            find_verb(name).is_some_and(|v| !v.returns.is_empty()),
            "{name} documents no returns"
        );
    }
    for v in verbs() {
        for p in v.params {
            assert!(
                !matches!(
                    p.ty,
                    ParamType::Float | ParamType::Object | ParamType::ObjectList
                ),
                "{}.{} has a result-only type",
                v.name,
                p.name
            );
        }
    }
}

#[test]
fn every_example_is_a_valid_request_for_its_verb() {
    for v in verbs() {
        for ex in v.examples {
            assert!(!ex.contains('\n'), "{ex} spans lines");
            let r = parse_request(ex).unwrap_or_else(|e| panic!("{ex}: {e:?}"));
            assert_eq!(r.verb, v.name, "{ex}");
            assert!(r.id.is_some(), "{ex}");
            assert_eq!(validate(&r).map(|s| s.name), Ok(v.name), "{ex}");
            for p in v.params.iter().filter(|p| p.required) {
                assert!(
                    r.params.get(p.name).is_some_and(|x| !x.is_null()),
                    "{ex} lacks {}",
                    p.name
                );
            }
            for p in v.params.iter().filter(|p| !p.accepted.is_empty()) {
                if let Some(val) = r.params.get(p.name).and_then(Value::as_str) {
                    assert!(check_accepted(v.name, p.name, val).is_ok(), "{ex}");
                }
            }
        }
    }
}

#[test]
fn unknown_verb_suggests_and_lists() {
    let err = validate(&req("list-window", Value::Null)).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownVerb);
    assert_eq!(err.message, "unknown verb list-window");
    assert_eq!(err.hint.did_you_mean.as_deref(), Some("list-windows"));
    assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
    assert_eq!(err.hint.command.as_deref(), Some("tuios list-verbs"));
    assert_eq!(err.hint.available, verb_names());
    assert!(err.hint.detail.is_some());

    let err = validate(&req("sendkeys", Value::Null)).unwrap_err();
    assert_eq!(err.hint.did_you_mean.as_deref(), Some("send-keys"));

    let long = "z".repeat(500);
    let err = validate(&req(&long, Value::Null)).unwrap_err();
    assert!(err.message.ends_with("... (500 bytes)"));
    assert_eq!(err.hint.did_you_mean, None);
}

#[test]
fn params_must_be_an_object() {
    for bad in [json!([1]), json!("x"), json!(3), json!(true)] {
        let err = validate(&req("list-sessions", bad)).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
    }
    assert!(validate(&req("list-sessions", Value::Null)).is_ok());
    assert!(validate(&req("list-sessions", json!({}))).is_ok());
}

#[test]
fn unknown_param_is_refused_with_a_hint() {
    let err = validate(&req("capture-pane", json!({"session": "s", "Lines": 3}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidParams);
    assert_eq!(err.message, "verb capture-pane has no parameter Lines");
    assert_eq!(err.hint.param.as_deref(), Some("Lines"));
    assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
    assert_eq!(
        err.hint.command.as_deref(),
        Some("tuios list-verbs capture-pane")
    );
    assert_eq!(err.hint.did_you_mean.as_deref(), Some("lines"));
    assert_eq!(
        err.hint.accepted,
        [
            "session",
            "window",
            "source",
            "styled",
            "scrollback",
            "ansi",
            "lines",
            "start",
            "end",
            "since"
        ]
    );
    assert!(err.hint.detail.is_some());

    // A verb without parameters refuses every key.
    let err = validate(&req("list-sessions", json!({"session": "x"}))).unwrap_err();
    assert_eq!(err.hint.param.as_deref(), Some("session"));
    assert!(err.hint.accepted.is_empty());
}

#[test]
fn every_optional_param_accepts_null_and_required_ones_refuse_it() {
    for v in verbs() {
        let params: Map<String, Value> = v
            .params
            .iter()
            .map(|p| (p.name.to_owned(), Value::Null))
            .collect();
        let result = validate(&req(v.name, Value::Object(params)));
        match v.params.iter().find(|p| p.required) {
            None => assert!(result.is_ok(), "{}", v.name),
            Some(p) => {
                let err = result.unwrap_err();
                assert_eq!(err.code, ErrorCode::InvalidParams, "{}", v.name);
                assert_eq!(err.hint.param.as_deref(), Some(p.name), "{}", v.name);
                assert!(err.message.starts_with(&format!("{} is required", p.name)));
            }
        }
    }
}

#[test]
fn defaults_are_filled_in_where_left_out() {
    let spec = find_verb("wait-for").unwrap();
    let filled = with_defaults(
        spec,
        &json!({"condition": "window-idle", "fresh": null, "timeout": 5}),
    );
    assert_eq!(
        filled,
        json!({"condition": "window-idle", "source": "recent", "fresh": false, "timeout": 5})
    );
    assert_eq!(
        with_defaults(find_verb("list-sessions").unwrap(), &Value::Null),
        json!({})
    );
    // Every declared default decodes to its declared type.
    for v in verbs() {
        let filled = with_defaults(v, &Value::Null);
        for p in v.params.iter().filter(|p| p.default.is_some()) {
            assert!(p.ty.matches(&filled[p.name]), "{}.{}", v.name, p.name);
        }
    }
}

#[test]
fn types_are_checked() {
    let ok = [
        ("resize", json!({"width": 80, "height": 24})),
        ("resize", json!({"width": 80.0, "height": 24.0})),
        (
            "new-window",
            json!({"command": ["a", "b"], "focus": false, "workspace": 2}),
        ),
        ("new-window", json!({"command": []})),
        ("send-keys", json!({"keys": "x", "literal": true})),
    ];
    for (verb, params) in ok {
        assert!(
            validate(&req(verb, params.clone())).is_ok(),
            "{verb} {params}"
        );
    }
    let bad = [
        ("resize", json!({"width": "80"}), "width"),
        ("resize", json!({"width": 80.5}), "width"),
        ("resize", json!({"height": 1e30}), "height"),
        ("resize", json!({"height": true}), "height"),
        ("new-window", json!({"command": "make"}), "command"),
        ("new-window", json!({"command": ["a", 1]}), "command"),
        ("new-window", json!({"command": ["a", null]}), "command"),
        ("new-window", json!({"focus": "yes"}), "focus"),
        ("new-window", json!({"name": 5}), "name"),
        ("send-keys", json!({"keys": ["a"]}), "keys"),
        ("capture-pane", json!({"lines": {}}), "lines"),
    ];
    for (verb, params, param) in bad {
        let err = validate(&req(verb, params.clone())).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams, "{verb} {params}");
        assert_eq!(err.hint.param.as_deref(), Some(param), "{verb} {params}");
        assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
        assert!(err.message.contains(param), "{}", err.message);
    }
    assert!(ParamType::IntList.matches(&json!([1, 2.0, -3])));
    assert!(!ParamType::IntList.matches(&json!([1, 2.5])));
    assert!(!ParamType::IntList.matches(&json!(1)));
}

#[test]
fn declared_limits_are_checked_after_the_types() {
    use crate::limits::{MAX_MESSAGE_BYTES, MAX_NAME_BYTES};
    // The params that carry a limit, and which: the table a verb-name match once held.
    let mut limited: Vec<(&str, &str, Limit)> = Vec::new();
    for v in verbs() {
        for p in v.params {
            if let Some(l) = p.limit {
                limited.push((v.name, p.name, l));
            }
        }
        assert!(v.returns.iter().all(|p| p.limit.is_none()), "{}", v.name);
    }
    let message = Limit::Bytes(MAX_MESSAGE_BYTES, "MAX_MESSAGE_BYTES");
    assert_eq!(
        limited,
        [
            ("new-window", "name", Limit::Name),
            ("resize", "width", Limit::Cols),
            ("resize", "height", Limit::Rows),
            ("set-agent-state", "message", message),
            ("set-session-name", "name", Limit::Name),
            ("set-window", "name", Limit::Name),
            ("set-workspace-name", "name", Limit::Name),
            ("split-window", "name", Limit::Name),
        ]
    );

    assert!(validate(&req("resize", json!({"width": 80, "height": 24}))).is_ok());
    let err = validate(&req("resize", json!({"width": 65535, "height": 24}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidParams);
    assert_eq!(err.message, "width 65535 is outside 1..=1000 columns");
    assert_eq!(err.hint.param.as_deref(), Some("width"));
    assert_eq!(err.hint.verb, None);
    assert_eq!(
        err.hint.detail.as_deref(),
        Some("Terminal sizes are limited to 1..=1000 columns and 1..=1000 rows (MAX_COLS, MAX_ROWS), which bounds what one window can cost the daemon.")
    );
    // Whole floats count as integers, as for the types; width is checked before height.
    let err = validate(&req("resize", json!({"width": 80, "height": 5000.0}))).unwrap_err();
    assert_eq!(err.message, "height 5000 is outside 1..=1000 rows");
    let err = validate(&req("resize", json!({"width": -1, "height": 5000}))).unwrap_err();
    assert_eq!(err.hint.param.as_deref(), Some("width"));

    let long = "x".repeat(MAX_NAME_BYTES + 1);
    for (verb, mut params) in [
        ("new-window", json!({})),
        ("split-window", json!({"direction": "vertical"})),
        ("set-window", json!({})),
        ("set-workspace-name", json!({"workspace": 2})),
        ("set-session-name", json!({})),
    ] {
        params["name"] = json!("n".repeat(MAX_NAME_BYTES));
        assert!(validate(&req(verb, params.clone())).is_ok(), "{verb}");
        params["name"] = json!(long);
        let err = validate(&req(verb, params)).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams, "{verb}");
        assert_eq!(err.hint.param.as_deref(), Some("name"), "{verb}");
        assert_eq!(
            err.message,
            "name is 4097 bytes long; the limit is 4096 bytes (MAX_NAME_BYTES)"
        );
        assert_eq!(err.hint.detail.as_deref(), Some("Shorten the value."));
    }
    let err = validate(&req(
        "set-agent-state",
        json!({"state": "idle", "message": "m".repeat(MAX_MESSAGE_BYTES + 1)}),
    ))
    .unwrap_err();
    assert_eq!(err.hint.param.as_deref(), Some("message"));
    assert_eq!(
        err.message,
        "message is 4097 bytes long; the limit is 4096 bytes (MAX_MESSAGE_BYTES)"
    );
    // A type error still comes first, and params without a limit take any length.
    let err = validate(&req("resize", json!({"width": 5000, "height": "x"}))).unwrap_err();
    assert_eq!(err.hint.param.as_deref(), Some("height"));
    assert!(validate(&req("send-text", json!({ "text": long }))).is_ok());
    assert!(validate(&req("new-window", json!({ "name": null }))).is_ok());
}

#[test]
fn decode_handles_null_and_whole_floats() {
    #[derive(serde::Deserialize, Debug, Default)]
    struct P {
        width: Option<i64>,
        list: Option<Vec<i64>>,
        name: Option<String>,
    }
    let p: P = decode(&Value::Null).unwrap();
    assert!(p.width.is_none() && p.list.is_none() && p.name.is_none());
    let p: P = decode(&json!({"width": 80.0, "list": [1.0, 2], "name": null})).unwrap();
    assert_eq!(p.width, Some(80));
    assert_eq!(p.list, Some(vec![1, 2]));
    assert_eq!(p.name, None);
    let err = decode::<P>(&json!({"width": "x"})).unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidParams);
    assert_eq!(err.hint.verb.as_deref(), Some("list-verbs"));
}

#[test]
fn list_verbs_shape() {
    let out = serde_json::to_value(list_verbs(None, "0.1.0-test").unwrap()).unwrap();
    assert_eq!(out["type"], "verb_list");
    assert_eq!(out["version"], PROTOCOL_VERSION);
    assert_eq!(out["min_version"], MIN_PROTOCOL_VERSION);
    assert_eq!(out["daemon_version"], "0.1.0-test");
    let env = out["envelope"].as_object().unwrap();
    for k in ["transport", "request", "success", "failure", "hint"] {
        assert!(env[k].as_str().is_some_and(|s| !s.is_empty()), "{k}");
    }
    let codes: Vec<&str> = out["error_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(codes, want);
    for c in out["error_codes"].as_array().unwrap() {
        assert!(c["description"].as_str().is_some_and(|d| !d.is_empty()));
    }

    let verbs_out = out["verbs"].as_array().unwrap();
    let names: Vec<&str> = verbs_out
        .iter()
        .map(|v| v["verb"].as_str().unwrap())
        .collect();
    assert_eq!(names, verb_names());
    for v in verbs_out {
        let name = v["verb"].as_str().unwrap();
        let spec = find_verb(name).unwrap();
        assert!(v["params"].is_array(), "{name} params always present");
        assert_eq!(v.get("returns").is_some(), !spec.returns.is_empty());
        assert_eq!(v.get("examples").is_some(), !spec.examples.is_empty());
        for p in v["params"].as_array().unwrap() {
            let pname = p["name"].as_str().unwrap();
            let ps = spec.param(pname).unwrap();
            assert!(["string", "int", "bool", "[]string", "[]int"]
                .contains(&p["type"].as_str().unwrap()));
            assert_eq!(p.get("required").is_some(), ps.required);
            if ps.required {
                assert_eq!(p["required"], true);
            }
            let published: Vec<&str> = p
                .get("accepted")
                .map(|a| {
                    a.as_array()
                        .unwrap()
                        .iter()
                        .map(|s| s.as_str().unwrap())
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(published, accepted_of(name, pname), "{name}.{pname}");
            assert_eq!(p.get("default").and_then(Value::as_str), ps.default);
        }
    }
    let cp = verbs_out
        .iter()
        .find(|v| v["verb"] == "capture-pane")
        .unwrap();
    let source = cp["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "source")
        .unwrap();
    assert_eq!(source["accepted"], json!(["visible", "recent"]));
    assert_eq!(source["default"], "visible");
    let ls = verbs_out
        .iter()
        .find(|v| v["verb"] == "list-sessions")
        .unwrap();
    assert_eq!(ls["params"], json!([]));
}

#[test]
fn list_verbs_for_one_verb() {
    let out = serde_json::to_value(list_verbs(Some("resize"), "x").unwrap()).unwrap();
    let verbs_out = out["verbs"].as_array().unwrap();
    assert_eq!(verbs_out.len(), 1);
    assert_eq!(verbs_out[0]["verb"], "resize");
    assert_eq!(out["error_codes"].as_array().unwrap().len(), 13);
    assert_eq!(
        list_verbs(Some(""), "x").unwrap().verbs.len(),
        verbs().len()
    );

    let err = list_verbs(Some("capture-pain"), "x").unwrap_err();
    assert_eq!(err.code, ErrorCode::UnknownVerb);
    assert_eq!(err.hint.param.as_deref(), Some("verb"));
    assert_eq!(err.hint.did_you_mean.as_deref(), Some("capture-pane"));
    assert_eq!(err.hint.available, verb_names());
}

#[test]
fn new_verbs_publish_their_accepted_sets() {
    // Declared as crate::commands::COMMAND_NAMES, so it cannot drift from the command table.
    assert_eq!(
        accepted_of("run-command", "command"),
        crate::commands::command_names()
    );
    assert_eq!(accepted_of("focus-window", "relative"), ["next", "prev"]);
    assert_eq!(
        accepted_of("focus-window", "direction"),
        ["left", "right", "up", "down"]
    );
    assert_eq!(
        accepted_of("split-window", "direction"),
        ["horizontal", "vertical"]
    );
    // The option registry lives elsewhere; key stays open here.
    assert!(accepted_of("set-option", "key").is_empty());
    assert!(accepted_of("get-option", "key").is_empty());

    let err = check_accepted("run-command", "command", "SwitchWorkpace").unwrap_err();
    assert_eq!(err.hint.did_you_mean.as_deref(), Some("SwitchWorkspace"));
    let err = check_accepted("split-window", "direction", "vertcal").unwrap_err();
    assert_eq!(err.hint.did_you_mean.as_deref(), Some("vertical"));

    let required = |verb: &str| -> Vec<&str> {
        find_verb(verb)
            .unwrap()
            .params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name)
            .collect()
    };
    assert_eq!(required("select-workspace"), ["workspace"]);
    assert_eq!(required("move-window"), ["workspace"]);
    assert_eq!(required("split-window"), ["direction"]);
    assert_eq!(required("run-command"), ["command"]);
    assert_eq!(required("set-workspace-name"), ["workspace"]);
    assert_eq!(required("set-workspace-order"), ["order"]);
    assert_eq!(required("set-option"), ["key"]);
    assert_eq!(required("get-option"), ["key"]);
    for verb in [
        "set-window",
        "set-layout",
        "list-options",
        "list-themes",
        "focus-window",
    ] {
        assert!(required(verb).is_empty(), "{verb}");
    }
    let default = |verb: &str, p: &str| find_verb(verb).unwrap().param(p).unwrap().default;
    assert_eq!(default("move-window", "follow"), Some("false"));
    assert_eq!(default("set-layout", "equalize"), Some("false"));
    assert_eq!(default("set-layout", "rotate"), Some("false"));
    assert_eq!(default("set-layout", "tiling"), None);

    let types = [
        ("set-workspace-order", json!({"order": [3, 1.0, 2]}), true),
        ("set-workspace-order", json!({"order": ["3"]}), false),
        (
            "run-command",
            json!({"command": "Type", "args": ["hi"]}),
            true,
        ),
        (
            "run-command",
            json!({"command": "SwitchWorkspace", "args": [2]}),
            false,
        ),
        ("set-option", json!({"key": "k", "value": true}), false),
        (
            "set-window",
            json!({"name": null, "minimized": false}),
            true,
        ),
        ("set-layout", json!({"tiling": "on"}), false),
    ];
    for (verb, params, ok) in types {
        assert_eq!(
            validate(&req(verb, params.clone())).is_ok(),
            ok,
            "{verb} {params}"
        );
    }
}

#[test]
fn accepted_values() {
    assert_eq!(accepted_of("capture-pane", "source"), CAPTURE_SOURCES);
    assert!(accepted_of("capture-pane", "nope").is_empty());
    assert!(accepted_of("nope", "source").is_empty());
    assert!(check_accepted("capture-pane", "source", "recent").is_ok());
    assert!(check_accepted("send-text", "text", "anything").is_ok());
    let err = check_accepted("capture-pane", "source", "visibel").unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidParams);
    assert_eq!(err.hint.param.as_deref(), Some("source"));
    assert_eq!(err.hint.accepted, ["visible", "recent"]);
    assert_eq!(err.hint.did_you_mean.as_deref(), Some("visible"));
}
