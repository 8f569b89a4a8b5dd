//! The verb registry: the table of every verb, its parameters, their types, required flags,
//! defaults and accepted values, and the keys of its reply. The table is generated from the
//! per-verb declarations in [`crate::verbs`]; the validator, `list-verbs` and the handlers'
//! accepted-value checks all read it, so what `list-verbs` advertises cannot drift from what the
//! daemon takes.
//!
//! This file only names the parts and re-exports them. The declaration types live in the leaf
//! `spec.rs`: the verb modules build their `SPEC`s from it, while `table.rs` reads the table
//! they make up, so the verbs and the registry do not import each other.

mod check;
pub(crate) mod decode;
mod docs;
pub(crate) mod spec;
pub(crate) mod table;
#[cfg(test)]
mod tests;

pub use check::{check_accepted, validate};
pub use decode::{decode, with_defaults};
pub use docs::list_verbs;
pub use spec::{Limit, ParamSpec, ParamType, VerbSpec};
pub use table::{accepted_of, find_verb, verb_names, verbs};

pub use crate::verbs::common::{
    CAPTURE_SOURCES, FOCUS_DIRECTIONS, FOCUS_RELATIVE, SPLIT_DIRECTIONS,
};
