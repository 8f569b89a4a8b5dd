//! The attached client's state and behaviour, apart from the terminal: what the daemon said,
//! the layout, modes and overlays, and what to send back. Every handler queues its outgoing
//! operations in [`App::out`]; the run loop sends them. No I/O here, so it is testable.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use protocol::attach::{
    ClientOp, DaemonOp, NoticeLevel, RoutedRequest, Row, ScreenUpdate, SessionView, WindowView,
};
use protocol::binary::DaemonMessage;
use serde_json::{json, Value};
use termwiz::input::{InputEvent, KeyCode, KeyEvent, Modifiers, MouseButtons, MouseEvent};

use super::copy::{CopyMode, Outcome};
use super::input::{encode_key, encode_mouse, normalize_mods, MouseAction};
use super::keys::{token_events, Action, Chord, KeyConfig, Mode, Route, Router};
use super::layout::{
    content_rect, hit, neighbour, split_handle_at, Axis, Direction, Frame, Layout, Member, Part,
    Placement, Rect, SplitHandle,
};
use super::settings::{Edge, LinkPolicy, Settings, ThemeCache};
use super::templates::{self, Template};

/// How long a routed split waits for its window before answering without the id.
const SPLIT_WAIT: Duration = Duration::from_secs(8);
/// How long a one-line hint in the dock stays.
const FLASH: Duration = Duration::from_secs(3);
/// Keys the keycast (`debug.show_key_events`) shows.
const KEYCAST_KEYS: usize = 8;
/// Longest gap between the two clicks of a double click.
const DOUBLE_CLICK: Duration = Duration::from_millis(400);
/// How long the first attach's hint about the leader key stays up.
const FIRST_RUN_HINT: Duration = Duration::from_secs(10);

/// The last screen the daemon sent for a window.
#[derive(Debug, Clone, Default)]
pub struct Screen {
    pub cols: u16,
    pub rows: u16,
    pub cursor: (u16, u16),
    pub cursor_visible: bool,
    pub lines: Vec<Row>,
}

impl Screen {
    fn apply(&mut self, u: ScreenUpdate) {
        self.cols = u.cols;
        self.rows = u.rows;
        self.cursor = (u.cursor_x, u.cursor_y);
        self.cursor_visible = u.cursor_visible;
        let rows = usize::from(u.rows);
        if u.full {
            self.lines.clear();
        }
        self.lines.resize_with(rows, Row::default);
        for (i, row) in u.lines {
            if let Some(slot) = self.lines.get_mut(usize::from(i)) {
                *slot = row;
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
    pub until: Instant,
}

/// The OSC 8 link of the cell at `col` of `row`, if any. Wide characters take two columns.
pub fn link_at(row: &Row, col: u16) -> Option<&str> {
    let mut x = 0usize;
    let col = usize::from(col);
    for run in &row.runs {
        for c in run.text.chars() {
            let w = super::render::char_width(c);
            if w == 0 {
                continue;
            }
            if col < x + w {
                return run.link.as_deref();
            }
            x += w;
        }
    }
    None
}

/// The confirmation before a link is opened or copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkDialog {
    /// The URL exactly as the window gave it; what open and copy use.
    pub url: String,
    /// The URL with every control, bidi, zero-width and format character escaped: what is shown.
    pub shown: String,
    pub scroll: usize,
}

/// Why the client stops.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    Detached,
    Ended { session: String, reason: String },
    Lost(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptKind {
    Rename(String),
    Command,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub kind: PromptKind,
    pub buffer: String,
}

impl Prompt {
    pub fn label(&self) -> &'static str {
        match self.kind {
            PromptKind::Rename(_) => "rename window",
            PromptKind::Command => "command",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasteDialog {
    pub window: String,
    pub preview: String,
    pub one_line: String,
    pub has_controls: bool,
    pub data: Vec<u8>,
    pub scroll: usize,
}

/// A chrome dialog; keys go to it, never to a window. Confirmations (paste, yes/no) are drawn
/// in the tray, outside the windows; help covers them; the prompt takes the dock's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    Prompt(Prompt),
    Paste(PasteDialog),
    /// A link a click asked to open: open, copy or cancel.
    Link(LinkDialog),
    /// A yes/no question; `yes` runs on `y`.
    Confirm {
        text: String,
        yes: Confirmed,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmed {
    Close(String),
}

/// Click targets in chrome, found by the last draw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Workspace(i64),
    Window(String),
    PasteChoice(&'static str),
    /// An answer to the link confirmation: "open", "copy" or "" (cancel).
    LinkChoice(&'static str),
    /// An answer to the yes/no question.
    Confirm(bool),
}

#[derive(Debug, Clone, Default)]
pub struct Hits {
    /// Rectangles of clickable chrome, last drawn on top.
    pub targets: Vec<(Rect, Target)>,
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

pub struct App {
    pub view: SessionView,
    pub attached: bool,
    pub screens: HashMap<String, Screen>,
    pub layout: Layout,
    layout_seen: Option<String>,
    pub frames: Vec<Frame>,
    /// The outer terminal's size.
    pub term: (u16, u16),
    pub router: Router,
    pub keys: KeyConfig,
    pub settings: Settings,
    themes: ThemeCache,
    overrides: BTreeMap<String, String>,
    pub overlay: Overlay,
    pub notices: Vec<Notice>,
    /// Rows of the tray at the last layout (see [`App::tray_rect`]).
    tray_rows: u16,
    pub flash: Option<(String, Instant)>,
    pub copy: Option<CopyMode>,
    pending: Option<PendingSplit>,
    pending_template: Option<PendingTemplate>,
    preselect: Option<Direction>,
    sent_view: Option<Vec<String>>,
    sent_sizes: HashMap<String, (u16, u16)>,
    last_paste: Option<(String, Vec<u8>)>,
    /// Buttons held at the last mouse report (MouseButtons bits).
    buttons: u8,
    drag: Option<Drag>,
    /// The window a press inside its content went to, so its drag and release follow.
    mouse_capture: Option<String>,
    /// The last click on a window's content in window-management mode, for
    /// `appearance.click_to_type = double`.
    last_content_click: Option<(String, Instant)>,
    /// The last keys pressed, shown in the dock when `debug.show_key_events` is on.
    pub keycast: VecDeque<String>,
    /// Operations to send, in order.
    pub out: Vec<ClientOp>,
    /// Text to put on the outer terminal's clipboard (OSC 52).
    pub clipboard: Vec<String>,
    /// The user's link policy (scheme allowlist, opener); only the policy file sets it.
    pub links: LinkPolicy,
    /// Confirmed links for the run loop to hand to the opener.
    pub open_links: Vec<String>,
    pub hits: Hits,
    pub dirty: bool,
    pub exit: Option<Exit>,
}

impl App {
    pub fn new(keys: KeyConfig, term: (u16, u16)) -> App {
        let mut themes = ThemeCache::default();
        let settings = Settings::resolve(&BTreeMap::new(), &BTreeMap::new(), &mut themes);
        let mut app = App {
            view: SessionView::default(),
            attached: false,
            screens: HashMap::new(),
            layout: Layout::default(),
            layout_seen: None,
            frames: Vec::new(),
            term,
            router: Router::new(keys.leader, keys.focus_return.clone()),
            keys,
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
            last_paste: None,
            buttons: 0,
            drag: None,
            mouse_capture: None,
            last_content_click: None,
            keycast: VecDeque::new(),
            out: Vec::new(),
            clipboard: Vec::new(),
            links: LinkPolicy::default(),
            open_links: Vec::new(),
            hits: Hits::default(),
            dirty: true,
            exit: None,
        };
        for w in app.keys.warnings.clone() {
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
    pub fn area(&self) -> Rect {
        let (tw, th) = self.term;
        let w = if self.view.width == 0 {
            tw
        } else {
            tw.min(self.view.width)
        };
        let h = if self.view.height == 0 {
            th
        } else {
            th.min(self.view.height)
        };
        Rect::new(0, 0, w, h)
    }

    /// The dock's row, when shown.
    pub fn dock_row(&self) -> Option<u16> {
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

    /// The area without the dock: the windows and the tray share it.
    pub fn below_dock(&self) -> Rect {
        let a = self.area();
        match self.dock_row() {
            Some(_) if self.settings.dock == Edge::Top => Rect::new(a.x, a.y + 1, a.w, a.h - 1),
            Some(_) => Rect::new(a.x, a.y, a.w, a.h - 1),
            None => a,
        }
    }

    /// The tray: chrome rows next to the dock for confirmations and notices, taken from the
    /// windows so that no program output is ever drawn where trust UI is.
    pub fn tray_rect(&self) -> Option<Rect> {
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
    pub fn windows_area(&self) -> Rect {
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
        let rows = super::render::tray_rows(self);
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

    pub fn bordered(&self) -> bool {
        self.settings.border.bordered()
    }

    pub fn window(&self, id: &str) -> Option<&WindowView> {
        self.view.windows.iter().find(|w| w.id == id)
    }

    pub fn focused(&self) -> Option<&WindowView> {
        let f = self.view.focused.as_deref()?;
        self.window(f)
            .filter(|w| w.workspace == self.view.current_workspace && !w.minimized)
    }

    fn focused_id(&self) -> Option<String> {
        self.focused().map(|w| w.id.clone())
    }

    pub fn mode(&self) -> Mode {
        self.router.mode
    }

    pub fn leader(&self) -> Chord {
        self.router.leader
    }

    /// Recomputes the layout and frames, and tells the daemon what changed: the layout, the
    /// windows shown, their sizes.
    fn relayout(&mut self) {
        self.tray_rows = super::render::tray_rows(self);
        // New windows are placed in the area without the tray, as every client sees it, so
        // clients agree on the tree whatever their trays show.
        let full = self.below_dock();
        let area = self.windows_area();
        let members: Vec<Member> = self
            .view
            .windows
            .iter()
            .filter(|w| !w.minimized)
            .map(|w| Member {
                id: w.id.clone(),
                workspace: w.workspace,
            })
            .collect();
        let placement = self.pending.as_ref().and_then(|p| p.placement.clone());
        let focused = self.view.focused.clone();
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
        let ws = self.view.current_workspace;
        self.frames = self.layout.frames(ws, area, focused.as_deref());
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

    // ----- daemon messages ------------------------------------------------------------------

    pub fn on_daemon(&mut self, msg: DaemonMessage) {
        match msg {
            DaemonMessage::Op(op) => self.on_op(op),
            DaemonMessage::Error { message, .. } => self.notice(NoticeLevel::Error, message),
            // Nothing else is sent to an attached client; ignore what a newer daemon may add.
            _ => {}
        }
    }

    pub fn on_op(&mut self, op: DaemonOp) {
        self.op(op);
        self.sync_tray();
    }

    fn op(&mut self, op: DaemonOp) {
        match op {
            DaemonOp::Attached { state } => {
                self.attached = true;
                self.on_state(state);
            }
            DaemonOp::State { state } => self.on_state(state),
            DaemonOp::Screen(u) => {
                if self.frames.iter().any(|f| f.id == u.window) {
                    self.screens.entry(u.window.clone()).or_default().apply(u);
                    self.dirty = true;
                }
            }
            DaemonOp::Scrollback {
                window,
                first,
                rows,
                more,
            } => {
                if let Some(c) = self.copy.as_mut().filter(|c| c.window == window) {
                    c.add_history(first, rows, more);
                    self.fetch_scrollback();
                    self.dirty = true;
                }
            }
            DaemonOp::Request { request, kind } => self.on_request(request, kind),
            DaemonOp::Notice { level, text } => self.notice(level, text),
            DaemonOp::PasteHeld {
                window,
                preview,
                one_line,
                has_controls,
            } => {
                let data = match &self.last_paste {
                    Some((w, d)) if *w == window => d.clone(),
                    _ => {
                        self.notice(
                            NoticeLevel::Warning,
                            "a paste was held, but this client did not send it; paste again",
                        );
                        return;
                    }
                };
                self.overlay = Overlay::Paste(PasteDialog {
                    window,
                    preview,
                    one_line,
                    has_controls,
                    data,
                    scroll: 0,
                });
                self.dirty = true;
            }
            DaemonOp::SessionEnded { session, reason } => {
                self.exit = Some(Exit::Ended { session, reason })
            }
            DaemonOp::Detached => self.exit = Some(Exit::Detached),
        }
    }

    fn on_state(&mut self, state: SessionView) {
        if self.view.version != 0 && state.version != 0 && state.version < self.view.version {
            return;
        }
        if let Some(json) = &state.layout {
            if self.layout_seen.as_ref() != Some(json) {
                if let Some(l) = Layout::from_json(json) {
                    self.layout = l;
                }
                self.layout_seen = Some(json.clone());
            }
        }
        let old_options = std::mem::take(&mut self.view.options);
        self.overrides
            .retain(|path, _| old_options.get(path) == state.options.get(path));
        let options_changed = old_options != state.options;
        self.view = state;
        if options_changed {
            self.resolve_settings();
        }
        self.relayout();
        self.settle_pending();
        self.settle_template();
        self.dirty = true;
    }

    fn resolve_settings(&mut self) {
        self.settings = Settings::resolve(&self.view.options, &self.overrides, &mut self.themes);
    }

    /// Answers a pending split once its window exists, or when waiting took too long.
    fn settle_pending(&mut self) {
        let Some(p) = &self.pending else {
            return;
        };
        let new = self
            .view
            .windows
            .iter()
            .find(|w| !p.known.contains(&w.id))
            .map(|w| w.id.clone());
        if let Some(id) = new {
            let p = self.pending.take().expect("checked above");
            if let Some(req) = p.request {
                let mut data = json!({"window_id": id, "direction": p.direction});
                if let Some(n) = p.name {
                    data["name"] = json!(n);
                }
                self.reply(req, Ok(Some(data)));
            }
        }
    }

    /// Timers: notices that expire, a split that waited too long. Returns when to look again.
    pub fn tick(&mut self, now: Instant) -> Option<Instant> {
        let before = self.notices.len();
        self.notices.retain(|n| n.until > now);
        if self.notices.len() != before {
            self.dirty = true;
        }
        if self.flash.as_ref().is_some_and(|(_, until)| *until <= now) {
            self.flash = None;
            self.dirty = true;
        }
        if self.pending.as_ref().is_some_and(|p| p.deadline <= now) {
            let p = self.pending.take().expect("checked above");
            if let Some(req) = p.request {
                self.reply(req, Ok(Some(json!({"direction": p.direction}))));
            }
        }
        let mut next: Option<Instant> = None;
        let mut consider = |t: Instant| next = Some(next.map_or(t, |n: Instant| n.min(t)));
        self.notices.iter().for_each(|n| consider(n.until));
        if let Some((_, t)) = &self.flash {
            consider(*t);
        }
        if let Some(p) = &self.pending {
            consider(p.deadline);
        }
        if self
            .pending_template
            .as_ref()
            .is_some_and(|p| p.deadline <= now)
        {
            let p = self.pending_template.take().expect("checked above");
            let arrived = self.template_windows(&p).len();
            let message = format!(
                "LoadLayout {}: only {arrived} of the {} windows it needs exist after {} s",
                p.name,
                p.template.windows.len(),
                SPLIT_WAIT.as_secs()
            );
            match p.request {
                Some(req) => self.reply(req, Err(message)),
                None => self.notice(NoticeLevel::Error, message),
            }
        }
        if let Some(p) = &self.pending_template {
            consider(p.deadline);
        }
        self.sync_tray();
        next
    }

    pub fn notice(&mut self, level: NoticeLevel, text: impl Into<String>) {
        let until = Instant::now() + Duration::from_secs(self.settings.notice_secs_for(level));
        self.notices.push(Notice {
            level,
            text: text.into(),
            until,
        });
        // A burst of notices keeps only the latest few on screen.
        if self.notices.len() > 5 {
            self.notices.remove(0);
        }
        self.dirty = true;
        self.sync_tray();
    }

    fn flash(&mut self, text: impl Into<String>) {
        self.flash_for(text, FLASH);
    }

    fn flash_for(&mut self, text: impl Into<String>, shown: Duration) {
        self.flash = Some((text.into(), Instant::now() + shown));
        self.dirty = true;
    }

    /// The line a first attach shows: keys go to the program, and which key reaches tuios.
    pub fn first_run_hint(&mut self) {
        let leader = self.leader().label();
        self.flash_for(
            format!("keys go to the program · {leader} ? help · {leader} Esc: windows"),
            FIRST_RUN_HINT,
        );
    }

    fn reply(&mut self, request: u64, result: Result<Option<Value>, String>) {
        let op = match result {
            Ok(data) => ClientOp::Reply {
                request,
                ok: true,
                message: String::new(),
                data: data.map(|d| d.to_string()),
            },
            Err(message) => ClientOp::Reply {
                request,
                ok: false,
                message,
                data: None,
            },
        };
        self.out.push(op);
    }

    fn command(&mut self, name: &str, args: &[&str]) {
        self.out.push(ClientOp::Command {
            name: name.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
        });
    }

    /// Bytes for a window, merged with the previous operation when that was input for the same
    /// window, so a burst of keys is one write.
    fn input(&mut self, window: &str, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if let Some(ClientOp::Input { window: w, data }) = self.out.last_mut() {
            if w == window {
                data.extend_from_slice(bytes);
                return;
            }
        }
        self.out.push(ClientOp::Input {
            window: window.to_string(),
            data: bytes.to_vec(),
        });
    }

    // ----- terminal input -------------------------------------------------------------------

    pub fn on_resize(&mut self, cols: u16, rows: u16) {
        self.term = (cols, rows);
        self.out.push(ClientOp::Resize {
            width: cols,
            height: rows,
        });
        self.relayout();
        self.dirty = true;
    }

    pub fn on_input(&mut self, ev: InputEvent) {
        match ev {
            InputEvent::Key(k) => self.on_key(k),
            InputEvent::Mouse(m) => self.on_mouse(m),
            InputEvent::Paste(text) => self.on_paste(text),
            InputEvent::Resized { cols, rows } => self.on_resize(
                cols.min(u16::MAX as usize) as u16,
                rows.min(u16::MAX as usize) as u16,
            ),
            InputEvent::PixelMouse(_) | InputEvent::Wake => {}
        }
        self.sync_tray();
    }

    fn is_focus_return(&self, ev: &KeyEvent) -> bool {
        self.router.focus_return.iter().any(|c| c.matches(ev))
    }

    pub fn on_key(&mut self, ev: KeyEvent) {
        if self.settings.show_key_events {
            let label = super::keys::Chord::new(ev.key, normalize_mods(ev.modifiers)).label();
            self.keycast.push_back(label);
            while self.keycast.len() > KEYCAST_KEYS {
                self.keycast.pop_front();
            }
        }
        self.key(ev);
        self.sync_tray();
    }

    fn key(&mut self, ev: KeyEvent) {
        let was_dirty = self.dirty;
        self.dirty = true;
        // The focus-return chord comes before any dialog, binding or window.
        if self.is_focus_return(&ev) {
            self.router.route(&ev);
            if matches!(self.overlay, Overlay::Prompt(_) | Overlay::Help) {
                self.overlay = Overlay::None;
            }
            self.flash("window management mode");
            return;
        }
        if self.overlay != Overlay::None {
            self.overlay_key(&ev);
            return;
        }
        if let Some(copy) = &mut self.copy {
            match copy.key(&ev) {
                Outcome::Stay => self.fetch_scrollback(),
                Outcome::Exit => self.copy = None,
                Outcome::Yank(text) => {
                    self.copy = None;
                    self.yank(text);
                }
            }
            return;
        }
        match self.router.route(&ev) {
            Route::FocusReturn => {}
            Route::Action(a) => self.action(a),
            Route::Window(ev) => {
                // A key typed into a window changes nothing on screen until the window echoes
                // it, and that screen update redraws: no frame spent (and no delay) before it.
                self.dirty = was_dirty;
                self.key_to_window(None, &ev);
            }
            Route::LeaderArmed | Route::MovePending => {}
            // Escape with nothing to cancel is not worth a complaint.
            Route::Unbound(KeyEvent {
                key: KeyCode::Escape,
                ..
            }) => {}
            Route::Unbound(ev) => {
                let chord = Chord::new(ev.key, normalize_mods(ev.modifiers)).label();
                let leader = self.leader().label();
                self.flash(format!("{chord} is not bound; {leader} ? lists the keys"));
            }
        }
    }

    fn key_to_window(&mut self, target: Option<&str>, ev: &KeyEvent) {
        let id = match target {
            Some(t) => Some(t.to_string()),
            None => self.focused_id(),
        };
        let Some(id) = id else {
            self.flash("no window to type into; c opens one");
            return;
        };
        let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
        let bytes = encode_key(ev.key, ev.modifiers, &modes);
        self.input(&id, &bytes);
    }

    fn overlay_key(&mut self, ev: &KeyEvent) {
        let mods = normalize_mods(ev.modifiers);
        match &mut self.overlay {
            Overlay::None => {}
            Overlay::Help => self.overlay = Overlay::None,
            Overlay::Confirm { .. } => {
                self.confirm(matches!(ev.key, KeyCode::Char('y') | KeyCode::Char('Y')))
            }
            Overlay::Prompt(p) => match ev.key {
                KeyCode::Escape => self.overlay = Overlay::None,
                KeyCode::Char('c') | KeyCode::Char('g') if mods == Modifiers::CTRL => {
                    self.overlay = Overlay::None
                }
                KeyCode::Char('u') if mods == Modifiers::CTRL => p.buffer.clear(),
                KeyCode::Backspace => {
                    p.buffer.pop();
                }
                KeyCode::Enter => {
                    let p = p.clone();
                    self.overlay = Overlay::None;
                    self.submit_prompt(p);
                }
                KeyCode::Char(c) if !c.is_control() && (mods - Modifiers::SHIFT).is_empty() => {
                    p.buffer.push(c)
                }
                _ => {}
            },
            Overlay::Link(d) => {
                let choice = match ev.key {
                    KeyCode::Char('o') | KeyCode::Char('O') => Some("open"),
                    KeyCode::Char('c') | KeyCode::Char('C') => Some("copy"),
                    KeyCode::Escape | KeyCode::Char('n') | KeyCode::Char('q') => Some(""),
                    KeyCode::UpArrow => {
                        d.scroll = d.scroll.saturating_sub(1);
                        None
                    }
                    KeyCode::DownArrow => {
                        d.scroll += 1;
                        None
                    }
                    _ => None,
                };
                if let Some(choice) = choice {
                    self.link_choice(choice);
                }
            }
            Overlay::Paste(d) => {
                let choice = match ev.key {
                    KeyCode::Char('p') | KeyCode::Char('P') => Some("send"),
                    KeyCode::Char('o') | KeyCode::Char('O') => Some("one-line"),
                    KeyCode::Char('k') | KeyCode::Char('K') if d.has_controls => {
                        Some("keep-controls")
                    }
                    KeyCode::Escape | KeyCode::Char('c') | KeyCode::Char('n') => Some(""),
                    KeyCode::UpArrow => {
                        d.scroll = d.scroll.saturating_sub(1);
                        None
                    }
                    KeyCode::DownArrow => {
                        d.scroll += 1;
                        None
                    }
                    KeyCode::PageUp => {
                        d.scroll = d.scroll.saturating_sub(10);
                        None
                    }
                    KeyCode::PageDown => {
                        d.scroll += 10;
                        None
                    }
                    _ => None,
                };
                if let Some(choice) = choice {
                    self.paste_choice(choice);
                }
            }
        }
    }

    /// Closes the yes/no question; runs its action on yes.
    fn confirm(&mut self, yes: bool) {
        let Overlay::Confirm { yes: action, .. } =
            std::mem::replace(&mut self.overlay, Overlay::None)
        else {
            return;
        };
        if yes {
            match action {
                Confirmed::Close(id) => self.command("CloseWindow", &[&id]),
            }
        }
    }

    /// A click on a linked cell: refused with a notice unless the policy allows its scheme,
    /// else the confirmation opens. Nothing is opened or copied without the user's answer.
    fn activate_link(&mut self, url: String) {
        if let Err(why) = protocol::lumen::link_allowed(&url, &self.links.schemes) {
            let path = config::options::policy_file_path();
            self.notice(
                NoticeLevel::Warning,
                format!(
                    "{why}; allowed: {} (set [links] schemes in {})",
                    self.links.schemes.join(", "),
                    path.display()
                ),
            );
            return;
        }
        let shown = protocol::lumen::escape_url_for_display(&url);
        self.overlay = Overlay::Link(LinkDialog {
            url,
            shown,
            scroll: 0,
        });
    }

    fn link_choice(&mut self, choice: &str) {
        let Overlay::Link(d) = std::mem::replace(&mut self.overlay, Overlay::None) else {
            return;
        };
        match choice {
            "open" => {
                self.flash("opening the link");
                self.open_links.push(d.url);
            }
            "copy" => self.yank(d.url),
            _ => {}
        }
    }

    fn paste_choice(&mut self, choice: &str) {
        let Overlay::Paste(d) = std::mem::replace(&mut self.overlay, Overlay::None) else {
            return;
        };
        if !choice.is_empty() {
            self.out.push(ClientOp::Paste {
                window: d.window,
                data: d.data,
                choice: choice.to_string(),
            });
        }
        self.last_paste = None;
    }

    fn submit_prompt(&mut self, p: Prompt) {
        match p.kind {
            PromptKind::Rename(id) => {
                let name = p.buffer.trim();
                if !name.is_empty() {
                    self.command("RenameWindow", &[&id, name]);
                }
            }
            PromptKind::Command => {
                let words = split_words(&p.buffer);
                let Some((name, args)) = words.split_first() else {
                    return;
                };
                match self.run_command(name, args, None) {
                    Ok(_) => {}
                    Err(e) => self.notice(NoticeLevel::Error, e),
                }
            }
        }
    }

    fn on_paste(&mut self, text: String) {
        self.dirty = true;
        match &mut self.overlay {
            Overlay::Prompt(p) => {
                // Prompts are one line: controls become spaces.
                p.buffer
                    .extend(text.chars().map(|c| if c.is_control() { ' ' } else { c }));
                return;
            }
            Overlay::None => {}
            _ => return,
        }
        if self.copy.is_some() {
            return;
        }
        let Some(id) = self.focused_id() else {
            self.flash("no window to paste into");
            return;
        };
        let data = text.into_bytes();
        self.last_paste = Some((id.clone(), data.clone()));
        self.out.push(ClientOp::Paste {
            window: id,
            data,
            choice: String::new(),
        });
    }

    // ----- actions --------------------------------------------------------------------------

    pub fn action(&mut self, a: Action) {
        self.dirty = true;
        let ws = self.view.current_workspace;
        match a {
            Action::NewWindow => {
                let placement = self.preselect.take().and_then(|d| {
                    let (axis, new_first) = d.placement();
                    self.focused_id().map(|target| Placement {
                        target,
                        axis,
                        new_first,
                    })
                });
                self.new_window(placement, None, None, String::new());
            }
            Action::SplitVertical | Action::SplitHorizontal => {
                let axis = if a == Action::SplitVertical {
                    Axis::Vertical
                } else {
                    Axis::Horizontal
                };
                let placement = self.focused_id().map(|target| Placement {
                    target,
                    axis,
                    new_first: false,
                });
                self.new_window(placement, None, None, axis.as_str().to_string());
            }
            Action::CloseWindow => {
                if let Some(w) = self.focused() {
                    let text = format!("close window {}? its program ends (y/n)", title_of(w));
                    self.overlay = Overlay::Confirm {
                        text,
                        yes: Confirmed::Close(w.id.clone()),
                    };
                }
            }
            Action::NextWindow => self.command("NextWindow", &[]),
            Action::PrevWindow => self.command("PrevWindow", &[]),
            Action::Workspace(n) => {
                if i64::from(n) <= self.view.num_workspaces.max(1) {
                    self.command("SwitchWorkspace", &[&n.to_string()]);
                }
            }
            Action::MoveToWorkspace(n) => {
                if self.focused().is_some() && i64::from(n) <= self.view.num_workspaces.max(1) {
                    self.command("MoveToWorkspace", &[&n.to_string()]);
                }
            }
            Action::MoveToWorkspacePrompt => {}
            Action::Detach => self.out.push(ClientOp::Detach),
            Action::Rename => {
                if let Some(w) = self.focused() {
                    self.overlay = Overlay::Prompt(Prompt {
                        kind: PromptKind::Rename(w.id.clone()),
                        buffer: w.display_name.clone(),
                    });
                }
            }
            Action::ToggleZoom => {
                if let Some(id) = self.focused_id() {
                    let wl = self.layout.workspace_mut(ws);
                    wl.zoomed = if wl.zoomed.as_deref() == Some(id.as_str()) {
                        None
                    } else {
                        Some(id)
                    };
                    self.push_layout();
                    self.relayout();
                }
            }
            Action::CopyMode => {
                if let Some(id) = self.focused_id() {
                    self.enter_copy(&id, false);
                }
            }
            Action::ToggleTiling => self.set_tiling(ws, None),
            Action::RotateSplit => {
                if let Some(id) = self.focused_id() {
                    if self.layout.rotate(ws, &id) {
                        self.push_layout();
                        self.relayout();
                    } else {
                        self.flash("nothing to rotate: this pane is not split");
                    }
                }
            }
            Action::Equalize => {
                self.layout.equalize(ws);
                self.push_layout();
                self.relayout();
            }
            Action::Focus(dir) => {
                if let Err(e) = self.focus_direction(dir) {
                    self.flash(e);
                }
            }
            Action::Minimize => {
                if let Some(id) = self.focused_id() {
                    self.command("MinimizeWindow", &[&id]);
                    // The daemon leaves focus on the minimized window; hand it to a visible one.
                    let next = self
                        .frames
                        .iter()
                        .rfind(|f| f.id != id)
                        .map(|f| f.id.clone());
                    if let Some(next) = next {
                        self.focus(&next);
                    }
                }
            }
            Action::RestoreMinimized => {
                let last = self
                    .view
                    .windows
                    .iter()
                    .rev()
                    .find(|w| w.workspace == ws && w.minimized)
                    .map(|w| w.id.clone());
                match last {
                    Some(id) => {
                        self.command("RestoreWindow", &[&id]);
                        self.command("FocusWindow", &[&id]);
                    }
                    None => self.flash("no minimized windows on this workspace"),
                }
            }
            Action::Help => self.overlay = Overlay::Help,
            Action::CommandPrompt => {
                self.overlay = Overlay::Prompt(Prompt {
                    kind: PromptKind::Command,
                    buffer: String::new(),
                })
            }
            Action::TerminalMode => {
                self.router.mode = Mode::Terminal;
                if self.focused().is_none() {
                    self.flash("no window here yet; c opens one");
                }
            }
            Action::WindowManagementMode => self.router.mode = Mode::WindowManagement,
            Action::SendLeader => {
                let ev = self.leader().event();
                self.key_to_window(None, &ev);
            }
        }
    }

    /// Asks the daemon for a window, to be placed per `placement` when it appears.
    fn new_window(
        &mut self,
        placement: Option<Placement>,
        name: Option<String>,
        request: Option<u64>,
        direction: String,
    ) {
        if let Some(old) = self.pending.take() {
            if let Some(req) = old.request {
                self.reply(req, Ok(Some(json!({"direction": old.direction}))));
            }
        }
        self.pending = Some(PendingSplit {
            placement,
            known: self.view.windows.iter().map(|w| w.id.clone()).collect(),
            request,
            direction,
            name: name.clone(),
            deadline: Instant::now() + SPLIT_WAIT,
        });
        match &name {
            Some(n) => self.command("NewWindow", &[n]),
            None => self.command("NewWindow", &[]),
        }
    }

    fn set_tiling(&mut self, ws: i64, on: Option<bool>) {
        let wl = self.layout.workspace_mut(ws);
        let on = on.unwrap_or(!wl.tiling);
        if wl.tiling != on {
            wl.tiling = on;
            self.push_layout();
            self.relayout();
        }
        self.flash(if on { "tiling" } else { "floating" });
    }

    fn focus_direction(&mut self, dir: Direction) -> Result<String, String> {
        let from = self
            .focused_id()
            .ok_or_else(|| "no window is focused on this workspace".to_string())?;
        let to = neighbour(&self.frames, &from, dir)
            .ok_or_else(|| format!("no window to the {}", dir.as_str()))?;
        self.focus(&to);
        Ok(to)
    }

    fn focus(&mut self, id: &str) {
        if self.view.focused.as_deref() != Some(id) {
            // Shown at once; the daemon's state confirms it.
            self.view.focused = Some(id.to_string());
            self.command("FocusWindow", &[id]);
            self.relayout();
        }
    }

    fn enter_copy(&mut self, id: &str, via_wheel: bool) {
        let bordered = self.bordered();
        let Some(f) = self.frames.iter().find(|f| f.id == id) else {
            return;
        };
        let c = content_rect(f.rect, bordered);
        let screen = self.screens.get(id).cloned().unwrap_or_default();
        let cursor = (usize::from(screen.cursor.0), usize::from(screen.cursor.1));
        self.copy = Some(CopyMode::new(
            id,
            screen.lines,
            cursor,
            usize::from(c.w),
            usize::from(c.h),
            via_wheel,
        ));
        self.fetch_scrollback();
        self.dirty = true;
    }

    fn fetch_scrollback(&mut self) {
        if let Some(op) = self.copy.as_mut().and_then(CopyMode::wanted) {
            self.out.push(op);
        }
    }

    fn yank(&mut self, text: String) {
        if text.is_empty() {
            self.flash("nothing to copy");
            return;
        }
        let n = text.chars().count();
        self.clipboard.push(text);
        self.flash(format!("copied {n} characters to the clipboard"));
    }

    // ----- mouse ----------------------------------------------------------------------------

    fn on_mouse(&mut self, m: MouseEvent) {
        // Reports are 1-based.
        let (x, y) = (m.x.saturating_sub(1), m.y.saturating_sub(1));
        let b = m.mouse_buttons.bits();
        if b & MouseButtons::VERT_WHEEL.bits() != 0 {
            let up = b & MouseButtons::WHEEL_POSITIVE.bits() != 0;
            self.on_wheel(x, y, up, m.modifiers);
            return;
        }
        let held = b & BUTTON_BITS;
        let prev = std::mem::replace(&mut self.buttons, held);
        let buttons = [
            (MouseButtons::LEFT.bits(), 0u8),
            (MouseButtons::MIDDLE.bits(), 1),
            (MouseButtons::RIGHT.bits(), 2),
        ];
        let find =
            |test: &dyn Fn(u8) -> bool| buttons.iter().find(|(bit, _)| test(*bit)).map(|p| p.1);
        if let Some(n) = find(&|bit| held & bit != 0 && prev & bit == 0) {
            self.on_press(x, y, n, m.modifiers);
        } else if let Some(n) = find(&|bit| held & bit == 0 && prev & bit != 0) {
            self.on_release(x, y, n, m.modifiers);
        } else if let Some(n) = find(&|bit| held & bit != 0) {
            self.on_drag(x, y, n, m.modifiers);
        }
    }

    fn on_wheel(&mut self, x: u16, y: u16, up: bool, mods: Modifiers) {
        let bordered = self.bordered();
        let Some((i, Part::Content { col, row })) = hit(
            &self.frames,
            x,
            y,
            bordered,
            self.settings.title != Edge::Bottom,
        ) else {
            return;
        };
        let id = self.frames[i].id.clone();
        if self.copy.as_ref().is_some_and(|c| c.window == id) {
            self.scroll_copy(up);
            return;
        }
        if self.overlay != Overlay::None {
            return;
        }
        let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
        if modes.mouse {
            let action = if up {
                MouseAction::WheelUp
            } else {
                MouseAction::WheelDown
            };
            let bytes = encode_mouse(action, col, row, mods, modes.sgr_mouse);
            self.input(&id, &bytes);
        } else if modes.alt_screen {
            // Full-screen programs without mouse reporting get arrow keys, as terminals do.
            let key = if up {
                KeyCode::UpArrow
            } else {
                KeyCode::DownArrow
            };
            for _ in 0..self.settings.scroll_lines {
                let bytes = encode_key(key, Modifiers::NONE, &modes);
                self.input(&id, &bytes);
            }
        } else if up {
            self.focus(&id);
            self.enter_copy(&id, true);
            self.scroll_copy(true);
        }
    }

    fn scroll_copy(&mut self, up: bool) {
        let n = isize::from(self.settings.scroll_lines as i16);
        if let Some(c) = &mut self.copy {
            if c.scroll(if up { -n } else { n }) == Outcome::Exit {
                self.copy = None;
            }
        }
        self.fetch_scrollback();
        self.dirty = true;
    }

    fn on_press(&mut self, x: u16, y: u16, button: u8, mods: Modifiers) {
        self.dirty = true;
        if let Some(t) = self
            .hits
            .targets
            .iter()
            .rev()
            .find(|(r, _)| r.contains(x, y))
            .map(|(_, t)| t.clone())
        {
            if button == 0 {
                self.click_target(t);
            }
            return;
        }
        if self.overlay != Overlay::None {
            // Clicks outside a dialog do nothing; it wants an answer.
            return;
        }
        let ws = self.view.current_workspace;
        let bordered = self.bordered();
        let title_top = self.settings.title != Edge::Bottom;
        if button == 0 && self.layout.tiling(ws) && bordered {
            if let Some(tree) = self.layout.workspace(ws).and_then(|w| w.tree.clone()) {
                let zoomed = self.layout.workspace(ws).and_then(|w| w.zoomed.clone());
                let content_hit = matches!(
                    hit(&self.frames, x, y, bordered, title_top),
                    Some((_, Part::Content { .. }))
                );
                if zoomed.is_none() && !content_hit {
                    if let Some(handle) = split_handle_at(&tree, self.windows_area(), x, y) {
                        self.drag = Some(Drag::Split { ws, handle });
                        return;
                    }
                }
            }
        }
        let Some((i, part)) = hit(&self.frames, x, y, bordered, title_top) else {
            return;
        };
        let id = self.frames[i].id.clone();
        match part {
            // appearance.alt_drag: alt plus a left drag anywhere on a floating window moves it,
            // as a drag on its title does; the program does not see that click.
            Part::Content { .. }
                if button == 0
                    && self.settings.alt_drag
                    && normalize_mods(mods).contains(Modifiers::ALT)
                    && !self.layout.tiling(ws) =>
            {
                self.focus(&id);
                let start = self.frames[i].rect;
                self.drag = Some(Drag::Move {
                    ws,
                    id,
                    grab: (x, y),
                    start,
                });
            }
            Part::Content { col, row } => {
                let was_focused = self.view.focused.as_deref() == Some(id.as_str());
                if self.copy.as_ref().is_some_and(|c| c.window != id) {
                    self.copy = None;
                }
                let wm = self.router.mode == Mode::WindowManagement;
                self.focus(&id);
                if self.copy.is_some() {
                    return;
                }
                // Ctrl+click, or any left click in window management mode, on a linked cell
                // asks to open the link; the program does not see that click.
                if button == 0 && (wm || normalize_mods(mods).contains(Modifiers::CTRL)) {
                    let url = self
                        .screens
                        .get(&id)
                        .and_then(|s| s.lines.get(usize::from(row)))
                        .and_then(|r| link_at(r, col))
                        .map(str::to_owned);
                    if let Some(url) = url {
                        self.activate_link(url);
                        return;
                    }
                }
                let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
                if was_focused && modes.mouse && self.router.mode == Mode::Terminal {
                    let bytes =
                        encode_mouse(MouseAction::Press(button), col, row, mods, modes.sgr_mouse);
                    self.input(&id, &bytes);
                    self.mouse_capture = Some(id.clone());
                }
                // appearance.click_to_type: what a click on content does in window management.
                let enter = match self.settings.click_to_type.as_str() {
                    "off" => false,
                    "double" => {
                        let now = Instant::now();
                        let again = self.last_content_click.as_ref().is_some_and(|(w, at)| {
                            *w == id && now.duration_since(*at) <= DOUBLE_CLICK
                        });
                        self.last_content_click = (!again).then(|| (id.clone(), now));
                        again
                    }
                    _ => true,
                };
                if !wm || enter {
                    self.router.mode = Mode::Terminal;
                }
            }
            Part::Title | Part::Border => {
                self.focus(&id);
                if button == 0 && part == Part::Title && !self.layout.tiling(ws) {
                    let start = self.frames[i].rect;
                    self.drag = Some(Drag::Move {
                        ws,
                        id,
                        grab: (x, y),
                        start,
                    });
                }
            }
        }
    }

    fn on_drag(&mut self, x: u16, y: u16, button: u8, mods: Modifiers) {
        match self.drag.clone() {
            Some(Drag::Split { ws, handle }) => {
                if self
                    .layout
                    .set_ratio(ws, &handle.path, handle.ratio_at(x, y))
                {
                    self.relayout();
                    self.dirty = true;
                }
            }
            Some(Drag::Move {
                ws,
                id,
                grab,
                start,
            }) => {
                let area = self.windows_area();
                let nx = i32::from(start.x) + i32::from(x) - i32::from(grab.0);
                let ny = i32::from(start.y) + i32::from(y) - i32::from(grab.1);
                let moved = Rect::new(
                    nx.clamp(0, i32::from(u16::MAX)) as u16,
                    ny.clamp(0, i32::from(u16::MAX)) as u16,
                    start.w,
                    start.h,
                )
                .clamped_to(area);
                let wl = self.layout.workspace_mut(ws);
                if wl.floating.get(&id) != Some(&moved) {
                    wl.floating.insert(id, moved);
                    self.relayout();
                    self.dirty = true;
                }
            }
            None => self.mouse_to_capture(x, y, MouseAction::Drag(button), mods),
        }
    }

    fn on_release(&mut self, x: u16, y: u16, button: u8, mods: Modifiers) {
        if self.drag.take().is_some() {
            self.push_layout();
            return;
        }
        self.mouse_to_capture(x, y, MouseAction::Release(button), mods);
        self.mouse_capture = None;
    }

    /// Drag and release go to the window the press went to, clamped to its content.
    fn mouse_to_capture(&mut self, x: u16, y: u16, action: MouseAction, mods: Modifiers) {
        let Some(id) = self.mouse_capture.clone() else {
            return;
        };
        let bordered = self.bordered();
        let Some(f) = self.frames.iter().find(|f| f.id == id) else {
            return;
        };
        let c = content_rect(f.rect, bordered);
        if c.is_empty() {
            return;
        }
        let col = x.clamp(c.x, c.right() - 1) - c.x;
        let row = y.clamp(c.y, c.bottom() - 1) - c.y;
        let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
        if modes.mouse {
            let bytes = encode_mouse(action, col, row, mods, modes.sgr_mouse);
            self.input(&id, &bytes);
        }
    }

    fn click_target(&mut self, t: Target) {
        match t {
            Target::Workspace(n) => {
                if n != self.view.current_workspace {
                    self.command("SwitchWorkspace", &[&n.to_string()]);
                }
            }
            Target::Window(id) => {
                if self.window(&id).is_some_and(|w| w.minimized) {
                    self.command("RestoreWindow", &[&id]);
                    self.command("FocusWindow", &[&id]);
                } else {
                    self.focus(&id);
                }
            }
            Target::PasteChoice(c) => self.paste_choice(c),
            Target::LinkChoice(c) => self.link_choice(c),
            Target::Confirm(yes) => self.confirm(yes),
        }
    }

    // ----- routed requests ------------------------------------------------------------------

    pub fn on_request(&mut self, request: u64, kind: RoutedRequest) {
        self.request(request, kind);
        self.sync_tray();
    }

    fn request(&mut self, request: u64, kind: RoutedRequest) {
        self.dirty = true;
        let result = match kind {
            RoutedRequest::Split {
                window,
                direction,
                name,
            } => match self.split(window.as_deref(), &direction, name, Some(request)) {
                Ok(()) => return,
                Err(e) => Err(e),
            },
            RoutedRequest::Layout {
                tiling,
                equalize,
                rotate,
            } => self.apply_layout(tiling, equalize, rotate),
            RoutedRequest::FocusDirection { direction } => match Direction::parse(&direction) {
                Some(d) => self
                    .focus_direction(d)
                    .map(|id| Some(json!({"window_id": id, "direction": d.as_str()}))),
                None => Err(format!(
                    "{direction:?} is not a direction; use left, right, up or down"
                )),
            },
            RoutedRequest::Command { name, args } => {
                match self.run_command(&name, &args, Some(request)) {
                    Ok(Some(data)) => Ok(Some(data)),
                    Ok(None) => return,
                    Err(e) => Err(e),
                }
            }
            RoutedRequest::SendKeys {
                window,
                keys,
                literal,
                raw,
            } => self.send_keys(window.as_deref(), &keys, literal, raw),
            RoutedRequest::SetOption { path, value } => self.set_option(&path, &value, false),
        };
        self.reply(request, result);
    }

    /// A window by id, unique id prefix, index on its workspace (1-based), or exact name.
    pub fn resolve_window(&self, target: &str) -> Option<String> {
        let t = target.trim();
        if t.is_empty() {
            return self.focused_id();
        }
        let ws = &self.view.windows;
        if let Some(w) = ws.iter().find(|w| w.id == t) {
            return Some(w.id.clone());
        }
        let prefixed: Vec<&WindowView> = ws.iter().filter(|w| w.id.starts_with(t)).collect();
        if prefixed.len() == 1 {
            return Some(prefixed[0].id.clone());
        }
        if let Ok(n) = t.parse::<usize>() {
            let on_ws: Vec<&WindowView> = ws
                .iter()
                .filter(|w| w.workspace == self.view.current_workspace)
                .collect();
            if n >= 1 && n <= on_ws.len() {
                return Some(on_ws[n - 1].id.clone());
            }
        }
        ws.iter()
            .find(|w| w.display_name == t)
            .or_else(|| ws.iter().find(|w| w.title == t))
            .map(|w| w.id.clone())
    }

    fn split(
        &mut self,
        window: Option<&str>,
        direction: &str,
        name: Option<String>,
        request: Option<u64>,
    ) -> Result<(), String> {
        let axis = Axis::parse(direction).ok_or_else(|| {
            format!("{direction:?} is not a split direction; use horizontal or vertical")
        })?;
        let target = match window {
            Some(t) => self
                .resolve_window(t)
                .ok_or_else(|| format!("no window matches {t:?}"))?,
            None => self
                .focused_id()
                .ok_or_else(|| "no window is focused on this workspace".to_string())?,
        };
        let ws = self
            .window(&target)
            .map(|w| w.workspace)
            .unwrap_or(self.view.current_workspace);
        if !self.layout.tiling(ws) {
            return Err(
                "tiling is off on that workspace; turn it on first (set-layout tiling=true, or run-command EnableTiling)"
                    .into(),
            );
        }
        self.focus(&target);
        let placement = Placement {
            target,
            axis,
            new_first: false,
        };
        self.new_window(Some(placement), name, request, axis.as_str().to_string());
        Ok(())
    }

    fn apply_layout(
        &mut self,
        tiling: Option<bool>,
        equalize: bool,
        rotate: bool,
    ) -> Result<Option<Value>, String> {
        let ws = self.view.current_workspace;
        if let Some(on) = tiling {
            self.set_tiling(ws, Some(on));
        }
        if rotate {
            if !self.layout.tiling(ws) {
                return Err("rotate needs tiling on this workspace".into());
            }
            let id = self
                .focused_id()
                .ok_or_else(|| "no window is focused on this workspace".to_string())?;
            if !self.layout.rotate(ws, &id) {
                return Err("the focused pane is not split, so there is nothing to rotate".into());
            }
        }
        if equalize {
            if !self.layout.tiling(ws) {
                return Err("equalize needs tiling on this workspace".into());
            }
            self.layout.equalize(ws);
        }
        self.push_layout();
        self.relayout();
        Ok(Some(self.layout_info(ws)))
    }

    fn layout_info(&self, ws: i64) -> Value {
        let tiling = self.layout.tiling(ws);
        json!({
            "tiling_mode": if tiling { "tiling" } else { "floating" },
            "layout_mode": "bsp",
            "master_ratio": 0.5,
        })
    }

    fn send_keys(
        &mut self,
        window: Option<&str>,
        keys: &str,
        literal: bool,
        raw: bool,
    ) -> Result<Option<Value>, String> {
        let target = match window {
            Some(t) if !t.is_empty() => Some(
                self.resolve_window(t)
                    .ok_or_else(|| format!("no window matches {t:?}"))?,
            ),
            _ => None,
        };
        if literal {
            let id = target
                .or_else(|| self.focused_id())
                .ok_or_else(|| "no window is focused on this workspace".to_string())?;
            self.input(&id, keys.as_bytes());
            return Ok(Some(json!({"window_id": id})));
        }
        let events = token_events(keys, raw, self.leader())?;
        // Keys are typed into the window as in terminal mode, whatever mode the user left the
        // client in; the leader still reaches the bindings.
        let saved = self.router.mode;
        self.router.mode = Mode::Terminal;
        for ev in events {
            match self.router.route(&ev) {
                Route::Window(ev) => self.key_to_window(target.as_deref(), &ev),
                Route::Action(a) => {
                    self.action(a);
                    if matches!(a, Action::TerminalMode | Action::WindowManagementMode) {
                        continue;
                    }
                }
                _ => {}
            }
            self.router.mode = Mode::Terminal;
        }
        self.router.mode = saved;
        Ok(None)
    }

    /// Applies an option; `local` keeps it in this client only (SetConfig and friends).
    fn set_option(
        &mut self,
        path: &str,
        value: &str,
        local: bool,
    ) -> Result<Option<Value>, String> {
        let spec =
            config::options::resolve(path).ok_or_else(|| {
                match config::options::did_you_mean(path) {
                    Some(d) => format!("no option called {path:?}; did you mean {d}?"),
                    None => format!("no option called {path:?}"),
                }
            })?;
        let registry = config::themes::ThemeRegistry::load(&config::themes::themes_dir());
        let v = config::options::validate_value(spec, value, &registry).map_err(|e| e.message)?;
        if local {
            self.overrides.insert(spec.path.to_string(), v.clone());
        } else {
            self.overrides.remove(spec.path);
            self.view.options.insert(spec.path.to_string(), v.clone());
        }
        if spec.path == "appearance.theme" {
            // Read the theme again: it may have been saved a moment ago.
            self.themes.exists(&v);
        }
        self.resolve_settings();
        self.relayout();
        self.dirty = true;
        Ok(Some(json!({"key": spec.path, "value": v})))
    }

    /// The shown windows of a workspace, in session order.
    fn workspace_windows(&self, ws: i64) -> Vec<String> {
        self.view
            .windows
            .iter()
            .filter(|w| w.workspace == ws && !w.minimized)
            .map(|w| w.id.clone())
            .collect()
    }

    /// `SaveLayout <name>`: the current workspace as a template file.
    fn save_layout(&mut self, name: &str) -> Result<Value, String> {
        let name = protocol::commands::layout_name(name).map_err(|e| e.message)?;
        let ws = self.view.current_workspace;
        let ids = self.workspace_windows(ws);
        if ids.is_empty() {
            return Err(format!(
                "workspace {ws} shows no windows, so there is no layout to save"
            ));
        }
        let wl = self.layout.workspace(ws).cloned().unwrap_or_default();
        let slots: Vec<(String, Option<String>)> = templates::slot_order(Some(&wl), &ids)
            .into_iter()
            .map(|id| {
                // The session view carries no separate custom name, so the daemon's default
                // title ("Terminal <id>") is what marks a window nobody named.
                let name = self
                    .window(&id)
                    .map(|w| w.display_name.clone())
                    .filter(|n| {
                        !n.is_empty() && *n != format!("Terminal {}", &id[..id.len().min(8)])
                    });
                (id, name)
            })
            .collect();
        let template = templates::capture(&wl, &slots);
        let dir = templates::layouts_dir()?;
        let path = templates::save(&dir, name, &template)?;
        Ok(json!({
            "layout": name,
            "path": path.display().to_string(),
            "windows": slots.len(),
            "tiling": wl.tiling,
        }))
    }

    /// `LoadLayout <name>`: the current workspace arranged as the template says. Windows it
    /// lacks are opened first (with the template's names) and the answer waits for them.
    fn load_layout(&mut self, name: &str, request: Option<u64>) -> Result<Option<Value>, String> {
        let name = protocol::commands::layout_name(name).map_err(|e| e.message)?;
        let template = templates::load(&templates::layouts_dir()?, name)?;
        let ws = self.view.current_workspace;
        let existing =
            templates::slot_order(self.layout.workspace(ws), &self.workspace_windows(ws));
        let missing = template.windows.len().saturating_sub(existing.len());
        let p = PendingTemplate {
            name: name.to_string(),
            workspace: ws,
            known: self.view.windows.iter().map(|w| w.id.clone()).collect(),
            existing,
            opened: missing,
            template,
            request,
            deadline: Instant::now() + SPLIT_WAIT,
        };
        if missing == 0 {
            return Ok(Some(self.apply_template(&p)));
        }
        for slot in p.existing.len()..p.template.windows.len() {
            match p.template.windows[slot].name.clone() {
                Some(n) => self.command("NewWindow", &[&n]),
                None => self.command("NewWindow", &[]),
            }
        }
        if let Some(old) = self.pending_template.replace(p) {
            if let Some(req) = old.request {
                self.reply(
                    req,
                    Err(format!(
                        "LoadLayout {} was replaced by another LoadLayout",
                        old.name
                    )),
                );
            }
        }
        Ok(if request.is_some() {
            None
        } else {
            Some(json!({"layout": name}))
        })
    }

    /// The windows a pending template maps onto: the ones it started with that still exist,
    /// then the new ones in session order.
    fn template_windows(&self, p: &PendingTemplate) -> Vec<String> {
        let now = self.workspace_windows(p.workspace);
        let mut ids: Vec<String> = p
            .existing
            .iter()
            .filter(|id| now.contains(id))
            .cloned()
            .collect();
        ids.extend(now.into_iter().filter(|id| !p.known.contains(id)));
        ids
    }

    fn apply_template(&mut self, p: &PendingTemplate) -> Value {
        let ids = self.template_windows(p);
        *self.layout.workspace_mut(p.workspace) = templates::apply(&p.template, &ids);
        // Windows beyond the template's slots are placed by the reconcile, as new ones are.
        self.relayout();
        self.push_layout();
        json!({
            "layout": p.name,
            "windows": ids.len(),
            "slots": p.template.windows.len(),
            "opened": p.opened,
            "tiling": p.template.tiling,
        })
    }

    /// Applies a pending template once every window it opened is there.
    fn settle_template(&mut self) {
        let Some(p) = &self.pending_template else {
            return;
        };
        if self.template_windows(p).len() < p.template.windows.len() {
            return;
        }
        let p = self.pending_template.take().expect("checked above");
        let data = self.apply_template(&p);
        if let Some(req) = p.request {
            self.reply(req, Ok(Some(data)));
        }
    }

    /// Runs a client-side command of the run-command vocabulary. `Ok(None)`: the answer comes
    /// later (a split waiting for its window).
    pub fn run_command(
        &mut self,
        name: &str,
        args: &[String],
        request: Option<u64>,
    ) -> Result<Option<Value>, String> {
        protocol::commands::check(name, args).map_err(|e| e.message)?;
        let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
        let ws = self.view.current_workspace;
        let count = || -> Result<usize, String> {
            match args.first() {
                None => Ok(1),
                Some(a) => a
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or_else(|| format!("{name}: {a:?} is not a count from 1 to 1000")),
            }
        };
        let needs_tiling = |app: &App| -> Result<(), String> {
            if app.layout.tiling(ws) {
                Ok(())
            } else {
                Err("tiling is not enabled; run EnableTiling before this command".into())
            }
        };
        let done = Ok(Some(json!({})));
        match name {
            // Daemon-side commands, passed through when routed here.
            "NewWindow"
            | "CloseWindow"
            | "NextWindow"
            | "PrevWindow"
            | "FocusWindow"
            | "RenameWindow"
            | "MinimizeWindow"
            | "RestoreWindow"
            | "SwitchWorkspace"
            | "MoveToWorkspace"
            | "MoveAndFollowWorkspace" => {
                let refs: Vec<&str> = args.iter().map(String::as_str).collect();
                self.command(name, &refs);
                done
            }
            "Split" => {
                needs_tiling(self)?;
                self.split(None, arg(0), None, request)?;
                Ok(if request.is_some() {
                    None
                } else {
                    Some(json!({}))
                })
            }
            "SmartSplit" => {
                needs_tiling(self)?;
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                let rect = self
                    .frames
                    .iter()
                    .find(|f| f.id == id)
                    .map(|f| f.rect)
                    .unwrap_or_default();
                let axis = super::layout::long_axis(rect);
                self.split(None, axis.as_str(), None, request)?;
                Ok(if request.is_some() {
                    None
                } else {
                    Some(json!({}))
                })
            }
            "Preselect" => {
                let d = Direction::parse(arg(0)).ok_or_else(|| {
                    format!("Preselect: {:?} is not left, right, up or down", arg(0))
                })?;
                self.preselect = Some(d);
                done
            }
            "ToggleTiling" => {
                self.set_tiling(ws, None);
                Ok(Some(self.layout_info(ws)))
            }
            "EnableTiling" => {
                self.set_tiling(ws, Some(true));
                Ok(Some(self.layout_info(ws)))
            }
            "DisableTiling" => {
                self.set_tiling(ws, Some(false));
                Ok(Some(self.layout_info(ws)))
            }
            "ToggleZoom" => {
                if self.focused().is_none() {
                    return Err("no window is focused on this workspace".into());
                }
                self.action(Action::ToggleZoom);
                done
            }
            "EqualizeSplits" => {
                needs_tiling(self)?;
                self.action(Action::Equalize);
                done
            }
            "RotateSplit" => {
                needs_tiling(self)?;
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                if !self.layout.rotate(ws, &id) {
                    return Err(
                        "the focused pane is not split, so there is nothing to rotate".into(),
                    );
                }
                self.push_layout();
                self.relayout();
                done
            }
            "FocusDirection" => {
                let d = Direction::parse(arg(0)).ok_or_else(|| {
                    format!(
                        "FocusDirection: {:?} is not left, right, up or down",
                        arg(0)
                    )
                })?;
                let id = self.focus_direction(d)?;
                Ok(Some(json!({"window_id": id})))
            }
            "SnapFullscreen" | "SnapLeft" | "SnapRight" => {
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                if self.layout.tiling(ws) {
                    if name != "SnapFullscreen" {
                        return Err(format!(
                            "{name} moves floating windows; run DisableTiling first"
                        ));
                    }
                    let wl = self.layout.workspace_mut(ws);
                    wl.zoomed = Some(id);
                } else {
                    let a = self.below_dock();
                    let half = a.w / 2;
                    let r = match name {
                        "SnapLeft" => Rect::new(a.x, a.y, half, a.h),
                        "SnapRight" => Rect::new(a.x + half, a.y, a.w - half, a.h),
                        _ => a,
                    };
                    self.layout.workspace_mut(ws).floating.insert(id, r);
                }
                self.push_layout();
                self.relayout();
                done
            }
            "TerminalMode" => {
                self.router.mode = Mode::Terminal;
                done
            }
            "WindowManagementMode" => {
                self.router.mode = Mode::WindowManagement;
                done
            }
            "SetTheme" => {
                let id = match arg(0).trim() {
                    "none" | "default" => "",
                    t => t,
                };
                self.set_option("appearance.theme", id, true)
            }
            "SetDockbarPosition" => self.set_option("appearance.dockbar_position", arg(0), true),
            "SetBorderStyle" => self.set_option("appearance.border_style", arg(0), true),
            "SetConfig" => self.set_option(arg(0), arg(1), true),
            "ShowNotification" => {
                let level = match arg(1).to_ascii_lowercase().as_str() {
                    "warning" | "warn" => NoticeLevel::Warning,
                    "error" => NoticeLevel::Error,
                    _ => NoticeLevel::Info,
                };
                self.notice(level, arg(0));
                done
            }
            "Type" => {
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                self.input(&id, arg(0).as_bytes());
                done
            }
            "Enter" | "Space" | "Backspace" | "Tab" | "Escape" | "Delete" | "Up" | "Down"
            | "Left" | "Right" | "Home" | "End" => {
                let n = count()?;
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                let key = match name {
                    "Enter" => KeyCode::Enter,
                    "Space" => KeyCode::Char(' '),
                    "Backspace" => KeyCode::Backspace,
                    "Tab" => KeyCode::Tab,
                    "Escape" => KeyCode::Escape,
                    "Delete" => KeyCode::Delete,
                    "Up" => KeyCode::UpArrow,
                    "Down" => KeyCode::DownArrow,
                    "Left" => KeyCode::LeftArrow,
                    "Right" => KeyCode::RightArrow,
                    "Home" => KeyCode::Home,
                    _ => KeyCode::End,
                };
                let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
                let bytes = encode_key(key, Modifiers::NONE, &modes);
                self.input(&id, &bytes.repeat(n));
                done
            }
            "KeyCombo" => {
                let chord = Chord::parse(arg(0))
                    .ok_or_else(|| format!("KeyCombo: {:?} is not a key combination", arg(0)))?;
                if let KeyCode::Char(d @ '1'..='9') = chord.key {
                    if chord.mods == Modifiers::ALT {
                        self.action(Action::Workspace(d as u8 - b'0'));
                        return done;
                    }
                }
                let id = self
                    .focused_id()
                    .ok_or_else(|| "no window is focused on this workspace".to_string())?;
                let modes = self.window(&id).map(|w| w.modes).unwrap_or_default();
                let bytes = encode_key(chord.key, chord.mods, &modes);
                if bytes.is_empty() {
                    return Err(format!("KeyCombo: {:?} sends nothing", arg(0)));
                }
                self.input(&id, &bytes);
                done
            }
            "EnableAnimations" | "DisableAnimations" | "ToggleAnimations" => done,
            "SaveLayout" => self.save_layout(arg(0)).map(Some),
            "LoadLayout" => self.load_layout(arg(0), request),
            "CommandPalette" => {
                self.action(Action::CommandPrompt);
                done
            }
            "Detach" => {
                if let Some(req) = request {
                    self.reply(req, Ok(Some(json!({}))));
                }
                self.out.push(ClientOp::Detach);
                if request.is_some() {
                    Ok(None)
                } else {
                    done
                }
            }
            _ => Err(format!("{name} is not something this client runs")),
        }
    }
}

/// The mouse buttons whose press, drag and release are tracked.
const BUTTON_BITS: u8 =
    MouseButtons::LEFT.bits() | MouseButtons::MIDDLE.bits() | MouseButtons::RIGHT.bits();

/// A window's name as shown: its name, else its title, else its id.
pub fn title_of(w: &WindowView) -> String {
    let s = if !w.display_name.is_empty() {
        &w.display_name
    } else if !w.title.is_empty() {
        &w.title
    } else {
        &w.id
    };
    s.chars().filter(|c| !c.is_control()).collect()
}

/// Words of a command line; double or single quotes group words.
pub fn split_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut any = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;

impl App {
    /// Attached again on a new connection (the daemon re-executed itself): forget what was
    /// told to the old one, so the shown windows and their sizes are sent again, and take the
    /// new daemon's state whatever its version counter says.
    pub fn forget_connection(&mut self) {
        self.sent_view = None;
        self.sent_sizes.clear();
        self.view.version = 0;
    }
}
