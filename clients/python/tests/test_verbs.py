"""The client's methods against a live daemon's list-verbs: every verb has a method with the
same parameters, and every daemon error code has an exception class.

When one of these fails after a daemon change, regenerate the methods:
    TUIOS_BIN=target/debug/tuios python3 clients/python/tools/gen_verbs.py
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, List

import pytest

import tuios
from tuios import Client
from tuios._schema import TYPES, method_name, param_name
from tuios._verbs import VERB_METHODS
from tuios.pytest_plugin import TuiosSession

REGENERATE = (
    "regenerate with: TUIOS_BIN=target/debug/tuios python3 clients/python/tools/gen_verbs.py"
)


@pytest.fixture
def listing(tuios_daemon: tuios.PrivateDaemon) -> Dict[str, Any]:
    with Client(tuios_daemon.socket_path) as c:
        return c.list_verbs()


def _expected_annotation(param: Dict[str, Any]) -> str:
    base = TYPES[param["type"]]
    return base if param.get("required") else f"Optional[{base}]"


def test_every_daemon_verb_has_a_method_with_the_same_parameters(listing: Dict[str, Any]) -> None:
    problems: List[str] = []
    for verb in listing["verbs"]:
        name = method_name(verb["verb"])
        method = getattr(Client, name, None)
        if method is None or not callable(method):
            problems.append(f"{verb['verb']}: no method Client.{name}")
            continue
        sig = inspect.signature(method)
        got = {p.name: p for p in sig.parameters.values() if p.name != "self"}
        want = {param_name(p["name"]): p for p in verb.get("params") or []}
        for missing in sorted(set(want) - set(got)):
            problems.append(f"{verb['verb']}: Client.{name} lacks parameter {missing}")
        for extra in sorted(set(got) - set(want)):
            problems.append(
                f"{verb['verb']}: Client.{name} has parameter {extra}, which the daemon does not take"
            )
        for py, spec in want.items():
            p = got.get(py)
            if p is None:
                continue
            required = p.default is inspect.Parameter.empty
            if required != bool(spec.get("required")):
                problems.append(
                    f"{verb['verb']}: {py} is {'required' if required else 'optional'} "
                    f"in Client.{name} but not in the daemon"
                )
            if str(p.annotation) != _expected_annotation(spec):
                problems.append(
                    f"{verb['verb']}: {py} is annotated {p.annotation}, "
                    f"the daemon's type is {spec['type']}"
                )
    assert not problems, "\n".join(problems + [REGENERATE])


def test_every_generated_method_is_a_daemon_verb(listing: Dict[str, Any]) -> None:
    offered = {v["verb"] for v in listing["verbs"]}
    stale = sorted(set(VERB_METHODS) - offered)
    assert not stale, f"methods for verbs the daemon no longer has: {stale}; {REGENERATE}"
    assert listing["version"] == tuios._verbs.PROTOCOL_VERSION, REGENERATE


def test_every_method_sends_its_verb_with_wire_names(tuios_daemon: tuios.PrivateDaemon) -> None:
    """Call every parameterless-safe verb through its method: the daemon accepts what the
    method sends (an unknown parameter would be refused with invalid_params)."""
    with Client(tuios_daemon.socket_path) as c:
        assert c.list_sessions()["type"] == "session_list"
        assert c.list_verbs(verb="send-text")["verbs"][0]["verb"] == "send-text"
        assert c.list_options(section="appearance")["type"]
        assert c.hello(client="t", protocol=tuios._verbs.PROTOCOL_VERSION)["type"] == "hello"


def test_every_daemon_error_code_has_its_exception(listing: Dict[str, Any]) -> None:
    codes = [e["code"] for e in listing["error_codes"]]
    assert sorted(codes) == sorted(tuios.DAEMON_ERRORS), "error codes and exception classes differ"
    for code in codes:
        cls = tuios.DAEMON_ERRORS[code]
        assert issubclass(cls, tuios.TuiosError)
        err = tuios.error_from_wire({"code": code, "message": "m", "hint": {"param": "p"}})
        assert (
            type(err) is cls and err.code == code and err.hint is not None and err.hint.param == "p"
        )


def test_unknown_error_code_still_carries_its_code() -> None:
    err = tuios.error_from_wire({"code": "brand_new", "message": "from a newer daemon"})
    assert type(err) is tuios.TuiosError
    assert (err.code, err.message, err.hint) == ("brand_new", "from a newer daemon", None)


def test_run_uses_the_run_verb_or_refuses_clearly(tuios_session: TuiosSession) -> None:
    """Client.run is written ahead of the daemon's run verb: it refuses on a daemon without it."""
    client = tuios_session.client
    if not client.supports("run"):
        before = tuios_session.capture()
        with pytest.raises(tuios.UnsupportedVerb) as info:
            tuios_session.run("echo never-typed", timeout=5000)
        assert info.value.code == "unsupported_verb"
        assert "run verb" in info.value.message
        # Refused without touching the window.
        tuios_session.wait_for_idle(idle=200)
        assert "never-typed" not in tuios_session.capture()
        assert "never-typed" not in before
        return
    result = tuios_session.run(
        "printf 'a\\nb\\n'; exit_with() { return $1; }; exit_with 3", timeout=10000
    )
    assert result["output"] == "a\nb\n", result
    assert result["exit_code"] == 3, result


def test_new_session_over_json_then_run(tuios_session: TuiosSession, tmp_path: Any) -> None:
    """A harness needs neither the CLI nor the binary protocol to start a session."""
    client = tuios_session.client
    name = tuios_session.name + "-json"
    created = client.new_session(
        name=name, width=100, height=30, cwd=str(tmp_path), env=["HARNESS_VAR=from-json"]
    )
    try:
        assert created["name"] == name and created["window_id"], created
        assert (created["width"], created["height"]) == (100, 30), created
        result = client.run('pwd; echo "$HARNESS_VAR"', session=name, timeout=10000)
        assert result["output"] == f"{tmp_path}\nfrom-json\n", result
        assert result["exit_code"] == 0, result
        with pytest.raises(tuios.InvalidParams) as info:
            client.new_session(name=name)
        assert info.value.hint is not None and info.value.hint.param == "name"
    finally:
        client.kill_session(session=name)
