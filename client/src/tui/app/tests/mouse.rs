//! Clicks, drags, keys sent by request, options, copy mode and odd sizes.

use super::*;

#[test]
fn clicks_on_content_focus_and_reach_mouse_apps_only() {
    let mut b = win("b", 1);
    b.modes = WindowModes {
        mouse: true,
        sgr_mouse: true,
        ..Default::default()
    };
    let mut app = attached(vec![win("a", 1), b], "a");
    take(&mut app);
    let press = |x, y| {
        InputEvent::Mouse(MouseEvent {
            x,
            y,
            mouse_buttons: MouseButtons::LEFT,
            modifiers: Modifiers::NONE,
        })
    };
    let release = |x, y| {
        InputEvent::Mouse(MouseEvent {
            x,
            y,
            mouse_buttons: MouseButtons::NONE,
            modifiers: Modifiers::NONE,
        })
    };
    // b sits at columns 50-99; its content starts at column 51, row 1 (1-based: 52, 2).
    app.on_input(press(53, 3));
    app.on_input(release(53, 3));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Command {
            name: "FocusWindow".into(),
            args: vec!["b".into()]
        }]
    );
    assert_eq!(app.mode(), InputMode::Terminal);
    app.on_input(press(53, 3));
    app.on_input(release(53, 3));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Input {
            window: "b".into(),
            data: b"\x1b[<0;2;2M\x1b[<0;2;2m".to_vec()
        }]
    );
    // Clicking the border never reaches the program.
    app.on_input(press(51, 10));
    app.on_input(release(51, 10));
    assert!(take(&mut app).is_empty());
}

#[test]
fn dragging_a_divider_resizes_the_split() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    let ev = |x, buttons| {
        InputEvent::Mouse(MouseEvent {
            x,
            y: 10,
            mouse_buttons: buttons,
            modifiers: Modifiers::NONE,
        })
    };
    // The right border of a is column 49 (1-based 50).
    app.on_input(ev(50, MouseButtons::LEFT));
    app.on_input(ev(70, MouseButtons::LEFT));
    app.on_input(ev(70, MouseButtons::NONE));
    assert_eq!(app.frames[0].rect.w, 70);
    let out = take(&mut app);
    assert!(out.iter().any(|op| matches!(op, ClientOp::Layout { .. })));
    assert!(out.contains(&ClientOp::WindowSize {
        window: "a".into(),
        cols: 68,
        rows: 27
    }));
}

#[test]
fn send_keys_types_in_terminal_mode_and_prefix_reaches_bindings() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    app.on_request(
        9,
        RoutedRequest::SendKeys {
            window: Some("b".into()),
            keys: "echo,hi Enter".into(),
            literal: false,
            raw: false,
        },
    );
    let out = take(&mut app);
    assert_eq!(
        out[0],
        ClientOp::Input {
            window: "b".into(),
            data: b"echohi\r".to_vec()
        }
    );
    assert!(matches!(
        out[1],
        ClientOp::Reply {
            request: 9,
            ok: true,
            ..
        }
    ));
    assert_eq!(
        app.mode(),
        InputMode::WindowManagement,
        "the user's mode is kept"
    );
    app.on_request(
        10,
        RoutedRequest::SendKeys {
            window: None,
            keys: "PREFIX n".into(),
            literal: false,
            raw: false,
        },
    );
    assert_eq!(
        take(&mut app)[0],
        ClientOp::Command {
            name: "NextWindow".into(),
            args: vec![]
        }
    );
}

#[test]
fn options_apply_live() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    app.on_request(
        11,
        RoutedRequest::SetOption {
            path: "appearance.border_style".into(),
            value: "double".into(),
        },
    );
    app.on_request(
        12,
        RoutedRequest::SetOption {
            path: "appearance.border_style".into(),
            value: "wavy".into(),
        },
    );
    app.on_request(
        13,
        RoutedRequest::Command {
            name: "SetDockbarPosition".into(),
            args: vec!["hidden".into()],
        },
    );
    assert_eq!(
        app.settings.border,
        crate::tui::settings::BorderStyle::Double
    );
    assert_eq!(app.settings.dock, Edge::Hidden);
    let out = take(&mut app);
    let oks: Vec<bool> = out
        .iter()
        .filter_map(|op| match op {
            ClientOp::Reply { ok, .. } => Some(*ok),
            _ => None,
        })
        .collect();
    assert_eq!(oks, vec![true, false, true]);
    // Without the dock the window gets the whole height.
    assert!(out.contains(&ClientOp::WindowSize {
        window: "a".into(),
        cols: 98,
        rows: 28
    }));
}

#[test]
fn copy_mode_fetches_scrollback_and_yanks() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    app.on_key(key('['));
    assert!(app.copy.is_some());
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Scrollback {
            window: "a".into(),
            before: None,
            count: 500
        }]
    );
    app.on_op(DaemonOp::Scrollback {
        window: "a".into(),
        first: 0,
        rows: vec![Row {
            runs: vec![Run {
                text: "older line".into(),
                style: Default::default(),
                link: None,
            }],
        }],
        more: false,
        oldest: Some(0),
    });
    app.on_key(key('g'));
    app.on_key(key('y'));
    assert!(app.copy.is_none());
    assert_eq!(app.clipboard, vec!["older line".to_string()]);
}

#[test]
fn session_end_and_detach_stop_the_client() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(DaemonOp::Detached);
    assert_eq!(app.exit, Some(Exit::Detached));
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(DaemonOp::SessionEnded {
        session: "w".into(),
        reason: "killed".into(),
    });
    assert!(matches!(app.exit, Some(Exit::Ended { .. })));
}

#[test]
fn floating_windows_move_by_their_title() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    app.on_key(key('t'));
    assert!(!app.layout.tiling(1));
    take(&mut app);
    let a = app.frames.iter().find(|f| f.id == "a").unwrap().rect;
    let ev = |x: u16, y: u16, buttons| {
        InputEvent::Mouse(MouseEvent {
            x: x + 1,
            y: y + 1,
            mouse_buttons: buttons,
            modifiers: Modifiers::NONE,
        })
    };
    // Grab a's title bar two cells in, drag it 5 right and 3 down.
    app.on_input(ev(a.x + 2, a.y, MouseButtons::LEFT));
    app.on_input(ev(a.x + 7, a.y + 3, MouseButtons::LEFT));
    app.on_input(ev(a.x + 7, a.y + 3, MouseButtons::NONE));
    let moved = app.frames.iter().find(|f| f.id == "a").unwrap().rect;
    assert_eq!((moved.x, moved.y), (a.x + 5, a.y + 3));
    assert!(take(&mut app).iter().any(
        |op| matches!(op, ClientOp::Layout { layout } if layout.contains("\"tiling\":false"))
    ));
}

#[test]
fn minimizing_hands_focus_to_a_visible_window() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    take(&mut app);
    app.on_key(key('-'));
    let out = take(&mut app);
    assert_eq!(
        out[0],
        ClientOp::Command {
            name: "MinimizeWindow".into(),
            args: vec!["a".into()]
        }
    );
    assert!(out.contains(&ClientOp::Command {
        name: "FocusWindow".into(),
        args: vec!["b".into()]
    }));
}

#[test]
fn tiny_terminals_draw_without_panicking() {
    for (w, h) in [(1, 1), (3, 2), (10, 4), (23, 7), (30, 9)] {
        let mut app = App::new(keys(), (w, h));
        let mut s = state(vec![win("a", 1), win("b", 1)], "a", 1);
        s.width = w;
        s.height = h;
        app.on_op(DaemonOp::Attached { state: s });
        app.notice(
            NoticeLevel::Error,
            "a notice that is longer than the terminal is wide",
        );
        app.notice(NoticeLevel::Info, "another one");
        for overlay in [
            Overlay::Help,
            Overlay::Confirm {
                text: "close?".into(),
                yes: Confirmed::Close("a".into()),
            },
            Overlay::Paste(PasteDialog {
                window: "a".into(),
                preview: "x⏎y".into(),
                one_line: "x y".into(),
                has_controls: true,
                data: b"x\ny".to_vec(),
                scroll: 3,
            }),
            Overlay::Prompt(Prompt {
                kind: PromptKind::Command,
                buffer: "NewWindow".into(),
            }),
        ] {
            app.overlay = overlay;
            app.sync_tray();
            let mut surface = Surface::new(usize::from(w), usize::from(h));
            crate::tui::render::draw(&app.view(), &mut surface);
            // The windows and the tray share the rows under the dock, without overlap.
            let below = app.below_dock();
            let win = app.windows_area();
            let tray_h = app.tray_rect().map_or(0, |t| t.h);
            assert_eq!(win.h + tray_h, below.h, "{w}x{h}");
        }
        app.copy = None;
        app.on_key(key('['));
        let mut surface = Surface::new(usize::from(w), usize::from(h));
        crate::tui::render::draw(&app.view(), &mut surface);
    }
}
