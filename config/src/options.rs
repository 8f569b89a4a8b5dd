//! The session option registry: every path `set-option`, `get-option` and `list-options` know,
//! with its type, default, accepted values and who honours it. It holds every option of the
//! reference TUIOS (same paths, types, defaults, accepted values and ranges); those tuios has
//! no use for are marked [`Applies::Inert`] and only recorded.

mod lookup;
mod parse;
mod policy;
mod spec;
mod table;
mod validate;

pub use lookup::{did_you_mean, options, paths, resolve, sections};
pub use parse::{as_bool, as_int, FALSE_WORDS, TRUE_WORDS};
pub use policy::{policy_file_path, policy_only};
pub use spec::{Applies, OptionKind, OptionSpec, OptionType};
pub use table::{BORDER_STYLES, DOCK_POSITIONS, TITLE_POSITIONS};
pub use validate::{validate_value, OptionValueError};

#[cfg(test)]
#[path = "options_tests.rs"]
mod tests;
