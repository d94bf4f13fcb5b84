"""Beyond-accuracy metrics: the listing table, tie order in ``by``, and every context.

* ``polars_rank.recsys._table.TABLE`` lists exactly ``polars_rank.recsys.__all__`` and
  ``polars-rank metrics`` prints each;
* rows tied in ``by`` with a list's k-th are all recommended (the list runs past k),
  in ``select``, ``group_by`` and ``.over()`` alike, whatever the order of the rows;
  tied rows share their positions' mean exposure weight;
* every per-list metric in ``.over(user)`` gives each row its list's value as in
  ``group_by(user)``, and with ``query=`` over an arm the same as ``group_by(arm)``;
  the cross-list ones the same per arm.
"""

from __future__ import annotations

import io
import math
from contextlib import redirect_stdout
from typing import TYPE_CHECKING

import polars as pl
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank import recsys
from polars_rank.__main__ import main
from polars_rank.recsys._table import TABLE

if TYPE_CHECKING:
    from collections.abc import Callable


def test_table_lists_every_recsys_function_once() -> None:
    names = [e.name for e in TABLE]
    assert len(names) == len(set(names))
    assert set(names) == set(recsys.__all__)
    for e in TABLE:
        assert getattr(pr, e.name) is e.function


def test_cli_lists_the_beyond_accuracy_metrics() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["metrics"]) == 0
    text = out.getvalue()
    section = text[text.index("beyond-accuracy"):]
    for e in TABLE:
        assert f"\n{e.name} " in section, e.name
    assert "ndcg@k" in text[:text.index("beyond-accuracy")]


# Per-list metrics as (name, expression builder); each takes query/by/k/descending.
PER_LIST: dict[str, Callable[..., pl.Expr]] = {
    "novelty": lambda **kw: pr.novelty("share", **kw),
    "average_popularity": lambda **kw: pr.average_popularity("pop", **kw),
    "long_tail_share": lambda **kw: pr.long_tail_share("tail", **kw),
    "intra_list_similarity": lambda **kw: pr.intra_list_similarity(["x", "y"], **kw),
    "intra_list_diversity": lambda **kw: pr.intra_list_diversity(category="cat", **kw),
    "intra_list_diversity_emb": lambda **kw: pr.intra_list_diversity("emb", dim=2, **kw),
    "exposure_share": lambda **kw: pr.exposure_share("cat", 1, **kw),
}
CROSS_LIST: dict[str, Callable[..., pl.Expr]] = {
    "catalog_coverage": lambda **kw: pr.catalog_coverage("item", catalog=8, **kw),
    "distributional_coverage": lambda **kw: pr.distributional_coverage("item", **kw),
    "gini_index": lambda **kw: pr.gini_index("item", **kw),
    "gini_index_catalog": lambda **kw: pr.gini_index("item", catalog=8, **kw),
    "personalization": lambda **kw: pr.personalization("item", **kw),
    "popularity_lift": lambda **kw: pr.popularity_lift("pop", history="hist", **kw),
}


def _frame(rows: list[tuple[int, int, int]]) -> pl.DataFrame:
    """(user, item, score) rows -> a frame with every column the metrics read."""
    df = pl.DataFrame(rows, schema={"user": pl.Int64, "item": pl.Int64, "score": pl.Int64},
                      orient="row")
    item = pl.col("item")
    return df.with_columns(
        arm=pl.col("user") % 2,
        share=(item + 1) / 10.0,
        pop=(item * 3 % 7 + 1).cast(pl.Float64),
        hist=(pl.col("user") % 3 + 1).cast(pl.Float64),
        tail=item >= 4,
        x=(item % 3).cast(pl.Float64) + 0.5,
        y=(item % 2).cast(pl.Float64) + 0.25,
        emb=pl.concat_list((item % 3).cast(pl.Float64) + 0.5, (item % 2).cast(pl.Float64) + 0.25),
        cat=item % 3,
    )


def _top_with_ties(df: pl.DataFrame, k: int) -> pl.DataFrame:
    """Each user's rows ranked within k by score descending, rows tied with the k-th
    included (the tie rule: a tied block is in when its first rank is)."""
    return df.filter(pl.col("score").rank("min", descending=True).over("user") <= k)


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a == pytest.approx(b, abs=1e-9)


rows_strategy = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 7), st.integers(0, 2)),
                         min_size=1, max_size=30, unique_by=lambda r: (r[0], r[1]))


@settings(max_examples=examples(20), deadline=None)
@given(rows_strategy, st.integers(1, 4))
def test_rows_tied_at_the_cut_are_all_recommended(rows: list[tuple[int, int, int]],
                                                  k: int) -> None:
    df = _frame(rows)
    top = _top_with_ties(df, k)

    def everything(rows: pl.DataFrame) -> int:
        """A cutoff at the longest list: every row (and personalization divides by
        max(k, the context's longest list), as with the cut)."""
        return max(k, rows.group_by("user").len()["len"].max())  # type: ignore[type-var]

    for name, build in {**PER_LIST, **CROSS_LIST}.items():
        cut = build(query="user", by="score", k=k)
        whole = build(query="user", by="score", k=everything(top))
        assert _same(df.select(cut).item(), top.select(whole).item()), name
        # the same per arm in a group_by, and for any order of the rows
        for arm, value in df.group_by("arm").agg(cut).rows():
            mine = top.filter(pl.col("arm") == arm)
            expected = mine.select(build(query="user", by="score", k=everything(mine)))
            assert _same(value, expected.item()), (name, arm)
        assert _same(df.reverse().select(cut).item(), df.select(cut).item()), name


def test_reversed_ties_recommend_both_items() -> None:
    df = _frame([(0, 1, 5), (0, 2, 3), (0, 5, 3)])  # items 2 and 5 tie at the cut
    for name, build in PER_LIST.items():
        forward = df.select(build(by="score", k=2)).item()
        backward = df.reverse().select(build(by="score", k=2)).item()
        assert forward == backward, name
        assert _same(forward, df.select(build(by="score")).item()), name
    coverage = pr.catalog_coverage("item", catalog=8, by="score", k=2)
    assert pr.exposure_counts(df, by="score", k=2)["item"].to_list() == [1, 2, 5]
    assert df.select(coverage).item() == pytest.approx(3 / 8)
    # the tied items share the mean weight of positions 2 and 3
    share = df.select(pr.exposure_share("item", 2, by="score", k=2)).item()
    weights = [1.0, 1 / math.log2(3), 1 / math.log2(4)]
    tied = (weights[1] + weights[2]) / 2
    assert share == pytest.approx(tied / sum(weights), rel=1e-12)


@settings(max_examples=examples(20), deadline=None)
@given(rows_strategy, st.one_of(st.none(), st.integers(1, 4)))
def test_over_every_per_list_metric(rows: list[tuple[int, int, int]], k: int | None) -> None:
    df = _frame(rows)
    for name, build in PER_LIST.items():
        expr = build(by="score", k=k)
        per_user = dict(df.group_by("user").agg(expr).rows())
        windows = df.with_columns(expr.over("user").alias("_v"))
        for user, value in windows.select("user", "_v").rows():
            assert _same(value, per_user[user]), (name, user)
        # query= within an arm: .over(arm) equals group_by(arm) equals the arm's mean
        arm_expr = build(query="user", by="score", k=k)
        per_arm = dict(df.group_by("arm").agg(arm_expr).rows())
        over_arm = df.with_columns(arm_expr.over("arm").alias("_v"))
        for arm, value in over_arm.select("arm", "_v").rows():
            assert _same(value, per_arm[arm]), (name, arm)
            users = [v for u, v in per_user.items() if u % 2 == arm and v is not None]
            assert _same(per_arm[arm], sum(users) / len(users) if users else None), (name, arm)


@settings(max_examples=examples(20), deadline=None)
@given(rows_strategy, st.integers(1, 4))
def test_over_every_cross_list_metric(rows: list[tuple[int, int, int]], k: int) -> None:
    df = _frame(rows)
    for name, build in CROSS_LIST.items():
        expr = build(query="user", by="score", k=k)
        per_arm = dict(df.group_by("arm").agg(expr).rows())
        windows = df.with_columns(expr.over("arm").alias("_v"))
        for arm, value in windows.select("arm", "_v").rows():
            assert _same(value, per_arm[arm]), (name, arm)
            alone = df.filter(pl.col("arm") == arm).select(expr).item()
            assert _same(per_arm[arm], alone), (name, arm)
