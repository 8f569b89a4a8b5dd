//! Registry rows for `recording.*` (tuios's own: the reference TUIOS does not record).

use crate::options::{Applies, OptionKind, OptionSpec, OptionType};

/// `recording.*`.
pub(super) const RECORDING: &[OptionSpec] = &[OptionSpec {
    path: "recording.auto",
    ty: OptionType::String,
    section: "recording",
    default: "",
    accepted: &[],
    min: None,
    max: None,
    kind: OptionKind::Directory,
    applies: Applies::Daemon,
    deprecated: None,
    description: "A directory (absolute path) where every window the session opens from now on is recorded from its start, one asciicast file each (as record-start writes them); empty records nothing",
}];
