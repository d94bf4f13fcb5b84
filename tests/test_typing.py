"""The keywords every metric takes (``unjudged``, ``unjudged_grade``, ``bounds``) are typed.

They are declared once (``polars_rank._language.naming.UnjudgedOptions``) and every metric
function ends its signature with ``**unjudged: Unpack[UnjudgedOptions]``:

* mypy (strict) and pyright (strict) accept them on the functions and on
  ``pr.rank(expr)``'s methods and reject a bad policy, a bad type and an unknown
  keyword (issue 38, item 8);
* at run time the functions (and the ``rank.`` methods) present them as three
  keyword-only parameters, no ``**``, and an unknown keyword is a ``TypeError``;
* the API reference, read statically by griffe, lists them for every metric, in the
  signature and the Parameters section (``docs/_ext/rst_docstrings.py``).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank import metrics
from polars_rank._language.namespace import RankNameSpace
from polars_rank._language.naming import UNJUDGED_PARAMETERS, UnjudgedOptions, named_after_metric

if TYPE_CHECKING:
    from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
NAMES = [p.name for p in UNJUDGED_PARAMETERS]
METRICS = sorted(metrics.__all__)

SNIPPET = """\
import polars as pl
import polars_rank as pr

ok = [
    pr.ndcg("rel", k=10, by="score", unjudged="high"),
    pr.ndcg("rel", 10, by="score", unjudged="high", unjudged_grade=2.0, bounds=True),
    pr.precision("rel", 5, by="score", unjudged="condensed", unjudged_grade=None),
    pr.map("rel", by="score", bounds=False),
]
policy = pr.ndcg("rel", k=10, by="score", unjudged="hgh")  # line 10
typo = pr.ndcg("rel", k=10, by="score", unjudgd="high")  # line 11
flag = pr.recall("rel", 10, by="score", bounds="yes")  # line 12
grade = pr.dcg("rel", 10, by="score", unjudged_grade="2")  # line 13
namespace = pl.col("rel").rank.ndcg(k=10, by="score", unjudged="high")  # line 14
typed: pl.Expr = pr.rank(pl.col("rel")).ndcg(k=10, by="score", unjudged="high")  # line 15
typed_typo = pr.rank("rel").ndcg(k=10, by="score", unjudgd="high")  # line 16
typed_type = pr.rank("rel").precision(k="10", by="score")  # line 17
"""


@pytest.fixture(scope="module")
def mypy_errors(tmp_path_factory: pytest.TempPathFactory,
                monkeypatch_module: pytest.MonkeyPatch) -> dict[int, str]:
    """mypy --strict on SNIPPET: line -> its messages (this worktree's package)."""
    api = pytest.importorskip("mypy.api")
    folder = tmp_path_factory.mktemp("typing")
    (folder / "snippet.py").write_text(SNIPPET)
    monkeypatch_module.setenv("MYPYPATH", str(ROOT))  # before an installed polars_rank
    stdout, stderr, _ = api.run([str(folder / "snippet.py"), "--strict", "--no-incremental",
                                 "--cache-dir", str(folder / "cache"), "--config-file", "",
                                 "--show-error-codes", "--no-error-summary"])
    assert not stderr, stderr
    out: dict[int, str] = {}
    for line in stdout.splitlines():
        match = re.match(r".*snippet\.py:(\d+): (?:error|note): (.*)$", line)
        assert match is not None, line
        out[int(match[1])] = out.get(int(match[1]), "") + match[2] + "\n"
    return out


@pytest.fixture(scope="module")
def pyright_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[int, str]:
    """pyright (strict) on SNIPPET: line -> its rules and messages (this worktree's package).

    pyright's PyPI wrapper runs the npm package of its own version (Node.js from the
    ``nodejs`` extra); in CI a missing pyright fails, elsewhere it skips.
    """
    executable = shutil.which("pyright", path=str(Path(sys.executable).parent))
    if executable is None:
        if os.environ.get("CI"):
            pytest.fail("pyright is a test dependency: pip install -e '.[test]'")
        pytest.skip("pyright is not installed")
    folder = tmp_path_factory.mktemp("pyright")
    (folder / "snippet.py").write_text(SNIPPET)
    # this worktree's package before an installed polars_rank, as MYPYPATH for mypy
    config = {"typeCheckingMode": "strict", "extraPaths": [str(ROOT)]}
    (folder / "pyrightconfig.json").write_text(json.dumps(config))
    done = subprocess.run([executable, "--outputjson", "--pythonpath", sys.executable,
                           "-p", str(folder), str(folder)],
                          capture_output=True, text=True, check=False, timeout=600)
    report = json.loads(done.stdout)
    out: dict[int, str] = {}
    for d in report["generalDiagnostics"]:
        assert d["file"].endswith("snippet.py"), d
        line = d["range"]["start"]["line"] + 1
        out[line] = out.get(line, "") + f"{d.get('rule', '')}: {d['message']}\n"
    return out


@pytest.fixture(scope="module")
def monkeypatch_module() -> Any:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_mypy_accepts_the_keywords_on_the_functions(mypy_errors: dict[int, str]) -> None:
    assert [n for n in mypy_errors if n < 10] == [], mypy_errors


def test_mypy_rejects_a_policy_that_is_not_one(mypy_errors: dict[int, str]) -> None:
    assert 'Argument "unjudged" to "ndcg" has incompatible type "Literal[\'hgh\']"' in (
        mypy_errors[10])
    assert "'low', 'high', 'ignore', 'condensed'" in mypy_errors[10]


def test_mypy_rejects_an_unknown_keyword(mypy_errors: dict[int, str]) -> None:
    assert 'Unexpected keyword argument "unjudgd" for "ndcg"' in mypy_errors[11]
    assert '[call-arg]' in mypy_errors[11]


def test_mypy_checks_the_types_of_bounds_and_grade(mypy_errors: dict[int, str]) -> None:
    assert 'Argument "bounds" to "recall" has incompatible type "str"; expected "bool"' in (
        mypy_errors[12])
    assert ('Argument "unjudged_grade" to "dcg" has incompatible type "str"; '
            'expected "float | None"') in mypy_errors[13]


def test_mypy_reads_the_namespace_through_pr_rank(mypy_errors: dict[int, str]) -> None:
    """``pr.rank(expr).ndcg(...)``: the metric's own signature, the relevance bound."""
    assert 15 not in mypy_errors, mypy_errors[15]
    assert 'Unexpected keyword argument "unjudgd"' in mypy_errors[16]
    assert 'incompatible type "str"; expected "int | None"' in mypy_errors[17]


def test_pyright_reads_the_functions_and_the_namespace_through_pr_rank(
        pyright_errors: dict[int, str]) -> None:
    """pyright (strict) flags what mypy flags, on the same lines, and nothing else."""
    assert [n for n in pyright_errors if n < 10 or n == 15] == [], pyright_errors
    assert "reportArgumentType" in pyright_errors[10]
    assert "\"unjudged\"" in pyright_errors[10]
    assert 'No parameter named "unjudgd"' in pyright_errors[11]
    assert '"bounds" of type "bool"' in pyright_errors[12]
    assert '"unjudged_grade" of type "float | None"' in pyright_errors[13]
    assert 'No parameter named "unjudgd"' in pyright_errors[16]
    assert '"k" of type "int | None"' in pyright_errors[17]


def test_polars_attribute_form_is_polars_own_type(mypy_errors: dict[int, str],
                                                   pyright_errors: dict[int, str]) -> None:
    """``pl.col(...).rank.ndcg``: both checkers read Polars' ``Expr.rank`` method there.

    The limit docs/reference/namespace.md states (why ``pr.rank``): a package cannot
    change Polars' types, and pyright has no plugins. When this fails, type checkers see
    the namespace on Polars expressions: add line 14 to those that must type-check.
    """
    assert 'has no attribute "ndcg"  [attr-defined]' in mypy_errors[14]
    assert 'Cannot access attribute "ndcg" for class "MethodType"' in pyright_errors[14]
    assert set(mypy_errors) == {10, 11, 12, 13, 14, 16, 17}, mypy_errors
    assert set(pyright_errors) == {10, 11, 12, 13, 14, 16, 17}, pyright_errors


def test_every_metric_is_a_typed_method_of_the_namespace() -> None:
    """The class body lists each metric once (a ``_Method``): none missing, none extra."""
    # the class and its descriptors from the module as it is now: test_namespace.py
    # reloads it, and the reloaded _Method is another class than the one imported above
    from polars_rank._language import namespace as _namespace

    declared = {n for n, v in vars(_namespace.RankNameSpace).items()
                if isinstance(v, _namespace._Method)}
    assert declared == set(metrics.__all__)


# ---------------------------------------------------------------------------- run time
def test_the_options_are_declared_once() -> None:
    assert NAMES == list(UnjudgedOptions.__annotations__) == [
        "unjudged", "unjudged_grade", "bounds"]
    assert [p.default for p in UNJUDGED_PARAMETERS] == ["low", None, False]
    assert [p.annotation for p in UNJUDGED_PARAMETERS] == ["Unjudged", "float | None", "bool"]


@pytest.mark.parametrize("name", METRICS)
def test_every_metric_presents_three_keyword_only_parameters(name: str) -> None:
    for function, skip in ((getattr(pr, name), 0), (getattr(RankNameSpace, name), 1)):
        params = list(inspect.signature(function).parameters.values())[skip:]
        assert params[-3:] == list(UNJUDGED_PARAMETERS), name
        assert all(p.kind is not p.VAR_KEYWORD for p in params), name
        doc = inspect.getdoc(function) or ""
        assert re.search(r"\nunjudged_grade\n    The label", doc), name


@pytest.mark.parametrize("name", METRICS)
def test_an_unknown_keyword_is_a_type_error(name: str) -> None:
    function = getattr(pr, name)
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'unjudgd'; "
                                        r"did you mean 'unjudged'\?"):
        function("rel", by="score", unjudgd="high")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'nonsense'$"):
        getattr(pl.col("rel").rank, name)(by="score", nonsense=1)


def test_the_error_names_the_function() -> None:
    with pytest.raises(TypeError, match=r"^recall\(\) got an unexpected keyword argument "
                                        r"'bound'; did you mean 'bounds'\?$"):
        pr.recall("rel", 10, by="score", bound=True)
    with pytest.raises(TypeError, match=r"^ndcg\(\) missing a required argument: 'rel'$"):
        pr.ndcg(k=10, by="score")


def test_the_namespace_takes_the_keywords() -> None:
    frame = pl.DataFrame({"q": [1, 1, 1, 2, 2], "rel": [None, 1, 0, 2, None],
                          "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    for options in ({"unjudged": "high", "unjudged_grade": 2}, {"unjudged": "condensed"},
                    {"bounds": True}):
        assert_frame_equal(
            frame.select(pl.col("rel").rank.ndcg(k=2, by="score", query="q", **options)),
            frame.select(pr.ndcg("rel", k=2, by="score", query="q", **options)))
    high = frame.select(pl.col("rel").rank.precision(2, by="score", unjudged="high")).item()
    assert high == 1.0


def test_a_metric_function_must_declare_the_options() -> None:
    def bare(rel: Any, *, by: Any = None) -> pl.Expr:
        return pl.lit(0.0)

    with pytest.raises(TypeError, match=r"must end its signature with \*\*unjudged: "
                                        r"Unpack\[UnjudgedOptions\]"):
        named_after_metric(bare)


# ---------------------------------------------------------------------------- API reference
def _extension() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "rst_docstrings", ROOT / "docs" / "_ext" / "rst_docstrings.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def reference() -> Any:
    """``polars_rank.metrics`` as the API reference reads it: griffe, our extension."""
    griffe = pytest.importorskip("griffe")
    extensions = griffe.load_extensions(_extension().RstDocstrings())
    return griffe.load("polars_rank.metrics", search_paths=[str(ROOT)], extensions=extensions,
                       resolve_aliases=True)


def _source_name(name: str) -> tuple[str, str]:
    return str(getattr(metrics, name).__module__), str(getattr(metrics, name).__name__)


@pytest.mark.parametrize("name", METRICS)
def test_the_reference_lists_the_keywords(reference: Any, name: str) -> None:
    module, function_name = _source_name(name)
    function = reference[module.removeprefix("polars_rank.metrics.")][function_name]
    params = list(function.parameters)
    assert [p.name for p in params] == list(inspect.signature(getattr(pr, name)).parameters)
    for shown, runtime in zip(params[-3:], UNJUDGED_PARAMETERS, strict=True):
        assert shown.kind.value == "keyword-only"
        assert str(shown.annotation) == runtime.annotation
        assert shown.default == repr(runtime.default)
    sections = function.docstring.parse("numpy")
    (entries,) = [s.value for s in sections if s.kind.value == "parameters"]
    documented = {e.name: e for e in entries}
    assert set(NAMES) <= set(documented), name
    assert documented["unjudged_grade"].description.startswith("The label ``unjudged=")
    assert str(documented["unjudged"].annotation) == "Unjudged"


def test_the_rendered_signature_lists_unjudged_grade(reference: Any) -> None:
    """The signature mkdocstrings prints (griffe's), for one metric."""
    ndcg = reference["gain"]["ndcg"]
    text = textwrap.dedent(str(ndcg.signature()))
    assert "unjudged: Unjudged = 'low'" in text
    assert "unjudged_grade: float | None = None" in text
    assert "**" not in text
