//! The registry itself, as data: the rows (one file per run of paths, each sorted), the value
//! lists they accept and the reasons inert options give. [`OPTIONS`] lays the runs end to end.

use super::spec::{Applies, OptionKind, OptionSpec, OptionType};

mod appearance;
mod daemon;
mod notifications;
mod recording;
mod sidebar;
mod startup;

/// Border styles (the reference's set; the client draws both half-block styles as block).
pub const BORDER_STYLES: &[&str] = &[
    "rounded",
    "normal",
    "thick",
    "double",
    "block",
    "outer-half-block",
    "inner-half-block",
    "ascii",
    "hidden",
];
/// Where the dock can sit.
pub const DOCK_POSITIONS: &[&str] = &["bottom", "top", "hidden"];
/// Where a window title can be drawn (the reference's order; empty, the default, means top).
pub const TITLE_POSITIONS: &[&str] = &["bottom", "top", "hidden"];

// Why an inert option does nothing here.

/// The registry, sorted by path (a test keeps it so): the reference TUIOS's 86 options with its
/// types, defaults, accepted values and ranges, plus `daemon.resurrect_commands`,
/// `recording.auto` and the two history budgets.
pub(super) static OPTIONS: [OptionSpec; 90] = join(&[
    appearance::APPEARANCE_HEAD,
    sidebar::SIDEBAR,
    appearance::APPEARANCE_TAIL,
    daemon::DAEMON,
    notifications::NOTIFICATIONS,
    recording::RECORDING,
    startup::STARTUP,
]);

/// The runs laid end to end, in the order given. Evaluated at compile time: the build fails
/// unless they hold exactly `N` rows.
const fn join<const N: usize>(runs: &[&[OptionSpec]]) -> [OptionSpec; N] {
    let mut out = [FILLER; N];
    let mut n = 0;
    let mut r = 0;
    while r < runs.len() {
        let run = runs[r];
        let mut i = 0;
        while i < run.len() {
            assert!(n < N, "the runs hold more rows than the registry");
            out[n] = copy_row(&run[i]);
            n += 1;
            i += 1;
        }
        r += 1;
    }
    assert!(n == N, "the runs hold fewer rows than the registry");
    out
}

/// What [`join`] starts from; every one is overwritten.
const FILLER: OptionSpec = OptionSpec {
    path: "",
    ty: OptionType::Bool,
    section: "",
    default: "",
    accepted: &[],
    min: None,
    max: None,
    kind: OptionKind::Plain,
    applies: Applies::Client,
    deprecated: None,
    description: "",
};

/// `row`, field by field: `OptionSpec` is not `Copy` and `Clone` cannot run at compile time, but
/// every field is `Copy`.
const fn copy_row(row: &OptionSpec) -> OptionSpec {
    OptionSpec {
        path: row.path,
        ty: row.ty,
        section: row.section,
        default: row.default,
        accepted: row.accepted,
        min: row.min,
        max: row.max,
        kind: row.kind,
        applies: row.applies,
        deprecated: row.deprecated,
        description: row.description,
    }
}
