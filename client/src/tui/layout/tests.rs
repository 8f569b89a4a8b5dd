use super::*;

const AREA: Rect = Rect::new(0, 0, 100, 30);

fn members(ids: &[(&str, i64)]) -> Vec<Member> {
    ids.iter()
        .map(|(id, ws)| Member {
            id: id.to_string(),
            workspace: *ws,
        })
        .collect()
}

fn rects_of(l: &Layout, ws: i64) -> Vec<(String, Rect)> {
    l.frames(ws, AREA, None)
        .into_iter()
        .map(|f| (f.id, f.rect))
        .collect()
}

#[test]
fn first_window_fills_the_area_and_the_second_splits_the_long_axis() {
    let mut l = Layout::default();
    assert!(l.reconcile(&members(&[("a", 1)]), None, None, AREA));
    assert_eq!(rects_of(&l, 1), vec![("a".into(), AREA)]);
    assert!(l.reconcile(&members(&[("a", 1), ("b", 1)]), Some("a"), None, AREA));
    // 100x30 is wide: side by side.
    assert_eq!(
        rects_of(&l, 1),
        vec![
            ("a".into(), Rect::new(0, 0, 50, 30)),
            ("b".into(), Rect::new(50, 0, 50, 30))
        ]
    );
    // 50x30 is tall: the third window stacks under the focused one.
    l.reconcile(
        &members(&[("a", 1), ("b", 1), ("c", 1)]),
        Some("b"),
        None,
        AREA,
    );
    assert_eq!(
        rects_of(&l, 1),
        vec![
            ("a".into(), Rect::new(0, 0, 50, 30)),
            ("b".into(), Rect::new(50, 0, 50, 15)),
            ("c".into(), Rect::new(50, 15, 50, 15))
        ]
    );
    // Reconciling again with the same windows changes nothing.
    assert!(!l.reconcile(
        &members(&[("a", 1), ("b", 1), ("c", 1)]),
        Some("b"),
        None,
        AREA
    ));
}

#[test]
fn removing_a_window_gives_its_space_to_the_sibling() {
    let mut l = Layout::default();
    l.reconcile(&members(&[("a", 1)]), None, None, AREA);
    l.reconcile(&members(&[("a", 1), ("b", 1)]), Some("a"), None, AREA);
    l.reconcile(
        &members(&[("a", 1), ("b", 1), ("c", 1)]),
        Some("b"),
        None,
        AREA,
    );
    assert!(l.reconcile(&members(&[("a", 1), ("c", 1)]), Some("a"), None, AREA));
    assert_eq!(
        rects_of(&l, 1),
        vec![
            ("a".into(), Rect::new(0, 0, 50, 30)),
            ("c".into(), Rect::new(50, 0, 50, 30))
        ]
    );
    // A window moved to another workspace leaves this tree and joins that one.
    l.reconcile(&members(&[("a", 1), ("c", 2)]), Some("a"), None, AREA);
    assert_eq!(rects_of(&l, 1), vec![("a".into(), AREA)]);
    assert_eq!(rects_of(&l, 2), vec![("c".into(), AREA)]);
}

#[test]
fn placement_puts_the_new_window_where_asked() {
    let mut l = Layout::default();
    l.reconcile(&members(&[("a", 1)]), None, None, AREA);
    let p = Placement {
        target: "a".into(),
        axis: Axis::Horizontal,
        new_first: true,
    };
    l.reconcile(&members(&[("a", 1), ("b", 1)]), Some("a"), Some(&p), AREA);
    assert_eq!(
        rects_of(&l, 1),
        vec![
            ("b".into(), Rect::new(0, 0, 100, 15)),
            ("a".into(), Rect::new(0, 15, 100, 15))
        ]
    );
}

#[test]
fn equalize_rotate_and_ratio() {
    let mut l = Layout::default();
    l.reconcile(&members(&[("a", 1)]), None, None, AREA);
    let right = |t: &str| Placement {
        target: t.into(),
        axis: Axis::Vertical,
        new_first: false,
    };
    l.reconcile(
        &members(&[("a", 1), ("b", 1)]),
        None,
        Some(&right("a")),
        AREA,
    );
    l.reconcile(
        &members(&[("a", 1), ("b", 1), ("c", 1)]),
        None,
        Some(&right("b")),
        AREA,
    );
    // Three panes in a row: 50, 25, 25 before equalizing, then about a third each.
    let widths = |l: &Layout| rects_of(l, 1).iter().map(|(_, r)| r.w).collect::<Vec<_>>();
    assert_eq!(widths(&l), vec![50, 25, 25]);
    l.equalize(1);
    assert_eq!(widths(&l), vec![33, 34, 33]);
    assert!(l.rotate(1, "c"));
    let r = rects_of(&l, 1);
    assert_eq!(r[1].1, Rect::new(33, 0, 67, 15));
    assert_eq!(r[2].1, Rect::new(33, 15, 67, 15));
    assert!(l.set_ratio(1, &[], 0.5));
    assert_eq!(rects_of(&l, 1)[0].1.w, 50);
    // Ratios are kept inside bounds.
    l.set_ratio(1, &[], 2.0);
    assert_eq!(rects_of(&l, 1)[0].1.w, 95);
}

#[test]
fn json_round_trip_is_stable() {
    let mut l = Layout::default();
    l.reconcile(&members(&[("a", 1), ("b", 1), ("z", 3)]), None, None, AREA);
    l.workspace_mut(3).tiling = false;
    let json = l.to_json();
    let back = Layout::from_json(&json).unwrap();
    assert_eq!(back, l);
    assert_eq!(back.to_json(), json);
    assert!(Layout::from_json("not json").is_none());
}

#[test]
fn floating_cascades_raises_focus_and_zoom_fills() {
    let mut l = Layout::default();
    l.reconcile(&members(&[("a", 1), ("b", 1)]), None, None, AREA);
    l.workspace_mut(1).tiling = false;
    let f = l.frames(1, AREA, Some("a"));
    assert_eq!(f.len(), 2);
    assert_eq!(f[1].id, "a", "focused window drawn last");
    assert_ne!(f[0].rect, f[1].rect, "windows cascade");
    assert!(f
        .iter()
        .all(|f| f.rect.right() <= AREA.w && f.rect.bottom() <= AREA.h));
    l.workspace_mut(1).zoomed = Some("b".into());
    assert_eq!(
        l.frames(1, AREA, Some("a")),
        vec![WindowFrame {
            id: "b".into(),
            rect: AREA
        }]
    );
    // Zoom is cleared when the window goes.
    l.reconcile(&members(&[("a", 1)]), None, None, AREA);
    assert_eq!(l.workspace(1).unwrap().zoomed, None);
}

#[test]
fn hit_testing_parts() {
    let frames = vec![
        WindowFrame {
            id: "a".into(),
            rect: Rect::new(0, 0, 50, 30),
        },
        WindowFrame {
            id: "b".into(),
            rect: Rect::new(50, 0, 50, 30),
        },
    ];
    assert_eq!(hit(&frames, 0, 0, true, true), Some((0, Part::Title)));
    assert_eq!(hit(&frames, 10, 0, true, true), Some((0, Part::Title)));
    assert_eq!(hit(&frames, 0, 5, true, true), Some((0, Part::Border)));
    assert_eq!(
        hit(&frames, 51, 1, true, true),
        Some((1, Part::Content { col: 0, row: 0 }))
    );
    assert_eq!(hit(&frames, 10, 29, true, false), Some((0, Part::Title)));
    assert_eq!(
        hit(&frames, 0, 0, false, true),
        Some((0, Part::Content { col: 0, row: 0 }))
    );
    assert_eq!(hit(&frames, 100, 0, true, true), None);
}

#[test]
fn dividers_can_be_found_and_dragged() {
    let mut l = Layout::default();
    l.reconcile(&members(&[("a", 1), ("b", 1)]), None, None, AREA);
    let tree = l.workspace(1).unwrap().tree.clone().unwrap();
    let h = split_handle_at(&tree, AREA, 49, 10).expect("right border of a");
    assert_eq!(h.axis, Axis::Vertical);
    assert!(h.path.is_empty());
    assert!(split_handle_at(&tree, AREA, 50, 10).is_some());
    assert!(split_handle_at(&tree, AREA, 20, 10).is_none());
    let r = h.ratio_at(69, 10);
    assert!(l.set_ratio(1, &h.path, r));
    assert_eq!(rects_of(&l, 1)[0].1.w, 70);
}

#[test]
fn neighbours_by_direction() {
    // a | b
    //   | c
    let frames = vec![
        WindowFrame {
            id: "a".into(),
            rect: Rect::new(0, 0, 50, 30),
        },
        WindowFrame {
            id: "b".into(),
            rect: Rect::new(50, 0, 50, 15),
        },
        WindowFrame {
            id: "c".into(),
            rect: Rect::new(50, 15, 50, 15),
        },
    ];
    assert_eq!(
        neighbour(&frames, "a", Direction::Right).as_deref(),
        Some("b")
    );
    assert_eq!(
        neighbour(&frames, "c", Direction::Left).as_deref(),
        Some("a")
    );
    assert_eq!(
        neighbour(&frames, "b", Direction::Down).as_deref(),
        Some("c")
    );
    assert_eq!(neighbour(&frames, "c", Direction::Up).as_deref(), Some("b"));
    assert_eq!(neighbour(&frames, "a", Direction::Left), None);
    assert_eq!(neighbour(&frames, "a", Direction::Up), None);
    assert_eq!(neighbour(&frames, "x", Direction::Up), None);
}

#[test]
fn clamping_and_parsing() {
    let r = Rect::new(90, 25, 30, 10).clamped_to(AREA);
    assert_eq!(r, Rect::new(70, 20, 30, 10));
    assert_eq!(Axis::parse("V"), Some(Axis::Vertical));
    assert_eq!(Axis::parse("horizontal"), Some(Axis::Horizontal));
    assert_eq!(Axis::parse("x"), None);
    assert_eq!(Direction::parse("Left"), Some(Direction::Left));
    assert_eq!(long_axis(Rect::new(0, 0, 80, 24)), Axis::Vertical);
    assert_eq!(long_axis(Rect::new(0, 0, 40, 24)), Axis::Horizontal);
}

#[test]
fn a_zoomed_window_is_centred_at_its_width_cap() {
    let area = Rect::new(0, 0, 120, 30);
    assert_eq!(centre_zoomed(area, 0), area);
    assert_eq!(centre_zoomed(area, 200), area);
    assert_eq!(centre_zoomed(area, 80), Rect::new(20, 0, 80, 30));
    assert_eq!(
        centre_zoomed(Rect::new(3, 1, 11, 5), 4),
        Rect::new(6, 1, 4, 5)
    );
}

#[test]
fn modes_draw_the_tree_order_and_the_strip_remembers_its_view() {
    let mut l = Layout::default();
    let four = members(&[("a", 1), ("b", 1), ("c", 1), ("d", 1)]);
    l.reconcile(&four, None, None, AREA);
    let order = l.workspace(1).unwrap().tree.as_ref().unwrap().leaves();
    assert_eq!(l.mode(1), TileMode::Bsp);
    assert!(l.tiles_bsp(1));

    l.workspace_mut(1).mode = TileMode::MasterStack;
    assert!(!l.tiles_bsp(1), "no dividers to drag outside bsp");
    assert_eq!(rects_of(&l, 1), master_stack(&order, AREA, MASTER_RATIO));

    l.workspace_mut(1).mode = TileMode::Scrolling;
    assert!(l.tiles_strip(1));
    // Focus on the last column: the view ends there, and remembers it.
    assert!(l.follow_focus(1, Some(&order[3])));
    assert_eq!(l.workspace(1).unwrap().scroll, 2);
    let shown = |l: &Layout, f: &str| -> Vec<String> {
        l.frames(1, AREA, Some(f))
            .into_iter()
            .map(|f| f.id)
            .collect()
    };
    assert_eq!(shown(&l, &order[3]), order[2..]);
    // Back one column: still in view, so the view stays.
    assert!(!l.follow_focus(1, Some(&order[2])));
    assert_eq!(shown(&l, &order[2]), order[2..]);
    // Further left, it follows.
    assert!(l.follow_focus(1, Some(&order[0])));
    assert_eq!(shown(&l, &order[0]), order[..2]);
    assert_eq!(
        l.strip_neighbour(1, &order[1], Direction::Right),
        Some(order[2].clone())
    );
    // Zoom still wins over every mode.
    l.workspace_mut(1).zoomed = Some(order[3].clone());
    assert_eq!(shown(&l, &order[0]), [order[3].clone()]);
    // Other modes leave the view alone.
    l.workspace_mut(1).mode = TileMode::Bsp;
    assert!(!l.follow_focus(1, Some(&order[3])));
}

#[test]
fn the_mode_is_in_the_shared_json_and_older_layouts_read_as_bsp() {
    let mut l = Layout::default();
    l.reconcile(&members(&[("a", 1), ("b", 2)]), None, None, AREA);
    l.workspace_mut(2).mode = TileMode::Scrolling;
    let json: serde_json::Value = serde_json::from_str(&l.to_json()).unwrap();
    // What the daemon reads for session-info's layout_mode.
    assert_eq!(json["workspaces"]["1"]["mode"], "bsp");
    assert_eq!(json["workspaces"]["2"]["mode"], "scrolling");
    let old = r#"{"workspaces":{"1":{"tiling":true,"tree":{"type":"leaf","window":"a"}}}}"#;
    let back = Layout::from_json(old).unwrap();
    assert_eq!(back.mode(1), TileMode::Bsp);
    assert_eq!(back.workspace(1).unwrap().scroll, 0);
}
