//! Hit testing and neighbours: dividers, frame parts, content areas, directional focus, zoom.

use super::*;

/// A draggable divider between two tiled panes.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitHandle {
    /// Path from the root: false = first child, true = second.
    pub path: Vec<bool>,
    pub axis: Axis,
    /// The area the split divides.
    pub area: Rect,
}

impl SplitHandle {
    /// The ratio that puts the divider under the pointer at (`x`, `y`).
    pub fn ratio_at(&self, x: u16, y: u16) -> f64 {
        let (pos, start, len) = match self.axis {
            Axis::Vertical => (x, self.area.x, self.area.w),
            Axis::Horizontal => (y, self.area.y, self.area.h),
        };
        if len == 0 {
            return 0.5;
        }
        // The pointer sits on the last cell of the first pane or the first of the second; the
        // divider goes between them, so +0.5 keeps it under the pointer either way.
        (f64::from(pos.saturating_sub(start)) + 0.5) / f64::from(len)
    }
}

/// The divider at (`x`, `y`): the cell is the last column (row) of a split's first half or the
/// first of its second half. Deepest split wins.
pub fn split_handle_at(tree: &Node, area: Rect, x: u16, y: u16) -> Option<SplitHandle> {
    fn go(node: &Node, area: Rect, x: u16, y: u16, path: &mut Vec<bool>) -> Option<SplitHandle> {
        let Node::Split {
            axis,
            ratio,
            first,
            second,
        } = node
        else {
            return None;
        };
        if !area.contains(x, y) {
            return None;
        }
        let (a, b) = split_rect(area, *axis, *ratio);
        path.push(false);
        if let Some(h) = go(first, a, x, y, path) {
            return Some(h);
        }
        path.pop();
        path.push(true);
        if let Some(h) = go(second, b, x, y, path) {
            return Some(h);
        }
        path.pop();
        let on_divider = match axis {
            Axis::Vertical => x + 1 == b.x || x == b.x,
            Axis::Horizontal => y + 1 == b.y || y == b.y,
        };
        on_divider.then(|| SplitHandle {
            path: path.clone(),
            axis: *axis,
            area,
        })
    }
    go(tree, area, x, y, &mut Vec::new())
}

/// Which part of a frame a cell is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Inside the content area, at this column and row of it.
    Content {
        col: u16,
        row: u16,
    },
    /// The title row (the border line that carries the title).
    Title,
    Border,
}

/// The frame on top at (`x`, `y`) and the part hit. `bordered` says whether frames have borders;
/// `title_top` whether the title sits on the top edge.
pub fn hit(
    frames: &[WindowFrame],
    x: u16,
    y: u16,
    bordered: bool,
    title_top: bool,
) -> Option<(usize, Part)> {
    let (i, f) = frames
        .iter()
        .enumerate()
        .rev()
        .find(|(_, f)| f.rect.contains(x, y))?;
    let content = content_rect(f.rect, bordered);
    if content.contains(x, y) {
        return Some((
            i,
            Part::Content {
                col: x - content.x,
                row: y - content.y,
            },
        ));
    }
    let title_row = if title_top {
        f.rect.y
    } else {
        f.rect.bottom().saturating_sub(1)
    };
    if y == title_row {
        Some((i, Part::Title))
    } else {
        Some((i, Part::Border))
    }
}

/// The content area of a frame.
pub fn content_rect(outer: Rect, bordered: bool) -> Rect {
    if bordered {
        outer.inner()
    } else {
        outer
    }
}

/// The nearest frame on side `dir` of frame `from`: it must lie wholly beyond that edge; frames
/// that overlap `from` across the movement axis come first, then the closest, then the most
/// overlap, then the one nearest the top-left.
pub fn neighbour(frames: &[WindowFrame], from: &str, dir: Direction) -> Option<String> {
    let src = frames.iter().find(|f| f.id == from)?.rect;
    let overlap = |a0: u16, a1: u16, b0: u16, b1: u16| -> i32 {
        i32::from(a1.min(b1)) - i32::from(a0.max(b0))
    };
    frames
        .iter()
        .filter(|f| f.id != from)
        .filter_map(|f| {
            let r = f.rect;
            let (gap, ov) = match dir {
                Direction::Left if r.right() <= src.x + 1 && r.x < src.x => (
                    i32::from(src.x) - i32::from(r.right()),
                    overlap(src.y, src.bottom(), r.y, r.bottom()),
                ),
                Direction::Right if r.x + 1 >= src.right() && r.x > src.x => (
                    i32::from(r.x) - i32::from(src.right()),
                    overlap(src.y, src.bottom(), r.y, r.bottom()),
                ),
                Direction::Up if r.bottom() <= src.y + 1 && r.y < src.y => (
                    i32::from(src.y) - i32::from(r.bottom()),
                    overlap(src.x, src.right(), r.x, r.right()),
                ),
                Direction::Down if r.y + 1 >= src.bottom() && r.y > src.y => (
                    i32::from(r.y) - i32::from(src.bottom()),
                    overlap(src.x, src.right(), r.x, r.right()),
                ),
                _ => return None,
            };
            Some((ov <= 0, gap.max(0), -ov, r.y, r.x, f.id.clone()))
        })
        .min()
        .map(|t| t.5)
}

/// A zoomed window's frame narrowed to `max_width` cells and centred
/// (`appearance.zoom_max_width`); 0, or an area no wider than that, leaves it whole.
pub fn centre_zoomed(area: Rect, max_width: u16) -> Rect {
    if max_width == 0 || area.w <= max_width {
        return area;
    }
    Rect::new(area.x + (area.w - max_width) / 2, area.y, max_width, area.h)
}
