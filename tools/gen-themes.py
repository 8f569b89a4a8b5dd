#!/usr/bin/env python3
"""Generate config/themes/builtin.json, the built-in theme catalogue, from maintained,
MIT-licensed colour-scheme collections published on npm:

  1. @electerm/electerm-themes  (iTerm2-Color-Schemes vendored as key=value files)
  2. tabby-community-color-schemes (iTerm2-Color-Schemes as Xresources strings)
  3. config/themes/vhs-extra.json: the schemes of charmbracelet/vhs's themes.json (the list
     bubbletint, and so the reference TUIOS, is generated from) whose ids the reference has and
     neither 1, 2 nor 4 has. vhs is not on npm, so the subset is kept here; `--vhs FILE` rewrites it from
     a copy of vhs's themes.json.
  4. config/themes/curated.json (the palettes tuios shipped before this catalogue), only for
     ids the collections do not have, so no theme a user may have chosen disappears.

Ids follow the reference TUIOS (bubbletint): the scheme's name in snake_case, splitting on
case and letter/digit changes ("AdventureTime" -> adventure_time, "Cobalt2" -> cobalt_2).

Usage: tools/gen-themes.py            fetch the pinned packages with `npm pack` and regenerate
       tools/gen-themes.py DIR...     read already unpacked packages (each DIR holds package/)
       tools/gen-themes.py --vhs FILE [DIR...]
                                      also refresh vhs-extra.json from vhs's themes.json FILE
Run from the repository root. The output is deterministic for the pinned versions.
"""
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

PACKAGES = [
    ("@electerm/electerm-themes", "1.0.2"),
    ("tabby-community-color-schemes", "1.0.163"),
]
OUT = "config/themes/builtin.json"
CURATED = "config/themes/curated.json"
VHS_EXTRA = "config/themes/vhs-extra.json"
GO_IDS = "config/themes/go-theme-ids.txt"
ATTRIBUTION = "config/themes/ATTRIBUTION.md"

ANSI_KEYS = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]


def snake(name):
    """bubbletint's id spelling: words split at case and digit changes, joined by '_'."""
    s = name.replace("+", " plus").replace("(", "").replace(")", "")
    s = re.sub(r"[\s\-.]", "_", s)
    out = []
    prev = ""
    for i, c in enumerate(s):
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if i > 0 and c != "_" and prev != "_":
            if (
                (c.isupper() and (prev.islower() or prev.isdigit()))
                or (c.isupper() and prev.isupper() and nxt.islower())
                or (c.isdigit() and prev.isalpha())
                or (c.isalpha() and prev.isdigit())
            ):
                out.append("_")
        out.append(c.lower())
        prev = c
    return re.sub(r"[^a-z0-9_]", "", "".join(out))


def hex6(c):
    c = c.strip().lower()
    if re.fullmatch(r"#[0-9a-f]{3}", c):
        c = "#" + "".join(ch * 2 for ch in c[1:])
    if not re.fullmatch(r"#[0-9a-f]{6}", c):
        raise ValueError(f"not a colour: {c!r}")
    return c


def luminance(c):
    def ch(v):
        v = v / 255.0
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (int(c[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)


def is_dark(bg):
    # Same test as config/src/themes.rs: white text would contrast more than black.
    lum = luminance(bg)
    return (1.05 / (lum + 0.05)) > ((lum + 0.05) / 0.05)


def theme(name, fg, bg, cursor, ansi):
    return {
        "id": snake(name),
        "display_name": name,
        "dark": is_dark(hex6(bg)),
        "fg": hex6(fg),
        "bg": hex6(bg),
        "cursor": hex6(cursor or fg),
        "ansi": [hex6(a) for a in ansi],
    }


def electerm(pkg):
    d = os.path.join(pkg, "dist", "themes")
    for f in sorted(os.listdir(d)):
        if not f.endswith(".txt"):
            continue
        kv = {}
        for line in open(os.path.join(d, f), encoding="utf-8"):
            if line.startswith("terminal:") and "=" in line:
                k, v = line[len("terminal:") :].strip().split("=", 1)
                kv[k] = v
        ansi = [kv[k] for k in ANSI_KEYS] + [
            kv["bright" + k[0].upper() + k[1:]] for k in ANSI_KEYS
        ]
        yield theme(f[:-4], kv["foreground"], kv["background"], kv.get("cursor"), ansi)


def tabby(pkg):
    js = open(os.path.join(pkg, "dist", "index.js"), encoding="utf-8").read()
    pat = re.compile(
        r"\./schemes/(.*?) \*\*\*.*?__WEBPACK_DEFAULT_EXPORT__ = \((\".*?\")\);", re.S
    )
    for name, lit in pat.findall(js):
        if not re.match(r"[A-Za-z0-9]", name):
            continue
        text = json.loads(lit)
        kv = dict(re.findall(r"^\*\.?(\w+):\s*(#[0-9a-fA-F]{3,6})\s*$", text, re.M))
        try:
            ansi = [kv[f"color{i}"] for i in range(16)]
            yield theme(name, kv["foreground"], kv["background"], kv.get("cursorColor"), ansi)
        except (KeyError, ValueError):
            print(f"skipping {name}: incomplete Xresources", file=sys.stderr)


def vhs(schemes):
    """Schemes in vhs's themes.json shape: a list of objects with name, foreground, background,
    cursor and camelCase ANSI keys (brightMagenta ...)."""
    for s in schemes:
        ansi = [s[k] for k in ANSI_KEYS] + [s["bright" + k[0].upper() + k[1:]] for k in ANSI_KEYS]
        yield theme(s["name"], s["foreground"], s["background"], s.get("cursor"), ansi)


def refresh_vhs_extra(path, have):
    """Keep from vhs's list only the reference's ids that neither the npm collections nor
    curated.json have: a palette tuios already shipped under an id is not swapped under users."""
    go = {line.strip() for line in open(GO_IDS, encoding="utf-8") if line.strip()}
    have = set(have) | {t["id"] for t in json.load(open(CURATED, encoding="utf-8"))}
    keep = [
        s for s in json.load(open(path, encoding="utf-8"))
        if snake(s["name"]) in go and snake(s["name"]) not in have
    ]
    keep.sort(key=lambda s: snake(s["name"]))
    with open(VHS_EXTRA, "w", encoding="utf-8") as f:
        f.write("[\n")
        f.write(",\n".join("  " + json.dumps(s, ensure_ascii=False) for s in keep))
        f.write("\n]\n")


def fetch(tmp):
    dirs = []
    for name, version in PACKAGES:
        out = subprocess.run(
            ["npm", "pack", f"{name}@{version}", "--silent"],
            cwd=tmp, check=True, capture_output=True, text=True,
        ).stdout.split()[-1]
        dest = os.path.join(tmp, out[:-4])
        with tarfile.open(os.path.join(tmp, out)) as t:
            t.extractall(dest, filter="data")
        dirs.append(dest)
    return dirs


def main():
    args = sys.argv[1:]
    vhs_file = None
    if args[:1] == ["--vhs"] and len(args) >= 2:
        vhs_file, args = args[1], args[2:]
    with tempfile.TemporaryDirectory() as tmp:
        dirs = args or fetch(tmp)
        readers = [electerm, tabby]
        themes = {}
        counts = []
        for reader, d in zip(readers, dirs):
            n = 0
            for t in reader(os.path.join(d, "package")):
                # The first collection to name an id wins; later ones only add.
                if t["id"] and t["id"] not in themes:
                    themes[t["id"]] = t
                    n += 1
            counts.append(n)
    if vhs_file:
        refresh_vhs_extra(vhs_file, themes)
    for extra in (vhs(json.load(open(VHS_EXTRA, encoding="utf-8"))),
                  json.load(open(CURATED, encoding="utf-8"))):
        n = 0
        for t in extra:
            if t["id"] not in themes:
                themes[t["id"]] = t
                n += 1
        counts.append(n)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("[\n")
        f.write(",\n".join("  " + json.dumps(themes[k], ensure_ascii=False) for k in sorted(themes)))
        f.write("\n]\n")
    print(
        f"{len(themes)} themes: {counts[0]} from {PACKAGES[0][0]}, {counts[1]} more from "
        f"{PACKAGES[1][0]}, {counts[2]} more from {VHS_EXTRA}, {counts[3]} more from {CURATED}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
