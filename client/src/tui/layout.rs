//! Window geometry, computed by the client: a BSP tree per workspace for tiling (drawn as the
//! tree, as master-stack or as a scrolling strip, per workspace), a rectangle per window for
//! floating mode, zoom, hit testing and directional neighbours. Pure: no I/O.
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
    /// How tiled windows are drawn. The tree is kept in every mode: its reading order is the
    /// order of master-stack and scrolling, and switching back to bsp finds the splits as left.
    #[serde(default)]
    pub mode: TileMode,
    /// Scrolling mode: the first column in view.
    #[serde(default)]
    pub scroll: usize,
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
            mode: TileMode::Bsp,
            scroll: 0,
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
pub struct WindowFrame {
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

    /// The tiling mode of `ws` (bsp for a workspace never arranged).
    pub fn mode(&self, ws: i64) -> TileMode {
        self.workspace(ws).map(|w| w.mode).unwrap_or_default()
    }

    /// Whether `ws` tiles as a split tree, so its dividers can be dragged and its splits turned.
    pub fn tiles_bsp(&self, ws: i64) -> bool {
        self.tiling(ws) && self.mode(ws) == TileMode::Bsp
    }

    /// Whether `ws` is drawn as a scrolling strip.
    pub fn tiles_strip(&self, ws: i64) -> bool {
        self.tiling(ws) && self.mode(ws) == TileMode::Scrolling
    }

    /// Keeps the scrolling view of `ws` on its focused window, so the view stays where focus
    /// last took it rather than snapping back. Returns whether it moved.
    pub fn follow_focus(&mut self, ws: i64, focused: Option<&str>) -> bool {
        let Some(wl) = self.workspaces.get_mut(&ws) else {
            return false;
        };
        if wl.mode != TileMode::Scrolling {
            return false;
        }
        let order = wl.tree.as_ref().map(Node::leaves).unwrap_or_default();
        let at = focused.and_then(|f| order.iter().position(|id| id == f));
        let start = view_start(wl.scroll, at, order.len().max(1));
        let moved = start != wl.scroll;
        wl.scroll = start;
        moved
    }

    /// The window beside `from` along the scrolling strip of `ws`.
    pub fn strip_neighbour(&self, ws: i64, from: &str, dir: Direction) -> Option<String> {
        let order = self.workspace(ws)?.tree.as_ref()?.leaves();
        strip_neighbour(&order, from, dir)
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
    pub fn frames(&self, ws: i64, area: Rect, focused: Option<&str>) -> Vec<WindowFrame> {
        let Some(wl) = self.workspace(ws) else {
            return Vec::new();
        };
        if let Some(z) = &wl.zoomed {
            return vec![WindowFrame {
                id: z.clone(),
                rect: area,
            }];
        }
        if wl.tiling {
            let mut out = Vec::new();
            if let Some(t) = &wl.tree {
                match wl.mode {
                    TileMode::Bsp => t.rects(area, &mut out),
                    TileMode::MasterStack => out = master_stack(&t.leaves(), area, MASTER_RATIO),
                    TileMode::Scrolling => {
                        let order = t.leaves();
                        let at = focused.and_then(|f| order.iter().position(|id| id == f));
                        let start = view_start(wl.scroll, at, order.len());
                        out = columns(&order, area, start);
                    }
                }
            }
            return out
                .into_iter()
                .map(|(id, rect)| WindowFrame { id, rect })
                .collect();
        }
        // Floating: in tree order (a stable, shared order), the focused window raised.
        let order = wl.tree.as_ref().map(Node::leaves).unwrap_or_default();
        let mut frames: Vec<WindowFrame> = order
            .iter()
            .filter_map(|id| {
                wl.floating.get(id).map(|r| WindowFrame {
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

mod hits;
mod master_stack;
mod scrolling;
mod shared;
mod tile_mode;
pub use hits::*;
pub use master_stack::*;
pub use scrolling::*;
pub use shared::*;
pub use tile_mode::*;

#[cfg(test)]
mod tests;
