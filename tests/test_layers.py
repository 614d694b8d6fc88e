# SPDX-License-Identifier: GPL-3.0-or-later
"""The host's layers go one way (docs/DESIGN: each host layer a folder, no
import circles): the hall server imports nothing from the CLI, the arbiter's
console imports nothing from the CLI or the server, and no module of
``server/`` imports (at any depth, lazily or for types only) one that imports it."""

from __future__ import annotations

import ast
import os

HOST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "host")


def _modules(package: str) -> dict[str, str]:
    """Module name -> file, for every .py file of ``qizhong.<package>``."""
    folder = os.path.join(HOST, "qizhong", package)
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            mod = "qizhong.%s.%s" % (package, name[:-3])
            out[mod.removesuffix(".__init__")] = os.path.join(folder, name)
    return out


def imports(path: str, package: str) -> set[str]:
    """Every module ``path`` imports anywhere in it: at the top, inside a
    function, under ``if TYPE_CHECKING``; ``from qizhong.server import app``
    counts as ``qizhong.server.app``."""
    found = set()
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from . import x
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update("%s.%s" % (base, a.name) for a in node.names)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph`` (each found once from its first module)."""
    out: list[list[str]] = []
    done: set[str] = set()

    def walk(node: str, path: list[str]) -> None:
        for nxt in sorted(graph[node]):
            if nxt in path:
                out.append([*path[path.index(nxt) :], nxt])
            elif nxt not in done:
                walk(nxt, [*path, nxt])
        done.add(node)

    for start in sorted(graph):
        if start not in done:
            walk(start, [start])
    return out


def test_the_cycle_finder_finds_a_circle_and_passes_a_line():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    path = os.path.join(HOST, "qizhong", "server", "rounds.py")
    assert "qizhong.server.actions" in imports(path, "qizhong.server")


def test_the_server_imports_nothing_from_the_cli():
    for mod, path in _modules("server").items():
        bad = sorted(m for m in imports(path, "qizhong.server") if m.startswith("qizhong.cli"))
        assert not bad, "%s imports %s" % (mod, bad)


def test_the_arbiters_console_imports_neither_the_cli_nor_the_server():
    for mod, path in _modules("arbiter").items():
        bad = sorted(
            m
            for m in imports(path, "qizhong.arbiter")
            if m.startswith(("qizhong.cli", "qizhong.server"))
        )
        assert not bad, "%s imports %s" % (mod, bad)


def test_the_server_has_no_import_circle():
    mods = _modules("server")
    graph = {
        m: {i for i in imports(p, "qizhong.server") if i in mods and i != m}
        for m, p in mods.items()
    }
    assert cycles(graph) == []
