//! Window geometry, computed by the client: a BSP tree per workspace for tiling, a rectangle per
//! window for floating mode, zoom, hit testing and directional neighbours. Pure: no I/O.
//!
//! The whole [`Layout`] is serialized to JSON and shared through the daemon, so every client of a
//! session shows the same arrangement. Maps are ordered so the JSON of equal layouts is equal.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// A rectangle of terminal cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rect {
    pub x: u16,
    pub y: u16,
    pub w: u16,
    pub h: u16,
}

impl Rect {
    pub const fn new(x: u16, y: u16, w: u16, h: u16) -> Rect {
        Rect { x, y, w, h }
    }

    pub fn right(&self) -> u16 {
        self.x.saturating_add(self.w)
    }

    pub fn bottom(&self) -> u16 {
        self.y.saturating_add(self.h)
    }

    pub fn contains(&self, x: u16, y: u16) -> bool {
        x >= self.x && x < self.right() && y >= self.y && y < self.bottom()
    }

    pub fn is_empty(&self) -> bool {
        self.w == 0 || self.h == 0
    }

    /// The part inside a one-cell border.
    pub fn inner(&self) -> Rect {
        Rect::new(
            self.x.saturating_add(1),
            self.y.saturating_add(1),
            self.w.saturating_sub(2),
            self.h.saturating_sub(2),
        )
    }

    /// This rectangle moved and shrunk until it lies inside `area` (at least 1x1 when `area` is).
    pub fn clamped_to(&self, area: Rect) -> Rect {
        let w = self.w.clamp(1.min(area.w), area.w);
        let h = self.h.clamp(1.min(area.h), area.h);
        let x = self.x.clamp(area.x, area.right().saturating_sub(w));
        let y = self.y.clamp(area.y, area.bottom().saturating_sub(h));
        Rect::new(x, y, w, h)
    }
}

/// How a split divides its area.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    /// A vertical divider: the halves sit side by side.
    Vertical,
    /// A horizontal divider: the halves are stacked.
    Horizontal,
}

impl Axis {
    pub fn flipped(self) -> Axis {
        match self {
            Axis::Vertical => Axis::Horizontal,
            Axis::Horizontal => Axis::Vertical,
        }
    }

    /// `vertical`/`v` (side by side) or `horizontal`/`h` (stacked).
    pub fn parse(s: &str) -> Option<Axis> {
        match s.trim().to_ascii_lowercase().as_str() {
            "vertical" | "v" => Some(Axis::Vertical),
            "horizontal" | "h" => Some(Axis::Horizontal),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Axis::Vertical => "vertical",
            Axis::Horizontal => "horizontal",
        }
    }
}

/// A screen side, for focus movement and preselection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Left,
    Right,
    Up,
    Down,
}

impl Direction {
    pub fn parse(s: &str) -> Option<Direction> {
        match s.trim().to_ascii_lowercase().as_str() {
            "left" | "l" => Some(Direction::Left),
            "right" | "r" => Some(Direction::Right),
            "up" | "u" | "top" => Some(Direction::Up),
            "down" | "d" | "bottom" => Some(Direction::Down),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Left => "left",
            Direction::Right => "right",
            Direction::Up => "up",
            Direction::Down => "down",
        }
    }

    /// The split that puts a new pane on this side, and whether the new pane comes first.
    pub fn placement(self) -> (Axis, bool) {
        match self {
            Direction::Left => (Axis::Vertical, true),
            Direction::Right => (Axis::Vertical, false),
            Direction::Up => (Axis::Horizontal, true),
            Direction::Down => (Axis::Horizontal, false),
        }
    }
}

/// A BSP tree: leaves are windows, splits divide their area between two subtrees.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Node {
    Leaf {
        window: String,
    },
    Split {
        axis: Axis,
        /// Share of the area the first subtree gets, in (0, 1).
        ratio: f64,
        first: Box<Node>,
        second: Box<Node>,
    },
}

/// Narrowest share a drag can leave a pane.
const MIN_RATIO: f64 = 0.05;

impl Node {
    pub fn leaf(window: &str) -> Node {
        Node::Leaf {
            window: window.to_string(),
        }
    }

    /// Window ids, in reading order.
    pub fn leaves(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<String>) {
        match self {
            Node::Leaf { window } => out.push(window.clone()),
            Node::Split { first, second, .. } => {
                first.collect(out);
                second.collect(out);
            }
        }
    }

    pub fn contains(&self, id: &str) -> bool {
        match self {
            Node::Leaf { window } => window == id,
            Node::Split { first, second, .. } => first.contains(id) || second.contains(id),
        }
    }

    /// Replaces the leaf `target` with a split holding it and `new`. False if `target` is absent.
    fn split_leaf(&mut self, target: &str, new: &str, axis: Axis, new_first: bool) -> bool {
        match self {
            Node::Leaf { window } if window == target => {
                let old = Node::leaf(window);
                let added = Node::leaf(new);
                let (first, second) = if new_first {
                    (added, old)
                } else {
                    (old, added)
                };
                *self = Node::Split {
                    axis,
                    ratio: 0.5,
                    first: Box::new(first),
                    second: Box::new(second),
                };
                true
            }
            Node::Leaf { .. } => false,
            Node::Split { first, second, .. } => {
                first.split_leaf(target, new, axis, new_first)
                    || second.split_leaf(target, new, axis, new_first)
            }
        }
    }

    /// Rectangles of every leaf inside `area`.
    pub fn rects(&self, area: Rect, out: &mut Vec<(String, Rect)>) {
        match self {
            Node::Leaf { window } => out.push((window.clone(), area)),
            Node::Split {
                axis,
                ratio,
                first,
                second,
            } => {
                let (a, b) = split_rect(area, *axis, *ratio);
                first.rects(a, out);
                second.rects(b, out);
            }
        }
    }

    fn equalize(&mut self) {
        if let Node::Split {
            axis,
            ratio,
            first,
            second,
        } = self
        {
            // Panes along one axis get equal shares when each side's share matches its count of
            // panes stacked along that axis.
            let a = first.span(*axis) as f64;
            let b = second.span(*axis) as f64;
            *ratio = a / (a + b);
            first.equalize();
            second.equalize();
        }
    }

    /// How many panes this subtree lines up along `axis`.
    fn span(&self, along: Axis) -> usize {
        match self {
            Node::Leaf { .. } => 1,
            Node::Split {
                axis,
                first,
                second,
                ..
            } => {
                if *axis == along {
                    first.span(along) + second.span(along)
                } else {
                    first.span(along).max(second.span(along))
                }
            }
        }
    }

    /// Flips the split that directly holds `id`. False if `id` is the root or absent.
    fn rotate_parent_of(&mut self, id: &str) -> bool {
        match self {
            Node::Leaf { .. } => false,
            Node::Split {
                axis,
                first,
                second,
                ..
            } => {
                let direct = matches!(&**first, Node::Leaf { window } if window == id)
                    || matches!(&**second, Node::Leaf { window } if window == id);
                if direct {
                    *axis = axis.flipped();
                    return true;
                }
                first.rotate_parent_of(id) || second.rotate_parent_of(id)
            }
        }
    }

    fn node_at_mut(&mut self, path: &[bool]) -> Option<&mut Node> {
        let Some((&step, rest)) = path.split_first() else {
            return Some(self);
        };
        match self {
            Node::Leaf { .. } => None,
            Node::Split { first, second, .. } => {
                if step {
                    second.node_at_mut(rest)
                } else {
                    first.node_at_mut(rest)
                }
            }
        }
    }
}

/// Removes `id` from a tree; its sibling takes the parent's place.
pub fn remove(tree: &mut Option<Node>, id: &str) -> bool {
    fn go(node: Node, id: &str, removed: &mut bool) -> Option<Node> {
        match node {
            Node::Leaf { window } if window == id => {
                *removed = true;
                None
            }
            leaf @ Node::Leaf { .. } => Some(leaf),
            Node::Split {
                axis,
                ratio,
                first,
                second,
            } => match (go(*first, id, removed), go(*second, id, removed)) {
                (Some(a), Some(b)) => Some(Node::Split {
                    axis,
                    ratio,
                    first: Box::new(a),
                    second: Box::new(b),
                }),
                (Some(only), None) | (None, Some(only)) => Some(only),
                (None, None) => None,
            },
        }
    }
    let mut removed = false;
    if let Some(node) = tree.take() {
        *tree = go(node, id, &mut removed);
    }
    removed
}

/// Splits `area` at `ratio` along `axis`; both halves keep at least one cell when there is room.
pub fn split_rect(area: Rect, axis: Axis, ratio: f64) -> (Rect, Rect) {
    let total = match axis {
        Axis::Vertical => area.w,
        Axis::Horizontal => area.h,
    };
    let mut first = (f64::from(total) * ratio).round() as u16;
    if total >= 2 {
        first = first.clamp(1, total - 1);
    } else {
        first = first.min(total);
    }
    let second = total - first;
    match axis {
        Axis::Vertical => (
            Rect::new(area.x, area.y, first, area.h),
            Rect::new(area.x + first, area.y, second, area.h),
        ),
        Axis::Horizontal => (
            Rect::new(area.x, area.y, area.w, first),
            Rect::new(area.x, area.y + first, area.w, second),
        ),
    }
}

/// The split a new pane gets inside a pane of this size: across its longer side. Cells are about
/// twice as tall as wide, so a pane is "wide" when it has more than twice as many columns as rows.
pub fn long_axis(r: Rect) -> Axis {
    if u32::from(r.w) > 2 * u32::from(r.h) {
        Axis::Vertical
    } else {
        Axis::Horizontal
    }
}

/// One workspace's arrangement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceLayout {
    #[serde(default = "yes")]
    pub tiling: bool,
    #[serde(default)]
    pub tree: Option<Node>,
    /// Floating geometry by window id (outer rectangle, border included).
    #[serde(default)]
    pub floating: BTreeMap<String, Rect>,
    #[serde(default)]
    pub zoomed: Option<String>,
}

fn yes() -> bool {
    true
}

impl Default for WorkspaceLayout {
    fn default() -> Self {
        WorkspaceLayout {
            tiling: true,
            tree: None,
            floating: BTreeMap::new(),
            zoomed: None,
        }
    }
}

/// A window a reconcile should know about: its id and workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub id: String,
    pub workspace: i64,
}

/// Where the next new window goes: split of `target` along `axis`, before or after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub target: String,
    pub axis: Axis,
    pub new_first: bool,
}

/// The shared layout of a session: one entry per workspace that has been arranged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Layout {
    #[serde(default)]
    pub workspaces: BTreeMap<i64, WorkspaceLayout>,
}

/// A window as drawn: outer rectangle and whether it is tiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub id: String,
    pub rect: Rect,
}

impl Layout {
    pub fn from_json(s: &str) -> Option<Layout> {
        serde_json::from_str(s).ok()
    }

    pub fn to_json(&self) -> String {
        // Plain data with string keys once the integers are written as strings: cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn workspace(&self, ws: i64) -> Option<&WorkspaceLayout> {
        self.workspaces.get(&ws)
    }

    pub fn workspace_mut(&mut self, ws: i64) -> &mut WorkspaceLayout {
        self.workspaces.entry(ws).or_default()
    }

    pub fn tiling(&self, ws: i64) -> bool {
        self.workspace(ws).is_none_or(|w| w.tiling)
    }

    /// Brings the trees and floating rectangles in line with the windows that exist: windows
    /// gone (closed, moved away, minimized) are removed, new ones are added. `members` lists the
    /// shown (not minimized) windows in session order. A new window goes where `placement` says
    /// when it targets a window of the same workspace, else it splits `focused` (or the last
    /// pane) along its long axis. Returns whether anything changed.
    pub fn reconcile(
        &mut self,
        members: &[Member],
        focused: Option<&str>,
        placement: Option<&Placement>,
        area: Rect,
    ) -> bool {
        let mut by_ws: BTreeMap<i64, Vec<&str>> = BTreeMap::new();
        for m in members {
            by_ws.entry(m.workspace).or_default().push(&m.id);
        }
        let mut changed = false;
        let known: Vec<i64> = self.workspaces.keys().copied().collect();
        for ws in known {
            if !by_ws.contains_key(&ws) {
                let wl = self.workspace_mut(ws);
                if wl.tree.is_some() || !wl.floating.is_empty() || wl.zoomed.is_some() {
                    wl.tree = None;
                    wl.floating.clear();
                    wl.zoomed = None;
                    changed = true;
                }
            }
        }
        for (ws, ids) in by_ws {
            let wl = self.workspace_mut(ws);
            let present: BTreeSet<&str> = ids.iter().copied().collect();
            for gone in wl
                .tree
                .as_ref()
                .map(Node::leaves)
                .unwrap_or_default()
                .into_iter()
                .filter(|id| !present.contains(id.as_str()))
            {
                changed |= remove(&mut wl.tree, &gone);
            }
            let before = wl.floating.len();
            wl.floating.retain(|id, _| present.contains(id.as_str()));
            changed |= wl.floating.len() != before;
            if wl.zoomed.as_deref().is_some_and(|z| !present.contains(z)) {
                wl.zoomed = None;
                changed = true;
            }
            for id in &ids {
                if !wl.tree.as_ref().is_some_and(|t| t.contains(id)) {
                    insert(&mut wl.tree, id, focused, placement, area);
                    changed = true;
                }
                if !wl.floating.contains_key(*id) {
                    let r = cascade(wl.floating.len(), area);
                    wl.floating.insert(id.to_string(), r);
                    changed = true;
                }
            }
        }
        changed
    }

    /// The windows of `ws` as drawn in `area`, bottom first (the focused one last in floating
    /// mode, so it is on top). A zoomed window fills the area alone.
    pub fn frames(&self, ws: i64, area: Rect, focused: Option<&str>) -> Vec<Frame> {
        let Some(wl) = self.workspace(ws) else {
            return Vec::new();
        };
        if let Some(z) = &wl.zoomed {
            return vec![Frame {
                id: z.clone(),
                rect: area,
            }];
        }
        if wl.tiling {
            let mut out = Vec::new();
            if let Some(t) = &wl.tree {
                t.rects(area, &mut out);
            }
            return out
                .into_iter()
                .map(|(id, rect)| Frame { id, rect })
                .collect();
        }
        // Floating: in tree order (a stable, shared order), the focused window raised.
        let order = wl.tree.as_ref().map(Node::leaves).unwrap_or_default();
        let mut frames: Vec<Frame> = order
            .iter()
            .filter_map(|id| {
                wl.floating.get(id).map(|r| Frame {
                    id: id.clone(),
                    rect: r.clamped_to(area),
                })
            })
            .collect();
        if let Some(f) = focused {
            if let Some(i) = frames.iter().position(|fr| fr.id == f) {
                let top = frames.remove(i);
                frames.push(top);
            }
        }
        frames
    }

    pub fn equalize(&mut self, ws: i64) {
        if let Some(t) = &mut self.workspace_mut(ws).tree {
            t.equalize();
        }
    }

    /// Turns the split holding `id` the other way; false when `id` has no parent split.
    pub fn rotate(&mut self, ws: i64, id: &str) -> bool {
        self.workspace_mut(ws)
            .tree
            .as_mut()
            .is_some_and(|t| t.rotate_parent_of(id))
    }

    /// Sets the ratio of the split at `path` (see [`split_handle_at`]).
    pub fn set_ratio(&mut self, ws: i64, path: &[bool], ratio: f64) -> bool {
        let ratio = ratio.clamp(MIN_RATIO, 1.0 - MIN_RATIO);
        match self
            .workspace_mut(ws)
            .tree
            .as_mut()
            .and_then(|t| t.node_at_mut(path))
        {
            Some(Node::Split { ratio: r, .. }) if (*r - ratio).abs() > f64::EPSILON => {
                *r = ratio;
                true
            }
            _ => false,
        }
    }
}

/// Adds `id` to a tree per the placement rules of [`Layout::reconcile`].
fn insert(
    tree: &mut Option<Node>,
    id: &str,
    focused: Option<&str>,
    placement: Option<&Placement>,
    area: Rect,
) {
    let Some(t) = tree else {
        *tree = Some(Node::leaf(id));
        return;
    };
    if let Some(p) = placement.filter(|p| t.contains(&p.target)) {
        t.split_leaf(&p.target, id, p.axis, p.new_first);
        return;
    }
    let target = focused
        .filter(|f| t.contains(f))
        .map(str::to_string)
        .or_else(|| t.leaves().pop())
        .unwrap_or_default();
    let mut rects = Vec::new();
    t.rects(area, &mut rects);
    let rect = rects
        .iter()
        .find(|(w, _)| *w == target)
        .map(|(_, r)| *r)
        .unwrap_or(area);
    t.split_leaf(&target, id, long_axis(rect), false);
}

/// Floating geometry of the n-th window: two thirds of the area, stepped down and right.
pub fn cascade(n: usize, area: Rect) -> Rect {
    let two_thirds = |v: u16| (u32::from(v) * 2 / 3) as u16;
    let w = two_thirds(area.w).max(20.min(area.w));
    let h = two_thirds(area.h).max(8.min(area.h));
    let room_x = area.w.saturating_sub(w);
    let room_y = area.h.saturating_sub(h);
    let step = (n % 1000) as u32;
    let dx = (step * 4 % (u32::from(room_x) + 1)) as u16;
    let dy = (step * 2 % (u32::from(room_y) + 1)) as u16;
    Rect::new(area.x + dx, area.y + dy, w, h)
}

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
    frames: &[Frame],
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
pub fn neighbour(frames: &[Frame], from: &str, dir: Direction) -> Option<String> {
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

#[cfg(test)]
mod tests {
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
            vec![Frame {
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
            Frame {
                id: "a".into(),
                rect: Rect::new(0, 0, 50, 30),
            },
            Frame {
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
            Frame {
                id: "a".into(),
                rect: Rect::new(0, 0, 50, 30),
            },
            Frame {
                id: "b".into(),
                rect: Rect::new(50, 0, 50, 15),
            },
            Frame {
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
}
