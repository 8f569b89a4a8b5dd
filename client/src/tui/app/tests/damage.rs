//! Drawing only what changed: a frame patched row by row equals the frame drawn whole.

use super::*;
use crate::tui::render::{draw as draw_whole, draw_damage};

/// Some rows of window `id` changed (not a full update), and the cursor is at `cursor`.
fn rows_update(
    id: &str,
    cols: u16,
    rows: u16,
    lines: &[(u16, &str)],
    cursor: (u16, u16),
) -> DaemonOp {
    DaemonOp::Screen(ScreenUpdate {
        window: id.into(),
        cols,
        rows,
        cursor_x: cursor.0,
        cursor_y: cursor.1,
        cursor_visible: true,
        full: false,
        lines: lines
            .iter()
            .map(|(i, text)| {
                (
                    *i,
                    Row {
                        runs: vec![Run {
                            text: (*text).into(),
                            style: Default::default(),
                            link: None,
                        }],
                    },
                )
            })
            .collect(),
    })
}

fn whole(app: &App) -> (Surface, Option<(u16, u16)>) {
    let mut s = Surface::new(usize::from(app.term.0), usize::from(app.term.1));
    let drawn = draw_whole(&app.view(), &mut s);
    (s, drawn.cursor)
}

/// Every cell's text and attributes (a Line's own equality also compares its change counter).
fn cells(s: &Surface) -> Vec<Vec<(String, termwiz::cell::CellAttributes)>> {
    s.screen_lines()
        .iter()
        .map(|l| {
            l.visible_cells()
                .map(|c| (c.str().to_string(), c.attrs().clone()))
                .collect()
        })
        .collect()
}

fn window_size(app: &App, id: &str) -> (u16, u16) {
    let f = app.frames.iter().find(|f| f.id == id).unwrap();
    let inner = content_rect(f.rect, app.bordered());
    (inner.w, inner.h)
}

/// Windows `a` (focused, in terminal mode) and `b` side by side, both filled; their sizes.
fn two_windows_typing_into_a() -> (App, (u16, u16), (u16, u16)) {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    app.router.mode = InputMode::Terminal;
    let (ac, ar) = window_size(&app, "a");
    let (bc, br) = window_size(&app, "b");
    app.on_op(full_screen("a", ac, ar, 'x'));
    app.on_op(full_screen("b", bc, br, 'y'));
    (app, (ac, ar), (bc, br))
}

#[test]
fn a_patched_frame_equals_the_whole_frame() {
    let (mut app, (ac, ar), (bc, br)) = two_windows_typing_into_a();
    let (mut frame, _) = whole(&app);
    app.damage.clear();
    app.dirty = false;

    // An echo: two rows of `a` change and its cursor moves.
    app.on_op(rows_update(
        "a",
        ac,
        ar,
        &[(3, "$ echo hi"), (4, "hi")],
        (0, 5),
    ));
    assert!(!app.dirty, "content alone does not need a whole frame");
    assert_eq!(
        app.damage.get("a"),
        Some(&DamagedRows::Rows([3, 4].into_iter().collect()))
    );
    let patched = draw_damage(&app.view(), &mut frame, &app.damage).expect("patchable");
    assert_eq!(patched.spans.len(), 2);
    let (expected, cursor) = whole(&app);
    assert_eq!(
        frame.screen_chars_to_string(),
        expected.screen_chars_to_string()
    );
    assert!(cells(&frame) == cells(&expected), "cells differ");
    assert_eq!(patched.cursor, cursor);
    assert!(cursor.is_some());

    // A resized window's screen is redrawn whole (all its rows).
    app.damage.clear();
    app.on_op(full_screen("b", bc, br, 'z'));
    assert_eq!(app.damage.get("b"), Some(&DamagedRows::All));
    let patched = draw_damage(&app.view(), &mut frame, &app.damage).expect("patchable");
    assert_eq!(patched.spans.len(), usize::from(br));
    let (expected, _) = whole(&app);
    assert!(cells(&frame) == cells(&expected), "cells differ");
}

#[test]
fn dialogs_copy_mode_and_covered_windows_draw_whole() {
    let mut app = attached(vec![win("a", 1), win("b", 1)], "a");
    let (ac, ar) = window_size(&app, "a");
    app.on_op(full_screen("a", ac, ar, 'x'));
    let (mut frame, _) = whole(&app);
    app.overlay = Overlay::Help;
    assert!(draw_damage(&app.view(), &mut frame, &app.damage).is_none());
    app.overlay = Overlay::None;
    assert!(draw_damage(&app.view(), &mut frame, &app.damage).is_some());

    // Floating windows cascade over each other: the one below cannot be patched alone.
    app.on_key(key('t'));
    assert!(!app.layout.tiling(1));
    let below = app.frames[0].clone();
    let above = app.frames[1].rect;
    assert!(below.rect.x < above.right() && above.x < below.rect.right());
    app.damage.clear();
    let (c, r) = window_size(&app, &below.id);
    app.on_op(rows_update(&below.id, c, r, &[(0, "under")], (0, 0)));
    let (mut frame, _) = whole(&app);
    assert!(draw_damage(&app.view(), &mut frame, &app.damage).is_none());
}

#[test]
fn the_typed_windows_change_is_the_echo_the_flood_beside_it_is_not() {
    let (mut app, (ac, ar), (bc, br)) = two_windows_typing_into_a();
    app.damage.clear();
    assert!(!app.echo_waiting(), "nothing was typed");

    app.on_key(key('q'));
    assert_eq!(app.typed.as_deref(), Some("a"));
    // The neighbour floods: its frames wait for the frame rate.
    app.on_op(rows_update("b", bc, br, &[(0, "0123456789")], (0, 1)));
    assert!(!app.echo_waiting());
    // The typed window changes: that is drawn at once.
    app.on_op(rows_update("a", ac, ar, &[(0, "xq")], (2, 0)));
    assert!(app.echo_waiting());
}
