//! Held pastes, the tray, notices and the dock, as drawn.

use super::*;

#[test]
fn held_paste_is_confirmed_in_chrome() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_key(key('i'));
    take(&mut app);
    app.on_input(InputEvent::Paste("ls\nrm -rf x\n".into()));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Paste {
            window: "a".into(),
            data: b"ls\nrm -rf x\n".to_vec(),
            choice: String::new()
        }]
    );
    // The program has filled its window, then the paste is held.
    app.on_op(full_screen("a", 98, 27, 'X'));
    app.on_op(DaemonOp::PasteHeld {
        window: "a".into(),
        preview: "ls⏎rm -rf x⏎".into(),
        one_line: "ls rm -rf x ".into(),
        has_controls: false,
    });
    assert!(matches!(app.overlay, Overlay::Paste(_)));
    // The dialog takes five rows from the windows (rule, two of prose, the text, choices).
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 22)]);
    let tray = app.tray_rect().expect("the tray is up");
    assert_eq!(tray, Rect::new(0, 24, 100, 5));
    assert_eq!(app.frames[0].rect, Rect::new(0, 0, 100, 24));
    // Keys go to the dialog, not the window: k means nothing without controls.
    app.on_key(key('k'));
    app.on_key(key('x'));
    assert!(take(&mut app).is_empty());

    // Drawn in the tray, between the window's bottom border and the dock; no program output
    // there, although the daemon has not yet sent the smaller screen.
    let (lines, hits) = draw(&app);
    assert!(lines[23].starts_with('╰'), "{}", lines[23]);
    assert!(lines[24].contains(" held paste "), "{}", lines[24]);
    assert!(lines[24].starts_with("──"), "{}", lines[24]);
    assert!(lines[25].starts_with("┃ This window has not turned on bracketed paste"));
    assert!(lines[27].contains("ls⏎rm -rf x⏎"), "{}", lines[27]);
    assert!(lines[28].contains("[p] paste   [o] paste as one line   [esc] cancel"));
    assert!(
        lines[29].contains(" TERM "),
        "the dock stays: {}",
        lines[29]
    );
    for l in &lines[24..] {
        assert!(!l.contains('X'), "program output in the tray: {l}");
    }
    assert!(!lines[..24].iter().any(|l| l.contains("held paste")));
    let choices: Vec<&Target> = hits
        .targets
        .iter()
        .filter(|(r, _)| r.y == 28)
        .map(|(_, t)| t)
        .collect();
    assert_eq!(
        choices,
        vec![
            &Target::PasteChoice("send"),
            &Target::PasteChoice("one-line"),
            &Target::PasteChoice("")
        ]
    );
    assert_eq!(draw(&app).0[27], lines[27], "drawing twice draws the same");

    app.on_key(key('o'));
    let out = take(&mut app);
    assert_eq!(
        not_sizes(out.clone()),
        vec![ClientOp::Paste {
            window: "a".into(),
            data: b"ls\nrm -rf x\n".to_vec(),
            choice: "one-line".into()
        }]
    );
    // The window gets its rows back.
    assert_eq!(sizes(&out), vec![("a".into(), 98, 27)]);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.tray_rect(), None);
}

#[test]
fn a_long_held_paste_scrolls_in_the_tray_and_choices_are_clickable() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_key(key('i'));
    app.on_input(InputEvent::Paste("x".into()));
    let preview: String = (0..40).map(|i| format!("line {i:02}\\n")).collect();
    app.on_op(DaemonOp::PasteHeld {
        window: "a".into(),
        preview: preview.clone(),
        one_line: String::new(),
        has_controls: true,
    });
    take(&mut app);
    // 360 columns of text in 97: four preview lines.
    let (lines, hits) = draw(&app);
    let tray = app.tray_rect().unwrap();
    assert_eq!(tray.h, 1 + 2 + 4 + 1);
    assert!(lines[28].contains("[k] keep controls"), "{}", lines[28]);
    // Scrolling changes what is shown, not the tray's size.
    app.on_key(KeyEvent {
        key: KeyCode::DownArrow,
        modifiers: Modifiers::NONE,
    });
    assert!(take(&mut app).is_empty());
    assert_eq!(app.tray_rect(), Some(tray));
    // A click on a choice answers the dialog.
    app.hits = hits.clone();
    let (r, _) = hits
        .targets
        .iter()
        .find(|(_, t)| *t == Target::PasteChoice("keep-controls"))
        .cloned()
        .expect("the keep-controls choice");
    app.on_input(InputEvent::Mouse(MouseEvent {
        x: r.x + 1,
        y: r.y + 1,
        mouse_buttons: MouseButtons::LEFT,
        modifiers: Modifiers::NONE,
    }));
    assert!(not_sizes(take(&mut app)).contains(&ClientOp::Paste {
        window: "a".into(),
        data: b"x".to_vec(),
        choice: "keep-controls".into()
    }));
    assert_eq!(app.overlay, Overlay::None);

    // In a short terminal the preview shrinks to what fits, and scrolls.
    let mut app = App::new(keys(), (100, 14));
    let mut s = state(vec![win("a", 1)], "a", 1);
    s.height = 14;
    app.on_op(DaemonOp::Attached { state: s });
    app.on_key(key('i'));
    app.on_input(InputEvent::Paste("x".into()));
    app.on_op(DaemonOp::PasteHeld {
        window: "a".into(),
        preview: preview.repeat(4),
        one_line: String::new(),
        has_controls: false,
    });
    // 13 rows under the dock, 3 kept for the window: rule, prose, 6 lines, choices.
    assert_eq!(app.tray_rect(), Some(Rect::new(0, 3, 100, 10)));
    let (lines, _) = draw(&app);
    assert!(
        lines[12].contains("lines 1-6 of 15 (up/down scroll)"),
        "{}",
        lines[12]
    );
}

#[test]
fn notices_take_rows_of_the_tray_and_give_them_back() {
    let mut app = attached(vec![win("a", 1)], "a");
    take(&mut app);
    app.on_op(full_screen("a", 98, 27, 'X'));
    app.on_op(DaemonOp::Notice {
        level: NoticeLevel::Warning,
        text: "dropped a Lumen frame from a: terminal_origin".into(),
    });
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 26)]);
    let long = "the paste holds a Lumen frame introducer (ESC _ lumen; or an 8-bit form of it), so nothing was pasted";
    app.on_op(DaemonOp::Notice {
        level: NoticeLevel::Error,
        text: long.into(),
    });
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 24)]);
    let (lines, _) = draw(&app);
    assert!(
        lines[26].starts_with("┃ warning  dropped a Lumen frame from a"),
        "{}",
        lines[26]
    );
    assert!(
        lines[27].starts_with("┃ error    the paste holds a Lumen frame"),
        "{}",
        lines[27]
    );
    assert!(lines[28].starts_with("┃          "), "{}", lines[28]);
    assert!(lines[29].contains(" WM "));
    for l in &lines[26..29] {
        assert!(!l.contains('X'), "program output in the tray: {l}");
    }
    // A confirmation sits between the notices and the dock.
    app.on_key(key('x'));
    let (lines, _) = draw(&app);
    assert!(lines[23].starts_with("┃ warning"), "{}", lines[23]);
    assert!(lines[26].contains(" confirm "), "{}", lines[26]);
    assert!(lines[27].contains("close window a?"), "{}", lines[27]);
    assert!(lines[28].contains("[y] yes   [n] no"), "{}", lines[28]);
    app.on_key(key('n'));
    take(&mut app);
    // Expired notices give their rows back; the error (notifications.error_sticky, on by
    // default) waits for Esc in window management.
    app.tick(Instant::now() + Duration::from_secs(3600));
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 25)]);
    app.on_key(KeyEvent {
        key: KeyCode::Escape,
        modifiers: Modifiers::NONE,
    });
    assert_eq!(sizes(&take(&mut app)), vec![("a".into(), 98, 27)]);
    assert_eq!(app.tray_rect(), None);
}

#[test]
fn errors_expire_when_not_sticky() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_op(DaemonOp::State {
        state: {
            let mut st = app.session.clone();
            st.version += 1;
            st.options
                .insert("notifications.error_sticky".into(), "false".into());
            st
        },
    });
    app.on_op(DaemonOp::Notice {
        level: NoticeLevel::Error,
        text: "boom".into(),
    });
    assert_eq!(app.notices.len(), 1);
    app.tick(Instant::now() + Duration::from_secs(3600));
    assert!(app.notices.is_empty());
}

#[test]
fn the_tray_follows_the_dock() {
    let mut app = attached(vec![win("a", 1)], "a");
    app.on_request(
        1,
        RoutedRequest::SetOption {
            path: "appearance.dockbar_position".into(),
            value: "top".into(),
        },
    );
    app.on_key(key('x'));
    take(&mut app);
    // Dock, then the question, then the window.
    assert_eq!(app.tray_rect(), Some(Rect::new(0, 1, 100, 3)));
    assert_eq!(app.frames[0].rect, Rect::new(0, 4, 100, 26));
    let (lines, hits) = draw(&app);
    assert!(lines[0].contains(" WM "), "{}", lines[0]);
    assert!(lines[1].contains(" confirm "), "{}", lines[1]);
    assert!(lines[4].starts_with('╭'), "{}", lines[4]);
    // Clicking yes closes.
    app.hits = hits;
    let (r, _) = app
        .hits
        .targets
        .iter()
        .find(|(_, t)| *t == Target::Confirm(true))
        .cloned()
        .expect("the yes choice");
    app.on_input(InputEvent::Mouse(MouseEvent {
        x: r.x + 1,
        y: r.y + 1,
        mouse_buttons: MouseButtons::LEFT,
        modifiers: Modifiers::NONE,
    }));
    assert!(not_sizes(take(&mut app)).contains(&ClientOp::Command {
        name: "CloseWindow".into(),
        args: vec!["a".into()]
    }));

    // Without a dock the tray is the bottom rows, and the prompt gets one of them.
    app.on_request(
        2,
        RoutedRequest::SetOption {
            path: "appearance.dockbar_position".into(),
            value: "hidden".into(),
        },
    );
    app.on_key(key(':'));
    assert!(
        matches!(app.overlay, Overlay::Prompt(_)),
        "{:?}",
        app.overlay
    );
    assert_eq!(app.tray_rect(), Some(Rect::new(0, 29, 100, 1)));
    assert_eq!(app.frames[0].rect, Rect::new(0, 0, 100, 29));
    let (lines, _) = draw(&app);
    assert!(lines[29].starts_with(" command "), "{}", lines[29]);
}

#[test]
fn screens_draw_and_dock_tabs_are_clickable() {
    let mut app = attached(vec![win("a", 1), win("b", 2)], "a");
    take(&mut app);
    app.on_op(DaemonOp::Screen(ScreenUpdate {
        window: "a".into(),
        cols: 98,
        rows: 27,
        cursor_x: 2,
        cursor_y: 0,
        cursor_visible: true,
        full: true,
        lines: vec![(
            0,
            Row {
                runs: vec![Run {
                    text: "$ hi-2".into(),
                    style: Default::default(),
                    link: None,
                }],
            },
        )],
    }));
    let mut surface = Surface::new(100, 30);
    let drawn = crate::tui::render::draw(&app.view(), &mut surface);
    let text = surface.screen_chars_to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("╭─ a "), "{}", lines[0]);
    assert!(lines[1].starts_with("│$ hi-2"), "{}", lines[1]);
    assert!(lines[29].contains(" WM "), "{}", lines[29]);
    // The cursor shows only in terminal mode.
    assert_eq!(drawn.cursor, None);
    app.hits = drawn.hits;
    let (r, _) = app
        .hits
        .targets
        .iter()
        .find(|(_, t)| *t == Target::Workspace(2))
        .cloned()
        .expect("tab 2");
    app.on_input(InputEvent::Mouse(MouseEvent {
        x: r.x + 1,
        y: r.y + 1,
        mouse_buttons: MouseButtons::LEFT,
        modifiers: Modifiers::NONE,
    }));
    assert_eq!(
        take(&mut app),
        vec![ClientOp::Command {
            name: "SwitchWorkspace".into(),
            args: vec!["2".into()]
        }]
    );
}
