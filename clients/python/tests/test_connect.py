"""Finding the socket as the CLI does, and refusing sockets that are not safely ours."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
from typing import Dict

import pytest

import tuios
from tuios import Client, DaemonNotRunning, UnsafeSocket, default_socket_path


def test_plugin_is_registered_through_its_entry_point(pytestconfig: pytest.Config) -> None:
    # Loaded because the package is installed, not because a conftest names it.
    plugin = pytestconfig.pluginmanager.get_plugin("tuios")
    assert plugin is not None
    assert plugin.__name__ == "tuios.pytest_plugin"


@pytest.mark.parametrize(
    "env, expected",
    [
        (
            {"TUIOS_SOCKET": "{dir}/explicit.sock", "XDG_RUNTIME_DIR": "{dir}/run"},
            "{dir}/explicit.sock",
        ),
        ({"TUIOS_SOCKET": "", "XDG_RUNTIME_DIR": "{dir}/run"}, "{dir}/run/tuios/tuios.sock"),
        ({"XDG_RUNTIME_DIR": "{dir}/run"}, "{dir}/run/tuios/tuios.sock"),
    ],
    ids=["explicit", "empty-explicit-then-runtime-dir", "runtime-dir"],
)
def test_default_socket_path_is_the_one_the_cli_uses(
    tuios_bin: str, tmp_path: "os.PathLike[str]", env: Dict[str, str], expected: str
) -> None:
    environ = {k: v for k, v in os.environ.items() if k not in ("TUIOS_SOCKET", "XDG_RUNTIME_DIR")}
    environ.update({k: v.format(dir=tmp_path) for k, v in env.items()})
    path = default_socket_path(environ)
    assert path == expected.format(dir=tmp_path)
    # The CLI names the socket it looked for when no daemon answers there.
    done = subprocess.run(
        [tuios_bin, "ls"], env=environ, capture_output=True, text=True, timeout=30
    )
    assert done.returncode != 0, done
    assert f"no tuios daemon is running on {path}" in done.stderr, (path, done.stderr)


def test_fallback_socket_path_without_a_runtime_dir() -> None:
    # Not cross-checked with the CLI: a daemon of the machine's user may really run there.
    assert default_socket_path({}, uid=1234) == "/tmp/tuios-1234/tuios.sock"
    assert (
        default_socket_path({"XDG_RUNTIME_DIR": "relative/run"}, uid=7) == "/tmp/tuios-7/tuios.sock"
    )
    assert (
        default_socket_path({"XDG_RUNTIME_DIR": "", "TUIOS_SOCKET": ""}, uid=7)
        == "/tmp/tuios-7/tuios.sock"
    )
    assert default_socket_path({"TUIOS_SOCKET": "rel.sock"}) == os.path.abspath("rel.sock")


def test_connects_through_tuios_socket_and_shakes_hands(
    tuios_daemon: tuios.PrivateDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TUIOS_SOCKET", tuios_daemon.socket_path)
    with Client() as c:
        assert c.socket_path == tuios_daemon.socket_path
        assert c.daemon["type"] == "hello"
        assert c.daemon["pid"] == tuios_daemon.pid
        assert c.daemon["min_protocol"] <= tuios._verbs.PROTOCOL_VERSION <= c.daemon["protocol"]
        assert c.list_sessions()["sessions"] == []


def test_missing_daemon_is_reported_with_a_hint(tmp_path: "os.PathLike[str]") -> None:
    os.chmod(tmp_path, 0o700)
    path = os.path.join(str(tmp_path), "tuios.sock")
    with pytest.raises(DaemonNotRunning) as info:
        Client(path)
    assert info.value.code == "no_daemon"
    assert path in info.value.message
    assert info.value.hint is not None and "new -d" in (info.value.hint.command or "")


def _listener(directory: str) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(os.path.join(directory, "tuios.sock"))
    server.listen(4)
    server.setblocking(False)
    return server


def _nobody_connected(server: socket.socket) -> bool:
    try:
        conn, _ = server.accept()
    except BlockingIOError:
        return True
    conn.close()
    return False


def _refusal_in(mode: int) -> "tuple[UnsafeSocket, bool]":
    """Connect to a listener in a directory of `mode`: the refusal, and whether nobody connected."""
    directory = tempfile.mkdtemp(prefix="tuios-py-test-")
    try:
        server = _listener(directory)
        os.chmod(directory, mode)
        with pytest.raises(UnsafeSocket) as info:
            Client(os.path.join(directory, "tuios.sock"))
        untouched = _nobody_connected(server)
        server.close()
        return info.value, untouched
    finally:
        os.chmod(directory, 0o700)
        subprocess.run(["rm", "-rf", directory], check=True)


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777])
def test_refuses_a_directory_others_can_write_before_connecting(mode: int) -> None:
    err, untouched = _refusal_in(mode)
    assert err.code == "unsafe_socket"
    assert f"{mode:04o}" in err.message
    assert err.hint is not None and "chmod go-w" in (err.hint.detail or "")
    # Refused before connecting: not a byte, not even a connection.
    assert untouched


def test_a_shared_sticky_directory_gets_advice_that_leaves_it_alone() -> None:
    # /tmp-like: sticky and writable by all. chmod would be the wrong advice there.
    err, _ = _refusal_in(0o1777)
    detail = (err.hint.detail or "") if err.hint else ""
    assert "chmod" not in detail
    assert "XDG_RUNTIME_DIR" in detail and "TUIOS_SOCKET" in detail


def test_accepts_a_directory_others_can_only_read() -> None:
    # The daemon's own rule: only write access lets someone replace the socket.
    directory = tempfile.mkdtemp(prefix="tuios-py-test-")
    try:
        server = _listener(directory)
        os.chmod(directory, 0o755)
        conn = tuios._connection.LineConnection(os.path.join(directory, "tuios.sock"), timeout=5)
        assert _accepted_a_connection(server)
        conn.close()
        server.close()
    finally:
        subprocess.run(["rm", "-rf", directory], check=True)


def _accepted_a_connection(server: socket.socket) -> bool:
    server.settimeout(5)
    try:
        conn, _ = server.accept()
    except socket.timeout:
        return False
    conn.close()
    return True


def test_refuses_a_directory_owned_by_someone_else() -> None:
    # "/" belongs to root; for root itself, a directory chowned to nobody stands in.
    if os.geteuid() != 0:
        with pytest.raises(UnsafeSocket, match="belongs to uid 0"):
            Client("/tuios.sock")
        return
    directory = tempfile.mkdtemp(prefix="tuios-py-test-")
    try:
        os.chown(directory, 65534, 65534)
        with pytest.raises(UnsafeSocket, match="belongs to uid 65534"):
            Client(os.path.join(directory, "tuios.sock"))
    finally:
        subprocess.run(["rm", "-rf", directory], check=True)


def test_refuses_a_listener_running_as_another_user() -> None:
    """SO_PEERCRED reports who called listen(); a process of another user listening in our own
    directory must get nothing."""
    directory = tempfile.mkdtemp(prefix="tuios-py-test-")
    path = os.path.join(directory, "tuios.sock")
    try:
        if os.geteuid() != 0:
            # Without privileges no process of another user can listen in our directory; check
            # the same comparison on a real peer (ourselves) told to expect another uid.
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(path)
            server.listen(1)
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.connect(path)
            assert tuios._connection.peer_uid(client) == os.geteuid()
            with pytest.raises(UnsafeSocket, match=f"runs as uid {os.geteuid()}"):
                tuios._connection.check_peer(client, path, os.geteuid() + 1)
            client.close()
            server.close()
            return
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        ready_r, ready_w = os.pipe()
        done_r, done_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: become nobody, then listen, so the socket's credentials are nobody's
            try:
                os.setgid(65534)
                os.setuid(65534)
                server.listen(4)
                os.write(ready_w, b"x")
                os.read(done_r, 1)
            finally:
                os._exit(0)
        server.close()
        try:
            assert os.read(ready_r, 1) == b"x"
            with pytest.raises(UnsafeSocket, match="runs as uid 65534"):
                Client(path)
        finally:
            os.write(done_w, b"x")
            os.waitpid(pid, 0)
    finally:
        subprocess.run(["rm", "-rf", directory], check=True)
