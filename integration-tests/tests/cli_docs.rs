//! Shell completions, man pages and the example configuration, through the real binary: the
//! scripts load in the real shells, the pages render with groff, and the example is a file the
//! real daemon starts with.

use std::process::Command;
use std::time::Duration;

use serde_json::json;
use tuios_integration_tests::{describe, run_with_deadline, TestEnv};

const DEADLINE: Duration = Duration::from_secs(30);

/// Subcommands every completion script and the main man page must name.
const SOME_SUBCOMMANDS: &[&str] = &[
    "attach",
    "new",
    "kill-server",
    "send-keys",
    "wait-for",
    "completions",
    "man",
    "config",
];

fn stdout_of(env: &TestEnv, args: &[&str]) -> String {
    let out = env.cli(args);
    assert!(out.status.success(), "tuios {args:?}: {}", describe(&out));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// A tool the test needs; missing, the test fails saying so (never skips).
fn tool(name: &str) -> Command {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "this test needs `{name}` on PATH; install it (CI does) and run it again"
    );
    Command::new(name)
}

#[test]
fn completion_scripts_load_in_their_shells() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&env, &["completions", shell]);
        for sub in SOME_SUBCOMMANDS {
            assert!(script.contains(sub), "{shell} script lacks {sub}");
        }
        let path = env.dir().join(format!("tuios.{shell}"));
        std::fs::write(&path, &script).unwrap();
        // Loading it must define the completion without a single error.
        let mut cmd = tool(shell);
        match shell {
            "bash" => cmd.args(["-c", "source \"$1\" && complete -p tuios", "bash"]),
            "zsh" => cmd.args([
                "-f",
                "-c",
                "autoload -Uz compinit && compinit -u -D && source \"$1\" && whence -w _tuios",
                "zsh",
            ]),
            _ => cmd.args([
                "--no-config",
                "-c",
                "source $argv[1]; and complete --do-complete 'tuios kill-s'",
            ]),
        };
        cmd.arg(&path).env("HOME", env.dir().join("home"));
        let out = run_with_deadline(cmd, DEADLINE);
        assert!(out.status.success(), "{shell}: {}", describe(&out));
        assert!(
            out.stderr.is_empty(),
            "{shell} complained: {}",
            describe(&out)
        );
        let said = String::from_utf8_lossy(&out.stdout);
        let expected = match shell {
            "bash" => "_tuios",
            "zsh" => "_tuios: function",
            _ => "kill-server",
        };
        assert!(said.contains(expected), "{shell}: {}", describe(&out));
    }
}

#[test]
fn completions_refuse_an_unknown_shell() {
    let env = TestEnv::new();
    let out = env.cli(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bash") && err.contains("fish"), "{err}");
}

#[test]
fn man_pages_are_written_and_render() {
    let env = TestEnv::new();
    // Without --dir: tuios.1 on stdout, a roff page.
    let page = stdout_of(&env, &["man"]);
    assert!(
        page.lines().any(|l| l.starts_with(".TH tuios 1")),
        "no .TH header: {page}"
    );

    let dir = env.dir().join("share/man/man1");
    let said = stdout_of(&env, &["man", "--dir", dir.to_str().unwrap()]);
    assert!(said.starts_with("wrote "), "{said}");
    for sub in SOME_SUBCOMMANDS {
        assert!(
            dir.join(format!("tuios-{sub}.1")).is_file(),
            "no page for {sub}: {said}"
        );
    }
    let mut groff = tool("groff");
    groff
        .args(["-man", "-Tascii", "-ww"])
        .arg(dir.join("tuios.1"));
    let out = run_with_deadline(groff, DEADLINE);
    assert!(out.status.success(), "{}", describe(&out));
    assert!(out.stderr.is_empty(), "groff warned: {}", describe(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for sub in SOME_SUBCOMMANDS {
        assert!(text.contains(&format!("tuios-{sub}(1)")), "{sub}: {text}");
    }
    // A subcommand page carries the help of the verb behind it.
    let mut groff = tool("groff");
    groff
        .args(["-man", "-Tascii", "-ww"])
        .arg(dir.join("tuios-wait-for.1"));
    let out = run_with_deadline(groff, DEADLINE);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("window-output"), "{text}");
}

#[test]
fn the_example_config_is_a_file_the_daemon_starts_with() {
    let env = TestEnv::new();
    let example = stdout_of(&env, &["config", "example"]);
    assert!(example.contains("[daemon]"), "{example}");
    assert!(example.contains("# scrollback_lines = 10000"), "{example}");
    assert!(
        example.contains("tuios set-option appearance.border_style rounded"),
        "{example}"
    );
    // `config path` names the file the daemon reads in this environment; put the example there.
    let path = stdout_of(&env, &["config", "path"]);
    let path = std::path::PathBuf::from(path.trim_end());
    assert_eq!(path, env.dir().join("config/tuios/config.toml"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, &example).unwrap();

    // With every daemon setting uncommented too.
    let uncommented: String = example
        .lines()
        .map(|l| {
            for key in ["log_level", "scrollback_lines", "shell"] {
                if let Some(rest) = l.strip_prefix(&format!("# {key} = ")) {
                    return format!("{key} = {rest}\n");
                }
            }
            format!("{l}\n")
        })
        .collect();
    let other = env.dir().join("uncommented.toml");
    std::fs::write(&other, uncommented.replace("\"/bin/bash\"", "\"/bin/sh\"")).unwrap();

    let daemon = env.start_daemon();
    let out = daemon.cli(&["new", "-d", "cfg"]);
    assert!(out.status.success(), "{}", describe(&out));
    let mut conn = daemon.conn();
    let info = conn.ok("list-sessions", json!({}));
    assert_eq!(info["sessions"][0]["name"], "cfg", "{info}");

    // The uncommented file is accepted by the same loader (`--config` must exist and load).
    let check = TestEnv::new();
    let mut cmd = check.command(&["daemon", "--config", other.to_str().unwrap()]);
    cmd.env("TUIOS_SOCKET", check.dir().join("probe.sock"));
    let mut proc = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn daemon");
    let sock = check.dir().join("probe.sock");
    let started = tuios_integration_tests::poll(DEADLINE, "the daemon to serve", || {
        if let Ok(Some(status)) = proc.try_wait() {
            return Ok(Err(status));
        }
        if std::os::unix::net::UnixStream::connect(&sock).is_ok() {
            return Ok(Ok(()));
        }
        Err(String::new())
    });
    // SAFETY: kill(2) on our own child, not yet reaped.
    unsafe {
        libc::kill(proc.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = proc.wait().unwrap();
    assert!(
        started.is_ok(),
        "the daemon refused the uncommented example: {started:?}"
    );
    assert!(status.success(), "{status}");
}
