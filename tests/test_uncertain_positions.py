"""The Monte Carlo draws read each list ranked once: the same values as evaluate() per draw.

:func:`label_draws` computes the metrics :func:`fast` accepts from the run ranked
once (``polars_rank.agreement._uncertain.positions``); here every such metric of the
registry, on small random cases with tied scores, integer (ordered as text: 7 before
14) and text document ids, labelled documents the run did not retrieve, retrieved
documents without labels and two arms, equals :func:`polars_rank.evaluate` run on
each draw's labels (the draws rebuilt by ``sampling.draw_labels``, the slow path's
own), value for value.
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.agreement import evaluate_uncertain, label_draws
from polars_rank.agreement._uncertain.positions import fast
from polars_rank.agreement._uncertain.sampling import draw_labels, label_intervals
from polars_rank.registry import METRICS, parse_metric
from tests.budget import examples

SAMPLES = 4


def _names() -> list[str]:
    names = []
    for name in METRICS:
        try:
            metric = parse_metric(name)
        except (TypeError, ValueError):  # needs a cutoff or an option: below with one
            continue
        if fast(metric):
            names.append(name)
    return [*names, "ndcg@3", "map@5", "recall@4", "p@2", "ndcg_burges@5",
            "err@3", "f1@3", "map(threshold=2)"]


FAST = _names()


def _case(seed: int, queries: int, docs: int, text: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run of two arms with tied scores and a label distribution over grades 0-2."""
    rng = __import__("random").Random(seed)
    run_rows, label_rows = [], []
    for q in range(queries):
        pool = [7 * d for d in range(docs + 2)]  # two arms of `docs` share some
        labelled = rng.sample(pool, docs)  # some labelled documents no arm retrieves
        for arm in ("a", "b"):
            for d in rng.sample(pool, docs):  # some retrieved documents without labels
                run_rows.append((f"q{q}", str(d) if text else d, arm, rng.choice([0.0, 0.5, 1.0])))
        for d in labelled:
            weights = [rng.random() if rng.random() < 0.8 else 0.0 for _ in range(3)]
            weights[rng.randrange(3)] += 0.1
            for g, w in enumerate(weights):
                label_rows.append((f"q{q}", str(d) if text else d, float(g), w / sum(weights)))
    run = pl.DataFrame(run_rows, schema=["qid", "docid", "arm", "score"], orient="row")
    labels = pl.DataFrame(label_rows, schema=["qid", "docid", "grade", "probability"],
                          orient="row")
    return run, labels


def _by_evaluate(run: pl.DataFrame, labels: pl.DataFrame, names: list[str],
                 seed: int) -> pl.DataFrame:
    """Each draw's labels, rebuilt as the slow path draws them, evaluated by evaluate()."""
    intervals = label_intervals(labels.lazy(), "qid", "docid")
    parts = []
    for s in range(SAMPLES):  # a loop over a handful of draws
        draws = pl.LazyFrame({"_draw": [s]}, schema={"_draw": pl.Int64})
        qrels = draw_labels(intervals, draws, "qid", "docid", seed).collect()
        values = pr.evaluate(run, qrels, names, rel="grade", group_by="arm", per_query=True)
        parts.append(values.with_columns(pl.lit(s, pl.Int64).alias("draw")))
    return pl.concat(parts).select("draw", "arm", "qid", *names).sort("draw", "arm", "qid")


@settings(max_examples=examples(6), deadline=None)
@given(seed=st.integers(0, 2**16), queries=st.integers(1, 4), docs=st.integers(3, 7),
       text=st.booleans())
def test_the_draws_equal_evaluate_on_each_draw(seed: int, queries: int, docs: int,
                                               text: bool) -> None:
    run, labels = _case(seed, queries, docs, text)
    ours = label_draws(run, labels, FAST, arm="arm", samples=SAMPLES, seed=seed % 7)
    theirs = _by_evaluate(run, labels, FAST, seed % 7)
    assert ours.select("draw", "arm", "qid").equals(theirs.select("draw", "arm", "qid"))
    for name in FAST:  # identical numbers (NaN where evaluate() gives NaN)
        assert ours[name].cast(pl.Float64).equals(theirs[name].cast(pl.Float64)), name


@pytest.mark.parametrize("name", ["ndcg@10", "map", "rprec", "bpref", "recall@5"])
def test_every_estimated_metric_takes_the_fast_path(name: str) -> None:
    assert fast(parse_metric(name))


@pytest.mark.parametrize("name", ["infap", "auc", "judged@10", "alpha_dcg@5", "map_avgjg",
                                  "ndcg@10(judged_only=True)", "map(unjudged=high)"])
def test_the_metrics_reading_other_rows_are_not_fast(name: str) -> None:
    assert not fast(parse_metric(name))


@pytest.mark.parametrize("name", ["infap", "auc", "judged@10", "ndcg@10(judged_only=True)",
                                  "map(unjudged=high)"])
def test_the_others_go_through_evaluate(name: str) -> None:
    run, labels = _case(1, 2, 4, text=False)
    ours = label_draws(run, labels, [name, "map"], arm="arm", samples=SAMPLES, seed=3)
    theirs = _by_evaluate(run, labels, [name, "map"], 3)
    for column in (name, "map"):
        assert ours[column].cast(pl.Float64).equals(theirs[column].cast(pl.Float64))


@pytest.mark.parametrize("docs", [[9, 10], ["9", "10"], [10, 9]])
def test_exact_and_monte_carlo_rank_ties_as_evaluate(docs: list[object]) -> None:
    """Tied scores: document ids compared as text, descending (9 before 10), by both paths."""
    run = pl.DataFrame({"qid": ["q", "q"], "docid": docs, "score": [1.0, 1.0]})
    labels = pl.DataFrame({"qid": ["q", "q"], "docid": docs, "probability": [0.0, 1.0]})
    truth = pr.evaluate(run, labels.rename({"probability": "rel"}), ["mrr", "dcg"])
    for method in ("auto", "monte_carlo"):
        mean = evaluate_uncertain(run, labels, ["mrr", "dcg"], form="probability",
                                  method=method, samples=2).mean
        assert mean["value"].to_list() == list(truth.row(0)), method
