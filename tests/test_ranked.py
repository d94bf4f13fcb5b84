"""``ranked()``: the ranking step of ``evaluate()``, as a frame a user holds."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from polars.testing import assert_frame_equal
from test_engine import assert_same_values, cases

import polars_rank as pr
from polars_rank.registry import parse_metric

RUN = pl.DataFrame({
    "qid": ["q2", "q1", "q1", "q1", "q2", "q3"],
    "docid": ["a", "b", "c", "a", "d", "x"],
    "score": [2.0, 3.0, 2.0, 2.0, 1.0, 1.0],
})
QRELS = pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["b", "z", "d", "a"],
                      "rel": [2, 1, 1, 0]})


def test_judged_rows_with_their_rank_and_each_lists_end() -> None:
    with pytest.warns(UserWarning, match="1 run query has no judgments"):  # q3
        lists = pr.ranked(RUN, QRELS)
    want = pl.DataFrame({
        "qid": ["q1", "q1", "q1", "q2", "q2"],
        "docid": ["b", None, "z", "a", "d"],
        "rel": [2.0, None, 1.0, 0.0, 1.0],
        "rank": [1, 3, None, 1, 2],  # q1: c and a tie at 2.0; trec_eval puts c first
    })
    assert_frame_equal(lists, want)
    assert lists["qid"].flags["SORTED_ASC"]  # a group_by on it slices the frame


def test_lazy_in_lazy_out_and_the_same_numbers_as_evaluate() -> None:
    with pytest.warns(UserWarning, match="no judgments"):
        lists = pr.ranked(RUN.lazy(), QRELS.lazy())
    with pytest.warns(UserWarning, match="no judgments"):
        want = pr.evaluate(RUN, QRELS, ["ndcg_cut_10", "map", "P_2"], per_query=True)
    assert isinstance(lists, pl.LazyFrame)
    got = lists.group_by("qid").agg(
        pr.ndcg("rel", 10, rank="rank", gain="linear").alias("ndcg_cut_10"),
        pr.map("rel", rank="rank").alias("map"),
        pr.precision("rel", 2, rank="rank").alias("P_2"),
    ).sort("qid").collect()
    assert_frame_equal(got, want)


def test_expected_ties_give_tie_bounds() -> None:
    with pytest.warns(UserWarning, match="no judgments"):
        lists = pr.ranked(RUN, QRELS, ties="expected")
    q1 = lists.filter(pl.col("qid") == "q1").sort("rank", nulls_last=True)
    # the end row (the list's length) sits at the last rank, inside c and a's tie
    assert q1.select("rank", "rank_last").rows() == [(1, 1), (3, 3), (None, None)]
    assert q1["docid"].to_list() == ["b", None, "z"]


def test_labelled_frame_per_arm() -> None:
    df = pr.datasets.synthetic_experiment(200, seed=1)
    lists = pr.ranked(df, group_by="arm")
    got = lists.group_by("arm").agg(
        # metric strings are linear gain (as trec_eval); the functions default to 2^l - 1
        pr.ndcg("rel", 10, rank="rank", gain="linear", query="qid").alias("ndcg@10"),
        pr.mrr("rel", 10, rank="rank", query="qid").alias("mrr@10"),
    ).sort("arm")
    want = pr.evaluate(df, metrics=["ndcg@10", "mrr@10"], group_by="arm")
    assert_frame_equal(got, want)


def test_bad_data_is_named_as_in_evaluate() -> None:
    bad = QRELS.with_columns(rel=pl.Series([2, -1, 1, 0]))
    with pytest.raises(pr.InvalidDataError, match="negative relevance in qrels column 'rel'"):
        pr.ranked(RUN, bad)


# ------------------------------------------------------------------ unjudged documents
RANKED_SPECS = ["ndcg@3", "map", "p@2", "recall@3", "mrr", "rprec", "bpref", "num_rel_ret",
                "dcg@2", "unj@3"]


@pytest.mark.parametrize("ties", ["trec_eval", "expected"])
@pytest.mark.parametrize(("unjudged", "grade"), [("low", None), ("ignore", None),
                                                 ("high", None), ("high", 3.0),
                                                 ("condensed", None)])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_unjudged_gives_evaluates_numbers(ties: str, unjudged: str, grade: float | None,
                                          case: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    """Plain metrics on ``ranked(unjudged=...)`` are ``evaluate(unjudged=...)``'s."""
    run, qrels = case
    specs = [s for s in RANKED_SPECS if not (ties == "expected" and s.startswith("unj"))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries without judgments
        want = pr.evaluate(run, qrels, specs, per_query=True, ties=ties,  # type: ignore[arg-type]
                           unjudged=unjudged, unjudged_grade=grade)  # type: ignore[arg-type]
        lists = pr.ranked(run, qrels, ties=ties, unjudged=unjudged,  # type: ignore[arg-type]
                          unjudged_grade=grade)  # type: ignore[arg-type]
    rank = ("rank", "rank_last") if ties == "expected" else "rank"
    got = lists.group_by("qid").agg(parse_metric(s).expr("rel", rank=rank).alias(s)
                                    for s in specs)
    assert_same_values(got.filter(pl.col("qid").is_in(want["qid"].implode())), want, specs)


def test_unjudged_high_keeps_the_unjudged_documents_labelled() -> None:
    with pytest.warns(UserWarning, match="no judgments"):
        lists = pr.ranked(RUN, QRELS, unjudged="high")  # q1's c and a at the largest label
    q1 = lists.filter(pl.col("qid") == "q1").sort("rank", nulls_last=True)
    assert q1.select("docid", "rel", "rank").rows() == [
        ("b", 2.0, 1), ("c", 2.0, 2), ("a", 2.0, 3), ("z", 1.0, None)]
    with pytest.warns(UserWarning, match="no judgments"):
        graded = pr.ranked(RUN, QRELS, unjudged="high", unjudged_grade=0.5)
    assert graded.filter(pl.col("docid") == "c")["rel"].to_list() == [0.5]


def test_unjudged_condensed_ranks_the_judged_rows_among_themselves() -> None:
    run = pl.DataFrame({"qid": ["q1"] * 4, "docid": ["a", "b", "c", "d"],
                        "score": [4.0, 3.0, 2.0, 2.0]})
    qrels = pl.DataFrame({"qid": ["q1"] * 3, "docid": ["b", "d", "z"], "rel": [1, 0, 1]})
    lists = pr.ranked(run, qrels, unjudged="condensed")
    # a (unjudged) at 1 and c (unjudged, tied with d) removed: b and d move up; the
    # list's end row (unjudged) keeps no rank
    assert lists.select("docid", "rank").rows() == [("b", 1), ("d", 2), (None, None),
                                                    ("z", None)]
    expected = pr.ranked(run, qrels, unjudged="condensed", ties="expected")
    # c and d tie at 2.0 (ranks 3-4): d alone in its block among the judged rows
    assert expected.select("docid", "rank", "rank_last").rows() == [
        ("b", 1, 1), ("d", 2, 2), ("z", None, None)]


def test_unjudged_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="unjudged must be one of"):
        pr.ranked(RUN, QRELS, unjudged="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unjudged_grade must be"):
        pr.ranked(RUN, QRELS, unjudged="high", unjudged_grade=-1)
