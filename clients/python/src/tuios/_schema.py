"""How list-verbs' names and types become Python names and annotations.

Shared by the generator (tools/gen_verbs.py) and the check against a live daemon, so both read
the daemon's schema the same way.
"""

from __future__ import annotations

import keyword
from typing import Any, Mapping

#: list-verbs parameter types and the Python annotation each becomes.
TYPES = {
    "string": "str",
    "int": "int",
    "bool": "bool",
    "[]string": "Sequence[str]",
    "[]int": "Sequence[int]",
}


def method_name(verb: str) -> str:
    """``capture-pane`` -> ``capture_pane``."""
    return verb.replace("-", "_")


def param_name(name: str) -> str:
    """A parameter's Python name: dashes become underscores, and a keyword gets a trailing ``_``."""
    py = name.replace("-", "_")
    return py + "_" if keyword.iskeyword(py) else py


def annotation(param: Mapping[str, Any]) -> str:
    """The annotation of one list-verbs parameter, without the Optional of an omitted one.

    Accepted values are listed in the docstring rather than made a ``Literal``: a schema's
    accepted set is per item, and some parameters take several of them joined by commas.
    """
    kind = param.get("type", "")
    if kind not in TYPES:
        raise ValueError(f"list-verbs parameter {param.get('name')!r} has an unknown type {kind!r}")
    return TYPES[kind]
