"""Uncertain labels (issue 40, item 4): expectations against brute force, MC within its error.

The oracle is tests/uncertain_reference.py: every labelling of a list of up to 8
labelled documents, each metric computed by evaluate() and weighted by the labelling's
probability.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rank.agreement import evaluate_uncertain, label_draws
from polars_rank.agreement._uncertain.exact import MONOTONE, exact_kernel
from polars_rank.registry import parse_metric
from tests.budget import examples
from tests.uncertain_reference import brute_force, reciprocal_rank

EXACT = ["dcg@5", "dcg", "p", "dcg@3(gain=exponential)", "p@3", "p@10", "P(rel=2)@5",
         "rbp(p=0.5)", "hits@3", "num_rel_ret", "num_rel", "mrr", "mrr@3", "hit_rate@2",
         "err@5(max_grade=3)", "err"]
ESTIMATED = ["ndcg@5", "map", "recall@3", "rprec", "ndcg(gain=exponential)"]


@st.composite
def lists(draw: st.DrawFn) -> tuple[list[tuple[str, float | None]],
                                     dict[str, list[tuple[float, float]]]]:
    """A query: its retrieved (doc, score) and its labelled documents' supports."""
    labelled = [f"d{i}" for i in range(draw(st.integers(1, 8)))]
    support: dict[str, list[tuple[float, float]]] = {}
    budget = 3000  # labellings at most
    for doc in labelled:
        size = draw(st.integers(1, 3 if budget >= 3 * 27 else 2 if budget >= 2 * 27 else 1))
        grades = sorted(draw(st.sets(st.integers(0, 3), min_size=size, max_size=size)))
        weights = [draw(st.integers(1, 5)) for _ in grades]
        support[doc] = [(float(g), w / sum(weights)) for g, w in zip(grades, weights,
                                                                     strict=True)]
        budget //= size
    retrieved = [d for d in labelled if draw(st.booleans()) or d == labelled[0]]
    retrieved += [f"u{i}" for i in range(draw(st.integers(0, 2)))]  # unjudged
    run = [(d, float(draw(st.integers(0, 3)))) for d in retrieved]  # ties on purpose
    return run, support


def _frames(run: list[tuple[str, float | None]],
            support: dict[str, list[tuple[float, float]]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    run_frame = pl.DataFrame({"qid": "q", "docid": [d for d, _ in run],
                              "score": [s for _, s in run]},
                             schema={"qid": pl.String, "docid": pl.String, "score": pl.Float64})
    labels = pl.DataFrame(
        [{"qid": "q", "docid": d, "grade": g, "probability": p}
         for d, grades in support.items() for g, p in grades],
        schema={"qid": pl.String, "docid": pl.String, "grade": pl.Float64,
                "probability": pl.Float64})
    return run_frame, labels


def _values(result: pl.DataFrame, column: str = "value") -> dict[str, float]:
    return dict(zip(result["metric"], result[column], strict=True))


def test_the_exact_list_is_what_the_kernels_say() -> None:
    assert all(exact_kernel(parse_metric(m)) is not None for m in EXACT)
    assert all(exact_kernel(parse_metric(m)) is None for m in ESTIMATED)
    assert exact_kernel(parse_metric("ndcg@10(gains={1:3,2:9})")) is None


@settings(max_examples=examples(25), deadline=None)
@given(lists())
def test_exact_expectations_equal_brute_force(case: tuple) -> None:  # type: ignore[type-arg]
    run, support = case
    run_frame, labels = _frames(run, support)
    got = evaluate_uncertain(run_frame, labels, EXACT).per_query
    assert set(got["method"]) == {"exact"}
    truth = brute_force(run, support, EXACT)
    for metric, value in _values(got).items():
        assert value == pytest.approx(truth[metric][0], abs=1e-9, rel=1e-9), metric


@settings(max_examples=examples(8), deadline=None)
@given(lists())
def test_monte_carlo_and_bounds_against_brute_force(case: tuple) -> None:  # type: ignore[type-arg]
    run, support = case
    run_frame, labels = _frames(run, support)
    metrics = [*ESTIMATED, "mrr@3", "dcg@5", "err"]
    got = evaluate_uncertain(run_frame, labels, metrics, samples=300, seed=3,
                             bounds=True).per_query
    truth = brute_force(run, support, metrics)
    for row in got.iter_rows(named=True):
        mean, low, high = truth[row["metric"]]
        assert abs(row["value"] - mean) <= 4 * row["se"] + 1e-9, row
        if parse_metric(row["metric"]).definition.name in MONOTONE:
            assert row["low"] == pytest.approx(low, abs=1e-12), row
            assert row["high"] == pytest.approx(high, abs=1e-12), row
        else:  # a value the metric takes, within its range
            assert low - 1e-12 <= row["low"] <= row["high"] <= high + 1e-12, row


def test_reciprocal_rank_is_the_plain_formula() -> None:
    p = [0.3, 0.0, 1.0, 0.5, 0.25]
    run = pl.DataFrame({"qid": "q", "docid": [f"d{i}" for i in range(5)],
                        "score": [5.0, 4, 3, 2, 1]})
    labels = run.select("qid", "docid", probability=pl.Series(p))
    got = evaluate_uncertain(run, labels, ["mrr", "hit_rate@2"], form="probability").mean
    assert _values(got)["mrr"] == pytest.approx(reciprocal_rank(p), abs=1e-15)
    assert _values(got)["hit_rate@2"] == pytest.approx(1 - 0.7 * 1.0, abs=1e-15)


def _large(queries: int = 20, docs: int = 60) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run and graded label distributions, built from integers (no random module)."""
    rows = [(f"q{q}", f"d{d}", float((q * 7 + d * 13) % 97)) for q in range(queries)
            for d in range(docs)]
    run = pl.DataFrame(rows, schema=["qid", "docid", "score"], orient="row")
    labels = []
    for q, d, _ in rows:
        h = (hash_int(q + d) % 1000) / 1000
        labels += [(q, d, 0.0, 0.8 - 0.6 * h), (q, d, 1.0, 0.1 + 0.3 * h),
                   (q, d, 3.0, 0.1 + 0.3 * h)]
    return run, pl.DataFrame(labels, schema=["qid", "docid", "grade", "probability"],
                             orient="row").filter(pl.col("probability") > 0)


def hash_int(text: str) -> int:
    """A stable hash of a string (Python's own hash is salted per process)."""
    return sum((i + 1) * ord(c) for i, c in enumerate(text)) * 2654435761 % 2**32


def test_monte_carlo_is_within_its_error_on_large_lists() -> None:
    run, labels = _large()
    metrics = ["dcg@10", "mrr", "err@20", "p@10", "hit_rate@2", "num_rel"]
    exact = evaluate_uncertain(run, labels, metrics)
    mc = evaluate_uncertain(run, labels, metrics, method="monte_carlo", samples=200, seed=7)
    assert set(mc.mean["method"]) == {"monte_carlo"}
    joined = exact.per_query.join(mc.per_query, on=["qid", "metric"], suffix="_mc")
    assert joined.height == 20 * len(metrics)
    z = (joined["value_mc"] - joined["value"]).abs() / joined["se_mc"]
    assert z.max() < 4.5, joined.filter(z == z.max())  # 120 comparisons
    assert z.mean() < 1.2  # |N(0, 1)| has mean 0.8: a se far too large would pass the first
    zm = ((mc.mean["value"] - exact.mean["value"]).abs() / mc.mean["se"])
    assert zm.max() < 4, mc.mean
    assert (mc.mean["se"] > 0).all()


def test_deterministic_for_a_seed_and_row_order() -> None:
    run, labels = _large(queries=6, docs=20)
    run = run.filter(pl.col("docid") != "d3")  # a labelled document not retrieved
    metrics = ["ndcg@10", "map", "mrr", "num_rel", "dcg@10", "err@5"]
    first = evaluate_uncertain(run, labels, metrics, samples=50, seed=11, bounds=True)
    again = evaluate_uncertain(run.sample(fraction=1.0, shuffle=True, seed=1).lazy(),
                               labels.sample(fraction=1.0, shuffle=True, seed=2), metrics,
                               samples=50, seed=11, bounds=True, block=7)
    assert first.per_query.equals(again.per_query)
    assert first.per_query.height == 6 * len(metrics)
    means = first.per_query.group_by("metric").agg(pl.col("value", "low", "high").mean())
    check = first.mean.join(means, on="metric", suffix="_q")
    for column in ("value", "low", "high"):
        assert (check[column] - check[f"{column}_q"]).abs().max() < 1e-12  # type: ignore[operator]
    assert first.mean.equals(again.mean)
    other = evaluate_uncertain(run, labels, metrics, samples=50, seed=12)
    assert not other.mean.filter(pl.col("metric") == "map")["value"].equals(
        first.mean.filter(pl.col("metric") == "map")["value"])


def test_the_three_forms_agree() -> None:
    run = pl.DataFrame({"qid": ["q"] * 4, "docid": ["a", "b", "c", "d"],
                        "score": [4.0, 3.0, 2.0, 1.0]})
    judges = pl.DataFrame({"qid": "q", "docid": ["a", "a", "a", "b", "b", "c", "e"],
                           "judge": ["x", "y", "z", "x", "y", "x", "y"],
                           "grade": [1, 0, 1, 1, 1, 0, 1]})
    distribution = pl.DataFrame({"qid": "q", "docid": ["a", "a", "b", "c", "e"],
                                 "grade": [1, 0, 1, 0, 1],
                                 "probability": [2 / 3, 1 / 3, 1.0, 1.0, 1.0]})
    probability = pl.DataFrame({"qid": "q", "docid": ["a", "b", "c", "e"],
                                "probability": [2 / 3, 1.0, 0.0, 1.0]})
    metrics = ["mrr", "p@3", "dcg@4", "num_rel"]
    values = [_values(evaluate_uncertain(run, labels, metrics, form=form).mean)
              for labels, form in ((judges, "judges"), (distribution, "distribution"),
                                   (probability, "probability"))]
    for metric in metrics:
        assert values[0][metric] == pytest.approx(values[1][metric], abs=1e-12)
        assert values[0][metric] == pytest.approx(values[2][metric], abs=1e-12)
    assert values[0]["num_rel"] == pytest.approx(2 / 3 + 1 + 1)
    assert values[0]["mrr"] == pytest.approx(2 / 3 + 1 / 3 / 2)


def test_label_draws_share_labels_across_arms_and_follow_the_distribution() -> None:
    run = pl.DataFrame({"arm": ["A", "A", "B", "B"], "qid": "q", "docid": ["a", "b"] * 2,
                        "score": [2.0, 1.0, 2.0, 1.0]})
    labels = pl.DataFrame({"qid": "q", "docid": ["a", "b"], "probability": [0.3, 1.0]})
    draws = label_draws(run, labels, ["mrr"], form="probability", arm="arm", samples=2000)
    a, b = (draws.filter(pl.col("arm") == x)["mrr"] for x in ("A", "B"))
    assert a.equals(b)  # identical lists, identical labels in each draw
    share = (a == 1.0).mean()
    assert isinstance(share, float)
    assert abs(share - 0.3) < 4 * math.sqrt(0.3 * 0.7 / 2000)
