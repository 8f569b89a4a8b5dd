//! Screen rules of a harness manifest: substring and regex predicates matched against the last
//! non-blank rows of a pane, each rule naming the state it stands for.
use protocol::agent::AgentState;
use regex::Regex;
use serde::Deserialize;
use serde_json::{json, Value};

/// Rows read when neither the manifest nor the caller says how many.
pub const DEFAULT_TAIL_LINES: usize = 6;
/// Longest regex source a manifest may carry.
pub const MAX_REGEX_BYTES: usize = 512;

/// `[screen]` of a manifest file. Keys this build does not know are ignored, so a manifest written
/// for a richer schema still loads; a rule left with no predicate we understand never matches.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ScreenFile {
    pub enabled: Option<bool>,
    pub fold_case: bool,
    pub lines: Option<usize>,
    pub rule: Vec<RuleFile>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RuleFile {
    pub state: String,
    pub priority: i64,
    pub message: String,
    pub all: Vec<String>,
    pub any: Vec<String>,
    pub not: Vec<String>,
    pub regex: Vec<String>,
    pub not_regex: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ScreenRule {
    pub state: AgentState,
    pub priority: i64,
    pub message: String,
    all: Vec<String>,
    any: Vec<String>,
    not: Vec<String>,
    regex: Vec<Regex>,
    not_regex: Vec<Regex>,
}

#[derive(Debug, Clone)]
pub struct ScreenRules {
    pub enabled: bool,
    pub fold_case: bool,
    pub lines: usize,
    pub rules: Vec<ScreenRule>,
}

/// How one rule fared against a tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleVerdict {
    pub index: usize,
    pub state: AgentState,
    pub priority: i64,
    pub matched: bool,
    /// `all` strings that are not on screen.
    pub missing: Vec<String>,
    /// `regex` patterns that do not match.
    pub missing_regex: Vec<String>,
    /// The `any` strings, when none of them is on screen.
    pub none_of: Vec<String>,
    /// `not` strings that are on screen.
    pub blocked: Vec<String>,
    /// `not_regex` patterns that match.
    pub blocked_regex: Vec<String>,
    /// The rule has no positive predicate, so it can never match.
    pub empty: bool,
}

impl RuleVerdict {
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "index": self.index,
            "state": self.state.as_str(),
            "priority": self.priority,
            "matched": self.matched,
        });
        let lists = [
            ("missing", &self.missing),
            ("missing_regex", &self.missing_regex),
            ("none_of", &self.none_of),
            ("blocked", &self.blocked),
            ("blocked_regex", &self.blocked_regex),
        ];
        for (key, list) in lists {
            if !list.is_empty() {
                v[key] = json!(list);
            }
        }
        if self.empty {
            v["empty"] = json!(true);
        }
        v
    }
}

/// Every rule's verdict, and the winner: the highest priority among the matches, the first
/// declared on a tie.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenVerdict {
    pub rules: Vec<RuleVerdict>,
    pub winner: Option<usize>,
}

impl ScreenRules {
    pub fn compile(file: &ScreenFile) -> Result<ScreenRules, String> {
        let fold = |v: &[String]| -> Vec<String> {
            v.iter()
                .filter(|s| !s.is_empty())
                .map(|s| {
                    if file.fold_case {
                        s.to_lowercase()
                    } else {
                        s.clone()
                    }
                })
                .collect()
        };
        let mut rules = Vec::new();
        for (i, r) in file.rule.iter().enumerate() {
            let state = match AgentState::parse(&r.state) {
                Some(s @ (AgentState::Working | AgentState::NeedsInput | AgentState::Idle)) => s,
                _ => {
                    return Err(format!(
                        "screen rule {i}: state must be working, needs_input or idle, not {:?}",
                        r.state
                    ))
                }
            };
            let compile = |list: &[String]| -> Result<Vec<Regex>, String> {
                list.iter()
                    .map(|src| {
                        if src.len() > MAX_REGEX_BYTES {
                            return Err(format!(
                                "screen rule {i}: a regex is longer than {MAX_REGEX_BYTES} bytes"
                            ));
                        }
                        Regex::new(&format!("(?m){src}"))
                            .map_err(|e| format!("screen rule {i}: bad regex {src:?}: {e}"))
                    })
                    .collect()
            };
            rules.push(ScreenRule {
                state,
                priority: r.priority,
                message: r.message.clone(),
                all: fold(&r.all),
                any: fold(&r.any),
                not: fold(&r.not),
                regex: compile(&r.regex)?,
                not_regex: compile(&r.not_regex)?,
            });
        }
        Ok(ScreenRules {
            enabled: file.enabled.unwrap_or(true),
            fold_case: file.fold_case,
            lines: file.lines.filter(|&n| n > 0).unwrap_or(DEFAULT_TAIL_LINES),
            rules,
        })
    }

    /// Whether there is anything to scan for.
    pub fn active(&self) -> bool {
        self.enabled && !self.rules.is_empty()
    }

    pub fn evaluate(&self, tail: &[String]) -> ScreenVerdict {
        let text = tail.join("\n");
        let folded = if self.fold_case {
            text.to_lowercase()
        } else {
            text.clone()
        };
        let mut verdicts = Vec::with_capacity(self.rules.len());
        let mut winner: Option<usize> = None;
        for (index, r) in self.rules.iter().enumerate() {
            let missing: Vec<String> = r
                .all
                .iter()
                .filter(|s| !folded.contains(s.as_str()))
                .cloned()
                .collect();
            let none_of = if !r.any.is_empty() && !r.any.iter().any(|s| folded.contains(s.as_str()))
            {
                r.any.clone()
            } else {
                Vec::new()
            };
            let blocked: Vec<String> = r
                .not
                .iter()
                .filter(|s| folded.contains(s.as_str()))
                .cloned()
                .collect();
            let missing_regex: Vec<String> = r
                .regex
                .iter()
                .filter(|re| !re.is_match(&text))
                .map(source_of)
                .collect();
            let blocked_regex: Vec<String> = r
                .not_regex
                .iter()
                .filter(|re| re.is_match(&text))
                .map(source_of)
                .collect();
            let empty = r.all.is_empty() && r.any.is_empty() && r.regex.is_empty();
            let matched = !empty
                && missing.is_empty()
                && none_of.is_empty()
                && blocked.is_empty()
                && missing_regex.is_empty()
                && blocked_regex.is_empty();
            if matched && winner.is_none_or(|w| r.priority > self.rules[w].priority) {
                winner = Some(index);
            }
            verdicts.push(RuleVerdict {
                index,
                state: r.state,
                priority: r.priority,
                matched,
                missing,
                missing_regex,
                none_of,
                blocked,
                blocked_regex,
                empty,
            });
        }
        ScreenVerdict {
            rules: verdicts,
            winner,
        }
    }

    /// The winning rule of a tail, if any: its index, state and message.
    pub fn classify(&self, tail: &[String]) -> Option<(usize, AgentState, String)> {
        if !self.enabled {
            return None;
        }
        let w = self.evaluate(tail).winner?;
        let r = &self.rules[w];
        Some((w, r.state, r.message.clone()))
    }
}

/// The pattern as the manifest wrote it (without the `(?m)` we put in front).
fn source_of(re: &Regex) -> String {
    re.as_str()
        .strip_prefix("(?m)")
        .unwrap_or(re.as_str())
        .to_string()
}

/// The last `n` non-blank rows of a screen capture, trailing blanks trimmed, oldest first.
pub fn tail_lines(screen: &str, n: usize) -> Vec<String> {
    let mut rows: Vec<String> = screen
        .lines()
        .map(|l| l.trim_end_matches([' ', '\t']))
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    if rows.len() > n {
        rows.drain(..rows.len() - n);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(toml_text: &str) -> ScreenRules {
        let file: ScreenFile = toml::from_str(toml_text).unwrap();
        ScreenRules::compile(&file).unwrap()
    }

    fn tail(rows: &[&str]) -> Vec<String> {
        rows.iter().map(|s| s.to_string()).collect()
    }

    const PROMPT_RULES: &str = r#"
fold_case = true
lines = 4
[[rule]]
state = "needs_input"
priority = 30
message = "approval"
all = ["Do you want"]
any = ["1. Yes", "❯ 1."]
not = ["esc to interrupt"]

[[rule]]
state = "working"
priority = 10
regex = ['^\s*\* Thinking']

[[rule]]
state = "idle"
priority = 5
regex = ['^>\s*$']
not_regex = ['^> \d']

[[rule]]
state = "idle"
priority = 30
any = ["Do you want"]
"#;

    #[test]
    fn highest_priority_wins_and_ties_go_to_the_first() {
        let r = rules(PROMPT_RULES);
        assert_eq!(r.lines, 4);
        let t = tail(&[
            "Edit file?",
            "DO YOU WANT to proceed?",
            "❯ 1. Yes",
            "  2. No",
        ]);
        let v = r.evaluate(&t);
        assert!(v.rules[0].matched);
        assert!(v.rules[3].matched);
        // Same priority: the one declared first wins.
        assert_eq!(v.winner, Some(0));
        let (i, st, msg) = r.classify(&t).unwrap();
        assert_eq!(
            (i, st, msg.as_str()),
            (0, AgentState::NeedsInput, "approval")
        );
    }

    #[test]
    fn verdicts_say_why_a_rule_failed() {
        let r = rules(PROMPT_RULES);
        let v = r.evaluate(&tail(&[
            "Do you want to go on?",
            "(y/n)",
            "esc to interrupt",
        ]));
        let first = &v.rules[0];
        assert!(!first.matched);
        assert!(first.missing.is_empty());
        assert_eq!(first.none_of, ["1. yes", "❯ 1."]);
        assert_eq!(first.blocked, ["esc to interrupt"]);
        let json = first.to_json();
        assert_eq!(json["none_of"][0], "1. yes");
        assert!(json.get("missing").is_none());

        let v = r.evaluate(&tail(&["some output", "> 12"]));
        let idle = &v.rules[2];
        assert!(!idle.matched);
        assert_eq!(idle.missing_regex, [r"^>\s*$"]);
        assert_eq!(idle.blocked_regex, [r"^> \d"]);
        assert_eq!(v.winner, None);

        let v = r.evaluate(&tail(&["  * Thinking about it", ">"]));
        // Both match; working has the higher priority.
        assert!(v.rules[1].matched && v.rules[2].matched);
        assert_eq!(v.winner, Some(1));
    }

    #[test]
    fn a_rule_without_positive_predicates_never_matches() {
        let r = rules("[[rule]]\nstate = \"idle\"\nnot = [\"x\"]\n");
        let v = r.evaluate(&tail(&["anything"]));
        assert!(!v.rules[0].matched);
        assert!(v.rules[0].empty);
        assert_eq!(v.rules[0].to_json()["empty"], true);
        assert_eq!(r.lines, DEFAULT_TAIL_LINES);
    }

    #[test]
    fn disabled_rules_classify_nothing() {
        let r = rules("enabled = false\n[[rule]]\nstate = \"idle\"\nall = [\"x\"]\n");
        assert!(!r.active());
        assert_eq!(r.classify(&tail(&["x"])), None);
    }

    #[test]
    fn bad_rules_are_refused() {
        for bad in [
            "[[rule]]\nstate = \"done\"\nall = [\"x\"]\n",
            "[[rule]]\nstate = \"idle\"\nregex = ['(']\n",
        ] {
            let file: ScreenFile = toml::from_str(bad).unwrap();
            assert!(ScreenRules::compile(&file).is_err(), "{bad}");
        }
        let long = format!(
            "[[rule]]\nstate = \"idle\"\nregex = ['{}']\n",
            "a".repeat(600)
        );
        let file: ScreenFile = toml::from_str(&long).unwrap();
        assert!(ScreenRules::compile(&file).unwrap_err().contains("512"));
    }

    #[test]
    fn tail_takes_the_last_non_blank_rows() {
        let screen = "one\n\ntwo  \n   \nthree\t\nfour\n\n\n";
        assert_eq!(tail_lines(screen, 3), ["two", "three", "four"]);
        assert_eq!(tail_lines(screen, 10), ["one", "two", "three", "four"]);
        assert!(tail_lines("\n\n", 5).is_empty());
    }
}
