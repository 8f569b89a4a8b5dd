//! The master-stack layout: the first window of the workspace (in tree reading order) takes
//! a share of the width on the left, the others share the rest as a stack of rows.

use super::{split_rect, Axis, Rect};

/// Share of the width the master window takes; what set-layout and session-info report.
pub const MASTER_RATIO: f64 = 0.5;

/// Rectangles of `ids` in `area`: the first is the master, the rest stacked evenly on the
/// right. One window fills the area alone.
pub fn master_stack(ids: &[String], area: Rect, ratio: f64) -> Vec<(String, Rect)> {
    let Some((master, stack)) = ids.split_first() else {
        return Vec::new();
    };
    if stack.is_empty() {
        return vec![(master.clone(), area)];
    }
    let (left, right) = split_rect(area, Axis::Vertical, ratio);
    let mut out = vec![(master.clone(), left)];
    out.extend(stack.iter().cloned().zip(even_rows(right, stack.len())));
    out
}

/// `area` cut into `n` rows of equal height; the rows left over by the division go to the top
/// rows, one each, so the heights differ by one at most.
fn even_rows(area: Rect, n: usize) -> Vec<Rect> {
    let n16 = u16::try_from(n).unwrap_or(u16::MAX).max(1);
    let (base, extra) = (area.h / n16, area.h % n16);
    let mut y = area.y;
    (0..n16)
        .map(|i| {
            let h = base + u16::from(i < extra);
            let r = Rect::new(area.x, y, area.w, h);
            y = y.saturating_add(h);
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("w{i}")).collect()
    }

    #[test]
    fn nothing_and_one_window() {
        assert!(master_stack(&[], Rect::new(0, 0, 80, 24), MASTER_RATIO).is_empty());
        let area = Rect::new(0, 1, 80, 23);
        assert_eq!(
            master_stack(&ids(1), area, MASTER_RATIO),
            vec![("w0".to_string(), area)]
        );
    }

    #[test]
    fn master_left_and_the_rest_stacked_right() {
        let got = master_stack(&ids(3), Rect::new(0, 1, 100, 29), MASTER_RATIO);
        assert_eq!(
            got,
            vec![
                ("w0".to_string(), Rect::new(0, 1, 50, 29)),
                ("w1".to_string(), Rect::new(50, 1, 50, 15)),
                ("w2".to_string(), Rect::new(50, 16, 50, 14)),
            ]
        );
    }

    #[test]
    fn the_stack_tiles_its_column_exactly() {
        for n in 2..12 {
            for h in [1u16, 5, 24, 37] {
                let area = Rect::new(3, 2, 81, h);
                let got = master_stack(&ids(n), area, 0.6);
                assert_eq!(got.len(), n);
                assert_eq!(got[0].1, Rect::new(3, 2, 49, h), "master at 0.6 of 81");
                let mut y = area.y;
                for (_, r) in &got[1..] {
                    assert_eq!((r.x, r.w, r.y), (52, 32, y));
                    y += r.h;
                }
                assert_eq!(y, area.bottom(), "n={n} h={h}");
                let hs: Vec<u16> = got[1..].iter().map(|(_, r)| r.h).collect();
                assert!(hs.iter().max().unwrap() - hs.iter().min().unwrap() <= 1);
            }
        }
    }
}
