"""optimize_fusion picks ranx's parameters; every combination's score is its fused run's.

ranx 0.3.21 (installed; AmenRa/ranx commit 2cae52f) has no unit tests of
``optimize_fusion``, so the comparisons call ``ranx.optimize_fusion`` itself, with
its optimisation report (every combination's score, in its order): on ranx's fusion
fixtures (``tests/unit/ranx/fusion/comb_sum_test.py``'s runs) and on random runs.

Where ranx's number depends on more than the runs, a combination's score is not
compared: equal fused scores of documents with different labels within the metric's
cutoff (ranx orders them by an unstable NumPy sort of its fused run, polars-rank by
doc id as trec_eval), and weighted Condorcet where the majority relation is not an
order (see test_fusion.py). The chosen parameters are compared whenever every score
was; the count of those cases is asserted, so that the comparison cannot go vacuous.

ranx's answers are recorded (``python tests/record_ranx.py``, the cases in
tests/ranx_cases.py, the answers in tests/fixtures/ranx_*.json) and compared by default;
the same comparisons with ranx itself, the hypothesis search among them, run with
``POLARS_RANK_LIVE_RANX=1`` (``make test-ranx``: after upgrading ranx or changing fusion).
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from ranx_cases import FIXTURE_QRELS, RUN_1, RUN_2, RUN_3, live_ranx, optimize_cases, recorded_case
from ranx_cases import long as _long
from ranx_cases import random_optimization as _random_case
from test_fusion import _condorcet_is_an_order

import polars_rank as pr
from polars_rank.fusion import optimization_grid
from polars_rank.fusion._grid import OPTIMIZABLE, SCALAR, WEIGHTED


# ------------------------------------------------------------------- the grids
@pytest.mark.parametrize("step", [0.1, 0.05, 0.2, 0.25, 0.3, 0.125, 0.15, 0.02, 0.01])
def test_weight_grids_are_ranx_s(step: float) -> None:
    pytest.importorskip("ranx")
    from ranx.fusion_optimization.optimize_weights import get_possible_weights, get_trial_configs

    for n in (2, 3, 4):
        if step < 0.05 and n > 3:
            continue
        expected = get_trial_configs(get_possible_weights(step), n)
        got = optimization_grid("wsum", n, step=step)
        assert got == [tuple(float(w) for w in c) for c in expected]


@pytest.mark.parametrize("step", [0.01, 0.02, 0.03, 0.05, 0.07, 0.1, 0.2, 0.3, 0.001])
@pytest.mark.parametrize("low", [0.01, 0.0, 0.05])
def test_scalar_grids_are_ranx_s(step: float, low: float) -> None:
    # ranx/fusion_optimization/optimize_rbc.py (and _comb_gmnz, _logn_isr), verbatim
    rounding_digits = str(step)[::-1].find(".")
    trials = [round(x, rounding_digits) for x in np.arange(low, 1.0 + step, step)]
    assert optimization_grid("rbc", 2, min_phi=low, step=step) == trials
    assert optimization_grid("gmnz", 2, min_gamma=low, step=step) == trials
    assert optimization_grid("logn_isr", 3, min_sigma=low, step=step) == trials


def test_rrf_grid() -> None:
    assert optimization_grid("rrf", 2) == list(range(10, 101, 10))
    assert optimization_grid("rrf", 2, min_k=1, max_k=7, step=3) == [1, 4, 7]


# ------------------------------------------------------------------- against ranx
def _qrels_dict(qrels: pl.DataFrame) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for q, d, r in qrels.select("qid", "docid", "rel").iter_rows():
        out.setdefault(q, {})[d] = r
    return out


def _ranx_runs(frame: pl.DataFrame, systems: list[Any]) -> list[Any]:
    out = []
    for system in systems:
        d: dict[str, dict[str, float]] = {}
        for q, doc, s in frame.filter(pl.col("system") == system).select(
                "qid", "docid", "score").iter_rows():
            d.setdefault(q, {})[doc] = s
        out.append(pytest.importorskip("ranx").Run(d))
    return out


def _ranx_optimize(frame: pl.DataFrame, qrels: pl.DataFrame, systems: list[Any], method: str,
                   norm: str | None, metric: str, grid: dict[str, Any]
                   ) -> tuple[dict[str, Any], list[str], list[float]]:
    ranx = pytest.importorskip("ranx")
    with warnings.catch_warnings():  # numba's warnings, compiling ranx
        warnings.simplefilter("ignore")
        best, report = ranx.optimize_fusion(
            ranx.Qrels(_qrels_dict(qrels)), _ranx_runs(frame, systems), norm=norm,
            method=method, metric=metric, return_optimization_report=True,
            show_progress=False, **grid)
    return best, list(report.configs), [float(v) for v in report.results]


def _optimistic(fused: pl.DataFrame, qrels: pl.DataFrame, metric: str) -> float | None:
    """The metric's mean with the relevant documents first among equal fused scores,
    if the order of equal scores changes it on some query (else None): every order of
    them, ranx's too, scores at most this."""
    best, worst = (pr.evaluate(fused, qrels, [metric], dialect="ranx", per_query=True,
                               ties=ties).sort("qid")[metric]
                   for ties in ("optimistic", "pessimistic"))
    if np.allclose(best.to_numpy(), worst.to_numpy(), rtol=1e-12, atol=1e-12):
        return None
    return float(best.mean())  # type: ignore[arg-type]


def _compare(frame: pl.DataFrame, qrels: pl.DataFrame, systems: list[Any], method: str,
             norm: str | None, metric: str, grid: dict[str, Any],
             recorded: dict[str, Any] | None = None) -> tuple[int, bool]:
    """Compare with ranx.optimize_fusion, or its ``recorded`` answer (ranx_cases.py):
    (scores compared, the choice compared).

    The choice is compared when every combination's score was, or when those that were
    not (ties) cannot reach the best compared one even with the most favourable order.
    """
    if recorded is None:
        best, configs, results = _ranx_optimize(frame, qrels, systems, method, norm, metric,
                                                grid)
    else:  # the weights' configurations were counted, not recorded
        best, results = recorded["best"], recorded["results"]
        configs = recorded["configs"] or [None] * len(results)
    ours = pr.optimize_fusion(frame, qrels, method, metric=metric, norm=norm, grid=grid,
                              dialect="ranx")
    name = "weights" if method in WEIGHTED else SCALAR[method][0]
    values = ours.scores[name].to_list()
    assert len(values) == len(configs) == len(results)
    if method not in WEIGHTED:
        assert [str(v) for v in values] == configs
    compared, reachable, top = 0, -math.inf, -math.inf
    for value, theirs, score in zip(values, results, ours.scores["train"], strict=True):
        params = {name: dict(zip(systems, value, strict=True)) if name == "weights"
                  else value}
        fused = pr.fuse(frame, method, norm=norm, params=params)
        # every combination's score is its fused run's, ties or not
        alone = pr.evaluate(fused, qrels, [metric], dialect="ranx").item()
        assert score == pytest.approx(alone, rel=1e-12, abs=1e-12), (method, value)
        if method == "w_condorcet" and not _condorcet_is_an_order(frame, systems, norm, value):
            reachable = math.inf  # ranx's order is its sort's: any score
            continue
        optimistic = _optimistic(fused, qrels, metric)
        if optimistic is not None:
            reachable = max(reachable, optimistic)
            continue
        assert score == pytest.approx(theirs, rel=1e-9, abs=1e-12), (method, value, metric)
        compared += 1
        top = max(top, score)
    if compared < len(values) and not reachable < top - 1e-9:
        return compared, False
    expected = best[name]
    got = ours.params[name]
    if name == "weights":
        assert [got[s] for s in systems] == pytest.approx([float(w) for w in expected])
    else:
        assert got == expected, (method, metric, ours.scores)
    return compared, True


@pytest.mark.parametrize("method", OPTIMIZABLE)
def test_ranx_fixtures_default_grid_recorded(method: str) -> None:
    """comb_sum_test.py's three runs, ranx's default grid and metric (ndcg), against
    ranx.optimize_fusion's recorded report (tests/record_ranx.py)."""
    name = f"fixtures-{method}"
    case = optimize_cases()[name]
    _compare(case["frame"], case["qrels"], case["systems"], method, case["norm"],
             case["metric"], case["grid"], recorded_case("optimize", name))


@pytest.mark.parametrize("method", OPTIMIZABLE)
def test_random_runs_against_recorded_ranx(method: str) -> None:
    """Twelve seeded random cases (ranx_cases.random_optimization), small grids, every
    metric of ranx_cases.OPTIMIZATION_METRICS; ranx's reports recorded."""
    chosen = scores = 0
    for i in range(12):
        name = f"random-{method}-{i}"
        case = optimize_cases()[name]
        compared, picked = _compare(case["frame"], case["qrels"], case["systems"], method,
                                    case["norm"], case["metric"], case["grid"],
                                    recorded_case("optimize", name))
        scores += compared
        chosen += picked
    assert chosen >= 2, f"{method}: the choice was compared {chosen} times"
    assert scores >= 40, f"{method}: {scores} combinations compared"


# ----------------------------------------- against ranx itself (POLARS_RANK_LIVE_RANX=1)
@live_ranx
@pytest.mark.parametrize("method", OPTIMIZABLE)
def test_ranx_fixtures_default_grid(method: str) -> None:
    """comb_sum_test.py's three runs, ranx's default grid and metric (ndcg)."""
    _compare(_long([RUN_1, RUN_2, RUN_3]), FIXTURE_QRELS, [0, 1, 2], method, "min-max", "ndcg",
             {})


@live_ranx
@pytest.mark.parametrize("method", OPTIMIZABLE)
def test_random_runs_against_ranx(method: str) -> None:
    """The cases of test_random_runs_against_recorded_ranx, against ranx itself."""
    chosen = scores = 0
    for i in range(12):
        case = optimize_cases()[f"random-{method}-{i}"]
        compared, picked = _compare(case["frame"], case["qrels"], case["systems"], method,
                                    case["norm"], case["metric"], case["grid"])
        scores += compared
        chosen += picked
    assert chosen >= 2, f"{method}: the choice was compared {chosen} times"
    assert scores >= 40, f"{method}: {scores} combinations compared"


# ------------------------------------------------------------------- the API
def _hybrid() -> tuple[dict[str, pl.DataFrame], pl.DataFrame]:
    frame, qrels, _ = _random_case(np.random.default_rng(7))
    runs = {f"s{s}": frame.filter(pl.col("system") == s).drop("system")
            for s in frame["system"].unique().sort()}
    return runs, qrels


def test_train_queries_choose_on_them_and_test_scores_the_others() -> None:
    runs, qrels = _hybrid()
    queries = sorted(qrels["qid"].unique())
    train = queries[: len(queries) // 2 + 1]
    got = pr.optimize_fusion(runs, qrels, "rrf", metric="ndcg@5", train_queries=train)
    only_train = pr.optimize_fusion({s: r.filter(pl.col("qid").is_in(train))
                                     for s, r in runs.items()}, qrels, "rrf", metric="ndcg@5")
    assert got.params == only_train.params
    assert got.scores["train"].to_list() == pytest.approx(only_train.scores["train"].to_list())
    for k, test in got.scores.select("k", "test").iter_rows():
        fused = pr.fuse(runs, "rrf", params={"k": k}).filter(~pl.col("qid").is_in(train))
        assert test == pytest.approx(pr.evaluate(fused, qrels, ["ndcg@5"]).item(), rel=1e-12)
    assert got.best.row(0, named=True)["k"] == got.params["k"]


def test_train_fraction_is_a_seeded_draw_of_queries() -> None:
    runs, qrels = _hybrid()
    a = pr.optimize_fusion(runs, qrels, "rbc", grid=[0.5, 0.8], train_fraction=0.5, seed=1)
    b = pr.optimize_fusion(runs, qrels, "rbc", grid=[0.5, 0.8], train_fraction=0.5, seed=1)
    assert a.scores.equals(b.scores)
    assert a.scores["test"].null_count() == 0
    every = pr.optimize_fusion(runs, qrels, "rbc", grid=[0.5, 0.8])
    assert every.scores["test"].null_count() == 2
    with pytest.raises(ValueError, match="not both"):
        pr.optimize_fusion(runs, qrels, "rrf", train_queries=["q0"], train_fraction=0.5)
    with pytest.raises(ValueError, match="train_fraction"):
        pr.optimize_fusion(runs, qrels, "rrf", train_fraction=0.0)
    with pytest.raises(ValueError, match="none of them"):
        pr.optimize_fusion(runs, qrels, "rrf", train_queries=["nope"])


def test_every_input_form_gives_the_same_choice() -> None:
    runs, qrels = _hybrid()
    names = list(runs)
    as_dict = pr.optimize_fusion(runs, qrels, "wsum", grid={"step": 0.25})
    as_list = pr.optimize_fusion(list(runs.values()), qrels, "wsum", grid={"step": 0.25})
    frame = pl.concat([r.with_columns(system=pl.lit(s)) for s, r in runs.items()])
    as_frame = pr.optimize_fusion(frame.lazy(), qrels.lazy(), "wsum", grid={"step": 0.25})
    assert as_dict.scores.equals(as_list.scores)
    assert as_dict.scores.equals(as_frame.scores)
    assert isinstance(as_frame.params["weights"], dict)
    assert [as_frame.params["weights"][s] for s in names] == as_dict.params["weights"]
    # an explicit grid, by system
    explicit = [dict(zip(names, w, strict=True)) for w in as_dict.scores["weights"].to_list()]
    assert pr.optimize_fusion(runs, qrels, "wsum", grid=explicit).scores.equals(as_dict.scores)
    # the chosen parameters fuse the chosen run
    fused = pr.fuse(runs, "wsum", params=as_dict.params)
    assert pr.evaluate(fused, qrels, ["ndcg@10"]).item() == pytest.approx(
        as_dict.best["train"].item(), rel=1e-12)


def test_equal_scores_choose_the_last_as_ranx() -> None:
    runs, qrels = _hybrid()
    got = pr.optimize_fusion(runs, qrels, "rrf", grid=[60, 60, 60, 10, 60])
    scores = got.scores["train"].to_list()
    best = max(scores)
    assert got.best["combination"].item() == max(i for i, s in enumerate(scores) if s == best)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"method": "sum"}, ValueError, "no parameter to optimise"),
    ({"method": "rrf", "grid": {"step": 1, "k": 3}}, ValueError, "takes min_k"),
    ({"method": "wsum", "grid": [(0.5, 0.5, 0.0)]}, ValueError, "needs 2 weights"),
    ({"method": "wsum", "grid": [{"a": 1.0}]}, ValueError, "the systems are"),
    ({"method": "rbc", "grid": [1.5]}, ValueError, "phi must be in"),
    ({"method": "rrf", "grid": []}, ValueError, "at least one"),
    ({"method": "rrf", "grid": {"step": 0}}, ValueError, "positive"),
    ({"method": "rrf", "metric": ["ndcg"]}, TypeError, "one metric"),
    ({"method": "rrf", "norm": "nope"}, ValueError, "norm must be"),
])
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    runs, qrels = _hybrid()
    runs = dict(itertools.islice(runs.items(), 2))
    with pytest.raises(error, match=match):
        pr.optimize_fusion(runs, qrels, **kwargs)


# ------------------------------------------------------------------- compare_fusion
@pytest.mark.parametrize(("method", "params", "options"), [
    ("rrf", None, {}),
    ("wsum", {"weights": [0.3, 0.7, 0.0]}, {"test": "randomization", "correction": "bh",
                                            "n_resamples": 500}),
    ("mnz", None, {"test": "wilcoxon", "alternative": "less"}),
])
def test_compare_fusion_is_fuse_evaluate_compare(method: str, params: dict[str, Any] | None,
                                                 options: dict[str, Any]) -> None:
    frame, qrels, _ = _random_case(np.random.default_rng(11))
    runs = {f"s{s}": frame.filter(pl.col("system") == s).drop("system") for s in range(3)
            if s in frame["system"]}
    if params and len(runs) < 3:
        params = {"weights": params["weights"][: len(runs)]}
    metrics = ["ndcg@5", "map", "P@3"]
    got = pr.compare_fusion(runs, qrels, method, params=params, metrics=metrics, **options)
    fused = pr.fuse(runs, method, params=params).with_columns(system=pl.lit("fused"))
    every = pl.concat([*(r.with_columns(system=pl.lit(s)) for s, r in runs.items()),
                       fused.drop("rank")], how="diagonal")
    per = pr.evaluate(every, qrels, metrics, group_by="system", per_query=True)
    expected = pr.compare(per, arm="system", baseline="fused", metrics=metrics, **options)
    assert got.equals(expected)
    assert got.height == len(metrics) * len(runs)
    assert set(got["baseline"]) == {"fused"}
    assert (got["p_adjusted"] >= got["p_value"]).all()


def test_compare_fusion_arguments() -> None:
    runs, qrels = _hybrid()
    as_list = pr.compare_fusion(list(runs.values()), qrels, metrics="mrr", name="rrf")
    assert set(as_list["system"]) == {str(i) for i in range(len(runs))}
    assert set(as_list["baseline"]) == {"rrf"}
    with pytest.raises(ValueError, match="is the name of one of the runs"):
        pr.compare_fusion(runs, qrels, name="s0")
    with pytest.raises(TypeError, match="sets compare"):
        pr.compare_fusion(runs, qrels, baseline="s0")


def test_rrf_k_may_be_fractional() -> None:
    runs, qrels = _hybrid()
    got = pr.optimize_fusion(runs, qrels, "rrf", grid=[0.5, 60])
    assert got.scores["k"].dtype == pl.Float64
    fused = pr.fuse(runs, "rrf", params={"k": 0.5})
    assert got.scores["train"][0] == pytest.approx(
        pr.evaluate(fused, qrels, ["ndcg@10"]).item(), rel=1e-12)
