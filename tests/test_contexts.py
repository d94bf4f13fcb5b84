"""Every metric in every context gives the same per-query values.

Contexts: ``group_by(q).agg``, ``.over(q)``, ``select`` on one list, ``query=`` in
``select`` and in ``group_by(arm).agg`` (mean over queries, each once), multi-column
query ids, ``query=`` inside ``.over(arm)``, LazyFrames and the streaming engine.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import polars as pl
import pytest
from test_engine import INTENT_SPECS
from test_engine import SPECS as ENGINE_SPECS
from test_engine import close as close_or_nan

import polars_rank as pr
from polars_rank.registry import METRICS as REGISTRY
from polars_rank.registry import parse_metric

Build = Callable[..., pl.Expr]
INTENT = {"subtopic": pl.col("pos") % 2, "doc": "doc", "by": "score"}

METRICS: dict[str, Build] = {
    "dcg": lambda **kw: pr.dcg("rel", 3, by="score", **kw),
    "ideal_dcg": lambda **kw: pr.ideal_dcg("rel", 3, by="score", **kw),
    "ndcg": lambda **kw: pr.ndcg("rel", 3, by="score", **kw),
    "ndcg_linear": lambda **kw: pr.ndcg("rel", by="score", gain="linear", **kw),
    "err": lambda **kw: pr.err("rel", 4, max_grade=3, by="score", **kw),
    "precision": lambda **kw: pr.precision("rel", 3, by="score", **kw),
    "recall": lambda **kw: pr.recall("rel", 3, by="score", **kw),
    "f1": lambda **kw: pr.f1("rel", 3, by="score", **kw),
    "average_precision": lambda **kw: pr.average_precision("rel", by="score", **kw),
    "map": lambda **kw: pr.map("rel", 5, by="score", threshold=2, **kw),
    "reciprocal_rank": lambda **kw: pr.reciprocal_rank("rel", by="score", **kw),
    "mrr": lambda **kw: pr.mrr("rel", 2, by="score", **kw),
    "hit_rate": lambda **kw: pr.hit_rate("rel", 2, by="score", **kw),
    "r_precision": lambda **kw: pr.r_precision("rel", by="score", **kw),
    "rbp": lambda **kw: pr.rbp("rel", 0.7, by="score", **kw),
    "bpref": lambda **kw: pr.bpref("rel", by="score", **kw),
    "rank_correlation": lambda **kw: pr.rank_correlation("rel", by="score", **kw),
    "auc": lambda **kw: pr.auc("rel", by="score", **kw),
    "ctr": lambda **kw: pr.ctr("clicks", 3, by="pos", descending=False, **kw),
    "abandonment": lambda **kw: pr.abandonment("clicks", 3, by="pos", descending=False, **kw),
    "first_click_rr": lambda **kw: pr.first_click_rr("clicks", by="pos", descending=False,
                                                     **kw),
    "clicks_per_query": lambda **kw: pr.clicks_per_query("clicks", 4, by="score", **kw),
    "mean_dwell": lambda **kw: pr.mean_dwell("dwell", 5, clicks="clicks", by="pos",
                                             descending=False, **kw),
    "mean_dwell_by_score": lambda **kw: pr.mean_dwell("dwell", by="score", **kw),
    "ndcg_by_rank": lambda **kw: pr.ndcg("rel", 3, by="pos", descending=False, **kw),
    "ndcg_secondary_key": lambda **kw: pr.ndcg("rel", 3, by=["score", "doc"], **kw),
    "ndcg_row_order": lambda **kw: pr.ndcg("rel", 3, by=None, **kw),
    "ap_optimistic": lambda **kw: pr.average_precision("rel", by="score", ties="optimistic", **kw),
    "gm_map": lambda **kw: pr.gm_map("rel", by="score", **kw),
    "yaap": lambda **kw: pr.yaap("rel", by="score", **kw),
    "hits": lambda **kw: pr.hits("rel", 3, by="score", **kw),
    "num_ret": lambda **kw: pr.num_ret("rel", by="score", **kw),
    "num_rel": lambda **kw: pr.num_rel("rel", by="score", threshold=2, **kw),
    "num_rel_ret": lambda **kw: pr.num_rel_ret("rel", by="score", **kw),
    "num_nonrel_judged_ret": lambda **kw: pr.num_nonrel_judged_ret("rel", by="score", **kw),
    "iprec_at_recall": lambda **kw: pr.iprec_at_recall("rel", 0.4, by="score", **kw),
    "eleven_point_average": lambda **kw: pr.eleven_point_average("rel", by="score", **kw),
    "gm_bpref": lambda **kw: pr.gm_bpref("rel", by="score", **kw),
    "unjudged": lambda **kw: pr.unjudged("rel", 3, by="score", **kw),
    "rbp_residual": lambda **kw: pr.rbp_residual("rel", 0.7, by="score", **kw),
    "relative_precision": lambda **kw: pr.relative_precision("rel", 2, by="score", **kw),
    "r_precision_multiple": lambda **kw: pr.r_precision_multiple("rel", 1.4, by="score", **kw),
    "set_map": lambda **kw: pr.set_map("rel", by="score", **kw),
    "utility": lambda **kw: pr.utility("rel", by="score", **kw),
    "normalized_gain": lambda **kw: pr.normalized_gain("rel", gains={1: 4.5, 0: -1},
                                                       by="score", **kw),
    "binary_normalized_gain": lambda **kw: pr.binary_normalized_gain("rel", by="score", **kw),
    "ndcg_over_relevant": lambda **kw: pr.ndcg_over_relevant("rel", by="score", **kw),
    "r_ndcg": lambda **kw: pr.r_ndcg("rel", gains={2: 9}, by="score", **kw),
    # intent-aware: each row its document's judgment for one of two subtopics
    "alpha_ndcg": lambda **kw: pr.alpha_ndcg("rel", 3, **INTENT, **kw),
    "alpha_dcg": lambda **kw: pr.alpha_dcg("rel", 3, alpha=0.3, **INTENT, **kw),
    "err_ia": lambda **kw: pr.err_ia("rel", 3, **INTENT, **kw),
    "nerr_ia": lambda **kw: pr.nerr_ia("rel", 2, threshold=2, **INTENT, **kw),
    "nrbp": lambda **kw: pr.nrbp("rel", beta=0.8, **INTENT, **kw),
    "nnrbp": lambda **kw: pr.nnrbp("rel", beta=0.2, **INTENT, **kw),
    "precision_ia": lambda **kw: pr.precision_ia("rel", 3, **INTENT, **kw),
    "ap_ia": lambda **kw: pr.ap_ia("rel", **INTENT, **kw),
    "subtopic_recall": lambda **kw: pr.subtopic_recall("rel", 3, **INTENT, **kw),
    "infap": lambda **kw: pr.infap("rel", pooled="pooled", by="score", **kw),
    "judged": lambda **kw: pr.judged("rel", 3, pooled="pooled", by="score", **kw),
    "relstring": lambda **kw: pr.relstring("rel", 4, pooled="pooled", by="score",
                                           ties="first", **kw),
    "ndcg_judged_only": lambda **kw: pr.parse_metric("ndcg@3(judged_only=True)").expr(
        "rel", by="score", **kw),
    "accuracy": lambda **kw: pr.accuracy("rel", 4, by="score", **kw),
    "num_q": lambda **kw: pr.num_q("rel", by="score", **kw),
    "sdcg": lambda **kw: pr.sdcg("rel", 3, max_rel=3, by="score", **kw),
    "inst": lambda **kw: pr.inst("rel", max_rel=3, target=2.0, by="score", **kw),
    "insq": lambda **kw: pr.insq("rel", max_rel=3, by="score", **kw),
    "bpm": lambda **kw: pr.bpm("rel", 4, max_rel=3, target=1.5, by="score", **kw),
    "nerr8": lambda **kw: pr.nerr8("rel", 4, max_rel=3, by="score", **kw),
    "nerr9": lambda **kw: pr.nerr9("rel", 3, max_rel=3, min_rel=1, by="score", **kw),
    "nerr10": lambda **kw: pr.nerr10("rel", max_rel=3, p=0.8, by="score", **kw),
    "nerr11": lambda **kw: pr.nerr11("rel", max_rel=3, by="score", **kw),
    "compat": lambda **kw: pr.compat("rel", p=0.8, by="score", **kw),
    "compat_by_ideal": lambda **kw: pr.compat("rel", normalize=False, by="score", **kw),
    "f1_by_beta": lambda **kw: pr.f1("rel", 3, beta=0.5, by="score", **kw),
}
PER_LIST_ONLY = {name for name, spec in REGISTRY.items() if spec.over_queries == "none"}
"""A value per list, no mean over queries (their spec's ``over_queries="none"``:
relstring's string; ``query=`` raises, tested on its own)."""


def experiment(seed: int = 7, n_queries: int = 12) -> pl.DataFrame:
    """Arms x queries with ties, unretrieved judged rows, unjudged rows, clicks."""
    rnd = random.Random(seed)
    rows = []
    for arm in ("A", "B"):
        for q in range(n_queries):
            n = rnd.randint(1, 9)
            for d in range(n):
                retrieved = rnd.random() < 0.85
                rows.append({
                    "arm": arm,
                    "qid": f"q{q}",
                    "user": q % 3,
                    "doc": f"d{rnd.randint(0, 99)}-{d}",
                    "rel": None if rnd.random() < 0.15 else rnd.choice([0, 0, 1, 2, 3]),
                    "score": rnd.choice([0.1, 0.5, 0.5, 0.9, 1.3]) if retrieved else None,
                    "pos": d + 1,
                    "clicks": rnd.choice([0, 0, 1]),
                })
                # a dwell time on clicked rows (not drawn: the other columns stay as they were)
                clicked = rows[-1]["clicks"] == 1
                rows[-1]["dwell"] = float((7 * d + 3 * q) % 11) if clicked else None
                # unjudged rows in the pool (infAP, relstring): not drawn either
                rows[-1]["pooled"] = (d + q) % 2 == 0
    return pl.DataFrame(rows)


DF = experiment()


def close(a: float | str | None, b: float | str | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):  # relstring
        return a == b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def mean_defined(values: list[float | None], build: Build) -> float | None:
    """The ``query=`` value over the queries: their mean, or the metric's own summary."""
    defined = [v for v in values if v is not None]
    if not defined:
        return None
    how = next((m.over_queries for name, m in REGISTRY.items() if METRICS.get(name) is build),
               "mean")
    if how == "sum":
        return math.fsum(defined)
    if how == "geometric":
        return math.exp(math.fsum(math.log(max(v, 1e-5)) for v in defined) / len(defined))
    return sum(defined) / len(defined)


def per_query(build: Build, frame: pl.DataFrame, keys: list[str]) -> dict[tuple, float | None]:
    out = frame.group_by(keys).agg(build().alias("m"))
    return {tuple(r[k] for k in keys): r["m"] for r in out.iter_rows(named=True)}


@pytest.fixture(params=sorted(METRICS), name="build")
def metric(request: pytest.FixtureRequest) -> Build:
    return METRICS[request.param]


@pytest.fixture(params=sorted(set(METRICS) - PER_LIST_ONLY), name="averaged")
def averaged_metric(request: pytest.FixtureRequest) -> Build:
    """The metrics with a value over queries (``query=``)."""
    return METRICS[request.param]


def test_over_equals_group_by(build: Build) -> None:
    expected = per_query(build, DF, ["arm", "qid"])
    windowed = DF.with_columns(build().over("arm", "qid").alias("m"))
    for row in windowed.iter_rows(named=True):
        assert close(row["m"], expected[(row["arm"], row["qid"])])


def test_select_on_one_list_equals_group_by(build: Build) -> None:
    expected = per_query(build, DF, ["arm", "qid"])
    for (arm, qid), value in list(expected.items())[:8]:
        one = DF.filter(arm=arm, qid=qid)
        assert close(one.select(build().alias("m")).item(), value)


def test_query_in_select_is_the_mean_over_queries(averaged: Build) -> None:
    build = averaged
    a = DF.filter(arm="A")
    expected = mean_defined(list(per_query(build, a, ["qid"]).values()), build)
    assert close(a.select(build(query="qid").alias("m")).item(), expected)


def test_query_in_group_by_arm(averaged: Build) -> None:
    build = averaged
    per = per_query(build, DF, ["arm", "qid"])
    got = DF.group_by("arm").agg(build(query="qid").alias("m"))
    for arm, value in got.iter_rows():
        assert close(value, mean_defined([v for (a, _), v in per.items() if a == arm], build))


def test_multi_column_query_ids(averaged: Build) -> None:
    build = averaged
    per = per_query(build, DF, ["arm", "qid"])
    got = DF.select(build(query=["arm", "qid"]).alias("m")).item()
    assert close(got, mean_defined(list(per.values()), build))
    # a query expression works as well as names
    as_expr = DF.select(build(query=[pl.col("arm"), pl.col("qid")]).alias("m")).item()
    assert close(as_expr, got)


def test_query_inside_over(averaged: Build) -> None:
    build = averaged
    expected = dict(DF.group_by("arm").agg(build(query="qid").alias("m")).iter_rows())
    windowed = DF.with_columns(build(query="qid").over("arm").alias("m"))
    for arm, value in windowed.select("arm", "m").iter_rows():
        assert close(value, expected[arm])


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_lazy_and_streaming(build: Build, engine: str) -> None:
    eager = DF.group_by("arm", "qid").agg(build().alias("m")).sort("arm", "qid")
    lazy = (
        DF.lazy().group_by("arm", "qid").agg(build().alias("m")).sort("arm", "qid")
        .collect(engine=engine)  # type: ignore[call-overload]
    )
    for x, y in zip(eager["m"], lazy["m"], strict=True):
        assert close(x, y)
    if any(build is METRICS[name] for name in PER_LIST_ONLY):
        return
    by_arm = DF.lazy().group_by("arm").agg(build(query="qid").alias("m")).sort("arm")
    expected = DF.group_by("arm").agg(build(query="qid").alias("m")).sort("arm")
    for x, y in zip(by_arm.collect(engine=engine)["m"], expected["m"], strict=True):  # type: ignore[call-overload]
        assert close(x, y)


def test_query_metrics_of_one_select_share_one_streaming_node() -> None:
    """``query=`` metrics of one ``select`` on the streaming engine: eager values, and
    one in-memory node for all of them, not one per metric, each hashing the query
    ids again."""
    names = ["ndcg", "map", "precision", "reciprocal_rank", "bpref"]
    exprs = [METRICS[name](query="qid").alias(name) for name in names]
    lazy = DF.lazy().select(exprs)
    streamed = lazy.collect(engine="streaming")
    eager = DF.select(exprs)
    for name in names:
        assert close(streamed[name].item(), eager[name].item()), name
    plan = lazy.show_graph(engine="streaming", plan_stage="physical", raw_output=True)
    assert isinstance(plan, str)
    assert plan.count('label="in-memory-map') <= 1, plan  # none: streamed windows


def test_a_string_per_list_has_no_query_mean() -> None:
    with pytest.raises(ValueError, match="no mean over queries"):
        METRICS["relstring"](query="qid")


def test_namespace_equals_function() -> None:
    for name in ("ndcg", "precision", "map", "mrr", "bpref", "auc", "ctr"):
        fn = getattr(pr, name)
        ns = getattr(pl.col("rel").rank, name)
        a = DF.group_by("arm").agg(fn("rel", by="score", query="qid")).sort("arm")
        b = DF.group_by("arm").agg(ns(by="score", query="qid")).sort("arm")
        assert a.equals(b), name


def test_every_registered_metric_is_covered() -> None:
    covered = {name.split("_by_")[0] for name in METRICS}
    missing = set(pr.metrics.__all__) - covered
    assert not missing


@pytest.mark.parametrize("rank", ["rank", ("lo", "hi")])
def test_rank_correlation_from_positions_in_groups_with_an_unretrieved_list(
        rank: str | tuple[str, str]) -> None:
    """Positions and tie spans, lists not contiguous, one list with no retrieved row
    (Polars 1.36 raised or sorted other lists' rows there: tests/test_workarounds.py)."""
    frame = pl.DataFrame({
        "q": [1, 2, 3, 1, 2, 3, 1, 3, 2, 3],
        "rel": [2, 1, 0, 0, 3, 2, None, 1, 0, 3],
        "rank": [2, None, 1, 1, None, 3, 3, 2, None, None],
        "lo": [2, None, 1, 1, None, 2, 2, 1, None, None],
        "hi": [3, None, 1, 1, None, 3, 3, 1, None, None],
    })
    metric = pr.rank_correlation("rel", rank=rank).alias("m")
    alone = {q: frame.filter(q=q).select(metric).item() for q in (1, 2, 3)}
    assert alone[2] == 1.0  # q2: nothing retrieved
    assert alone[3] != 1.0  # the check can fail
    for data in (frame, frame.reverse()):
        assert dict(data.group_by("q").agg(metric).iter_rows()) == alone
        assert dict(data.select("q", metric.over("q")).unique("q").iter_rows()) == alone


def _interleaved(seed: int = 5) -> pl.DataFrame:
    """Five queries whose rows interleave: positions 1..n (some rows not retrieved),
    labels with unjudged rows, a pool flag, subtopics and document ids."""
    rnd = random.Random(seed)
    rows = []
    for q in range(5):
        n = rnd.randint(2, 7)
        for d in range(n + 2):
            rows.append({"q": q, "doc": f"d{d}", "rel": rnd.choice([None, None, 0, 1, 2, 3]),
                         "rank": d + 1 if d < n and rnd.random() < 0.9 else None,
                         "pooled": rnd.random() < 0.5, "subtopic": d % 2})
    return pl.DataFrame(rnd.sample(rows, len(rows)))


INTERLEAVED = _interleaved()


@pytest.mark.parametrize("spec", ENGINE_SPECS + INTENT_SPECS)
def test_condensed_positions_over_interleaved_queries(spec: str) -> None:
    """``unjudged="condensed"`` with ``rank=`` re-ranks the positions with a ``rank()``:
    in ``.over(q)`` with queries that interleave, each row gets its own query's value
    (Polars 1.36 gave the values in query order: polars_rank._engine.ranked.Ranked.bad and
    tests/test_workarounds.py). A user's ``rank()`` expression as ``rank=`` likewise."""
    metric = parse_metric(spec)
    extra: dict[str, object] = {"pooled": "pooled"} if metric.definition.reads_pool else {}
    if metric.definition.subtopics:
        extra |= {"subtopic": "subtopic", "doc": "doc"}
    queries = sorted(set(INTERLEAVED["q"]))
    distinct: set[str] = set()
    for options in ({"rank": "rank", "unjudged": "condensed"},
                    {"rank": pl.col("rank").rank("ordinal")}):
        built = metric.expr("rel", **options, **extra).alias("m")
        alone = {q: INTERLEAVED.filter(q=q).select(built).item() for q in queries}
        for data in (INTERLEAVED, INTERLEAVED.reverse()):
            over = data.select("q", built.over("q"))
            for q, value in over.iter_rows():
                assert close_or_nan(value, alone[q]), (spec, options, q, value, alone[q])
            grouped = dict(data.group_by("q").agg(built).iter_rows())
            assert all(close_or_nan(grouped[q], alone[q]) for q in queries), (spec, options)
        distinct.update(str(v) for v in alone.values())
    if metric.definition.name != "num_q":  # 1 a query
        assert len(distinct) > 1, f"{spec}: every query the same value, the check cannot fail"
