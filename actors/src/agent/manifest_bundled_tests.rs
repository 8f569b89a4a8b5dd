//! Each bundled manifest against screens of its agent: one where the agent waits on the user
//! (the rule must call it `needs_input`) and one where it is busy (no rule may fire), read
//! through the same tail the daemon scans. Plus one process per manifest that it must identify.
use protocol::agent::AgentState;

use super::super::proc::ProcInfo;
use super::super::screen::tail_lines;
use super::*;

/// The 22 harness ids the reference implementation bundles.
const GO_IDS: [&str; 22] = [
    "aider",
    "amp",
    "antigravity",
    "claude-code",
    "cline",
    "codex",
    "copilot",
    "crush",
    "cursor-agent",
    "devin",
    "droid",
    "gemini-cli",
    "grok",
    "hermes",
    "kilo",
    "kimi",
    "kiro",
    "maki",
    "opencode",
    "pi",
    "qoder",
    "qwen",
];

struct Recorded {
    id: &'static str,
    /// A process of this agent as the detector would read it: comm, argv, exe.
    process: (&'static str, &'static [&'static str], &'static str),
    /// The screen while the agent waits on the user.
    blocked: &'static str,
    /// The screen while it works.
    busy: &'static str,
}

const BUSY_GENERIC: &str = "\
> add a test for the parser

  Reading src/parser.rs
  Editing src/parser_tests.rs
  Running cargo test -p parser
  ⠋ Thinking… (esc to interrupt)
";

const RECORDED: &[Recorded] = &[
    Recorded {
        id: "aider",
        process: (
            "aider",
            &["/usr/bin/python3", "/home/u/.local/bin/aider"],
            "/usr/bin/python3.12",
        ),
        blocked: "\
Aider v0.86.1
Main model: sonnet with diff edit format
Repo-map: using 4096 tokens
> /add src/main.rs

src/lib.rs
Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:
",
        busy: "\
Aider v0.86.1
> fix the failing test

Applied edit to src/lib.rs
Commit 3f2a1c9 fix: handle empty input
Tokens: 12k sent, 310 received.
",
    },
    Recorded {
        id: "amp",
        process: (
            "node",
            &[
                "node",
                "/usr/local/lib/node_modules/@sourcegraph/amp/dist/main.js",
            ],
            "/usr/bin/node",
        ),
        blocked: "\
  I'll run the test suite to see what fails.

  ╭─ Bash ──────────────────────────────────────╮
  │ cargo test --workspace                      │
  ╰─────────────────────────────────────────────╯
  Invoke tool Bash?
  ▸ Approve   Allow All for This Session   Deny
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "antigravity",
        process: (
            "antigravity",
            &["antigravity", "chat"],
            "/opt/antigravity/bin/antigravity",
        ),
        blocked: "\
Agent  Planning the migration
  1. Update the schema
  2. Regenerate the client
Run command?
  npm run generate
Accept (alt+enter)   Reject
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "claude-code",
        process: (
            "claude",
            &["claude"],
            "/home/u/.local/share/claude/versions/2.0.14",
        ),
        blocked: "\
╭──────────────────────────────────────────────────────╮
│ Bash command                                         │
│   rm -rf target/debug/incremental                    │
│ Do you want to proceed?                              │
│ ❯ 1. Yes                                             │
│   2. Yes, and don't ask again for rm commands        │
│   3. No, and tell Claude what to do differently (esc)│
╰──────────────────────────────────────────────────────╯
",
        busy: "\
● Read(src/main.rs)
  ⎿  Read 120 lines
● Update(src/main.rs)
  ⎿  Updated src/main.rs with 3 additions
✻ Pondering… (12s · ↑ 1.2k tokens · esc to interrupt)
",
    },
    Recorded {
        id: "cline",
        process: (
            "node",
            &["node", "/usr/lib/node_modules/cline/dist/cli.js"],
            "/usr/bin/node",
        ),
        blocked: "\
Cline is working on: fix the lint errors
Cline wants to execute this command:
  npm run lint -- --fix
[Approve]  [Reject]
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "codex",
        process: (
            "node",
            &["node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"],
            "/usr/bin/node",
        ),
        blocked: "\
• I need to run the tests.
Would you like to run the following command?
  $ cargo test
› 1. Yes, proceed (y)
  2. No, and tell Codex what to do differently (esc)
Press enter to confirm or esc to cancel
",
        busy: "\
• Ran cargo build
  └ Compiling parser v0.1.0
• Working (8s • esc to interrupt)
",
    },
    Recorded {
        id: "copilot",
        process: (
            "node",
            &["node", "/usr/lib/node_modules/@github/copilot/index.js"],
            "/usr/bin/node",
        ),
        blocked: "\
● Run the unit tests
  $ go test ./...
Do you want to run this command?
❯ 1. Yes
  2. Yes, and approve `go` for the rest of the running session
  3. No, and tell Copilot what to do differently (Esc)
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "crush",
        process: ("crush", &["crush"], "/usr/local/bin/crush"),
        blocked: "\
┃ Permission Required
┃ Tool    bash
┃ Path    /home/u/project
┃ Command go build ./...
┃
┃  Allow (a)   Allow for Session (s)   Deny (d)
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "cursor-agent",
        process: (
            "cursor-agent",
            &[
                "/home/u/.local/share/cursor-agent/versions/2025.10.02/node",
                "/home/u/.local/share/cursor-agent/versions/2025.10.02/index.js",
            ],
            "/home/u/.local/share/cursor-agent/versions/2025.10.02/node",
        ),
        blocked: "\
  Running the formatter before committing.
  $ cargo fmt --all
Run this command?
 → Run (once) (y)
   Add Shell(cargo) to allowlist? (tab)
   Skip (esc or n)
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "devin",
        process: ("devin", &["devin"], "/home/u/.local/bin/devin"),
        blocked: "\
Devin  Checking the deployment script
Devin wants to run: ./deploy.sh --dry-run
Allow? [y]es / [n]o / [a]lways
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "droid",
        process: ("droid", &["droid"], "/home/u/.factory/bin/droid"),
        blocked: "\
⛬ I'll build the project first.
EXECUTE  (npm run build)
> Yes, allow
  Yes, and always allow low impact commands
  No, cancel
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "gemini-cli",
        process: (
            "node",
            &[
                "node",
                "/usr/lib/node_modules/@google/gemini-cli/dist/index.js",
            ],
            "/usr/bin/node",
        ),
        blocked: "\
╭──────────────────────────────────────────╮
│ ?  Shell npm test                        │
│ Allow execution of: 'npm'?               │
│ ● 1. Yes, allow once                     │
│   2. Yes, allow always ...               │
╰──────────────────────────────────────────╯
",
        busy: "\
✦ I will read the config first.
╭──────────────────────────────╮
│ ✔  ReadFile package.json     │
╰──────────────────────────────╯
⠏ Reading the configuration (esc to cancel, 3s)
",
    },
    Recorded {
        id: "grok",
        process: (
            "node",
            &[
                "node",
                "/usr/lib/node_modules/@vibe-kit/grok-cli/dist/index.js",
            ],
            "/usr/bin/node",
        ),
        blocked: "\
⏺ Update(src/app.ts)
  + export const port = 8080;
Do you want to proceed with this operation?
❯ 1. Yes
  2. Yes, and don't ask again this session
  3. No
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "hermes",
        process: (
            "hermes",
            &["/home/u/.venv/bin/python", "/home/u/.venv/bin/hermes"],
            "/usr/bin/python3.12",
        ),
        blocked: "\
┊ 💻 terminal: rm -rf build/
⚠ Dangerous command detected: rm -rf build/
  (recursive delete)
[o]nce  [s]ession  [a]lways  [d]eny
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "kilo",
        process: (
            "node",
            &["node", "/usr/lib/node_modules/@kilocode/cli/dist/index.js"],
            "/usr/bin/node",
        ),
        blocked: "\
Kilo Code wants to execute this command:
  pnpm install
> Approve
  Reject
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "kimi",
        process: (
            "kimi",
            &[
                "/home/u/.local/share/uv/tools/kimi-cli/bin/python",
                "/home/u/.local/bin/kimi",
            ],
            "/home/u/.local/share/uv/tools/kimi-cli/bin/python3",
        ),
        blocked: "\
• Shell wants to run: git push origin main
→ Approve
  Approve for this session
  Reject, tell Kimi what to do instead
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "kiro",
        process: (
            "kiro-cli-chat",
            &["kiro-cli-chat", "chat"],
            "/home/u/.local/bin/kiro-cli-chat",
        ),
        blocked: "\
🛠️  Using tool: execute_bash
 ● I will run the following shell command:
cargo test
Allow this action? Use 't' to trust (always allow) this tool for the session. [y/n/t]:
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "maki",
        process: ("maki", &["maki"], "/home/u/.maki/bin/maki"),
        blocked: "\
maki: reading Cargo.toml
maki wants to run `cargo test`
allow? (y)es / (n)o / (a)lways
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "opencode",
        process: ("opencode", &["opencode"], "/home/u/.opencode/bin/opencode"),
        blocked: "\
┃ Permission required
┃ $ make check
┃ Allow once   Allow always   Reject
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "pi",
        process: (
            "node",
            &[
                "node",
                "/usr/lib/node_modules/@mariozechner/pi-coding-agent/dist/cli.js",
            ],
            "/usr/bin/node",
        ),
        blocked: "\
Select model
→ claude-sonnet-4-5
  gpt-5-codex
  gemini-2.5-pro
↑↓ navigate • enter select • esc cancel
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "qoder",
        process: ("qodercli", &["qodercli"], "/home/u/.local/bin/qodercli"),
        blocked: "\
● Bash(npm run test)
Do you want to proceed?
❯ 1. Yes
  2. Yes, and don't ask again for this command
  3. No, and tell Qoder what to do differently (esc)
",
        busy: BUSY_GENERIC,
    },
    Recorded {
        id: "qwen",
        process: (
            "node",
            &["node", "/usr/lib/node_modules/@qwen-code/qwen-code/cli.js"],
            "/usr/bin/node",
        ),
        blocked: "\
╭──────────────────────────────────────╮
│ ?  WriteFile src/index.ts            │
│ Apply this change?                   │
│ ● 1. Yes, allow once                 │
│   2. No, suggest changes (esc)       │
╰──────────────────────────────────────╯
",
        busy: BUSY_GENERIC,
    },
];

fn process(p: &(&str, &[&str], &str)) -> ProcInfo {
    ProcInfo {
        pid: 1,
        comm: p.0.into(),
        argv: p.1.iter().map(|s| s.to_string()).collect(),
        exe: p.2.into(),
    }
}

#[test]
fn every_go_harness_is_bundled_and_loads() {
    let reg = Registry::load(None);
    assert!(reg.problems.is_empty(), "{:?}", reg.problems);
    assert_eq!(reg.ids().len(), GO_IDS.len(), "{:?}", reg.ids());
    for id in GO_IDS {
        let m = reg.get(id).unwrap_or_else(|| panic!("{id} is bundled"));
        assert_eq!(m.origin, Origin::Bundled);
        assert_eq!(m.priority, 50, "{id}");
        let screen = m
            .active_screen()
            .unwrap_or_else(|| panic!("{id} has rules"));
        // As in Go, bundled rules only ever say that the agent waits on the user.
        assert!(
            screen
                .rules
                .iter()
                .all(|r| r.state == AgentState::NeedsInput),
            "{id}"
        );
    }
    let recorded: Vec<&str> = RECORDED.iter().map(|r| r.id).collect();
    assert_eq!(recorded, GO_IDS, "one recording per manifest, in id order");
}

#[test]
fn a_blocked_screen_reads_as_needs_input_and_a_busy_one_as_nothing() {
    let reg = Registry::load(None);
    for rec in RECORDED {
        let m = reg.get(rec.id).unwrap();
        let rules = m.active_screen().unwrap();
        let tail = tail_lines(rec.blocked, rules.lines);
        let (_, state, message) = rules
            .classify(&tail)
            .unwrap_or_else(|| panic!("{}: no rule matched {tail:#?}", rec.id));
        assert_eq!(state, AgentState::NeedsInput, "{}", rec.id);
        assert!(!message.is_empty(), "{}: the rule explains itself", rec.id);
        let tail = tail_lines(rec.busy, rules.lines);
        assert_eq!(
            rules.classify(&tail),
            None,
            "{}: a working screen must not read as blocked",
            rec.id
        );
    }
}

#[test]
fn each_manifest_identifies_its_own_process() {
    let reg = Registry::load(None);
    for rec in RECORDED {
        let p = process(&rec.process);
        let found = reg
            .identify(&p, &[])
            .unwrap_or_else(|| panic!("{}: {:?} not identified", rec.id, rec.process));
        assert_eq!(
            found.harness.as_deref(),
            Some(rec.id),
            "{}: {}",
            rec.id,
            found.rule
        );
    }
}

#[test]
fn short_names_need_their_install_to_corroborate() {
    let reg = Registry::load(None);
    // A program that merely shares a short agent name is not taken for the agent.
    for (comm, exe) in [
        ("amp", "/usr/bin/amp"),
        ("pi", "/usr/local/bin/pi"),
        ("kimi", "/usr/bin/kimi"),
        ("grok", "/usr/bin/grok"),
        ("qwen", "/usr/bin/qwen"),
        ("maki", "/usr/bin/maki"),
    ] {
        let p = process(&(comm, &[comm], exe));
        let harness = reg.identify(&p, &[]).and_then(|i| i.harness);
        assert_eq!(harness, None, "{comm} at {exe}");
    }
}
