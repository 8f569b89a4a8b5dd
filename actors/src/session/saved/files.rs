//! The files in the sessions directory (the daemon picks it and hands it to the actors in
//! `DaemonInfo::sessions_dir`): atomic private writes, removal, and reading them back.
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::format::{parse, SavedSession};

/// A saved file larger than this is not read (a session's structure is a few kilobytes).
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The file of session `name` in `dir`.
pub fn file_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.json"))
}

/// Write `bytes` as `name`'s file: temporary file in the same directory, fsync, rename over the
/// old one, fsync the directory. A crash at any point leaves the old file or the new one whole.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    ensure_dir(dir)?;
    let path = file_path(dir, name);
    let tmp = dir.join(format!("{name}.json.tmp-{}", std::process::id()));
    // A leftover of a crashed write; unlink never follows a link.
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, &path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Delete `name`'s file (a missing one is fine) and make the deletion durable.
pub fn remove(dir: &Path, name: &str) -> io::Result<()> {
    match fs::remove_file(file_path(dir, name)) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn ensure_dir(dir: &Path) -> io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    // The umask may have taken bits away; the owner needs all three.
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Remove temporary files that writes interrupted by a crash left behind (`<name>.json.tmp-<pid>`);
/// the saved file beside each is whole. Blocking: run it on the blocking pool, at start only.
pub fn remove_leftovers(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        if name.to_string_lossy().contains(".json.tmp-") {
            match fs::remove_file(entry.path()) {
                Ok(()) => {
                    tracing::debug!(file = %entry.path().display(), "removed an unfinished save")
                }
                Err(e) => {
                    tracing::warn!(file = %entry.path().display(), "cannot remove an unfinished save: {e}")
                }
            }
        }
    }
}

/// One `*.json` file of the sessions directory: its session, or why it cannot be used.
#[derive(Debug, Clone)]
pub struct ScanEntry {
    pub file: PathBuf,
    pub session: Result<SavedSession, String>,
}

/// Every saved session in `dir`, sorted by file name. A missing directory holds none; a file
/// that cannot be used is listed with the reason. Blocking: run it on the blocking pool.
pub fn scan(dir: &Path) -> Vec<ScanEntry> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Vec::new(),
        Err(e) => {
            return vec![ScanEntry {
                file: dir.to_path_buf(),
                session: Err(format!("cannot read the sessions directory: {e}")),
            }]
        }
    };
    let mut out: Vec<ScanEntry> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|file| {
            let session = load(&file);
            ScanEntry { file, session }
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

fn load(file: &Path) -> Result<SavedSession, String> {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(file)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => "it is a symbolic link, which tuios never follows".to_string(),
            _ => format!("cannot open it: {e}"),
        })?;
    let meta = f
        .metadata()
        .map_err(|e| format!("cannot inspect it: {e}"))?;
    if !meta.is_file() {
        return Err("it is not a regular file".to_string());
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "it is {} bytes, more than the {MAX_FILE_BYTES} a session file may have",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    f.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    let session = parse(&bytes)?;
    if session.name != stem {
        return Err(format!(
            "it holds session {:?}, not {stem:?} as its name says",
            session.name
        ));
    }
    protocol::binary::validate_session_name(&session.name)?;
    if session.name.is_empty() {
        return Err("the session name is empty".to_string());
    }
    Ok(session)
}

/// A new session is about to be saved under a name whose file already exists: a saved session
/// that was not restored (unreadable, from a newer tuios, or put there by hand). It is renamed
/// aside rather than overwritten, so nothing saved is lost silently.
pub(super) fn keep_aside(dir: &Path, name: &str) {
    let path = file_path(dir, name);
    if fs::symlink_metadata(&path).is_err() {
        return;
    }
    let aside = dir.join(format!("{name}.json.replaced-{}", crate::unix_now_secs()));
    match fs::rename(&path, &aside) {
        Ok(()) => tracing::warn!(
            session = %name,
            kept = %aside.display(),
            "a saved session of this name was not restored; it is kept aside and the new session is saved in its place"
        ),
        Err(e) => tracing::warn!(session = %name, "cannot move the old saved session aside: {e}"),
    }
}
