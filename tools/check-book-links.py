#!/usr/bin/env python3
"""Check every relative link of the built book (mdbook build docs): the file it names exists and,
when it names an anchor, the page has an element with that id. External links (http:, https:,
mailto:) are not fetched: CI has no business depending on other sites. Standard library only.

Usage: tools/check-book-links.py [BOOK_DIR]   (default docs/book); exit status 1 on a broken link.
"""
import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()
        self.links = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append((tag, attrs[key], self.getpos()[0]))


def parse(path, cache):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "docs/book")
    if not os.path.isfile(os.path.join(root, "index.html")):
        sys.exit(f"{root} holds no built book: run `mdbook build docs` first")
    cache, broken, checked = {}, [], 0
    for dirpath, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".html"):
                continue
            path = os.path.join(dirpath, name)
            for tag, link, line in parse(path, cache).links:
                parts = urlsplit(link)
                if parts.scheme or link.startswith("/"):
                    # External (not fetched), or site-absolute (404.html's, which depends on
                    # where the book is served).
                    continue
                target = path
                if parts.path:
                    target = os.path.normpath(os.path.join(dirpath, unquote(parts.path)))
                    if os.path.isdir(target):
                        target = os.path.join(target, "index.html")
                checked += 1
                where = f"{os.path.relpath(path, root)}:{line}: {link}"
                if not os.path.exists(target):
                    broken.append(f"{where}: no file {os.path.relpath(target, root)}")
                elif parts.fragment and target.endswith(".html"):
                    if unquote(parts.fragment) not in parse(target, cache).ids:
                        broken.append(f"{where}: no anchor #{parts.fragment}")
    for b in broken:
        print(b, file=sys.stderr)
    print(f"{checked} relative links checked, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
