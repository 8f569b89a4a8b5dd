//! Checking a value `set-option` was given against its option, and the error it refuses with.

use std::fmt;
use std::num::IntErrorKind;

use super::parse::as_bool;
use super::spec::{OptionKind, OptionSpec, OptionType};
use crate::themes::{is_hex_colour, ThemeRegistry};

/// A value `set-option` refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionValueError {
    /// What is wrong, naming the path and the value.
    pub message: String,
    /// The option's type, default, range and description, for the hint.
    pub detail: String,
    /// The closest accepted value (or theme id), when one is close.
    pub did_you_mean: Option<String>,
}

impl fmt::Display for OptionValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for OptionValueError {}

/// Check `value` for `spec`, in this order: colour rules (colour options), theme existence
/// (the theme option; the themes directory is read again before refusing, so a theme written
/// a moment ago is found), the closed `accepted` set, then the type (bool words; decimal
/// integers within `min..=max`; strings without control characters).
///
/// Returns the value to record: the value as sent, with surrounding blanks removed.
pub fn validate_value(
    spec: &OptionSpec,
    value: &str,
    themes: &ThemeRegistry,
) -> Result<String, OptionValueError> {
    let v = value.trim();
    let path = spec.path;
    let shown = echo(v);
    let fail = |message: String, did_you_mean: Option<String>| OptionValueError {
        message,
        detail: detail(spec),
        did_you_mean,
    };

    match spec.kind {
        OptionKind::Colour => {
            if v.is_empty() || spec.accepted.contains(&v) || is_hex_colour(v) {
                return Ok(v.to_string());
            }
            let message = if spec.accepted.is_empty() {
                format!("{path}: \"{shown}\" is not a colour; give #RRGGBB, or an empty value to unset it")
            } else {
                format!(
                    "{path}: \"{shown}\" is not a colour; give #RRGGBB, one of {}, or an empty value to unset it",
                    spec.accepted.join(", ")
                )
            };
            let hint = protocol::closest::closest_match(v, spec.accepted.iter().copied());
            return Err(fail(message, hint));
        }
        OptionKind::Theme => {
            if v.is_empty() || themes.get(v).is_some() {
                return Ok(v.to_string());
            }
            let fresh = ThemeRegistry::load(themes.dir());
            if fresh.get(v).is_some() {
                return Ok(v.to_string());
            }
            let ids = fresh.ids();
            let hint = protocol::closest::closest_match(v, ids.iter().map(String::as_str));
            return Err(fail(
                format!(
                    "{path}: there is no theme called \"{shown}\"; list-themes shows the ones there are, or save it as {shown}.json in {} first",
                    fresh.dir().display()
                ),
                hint,
            ));
        }
        OptionKind::Directory => {
            if v.is_empty() || v.starts_with('/') {
                return Ok(v.to_string());
            }
            return Err(fail(
                format!("{path}: \"{shown}\" is not an absolute path; give a directory starting with /, or an empty value to turn it off"),
                None,
            ));
        }
        OptionKind::Plain => {}
    }

    if !spec.accepted.is_empty() && !spec.accepted.contains(&v) {
        let hint = protocol::closest::closest_match(v, spec.accepted.iter().copied());
        return Err(fail(
            format!(
                "{path}: \"{shown}\" is not one of the accepted values ({})",
                spec.accepted.join(", ")
            ),
            hint,
        ));
    }

    match spec.ty {
        OptionType::Bool => {
            if as_bool(v).is_none() {
                return Err(fail(
                    format!("{path}: \"{shown}\" is not a yes-or-no value; use true or false (on/off, yes/no, 1/0 and enabled/disabled work too)"),
                    None,
                ));
            }
        }
        OptionType::Int => {
            let n = match v.parse::<i64>() {
                Ok(n) => n,
                Err(e)
                    if matches!(
                        e.kind(),
                        IntErrorKind::PosOverflow | IntErrorKind::NegOverflow
                    ) =>
                {
                    return Err(fail(
                        format!("{path}: {shown} is {}", range_words(spec)),
                        None,
                    ))
                }
                Err(_) => {
                    return Err(fail(
                        format!("{path}: \"{shown}\" is not a whole number"),
                        None,
                    ))
                }
            };
            let below = spec.min.is_some_and(|min| n < min);
            let above = spec.max.is_some_and(|max| n > max);
            if below || above {
                return Err(fail(format!("{path}: {n} is {}", range_words(spec)), None));
            }
        }
        OptionType::String => {
            if v.chars().any(char::is_control) {
                return Err(fail(
                    format!("{path}: the value must not contain control characters"),
                    None,
                ));
            }
        }
    }
    Ok(v.to_string())
}

/// "outside 1..50" (or the one bound there is).
fn range_words(spec: &OptionSpec) -> String {
    match (spec.min, spec.max) {
        (Some(min), Some(max)) => format!("outside the range {min}..{max}"),
        (Some(min), None) => format!("below the minimum {min}"),
        (None, Some(max)) => format!("above the maximum {max}"),
        (None, None) => "out of range".to_string(),
    }
}

/// The hint detail for an option: type, default, range, description.
fn detail(spec: &OptionSpec) -> String {
    let default = if spec.default.is_empty() {
        "empty".to_string()
    } else {
        spec.default.to_string()
    };
    let range = match (spec.min, spec.max) {
        (Some(min), Some(max)) => format!(", range {min}..{max}"),
        _ => String::new(),
    };
    format!(
        "type {}, default {default}{range}. {}.",
        spec.ty, spec.description
    )
}

/// A caller's value inside a message: escaped, and cut short when very long.
fn echo(v: &str) -> String {
    const LIMIT: usize = 64;
    let escaped: String = v.escape_debug().collect();
    if escaped.chars().count() <= LIMIT {
        return escaped;
    }
    let mut cut: String = escaped.chars().take(LIMIT).collect();
    cut.push('…');
    cut
}
