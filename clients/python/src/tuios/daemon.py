"""A private tuios daemon: own socket, own directory, stopped with everything in it."""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Mapping, Optional

from .errors import BinaryNotFound, DaemonStartFailed, Hint, TuiosError

#: Variables a private daemon does not pass on to its windows: another multiplexer's, and our
#: own from an enclosing tuios session (a test must not talk to the user's daemon).
SCRUBBED_PREFIXES = ("TUIOS_", "TMUX", "ZELLIJ")
SCRUBBED_NAMES = ("NOTIFY_SOCKET", "STY")


def find_binary(explicit: Optional[str] = None) -> str:
    """The ``tuios`` executable: ``explicit``, else ``$TUIOS_BIN``, else ``tuios`` on ``PATH``."""
    candidate = explicit or os.environ.get("TUIOS_BIN", "")
    if candidate:
        path = os.path.abspath(candidate) if os.sep in candidate else shutil.which(candidate)
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
        source = "given" if explicit else "named by TUIOS_BIN"
        raise BinaryNotFound(
            f"the tuios executable {source} ({candidate}) does not exist or is not executable",
            hint=_hint(
                "build it with `cargo build -p tuios-client` and point TUIOS_BIN at target/debug/tuios"
            ),
        )
    found = shutil.which("tuios")
    if found:
        return found
    raise BinaryNotFound(
        "the tuios executable was not found: TUIOS_BIN is not set and there is no tuios on PATH",
        hint=_hint(
            "build it with `cargo build -p tuios-client` and set TUIOS_BIN=$PWD/target/debug/tuios"
        ),
    )


def _hint(detail: str) -> Hint:
    return Hint(detail=detail, raw={"detail": detail})


class PrivateDaemon:
    """``tuios daemon`` on a socket in a fresh private directory, for tests and scripts.

    The daemon reports readiness over ``NOTIFY_SOCKET`` (the systemd protocol it speaks), so
    starting waits on that message rather than polling. Its windows run ``shell`` (default
    ``/bin/sh``) and see a scrubbed environment (no ``TUIOS_*``/``TMUX*`` from the caller) with
    ``XDG_CONFIG_HOME`` and ``XDG_STATE_HOME`` inside the private directory, so the caller's
    configuration does not leak in. Its log goes to ``log_path``.

        with PrivateDaemon() as d:
            d.new_session("work")
            with Client(d.socket_path) as c: ...
    """

    def __init__(
        self,
        binary: Optional[str] = None,
        *,
        shell: str = "/bin/sh",
        env: Optional[Mapping[str, str]] = None,
        log_level: Optional[str] = None,
        start_timeout: float = 15.0,
    ):
        self.binary = find_binary(binary)
        self.shell = shell
        self.extra_env: Dict[str, str] = dict(env or {})
        self.log_level = log_level
        self.start_timeout = start_timeout
        self.directory: Optional[str] = None
        self.process: Optional[subprocess.Popen[bytes]] = None

    @property
    def socket_path(self) -> str:
        if self.directory is None:
            raise TuiosError("the private daemon has not been started", code="not_started")
        return os.path.join(self.directory, "tuios.sock")

    @property
    def log_path(self) -> str:
        if self.directory is None:
            raise TuiosError("the private daemon has not been started", code="not_started")
        return os.path.join(self.directory, "daemon.log")

    @property
    def pid(self) -> Optional[int]:
        return self.process.pid if self.process is not None else None

    def environment(self) -> Dict[str, str]:
        """The environment the daemon (and so every window) starts with."""
        assert self.directory is not None
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(SCRUBBED_PREFIXES) and k not in SCRUBBED_NAMES
        }
        env.update(
            SHELL=self.shell,
            TUIOS_SOCKET=self.socket_path,
            XDG_CONFIG_HOME=os.path.join(self.directory, "config"),
            XDG_STATE_HOME=os.path.join(self.directory, "state"),
        )
        env.setdefault("TERM", "xterm-256color")
        env.update(self.extra_env)
        return env

    def start(self) -> "PrivateDaemon":
        if self.process is not None:
            raise TuiosError("the private daemon is already started", code="already_started")
        # mkdtemp makes the directory 0700: private, as the daemon and the client require.
        self.directory = tempfile.mkdtemp(prefix="tuios-py-")
        notify_path = os.path.join(self.directory, "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            notify.bind(notify_path)
            env = self.environment()
            env["NOTIFY_SOCKET"] = notify_path
            argv = [self.binary, "--socket", self.socket_path, "daemon"]
            if self.log_level:
                argv += ["--log-level", self.log_level]
            with open(self.log_path, "wb") as log:
                self.process = subprocess.Popen(
                    argv,
                    env=env,
                    cwd=self.directory,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    # Its own process group: a Ctrl+C meant for the test runner reaches it only
                    # through stop(), which waits for it to close its sessions.
                    start_new_session=True,
                )
            self._wait_ready(notify)
        except BaseException:
            self.stop()
            raise
        finally:
            notify.close()
        return self

    def _wait_ready(self, notify: socket.socket) -> None:
        assert self.process is not None
        watched: List[Any] = [notify]
        pidfd = -1
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(self.process.pid)  # readable once the process exits
                watched.append(pidfd)
            except OSError:
                pidfd = -1
        deadline = time.monotonic() + self.start_timeout
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise DaemonStartFailed(
                        f"the tuios daemon did not report ready within {self.start_timeout:g} s"
                        + self._log_tail(),
                        hint=_hint(f"its log is {self.log_path}"),
                    )
                # Without a pidfd (old kernels), wake now and then to notice an early exit.
                ready, _, _ = select.select(
                    watched, [], [], remaining if pidfd >= 0 else min(remaining, 0.1)
                )
                if notify in ready:
                    message = notify.recv(4096).decode("utf-8", "replace")
                    if re.search(r"(?m)^READY=1$", message):
                        return
                code = self.process.poll()
                if code is not None:
                    raise DaemonStartFailed(
                        f"the tuios daemon exited with status {code} before it was ready"
                        + self._log_tail(),
                        hint=_hint(f"its log is {self.log_path}"),
                    )
        finally:
            if pidfd >= 0:
                os.close(pidfd)

    def _log_tail(self, lines: int = 20) -> str:
        text = self.log().strip()
        if not text:
            return ""
        return "; its log ends with:\n" + "\n".join(text.splitlines()[-lines:])

    def log(self) -> str:
        """What the daemon has written to its log so far."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except (OSError, TuiosError):
            return ""

    def cli(self, *args: str, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        """Run ``tuios --socket SOCKET ARGS...`` against this daemon and return its result."""
        env = self.environment()
        return subprocess.run(
            [self.binary, "--socket", self.socket_path, *args],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def new_session(self, name: str) -> str:
        """Create a detached session with the CLI (``tuios new NAME -d``) and return its name."""
        done = self.cli("new", name, "-d")
        if done.returncode != 0:
            raise TuiosError(
                f"`tuios new {name} -d` failed with status {done.returncode}: "
                f"{(done.stderr or done.stdout).strip()}",
                code="new_session_failed",
            )
        return name

    def stop(self, timeout: float = 20.0) -> Optional[int]:
        """Stop the daemon (SIGTERM: it closes every session and ends their programs; SIGKILL
        if it has not exited after ``timeout`` seconds) and remove its directory. Returns its
        exit status."""
        code: Optional[int] = None
        proc, self.process = self.process, None
        if proc is not None:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            code = proc.returncode
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None
        return code

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def __enter__(self) -> "PrivateDaemon":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
