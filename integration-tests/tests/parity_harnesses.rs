//! Issue 20 item 3 end to end: each bundled harness manifest, asked through
//! explain-agent-screen, reads its agent's blocked prompt off a real window's screen (a shell in
//! a PTY prints the prompt text, as the agent would have drawn it).

use serde_json::json;
use tuios_integration_tests::*;

/// Harness id and the screen its agent shows while it waits on the user (the same screens the
/// manifests' unit tests use).
const BLOCKED: [(&str, &str); 22] = [
    (
        "aider",
        "Aider v0.86.1
Main model: sonnet with diff edit format
Repo-map: using 4096 tokens
> /add src/main.rs

src/lib.rs
Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]:
",
    ),
    (
        "amp",
        "  I'll run the test suite to see what fails.

  ╭─ Bash ──────────────────────────────────────╮
  │ cargo test --workspace                      │
  ╰─────────────────────────────────────────────╯
  Invoke tool Bash?
  ▸ Approve   Allow All for This Session   Deny
",
    ),
    (
        "antigravity",
        "Agent  Planning the migration
  1. Update the schema
  2. Regenerate the client
Run command?
  npm run generate
Accept (alt+enter)   Reject
",
    ),
    (
        "claude-code",
        "╭──────────────────────────────────────────────────────╮
│ Bash command                                         │
│   rm -rf target/debug/incremental                    │
│ Do you want to proceed?                              │
│ ❯ 1. Yes                                             │
│   2. Yes, and don't ask again for rm commands        │
│   3. No, and tell Claude what to do differently (esc)│
╰──────────────────────────────────────────────────────╯
",
    ),
    (
        "cline",
        "Cline is working on: fix the lint errors
Cline wants to execute this command:
  npm run lint -- --fix
[Approve]  [Reject]
",
    ),
    (
        "codex",
        "• I need to run the tests.
Would you like to run the following command?
  $ cargo test
› 1. Yes, proceed (y)
  2. No, and tell Codex what to do differently (esc)
Press enter to confirm or esc to cancel
",
    ),
    (
        "copilot",
        "● Run the unit tests
  $ go test ./...
Do you want to run this command?
❯ 1. Yes
  2. Yes, and approve `go` for the rest of the running session
  3. No, and tell Copilot what to do differently (Esc)
",
    ),
    (
        "crush",
        "┃ Permission Required
┃ Tool    bash
┃ Path    /home/u/project
┃ Command go build ./...
┃
┃  Allow (a)   Allow for Session (s)   Deny (d)
",
    ),
    (
        "cursor-agent",
        "  Running the formatter before committing.
  $ cargo fmt --all
Run this command?
 → Run (once) (y)
   Add Shell(cargo) to allowlist? (tab)
   Skip (esc or n)
",
    ),
    (
        "devin",
        "Devin  Checking the deployment script
Devin wants to run: ./deploy.sh --dry-run
Allow? [y]es / [n]o / [a]lways
",
    ),
    (
        "droid",
        "⛬ I'll build the project first.
EXECUTE  (npm run build)
> Yes, allow
  Yes, and always allow low impact commands
  No, cancel
",
    ),
    (
        "gemini-cli",
        "╭──────────────────────────────────────────╮
│ ?  Shell npm test                        │
│ Allow execution of: 'npm'?               │
│ ● 1. Yes, allow once                     │
│   2. Yes, allow always ...               │
╰──────────────────────────────────────────╯
",
    ),
    (
        "grok",
        "⏺ Update(src/app.ts)
  + export const port = 8080;
Do you want to proceed with this operation?
❯ 1. Yes
  2. Yes, and don't ask again this session
  3. No
",
    ),
    (
        "hermes",
        "┊ 💻 terminal: rm -rf build/
⚠ Dangerous command detected: rm -rf build/
  (recursive delete)
[o]nce  [s]ession  [a]lways  [d]eny
",
    ),
    (
        "kilo",
        "Kilo Code wants to execute this command:
  pnpm install
> Approve
  Reject
",
    ),
    (
        "kimi",
        "• Shell wants to run: git push origin main
→ Approve
  Approve for this session
  Reject, tell Kimi what to do instead
",
    ),
    (
        "kiro",
        "🛠️  Using tool: execute_bash
 ● I will run the following shell command:
cargo test
Allow this action? Use 't' to trust (always allow) this tool for the session. [y/n/t]:
",
    ),
    (
        "maki",
        "maki: reading Cargo.toml
maki wants to run `cargo test`
allow? (y)es / (n)o / (a)lways
",
    ),
    (
        "opencode",
        "┃ Permission required
┃ $ make check
┃ Allow once   Allow always   Reject
",
    ),
    (
        "pi",
        "Select model
→ claude-sonnet-4-5
  gpt-5-codex
  gemini-2.5-pro
↑↓ navigate • enter select • esc cancel
",
    ),
    (
        "qoder",
        "● Bash(npm run test)
Do you want to proceed?
❯ 1. Yes
  2. Yes, and don't ask again for this command
  3. No, and tell Qoder what to do differently (esc)
",
    ),
    (
        "qwen",
        "╭──────────────────────────────────────╮
│ ?  WriteFile src/index.ts            │
│ Apply this change?                   │
│ ● 1. Yes, allow once                 │
│   2. No, suggest changes (esc)       │
╰──────────────────────────────────────╯
",
    ),
];

#[test]
fn every_bundled_manifest_reads_its_agents_prompt_off_a_real_screen() {
    let daemon = TestDaemon::start();
    let (session, window) = daemon.session_with_window("harnesses");
    let mut conn = daemon.conn();
    conn.ok(
        "resize",
        json!({"session": session, "width": 100, "height": 30}),
    );
    let dir = daemon.dir().join("screens");
    std::fs::create_dir_all(&dir).unwrap();
    for (id, screen) in BLOCKED {
        let file = dir.join(format!("{id}.txt"));
        std::fs::write(&file, screen).unwrap();
        conn.send_text(
            &session,
            &window,
            &format!("clear; cat {}\n", file.display()),
        );
        let last = screen
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap()
            .trim();
        conn.wait_for_text(&session, &window, last);

        let ex = conn.ok(
            "explain-agent-screen",
            json!({"session": session, "window": window, "harness": id}),
        );
        assert_eq!(ex["harness_id"], id, "{ex}");
        assert_eq!(ex["enabled"], true, "{ex}");
        assert_eq!(ex["matched"], true, "{id}: {ex}");
        assert_eq!(ex["rule_state"], "needs_input", "{id}: {ex}");

        // The same screen is no prompt of a different agent's (aider asks in its own words).
        if id != "aider" {
            let other = conn.ok(
                "explain-agent-screen",
                json!({"session": session, "window": window, "harness": "aider"}),
            );
            assert_eq!(other["matched"], false, "{id} under aider: {other}");
        }
    }
}
