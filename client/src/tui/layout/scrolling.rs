//! The scrolling layout (as niri arranges windows): the workspace's windows, in tree reading
//! order, are columns of a horizontal strip wider than the screen. Each column is a fixed share
//! of the width, and the view shows the columns around the focused one.

use super::{Direction, Rect};

/// Columns on screen at once, so each takes this fraction of the width.
pub const VISIBLE_COLUMNS: usize = 2;

/// The first column in view, given the one in view before (`start`), so that the focused
/// column is visible. The view moves as little as it must, so moving focus inside the view
/// does not scroll; it never scrolls past the last column.
pub fn view_start(start: usize, focused: Option<usize>, n: usize) -> usize {
    let visible = VISIBLE_COLUMNS.min(n);
    let mut s = start.min(n - visible);
    if let Some(f) = focused.filter(|f| *f < n) {
        if f < s {
            s = f;
        } else if f >= s + visible {
            s = f + 1 - visible;
        }
    }
    s
}

/// The rectangles of the columns in view, from column `start` on (use [`view_start`]). With
/// fewer windows than [`VISIBLE_COLUMNS`] they share the width.
pub fn columns(ids: &[String], area: Rect, start: usize) -> Vec<(String, Rect)> {
    let n = ids.len();
    if n == 0 {
        return Vec::new();
    }
    let visible = VISIBLE_COLUMNS.min(n);
    let start = start.min(n - visible);
    let edge = |i: usize| {
        let w = u64::from(area.w) * i as u64 / visible as u64;
        area.x + w as u16
    };
    ids[start..start + visible]
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let (x0, x1) = (edge(i), edge(i + 1));
            (id.clone(), Rect::new(x0, area.y, x1 - x0, area.h))
        })
        .collect()
}

/// The window beside `from` in the strip: left or right; up and down have none, as a column
/// holds one window.
pub fn strip_neighbour(ids: &[String], from: &str, dir: Direction) -> Option<String> {
    let i = ids.iter().position(|id| id == from)?;
    let j = match dir {
        Direction::Left => i.checked_sub(1)?,
        Direction::Right => i + 1,
        Direction::Up | Direction::Down => return None,
    };
    ids.get(j).cloned()
}

/// Which way a wheel notch moves focus along the strip: down (away from the user) goes right,
/// up goes left; `reverse` (`appearance.niri_reverse_scroll`) swaps them.
pub fn wheel_direction(up: bool, reverse: bool) -> Direction {
    if up != reverse {
        Direction::Left
    } else {
        Direction::Right
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("w{i}")).collect()
    }

    #[test]
    fn few_windows_share_the_width() {
        let area = Rect::new(0, 1, 100, 29);
        assert!(columns(&[], area, 0).is_empty());
        assert_eq!(columns(&ids(1), area, 3), vec![("w0".to_string(), area)]);
        assert_eq!(
            columns(&ids(2), area, 0),
            vec![
                ("w0".to_string(), Rect::new(0, 1, 50, 29)),
                ("w1".to_string(), Rect::new(50, 1, 50, 29)),
            ]
        );
    }

    #[test]
    fn the_view_shows_two_columns_from_start() {
        let area = Rect::new(2, 0, 81, 10);
        let got = columns(&ids(5), area, 2);
        assert_eq!(
            got,
            vec![
                ("w2".to_string(), Rect::new(2, 0, 40, 10)),
                ("w3".to_string(), Rect::new(42, 0, 41, 10)),
            ]
        );
        // Past the end it stops at the last full view.
        assert_eq!(columns(&ids(5), area, 9)[1].0, "w4");
    }

    #[test]
    fn the_view_follows_focus_moving_as_little_as_it_can() {
        // Focus inside the view: no scroll.
        assert_eq!(view_start(1, Some(1), 5), 1);
        assert_eq!(view_start(1, Some(2), 5), 1);
        // Focus right of the view: the focused column becomes the last in view.
        assert_eq!(view_start(0, Some(3), 5), 2);
        // Focus left of it: the focused column becomes the first.
        assert_eq!(view_start(3, Some(1), 5), 1);
        // Clamped to the strip; no focus keeps the view.
        assert_eq!(view_start(7, None, 5), 3);
        assert_eq!(view_start(7, None, 1), 0);
        assert_eq!(view_start(0, Some(9), 5), 0);
        // Walking right one column at a time scrolls one column at a time.
        let mut s = 0;
        let seen: Vec<usize> = (0..5)
            .map(|f| {
                s = view_start(s, Some(f), 5);
                s
            })
            .collect();
        assert_eq!(seen, [0, 0, 1, 2, 3]);
    }

    #[test]
    fn neighbours_along_the_strip() {
        let w = ids(3);
        assert_eq!(
            strip_neighbour(&w, "w1", Direction::Left).as_deref(),
            Some("w0")
        );
        assert_eq!(
            strip_neighbour(&w, "w1", Direction::Right).as_deref(),
            Some("w2")
        );
        assert_eq!(strip_neighbour(&w, "w0", Direction::Left), None);
        assert_eq!(strip_neighbour(&w, "w2", Direction::Right), None);
        assert_eq!(strip_neighbour(&w, "w1", Direction::Up), None);
        assert_eq!(strip_neighbour(&w, "nope", Direction::Right), None);
    }

    #[test]
    fn the_wheel_and_its_reversal() {
        assert_eq!(wheel_direction(false, false), Direction::Right);
        assert_eq!(wheel_direction(true, false), Direction::Left);
        assert_eq!(wheel_direction(false, true), Direction::Left);
        assert_eq!(wheel_direction(true, true), Direction::Right);
    }
}
