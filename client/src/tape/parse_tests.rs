use super::*;

fn one(line: &str) -> Cmd {
    let steps = parse(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
    assert_eq!(steps.len(), 1, "{line:?}");
    steps.into_iter().next().unwrap().cmd
}

fn bad(text: &str) -> ParseError {
    parse(text).expect_err(text)
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn durations() {
    assert_eq!(parse_duration("500ms"), Some(ms(500)));
    assert_eq!(parse_duration("2s"), Some(ms(2000)));
    assert_eq!(parse_duration("1.5s"), Some(ms(1500)));
    assert_eq!(parse_duration("1m"), Some(ms(60_000)));
    assert_eq!(
        parse_duration("3"),
        Some(ms(3000)),
        "a bare number is seconds"
    );
    assert_eq!(parse_duration("0ms"), Some(ms(0)));
    for b in [
        "", "ms", "s", "fast", "-1s", "1h", "1.2.3s", "1e3ms", "NaNs",
    ] {
        assert_eq!(parse_duration(b), None, "{b:?}");
    }
}

#[test]
fn type_takes_a_string_in_any_quotes() {
    for line in [
        r#"Type "echo hi""#,
        "Type 'echo hi'",
        "Type `echo hi`",
        r#"type "echo hi""#,
    ] {
        assert_eq!(
            one(line),
            Cmd::Type {
                text: "echo hi".into(),
                delay: None
            },
            "{line}"
        );
    }
    // Quotes of another kind and backslashes are kept as written.
    assert_eq!(
        one(r#"Type 'say "hi" \n'"#),
        Cmd::Type {
            text: r#"say "hi" \n"#.into(),
            delay: None
        }
    );
    for line in [r#"Type@50ms "ab""#, r#"Type @50ms "ab""#] {
        assert_eq!(
            one(line),
            Cmd::Type {
                text: "ab".into(),
                delay: Some(ms(50))
            },
            "{line}"
        );
    }
    assert_eq!(
        one(r#"Type """#),
        Cmd::Type {
            text: String::new(),
            delay: None
        }
    );
}

#[test]
fn keys_with_counts() {
    for name in KEYS {
        assert_eq!(one(name), Cmd::Key { name, count: 1 });
        assert_eq!(
            one(&format!("{} 3", name.to_uppercase())),
            Cmd::Key { name, count: 3 }
        );
    }
}

#[test]
fn combos_become_send_keys_tokens() {
    let combo = |line: &str| match one(line) {
        Cmd::Combo { token, written } => {
            assert_eq!(written, line);
            token
        }
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(combo("Ctrl+C"), "ctrl+c");
    assert_eq!(combo("ctrl+c"), "ctrl+c");
    assert_eq!(combo("Alt+x"), "alt+x");
    assert_eq!(combo("Alt+X"), "alt+X", "alt keeps the letter's case");
    assert_eq!(combo("Shift+Tab"), "shift+Tab");
    assert_eq!(combo("Alt+Enter"), "alt+Enter");
    assert_eq!(combo("Alt+3"), "alt+3");
    assert_eq!(combo("Ctrl+["), "ctrl+[");
}

#[test]
fn sleep_and_set() {
    assert_eq!(one("Sleep 500ms"), Cmd::Sleep(ms(500)));
    assert_eq!(one("sleep 1.5s"), Cmd::Sleep(ms(1500)));
    assert_eq!(
        one("Set WaitTimeout 30s"),
        Cmd::Set(Setting::WaitTimeout(ms(30_000)))
    );
    assert_eq!(
        one("set typingspeed 20ms"),
        Cmd::Set(Setting::TypingSpeed(ms(20)))
    );
}

#[test]
fn waits() {
    assert_eq!(
        one("Wait"),
        Cmd::WaitIdle {
            idle: DEFAULT_IDLE,
            timeout: None
        }
    );
    assert_eq!(
        one("Wait 2s"),
        Cmd::WaitIdle {
            idle: ms(2000),
            timeout: None
        }
    );
    assert_eq!(
        one("Wait@10s /ready/"),
        Cmd::WaitRegex {
            pattern: "ready".into(),
            timeout: Some(ms(10_000))
        }
    );
    assert_eq!(
        one(r#"WaitUntilRegex "^done$""#),
        Cmd::WaitRegex {
            pattern: "^done$".into(),
            timeout: None
        }
    );
    assert_eq!(
        one(r#"WaitUntilRegex "a b" 2500"#),
        Cmd::WaitRegex {
            pattern: "a b".into(),
            timeout: Some(ms(2500))
        }
    );
    // A `/` in a pattern string is just a character.
    assert_eq!(
        one(r#"WaitUntilRegex "a/b""#),
        Cmd::WaitRegex {
            pattern: "a/b".into(),
            timeout: None
        }
    );
}

#[test]
fn window_commands_use_the_run_command_vocabulary() {
    let run = |line: &str| match one(line) {
        Cmd::Run { name, args } => (name, args),
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(run("NewWindow"), ("NewWindow", vec![]));
    assert_eq!(run("newwindow"), ("NewWindow", vec![]));
    assert_eq!(
        run("SwitchWorkspace 2"),
        ("SwitchWorkspace", vec!["2".into()])
    );
    assert_eq!(
        run(r#"RenameWindow "build logs""#),
        ("RenameWindow", vec!["build logs".into()])
    );
    assert_eq!(run("Split vertical"), ("Split", vec!["vertical".into()]));
    assert_eq!(run("EnableTiling"), ("EnableTiling", vec![]));
    assert_eq!(run("Focus 2"), ("FocusWindow", vec!["2".into()]));
    assert_eq!(
        run("FocusWindow build"),
        ("FocusWindow", vec!["build".into()])
    );
}

#[test]
fn source_is_a_path() {
    assert_eq!(
        one("Source lib/setup.tape"),
        Cmd::Source("lib/setup.tape".into())
    );
    assert_eq!(
        one("Source /abs/setup.tape"),
        Cmd::Source("/abs/setup.tape".into())
    );
    assert_eq!(
        one(r#"Source "my tapes/a.tape""#),
        Cmd::Source("my tapes/a.tape".into())
    );
}

#[test]
fn comments_and_blank_lines_are_skipped_and_lines_counted() {
    let text = "# a CI tape\n\n   \nType \"ls\" # list\n  Enter\n";
    let steps = parse(text).unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!((steps[0].line, steps[0].column), (4, 1));
    assert_eq!((steps[1].line, steps[1].column), (5, 3));
    // A # inside a string is text.
    assert_eq!(
        one("Type \"echo '#1'\""),
        Cmd::Type {
            text: "echo '#1'".into(),
            delay: None
        }
    );
    assert_eq!(parse("").unwrap(), vec![]);
    assert_eq!(parse("\r\n# only a comment\r\n").unwrap(), vec![]);
}

#[test]
fn errors_name_line_and_column() {
    let e = bad("Type \"ok\"\nEnter\nTpye \"oops\"\n");
    assert_eq!((e.line, e.column), (3, 1));
    assert_eq!(e.message, "unknown command \"Tpye\"");
    assert!(e.hint.as_deref().unwrap().contains("Type"), "{e:?}");
    assert_eq!(e.to_string(), "3:1: unknown command \"Tpye\"");

    let e = bad("Type \"never closed");
    assert_eq!((e.line, e.column), (1, 6));
    assert!(e.message.contains("never closed"), "{e:?}");

    let e = bad("Type hello");
    assert_eq!((e.line, e.column), (1, 6));
    assert!(e.message.contains("in quotes"), "{e:?}");
    assert_eq!(e.hint.as_deref(), Some("Type \"hello\""));

    let e = bad("Type");
    assert_eq!(e.message, "Type needs the text to type, in quotes");

    let e = bad("Type \"a\" \"b\"");
    assert_eq!((e.line, e.column), (1, 10));
    assert!(e.message.contains("left over"), "{e:?}");

    let e = bad("\"text first\"");
    assert!(e.message.contains("starts with a command"), "{e:?}");
}

#[test]
fn bad_arguments_are_refused() {
    let cases: &[(&str, usize, &str)] = &[
        ("Sleep", 1, "Sleep needs a duration"),
        ("Sleep soon", 7, "\"soon\" is not a duration"),
        ("Sleep 2h", 7, "\"2h\" is not a duration"),
        ("Sleep 5000", 7, "longer than a tape may wait"),
        ("Sleep@1s 2s", 1, "Sleep takes no @delay"),
        ("Enter 0", 7, "repeat count is a number from 1 to 1000"),
        ("Enter many", 7, "repeat count"),
        ("Enter 2 3", 9, "left over"),
        ("Wait 2s 3s", 9, "left over"),
        ("Wait soon", 6, "not a duration"),
        ("Wait //", 6, "pattern is empty"),
        ("Wait /unclosed", 6, "never closed"),
        ("WaitUntilRegex", 1, "WaitUntilRegex needs a pattern"),
        ("WaitUntilRegex ready", 16, "wants its pattern in quotes"),
        ("WaitUntilRegex \"x\" soon", 20, "number of milliseconds"),
        ("Set FontSize 14", 5, "unknown setting"),
        ("Set WaitTimeout", 5, "needs a value"),
        ("Set WaitTimeout fast", 17, "not a duration"),
        ("Output demo.gif", 1, "nothing to record"),
        ("Focus", 1, "Focus needs a window name or id"),
        ("Split", 1, "Split takes exactly 1 argument, got 0"),
        (
            "ListWindows now",
            1,
            "ListWindows takes no arguments, got 1",
        ),
        (
            "SwitchWorkspace",
            1,
            "SwitchWorkspace takes exactly 1 argument",
        ),
        ("Ctrl+", 1, "names no key"),
        ("Ctrl+1", 1, "Ctrl+1"),
        ("Hyper+x", 1, "unknown command"),
        ("Ctrl+Meta+x", 1, "not a modifier"),
        ("Ctrl+C now", 8, "left over"),
    ];
    for (line, column, needle) in cases {
        let e = bad(line);
        assert_eq!(e.line, 1, "{line}");
        assert_eq!(e.column, *column, "{line}: {e:?}");
        assert!(
            e.message.contains(needle),
            "{line}: {:?} lacks {needle:?}",
            e.message
        );
    }
}

#[test]
fn wrong_count_keeps_the_usage_as_hint() {
    let e = bad("NewWindow\nRenameWindow a b c");
    assert_eq!((e.line, e.column), (2, 1));
    assert_eq!(
        e.hint.as_deref(),
        Some("usage: RenameWindow <new-name> | <target> <new-name>")
    );
}

#[test]
fn misspelled_window_command_gets_a_suggestion() {
    let e = bad("EnableTilling");
    assert_eq!(e.message, "unknown command \"EnableTilling\"");
    assert!(e.hint.unwrap().contains("EnableTiling"));
}

#[test]
fn never_panics_on_odd_input() {
    for text in [
        "@",
        "Type@",
        "Type@ \"x\"",
        "Wait@",
        "Ctrl++",
        "+",
        "Alt+",
        "Wait /",
        "\u{0}",
        "é \"",
        "Type \"é\" é",
        "``",
        "Set",
        "Set WaitTimeout 1s 2s",
        "Source",
    ] {
        let _ = parse(text);
    }
}
