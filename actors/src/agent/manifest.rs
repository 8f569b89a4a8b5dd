//! Harness manifests: TOML files that say how to recognise an agent CLI from its process and
//! which screen rules read its state. Some are bundled; a user directory adds more, and a user
//! file with a bundled id replaces that manifest whole.
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use super::proc::ProcInfo;
use super::screen::{ScreenFile, ScreenRules};
use super::transcript_spec::{TranscriptFile, TranscriptSpec};

/// The bundled manifests, by file name.
const BUNDLED: &[(&str, &str)] = &[
    ("aider.toml", include_str!("../../harnesses/aider.toml")),
    ("amp.toml", include_str!("../../harnesses/amp.toml")),
    (
        "antigravity.toml",
        include_str!("../../harnesses/antigravity.toml"),
    ),
    (
        "claude-code.toml",
        include_str!("../../harnesses/claude-code.toml"),
    ),
    ("cline.toml", include_str!("../../harnesses/cline.toml")),
    ("codex.toml", include_str!("../../harnesses/codex.toml")),
    ("copilot.toml", include_str!("../../harnesses/copilot.toml")),
    ("crush.toml", include_str!("../../harnesses/crush.toml")),
    (
        "cursor-agent.toml",
        include_str!("../../harnesses/cursor-agent.toml"),
    ),
    ("devin.toml", include_str!("../../harnesses/devin.toml")),
    ("droid.toml", include_str!("../../harnesses/droid.toml")),
    (
        "gemini-cli.toml",
        include_str!("../../harnesses/gemini-cli.toml"),
    ),
    ("grok.toml", include_str!("../../harnesses/grok.toml")),
    ("hermes.toml", include_str!("../../harnesses/hermes.toml")),
    ("kilo.toml", include_str!("../../harnesses/kilo.toml")),
    ("kimi.toml", include_str!("../../harnesses/kimi.toml")),
    ("kiro.toml", include_str!("../../harnesses/kiro.toml")),
    ("maki.toml", include_str!("../../harnesses/maki.toml")),
    (
        "opencode.toml",
        include_str!("../../harnesses/opencode.toml"),
    ),
    ("pi.toml", include_str!("../../harnesses/pi.toml")),
    ("qoder.toml", include_str!("../../harnesses/qoder.toml")),
    ("qwen.toml", include_str!("../../harnesses/qwen.toml")),
];

/// Agent CLIs recognised by name alone when no manifest matches. Such a match names no harness.
pub const AGENT_NAMES: &[&str] = &[
    "claude",
    "claude-code",
    "codex",
    "aider",
    "cursor-agent",
    "opencode",
    "goose",
    "crush",
    "gemini",
    "amp",
    "droid",
    "cline",
    "kilocode",
    "auggie",
    "octofriend",
    "qwen",
];

/// Programs that run another program named by an argument (the "run token").
const INTERPRETERS: &[&str] = &[
    "node", "nodejs", "deno", "bun", "python", "python2", "python3", "uv", "uvx", "npx", "pnpm",
    "yarn", "bunx", "sh", "dash", "bash", "zsh", "fish", "env",
];

/// Words between an interpreter and the program it runs (`npx exec`, `uv tool run`, ...).
const RUN_WORDS: &[&str] = &["run", "exec", "dlx", "x", "tool", "--"];

/// A bare `comm`/`argv0` name shorter than this is too likely to collide with an unrelated
/// program, so the manifest must also carry a `[detect.require]` corroboration.
const MIN_BARE_NAME: usize = 5;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct ManifestFile {
    schema_version: i64,
    id: String,
    display_name: String,
    priority: Option<i64>,
    detect: DetectFile,
    screen: Option<ScreenFile>,
    transcript: Option<TranscriptFile>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct DetectFile {
    comm: Vec<String>,
    argv0: Vec<String>,
    argv_path: Vec<String>,
    exe_glob: Vec<String>,
    require: Option<RequireFile>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct RequireFile {
    exe_base: Vec<String>,
    exe_glob: Vec<String>,
}

/// Where a manifest came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Bundled,
    User(PathBuf),
}

#[derive(Debug, Clone)]
pub struct Manifest {
    pub id: String,
    pub display_name: String,
    pub priority: i64,
    pub origin: Origin,
    comm: Vec<String>,
    argv0: Vec<String>,
    argv_path: Vec<Vec<String>>,
    argv_path_src: Vec<String>,
    exe_glob: Vec<String>,
    require: Option<(Vec<String>, Vec<String>)>,
    pub screen: Option<ScreenRules>,
    /// Where the agent's transcripts are (`[transcript]`).
    pub transcript: Option<TranscriptSpec>,
}

impl Manifest {
    /// Parse and check one manifest file.
    pub fn parse(text: &str, origin: Origin) -> Result<Manifest, String> {
        let file: ManifestFile = toml::from_str(text).map_err(|e| e.to_string())?;
        if file.schema_version != 1 {
            return Err(format!(
                "schema_version must be 1, not {}",
                file.schema_version
            ));
        }
        let id = file.id.trim().to_string();
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        {
            return Err(format!(
                "id {:?} must be a non-empty name of letters, digits, '-', '_' or '.'",
                file.id
            ));
        }
        let d = &file.detect;
        let lower = |v: &[String]| -> Vec<String> {
            v.iter()
                .map(|s| base_name(s))
                .filter(|s| !s.is_empty())
                .collect()
        };
        let comm = lower(&d.comm);
        let argv0 = lower(&d.argv0);
        let argv_path: Vec<Vec<String>> = d
            .argv_path
            .iter()
            .map(|p| segments(p))
            .filter(|s| !s.is_empty())
            .collect();
        let exe_glob: Vec<String> = d
            .exe_glob
            .iter()
            .filter(|g| !g.is_empty())
            .cloned()
            .collect();
        if comm.is_empty() && argv0.is_empty() && argv_path.is_empty() && exe_glob.is_empty() {
            return Err("[detect] names no comm, argv0, argv_path or exe_glob".into());
        }
        let require = d
            .require
            .as_ref()
            .map(|r| (lower(&r.exe_base), r.exe_glob.clone()))
            .filter(|(b, g)| !b.is_empty() || !g.is_empty());
        if require.is_none() {
            if let Some(short) = comm
                .iter()
                .chain(&argv0)
                .find(|n| n.chars().count() < MIN_BARE_NAME)
            {
                return Err(format!(
                    "the name {short:?} is shorter than {MIN_BARE_NAME} characters; add [detect.require] (exe_base or exe_glob) so an unrelated program of that name is not taken for the agent"
                ));
            }
        }
        let screen = file.screen.as_ref().map(ScreenRules::compile).transpose()?;
        let transcript = file
            .transcript
            .as_ref()
            .map(TranscriptSpec::compile)
            .transpose()?;
        Ok(Manifest {
            display_name: if file.display_name.is_empty() {
                id.clone()
            } else {
                file.display_name.clone()
            },
            id,
            priority: file.priority.unwrap_or(50),
            origin,
            comm,
            argv0,
            argv_path_src: d.argv_path.clone(),
            argv_path,
            exe_glob,
            require,
            screen,
            transcript,
        })
    }

    /// Screen rules worth running: present, switched on and not empty.
    pub fn active_screen(&self) -> Option<&ScreenRules> {
        self.screen.as_ref().filter(|s| s.active())
    }

    /// Whether this manifest recognises the process, and by which predicate, or why not.
    pub fn check(&self, f: &ProcFacts) -> Verdict {
        let mut bare: Option<String> = None;
        if let Some(n) = self.comm.iter().find(|n| **n == f.comm_base) {
            bare = Some(format!("comm={n}"));
        }
        if bare.is_none() {
            if let Some(n) = self.argv0.iter().find(|n| **n == f.argv0_base) {
                bare = Some(format!("argv0={n}"));
            } else if let Some(n) = self
                .argv0
                .iter()
                .find(|n| f.run_token_base.as_deref() == Some(n.as_str()))
            {
                bare = Some(format!("argv0={n} (run token)"));
            }
        }
        if let Some(rule) = bare {
            match &self.require {
                None => return Verdict::matched(rule),
                Some((bases, globs)) => {
                    if bases.contains(&f.exe_base) {
                        return Verdict::matched(format!("{rule}, exe_base={}", f.exe_base));
                    }
                    if let Some(g) = globs.iter().find(|g| glob_match(g, &f.exe)) {
                        return Verdict::matched(format!("{rule}, exe_glob={g}"));
                    }
                    // Fall through: a stronger predicate may still match.
                    let why = format!(
                        "{rule} matched, but the executable {} meets none of [detect.require]",
                        shown(&f.exe)
                    );
                    return self.strong(f).unwrap_or(Verdict::refused(why));
                }
            }
        }
        self.strong(f).unwrap_or_else(|| {
            let mut why = format!(
                "no predicate matched comm {}, argv0 {}, exe {}",
                shown(&f.comm_base),
                shown(&f.argv0_base),
                shown(&f.exe)
            );
            if let Some(t) = &f.run_token {
                why.push_str(&format!(", run token {}", shown(t)));
            }
            Verdict::refused(why)
        })
    }

    /// The predicates that need no corroboration: a package path in the run token, an exe glob.
    fn strong(&self, f: &ProcFacts) -> Option<Verdict> {
        if let Some(token) = &f.run_token {
            let segs = segments(token);
            for (pat, src) in self.argv_path.iter().zip(&self.argv_path_src) {
                if path_contains(&segs, pat) {
                    return Some(Verdict::matched(format!("argv_path={src}")));
                }
            }
        }
        if !f.exe.is_empty() {
            if let Some(g) = self.exe_glob.iter().find(|g| glob_match(g, &f.exe)) {
                return Some(Verdict::matched(format!("exe_glob={g}")));
            }
        }
        None
    }
}

fn shown(s: &str) -> String {
    if s.is_empty() {
        "(none)".to_string()
    } else {
        s.to_string()
    }
}

/// One manifest's answer about one process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub matched: bool,
    pub rule: Option<String>,
    pub reason: Option<String>,
}

impl Verdict {
    fn matched(rule: String) -> Verdict {
        Verdict {
            matched: true,
            rule: Some(rule),
            reason: None,
        }
    }
    fn refused(reason: String) -> Verdict {
        Verdict {
            matched: false,
            rule: None,
            reason: Some(reason),
        }
    }
}

/// What the matchers look at, derived once from a process.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcFacts {
    pub comm_base: String,
    pub argv0_base: String,
    pub exe: String,
    pub exe_base: String,
    /// The interpreter, when comm or exe is one.
    pub interpreter: Option<String>,
    /// The program an interpreter runs: its first argument that is not a flag or a run word.
    pub run_token: Option<String>,
    pub run_token_base: Option<String>,
}

impl ProcFacts {
    pub fn of(p: &ProcInfo) -> ProcFacts {
        let comm_base = base_name(&p.comm);
        let exe_base = base_name(&p.exe);
        let argv0_base = p.argv.first().map(|a| base_name(a)).unwrap_or_default();
        let interpreter = [&comm_base, &exe_base]
            .into_iter()
            .find(|n| INTERPRETERS.contains(&n.as_str()))
            .cloned();
        let run_token = interpreter.as_ref().and_then(|_| {
            p.argv
                .iter()
                .skip(1)
                .find(|a| {
                    !a.is_empty()
                        && !a.starts_with('-')
                        && !RUN_WORDS.contains(&a.as_str())
                        // Not an assignment (`env NAME=value program`).
                        && (!a.contains('=') || a.contains('/'))
                })
                .cloned()
        });
        let run_token_base = run_token.as_deref().map(base_name);
        ProcFacts {
            comm_base,
            argv0_base,
            exe: p.exe.clone(),
            exe_base,
            interpreter,
            run_token,
            run_token_base,
        }
    }

    pub fn to_json(&self, p: &ProcInfo) -> Value {
        json!({
            "pid": p.pid,
            "comm": p.comm,
            "argv": p.argv,
            "exe": p.exe,
            "argv0": p.argv.first().cloned().unwrap_or_default(),
            "run_token": self.run_token.clone().unwrap_or_default(),
            "interpreter": self.interpreter.clone().unwrap_or_default(),
        })
    }
}

/// The last path component, lowercased, without a leading `-` (login shells) or a script
/// extension (`.js .mjs .cjs .ts .py`).
pub fn base_name(s: &str) -> String {
    let last = s.rsplit('/').next().unwrap_or(s);
    let mut b = last.trim_start_matches('-').to_lowercase();
    for ext in [".js", ".mjs", ".cjs", ".ts", ".py"] {
        if let Some(stem) = b.strip_suffix(ext) {
            if !stem.is_empty() {
                b = stem.to_string();
                break;
            }
        }
    }
    b
}

fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether `pat` occurs as consecutive segments of `segs`; its last segment may carry a version
/// (`claude-code@1.2.3`, `aider-chat==0.80`).
fn path_contains(segs: &[String], pat: &[String]) -> bool {
    if pat.is_empty() || pat.len() > segs.len() {
        return false;
    }
    let last = pat.len() - 1;
    segs.windows(pat.len()).any(|w| {
        w.iter().zip(pat).enumerate().all(|(i, (s, p))| {
            s == p
                || (i == last
                    && (s
                        .strip_prefix(p.as_str())
                        .is_some_and(|rest| rest.starts_with('@') || rest.starts_with("=="))))
        })
    })
}

/// Component-wise glob: `*` and `?` within one component, `**` for any number of components. A
/// relative pattern matches the end of the path.
pub fn glob_match(pattern: &str, path: &str) -> bool {
    let mut pat: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    if !pattern.starts_with('/') && pat.first() != Some(&"**") {
        pat.insert(0, "**");
    }
    let comps: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    glob_components(&pat, &comps)
}

fn glob_components(pat: &[&str], comps: &[&str]) -> bool {
    match pat.split_first() {
        None => comps.is_empty(),
        Some((&"**", rest)) => (0..=comps.len()).any(|i| glob_components(rest, &comps[i..])),
        Some((p, rest)) => match comps.split_first() {
            Some((c, crest)) => {
                wildcard(p.as_bytes(), c.as_bytes()) && glob_components(rest, crest)
            }
            None => false,
        },
    }
}

fn wildcard(p: &[u8], s: &[u8]) -> bool {
    // Iterative matcher with one backtrack point for the last `*`.
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        if pi < p.len() && (p[pi] == b'?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some((pi, si));
            pi += 1;
        } else if let Some((sp, ss)) = star {
            pi = sp + 1;
            si = ss + 1;
            star = Some((sp, ss + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&b| b == b'*')
}

/// Every manifest in lookup order, and the files that could not be used.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub manifests: Vec<Arc<Manifest>>,
    pub problems: Vec<String>,
    pub user_dir: Option<PathBuf>,
}

/// How a process was identified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identified {
    /// The manifest that matched; `None` for a match by name only.
    pub harness: Option<String>,
    pub rule: String,
}

/// The full answer for `explain-agent-detect`.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub facts: ProcFacts,
    pub manifests: Vec<(String, Verdict)>,
    pub name_list: Option<String>,
    pub identified: Option<Identified>,
}

impl Registry {
    /// The bundled manifests, then the user directory's `*.toml` (sorted by file name).
    pub fn load(user_dir: Option<&Path>) -> Registry {
        let mut problems = Vec::new();
        let mut by_id: Vec<Arc<Manifest>> = Vec::new();
        for (name, text) in BUNDLED {
            match Manifest::parse(text, Origin::Bundled) {
                Ok(m) => by_id.push(Arc::new(m)),
                // A test keeps the bundled ones valid; this is for a broken build only.
                Err(e) => problems.push(format!("bundled {name}: {e}")),
            }
        }
        if let Some(dir) = user_dir {
            let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
                Ok(rd) => rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                    .collect(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => {
                    problems.push(format!("{}: {e}", dir.display()));
                    Vec::new()
                }
            };
            files.sort();
            for path in files {
                let parsed = std::fs::read_to_string(&path)
                    .map_err(|e| e.to_string())
                    .and_then(|t| Manifest::parse(&t, Origin::User(path.clone())));
                match parsed {
                    Ok(m) => {
                        // Same id: the user's file replaces the earlier manifest whole.
                        by_id.retain(|b| b.id != m.id);
                        by_id.push(Arc::new(m));
                    }
                    Err(e) => problems.push(format!("{}: {e}", path.display())),
                }
            }
        }
        by_id.sort_by(|a, b| b.priority.cmp(&a.priority).then_with(|| a.id.cmp(&b.id)));
        Registry {
            manifests: by_id,
            problems,
            user_dir: user_dir.map(Path::to_path_buf),
        }
    }

    pub fn get(&self, id: &str) -> Option<&Arc<Manifest>> {
        self.manifests.iter().find(|m| m.id == id)
    }

    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.manifests.iter().map(|m| m.id.clone()).collect();
        ids.sort();
        ids
    }

    /// Identify a process: the first manifest in lookup order, else the name list.
    pub fn identify(&self, p: &ProcInfo, extra_names: &[String]) -> Option<Identified> {
        let facts = ProcFacts::of(p);
        for m in &self.manifests {
            let v = m.check(&facts);
            if v.matched {
                return Some(Identified {
                    harness: Some(m.id.clone()),
                    rule: v.rule.unwrap_or_default(),
                });
            }
        }
        name_match(&facts, extra_names).map(|rule| Identified {
            harness: None,
            rule,
        })
    }

    /// Like [`Registry::identify`], with every manifest's verdict.
    pub fn explain(&self, p: &ProcInfo, extra_names: &[String]) -> Explanation {
        let facts = ProcFacts::of(p);
        let manifests: Vec<(String, Verdict)> = self
            .manifests
            .iter()
            .map(|m| (m.id.clone(), m.check(&facts)))
            .collect();
        let by_manifest = manifests
            .iter()
            .find(|(_, v)| v.matched)
            .map(|(id, v)| Identified {
                harness: Some(id.clone()),
                rule: v.rule.clone().unwrap_or_default(),
            });
        let name_list = name_match(&facts, extra_names);
        let identified = by_manifest.or_else(|| {
            name_list.clone().map(|rule| Identified {
                harness: None,
                rule,
            })
        });
        Explanation {
            facts,
            manifests,
            name_list,
            identified,
        }
    }
}

/// A match against the built-in and configured agent names: the base name of comm or exe, any
/// component of the exe's path, or any component of the run token.
fn name_match(f: &ProcFacts, extra: &[String]) -> Option<String> {
    let known =
        |n: &str| !n.is_empty() && (AGENT_NAMES.contains(&n) || extra.iter().any(|e| e == n));
    if known(&f.comm_base) {
        return Some(format!("name comm={}", f.comm_base));
    }
    if known(&f.exe_base) {
        return Some(format!("name exe={}", f.exe_base));
    }
    if let Some(c) = f
        .exe
        .split('/')
        .map(|c| c.to_lowercase())
        .find(|c| known(c))
    {
        return Some(format!("name exe path={c}"));
    }
    if let Some(token) = &f.run_token {
        if let Some(c) = token.split('/').map(base_name).find(|c| known(c)) {
            return Some(format!("name run token={c}"));
        }
    }
    None
}

/// The user's manifest directory: `$TUIOS_HARNESS_DIR`, else `$XDG_CONFIG_HOME/tuios/harnesses`
/// (`~/.config/tuios/harnesses`).
pub fn user_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("TUIOS_HARNESS_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    config::config_dir().map(|d| d.join("harnesses"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc(comm: &str, argv: &[&str], exe: &str) -> ProcInfo {
        ProcInfo {
            pid: 1,
            comm: comm.into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            exe: exe.into(),
        }
    }

    #[test]
    fn bundled_manifests_load_and_cover_the_main_agents() {
        let reg = Registry::load(None);
        assert!(reg.problems.is_empty(), "{:?}", reg.problems);
        for id in ["aider", "claude-code", "codex", "gemini-cli", "opencode"] {
            let m = reg.get(id).unwrap_or_else(|| panic!("{id} is bundled"));
            assert_eq!(m.origin, Origin::Bundled);
            assert!(m.active_screen().is_some(), "{id} ships screen rules");
        }
    }

    #[test]
    fn identifies_native_binaries_scripts_and_node_packages() {
        let reg = Registry::load(None);
        let cases = [
            (
                proc("claude", &["claude"], "/home/u/.local/bin/claude"),
                "claude-code",
                "comm=claude",
            ),
            // A shell script named claude: comm is the script's name, exe the shell.
            (
                proc("claude", &["/bin/sh", "/tmp/x/claude"], "/usr/bin/dash"),
                "claude-code",
                "comm=claude",
            ),
            (
                proc(
                    "node",
                    &[
                        "node",
                        "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js",
                    ],
                    "/usr/bin/node",
                ),
                "claude-code",
                "argv_path=@anthropic-ai/claude-code",
            ),
            (
                proc(
                    "node",
                    &["node", "--no-warnings", "/opt/bin/codex"],
                    "/usr/bin/node",
                ),
                "codex",
                "argv0=codex (run token)",
            ),
            (
                proc(
                    "aider",
                    &["/usr/bin/python3", "/home/u/.local/bin/aider"],
                    "/usr/bin/python3.12",
                ),
                "aider",
                "comm=aider",
            ),
            (
                proc(
                    "python3",
                    &["python3", "-m", "aider"],
                    "/usr/bin/python3.12",
                ),
                "aider",
                "argv0=aider (run token)",
            ),
            (
                proc(
                    "node",
                    &[
                        "node",
                        "/usr/lib/node_modules/@google/gemini-cli@0.9.0/dist/index.js",
                    ],
                    "/usr/bin/node",
                ),
                "gemini-cli",
                "argv_path=@google/gemini-cli",
            ),
            (
                proc("opencode", &["opencode"], "/home/u/.opencode/bin/opencode"),
                "opencode",
                "comm=opencode",
            ),
        ];
        for (p, harness, rule) in cases {
            let got = reg.identify(&p, &[]).unwrap_or_else(|| panic!("{p:?}"));
            assert_eq!(got.harness.as_deref(), Some(harness), "{p:?}");
            assert_eq!(got.rule, rule, "{p:?}");
        }
    }

    #[test]
    fn shells_and_ordinary_programs_are_not_agents() {
        let reg = Registry::load(None);
        for p in [
            proc("sh", &["/bin/sh"], "/usr/bin/dash"),
            proc("bash", &["-bash"], "/usr/bin/bash"),
            proc("vim", &["vim", "claude.md"], "/usr/bin/vim"),
            proc("node", &["node", "server.js"], "/usr/bin/node"),
            proc("python3", &["python3"], "/usr/bin/python3"),
        ] {
            assert_eq!(reg.identify(&p, &[]), None, "{p:?}");
        }
    }

    #[test]
    fn name_list_and_extra_names() {
        let reg = Registry::load(None);
        let goose = proc("goose", &["goose", "session"], "/usr/local/bin/goose");
        assert_eq!(
            reg.identify(&goose, &[]),
            Some(Identified {
                harness: None,
                rule: "name comm=goose".into()
            })
        );
        let mine = proc("myagent", &["myagent"], "/opt/myagent/bin/run");
        assert_eq!(reg.identify(&mine, &[]), None);
        let got = reg.identify(&mine, &["myagent".to_string()]).unwrap();
        assert_eq!(got.rule, "name comm=myagent");
        let versioned = proc(
            "2.1.0",
            &["2.1.0"],
            "/home/u/.local/share/amp/versions/2.1.0",
        );
        assert_eq!(
            reg.identify(&versioned, &[]).unwrap().rule,
            "name exe path=amp"
        );
    }

    #[test]
    fn explanation_gives_every_manifest_a_verdict() {
        let reg = Registry::load(None);
        let e = reg.explain(&proc("claude", &["claude"], "/usr/local/bin/claude"), &[]);
        assert_eq!(e.manifests.len(), reg.manifests.len());
        let (id, v) = e.manifests.iter().find(|(_, v)| v.matched).unwrap();
        assert_eq!(id, "claude-code");
        assert_eq!(v.rule.as_deref(), Some("comm=claude"));
        for (id, v) in e.manifests.iter().filter(|(id, _)| id != "claude-code") {
            assert!(!v.matched, "{id}");
            assert!(v.reason.as_deref().unwrap().contains("comm claude"), "{id}");
        }
        assert_eq!(e.name_list.as_deref(), Some("name comm=claude"));
        assert_eq!(
            e.identified.unwrap().harness.as_deref(),
            Some("claude-code")
        );
    }

    #[test]
    fn manifest_validation() {
        let ok = "schema_version = 1\nid = \"x\"\n[detect]\ncomm = [\"longname\"]\n";
        assert!(Manifest::parse(ok, Origin::Bundled).is_ok());
        let bad = [
            ("schema_version = 2\nid = \"x\"\n[detect]\ncomm = [\"longname\"]\n", "schema_version"),
            ("schema_version = 1\nid = \"\"\n[detect]\ncomm = [\"longname\"]\n", "id"),
            ("schema_version = 1\nid = \"x\"\n", "[detect]"),
            ("schema_version = 1\nid = \"x\"\n[detect]\ncomm = [\"amp\"]\n", "shorter"),
            ("schema_version = 1\nid = \"x\"\n[detect]\ncomm = [\"longname\"]\n[[screen.rule]]\nstate = \"bad\"\n", "screen rule"),
            ("not toml at all =", ""),
        ];
        for (text, needle) in bad {
            let err = Manifest::parse(text, Origin::Bundled).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
        // A short name is fine with corroboration, and then needs it.
        let amp = "schema_version = 1\nid = \"amp\"\n[detect]\ncomm = [\"amp\"]\n[detect.require]\nexe_glob = [\"**/amp/bin/*\"]\n";
        let m = Manifest::parse(amp, Origin::Bundled).unwrap();
        let facts = ProcFacts::of(&proc("amp", &["amp"], "/opt/amp/bin/amp"));
        assert!(m.check(&facts).matched);
        let facts = ProcFacts::of(&proc("amp", &["amp"], "/usr/bin/amp"));
        let v = m.check(&facts);
        assert!(!v.matched);
        assert!(v.reason.unwrap().contains("require"));
    }

    #[test]
    fn user_manifests_add_and_replace() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("mine.toml"),
            "schema_version = 1\nid = \"mine\"\npriority = 90\n[detect]\ncomm = [\"my-agent\"]\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("claude.toml"),
            "schema_version = 1\nid = \"claude-code\"\n[detect]\ncomm = [\"claude-dev\"]\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("broken.toml"), "id = 3").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
        let reg = Registry::load(Some(dir.path()));
        assert_eq!(reg.problems.len(), 1, "{:?}", reg.problems);
        assert!(reg.problems[0].contains("broken.toml"));
        assert_eq!(reg.manifests[0].id, "mine", "priority 90 comes first");
        let claude = reg.get("claude-code").unwrap();
        assert!(matches!(claude.origin, Origin::User(_)));
        assert!(claude.screen.is_none(), "replaced whole");
        let p = proc("claude", &["claude"], "/usr/bin/claude");
        // The bundled predicate is gone with it; the name list still knows claude.
        assert_eq!(reg.identify(&p, &[]).unwrap().harness, None);
        let p = proc("claude-dev", &["claude-dev"], "/usr/bin/claude-dev");
        assert_eq!(
            reg.identify(&p, &[]).unwrap().harness.as_deref(),
            Some("claude-code")
        );
    }

    #[test]
    fn globs_and_names() {
        assert!(glob_match("**/claude", "/home/u/.local/bin/claude"));
        assert!(glob_match("claude", "/usr/bin/claude"));
        assert!(!glob_match("claude", "/usr/bin/claude2"));
        assert!(glob_match(
            "**/share/claude/versions/*",
            "/home/u/.local/share/claude/versions/1.0.3"
        ));
        assert!(glob_match("/usr/*/c?dex", "/usr/bin/codex"));
        assert!(!glob_match("/usr/*/c?dex", "/usr/local/bin/codex"));
        assert!(glob_match("/usr/**/codex", "/usr/local/bin/codex"));
        assert!(glob_match(
            "**/vendor/*/bin/codex",
            "/x/vendor/linux/bin/codex"
        ));
        assert_eq!(base_name("/usr/lib/cli.js"), "cli");
        assert_eq!(base_name("-bash"), "bash");
        assert_eq!(base_name("Claude"), "claude");
        assert_eq!(base_name(".js"), ".js");
        assert!(path_contains(
            &segments("/x/@anthropic-ai/claude-code@1.2/cli.js"),
            &segments("@anthropic-ai/claude-code")
        ));
        assert!(path_contains(
            &segments("/venv/aider-chat==0.8/x"),
            &segments("aider-chat")
        ));
        assert!(!path_contains(
            &segments("/x/@anthropic-ai/claude-codex/cli.js"),
            &segments("@anthropic-ai/claude-code")
        ));
    }
}

/// Every bundled manifest fed a recorded screen of its agent.
#[cfg(test)]
#[path = "manifest_bundled_tests.rs"]
mod bundled_tests;
