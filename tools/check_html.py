#!/usr/bin/env python3
"""Checks HTML reports the way a browser would read them: html5lib's strict parser (the HTML
standard's parsing algorithm, failing on every parse error), then the page's structure: one html,
head and body, a title, header cells in every table's first row, and no Markdown left as text.

Usage: check_html.py FILE...   (exit 0 when every file passes; each problem printed otherwise)
"""
import re
import sys

import html5lib

NS = "{http://www.w3.org/1999/xhtml}"
MARKDOWN = re.compile(r"\*\*[^*\n]+\*\*|^#{1,6} |^```|^\|---", re.MULTILINE)


def problems(path):
    text = open(path, encoding="utf-8").read()
    if not text.lstrip().lower().startswith("<!doctype html>"):
        yield "no <!DOCTYPE html> at the start"
    if len(re.findall(r"<!doctype", text, re.IGNORECASE)) != 1:
        yield "more than one <!DOCTYPE>"
    for tag in ("html", "head", "body"):
        opened = len(re.findall(rf"<{tag}[\s>]", text, re.IGNORECASE))
        if opened != 1:
            yield f"<{tag}> opened {opened} times"
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=True)
    try:
        tree = parser.parse(text)
    except html5lib.html5parser.ParseError as e:
        line, col = parser.errors[-1][0] if parser.errors else ("?", "?")
        yield f"parse error at line {line}, column {col}: {e}"
        return
    if tree.find(f"{NS}head/{NS}title") is None:
        yield "no <title> in <head>"
    for i, table in enumerate(tree.iter(f"{NS}table")):
        first = next(iter(table.iter(f"{NS}tr")), None)
        if first is not None and first.find(f"{NS}th") is None:
            yield f"table {i + 1} has no header cells (<th>) in its first row"
    body = tree.find(f"{NS}body")
    visible = " ".join(t for e in body.iter() if e.tag not in (f"{NS}pre", f"{NS}code") for t in [e.text or ""])
    if MARKDOWN.search(visible):
        yield f"Markdown left as text: {MARKDOWN.search(visible).group(0)!r}"


def main(paths):
    failed = 0
    for path in paths:
        found = list(problems(path))
        for p in found:
            print(f"{path}: {p}")
        failed += bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
