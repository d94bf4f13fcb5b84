"""Unjudged documents: ``unjudged=`` ("low", "high", "ignore", "condensed") and ``bounds=``.

For every registered metric (test_engine's SPECS, the intent-aware ones aside):

* ``"low"`` and ``"ignore"`` equal today's value;
* ``"high"`` equals the metric on data where every unjudged retrieved row carries the
  grade (the relabelled frame, and for ``evaluate()`` the qrels with those documents
  judged, are built here, in plain Python);
* ``"condensed"`` equals the metric on the rows without the unjudged retrieved ones;
* ``bounds=True`` is the pair (low, high), as a struct and as evaluate()'s columns;
* low <= value <= high for any judgment of the unjudged rows in [0, grade], for the
  metrics monotone in the labels; :data:`NOT_MONOTONE` are the others, each with a
  pinned counterexample (so the list cannot be too long either).
"""

from __future__ import annotations

import math
import random

import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine import NO_EXPECTED, SPECS, cases, close

import polars_rank as pr
from polars_rank.registry import parse_metric

PLAIN = [s for s in SPECS if not parse_metric(s).definition.subtopics]
GRADE = 2.0

# metrics that can fall when an unjudged retrieved document turns out relevant (or
# rise when it turns out non-relevant): normalised by R or an ideal the new relevant
# document grows (nDCG, AP, recall, R-precision, F1, ...), counting the unjudged or
# judged non-relevant rows themselves (unj, bpref, ...), scaled by the list's largest
# label (rbp graded), or leaving a query out of the mean while it has nothing relevant
# (empty=skip: mrr, abandonment). Found by test_every_exception_has_a_counterexample.
NOT_MONOTONE = {
    "11pt_avg", "abandonment", "accuracy", "auc", "bing", "bpref", "compat", "f1", "g",
    "gm_bpref", "gm_map", "yaap", "infap", "iprec_at_recall", "map", "mrr", "ndcg", "ndcg_rel",
    "num_nonrel_judged_ret", "rank_correlation", "rbp", "rbp_resid", "recall",
    "relative_p", "rndcg", "rprec", "rprec_mult", "unj",
}


def same(a: object, b: object) -> bool:
    """test_engine's ``close``, element by element for relstring's lists."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return close(a, b)  # type: ignore[arg-type]


def options(spec: str, extra: str) -> str:
    """``spec`` with more options in its brackets."""
    if spec.endswith(")"):
        return spec[:-1] + "," + extra + ")"
    return f"{spec}({extra})"


@st.composite
def frames(draw: st.DrawFn) -> pl.DataFrame:
    """Up to 3 queries; scores with ties and nulls (judged, not retrieved); labels 0-3
    or null (unjudged)."""
    rows = []
    for q in range(draw(st.integers(1, 3))):
        for d in range(draw(st.integers(0, 7))):
            score = draw(st.sampled_from([None, 0.5, 1.0, 1.0, 2.0, 3.0]))
            rows.append((q, d, score, draw(st.sampled_from([0, 1, 2, 3, None, None]))))
    return pl.DataFrame(rows, schema={"qid": pl.Int64, "docid": pl.Int64,
                                      "score": pl.Float64, "rel": pl.Float64}, orient="row")


def relabelled(frame: pl.DataFrame, grade: float) -> pl.DataFrame:
    """Every unjudged retrieved row judged at ``grade``, row by row."""
    rows = [(q, d, s, grade if r is None and s is not None else r)
            for q, d, s, r in frame.iter_rows()]
    return pl.DataFrame(rows, schema=frame.schema, orient="row")


def condensed(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with its unjudged retrieved rows out of the ranking (a null score: the
    row counts for nothing, and a query left with nothing retrieved stays a query)."""
    rows = [(q, d, None if r is None else s, r) for q, d, s, r in frame.iter_rows()]
    return pl.DataFrame(rows, schema=frame.schema, orient="row")


def value(frame: pl.DataFrame, spec: str, **kwargs: object) -> object:
    metric = parse_metric(spec)
    if metric.definition.over_queries == "none":  # relstring: a string per query
        # one order of the list, which the default (the mean over tie orders) does not choose
        per = frame.group_by("qid").agg(metric.expr("rel", by="score", ties="first", **kwargs))
        return per.sort("qid").to_series(1).to_list()
    return frame.select(metric.expr("rel", by="score", query="qid", **kwargs)).item()


@pytest.mark.parametrize("spec", PLAIN)
@settings(max_examples=examples(3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=frames())
def test_every_policy_is_the_metric_on_the_rewritten_data(spec: str,
                                                          frame: pl.DataFrame) -> None:
    today = value(frame, spec)
    assert same(value(frame, options(spec, "unjudged=low")), today)
    assert same(value(frame, options(spec, "unjudged=ignore")), today)
    high = value(frame, options(spec, f"unjudged=high,unjudged_grade={GRADE:g}"))
    assert same(high, value(relabelled(frame, GRADE), spec))
    assert same(value(frame, options(spec, "unjudged=high")),  # the default grade: 1
                 value(relabelled(frame, 1.0), spec))
    assert same(value(frame, options(spec, "unjudged=condensed")),
                 value(condensed(frame), spec))
    if parse_metric(spec).definition.over_queries != "none":
        pair = value(frame, options(spec, f"unjudged_grade={GRADE:g}"), bounds=True)
        assert isinstance(pair, dict)
        assert same(pair["low"], today)
        assert same(pair["high"], high)


def test_function_keyword_namespace_and_contexts() -> None:
    frame = pl.DataFrame({"qid": [1, 1, 1, 1, 2, 2, 2], "rel": [None, 1, 0, 2, 3, None, 0],
                          "score": [5.0, 4.0, 3.0, None, 3.0, 2.0, 1.0]})
    rel = relabelled(frame.select("qid", pl.lit(0).alias("docid"), "score",
                                  pl.col("rel").cast(pl.Float64)), 3.0)
    want = rel.group_by("qid").agg(pr.ndcg("rel", 3, by="score")).sort("qid")
    got = frame.group_by("qid").agg(
        pr.ndcg("rel", 3, by="score", unjudged="high", unjudged_grade=3)).sort("qid")
    assert got.columns == ["qid", "ndcg@3(gain=exponential,unjudged=high,unjudged_grade=3)"]
    assert got.to_series(1).to_list() == want.to_series(1).to_list()
    over = frame.with_columns(pl.col("rel").rank.ndcg(3, by="score", unjudged="high",
                                                      unjudged_grade=3).over("qid"))
    assert over.to_series(-1).unique().sort().to_list() == sorted(want.to_series(1).to_list())
    mean = frame.select(pr.ndcg("rel", 3, by="score", query="qid", bounds=True,
                                unjudged_grade=3)).item()
    assert math.isclose(mean["high"], want.to_series(1).mean())  # type: ignore[arg-type]
    lazy = frame.lazy().select(pr.map("rel", by="score", query="qid", bounds=True))
    assert lazy.collect(engine="streaming").item()["low"] == frame.select(
        pr.map("rel", by="score", query="qid")).item()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unjudged must be one of"):
        pr.ndcg("rel", by="score", unjudged="maybe")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unjudged_grade must be"):
        pr.ndcg("rel", by="score", unjudged="high", unjudged_grade=0)
    with pytest.raises(TypeError, match="bounds must be True or False"):
        pr.ndcg("rel", by="score", bounds="yes")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="must be one of"):
        parse_metric("ndcg(unjudged=sometimes)")
    with pytest.raises(NotImplementedError, match="intent-aware"):
        pr.alpha_ndcg("rel", subtopic="s", doc="d", by="score", unjudged="high")
    assert str(parse_metric("ndcg@10(unjudged=high,unjudged_grade=3)")) == \
        "ndcg@10(unjudged=high,unjudged_grade=3)"


# ------------------------------------------------------------------------ evaluate()
def judged_qrels(run: pl.DataFrame, qrels: pl.DataFrame, grade: float) -> pl.DataFrame:
    """The qrels with every unjudged document the run retrieved for a judged query
    judged at ``grade`` (one list per query: no group_by)."""
    labels = {(q, d): r for q, d, r in qrels.iter_rows()}
    judged_queries = {q for q, _, _ in qrels.iter_rows()}
    out = dict(labels)
    for q, d, _ in run.iter_rows():
        if q in judged_queries and labels.get((q, d)) is None:
            out[(q, d)] = grade
    return pl.DataFrame([(q, d, r) for (q, d), r in out.items()],
                        schema={"qid": pl.Int64, "docid": pl.Int64, "rel": pl.Float64},
                        orient="row")


def by_query(frame: pl.DataFrame, column: str) -> dict[object, object]:
    return dict(zip(frame["qid"].to_list(), frame[column].to_list(), strict=True))


@pytest.mark.parametrize("ties", ["trec_eval", "expected"])
@settings(max_examples=examples(3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=cases())
def test_evaluate_bounds_are_evaluate_on_the_judged_qrels(
        ties: str, data: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = data
    specs = [s for s in PLAIN if s not in ("relstring@4",)
             and not (ties == "expected" and parse_metric(s).definition.name in
                      NO_EXPECTED | {"unj", "judged", "rbp_resid"})]
    if qrels.is_empty() or qrels["rel"].drop_nulls().is_empty():
        return
    top = max(float(qrels["rel"].max()), 1.0)  # type: ignore[arg-type]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pr.evaluate(run, qrels, specs, ties=ties, per_query=True, bounds=True)
        plain = pr.evaluate(run, qrels, specs, ties=ties, per_query=True)
        high = pr.evaluate(run, judged_qrels(run, qrels, top), specs, ties=ties,
                           per_query=True)
        graded = pr.evaluate(run, qrels, specs, ties=ties, per_query=True,
                             unjudged="high", unjudged_grade=GRADE)
        graded_want = pr.evaluate(run, judged_qrels(run, qrels, GRADE), specs, ties=ties,
                                  per_query=True)
        cond = pr.evaluate(run, qrels, specs, ties=ties, per_query=True, unjudged="condensed")
        cond_want = pr.evaluate(run, qrels, specs, ties=ties, per_query=True,
                                judged_only=True)
    for spec in specs:
        for q, v in by_query(plain, spec).items():
            assert same(by_query(got, f"{spec}_low")[q], v), (spec, q)
            assert same(by_query(got, spec)[q], v), (spec, q)
            assert same(by_query(got, f"{spec}_high")[q], by_query(high, spec)[q]), (spec, q)
            assert same(by_query(graded, spec)[q], by_query(graded_want, spec)[q]), (spec, q)
            assert same(by_query(cond, spec)[q], by_query(cond_want, spec)[q]), (spec, q)


def test_evaluate_bounds_per_arm_and_missing_zero() -> None:
    run = pl.DataFrame({"arm": ["A"] * 4 + ["B"] * 3, "qid": ["q1"] * 7,
                        "docid": ["a", "b", "c", "d", "b", "x", "y"],
                        "score": [4.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["b", "d", "a"],
                          "rel": [1, 0, 1]})
    got = pr.evaluate(run, qrels, ["map", "p@2"], group_by="arm", bounds=True,
                      missing="zero", per_query=True)
    rows = {(r["arm"], r["qid"]): r for r in got.iter_rows(named=True)}
    # A: a b c d with b relevant, d judged 0: high = a, b, c relevant, R = 3
    assert math.isclose(rows[("A", "q1")]["map_high"], 1.0)
    assert math.isclose(rows[("A", "q1")]["map_low"], 0.5)
    # B: b x y, b relevant: high = b, x, y relevant (d of A is not B's)
    assert math.isclose(rows[("B", "q1")]["map_high"], 1.0)
    assert math.isclose(rows[("B", "q1")]["p@2_high"], 1.0)
    assert math.isclose(rows[("B", "q1")]["p@2_low"], 0.5)
    # q2: judged, nothing retrieved: 0 at both ends (trec_eval -c)
    assert rows[("A", "q2")]["map_low"] == rows[("A", "q2")]["map_high"] == 0.0
    means = pr.evaluate(run, qrels, ["map"], group_by="arm", bounds=True)
    assert means.columns == ["arm", "map", "map_low", "map_high"]


# ------------------------------------------------------------------- low <= v <= high
def completed(frame: pl.DataFrame, seed: int) -> pl.DataFrame:
    """A judgment in 0..GRADE for every unjudged retrieved row."""
    rng = random.Random(seed)
    rows = [(q, d, s, float(rng.randint(0, int(GRADE))) if r is None and s is not None
             else r) for q, d, s, r in frame.iter_rows()]
    return pl.DataFrame(rows, schema=frame.schema, orient="row")


# empty=one: a list with nothing relevant scores 1, so an unjudged document that turns
# out relevant can lower the value (test_empty_one_is_not_monotone)
MONOTONE = [s for s in PLAIN if parse_metric(s).definition.name not in NOT_MONOTONE
            and parse_metric(s).definition.over_queries != "none" and "empty=one" not in s]


@pytest.mark.parametrize("spec", MONOTONE)
@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=frames(), seed=st.integers(0, 99))
def test_low_value_high(spec: str, frame: pl.DataFrame, seed: int) -> None:
    # a query without a judged row is no query of a query= mean (trec_eval: no qrels
    # line), so "low" and the completed frame would average over different queries
    if not frame.group_by("qid").agg(pl.col("rel").is_not_null().any())["rel"].all():
        return
    pair = value(frame, options(spec, f"unjudged_grade={GRADE:g}"), bounds=True)
    v = value(completed(frame, seed), spec)
    assert isinstance(pair, dict)
    if v is None or pair["low"] is None:
        return
    assert pair["low"] - 1e-12 <= v <= pair["high"] + 1e-12, (pair, v)


def test_empty_one_is_not_monotone() -> None:
    """Under ``empty=one`` "low" (nothing relevant: 1) lies above "high" (the docs say so)."""
    frame = pl.DataFrame({"qid": [0, 0, 0], "docid": [0, 1, 2], "score": [0.5, 0.5, 0.5],
                          "rel": [0.0, 0.0, None]})
    pair = value(frame, options("hit_rate@2(empty=one)", f"unjudged_grade={GRADE:g}"),
                 bounds=True)
    assert pair == {"low": 1.0, "high": pytest.approx(2 / 3)}
    assert value(completed(frame, 0), "hit_rate@2(empty=one)") == pytest.approx(2 / 3)


def test_the_monotone_set_is_not_empty() -> None:
    assert {parse_metric(s).definition.name for s in MONOTONE} >= {"err", "p", "hits", "dcg",
                                                                   "num_rel_ret"}


@pytest.mark.slow  # the metrics' algebra, not Polars': the newest Polars only (CI)
def test_every_exception_has_a_counterexample() -> None:
    rng = random.Random(7)
    tried = []
    for _ in range(120):
        rows = [(q, d, rng.choice([None, 0.5, 1.0, 1.0, 2.0, 3.0]),
                 rng.choice([0, 1, 2, 3, None, None]))
                for q in range(rng.randint(1, 3)) for d in range(rng.randint(0, 7))]
        tried.append(pl.DataFrame(rows, schema={"qid": pl.Int64, "docid": pl.Int64,
                                                "score": pl.Float64, "rel": pl.Float64},
                                  orient="row"))
    # every frame at once, one group each: the value of each is value(frame, spec)'s
    given = pl.concat([f.with_columns(frame=pl.lit(i)) for i, f in enumerate(tried)])
    done = pl.concat([completed(f, i).with_columns(frame=pl.lit(i))
                      for i, f in enumerate(tried)])
    found = set()
    for spec in PLAIN:
        metric = parse_metric(spec)
        name = metric.definition.name
        if name not in NOT_MONOTONE or name in found:
            continue
        bounded = parse_metric(options(spec, f"unjudged_grade={GRADE:g}"))
        pairs = given.group_by("frame").agg(bounded.expr("rel", by="score", query="qid",
                                                         bounds=True).alias("pair"))
        values = done.group_by("frame").agg(metric.expr("rel", by="score", query="qid")
                                            .alias("v"))
        both = pairs.join(values, on="frame").unnest("pair").drop_nulls(["low", "high", "v"])
        outside = both.filter(pl.col("v").is_nan() | (pl.col("v") < pl.col("low") - 1e-12)
                              | (pl.col("v") > pl.col("high") + 1e-12))
        if outside.height:
            found.add(name)
    assert found == NOT_MONOTONE
