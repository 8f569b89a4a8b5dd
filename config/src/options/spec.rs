//! The shape of a registry row: [`OptionSpec`] and the enums its fields use.

use std::fmt;

/// The value type of an option, as `list-options` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionType {
    Bool,
    Int,
    String,
}

impl OptionType {
    /// `bool`, `int` or `string`.
    pub fn as_str(self) -> &'static str {
        match self {
            OptionType::Bool => "bool",
            OptionType::Int => "int",
            OptionType::String => "string",
        }
    }
}

impl fmt::Display for OptionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Extra validation a string option gets beyond its type and accepted set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    Plain,
    /// Empty, a keyword from `accepted`, or `#RRGGBB`.
    Colour,
    /// Empty, or the id of a theme that exists.
    Theme,
    /// Empty, or an absolute directory path.
    Directory,
}

/// Who applies an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// The attached client, when it draws.
    Client,
    /// The daemon (for example when it creates a window).
    Daemon,
    /// Nothing in tuios: the option is one of the reference TUIOS's, accepted and recorded so
    /// scripts written for it keep working, and the text says why it does nothing here.
    Inert(&'static str),
}

impl Applies {
    /// `client`, `daemon` or `inert`, as `list-options` reports it.
    pub fn as_str(self) -> &'static str {
        match self {
            Applies::Client => "client",
            Applies::Daemon => "daemon",
            Applies::Inert(_) => "inert",
        }
    }
}

/// One settable option.
#[derive(Debug, Clone)]
pub struct OptionSpec {
    pub path: &'static str,
    pub ty: OptionType,
    pub section: &'static str,
    /// The value in effect when the session has none, as a string (`""` for unset).
    pub default: &'static str,
    /// Closed set of values (exact, case-sensitive); empty when any value of the type goes.
    /// For [`OptionKind::Colour`] these are keywords accepted besides `#RRGGBB`.
    pub accepted: &'static [&'static str],
    /// Enforced bounds of an int option; `None` when any whole number goes.
    pub min: Option<i64>,
    pub max: Option<i64>,
    pub kind: OptionKind,
    pub applies: Applies,
    /// Why the option is deprecated and what replaces it (as the reference TUIOS says).
    pub deprecated: Option<&'static str>,
    pub description: &'static str,
}
