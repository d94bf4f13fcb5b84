"""Bad parameters raise when the expression is built; bad data gives NaN, never a number."""

from __future__ import annotations

import math
from typing import Any

import polars as pl
import pytest

import polars_rank as pr
from polars_rank import metrics
from polars_rank.registry import METRICS as REGISTRY

WITH_K = ["dcg", "ndcg", "err", "precision", "recall", "f1", "average_precision",
          "reciprocal_rank", "hit_rate", "ctr"]


@pytest.mark.parametrize("name", WITH_K)
@pytest.mark.parametrize("k", [0, -3])
def test_non_positive_k_raises_value_error(name: str, k: int) -> None:
    with pytest.raises(ValueError, match=rf"k must be a positive int or None.*got {k}"):
        getattr(pr, name)("rel", k, by="score")


@pytest.mark.parametrize("k", [2.5, "10", True])
def test_non_int_k_raises_type_error(k: object) -> None:
    with pytest.raises(TypeError, match="k must be a positive int"):
        pr.ndcg("rel", k, by="score")  # type: ignore[arg-type]


def test_rbp_keyword_k_is_validated() -> None:
    with pytest.raises(ValueError, match="k must be"):
        pr.rbp("rel", 0.8, k=0, by="score")


def test_unknown_gain() -> None:
    allowed = "'exponential', 'linear', 'binary'"
    with pytest.raises(ValueError, match=rf"gain must be one of {allowed}, got 'exp'"):
        pr.ndcg("rel", 10, gain="exp", by="score")  # type: ignore[arg-type]


@pytest.mark.parametrize("max_grade", [0, 0.5, -1, math.inf])
def test_max_grade_below_one(max_grade: float) -> None:
    with pytest.raises(ValueError, match=r"max_grade must be a finite number >= 1"):
        pr.err("rel", max_grade=max_grade, by="score")


@pytest.mark.parametrize("p", [0, 1, 1.5, -0.1, math.nan])
def test_rbp_p_outside_unit_interval(p: float) -> None:
    with pytest.raises(ValueError, match=r"p must be a number strictly between 0 and 1"):
        pr.rbp("rel", p, by="score")


def test_unknown_ties_policy() -> None:
    with pytest.raises(ValueError, match=r"ties must be one of 'first', .*got 'random'"):
        pr.ndcg("rel", ties="random", by="score")  # type: ignore[arg-type]


def test_threshold_must_be_a_number() -> None:
    with pytest.raises(TypeError, match="threshold must be a finite number"):
        pr.precision("rel", 5, threshold="1", by="score")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threshold must be a finite number"):
        pr.precision("rel", 5, threshold=math.nan, by="score")


def test_descending_length_must_match_by() -> None:
    with pytest.raises(ValueError, match="one bool per `by` key"):
        pr.ndcg("rel", by=["score", "doc"], descending=[True])


def test_by_and_query_types() -> None:
    with pytest.raises(TypeError, match="by must be"):
        pr.ndcg("rel", by=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="query must be"):
        pr.ndcg("rel", by="score", query=[])


# --- bad data: NaN for the affected list, never a plausible number, never null --------

BAD_DATA = {
    "negative relevance": {"rel": [1.0, -1.0, 0.0], "score": [3.0, 2.0, 1.0]},
    "NaN relevance": {"rel": [1.0, math.nan, 0.0], "score": [3.0, 2.0, 1.0]},
    "infinite relevance": {"rel": [1.0, math.inf, 0.0], "score": [3.0, 2.0, 1.0]},
    "NaN score": {"rel": [1.0, 0.0, 1.0], "score": [3.0, math.nan, 1.0]},
}


# the arguments a metric cannot do without (ir_measures requires them too)
REQUIRED: dict[str, dict[str, int]] = {
    **{name: {"k": 3, "max_rel": 3} for name in ["sdcg", "bpm", "nerr8", "nerr9"]},
    **{name: {"max_rel": 3} for name in ["inst", "insq", "nerr10", "nerr11"]},
}


def _metric(name: str, **kwargs: Any) -> pl.Expr:
    """``name`` by the score; an intent-aware one with a subtopic and a doc id per row."""
    function = getattr(pr, name)
    kwargs = {**REQUIRED.get(name, {}), **kwargs}
    definition = next((m for m in REGISTRY.values()
                       if m.function.__name__ == function.__name__), None)
    if definition is not None and definition.subtopics:  # one subtopic; each row its own document
        kwargs |= {"subtopic": pl.lit("s"), "doc": pl.int_range(pl.len())}
        if definition.cutoff:
            return function("rel", 3, by="score", **kwargs)  # type: ignore[no-any-return]
    return function("rel", by="score", **kwargs)  # type: ignore[no-any-return]


TEXT = {"relstring"}
"""A string per list: null where the list cannot be scored (no NaN string), and no
mean over queries (``query=`` raises)."""


@pytest.mark.parametrize("problem", sorted(BAD_DATA))
@pytest.mark.parametrize("name", metrics.__all__)
def test_bad_data_gives_nan(problem: str, name: str) -> None:
    df = pl.DataFrame(BAD_DATA[problem])
    value = df.select(_metric(name)).item()
    if name in TEXT:
        assert value is None
        return
    assert value is not None
    assert math.isnan(value)


@pytest.mark.parametrize("name", metrics.__all__)
def test_one_bad_query_makes_the_mean_nan(name: str) -> None:
    df = pl.DataFrame({
        "qid": [1, 1, 2, 2],
        "rel": [1.0, 0.0, -2.0, 1.0],
        "score": [2.0, 1.0, 2.0, 1.0],
    })
    per = dict(df.group_by("qid").agg(_metric(name)).iter_rows())
    if name in TEXT:
        assert per == {1: "10", 2: None}
        with pytest.raises(ValueError, match="no mean over queries"):
            getattr(pr, name)("rel", by="score", query="qid")
        return
    assert per[1] is None or not math.isnan(per[1])  # the clean query is scored
    assert math.isnan(per[2])
    mean = df.select(_metric(name, query="qid")).item()
    assert math.isnan(mean)


def test_label_above_max_grade_gives_nan_for_err_only() -> None:
    df = pl.DataFrame({"rel": [5, 1, 0]})
    assert math.isnan(df.select(pr.err("rel", max_grade=4, by=None)).item())
    assert not math.isnan(df.select(pr.err("rel", max_grade=5, by=None)).item())
    assert not math.isnan(df.select(pr.ndcg("rel", by=None)).item())


def test_validate_lists_every_offending_row() -> None:
    df = pl.DataFrame({
        "qid": ["a", "a", "b", "b", "c"],
        "doc": ["x", "y", "x", "x", "z"],
        "rel": [1.0, -1.0, math.inf, 7.0, None],
        "score": [0.5, 0.4, math.nan, 0.2, None],
    })
    out = pr.validate(df, "rel", by="score", query="qid", doc="doc", max_grade=4)
    got = sorted(zip(out["qid"], out["problem"], strict=True))
    assert got == [
        ("a", "negative relevance"),
        ("b", "NaN score in `by`"),
        ("b", "duplicate (query, doc) row"),
        ("b", "duplicate (query, doc) row"),
        ("b", "non-finite relevance (NaN or inf)"),
        ("b", "relevance above max_grade=4"),
        ("b", "relevance above max_grade=4"),
    ]
    lazy = pr.validate(df.lazy(), "rel", by="score")
    assert isinstance(lazy, pl.LazyFrame)
    clean = pr.validate(df.filter(pl.col("qid") == "c"), "rel", by="score")
    assert clean.is_empty()
