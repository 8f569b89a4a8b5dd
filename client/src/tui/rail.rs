//! The session rail (`appearance.sidebar.*`): a column on one edge listing the daemon's
//! sessions, the current session's windows and its agents. Pure: how wide it is and which rows
//! it shows, planned from the view model; `render/rail.rs` draws them. The session list comes
//! from `list-sessions`, polled off the draw path by `sessions_poll`.

use serde_json::Value;

pub use super::model::RailSession;
use super::text::title_of;
use super::view::View;

/// Columns the windows keep beside a full rail; below that the rail collapses to a strip.
const MIN_WINDOWS_W: u16 = 40;
/// Narrowest full rail: a name and a count still fit.
const MIN_RAIL_W: u16 = 12;
/// The collapsed strip: a session's initial, its marker and a divider.
pub const STRIP_W: u16 = 3;

/// The sessions in a `list-sessions` result, oldest first; rows it cannot read are skipped.
pub fn parse_sessions(result: &Value) -> Vec<RailSession> {
    let Some(rows) = result.get("sessions").and_then(Value::as_array) else {
        return Vec::new();
    };
    rows.iter()
        .filter_map(|r| {
            Some(RailSession {
                name: r.get("name")?.as_str()?.to_string(),
                windows: r.get("window_count").and_then(Value::as_u64).unwrap_or(0) as usize,
                attached: r.get("attached").and_then(Value::as_bool).unwrap_or(false),
                accent: r
                    .get("accent")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            })
        })
        .collect()
}

/// The rail's width on a terminal `term_w` wide: the preferred width when the windows keep
/// enough room, less when they would not, the strip when even a narrow rail would crowd them,
/// nothing on a terminal too small for the strip.
pub fn rail_width(preferred: u16, term_w: u16) -> u16 {
    let full = preferred.min(term_w.saturating_sub(MIN_WINDOWS_W));
    if full >= MIN_RAIL_W.min(preferred) && full > STRIP_W {
        full
    } else if term_w >= STRIP_W + MIN_RAIL_W {
        STRIP_W
    } else {
        0
    }
}

/// A session's colour on the rail: its accent when set, else one picked from its name, so a
/// session keeps its colour across clients and restarts.
pub fn session_colour(name: &str, accent: &str) -> [u8; 3] {
    if let Some(c) = config::themes::parse_hex(accent.trim()) {
        return c;
    }
    // FNV-1a: stable across builds, unlike the std hasher.
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    const HUES: [[u8; 3]; 8] = [
        [0xe0, 0x6c, 0x75],
        [0x98, 0xc3, 0x79],
        [0xe5, 0xc0, 0x7b],
        [0x61, 0xaf, 0xef],
        [0xc6, 0x78, 0xdd],
        [0x56, 0xb6, 0xc2],
        [0xd1, 0x9a, 0x66],
        [0xbe, 0x50, 0x46],
    ];
    HUES[(h % HUES.len() as u32) as usize]
}

/// The glyph of an agent state; None for no agent.
pub fn agent_glyph(state: &str) -> Option<char> {
    Some(match state {
        "" | "none" => return None,
        "working" => '●',
        "needs_input" => '◆',
        "idle" => '○',
        "done" => '✓',
        "errored" => '✗',
        _ => '•',
    })
}

/// Milliseconds per column a hovered row's overflowing title moves.
pub const MARQUEE_MS: u64 = 250;
/// Blank columns between the end of a scrolling title and its start coming round again.
const MARQUEE_GAP: usize = 3;

/// `text` as shown in `width` columns at marquee step `step`: as is when it fits, else rotated
/// by `step` characters, a gap between its end and its start.
pub fn marquee(text: &str, width: usize, step: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let ring: Vec<char> = text
        .chars()
        .chain(std::iter::repeat_n(' ', MARQUEE_GAP))
        .collect();
    let start = step % ring.len();
    ring.iter().cycle().skip(start).take(ring.len()).collect()
}

/// The text a row scrolls when hovered, and the columns it has (`rail_w` the rail's body).
pub fn scrolling_text(row: &RailRow, rail_w: u16) -> Option<(&str, usize)> {
    let w = usize::from(rail_w);
    let (text, room) = match row {
        RailRow::Session { name, .. } => (name.as_str(), w.saturating_sub(5)),
        RailRow::Window { title, .. } => (title.as_str(), w.saturating_sub(4)),
        RailRow::Agent { title, state, .. } => {
            (title.as_str(), w.saturating_sub(4 + state.chars().count()))
        }
        RailRow::Heading(_) => return None,
    };
    (text.chars().count() > room).then_some((text, room))
}

/// One row of the rail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RailRow {
    Heading(&'static str),
    Session {
        name: String,
        count: Option<usize>,
        attached: bool,
        current: bool,
        colour: Option<[u8; 3]>,
    },
    /// A window of the current session; clicking it focuses it.
    Window {
        id: String,
        title: String,
        glyph: Option<char>,
        focused: bool,
    },
    Agent {
        id: String,
        title: String,
        state: String,
        glyph: Option<char>,
    },
}

/// The rows of a full rail `rows` high: sessions at the top, the windows below, the agents
/// section at the foot (kept there, the windows cut short if need be).
pub fn plan_rail(v: &View, rows: u16) -> Vec<RailRow> {
    let s = v.settings.rail.clone();
    let current = &v.session.name;
    let mut sessions: Vec<RailSession> = v.sessions.to_vec();
    // Until the first poll answers (or if it fails), the rail still shows this session.
    if !sessions.iter().any(|x| &x.name == current) && !current.is_empty() {
        sessions.push(RailSession {
            name: current.clone(),
            windows: v.session.windows.len(),
            attached: true,
            accent: v.session.accent.clone(),
        });
    }
    let mut top = vec![RailRow::Heading("sessions")];
    top.extend(sessions.iter().map(|x| RailRow::Session {
        name: x.name.clone(),
        // This session's own count is live; the others' are as of the last poll.
        count: s.show_counts.then_some(if &x.name == current {
            v.session.windows.len()
        } else {
            x.windows
        }),
        attached: x.attached || &x.name == current,
        current: &x.name == current,
        colour: s.session_colors.then(|| session_colour(&x.name, &x.accent)),
    }));
    let glyph = |state: &str| agent_glyph(state).filter(|_| s.show_glyphs);
    let mut windows = Vec::new();
    if s.show_windows {
        windows.push(RailRow::Heading("windows"));
        windows.extend(v.session.windows.iter().map(|w| RailRow::Window {
            id: w.id.clone(),
            title: title_of(w),
            glyph: glyph(&w.agent_state),
            focused: v.session.focused.as_deref() == Some(w.id.as_str()),
        }));
    }
    let mut agents = Vec::new();
    if s.show_agents {
        let busy: Vec<_> = v
            .session
            .windows
            .iter()
            .filter(|w| agent_glyph(&w.agent_state).is_some())
            .collect();
        if !busy.is_empty() {
            agents.push(RailRow::Heading("agents"));
            agents.extend(busy.into_iter().map(|w| RailRow::Agent {
                id: w.id.clone(),
                title: title_of(w),
                state: w.agent_state.replace('_', " "),
                glyph: agent_glyph(&w.agent_state),
            }));
        }
    }
    let rows = usize::from(rows);
    let mut out = top;
    out.truncate(rows);
    let room = rows - out.len();
    let agents_fit = agents.len().min(room);
    let windows_fit = windows.len().min(room - agents_fit);
    out.extend(windows.into_iter().take(windows_fit));
    agents.truncate(agents_fit);
    // The agents sit at the rail's foot: blank headings fill the gap above them.
    if !agents.is_empty() {
        while out.len() + agents.len() < rows {
            out.push(RailRow::Heading(""));
        }
    }
    out.extend(agents);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn width_clamps_then_collapses_then_goes() {
        assert_eq!(rail_width(28, 200), 28);
        assert_eq!(rail_width(28, 60), 20, "the windows keep 40 columns");
        assert_eq!(
            rail_width(28, 45),
            STRIP_W,
            "too narrow for a rail: the strip"
        );
        assert_eq!(rail_width(28, 10), 0, "too small even for the strip");
        assert_eq!(rail_width(8, 100), 8, "a small preference is kept");
    }

    #[test]
    fn colours_come_from_the_accent_or_the_name() {
        assert_eq!(session_colour("x", "#102030"), [0x10, 0x20, 0x30]);
        assert_eq!(session_colour("work", ""), session_colour("work", ""));
        let distinct: std::collections::HashSet<_> = ["a", "b", "c", "d", "e", "f"]
            .iter()
            .map(|n| session_colour(n, ""))
            .collect();
        assert!(distinct.len() > 1);
    }

    #[test]
    fn sessions_parse_from_list_sessions() {
        let v = serde_json::json!({"sessions": [
            {"name": "a", "window_count": 2, "attached": true, "accent": "#ff0000"},
            {"name": "b", "window_count": 0, "attached": false},
            {"window_count": 1}
        ]});
        let s = parse_sessions(&v);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].windows, 2);
        assert!(s[0].attached && !s[1].attached);
        assert_eq!(s[0].accent, "#ff0000");
        assert!(parse_sessions(&serde_json::json!({})).is_empty());
    }

    #[test]
    fn an_overflowing_title_scrolls_round() {
        assert_eq!(marquee("short", 10, 4), "short");
        assert_eq!(marquee("abcdef", 4, 0), "abcdef   ");
        assert_eq!(marquee("abcdef", 4, 2), "cdef   ab");
        assert_eq!(marquee("abcdef", 4, 9), "abcdef   ", "a whole turn");
        let row = RailRow::Window {
            id: "w".into(),
            title: "a long window title".into(),
            glyph: None,
            focused: false,
        };
        assert!(scrolling_text(&row, 10).is_some());
        assert!(scrolling_text(&row, 40).is_none());
    }

    #[test]
    fn glyphs_for_agent_states() {
        assert_eq!(agent_glyph("none"), None);
        assert_eq!(agent_glyph(""), None);
        assert_eq!(agent_glyph("working"), Some('●'));
        assert_eq!(agent_glyph("needs_input"), Some('◆'));
    }
}
