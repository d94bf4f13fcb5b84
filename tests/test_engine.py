"""One engine, every path: the same numbers whichever way a user asks.

On random runs with tied scores and judged documents the run never retrieved, for
every tie policy, id type (string, integer, Categorical, Enum) and mix of metrics:

* ``evaluate()`` in memory and ``memory="low"`` (many small buckets);
* ``ranked()`` then ``group_by(query).agg(metric(rank=...))`` and the ``query=``
  mean of the same expressions (the documented fast forms);
* the one-line expressions (``by=``, each list ranked by the metric itself) on the
  full join of run and qrels.

All agree to 1e-12. (pytrec_eval: ``test_evaluate.py`` and ``test_trec_parity.py``;
Spark and Dask: ``test_scale_out.py``, against ``evaluate()``.)
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.registry import METRICS, Metric, parse_metric

TOL = 1e-12
TIES = ["trec_eval", "first", "optimistic", "pessimistic", "expected"]
ID_TYPES = ["str", "int", "categorical", "enum"]
# Polars 1.36 sorts a group_by's lists wrong by several keys when one is a per-list
# expression (the canaries of sorts by several keys, tests/test_workarounds.py), and so
# rank_correlation's tie orders (_by_rank_then_label): there, by= a rank() is checked
# with one key (ties="expected") and without rank_correlation. Open.
POLARS_1 = pl.__version__.startswith("1.")
# every registered metric, with options and cutoffs; ERR, bpref and the interpolated
# precisions have no closed form under ties="expected"
SPECS = ["ndcg@3", "ndcg(gain=linear)", "dcg@2", "ideal_dcg@2", "map", "map@2", "mrr", "mrr@2",
         "p@2", "p", "recall@3", "f1@2", "err@3(max_grade=3)", "hit_rate@1", "rprec", "bpref",
         "rbp(p=0.5)", "rank_correlation", "auc", "ctr@2", "abandonment@2",
         "first_click_rr", "clicks_per_query@3", "rbp(p=0.9,gain=graded)", "gm_map", "yaap",
         "hits@2",
         "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "iprec_at_recall@0.5",
         "11pt_avg", "gm_bpref", "unj@3", "rbp_resid(p=0.7)", "relative_p@2", "rprec_mult@1.4",
         "set_map", "utility", "g", "bing", "ndcg_rel", "rndcg(gains={1:3,2:0})",
         "g(gains={0:-1,3:4.5})", "ndcg@3(gains={1:3,2:9})", "utility(weights=[2,-1,0.5,0])",
         "11pt_avg(levels=[0.25,0.5,0.75])", "infap", "judged@3", "relstring@4",
         "map@3(judged_only=True)",
         # the options other tools' numbers need (dialects)
         "map@2(denominator=retrieved)", "map@3(denominator=capped,empty=one)",
         "rprec@2(empty=skip)", "p@3(adaptive_k=True)", "ndcg@3(gain=binary,threshold=0)",
         "dcg@2(threshold=2,log_base=10)", "f1@2(beta=2)", "rbp(p=0.6,gain=raw)",
         "mrr@2(empty=skip)", "hit_rate@2(empty=one)", "recall@2(empty=skip)",
         "accuracy@3", "num_q", "sdcg@3(max_rel=3)", "inst(max_rel=3)",
         "insq(max_rel=3,target=2)", "bpm@3(max_rel=3,target=1.5)", "nerr8@3(max_rel=3)",
         "nerr9@4(max_rel=2)", "nerr10(max_rel=3,p=0.7)", "nerr11(max_rel=3)",
         "compat(p=0.8)", "f1@2(beta=0.5)"]
# the intent-aware metrics need diversity qrels (a subtopic column) and rank ties by doc
# id (ndeval) or row order only: tests/test_intents.py runs them through every path
INTENT_SPECS = ["alpha_ndcg@3", "alpha_dcg@2", "err_ia@3", "nerr_ia@2", "nrbp", "nnrbp",
                "p_ia@2", "ap_ia", "strecall@3"]
# trec_eval's judgment-group measures read qrels with a judgment-group column, a row
# per (query, group, doc): tests/test_trec_eval_jg.py runs them
JUDGMENT_GROUP_SPECS = ["map_avgjg", "p_avgjg@2", "rprec_mult_avgjg@1.4"]
# the metrics with no closed form under ties="expected", as their specs say (each
# refuses it, tests/test_ties.py; the others equal the mean over tie orders)
NO_EXPECTED = {name for name, spec in METRICS.items() if "expected" not in spec.ties}


# a click log's metrics keep every session in a query= mean (Ranked.finish(judgments=False))
CLICK_METRICS = {"ctr", "abandonment", "first_click_rr", "clicks_per_query", "mean_dwell"}


def over_queries(values: pl.Series, m: Metric) -> float | None:
    """``values`` (one per query) summarised as the metric's ``query=`` summary."""
    how = m.definition.over_queries
    kept = [v for v in values.to_list() if v is not None]
    if how == "sum":
        return math.fsum(kept)
    if not kept:
        return None
    if how == "geometric":
        return math.exp(math.fsum(math.log(max(v, 1e-5)) for v in kept) / len(kept))
    return math.fsum(kept) / len(kept)


def test_every_registered_metric_is_covered() -> None:
    specs = SPECS + INTENT_SPECS + JUDGMENT_GROUP_SPECS
    assert {parse_metric(s).definition.name for s in specs} == set(METRICS)
    assert all(parse_metric(s).definition.per_judgment_group for s in JUDGMENT_GROUP_SPECS)
    assert all(parse_metric(s).definition.subtopics for s in INTENT_SPECS)


@st.composite
def cases(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(run, qrels): up to 4 queries, few distinct scores (ties), unretrieved judgments,
    qrels lines without a label (pooled, not judged)."""
    run_rows, qrels_rows = [], []
    for q in range(draw(st.integers(1, 4))):
        n_docs = draw(st.integers(0, 7))
        for d in range(n_docs):
            # 1.0000000001: a 32-bit 1.0 (trec_eval 9), not a 64-bit one (trec_eval 10)
            run_rows.append((q, d, draw(st.sampled_from([0.5, 1.0, 1.0, 2.0, 1.0000000001]))))
        for d in range(n_docs + 2):  # the last two: judged, never retrieved
            if draw(st.booleans()):
                qrels_rows.append((q, d, draw(st.sampled_from([0, 1, 2, 3, None]))))
    run = pl.DataFrame(run_rows, schema={"qid": pl.Int64, "docid": pl.Int64,
                                         "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"qid": pl.Int64, "docid": pl.Int64,
                                             "rel": pl.Int64}, orient="row")
    shuffled = run.sample(fraction=1.0, shuffle=True, seed=draw(st.integers(0, 9)))
    return shuffled, qrels


def with_ids(run: pl.DataFrame, qrels: pl.DataFrame, kind: str) -> tuple[pl.DataFrame,
                                                                          pl.DataFrame]:
    """The id columns as ``kind``: text ids sort differently from numbers (9 > 10)."""
    if kind == "int":
        return run, qrels
    ids = {"qid": [f"q{i}" for i in range(10)], "docid": [str(i) for i in range(10)]}
    dtypes = {c: {"str": pl.String, "categorical": pl.Categorical,
                  "enum": pl.Enum(v)}[kind] for c, v in ids.items()}

    def cast(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(
            pl.col("qid").map_elements(lambda i: f"q{i}", return_dtype=pl.String),
            pl.col("docid").cast(pl.String),
        ).cast(dtypes)  # type: ignore[arg-type]

    return cast(run), cast(qrels)


def keys_mode_ranking(ties: str) -> dict[str, object]:
    """The one-line expressions' ranking arguments for an evaluate() tie policy."""
    if ties == "trec_eval":  # 64-bit scores, then doc ids as text, both descending
        return {"by": ["score", pl.col("docid").cast(pl.String)], "descending": True,
                "ties": "first"}
    if ties == "first":  # the run's row order among equal scores
        return {"by": ["score", "__row"], "descending": [True, False], "ties": "first"}
    return {"by": "score", "ties": ties}


def by_score_rank(ranking: dict[str, object]) -> dict[str, object]:
    """``ranking`` with the score replaced by its rank in the list: the same order and
    ties, through a ``by=`` expression that is not a column."""
    by = ranking["by"]
    keys = [by] if isinstance(by, str) else list(by)  # type: ignore[call-overload]
    return {**ranking, "by": [pl.col("score").rank(), *keys[1:]]}


def full_join(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """Retrieved rows with their labels, then each query's judged rows not retrieved;
    ``pooled``: the row has a qrels line."""
    ordered = run.with_row_index("__row")
    lines = qrels.with_columns(pl.lit(True).alias("pooled"))
    unretrieved = lines.join(run.select("qid", "docid"), on=["qid", "docid"], how="anti")
    return pl.concat([ordered.join(lines, on=["qid", "docid"], how="left"), unretrieved],
                     how="diagonal_relaxed").with_columns(pl.col("pooled").fill_null(False))


def pooled(metric: Metric, flag: str | pl.Expr) -> dict[str, str | pl.Expr]:
    """``pooled=flag`` for the metrics that read it (evaluate() passes it itself)."""
    return {"pooled": flag} if metric.definition.reads_pool else {}


def close(a: float | str | None, b: float | str | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):  # relstring
        return a == b
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


def assert_same_values(got: pl.DataFrame, want: pl.DataFrame, names: list[str]) -> None:
    got_rows = {str(r["qid"]): r for r in got.iter_rows(named=True)}
    want_rows = {str(r["qid"]): r for r in want.iter_rows(named=True)}
    assert set(got_rows) == set(want_rows)
    for qid, row in want_rows.items():
        for name in names:
            assert close(got_rows[qid][name], row[name]), (qid, name, got_rows[qid][name],
                                                           row[name])


@pytest.mark.slow
# open on Polars 1.x only (found 2026-11-28): some text-id cases stop evaluate() with
# "cum_sum operation not supported for dtype null"; not strict, as most cases pass
@pytest.mark.xfail(POLARS_1, reason="Polars 1.x: a null-typed column reaches a cum_sum (open)",
                   strict=False)
@pytest.mark.parametrize("ties", TIES)
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), kind=st.sampled_from(ID_TYPES), data=st.data())
def test_every_path_gives_the_same_numbers(ties: str, case: tuple[pl.DataFrame, pl.DataFrame],
                                           kind: str, data: st.DataObject) -> None:
    run, qrels = with_ids(*case, kind)
    usable = [s for s in SPECS
              if (ties != "expected" or parse_metric(s).definition.name not in NO_EXPECTED)
              and not (ties in ("optimistic", "pessimistic")
                       and parse_metric(s).definition.of_unjudged)]
    specs = data.draw(st.lists(st.sampled_from(usable), min_size=1, max_size=6, unique=True))
    metrics = [parse_metric(s) for s in specs]
    names = [str(m) for m in metrics]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run queries without judgments
        want = pr.evaluate(run, qrels, specs, per_query=True, ties=ties)  # type: ignore[arg-type]
        with pytest.MonkeyPatch.context() as patch:
            from polars_rank._evaluation import pipeline

            patch.setattr(pipeline, "_BUCKET_ROWS", 3)  # several buckets
            low = pr.evaluate(run.lazy(), qrels.lazy(), specs, per_query=True,
                              ties=ties, memory="low").collect()  # type: ignore[arg-type]
        lists = pr.ranked(run, qrels, ties=ties)  # type: ignore[arg-type]
    assert_same_values(low, want, names)

    # AUC counts a score tie one half; strict positions have no ties (tie spans do)
    rank = ("rank", "rank_last") if ties == "expected" else "rank"
    # ranked() ranks once, by label (unjudged lowest), for every metric: under the label
    # tie policies a metric with a gain table orders its ties by its gain and evaluate()
    # ranks it apart (Metric.tie_gain), so its ranked() positions are not its order
    label_order = ties not in ("optimistic", "pessimistic")
    shared = [(n, m) for n, m in zip(names, metrics, strict=True)
              if (ties == "expected" or m.definition.name != "auc")
              and (label_order or m.tie_gain(pl.col("rel")) is None)]
    in_pool = pl.col("docid").is_not_null()  # ranked(): only the list ends have no id
    per_list = lists.group_by("qid").agg(m.expr("rel", rank=rank, **pooled(m, in_pool)).alias(n)
                                         for n, m in shared)
    assert_same_values(per_list, want, [n for n, _ in shared])
    # one list alone in a select, on the in-memory engine (Polars 2's other engine)
    for qid in want["qid"].head(1):
        alone = lists.lazy().filter(pl.col("qid") == qid).select(
            pl.lit(str(qid)).alias("qid"),
            *(m.expr("rel", rank=rank, **pooled(m, in_pool)).alias(n) for n, m in shared),
        ).collect(engine="in-memory")
        assert_same_values(alone, want.filter(pl.col("qid") == qid), [n for n, _ in shared])
    averaged = [(n, m) for n, m in shared if m.definition.over_queries != "none"]
    means = lists.select(m.expr("rel", rank=rank, query="qid", **pooled(m, in_pool)).alias(n)
                         for n, m in averaged)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run queries without judgments
        summaries = pr.evaluate(run, qrels, specs, ties=ties)  # type: ignore[arg-type]
    # query= leaves out a list without a labelled row; evaluate() counts a query whose
    # qrels lines are all negative (pooled, unjudged: null labels here), as trec_eval
    labelled = lists.group_by("qid").agg(pl.col("rel").is_not_null().any().alias("x"))
    counted = want.join(labelled.filter("x").drop("x"), on="qid")
    for name, m in averaged:  # the mean, or the metric's own summary (sums, geometric)
        if counted.height == want.height or m.definition.name in CLICK_METRICS:
            assert close(means[name].item(), summaries[name].item()), name
        else:
            assert close(means[name].item(), over_queries(counted[name], m)), name
    for name in {n for n, _ in shared} - {n for n, _ in averaged}:  # strings: none
        assert summaries[name].item() is None, name

    joined = full_join(run, qrels).filter(pl.col("qid").is_in(want["qid"].implode()))
    ranking = keys_mode_ranking(ties)
    one_line = joined.group_by("qid").agg(
        m.expr("rel", **({"by": "score"} if m.definition.name == "auc" else ranking),
               **pooled(m, "pooled")).alias(n)
        for n, m in zip(names, metrics, strict=True))
    assert_same_values(one_line, want, names)
    for qid in want["qid"].head(1):  # one list alone in a select, in memory (as above)
        alone = joined.lazy().filter(pl.col("qid") == qid).select(
            pl.lit(str(qid)).alias("qid"),
            *(m.expr("rel", **({"by": "score"} if m.definition.name == "auc" else ranking),
                     **pooled(m, "pooled")).alias(n)
              for n, m in zip(names, metrics, strict=True)),
        ).collect(engine="in-memory")
        assert_same_values(alone, want.filter(pl.col("qid") == qid), names)
    # the same with by= an expression ranking each list (Polars 2.1 panicked: Ranked.ordered)
    if POLARS_1 and ties != "expected":
        return
    by_rank = [(n, m) for n, m in zip(names, metrics, strict=True)
               if not (POLARS_1 and m.definition.name == "rank_correlation")]
    one_line_by_rank = joined.group_by("qid").agg(
        m.expr("rel", **by_score_rank({"by": "score"} if m.definition.name == "auc" else ranking),
               **pooled(m, "pooled")).alias(n)
        for n, m in by_rank)
    assert_same_values(one_line_by_rank, want, [n for n, _ in by_rank])


def test_tied_integer_ids_break_ties_as_text_with_any_metric_beside() -> None:
    """trec_eval compares doc ids as text ("9" > "2" > "100" > "10"), on every path."""
    run = pl.DataFrame({"qid": [1] * 4, "docid": [9, 10, 100, 2], "score": [1.0] * 4})
    qrels = pl.DataFrame({"qid": [1] * 4, "docid": [10, 9, 100, 2], "rel": [1, 0, 0, 0]})
    assert pr.evaluate(run, qrels, ["recip_rank"]).item() == 0.25
    assert pr.evaluate(run, qrels, ["recip_rank", "auc"])["recip_rank"].item() == 0.25
    lists = pr.ranked(run, qrels)
    assert lists.select(pr.mrr("rel", rank="rank")).item() == 0.25
