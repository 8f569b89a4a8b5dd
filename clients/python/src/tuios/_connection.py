"""Finding the daemon's socket, checking it is ours, and exchanging JSON lines over it."""

from __future__ import annotations

import errno
import json
import os
import shlex
import socket
import stat
import struct
import time
from typing import Any, Dict, Mapping, Optional

from .errors import (
    BadResponse,
    ConnectionClosed,
    DaemonNotRunning,
    Hint,
    NoAnswer,
    TuiosError,
    UnsafeSocket,
)

#: A response (a capture with scrollback) may be large, but not unboundedly so; the CLI's cap.
MAX_LINE_BYTES = 256 * 1024 * 1024


def default_socket_path(
    environ: Optional[Mapping[str, str]] = None, uid: Optional[int] = None
) -> str:
    """The socket the CLI uses: ``$TUIOS_SOCKET`` if set and non-empty (made absolute), else
    ``$XDG_RUNTIME_DIR/tuios/tuios.sock`` when that is an absolute path, else
    ``/tmp/tuios-$UID/tuios.sock``. Mirrors ``daemon::paths::socket_path``."""
    env = os.environ if environ is None else environ
    explicit = env.get("TUIOS_SOCKET", "")
    if explicit:
        return os.path.abspath(explicit)
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        return os.path.join(runtime, "tuios", "tuios.sock")
    if uid is None:
        uid = os.getuid()
    return f"/tmp/tuios-{uid}/tuios.sock"


def check_socket_dir(path: str) -> None:
    """Refuse a socket whose directory another user owns or that group or others can write to.

    This is the daemon's own rule for the directory it serves from: whoever can write there can
    replace the socket with theirs and read everything the client sends.
    """
    directory = os.path.dirname(path) or "."
    try:
        # Follows symlinks on purpose: what matters is the directory actually used.
        st = os.stat(directory)
    except FileNotFoundError:
        raise DaemonNotRunning(
            f"no tuios daemon on {path}: its directory {directory} does not exist",
            hint=_start_hint(path),
        ) from None
    except OSError as e:
        raise UnsafeSocket(
            f"cannot inspect the socket directory {directory}: {e.strerror}"
        ) from None
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeSocket(f"the socket directory {directory} is not a directory")
    me = os.geteuid()
    if st.st_uid != me:
        raise UnsafeSocket(
            f"the socket directory {directory} belongs to uid {st.st_uid}, not to you (uid {me}); "
            "its owner could replace the socket, so nothing is sent there",
            hint=_hint("choose a socket in a directory of your own with TUIOS_SOCKET"),
        )
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o022:
        # chmod is the fix only for a directory made for tuios; a shared one (sticky, like
        # /tmp, or named otherwise) must stay as it is: use a socket elsewhere instead.
        ours = not (mode & stat.S_ISVTX) and os.path.basename(directory).startswith("tuios")
        advice = (
            f"remove their write access (chmod go-w {directory}) or choose another socket "
            "with TUIOS_SOCKET"
            if ours
            else "set XDG_RUNTIME_DIR to a private directory, or choose a socket in a directory "
            "of your own with TUIOS_SOCKET"
        )
        raise UnsafeSocket(
            f"the socket directory {directory} has mode {mode:04o}: group or others can write to "
            "it and could replace the socket, so nothing is sent there",
            hint=_hint(advice),
        )


def peer_uid(sock: socket.socket) -> int:
    """The user id of the process on the other end of a connected Unix socket (SO_PEERCRED)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return int(uid)


def check_peer(sock: socket.socket, path: str, uid: int) -> None:
    """Refuse a connected socket whose listening process does not run as ``uid``.

    Checked before a single byte is sent: a socket in our directory could still be held by a
    process of another user (say, one started by root in our runtime directory).
    """
    peer = peer_uid(sock)
    if peer != uid:
        raise UnsafeSocket(
            f"the process listening on {path} runs as uid {peer}, not as you (uid {uid}); "
            "nothing is sent to it"
        )


def _hint(detail: str) -> Hint:
    return Hint(detail=detail, raw={"detail": detail})


def _start_hint(path: str) -> Hint:
    # As the CLI does: --socket only when the default lookup would pick another socket.
    flag = "" if path == default_socket_path() else f" --socket {shlex.quote(path)}"
    command = f"tuios{flag} new -d NAME"
    detail = (
        f"create a session, which starts the daemon, or run it in the foreground with "
        f"tuios{flag} daemon; or point TUIOS_SOCKET at a running daemon"
    )
    return Hint(command=command, detail=detail, raw={"command": command, "detail": detail})


class LineConnection:
    """One connection to the daemon: write JSON objects as lines, read lines back as objects.

    Not thread-safe: one thread talks on a connection at a time.
    """

    def __init__(self, path: str, *, timeout: Optional[float] = 30.0):
        self.path = path
        self.timeout = timeout
        check_socket_dir(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            raise DaemonNotRunning(
                f"no tuios daemon is running on {path}", hint=_start_hint(path)
            ) from None
        except socket.timeout:
            sock.close()
            raise NoAnswer(f"connecting to the tuios daemon on {path} timed out") from None
        except OSError as e:
            sock.close()
            raise TuiosError(
                f"cannot connect to the tuios daemon on {path}: {e.strerror or e}",
                code="connect_failed",
            ) from None
        try:
            check_peer(sock, path, os.geteuid())
        except BaseException:
            sock.close()
            raise
        self._sock: Optional[socket.socket] = sock
        self._buf = bytearray()

    @property
    def closed(self) -> bool:
        return self._sock is None

    def _require(self) -> socket.socket:
        if self._sock is None:
            raise ConnectionClosed(f"the connection to {self.path} is closed")
        return self._sock

    def send(self, obj: Mapping[str, Any]) -> None:
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
        sock = self._require()
        try:
            sock.settimeout(self.timeout)
            sock.sendall(line.encode("utf-8"))
        except socket.timeout:
            raise NoAnswer(f"the tuios daemon on {self.path} stopped reading requests") from None
        except OSError as e:
            if e.errno in (errno.EPIPE, errno.ECONNRESET):
                raise ConnectionClosed(
                    f"the tuios daemon on {self.path} closed the connection"
                ) from None
            raise

    def read(self, timeout: Optional[float]) -> Optional[Dict[str, Any]]:
        """The next line as an object; ``None`` once the daemon closed the connection.

        ``timeout`` is in seconds, ``None`` to wait as long as it takes. A partial line read
        before a timeout is kept for the next call, so a timeout never loses data.
        """
        sock = self._require()
        deadline = None if timeout is None else time.monotonic() + timeout
        scanned = 0  # bytes of the buffer known to hold no newline
        while True:
            nl = self._buf.find(b"\n", scanned)
            if nl >= 0:
                raw = bytes(self._buf[:nl])
                del self._buf[: nl + 1]
                scanned = 0
                if not raw.strip():
                    continue
                return _decode(raw, self.path)
            scanned = len(self._buf)
            if scanned > MAX_LINE_BYTES:
                self.close()
                raise BadResponse(
                    f"the daemon on {self.path} sent a line of over {MAX_LINE_BYTES} bytes"
                )
            try:
                if deadline is not None:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise socket.timeout()
                    sock.settimeout(remaining)
                else:
                    sock.settimeout(None)
                chunk = sock.recv(1 << 16)
            except socket.timeout:
                raise NoAnswer(
                    f"the tuios daemon on {self.path} did not answer within {timeout:g} s"
                ) from None
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                if self._buf.strip():
                    # The last line, cut short by the close.
                    raw = bytes(self._buf)
                    self._buf.clear()
                    return _decode(raw, self.path)
                return None
            self._buf += chunk

    def close(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None


def _decode(raw: bytes, path: str) -> Dict[str, Any]:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise BadResponse(
            f"the daemon on {path} sent a line that is not JSON ({e}): {raw[:200]!r}"
        ) from None
    if not isinstance(obj, dict):
        raise BadResponse(
            f"the daemon on {path} sent a line that is not a JSON object: {raw[:200]!r}"
        )
    return obj
