"""The event stream of ``subscribe``: events as objects, gaps made visible."""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, Iterator, Mapping, Optional

from ._connection import LineConnection
from .errors import BadResponse, ConnectionClosed, NoAnswer, StreamTimeout, error_from_wire


@dataclass(frozen=True)
class Event:
    """One event line. ``data`` is the whole line as received; the common fields are lifted out.

    Empty fields are absent on the wire; here they read as ``""`` or ``0``.
    """

    type: str
    seq: int = 0
    session: str = ""
    window: str = ""
    time: int = 0
    data: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def get(self, key: str, default: Any = None) -> Any:
        """Any field of the line, e.g. ``bytes`` on ``output`` or ``exit_code`` on ``window-exit``."""
        return self.data.get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    @property
    def is_gap(self) -> bool:
        return False

    @staticmethod
    def from_wire(obj: Mapping[str, Any]) -> "Event":
        kind = obj.get("type")
        if not isinstance(kind, str):
            raise BadResponse(f"an event line without a type: {dict(obj)!r}")
        common: Dict[str, Any] = dict(
            type=kind,
            seq=_int(obj.get("seq")),
            session=_str(obj.get("session")),
            window=_str(obj.get("window")),
            time=_int(obj.get("time")),
            data=dict(obj),
        )
        if kind == "gap":
            return Gap(dropped=_int(obj.get("dropped")), **common)
        return Event(**common)


@dataclass(frozen=True)
class Gap(Event):
    """The reader fell behind: the daemon's queue for this stream overflowed and ``dropped``
    events were discarded between the event before this one and the event after it.

    A gap carries no ``seq``. The events after it are newer than every event before it.
    """

    dropped: int = 0

    @property
    def is_gap(self) -> bool:
        return True


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


class Subscription(Iterator[Event]):
    """An open event stream on a connection of its own.

    Iterating blocks until the next event and ends when the stream ends (``unsubscribe``,
    ``close`` or the daemon going away). Gaps are yielded as :class:`Gap` events, in order,
    and also counted in ``gaps`` and ``dropped``.

    Use it as a context manager so the connection is closed::

        with client.subscribe(session="work", types=["window-exit"]) as events:
            ev = events.expect(lambda e: e.type == "window-exit", timeout=10)
    """

    def __init__(
        self,
        conn: LineConnection,
        ack: Mapping[str, Any],
        *,
        on_close: Optional[Callable[["Subscription"], None]] = None,
    ):
        self._conn: Optional[LineConnection] = conn
        self._pending: Deque[Event] = deque()
        self._on_close = on_close
        self._ended = False
        #: The subscribe result (``type``, ``seq``, ``queue`` and the filters in effect).
        self.ack: Dict[str, Any] = dict(ack)
        #: The last sequence number before the stream started; events have higher ones.
        self.seq: int = _int(ack.get("seq"))
        #: Gap events received so far, and the events they stood for.
        self.gaps: int = 0
        self.dropped: int = 0

    # -- iteration ------------------------------------------------------------------------

    def __iter__(self) -> "Subscription":
        return self

    def __next__(self) -> Event:
        ev = self.next_event(timeout=None)
        if ev is None:
            raise StopIteration
        return ev

    def next_event(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event; ``None`` once the stream has ended.

        ``timeout`` (seconds, ``None`` = no limit) raises :class:`StreamTimeout` when nothing
        arrives in time.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._pending:
                return self._pending.popleft()
            if self._ended or self._conn is None:
                return None
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                line = self._conn.read(remaining)
            except NoAnswer:
                raise StreamTimeout(f"no event arrived within {timeout:g} s") from None
            if line is None:
                self._end()
                return None
            ev = self._accept(line)
            if ev is not None:
                return ev

    def expect(
        self,
        predicate: Callable[[Event], bool],
        timeout: float = 30.0,
        what: str = "a matching event",
    ) -> Event:
        """Read until an event satisfies ``predicate`` and return it; events before it are read
        and passed over (gaps included, which still count in ``gaps``/``dropped``).

        Raises :class:`StreamTimeout` after ``timeout`` seconds, :class:`ConnectionClosed` if
        the stream ends first.
        """
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StreamTimeout(f"{what} did not arrive within {timeout:g} s")
            try:
                ev = self.next_event(timeout=remaining)
            except StreamTimeout:
                raise StreamTimeout(f"{what} did not arrive within {timeout:g} s") from None
            if ev is None:
                raise ConnectionClosed(f"the event stream ended before {what} arrived")
            if predicate(ev):
                return ev

    def _accept(self, line: Mapping[str, Any]) -> Optional[Event]:
        if "id" in line:
            # A response on the stream's own connection: only unsubscribe sends requests here.
            if "error" in line:
                raise error_from_wire(line["error"])
            return None
        ev = Event.from_wire(line)
        if isinstance(ev, Gap):
            self.gaps += 1
            self.dropped += ev.dropped
        return ev

    # -- ending ---------------------------------------------------------------------------

    def unsubscribe(self, timeout: float = 30.0) -> Dict[str, Any]:
        """Close the stream with the ``unsubscribe`` verb. Events that arrived before the daemon
        acknowledged are kept and still yielded; then iteration ends."""
        if self._conn is None or self._ended:
            raise ConnectionClosed("this subscription has already ended")
        self._conn.send({"id": "unsubscribe", "verb": "unsubscribe"})
        deadline = time.monotonic() + timeout
        while True:
            line = self._conn.read(max(0.0, deadline - time.monotonic()))
            if line is None:
                self._end()
                raise ConnectionClosed(
                    "the daemon closed the stream before acknowledging unsubscribe"
                )
            if line.get("id") == "unsubscribe":
                if "error" in line:
                    raise error_from_wire(line["error"])
                self._end()
                result = line.get("result")
                return dict(result) if isinstance(result, dict) else {}
            ev = self._accept(line)
            if ev is not None:
                self._pending.append(ev)

    def close(self) -> None:
        """Close the connection; events not yet read are discarded."""
        self._pending.clear()
        self._end()

    def _end(self) -> None:
        self._ended = True
        if self._conn is not None:
            self._conn.close()
            self._conn = None
            if self._on_close is not None:
                self._on_close(self)

    @property
    def closed(self) -> bool:
        return self._conn is None

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
