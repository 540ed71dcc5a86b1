#!/usr/bin/env python3
"""Layering checker: the architecture rules of "The house" (issue 26), enforced as a ratchet.

It reads every `#include "tritondx/..."` of src/tritondx/**/*.{h,hpp,cpp,cc} (angle-bracket
includes of tritondx/ headers count too), builds the folder-level import graph and reports
the violations of these rules:

  rule1  no include from analysis/ or ir/ into ladder/, rewrite/ or inspect/ (any subfolder
         on either side): the analyses and the IR sit below the ladder, the rewrites and
         the inspectors, never above them.
  rule2  no folder cycle: each strongly connected component of more than one folder is
         reported, with one example include per folder edge inside it.
  rule3  no file under rewrite/recipes/ includes a ladder/ header: a recipe works on the
         source it is handed, not on the ladder's findings.
  rule4  no file of src/tritondx or python/tritondx_bridge is over 500 lines unless its
         opening comment states why. The opening comment is the comment at the top of the
         file, before its first line of code (blank lines, `#pragma once`, a shebang and an
         encoding line don't end it; for Python the module docstring counts as well). The
         reason is recognised by the phrase

             Longer than 500 lines because <the reason>

         e.g. `// Longer than 500 lines because the transfer functions share one lattice.`
  rule5  no import cycle among the python/tritondx_bridge modules. `from .x import y`,
         `from . import x`, `from tritondx_bridge.x import y`, `from tritondx_bridge import x`
         and `import tritondx_bridge.x` are edges, at module level or inside a function
         alike (the parent package that Python imports implicitly is not an edge).

Folders (the nodes of the graph) are the first path component under src/tritondx/, except
ladder/l0_triage, ladder/l1_profile, ladder/l2_attribution, ladder/l3_compiler,
rewrite/recipes and rewrite/llm, which are nodes of their own; the files directly in ladder/
or rewrite/ (or in another of their subfolders) make the separate node `ladder` / `rewrite`.

Usage (from anywhere; the tree checked is the repository holding this file unless --root):

  python3 tools/check_layering.py                 # report every violation; exit 1 if any
  python3 tools/check_layering.py --json          # the same (plus the graph) as JSON
  python3 tools/check_layering.py --graph         # also print the folder import graph
  python3 tools/check_layering.py --baseline tools/layering_baseline.txt
        # the ratchet: exit 1 if a violation is not in the baseline (a new debt), list the
        # baseline entries that no longer occur (paid debts: delete those lines), else exit 0
  python3 tools/check_layering.py --write-baseline tools/layering_baseline.txt
        # write the current violations as the baseline (only when starting the ratchet:
        # entries are removed as debts are paid, never added)

Baseline keys (one per line; `#` lines and blank lines are ignored) carry no line numbers or
line counts, so they survive unrelated edits:

  rule1 src/tritondx/analysis/foo.cpp -> tritondx/ladder/l0_triage/kernel_view.h
  rule2 ladder/l0_triage -> rewrite/recipes         (a folder edge inside a cycle)
  rule3 src/tritondx/rewrite/recipes/grow_tile.cpp -> tritondx/ladder/l0_triage/kernel_view.h
  rule4 src/tritondx/optimize/search.cpp
  rule5 tritondx_bridge.a -> tritondx_bridge.b      (a module edge inside a cycle)

Longer than 500 lines because the five rules, the baseline ratchet and both report formats
share one scan, and one standalone file is easiest to run from CI and from the tests.

Standard library only (Python 3.11). Importable: main(argv), check(root) and the per-rule
functions take a root path, for the tests in tests/python/test_layering.py.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import posixpath
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

SRC_DIR = "src/tritondx"
PY_PACKAGE_PARENT = "python"
PY_PACKAGE = "tritondx_bridge"

CPP_EXTS = (".h", ".hpp", ".cpp", ".cc")
PY_EXTS = (".py",)

# Subfolders that are graph nodes of their own (their parent folder is a separate node).
SPLIT_NODES = frozenset({
    "ladder/l0_triage",
    "ladder/l1_profile",
    "ladder/l2_attribution",
    "ladder/l3_compiler",
    "rewrite/recipes",
    "rewrite/llm",
})

RULE1_FROM = frozenset({"analysis", "ir"})
RULE1_INTO = frozenset({"ladder", "rewrite", "inspect"})
MAX_LINES = 500
REASON_PHRASE = "Longer than 500 lines because"
_REASON_RE = re.compile(re.escape(REASON_PHRASE) + r"\s*\w", re.IGNORECASE)

_INCLUDE_RE = re.compile(r'^\s*#\s*include\s*["<](tritondx/[^">]+)[">]')

RULES = ("rule1", "rule2", "rule3", "rule4", "rule5")
RULE_TITLES = {
    "rule1": "analysis/ or ir/ includes ladder/, rewrite/ or inspect/",
    "rule2": "folder include cycles",
    "rule3": "rewrite/recipes/ includes ladder/",
    "rule4": f"files over {MAX_LINES} lines without '{REASON_PHRASE} ...' in the opening comment",
    "rule5": "Python import cycles in python/tritondx_bridge",
}


# --------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True)
class Include:
    file: str      # path relative to the root, forward slashes
    line: int      # 1-based
    header: str    # as written: tritondx/...
    src_node: str
    dst_node: str


@dataclass
class Violation:
    rule: str
    key: str                  # stable baseline key (no line numbers, no counts)
    message: str              # one human-readable line
    details: list[str] = field(default_factory=list)   # further lines (examples)
    file: str | None = None
    line: int | None = None
    cycle: list[str] | None = None   # rule2/rule5: the strongly connected component

    def to_json(self) -> dict:
        d = {"rule": self.rule, "key": self.key, "message": self.message,
             "details": self.details, "file": self.file, "line": self.line}
        if self.cycle is not None:
            d["cycle"] = self.cycle
        return d


@dataclass
class Report:
    violations: list[Violation]
    graph: dict[str, dict[str, int]]          # folder -> folder -> number of includes
    py_graph: dict[str, list[str]]            # module -> imported modules

    def keys(self) -> set[str]:
        return {v.key for v in self.violations}

    def counts(self) -> dict[str, int]:
        c = {r: 0 for r in RULES}
        for v in self.violations:
            c[v.rule] += 1
        return c


# --------------------------------------------------------------------------------------
# Scanning


def _rel(root: Path, p: Path) -> str:
    return p.relative_to(root).as_posix()


def _walk(top: Path, exts: tuple[str, ...]) -> list[Path]:
    out = []
    if not top.is_dir():
        return out
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(exts):
                out.append(Path(dirpath) / name)
    return out


def _read(p: Path) -> str:
    return p.read_text(encoding="utf-8", errors="replace")


def node_of(rel_under_src: str) -> str:
    """The graph node of a path relative to src/tritondx/ (a file or a header's tail)."""
    parts = rel_under_src.split("/")
    if len(parts) >= 3 and f"{parts[0]}/{parts[1]}" in SPLIT_NODES:
        return f"{parts[0]}/{parts[1]}"
    if len(parts) == 1:
        return "."          # a file directly in src/tritondx/
    return parts[0]


def top_folder(rel_under_src: str) -> str:
    parts = rel_under_src.split("/")
    return parts[0] if len(parts) > 1 else "."


def scan_includes(root: Path) -> list[Include]:
    """Every `#include "tritondx/..."` of the C++ tree, in file and line order."""
    root = Path(root)
    src = root / SRC_DIR
    out: list[Include] = []
    for path in _walk(src, CPP_EXTS):
        rel = _rel(root, path)
        rel_src = _rel(src, path)
        for lineno, text in enumerate(_read(path).splitlines(), 1):
            m = _INCLUDE_RE.match(text)
            if not m:
                continue
            header = posixpath.normpath(m.group(1))
            out.append(Include(rel, lineno, header, node_of(rel_src),
                               node_of(header[len("tritondx/"):])))
    return out


def folder_graph(includes: list[Include]) -> dict[str, dict[str, int]]:
    """Folder -> folder -> include count (self edges left out)."""
    g: dict[str, dict[str, int]] = {}
    for inc in includes:
        g.setdefault(inc.src_node, {})
        g.setdefault(inc.dst_node, {})
        if inc.src_node != inc.dst_node:
            g[inc.src_node][inc.dst_node] = g[inc.src_node].get(inc.dst_node, 0) + 1
    return {k: dict(sorted(v.items())) for k, v in sorted(g.items())}


def strongly_connected(graph: dict[str, list[str] | dict[str, int]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative); components of more than one node, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    comps: list[list[str]] = []
    counter = 0
    nodes = sorted(set(graph) | {w for vs in graph.values() for w in vs})

    def succ(v: str) -> list[str]:
        return sorted(graph.get(v, ()))

    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(succ(start)))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return sorted(comps)


# --------------------------------------------------------------------------------------
# Rules 1-3 (C++ includes)


def check_rule1(includes: list[Include]) -> list[Violation]:
    out, seen = [], set()
    for inc in includes:
        src_top = top_folder(inc.file[len(SRC_DIR) + 1:])
        dst_top = top_folder(inc.header[len("tritondx/"):])
        if src_top in RULE1_FROM and dst_top in RULE1_INTO:
            key = f"rule1 {inc.file} -> {inc.header}"
            if key in seen:
                continue
            seen.add(key)
            out.append(Violation("rule1", key, f"{inc.file}:{inc.line} → {inc.header}",
                                 file=inc.file, line=inc.line))
    return out


def check_rule2(includes: list[Include]) -> list[Violation]:
    graph = folder_graph(includes)
    examples: dict[tuple[str, str], Include] = {}
    for inc in includes:   # file/line order: the first include of an edge is its example
        if inc.src_node != inc.dst_node:
            examples.setdefault((inc.src_node, inc.dst_node), inc)
    out = []
    for comp in strongly_connected(graph):
        members = set(comp)
        cycle_name = ", ".join(comp)
        for a in comp:
            for b in graph.get(a, {}):
                if b not in members:
                    continue
                ex = examples[(a, b)]
                n = graph[a][b]
                out.append(Violation(
                    "rule2", f"rule2 {a} -> {b}",
                    f"{a} -> {b}  (cycle: {cycle_name}; {n} include{'s' if n != 1 else ''})",
                    details=[f"e.g. {ex.file}:{ex.line} → {ex.header}"],
                    file=ex.file, line=ex.line, cycle=comp))
    return out


def check_rule3(includes: list[Include]) -> list[Violation]:
    out, seen = [], set()
    for inc in includes:
        if inc.file.startswith(f"{SRC_DIR}/rewrite/recipes/") and inc.header.startswith("tritondx/ladder/"):
            key = f"rule3 {inc.file} -> {inc.header}"
            if key in seen:
                continue
            seen.add(key)
            out.append(Violation("rule3", key, f"{inc.file}:{inc.line} → {inc.header}",
                                 file=inc.file, line=inc.line))
    return out


# --------------------------------------------------------------------------------------
# Rule 4 (long files)


def opening_comment(text: str, python: bool) -> str:
    """The comment at the top of a file, comment markers stripped: the comment lines before
    the first line of code (blank lines, `#pragma once`, a shebang don't end it). For Python
    the module docstring is added."""
    lines = text.splitlines()
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        s = lines[i].strip()
        if not s:
            i += 1
            continue
        if python:
            if s.startswith("#"):
                out.append(s.lstrip("#").strip())
                i += 1
                continue
            break
        if s.startswith("#pragma once"):
            i += 1
            continue
        if s.startswith("//"):
            out.append(s.lstrip("/").strip())
            i += 1
            continue
        if s.startswith("/*"):
            body = s[2:]
            while "*/" not in body and i + 1 < n:
                out.append(body.strip().lstrip("*").strip())
                i += 1
                body = lines[i].strip()
            out.append(body.split("*/", 1)[0].strip().lstrip("*").strip())
            rest = body.split("*/", 1)[1].strip() if "*/" in body else ""
            i += 1
            if rest:
                break
            continue
        break
    if python:
        try:
            doc = ast.get_docstring(ast.parse(text), clean=True)
        except (SyntaxError, ValueError):
            doc = None
        if doc:
            out.append(doc)
    return "\n".join(out)


def has_length_reason(text: str, python: bool) -> bool:
    return bool(_REASON_RE.search(opening_comment(text, python)))


def long_files(root: Path) -> list[tuple[str, int, bool]]:
    """(path, line count, has a stated reason) of every checked file over MAX_LINES lines."""
    root = Path(root)
    files = [(p, False) for p in _walk(root / SRC_DIR, CPP_EXTS)]
    files += [(p, True) for p in _walk(root / SRC_DIR, PY_EXTS)]
    files += [(p, True) for p in _walk(root / PY_PACKAGE_PARENT / PY_PACKAGE, PY_EXTS)]
    out = []
    for path, python in files:
        text = _read(path)
        count = len(text.splitlines())
        if count > MAX_LINES:
            out.append((_rel(root, path), count, has_length_reason(text, python)))
    return sorted(out)


def check_rule4(root: Path) -> list[Violation]:
    return [Violation("rule4", f"rule4 {rel}", f"{rel} ({count} lines)", file=rel)
            for rel, count, reason in long_files(root) if not reason]


# --------------------------------------------------------------------------------------
# Rule 5 (Python import cycles)


def _py_modules(root: Path) -> dict[str, Path]:
    """Module name -> file for the package tree python/tritondx_bridge."""
    base = Path(root) / PY_PACKAGE_PARENT
    mods = {}
    for path in _walk(base / PY_PACKAGE, PY_EXTS):
        parts = list(path.relative_to(base).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def python_imports(root: Path) -> list[tuple[str, str, str, int, str]]:
    """(importer, imported, file, line, statement) for every import between package modules."""
    root = Path(root)
    mods = _py_modules(root)
    out = []
    for mod, path in sorted(mods.items()):
        is_pkg = path.name == "__init__.py"
        package = mod if is_pkg else mod.rpartition(".")[0]
        try:
            tree = ast.parse(_read(path), filename=str(path))
        except SyntaxError:
            continue
        rel = _rel(root, path)
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == PY_PACKAGE or alias.name.startswith(PY_PACKAGE + "."):
                        name = alias.name
                        while name and name not in mods:   # import pkg.mod.attr? keep the module
                            name = name.rpartition(".")[0]
                        if name:
                            targets.append(name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    pkg_parts = package.split(".")
                    if node.level - 1 > len(pkg_parts) - 1:
                        continue   # beyond the top package
                    base_parts = pkg_parts[:len(pkg_parts) - (node.level - 1)]
                    base = ".".join(base_parts + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                    if not (base == PY_PACKAGE or base.startswith(PY_PACKAGE + ".")):
                        continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if alias.name != "*" and sub in mods:
                        targets.append(sub)             # from . import x / from .x import y (x.y a module)
                    elif base in mods:
                        targets.append(base)            # from .x import name
            for t in targets:
                if t != mod:
                    out.append((mod, t, rel, node.lineno, ast.unparse(node)))
    return out


def check_rule5(root: Path) -> tuple[list[Violation], dict[str, list[str]]]:
    edges = python_imports(root)
    graph: dict[str, set[str]] = {m: set() for m in _py_modules(root)}
    examples: dict[tuple[str, str], tuple[str, int, str]] = {}
    for a, b, f, line, stmt in sorted(edges):
        graph.setdefault(a, set()).add(b)
        examples.setdefault((a, b), (f, line, stmt))
    out = []
    for comp in strongly_connected({k: sorted(v) for k, v in graph.items()}):
        members = set(comp)
        cycle_name = ", ".join(comp)
        for a in comp:
            for b in sorted(graph.get(a, ())):
                if b in members:
                    f, line, stmt = examples[(a, b)]
                    out.append(Violation("rule5", f"rule5 {a} -> {b}",
                                         f"{a} -> {b}  (cycle: {cycle_name})",
                                         details=[f"e.g. {f}:{line} → {stmt}"], file=f, line=line,
                                         cycle=comp))
    return out, {k: sorted(v) for k, v in sorted(graph.items())}


# --------------------------------------------------------------------------------------
# All together, baseline, output


def check(root: Path | str = REPO_ROOT) -> Report:
    root = Path(root)
    includes = scan_includes(root)
    violations = check_rule1(includes) + check_rule2(includes) + check_rule3(includes)
    violations += check_rule4(root)
    py_violations, py_graph = check_rule5(root)
    violations += py_violations
    return Report(violations, folder_graph(includes), py_graph)


BASELINE_HEADER = """\
# Layering baseline: the known violations of the architecture rules of "The house"
# (issue 26), as reported by tools/check_layering.py. This is a ratchet of debts:
# tools/check_layering.py --baseline tools/layering_baseline.txt fails on any violation
# not listed here, and lists the entries that no longer occur.
# Remove an entry when its debt is paid; never add one (fix the new violation instead).
# One stable key per line (no line numbers or line counts); `#` lines are ignored.
"""


def read_baseline(path: Path | str) -> set[str]:
    keys = set()
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        s = raw.strip()
        if s and not s.startswith("#"):
            keys.add(" ".join(s.split()))
    return keys


def write_baseline(path: Path | str, report: Report) -> None:
    by_rule: dict[str, list[str]] = {r: [] for r in RULES}
    for v in report.violations:
        by_rule[v.rule].append(v.key)
    body = [BASELINE_HEADER]
    for r in RULES:
        keys = sorted(set(by_rule[r]))
        if keys:
            body.append(f"\n# {r}: {RULE_TITLES[r]}\n")
            body.extend(k + "\n" for k in keys)
    Path(path).write_text("".join(body), encoding="utf-8")


def compare(report: Report, baseline: set[str]) -> tuple[list[Violation], list[str]]:
    """(new debts: violations not in the baseline, paid debts: baseline keys that no longer occur)."""
    current = report.keys()
    new = [v for v in report.violations if v.key not in baseline]
    paid = sorted(baseline - current)
    return new, paid


def _format_violations(violations: list[Violation]) -> list[str]:
    lines = []
    for r in RULES:
        vs = [v for v in violations if v.rule == r]
        if not vs:
            continue
        lines.append(f"{r}: {RULE_TITLES[r]} ({len(vs)})")
        if r in ("rule2", "rule5"):
            cycles: dict[tuple[str, ...], list[Violation]] = {}
            for v in vs:
                cycles.setdefault(tuple(v.cycle or ()), []).append(v)
            for comp, cvs in cycles.items():
                lines.append(f"  cycle among {{{', '.join(comp)}}}:")
                for v in cvs:
                    edge = v.key.split(" ", 1)[1]
                    example = v.details[0].removeprefix("e.g. ") if v.details else ""
                    lines.append(f"    {edge}: {example}")
        else:
            for v in vs:
                lines.append(f"  {v.message}")
                lines.extend(f"    {d}" for d in v.details)
        lines.append("")
    return lines


def _format_graph(report: Report) -> list[str]:
    lines = ["folder include graph (folder -> folder: includes):"]
    for a, targets in report.graph.items():
        lines.append(f"  {a} -> " + (", ".join(f"{b} ({n})" for b, n in targets.items()) or "(none)"))
    lines.append("python module import graph:")
    for a, targets in report.py_graph.items():
        lines.append(f"  {a} -> " + (", ".join(targets) or "(none)"))
    lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="check_layering.py",
        description='Check the layering rules of "The house" (issue 26); see the module docstring.')
    ap.add_argument("--root", default=str(REPO_ROOT), help="repository root (default: this file's repo)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--graph", action="store_true", help="also print the folder and module import graphs")
    ap.add_argument("--baseline", metavar="FILE",
                    help="known violations; exit 1 only on violations not listed, list paid ones")
    ap.add_argument("--write-baseline", metavar="FILE", help="write the current violations to FILE")
    ap.add_argument("--verbose", action="store_true", help="with --baseline, print every violation too")
    args = ap.parse_args(argv)

    root = Path(args.root)
    if not (root / SRC_DIR).is_dir():
        print(f"check_layering: no {SRC_DIR} under {root}", file=sys.stderr)
        return 2
    report = check(root)

    if args.write_baseline:
        write_baseline(args.write_baseline, report)
        if not args.json:
            print(f"wrote {len(report.keys())} violations to {args.write_baseline}")
        else:
            print(json.dumps({"written": args.write_baseline, "counts": report.counts()}, indent=2))
        return 0

    new: list[Violation] | None = None
    paid: list[str] | None = None
    if args.baseline:
        new, paid = compare(report, read_baseline(args.baseline))
    failed = bool(new) if new is not None else bool(report.violations)

    if args.json:
        doc = {
            "ok": not failed,
            "counts": report.counts(),
            "violations": [v.to_json() for v in report.violations],
            "graph": report.graph,
            "python_graph": report.py_graph,
        }
        if new is not None:
            doc["baseline"] = args.baseline
            doc["new"] = [v.to_json() for v in new]
            doc["paid"] = paid
        print(json.dumps(doc, indent=2))
        return 1 if failed else 0

    out: list[str] = []
    if args.graph:
        out += _format_graph(report)
    counts = report.counts()
    summary = ", ".join(f"{r}: {counts[r]}" for r in RULES)
    if new is None:
        out += _format_violations(report.violations)
        out.append(f"{len(report.violations)} violations ({summary})" if report.violations
                   else "no layering violations")
    else:
        if args.verbose:
            out += _format_violations(report.violations)
        if new:
            out.append(f"NEW layering violations (not in {args.baseline}); fix them, don't add them "
                       "to the baseline:")
            out += ["  " + s if s else s for s in _format_violations(new)]
        if paid:
            out.append(f"paid debts: these entries of {args.baseline} no longer occur; remove them:")
            out += [f"  {k}" for k in paid]
            out.append("")
        out.append(f"{len(report.violations)} violations ({summary}); {len(new)} new, "
                   f"{len(report.violations) - len(new)} known, {len(paid)} paid")
    print("\n".join(out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
