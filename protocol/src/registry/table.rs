//! Looking verbs up in the table [`crate::verbs`] generates from the declarations.

use super::spec::VerbSpec;

/// Every verb, sorted by name.
pub fn verbs() -> &'static [VerbSpec] {
    crate::verbs::VERBS
}

pub fn find_verb(name: &str) -> Option<&'static VerbSpec> {
    verbs().iter().find(|v| v.name == name)
}

/// Every verb name, sorted.
pub fn verb_names() -> Vec<&'static str> {
    verbs().iter().map(|v| v.name).collect()
}

/// The accepted set `list-verbs` publishes for one parameter (empty when the parameter is open or
/// unknown). Handlers check values against this very slice.
pub fn accepted_of(verb: &str, param: &str) -> &'static [&'static str] {
    find_verb(verb)
        .and_then(|v| v.param(param))
        .map(|p| p.accepted)
        .unwrap_or(&[])
}
