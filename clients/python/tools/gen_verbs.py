#!/usr/bin/env python3
"""Write src/tuios/_verbs.py, one method per verb, from a daemon's list-verbs.

    TUIOS_BIN=target/debug/tuios python3 clients/python/tools/gen_verbs.py        # private daemon
    python3 clients/python/tools/gen_verbs.py --socket /run/user/1000/tuios/tuios.sock
    python3 clients/python/tools/gen_verbs.py --from-json list-verbs.json      # saved result

Run it after a verb or parameter changes in the daemon; tests/test_verbs.py fails until then.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from typing import Any, Dict, List, Mapping

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "src"))
sys.path.insert(0, SRC)


def _load_schema() -> Any:
    # Loaded by path, not through the package, so a missing or broken _verbs.py (the file this
    # writes) cannot stop the generator.
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "_tuios_schema", os.path.join(SRC, "tuios", "_schema.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_schema = _load_schema()
annotation, method_name, param_name = _schema.annotation, _schema.method_name, _schema.param_name

TARGET = os.path.join(SRC, "tuios", "_verbs.py")
#: Verbs whose method Client writes by hand, because it returns something other than the
#: result object; they are still listed in VERB_METHODS.
HANDWRITTEN = {
    "subscribe": "returns a Subscription reading a connection of its own",
    "run": "refuses with UnsupportedVerb on a daemon without the verb",
}
WIDTH = 96


def fetch(args: argparse.Namespace) -> Dict[str, Any]:
    if args.from_json:
        with open(args.from_json, encoding="utf-8") as f:
            data = json.load(f)
        result: Dict[str, Any] = data.get("result", data)
        return result
    from tuios import Client, PrivateDaemon

    if args.socket:
        with Client(args.socket) as c:
            return c.call("list-verbs")
    with PrivateDaemon() as d, Client(d.socket_path) as c:
        return c.call("list-verbs")


def wrap(text: str, indent: str) -> List[str]:
    return textwrap.wrap(
        text,
        WIDTH - len(indent),
        initial_indent=indent,
        subsequent_indent=indent,
        break_on_hyphens=False,
    ) or [indent.rstrip()]


def hanging(text: str) -> List[str]:
    """An Args/Returns entry: first line at 12 spaces, continuation lines at 16."""
    first, *rest = textwrap.wrap(text, WIDTH - 12, break_on_hyphens=False) or [""]
    rest = textwrap.wrap(" ".join(rest), WIDTH - 16, break_on_hyphens=False) if rest else []
    return ["            " + first] + ["                " + r for r in rest]


def doc_text(s: str) -> str:
    # Docstrings are plain, not raw: keep backslashes and quotes from ending them early.
    return s.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def render_method(v: Mapping[str, Any]) -> List[str]:
    verb = v["verb"]
    params = v.get("params") or []
    required = [p for p in params if p.get("required")]
    optional = [p for p in params if not p.get("required")]
    sig = ["self"]
    for p in required:
        sig.append(f"{param_name(p['name'])}: {annotation(p)}")
    if optional:
        sig.append("*")
        for p in optional:
            sig.append(f"{param_name(p['name'])}: Optional[{annotation(p)}] = None")
    out = []
    head = f"    def {method_name(verb)}("
    one = head + ", ".join(sig) + ") -> Dict[str, Any]:"
    if len(one) <= WIDTH:
        out.append(one)
    else:
        out.append(head)
        for s in sig:
            out.append(f"        {s},")
        out.append("    ) -> Dict[str, Any]:")
    summary = f"``{verb}``: " + doc_text(v.get("description", "")).strip()
    doc = wrap('"""' + summary, "        ")
    if params:
        doc += ["", "        Args:"]
        for p in params:
            extra = []
            if p.get("accepted"):
                extra.append("Accepted: " + ", ".join(p["accepted"]) + ".")
            if "default" in p:
                extra.append(f"Default: {p['default']}.")
            text = " ".join([p.get("description", "").strip()] + extra)
            doc += hanging(f"{param_name(p['name'])}: {doc_text(text)}")
    returns = v.get("returns") or []
    if returns:
        doc += ["", "        Returns:"]
        doc += wrap("The result object, with these keys among others:", "            ")
        for r in returns:
            text = f"{r['name']} ({r.get('type', '')}): {r.get('description', '').strip()}"
            doc += hanging(doc_text(text))
    doc.append('        """')
    out.extend(doc)
    items = ", ".join(f"{json.dumps(p['name'])}: {param_name(p['name'])}" for p in params)
    call = f"        return self._verb({json.dumps(verb)}, {{{items}}})"
    if len(call) <= WIDTH:
        out.append(call)
    else:
        out.append("        return self._verb(")
        out.append(f"            {json.dumps(verb)},")
        out.append("            {")
        for p in params:
            out.append(f"                {json.dumps(p['name'])}: {param_name(p['name'])},")
        out.append("            },")
        out.append("        )")
    return out


def render(listing: Mapping[str, Any]) -> str:
    verbs = sorted(listing["verbs"], key=lambda v: v["verb"])
    lines = [
        "# Generated by clients/python/tools/gen_verbs.py from the list-verbs of tuios daemon "
        f"{listing.get('daemon_version', '?')}.",
        "# Do not edit by hand; regenerate with:",
        "#   TUIOS_BIN=target/debug/tuios python3 clients/python/tools/gen_verbs.py",
        '"""One method per verb of the control protocol, generated from the daemon\'s list-verbs."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, Dict, Optional, Sequence",
        "",
        "#: The control protocol version these methods were generated from.",
        f"PROTOCOL_VERSION = {int(listing.get('version', 0))}",
        "",
        "#: Every verb the generating daemon offered, and the method that sends it.",
        "VERB_METHODS: Dict[str, str] = {",
    ]
    for v in verbs:
        lines.append(f"    {json.dumps(v['verb'])}: {json.dumps(method_name(v['verb']))},")
    lines += [
        "}",
        "",
        "",
        "class VerbMethods:",
        '    """The verb methods. Parameters left as ``None`` are not sent (the daemon\'s default',
        "    applies); times are in milliseconds, as on the wire. Each returns the response's",
        '    ``result`` object, or raises the :class:`~tuios.errors.TuiosError` for its error code."""',
        "",
        "    def _verb(self, verb: str, params: Dict[str, Any]) -> Dict[str, Any]:",
        "        raise NotImplementedError",
    ]
    for v in verbs:
        lines.append("")
        if v["verb"] in HANDWRITTEN:
            lines.append(
                f"    # {v['verb']}: written by hand in Client ({HANDWRITTEN[v['verb']]})."
            )
            continue
        lines.extend(render_method(v))
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--socket", help="ask the daemon on this socket instead of starting one")
    ap.add_argument("--from-json", help="read a saved list-verbs response or result instead")
    ap.add_argument("--output", default=TARGET, help="where to write (default: %(default)s)")
    ap.add_argument("--check", action="store_true", help="only report whether the file is current")
    args = ap.parse_args()
    text = render(fetch(args))
    if args.check:
        with open(args.output, encoding="utf-8") as f:
            current = f.read() == text
        print(f"{args.output} is {'current' if current else 'out of date'}")
        return 0 if current else 1
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
