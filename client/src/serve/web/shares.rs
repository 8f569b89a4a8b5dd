//! Shared links: `tuios web --share SESSION` makes a token that opens one session only
//! (read-only when asked), for a while; `--revoke` takes it back. The tokens live in one
//! private file of the state directory (`web-shares.json`, 0600), which every running server
//! of this user reads again whenever it changes: the command line and the servers need no
//! channel of their own, and a revoke counts at the next request.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::auth;

/// Shares kept at once; making one more drops the oldest (expired ones go first).
pub const MAX_SHARES: usize = 256;
/// Browsers signed in through shares that one server remembers; the oldest is forgotten (and
/// must sign in again with its link) beyond this.
pub const MAX_SHARE_COOKIES: usize = 1024;
/// How long a share lasts unless `--expires` says.
pub const DEFAULT_EXPIRY: Duration = Duration::from_secs(24 * 3600);
/// The longest a share may last.
pub const MAX_EXPIRY: Duration = Duration::from_secs(30 * 24 * 3600);

/// One shared link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Share {
    pub token: auth::Secret,
    pub session: String,
    pub read_only: bool,
    /// Unix seconds.
    pub created: u64,
    /// Unix seconds; the link stops working then.
    pub expires: u64,
}

impl Share {
    pub fn live(&self, now: u64) -> bool {
        now < self.expires
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct SharesFile {
    shares: Vec<Share>,
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

pub fn path(state: &Path) -> PathBuf {
    state.join("web-shares.json")
}

/// The shares in the file (none when it does not exist).
pub fn load(state: &Path) -> Result<Vec<Share>, String> {
    let p = path(state);
    match auth::read_private(&p)? {
        None => Ok(Vec::new()),
        Some(text) => serde_json::from_str::<SharesFile>(&text)
            .map(|f| f.shares)
            .map_err(|e| format!("{} is damaged ({e}); remove it to start again", p.display())),
    }
}

fn store(state: &Path, shares: Vec<Share>) -> Result<(), String> {
    let text = serde_json::to_string_pretty(&SharesFile { shares })
        .map_err(|e| format!("cannot encode the shares: {e}"))?;
    auth::write_private(&path(state), text.as_bytes())
}

/// Adds a share of `session` lasting `expiry`; answers it.
pub fn add(
    state: &Path,
    session: &str,
    read_only: bool,
    expiry: Duration,
) -> Result<Share, String> {
    let now = now();
    let share = Share {
        token: auth::new_secret().map_err(|e| format!("cannot make a share token: {e}"))?,
        session: session.to_string(),
        read_only,
        created: now,
        expires: now.saturating_add(expiry.as_secs()),
    };
    let mut shares: Vec<Share> = load(state)?.into_iter().filter(|s| s.live(now)).collect();
    while shares.len() >= MAX_SHARES {
        shares.remove(0);
    }
    shares.push(share.clone());
    store(state, shares)?;
    Ok(share)
}

/// Removes the share whose token is `which` (a token, or a link holding one), or every share
/// for `all`; answers how many went.
pub fn revoke(state: &Path, which: &str) -> Result<usize, String> {
    let shares = load(state)?;
    let before = shares.len();
    let kept: Vec<Share> = if which == "all" {
        Vec::new()
    } else {
        let token = token_in(which);
        shares
            .into_iter()
            .filter(|s| !auth::constant_time_eq(s.token.as_bytes(), token.as_bytes()))
            .collect()
    };
    let gone = before - kept.len();
    if gone > 0 {
        store(state, kept)?;
    }
    Ok(gone)
}

/// The token in a share link (`...?token=T`), or the text itself.
fn token_in(text: &str) -> &str {
    let text = text.trim();
    text.split_once("token=")
        .map_or(text, |(_, t)| t.split('&').next().unwrap_or(t))
}

/// `30m`, `2h`, `1d`, `90s` or plain seconds.
pub fn parse_expiry(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (digits, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{text:?} is not a duration: say 30m, 2h or 1d"))?;
    let secs = match unit {
        "s" => n,
        "m" => n.saturating_mul(60),
        "h" => n.saturating_mul(3600),
        "d" => n.saturating_mul(86400),
        _ => return Err(format!("{text:?} is not a duration: say 30m, 2h or 1d")),
    };
    if secs == 0 {
        return Err("a share must last at least one second".into());
    }
    if secs > MAX_EXPIRY.as_secs() {
        return Err(format!(
            "a share lasts at most {} days; make a new one when it ends",
            MAX_EXPIRY.as_secs() / 86400
        ));
    }
    Ok(Duration::from_secs(secs))
}

/// "2 hours", "30 minutes", "1 day": how long a share lasts, for people.
pub fn describe(d: Duration) -> String {
    let s = d.as_secs();
    let (n, unit) = if s.is_multiple_of(86400) {
        (s / 86400, "day")
    } else if s.is_multiple_of(3600) {
        (s / 3600, "hour")
    } else if s.is_multiple_of(60) {
        (s / 60, "minute")
    } else {
        (s, "second")
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// A running server's view of the shares: the file, read again when it changes, and the
/// browsers signed in through a share (cookie value → share token).
pub struct ShareBook {
    state: PathBuf,
    inner: Mutex<Book>,
}

#[derive(Default)]
struct Book {
    /// The file's inode, modification time and length when last read (a rewrite is a new
    /// file renamed over the old one, so the inode alone tells most changes).
    seen: Option<(u64, SystemTime, u64)>,
    shares: Vec<Share>,
    /// Oldest first.
    cookies: Vec<(auth::Secret, auth::Secret)>,
}

impl ShareBook {
    pub fn new(state: PathBuf) -> ShareBook {
        ShareBook {
            state,
            inner: Mutex::new(Book::default()),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Book) -> T) -> T {
        let mut book = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let meta = std::fs::metadata(path(&self.state))
            .ok()
            .and_then(|m| Some((m.ino(), m.modified().ok()?, m.len())));
        if meta != book.seen {
            book.seen = meta;
            book.shares = match load(&self.state) {
                Ok(s) => s,
                Err(why) => {
                    // Nobody gets in through a file we cannot trust.
                    tracing::error!("ignoring the shared links: {why}");
                    Vec::new()
                }
            };
        }
        f(&mut book)
    }

    /// The live share whose token is `token`.
    pub fn by_token(&self, token: &str) -> Option<Share> {
        let now = now();
        self.with(|b| {
            b.shares
                .iter()
                .find(|s| {
                    s.live(now)
                        && auth::constant_time_eq(s.token.as_bytes(), token.trim().as_bytes())
                })
                .cloned()
        })
    }

    /// Remembers a browser signed in with `share`; answers its cookie value.
    pub fn sign_in(&self, share: &Share) -> Result<auth::Secret, String> {
        let cookie =
            auth::new_secret().map_err(|e| format!("cannot make a session secret: {e}"))?;
        self.with(|b| {
            if b.cookies.len() >= MAX_SHARE_COOKIES {
                b.cookies.remove(0);
            }
            b.cookies.push((cookie.clone(), share.token.clone()));
        });
        Ok(cookie)
    }

    /// The live share a browser's cookie stands for (none once revoked or expired).
    pub fn by_cookie(&self, cookie: &str) -> Option<Share> {
        let now = now();
        self.with(|b| {
            let token = b
                .cookies
                .iter()
                .find(|(c, _)| auth::constant_time_eq(c.as_bytes(), cookie.as_bytes()))
                .map(|(_, t)| t.clone())?;
            b.shares
                .iter()
                .find(|s| s.live(now) && s.token == token)
                .cloned()
        })
    }

    /// Whether `share` still stands (checked while its attach runs).
    pub fn still_valid(&self, share: &Share) -> bool {
        let now = now();
        self.with(|b| {
            b.shares
                .iter()
                .any(|s| s.live(now) && s.token == share.token)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn state() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        dir
    }

    #[test]
    fn expiries_read_as_people_write_them() {
        assert_eq!(parse_expiry("30m").unwrap(), Duration::from_secs(1800));
        assert_eq!(parse_expiry("2h").unwrap(), Duration::from_secs(7200));
        assert_eq!(parse_expiry("1d").unwrap(), Duration::from_secs(86400));
        assert_eq!(parse_expiry("45").unwrap(), Duration::from_secs(45));
        assert!(parse_expiry("soon").is_err());
        assert!(parse_expiry("0m").is_err());
        assert!(parse_expiry("90d").is_err());
    }

    #[test]
    fn a_share_is_found_by_token_and_cookie_until_revoked() {
        let dir = state();
        let book = ShareBook::new(dir.path().to_path_buf());
        let a = add(dir.path(), "work", true, Duration::from_secs(60)).unwrap();
        let b = add(dir.path(), "play", false, Duration::from_secs(60)).unwrap();
        let mode = std::fs::metadata(path(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(book.by_token(&a.token).unwrap().session, "work");
        assert!(book.by_token("nope").is_none());
        let cookie = book.sign_in(&a).unwrap();
        assert_eq!(book.by_cookie(&cookie).unwrap().session, "work");
        let link = format!("http://127.0.0.1:7373/?token={}", a.token);
        assert_eq!(revoke(dir.path(), &link).unwrap(), 1);
        assert!(book.by_cookie(&cookie).is_none());
        assert!(!book.still_valid(&a));
        assert!(book.still_valid(&b));
        assert_eq!(revoke(dir.path(), "all").unwrap(), 1);
        assert!(book.by_token(&b.token).is_none());
    }

    #[test]
    fn an_expired_share_opens_nothing() {
        let dir = state();
        let mut shares = vec![add(dir.path(), "work", false, Duration::from_secs(60)).unwrap()];
        shares[0].expires = now() - 1;
        store(dir.path(), shares.clone()).unwrap();
        let book = ShareBook::new(dir.path().to_path_buf());
        assert!(book.by_token(&shares[0].token).is_none());
    }
}
