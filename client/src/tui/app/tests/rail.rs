//! The session rail: its columns come from the windows, its rows list the sessions, the
//! current session's windows and its agents, and the pointer scrolls or labels what it rests on.

use super::*;
use crate::tui::rail::RailSession;

/// An attached client with `options` set on the session, two windows (one an agent waiting).
fn with_options(options: &[(&str, &str)], term: (u16, u16)) -> App {
    let mut app = App::new(keys(), term);
    let mut a = win("a", 1);
    a.display_name = "editor".into();
    let mut b = win("b", 1);
    b.display_name = "claude".into();
    b.agent_state = "needs_input".into();
    let mut s = state(vec![a, b], "a", 1);
    s.width = term.0;
    s.height = term.1;
    s.options = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    app.on_op(DaemonOp::Attached { state: s });
    app.set_sessions(vec![
        RailSession {
            name: "w".into(),
            // Stale: the rail shows this session's live count.
            windows: 7,
            attached: false,
            accent: String::new(),
        },
        RailSession {
            name: "other".into(),
            windows: 5,
            attached: false,
            accent: "#00ff00".into(),
        },
    ]);
    app
}

fn motion(app: &mut App, x: u16, y: u16) {
    app.on_input(InputEvent::Mouse(MouseEvent {
        x: x + 1,
        y: y + 1,
        mouse_buttons: MouseButtons::NONE,
        modifiers: Modifiers::NONE,
    }));
}

#[test]
fn off_by_default_and_no_columns_taken() {
    let app = with_options(&[], (100, 30));
    assert!(!app.rail_shown());
    assert_eq!(app.windows_area().w, 100);
}

#[test]
fn the_rail_lists_sessions_windows_and_agents_on_the_left() {
    let app = with_options(&[("appearance.sidebar.enabled", "true")], (100, 30));
    assert_eq!(app.rail_rect(), Some(Rect::new(0, 0, 28, 29)));
    assert_eq!(app.windows_area(), Rect::new(28, 0, 72, 29));
    assert!(
        app.frames.iter().all(|f| f.rect.x >= 28),
        "{:?}",
        app.frames
    );
    let (lines, hits) = draw(&app);
    let rail: Vec<String> = lines.iter().map(|l| l.chars().take(28).collect()).collect();
    assert!(rail[0].contains("sessions"), "{rail:#?}");
    assert!(
        rail[1].starts_with("▸w") && rail[1].contains("2*"),
        "{rail:#?}"
    );
    assert!(
        rail[2].contains("other") && rail[2].contains('5'),
        "{rail:#?}"
    );
    assert!(rail[3].contains("windows"), "{rail:#?}");
    assert!(rail[4].contains("editor"), "{rail:#?}");
    assert!(rail[5].contains("◆ claude"), "{rail:#?}");
    // The agents section at the foot.
    assert!(
        rail[28].contains("claude") && rail[28].contains("needs input"),
        "{rail:#?}"
    );
    assert!(rail[27].contains("agents"), "{rail:#?}");
    assert!(rail.iter().take(29).all(|r| r.ends_with('│')), "{rail:#?}");
    // A window row focuses its window when clicked.
    assert!(hits
        .targets
        .iter()
        .any(|(r, t)| r.y == 4 && *t == Target::Window("a".into())));
}

#[test]
fn position_width_and_sections_follow_the_options() {
    let app = with_options(
        &[
            ("appearance.sidebar.enabled", "true"),
            ("appearance.sidebar.position", "right"),
            ("appearance.sidebar.width", "20"),
            ("appearance.sidebar.show_windows", "false"),
            ("appearance.sidebar.show_agents", "false"),
            ("appearance.sidebar.show_counts", "false"),
        ],
        (100, 30),
    );
    assert_eq!(app.rail_rect(), Some(Rect::new(80, 0, 20, 29)));
    assert_eq!(app.windows_area(), Rect::new(0, 0, 80, 29));
    let (lines, _) = draw(&app);
    let rail: Vec<String> = lines.iter().map(|l| l.chars().skip(80).collect()).collect();
    assert!(rail[0].starts_with('│'));
    assert!(rail[1].contains("w") && !rail[1].contains('2'), "{rail:#?}");
    assert!(!rail
        .iter()
        .any(|r| r.contains("windows") || r.contains("agents")));
    let hidden = with_options(
        &[
            ("appearance.sidebar.enabled", "true"),
            ("appearance.sidebar.position", "hidden"),
        ],
        (100, 30),
    );
    assert!(!hidden.rail_shown());
    let alias = with_options(&[("appearance.sidebar_enabled", "true")], (100, 30));
    assert!(alias.rail_shown(), "the deprecated flat name acts too");
}

#[test]
fn a_narrow_terminal_gets_the_strip_and_its_tooltips() {
    let mut app = with_options(&[("appearance.sidebar.enabled", "true")], (50, 20));
    assert_eq!(app.rail_rect(), Some(Rect::new(0, 0, 3, 19)));
    let (lines, _) = draw(&app);
    assert!(lines[0].starts_with("w │"), "{lines:#?}");
    assert!(lines[1].starts_with("o │"), "{lines:#?}");
    motion(&mut app, 0, 1);
    let (lines, _) = draw(&app);
    assert!(lines[1].starts_with("o │ other "), "{lines:#?}");
    motion(&mut app, 30, 5);
    let (lines, _) = draw(&app);
    assert!(
        !lines[1].contains("other"),
        "the label goes with the pointer"
    );
}

#[test]
fn a_hovered_overflowing_title_scrolls() {
    let mut app = with_options(
        &[
            ("appearance.sidebar.enabled", "true"),
            ("appearance.sidebar.width", "12"),
        ],
        (100, 30),
    );
    let mut long = win("c", 1);
    long.display_name = "a-very-long-window-title".into();
    let mut s = app.session.clone();
    s.windows.push(long);
    s.version = 2;
    app.on_op(DaemonOp::State { state: s });
    // Rows: heading, two sessions, heading, then windows a, b, c.
    let (lines, _) = draw(&app);
    assert!(lines[6].contains("a-very"), "{lines:#?}");
    let t0 = Instant::now();
    app.hover_rail(3, 6, t0);
    let next = app.tick_rail(t0 + Duration::from_millis(3 * crate::tui::rail::MARQUEE_MS));
    assert!(next.is_some());
    let (lines, _) = draw(&app);
    assert!(lines[6].starts_with("    ery-lon"), "{lines:#?}");
    // No marquee when it is off.
    let mut s = app.session.clone();
    s.options
        .insert("appearance.sidebar.marquee".into(), "false".into());
    s.version = 3;
    app.on_op(DaemonOp::State { state: s });
    assert_eq!(app.tick_rail(t0 + Duration::from_secs(2)), None);
}
