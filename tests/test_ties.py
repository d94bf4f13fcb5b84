"""ties="expected": the exact mean over every ordering of tied rows (McSherry & Najork 2008).

The oracle is brute force: every distinct arrangement of each tie group's labels
(rows with equal labels are interchangeable, so the mean over distinct
arrangements is the mean over all permutations), each scored with the plain-Python
reference, averaged.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import struct
import warnings
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
import pytest
import reference_gains as ref_gains
from budget import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_against_reference import METRICS, Case, Label, Params, Row, _table, frame, same
from test_trec_parity import joined_frame, trec_case

import polars_rank as pr
from polars_rank._engine.compat import SLICES_BY_MANY_OFFSETS
from polars_rank.registry import METRICS as SPECS

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from test_against_reference import ExprFn, OracleFn

TOL = 1e-12
# no closed form under expected ties, as their specs say: they raise (tested below);
# AUC has no `ties`; mean_dwell (no spec: no metric of evaluate()) only without a cutoff
WITHOUT_EXPECTED = {spec.name: spec for spec in SPECS.values() if "expected" not in spec.ties}
EXCLUDED = {"auc", "mean_dwell"} | {
    spec.function.__name__ for spec in WITHOUT_EXPECTED.values() if spec.function is not None}
LOWER_IS_BETTER = {"abandonment"}  # optimistic (clicks first) is its minimum
# a hit moved into the top k can lower the mean precision at the hits: no bound
NOT_MONOTONE = {"average_precision_retrieved"}
# where the unjudged rows sit decides these: optimistic/pessimistic leave it open (raise)
NOT_RELEVANCE_ORDERED = {"rbp_residual", "unjudged", "judged", "infap", "relstring"}
# ERR under expected ties needs Polars 2 (polars_rank/metrics/_expected_err.py)
NEEDS_POLARS_2 = set() if SLICES_BY_MANY_OFFSETS else {"err"}
needs_polars_2 = pytest.mark.skipif(not SLICES_BY_MANY_OFFSETS,
                                    reason="ERR under ties='expected' needs Polars 2")
EXPECTED_METRICS = [name for name in METRICS if name not in EXCLUDED | NEEDS_POLARS_2]

labels_st = st.sampled_from([None, 0, 1, 2, 3, 1.5])
scores_st = st.sampled_from([None, 0.0, -0.0, 1.0, 2.0, 2.0])  # few values: many ties
rows_st = st.lists(st.tuples(labels_st, scores_st), max_size=8)
params_st = st.builds(
    Params,
    k=st.sampled_from([None, 1, 2, 3, 5]),
    gain=st.sampled_from(["exponential", "linear"]),
    threshold=st.sampled_from([1, 2, 0.5]),
    p=st.sampled_from([0.5, 0.8]),
)


def distinct_orders(labels: list[Label]) -> Iterator[list[Label]]:
    """Every distinct sequence of the multiset ``labels``."""
    counts = Counter(labels)

    def extend(prefix: list[Label]) -> Iterator[list[Label]]:
        if len(prefix) == len(labels):
            yield list(prefix)
            return
        for label in list(counts):
            if counts[label]:
                counts[label] -= 1
                prefix.append(label)
                yield from extend(prefix)
                prefix.pop()
                counts[label] += 1

    yield from extend([])


def arrangements(rows: list[Row]) -> Iterator[list[Row]]:
    """Every ordering of the retrieved rows' labels within equal scores (rank order)."""
    retrieved = [row for row in rows if row[1] is not None]
    unretrieved = [row for row in rows if row[1] is None]
    scores = sorted({score for _, score in retrieved}, reverse=True)
    groups = [[label for label, s in retrieved if s == score] for score in scores]
    for choice in itertools.product(*(list(distinct_orders(g)) for g in groups)):
        ordered = [(label, score) for score, g in zip(scores, choice, strict=True) for label in g]
        yield ordered + unretrieved


def brute_force(name: str, rows: list[Row], params: Params) -> float:
    oracle = METRICS[name][1]
    values = [oracle(Case(rows_), params) for rows_ in arrangements(rows)]
    assert all(v is not None for v in values)
    return math.fsum(values) / len(values)  # type: ignore[arg-type]


def select(rows: list[Row], params: Params, ties: str, names: list[str]) -> dict[str, float]:
    if ties in ("optimistic", "pessimistic"):  # they leave the unjudged rows' place open
        names = [n for n in names if n not in NOT_RELEVANCE_ORDERED]
    exprs = [METRICS[n][0](params, {"by": "score", "ties": ties}).alias(n) for n in names]
    return frame(rows, params).select(exprs).row(0, named=True)


PINNED = [
    ([(0, 1.0), (2, 1.0), (None, 1.0), (1.5, 1.0), (3, 1.0), (0, 1.0), (1, 1.0), (2, 1.0)],
     Params(k=3)),  # one group of 8, cut at 3
    ([(1, 2.0), (0, 1.0), (1, 1.0), (0, 1.0), (2, None)], Params(k=2)),  # cutoff splits a group
    ([(0, 2.0), (0, 2.0), (1, 2.0), (0, 0.0)], Params()),
    ([], Params()),
    ([(1, 0.0), (0, -0.0), (2, 0.0), (0, 1.0)], Params(k=2)),  # -0.0 ties with 0.0
]


@settings(max_examples=examples(25), deadline=None)
@given(rows=rows_st, params=params_st)
@example(rows=PINNED[0][0], params=PINNED[0][1])
@example(rows=PINNED[1][0], params=PINNED[1][1])
@example(rows=PINNED[2][0], params=PINNED[2][1])
@example(rows=PINNED[3][0], params=PINNED[3][1])
@example(rows=PINNED[4][0], params=PINNED[4][1])
def test_expected_is_the_mean_over_tie_orderings(rows: list[Row], params: Params) -> None:
    got = select(rows, params, "expected", EXPECTED_METRICS)
    for name in EXPECTED_METRICS:
        want = brute_force(name, rows, params)
        assert math.isclose(got[name], want, rel_tol=TOL, abs_tol=TOL), (name, got[name], want)


@settings(max_examples=examples(20), deadline=None)
@given(rows=rows_st, params=params_st)
def test_expected_lies_between_the_bounds(rows: list[Row], params: Params) -> None:
    best = select(rows, params, "optimistic", EXPECTED_METRICS)
    mean = select(rows, params, "expected", EXPECTED_METRICS)
    worst = select(rows, params, "pessimistic", EXPECTED_METRICS)
    for name in set(worst) - NOT_MONOTONE:
        high, low = (worst, best) if name in LOWER_IS_BETTER else (best, worst)
        assert high[name] + TOL >= mean[name] >= low[name] - TOL, name


@settings(max_examples=examples(20), deadline=None)
@given(
    rows=st.lists(st.tuples(labels_st, st.one_of(st.none(), st.floats(-5, 5))), max_size=8,
                  unique_by=lambda row: row[1] if row[1] is not None else object()),
    params=params_st,
)
def test_without_ties_every_policy_is_first(rows: list[Row], params: Params) -> None:
    first = select(rows, params, "first", EXPECTED_METRICS)
    for ties in ("expected", "optimistic", "pessimistic"):
        other = select(rows, params, ties, EXPECTED_METRICS)
        for name in other:
            assert math.isclose(other[name], first[name], rel_tol=TOL, abs_tol=TOL), (ties, name)


def test_constant_scorer_gets_the_honest_value() -> None:
    """A constant score: trec_eval's doc-id order decides; expected is the mean."""
    df = pl.DataFrame({"docid": ["d3", "d2", "d1"], "rel": [1, 0, 0], "score": [0.5] * 3})
    # trec_eval: doc id descending among ties -> d3 (relevant) first
    trec = df.select(pr.reciprocal_rank("rel", by=["score", "docid"])).item()
    expected = df.select(pr.reciprocal_rank("rel", by="score", ties="expected")).item()
    assert trec == 1.0
    assert expected == pytest.approx((1 + 1 / 2 + 1 / 3) / 3, abs=1e-15)


@pytest.mark.parametrize("metric", [pr.eleven_point_average])
def test_no_closed_form_raises(metric: object) -> None:
    with pytest.raises(NotImplementedError, match="ties='expected'"):
        metric("rel", by="score", ties="expected")  # type: ignore[operator]


@pytest.mark.parametrize("build", [
    lambda: pr.accuracy("rel", by="score", ties="expected"),
    lambda: pr.compat("rel", by="score", ties="expected"),
    lambda: pr.sdcg("rel", 3, max_rel=3, by="score", ties="expected"),
    lambda: pr.inst("rel", max_rel=3, by="score", ties="expected"),
    lambda: pr.insq("rel", max_rel=3, by="score", ties="expected"),
    lambda: pr.bpm("rel", 3, max_rel=3, by="score", ties="expected"),
    lambda: pr.nerr8("rel", 3, max_rel=3, by="score", ties="expected"),
    lambda: pr.nerr9("rel", 3, max_rel=3, by="score", ties="expected"),
    lambda: pr.nerr10("rel", max_rel=3, by="score", ties="expected"),
    lambda: pr.nerr11("rel", max_rel=3, by="score", ties="expected"),
])
def test_ir_measures_metrics_without_expected_ties_raise(build: Callable[[], pl.Expr]) -> None:
    with pytest.raises(NotImplementedError, match="ties='expected'"):
        build()


@pytest.mark.parametrize("name", sorted(WITHOUT_EXPECTED))
def test_a_spec_without_expected_refuses_it_with_its_reason(name: str) -> None:
    """Asked for, "expected" is refused in one place (the metric decorator), with the
    metric's name and the reason its spec gives; tie spans (rank=(first, last)) too."""
    spec = WITHOUT_EXPECTED[name]
    assert spec.function is not None
    assert spec.ties_note
    build = METRICS[spec.function.__name__][0]
    want = re.escape(f"{name}: ties='expected' is not supported: {spec.ties_note}")
    for where in ({"by": "score", "ties": "expected"}, {"rank": ("first", "last")}):
        with pytest.raises(NotImplementedError, match=want):
            build(Params(k=3), where)


def test_mean_dwell_expected_without_cutoff_is_order_free() -> None:
    df = pl.DataFrame({"dwell": [30.0, None, 12.0, 5.0], "score": [1.0, 1.0, 1.0, 0.5]})
    got = df.select(pr.mean_dwell("dwell", by="score", ties="expected")).item()
    assert got == pytest.approx((30 + 12 + 5) / 3)
    with pytest.raises(NotImplementedError, match="cutoff"):
        pr.mean_dwell("dwell", 2, by="score", ties="expected")


def test_expected_needs_a_ranking_key() -> None:
    with pytest.raises(ValueError, match="ties='expected' needs"):
        pr.ndcg("rel", by=None, ties="expected")


@pytest.mark.parametrize("ties", ["first", "optimistic", "pessimistic", "expected"])
# few examples: whether two keys of one name build a struct does not depend on the rows
# (each example evaluates every metric four times: 2.5 s each on CI's machine)
@settings(max_examples=examples(3), deadline=None)
@given(rows=rows_st, params=params_st, descending=st.booleans())
def test_keys_sharing_a_name(rows: list[Row], params: Params, ties: str,
                             descending: bool) -> None:
    """``by=["score", pl.col("score") * -1.0]`` ranks as the same keys named apart.

    Polars refuses a struct of two fields of one name, and the rankings build structs
    of the keys (the sort key, and the tie groups of ``expected``).
    """
    names = EXPECTED_METRICS if ties == "expected" else [n for n in METRICS if n != "auc"]
    if ties in ("optimistic", "pessimistic"):  # they leave the unjudged rows' place open
        names = [n for n in names if n not in NOT_RELEVANCE_ORDERED]
    df = frame(rows, params).with_columns((pl.col("score") * -1.0).alias("other"))

    def values(by: list[str | pl.Expr], context: str) -> pl.DataFrame:
        ranking = {"by": by, "ties": ties, "descending": descending}
        exprs = [METRICS[n][0](params, ranking).alias(n) for n in names]
        if context == "select" or not rows:  # an empty frame: no group on Polars 1.x
            return df.select(exprs)
        return df.group_by(pl.lit(0).alias("g")).agg(exprs).drop("g")

    for context in ("select", "group_by"):
        got = values(["score", pl.col("score") * -1.0], context)
        want = values(["score", "other"], context)
        for name in names:
            assert same(got[name].item(), want[name].item()), (context, name)


@pytest.mark.parametrize("context", ["group_by", "over", "query"])
def test_expected_in_every_context(context: str) -> None:
    df = pl.DataFrame({
        "qid": [1, 1, 1, 2, 2],
        "rel": [1, 0, 2, 0, 1],
        "score": [1.0, 1.0, 0.5, 2.0, 2.0],
    })
    per_query = {1: None, 2: None}
    for qid in (1, 2):
        part = df.filter(pl.col("qid") == qid)
        per_query[qid] = part.select(pr.ndcg("rel", 2, by="score", ties="expected")).item()
    expr = pr.ndcg("rel", 2, by="score", ties="expected")
    if context == "group_by":
        got = dict(df.group_by("qid").agg(expr).iter_rows())
        assert got == pytest.approx(per_query)
    elif context == "over":
        got = dict(df.select("qid", expr.over("qid")).unique().iter_rows())
        assert got == pytest.approx(per_query)
    else:
        mean = df.lazy().select(
            pr.ndcg("rel", 2, by="score", ties="expected", query="qid")
        ).collect(engine="streaming").item()
        assert mean == pytest.approx((per_query[1] + per_query[2]) / 2)


@pytest.mark.parametrize("dense", [False, True])  # with AUC: every row, not judged ones
def test_evaluate_expected_is_the_per_query_expression(dense: bool) -> None:
    run = pl.DataFrame({
        "qid": ["a", "a", "a", "a", "b", "b", "b"],
        "docid": ["d1", "d2", "d3", "d4", "d1", "d2", "d3"],
        "score": [1.0, 1.0, 1.0, 0.2, 3.0, 3.0, 1.0],
    })
    qrels = pl.DataFrame({
        "qid": ["a", "a", "b", "b", "b"],
        "docid": ["d2", "d9", "d1", "d3", "d7"],
        "rel": [2, 1, 0, 3, 1],
    })
    metrics = ["ndcg@3", "map", "mrr", "p@2", "recall@2", "hit_rate@1", "rprec"]
    got = pr.evaluate(run, qrels, [*metrics, *(["auc"] if dense else [])], ties="expected",
                      per_query=True).drop("auc", strict=False)
    # the same lists by hand: the run joined with the qrels, unretrieved rows unscored
    joined = run.join(qrels, on=["qid", "docid"], how="full", coalesce=True)
    exprs = {
        "ndcg@3": pr.ndcg("rel", 3, by="score", gain="linear", ties="expected"),
        "map": pr.average_precision("rel", by="score", ties="expected"),
        "mrr": pr.reciprocal_rank("rel", by="score", ties="expected"),
        "p@2": pr.precision("rel", 2, by="score", ties="expected"),
        "recall@2": pr.recall("rel", 2, by="score", ties="expected"),
        "hit_rate@1": pr.hit_rate("rel", 1, by="score", ties="expected"),
        "rprec": pr.r_precision("rel", by="score", ties="expected"),
    }
    want = joined.group_by("qid").agg(e.alias(n) for n, e in exprs.items()).sort("qid")
    assert got.columns == ["qid", *metrics]
    for name in metrics:
        assert got[name].to_list() == pytest.approx(want[name].to_list(), abs=1e-12), name
    # query a: d1, d2, d3 tie at the top, d2 (rel 2) is the only relevant one retrieved
    assert got.row(0, named=True)["mrr"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)


CASCADE = {  # ERR and bpref: an expression (by= or rank=), its evaluate() string
    "err": (lambda p, ranking: pr.err("rel", p.k, max_grade=4, **ranking),
            lambda p: "err" if p.k is None else f"err@{p.k}"),
    "bpref": (lambda p, ranking: pr.bpref("rel", threshold=p.threshold, **ranking),
              lambda p: f"bpref(threshold={p.threshold})"),
    "gm_bpref": (lambda p, ranking: pr.gm_bpref("rel", threshold=p.threshold, **ranking),
                 lambda p: f"gm_bpref(threshold={p.threshold})"),
}


def experiment_frame(queries: list[list[Row]]) -> pl.DataFrame:
    """The lists as one frame: query, document id, label, score (null: not retrieved)."""
    return pl.DataFrame(
        [(q, f"d{i}", label, score) for q, rows in enumerate(queries)
         for i, (label, score) in enumerate(rows)],
        schema={"qid": pl.Int64, "docid": pl.String, "rel": pl.Float64, "score": pl.Float64},
        orient="row",
    )


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[needs_polars_2] if name in NEEDS_POLARS_2 else [])
    for name in sorted(CASCADE)])
@settings(max_examples=examples(8), deadline=None)
@given(queries=st.lists(st.lists(st.tuples(labels_st, scores_st), min_size=1, max_size=8),
                       min_size=1, max_size=4), params=params_st)
@example(queries=[PINNED[0][0], PINNED[1][0]], params=PINNED[0][1])
def test_err_and_bpref_expected_in_every_context(name: str, queries: list[list[Row]],
                                                 params: Params) -> None:
    """ERR and bpref under ties="expected" equal the brute-force mean over tie orders in
    group_by, over, query= (lazily, streaming), positions (``rank=``) and evaluate()."""
    expr, spec = CASCADE[name]
    ranking = {"by": "score", "ties": "expected"}
    want = {q: brute_force(name, rows, params) for q, rows in enumerate(queries)}
    df = experiment_frame(queries)

    got = dict(df.group_by("qid").agg(expr(params, ranking)).iter_rows())
    assert got.keys() == want.keys()
    for q, value in got.items():
        assert math.isclose(value, want[q], rel_tol=TOL, abs_tol=TOL), ("group_by", q)
    over = df.select("qid", expr(params, ranking).over("qid").alias("m"))
    for q, value in over.unique().iter_rows():
        assert math.isclose(value, want[q], rel_tol=TOL, abs_tol=TOL), ("over", q)
    mean = df.lazy().select(expr(params, {**ranking, "query": "qid"})).collect(
        engine="streaming").item()
    # a query without a judged row is left out of the mean (as trec_eval leaves it out)
    values = [want[q] for q, rows in enumerate(queries)
              if any(label is not None for label, _ in rows)]
    if values:
        summary = (math.exp(math.fsum(math.log(max(v, 1e-5)) for v in values) / len(values))
                   if name == "gm_bpref" else math.fsum(values) / len(values))
        assert math.isclose(mean, summary, rel_tol=TOL, abs_tol=TOL), "query="
    else:
        assert mean is None, "query="
    bounds = df.with_columns(
        first=pl.col("score").rank("min", descending=True).over("qid").cast(pl.Int64),
        last=pl.col("score").rank("max", descending=True).over("qid").cast(pl.Int64),
    ).group_by("qid").agg(expr(params, {"rank": ("first", "last")}))
    for q, value in bounds.iter_rows():
        assert math.isclose(value, want[q], rel_tol=TOL, abs_tol=TOL), ("rank=", q)

    # evaluate(): the run is the retrieved rows, the qrels the judged ones
    run = df.filter(pl.col("score").is_not_null()).select("qid", "docid", "score")
    qrels = df.filter(pl.col("rel").is_not_null()).select("qid", "docid", "rel")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # queries without judgments
        out = pr.evaluate(run, qrels, [spec(params)], ties="expected", per_query=True)
    # evaluate() scores the queries with a judgment and a retrieved row (trec_eval)
    scored = {q for q, rows in enumerate(queries)
              if any(s is not None for _, s in rows) and any(x is not None for x, _ in rows)}
    assert set(out["qid"]) == scored
    for q, value in out.iter_rows():
        assert math.isclose(value, want[q], rel_tol=TOL, abs_tol=TOL), ("evaluate", q)


@pytest.mark.skipif(SLICES_BY_MANY_OFFSETS, reason="Polars 2 computes it")
def test_expected_err_on_polars_1_says_it_needs_polars_2() -> None:
    df = pl.DataFrame({"rel": [0, 3], "score": [1.0, 1.0]})
    with pytest.raises(NotImplementedError, match="needs Polars 2 or later"):
        df.select(pr.err("rel", by="score", ties="expected"))
    with pytest.raises(NotImplementedError, match="needs Polars 2 or later"):
        pr.evaluate(df.with_columns(qid=1, docid=pl.Series(["a", "b"])),
                    metrics="err", ties="expected")


@needs_polars_2
def test_expected_err_of_a_large_tie_group() -> None:
    """A tie group far larger than the brute force reaches (its transform uses fewer
    points than rows) against the recurrence over the rows, e_j of prod (1 + q z)."""
    rnd = random.Random(3)
    labels = [rnd.choice([1, 2, 3, 4, 1.5]) if rnd.random() < 0.1 else rnd.choice([0, None])
              for _ in range(600)]
    scores = [2.0 if i < 50 else 1.0 for i in range(600)]  # groups of 50 and 550
    df = pl.DataFrame({"rel": labels, "score": scores}, schema={"rel": pl.Float64,
                                                                "score": pl.Float64})
    for k in (None, 7, 60, 400):
        got = df.select(pr.err("rel", k, by="score", ties="expected")).item()
        want = expected_err_by_recurrence([labels[:50], labels[50:]], k)
        assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-13), (k, got, want)


def expected_err_by_recurrence(groups: list[list[Label]], k: int | None) -> float:
    """E[ERR@k] over tie orders: group by group, E[prod of q over the first j rows of a
    group] = e_j(q) / C(n, j), e_j by the recurrence e_j += q e_(j-1) over the rows."""
    total, above, b = 0.0, 1.0, 0
    depth = sum(map(len, groups)) if k is None else min(k, sum(map(len, groups)))
    for labels in groups:
        n = len(labels)
        e = [1.0] + [0.0] * n
        for label in labels:
            q = 1.0 - (2.0 ** (label or 0) - 1.0) / 16.0
            for j in range(n, 0, -1):
                e[j] += q * e[j - 1]
        f = [e[j] / math.comb(n, j) for j in range(n + 1)]
        total += math.fsum(above * (f[j - 1] - f[j]) / (b + j)
                           for j in range(1, n + 1) if b + j <= depth)
        above *= f[n]
        b += n
    return total


@settings(max_examples=examples(20), deadline=None)
@given(case=trec_case(), arms=st.booleans())
def test_evaluate_expected_fast_path_equals_the_expressions(
    case: tuple[dict, dict], arms: bool
) -> None:
    """evaluate() ranks only judged rows (plus unjudged rows tied with them): same values."""
    run, qrels = case
    joined = joined_frame(run, qrels)  # full join, queries in both
    if joined.is_empty():
        return
    run_df = joined.filter(pl.col("score").is_not_null()).select("qid", "docid", "score")
    qrels_df = joined.filter(pl.col("rel").is_not_null()).select("qid", "docid", "rel")
    if arms:  # two arms with the same run: slices must not mix
        run_df = pl.concat([run_df.with_columns(arm=pl.lit(a)) for a in ("A", "B")])
    metrics = {
        "ndcg@5": pr.ndcg("rel", 5, by="score", gain="linear", ties="expected"),
        "map": pr.average_precision("rel", by="score", ties="expected"),
        "mrr@3": pr.reciprocal_rank("rel", 3, by="score", ties="expected"),
        "p@3": pr.precision("rel", 3, by="score", ties="expected"),
        "recall@4": pr.recall("rel", 4, by="score", ties="expected"),
        "success@2": pr.hit_rate("rel", 2, by="score", ties="expected"),
        "rprec": pr.r_precision("rel", by="score", ties="expected"),
        "bpref": pr.bpref("rel", by="score", ties="expected"),
    }
    if not NEEDS_POLARS_2:
        metrics["err@3"] = pr.err("rel", 3, by="score", ties="expected")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        got = pr.evaluate(run_df, qrels_df, list(metrics), ties="expected", per_query=True,
                          group_by="arm" if arms else None)
        # the same lists with the labels in the run (qrels=None): null score = unretrieved
        inline = pr.evaluate(joined, None, list(metrics), ties="expected", per_query=True)
    want = joined.group_by("qid").agg(e.alias(n) for n, e in metrics.items())
    for row in inline.iter_rows(named=True):
        expected = want.filter(pl.col("qid") == row["qid"]).row(0, named=True)
        for name in metrics:
            assert math.isclose(row[name], expected[name], rel_tol=TOL, abs_tol=TOL), name
    for row in got.iter_rows(named=True):
        expected = want.filter(pl.col("qid") == row["qid"]).row(0, named=True)
        for name in metrics:
            assert math.isclose(row[name], expected[name], rel_tol=TOL, abs_tol=TOL), name


@pytest.mark.parametrize("sparse", [False, True], ids=["every row", "judged rows"])
@settings(max_examples=examples(20), deadline=None)
@given(rows=rows_st, params=params_st)
@example(rows=PINNED[0][0], params=PINNED[0][1])
@example(rows=PINNED[1][0], params=PINNED[1][1])
def test_tie_bounds_give_the_expected_value(sparse: bool, rows: list[Row],
                                            params: Params) -> None:
    """``rank=(first, last)``, each row's tie spans, is ``ties="expected"``: the brute
    force mean, also from the judged rows alone (the last retrieved row kept)."""
    df = frame(rows, params).with_columns(
        first=pl.col("score").rank("min", descending=True).cast(pl.Int64),
        last=pl.col("score").rank("max", descending=True).cast(pl.Int64),
    )
    if sparse:
        df = df.filter(pl.col("rel").is_not_null() | (pl.col("last") == pl.col("last").max()))
    names = [n for n in EXPECTED_METRICS if n != "mean_dwell"] + ["auc"]
    exprs = [METRICS[n][0](params, {"rank": ("first", "last")}).alias(n) for n in names]
    got = df.select(exprs).row(0, named=True)
    for name in names:
        if name == "auc":  # no ties parameter: its own tie rule, the oracle's
            want = METRICS[name][1](Case(rows), params)
            assert (got[name] is None) == (want is None), name
            assert want is None or math.isclose(got[name], want, abs_tol=TOL), name
            continue
        want = brute_force(name, rows, params)
        assert math.isclose(got[name], want, rel_tol=TOL, abs_tol=TOL), (name, got[name], want)


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_metrics_of_unjudged_rows_refuse_relevance_tie_orders(ties: str) -> None:
    with pytest.raises(ValueError, match="unjudged rows fall among ties"):
        pr.unjudged("rel", 5, by="score", ties=ties)  # type: ignore[arg-type]
    run = pl.DataFrame({"qid": [1, 1], "docid": [1, 2], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"qid": [1], "docid": [1], "rel": [1]})
    with pytest.raises(ValueError, match="rbp_resid"):
        pr.evaluate(run, qrels, ["rbp_resid"], ties=ties)  # type: ignore[arg-type]


# --------------------------------------------------------------- optimistic / pessimistic
# each term depends on the rows ranked before it (G: the gain so far; BPM: where the
# user stops; accuracy: which pairs the top k holds; mean_dwell: a mean skipping rows
# without a dwell): ordering the ties by gain is not their best or worst order
NOT_BOUNDED = {"normalized_gain", "bpm", "accuracy", "mean_dwell"}
GAIN_TABLES: dict[str, tuple[ExprFn, OracleFn]] = {  # _table: 0 and negative gains, 2 above 3
    "dcg_table": (
        lambda p, by: pr.dcg("rel", p.k, gain="linear", gains=_table(p), **by),
        lambda c, p: ref_gains.ndcg_cut(c.ranked, c.unretrieved, p.k, _table(p), dcg=True),
    ),
    "ndcg_table": (
        lambda p, by: pr.ndcg("rel", p.k, gain="linear", gains=_table(p), **by),
        lambda c, p: ref_gains.ndcg_cut(c.ranked, c.unretrieved, p.k, _table(p)),
    ),
}
BOUNDED = {name: fns for name, fns in {**METRICS, **GAIN_TABLES}.items()
           if name not in NOT_BOUNDED | NOT_MONOTONE | NOT_RELEVANCE_ORDERED | {"auc"}}


@settings(max_examples=examples(15), deadline=None)
@given(rows=st.lists(st.tuples(st.sampled_from([None, 0, 1, 2, 3, 1.5]), scores_st), max_size=6),
       params=params_st)
@example(rows=[(0, 1.0), (None, 1.0), (3, 1.0), (2, 1.0)], params=Params(k=2))  # {0: -1, 2: 9}
@example(rows=[(0, -1.0), (None, -1.0)], params=Params(k=2))  # a judged 0 below unjudged
def test_label_policies_are_the_best_and_worst_orders(rows: list[Row], params: Params) -> None:
    """Brute force: optimistic is the largest value over the tie orders, pessimistic the
    smallest (a gain table's order, not the labels')."""
    values = {name: [oracle(Case(order), params) for order in arrangements(rows)]
              for name, (_, oracle) in BOUNDED.items()}
    df = frame(rows, params)
    for ties, pick in (("optimistic", max), ("pessimistic", min)):
        got = df.select(build(params, {"by": "score", "ties": ties}).alias(name)
                        for name, (build, _) in BOUNDED.items()).row(0, named=True)
        for name, over_orders in values.items():
            scored = [v for v in over_orders if v is not None and not math.isnan(v)]
            if not scored:
                continue
            best = (min if pick is max else max) if name in LOWER_IS_BETTER else pick
            want = best(scored)
            assert math.isclose(got[name], want, rel_tol=TOL, abs_tol=TOL), (ties, name,
                                                                             got[name], want)


# ---------------------------------------------------------------------------- the default
# no closed form under ties="expected": the default (no ties=, no doc=) is "pessimistic"
PESSIMISTIC_BY_DEFAULT = EXCLUDED - {"auc", "mean_dwell", "relstring"}
DEFAULT_METRICS = [n for n in METRICS if n not in {"relstring"} | NEEDS_POLARS_2]


def bits(value: float | str | None) -> object:
    """``value`` compared bit for bit (NaN equal to NaN)."""
    return struct.pack("<d", value) if isinstance(value, float) else value


def default_policy(name: str, params: Params) -> str | None:
    """What ``ties=None`` means for ``name`` without ``doc=`` (None: no ``ties``)."""
    if name == "auc":
        return None
    if name in PESSIMISTIC_BY_DEFAULT or (name == "mean_dwell" and params.k is not None):
        return "pessimistic"
    return "expected"


@settings(max_examples=examples(5), deadline=None)
@given(rows=rows_st, params=params_st, seed=st.integers(0, 2**16))
@example(rows=PINNED[0][0], params=PINNED[0][1], seed=1)
@example(rows=PINNED[2][0], params=PINNED[2][1], seed=2)
def test_the_default_is_one_value_for_any_row_order(rows: list[Row], params: Params,
                                                    seed: int) -> None:
    """No ``ties=``: every metric gives the same value for every order of the rows,
    the exact mean over tie orders (pessimistic without its closed form)."""
    exprs = [METRICS[n][0](params, {"by": "score"}).alias(n) for n in DEFAULT_METRICS]
    df = frame(rows, params)
    got = df.select(exprs).row(0, named=True)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    again = shuffled.select(exprs).row(0, named=True)
    grouped = shuffled.reverse().group_by(pl.lit(0).alias("g")).agg(exprs).drop("g")
    for name in DEFAULT_METRICS:  # the same bits (order_free_sum), not only close
        assert bits(again[name]) == bits(got[name]), (name, again[name], got[name])
        if rows:
            assert bits(grouped.row(0, named=True)[name]) == bits(got[name]), name
    explicit = df.select(
        METRICS[n][0](params, {"by": "score"} if default_policy(n, params) is None
                      else {"by": "score", "ties": default_policy(n, params)}).alias(n)
        for n in DEFAULT_METRICS).row(0, named=True)
    for name in DEFAULT_METRICS:
        assert same(got[name], explicit[name]), (name, got[name], explicit[name])


@pytest.mark.parametrize("seed", [8, 24])
def test_long_tied_lists_give_the_same_bits_in_any_order(seed: int) -> None:
    """Longer lists than the property test draws, most scores tied: a share of a tie
    group (1/3, 1/7...) summed in row order differed in the last bit (r_precision@5)."""
    rnd = random.Random(seed)
    rows: list[Row] = [(float(rnd.randint(0, 2)), float(rnd.randint(0, 3)))
                       for _ in range(rnd.randint(20, 30))]
    params = Params(k=5)
    exprs = [METRICS[n][0](params, {"by": "score"}).alias(n) for n in DEFAULT_METRICS]
    df = frame(rows, params)
    want = {n: bits(v) for n, v in df.select(exprs).row(0, named=True).items()}
    for order in range(4):
        got = df.sample(fraction=1.0, shuffle=True, seed=order).select(exprs)
        assert {n: bits(v) for n, v in got.row(0, named=True).items()} == want, order


def test_the_cards_two_rows_give_one_number() -> None:
    """score [1, 1], rel [0, 1]: 0.631 or 1.0 by row order under "first"; the mean."""
    df = pl.DataFrame({"score": [1.0, 1.0], "rel": [0, 1]})
    values = {d.select(pr.ndcg("rel", k=10, by="score")).item() for d in (df, df.reverse())}
    assert len(values) == 1
    assert values.pop() == pytest.approx((1 / math.log2(3) + 1.0) / 2, abs=1e-15)
    first = {d.select(pr.ndcg("rel", k=10, by="score", ties="first")).item()
             for d in (df, df.reverse())}
    assert len(first) == 2  # the row order, asked for by name


def test_the_default_with_doc_ids_is_trec_evals_order() -> None:
    df = pl.DataFrame({"docid": ["d1", "d3", "d2"], "rel": [0, 1, 0], "score": [0.5] * 3})
    for d in (df, df.reverse()):
        assert d.select(pr.mrr("rel", by="score", doc="docid")).item() == 1.0  # d3 first
        assert d.select(pr.mrr("rel", by="score", doc="docid", ties="trec_eval")).item() == 1.0


def test_an_explicit_expected_still_raises_without_a_closed_form() -> None:
    """Asked for by name, "expected" is refused where it has no closed form; the default
    falls back to "pessimistic" there, and relstring (one order) wants doc= or "first"."""
    with pytest.raises(NotImplementedError, match="ties='expected'"):
        pr.normalized_gain("rel", by="score", ties="expected")
    df = pl.DataFrame({"rel": [1, 0, 2], "score": [1.0, 1.0, 0.5]})
    assert df.select(pr.iprec_at_recall("rel", 0.5, by="score")).item() == df.select(
        pr.iprec_at_recall("rel", 0.5, by="score", ties="pessimistic")).item()
    with pytest.raises(NotImplementedError, match="doc="):
        pr.relstring("rel", by="score")


@settings(max_examples=examples(10), deadline=None)
@given(seed=st.integers(0, 2**16))
def test_the_cards_one_liner_ignores_row_order(seed: int) -> None:
    """The README's forms on a run with tied scores, shuffled: one number, bit for bit."""
    rng = random.Random(seed)
    rows = [(q, rng.choice([0.1, 0.2, 0.3]), rng.choice([0, 1, 2]), rng.choice("ab"))
            for q in range(20) for _ in range(rng.randint(1, 12))]
    df = pl.DataFrame(rows, schema=["qid", "score", "rel", "arm"], orient="row")
    forms = [
        lambda d: d.group_by("qid").agg(pl.col("rel").rank.ndcg(k=10, by="score"))
        .sort("qid")["ndcg@10(gain=exponential)"].to_list(),
        lambda d: d.group_by("arm").agg(pl.col("rel").rank.ndcg(k=10, by="score", query="qid"))
        .sort("arm")["ndcg@10(gain=exponential)"].to_list(),
        lambda d: d.with_columns(pr.mrr("rel", 10, by="score").over("qid"))
        .group_by("qid").agg(pl.col("mrr@10").first()).sort("qid")["mrr@10"].to_list(),
    ]
    for form in forms:
        base = form(df)
        for i in range(3):
            other = form(df.sample(fraction=1.0, shuffle=True, seed=seed + i))
            assert other == base  # bit for bit


def test_a_full_join_gives_evaluates_mean() -> None:
    """A run query the qrels do not name is no query of the ``query=`` mean (trec_eval,
    evaluate()): run q1/a, q2/b, qrels q1/a=1: P@1 is 1.0, not 0.5."""
    run = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1"], "docid": ["a"], "rel": [1]})
    joined = run.join(qrels, on=["qid", "docid"], how="full", coalesce=True)
    got = joined.select(pr.precision("rel", k=1, by="score", query="qid")).item()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # q2 has no judgments
        assert got == pr.evaluate(run, qrels, ["P_1"]).item() == 1.0
    # per list, the unjudged query still scores 0 (a value, not a silent null)
    per_query = joined.group_by("qid").agg(pr.precision("rel", k=1, by="score")).sort("qid")
    assert per_query["p@1"].to_list() == [1.0, 0.0]
    # an unscorable list stays NaN in the mean, judged or not
    bad = joined.with_columns(score=pl.when(pl.col("qid") == "q2").then(float("nan"))
                              .otherwise(pl.col("score")))
    assert math.isnan(bad.select(pr.precision("rel", k=1, by="score", query="qid")).item())


def test_tie_spread_is_the_range_over_tie_orders() -> None:
    """The constant scorer of docs/conventions.md: every order of d1..d5 (d3, d5
    relevant) by brute force; the spread is max - min, the share of tied rows 1."""
    run = pl.DataFrame({"qid": ["q1"] * 5, "docid": ["d1", "d2", "d3", "d4", "d5"],
                        "score": [0.5] * 5})
    qrels = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["d3", "d5"], "rel": [1, 1]})
    values = {"mrr": [], "p@2": []}  # type: dict[str, list[float]]
    for order in itertools.permutations([0, 0, 1, 0, 1]):
        first = order.index(1) + 1
        values["mrr"].append(1 / first)
        values["p@2"].append(sum(order[:2]) / 2)
    with pytest.warns(UserWarning, match="100% of the run's retrieved rows"):
        out = pr.tie_spread(run, qrels, ["mrr", "p@2"]).row(0, named=True)
    for name, got in values.items():
        assert out[f"{name}_pessimistic"] == min(got)
        assert out[f"{name}_optimistic"] == max(got)
        assert out[f"{name}_spread"] == max(got) - min(got)
    assert out["tied_share"] == 1.0
    lazy = pr.tie_spread(run.lazy(), qrels, ["mrr", "p@2"])  # a plan: no warning
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().row(0, named=True) == out


def test_tie_spread_per_query_and_group_ignores_row_order() -> None:
    run = pl.DataFrame({"qid": ["q1", "q1", "q2", "q2", "q2"], "arm": ["a", "a", "b", "b", "b"],
                        "docid": ["x", "y", "x", "y", "z"], "score": [1.0, 1.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["y", "z"], "rel": [1, 1]})
    per_query = pr.tie_spread(run, qrels, "mrr", per_query=True).sort("qid")
    assert per_query["mrr_spread"].to_list() == [0.5, 0.0]
    assert per_query["tied_share"].to_list() == [1.0, 0.0]
    by_arm = pr.tie_spread(run, qrels, "mrr", group_by="arm").sort("arm")
    assert by_arm["mrr_spread"].to_list() == [0.5, 0.0]
    for seed in range(3):
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)
        assert pr.tie_spread(shuffled, qrels, "mrr", per_query=True).sort("qid").equals(
            per_query)


def test_one_tie_vocabulary() -> None:
    """Every entry point's ``ties`` takes names of one vocabulary, each meaning written
    once (``TIE_POLICIES``), and the glossary names them all."""
    from typing import get_args

    from polars_rank._engine import params

    assert set(get_args(params.TiePolicy)) == set(params.TIE_POLICIES)
    for alias in (params.Ties, params.EvalTies, params.IntentTies, params.SampledTies):
        assert set(get_args(alias)) <= set(params.TIE_POLICIES), alias
    architecture = Path(__file__).parents[1] / "docs" / "architecture.md"
    glossary = next(line for line in architecture.read_text().splitlines()
                    if line.startswith("| ties (policy) |"))
    assert all(f"`{name}`" in glossary for name in params.TIE_POLICIES), glossary
