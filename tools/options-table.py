#!/usr/bin/env python3
"""Rewrite the option table in the book (docs/src/options.md, "Parity with the reference TUIOS") from the
registry in config/src/options/table/, so the two cannot drift. Run from the repository root."""
import glob
import re

SRC = sorted(glob.glob("config/src/options/table/*.rs"))
PAGE = "docs/src/options.md"
HEAD = "| option | type | section | default | status |\n|---|---|---|---|---|\n"
# Qualifications the registry does not carry.
NOTES = {
    "appearance.border_style": " (both half-block styles drawn as block)",
    "appearance.window_title_position": " (empty means top)",
    "appearance.window_title_format": " ({cwd} is empty)",
    "appearance.show_cpu": " (a percentage, not a graph)",
    "appearance.hide_clock": " (when on, no clock whatever show_clock says)",
    "daemon.resurrect_commands": " (tuios only)",
    "appearance.history_bytes": " (tuios only)",
    "appearance.history_disk_bytes": " (tuios only)",
    "notifications.agent.sound_mode": " (every mode rings the terminal bell)",
    "notifications.agent.notify": " (OSC 9 to the outer terminal)",
    "appearance.zen_mode": " (`always` hides the borders; `mouse` keeps them, since showing and hiding borders as the pointer moves would resize every program each time)",
    "appearance.confirm_quit": " (closing a window whose program ended asks only when on; a running one is always asked about)",
    "startup.tiled": " (set to false: a session no client arranged yet starts floating; unset, tuios tiles)",
    "appearance.hide_scrollbar": " (on the right border; outside copy mode the thumb is one cell at the bottom, since the client learns the scrollback's length only from copy mode's fetches)",
    "appearance.shared_borders": " (bsp and master-stack tiles, with tees and crosses where lines meet)",
    "appearance.dock_pill_caps": " (half blocks, which every font has, rather than powerline glyphs)",
    "appearance.window_button_style": " (buttons on every framed window's title row, the focused one's lit)",
    "appearance.dock_workspace_tooltip": " (names over 16 columns are cut on their tab; the pointer over one shows it in full beside the dock, from the terminal's any-motion reports, which the client always asks for)",
    "appearance.copy_on_select": " (a drag over a window's content selects, shift+drag where the program reports the mouse; off: the selection stays in copy mode for `y`)",
    "appearance.word_characters": " (double-click word selection)",
    "appearance.focus_follows_mouse": " (on pointer motion; the outer terminal always reports motion)",
    "appearance.animations_enabled": " (a window opening grows from its middle over 120 ms; never holds back an echo)",
    "notifications.error_sticky": " (a sticky error waits for Esc in window management; off: it expires after notifications.error_duration)",
    "startup.open_default_window": " (a client attaching to a session left with no window opens one; new sessions always start with one)",
    "startup.daemon": " (tuios is always daemon-backed, as true asks; it has no standalone mode for false to pick, so the value changes nothing)",
    "startup.start_in_terminal_mode": " (set to false: attach starts in window management; unset, tuios starts in terminal mode as tmux does)",
    "appearance.sidebar.workspaces": " (accepted and ignored, as the reference ignores it)",
    "appearance.sidebar.width": " (clamped so the windows keep 40 columns; a small terminal gets a 3-column strip)",
}

src = "".join(open(p, encoding="utf-8").read() for p in SRC)
reasons = dict(re.findall(r'const (R_[A-Z_]+): &str =\s*"([^"]+)";', src))
entries = re.findall(
    r'path: "([^"]+)",\s*ty: OptionType::(\w+),\s*section: "([^"]+)",\s*'
    r'default: "((?:[^"\\]|\\.)*)",.*?applies: Applies::(\w+)(?:\((R_[A-Z_]+)\))?,\s*'
    r'deprecated: (None|Some)',
    src,
    re.S,
)
entries.sort()  # the runs are spread over several files; the registry is sorted by path
rows = []
for path, ty, sec, default, applies, reason, dep in entries:
    if applies == "Inert":
        status = "inert: " + reasons[reason]
    elif applies == "Client":
        status = "applied by the attached client"
    else:
        status = "applied by the daemon"
    status += NOTES.get(path, "")
    if dep == "Some":
        status += "; deprecated"
    shown = "`" + default.replace("|", "\\|") + "`" if default else "(empty)"
    rows.append(f"| `{path}` | {ty.lower()} | {sec} | {shown} | {status} |")
inert = sum(1 for e in entries if e[4] == "Inert")

text = open(PAGE, encoding="utf-8").read()
start = text.index(HEAD) + len(HEAD)
end = text.find("\n\n", start)
if end < 0:  # the table ends the page
    end = len(text.rstrip("\n"))
text = text[:start] + "\n".join(rows) + text[end:]
text = re.sub(r"\(\d+ options act, \d+ are inert\)", f"({len(entries) - inert} options act, {inert} are inert)", text)
open(PAGE, "w", encoding="utf-8").write(text)
print(f"{len(entries)} options, {inert} inert")
