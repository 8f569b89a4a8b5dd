"""pytest plugin: a private tuios daemon and a fresh session per test.

Registered through the ``pytest11`` entry point, so installing the package is enough::

    def test_prompt(tuios_session):
        tuios_session.send_text("echo ready\\n")
        tuios_session.wait_for_output(r"(?m)^ready$")

When a test using ``tuios_session`` fails, the failure report carries the screen of every
window of its session (and the daemon's log if the daemon died). Everything is stopped after
the test: the daemon closes its sessions, ending the programs in them, and its directory is
removed.

Settings (ini file or command line): ``tuios_bin`` / ``--tuios-bin`` names the executable
(default ``$TUIOS_BIN``, then ``tuios`` on ``PATH``; a missing one is an error, never a skip);
``tuios_shell`` is the shell the windows run (default ``/bin/sh``).

Snapshots: ``tuios_session.assert_screen(name)`` compares a window's screen with the golden file
``__snapshots__/<test module>/<name>.txt`` beside the test (see :mod:`tuios.snapshots` for how
screens are normalised); ``--tuios-update-snapshots`` writes the files instead of comparing.
``tuios_session.record(window)`` records a window to an asciicast file kept under pytest's
temporary directory; a failed test's report lists the files.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import pytest

from . import snapshots
from .client import Client
from .daemon import PrivateDaemon
from .errors import Timeout, TuiosError
from .events import Subscription

#: Default wait in the session helpers, in milliseconds.
DEFAULT_WAIT_MS = 10_000


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("tuios")
    group.addoption(
        "--tuios-bin",
        dest="tuios_bin",
        default=None,
        help="tuios executable for the tuios_session fixture (default: $TUIOS_BIN, then PATH)",
    )
    group.addoption(
        snapshots.UPDATE_OPTION,
        dest="tuios_update_snapshots",
        action="store_true",
        default=False,
        help="write the golden files of tuios_session.assert_screen instead of comparing",
    )
    parser.addini("tuios_bin", "tuios executable for the tuios_session fixture", default="")
    parser.addini("tuios_shell", "shell run by the windows of tuios_session", default="/bin/sh")


class TuiosSession:
    """A fresh session on a private daemon; the value of the ``tuios_session`` fixture.

    ``client`` is a connected :class:`~tuios.Client` for any verb; the helpers here fill in
    the session (and, unless told otherwise, its first window). Times are milliseconds.
    """

    def __init__(
        self,
        daemon: PrivateDaemon,
        client: Client,
        name: str,
        test_file: Optional[str] = None,
        update_snapshots: bool = False,
        recordings_dir: Optional[Callable[[], str]] = None,
    ):
        self.daemon = daemon
        self.client = client
        self.name = name
        #: The test's file: snapshots live in ``__snapshots__/<its module>/`` beside it.
        self.test_file = test_file
        #: Write snapshots instead of comparing (``--tuios-update-snapshots``).
        self.update_snapshots = update_snapshots
        #: The .cast files :meth:`record` started; a failed test's report lists them.
        self.recordings: List[str] = []
        self._recordings_dir = recordings_dir
        #: Id of the window the session was created with.
        self.window: str = self.windows()[0]["window_id"]

    @property
    def socket_path(self) -> str:
        return self.daemon.socket_path

    def __repr__(self) -> str:
        return f"<TuiosSession {self.name!r} on {self.daemon.socket_path}>"

    def windows(self) -> List[Dict[str, Any]]:
        """The session's windows as ``list-windows`` reports them."""
        return list(self.client.list_windows(session=self.name).get("windows", []))

    def _target(self, window: Optional[str]) -> str:
        return window if window is not None else self.window

    def send_text(self, text: str, window: Optional[str] = None) -> Dict[str, Any]:
        return self.client.send_text(text, session=self.name, window=self._target(window))

    def send_keys(self, keys: str, window: Optional[str] = None) -> Dict[str, Any]:
        return self.client.send_keys(keys, session=self.name, window=self._target(window))

    def wait_for_output(
        self,
        pattern: str,
        window: Optional[str] = None,
        *,
        timeout: int = DEFAULT_WAIT_MS,
        source: Optional[str] = None,
        fresh: Optional[bool] = None,
    ) -> Dict[str, Any]:
        """Block until the window's text matches the regular expression ``pattern``
        (``wait-for window-output``); :class:`~tuios.errors.Timeout` if it does not in time."""
        return self.client.wait_for(
            "window-output",
            session=self.name,
            window=self._target(window),
            pattern=pattern,
            timeout=timeout,
            source=source,
            fresh=fresh,
        )

    def wait_for_exit(
        self, window: Optional[str] = None, *, timeout: int = DEFAULT_WAIT_MS
    ) -> Dict[str, Any]:
        """Block until the window's program exits; the result carries ``exit_code`` or ``signal``."""
        return self.client.wait_for(
            "window-exit", session=self.name, window=self._target(window), timeout=timeout
        )

    def wait_for_idle(
        self, window: Optional[str] = None, *, idle: int = 500, timeout: int = DEFAULT_WAIT_MS
    ) -> Dict[str, Any]:
        """Block until the window has printed nothing for ``idle`` milliseconds."""
        return self.client.wait_for(
            "window-idle",
            session=self.name,
            window=self._target(window),
            idle=idle,
            timeout=timeout,
        )

    def wait_for_settled(
        self, window: Optional[str] = None, *, idle: int = 300, timeout: int = DEFAULT_WAIT_MS
    ) -> Dict[str, Any]:
        """Block until the window's screen (text and styles, not the cursor) has not changed
        for ``idle`` milliseconds, counted from this call at the earliest (``wait-for
        screen-settled``). The result's ``hash`` is the settled screen's, as ``capture-pane``
        reports it. A screen that never stops moving (a spinner, a clock) raises
        :class:`~tuios.errors.Timeout`."""
        return self.client.wait_for(
            "screen-settled",
            session=self.name,
            window=self._target(window),
            idle=idle,
            timeout=timeout,
        )

    def assert_screen(self, name: str, window: Optional[str] = None, styled: bool = False) -> None:
        """Compare the window's visible screen with the snapshot ``name`` (the file
        ``__snapshots__/<test module>/<name>.txt`` beside the test); raise AssertionError with a
        row-by-row diff when they differ or the snapshot is missing. With
        ``--tuios-update-snapshots`` the snapshot is written from the screen instead. Wait for
        the screen first (:meth:`wait_for_settled`): the screen is taken as it is."""
        __tracebackhide__ = True  # pytest shows the test's line, not this one
        if self.test_file is None:
            raise RuntimeError("assert_screen needs the test's file: use the tuios_session fixture")
        path = snapshots.snapshot_path(self.test_file, name)
        screen = self.capture(window, styled=styled)
        snapshots.check(path, screen, self.update_snapshots)

    def record(
        self, window: Optional[str] = None, *, path: Optional[str] = None, input: bool = False
    ) -> List[str]:
        """Record the window to an asciicast v2 file (``record-start``) until the daemon stops
        after the test; returns the files. They go to ``path``, by default a directory under
        pytest's temporary directory (which outlives the test, unlike the daemon's), and a
        failed test's report lists them."""
        directory = path
        if directory is None:
            if self._recordings_dir is None:
                raise RuntimeError("record needs a directory outside the fixture: pass path")
            directory = self._recordings_dir()
        result = self.client.record_start(
            session=self.name, window=self._target(window), path=directory, input=input or None
        )
        files = [str(f) for f in result.get("files", [])]
        self.recordings.extend(files)
        return files

    def wait_for_prompt(
        self, window: Optional[str] = None, *, timeout: int = DEFAULT_WAIT_MS
    ) -> None:
        """Block until the window's shell has printed something, its prompt: text typed before
        that is echoed by the terminal ahead of the prompt, and output then starts mid-line.
        The fixture does this before the test starts."""
        try:
            self.wait_for_output(r"\S", window, timeout=timeout, source="visible")
        except Timeout as e:
            raise Timeout(
                f"the shell of session {self.name} printed no prompt within {timeout} ms",
                hint=e.hint,
            ) from e

    def capture(
        self,
        window: Optional[str] = None,
        *,
        source: str = "visible",
        lines: Optional[int] = None,
        styled: bool = False,
    ) -> str:
        """The window's text: the visible screen, or with ``source="recent"`` scrollback too;
        with ``styled``, ANSI styling included."""
        result = self.client.capture_pane(
            session=self.name,
            window=self._target(window),
            source=source,
            lines=lines,
            styled=styled or None,
        )
        return str(result.get("content", ""))

    def new_window(self, **params: Any) -> Dict[str, Any]:
        """``new-window`` in this session; takes that verb's parameters."""
        return self.client.new_window(session=self.name, **params)

    def run(
        self, command: str, window: Optional[str] = None, *, timeout: Optional[int] = None
    ) -> Dict[str, Any]:
        """Run ``command`` in the window's shell and return its output and exit status (the
        daemon's ``run`` verb; :class:`~tuios.errors.UnsupportedVerb` on a daemon without it)."""
        return self.client.run(
            command, session=self.name, window=self._target(window), timeout=timeout
        )

    def subscribe(self, **params: Any) -> Subscription:
        """An event stream limited to this session; takes ``subscribe``'s other parameters."""
        return self.client.subscribe(session=self.name, **params)

    def captures(self) -> List[Tuple[str, str]]:
        """(title, screen) for every window of the session, for failure reports."""
        out: List[Tuple[str, str]] = []
        with Client(self.socket_path, timeout=10.0, handshake=False) as c:
            rows = c.list_windows(session=self.name).get("windows", [])
            for row in rows:
                wid = row.get("window_id", "")
                title = (
                    f"tuios capture: session {self.name}, window {row.get('index')} "
                    f"{row.get('display_name') or row.get('title') or ''} ({wid[:8]})"
                )
                try:
                    content = c.capture_pane(session=self.name, window=wid).get("content", "")
                except TuiosError as e:
                    content = f"(capture failed: {e})"
                out.append((title, _trim(str(content))))
        return out


def _trim(screen: str) -> str:
    # Blank rows at the bottom of a screen say nothing in a report.
    return re.sub(r"\s+\Z", "", screen) + "\n"


def _session_name(item: Any) -> str:
    # Readable in reports; the daemon refuses '/', control characters and overlong names.
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", getattr(item, "name", "test")).strip("-.")
    return name[:48] or "test"


def _binary(config: Any) -> Optional[str]:
    return config.getoption("tuios_bin") or config.getini("tuios_bin") or None


@pytest.fixture
def tuios_daemon(request: Any) -> Iterator[PrivateDaemon]:
    """A private tuios daemon, stopped after the test (with every session in it)."""
    daemon = PrivateDaemon(_binary(request.config), shell=request.config.getini("tuios_shell"))
    daemon.start()
    _daemons(request.node).append(daemon)
    try:
        yield daemon
    finally:
        daemon.stop()


@pytest.fixture
def tuios_session(
    request: Any, tuios_daemon: PrivateDaemon, tmp_path_factory: Any
) -> Iterator[TuiosSession]:
    """A fresh session (one shell window) on a private daemon, with a connected client."""
    name = tuios_daemon.new_session(_session_name(request.node))
    client = Client(tuios_daemon.socket_path)
    try:

        def recordings_dir() -> str:
            return str(tmp_path_factory.mktemp("tuios-recordings"))

        session = TuiosSession(
            tuios_daemon,
            client,
            name,
            recordings_dir=recordings_dir,
            test_file=str(getattr(request.node, "path", None) or request.node.fspath),
            update_snapshots=bool(request.config.getoption("tuios_update_snapshots")),
        )
        _sessions(request.node).append(session)
        session.wait_for_prompt()
        yield session
    finally:
        client.close()


def _sessions(node: Any) -> List[TuiosSession]:
    if not hasattr(node, "_tuios_sessions"):
        node._tuios_sessions = []
    return node._tuios_sessions  # type: ignore[no-any-return]


def _daemons(node: Any) -> List[PrivateDaemon]:
    if not hasattr(node, "_tuios_daemons"):
        node._tuios_daemons = []
    return node._tuios_daemons  # type: ignore[no-any-return]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    """Attach each window's screen to the report of a failed test, before teardown stops the
    daemon; and the daemon's log when the daemon itself has died."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if not report.failed or report.when != "call":
        return
    for session in getattr(item, "_tuios_sessions", []):
        try:
            report.sections.extend(session.captures())
        except TuiosError as e:
            report.sections.append(
                (f"tuios capture: session {session.name}", f"(capture failed: {e})\n")
            )
    recordings = [f for s in getattr(item, "_tuios_sessions", []) for f in s.recordings]
    if recordings:
        # Written to the end: the daemon stops the recordings as it stops, before the report
        # is printed.
        report.sections.append(("tuios recordings", "\n".join(recordings) + "\n"))
    for daemon in getattr(item, "_tuios_daemons", []):
        if daemon.process is not None and not daemon.running:
            report.sections.append(("tuios daemon log (the daemon exited)", daemon.log()))
