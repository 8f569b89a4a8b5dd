"""Golden files of a window's screen, for :meth:`TuiosSession.assert_screen`.

A snapshot is the visible screen as ``capture-pane`` returns it, normalised so that it is exact
about what a reader sees yet stable from run to run:

- every row loses its trailing spaces (a plain capture has none; a styled one pads rows with
  default-styled blanks to the window's width);
- blank rows at the bottom of the screen are dropped, so the file ends at the last row with
  something on it, followed by one newline. The window's height is therefore not part of a
  snapshot; text on any row, including one further down than the snapshot reaches, is.

Styled snapshots keep the ANSI escape sequences as the daemon writes them.
"""

from __future__ import annotations

import os
import re
from typing import List, Optional

#: The pytest option that writes snapshots instead of comparing with them.
UPDATE_OPTION = "--tuios-update-snapshots"

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def normalise(screen: str) -> str:
    """The screen as a snapshot file holds it."""
    rows = [row.rstrip(" ") for row in screen.split("\n")]
    while rows and rows[-1] == "":
        rows.pop()
    return "\n".join(rows) + "\n" if rows else ""


def snapshot_path(test_file: str, name: str) -> str:
    """``__snapshots__/<test module>/<name>.txt`` beside the test file."""
    if not _NAME.match(name):
        raise ValueError(
            f"snapshot name {name!r}: use letters, digits, '_', '-' and '.', "
            "starting with a letter or digit"
        )
    module = os.path.splitext(os.path.basename(test_file))[0]
    return os.path.join(
        os.path.dirname(os.path.abspath(test_file)), "__snapshots__", module, name + ".txt"
    )


def _show(row: Optional[str]) -> str:
    """A row between bars, control characters spelled out, so spaces and styles are visible."""
    if row is None:
        return "(no such line)"
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in row)
    return f"|{text}|"


def _rows(text: str) -> List[str]:
    rows = text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    return rows


def diff(expected: str, actual: str) -> str:
    """Row-by-row differences of two normalised screens: the line number in the snapshot file
    (line 1 is the screen's top row), then the expected and the actual row."""
    want, got = _rows(expected), _rows(actual)
    out: List[str] = []
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else None
        g = got[i] if i < len(got) else None
        if w != g:
            out.append(f"line {i + 1}:")
            out.append(f"  expected {_show(w)}")
            out.append(f"  actual   {_show(g)}")
    if not out and expected != actual:
        out.append("the rows are equal; the snapshot file's final newline differs")
    return "\n".join(out)


def check(path: str, screen: str, update: bool) -> None:
    """Compare ``screen`` (as captured) with the snapshot at ``path``; with ``update``, write it
    instead. Raises AssertionError on a difference or a missing snapshot."""
    __tracebackhide__ = True  # pytest shows the test's line, not this one
    actual = normalise(screen)
    if update:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(actual)
        return
    try:
        with open(path, encoding="utf-8", newline="") as f:
            expected = f.read()
    except FileNotFoundError:
        raise AssertionError(
            f"no snapshot {path}; run pytest with {UPDATE_OPTION} to write it from this screen:\n"
            + actual
        ) from None
    if expected != actual:
        raise AssertionError(
            f"the screen differs from snapshot {path} "
            f"(run pytest with {UPDATE_OPTION} to accept the new screen)\n" + diff(expected, actual)
        )
