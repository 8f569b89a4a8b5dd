//! Who may use `tuios web`: the access token, the session cookie it is exchanged for, and the
//! Host and Origin checks. Pure logic, apart from the token file.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Random bytes in the token and in the cookie: 256 bits, well above the 128 asked for.
const SECRET_BYTES: usize = 32;

/// A secret as lowercase hex (token or cookie value).
pub type Secret = String;

/// `n` bytes from the kernel's CSPRNG, as hex.
pub fn random_hex(n: usize) -> io::Result<Secret> {
    let mut buf = vec![0u8; n];
    fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// A fresh secret of the standard size.
pub fn new_secret() -> io::Result<Secret> {
    random_hex(SECRET_BYTES)
}

/// Whether `s` looks like a secret we made (so a damaged file is replaced, not trusted).
fn well_formed(s: &str) -> bool {
    s.len() == SECRET_BYTES * 2 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Read the token at `path`, or make one and store it 0600 (`renew`: always a new one).
/// Refuses a file that is a symbolic link, not ours, or readable by others: whoever can read
/// or replace it can get in.
pub fn load_or_create_token(path: &Path, renew: bool) -> Result<Secret, String> {
    if let Some(dir) = path.parent() {
        private_dir(dir)?;
    }
    if !renew {
        match read_private(path) {
            Ok(Some(t)) if well_formed(t.trim()) => return Ok(t.trim().to_string()),
            Ok(_) => {}
            Err(e) => return Err(e),
        }
    }
    let token = new_secret().map_err(|e| format!("cannot make an access token: {e}"))?;
    write_private(path, format!("{token}\n").as_bytes())?;
    Ok(token)
}

/// Create `dir` 0700 if missing. An existing one must be ours and not writable by others.
pub fn private_dir(dir: &Path) -> Result<(), String> {
    if !dir.exists() {
        fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("cannot make {} private: {e}", dir.display()))?;
    }
    let meta = fs::metadata(dir).map_err(|e| format!("cannot inspect {}: {e}", dir.display()))?;
    let me = rustix::process::geteuid().as_raw();
    if meta.uid() != me || meta.mode() & 0o022 != 0 {
        return Err(format!(
            "{} must belong to you and be writable by you alone (it holds the web access token \
             and key); fix it with: chmod 700 {}",
            dir.display(),
            dir.display()
        ));
    }
    Ok(())
}

/// The contents of a private file: `None` when it does not exist. Never follows a symbolic
/// link; refuses a file of another user or one that group or others may read.
pub fn read_private(path: &Path) -> Result<Option<String>, String> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(format!(
                "cannot read {} (tuios never follows a symbolic link there): {e}",
                path.display()
            ))
        }
    };
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot inspect {}: {e}", path.display()))?;
    let me = rustix::process::geteuid().as_raw();
    if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
        return Err(format!(
            "{} must be a regular file of yours that only you can read (mode 0600); remove it \
             and tuios makes a new one: rm {}",
            path.display(),
            path.display()
        ));
    }
    let mut text = String::new();
    (&file)
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(Some(text))
}

/// Write `bytes` to `path` as a 0600 file: a new file beside it, renamed over, so a reader
/// never sees half of it and an existing link is replaced rather than followed.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&tmp)
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    fs::rename(&tmp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Equality that takes as long whatever the first differing byte, so the timing of a refusal
/// says nothing about how much of a guess was right. Lengths are public (fixed).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    // black_box: the compiler may not turn the fold back into an early-exit compare.
    std::hint::black_box(diff) == 0
}

/// The name of the session cookie. The port is in it because cookies are shared between the
/// ports of one host: two servers must not overwrite each other's. Under TLS the `__Host-`
/// prefix makes the browser refuse one set without Secure, with a Domain, or by a sub-path.
pub fn cookie_name(port: u16, tls: bool) -> String {
    if tls {
        format!("__Host-tuios-web-{port}")
    } else {
        format!("tuios-web-{port}")
    }
}

/// The Set-Cookie value that hands out `value`: HttpOnly (no script reads it), SameSite=Strict
/// (no other site's page makes the browser send it), Secure under TLS. A session cookie: it
/// goes when the browser closes.
pub fn set_cookie(name: &str, value: &str, tls: bool) -> String {
    let secure = if tls { "; Secure" } else { "" };
    format!("{name}={value}; Path=/; HttpOnly; SameSite=Strict{secure}")
}

/// The value of cookie `name` in a Cookie header, if present.
pub fn cookie_value<'a>(header: &'a str, name: &str) -> Option<&'a str> {
    header.split(';').find_map(|pair| {
        let (k, v) = pair.trim().split_once('=')?;
        (k == name).then_some(v)
    })
}

/// The host names the server answers to. On a loopback address only the loopback names (with
/// the port): a page on another site whose name was made to resolve to 127.0.0.1 (DNS
/// rebinding) then reaches nothing. Elsewhere any name, since the user may reach the machine
/// under one we cannot know; TLS and the token guard it there.
#[derive(Debug, Clone)]
pub struct HostPolicy {
    pub port: u16,
    pub loopback_only: bool,
}

impl HostPolicy {
    /// Whether a request's Host header is one we serve.
    pub fn allows(&self, host: &str) -> bool {
        if !self.loopback_only {
            return !host.is_empty();
        }
        let port = self.port.to_string();
        let Some((name, p)) = split_host_port(host) else {
            return false;
        };
        p == port && matches!(name, "127.0.0.1" | "localhost" | "[::1]")
    }
}

/// `name:port` (name possibly a bracketed IPv6 address). None without an explicit port:
/// a browser always sends one for a non-default port, which ours always is in practice.
fn split_host_port(host: &str) -> Option<(&str, &str)> {
    let (name, port) = host.rsplit_once(':')?;
    if name.is_empty() || port.is_empty() || !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((name, port))
}

/// Whether a WebSocket upgrade's (or a form post's) Origin is the page's own: the scheme we
/// serve and the Host the request was sent to (already checked by [`HostPolicy`]). A missing
/// Origin is refused too: every browser sends one on an upgrade, so only a non-browser omits it.
pub fn origin_matches(origin: Option<&str>, host: &str, tls: bool) -> bool {
    let scheme = if tls { "https" } else { "http" };
    let Some(origin) = origin else {
        return false;
    };
    let expected = format!("{scheme}://{host}");
    origin.eq_ignore_ascii_case(&expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_hex_and_differ() {
        let a = new_secret().unwrap();
        let b = new_secret().unwrap();
        assert_eq!(a.len(), 64);
        assert!(well_formed(&a));
        assert_ne!(a, b);
    }

    #[test]
    fn constant_time_eq_compares() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(constant_time_eq(b"", b""));
    }

    #[test]
    fn token_file_is_private_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = state.join("web-token");
        let t1 = load_or_create_token(&path, false).unwrap();
        let mode = fs::metadata(&path).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(fs::metadata(&state).unwrap().mode() & 0o777, 0o700);
        assert_eq!(load_or_create_token(&path, false).unwrap(), t1);
        let t2 = load_or_create_token(&path, true).unwrap();
        assert_ne!(t1, t2);
        // Readable by others: refused, not silently used.
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let err = load_or_create_token(&path, false).unwrap_err();
        assert!(err.contains("0600"), "{err}");
    }

    #[test]
    fn a_symlinked_token_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700)).unwrap();
        let real = dir.path().join("elsewhere");
        fs::write(&real, "x".repeat(64)).unwrap();
        let path = dir.path().join("web-token");
        std::os::unix::fs::symlink(&real, &path).unwrap();
        let err = load_or_create_token(&path, false).unwrap_err();
        assert!(err.contains("symbolic link"), "{err}");
    }

    #[test]
    fn cookie_flags() {
        assert_eq!(
            set_cookie("tuios-web-80", "v", false),
            "tuios-web-80=v; Path=/; HttpOnly; SameSite=Strict"
        );
        assert!(set_cookie(&cookie_name(443, true), "v", true).ends_with("; Secure"));
        assert!(cookie_name(443, true).starts_with("__Host-"));
    }

    #[test]
    fn cookie_header_parsing() {
        let h = "a=1; tuios-web-8=abc; tuios-web-80=def";
        assert_eq!(cookie_value(h, "tuios-web-80"), Some("def"));
        assert_eq!(cookie_value(h, "tuios-web-8"), Some("abc"));
        assert_eq!(cookie_value(h, "b"), None);
    }

    #[test]
    fn loopback_hosts_only_with_our_port() {
        let p = HostPolicy {
            port: 7373,
            loopback_only: true,
        };
        assert!(p.allows("127.0.0.1:7373"));
        assert!(p.allows("localhost:7373"));
        assert!(p.allows("[::1]:7373"));
        assert!(!p.allows("evil.example:7373"));
        assert!(!p.allows("127.0.0.1:80"));
        assert!(!p.allows("127.0.0.1"));
        let remote = HostPolicy {
            port: 7373,
            loopback_only: false,
        };
        assert!(remote.allows("box.example:7373"));
    }

    #[test]
    fn origin_must_be_our_own() {
        assert!(origin_matches(
            Some("http://127.0.0.1:7373"),
            "127.0.0.1:7373",
            false
        ));
        assert!(!origin_matches(
            Some("https://127.0.0.1:7373"),
            "127.0.0.1:7373",
            false
        ));
        assert!(!origin_matches(
            Some("http://evil.example"),
            "127.0.0.1:7373",
            false
        ));
        assert!(!origin_matches(None, "127.0.0.1:7373", false));
        assert!(origin_matches(Some("https://h:1"), "h:1", true));
    }
}
