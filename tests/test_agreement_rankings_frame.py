"""ranking_similarity (the frame form) against the expressions and the references.

Per query, equal to ``rbo`` (every kind) and ``tau_ap`` evaluated in a ``group_by``, to
the ``rbo`` package's ``rbo_ext`` (transcribed in ``rbo_reference.py``) and to tau_AP as
the paper writes it; the same output for any row order; NaN where the expressions give NaN.
"""

from __future__ import annotations

import math
import random

import polars as pl
import pytest
import rbo_reference as rboref
from test_agreement_rankings import tau_ap_reference

from polars_rank.agreement import join_rankings, ranking_similarity, rbo, tau_ap
from polars_rank.errors import InvalidDataError

TOL = 1e-12
ALL = ["rbo", "rbo_min", "rbo_res", "rbo_max", "tau_ap"]


def lists(seed: int, n: int) -> tuple[list[list[str]], list[list[str]]]:
    rng = random.Random(seed)
    a, b = [], []
    for q in range(n):
        pool = [f"d{i}" for i in range(rng.randint(1, 30))]
        a.append(rng.sample(pool, rng.randint(0, len(pool))) if q % 7 else [])
        b.append(rng.sample(pool, rng.randint(0, len(pool))) if q % 5 else [])
    return a, b


def joined(a: list[list[str]], b: list[list[str]], gap: int = 1) -> pl.DataFrame:
    rows = []
    for q, (x, y) in enumerate(zip(a, b, strict=True)):
        for d in sorted(set(x) | set(y)):
            rows.append((q, d, x.index(d) * gap + 1 if d in x else None,
                         y.index(d) * gap + 1 if d in y else None))
    return pl.DataFrame(rows, schema={"qid": pl.Int64, "docid": pl.String, "rank_a": pl.Int64,
                                      "rank_b": pl.Int64}, orient="row")


def expressions(frame: pl.DataFrame, p: float, symmetric: bool = False) -> pl.DataFrame:
    args = {"doc": "docid"}
    return frame.group_by("qid").agg(
        rbo("rank_a", "rank_b", p=p, **args),
        *[rbo("rank_a", "rank_b", p=p, kind=k, **args).alias(f"rbo_{k}")  # type: ignore[arg-type]
          for k in ("min", "res", "max")],
        tau_ap("rank_a", "rank_b", symmetric=symmetric, **args)).sort("qid")


def close(x: float, y: float) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= TOL


@pytest.mark.parametrize(("p", "symmetric", "gap"), [(0.9, False, 1), (0.5, True, 3),
                                                     (0.98, False, 2)])
def test_equals_the_expressions_and_the_references(p: float, symmetric: bool, gap: int) -> None:
    a, b = lists(int(p * 100) + gap, 60)
    frame = joined(a, b, gap)
    fast = ranking_similarity(frame, measures=ALL, p=p, symmetric=symmetric)
    slow = expressions(frame, p, symmetric)
    assert fast.columns == ["qid", *ALL]
    assert fast["qid"].to_list() == slow["qid"].to_list()
    for m in ALL:
        for x, y in zip(fast[m].to_list(), slow[m].to_list(), strict=True):
            assert close(x, y), (m, x, y)
    for q, (x, y) in enumerate(zip(a, b, strict=True)):
        if not x and not y:
            continue  # no rows for this query
        row = fast.row(fast["qid"].to_list().index(q), named=True)
        assert close(row["rbo"], rboref.RankingSimilarity(x, y).rbo_ext(p))
        common = [d for d in y if d in x]
        if len(common) >= 2 and not symmetric:
            assert close(row["tau_ap"], tau_ap_reference(x, y))
    # the mean over queries is the expressions' query= value
    means = frame.select(rbo("rank_a", "rank_b", p=p, doc="docid", query="qid"),
                         tau_ap("rank_a", "rank_b", doc="docid", symmetric=symmetric,
                                query="qid")).row(0)
    assert close(fast["rbo"].mean(), means[0])  # type: ignore[arg-type]
    assert close(fast["tau_ap"].mean(), means[1])  # type: ignore[arg-type]


def test_row_order_lazy_scores_and_query_columns() -> None:
    a, b = lists(3, 40)
    frame = joined(a, b)
    want = ranking_similarity(frame, measures=ALL)
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=7)
    assert ranking_similarity(shuffled, measures=ALL).equals(want)
    got = ranking_similarity(shuffled.lazy(), measures=ALL)
    assert isinstance(got, pl.LazyFrame)
    assert got.collect().equals(want)
    # scores, highest first, give the same as positions
    scores = shuffled.with_columns((1000 - pl.col("rank_a")).cast(pl.Float64).alias("rank_a"),
                                   (1000 - pl.col("rank_b")).cast(pl.Float64).alias("rank_b"))
    assert ranking_similarity(scores, measures=ALL, descending=True).equals(want)
    two = shuffled.with_columns(pl.col("qid").alias("q1"), (pl.col("qid") % 3).alias("q2"))
    multi = ranking_similarity(two, query=["q1", "q2"], measures=ALL)
    assert multi.drop("q2").rename({"q1": "qid"}).equals(want)
    # a null query is a query too, as in a group_by
    nulls = frame.with_columns(pl.when(pl.col("qid") != 1).then("qid").alias("qid"))
    got = ranking_similarity(nulls, measures=ALL)
    slow = expressions(nulls, 0.9)
    assert got["qid"].to_list() == [*slow["qid"].drop_nulls().to_list(), None]
    last, one = got.row(-1), want.filter(pl.col("qid") == 1).row(0)
    assert all(close(x, y) for x, y in zip(last[1:], one[1:], strict=True))


def test_join_rankings_output_and_nan_cases() -> None:
    run_a = pl.DataFrame({"qid": [1, 1, 1, 2, 2, 3, 3], "docid": list("abcxyuv"),
                          "score": [3.0, 2, 1, 2, 1, 2, 1]})
    run_b = pl.DataFrame({"qid": [1, 1, 1, 2, 2, 3, 3], "docid": list("bcaxzuw"),
                          "score": [3.0, 2, 1, 2, 1, 2, 1]})
    pairs = join_rankings(run_a, run_b)
    fast = ranking_similarity(pairs, measures=ALL)
    slow = expressions(pairs, 0.9)
    for m in ALL:
        assert all(close(x, y) for x, y in zip(fast[m], slow[m], strict=True)), m
    assert math.isnan(fast["tau_ap"][1])  # one common document
    # ties without doc: NaN, as the expressions; NaN keys: NaN
    tied = pl.DataFrame({"qid": [1, 1, 2, 2], "rank_a": [1.0, 1.0, 1.0, float("nan")],
                         "rank_b": [1.0, 2.0, 1.0, 2.0]})
    out = ranking_similarity(tied, doc=None, measures=ALL)
    assert all(math.isnan(v) for v in out.drop("qid").row(0) + out.drop("qid").row(1))
    exp = tied.group_by("qid").agg(rbo("rank_a", "rank_b"), tau_ap("rank_a", "rank_b"))
    assert all(math.isnan(v) for v in exp["rbo"].to_list() + exp["tau_ap"].to_list())


def test_bad_parameters() -> None:
    frame = pl.DataFrame({"qid": [1], "docid": ["a"], "rank_a": [1], "rank_b": [1]})
    with pytest.raises(InvalidDataError, match="no column 'r'"):
        ranking_similarity(frame, a="r")
    with pytest.raises(ValueError, match="measures"):
        ranking_similarity(frame, measures=["ndcg"])
    with pytest.raises(ValueError, match="p"):
        ranking_similarity(frame, p=1.0)
    with pytest.raises(TypeError, match="joined"):
        ranking_similarity({"qid": [1]})  # type: ignore[type-var]
    with pytest.raises(TypeError, match="descending"):
        ranking_similarity(frame, descending=1)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["_pa", "_both", "_new", "_na", "_qi", "_cp", "_idx", "__q0",
                                  "_a", "__doc", "len"])
@pytest.mark.parametrize("ints", [False, True])
def test_columns_named_like_the_temporaries(name: str, ints: bool) -> None:
    """A query column named _pa was read as the positions (three "queries" of one, RBO 1.0,
    0.315, 0.0), one named _both as the common flag; others raised Polars' errors."""
    frame = pl.DataFrame({"qid": [1, 1, 1, 2, 2], "docid": ["a", "b", "c", "a", "b"],
                          "rank_a": [1.0, 2.0, 3.0, 1.0, 2.0],
                          "rank_b": [2.0, 1.0, None, 1.0, 2.0]})
    if ints:
        frame = frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Int64))
    measures = ["rbo", "rbo_min", "tau_ap"]
    want = ranking_similarity(frame, measures=measures)
    as_query = ranking_similarity(frame.rename({"qid": name}), query=name, measures=measures)
    assert as_query.columns == [name, *measures]
    assert as_query.rename({name: "qid"}).equals(want)
    as_doc = ranking_similarity(frame.rename({"docid": name}), doc=name, measures=measures)
    assert as_doc.equals(want)
    with pytest.raises(ValueError, match="not named like the measures"):
        ranking_similarity(frame.rename({"qid": "rbo"}), query="rbo")
