//! The descriptor limit: raised to the hard one at start, so the daemon can serve its planned
//! windows and many clients (each window and connection holds descriptors).

/// Raise the soft RLIMIT_NOFILE to the hard one and return the soft limit now in force (the old
/// one when raising failed, logged).
pub fn raise_to_hard() -> u64 {
    use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
    let limit = getrlimit(Resource::Nofile);
    // `None` is unlimited: nothing to raise, or no finite hard limit to raise to.
    let Some(current) = limit.current else {
        return u64::MAX;
    };
    let Some(hard) = limit.maximum.filter(|&hard| hard > current) else {
        return current;
    };
    let raised = Rlimit {
        current: Some(hard),
        maximum: Some(hard),
    };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => hard,
        Err(e) => {
            eprintln!(
                "tuios daemon: cannot raise the descriptor limit from {current} to {hard}: {e}"
            );
            current
        }
    }
}

/// The soft RLIMIT_NOFILE in force (unlimited read as `u64::MAX`).
pub fn current() -> u64 {
    rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(u64::MAX)
}
