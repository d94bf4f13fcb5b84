"""The package's import rules (issue 38, item 6), read from the source with ``ast``.

1. No module imports another module's private names: ``from polars_rank._engine.compat
   import group_sum`` is fine (a private module's public name), ``from
   polars_rank._compare.data import _check_arms`` is not, nor is ``cuped._fit`` on a
   module imported as ``cuped``. A package's ``__init__`` may re-export its own
   submodules' names (they are the package's own). Imports inside functions count.
2. No import cycle among the package's modules. Every import counts: at module level,
   inside a function (a deferred import still ties the two modules; deferring is how
   a cycle is usually hidden) and under ``if TYPE_CHECKING:`` (an annotation that
   names a higher layer's type is the same inversion of layers, and it is where the
   ``plot`` <-> ``_plot`` and ``stats`` <-> ``_stats`` cycles lived). Importing
   ``a.b.c`` ties the importer to ``a.b.c`` only, not to the packages above it
   (Python runs their ``__init__`` first, but that is the packages' business).

The package is never imported here: the rules hold for the files as written.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "polars_rank"

# No exception any more. The metric functions used to look their registry entry up
# when called (polars_rank._language.naming imported polars_rank.registry inside a function),
# a cycle through the registry and every metric module; since issue 38, item 1, each
# function is handed its spec by its decorator and nothing is looked up. An exception
# added here must still be an edge that closes a cycle
# (test_the_allowed_cycle_edges_still_exist).
ALLOWED_EDGES: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Import:
    """One import of a package module by another: where it is and how it is made."""

    importer: str
    target: str
    line: int
    kind: str  # "module" level, "deferred" (inside a function) or "typing" (TYPE_CHECKING)
    name: str | None = None  # the name imported from ``target`` (None: the module itself)


def modules(root: Path) -> dict[str, Path]:
    """Each module of the package at ``root``, by its dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _import_nodes(body: list[ast.stmt], kind: str,
                  out: list[tuple[ast.Import | ast.ImportFrom, str]]) -> None:
    """Every import statement under ``body``, with the kind of place it sits in."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append((node, kind))
        elif isinstance(node, ast.If) and _is_type_checking(node):
            _import_nodes(node.body, "typing", out)
            _import_nodes(node.orelse, kind, out)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.extend((n, "deferred") for n in ast.walk(node)
                       if isinstance(n, (ast.Import, ast.ImportFrom)))
        else:  # try/except, with, for, class bodies...: the same kind of place
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    _import_nodes([child], kind, out)
                elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                    _import_nodes(child.body, kind, out)


def _source_module(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[:len(base) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imports(root: Path) -> tuple[list[Import], list[str]]:
    """The package's imports of its own modules, and its private-name violations."""
    found = modules(root)
    edges: list[Import] = []
    private: list[str] = []
    for importer, path in found.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        nodes: list[tuple[ast.Import | ast.ImportFrom, str]] = []
        _import_nodes(tree.body, "module", nodes)
        aliases: dict[str, str] = {}  # a local name bound to a package module
        for node, kind in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in found:
                        edges.append(Import(importer, alias.name, node.lineno, kind))
                        if alias.asname:
                            aliases[alias.asname] = alias.name
                continue
            source = _source_module(importer, is_package, node)
            if source not in found:
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in found:
                    edges.append(Import(importer, submodule, node.lineno, kind))
                    aliases[alias.asname or alias.name] = submodule
                    continue
                edges.append(Import(importer, source, node.lineno, kind, alias.name))
                own = source == importer or (is_package and source.startswith(f"{importer}."))
                if _is_private(alias.name) and not own:
                    private.append(f"{path.relative_to(root.parent)}:{node.lineno}: "
                                   f"{alias.name} from {source}")
        for used in ast.walk(tree):
            if (isinstance(used, ast.Attribute) and isinstance(used.value, ast.Name)
                    and used.value.id in aliases and _is_private(used.attr)
                    and aliases[used.value.id] != importer):
                private.append(f"{path.relative_to(root.parent)}:{used.lineno}: "
                               f"{used.attr} of {aliases[used.value.id]}")
    return edges, private


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def cycles(edges: list[Import], allowed: set[tuple[str, str]]) -> list[list[Import]]:
    """One cycle (its imports, in order) in each strongly connected group of modules."""
    graph: dict[str, dict[str, Import]] = {}
    for edge in edges:
        if edge.importer != edge.target and (edge.importer, edge.target) not in allowed:
            graph.setdefault(edge.importer, {}).setdefault(edge.target, edge)
    # Tarjan's strongly connected components, iterative
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, {}))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, {})))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return [_one_cycle(graph, group) for group in groups]


def _one_cycle(graph: dict[str, dict[str, Import]], group: list[str]) -> list[Import]:
    """A shortest cycle through the group's first module (breadth first)."""
    members = set(group)
    start = group[0]
    came: dict[str, Import] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target, edge in sorted(graph.get(node, {}).items()):
                if target not in members or target in came:
                    continue
                came[target] = edge
                following.append(target)
        if start in came:
            break
        frontier = following
    path = [came[start]]
    while path[-1].importer != start:
        path.append(came[path[-1].importer])
    return path[::-1]


def describe(cycle: list[Import]) -> str:
    steps = " -> ".join(f"{edge.importer} (line {edge.line}, {edge.kind})" for edge in cycle)
    return f"{steps} -> {cycle[0].importer}"


EDGES, PRIVATE = imports(PACKAGE)


def test_no_module_imports_another_modules_private_names() -> None:
    assert not PRIVATE, (f"{len(PRIVATE)} imports of another module's private names "
                         "(make the name public in its module, or move it to where it "
                         "is used):\n" + "\n".join(PRIVATE))


def test_no_import_cycle() -> None:
    found = cycles(EDGES, ALLOWED_EDGES)
    assert not found, (f"{len(found)} import cycles (move the shared piece to a lower "
                       "module):\n" + "\n".join(describe(c) for c in found))


def test_the_allowed_cycle_edges_still_exist() -> None:
    """Each exception is still needed: it is an edge, and a cycle without it."""
    present = {(e.importer, e.target) for e in EDGES}
    for edge in ALLOWED_EDGES:
        assert edge in present, f"{edge} no longer imported: remove it from ALLOWED_EDGES"
        assert cycles(EDGES, ALLOWED_EDGES - {edge}), f"{edge} makes no cycle: remove it"


def test_the_engine_imports_only_the_engine() -> None:
    """The lowest layer (``polars_rank/_engine/``): no metric, metric string, evaluation.

    A reader knows a file's layer from its path (docs/architecture.md, "The layers");
    this keeps the path true for the bottom layer, whose modules everything imports.
    """
    engine = "polars_rank._engine"
    allowed = (engine, "polars_rank.errors")
    upward = [f"{e.importer} imports {e.target} (line {e.line})" for e in EDGES
              if e.importer.startswith(engine) and not e.target.startswith(allowed)]
    assert not upward, "the engine imports a higher layer:\n" + "\n".join(upward)
    assert any(e.importer.startswith(f"{engine}.") for e in EDGES)  # the test reads it


def test_every_module_is_read() -> None:
    found = modules(PACKAGE)
    assert "polars_rank" in found
    assert "polars_rank._evaluation.pipeline" in found
    assert len(EDGES) > len(found)  # the package's modules import each other


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_private_import_is_found(tmp_path: Path) -> None:
    root = _package(tmp_path, {
        "_low.py": "_hidden = 1\nshown = 2\n",
        "a.py": "from pkg._low import shown\nfrom pkg._low import __doc__\n",
        "b.py": "def f():\n    from pkg._low import _hidden\n",
        "c.py": "from pkg import _low as low\nx = low._hidden\ny = low.shown\n",
        "d.py": "from ._low import _hidden\n",
        "sub/__init__.py": "from pkg.sub.inner import _mine\n",
        "sub/inner.py": "_mine = 1\n",
        "e.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                "    from pkg.sub.inner import _mine\n",
        "f.py": "try:\n    import numpy\nexcept ImportError:\n"
                "    from pkg._low import _hidden\n",
    })
    _, private = imports(root)
    assert private == ["pkg/b.py:2: _hidden from pkg._low",
                       "pkg/c.py:2: _hidden of pkg._low",
                       "pkg/d.py:1: _hidden from pkg._low",
                       "pkg/e.py:3: _mine from pkg.sub.inner",
                       "pkg/f.py:4: _hidden from pkg._low"]


@pytest.mark.parametrize("kind", ["module", "deferred", "typing"])
def test_a_cycle_is_found_whatever_the_import(tmp_path: Path, kind: str) -> None:
    line = {"module": "from pkg.a import x\n",
            "deferred": "def f():\n    from pkg.a import x\n",
            "typing": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                      "    from pkg.a import x\n"}[kind]
    root = _package(tmp_path, {"a.py": "from pkg import b\nx = 1\n",
                               "b.py": "import pkg.c\n", "c.py": line,
                               "d.py": "from pkg import a\n"})
    edges, _ = imports(root)
    found = cycles(edges, set())
    assert [[(e.importer, e.target) for e in c] for c in found] == [
        [("pkg.a", "pkg.b"), ("pkg.b", "pkg.c"), ("pkg.c", "pkg.a")]]
    assert found[0][-1].kind == kind
    assert "pkg.a (line 1, module) -> pkg.b" in describe(found[0])
    assert not cycles(edges, {("pkg.c", "pkg.a")})
