"""Invariants every metric must satisfy, on frames of several queries.

Frames hold 1..6 queries of 0..10 rows each (a query with no row is simply absent),
with integer or string query ids, labels that are None (unjudged), 0..4 or
fractional, and scores from a small set (frequent ties) or, where the invariant
needs it, distinct within each query. A null score is judged but not retrieved.

Each example plans every metric at once (about 1 s of Polars planning for ~45
expressions, most of it independent of the data), so the example counts of the
heaviest invariants are 10-15: together these tests took a third of CI's README step
at 20-30 (2026-11-28).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import polars as pl
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.registry import METRICS

TOL = 1e-12

Label = float | None
Score = float | None
QueryId = int | str


# ---------------------------------------------------------------------------- data
@dataclass(frozen=True)
class Rows:
    """A multi-query frame as plain rows (readable when hypothesis prints it)."""

    qids: list[QueryId]
    labels: list[Label]
    scores: list[Score]

    def frame(self) -> pl.DataFrame:
        qid_dtype = pl.String if any(isinstance(q, str) for q in self.qids) else pl.Int64
        labels = [None if x is None else float(x) for x in self.labels]
        return pl.DataFrame(
            [
                pl.Series("qid", self.qids, qid_dtype),
                pl.Series("rel", labels, pl.Float64),
                pl.Series("score", self.scores, pl.Float64),
                # a 0/1 click where the label is >= 1, null where unjudged
                pl.Series("click", [None if x is None else int(x >= 1) for x in labels], pl.Int64),
            ]
        )

    def permuted(self, order: list[int]) -> Rows:
        return Rows(
            [self.qids[i] for i in order],
            [self.labels[i] for i in order],
            [self.scores[i] for i in order],
        )


labels_st: st.SearchStrategy[Label] = st.one_of(
    st.none(), st.integers(0, 4), st.integers(0, 4), st.sampled_from([0.5, 1.5, 2.5])
)
tied_scores_st: st.SearchStrategy[Score] = st.one_of(
    st.none(), st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0])
)


@st.composite
def rows_st(draw: st.DrawFn, *, distinct: bool = False, perfect: bool = False) -> Rows:
    """Rows of 1..6 queries, in an arbitrary (interleaved) order.

    ``distinct``: scores have no ties within a query. ``perfect``: every judged row is
    retrieved with its label as score (unjudged rows: not retrieved, or last).
    """
    ids = draw(st.lists(st.integers(-3, 40), min_size=1, max_size=6, unique=True))
    as_strings = draw(st.booleans())
    qids: list[QueryId] = []
    labels: list[Label] = []
    scores: list[Score] = []
    for q in ids:
        n = draw(st.integers(0, 10))
        query_labels = draw(st.lists(labels_st, min_size=n, max_size=n))
        if perfect:
            query_scores: list[Score] = [
                (draw(st.sampled_from([None, -1.0])) if x is None else float(x))
                for x in query_labels
            ]
        elif distinct:
            values = draw(st.lists(st.integers(0, 99), min_size=n, max_size=n, unique=True))
            shown = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            query_scores = [float(v) if s else None for v, s in zip(values, shown, strict=True)]
        else:
            query_scores = draw(st.lists(tied_scores_st, min_size=n, max_size=n))
        qids += [f"q{q}" if as_strings else q] * n
        labels += query_labels
        scores += query_scores
    order = draw(st.permutations(range(len(qids))))
    return Rows(qids, labels, scores).permuted(list(order))


@st.composite
def shuffled_st(
    draw: st.DrawFn, *, distinct: bool = False, perfect: bool = False
) -> tuple[Rows, Rows]:
    """The same rows twice, in two different orders."""
    rows = draw(rows_st(distinct=distinct, perfect=perfect))
    order = draw(st.permutations(range(len(rows.qids))))
    return rows, rows.permuted(list(order))


@dataclass(frozen=True)
class Params:
    k: int | None
    gain: str
    threshold: float
    p: float


params_st = st.builds(
    Params,
    k=st.sampled_from([None, 1, 2, 3, 5, 20]),
    gain=st.sampled_from(["exponential", "linear"]),
    threshold=st.sampled_from([1, 2, 0.5]),
    p=st.sampled_from([0.5, 0.8, 0.95]),
)


# ---------------------------------------------------------------------------- metrics
def metrics(params: Params, **ranking: object) -> dict[str, pl.Expr]:
    """Every metric, named, with the same ranking / query / ties arguments."""
    k, t = params.k, params.threshold
    exprs: dict[str, pl.Expr] = {
        "dcg": pr.dcg("rel", k, gain=params.gain, **ranking),
        "ideal_dcg": pr.ideal_dcg("rel", k, gain=params.gain, **ranking),
        "ndcg": pr.ndcg("rel", k, gain=params.gain, **ranking),
        "err": pr.err("rel", k, max_grade=4, **ranking),
        "precision": pr.precision("rel", k, threshold=t, **ranking),
        "recall": pr.recall("rel", k, threshold=t, **ranking),
        "f1": pr.f1("rel", k, threshold=t, **ranking),
        "average_precision": pr.average_precision("rel", k, threshold=t, **ranking),
        "reciprocal_rank": pr.reciprocal_rank("rel", k, threshold=t, **ranking),
        "hit_rate": pr.hit_rate("rel", k, threshold=t, **ranking),
        "r_precision": pr.r_precision("rel", threshold=t, **ranking),
        "rbp": pr.rbp("rel", params.p, k=k, threshold=t, **ranking),
        "bpref": pr.bpref("rel", threshold=t, **ranking),
        "rank_correlation": pr.rank_correlation("rel", **ranking),
        "auc": pr.auc("rel", threshold=t, **{n: v for n, v in ranking.items() if n != "ties"}),
        "ctr": pr.ctr("click", k, **ranking),
        "abandonment": pr.abandonment("click", k, **ranking),
        "first_click_rr": pr.first_click_rr("click", k, **ranking),
        "clicks_per_query": pr.clicks_per_query("click", k, **ranking),
        "mean_dwell": pr.mean_dwell("rel", k, clicks="click", **ranking),  # rel as dwell
        "gm_map": pr.gm_map("rel", k, threshold=t, **ranking),
        "yaap": pr.yaap("rel", k, threshold=t, **ranking),
        "hits": pr.hits("rel", k, threshold=t, **ranking),
        "num_ret": pr.num_ret("rel", **ranking),
        "num_rel": pr.num_rel("rel", threshold=t, **ranking),
        "num_rel_ret": pr.num_rel_ret("rel", threshold=t, **ranking),
        "num_nonrel_judged_ret": pr.num_nonrel_judged_ret("rel", threshold=t, **ranking),
        "iprec_at_recall": pr.iprec_at_recall("rel", params.p / 2, threshold=t, **ranking),
        "eleven_point_average": pr.eleven_point_average("rel", threshold=t, **ranking),
        "gm_bpref": pr.gm_bpref("rel", threshold=t, **ranking),
        "relative_precision": pr.relative_precision("rel", k, threshold=t, **ranking),
        "r_precision_multiple": pr.r_precision_multiple("rel", 2 * params.p, threshold=t,
                                                        **ranking),
        "set_map": pr.set_map("rel", threshold=t, **ranking),
        "utility": pr.utility("rel", (1, 0, 0, 0), threshold=t, **ranking),  # = num_rel_ret
        "normalized_gain": pr.normalized_gain("rel", **ranking),
        "binary_normalized_gain": pr.binary_normalized_gain("rel", threshold=t, **ranking),
        "ndcg_over_relevant": pr.ndcg_over_relevant("rel", **ranking),
        "r_ndcg": pr.r_ndcg("rel", threshold=t, **ranking),
        "infap": pr.infap("rel", threshold=t, **ranking),
        "accuracy": pr.accuracy("rel", k, threshold=t, **ranking),
        "num_q": pr.num_q("rel", **ranking),
        "compat": pr.compat("rel", p=params.p, **ranking),
        "sdcg": pr.sdcg("rel", k or 10, max_rel=4, **ranking),
        "inst": pr.inst("rel", max_rel=4, target=2 * params.p, **ranking),
        "insq": pr.insq("rel", max_rel=4, target=2 * params.p, **ranking),
        "bpm": pr.bpm("rel", k or 10, max_rel=4, target=2 * params.p, **ranking),
        "nerr8": pr.nerr8("rel", k or 10, max_rel=4, **ranking),
        "nerr9": pr.nerr9("rel", k or 10, max_rel=4, min_rel=t, **ranking),
        "nerr10": pr.nerr10("rel", max_rel=4, p=params.p, **ranking),
        "nerr11": pr.nerr11("rel", max_rel=4, target=2 * params.p, **ranking),
    }
    if ranking.get("ties") not in ("optimistic", "pessimistic"):  # they leave it open
        exprs["unjudged"] = pr.unjudged("rel", k or 10, **ranking)  # type: ignore[arg-type]
        exprs["rbp_residual"] = pr.rbp_residual("rel", params.p, **ranking)  # type: ignore[arg-type]
        exprs["judged"] = pr.judged("rel", params.k, **ranking)  # type: ignore[arg-type]
    return {name: expr.alias(name) for name, expr in exprs.items()}


NAMES = list(metrics(Params(None, "exponential", 1, 0.8), by=None))
UNBOUNDED = ("dcg", "ideal_dcg", "clicks_per_query", "mean_dwell", "hits", "num_ret", "num_rel",
             "num_rel_ret", "num_nonrel_judged_ret", "utility", "num_q")
# yaap is ln((1 + S) / (1 + R - S)): negative below AP = 1/2, up to ln(1 + R) above
SIGNED = ("yaap",)
# trec_eval sums its counts and takes the geometric mean of gm_map (the registry says so)
SUMMARY = {name: METRICS[name].over_queries for name in NAMES if name in METRICS}


def summary(name: str, values: list[float]) -> float | None:
    """The over-queries value ``query=`` must give: mostly the mean."""
    how = SUMMARY.get(name, "mean")
    if not values:
        return 0.0 if how == "sum" else None  # a sum of nothing is 0, as Polars says
    if how == "sum":
        return math.fsum(values)
    if how == "geometric":
        return math.exp(math.fsum(math.log(max(v, 1e-5)) for v in values) / len(values))
    return math.fsum(values) / len(values)


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


def per_query(df: pl.DataFrame, exprs: dict[str, pl.Expr]) -> pl.DataFrame:
    """One row per query (sorted by qid), one column per metric, no ``query=``."""
    return df.group_by("qid").agg(*exprs.values()).sort("qid")


# a click log's metrics: every session counts in a query= mean, clicked or not
CLICK_METRICS = {"ctr", "abandonment", "first_click_rr", "clicks_per_query", "mean_dwell"}


def judged_per_query(df: pl.DataFrame, exprs: dict[str, pl.Expr]) -> pl.DataFrame:
    """:func:`per_query` of the queries a ``query=`` mean counts: those with a judged row
    (a query whose every label is null is left out, as trec_eval leaves it out); the
    click metrics' columns keep every query (null where another metric's query is out)."""
    judged = df.group_by("qid").agg(pl.col("rel").is_not_null().any().alias("__judged"))
    every = per_query(df, exprs).join(judged, on="qid")
    return every.with_columns(pl.when("__judged").then(pl.col(name)).alias(name)
                              for name in exprs if name not in CLICK_METRICS).drop("__judged")


def test_metric_table_is_complete() -> None:
    # the intent-aware metrics read one row per (document, subtopic) and rank ties by
    # doc id only (no "expected" form): tests/test_intents.py covers them; relstring is
    # a string (no bounds, no mean): its invariants are in test_judgments.py
    intent_aware = {m.function.__name__ for m in METRICS.values() if m.subtopics}
    assert set(NAMES) == set(pr.metrics.__all__) - {"map", "mrr", "relstring"} - intent_aware


# ---------------------------------------------------------------------------- bounds
@settings(max_examples=examples(4), deadline=None)
@given(rows=rows_st(), params=params_st)
def test_normalised_metrics_are_in_unit_interval(rows: Rows, params: Params) -> None:
    df = rows.frame()
    exprs = metrics(params, by="score")
    mean = df.select(metrics(params, by="score", query="qid").values()).row(0, named=True)
    for row in [*per_query(df, exprs).iter_rows(named=True), mean]:
        for name in NAMES:
            value = row[name]
            if value is None:
                # auc and accuracy are undefined without both classes, mean dwell
                # without a click; the mean over no query (none has a judged row) is null
                assert name in ("auc", "accuracy", "mean_dwell") or (
                    row is mean and all(x is None for x in rows.labels)), (
                    name, row)
                continue
            assert not math.isnan(value), (name, row)
            if name in SIGNED:
                continue
            assert value >= 0.0, (name, row)
            if name not in UNBOUNDED:
                assert value <= 1.0 + TOL, (name, row)


# ---------------------------------------------------------------------------- perfect ranking
@settings(max_examples=examples(15), deadline=None)
@given(rows=rows_st(perfect=True), params=params_st)
def test_perfect_ranking_scores_one(rows: Rows, params: Params) -> None:
    """Score = label, every judged row retrieved (ties only among equal labels)."""
    df = rows.frame()
    t = params.threshold
    exprs = metrics(params, by="score")
    exprs["ndcg_linear"] = pr.ndcg("rel", params.k, by="score", gain="linear").alias("ndcg_linear")
    exprs["ndcg_full"] = pr.ndcg("rel", by="score").alias("ndcg_full")
    exprs["recall_full"] = pr.recall("rel", by="score", threshold=t).alias("recall_full")
    exprs["ap_full"] = pr.average_precision("rel", by="score", threshold=t).alias("ap_full")
    for row in per_query(df, exprs).iter_rows(named=True):
        labels = [x for q, x in zip(rows.qids, rows.labels, strict=True) if q == row["qid"]]
        gains = [x for x in labels if x is not None and x > 0]
        relevant = [x for x in labels if x is not None and x >= t]
        assert close(row["rank_correlation"], 1.0), row
        assert row["accuracy"] is None or close(row["accuracy"], 1.0), row
        if gains:
            for name in ("ndcg", "ndcg_linear", "ndcg_full", "compat"):
                assert close(row[name], 1.0), (name, row)
        if relevant:
            for name in ("ap_full", "r_precision", "recall_full", "bpref", "reciprocal_rank"):
                assert close(row[name], 1.0), (name, row)
            if params.k is None or params.k >= len(relevant):
                assert close(row["average_precision"], 1.0), row
                assert close(row["recall"], 1.0), row
            assert close(row["hit_rate"], 1.0), row


@settings(max_examples=examples(15), deadline=None)
@given(
    pair=shuffled_st(perfect=True),
    k=st.sampled_from([None, 1, 2, 3, 5, 20]),
    gain=st.sampled_from(["exponential", "linear"]),
)
def test_perfect_ranking_ignores_row_order(
    pair: tuple[Rows, Rows], k: int | None, gain: str
) -> None:
    """Tied labels may come in any input order: the ranking is still ideal."""
    for rows in pair:
        out = per_query(rows.frame(), {"ndcg": pr.ndcg("rel", k, by="score", gain=gain)})
        for qid, value in out.iter_rows():
            labels = [x for q, x in zip(rows.qids, rows.labels, strict=True) if q == qid]
            expected = 1.0 if any(x is not None and x > 0 for x in labels) else 0.0
            assert close(value, expected), (qid, value)


# ---------------------------------------------------------------------------- invariance
@settings(max_examples=examples(4), deadline=None)
@given(pair=shuffled_st(distinct=True), params=params_st)
def test_row_order_is_irrelevant_without_ties(pair: tuple[Rows, Rows], params: Params) -> None:
    before, after = (rows.frame() for rows in pair)
    exprs = metrics(params, by="score")
    for a, b in zip(
        per_query(before, exprs).iter_rows(named=True),
        per_query(after, exprs).iter_rows(named=True),
        strict=True,
    ):
        for name in NAMES:
            assert close(a[name], b[name]), (name, a, b)
    means = metrics(params, by="score", query="qid")
    a, b = (df.select(means.values()).row(0, named=True) for df in (before, after))
    for name in NAMES:
        assert close(a[name], b[name]), (name, a[name], b[name])


@settings(max_examples=examples(8), deadline=None)
@given(rows=rows_st(), params=params_st)
def test_query_mean_is_mean_of_per_query_values(rows: Rows, params: Params) -> None:
    df = rows.frame()
    mean = df.select(metrics(params, by="score", query="qid").values()).row(0, named=True)
    groups = judged_per_query(df, metrics(params, by="score"))
    for name in NAMES:
        values = [v for v in groups[name].to_list() if v is not None]  # auc: defined ones only
        expected = summary(name, values)
        assert close(mean[name], expected), (name, mean[name], expected)


@settings(max_examples=examples(5), deadline=None)
@given(rows=rows_st(), params=params_st, data=st.data())
def test_query_mean_within_groups_and_windows(
    rows: Rows, params: Params, data: st.DataObject
) -> None:
    """``group_by(arm).agg(..., query=)`` is the per-arm mean; ``over(qid)`` broadcasts."""
    df = rows.frame()
    arm_of = {q: data.draw(st.sampled_from("ab"), label=f"arm of {q}") for q in set(rows.qids)}
    df = df.with_columns(pl.Series("arm", [arm_of[q] for q in rows.qids], pl.String))
    per_arm = df.group_by("arm").agg(metrics(params, by="score", query="qid").values())
    for arm_row in per_arm.iter_rows(named=True):
        groups = judged_per_query(df.filter(pl.col("arm") == arm_row["arm"]),
                                  metrics(params, by="score"))
        for name in NAMES:
            values = [v for v in groups[name].to_list() if v is not None]
            expected = summary(name, values)
            assert close(arm_row[name], expected), (arm_row["arm"], name, arm_row[name], expected)
    windows = df.with_columns(e.over("qid") for e in metrics(params, by="score").values())
    groups = per_query(df, metrics(params, by="score"))
    broadcast = windows.join(groups, on="qid", suffix="_group")
    for row in broadcast.iter_rows(named=True):
        for name in NAMES:
            assert close(row[name], row[f"{name}_group"]), (name, row)


@settings(max_examples=examples(3), deadline=None)
@given(rows=rows_st(), params=params_st, data=st.data())
def test_relabelled_query_ids_change_nothing(
    rows: Rows, params: Params, data: st.DataObject
) -> None:
    distinct = list(dict.fromkeys(rows.qids))
    new_ids = data.draw(st.permutations(range(len(distinct))))
    as_strings = data.draw(st.booleans())
    mapping = {q: (f"id-{i}" if as_strings else i) for q, i in zip(distinct, new_ids, strict=True)}
    relabelled = Rows([mapping[q] for q in rows.qids], rows.labels, rows.scores)
    means = metrics(params, by="score", query="qid")
    a = rows.frame().select(means.values()).row(0, named=True)
    b = relabelled.frame().select(means.values()).row(0, named=True)
    # the same queries given by two key columns
    split = relabelled.frame().with_columns(
        (pl.col("qid").rank("dense") % 2).alias("part"), pl.col("qid").alias("qid2")
    )
    c = split.select(metrics(params, by="score", query=["part", "qid2"]).values()).row(
        0, named=True
    )
    for name in NAMES:
        assert close(a[name], b[name]), (name, a[name], b[name])
        assert close(a[name], c[name]), (name, a[name], c[name])


# ---------------------------------------------------------------------------- cutoffs
KS = list(range(1, 13))


@settings(max_examples=examples(8), deadline=None)
@given(
    rows=rows_st(),
    gain=st.sampled_from(["exponential", "linear"]),
    threshold=st.sampled_from([1, 2, 0.5]),
)
def test_metrics_grow_with_k(rows: Rows, gain: str, threshold: float) -> None:
    df = rows.frame()
    cutoffs: list[int | None] = [*KS, None]
    exprs: dict[str, pl.Expr] = {}
    for i, k in enumerate(cutoffs):
        exprs[f"dcg{i}"] = pr.dcg("rel", k, by="score", gain=gain)
        exprs[f"recall{i}"] = pr.recall("rel", k, by="score", threshold=threshold)
        exprs[f"hit{i}"] = pr.hit_rate("rel", k, by="score", threshold=threshold)
        exprs[f"clicks{i}"] = pr.clicks_per_query("click", k, by="score")
        exprs[f"click_rr{i}"] = pr.first_click_rr("click", k, by="score")
        exprs[f"clicked{i}"] = 1 - pr.abandonment("click", k, by="score")
        if k is not None:
            exprs[f"hits{i}"] = pr.precision("rel", k, by="score", threshold=threshold) * k
    out = per_query(df, {name: e.alias(name) for name, e in exprs.items()})
    for row in out.iter_rows(named=True):
        for family in ("dcg", "recall", "hit", "hits", "clicks", "click_rr", "clicked"):
            values = [row[f"{family}{i}"] for i in range(len(cutoffs)) if f"{family}{i}" in row]
            for smaller, larger in itertools.pairwise(values):
                assert smaller <= larger + TOL, (family, values, row["qid"])


# ---------------------------------------------------------------------------- tie modes
TIE_SENSITIVE = ["ndcg", "average_precision", "reciprocal_rank", "precision", "recall"]


@pytest.mark.parametrize("query", [None, "qid"])
@settings(max_examples=examples(8), deadline=None)
@given(rows=rows_st(), params=params_st)
def test_optimistic_is_at_least_pessimistic(query: str | None, rows: Rows, params: Params) -> None:
    df = rows.frame()
    best = metrics(params, by="score", ties="optimistic")
    worst = metrics(params, by="score", ties="pessimistic")
    if query is None:
        a = per_query(df, {n: best[n] for n in TIE_SENSITIVE}).drop("qid").rows()
        b = per_query(df, {n: worst[n] for n in TIE_SENSITIVE}).drop("qid").rows()
    else:
        a = df.select(
            metrics(params, by="score", ties="optimistic", query=query)[n] for n in TIE_SENSITIVE
        ).rows()
        b = df.select(
            metrics(params, by="score", ties="pessimistic", query=query)[n] for n in TIE_SENSITIVE
        ).rows()
    for row_a, row_b in zip(a, b, strict=True):
        for name, x, y in zip(TIE_SENSITIVE, row_a, row_b, strict=True):
            if x is None and y is None:  # the mean over an empty frame
                continue
            assert x >= y - TOL, (name, x, y)
