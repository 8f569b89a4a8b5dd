//! The shape of a verb declaration: [`VerbSpec`], [`ParamSpec`], [`ParamType`], the [`Limit`] a
//! parameter may carry, and the `const` helpers the verb modules build their `SPEC`s with.
//!
//! A leaf: it names no other module of the crate, so the verb declarations can use it while the
//! registry's validation reads the verbs' table without the two importing each other.

use serde_json::Value;

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
    pub(super) fn expected(self) -> &'static str {
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
pub(crate) fn as_int(value: &Value) -> Option<i64> {
    let n = value.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    // 2^63 itself is out of range; the bounds are exact powers of two so the comparison is exact.
    const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&f)).then_some(f as i64)
}

/// A bound on a parameter's value beyond its type, checked by the registry's validation after
/// the types and the required parameters; each kind is one of the checks in `limits.rs`,
/// which words the refusal. Not published by `list-verbs`: the refusal names the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A column count (`limits::check_cols`).
    Cols,
    /// A row count (`limits::check_rows`).
    Rows,
    /// A window or workspace name, or a session display name (`limits::check_name`).
    Name,
    /// A string of at most this many bytes, refused naming the constant that holds the number
    /// (`limits::check_len`).
    Bytes(usize, &'static str),
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
    /// The bound the value must keep, if any (parameters only).
    pub limit: Option<Limit>,
}

impl ParamSpec {
    /// The same parameter taking only the values in `accepted`.
    pub(crate) const fn accepting(self, accepted: &'static [&'static str]) -> ParamSpec {
        ParamSpec { accepted, ..self }
    }

    /// The same parameter, its value held to `limit`.
    pub(crate) const fn limited(self, limit: Limit) -> ParamSpec {
        ParamSpec {
            limit: Some(limit),
            ..self
        }
    }
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
        limit: None,
    }
}

pub(crate) const fn required(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
) -> ParamSpec {
    ParamSpec {
        required: true,
        ..param(name, ty, description)
    }
}

pub(crate) const fn with_default(
    name: &'static str,
    ty: ParamType,
    description: &'static str,
    default: &'static str,
) -> ParamSpec {
    ParamSpec {
        default: Some(default),
        ..param(name, ty, description)
    }
}
