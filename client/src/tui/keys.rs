//! Key bindings and input modes: the leader key, the tmux-like bindings, window-management and
//! terminal mode, the focus-return chord, key-token parsing for routed send-keys, and the small
//! amount of configuration the client reads (config.toml `[keybindings]`, policy.toml `[lumen]`).

use std::path::Path;

use figment::providers::{Format, Toml};
use figment::Figment;
use serde::Deserialize;
use termwiz::input::{KeyCode, KeyEvent, Modifiers};

use super::input::normalize_mods;
use super::layout::Direction;

/// A key with modifiers, as written in configuration: `ctrl+b`, `ctrl+shift+escape`, `f2`. In
/// termwiz's terms, as the client reads its terminal (the daemon's Lumen rules have their own,
/// `protocol::lumen::Chord`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyChord {
    pub key: KeyCode,
    pub mods: Modifiers,
}

impl KeyChord {
    pub const fn new(key: KeyCode, mods: Modifiers) -> KeyChord {
        KeyChord { key, mods }
    }

    /// Parses `mod+mod+key`; modifiers are ctrl, alt/opt/meta, shift, super/cmd/win.
    pub fn parse(s: &str) -> Option<KeyChord> {
        let s = s.trim();
        if s.is_empty() {
            return None;
        }
        // A trailing "+" is the plus key itself ("ctrl++").
        let (head, last) = match s.strip_suffix("++") {
            Some(h) => (h, "+"),
            None => match s.rsplit_once('+') {
                Some((h, k)) if !k.is_empty() => (h, k),
                Some(_) => return None,
                None => ("", s),
            },
        };
        let mut mods = Modifiers::NONE;
        for m in head.split('+').filter(|m| !m.is_empty()) {
            mods |= match m.to_ascii_lowercase().as_str() {
                "ctrl" | "control" | "c" => Modifiers::CTRL,
                "alt" | "opt" | "option" | "meta" | "m" => Modifiers::ALT,
                "shift" | "s" => Modifiers::SHIFT,
                "super" | "cmd" | "win" => Modifiers::SUPER,
                _ => return None,
            };
        }
        let key = named_key(last).or_else(|| {
            let mut chars = last.chars();
            let c = chars.next()?;
            chars.next().is_none().then_some(KeyCode::Char(c))
        })?;
        Some(KeyChord { key, mods })
    }

    /// Whether a key event is this chord. Letters compare without case, since terminals differ
    /// in whether Ctrl+B arrives as `b` or `B`.
    pub fn matches(&self, ev: &KeyEvent) -> bool {
        let mods = normalize_mods(ev.modifiers);
        let key = canonical(ev.key);
        match (self.key, key) {
            (KeyCode::Char(a), KeyCode::Char(b)) if a.is_ascii_alphabetic() => {
                let shift_in_char = b.is_ascii_uppercase() && !self.mods.contains(Modifiers::SHIFT);
                let mods = if shift_in_char {
                    mods - Modifiers::SHIFT
                } else {
                    mods
                };
                a.eq_ignore_ascii_case(&b) && mods == self.mods
            }
            (a, b) => a == b && mods == self.mods,
        }
    }

    /// How the chord is shown in chrome: `ctrl+b`.
    pub fn label(&self) -> String {
        let mut s = String::new();
        for (m, name) in [
            (Modifiers::CTRL, "ctrl+"),
            (Modifiers::ALT, "alt+"),
            (Modifiers::SHIFT, "shift+"),
            (Modifiers::SUPER, "super+"),
        ] {
            if self.mods.contains(m) {
                s.push_str(name);
            }
        }
        s.push_str(&key_name(self.key));
        s
    }

    pub fn event(&self) -> KeyEvent {
        KeyEvent {
            key: self.key,
            modifiers: self.mods,
        }
    }
}

/// Folds the different spellings terminals use for one key into one.
fn canonical(key: KeyCode) -> KeyCode {
    match key {
        KeyCode::Char('\x1b') => KeyCode::Escape,
        KeyCode::Char('\r') | KeyCode::Char('\n') => KeyCode::Enter,
        KeyCode::Char('\t') => KeyCode::Tab,
        KeyCode::Char('\x7f') => KeyCode::Backspace,
        KeyCode::ApplicationUpArrow => KeyCode::UpArrow,
        KeyCode::ApplicationDownArrow => KeyCode::DownArrow,
        KeyCode::ApplicationLeftArrow => KeyCode::LeftArrow,
        KeyCode::ApplicationRightArrow => KeyCode::RightArrow,
        other => other,
    }
}

fn named_key(name: &str) -> Option<KeyCode> {
    let lower = name.to_ascii_lowercase();
    Some(match lower.as_str() {
        "enter" | "return" | "cr" => KeyCode::Enter,
        "space" | "spc" => KeyCode::Char(' '),
        "tab" => KeyCode::Tab,
        "escape" | "esc" => KeyCode::Escape,
        "backspace" | "bs" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "up" => KeyCode::UpArrow,
        "down" => KeyCode::DownArrow,
        "left" => KeyCode::LeftArrow,
        "right" => KeyCode::RightArrow,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdown" | "pgdn" => KeyCode::PageDown,
        f if f.len() >= 2 && f.starts_with('f') => {
            let n: u8 = f[1..].parse().ok()?;
            if !(1..=24).contains(&n) {
                return None;
            }
            KeyCode::Function(n)
        }
        _ => return None,
    })
}

fn key_name(key: KeyCode) -> String {
    match key {
        KeyCode::Char(' ') => "space".into(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "enter".into(),
        KeyCode::Tab => "tab".into(),
        KeyCode::Escape => "esc".into(),
        KeyCode::Backspace => "backspace".into(),
        KeyCode::Delete => "delete".into(),
        KeyCode::Insert => "insert".into(),
        KeyCode::UpArrow => "up".into(),
        KeyCode::DownArrow => "down".into(),
        KeyCode::LeftArrow => "left".into(),
        KeyCode::RightArrow => "right".into(),
        KeyCode::Home => "home".into(),
        KeyCode::End => "end".into(),
        KeyCode::PageUp => "pageup".into(),
        KeyCode::PageDown => "pagedown".into(),
        KeyCode::Function(n) => format!("f{n}"),
        other => format!("{other:?}").to_ascii_lowercase(),
    }
}

/// Something a binding does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    NewWindow,
    /// Split the focused pane with a vertical divider (side by side).
    SplitVertical,
    /// Split the focused pane with a horizontal divider (stacked).
    SplitHorizontal,
    CloseWindow,
    NextWindow,
    PrevWindow,
    Workspace(u8),
    /// Start "move to workspace": the next digit picks the workspace.
    MoveToWorkspacePrompt,
    MoveToWorkspace(u8),
    Detach,
    Rename,
    ToggleZoom,
    CopyMode,
    ToggleTiling,
    /// Cycle the tiling layout: bsp, master-stack, scrolling.
    CycleLayout,
    RotateSplit,
    Equalize,
    Focus(Direction),
    Minimize,
    RestoreMinimized,
    Help,
    CommandPrompt,
    /// Read the project tape found in the focused window's directory and decide about it.
    ReviewTape,
    TerminalMode,
    WindowManagementMode,
    /// Send the leader key itself to the window (leader pressed twice).
    SendLeader,
}

/// One row of the help overlay: keys and what they do.
pub struct BindingHelp {
    pub keys: &'static str,
    pub what: &'static str,
}

/// The bindings as shown by `?`, in the order they are listed.
pub const HELP: &[BindingHelp] = &[
    BindingHelp {
        keys: "c",
        what: "new window",
    },
    BindingHelp {
        keys: "%",
        what: "split side by side",
    },
    BindingHelp {
        keys: "\"",
        what: "split stacked",
    },
    BindingHelp {
        keys: "x",
        what: "close window",
    },
    BindingHelp {
        keys: "n / p",
        what: "next / previous window",
    },
    BindingHelp {
        keys: "arrows, h j k l",
        what: "focus the window on that side",
    },
    BindingHelp {
        keys: "1-9",
        what: "switch workspace",
    },
    BindingHelp {
        keys: "m 1-9",
        what: "move window to workspace",
    },
    BindingHelp {
        keys: ",",
        what: "rename window",
    },
    BindingHelp {
        keys: "z",
        what: "zoom / unzoom",
    },
    BindingHelp {
        keys: "t",
        what: "toggle tiling / floating",
    },
    BindingHelp {
        keys: "L",
        what: "cycle layout: bsp / master-stack / scrolling",
    },
    BindingHelp {
        keys: "space",
        what: "rotate split",
    },
    BindingHelp {
        keys: "=",
        what: "equalize splits",
    },
    BindingHelp {
        keys: "-  /  +",
        what: "minimize / restore",
    },
    BindingHelp {
        keys: "[",
        what: "copy mode (scrollback)",
    },
    BindingHelp {
        keys: ":",
        what: "command prompt",
    },
    BindingHelp {
        keys: "T",
        what: "review the project tape found here",
    },
    BindingHelp {
        keys: "d",
        what: "detach",
    },
    BindingHelp {
        keys: "?",
        what: "this help",
    },
];

/// The binding for a key pressed after the leader (or in window-management mode).
pub fn binding(ev: &KeyEvent) -> Option<Action> {
    let mods = normalize_mods(ev.modifiers);
    let key = canonical(ev.key);
    // Shifted punctuation arrives as its own character; shift itself is not part of these keys.
    let plain = (mods - Modifiers::SHIFT).is_empty();
    if !plain {
        return None;
    }
    Some(match key {
        KeyCode::Char('c') => Action::NewWindow,
        KeyCode::Char('%') => Action::SplitVertical,
        KeyCode::Char('"') => Action::SplitHorizontal,
        KeyCode::Char('x') => Action::CloseWindow,
        KeyCode::Char('n') => Action::NextWindow,
        KeyCode::Char('p') => Action::PrevWindow,
        KeyCode::Char(d @ '1'..='9') => Action::Workspace(d as u8 - b'0'),
        KeyCode::Char('m') => Action::MoveToWorkspacePrompt,
        KeyCode::Char('d') => Action::Detach,
        KeyCode::Char(',') => Action::Rename,
        KeyCode::Char('z') => Action::ToggleZoom,
        KeyCode::Char('[') => Action::CopyMode,
        KeyCode::Char('t') => Action::ToggleTiling,
        KeyCode::Char('L') => Action::CycleLayout,
        KeyCode::Char(' ') => Action::RotateSplit,
        KeyCode::Char('=') => Action::Equalize,
        KeyCode::Char('-') => Action::Minimize,
        KeyCode::Char('+') => Action::RestoreMinimized,
        KeyCode::Char('?') => Action::Help,
        KeyCode::Char(':') => Action::CommandPrompt,
        KeyCode::Char('T') => Action::ReviewTape,
        KeyCode::LeftArrow | KeyCode::Char('h') => Action::Focus(Direction::Left),
        KeyCode::RightArrow | KeyCode::Char('l') => Action::Focus(Direction::Right),
        KeyCode::UpArrow | KeyCode::Char('k') => Action::Focus(Direction::Up),
        KeyCode::DownArrow | KeyCode::Char('j') => Action::Focus(Direction::Down),
        _ => return None,
    })
}

/// Input modes of the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMode {
    /// Keys drive windows (bindings without the leader).
    WindowManagement,
    /// Keys go to the focused window; the leader reaches the bindings.
    Terminal,
}

/// What to do with one key event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyRoute {
    /// The focus-return chord: back to chrome (window-management mode).
    FocusReturn,
    Action(Action),
    /// Send to the focused window.
    Window(KeyEvent),
    /// The leader was pressed; the next key picks a binding.
    LeaderArmed,
    /// Waiting for a workspace digit after "move to workspace".
    MovePending,
    /// A key with no binding in window-management mode (or after the leader).
    Unbound(KeyEvent),
}

/// The modal key router: mode, leader state and the focus-return chord, before any binding or
/// window sees a key.
#[derive(Debug, Clone)]
pub struct Router {
    pub mode: InputMode,
    pub leader: KeyChord,
    pub focus_return: Vec<KeyChord>,
    pub leader_armed: bool,
    pub move_pending: bool,
}

impl Router {
    pub fn new(leader: KeyChord, focus_return: Vec<KeyChord>) -> Router {
        Router {
            // Keys go to the program from the start, as in tmux and zellij; window management
            // is behind the leader.
            mode: InputMode::Terminal,
            leader,
            focus_return,
            leader_armed: false,
            move_pending: false,
        }
    }

    pub fn route(&mut self, ev: &KeyEvent) -> KeyRoute {
        if self.focus_return.iter().any(|c| c.matches(ev)) {
            self.leader_armed = false;
            self.move_pending = false;
            self.mode = InputMode::WindowManagement;
            return KeyRoute::FocusReturn;
        }
        if self.move_pending {
            self.move_pending = false;
            return match canonical(ev.key) {
                KeyCode::Char(d @ '1'..='9') => {
                    KeyRoute::Action(Action::MoveToWorkspace(d as u8 - b'0'))
                }
                _ => KeyRoute::Unbound(ev.clone()),
            };
        }
        if self.leader_armed {
            self.leader_armed = false;
            if self.leader.matches(ev) {
                return KeyRoute::Action(Action::SendLeader);
            }
            if canonical(ev.key) == KeyCode::Escape {
                return KeyRoute::Action(Action::WindowManagementMode);
            }
            return self.bound(ev);
        }
        if self.leader.matches(ev) {
            self.leader_armed = true;
            return KeyRoute::LeaderArmed;
        }
        match self.mode {
            InputMode::Terminal => KeyRoute::Window(ev.clone()),
            InputMode::WindowManagement => {
                let mods = normalize_mods(ev.modifiers);
                let key = canonical(ev.key);
                if mods.is_empty() && matches!(key, KeyCode::Char('i') | KeyCode::Enter) {
                    return KeyRoute::Action(Action::TerminalMode);
                }
                self.bound(ev)
            }
        }
    }

    fn bound(&mut self, ev: &KeyEvent) -> KeyRoute {
        match binding(ev) {
            Some(Action::MoveToWorkspacePrompt) => {
                self.move_pending = true;
                KeyRoute::MovePending
            }
            Some(a) => KeyRoute::Action(a),
            None => KeyRoute::Unbound(ev.clone()),
        }
    }
}

/// The default leader.
pub const DEFAULT_LEADER: KeyChord = KeyChord::new(KeyCode::Char('b'), Modifiers::CTRL);
/// The default focus-return chord (Lumen): Ctrl+Shift+Escape, or Cmd+Shift+Escape where the
/// client runs on macOS.
pub const DEFAULT_FOCUS_RETURN: KeyChord = focus_return_default(cfg!(target_os = "macos"));

/// Lumen names the chord per platform; Cmd reaches a terminal program as the super modifier
/// (kitty's keyboard protocol reports it).
pub const fn focus_return_default(macos: bool) -> KeyChord {
    let first = if macos {
        Modifiers::SUPER
    } else {
        Modifiers::CTRL
    };
    KeyChord::new(KeyCode::Escape, first.union(Modifiers::SHIFT))
}

/// What the client reads from the user's files, with anything wrong reported as warnings.
#[derive(Debug, Clone)]
pub struct KeyConfig {
    pub leader: KeyChord,
    /// The focus-return chord and its optional fallback.
    pub focus_return: Vec<KeyChord>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    keybindings: Keybindings,
}

#[derive(Debug, Default, Deserialize)]
struct Keybindings {
    leader_key: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct PolicyFile {
    #[serde(default)]
    lumen: LumenPolicy,
}

#[derive(Debug, Default, Deserialize)]
struct LumenPolicy {
    focus_return_chord: Option<String>,
    focus_return_fallback: Option<String>,
}

impl KeyConfig {
    /// Reads `config.toml` (`[keybindings] leader_key`) and `policy.toml` (`[lumen]
    /// focus_return_chord`, `focus_return_fallback`). Missing files are fine; bad values fall back
    /// to the defaults with a warning.
    pub fn load(config: Option<&Path>, policy: Option<&Path>) -> KeyConfig {
        let mut warnings = Vec::new();
        let mut leader = DEFAULT_LEADER;
        if let Some(path) = config.filter(|p| p.exists()) {
            match Figment::from(Toml::file(path)).extract::<ConfigFile>() {
                Ok(cfg) => {
                    if let Some(s) = cfg.keybindings.leader_key {
                        match KeyChord::parse(&s) {
                            Some(c) => leader = c,
                            None => warnings.push(format!(
                                "{}: leader_key {s:?} is not a key like \"ctrl+b\"; using ctrl+b",
                                path.display()
                            )),
                        }
                    }
                }
                Err(e) => warnings.push(format!("{}: {e}", path.display())),
            }
        }
        let mut focus_return = vec![DEFAULT_FOCUS_RETURN];
        if let Some(path) = policy.filter(|p| p.exists()) {
            match Figment::from(Toml::file(path)).extract::<PolicyFile>() {
                Ok(p) => {
                    if let Some(s) = p.lumen.focus_return_chord {
                        match KeyChord::parse(&s) {
                            Some(c) => focus_return[0] = c,
                            None => warnings.push(format!(
                                "{}: focus_return_chord {s:?} is not a key; using {}",
                                path.display(),
                                DEFAULT_FOCUS_RETURN.label()
                            )),
                        }
                    }
                    if let Some(s) = p.lumen.focus_return_fallback {
                        match KeyChord::parse(&s) {
                            Some(c) => focus_return.push(c),
                            None => warnings.push(format!(
                                "{}: focus_return_fallback {s:?} is not a key",
                                path.display()
                            )),
                        }
                    }
                }
                Err(e) => warnings.push(format!("{}: {e}", path.display())),
            }
        }
        if focus_return.contains(&leader) {
            warnings.push("the leader key equals the focus-return chord; using ctrl+b".into());
            leader = DEFAULT_LEADER;
        }
        KeyConfig {
            leader,
            focus_return,
            warnings,
        }
    }
}

/// The bindings a client started now would use, for `tuios keybinds`: read from the same
/// files as the attach, with the same fallbacks.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KeysInEffect {
    pub leader: String,
    pub focus_return: Vec<String>,
    /// What each key after the leader does, in the help overlay's order.
    pub after_leader: Vec<KeyBinding>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct KeyBinding {
    pub keys: String,
    pub what: String,
}

pub fn keys_in_effect(config: Option<&Path>, policy: Option<&Path>) -> KeysInEffect {
    let keys = KeyConfig::load(config, policy);
    KeysInEffect {
        leader: keys.leader.label(),
        focus_return: keys.focus_return.iter().map(KeyChord::label).collect(),
        after_leader: HELP
            .iter()
            .map(|h| KeyBinding {
                keys: h.keys.to_string(),
                what: h.what.to_string(),
            })
            .chain([KeyBinding {
                keys: keys.leader.label(),
                what: "send the leader key itself to the window".to_string(),
            }])
            .collect(),
        warnings: keys.warnings,
    }
}

/// tmux's key spellings, which send-keys takes as the daemon does (`protocol::keys`): `C-`,
/// `M-`, `S-` prefixes (`C-b`, `M-x`, `S-Up`) and the names BSpace, BTab, DC, IC, NPage, PPage.
/// None for anything else, which is typed as text.
fn tmux_chord(token: &str) -> Option<KeyChord> {
    let mut mods = Modifiers::NONE;
    let mut rest = token;
    // `C-` alone, or `M--`, leaves a last character to be the key itself.
    while rest.len() > 2 {
        let m = match rest.get(..2) {
            Some("C-") => Modifiers::CTRL,
            Some("M-") => Modifiers::ALT,
            Some("S-") => Modifiers::SHIFT,
            _ => break,
        };
        mods |= m;
        rest = &rest[2..];
    }
    let alias = match rest {
        "DC" => Some((KeyCode::Delete, Modifiers::NONE)),
        "IC" => Some((KeyCode::Insert, Modifiers::NONE)),
        _ => match rest.to_ascii_lowercase().as_str() {
            "bspace" => Some((KeyCode::Backspace, Modifiers::NONE)),
            "btab" => Some((KeyCode::Tab, Modifiers::SHIFT)),
            "npage" => Some((KeyCode::PageDown, Modifiers::NONE)),
            "ppage" => Some((KeyCode::PageUp, Modifiers::NONE)),
            _ => None,
        },
    };
    if let Some((key, extra)) = alias {
        return Some(KeyChord::new(key, mods | extra));
    }
    if mods == Modifiers::NONE {
        return None;
    }
    let key = named_key(rest).or_else(|| {
        let mut chars = rest.chars();
        let c = chars.next()?;
        chars.next().is_none().then_some(KeyCode::Char(c))
    })?;
    Some(KeyChord::new(key, mods))
}

/// Key events for routed send-keys. Tokens are split on spaces and commas; `PREFIX` (any case,
/// optionally `$PREFIX`) is the leader; `mod+key` tokens and named keys (tmux's spellings too)
/// become one event; any other token is typed character by character, case kept. `raw` makes
/// every character one event, spaces included.
pub fn token_events(keys: &str, raw: bool, leader: KeyChord) -> Result<Vec<KeyEvent>, String> {
    let char_event = |c: char| KeyEvent {
        key: KeyCode::Char(c),
        modifiers: Modifiers::NONE,
    };
    if raw {
        return Ok(keys.chars().map(char_event).collect());
    }
    let mut out = Vec::new();
    for token in keys
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.is_empty())
    {
        let bare = token.strip_prefix('$').unwrap_or(token);
        if bare.eq_ignore_ascii_case("prefix") {
            out.push(leader.event());
            continue;
        }
        if let Some(key) = named_key(token) {
            out.push(KeyEvent {
                key,
                modifiers: Modifiers::NONE,
            });
            continue;
        }
        if token.len() > 1 && token.contains('+') {
            if let Some(c) = KeyChord::parse(token) {
                out.push(c.event());
                continue;
            }
        }
        if let Some(c) = tmux_chord(token) {
            out.push(c.event());
            continue;
        }
        out.extend(token.chars().map(char_event));
    }
    if out.is_empty() {
        return Err("no keys to send: keys holds only spaces and commas".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(c: char, m: Modifiers) -> KeyEvent {
        KeyEvent {
            key: KeyCode::Char(c),
            modifiers: m,
        }
    }

    #[test]
    fn chords_parse_match_and_label() {
        let c = KeyChord::parse("ctrl+b").unwrap();
        assert_eq!(c, DEFAULT_LEADER);
        assert!(c.matches(&key('b', Modifiers::CTRL)));
        assert!(c.matches(&key('B', Modifiers::CTRL)));
        assert!(!c.matches(&key('b', Modifiers::NONE)));
        assert_eq!(c.label(), "ctrl+b");
        let f = KeyChord::parse("Ctrl+Shift+Escape").unwrap();
        assert_eq!(f, focus_return_default(false));
        assert_eq!(
            KeyChord::parse("cmd+shift+escape").unwrap(),
            focus_return_default(true)
        );
        #[cfg(not(target_os = "macos"))]
        assert_eq!(DEFAULT_FOCUS_RETURN, f);
        assert!(f.matches(&KeyEvent {
            key: KeyCode::Escape,
            modifiers: Modifiers::CTRL | Modifiers::SHIFT
        }));
        // The CSI u spelling of the same chord.
        assert!(f.matches(&key('\x1b', Modifiers::CTRL | Modifiers::SHIFT)));
        assert!(!f.matches(&KeyEvent {
            key: KeyCode::Escape,
            modifiers: Modifiers::NONE
        }));
        assert_eq!(KeyChord::parse("alt+f2").unwrap().label(), "alt+f2");
        assert_eq!(KeyChord::parse("ctrl++").unwrap().key, KeyCode::Char('+'));
        assert!(KeyChord::parse("hyper+x").is_none());
        assert!(KeyChord::parse("ctrl+").is_none());
        assert!(KeyChord::parse("").is_none());
    }

    #[test]
    fn terminal_mode_sends_keys_and_the_leader_reaches_bindings() {
        let mut r = Router::new(DEFAULT_LEADER, vec![DEFAULT_FOCUS_RETURN]);
        assert_eq!(
            r.mode,
            InputMode::Terminal,
            "keys go to the program from the start"
        );
        r.mode = InputMode::WindowManagement;
        assert_eq!(
            r.route(&key('i', Modifiers::NONE)),
            KeyRoute::Action(Action::TerminalMode)
        );
        r.mode = InputMode::Terminal;
        assert_eq!(
            r.route(&key('c', Modifiers::NONE)),
            KeyRoute::Window(key('c', Modifiers::NONE))
        );
        assert_eq!(r.route(&key('b', Modifiers::CTRL)), KeyRoute::LeaderArmed);
        assert_eq!(
            r.route(&key('c', Modifiers::NONE)),
            KeyRoute::Action(Action::NewWindow)
        );
        // Disarmed after one key.
        assert!(matches!(
            r.route(&key('c', Modifiers::NONE)),
            KeyRoute::Window(_)
        ));
        r.route(&key('b', Modifiers::CTRL));
        assert_eq!(
            r.route(&key('b', Modifiers::CTRL)),
            KeyRoute::Action(Action::SendLeader)
        );
        r.route(&key('b', Modifiers::CTRL));
        assert_eq!(
            r.route(&KeyEvent {
                key: KeyCode::Escape,
                modifiers: Modifiers::NONE
            }),
            KeyRoute::Action(Action::WindowManagementMode)
        );
        r.route(&key('b', Modifiers::CTRL));
        assert_eq!(
            r.route(&key('%', Modifiers::SHIFT)),
            KeyRoute::Action(Action::SplitVertical)
        );
        r.route(&key('b', Modifiers::CTRL));
        assert_eq!(
            r.route(&KeyEvent {
                key: KeyCode::LeftArrow,
                modifiers: Modifiers::NONE
            }),
            KeyRoute::Action(Action::Focus(Direction::Left))
        );
    }

    #[test]
    fn focus_return_comes_before_everything() {
        let mut r = Router::new(DEFAULT_LEADER, vec![DEFAULT_FOCUS_RETURN]);
        r.mode = InputMode::Terminal;
        r.route(&key('b', Modifiers::CTRL));
        let chord = KeyEvent {
            key: KeyCode::Escape,
            modifiers: Modifiers::CTRL | Modifiers::SHIFT,
        };
        assert_eq!(r.route(&chord), KeyRoute::FocusReturn);
        assert_eq!(r.mode, InputMode::WindowManagement);
        assert!(!r.leader_armed);
    }

    #[test]
    fn window_management_mode_bindings_without_leader() {
        let mut r = Router::new(DEFAULT_LEADER, vec![DEFAULT_FOCUS_RETURN]);
        r.mode = InputMode::WindowManagement;
        assert_eq!(
            r.route(&key('3', Modifiers::NONE)),
            KeyRoute::Action(Action::Workspace(3))
        );
        assert_eq!(r.route(&key('m', Modifiers::NONE)), KeyRoute::MovePending);
        assert_eq!(
            r.route(&key('4', Modifiers::NONE)),
            KeyRoute::Action(Action::MoveToWorkspace(4))
        );
        assert_eq!(
            r.route(&key('q', Modifiers::NONE)),
            KeyRoute::Unbound(key('q', Modifiers::NONE))
        );
        assert_eq!(
            r.route(&KeyEvent {
                key: KeyCode::Enter,
                modifiers: Modifiers::NONE
            }),
            KeyRoute::Action(Action::TerminalMode)
        );
        assert_eq!(
            r.route(&key('x', Modifiers::CTRL)),
            KeyRoute::Unbound(key('x', Modifiers::CTRL))
        );
    }

    #[test]
    fn tokens_become_events() {
        let ev = token_events("echo,hi Enter PREFIX c ctrl+c", false, DEFAULT_LEADER).unwrap();
        let keys: Vec<KeyCode> = ev.iter().map(|e| e.key).collect();
        assert_eq!(
            keys,
            vec![
                KeyCode::Char('e'),
                KeyCode::Char('c'),
                KeyCode::Char('h'),
                KeyCode::Char('o'),
                KeyCode::Char('h'),
                KeyCode::Char('i'),
                KeyCode::Enter,
                KeyCode::Char('b'),
                KeyCode::Char('c'),
                KeyCode::Char('c'),
            ]
        );
        assert_eq!(ev[7].modifiers, Modifiers::CTRL);
        assert_eq!(ev[9].modifiers, Modifiers::CTRL);
        // Case is kept.
        let ev = token_events("Hi", false, DEFAULT_LEADER).unwrap();
        assert_eq!(ev[0].key, KeyCode::Char('H'));
        // Raw: every character, spaces included.
        assert_eq!(token_events("a b", true, DEFAULT_LEADER).unwrap().len(), 3);
        assert!(token_events(" , ", false, DEFAULT_LEADER).is_err());
        // A lone "+" is typed.
        assert_eq!(
            token_events("+", false, DEFAULT_LEADER).unwrap()[0].key,
            KeyCode::Char('+')
        );
    }

    #[test]
    fn tmux_spellings_are_keys_and_plain_words_text() {
        let ev = token_events(
            "C-b M-x S-Up BSpace DC C-M-a dc C- Cat",
            false,
            DEFAULT_LEADER,
        )
        .unwrap();
        let pairs: Vec<(KeyCode, Modifiers)> = ev.iter().map(|e| (e.key, e.modifiers)).collect();
        assert_eq!(
            pairs[..6],
            [
                (KeyCode::Char('b'), Modifiers::CTRL),
                (KeyCode::Char('x'), Modifiers::ALT),
                (KeyCode::UpArrow, Modifiers::SHIFT),
                (KeyCode::Backspace, Modifiers::NONE),
                (KeyCode::Delete, Modifiers::NONE),
                (KeyCode::Char('a'), Modifiers::CTRL | Modifiers::ALT),
            ]
        );
        // "dc" (a program), "C-" and "Cat" are text.
        let text: String = ev[6..]
            .iter()
            .map(|e| match e.key {
                KeyCode::Char(c) => c,
                _ => '?',
            })
            .collect();
        assert_eq!(text, "dcC-Cat");
        // The leader in tmux's spelling arms the leader like ctrl+b.
        assert!(DEFAULT_LEADER.matches(&ev[0]));
    }

    #[test]
    fn the_daemon_reads_key_combos_as_this_client_does() {
        for s in [
            "ctrl+b",
            "Ctrl+Shift+Escape",
            "alt+1",
            "ctrl++",
            "+",
            "x",
            "shift+f12",
            "f24",
            "cmd+k",
            "m+x",
            "ctrl+",
            "hyper+x",
            "ctrl+enterr",
            "",
            " ",
            "f25",
            "ctrl+ab",
            "control+pgdn",
            "opt+spc",
            "a+b+c",
        ] {
            assert_eq!(
                KeyChord::parse(s).is_some(),
                protocol::commands::is_key_combo(s),
                "{s:?}"
            );
        }
    }

    #[test]
    fn config_files() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("config.toml");
        let pol = dir.path().join("policy.toml");
        let k = KeyConfig::load(Some(&cfg), Some(&pol));
        assert_eq!(k.leader, DEFAULT_LEADER);
        assert!(k.warnings.is_empty());
        std::fs::write(
            &cfg,
            "[keybindings]\nleader_key = \"ctrl+a\"\n[daemon]\nlog_level = \"info\"\n",
        )
        .unwrap();
        std::fs::write(&pol, "[lumen]\nfocus_return_fallback = \"ctrl+alt+g\"\n").unwrap();
        let k = KeyConfig::load(Some(&cfg), Some(&pol));
        assert_eq!(k.leader, KeyChord::parse("ctrl+a").unwrap());
        assert_eq!(k.focus_return.len(), 2);
        assert!(k.warnings.is_empty(), "{:?}", k.warnings);
        std::fs::write(&cfg, "[keybindings]\nleader_key = \"nope+x\"\n").unwrap();
        let k = KeyConfig::load(Some(&cfg), None);
        assert_eq!(k.leader, DEFAULT_LEADER);
        assert_eq!(k.warnings.len(), 1);
    }
}
