//! The verb registry: the table of every verb, its parameters, their types, required flags,
//! defaults and accepted values, and the keys of its reply. The table is generated from the
//! per-verb declarations in [`crate::verbs`]; the validator, `list-verbs` and the handlers'
//! accepted-value checks all read it, so what `list-verbs` advertises cannot drift from what the
//! daemon takes.

use serde_json::Value;

mod check;
mod decode;
mod docs;
#[cfg(test)]
mod tests;

pub use check::{check_accepted, validate};
pub use decode::{decode, with_defaults};
pub use docs::list_verbs;

/// The type of a parameter or result field, as published by `list-verbs`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    String,
    Int,
    Bool,
    StringList,
    IntList,
    /// Result fields only: parameters are never of these types.
    Float,
    Object,
    ObjectList,
}

impl ParamType {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Int => "int",
            ParamType::Bool => "bool",
            ParamType::StringList => "[]string",
            ParamType::IntList => "[]int",
            ParamType::Float => "float",
            ParamType::Object => "object",
            ParamType::ObjectList => "[]object",
        }
    }

    /// Human wording for type errors.
    fn expected(self) -> &'static str {
        match self {
            ParamType::String => "a string",
            ParamType::Int => "an integer",
            ParamType::Bool => "true or false",
            ParamType::StringList => "an array of strings",
            ParamType::IntList => "an array of integers",
            ParamType::Float => "a number",
            ParamType::Object => "an object",
            ParamType::ObjectList => "an array of objects",
        }
    }

    /// Whether a non-null JSON value has this type. Integers may be written as floats with no
    /// fractional part (`2.0`), since some JSON encoders emit every number that way.
    pub fn matches(self, value: &Value) -> bool {
        match self {
            ParamType::String => value.is_string(),
            ParamType::Int => as_int(value).is_some(),
            ParamType::Bool => value.is_boolean(),
            ParamType::StringList => value
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_string)),
            ParamType::IntList => value
                .as_array()
                .is_some_and(|a| a.iter().all(|v| as_int(v).is_some())),
            ParamType::Float => value.is_number(),
            ParamType::Object => value.is_object(),
            ParamType::ObjectList => value
                .as_array()
                .is_some_and(|a| a.iter().all(Value::is_object)),
        }
    }
}

impl std::fmt::Display for ParamType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JSON number that is a whole number representable as i64.
pub(crate) fn int_value(value: &Value) -> Option<i64> {
    as_int(value)
}

fn as_int(value: &Value) -> Option<i64> {
    let n = value.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    // 2^63 itself is out of range; the bounds are exact powers of two so the comparison is exact.
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&f)).then_some(f as i64)
}

/// One parameter (or result field) of a verb.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: ParamType,
    pub required: bool,
    pub description: &'static str,
    /// The closed set of values the parameter takes; empty when open.
    pub accepted: &'static [&'static str],
    /// The default, in string form, when the parameter is omitted.
    pub default: Option<&'static str>,
}

/// One verb.
#[derive(Debug, Clone)]
pub struct VerbSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub params: &'static [ParamSpec],
    pub returns: &'static [ParamSpec],
    /// Complete request lines, each a valid call of this verb.
    pub examples: &'static [&'static str],
}

impl VerbSpec {
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    pub fn param_names(&self) -> Vec<&'static str> {
        self.params.iter().map(|p| p.name).collect()
    }
}

pub(crate) const fn param(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: false,
        description,
        accepted: &[],
        default: None,
    }
}

pub(crate) const fn required(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: true,
        description,
        accepted: &[],
        default: None,
    }
}

pub(crate) const fn with_default(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
    default: &'static str,
) -> ParamSpec {
    ParamSpec {
        name,
        ty,
        required: false,
        description,
        accepted: &[],
        default: Some(default),
    }
}

pub use crate::verbs::common::{
    CAPTURE_SOURCES, FOCUS_DIRECTIONS, FOCUS_RELATIVE, SPLIT_DIRECTIONS,
};

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
