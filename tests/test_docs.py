"""The documentation cannot drift from the code.

* every public function, class and module, and every ``rank.*`` method, is in the
  API reference (docs/reference), and what the reference lists exists;
* the ``rank`` namespace table gives each method's real parameters;
* every public function's docstring has an example, and every metric's a formula, a
  paper and an example that prints a frame;
* the generated metric table lists every registered metric;
* the docs pages run as written: on a page that shows what its code prints (a
  ```` ```text ```` block right after a ```` ```python ```` or ```` ```bash ```` one),
  every ```` ```python ```` block is executed in order (one namespace per page, in a
  temporary folder) and the ```` ```text ```` block after it is what it prints;
  ``polars-rank ...`` lines of ```` ```bash ```` blocks run the command line the same
  way. ```` ```py ```` blocks are illustrations, never run;
* the notebooks are committed without outputs (CI executes them from scratch).
"""

from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import json
import pkgutil
import re
import shlex
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import polars as pl
import pytest

import polars_rank as pr
from polars_rank import metrics
from polars_rank.__main__ import main
from polars_rank._language.namespace import RankNameSpace

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_ext" not in p.parts)


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, DOCS / "_ext" / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rst = _load("rst_docstrings")
hooks = _load("hooks")


# ---------------------------------------------------------------------------- reference
def _directives() -> dict[str, list[str] | None]:
    """``::: identifier`` of the reference pages -> its explicit members (None: none)."""
    out: dict[str, list[str] | None] = {}
    for page in REFERENCE.glob("*.md"):
        lines = page.read_text().splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("::: "):
                continue
            members: list[str] | None = None
            for more in lines[i + 1:]:
                if more and not more.startswith(" "):
                    break
                if more.strip() == "members:":
                    members = []
                elif members is not None and more.strip().startswith("- "):
                    members.append(more.strip()[2:])
            out[line[4:].strip()] = members
    return out


def _documented() -> set[str]:
    out = set()
    for identifier, members in _directives().items():
        out.add(identifier)
        out.update(f"{identifier}.{m}" for m in members or ())
    return out


def _canonical(obj: Any) -> str:
    if isinstance(obj, ModuleType):
        return obj.__name__
    return f"{obj.__module__}.{obj.__qualname__}"


def _public() -> list[tuple[str, str, Any]]:
    """(module, name, object) for every name in a public module's ``__all__``.

    The object is None for a module that needs an extra not installed here.
    """
    out = []
    for module_name in rst.PUBLIC_MODULES:
        module = rst.load(module_name)
        out += [(module_name, name, getattr(module, name, None))
                for name in rst.public_names(module_name)]
    return out


def test_public_modules_are_all_listed() -> None:
    """A public module added to the package must be added to the docs too."""
    found = [m.name for m in pkgutil.walk_packages(pr.__path__, prefix="polars_rank.")
             if not any(part.startswith("_") for part in m.name.split("."))]
    assert "polars_rank.metrics.gain" in found
    for module in found:
        assert module in rst.PUBLIC_MODULES, (
            f"{module} is public but not documented: add a page to docs/reference (and to "
            f"the nav of mkdocs.yml) and the module to PUBLIC_MODULES in "
            f"docs/_ext/rst_docstrings.py")


@pytest.mark.parametrize(("module", "name", "obj"), _public(),
                         ids=[f"{m}.{n}" for m, n, _ in _public()])
def test_every_public_name_is_in_the_reference(module: str, name: str, obj: Any) -> None:
    documented = _documented()
    if obj is None or isinstance(obj, (str, int, float, dict, tuple)):  # constant, or none
        assert f"{module}.{name}" in documented, f"{module}.{name} is not in docs/reference"
        return
    assert _canonical(obj) in documented, f"{module}.{name} is not in docs/reference"
    if getattr(obj, "__name__", name).rsplit(".", 1)[-1] != name:  # an alias: map, mrr
        text = "\n".join(p.read_text() for p in REFERENCE.glob("*.md"))
        spelled = f"`polars_rank.{name}`" if name in pr.__all__ else f"`{module}.{name}`"
        assert spelled in text, f"the alias {module}.{name} is not mentioned"


def test_reference_lists_only_what_exists() -> None:
    for identifier, members in _directives().items():
        if identifier in rst.PUBLIC_MODULES and rst.load(identifier) is None:
            names = rst.public_names(identifier)  # needs an extra: check its __all__
            assert set(members or ()) <= set(names), identifier
            continue
        module_name, _, attribute = identifier.rpartition(".")
        obj: Any = rst.load(identifier)
        if obj is None:
            obj = getattr(importlib.import_module(module_name), attribute)
        for member in members or ():
            assert hasattr(obj, member), f"{identifier} has no {member}"


def _rank_methods() -> list[str]:
    return sorted(n for n in vars(RankNameSpace)
                  if not n.startswith("_") and callable(getattr(RankNameSpace, n)))


def test_rank_methods_are_the_metrics() -> None:
    assert _rank_methods() == sorted(metrics.__all__)


@pytest.mark.parametrize("name", _rank_methods())
def test_every_rank_method_is_in_the_namespace_table(name: str) -> None:
    assert hooks.NAMESPACE_TABLE in (REFERENCE / "namespace.md").read_text()
    text = hooks.namespace_table()
    match = re.search(rf"^\| `rank\.{name}\((?P<params>[^)]*)\)` \| (?P<target>.*) \|$", text,
                      flags=re.MULTILINE)
    assert match is not None, f"rank.{name} is not in the generated namespace table"
    shown = [p.strip() for p in match["params"].split(",") if p.strip()]
    signature = inspect.signature(getattr(RankNameSpace, name))
    actual = []
    for p in list(signature.parameters.values())[1:]:  # without self
        if p.kind is p.KEYWORD_ONLY and "*" not in actual:
            actual.append("*")
        actual.append(p.name)
    assert shown == actual
    function = getattr(metrics, name)
    assert f"][{_canonical(function)}]" in match["target"]


# ---------------------------------------------------------------------------- docstrings
_FUNCTIONS = sorted({(m, n) for m, n, o in _public() if inspect.isfunction(o)})


def test_public_names_are_read_from_the_source() -> None:
    assert rst.public_names("polars_rank.plot") == list(pr.plot.__all__)
    assert rst.public_names("polars_rank") == list(pr.__all__)
_METRICS = sorted({getattr(metrics, n).__name__: getattr(metrics, n)
                   for n in metrics.__all__}.items())


@pytest.mark.parametrize(("module", "name"), _FUNCTIONS, ids=[f"{m}.{n}" for m, n in _FUNCTIONS])
def test_every_public_function_has_an_example(module: str, name: str) -> None:
    doc = inspect.getdoc(getattr(importlib.import_module(module), name)) or ""
    assert "\nExamples\n--------\n" in doc, f"{module}.{name} has no Examples section"
    assert ">>> " in doc


@pytest.mark.parametrize(("name", "function"), _METRICS, ids=[n for n, _ in _METRICS])
def test_every_metric_docstring_teaches(name: str, function: Any) -> None:
    doc = inspect.getdoc(function) or ""
    assert hooks.formula(function), f"{name}: no .. math:: formula"
    assert re.search(r"\b(19|20)\d\d\b", doc), f"{name}: no paper (author, year)"
    assert "shape: (" in doc, f"{name}: no example printing a frame"
    assert "trec_eval" in doc, f"{name}: says nothing of trec_eval (its name, or that it has none)"
    assert not re.search(r"^\s+\.\.\.$", doc, re.M), f"{name}: a parameter left as '...'"


def test_shared_parameter_text_is_filled_in_everywhere() -> None:
    """``...`` takes the shared description, for help() and in the docs' Griffe pass."""
    from polars_rank.metrics._docs import SHARED, fill

    doc = "Parameters\n----------\nquery\n    ...\nk\n    Cutoff.\n"
    assert fill(doc) == f"Parameters\n----------\nquery\n    {SHARED['query']}\nk\n    Cutoff.\n"
    source = inspect.getsource(metrics.precision)
    assert "    query\n        ...\n" in source  # written once, in polars_rank/metrics/_docs.py
    assert SHARED["query"] in (metrics.precision.__doc__ or "")
    with pytest.raises(KeyError):
        fill("unknown\n    ...\n")


def test_rst_is_rewritten_as_markdown() -> None:
    text = ("See :func:`polars_rank.validate` and :class:`~polars_rank.registry.Metric`,\n"
            "not :class:`polars_rank._engine.ranked.Ranked`; `Altair <https://altair-viz.github.io>`_.\n"
            "\n"
            "    .. math:: a = b\n"
            "              + c\n"
            "\n"
            "with :math:`x^2`.")
    out = rst.rst_to_markdown(text)
    assert "[`polars_rank.validate()`][polars_rank.validate.validate]" in out
    assert "[`Metric`][polars_rank._language.metric.Metric]" in out
    assert "`polars_rank._engine.ranked.Ranked`" in out
    assert "][polars_rank._engine.ranked" not in out
    assert "[Altair](https://altair-viz.github.io)" in out
    assert "    $$\n    a = b + c\n    $$" in out
    assert "$x^2$" in out


# ---------------------------------------------------------------------------- metric table
def test_metric_table_lists_every_metric() -> None:
    from polars_rank.registry import METRICS

    table = hooks.metric_table()
    for m in METRICS.values():
        row = next(line for line in table.splitlines() if line.startswith(f"| [`{m.name}"))
        for alias in m.aliases:
            assert f"`{alias}`" in row
        assert "$" in row, f"{m.name}: no formula"
        assert m.paper, f"{m.name}: no paper in the registry"
        if m.trec_eval:
            assert m.trec_eval in row
    for name in ("ctr", "abandonment", "first_click_rr", "clicks_per_query"):  # strings too
        assert f"| [`{name}@k`][" in table
    assert "| [`mean_dwell`][" in table  # an expression only (it reads two columns)


def test_generated_pages_are_not_committed() -> None:
    assert not (DOCS / "metrics.md").exists()
    assert not (DOCS / "img").exists()


def test_every_page_is_in_the_nav() -> None:
    config = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(DOCS).as_posix() for p in PAGES]
    for page in [*pages, "metrics.md"]:
        assert re.search(rf"(- |: ){re.escape(page)}$", config, flags=re.MULTILINE), (
            f"docs/{page} is not in the nav of mkdocs.yml")


# ---------------------------------------------------------------------------- pages run
_FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)


def _blocks(text: str) -> list[tuple[str, str, int, int]]:
    """(language, body, start, end) of each fenced block."""
    return [(m["info"].split()[0] if m["info"].strip() else "", m["body"], m.start(), m.end())
            for m in _FENCE.finditer(text)]


def _expected_output(text: str, blocks: list[tuple[str, str, int, int]], i: int) -> str | None:
    """The ```text block right after block i (only blank lines between), if any."""
    follows = i + 1 < len(blocks) and blocks[i + 1][0] == "text"
    if follows and not text[blocks[i][3]:blocks[i + 1][2]].strip():
        return blocks[i + 1][1]
    return None


def _run_bash(body: str) -> str:
    out = io.StringIO()
    for line in body.splitlines():
        if line.startswith("polars-rank "):
            with contextlib.redirect_stdout(out):
                assert main(shlex.split(line)[1:]) == 0, line
    return out.getvalue()


def _runnable(page: Path) -> bool:
    """A page that shows what its code prints (a ```text block right after one) runs."""
    text = page.read_text()
    blocks = _blocks(text)
    return any(lang in ("python", "bash") and _expected_output(text, blocks, i) is not None
               for i, (lang, *_) in enumerate(blocks))


RUNNABLE = [p for p in PAGES if _runnable(p)]

# Pages whose printed numbers come from random draws keyed on Polars' hash (interleaving's
# coins, simulated clicks: polars_rank.online), which is stable within a Polars version
# only (docs/interleaving.md says so). Their outputs are printed from the newest Polars;
# on Polars 1.x their code runs and its output is not compared.
HASH_DRAWN = {"online.md"}


def test_the_guides_run() -> None:
    names = {p.name for p in RUNNABLE}
    assert {"getting-started.md", "conventions.md", "cookbook.md", "migration.md"} <= names


@pytest.mark.parametrize("page", RUNNABLE, ids=[p.relative_to(DOCS).as_posix() for p in RUNNABLE])
def test_docs_page_runs_as_written(page: Path, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    text = page.read_text()
    blocks = _blocks(text)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for i, (lang, body, start, _) in enumerate(blocks):
        line = text.count("\n", 0, start) + 1
        if lang == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out), warnings.catch_warnings(), pl.Config():
                warnings.simplefilter("ignore")  # the pages say which warnings appear
                exec(compile(body, f"{page.name}:{line}", "exec"), namespace)
            printed = out.getvalue()
        elif lang == "bash":
            printed = _run_bash(body)
        else:
            continue
        expected = _expected_output(text, blocks, i)
        if page.name in HASH_DRAWN and pl.__version__.startswith("1."):
            continue
        if expected is not None:
            assert printed.rstrip() == expected.rstrip(), f"{page.name}, block at line {line}"


# ---------------------------------------------------------------------------- notebooks
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_the_notebooks_exist() -> None:
    assert [n.name for n in NOTEBOOKS] == ["01_quickstart.ipynb", "02_ab_experiment.ipynb",
                                           "03_recommender.ipynb",
                                           "04_from_clicks_to_decisions.ipynb"]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.name for n in NOTEBOOKS])
def test_notebooks_are_committed_without_outputs(notebook: Path) -> None:
    nb = json.loads(notebook.read_text())
    assert nb["nbformat"] == 4
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code
    for cell in code:
        assert cell["outputs"] == [], f"{notebook.name}: a cell has stale outputs"
        assert cell["execution_count"] is None
