"""Waiting on a full-screen program: less in the alternate screen, driven by keys."""

from __future__ import annotations

import os
import shutil

import pytest

from tuios.pytest_plugin import TuiosSession


def _less() -> str:
    path = shutil.which("less")
    if path is None:
        pytest.fail("less is not installed; this test needs it (Debian: apt-get install less)")
    return path


def test_less_pages_through_a_file(
    tuios_session: TuiosSession, tmp_path: "os.PathLike[str]"
) -> None:
    less = _less()
    text = os.path.join(str(tmp_path), "numbers.txt")
    with open(text, "w") as f:
        f.writelines(f"line {i:03}\n" for i in range(1, 101))

    with tuios_session.subscribe(types=["mode-changed", "window-exit"]) as events:
        # A clean less: no options from the caller's LESS, no history file.
        created = tuios_session.new_window(
            command=["/usr/bin/env", "LESS=", "LESSHISTFILE=-", less, text], name="pager"
        )
        wid = created["window_id"]

        alt = events.expect(
            lambda e: (
                e.window == wid and e.get("mode") == "alt-screen" and e.get("enabled") is True
            ),
            timeout=10,
            what="less entering the alternate screen",
        )
        assert alt.type == "mode-changed"

        # The first page, on the visible screen, with less's prompt on the last row.
        tuios_session.wait_for_output(r"(?m)^line 001$", wid, source="visible")
        screen = tuios_session.capture(wid).splitlines()
        assert screen[0] == "line 001"
        assert "line 100" not in screen

        tuios_session.send_keys("G", wid)
        tuios_session.wait_for_output(r"(?m)^line 100\n.*\(END\)", wid, source="visible")
        screen = tuios_session.capture(wid).splitlines()
        assert "line 001" not in screen
        assert screen[-1].startswith("(END)") or "(END)" in screen[-1]

        tuios_session.send_keys("q", wid)
        left = events.expect(
            lambda e: (
                e.window == wid and e.get("mode") == "alt-screen" and e.get("enabled") is False
            ),
            timeout=10,
            what="less leaving the alternate screen",
        )
        assert left.seq > alt.seq
        exited = events.expect(
            lambda e: e.type == "window-exit" and e.window == wid, timeout=10, what="less exiting"
        )
        assert exited["exit_code"] == 0
