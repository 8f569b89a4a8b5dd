"""Snapshots: ``tuios_session.assert_screen`` against golden files, written with
``--tuios-update-snapshots``, and the row-by-row diff of a mismatch; run in a child pytest."""

from __future__ import annotations

import json
import os

import pytest

from tuios import snapshots

INNER = r"""
def _program(tuios_session):
    created = tuios_session.new_window(command=[
        "/bin/sh", "-c",
        "printf 'hello\\nworld   \\n\\033[31mred\\033[m\\n'; exec cat",
    ])
    wid = created["window_id"]
    tuios_session.wait_for_output("red", wid, source="visible")
    settled = tuios_session.wait_for_settled(wid)
    assert len(settled["hash"]) == 16
    return wid

def test_screen(tuios_session):
    wid = _program(tuios_session)
    tuios_session.assert_screen("greeting", window=wid)
    tuios_session.assert_screen("greeting-styled", window=wid, styled=True)
"""


RECORDED = r"""
def test_recorded(tuios_session):
    created = tuios_session.new_window(command=["/bin/sh", "-c", "printf 'hello\\n'; exec cat"])
    wid = created["window_id"]
    files = tuios_session.record(wid)
    assert files and files[0].endswith(".cast")
    tuios_session.wait_for_output("hello", wid, source="visible")
    tuios_session.wait_for_settled(wid)
    tuios_session.assert_screen("hello", window=wid)
"""


def _snapshot(pytester: pytest.Pytester, name: str) -> str:
    return os.path.join(str(pytester.path), "__snapshots__", "test_inner", name + ".txt")


def _write_snapshot(pytester: pytest.Pytester, name: str, text: str) -> str:
    """A golden file written by hand (its directory made); its path."""
    path = _snapshot(pytester, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def test_update_writes_snapshots_that_then_pass(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", snapshots.UPDATE_OPTION)
    result.assert_outcomes(passed=1)
    with open(_snapshot(pytester, "greeting")) as f:
        # Trailing spaces and the blank rows below are not kept.
        assert f.read() == "hello\nworld\nred\n"
    with open(_snapshot(pytester, "greeting-styled")) as f:
        styled = f.read()
    assert "\x1b[" in styled and "red" in styled, repr(styled)
    # Compared, not written, without the option.
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_mismatch_fails_with_a_row_by_row_diff(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=INNER)
    path = _write_snapshot(pytester, "greeting", "hello\nthere\nred\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*the screen differs from snapshot {path}*--tuios-update-snapshots*",
            "*line 2:",
            "*  expected |there|",
            "*  actual   |world|",
        ]
    )
    assert "line 1:" not in result.stdout.str()
    # The golden is left alone.
    with open(path) as f:
        assert f.read() == "hello\nthere\nred\n"


def test_a_missing_snapshot_fails_and_says_how_to_write_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*no snapshot *greeting.txt; run pytest with --tuios-update-snapshots*"]
    )
    assert not os.path.exists(_snapshot(pytester, "greeting"))


def test_a_failed_report_lists_the_recordings(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=RECORDED)
    _write_snapshot(pytester, "hello", "goodbye\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*expected |goodbye|", "*actual   |hello|", "*tuios recordings*"])
    out = result.stdout.str()
    casts = [w for w in out.split() if w.endswith(".cast")]
    assert casts, out
    # The recording outlives the daemon, complete: its header, then the screen with the text.
    with open(casts[0]) as f:
        header = json.loads(f.readline())
        rest = f.read()
    assert header["version"] == 2
    assert "hello" in rest


def test_normalise_and_diff() -> None:
    assert snapshots.normalise("a  \nb\n\n   \n") == "a\nb\n"
    assert snapshots.normalise("\n\n") == ""
    assert snapshots.normalise(" x\n\ny") == " x\n\ny\n"
    assert snapshots.diff("a\nb\n", "a\nb\nc\n") == (
        "line 3:\n  expected (no such line)\n  actual   |c|"
    )
    assert snapshots.diff("a\n", "\x1b[1ma\n") == (
        "line 1:\n  expected |a|\n  actual   |\\x1b[1ma|"
    )
    assert "final newline" in snapshots.diff("a", "a\n")
    with pytest.raises(ValueError):
        snapshots.snapshot_path("/t/test_x.py", "../escape")
    assert snapshots.snapshot_path("/t/test_x.py", "menu") == "/t/__snapshots__/test_x/menu.txt"
