//! The harness manifests as last read, shared by everything in one actor system that reads
//! them (the sessions' detectors and the explain verbs): held in the actors' services, so the
//! user directory is read once for all of them and re-read only when it changed.
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::manifest::{user_dir, Registry};

/// What identifies a state of the user directory: its files, their sizes and times.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

fn fingerprint(dir: Option<&Path>) -> Fingerprint {
    let Some(dir) = dir else { return Vec::new() };
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Fingerprint = rd
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
        .map(|e| {
            let meta = e.metadata().ok();
            (
                e.path(),
                meta.as_ref().map(|m| m.len()).unwrap_or(0),
                meta.and_then(|m| m.modified().ok()),
            )
        })
        .collect();
    out.sort();
    out
}

struct Cache {
    registry: Arc<Registry>,
    fingerprint: Fingerprint,
    checked: Instant,
}

/// How often the user directory is looked at again for changes.
const RECHECK: Duration = Duration::from_secs(2);

/// The manifests as last read (see the module).
#[derive(Clone, Default)]
pub struct Manifests(Arc<Mutex<Option<Cache>>>);

impl Manifests {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Cache>> {
        // The cache is replaced whole, so a poisoned lock still holds a usable one.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The registry as last loaded, without touching the disk (for actor threads); `None`
    /// before the first load.
    pub fn cached(&self) -> Option<Arc<Registry>> {
        self.lock().as_ref().map(|c| c.registry.clone())
    }

    /// The registry the detector uses: loaded once, reloaded when the user directory changes
    /// (looked at no more than every two seconds for the whole daemon). Reads the disk: call it
    /// off actor threads.
    pub fn current(&self) -> Arc<Registry> {
        let mut guard = self.lock();
        if let Some(c) = guard.as_mut() {
            if c.checked.elapsed() < RECHECK {
                return c.registry.clone();
            }
            c.checked = Instant::now();
            let fp = fingerprint(c.registry.user_dir.as_deref());
            if fp == c.fingerprint {
                return c.registry.clone();
            }
        }
        let dir = user_dir();
        let fingerprint = fingerprint(dir.as_deref());
        let registry = Arc::new(Registry::load(dir.as_deref()));
        for p in &registry.problems {
            tracing::warn!(problem = %p, "harness manifest skipped");
        }
        *guard = Some(Cache {
            registry: registry.clone(),
            fingerprint,
            checked: Instant::now(),
        });
        registry
    }

    /// A registry read from disk now, for the explain verbs (a file just dropped in the
    /// directory counts at once). Also refreshes the cache.
    pub fn fresh(&self) -> Arc<Registry> {
        let mut guard = self.lock();
        let dir = user_dir();
        let registry = Arc::new(Registry::load(dir.as_deref()));
        *guard = Some(Cache {
            registry: registry.clone(),
            fingerprint: fingerprint(dir.as_deref()),
            checked: Instant::now(),
        });
        registry
    }
}
