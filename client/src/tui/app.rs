//! The attached client's state and behaviour, apart from the terminal: what the daemon said,
//! the layout, modes and overlays, and what to send back. Every handler queues its outgoing
//! operations (taken with [`App::take_ops`]); the run loop sends them. No I/O here, so it is
//! testable. Drawing reads the state only through the view model [`App::view`] builds.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use protocol::attach::{
    ClientOp, DaemonOp, NoticeLevel, RoutedRequest, SessionView, WindowBox, WindowView,
};
use protocol::binary::DaemonMessage;
use serde_json::{json, Value};
use termwiz::input::{InputEvent, KeyCode, KeyEvent, Modifiers, MouseButtons, MouseEvent};

use super::copy::{CopyMode, CopyOutcome, SearchAnswer, SearchAsk};
use super::input::{encode_key, encode_mouse, normalize_mods, MouseAction};
use super::keys::{token_events, Action, InputMode, KeyChord, KeyConfig, KeyRoute, Router};
use super::layout::{
    content_rect, hit, neighbour, share_borders, split_handle_at, wheel_direction, Axis, Direction,
    Layout, Member, Part, Placement, Rect, SplitHandle, TileMode, WindowFrame, MASTER_RATIO,
};
use super::model::{
    Confirmed, DamagedRows, Hits, LinkDialog, Notice, Overlay, PasteDialog, Prompt, PromptKind,
    TapeDecision, TapeOffer, Target, WinButton, WindowScreen,
};
use super::rail::{rail_width, RailSession};
use super::settings::{Edge, LinkPolicy, RailEdge, Settings, ThemeCache};
use super::sysstat::Figures;
use super::templates::{self, Template};
use super::text::{link_at, split_words, title_of};
use super::view::{tray_rows, View};

/// How long a routed split waits for its window before answering without the id.
const SPLIT_WAIT: Duration = Duration::from_secs(8);
/// How long a one-line hint in the dock stays.
const FLASH: Duration = Duration::from_secs(3);
/// Keys the keycast (`debug.show_key_events`) shows.
const KEYCAST_KEYS: usize = 8;
/// Longest gap between the two clicks of a double click.
const DOUBLE_CLICK: Duration = Duration::from_millis(400);
/// How long the leader waits for its key before the which-key popup opens.
const WHICHKEY_DELAY: Duration = Duration::from_millis(500);
/// How long the first attach's hint about the leader key stays up.
const FIRST_RUN_HINT: Duration = Duration::from_secs(10);

/// Why the client stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    Detached,
    Ended { session: String, reason: String },
    Lost(String),
}

#[derive(Debug, Clone)]
enum Drag {
    Split {
        ws: i64,
        handle: SplitHandle,
    },
    Move {
        ws: i64,
        id: String,
        grab: (u16, u16),
        start: Rect,
    },
}

/// A layout template waiting for the windows it opened (`LoadLayout` on a workspace with fewer
/// windows than the template has slots).
#[derive(Debug, Clone)]
struct PendingTemplate {
    name: String,
    template: Template,
    workspace: i64,
    /// The workspace's windows when the load began, in slot order; new ones follow them.
    existing: Vec<String>,
    known: HashSet<String>,
    opened: usize,
    request: Option<u64>,
    deadline: Instant,
}

/// A window being created for a split, placed when it shows up.
#[derive(Debug, Clone)]
struct PendingSplit {
    placement: Option<Placement>,
    known: HashSet<String>,
    request: Option<u64>,
    direction: String,
    name: Option<String>,
    deadline: Instant,
}

/// The client's state. Its fields are private: the run loop works through the methods below,
/// and drawing reads the view model [`App::view`] builds.
pub struct App {
    /// The session as the daemon last described it.
    session: SessionView,
    attached: bool,
    screens: HashMap<String, WindowScreen>,
    layout: Layout,
    layout_seen: Option<String>,
    frames: Vec<WindowFrame>,
    /// The outer terminal's size.
    term: (u16, u16),
    router: Router,
    settings: Settings,
    themes: ThemeCache,
    overrides: BTreeMap<String, String>,
    overlay: Overlay,
    notices: Vec<Notice>,
    /// Rows of the tray at the last layout (see [`App::tray_rect`]).
    tray_rows: u16,
    flash: Option<(String, Instant)>,
    copy: Option<CopyMode>,
    pending: Option<PendingSplit>,
    pending_template: Option<PendingTemplate>,
    preselect: Option<Direction>,
    sent_view: Option<Vec<String>>,
    sent_sizes: HashMap<String, (u16, u16)>,
    /// The window boxes last told to the daemon (list-windows geometry).
    sent_geometry: Option<Vec<WindowBox>>,
    /// Whether the daemon was told this client's leader key.
    sent_leader: bool,
    last_paste: Option<(String, Vec<u8>)>,
    /// Buttons held at the last mouse report (MouseButtons bits).
    buttons: u8,
    /// Where the pointer last moved with no button held (the terminal reports any motion).
    hover: Option<(u16, u16)>,
    drag: Option<Drag>,
    /// The window a press inside its content went to, so its drag and release follow.
    mouse_capture: Option<String>,
    /// The last click on a window's content in window-management mode, for
    /// `appearance.click_to_type = double`.
    last_content_click: Option<(String, Instant)>,
    /// A mouse selection under way (`app/select.rs`).
    select: select::MouseSelect,
    /// Windows opening (`app/anim.rs`).
    anim: anim::Animations,
    /// The last keys pressed, shown in the dock when `debug.show_key_events` is on.
    keycast: VecDeque<String>,
    /// CPU and memory figures for the dock, as the run loop last sampled them.
    figures: Figures,
    /// Operations to send, in order.
    out: Vec<ClientOp>,
    /// Text to put on the outer terminal's clipboard (OSC 52).
    clipboard: Vec<String>,
    /// A copy-mode search for the run loop to hand to the daemon.
    search_ask: Option<SearchAsk>,
    /// The user's link policy (scheme allowlist, opener); only the policy file sets it.
    links: LinkPolicy,
    /// Confirmed links for the run loop to hand to the opener.
    open_links: Vec<String>,
    /// The project tape found last, until run or refused (leader T reviews it).
    tape_offer: Option<TapeOffer>,
    /// Decisions about project tapes, for the run loop.
    tape_decisions: Vec<TapeDecision>,
    /// Leader T with nothing offered: the run loop looks again and opens what it finds.
    tape_look_asked: bool,
    /// When the leader was pressed, while it waits for its key (for the which-key popup).
    leader_at: Option<Instant>,
    /// The which-key popup is up.
    whichkey_shown: bool,
    /// Click targets of the last whole frame.
    hits: Hits,
    /// Something besides window content changed: the next frame is drawn whole.
    dirty: bool,
    /// Window content rows changed (and nothing else, unless `dirty`): the next frame may
    /// redraw just these rows.
    damage: HashMap<String, DamagedRows>,
    /// The window input was last sent to, until a frame showing a change of it was drawn: that
    /// change is most likely the echo, which is drawn at once, whatever the frame rate.
    typed: Option<String>,
    exit: Option<Exit>,
    /// Every session the daemon has, as last polled, for the session rail.
    sessions: Vec<RailSession>,
    /// Where the pointer rests on the rail, and since when.
    rail_hover: Option<((u16, u16), Instant)>,
    /// Columns the hovered row's overflowing title has scrolled.
    marquee_step: usize,
}

impl App {
    pub fn new(keys: KeyConfig, term: (u16, u16)) -> App {
        let mut themes = ThemeCache::default();
        let settings = Settings::resolve(&BTreeMap::new(), &BTreeMap::new(), &mut themes);
        let mut app = App {
            session: SessionView::default(),
            attached: false,
            screens: HashMap::new(),
            layout: Layout::default(),
            layout_seen: None,
            frames: Vec::new(),
            term,
            router: Router::new(keys.leader, keys.focus_return),
            settings,
            themes,
            overrides: BTreeMap::new(),
            overlay: Overlay::None,
            notices: Vec::new(),
            tray_rows: 0,
            flash: None,
            copy: None,
            pending: None,
            pending_template: None,
            preselect: None,
            sent_view: None,
            sent_sizes: HashMap::new(),
            sent_geometry: None,
            sent_leader: false,
            last_paste: None,
            buttons: 0,
            hover: None,
            drag: None,
            mouse_capture: None,
            last_content_click: None,
            select: select::MouseSelect::default(),
            anim: anim::Animations::default(),
            keycast: VecDeque::new(),
            figures: Figures::default(),
            out: Vec::new(),
            clipboard: Vec::new(),
            search_ask: None,
            links: LinkPolicy::default(),
            open_links: Vec::new(),
            tape_offer: None,
            tape_decisions: Vec::new(),
            tape_look_asked: false,
            leader_at: None,
            whichkey_shown: false,
            hits: Hits::default(),
            dirty: true,
            damage: HashMap::new(),
            typed: None,
            exit: None,
            sessions: Vec::new(),
            rail_hover: None,
            marquee_step: 0,
        };
        for w in keys.warnings {
            app.notice(NoticeLevel::Warning, w);
        }
        app
    }

    /// Sets the link policy read from the user's policy file; its warnings become notices.
    pub fn set_link_policy(&mut self, policy: LinkPolicy, warnings: Vec<String>) {
        self.links = policy;
        for w in warnings {
            self.notice(NoticeLevel::Warning, w);
        }
    }

    // ----- geometry -------------------------------------------------------------------------

    /// The part of the terminal the session uses: the smaller of the terminal and the session.
    fn area(&self) -> Rect {
        let (tw, th) = self.term;
        let w = if self.session.width == 0 {
            tw
        } else {
            tw.min(self.session.width)
        };
        let h = if self.session.height == 0 {
            th
        } else {
            th.min(self.session.height)
        };
        Rect::new(0, 0, w, h)
    }

    /// The dock's row, when shown.
    fn dock_row(&self) -> Option<u16> {
        let a = self.area();
        if a.h < 2 {
            return None;
        }
        match self.settings.dock {
            Edge::Top => Some(a.y),
            Edge::Bottom => Some(a.bottom() - 1),
            Edge::Hidden => None,
        }
    }

    /// The area without the dock: the rail, the windows and the tray share it.
    fn beside_dock(&self) -> Rect {
        let a = self.area();
        match self.dock_row() {
            Some(_) if self.settings.dock == Edge::Top => Rect::new(a.x, a.y + 1, a.w, a.h - 1),
            Some(_) => Rect::new(a.x, a.y, a.w, a.h - 1),
            None => a,
        }
    }

    /// The session rail's columns, when it is on and the terminal has room for it.
    fn rail_rect(&self) -> Option<Rect> {
        let edge = self.settings.rail.edge?;
        let b = self.beside_dock();
        let w = rail_width(self.settings.rail.width, b.w);
        if w == 0 || b.h == 0 {
            return None;
        }
        Some(match edge {
            RailEdge::Left => Rect::new(b.x, b.y, w, b.h),
            RailEdge::Right => Rect::new(b.right() - w, b.y, w, b.h),
        })
    }

    /// The area without the dock and the rail: the windows and the tray share it.
    fn below_dock(&self) -> Rect {
        let b = self.beside_dock();
        match self.rail_rect() {
            Some(r) if r.x == b.x => Rect::new(r.right(), b.y, b.w - r.w, b.h),
            Some(r) => Rect::new(b.x, b.y, b.w - r.w, b.h),
            None => b,
        }
    }

    /// The tray: chrome rows next to the dock for confirmations and notices, taken from the
    /// windows so that no program output is ever drawn where trust UI is.
    fn tray_rect(&self) -> Option<Rect> {
        let b = self.below_dock();
        let h = self.tray_rows.min(b.h);
        if h == 0 {
            return None;
        }
        Some(
            if self.settings.dock == Edge::Top && self.dock_row().is_some() {
                Rect::new(b.x, b.y, b.w, h)
            } else {
                Rect::new(b.x, b.bottom() - h, b.w, h)
            },
        )
    }

    /// Where the windows are drawn: the area without the dock and the tray.
    fn windows_area(&self) -> Rect {
        let b = self.below_dock();
        match self.tray_rect() {
            None => b,
            Some(t) if t.y == b.y => Rect::new(b.x, t.bottom(), b.w, b.h - t.h),
            Some(t) => Rect::new(b.x, b.y, b.w, b.h - t.h),
        }
    }

    /// Lays the windows out again when the tray needs another number of rows (a dialog opened
    /// or closed, a notice came or went).
    fn sync_tray(&mut self) {
        let rows = tray_rows(&self.view());
        if rows == self.tray_rows {
            return;
        }
        self.dirty = true;
        if self.attached {
            self.relayout();
        } else {
            // Nothing is laid out yet; attaching does it with these rows.
            self.tray_rows = rows;
        }
    }

    fn bordered(&self) -> bool {
        self.settings.border.bordered()
    }

    /// appearance.shared_borders in effect: tiles that meet share the line between them. Not
    /// in a scrolling strip, whose columns run off the screen, nor while one window is zoomed.
    fn shares_borders(&self) -> bool {
        let ws = self.session.current_workspace;
        let zoomed = self
            .layout
            .workspace(ws)
            .is_some_and(|w| w.zoomed.is_some());
        self.settings.shared_borders
            && self.bordered()
            && self.layout.tiling(ws)
            && !self.layout.tiles_strip(ws)
            && !zoomed
    }

    /// Whether a frame is due: anything changed.
    pub fn needs_draw(&self) -> bool {
        self.dirty || !self.damage.is_empty()
    }

    /// Whether the window typed into changed since the key left: its echo is waiting to be
    /// drawn, which comes before the frame rate.
    pub fn echo_waiting(&self) -> bool {
        self.typed
            .as_ref()
            .is_some_and(|w| self.damage.contains_key(w))
    }

    /// The view model a frame is drawn from: what is shown, read-only, with the geometry
    /// worked out once.
    pub fn view(&self) -> View<'_> {
        View {
            session: &self.session,
            attached: self.attached,
            screens: &self.screens,
            layout: &self.layout,
            frames: &self.frames,
            settings: &self.settings,
            overlay: &self.overlay,
            notices: &self.notices,
            opening: self.opening_boxes(Instant::now()),
            flash: self.flash.as_ref().map(|(text, _)| text.as_str()),
            copy: self.copy.as_ref(),
            keycast: &self.keycast,
            mode: self.mode(),
            leader: self.leader(),
            leader_armed: self.router.leader_armed,
            read_only: super::conn::attach_read_only(),
            whichkey: if self.whichkey_shown {
                self.settings.whichkey.as_deref()
            } else {
                None
            },
            move_pending: self.router.move_pending,
            focus_return: self.router.focus_return.first().copied(),
            figures: self.figures,
            area: self.area(),
            below_dock: self.below_dock(),
            dock_row: self.dock_row(),
            tray_rect: self.tray_rect(),
            windows_area: self.windows_area(),
            bordered: self.bordered(),
            shared_borders: self.shares_borders(),
            hover: self.hover.filter(|_| self.settings.ws_tooltip),
            rail_rect: self.rail_rect(),
            sessions: &self.sessions,
            rail_hover: self.rail_hover.map(|(p, _)| p),
            marquee_step: self.marquee_step,
        }
    }

    fn window(&self, id: &str) -> Option<&WindowView> {
        self.session.windows.iter().find(|w| w.id == id)
    }

    fn focused(&self) -> Option<&WindowView> {
        let f = self.session.focused.as_deref()?;
        self.window(f)
            .filter(|w| w.workspace == self.session.current_workspace && !w.minimized)
    }

    fn focused_id(&self) -> Option<String> {
        self.focused().map(|w| w.id.clone())
    }

    fn mode(&self) -> InputMode {
        self.router.mode
    }

    fn leader(&self) -> KeyChord {
        self.router.leader
    }

    /// Recomputes the layout and frames, and tells the daemon what changed: the layout, the
    /// windows shown, their sizes.
    fn relayout(&mut self) {
        self.tray_rows = tray_rows(&self.view());
        // New windows are placed in the area without the tray, as every client sees it, so
        // clients agree on the tree whatever their trays show.
        let full = self.below_dock();
        let area = self.windows_area();
        let members: Vec<Member> = self
            .session
            .windows
            .iter()
            .filter(|w| !w.minimized)
            .map(|w| Member {
                id: w.id.clone(),
                workspace: w.workspace,
            })
            .collect();
        let placement = self.pending.as_ref().and_then(|p| p.placement.clone());
        let focused = self.session.focused.clone();
        let changed = self
            .layout
            .reconcile(&members, focused.as_deref(), placement.as_ref(), full);
        // Every client reconciles the same state in the same area (the session's size) to the
        // same tree, so only the client that placed a window on purpose shares the result (or
        // the first one, so the session has a layout): two clients pushing would race, and the
        // one without the placement could win.
        if changed && (placement.is_some() || self.layout_seen.is_none()) {
            self.push_layout();
        }
        let ws = self.session.current_workspace;
        self.layout.follow_focus(ws, focused.as_deref());
        self.frames = self.layout.frames(ws, area, focused.as_deref());
        if self.shares_borders() {
            share_borders(&mut self.frames, area);
        }
        let cap = self.settings.zoom_max_width;
        if cap > 0
            && self
                .layout
                .workspace(ws)
                .is_some_and(|w| w.zoomed.is_some())
        {
            for f in &mut self.frames {
                f.rect = super::layout::centre_zoomed(f.rect, cap);
            }
        }
        self.start_openings();
        self.sync_view();
    }

    fn push_layout(&mut self) {
        let json = self.layout.to_json();
        if self.layout_seen.as_deref() != Some(json.as_str()) {
            self.layout_seen = Some(json.clone());
            self.out.push(ClientOp::Layout { layout: json });
        }
    }

    fn sync_view(&mut self) {
        let ids: Vec<String> = self.frames.iter().map(|f| f.id.clone()).collect();
        if self.sent_view.as_ref() != Some(&ids) {
            self.out.push(ClientOp::View {
                windows: ids.clone(),
            });
            self.screens.retain(|id, _| ids.contains(id));
            self.sent_view = Some(ids);
        }
        if !self.sent_leader {
            self.sent_leader = true;
            self.out.push(ClientOp::Leader {
                key: self.router.leader.label(),
            });
        }
        // Outer boxes, border included, as list-windows reports them; sent when one changed.
        let boxes: Vec<WindowBox> = self
            .frames
            .iter()
            .map(|f| WindowBox {
                window: f.id.clone(),
                x: f.rect.x,
                y: f.rect.y,
                width: f.rect.w,
                height: f.rect.h,
            })
            .collect();
        if self.sent_geometry.as_ref() != Some(&boxes) {
            self.out.push(ClientOp::Geometry {
                boxes: boxes.clone(),
            });
            self.sent_geometry = Some(boxes);
        }
        let bordered = self.bordered();
        for f in &self.frames {
            let c = content_rect(f.rect, bordered);
            if c.is_empty() {
                continue;
            }
            let size = (c.w, c.h);
            if self.sent_sizes.get(&f.id) != Some(&size) {
                self.sent_sizes.insert(f.id.clone(), size);
                self.out.push(ClientOp::WindowSize {
                    window: f.id.clone(),
                    cols: c.w,
                    rows: c.h,
                });
            }
        }
        if let Some(copy) = &mut self.copy {
            match self.frames.iter().find(|f| f.id == copy.window) {
                Some(f) => {
                    let c = content_rect(f.rect, bordered);
                    copy.resize(usize::from(c.w), usize::from(c.h));
                }
                None => self.copy = None,
            }
        }
    }
}

/// The mouse buttons whose press, drag and release are tracked.
const BUTTON_BITS: u8 =
    MouseButtons::LEFT.bits() | MouseButtons::MIDDLE.bits() | MouseButtons::RIGHT.bits();

mod actions;
mod anim;
mod commands;
mod daemon;
mod mouse;
mod rail;
mod requests;
mod select;
mod tapes;
mod typing;

#[cfg(test)]
mod tests;

impl App {
    /// Attached again on a new connection (the daemon re-executed itself): forget what was
    /// told to the old one, so the shown windows and their sizes are sent again, and take the
    /// new daemon's state whatever its version counter says.
    pub fn forget_connection(&mut self) {
        self.sent_view = None;
        self.sent_sizes.clear();
        self.sent_geometry = None;
        self.sent_leader = false;
        self.session.version = 0;
    }
}

/// What the next frame has to draw (see [`App::begin_frame`]).
pub struct FrameDue {
    /// Something besides window content changed: the frame is drawn whole.
    pub whole: bool,
    /// Rows of window content changed since the last frame.
    pub damage: HashMap<String, DamagedRows>,
}

// ----- what the run loop uses -------------------------------------------------------------
//
// The loop owns the terminal and the connection; it reads and takes from the state only
// through these, so what the state holds can change without the loop knowing.

impl App {
    /// The session's name (empty until attached).
    pub fn session_name(&self) -> &str {
        &self.session.name
    }

    /// The session as the daemon last described it.
    pub fn session(&self) -> &SessionView {
        &self.session
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The current workspace's layout, as hooks name it: its tiling mode (`bsp`,
    /// `master-stack`, `scrolling`) when it tiles, else `floating`.
    pub fn layout_mode(&self) -> &'static str {
        let ws = self.session.current_workspace;
        if self.layout.tiling(ws) {
            self.layout.mode(ws).as_str()
        } else {
            "floating"
        }
    }

    /// The outer terminal's size.
    pub fn term_size(&self) -> (u16, u16) {
        self.term
    }

    /// The operations queued since the last call, in order, for the run loop to send.
    pub fn take_ops(&mut self) -> Vec<ClientOp> {
        std::mem::take(&mut self.out)
    }

    /// Texts to put on the outer terminal's clipboard.
    pub fn take_clipboard(&mut self) -> Vec<String> {
        std::mem::take(&mut self.clipboard)
    }

    /// The copy-mode search asked since the last call, with the session it is in.
    pub fn take_search(&mut self) -> Option<(String, SearchAsk)> {
        let ask = self.search_ask.take()?;
        Some((self.session.name.clone(), ask))
    }

    /// A copy-mode search's answer, for the window it was asked in.
    pub fn search_found(&mut self, window: &str, answer: SearchAnswer) {
        if let Some(copy) = self.copy.as_mut().filter(|c| c.window == window) {
            copy.found(answer);
            self.dirty = true;
            self.fetch_scrollback();
        }
    }

    /// Links the user confirmed, for the run loop to hand to the opener.
    pub fn take_links_to_open(&mut self) -> Vec<String> {
        std::mem::take(&mut self.open_links)
    }

    /// The program that opens links, with its own arguments.
    pub fn link_opener(&self) -> &[String] {
        &self.links.opener
    }

    /// Whether something already said why the client stops.
    pub fn exiting(&self) -> bool {
        self.exit.is_some()
    }

    /// Why the client stops, once something said so; taken.
    pub fn take_exit(&mut self) -> Option<Exit> {
        self.exit.take()
    }

    /// The daemon is gone for good. Unless the client already stops for another reason (a
    /// detach, the session's end), that is why it stops.
    pub fn lose(&mut self, why: String) {
        if self.exit.is_none() {
            self.exit = Some(Exit::Lost(why));
        }
    }

    /// The next frame is drawn whole (the screen was disturbed, or something drawn from
    /// outside the state changed, such as the clock).
    pub fn redraw(&mut self) {
        self.dirty = true;
    }

    /// Figures the run loop sampled; a change is drawn.
    pub fn set_figures(&mut self, figures: Figures) {
        if figures != self.figures {
            self.figures = figures;
            self.dirty = true;
        }
    }

    /// Starts a frame: what it has to draw, the damage taken. A frame that shows a change of
    /// the window typed into shows its echo, which then needs no more hurry.
    pub fn begin_frame(&mut self) -> FrameDue {
        let damage = std::mem::take(&mut self.damage);
        if self.dirty || self.typed.as_ref().is_some_and(|t| damage.contains_key(t)) {
            self.typed = None;
        }
        FrameDue {
            whole: self.dirty,
            damage,
        }
    }

    /// The frame is on screen. `hits` are a whole frame's click targets; a frame patched in
    /// place leaves the last ones (the chrome did not move).
    pub fn end_frame(&mut self, hits: Option<Hits>) {
        if let Some(hits) = hits {
            self.hits = hits;
        }
        self.dirty = false;
    }
}
