"""Exceptions: one class per stable error code of the daemon, plus the client's own failures.

Every exception derives from :class:`TuiosError` and carries ``code`` (a stable string that is
safe to branch on), ``message`` (for people) and ``hint`` (a :class:`Hint`, or ``None``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple, Type

__all__ = [
    "Hint",
    "TuiosError",
    "InvalidRequest",
    "UnknownVerb",
    "InvalidParams",
    "SessionNotFound",
    "WindowNotFound",
    "NoWindows",
    "PtyNotFound",
    "NeedsClient",
    "OptionNotFound",
    "CommandFailed",
    "Timeout",
    "ProtocolMismatch",
    "Internal",
    "DAEMON_ERRORS",
    "DaemonNotRunning",
    "UnsafeSocket",
    "ConnectionClosed",
    "NoAnswer",
    "StreamTimeout",
    "BadResponse",
    "UnsupportedVerb",
    "BinaryNotFound",
    "DaemonStartFailed",
    "error_from_wire",
]


@dataclass(frozen=True)
class Hint:
    """What the daemon suggests to resolve a failure. Every field is optional.

    ``raw`` keeps the hint object exactly as received, including fields a newer daemon adds.
    """

    verb: Optional[str] = None
    command: Optional[str] = None
    param: Optional[str] = None
    accepted: Tuple[str, ...] = ()
    did_you_mean: Optional[str] = None
    available: Tuple[str, ...] = ()
    detail: Optional[str] = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_wire(cls, obj: Any) -> Optional["Hint"]:
        if not isinstance(obj, dict) or not obj:
            return None

        def text(key: str) -> Optional[str]:
            v = obj.get(key)
            return v if isinstance(v, str) else None

        def strings(key: str) -> Tuple[str, ...]:
            v = obj.get(key)
            return tuple(s for s in v if isinstance(s, str)) if isinstance(v, list) else ()

        return cls(
            verb=text("verb"),
            command=text("command"),
            param=text("param"),
            accepted=strings("accepted"),
            did_you_mean=text("did_you_mean"),
            available=strings("available"),
            detail=text("detail"),
            raw=dict(obj),
        )

    def __str__(self) -> str:
        parts = []
        if self.detail:
            parts.append(self.detail.rstrip("."))
        if self.did_you_mean:
            parts.append(f"did you mean {self.did_you_mean!r}?")
        if self.param:
            parts.append(f"parameter: {self.param}")
        if self.accepted:
            parts.append("accepted: " + ", ".join(self.accepted))
        if self.available:
            shown = ", ".join(self.available[:20])
            more = len(self.available) - 20
            parts.append("available: " + shown + (f" (and {more} more)" if more > 0 else ""))
        if self.verb:
            parts.append(f"see the {self.verb} verb")
        if self.command:
            parts.append(f"try: {self.command}")
        return "; ".join(parts)


class TuiosError(Exception):
    """Base of every error this package raises."""

    #: The code this class stands for; an instance's ``code`` is what was actually received.
    CODE: str = ""

    def __init__(self, message: str, *, code: Optional[str] = None, hint: Optional[Hint] = None):
        self.code: str = code or self.CODE or "error"
        self.message: str = message
        self.hint: Optional[Hint] = hint
        super().__init__(message)

    def __str__(self) -> str:
        text = f"{self.message} [{self.code}]"
        hint = str(self.hint) if self.hint else ""
        return f"{text} (hint: {hint})" if hint else text

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, hint={self.hint!r})"


# --- The daemon's stable error codes (list-verbs' error_codes), one class each. ---


class InvalidRequest(TuiosError):
    """Not a usable request envelope, or the verb cannot be used in the connection's state."""

    CODE = "invalid_request"


class UnknownVerb(TuiosError):
    """No verb by that name; the hint carries the nearest spelling and every verb."""

    CODE = "unknown_verb"


class InvalidParams(TuiosError):
    """A parameter is missing, malformed or outside its accepted set; the hint names it."""

    CODE = "invalid_params"


class SessionNotFound(TuiosError):
    """No live session has that name; the hint lists the sessions that exist."""

    CODE = "session_not_found"


class WindowNotFound(TuiosError):
    """The window target matches no window; the hint lists the addressable windows."""

    CODE = "window_not_found"


class NoWindows(TuiosError):
    """The session exists but has no window to act on."""

    CODE = "no_windows"


class PtyNotFound(TuiosError):
    """The window's process has exited, so it has no live terminal."""

    CODE = "pty_not_found"


class NeedsClient(TuiosError):
    """The verb needs an attached client to draw the screen, and none is attached."""

    CODE = "needs_client"


class OptionNotFound(TuiosError):
    """No option has that path; the hint carries the nearest path and all of them."""

    CODE = "option_not_found"


class CommandFailed(TuiosError):
    """The verb was handed to the attached client, and the client reported a failure."""

    CODE = "command_failed"


class Timeout(TuiosError):
    """A wait did not match before its timeout ran out."""

    CODE = "timeout"


class ProtocolMismatch(TuiosError):
    """The caller's protocol version is outside the range the daemon serves."""

    CODE = "protocol_mismatch"


class Internal(TuiosError):
    """Something failed inside the daemon that the caller could not have caused."""

    CODE = "internal"


#: Every daemon error code and the class raised for it.
DAEMON_ERRORS: Dict[str, Type[TuiosError]] = {
    cls.CODE: cls
    for cls in (
        InvalidRequest,
        UnknownVerb,
        InvalidParams,
        SessionNotFound,
        WindowNotFound,
        NoWindows,
        PtyNotFound,
        NeedsClient,
        OptionNotFound,
        CommandFailed,
        Timeout,
        ProtocolMismatch,
        Internal,
    )
}


# --- Failures found by the client itself; their codes never come from the daemon. ---


class DaemonNotRunning(TuiosError):
    """Nothing listens on the socket (missing, or left behind by a daemon that stopped)."""

    CODE = "no_daemon"


class UnsafeSocket(TuiosError):
    """The socket's directory or the process behind it is not the caller's own.

    Nothing is sent: whoever controls the directory could have put their own socket there and
    would receive everything written to it.
    """

    CODE = "unsafe_socket"


class ConnectionClosed(TuiosError):
    """The daemon closed the connection before answering."""

    CODE = "connection_closed"


class NoAnswer(TuiosError):
    """The daemon did not answer within the client's read timeout."""

    CODE = "no_answer"


class StreamTimeout(Timeout):
    """No event that was asked for arrived in time (a client-side wait on a subscription)."""

    CODE = "stream_timeout"


class BadResponse(TuiosError):
    """The daemon sent something that is not a valid response line."""

    CODE = "bad_response"


class UnsupportedVerb(TuiosError):
    """The daemon does not offer the verb this method needs (it is older than the client)."""

    CODE = "unsupported_verb"


class BinaryNotFound(TuiosError):
    """The tuios executable could not be found (``TUIOS_BIN``, then ``PATH``)."""

    CODE = "binary_not_found"


class DaemonStartFailed(TuiosError):
    """A private daemon did not start or did not report itself ready."""

    CODE = "daemon_start_failed"


def error_from_wire(obj: Any) -> TuiosError:
    """The exception for an ``error`` object of a response line.

    A code this client does not know (from a newer daemon) gives a plain :class:`TuiosError`
    that still carries it.
    """
    if not isinstance(obj, dict):
        return BadResponse(f"the daemon sent an error that is not an object: {obj!r}")
    code = obj.get("code")
    code = code if isinstance(code, str) and code else "internal"
    message = obj.get("message")
    message = (
        message if isinstance(message, str) else "the daemon reported an error without a message"
    )
    cls = DAEMON_ERRORS.get(code, TuiosError)
    return cls(message, code=code, hint=Hint.from_wire(obj.get("hint")))
