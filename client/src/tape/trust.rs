//! Trust for project tapes (`.tuios.tape` in a directory a window's shell enters), on direnv's
//! model as the Go TUIOS has it: a tape never runs until the user trusted it, trust is bound to
//! its canonical path and the SHA-256 of its exact bytes (an edit makes it untrusted again), and
//! "never" is bound to the path alone (an edit cannot bring the question back). The store is
//! per machine, `$XDG_DATA_HOME/tuios/tape-trust.toml` (0600); a store others could have
//! written is ignored.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A project tape's file name.
pub const PROJECT_TAPE: &str = ".tuios.tape";
/// Larger than this, a file is not a script a project would ship.
pub const MAX_TAPE_BYTES: u64 = 64 * 1024;

/// What a tape at a path is to this user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Not a tape that may ever run: why (not a regular file, someone else's, writable by
    /// others, too large, unreadable).
    Ineligible(String),
    Untrusted,
    Trusted,
    Denied,
}

/// A tape looked at once: the bytes read are the bytes hashed, and the ones that would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub status: Status,
    /// The canonical path: what trust is bound to.
    pub path: PathBuf,
    pub sha256: String,
    pub content: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct StoreFile {
    #[serde(default)]
    trusted: Vec<TrustedEntry>,
    #[serde(default)]
    denied: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct TrustedEntry {
    path: String,
    sha256: String,
}

#[derive(Debug, Default)]
pub struct TrustStore {
    file: PathBuf,
    trusted: BTreeMap<String, String>,
    denied: BTreeSet<String>,
    /// Why the file's contents were ignored, when they were.
    pub warning: Option<String>,
}

/// `$XDG_DATA_HOME/tuios/tape-trust.toml`, else `~/.local/share/tuios/tape-trust.toml`.
pub fn default_store_path() -> Option<PathBuf> {
    let absolute = |v: Option<std::ffi::OsString>| {
        v.map(PathBuf::from)
            .filter(|p| !p.as_os_str().is_empty() && p.is_absolute())
    };
    absolute(std::env::var_os("XDG_DATA_HOME"))
        .or_else(|| absolute(std::env::var_os("HOME")).map(|h| h.join(".local/share")))
        .map(|d| d.join("tuios").join("tape-trust.toml"))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

impl TrustStore {
    /// Reads the store at `file` (missing: empty). One that is not ours or that others may
    /// read or write is ignored, with a warning: a planted entry must never count.
    pub fn load(file: &Path) -> TrustStore {
        let mut store = TrustStore {
            file: file.to_path_buf(),
            ..Default::default()
        };
        let Ok(meta) = std::fs::symlink_metadata(file) else {
            return store;
        };
        let me = rustix::process::getuid().as_raw();
        if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
            store.warning = Some(format!(
                "{} is not a private file of yours (want mode 0600): its trust entries are ignored",
                file.display()
            ));
            return store;
        }
        let parsed = std::fs::read_to_string(file)
            .map_err(|e| e.to_string())
            .and_then(|t| toml::from_str::<StoreFile>(&t).map_err(|e| e.to_string()));
        match parsed {
            Ok(f) => {
                store.trusted = f.trusted.into_iter().map(|e| (e.path, e.sha256)).collect();
                store.denied = f.denied.into_iter().collect();
            }
            Err(e) => {
                store.warning = Some(format!(
                    "{} cannot be read ({e}): its trust entries are ignored",
                    file.display()
                ))
            }
        }
        store
    }

    /// Looks at the tape at `tape`: denial first (by path, without reading it), then the
    /// file's own checks on the opened descriptor, then one bounded read and its hash.
    pub fn check(&self, tape: &Path) -> Checked {
        let ineligible = |path: PathBuf, why: &str| Checked {
            status: Status::Ineligible(why.to_string()),
            path,
            sha256: String::new(),
            content: String::new(),
        };
        let Ok(path) = std::fs::canonicalize(tape) else {
            return ineligible(tape.to_path_buf(), "its path cannot be resolved");
        };
        let key = path.to_string_lossy().into_owned();
        if self.denied.contains(&key) {
            return Checked {
                status: Status::Denied,
                path,
                sha256: String::new(),
                content: String::new(),
            };
        }
        let Ok(file) = std::fs::File::open(&path) else {
            return ineligible(path, "it cannot be opened");
        };
        let Ok(meta) = file.metadata() else {
            return ineligible(path, "it cannot be examined");
        };
        if !meta.is_file() {
            return ineligible(path, "it is not a regular file");
        }
        if meta.uid() != rustix::process::getuid().as_raw() {
            return ineligible(path, "it belongs to another user");
        }
        if meta.mode() & 0o022 != 0 {
            return ineligible(path, "others may write to it");
        }
        let mut bytes = Vec::new();
        if file
            .take(MAX_TAPE_BYTES + 1)
            .read_to_end(&mut bytes)
            .is_err()
        {
            return ineligible(path, "it cannot be read");
        }
        if bytes.len() as u64 > MAX_TAPE_BYTES {
            return ineligible(path, "it is larger than 64 KiB");
        }
        let Ok(content) = String::from_utf8(bytes) else {
            return ineligible(path, "it is not UTF-8 text");
        };
        let sha256 = sha256_hex(content.as_bytes());
        let status = if self.trusted.get(&key) == Some(&sha256) {
            Status::Trusted
        } else {
            Status::Untrusted
        };
        Checked {
            status,
            path,
            sha256,
            content,
        }
    }

    /// Trusts `path` with exactly `sha256` (the hash of what the user was shown).
    pub fn trust(&mut self, path: &Path, sha256: &str) -> Result<(), String> {
        let key = path.to_string_lossy().into_owned();
        self.denied.remove(&key);
        self.trusted.insert(key, sha256.to_string());
        self.save()
    }

    /// Never for this path, whatever it will hold.
    pub fn deny(&mut self, path: &Path) -> Result<(), String> {
        let key = path.to_string_lossy().into_owned();
        self.trusted.remove(&key);
        self.denied.insert(key);
        self.save()
    }

    /// Written whole to a private temporary file, then renamed over the store.
    fn save(&self) -> Result<(), String> {
        use std::io::Write;
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        let file = StoreFile {
            trusted: self
                .trusted
                .iter()
                .map(|(path, sha256)| TrustedEntry {
                    path: path.clone(),
                    sha256: sha256.clone(),
                })
                .collect(),
            denied: self.denied.iter().cloned().collect(),
        };
        let text =
            toml::to_string(&file).map_err(|e| format!("cannot encode the trust store: {e}"))?;
        let dir = self.file.parent().unwrap_or(Path::new("."));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let tmp = dir.join(format!(".tape-trust.toml.tmp-{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
            .and_then(|()| std::fs::rename(&tmp, &self.file));
        written.map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write {}: {e}", self.file.display())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn tape_in(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join(PROJECT_TAPE);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        p
    }

    #[test]
    fn trust_is_bound_to_the_content_and_denial_to_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let store_file = dir.path().join("data/tape-trust.toml");
        let tape = tape_in(dir.path(), "Type \"make\"\nEnter\n");
        let mut store = TrustStore::load(&store_file);
        let first = store.check(&tape);
        assert_eq!(first.status, Status::Untrusted);
        assert_eq!(first.content, "Type \"make\"\nEnter\n");
        store.trust(&first.path, &first.sha256).unwrap();
        // Read back from disk, private.
        let store = TrustStore::load(&store_file);
        assert!(store.warning.is_none(), "{:?}", store.warning);
        let mode = std::fs::metadata(&store_file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(store.check(&tape).status, Status::Trusted);
        // An edit makes it a stranger again.
        std::fs::write(&tape, "Type \"rm -rf ~\"\nEnter\n").unwrap();
        assert_eq!(store.check(&tape).status, Status::Untrusted);

        let mut store = TrustStore::load(&store_file);
        store.deny(&first.path).unwrap();
        let store = TrustStore::load(&store_file);
        assert_eq!(store.check(&tape).status, Status::Denied);
        std::fs::write(&tape, "Enter\n").unwrap();
        assert_eq!(store.check(&tape).status, Status::Denied);
    }

    #[test]
    fn tapes_others_can_write_or_too_large_never_run() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::load(&dir.path().join("t.toml"));
        let tape = tape_in(dir.path(), "Enter\n");
        std::fs::set_permissions(&tape, std::fs::Permissions::from_mode(0o666)).unwrap();
        assert!(matches!(store.check(&tape).status, Status::Ineligible(w) if w.contains("others")));
        std::fs::write(&tape, "#".repeat(MAX_TAPE_BYTES as usize + 1)).unwrap();
        std::fs::set_permissions(&tape, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(store.check(&tape).status, Status::Ineligible(w) if w.contains("64 KiB")));
        std::fs::remove_file(&tape).unwrap();
        std::fs::create_dir(&tape).unwrap();
        assert!(matches!(store.check(&tape).status, Status::Ineligible(_)));
    }

    #[test]
    fn a_store_others_can_read_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let store_file = dir.path().join("t.toml");
        let tape = tape_in(dir.path(), "Enter\n");
        let mut store = TrustStore::load(&store_file);
        let c = store.check(&tape);
        store.trust(&c.path, &c.sha256).unwrap();
        std::fs::set_permissions(&store_file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let store = TrustStore::load(&store_file);
        assert!(store.warning.is_some());
        assert_eq!(store.check(&tape).status, Status::Untrusted);
    }

    #[test]
    fn sha256_of_a_known_text() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
