//! The `.tape` language: one command per line, `#` comments, keywords matched whatever their
//! case, strings in `"…"`, `'…'` or `` `…` `` (taken as written, no escapes), durations such as
//! `500ms`, `2s`, `1.5s` or `1m`, an optional `@<duration>` after a command, and a trailing
//! repeat count for keys. Pure: no I/O, so every rule is unit-tested.
//!
//! The vocabulary is the Go TUIOS's (its lexer and `run-command` names), plus what a CI script
//! needs: `Wait` and `WaitUntilRegex` really wait here, and `Set WaitTimeout` bounds them.

use std::fmt;
use std::time::Duration;

use protocol::commands;

/// How long `Wait` and `WaitUntilRegex` wait when neither the command nor `Set WaitTimeout`
/// says: long enough for a loaded CI machine to start a shell, short enough to fail a stuck run.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(15);
/// Quiet time a bare `Wait` asks of the window (the protocol's own window-idle default).
pub const DEFAULT_IDLE: Duration = Duration::from_millis(500);
/// `Sleep` and waits longer than this are taken for a typo (`Sleep 500` meant as ms).
pub const MAX_DURATION: Duration = Duration::from_secs(3600);
/// A repeat count beyond this is taken for a typo too (the client's own bound for counts).
pub const MAX_COUNT: u32 = 1000;

/// The keys a tape presses by name; each is also a `run-command` of the same name.
const KEYS: &[&str] = &[
    "Enter",
    "Space",
    "Backspace",
    "Delete",
    "Tab",
    "Escape",
    "Up",
    "Down",
    "Left",
    "Right",
    "Home",
    "End",
];

/// Settings `Set` knows. Presentation settings of VHS (fonts, sizes) have nothing to act on here;
/// a tape naming one fails rather than pretending.
pub const SETTINGS: &[&str] = &["TypingSpeed", "WaitTimeout"];

/// One parsed command and where it was written (1-based line and column of its keyword).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub line: usize,
    pub column: usize,
    pub cmd: Cmd,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cmd {
    /// Text typed into the focused window; `delay` between characters when given (`Type@50ms`).
    Type {
        text: String,
        delay: Option<Duration>,
    },
    /// A named key (`Enter`, `Up`, ...) pressed `count` times.
    Key {
        name: &'static str,
        count: u32,
    },
    /// A combination such as `Ctrl+C`, as a `send-keys` token (`ctrl+c`).
    Combo {
        token: String,
        written: String,
    },
    Sleep(Duration),
    /// Until the window has printed nothing for `idle`.
    WaitIdle {
        idle: Duration,
        timeout: Option<Duration>,
    },
    /// Until the window's text matches `pattern`.
    WaitRegex {
        pattern: String,
        timeout: Option<Duration>,
    },
    Set(Setting),
    /// Another tape, run in place (path as written, relative to this tape's directory).
    Source(String),
    /// A command of the `run-command` vocabulary.
    Run {
        name: &'static str,
        args: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Setting {
    /// Delay between typed characters for every later `Type` without its own `@`.
    TypingSpeed(Duration),
    /// Timeout of every later `Wait`/`WaitUntilRegex` without its own.
    WaitTimeout(Duration),
}

/// A line that cannot be run: where, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// What would have been right, when there is something useful to say.
    pub hint: Option<String>,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// A token of one line. Columns are 1-based character positions.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    /// `/…/`, VHS's spelling of a pattern after `Wait`.
    Regex(String),
}

#[derive(Debug, Clone, PartialEq)]
struct Token {
    tok: Tok,
    column: usize,
}

impl Token {
    fn text(&self) -> &str {
        match &self.tok {
            Tok::Word(s) | Tok::Str(s) | Tok::Regex(s) => s,
        }
    }

    fn describe(&self) -> String {
        match &self.tok {
            Tok::Word(w) => format!("{w:?}"),
            Tok::Str(s) => format!("the string {s:?}"),
            Tok::Regex(r) => format!("the pattern /{r}/"),
        }
    }
}

fn tokenize(line: &str, line_no: usize) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let column = i + 1;
        if c == '#' {
            break;
        }
        let after_wait = out.len() == 1
            && matches!(&out[0], Token { tok: Tok::Word(w), .. } if w.to_ascii_lowercase().starts_with("wait"));
        if matches!(c, '"' | '\'' | '`') || (c == '/' && after_wait) {
            // A `/` opens a pattern only right after Wait (`Wait /re/`, VHS's spelling);
            // elsewhere it is part of a word (a path after Source).
            let close = chars[i + 1..].iter().position(|&d| d == c).ok_or_else(|| {
                let what = if c == '/' { "pattern" } else { "string" };
                ParseError {
                    line: line_no,
                    column,
                    message: format!("this {what} opened with {c} is never closed"),
                    hint: Some(format!(
                        "close it with {c} on the same line; a tape has one command per line"
                    )),
                }
            })?;
            let body: String = chars[i + 1..i + 1 + close].iter().collect();
            out.push(Token {
                tok: if c == '/' {
                    Tok::Regex(body)
                } else {
                    Tok::Str(body)
                },
                column,
            });
            i += close + 2;
            continue;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && !matches!(chars[i], '"' | '\'' | '`')
        {
            i += 1;
        }
        out.push(Token {
            tok: Tok::Word(chars[start..i].iter().collect()),
            column,
        });
    }
    Ok(out)
}

/// Parses a duration: `500ms`, `2s`, `1.5s`, `1m`; a bare number is seconds (VHS's reading).
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60.0)
    } else {
        (s, 1.0)
    };
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    let secs = v * scale;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs))
}

/// Parses a whole tape. The first bad line stops the parse: a CI script with a typo should not
/// half-run.
pub fn parse(text: &str) -> Result<Vec<Step>, ParseError> {
    let mut steps = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let tokens = tokenize(line, line_no)?;
        if tokens.is_empty() {
            continue;
        }
        steps.push(parse_line(&tokens, line_no)?);
    }
    Ok(steps)
}

/// The canonical spelling of a keyword, matched whatever its case.
fn keyword(word: &str) -> Option<&'static str> {
    const TAPE_ONLY: &[&str] = &[
        "Type",
        "Sleep",
        "Wait",
        "WaitUntilRegex",
        "Set",
        "Source",
        "Output",
        "Focus",
    ];
    TAPE_ONLY
        .iter()
        .chain(KEYS)
        .copied()
        .chain(commands::command_names().iter().copied())
        .find(|k| k.eq_ignore_ascii_case(word))
}

fn parse_line(tokens: &[Token], line: usize) -> Result<Step, ParseError> {
    let first = &tokens[0];
    let err = |column: usize, message: String, hint: Option<String>| ParseError {
        line,
        column,
        message,
        hint,
    };
    let Tok::Word(word) = &first.tok else {
        return Err(err(
            first.column,
            format!("a line starts with a command, not {}", first.describe()),
            Some("to type text, write: Type \"text\"".into()),
        ));
    };
    // `Type@50ms`: the delay may be glued to the keyword or follow it as `@50ms`.
    let (head, mut delay_text) = match word.split_once('@') {
        Some((h, d)) => (
            h,
            Some((d.to_string(), first.column + h.chars().count() + 1)),
        ),
        None => (word.as_str(), None),
    };
    let mut rest: &[Token] = &tokens[1..];
    if delay_text.is_none() {
        if let Some(Token {
            tok: Tok::Word(w),
            column,
        }) = rest.first()
        {
            if let Some(d) = w.strip_prefix('@') {
                delay_text = Some((d.to_string(), column + 1));
                rest = &rest[1..];
            }
        }
    }
    let delay = match delay_text {
        None => None,
        Some((d, column)) => Some(duration_at(&d, column, line)?),
    };
    if is_combo(head) {
        if delay.is_some() {
            return Err(err(first.column, format!("{head} takes no @delay"), None));
        }
        no_more(rest, 0, head, line)?;
        return combo(head, first.column, line);
    }
    let Some(name) = keyword(head) else {
        let known: Vec<&str> = KEYS
            .iter()
            .copied()
            .chain(["Type", "Sleep", "Wait", "WaitUntilRegex", "Set", "Source"])
            .chain(commands::command_names().iter().copied())
            .collect();
        let near = protocol::closest::closest_match(head, known.iter().copied());
        return Err(err(
            first.column,
            format!("unknown command {head:?}"),
            Some(match near {
                Some(n) => format!("did you mean {n}? (`tuios run-command --list` shows the window commands)"),
                None => "commands are Type, Sleep, Wait, WaitUntilRegex, Set, Source, key names (Enter, Tab, Ctrl+C, ...) and the run-command vocabulary (`tuios run-command --list`)".into(),
            }),
        ));
    };
    let cmd =
        match name {
            "Type" => {
                let text = one_string(
                    rest,
                    name,
                    line,
                    first.column,
                    "the text to type, in quotes",
                )?;
                Cmd::Type { text, delay }
            }
            "Sleep" => {
                no_delay(delay, name, first.column, line)?;
                let t = expect_arg(
                    rest,
                    name,
                    line,
                    first.column,
                    "a duration such as 500ms or 2s",
                )?;
                no_more(rest, 1, name, line)?;
                Cmd::Sleep(duration_at(t.text(), t.column, line)?)
            }
            "Wait" => {
                // `Wait` (quiet for 500 ms), `Wait 2s` (quiet that long), `Wait /re/` (VHS); the
                // `@` is the timeout, as in VHS's `Wait@10s /re/`.
                match rest.first() {
                    None => Cmd::WaitIdle {
                        idle: DEFAULT_IDLE,
                        timeout: delay,
                    },
                    Some(
                        t @ Token {
                            tok: Tok::Regex(re) | Tok::Str(re),
                            ..
                        },
                    ) => {
                        no_more(rest, 1, name, line)?;
                        Cmd::WaitRegex {
                            pattern: nonempty_pattern(re, t.column, line)?,
                            timeout: delay,
                        }
                    }
                    Some(t) => {
                        no_more(rest, 1, name, line)?;
                        Cmd::WaitIdle {
                            idle: duration_at(t.text(), t.column, line)?,
                            timeout: delay,
                        }
                    }
                }
            }
            "WaitUntilRegex" => {
                // Go's form: a pattern string, then an optional timeout in milliseconds.
                let t = expect_arg(rest, name, line, first.column, "a pattern in quotes")?;
                let (Tok::Str(re) | Tok::Regex(re)) = &t.tok else {
                    return Err(err(
                        t.column,
                        format!("{name} wants its pattern in quotes, got {}", t.describe()),
                        Some(format!("{name} \"ready\" 5000")),
                    ));
                };
                let pattern = nonempty_pattern(re, t.column, line)?;
                no_more(rest, 2, name, line)?;
                let timeout = match rest.get(1) {
                    None => delay,
                    Some(ms) => {
                        let n: u64 = ms.text().parse().map_err(|_| {
                            err(
                                ms.column,
                                format!(
                                    "{name}'s timeout is a number of milliseconds, got {}",
                                    ms.describe()
                                ),
                                Some(format!("{name} \"ready\" 5000")),
                            )
                        })?;
                        let d = Duration::from_millis(n);
                        check_range(d, ms.column, line)?;
                        Some(d)
                    }
                };
                Cmd::WaitRegex { pattern, timeout }
            }
            "Set" => {
                no_delay(delay, name, first.column, line)?;
                let key = expect_arg(rest, name, line, first.column, "a setting and its value")?;
                let setting = SETTINGS
                    .iter()
                    .find(|s| s.eq_ignore_ascii_case(key.text()))
                    .ok_or_else(|| {
                        err(
                            key.column,
                            format!("unknown setting {}", key.describe()),
                            Some(format!("settings: {}", SETTINGS.join(", "))),
                        )
                    })?;
                let value = rest.get(1).ok_or_else(|| {
                    err(
                        key.column,
                        format!("Set {setting} needs a value"),
                        Some(format!("Set {setting} 5s")),
                    )
                })?;
                no_more(rest, 2, name, line)?;
                let d = duration_at(value.text(), value.column, line)?;
                Cmd::Set(match *setting {
                    "TypingSpeed" => Setting::TypingSpeed(d),
                    _ => Setting::WaitTimeout(d),
                })
            }
            "Source" => {
                no_delay(delay, name, first.column, line)?;
                let t = expect_arg(rest, name, line, first.column, "the tape file to run")?;
                no_more(rest, 1, name, line)?;
                Cmd::Source(t.text().to_string())
            }
            "Output" => return Err(err(
                first.column,
                "Output records a video in VHS; tuios tape run has nothing to record".into(),
                Some(
                    "remove the line; capture the screen with `tuios capture-pane` after the run"
                        .into(),
                ),
            )),
            "Focus" => {
                no_delay(delay, name, first.column, line)?;
                let t = expect_arg(rest, name, line, first.column, "a window name or id")?;
                no_more(rest, 1, name, line)?;
                run_cmd(
                    "FocusWindow",
                    vec![t.text().to_string()],
                    first.column,
                    line,
                )?
            }
            key if KEYS.contains(&key) => {
                no_delay(delay, name, first.column, line)?;
                no_more(rest, 1, name, line)?;
                let count = match rest.first() {
                    None => 1,
                    Some(t) => t
                        .text()
                        .parse::<u32>()
                        .ok()
                        .filter(|n| (1..=MAX_COUNT).contains(n))
                        .ok_or_else(|| {
                            err(
                                t.column,
                                format!(
                                "{key}'s repeat count is a number from 1 to {MAX_COUNT}, got {}",
                                t.describe()
                            ),
                                Some(format!("{key} 3")),
                            )
                        })?,
                };
                Cmd::Key { name: key, count }
            }
            other => {
                no_delay(delay, name, first.column, line)?;
                let args = rest.iter().map(|t| t.text().to_string()).collect();
                run_cmd(other, args, first.column, line)?
            }
        };
    Ok(Step {
        line,
        column: first.column,
        cmd,
    })
}

fn run_cmd(name: &str, args: Vec<String>, column: usize, line: usize) -> Result<Cmd, ParseError> {
    // The same check the daemon makes, so a wrong count fails before anything runs.
    let spec = commands::check(name, &args).map_err(|e| ParseError {
        line,
        column,
        message: e.message,
        hint: e.hint.detail,
    })?;
    Ok(Cmd::Run {
        name: spec.name,
        args,
    })
}

/// `Ctrl+C`, `alt+x`, `Shift+Tab`, `Ctrl+Alt+X`: a modifier, `+`, and more.
fn is_combo(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    ["ctrl+", "alt+", "shift+"]
        .iter()
        .any(|m| lower.starts_with(m))
}

fn combo(word: &str, column: usize, line: usize) -> Result<Step, ParseError> {
    let parts: Vec<&str> = word.split('+').collect();
    let (key, mods) = parts.split_last().expect("split yields at least one part");
    let mut token = String::new();
    for m in mods {
        let m = m.to_ascii_lowercase();
        if !matches!(m.as_str(), "ctrl" | "alt" | "shift") {
            return Err(ParseError {
                line,
                column,
                message: format!("{word:?}: {m:?} is not a modifier (Ctrl, Alt or Shift)"),
                hint: None,
            });
        }
        token.push_str(&m);
        token.push('+');
    }
    if key.is_empty() {
        return Err(ParseError {
            line,
            column,
            message: format!("{word:?} names no key after its last +"),
            hint: Some("Ctrl+C".into()),
        });
    }
    // A letter keeps the case it was written in for send-keys (alt+X is ESC X); the Go tape
    // writes Ctrl+C for ctrl+c, so control letters are folded.
    let key_part =
        if key.chars().count() == 1 && !mods.iter().any(|m| m.eq_ignore_ascii_case("alt")) {
            key.to_ascii_lowercase()
        } else {
            key.to_string()
        };
    token.push_str(&key_part);
    // Alt+1..Alt+9 switch workspace, as in the Go tape; anything else must be a key send-keys can
    // encode, checked with the daemon's own rules.
    let alt_digit =
        token.len() == 5 && token.starts_with("alt+") && matches!(key.as_bytes()[0], b'1'..=b'9');
    if !alt_digit {
        protocol::keys::keys_to_bytes(&token, false, false).map_err(|e| ParseError {
            line,
            column,
            message: format!("{word}: {}", e.message),
            hint: e.suggestion.map(|s| format!("did you mean {s}?")),
        })?;
    }
    Ok(Step {
        line,
        column,
        cmd: Cmd::Combo {
            token,
            written: word.to_string(),
        },
    })
}

fn duration_at(text: &str, column: usize, line: usize) -> Result<Duration, ParseError> {
    let d = parse_duration(text).ok_or_else(|| ParseError {
        line,
        column,
        message: format!("{text:?} is not a duration"),
        hint: Some("write durations as 500ms, 2s, 1.5s or 1m".into()),
    })?;
    check_range(d, column, line)?;
    Ok(d)
}

fn check_range(d: Duration, column: usize, line: usize) -> Result<(), ParseError> {
    if d > MAX_DURATION {
        return Err(ParseError {
            line,
            column,
            message: format!(
                "{} s is longer than a tape may wait ({} s)",
                d.as_secs(),
                MAX_DURATION.as_secs()
            ),
            hint: Some("a bare number is seconds; write 500ms for milliseconds".into()),
        });
    }
    Ok(())
}

fn nonempty_pattern(re: &str, column: usize, line: usize) -> Result<String, ParseError> {
    if re.is_empty() {
        return Err(ParseError {
            line,
            column,
            message: "the pattern is empty, so it would match at once".into(),
            hint: Some("to wait until output stops, write: Wait".into()),
        });
    }
    Ok(re.to_string())
}

fn expect_arg<'a>(
    rest: &'a [Token],
    name: &str,
    line: usize,
    column: usize,
    what: &str,
) -> Result<&'a Token, ParseError> {
    rest.first().ok_or_else(|| ParseError {
        line,
        column,
        message: format!("{name} needs {what}"),
        hint: None,
    })
}

fn one_string(
    rest: &[Token],
    name: &str,
    line: usize,
    column: usize,
    what: &str,
) -> Result<String, ParseError> {
    let t = expect_arg(rest, name, line, column, what)?;
    let Tok::Str(s) = &t.tok else {
        return Err(ParseError {
            line,
            column: t.column,
            message: format!("{name} wants {what}, got {}", t.describe()),
            hint: Some(format!("{name} \"{}\"", t.text())),
        });
    };
    no_more(rest, 1, name, line)?;
    Ok(s.clone())
}

fn no_more(rest: &[Token], allowed: usize, name: &str, line: usize) -> Result<(), ParseError> {
    match rest.get(allowed) {
        None => Ok(()),
        Some(t) => Err(ParseError {
            line,
            column: t.column,
            message: format!(
                "{name} takes {}; {} is left over",
                match allowed {
                    0 => "no arguments".to_string(),
                    1 => "one argument".to_string(),
                    n => format!("{n} arguments"),
                },
                t.describe()
            ),
            hint: Some("one command per line; quote text that holds spaces".into()),
        }),
    }
}

fn no_delay(
    delay: Option<Duration>,
    name: &str,
    column: usize,
    line: usize,
) -> Result<(), ParseError> {
    match delay {
        None => Ok(()),
        Some(_) => Err(ParseError {
            line,
            column,
            message: format!("{name} takes no @delay"),
            hint: Some("@ sets the typing speed of Type and the timeout of Wait".into()),
        }),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
