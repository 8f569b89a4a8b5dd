"""Shared fixtures. The ``tuios_session`` and ``tuios_daemon`` fixtures come from the installed
package's pytest plugin (entry point ``pytest11``), exactly as a user's suite gets them."""

from __future__ import annotations

import pytest

from tuios import find_binary

pytest_plugins = ["pytester"]


@pytest.fixture
def tuios_bin() -> str:
    """The binary under test; a missing one raises BinaryNotFound (an error, not a skip)."""
    return find_binary()
