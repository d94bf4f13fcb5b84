"""Every entry point on data with one bad value: an error naming the rule, or NaN for
exactly the lists holding it; never a finite number that differs from the clean data's.

Random clean lists get one bad value of each kind in a random row; the metric
expressions (in ``group_by``, and with ``query=``), ``evaluate()`` and ``validate()``
see the same frame.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank._engine.column_types import PLAN_HOOK

# the bad value, and the words of the rule evaluate() and validate() name
KINDS: dict[str, tuple[str, str]] = {
    "null query id": ("null query id", "null query id"),
    "null document id": ("null document id", "null document id"),
    "nan score": ("NaN score", "NaN score"),
    "text score": ("'score' must be numeric", "text score"),
    "negative label": ("negative relevance", "negative relevance"),
    "infinite label": ("non-finite relevance", "non-finite relevance"),
    "nan label": ("non-finite relevance", "non-finite relevance"),
    "text label": ("'rel' must be numeric", "text relevance"),
    "duplicate": ("duplicate (query, doc) rows", "duplicate (query, doc) row"),
}


@st.composite
def frames(draw: st.DrawFn) -> tuple[pl.DataFrame, int]:
    """A clean frame (qid, docid, score, rel) and the row to spoil."""
    rows: dict[str, list[Any]] = {"qid": [], "docid": [], "score": [], "rel": []}
    for q in range(draw(st.integers(1, 3))):
        n = draw(st.integers(2, 5))
        rows["qid"] += [f"q{q}"] * n
        rows["docid"] += [f"d{i}" for i in range(n)]
        rows["score"] += draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]),
                                       min_size=n, max_size=n))
        rows["rel"] += draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    frame = pl.DataFrame(rows, schema={"qid": pl.String, "docid": pl.String,
                                       "score": pl.Float64, "rel": pl.Int64})
    return frame, draw(st.integers(0, frame.height - 1))


def spoil(frame: pl.DataFrame, row: int, kind: str) -> pl.DataFrame:
    """``frame`` with the bad value of ``kind`` at ``row``."""
    at = pl.int_range(pl.len()) == row

    def put(column: str, value: object, dtype: pl.DataType) -> pl.DataFrame:
        return frame.with_columns(pl.when(at).then(pl.lit(value, dtype))
                                  .otherwise(pl.col(column).cast(dtype)).alias(column))

    if kind == "null query id":
        return put("qid", None, pl.String())
    if kind == "null document id":
        return put("docid", None, pl.String())
    if kind == "nan score":
        return put("score", math.nan, pl.Float64())
    if kind == "text score":
        return frame.with_columns(pl.col("score").cast(pl.String))
    if kind == "negative label":
        return put("rel", -1.0, pl.Float64())
    if kind == "infinite label":
        return put("rel", math.inf, pl.Float64())
    if kind == "nan label":
        return put("rel", math.nan, pl.Float64())
    if kind == "text label":
        return frame.with_columns(pl.col("rel").cast(pl.String))
    other = frame.row(row, named=True)  # another row of the query takes this doc id
    same = frame.with_row_index().filter((pl.col("qid") == other["qid"])
                                         & (pl.col("index") != row))
    return frame.with_columns(docid=pl.when(at).then(pl.lit(same["docid"][0]))
                              .otherwise(pl.col("docid")))


def metrics() -> list[pl.Expr]:
    return [pr.map("rel", by="score", doc="docid"), pr.mrr("rel", by="score", doc="docid"),
            pr.ndcg("rel", k=3, by="score", doc="docid")]


def per_query(frame: pl.DataFrame) -> dict[str | None, tuple[float, ...]]:
    out = frame.group_by("qid").agg(metrics())
    return {r[0]: tuple(r[1:]) for r in out.rows()}


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None)
@given(data=frames(), kind=st.sampled_from(sorted(KINDS)))
def test_one_bad_value_is_an_error_or_a_nan_never_a_wrong_number(
        data: tuple[pl.DataFrame, int], kind: str) -> None:
    clean, row = data
    if kind == "duplicate" and clean.filter(pl.col("qid") == clean["qid"][row]).height < 2:
        return
    bad = spoil(clean, row, kind)
    query = clean["qid"][row]
    evaluate_words, validate_words = KINDS[kind]

    # evaluate(): an error naming the rule (and the column)
    with pytest.raises(pr.InvalidDataError, match=_escaped(evaluate_words)):
        pr.evaluate(bad, None, ["map", "mrr", "ndcg@3"])

    # validate(): the row, with its rule
    found = pr.validate(bad, by="score", query="qid", doc="docid")
    assert any(validate_words in p for p in found["problem"]), (kind, found)

    # expressions: a plan error for a text column, else NaN exactly where the row is
    if kind.startswith("text"):  # polars-rank's error on Polars >= 2.0, naming the rule
        error = pr.InvalidDataError if PLAN_HOOK else pl.exceptions.InvalidOperationError
        words = validate_words if PLAN_HOOK else None
        with pytest.raises(error, match=words):
            bad.group_by("qid").agg(metrics())
        with pytest.raises(error, match=words):
            bad.select(pr.map("rel", by="score", query="qid", doc="docid"))
        return
    mean = bad.select(pr.map("rel", by="score", query="qid", doc="docid")).item()
    assert math.isnan(mean), kind  # with query=, a NaN list makes the mean NaN
    if kind == "null query id":
        return  # the row left its query: grouping by the id itself cannot see that
    expected = per_query(clean)
    for qid, values in per_query(bad).items():
        if qid == query:
            assert all(math.isnan(v) for v in values), (kind, qid, values)
        else:
            assert values == expected[qid], (kind, qid)


def _escaped(words: str) -> str:
    return words.replace("(", r"\(").replace(")", r"\)")


@settings(max_examples=examples(25), deadline=None)
@given(data=frames())
def test_clean_data_agrees_across_entry_points(data: tuple[pl.DataFrame, int]) -> None:
    """The control: on clean data the same three entry points agree, no error."""
    clean, _ = data
    assert pr.validate(clean, by="score", query="qid", doc="docid").is_empty()
    evaluated = pr.evaluate(clean, None, ["map", "mrr", "ndcg_burges@3"], per_query=True)
    expected = per_query(clean)
    for qid, *values in evaluated.rows():
        assert tuple(values) == pytest.approx(expected[qid], rel=1e-12, abs=1e-15)
