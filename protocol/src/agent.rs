//! Agent state of a window: the states, the sources that report them and their ranks, and the
//! checks of the agent verbs' parameters. Pure: the daemon keeps the state, this defines it.

use crate::closest::{closest_match, echo_name};
use crate::error::{ErrorCode, Hint, VerbError};

/// The wire names of the states, in the order they are published.
pub const AGENT_STATES: &[&str] = &["none", "working", "needs_input", "idle", "done", "errored"];

/// Every source, from the highest rank to the lowest.
pub const AGENT_SOURCES: &[&str] = &["report", "transcript", "osc", "screen", "detect", "stall"];

/// The sources a caller of `set-agent-state` may name; the others are the daemon's own.
pub const SETTABLE_SOURCES: &[&str] = &["report", "osc", "screen", "stall"];

/// What an agent running in a window is doing, as far as the daemon knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AgentState {
    #[default]
    None,
    Working,
    NeedsInput,
    Idle,
    Done,
    Errored,
}

impl AgentState {
    pub const ALL: [AgentState; 6] = [
        AgentState::None,
        AgentState::Working,
        AgentState::NeedsInput,
        AgentState::Idle,
        AgentState::Done,
        AgentState::Errored,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AgentState::None => "none",
            AgentState::Working => "working",
            AgentState::NeedsInput => "needs_input",
            AgentState::Idle => "idle",
            AgentState::Done => "done",
            AgentState::Errored => "errored",
        }
    }

    /// The wire name, exactly (case-sensitive); `""` is not a state.
    pub fn parse(s: &str) -> Option<AgentState> {
        AgentState::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// How urgently the state asks for a person: a blocked or failed agent (3) above a working one
    /// (2) above one at rest (1) above none (0). A quieter OSC report must stand for a while
    /// before it replaces a louder state, so a progress bar that blinks does not flap the pane.
    pub fn loudness(self) -> u8 {
        match self {
            AgentState::NeedsInput | AgentState::Errored => 3,
            AgentState::Working => 2,
            AgentState::Idle | AgentState::Done => 1,
            AgentState::None => 0,
        }
    }
}

impl std::fmt::Display for AgentState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a state came from. The rank decides which of two competing reports stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentSource {
    /// The agent (or a hook wired into it) calling `set-agent-state`.
    Report,
    /// The agent's own transcript file.
    Transcript,
    /// An OSC 9;4 progress sequence in the pane's output.
    Osc,
    /// A screen rule of the agent's harness manifest matching the pane's last rows.
    Screen,
    /// The foreground-process detector.
    Detect,
    /// The silence heuristic.
    Stall,
}

impl AgentSource {
    pub const ALL: [AgentSource; 6] = [
        AgentSource::Report,
        AgentSource::Transcript,
        AgentSource::Osc,
        AgentSource::Screen,
        AgentSource::Detect,
        AgentSource::Stall,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AgentSource::Report => "report",
            AgentSource::Transcript => "transcript",
            AgentSource::Osc => "osc",
            AgentSource::Screen => "screen",
            AgentSource::Detect => "detect",
            AgentSource::Stall => "stall",
        }
    }

    pub fn parse(s: &str) -> Option<AgentSource> {
        AgentSource::ALL.into_iter().find(|src| src.as_str() == s)
    }

    /// report 40 > transcript 35 > osc 30 > screen 20 > detect 10 > stall 0.
    pub fn rank(self) -> u8 {
        match self {
            AgentSource::Report => 40,
            AgentSource::Transcript => 35,
            AgentSource::Osc => 30,
            AgentSource::Screen => 20,
            AgentSource::Detect => 10,
            AgentSource::Stall => 0,
        }
    }

    /// Whether a caller of `set-agent-state` may name this source.
    pub fn settable(self) -> bool {
        SETTABLE_SOURCES.contains(&self.as_str())
    }
}

impl std::fmt::Display for AgentSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a report from `incoming` may replace the claim of `current` (`None`: unclaimed). A
/// source ranked below the claimant is refused; the same rank or a higher one replaces it.
pub fn may_replace(current: Option<AgentSource>, incoming: AgentSource) -> bool {
    current.is_none_or(|c| incoming.rank() >= c.rank())
}

/// The state an OSC 9;4 progress code stands for: 0 removes the progress (idle), 1 is a normal
/// and 3 an indeterminate progress (working), 2 an error (errored), 4 a paused one (needs_input).
pub fn osc_progress_state(code: u32) -> Option<AgentState> {
    Some(match code {
        0 => AgentState::Idle,
        1 | 3 => AgentState::Working,
        2 => AgentState::Errored,
        4 => AgentState::NeedsInput,
        _ => return None,
    })
}

fn unknown_state(param: &str, value: &str) -> VerbError {
    VerbError::new(
        ErrorCode::InvalidParams,
        format!("unknown agent state {}", echo_name(value)),
    )
    .with_hint(
        Hint::new()
            .param(param)
            .accepted(AGENT_STATES)
            .did_you_mean(closest_match(value, AGENT_STATES.iter().copied()))
            .available(AGENT_STATES)
            .detail("The state names what the pane's agent is doing; none clears it."),
    )
}

/// The `state` of `set-agent-state`: required, and one of [`AGENT_STATES`].
pub fn parse_state_param(value: Option<&str>) -> Result<AgentState, VerbError> {
    let value = value.unwrap_or("");
    if value.is_empty() {
        return Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("state is required: one of {}", AGENT_STATES.join(", ")),
        )
        .with_hint(Hint::new().param("state").accepted(AGENT_STATES)));
    }
    AgentState::parse(value).ok_or_else(|| unknown_state("state", value))
}

/// The `source` of `set-agent-state`: `report` when left out, else one of [`SETTABLE_SOURCES`].
pub fn parse_source_param(value: Option<&str>) -> Result<AgentSource, VerbError> {
    let value = value.unwrap_or("");
    if value.is_empty() {
        return Ok(AgentSource::Report);
    }
    match AgentSource::parse(value) {
        Some(src) if src.settable() => Ok(src),
        _ => Err(VerbError::new(
            ErrorCode::InvalidParams,
            format!("unknown agent state source {}", echo_name(value)),
        )
        .with_hint(
            Hint::new()
                .param("source")
                .accepted(SETTABLE_SOURCES)
                .did_you_mean(closest_match(value, SETTABLE_SOURCES.iter().copied()))
                .available(SETTABLE_SOURCES)
                .detail("The source says who observed the state and decides which of two competing reports stands; leave it out when the agent reports for itself."),
        )),
    }
}

/// The `until` of `wait-for agent-state`: a comma-separated set of states (blanks around each
/// name ignored, repeats dropped), in the order given.
pub fn parse_until(value: Option<&str>) -> Result<Vec<AgentState>, VerbError> {
    let value = value.unwrap_or("");
    let names: Vec<&str> = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if names.is_empty() {
        return Err(VerbError::new(
            ErrorCode::InvalidParams,
            "until is required for the agent-state condition: one or more states, comma-separated",
        )
        .with_hint(Hint::new().param("until").accepted(AGENT_STATES)));
    }
    let mut out = Vec::new();
    for name in names {
        let st = AgentState::parse(name).ok_or_else(|| unknown_state("until", name))?;
        if !out.contains(&st) {
            out.push(st);
        }
    }
    Ok(out)
}

/// The states of an `until` set joined back, for messages.
pub fn until_text(states: &[AgentState]) -> String {
    states
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_round_trip_and_are_exact() {
        let names: Vec<&str> = AgentState::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, AGENT_STATES);
        for s in AgentState::ALL {
            assert_eq!(AgentState::parse(s.as_str()), Some(s));
        }
        assert_eq!(AgentState::parse(""), None);
        assert_eq!(AgentState::parse("Working"), None);
        assert_eq!(AgentState::parse("needs-input"), None);
        assert_eq!(AgentState::default(), AgentState::None);
    }

    #[test]
    fn sources_are_ranked_as_published() {
        let names: Vec<&str> = AgentSource::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, AGENT_SOURCES);
        let ranks: Vec<u8> = AgentSource::ALL.iter().map(|s| s.rank()).collect();
        assert_eq!(ranks, [40, 35, 30, 20, 10, 0]);
        let settable: Vec<&str> = AgentSource::ALL
            .iter()
            .filter(|s| s.settable())
            .map(|s| s.as_str())
            .collect();
        assert_eq!(settable, SETTABLE_SOURCES);
    }

    /// Every ordered pair of sources: the later report stands exactly when its rank is not
    /// below the claimant's.
    #[test]
    fn precedence_table_for_every_pair() {
        use AgentSource::*;
        let order = [Report, Transcript, Osc, Screen, Detect, Stall];
        for (i, &claim) in order.iter().enumerate() {
            for (j, &incoming) in order.iter().enumerate() {
                // `order` runs from the highest rank down, so a smaller index outranks.
                let expected = j <= i;
                assert_eq!(
                    may_replace(Some(claim), incoming),
                    expected,
                    "{incoming} over a {claim} claim"
                );
            }
            assert!(
                may_replace(None, claim),
                "an unclaimed window takes {claim}"
            );
        }
        assert!(!may_replace(Some(Report), Osc));
        assert!(!may_replace(Some(Osc), Screen));
        assert!(may_replace(Some(Stall), Detect));
        assert!(may_replace(Some(Screen), Screen));
    }

    #[test]
    fn loudness_orders_states() {
        use AgentState::*;
        assert!(NeedsInput.loudness() > Working.loudness());
        assert_eq!(NeedsInput.loudness(), Errored.loudness());
        assert!(Working.loudness() > Idle.loudness());
        assert_eq!(Idle.loudness(), Done.loudness());
        assert!(Idle.loudness() > None.loudness());
    }

    #[test]
    fn osc_codes_map_to_states() {
        assert_eq!(osc_progress_state(0), Some(AgentState::Idle));
        assert_eq!(osc_progress_state(1), Some(AgentState::Working));
        assert_eq!(osc_progress_state(2), Some(AgentState::Errored));
        assert_eq!(osc_progress_state(3), Some(AgentState::Working));
        assert_eq!(osc_progress_state(4), Some(AgentState::NeedsInput));
        assert_eq!(osc_progress_state(5), None);
    }

    #[test]
    fn state_param_checks() {
        let err = parse_state_param(None).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidParams);
        assert_eq!(err.hint.param.as_deref(), Some("state"));
        assert!(err.message.contains("required"));
        let err = parse_state_param(Some("workng")).unwrap_err();
        assert_eq!(err.message, "unknown agent state workng");
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("working"));
        assert_eq!(err.hint.available, AGENT_STATES);
        assert_eq!(parse_state_param(Some("none")), Ok(AgentState::None));
    }

    #[test]
    fn source_param_checks() {
        assert_eq!(parse_source_param(None), Ok(AgentSource::Report));
        assert_eq!(parse_source_param(Some("")), Ok(AgentSource::Report));
        assert_eq!(parse_source_param(Some("stall")), Ok(AgentSource::Stall));
        for bad in ["detect", "transcript", "osk", "Report"] {
            let err = parse_source_param(Some(bad)).unwrap_err();
            assert_eq!(err.hint.param.as_deref(), Some("source"), "{bad}");
            assert_eq!(err.hint.available, SETTABLE_SOURCES);
        }
        let err = parse_source_param(Some("osk")).unwrap_err();
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("osc"));
    }

    #[test]
    fn until_is_a_set_of_states() {
        assert_eq!(
            parse_until(Some("idle, done,idle")),
            Ok(vec![AgentState::Idle, AgentState::Done])
        );
        assert_eq!(parse_until(Some("none")), Ok(vec![AgentState::None]));
        for blank in [None, Some(""), Some(" , ")] {
            let err = parse_until(blank).unwrap_err();
            assert_eq!(err.hint.param.as_deref(), Some("until"));
            assert!(err.message.contains("required"));
        }
        let err = parse_until(Some("working,dne")).unwrap_err();
        assert_eq!(err.message, "unknown agent state dne");
        assert_eq!(err.hint.param.as_deref(), Some("until"));
        assert_eq!(err.hint.did_you_mean.as_deref(), Some("done"));
        assert_eq!(
            until_text(&[AgentState::Idle, AgentState::Done]),
            "idle,done"
        );
    }
}
