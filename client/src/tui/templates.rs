//! Layout templates (`SaveLayout <name>` / `LoadLayout <name>`): one workspace's arrangement
//! (tiling flag, split tree with its ratios, floating rectangles, zoom, window names) saved as
//! `$XDG_CONFIG_HOME/tuios/layouts/<name>.json`, with the windows replaced by slots 0, 1, ... so
//! the template applies to any windows. Files are written atomically (temporary file, fsync,
//! rename, directory fsync) and privately (0600 in a 0700 directory).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::layout::{remove, Node, Rect, TileMode, WorkspaceLayout};

/// Template format version; a newer file is refused rather than half-read.
pub const VERSION: u32 = 1;
/// A template larger than this is not a layout (the shared layout itself is capped at 256 KiB).
const MAX_FILE: u64 = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Template {
    pub version: u32,
    pub tiling: bool,
    /// The split tree, leaves named by slot ("0", "1", ...).
    #[serde(default)]
    pub tree: Option<Node>,
    #[serde(default)]
    pub floating: BTreeMap<String, Rect>,
    #[serde(default)]
    pub zoomed: Option<String>,
    /// How the tiled windows are drawn (bsp for templates saved before there were others).
    #[serde(default)]
    pub mode: TileMode,
    /// One entry per slot, in slot order.
    pub windows: Vec<SlotWindow>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SlotWindow {
    /// The window's own name, when it had one (a new window opened for the slot gets it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The windows of a workspace in slot order: the tree's reading order, then the rest in the
/// order given (session order).
pub fn slot_order(wl: Option<&WorkspaceLayout>, ids: &[String]) -> Vec<String> {
    let mut out: Vec<String> = wl
        .and_then(|w| w.tree.as_ref())
        .map(Node::leaves)
        .unwrap_or_default()
        .into_iter()
        .filter(|id| ids.contains(id))
        .collect();
    for id in ids {
        if !out.contains(id) {
            out.push(id.clone());
        }
    }
    out
}

fn rename_leaves(node: &Node, map: &dyn Fn(&str) -> Option<String>) -> Option<Node> {
    match node {
        Node::Leaf { window } => map(window).map(|w| Node::Leaf { window: w }),
        Node::Split {
            axis,
            ratio,
            first,
            second,
        } => match (rename_leaves(first, map), rename_leaves(second, map)) {
            (Some(a), Some(b)) => Some(Node::Split {
                axis: *axis,
                ratio: *ratio,
                first: Box::new(a),
                second: Box::new(b),
            }),
            (Some(only), None) | (None, Some(only)) => Some(only),
            (None, None) => None,
        },
    }
}

/// The template of a workspace whose windows, in slot order, are `slots` (with their names).
pub fn capture(wl: &WorkspaceLayout, slots: &[(String, Option<String>)]) -> Template {
    let slot_of = |id: &str| {
        slots
            .iter()
            .position(|(s, _)| s == id)
            .map(|i| i.to_string())
    };
    Template {
        version: VERSION,
        tiling: wl.tiling,
        tree: wl.tree.as_ref().and_then(|t| rename_leaves(t, &slot_of)),
        floating: wl
            .floating
            .iter()
            .filter_map(|(id, r)| slot_of(id).map(|s| (s, *r)))
            .collect(),
        zoomed: wl.zoomed.as_deref().and_then(slot_of),
        mode: wl.mode,
        windows: slots
            .iter()
            .map(|(_, name)| SlotWindow { name: name.clone() })
            .collect(),
    }
}

/// The workspace arrangement for `ids` (slot order): slot i goes to `ids[i]`; slots without a
/// window drop out of the tree; windows beyond the slots are left for the reconcile to place.
pub fn apply(t: &Template, ids: &[String]) -> WorkspaceLayout {
    let id_of = |slot: &str| slot.parse::<usize>().ok().and_then(|i| ids.get(i).cloned());
    let mut tree = t.tree.as_ref().and_then(|n| rename_leaves(n, &id_of));
    // A slot named twice (a hand-edited file) keeps its first leaf only.
    if let Some(leaves) = tree.as_ref().map(Node::leaves) {
        let mut seen = Vec::new();
        for id in leaves {
            if seen.contains(&id) {
                remove(&mut tree, &id);
            } else {
                seen.push(id);
            }
        }
    }
    WorkspaceLayout {
        tiling: t.tiling,
        tree,
        floating: t
            .floating
            .iter()
            .filter_map(|(slot, r)| id_of(slot).map(|id| (id, *r)))
            .collect(),
        zoomed: t.zoomed.as_deref().and_then(id_of),
        mode: t.mode,
        scroll: 0,
    }
}

/// `<config dir>/layouts`.
pub fn layouts_dir() -> Result<PathBuf, String> {
    config::config_dir()
        .map(|d| d.join("layouts"))
        .ok_or_else(|| {
            "no configuration directory: set XDG_CONFIG_HOME or HOME to an absolute path".into()
        })
}

pub fn path_of(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.json"))
}

/// Writes the template atomically; returns its path.
pub fn save(dir: &Path, name: &str, t: &Template) -> Result<PathBuf, String> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = path_of(dir, name);
    // Several attaches may save at once in one process (tuios web, tuios ssh): a counter keeps
    // their temporary files apart.
    static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.json.tmp-{}-{n}", std::process::id()));
    let body = serde_json::to_vec_pretty(t).map_err(|e| format!("cannot encode: {e}"))?;
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&tmp)?;
        f.write_all(&body)?;
        f.write_all(b"\n")?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        std::fs::File::open(dir)?.sync_all()
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })?;
    Ok(path)
}

/// Reads a template; the error says which file and why.
pub fn load(dir: &Path, name: &str) -> Result<Template, String> {
    use std::io::Read;
    let path = path_of(dir, name);
    let f = std::fs::File::open(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            let known = list(dir);
            if known.is_empty() {
                format!(
                    "no layout named {name}: {} does not exist; save one with SaveLayout {name}",
                    path.display()
                )
            } else {
                format!(
                    "no layout named {name}; saved layouts: {}",
                    known.join(", ")
                )
            }
        }
        _ => format!("cannot read {}: {e}", path.display()),
    })?;
    let mut text = String::new();
    f.take(MAX_FILE + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if text.len() as u64 > MAX_FILE {
        return Err(format!(
            "{} is larger than {} KiB, so it is not a layout template",
            path.display(),
            MAX_FILE / 1024
        ));
    }
    let t: Template = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a layout template: {e}", path.display()))?;
    if t.version > VERSION {
        return Err(format!(
            "{} was written by a newer tuios (template version {}; this one reads {VERSION})",
            path.display(),
            t.version
        ));
    }
    Ok(t)
}

/// Names of the saved templates, sorted.
pub fn list(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    n.strip_suffix(".json")
                        .filter(|s| protocol::commands::layout_name(s).is_ok())
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::super::layout::Axis;
    use super::*;

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn split(axis: Axis, ratio: f64, a: Node, b: Node) -> Node {
        Node::Split {
            axis,
            ratio,
            first: Box::new(a),
            second: Box::new(b),
        }
    }

    fn sample() -> WorkspaceLayout {
        WorkspaceLayout {
            tiling: true,
            tree: Some(split(
                Axis::Vertical,
                0.3,
                Node::leaf("aaa"),
                split(Axis::Horizontal, 0.6, Node::leaf("ccc"), Node::leaf("bbb")),
            )),
            floating: [("aaa".to_string(), Rect::new(1, 2, 30, 10))].into(),
            zoomed: Some("bbb".into()),
            mode: TileMode::MasterStack,
            scroll: 0,
        }
    }

    #[test]
    fn capture_then_apply_is_the_same_shape_on_other_windows() {
        let wl = sample();
        let order = slot_order(Some(&wl), &ids(&["bbb", "aaa", "ccc"]));
        assert_eq!(order, ids(&["aaa", "ccc", "bbb"]), "tree reading order");
        let slots: Vec<(String, Option<String>)> = order
            .iter()
            .map(|id| (id.clone(), (id == "ccc").then(|| "logs".to_string())))
            .collect();
        let t = capture(&wl, &slots);
        assert_eq!(t.tree.as_ref().unwrap().leaves(), ids(&["0", "1", "2"]));
        assert_eq!(t.zoomed.as_deref(), Some("2"));
        assert_eq!(t.windows[1].name.as_deref(), Some("logs"));
        let back: Template = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
        assert_eq!(back, t);

        let applied = apply(&t, &ids(&["x", "y", "z"]));
        let expect = WorkspaceLayout {
            tiling: true,
            tree: Some(split(
                Axis::Vertical,
                0.3,
                Node::leaf("x"),
                split(Axis::Horizontal, 0.6, Node::leaf("y"), Node::leaf("z")),
            )),
            floating: [("x".to_string(), Rect::new(1, 2, 30, 10))].into(),
            zoomed: Some("z".into()),
            mode: TileMode::MasterStack,
            scroll: 0,
        };
        assert_eq!(applied, expect);
    }

    #[test]
    fn fewer_windows_than_slots_drop_the_empty_slots() {
        let t = capture(
            &sample(),
            &[
                ("aaa".into(), None),
                ("ccc".into(), None),
                ("bbb".into(), None),
            ],
        );
        let applied = apply(&t, &ids(&["x", "y"]));
        assert_eq!(
            applied.tree,
            Some(split(Axis::Vertical, 0.3, Node::leaf("x"), Node::leaf("y")))
        );
        assert_eq!(applied.zoomed, None);
    }

    #[test]
    fn files_are_written_atomically_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let layouts = dir.path().join("layouts");
        let t = capture(&sample(), &[("aaa".into(), None)]);
        let path = save(&layouts, "dev", &t).unwrap();
        assert_eq!(path, layouts.join("dev.json"));
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(load(&layouts, "dev").unwrap(), t);
        // Saving again replaces it; no temporary file is left behind.
        save(&layouts, "dev", &t).unwrap();
        let names: Vec<String> = std::fs::read_dir(&layouts)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["dev.json"]);
        assert_eq!(list(&layouts), ["dev"]);

        let e = load(&layouts, "nope").unwrap_err();
        assert_eq!(e, "no layout named nope; saved layouts: dev");
        std::fs::write(layouts.join("bad.json"), "{").unwrap();
        assert!(load(&layouts, "bad")
            .unwrap_err()
            .contains("is not a layout template"));
        let mut newer = serde_json::to_value(&t).unwrap();
        newer["version"] = 99.into();
        std::fs::write(layouts.join("new.json"), newer.to_string()).unwrap();
        assert!(load(&layouts, "new").unwrap_err().contains("newer tuios"));
        let e = load(&dir.path().join("none"), "x").unwrap_err();
        assert!(
            e.contains("does not exist; save one with SaveLayout x"),
            "{e}"
        );
    }
}
