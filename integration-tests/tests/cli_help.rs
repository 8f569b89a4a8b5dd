//! `tuios --help` fits on a screen: at most 60 lines of at most 100 columns, grouped, and without
//! protocol provenance; `tuios help --all` names every command the man page names, one line each.

use tuios_integration_tests::{describe, TestEnv};

const MAX_LINES: usize = 60;
const MAX_WIDTH: usize = 100;

fn stdout_of(env: &TestEnv, args: &[&str]) -> String {
    let out = env.cli(args);
    assert!(out.status.success(), "tuios {args:?}: {}", describe(&out));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn assert_fits(what: &str, text: &str, max_lines: usize) {
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.len() <= max_lines,
        "{what}: {} lines, at most {max_lines} allowed:\n{text}",
        lines.len()
    );
    for line in &lines {
        assert!(
            line.chars().count() <= MAX_WIDTH,
            "{what}: a line of {} columns, at most {MAX_WIDTH} allowed: {line}",
            line.chars().count()
        );
    }
}

#[test]
fn the_short_help_fits_on_a_screen() {
    let env = TestEnv::new();
    let help = stdout_of(&env, &["--help"]);
    assert_fits("tuios --help", &help, MAX_LINES);
    assert_eq!(stdout_of(&env, &["-h"]), help, "-h and --help differ");
    assert_eq!(stdout_of(&env, &["help"]), help, "help and --help differ");
    for group in ["Sessions:", "Windows:", "Input and output:", "Servers:"] {
        assert!(
            help.lines().any(|l| l == group),
            "no group {group}:\n{help}"
        );
    }
    for command in [
        "new",
        "attach",
        "send-keys",
        "wait-for",
        "capture-pane",
        "web",
    ] {
        assert!(
            help.lines()
                .any(|l| l.split_whitespace().next() == Some(command)),
            "{command} is not listed:\n{help}"
        );
    }
    assert!(help.contains("tuios help --all"), "{help}");
    assert!(!help.contains("Extension"), "provenance in --help:\n{help}");
    // With no command at all, the same help, on stderr (clap's usage-error path).
    let bare = env.cli(&[]);
    let shown = String::from_utf8_lossy(&bare.stderr);
    assert!(shown.contains("tuios help --all"), "{}", describe(&bare));
}

#[test]
fn help_all_lists_every_command_on_one_line() {
    let env = TestEnv::new();
    let all = stdout_of(&env, &["help", "--all"]);
    assert_fits("tuios help --all", &all, usize::MAX);
    assert!(!all.contains("Extension"), "{all}");
    // The main man page lists every subcommand as tuios-NAME(1), from the clap definition.
    let page = stdout_of(&env, &["man"]);
    let mut names: Vec<String> = page
        .split("tuios\\-")
        .skip(1)
        .filter_map(|rest| rest.split_once("(1)").map(|(n, _)| n.replace("\\-", "-")))
        .filter(|n| !n.contains(char::is_whitespace))
        .collect();
    names.sort();
    names.dedup();
    assert!(
        names.len() > 40,
        "too few subcommands read from tuios.1: {names:?}"
    );
    for name in &names {
        let rows = all
            .lines()
            .filter(|l| l.split_whitespace().next() == Some(name.as_str()))
            .count();
        assert_eq!(rows, 1, "{name} is listed {rows} times:\n{all}");
    }
}

#[test]
fn help_of_one_command_is_its_full_help() {
    let env = TestEnv::new();
    let via_help = stdout_of(&env, &["help", "upgrade"]);
    assert_eq!(via_help, stdout_of(&env, &["upgrade", "--help"]));
    assert!(
        via_help.contains("SIGUSR2"),
        "the full description: {via_help}"
    );
    let nested = stdout_of(&env, &["help", "tape", "run"]);
    assert!(nested.contains("Usage: tuios tape run"), "{nested}");
    let out = env.cli(&["help", "no-such-command"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("tuios help --all"),
        "{}",
        describe(&out)
    );
}
