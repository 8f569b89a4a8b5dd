//! `appearance.shared_borders`: tiled panes that meet draw one line between them.

use super::*;

/// Grows each tile by a cell to the right and down unless it already reaches the area's
/// edge, so the border it shares with the next tile is the same column (row) of cells. Tiles
/// exactly fill `area`, so a tile short of an edge has a neighbour there.
pub fn share_borders(frames: &mut [WindowFrame], area: Rect) {
    for f in frames {
        if f.rect.right() < area.right() {
            f.rect.w += 1;
        }
        if f.rect.bottom() < area.bottom() {
            f.rect.h += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_overlap_by_their_border_only() {
        let area = Rect::new(0, 0, 40, 20);
        let mut frames = vec![
            WindowFrame {
                id: "a".into(),
                rect: Rect::new(0, 0, 20, 20),
            },
            WindowFrame {
                id: "b".into(),
                rect: Rect::new(20, 0, 20, 10),
            },
            WindowFrame {
                id: "c".into(),
                rect: Rect::new(20, 10, 20, 10),
            },
        ];
        share_borders(&mut frames, area);
        let r: Vec<Rect> = frames.iter().map(|f| f.rect).collect();
        assert_eq!(r[0], Rect::new(0, 0, 21, 20));
        assert_eq!(r[1], Rect::new(20, 0, 20, 11));
        assert_eq!(r[2], Rect::new(20, 10, 20, 10));
    }
}
