"""Fusion and normalisation equal ranx's, on ranx's own test cases and on random runs.

The expected values of the first tests are transcribed from ranx's unit tests
(AmenRa/ranx commit 2cae52f, ``tests/unit/ranx/fusion/<method>_test.py`` and
``tests/unit/ranx/normalization/<norm>_test.py``), which call the fusion functions on
raw scores (``norm=None`` here). The others call ``ranx.fuse`` (0.3.21, installed) on
the same runs and compare every fused score (to 1e-9) and the ranking.

Where ranx's answer depends on more than the runs, the comparison is skipped, and the
docs say so: ranx sorts each run with NumPy's unstable quicksort, so equal scores keep
their input order only in lists of up to 15 documents (the random runs here are that
short); after ``norm="borda"`` its runs are in the order of a Python set, which only
the methods on scores ignore; Condorcet's comparison sort depends on the set order
of the candidates unless the majority relation is an order. Two ranx bugs are kept
out of the random runs: document ids longer than those of the first run are truncated
(``d10`` becomes ``d1``; the ids here have one length), and ``zmuv`` of a run with an
empty list for a query loses the documents of other queries (skipped then).

ranx's answers are recorded (``python tests/record_ranx.py``, the cases in
tests/ranx_cases.py, the answers in tests/fixtures/ranx_*.json) and compared by default;
the same comparisons with ranx itself, the hypothesis search among them, run with
``POLARS_RANK_LIVE_RANX=1`` (``make test-ranx``: after upgrading ranx or changing fusion).
"""

from __future__ import annotations

import itertools
import math
import warnings
from functools import cache
from typing import Any

import numpy as np
import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from ranx_cases import (
    RANDOM_RUNS,
    RUN_1,
    RUN_2,
    RUN_3,
    WEIGHTS,
    fuse_cases,
    fused_dict,
    live_ranx,
    norm_key,
    recorded_case,
)
from ranx_cases import long as _long

import polars_rank as pr
from polars_rank.errors import InvalidDataError
from polars_rank.fusion import METHODS, NORMS

UNTRAINED = [m for m in METHODS if not METHODS[m].trained]  # trained: test_fusion_trained

# ------------------------------------------------------------------- ranx's fixtures
# RUN_1, RUN_2, RUN_3 (comb_sum_test.py) and WEIGHTS: tests/ranx_cases.py
# tests/unit/ranx/fusion/rbc_test.py
RBC_RUNS = [{"q1": {"A": 7, "D": 6, "B": 5, "C": 4, "G": 3, "F": 2}},
            {"q1": {"B": 7, "D": 6, "E": 5, "C": 4}},
            {"q1": {"A": 7, "B": 6, "D": 5, "C": 4, "G": 3, "F": 2, "E": 1}},
            {"q1": {"G": 7, "D": 6, "E": 5, "A": 4, "F": 3, "C": 2}}]
# tests/unit/ranx/fusion/condorcet_test.py
CONDORCET_RUNS = [{"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}},
                  {"q1": {"d1": 2, "d2": 3}, "q2": {"d1": 1, "d3": 3}},
                  {"q1": {"d3": 3}, "q2": {"d2": 2, "d3": 3}}]
log, sq = math.log, math.sqrt


def _pairs(values: dict[str, list[float]]) -> dict[tuple[str, str], float]:
    docs = ["d1", "d2", "d3"]
    return {(q, d): v for q, row in values.items() for d, v in zip(docs, row, strict=True)}


# method, params, {qid: [d1, d2, d3]}, as ranx's tests assert them
TRANSCRIBED: list[tuple[str, dict[str, Any], dict[str, list[float]]]] = [
    ("sum", {}, {"q1": [1 + 3, 2 + 2, 3 + 1], "q2": [1 + 1, 2 + 2, 3 + 3]}),
    ("anz", {}, {"q1": [2, 2, 2], "q2": [1, 2, 3]}),
    ("mnz", {}, {"q1": [8, 8, 8], "q2": [4, 8, 12]}),
    ("gmnz", {"gamma": 1.0}, {"q1": [8, 8, 8], "q2": [4, 8, 12]}),  # = mnz
    ("gmnz", {"gamma": 0.0}, {"q1": [4, 4, 4], "q2": [2, 4, 6]}),  # = sum
    ("max", {}, {"q1": [3, 2, 3], "q2": [1, 2, 3]}),
    ("min", {}, {"q1": [1, 2, 1], "q2": [1, 2, 3]}),
    ("med", {}, {"q1": [2, 2, 2], "q2": [1, 2, 3]}),
    ("rrf", {}, {"q1": [1 / 63 + 1 / 61, 2 / 62, 2 / 61], "q2": [2 / 62, 1 / 61 + 1 / 62,
                                                                  2 / 61]}),
    ("isr", {}, {"q1": [(1 / 9 + 1) * 2, (1 / 4 + 1 / 4) * 2, 4],
                 "q2": [(1 / 4 + 1 / 4) * 2, (1 + 1 / 4) * 2, 4]}),
    ("log_isr", {}, {"q1": [(1 / 9 + 1) * log(2), 0.5 * log(2), 2 * log(2)],
                     "q2": [0.5 * log(2), 1.25 * log(2), 2 * log(2)]}),
    ("logn_isr", {"sigma": 0.1}, {"q1": [(1 / 9 + 1) * log(2.1), 0.5 * log(2.1), 2 * log(2.1)],
                                  "q2": [0.5 * log(2.1), 1.25 * log(2.1), 2 * log(2.1)]}),
    ("bordafuse", {}, {"q1": [1 + 3 + 1.5, 2 + 2 + 1.5, 3 + 1 + 3],
                       "q2": [2 + 2 + 1, 3 + 1 + 2, 1 + 3 + 3]}),
    ("wsum", {"weights": WEIGHTS}, {"q1": [0.3 * 1 + 0.2 * 3, 0.3 * 2 + 0.2 * 2,
                                           0.3 * 3 + 0.5 * 1],
                                    "q2": [0.3 + 0.2, 0.3 * 2 + 0.5 * 2, 0.2 * 3 + 0.5 * 3]}),
    ("wmnz", {"weights": [1, 1, 1]}, {"q1": [8, 8, 8], "q2": [4, 8, 12]}),
    ("wmnz", {"weights": WEIGHTS}, {"q1": [4 * 0.5, 4 * 0.5, 4 * 0.8],
                                    "q2": [2 * 0.5, 4 * 0.8, 6 * 0.7]}),
    ("mixed", {"weights": [1, 1, 1]}, {"q1": [4 * sq(2), 4 * sq(2), 4 * sq(2)],
                                       "q2": [2 * sq(2), 4 * sq(2), 6 * sq(2)]}),
    ("mixed", {"weights": WEIGHTS}, {"q1": [(0.3 + 0.6) * sq(2), (0.6 + 0.4) * sq(2),
                                            (0.9 + 0.5) * sq(2)],
                                     "q2": [0.5 * sq(2), 1.6 * sq(2), 2.1 * sq(2)]}),
]


def _as_dict(fused: pl.DataFrame) -> dict[tuple[str, str], float]:
    return {(q, d): s for q, d, s in fused.select("qid", "docid", "score").iter_rows()}


@pytest.mark.parametrize(("method", "params", "expected"), TRANSCRIBED,
                         ids=[f"{m}-{p}" for m, p, _ in TRANSCRIBED])
def test_ranx_unit_tests(method: str, params: dict[str, Any],
                         expected: dict[str, list[float]]) -> None:
    runs = [RUN_1, RUN_2, RUN_3]
    by_system = {k: dict(enumerate(v)) if k == "weights" else v for k, v in params.items()}
    for data, p in ((runs, params), (_long(runs), by_system)):
        fused = pr.fuse(data, method, norm=None, params=p)
        assert isinstance(fused, pl.DataFrame)
        got = _as_dict(fused)
        assert got.keys() == _pairs(expected).keys()
        for key, value in _pairs(expected).items():
            assert got[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


def test_ranx_bordafuse_no_result_query() -> None:
    """bordafuse_test.py: a query no run returned anything for is left out."""
    runs = [{"q1": RUN_1["q1"]}, {"q1": RUN_2["q1"]}, {"q1": RUN_3["q1"]}]
    got = _as_dict(pr.fuse(runs, "bordafuse", norm=None))
    assert got == {("q1", "d1"): 5.5, ("q1", "d2"): 5.5, ("q1", "d3"): 7.0}


@pytest.mark.parametrize(("phi", "expected"), [
    (0.6, {"A": 0.89, "D": 0.86, "B": 0.78, "G": 0.50, "E": 0.31, "C": 0.29, "F": 0.11}),
    (0.8, {"D": 0.61, "A": 0.50, "B": 0.49, "C": 0.37, "G": 0.36, "E": 0.31, "F": 0.21}),
    (0.9, {"D": 0.35, "C": 0.28, "A": 0.27, "B": 0.27, "G": 0.23, "E": 0.22, "F": 0.18}),
])
def test_ranx_rbc(phi: float, expected: dict[str, float]) -> None:
    fused = pr.fuse(RBC_RUNS, "rbc", norm=None, params={"phi": phi})
    got = {d: round(s, 2) for _, d, s in fused.select("qid", "docid", "score").iter_rows()}
    assert got == expected
    assert fused["rank"].to_list() == list(range(1, 8))


def test_ranx_condorcet() -> None:
    fused = pr.fuse(CONDORCET_RUNS, "condorcet", norm=None)
    assert _as_dict(fused) == _pairs({"q1": [1, 2, 3], "q2": [1, 2, 3]})
    assert fused["docid"].to_list() == ["d3", "d2", "d1"] * 2


def test_ranx_borda_norm() -> None:
    """normalization/borda_norm_test.py."""
    got = pr.fusion.normalize([RUN_1, RUN_2, RUN_3], "borda")
    expected = [[1, 2, 3, 2, 3, 1], [3, 2, 1, 2, 1, 3], [1.5, 1.5, 3, 1, 2, 3]]
    for system, values in enumerate(expected):
        rows = got.filter(pl.col("system") == system).sort("qid", "docid")
        assert rows["score"].to_list() == pytest.approx([v / 3 for v in values])


# ------------------------------------------------------------------- against ranx.fuse
def _canonical(rows: pl.DataFrame) -> pl.DataFrame:
    """Each list in polars-rank's order: by score, then doc id, both descending."""
    return rows.sort("score", "docid", descending=True, maintain_order=True)


def _ranx_runs(frame: pl.DataFrame, systems: list[Any]) -> list[Any]:
    """One ranx Run per system, every query present, each list in polars-rank's order.

    ranx keeps equal scores in input order in lists of up to 15 documents, and
    polars-rank ranks them by doc id, descending (no result depends on the order of
    the rows): given in that order, ranx's ranks are polars-rank's.
    """
    ranx = pytest.importorskip("ranx")
    queries = frame["qid"].unique(maintain_order=True).to_list()
    out = []
    for system in systems:
        rows = _canonical(frame.filter(pl.col("system") == system))
        d: dict[str, dict[str, float]] = {q: {} for q in queries}
        for q, doc, s in rows.select("qid", "docid", "score").iter_rows():
            d[q][doc] = s
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(ranx.Run(d))
    return out


def _ranx_fuse(frame: pl.DataFrame, systems: list[Any], method: str, norm: str | None,
               params: dict[str, Any]) -> dict[tuple[str, str], float]:
    with warnings.catch_warnings():  # numba's type-safety warnings, compiling ranx
        warnings.simplefilter("ignore")
        fused = pytest.importorskip("ranx").fuse(_ranx_runs(frame, systems), norm=norm,
                                                 method=method,
                          params=params)
    return {(q, d): float(s) for q, docs in fused.to_dict().items() for d, s in docs.items()}


def _condorcet_is_an_order(frame: pl.DataFrame, systems: list[Any], norm: str | None,
                           weights: list[float]) -> bool:
    """Whether ranx's Condorcet comparison is a strict order on every query."""
    normalized = pr.fusion.normalize(frame, norm) if norm else frame
    for _, rows in frame.group_by("qid"):
        position = {}
        for system in systems:
            # ranx's order: by raw score (stable), min-max-inverted sorted again (stable)
            docs = _canonical(rows.filter(pl.col("system") == system))
            if norm == "min-max-inverted":
                docs = docs.drop("score").join(normalized, on=["system", "qid", "docid"],
                                               maintain_order="left")
                docs = docs.sort("score", descending=True, maintain_order=True)
            position[system] = {d: i for i, d in enumerate(docs["docid"])}
        candidates = rows["docid"].unique().to_list()

        def before(a: str, b: str, position: dict[Any, dict[str, int]] = position) -> bool:
            pro = sum(w for s, w in zip(systems, weights, strict=True)
                      if position[s].get(a, 10**6) < position[s].get(b, 10**6))
            return pro >= sum(weights) - pro
        for a in candidates:
            for b in candidates:
                if a != b and before(a, b) == before(b, a):
                    return False
                for c in candidates:
                    if len({a, b, c}) == 3 and before(a, b) and before(b, c) \
                            and not before(a, c):
                        return False
    return True


def _skip(method: str, norm: str | None) -> bool:
    """ranx's result depends on a set's order: nothing to compare with."""
    return norm == "borda" and METHODS[method].rank_based


def _params_for(method: str, weights: list[float]) -> dict[str, Any]:
    return {"gmnz": {"gamma": 0.7}, "rbc": {"phi": 0.8}, "rrf": {"k": 10},
            "logn_isr": {"sigma": 0.3}}.get(method, {"weights": weights}
                                            if METHODS[method].weighted else {})


def _ranx_defined(frame: pl.DataFrame, systems: list[Any], method: str,
                  norm: str | None) -> bool:
    """Whether ranx's answer is defined by the runs (tests/record_ranx.py records it)."""
    if len(systems) < 2 or _skip(method, norm):
        return False
    every_list = frame.select("system", "qid").unique().height == (
        len(systems) * frame["qid"].n_unique())
    # ranx's zmuv of an empty list (np.mean of nothing) loses other queries
    return not (norm == "zmuv" and not every_list)


def _check(frame: pl.DataFrame, systems: list[Any], method: str, norm: str | None,
           weights: list[float], recorded: dict[str, Any] | None = None) -> bool:
    """Compare with ranx.fuse, or with its ``recorded`` answers (ranx_cases.py): False
    when ranx's answer is not defined by the runs."""
    if not _ranx_defined(frame, systems, method, norm):
        return False
    if METHODS[method].agg is None and not _condorcet_is_an_order(
            frame, systems, norm, weights if METHODS[method].weighted else [1.0] * len(systems)):
        return False
    params = _params_for(method, weights)
    if recorded is None:
        expected = _ranx_fuse(frame, systems, method, norm, params)
    else:
        key = f"{method}|{norm_key(norm)}"
        assert key in recorded, f"{key} not recorded: run python tests/record_ranx.py"
        expected = fused_dict(recorded[key])
    fused = pr.fuse(frame, method, norm=norm, params={
        k: dict(zip(systems, v, strict=True)) if k == "weights" else v
        for k, v in params.items()})
    assert isinstance(fused, pl.DataFrame)
    got = _as_dict(fused)
    assert got.keys() == expected.keys(), (method, norm)
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=1e-9, abs_tol=1e-9), (method, norm, key,
                                                                            got[key], value)
    # the same ranking: ranx's scores, in our rank order, never increase
    for (_,), rows in fused.group_by("qid"):
        theirs = [expected[(q, d)] for q, d in rows.sort("rank").select("qid", "docid")
                  .iter_rows()]
        assert all(a >= b - 1e-9 for a, b in itertools.pairwise(theirs))
    assert fused.group_by("qid").agg(ok=(pl.col("rank").sort() == pl.int_range(1, pl.len() + 1))
                                     .all())["ok"].all()
    return True


CASES = [(m, n) for m in UNTRAINED for n in (None, *NORMS)]


@pytest.mark.parametrize(("method", "norm"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_ranx_fixtures_against_recorded_ranx(method: str, norm: str | None) -> None:
    """ranx.fuse's answers on its fixture runs, recorded (tests/record_ranx.py)."""
    case = fuse_cases()["fixtures"]
    checked = _check(case["frame"], [0, 1, 2], method, norm, WEIGHTS,
                     recorded_case("fuse", "fixtures")["fused"])
    assert checked or _skip(method, norm) or METHODS[method].agg is None


@pytest.mark.parametrize("norm", [None, *NORMS])
def test_random_runs_against_recorded_ranx(norm: str | None) -> None:
    """ranx.fuse's answers on the seeded random runs of ranx_cases.random_runs (what
    the strategy ``runs`` below draws), recorded; every method."""
    cases = fuse_cases()
    compared, count = 0, min(examples(RANDOM_RUNS), RANDOM_RUNS)
    for i in range(count):
        name = f"random-{norm_key(norm)}-{i}"
        case, recorded = cases[name], recorded_case("fuse", name)["fused"]
        for method in UNTRAINED:
            compared += _check(case["frame"], case["systems"], method, norm, case["weights"],
                               recorded)
    # zmuv: ranx's answer is defined on every other case (lists all non-empty); borda:
    # for the 10 methods on scores (19 compared, 10 after borda, on a case at full)
    assert compared >= 5 * count, compared


def test_recorded_random_runs_compare_something() -> None:
    """The random comparison is not vacuous: Condorcet is compared on ordered cases."""
    cases = fuse_cases()
    compared = 0
    for i in range(10):  # three runs of the same five documents: a majority is an order
        case = cases[f"ordered-{i}"]
        compared += _check(case["frame"], [0, 1, 2], "condorcet", "min-max", [1.0] * 3,
                           recorded_case("fuse", f"ordered-{i}")["fused"])
    assert compared >= 3


# ----------------------------------------- against ranx itself (POLARS_RANK_LIVE_RANX=1)
@live_ranx
@pytest.mark.parametrize(("method", "norm"), CASES, ids=[f"{m}-{n}" for m, n in CASES])
def test_ranx_fixtures_against_ranx(method: str, norm: str | None) -> None:
    frame = _long([RUN_1, RUN_2, RUN_3])
    checked = _check(frame, [0, 1, 2], method, norm, WEIGHTS)
    assert checked or _skip(method, norm) or METHODS[method].agg is None


@cache
def _compiled() -> None:
    """ranx compiles its functions on first use: once, outside hypothesis's deadline."""
    frame = _long([RUN_1, RUN_2, RUN_3])
    for method in UNTRAINED:
        _ranx_fuse(frame, [0, 1, 2], method, None, _params_for(method, WEIGHTS))


@st.composite
def runs(draw: st.DrawFn) -> tuple[pl.DataFrame, list[int], list[float]]:
    """2-4 systems, 1-3 queries, up to 15 documents per list (ties keep input order
    in ranx: _ranx_runs gives them in polars-rank's order), scores from a few values
    (ties) or continuous, documents missing from some systems and queries missing
    from some systems."""
    n_systems = draw(st.integers(2, 4))
    # ids of one length: ranx truncates ids longer than the first run's (d10 -> d1)
    pool = [f"d{i:02}" for i in range(draw(st.integers(1, 20)))]
    tied = draw(st.booleans())
    score = (st.sampled_from([0.0, 1.0, 2.0, 5.0, -3.0]) if tied
             else st.floats(-50, 50, allow_nan=False, allow_infinity=False))
    rows = []
    for system in range(n_systems):
        for q in range(draw(st.integers(1, 3))):
            docs = draw(st.lists(st.sampled_from(pool), max_size=15, unique=True))
            rows += [{"system": system, "qid": f"q{q}", "docid": d, "score": draw(score)}
                     for d in docs]
    frame = pl.DataFrame(rows, schema={"system": pl.Int64, "qid": pl.String,
                                       "docid": pl.String, "score": pl.Float64})
    systems = sorted(set(frame["system"].to_list()))
    weights = draw(st.lists(st.floats(0.05, 2.0), min_size=len(systems),
                            max_size=len(systems)))
    return frame, systems, weights


@live_ranx
@pytest.mark.parametrize("norm", [None, *NORMS])
@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=runs())
def test_random_runs_against_ranx(norm: str | None,
                                  data: tuple[pl.DataFrame, list[int], list[float]]) -> None:
    frame, systems, weights = data
    if len(systems) < 2:
        return
    _compiled()
    for method in UNTRAINED:
        _check(frame, systems, method, norm, weights)


@live_ranx
def test_random_runs_compare_something() -> None:
    """The random comparison is not vacuous: Condorcet is compared on ordered cases."""
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(10):  # three runs of the same five documents: a majority is an order
        rows = [{"system": s, "qid": "q", "docid": f"d{d:02}", "score": float(rng.random())}
                for s in range(3) for d in range(5)]
        frame = pl.DataFrame(rows)
        compared += _check(frame, [0, 1, 2], "condorcet", "min-max", [1.0] * 3)
    assert compared >= 3


# ------------------------------------------------------------------- the API
def test_lazy_in_lazy_out_and_every_input_form() -> None:
    frame = _long([RUN_1, RUN_2, RUN_3])
    eager = pr.fuse(frame, "mnz")
    lazy = pr.fuse(frame.lazy(), "mnz")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(eager)
    as_list = [frame.filter(pl.col("system") == i).drop("system") for i in range(3)]
    assert pr.fuse(as_list, "mnz").equals(eager)
    assert isinstance(pr.fuse([as_list[0].lazy(), *as_list[1:]], "mnz"), pl.LazyFrame)
    assert pr.fuse({"a": RUN_1, "b": RUN_2, "c": RUN_3}, "mnz").equals(eager)
    renamed = frame.rename({"qid": "q", "docid": "doc", "score": "s", "system": "arm"})
    out = pr.fuse(renamed, "mnz", query="q", doc="doc", score="s", system="arm")
    assert out.columns == ["q", "doc", "s", "rank"]
    assert out.rename({"q": "qid", "doc": "docid", "s": "score"}).equals(eager)


@live_ranx
def test_ranx_runs_are_an_input_form() -> None:
    """ranx's Run objects are read as evaluate() reads them (as_polars; test_inputs.py
    checks that reader on ranx's Run and Qrels by default): live only, as building a
    Run compiles ranx's Numba code (75 s on a loaded machine)."""
    ranx = pytest.importorskip("ranx")
    eager = pr.fuse(_long([RUN_1, RUN_2, RUN_3]), "mnz")
    assert pr.fuse([ranx.Run(RUN_1), ranx.Run(RUN_2), ranx.Run(RUN_3)], "mnz").equals(eager)


def test_the_output_is_a_run_evaluate_reads() -> None:
    fused = pr.fuse([RUN_1, RUN_2, RUN_3], "rrf")
    assert fused.schema == pl.Schema({"qid": pl.String, "docid": pl.String,
                                      "score": pl.Float64, "rank": pl.Int64})
    # equal scores by doc id, descending: the rank column is evaluate()'s order
    assert fused.filter(pl.col("qid") == "q2")["docid"].to_list() == ["d3", "d2", "d1"]
    qrels = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["d3", "d1"], "rel": [1, 1]})
    by_score = pr.evaluate(fused, qrels, metrics=["mrr"])
    by_rank = pr.evaluate(fused.with_columns(score=-pl.col("rank").cast(pl.Float64)), qrels,
                          metrics=["mrr"])
    assert by_score.equals(by_rank)
    assert by_score["mrr"][0] == pytest.approx((1 + 1 / 3) / 2)


def test_normalisations_work_in_agg_and_over() -> None:
    df = pl.DataFrame({"qid": ["a", "a", "b", "b", "b"], "score": [1.0, 3.0, 2.0, 2.0, 8.0]})
    over = df.with_columns(n=pr.sum_norm("score").over("qid"))["n"].to_list()
    agg = df.group_by("qid", maintain_order=True).agg(pr.sum_norm("score"))
    assert [x for row in agg["score"].to_list() for x in row] == over
    assert over == pytest.approx([0, 1, 0, 0, 1])
    # equal scores: all 0 (min-max, sum, zmuv), 1 (max); one document the same
    same = pl.DataFrame({"score": [4.0, 4.0]})
    assert same.select(pr.min_max_norm("score"))["score"].to_list() == [0.0, 0.0]
    assert same.select(pr.zmuv_norm("score"))["score"].to_list() == [0.0, 0.0]
    assert same.select(pr.max_norm("score"))["score"].to_list() == [1.0, 1.0]
    assert same.select(pr.rank_norm("score"))["score"].to_list() == [1.0, 0.5]
    ids = same.with_columns(doc=pl.Series(["a", "b"]))
    assert ids.select(pr.rank_norm("score", doc="doc"))["score"].to_list() == [0.5, 1.0]
    assert pl.DataFrame({"score": [-2.0]}).select(pr.max_norm("score")).item() == -2.0 / 1e-9


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"method": "combsum"}, "method must be one of sum, mnz"),
    ({"method": "wsum"}, "'wsum' needs weights"),
    ({"method": "rbc"}, "'rbc' needs phi"),
    ({"method": "rrf", "params": {"phi": 0.5}}, "'rrf' takes k; got phi"),
    ({"method": "rbc", "params": {"phi": 1.5}}, r"phi must be in \[0, 1\]"),
    ({"method": "rrf", "norm": "minmax"}, "norm must be one of min-max"),
    ({"method": "wsum", "params": {"weights": [1.0]}}, "one weight per run"),
    ({"method": "wsum", "params": {"weights": {0: 1.0, 9: 1.0, 2: 1.0}}},
     r"the systems are \[0, 1, 2\]"),
])
def test_bad_parameters(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        pr.fuse([RUN_1, RUN_2, RUN_3], **kwargs)


def test_one_run_is_not_a_fusion() -> None:
    with pytest.raises(ValueError, match="at least two runs"):
        pr.fuse([RUN_1])


@pytest.mark.parametrize("method", UNTRAINED)
@pytest.mark.parametrize("norm", [None, "borda"])
def test_streaming_engine_gives_the_same_run(method: str, norm: str | None) -> None:
    frame = _long([RUN_1, RUN_2, RUN_3])
    params = _params_for(method, WEIGHTS)
    params = {k: dict(enumerate(v)) if k == "weights" else v for k, v in params.items()}
    lazy = pr.fuse(frame.lazy(), method, norm=norm, params=params)
    assert isinstance(lazy, pl.LazyFrame)
    # the sums add each system's term in the systems' order on every engine
    eager = pr.fuse(frame, method, norm=norm, params=params)
    assert isinstance(eager, pl.DataFrame)
    for engine in ("streaming", "in-memory"):
        assert_frame_equal(lazy.collect(engine=engine), eager, check_exact=True)


# ------------------------------------------------------------ issue 36: one answer
def _big_runs(n_rows: int = 36_000, seed: int = 0) -> list[pl.DataFrame]:
    """Three runs of ~36k rows: 360 queries, scores on a grid of 100 values (ties)."""
    rng = np.random.default_rng(seed)
    return [pl.DataFrame({"qid": rng.integers(0, 360, n_rows).astype(str),
                          "docid": rng.integers(0, 3000, n_rows).astype(str),
                          "score": rng.random(n_rows).round(2)}).unique(["qid", "docid"])
            .sort("qid", "docid") for _ in range(3)]


@pytest.mark.parametrize(("method", "norm", "params"), [
    ("wsum", "rank", {"weights": [0.3, 0.3, 0.4]}), ("rrf", "min-max", {}),
    ("mnz", "zmuv", {}), ("w_bordafuse", None, {"weights": [0.2, 0.5, 0.3]}),
    ("sum", "sum", {}),
])
def test_fuse_gives_one_answer(method: str, norm: str | None, params: dict[str, Any]) -> None:
    """Issue 36, 9: two identical calls of wsum/rank on 3 x 36k rows ranked 15
    documents differently, RRF's scores differed in 251 rows (sums in another order).
    Now 20 calls, shuffled runs, the lazy plan on either engine: the same bits."""
    runs = _big_runs()
    first = pr.fuse(runs, method, norm=norm, params=params)  # type: ignore[arg-type]
    assert isinstance(first, pl.DataFrame)
    for _ in range(19):
        assert_frame_equal(pr.fuse(runs, method, norm=norm, params=params), first,  # type: ignore[arg-type]
                           check_exact=True)
    shuffled = [r.sample(fraction=1.0, shuffle=True, seed=i) for i, r in enumerate(runs)]
    assert_frame_equal(pr.fuse(shuffled, method, norm=norm, params=params), first,  # type: ignore[arg-type]
                       check_exact=True)
    lazy = pr.fuse([r.lazy() for r in shuffled], method, norm=norm, params=params)  # type: ignore[arg-type]
    assert isinstance(lazy, pl.LazyFrame)
    for engine in ("streaming", "in-memory"):
        assert_frame_equal(lazy.collect(engine=engine), first, check_exact=True)


def test_fused_scores_add_the_runs_in_their_order() -> None:
    """Each fused score is ranx's sum, term by term in the runs' order: the same bits
    as Python's sum of the normalised scores (CombSUM), whatever the rows' order."""
    runs = _big_runs(4000, seed=1)
    fused = pr.fuse(runs, "wsum", norm="min-max", params={"weights": [0.3, 0.3, 0.4]})
    assert isinstance(fused, pl.DataFrame)
    norm = pr.fusion.normalize(runs, "min-max")
    assert isinstance(norm, pl.DataFrame)
    terms: dict[tuple[str, str], list[float]] = {}
    for system, q, d, v in norm.sort("system").iter_rows():
        terms.setdefault((q, d), [0.0, 0.0, 0.0])[system] = [0.3, 0.3, 0.4][system] * v
    expected = {k: sum(v) for k, v in terms.items()}
    got = {(q, d): s for q, d, s, _ in fused.iter_rows()}
    assert got == expected  # exactly


def test_equal_fused_scores_are_ranked_by_doc_id_descending() -> None:
    a = pl.DataFrame({"qid": ["q"] * 3, "docid": ["x", "z", "y"], "score": [1.0, 1.0, 1.0]})
    fused = pr.fuse([a, a.sample(fraction=1.0, shuffle=True, seed=3)], "rrf")
    assert isinstance(fused, pl.DataFrame)
    assert fused["docid"].to_list() == ["z", "y", "x"]
    assert fused["rank"].to_list() == [1, 2, 3]
    # within a run too: equal scores take ranks by doc id, descending (z first)
    b = pl.DataFrame({"qid": ["q"] * 3, "docid": ["x", "y", "z"], "score": [3.0, 2.0, 1.0]})
    fused = pr.fuse([a, b], "rrf", params={"k": 0})
    assert isinstance(fused, pl.DataFrame)
    assert dict(zip(fused["docid"], fused["score"], strict=True)) == pytest.approx(
        {"z": 1 / 1 + 1 / 3, "y": 1 / 2 + 1 / 2, "x": 1 / 3 + 1 / 1})


RUN_A = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["a", "b", "c"],
                      "score": [2.0, 1.0, 3.0]})


@pytest.mark.parametrize(("bad", "match"), [
    (RUN_A.with_columns(score=pl.Series([2.0, math.nan, 3.0])),
     r"NaN score in column 'score': first in run 1 at qid='q1', docid='b'"),
    (RUN_A.with_columns(score=pl.Series([2.0, math.inf, 3.0])),
     r"infinite score .* in column 'score': first in run 1 at qid='q1', docid='b'"),
    (RUN_A.with_columns(docid=pl.Series(["a", "a", "c"])),
     r"duplicate \(query, doc\) rows .*: first in run 1 at qid='q1', docid='a'"),
    (RUN_A.with_columns(qid=pl.Series(["q1", None, "q2"])),
     r"null query id in column 'qid': first in run 1 at qid=None, docid='b'"),
    (RUN_A.with_columns(docid=pl.Series(["a", None, "c"])),
     r"null document id in column 'docid': first in run 1 at qid='q1', docid=None"),
])
def test_bad_runs_are_refused_as_evaluate_refuses_them(bad: pl.DataFrame, match: str) -> None:
    """Issue 36, 9: a NaN score put a NaN document at rank 1; a duplicate row was
    counted twice. evaluate()'s rules (polars_rank._engine.rules), with the run named."""
    for call in (lambda r: pr.fuse(r, "sum"), lambda r: pr.fusion.normalize(r),
                 lambda r: pr.optimize_fusion(r, QRELS_A, "wsum", grid={"step": 0.5}),
                 lambda r: pr.fusion.train(r, QRELS_A, "posfuse")):
        with pytest.raises(InvalidDataError, match=match):
            call([RUN_A, bad])
    frame = pl.concat([RUN_A.with_columns(system=pl.lit("x")),
                       bad.with_columns(system=pl.lit("y"))])
    with pytest.raises(InvalidDataError, match=match.replace("run 1", "system='y'")):
        pr.fuse(frame.lazy(), "sum")


QRELS_A = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["a", "c"], "rel": [1, 1]})


def test_the_same_document_in_two_runs_is_not_a_duplicate() -> None:
    fused = pr.fuse([RUN_A, RUN_A], "sum", norm=None)
    assert isinstance(fused, pl.DataFrame)
    assert fused.sort("qid", "docid")["score"].to_list() == [4.0, 2.0, 6.0]


def test_ids_of_different_types_are_compared_as_text() -> None:
    """Issue 36, 9: integer ids in one run and text in another gave a Polars schema
    error; they are compared as text, as evaluate() compares a run's with its qrels'."""
    ints = pl.DataFrame({"qid": [1, 1], "docid": [7, 8], "score": [1.0, 0.5]})
    text = pl.DataFrame({"qid": ["1", "1"], "docid": ["7", "9"], "score": [0.3, 0.9]})
    fused = pr.fuse([ints, text], "sum", norm=None)
    assert isinstance(fused, pl.DataFrame)
    assert fused.schema["qid"] == pl.String
    assert dict(zip(fused["docid"], fused["score"], strict=True)) == {"7": 1.3, "9": 0.9,
                                                                       "8": 0.5}
    same_type = pr.fuse([ints, ints.with_columns(pl.col("qid").cast(pl.Int32).cast(pl.Int64))],
                        "sum", norm=None)
    assert isinstance(same_type, pl.DataFrame)
    assert same_type.schema["qid"] == pl.Int64  # one type: kept


def test_a_text_score_and_a_missing_column_are_named() -> None:
    text = RUN_A.with_columns(pl.col("score").cast(pl.String))
    with pytest.raises(TypeError, match="run 1: score column 'score' is String, not a number"):
        pr.fuse([RUN_A, text])
    with pytest.raises(ValueError, match="run 'b' has no column 'docid' \\(the doc column\\)"):
        pr.fuse({"a": RUN_A, "b": RUN_A.drop("docid")})
