//! Which arrangement a tiled workspace uses.

use serde::{Deserialize, Serialize};

/// How the tiled windows of a workspace are arranged. Written into the shared layout as
/// `mode` (`bsp`, `master-stack`, `scrolling`), which is also what the daemon reports as
/// session-info's `layout_mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TileMode {
    /// The split tree.
    #[default]
    Bsp,
    MasterStack,
    Scrolling,
}

impl TileMode {
    pub const ALL: [TileMode; 3] = [TileMode::Bsp, TileMode::MasterStack, TileMode::Scrolling];

    pub fn as_str(self) -> &'static str {
        match self {
            TileMode::Bsp => "bsp",
            TileMode::MasterStack => "master-stack",
            TileMode::Scrolling => "scrolling",
        }
    }

    pub fn parse(s: &str) -> Option<TileMode> {
        TileMode::ALL.into_iter().find(|m| m.as_str() == s.trim())
    }

    /// The mode the cycling key goes to next.
    pub fn next(self) -> TileMode {
        match self {
            TileMode::Bsp => TileMode::MasterStack,
            TileMode::MasterStack => TileMode::Scrolling,
            TileMode::Scrolling => TileMode::Bsp,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_verb_and_cycle_through_all() {
        let names: Vec<&str> = TileMode::ALL.iter().map(|m| m.as_str()).collect();
        assert_eq!(names, protocol::verbs::set_layout::LAYOUT_MODES);
        for m in TileMode::ALL {
            assert_eq!(TileMode::parse(m.as_str()), Some(m));
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.as_str())
            );
        }
        assert_eq!(TileMode::parse("spiral"), None);
        let mut m = TileMode::Bsp;
        let mut seen = Vec::new();
        for _ in 0..3 {
            m = m.next();
            seen.push(m);
        }
        assert_eq!(
            seen,
            [TileMode::MasterStack, TileMode::Scrolling, TileMode::Bsp]
        );
    }
}
