"""Client for the tuios terminal session daemon's JSON control protocol.

from tuios import Client
with Client() as c:
    c.send_text("echo hi\\n", session="work")
    c.wait_for("window-output", session="work", pattern="(?m)^hi$", timeout=5000)
    print(c.capture_pane(session="work")["content"])
"""

__version__ = "0.1.0"

from . import errors  # noqa: E402
from ._connection import default_socket_path  # noqa: E402
from .client import Client  # noqa: E402
from .daemon import PrivateDaemon, find_binary  # noqa: E402
from .errors import *  # noqa: E402,F401,F403
from .events import Event, Gap, Subscription  # noqa: E402

__all__ = [
    "Client",
    "PrivateDaemon",
    "find_binary",
    "default_socket_path",
    "Event",
    "Gap",
    "Subscription",
    *errors.__all__,
]
