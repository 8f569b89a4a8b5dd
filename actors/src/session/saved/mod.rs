//! Sessions that survive a restart: each session's structure is saved to
//! `<state dir>/<name>.json` and brought back by a later daemon.
//!
//! Saving: a session compares its structure (names, workspaces, windows, options, layout) with
//! what it last handed to the writer a second after anything asked it to change (every handler
//! that can change the structure, or the place its change lands, calls [`Session::save_soon`];
//! a restore calls it once, when it finishes); only a change is written, so a
//! session is written at most once per second. The check looks again for [`LINGER_CHECKS`]
//! more seconds after the last change, for changes that land after their message (a window
//! whose program is still starting), then stops: an idle session has no timer at all. The
//! working directories come from /proc, which is read on the blocking pool with the write, and
//! are refreshed [`CWD_REFRESH`] after a window's output (a `cd` at a prompt prints the next
//! prompt) even without a structural change. Shutdown writes once more, and kill-session
//! deletes the file. Writes are atomic (temporary file in the same directory, fsync, rename,
//! directory fsync) and private (0600 in a 0700 directory).
//!
//! Scrollback is not saved: it holds whatever went through the terminal (passwords typed at a
//! prompt that echoed, tokens printed by tools), and a file under ~/.local/state outlives the
//! session by design.
//!
//! The format carries a `version`. A newer daemon reads older files through [`migrate`]; a file
//! from a newer tuios, or one that is corrupt or truncated, is reported (list-sessions'
//! `unreadable`) and left alone, never deleted and never allowed to stop other sessions.
//!
//! [`Session::save_soon`]: crate::session::Session::save_soon
//! [`migrate`]: format::migrate

mod files;
mod format;
mod restore;
mod saving;

pub use files::{
    file_path, remove, remove_leftovers, scan, write_atomic, ScanEntry, MAX_FILE_BYTES,
};
pub use format::{parse, SavedSession, SavedWindow, FORMAT_VERSION};
pub use restore::{allowed_commands, FinishRestore, RestoreWindow, RESURRECT_COMMANDS_OPTION};
pub use saving::{Forget, SaveNow, SaveState, CWD_REFRESH, LINGER_CHECKS, SAVE_INTERVAL};

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn sample() -> SavedSession {
        SavedSession {
            version: FORMAT_VERSION,
            saved_at: 7,
            name: "work".into(),
            id: "abc".into(),
            created: 5,
            display_name: Some("Work".into()),
            accent: Some("#112233".into()),
            width: 100,
            height: 30,
            current_workspace: 2,
            workspace_names: [(2, "code".to_string())].into(),
            workspace_order: Some(vec![2, 1]),
            workspace_focus: [(2, "w1".to_string())].into(),
            focused: Some("w1".into()),
            options: [("appearance.theme".to_string(), "nord".to_string())].into(),
            layout: Some(r#"{"workspaces":{}}"#.into()),
            windows: vec![SavedWindow {
                id: "w1".into(),
                name: Some("editor".into()),
                workspace: 2,
                minimized: true,
                cwd: Some("/tmp".into()),
                command: vec!["vim".into(), "a b".into()],
                remain: false,
                screen: None,
            }],
        }
    }

    #[test]
    fn round_trips() {
        let s = sample();
        let bytes = serde_json::to_vec_pretty(&s).unwrap();
        assert_eq!(parse(&bytes).unwrap(), s);
    }

    #[test]
    fn bad_files_are_explained() {
        let bytes = serde_json::to_vec(&sample()).unwrap();
        let err = parse(&bytes[..bytes.len() / 2]).unwrap_err();
        assert!(err.contains("truncated"), "{err}");
        assert!(parse(b"{nonsense").unwrap_err().contains("JSON"));
        assert!(parse(b"{\"name\":\"x\"}").unwrap_err().contains("version"));
        let mut future = serde_json::to_value(sample()).unwrap();
        future["version"] = (FORMAT_VERSION + 1).into();
        let err = parse(&serde_json::to_vec(&future).unwrap()).unwrap_err();
        assert!(err.contains("newer tuios"), "{err}");
        let mut wrong = serde_json::to_value(sample()).unwrap();
        wrong["windows"] = "no".into();
        assert!(parse(&serde_json::to_vec(&wrong).unwrap()).is_err());
    }

    #[test]
    fn atomic_write_is_private_and_replaces() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state/tuios/sessions");
        write_atomic(&dir, "work", b"one").unwrap();
        write_atomic(&dir, "work", b"two").unwrap();
        assert_eq!(fs::read(file_path(&dir, "work")).unwrap(), b"two");
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            fs::metadata(file_path(&dir, "work")).unwrap().mode() & 0o777,
            0o600
        );
        assert_eq!(fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["work.json"], "no temporary file is left behind");
        fs::write(dir.join("work.json.tmp-12345"), b"half").unwrap();
        remove_leftovers(&dir);
        assert!(!dir.join("work.json.tmp-12345").exists());
        assert!(file_path(&dir, "work").exists());
        remove(&dir, "work").unwrap();
        remove(&dir, "work").unwrap();
        assert!(!file_path(&dir, "work").exists());
    }

    #[test]
    fn scan_reports_bad_files_beside_good_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let good = serde_json::to_vec(&sample()).unwrap();
        fs::write(dir.join("work.json"), &good).unwrap();
        fs::write(dir.join("other.json"), &good).unwrap();
        fs::write(dir.join("cut.json"), &good[..10]).unwrap();
        fs::write(dir.join("ignored.txt"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.join("work.json"), dir.join("link.json")).unwrap();
        let found = scan(dir);
        let by_name = |n: &str| {
            found
                .iter()
                .find(|e| e.file.file_name().unwrap() == n)
                .unwrap_or_else(|| panic!("{n} not scanned"))
        };
        assert!(by_name("work.json").session.is_ok());
        assert!(by_name("other.json")
            .session
            .as_ref()
            .unwrap_err()
            .contains("not \"other\""));
        assert!(by_name("cut.json").session.is_err());
        assert!(by_name("link.json")
            .session
            .as_ref()
            .unwrap_err()
            .contains("symbolic link"));
        assert_eq!(found.len(), 4);
        assert!(scan(&dir.join("missing")).is_empty());
    }
}
