"""The callable `rank` namespace: Polars' Expr.rank stays intact, metrics delegate."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank
from polars_rank import metrics

METHODS = ["average", "min", "max", "dense", "ordinal"]
DATA = pl.DataFrame({"x": [3.0, 1.0, 2.0, 2.0, None, 5.0]})


def original_rank_results() -> dict[tuple[str, bool], pl.Series]:
    """Expr.rank results computed in a fresh interpreter that never imported polars_rank."""
    code = (
        "import polars as pl, json\n"
        "df = pl.DataFrame({'x': [3.0, 1.0, 2.0, 2.0, None, 5.0]})\n"
        "out = {}\n"
        f"for m in {METHODS!r}:\n"
        "    for d in (False, True):\n"
        "        out[f'{m}|{d}'] = df.select(pl.col('x').rank(m, descending=d))['x'].to_list()\n"
        "out['sig'] = str(__import__('inspect').signature(pl.col('x').rank))\n"
        "out['doc'] = pl.Expr.rank.__doc__\n"
        "print(json.dumps(out))\n"
    )
    import json

    raw = json.loads(subprocess.check_output([sys.executable, "-c", code], text=True))
    return raw


@pytest.fixture(scope="module")
def pristine() -> dict:
    return original_rank_results()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("descending", [False, True])
def test_rank_call_is_polars_rank(pristine: dict, method: str, descending: bool) -> None:
    got = DATA.select(pl.col("x").rank(method, descending=descending))["x"].to_list()
    assert got == pristine[f"{method}|{descending}"]


def test_rank_keeps_signature_and_docstring(pristine: dict) -> None:
    assert str(inspect.signature(pl.col("x").rank)) == pristine["sig"]
    assert pl.col("x").rank.__doc__ == pristine["doc"]
    assert pl.Expr.rank.__doc__ == pristine["doc"]
    assert inspect.isfunction(pl.Expr.rank)


def test_rank_random_method_with_seed() -> None:
    a = DATA.select(pl.col("x").rank("random", seed=1))
    b = DATA.select(pl.col("x").rank("random", seed=1))
    assert_frame_equal(a, b)


def test_series_rank_unaffected() -> None:
    assert pl.Series([3, 1, 2]).rank("ordinal").to_list() == [3, 1, 2]


def test_import_twice_and_reload_is_harmless() -> None:
    before = pl.Expr.__dict__["rank"]
    original = pl.Expr.rank
    importlib.reload(importlib.import_module("polars_rank._language.namespace"))
    importlib.reload(polars_rank)
    polars_rank._language.namespace.install()
    assert pl.Expr.rank is original
    assert pl.Expr.__dict__["rank"] is not before  # reinstalled, not stacked
    got = DATA.select(pl.col("x").rank("dense"))["x"].to_list()
    assert got == [3, 1, 2, 2, None, 4]
    df = pl.DataFrame({"rel": [1, 0]})
    assert df.select(pl.col("rel").rank.mrr(by=None)).item() == 1.0


def test_typo_suggests_the_metric() -> None:
    with pytest.raises(AttributeError, match="did you mean 'ndcg'"):
        _ = pl.col("rel").rank.ndgc
    with pytest.raises(AttributeError, match="Available"):
        _ = pl.col("rel").rank.zzz


@pytest.mark.parametrize("name", metrics.__all__)
def test_namespace_method_mirrors_the_function(name: str) -> None:
    method = getattr(polars_rank.RankNameSpace, name)
    function = getattr(polars_rank, name)
    m_params = list(inspect.signature(method).parameters.values())[1:]  # drop self
    f_params = list(inspect.signature(function).parameters.values())[1:]  # drop rel
    assert [(p.name, p.kind, p.default) for p in m_params] == [
        (p.name, p.kind, p.default) for p in f_params
    ]
    assert method.__doc__ == function.__doc__
    assert name in dir(pl.col("rel").rank)


def test_import_in_fresh_interpreter_after_another_namespace() -> None:
    code = (
        "import polars as pl\n"
        "@pl.api.register_expr_namespace('other')\n"
        "class Other:\n"
        "    def __init__(self, e): self.e = e\n"
        "import polars_rank, polars_rank\n"
        "df = pl.DataFrame({'rel': [0, 1]})\n"
        "mrr = df.select(pl.col('rel').rank.mrr(by=None)).item()\n"
        "print(mrr, df.select(pl.col('rel').rank()).item(0, 0))\n"
    )
    out = subprocess.check_output([sys.executable, "-c", code], text=True)
    assert out.split() == ["0.5", "1.0"]
