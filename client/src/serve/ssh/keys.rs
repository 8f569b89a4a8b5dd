//! The server's host key (ed25519, made once, kept 0600) and the public keys let in.

use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use russh::keys::ssh_key::authorized_keys::AuthorizedKeys;
use russh::keys::ssh_key::private::Ed25519Keypair;
use russh::keys::ssh_key::LineEnding;
use russh::keys::{HashAlg, PrivateKey, PublicKey};

/// Where the host key lives unless `--key-path` says: beside the saved sessions.
pub fn default_host_key_path() -> Option<PathBuf> {
    daemon::paths::sessions_dir().and_then(|d| d.parent().map(|p| p.join("ssh_host_ed25519_key")))
}

/// `~/.ssh/authorized_keys`.
pub fn default_authorized_keys_path() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .map(|h| h.join(".ssh").join("authorized_keys"))
}

/// `$XDG_CONFIG_HOME/tuios/ssh-read-only-keys` (else `~/.config/...`): keys that attach
/// read-only.
pub fn default_read_only_keys_path() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute())
                .map(|h| h.join(".config"))
        })
        .map(|d| d.join("tuios").join("ssh-read-only-keys"))
}

/// What a key may do once in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    ReadWrite,
    /// Listed in the read-only keys file: watches, never types (the daemon enforces it).
    ReadOnly,
}

/// Whether `offered` gets in, and how. A key in the read-only file is read-only even when the
/// authorized keys list it too: the narrower grant is the one its owner wrote down on purpose.
/// A missing read-only file lists nobody; an unsafe one is an error (it would let in keys
/// someone else added).
pub fn access(
    authorized_keys: &Path,
    read_only_keys: Option<&Path>,
    offered: &PublicKey,
) -> Result<Option<Access>, String> {
    if let Some(ro) = read_only_keys.filter(|p| p.exists()) {
        if authorized(ro, offered)? {
            return Ok(Some(Access::ReadOnly));
        }
    }
    Ok(authorized(authorized_keys, offered)?.then_some(Access::ReadWrite))
}

/// Loads the host key at `path`, generating it (and its directory, 0700) when missing. An
/// existing key must be a regular file of ours that nobody else can read, as sshd requires:
/// whoever reads it can pose as this server.
pub fn load_or_create_host_key(path: &Path) -> Result<PrivateKey, String> {
    match fs::symlink_metadata(path) {
        Ok(meta) => {
            if !meta.is_file() {
                return Err(format!(
                    "the host key {} is not a regular file (tuios never follows a symbolic link there)",
                    path.display()
                ));
            }
            let me = rustix::process::geteuid().as_raw();
            if meta.uid() != me {
                return Err(format!(
                    "the host key {} belongs to uid {}, not to you (uid {me})",
                    path.display(),
                    meta.uid()
                ));
            }
            if meta.mode() & 0o077 != 0 {
                return Err(format!(
                    "the host key {} can be read by others (mode {:o}); anyone who reads it can pose as this server. Fix: chmod 600 {}",
                    path.display(),
                    meta.mode() & 0o777,
                    crate::output::shell_quote(&path.to_string_lossy())
                ));
            }
            let mut text = String::new();
            fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(path)
                .and_then(|mut f| f.read_to_string(&mut text))
                .map_err(|e| format!("cannot read the host key {}: {e}", path.display()))?;
            let key = PrivateKey::from_openssh(text.as_bytes()).map_err(|e| {
                format!(
                    "the host key {} is not an OpenSSH private key: {e}",
                    path.display()
                )
            })?;
            if key.is_encrypted() {
                return Err(format!(
                    "the host key {} is protected by a passphrase; a server cannot ask for one",
                    path.display()
                ));
            }
            Ok(key)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => generate(path),
        Err(e) => Err(format!(
            "cannot inspect the host key {}: {e}",
            path.display()
        )),
    }
}

fn generate(path: &Path) -> Result<PrivateKey, String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut seed = [0u8; 32];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut seed))
        .map_err(|e| format!("cannot read random bytes for the host key: {e}"))?;
    let mut key = PrivateKey::from(Ed25519Keypair::from_seed(&seed));
    seed.fill(0);
    key.set_comment("tuios ssh host key");
    let text = key
        .to_openssh(LineEnding::LF)
        .map_err(|e| format!("cannot encode the host key: {e}"))?;
    // O_EXCL: two servers starting at once never both write it; the loser reads the winner's.
    let created = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path);
    let mut file = match created {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return load_or_create_host_key(path),
        Err(e) => {
            return Err(format!(
                "cannot create the host key {}: {e}",
                path.display()
            ))
        }
    };
    // The umask cannot widen 0600, but make sure nothing narrowed the owner's bits either.
    let _ = file.set_permissions(fs::Permissions::from_mode(0o600));
    if let Err(e) = file
        .write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
    {
        let _ = fs::remove_file(path);
        return Err(format!("cannot write the host key {}: {e}", path.display()));
    }
    tracing::info!(
        path = %path.display(),
        fingerprint = %key.fingerprint(HashAlg::Sha256),
        "generated the ssh host key"
    );
    Ok(key)
}

/// The keys in an `authorized_keys` file. Read again at every attempt, as sshd does, so a key
/// added or removed counts at once. Lines with options (`from=`, `command=`, ...) are skipped
/// with a warning: tuios cannot honour the restriction, and ignoring it would let the key do
/// more than its owner allowed.
pub fn authorized(path: &Path, offered: &PublicKey) -> Result<bool, String> {
    let text = read_authorized_keys(path)?;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some(Ok(entry)) = AuthorizedKeys::new(trimmed).next() else {
            tracing::warn!(file = %path.display(), line = n + 1, "not a public key line; skipped");
            continue;
        };
        if !entry.config_opts().is_empty() {
            tracing::warn!(
                file = %path.display(),
                line = n + 1,
                options = entry.config_opts().as_str(),
                "key options are not supported by tuios ssh; this key is not accepted"
            );
            continue;
        }
        if entry.public_key().key_data() == offered.key_data() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether the file can be used (exists, is ours, others cannot write it).
pub fn check_authorized_keys(path: &Path) -> Result<(), String> {
    read_authorized_keys(path).map(|_| ())
}

/// The file's text; it must be ours and not writable by others, or anyone could add a key.
fn read_authorized_keys(path: &Path) -> Result<String, String> {
    let meta = fs::metadata(path)
        .map_err(|e| format!("cannot read the authorized keys {}: {e}", path.display()))?;
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me && meta.uid() != 0 {
        return Err(format!(
            "the authorized keys {} belong to uid {}, not to you",
            path.display(),
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!(
            "the authorized keys {} can be written by others (mode {:o}), so anyone could add a key",
            path.display(),
            meta.mode() & 0o777
        ));
    }
    // As sshd's StrictModes: whoever can write the directory can replace the file.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let dmeta =
            fs::metadata(dir).map_err(|e| format!("cannot inspect {}: {e}", dir.display()))?;
        if (dmeta.uid() != me && dmeta.uid() != 0) || dmeta.mode() & 0o022 != 0 {
            return Err(format!(
                "the directory of the authorized keys, {}, can be written by others, so anyone could replace the file",
                dir.display()
            ));
        }
    }
    fs::read_to_string(path)
        .map_err(|e| format!("cannot read the authorized keys {}: {e}", path.display()))
}

/// `SHA256:...`, as `ssh-keygen -l` shows a key.
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(seed: u8) -> PublicKey {
        PrivateKey::from(Ed25519Keypair::from_seed(&[seed; 32]))
            .public_key()
            .clone()
    }

    fn line(key: &PublicKey) -> String {
        key.to_openssh().unwrap()
    }

    fn write(dir: &Path, text: &str) -> PathBuf {
        let p = dir.join("authorized_keys");
        fs::write(&p, text).unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        p
    }

    #[test]
    fn a_listed_key_is_let_in_and_an_optioned_or_other_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let (key, other) = (key(1), key(7));
        let text = format!("# comment\n\ngarbage line\n{} a@x\n", line(&key));
        let p = write(dir.path(), &text);
        assert!(authorized(&p, &key).unwrap());
        assert!(!authorized(&p, &other).unwrap());
        let p = write(dir.path(), &format!("from=\"10.0.0.1\" {}\n", line(&key)));
        assert!(!authorized(&p, &key).unwrap());
    }

    #[test]
    fn a_read_only_listing_narrows_a_key_and_a_missing_file_lists_nobody() {
        let dir = tempfile::tempdir().unwrap();
        let (rw, ro, stranger) = (key(1), key(2), key(3));
        let authorized_keys = write(dir.path(), &format!("{}\n{}\n", line(&rw), line(&ro)));
        let ro_path = dir.path().join("ssh-read-only-keys");
        assert_eq!(
            access(&authorized_keys, Some(&ro_path), &ro).unwrap(),
            Some(Access::ReadWrite)
        );
        fs::write(&ro_path, format!("{}\n", line(&ro))).unwrap();
        fs::set_permissions(&ro_path, fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(
            access(&authorized_keys, Some(&ro_path), &ro).unwrap(),
            Some(Access::ReadOnly)
        );
        assert_eq!(
            access(&authorized_keys, Some(&ro_path), &rw).unwrap(),
            Some(Access::ReadWrite)
        );
        assert_eq!(
            access(&authorized_keys, Some(&ro_path), &stranger).unwrap(),
            None
        );
        // Listed only as read-only: still let in, read-only.
        let only_rw = write(dir.path(), &format!("{}\n", line(&rw)));
        assert_eq!(
            access(&only_rw, Some(&ro_path), &ro).unwrap(),
            Some(Access::ReadOnly)
        );
        fs::set_permissions(&ro_path, fs::Permissions::from_mode(0o666)).unwrap();
        assert!(access(&only_rw, Some(&ro_path), &rw).is_err());
    }

    #[test]
    fn a_file_others_can_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let key = key(1);
        let p = write(dir.path(), &line(&key));
        fs::set_permissions(&p, fs::Permissions::from_mode(0o666)).unwrap();
        let err = authorized(&p, &key).unwrap_err();
        assert!(err.contains("written by others"), "{err}");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
        assert!(authorized(&p, &key).unwrap());
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
        let err = authorized(&p, &key).unwrap_err();
        assert!(err.contains("replace the file"), "{err}");
    }

    #[test]
    fn the_host_key_is_made_once_0600_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub").join("host_key");
        let a = load_or_create_host_key(&p).unwrap();
        let mode = fs::metadata(&p).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let b = load_or_create_host_key(&p).unwrap();
        assert_eq!(a.public_key().key_data(), b.public_key().key_data());
        fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
        let err = load_or_create_host_key(&p).unwrap_err();
        assert!(err.contains("chmod 600"), "{err}");
    }
}
