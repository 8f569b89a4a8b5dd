#!/bin/sh
# Report an agent's state to tuios from the agent's own hooks.
#
# Inside a tuios window the daemon exports TUIOS_ENV=1, TUIOS_SOCKET, TUIOS_SESSION and
# TUIOS_WINDOW_ID; this script reports for that window with source "report", the highest rank,
# so what the agent says outranks what the daemon guesses from the screen or from silence.
# Outside a tuios window it does nothing and succeeds, so the hooks can stay configured.
#
# Usage:
#   agent-hook.sh STATE [MESSAGE]   report STATE: working, needs_input, idle, done, errored, none
#   agent-hook.sh claude-code       read a Claude Code hook payload (JSON) on stdin and report
#                                   the state its event means
#
# Claude Code (~/.claude/settings.json), one entry per event:
#   "hooks": {
#     "SessionStart":     [{"hooks": [{"type": "command", "command": "sh /path/to/agent-hook.sh claude-code"}]}],
#     "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh /path/to/agent-hook.sh claude-code"}]}],
#     "Notification":     [{"hooks": [{"type": "command", "command": "sh /path/to/agent-hook.sh claude-code"}]}],
#     "Stop":             [{"hooks": [{"type": "command", "command": "sh /path/to/agent-hook.sh claude-code"}]}],
#     "SessionEnd":       [{"hooks": [{"type": "command", "command": "sh /path/to/agent-hook.sh claude-code"}]}]
#   }
# Any other agent with hooks can call it with a state: `agent-hook.sh needs_input "approve the edit"`.
#
# Environment: TUIOS_BIN names the tuios binary (default: tuios on PATH); AGENT_HOOK_HARNESS
# names the harness to attribute the window to (default: claude-code in claude-code mode).

[ "${TUIOS_ENV:-}" = 1 ] || exit 0
[ -n "${TUIOS_SOCKET:-}" ] || exit 0
window=${TUIOS_WINDOW_ID:-${TUIOS_PANE_ID:-}}
[ -n "$window" ] || exit 0
tuios=${TUIOS_BIN:-tuios}
harness=${AGENT_HOOK_HARNESS:-}

# report STATE [MESSAGE]; a daemon that is gone or refuses must never fail the agent's hook.
report() {
    set -- "$1" "${2:-}"
    if [ -n "$harness" ] && [ -n "$2" ]; then
        "$tuios" set-agent-state "$1" -s "${TUIOS_SESSION:-}" -w "$window" --harness "$harness" -m "$2"
    elif [ -n "$harness" ]; then
        "$tuios" set-agent-state "$1" -s "${TUIOS_SESSION:-}" -w "$window" --harness "$harness"
    elif [ -n "$2" ]; then
        "$tuios" set-agent-state "$1" -s "${TUIOS_SESSION:-}" -w "$window" -m "$2"
    else
        "$tuios" set-agent-state "$1" -s "${TUIOS_SESSION:-}" -w "$window"
    fi >/dev/null 2>&1 || true
}

# The string value of a top-level key of a one-line JSON object (no unescaping beyond \").
field() {
    printf '%s' "$payload" | sed -n "s/.*\"$1\"[[:space:]]*:[[:space:]]*\"\\(\\([^\"\\\\]\\|\\\\.\\)*\\)\".*/\\1/p" |
        sed 's/\\"/"/g' | head -n 1
}

case "${1:-}" in
claude-code)
    harness=${harness:-claude-code}
    payload=$(tr '\n' ' ')
    case "$(field hook_event_name)" in
    SessionStart | UserPromptSubmit) report working ;;
    Notification) report needs_input "$(field message)" ;;
    Stop) report done ;;
    SessionEnd) report none ;;
    # Subagent events and anything new say nothing about the session as a whole.
    *) ;;
    esac
    ;;
none | working | needs_input | idle | done | errored)
    report "$1" "${2:-}"
    ;;
*)
    echo "usage: agent-hook.sh STATE [MESSAGE] | agent-hook.sh claude-code < payload" >&2
    exit 2
    ;;
esac
exit 0
