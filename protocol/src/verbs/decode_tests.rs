//! Each verb's params decode as the daemon decodes them: from null, from values of the declared
//! types (integers from floats with no fraction), and back from their own serialization.

use serde_json::json;

use super::*;
use crate::registry::decode;

#[test]
fn params_decode_from_null_and_values() {
    let p: new_window::Params = decode(&serde_json::Value::Null).unwrap();
    assert_eq!(p, new_window::Params::default());
    let p: new_window::Params =
        decode(&json!({"session": "s", "command": ["a", "b"], "remain": true, "focus": null, "workspace": 2.0}))
            .unwrap();
    assert_eq!(p.command, Some(vec!["a".to_owned(), "b".to_owned()]));
    assert_eq!(p.remain, Some(true));
    assert_eq!(p.focus, None);
    assert_eq!(p.workspace, Some(2));
    let p: send_keys::Params = decode(&json!({"keys": "ls,Enter", "literal": false})).unwrap();
    assert_eq!(p.keys, "ls,Enter");
    // A typed request serializes its left-out params as null, which decodes back the same.
    assert_eq!(
        serde_json::to_value(&p).unwrap(),
        json!({"session": null, "window": null, "keys": "ls,Enter", "literal": false, "raw": null})
    );
    assert_eq!(
        decode::<send_keys::Params>(&serde_json::to_value(&p).unwrap()).unwrap(),
        p
    );
    let _: hello::Params = decode(&json!({"protocol": 1})).unwrap();
    let _: list_verbs::Params = decode(&json!({"verb": "hello"})).unwrap();
    let _: common::SessionParams = decode(&json!({"session": "s"})).unwrap();
    let _: common::WindowParams = decode(&json!({"window": "w"})).unwrap();
    let _: send_text::Params = decode(&json!({"text": "t"})).unwrap();
    let r: resize::Params = decode(&json!({"width": 80, "height": 24})).unwrap();
    assert_eq!((r.width, r.height), (80, 24));
}

#[test]
fn issue4_params_decode() {
    let p: set_window::Params = decode(&json!({"window": "w", "name": null})).unwrap();
    assert_eq!(p.name, None);
    assert_eq!(p.minimized, None);
    let p: set_window::Params = decode(&json!({"name": "", "minimized": true})).unwrap();
    assert_eq!(p.name.as_deref(), Some(""));
    assert_eq!(p.minimized, Some(true));

    let p: run_command::Params =
        decode(&json!({"command": "SwitchWorkspace", "args": ["2"]})).unwrap();
    assert_eq!(p.command, "SwitchWorkspace");
    assert_eq!(p.args, Some(vec!["2".to_owned()]));
    let typed = run_command::Params {
        command: "ListWindows".into(),
        ..Default::default()
    };
    let line = crate::envelope::RequestLine::new(
        Some(json!(1)),
        "run-command",
        serde_json::to_value(&typed).unwrap(),
    );
    assert_eq!(
        crate::verbs::Request::parse(&line).unwrap(),
        crate::verbs::Request::RunCommand(typed)
    );

    let p: set_workspace_order::Params = decode(&json!({"order": [3, 1.0, 2]})).unwrap();
    assert_eq!(p.order, vec![3, 1, 2]);
    let p: move_window::Params = decode(&json!({"workspace": 2.0, "follow": true})).unwrap();
    assert_eq!((p.workspace, p.follow), (2, Some(true)));
    let p: set_layout::Params = decode(&json!({"tiling": null, "rotate": true})).unwrap();
    assert_eq!((p.tiling, p.equalize, p.rotate), (None, None, Some(true)));

    let _: list_workspaces::Params = decode(&json!({"session": "s"})).unwrap();
    let _: select_workspace::Params = decode(&json!({"workspace": 1})).unwrap();
    let _: focus_window::Params = decode(&json!({"relative": "next"})).unwrap();
    let _: split_window::Params = decode(&json!({"direction": "vertical", "name": "n"})).unwrap();
    let _: set_session_name::Params = decode(&json!({"name": "x"})).unwrap();
    let _: set_session_accent::Params = decode(&json!({"accent": "cyan"})).unwrap();
    let _: set_workspace_name::Params = decode(&json!({"workspace": 2, "name": "x"})).unwrap();
    let _: list_options::Params = decode(&json!({"section": "a", "prefix": "b"})).unwrap();
    let _: set_option::Params = decode(&json!({"key": "k", "value": "v"})).unwrap();
    let _: get_option::Params = decode(&json!({"key": "k"})).unwrap();
    let _: list_themes::Params = decode(&json!({"theme": "t", "filter": "f"})).unwrap();
    // A JSON literal where a string is declared does not decode.
    assert!(decode::<set_option::Params>(&json!({"key": "k", "value": 5})).is_err());
}
