"""Driving a real session: the binary creates it, the client types, waits and captures, and
the daemon's errors arrive as typed exceptions with their code and hint."""

from __future__ import annotations

import pytest

import tuios
from tuios import Client
from tuios.pytest_plugin import TuiosSession


def test_new_session_through_the_binary(tuios_daemon: tuios.PrivateDaemon) -> None:
    name = tuios_daemon.new_session("made-by-cli")
    with Client(tuios_daemon.socket_path) as c:
        sessions = {s["name"]: s for s in c.list_sessions()["sessions"]}
        assert name in sessions
        assert sessions[name]["window_count"] == 1
        info = c.session_info(session=name)
        assert (info["session_name"], info["clients"]) == (name, 0)


def test_send_text_wait_for_and_capture(tuios_session: TuiosSession) -> None:
    # The quotes keep the echoed command line from matching the anchored pattern.
    tuios_session.send_text("echo 'ready'-$((6*7))\n")
    result = tuios_session.wait_for_output(r"(?m)^ready-42$", timeout=10_000)
    assert result["matched"] is True
    assert result["window_id"] == tuios_session.window
    screen = tuios_session.capture()
    assert "ready-42" in screen.splitlines()
    recent = tuios_session.capture(source="recent", lines=5)
    assert "ready-42" in recent


def test_send_keys_key_names(tuios_session: TuiosSession) -> None:
    tuios_session.send_keys("echo,Space,keys-$((1+1)),Enter")
    tuios_session.wait_for_output(r"(?m)^keys-2$")


def test_window_exit_status_through_wait_for(tuios_session: TuiosSession) -> None:
    created = tuios_session.new_window(command=["/bin/sh", "-c", "echo bye; exit 7"], remain=True)
    assert created["type"] == "window_created"
    result = tuios_session.wait_for_exit(created["window_id"])
    assert result["exit_code"] == 7, result
    assert tuios_session.capture(created["window_id"]).splitlines()[0] == "bye"


def test_wait_timeout_is_a_typed_error_with_a_hint(tuios_session: TuiosSession) -> None:
    with pytest.raises(tuios.Timeout) as info:
        tuios_session.wait_for_output("this text never appears", timeout=200)
    err = info.value
    assert err.code == "timeout"
    assert "timed out" in err.message
    assert err.hint is not None and err.hint.verb == "capture-pane"
    # The connection is still in step after an error.
    assert tuios_session.client.list_sessions()["type"] == "session_list"


def test_daemon_errors_map_to_exceptions(tuios_session: TuiosSession) -> None:
    c = tuios_session.client
    with pytest.raises(tuios.SessionNotFound) as nf:
        c.capture_pane(session="no-such-session")
    assert nf.value.code == "session_not_found"
    assert nf.value.hint is not None and tuios_session.name in nf.value.hint.available

    with pytest.raises(tuios.WindowNotFound) as wnf:
        c.send_text("x", session=tuios_session.name, window="no-such-window")
    assert wnf.value.code == "window_not_found"
    assert wnf.value.hint is not None and wnf.value.hint.available

    with pytest.raises(tuios.UnknownVerb) as uv:
        c.call("capture-pan", {"session": tuios_session.name})
    assert uv.value.code == "unknown_verb"
    assert uv.value.hint is not None and uv.value.hint.did_you_mean == "capture-pane"
    assert "capture-pane" in str(uv.value)

    with pytest.raises(tuios.InvalidParams) as ip:
        c.call("capture-pane", {"session": tuios_session.name, "sorce": "recent"})
    assert ip.value.code == "invalid_params"
    assert ip.value.hint is not None and ip.value.hint.did_you_mean == "source"

    with pytest.raises(tuios.InvalidParams) as bad:
        c.capture_pane(session=tuios_session.name, source="everything")
    assert bad.value.hint is not None and set(bad.value.hint.accepted) >= {"visible", "recent"}

    with pytest.raises(tuios.NeedsClient) as nc:
        c.set_layout(session=tuios_session.name, tiling=True)
    assert nc.value.code == "needs_client"

    with pytest.raises(tuios.OptionNotFound) as onf:
        c.get_option("appearance.no_such_option", session=tuios_session.name)
    assert onf.value.code == "option_not_found"

    # Every one is a TuiosError carrying code, message and hint.
    assert all(isinstance(e.value, tuios.TuiosError) for e in (nf, wnf, uv, ip, nc, onf))


def test_connection_closed_by_daemon_is_reported(tuios_daemon: tuios.PrivateDaemon) -> None:
    c = Client(tuios_daemon.socket_path)
    tuios_daemon.stop()
    with pytest.raises(tuios.ConnectionClosed) as info:
        c.list_sessions()
    assert info.value.code == "connection_closed"
    c.close()


def test_a_late_answer_cannot_be_taken_for_the_next_one(tuios_session: TuiosSession) -> None:
    # The client gives up long before the daemon's own wait ends.
    c = Client(tuios_session.socket_path)
    with pytest.raises(tuios.NoAnswer) as info:
        c.call(
            "wait-for",
            {
                "condition": "window-output",
                "session": tuios_session.name,
                "pattern": "never",
                "timeout": 60_000,
            },
            timeout=0.2,
        )
    assert info.value.code == "no_answer"
    assert c.closed
    with pytest.raises(tuios.ConnectionClosed):
        c.list_sessions()
