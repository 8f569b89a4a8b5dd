//! Links in windows: the dialog, the policy, clicks.

use super::*;

const SPOOF_URL: &str = "https://example.com/\u{202E}evil";

/// Window `a`'s screen: "ab", then "LINK" linked to `url`, then "cd".
fn linked_screen(url: &str) -> DaemonOp {
    let run = |text: &str, link: Option<&str>| Run {
        text: text.into(),
        style: Default::default(),
        link: link.map(str::to_owned),
    };
    DaemonOp::Screen(ScreenUpdate {
        window: "a".into(),
        cols: 98,
        rows: 27,
        cursor_x: 0,
        cursor_y: 1,
        cursor_visible: true,
        full: true,
        lines: vec![(
            0,
            Row {
                runs: vec![run("ab", None), run("LINK", Some(url)), run("cd", None)],
            },
        )],
    })
}

/// A left press and release at content column `col` of window `a`'s first row.
fn click_content(app: &mut App, col: u16, mods: Modifiers) {
    // The window's content starts at column 1, row 1; reports are 1-based.
    for buttons in [MouseButtons::LEFT, MouseButtons::NONE] {
        app.on_input(InputEvent::Mouse(MouseEvent {
            x: col + 2,
            y: 2,
            mouse_buttons: buttons,
            modifiers: mods,
        }));
    }
}

fn inputs(ops: &[ClientOp]) -> usize {
    ops.iter()
        .filter(|op| matches!(op, ClientOp::Input { .. } | ClientOp::Paste { .. }))
        .count()
}

#[test]
fn ctrl_click_on_a_link_asks_then_opens() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(linked_screen(SPOOF_URL));
    take(&mut app);
    app.router.mode = InputMode::Terminal;
    // A plain click in terminal mode is an ordinary click.
    click_content(&mut app, 3, Modifiers::NONE);
    assert_eq!(app.overlay, Overlay::None);
    // Ctrl+click on the unlinked text does nothing special either.
    click_content(&mut app, 0, Modifiers::CTRL);
    assert_eq!(app.overlay, Overlay::None);
    click_content(&mut app, 3, Modifiers::CTRL);
    let Overlay::Link(d) = &app.overlay else {
        panic!("no link dialog: {:?}", app.overlay);
    };
    assert_eq!(d.url, SPOOF_URL);
    assert_eq!(d.shown, "https://example.com/\\u{202E}evil");
    // The tray shows the escaped URL and the choices; the override itself is drawn nowhere.
    let (lines, hits) = draw(&app);
    let all = lines.join("\n");
    assert!(all.contains("https://example.com/\\u{202E}evil"), "{all}");
    assert!(!all.contains('\u{202E}'));
    assert!(
        all.contains("[o] open") && all.contains("[c] copy"),
        "{all}"
    );
    assert!(hits
        .targets
        .iter()
        .any(|(_, t)| *t == Target::LinkChoice("open")));
    // Keys go to the dialog while it is open, never to the window.
    app.on_key(key('x'));
    assert!(matches!(app.overlay, Overlay::Link(_)));
    assert_eq!(inputs(&take(&mut app)), 0);
    app.on_key(key('o'));
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.open_links, vec![SPOOF_URL.to_string()]);
    assert!(app.clipboard.is_empty());
    assert_eq!(inputs(&take(&mut app)), 0);
}

#[test]
fn link_dialog_copies_or_cancels() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(linked_screen("https://example.com/x"));
    click_content(&mut app, 2, Modifiers::CTRL);
    app.on_key(key('c'));
    assert_eq!(app.clipboard, vec!["https://example.com/x".to_string()]);
    assert!(app.open_links.is_empty());
    assert_eq!(app.overlay, Overlay::None);

    app.clipboard.clear();
    click_content(&mut app, 5, Modifiers::CTRL);
    assert!(matches!(app.overlay, Overlay::Link(_)));
    app.on_key(KeyEvent {
        key: KeyCode::Escape,
        modifiers: Modifiers::NONE,
    });
    assert_eq!(app.overlay, Overlay::None);
    assert!(app.clipboard.is_empty() && app.open_links.is_empty());
    assert_eq!(inputs(&take(&mut app)), 0);
}

#[test]
fn wm_mode_click_on_a_link_asks_and_mouse_apps_do_not_see_it() {
    let mut a = win("a", 1);
    a.modes = WindowModes {
        mouse: true,
        sgr_mouse: true,
        ..Default::default()
    };
    let mut app = attached(vec![a], "a");
    app.on_op(linked_screen("mailto:x@y"));
    take(&mut app);
    app.router.mode = InputMode::WindowManagement;
    click_content(&mut app, 4, Modifiers::NONE);
    assert!(matches!(&app.overlay, Overlay::Link(d) if d.url == "mailto:x@y"));
    app.on_key(KeyEvent {
        key: KeyCode::Escape,
        modifiers: Modifiers::NONE,
    });
    // A ctrl+click on a link in a mouse program asks too; the program gets no report of it.
    click_content(&mut app, 4, Modifiers::CTRL);
    assert!(matches!(app.overlay, Overlay::Link(_)));
    assert_eq!(inputs(&take(&mut app)), 0);
}

#[test]
fn disallowed_schemes_are_refused_with_a_notice() {
    let mut app = attached(vec![win("a", 1)], "a");
    for url in [
        "javascript:alert(1)",
        "FILE:///etc/passwd",
        "data:text/html,x",
    ] {
        app.notices.clear();
        app.on_op(linked_screen(url));
        click_content(&mut app, 3, Modifiers::CTRL);
        assert_eq!(app.overlay, Overlay::None, "{url}");
        let n = app.notices.last().expect("a notice");
        let scheme = protocol::lumen::link_scheme(url).unwrap();
        assert!(n.text.contains(&format!("\"{scheme}:\"")), "{}", n.text);
        assert!(n.text.contains("policy.toml"), "{}", n.text);
        assert!(app.open_links.is_empty() && app.clipboard.is_empty());
    }
    // The user's policy decides: with only gemini allowed, https is refused too.
    app.set_link_policy(
        LinkPolicy {
            schemes: vec!["gemini".into()],
            opener: vec!["xdg-open".into()],
        },
        vec!["a warning".into()],
    );
    assert_eq!(app.notices.last().unwrap().text, "a warning");
    app.on_op(linked_screen("https://example.com/"));
    click_content(&mut app, 3, Modifiers::CTRL);
    assert_eq!(app.overlay, Overlay::None);
    app.on_op(linked_screen("gemini://x/"));
    click_content(&mut app, 3, Modifiers::CTRL);
    assert!(matches!(app.overlay, Overlay::Link(_)));
}

#[test]
fn click_to_type_decides_what_a_content_click_does_in_window_management() {
    let click = |app: &mut App| {
        for buttons in [MouseButtons::LEFT, MouseButtons::NONE] {
            app.on_input(InputEvent::Mouse(MouseEvent {
                x: 10,
                y: 5,
                mouse_buttons: buttons,
                modifiers: Modifiers::NONE,
            }));
        }
    };
    // single (the default): one click starts typing into the window.
    let mut app = attached(vec![win("a", 1)], "a");
    click(&mut app);
    assert_eq!(app.mode(), InputMode::Terminal);
    // off: clicks only focus.
    let mut app = attached(vec![win("a", 1)], "a");
    app.set_option("appearance.click_to_type", "off", true)
        .unwrap();
    click(&mut app);
    assert_eq!(app.mode(), InputMode::WindowManagement);
    click(&mut app);
    assert_eq!(app.mode(), InputMode::WindowManagement);
    // double: a first click alone does not.
    let mut app = attached(vec![win("a", 1)], "a");
    app.set_option("appearance.click_to_type", "double", true)
        .unwrap();
    click(&mut app);
    assert_eq!(app.mode(), InputMode::WindowManagement);
}

#[test]
fn a_zoomed_window_is_drawn_no_wider_than_zoom_max_width() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    app.set_option("appearance.zoom_max_width", "60", true)
        .unwrap();
    let before = app.frames.clone();
    assert!(
        before.iter().all(|f| f.rect.w <= 60),
        "not zoomed: tiled as usual"
    );
    app.run_command("ToggleZoom", &[], None).unwrap();
    assert_eq!(app.frames.len(), 1);
    assert_eq!(app.frames[0].rect.w, 60);
    assert_eq!(app.frames[0].rect.x, 20, "centred in the 100 columns");
}

#[test]
fn the_keycast_keeps_the_last_keys_only_when_asked() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_key(key('x'));
    assert!(app.keycast.is_empty(), "off by default");
    app.set_option("debug.show_key_events", "on", true).unwrap();
    for c in "abcdefghij".chars() {
        app.on_key(key(c));
    }
    app.on_key(KeyEvent {
        key: KeyCode::Char('b'),
        modifiers: Modifiers::CTRL,
    });
    let shown: Vec<&str> = app.keycast.iter().map(String::as_str).collect();
    assert_eq!(shown, ["d", "e", "f", "g", "h", "i", "j", "ctrl+b"]);
}

#[test]
fn alt_drag_moves_a_floating_window_by_its_content() {
    let drag = |app: &mut App, mods: Modifiers| {
        let a = app.frames.iter().find(|f| f.id == "a").unwrap().rect;
        let ev = |x: u16, y: u16, buttons| {
            InputEvent::Mouse(MouseEvent {
                x: x + 1,
                y: y + 1,
                mouse_buttons: buttons,
                modifiers: mods,
            })
        };
        // Inside the content, well clear of the title and the borders.
        app.on_input(ev(a.x + 3, a.y + 3, MouseButtons::LEFT));
        app.on_input(ev(a.x + 6, a.y + 5, MouseButtons::LEFT));
        app.on_input(ev(a.x + 6, a.y + 5, MouseButtons::NONE));
        let moved = app.frames.iter().find(|f| f.id == "a").unwrap().rect;
        (moved.x - a.x, moved.y - a.y)
    };
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    app.on_key(key('t'));
    assert!(!app.layout.tiling(1));
    assert_eq!(drag(&mut app, Modifiers::ALT), (3, 2));
    assert_eq!(
        drag(&mut app, Modifiers::NONE),
        (0, 0),
        "a plain drag does not move it"
    );
    app.router.mode = InputMode::WindowManagement;
    app.set_option("appearance.alt_drag", "off", true).unwrap();
    assert_eq!(drag(&mut app, Modifiers::ALT), (0, 0), "switched off");
}
