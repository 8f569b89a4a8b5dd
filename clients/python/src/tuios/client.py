"""The verb-protocol client."""

from __future__ import annotations

import itertools
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence

from . import __version__
from ._connection import LineConnection, default_socket_path
from ._verbs import PROTOCOL_VERSION, VerbMethods
from .errors import (
    BadResponse,
    ConnectionClosed,
    Hint,
    NoAnswer,
    UnsupportedVerb,
    error_from_wire,
)
from .events import Subscription

#: Read timeout of an ordinary call, in seconds.
DEFAULT_TIMEOUT = 30.0
#: Headroom over a wait's own timeout, so the daemon's typed ``timeout`` error arrives before
#: the client stops listening.
WAIT_SLACK = 10.0
#: The daemon's default ``wait-for`` timeout, in milliseconds.
DEFAULT_WAIT_MS = 30_000


class Client(VerbMethods):
    """A connection to the tuios daemon speaking the JSON control protocol.

    ``socket_path`` defaults to what the CLI uses (``TUIOS_SOCKET``, then
    ``$XDG_RUNTIME_DIR/tuios/tuios.sock``, then ``/tmp/tuios-$UID/tuios.sock``). Before a byte
    is sent, the socket's directory must be yours and not writable by group or others, and the
    process listening must run as you; otherwise :class:`~tuios.errors.UnsafeSocket` is raised.

    ``handshake`` sends ``hello`` with this client's protocol version, so a daemon too old or
    too new is refused at once (:class:`~tuios.errors.ProtocolMismatch`); its answer is kept in
    ``daemon``.

    Every verb is a method named like the verb with dashes as underscores
    (``capture-pane`` -> :meth:`capture_pane`). A client is not thread-safe; use one per thread.
    """

    def __init__(
        self,
        socket_path: Optional[str] = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        handshake: bool = True,
        client_name: str = "tuios-python",
    ):
        self.socket_path: str = socket_path or default_socket_path()
        self.timeout = timeout
        self._conn = LineConnection(self.socket_path, timeout=timeout)
        self._ids = itertools.count(1)
        self._verbs: Optional[FrozenSet[str]] = None
        self._subscriptions: List[Subscription] = []
        self.daemon: Dict[str, Any] = {}
        if handshake:
            try:
                self.daemon = self.hello(
                    client=client_name, version=__version__, protocol=PROTOCOL_VERSION
                )
            except BaseException:
                self.close()
                raise

    # -- plumbing -------------------------------------------------------------------------

    def call(
        self,
        verb: str,
        params: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
    ) -> Dict[str, Any]:
        """Send one request and return its ``result``; raise the error's exception otherwise.

        ``timeout`` is how long to wait for the answer, in seconds (default: the client's, or
        for ``wait-for`` its own timeout plus headroom).
        """
        if timeout is None:
            timeout = self._read_timeout(verb, params or {})
        request_id = next(self._ids)
        request: Dict[str, Any] = {"id": request_id, "verb": verb}
        if params:
            request["params"] = dict(params)
        self._conn.send(request)
        try:
            line = self._conn.read(timeout)
        except NoAnswer as e:
            # The answer may still come and would be taken for the next request's: this
            # connection is out of step for good.
            self.close()
            raise NoAnswer(
                f"{e.message}; the connection is closed (its answer may still arrive), "
                "so make a new Client to go on",
                hint=Hint(
                    detail="raise the client's timeout for slow verbs",
                    raw={"detail": "raise the client's timeout for slow verbs"},
                ),
            ) from None
        if line is None:
            self.close()
            raise ConnectionClosed(
                f"the tuios daemon on {self.socket_path} closed the connection without answering {verb}"
            )
        if line.get("id") != request_id:
            self.close()
            raise BadResponse(
                f"the daemon answered request {line.get('id')!r} while {request_id} was expected"
            )
        if "error" in line:
            raise error_from_wire(line["error"])
        result = line.get("result")
        if not isinstance(result, dict):
            raise BadResponse(
                f"the response to {verb} has neither a result object nor an error: {line!r}"
            )
        return result

    def _verb(self, verb: str, params: Dict[str, Any]) -> Dict[str, Any]:
        return self.call(verb, {k: _wire(v) for k, v in params.items() if v is not None})

    def _read_timeout(self, verb: str, params: Mapping[str, Any]) -> float:
        if verb in ("wait-for", "run"):
            ms = params.get("timeout")
            ms = ms if isinstance(ms, int) and ms > 0 else DEFAULT_WAIT_MS
            return ms / 1000.0 + WAIT_SLACK
        return self.timeout

    def verbs(self) -> FrozenSet[str]:
        """The verbs the daemon offers (its list-verbs, asked once per client)."""
        if self._verbs is None:
            listing = self.call("list-verbs")
            self._verbs = frozenset(v["verb"] for v in listing.get("verbs", []) if "verb" in v)
        return self._verbs

    def supports(self, verb: str) -> bool:
        return verb in self.verbs()

    # -- verbs whose shape differs from a plain call ----------------------------------------

    def subscribe(
        self,
        *,
        session: Optional[str] = None,
        window: Optional[str] = None,
        types: Optional[Sequence[str]] = None,
        queue: Optional[int] = None,
    ) -> Subscription:
        """``subscribe``: open an event stream on a connection of its own and return it.

        Events come from the moment of subscription on (no backfill), so subscribe before you
        cause what you want to see. ``types`` filters by event type, ``session`` and ``window``
        by origin. ``queue`` is how many events the daemon buffers for a reader that falls
        behind (default 256); past it, events are dropped and one :class:`~tuios.events.Gap`
        carrying the dropped count comes before the next event.
        """
        conn = LineConnection(self.socket_path, timeout=self.timeout)
        try:
            params = {
                k: _wire(v)
                for k, v in (
                    ("session", session),
                    ("window", window),
                    ("types", types),
                    ("queue", queue),
                )
                if v is not None
            }
            conn.send({"id": "subscribe", "verb": "subscribe", "params": params})
            line = conn.read(self.timeout)
            if line is None:
                raise ConnectionClosed(
                    f"the tuios daemon on {self.socket_path} closed the connection without answering subscribe"
                )
            if "error" in line:
                raise error_from_wire(line["error"])
            ack = line.get("result")
            if line.get("id") != "subscribe" or not isinstance(ack, dict):
                raise BadResponse(f"unexpected answer to subscribe: {line!r}")
        except BaseException:
            conn.close()
            raise
        sub = Subscription(conn, ack, on_close=self._forget)
        self._subscriptions.append(sub)
        return sub

    def unsubscribe(self) -> Dict[str, Any]:
        """``unsubscribe``: end every stream this client opened with :meth:`subscribe`.

        With none open, the request goes to the daemon, which refuses it with
        :class:`~tuios.errors.InvalidRequest`. To end one stream, call its own
        :meth:`~tuios.events.Subscription.unsubscribe`.
        """
        if not self._subscriptions:
            return self.call("unsubscribe")
        result: Dict[str, Any] = {}
        for sub in list(self._subscriptions):
            result = sub.unsubscribe()
        return result

    def _forget(self, sub: Subscription) -> None:
        if sub in self._subscriptions:
            self._subscriptions.remove(sub)

    def run(
        self,
        command: str,
        *,
        session: Optional[str] = None,
        window: Optional[str] = None,
        timeout: Optional[int] = None,
    ) -> Dict[str, Any]:
        """``run``: type ``command`` into a window's shell, wait for it to finish, and return its
        output and exit status. ``timeout`` is in milliseconds.

        Needs a daemon that offers the ``run`` verb; an older one raises
        :class:`~tuios.errors.UnsupportedVerb` (nothing is sent to the window).
        """
        if not self.supports("run"):
            raise UnsupportedVerb(
                f"the tuios daemon on {self.socket_path} does not offer the run verb",
                hint=Hint(
                    verb="list-verbs",
                    detail="upgrade the daemon; until then, send-text plus wait-for does the same by hand",
                    raw={"verb": "list-verbs"},
                ),
            )
        params = {"session": session, "window": window, "command": command, "timeout": timeout}
        return self._verb("run", params)

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """Close this connection and every stream opened from it."""
        for sub in list(self._subscriptions):
            sub.close()
        self._conn.close()

    @property
    def closed(self) -> bool:
        return self._conn.closed

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<tuios.Client {self.socket_path} ({state})>"


def _wire(value: Any) -> Any:
    # Sequences go out as JSON arrays whatever their Python type (tuple, list...).
    if isinstance(value, (tuple, list)):
        return list(value)
    return value
