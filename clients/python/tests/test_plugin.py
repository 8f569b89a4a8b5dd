"""The pytest plugin seen from a user's suite, run in a child pytest via ``pytester``."""

from __future__ import annotations

import json
import os
import sys

import pytest

from tuios import DaemonStartFailed, PrivateDaemon, find_binary

FAILING = r"""
def test_shows_its_screen(tuios_session):
    tuios_session.send_text("echo 'visible'-$((40+2))\n")
    tuios_session.wait_for_output(r"(?m)^visible-42$")
    assert False, "deliberate failure"
"""

PASSING = r"""
import json, os

def test_records(tuios_session):
    # OUT_DIR reaches the shell through the daemon's environment.
    tuios_session.send_text('echo $$ > "$OUT_DIR/shell.pid"; echo "we"nt\n')
    tuios_session.wait_for_output(r"(?m)^went$")
    with open(os.path.join(os.environ["OUT_DIR"], "seen.json"), "w") as f:
        json.dump({"daemon_pid": tuios_session.daemon.pid,
                   "directory": tuios_session.daemon.directory,
                   "socket": tuios_session.socket_path,
                   "session": tuios_session.name}, f)
"""


def _gone(pid: int) -> bool:
    """No such process, or a zombie nobody has reaped yet (it has stopped running)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_failure_report_carries_the_window_capture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=FAILING)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "deliberate failure" in out
    result.stdout.fnmatch_lines(["*tuios capture: session test_shows_its_screen, window 0*"])
    # The screen itself: the command line as typed and the output it produced.
    result.stdout.fnmatch_lines(["*echo 'visible'-$((40+2))*", "visible-42"])


def test_fixture_gives_a_working_session_and_stops_everything(
    pytester: pytest.Pytester, tmp_path: "os.PathLike[str]"
) -> None:
    pytester.makepyfile(test_inner=PASSING)
    env_before = os.environ.get("OUT_DIR")
    os.environ["OUT_DIR"] = str(tmp_path)
    try:
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    finally:
        if env_before is None:
            del os.environ["OUT_DIR"]
        else:
            os.environ["OUT_DIR"] = env_before
    result.assert_outcomes(passed=1)
    with open(os.path.join(str(tmp_path), "seen.json")) as f:
        seen = json.load(f)
    assert seen["session"] == "test_records"
    assert seen["socket"].startswith(seen["directory"])
    # After the test: the daemon has stopped, its directory (socket included) is gone.
    assert _gone(seen["daemon_pid"])
    assert not os.path.exists(seen["directory"])
    # And the shell of the session was ended with it.
    with open(os.path.join(str(tmp_path), "shell.pid")) as f:
        shell_pid = int(f.read())
    assert shell_pid != seen["daemon_pid"]
    assert _gone(shell_pid)


def test_missing_binary_is_an_error_not_a_skip(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_inner="def test_needs_it(tuios_session):\n    pass\n")
    monkeypatch.setenv("TUIOS_BIN", "/nonexistent/tuios")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*BinaryNotFound*/nonexistent/tuios*does not exist*"])


def test_no_binary_anywhere_is_an_error_not_a_skip(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_inner="def test_needs_it(tuios_session):\n    pass\n")
    monkeypatch.delenv("TUIOS_BIN", raising=False)
    # A PATH with only the interpreter's directory, so the child pytest itself still starts.
    bin_dir = os.path.dirname(os.path.abspath(sys.executable))
    assert not os.path.exists(os.path.join(bin_dir, "tuios")), bin_dir
    monkeypatch.setenv("PATH", bin_dir)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*BinaryNotFound*TUIOS_BIN is not set and there is no tuios on PATH*"]
    )


def test_tuios_bin_option_names_the_binary(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = find_binary()
    monkeypatch.setenv("TUIOS_BIN", "/nonexistent/tuios")
    pytester.makepyfile(
        test_inner="def test_uses_it(tuios_session):\n"
        "    assert tuios_session.client.daemon['type'] == 'hello'\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", f"--tuios-bin={binary}")
    result.assert_outcomes(passed=1)


def test_a_daemon_that_exits_at_start_is_reported_with_its_log(
    tmp_path: "os.PathLike[str]",
) -> None:
    fake = os.path.join(str(tmp_path), "tuios")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho 'cannot start: no reason' >&2\nexit 3\n")
    os.chmod(fake, 0o755)
    daemon = PrivateDaemon(fake)
    with pytest.raises(DaemonStartFailed) as info:
        daemon.start()
    assert info.value.code == "daemon_start_failed"
    assert "exited with status 3" in info.value.message
    assert "cannot start: no reason" in info.value.message
    assert daemon.process is None and daemon.directory is None


def test_a_daemon_that_never_reports_ready_is_stopped(tmp_path: "os.PathLike[str]") -> None:
    fake = os.path.join(str(tmp_path), "tuios")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\necho "$$" > "$0.pid"\nexec sleep 600\n')
    os.chmod(fake, 0o755)
    daemon = PrivateDaemon(fake, start_timeout=0.5)
    with pytest.raises(DaemonStartFailed, match="did not report ready"):
        daemon.start()
    with open(fake + ".pid") as f:
        pid = int(f.read())
    assert _gone(pid)
    assert daemon.process is None and daemon.directory is None


DAEMON_DIES = r"""
def test_loses_its_daemon(tuios_session):
    tuios_session.daemon.process.kill()
    tuios_session.daemon.process.wait()
    assert False, "deliberate failure after the daemon died"
"""


def test_failure_report_says_when_the_daemon_died(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_inner=DAEMON_DIES)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*tuios capture: session test_loses_its_daemon*",
            "(capture failed: no tuios daemon is running on *[no_daemon]*",
            "*tuios daemon log (the daemon exited)*",
            "*tuios daemon ready*",
        ]
    )
