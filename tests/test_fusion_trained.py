"""The trained fusion methods (ProbFuse, SegFuse, SlideFuse, PosFuse, BayesFuse, MAPFuse).

First ranx's own unit tests, transcribed (AmenRa/ranx commit 2cae52f,
``tests/unit/ranx/fusion/{probfuse,segfuse,slidefuse,posfuse,bayesfuse,mapfuse}_test.py``:
the trained values and the fused scores they assert, without calling ranx); then
``ranx.optimize_fusion`` (which trains: ProbFuse and SlideFuse with their search
pinned to one ``n_segments`` or ``w``) and ``ranx.fuse`` (0.3.21, installed) on the
same data: the trained tables and every fused score to 1e-9, and the ranking.

As in test_fusion.py: lists of at most 15 documents (ranx's sort keeps equal scores
in input order only up to 15), document ids of one length (ranx truncates longer
ones), no ``norm="borda"`` (ranx's runs are then in a set's order). ranx's runs all
have every training query and its qrels exactly those (``optimize_fusion`` asserts
it); a system with nothing for a query has an empty list there.

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
from ranx_cases import (
    BAYES_QRELS,
    BAYES_RUN_1,
    BAYES_RUN_2,
    QRELS,
    RANDOM_TRAINING,
    RUN_1,
    RUN_2,
    RUN_3,
    TRAINED_NORMS,
    fused_dict,
    live_ranx,
    norm_key,
    recorded_case,
    trained_cases,
    unpack,
)
from ranx_cases import long as _long
from ranx_cases import qrels_frame as _qrels

import polars_rank as pr
from polars_rank.fusion import METHODS, NORMS

TRAINED = [m for m in METHODS if METHODS[m].trained]

# ranx's fixtures (probfuse_test.py etc.): RUN_1, RUN_2, RUN_3, QRELS in ranx_cases.py
RUNS = [RUN_1, RUN_2, RUN_3]


def _arrays(trained: dict[str, Any], name: str) -> list[list[float]]:
    """A trained frame as ranx's arrays, one per system 0, 1, 2."""
    frame = trained[name]
    key = next(c for c in frame.columns if c in ("rank", "segment"))
    value = frame.columns[-1]
    return [frame.filter(pl.col("system") == s).sort(key)[value].to_list() for s in range(3)]


def _scores(fused: pl.DataFrame) -> dict[tuple[str, str], float]:
    return {(q, d): s for q, d, s in fused.select("qid", "docid", "score").iter_rows()}


def test_ranx_probfuse() -> None:
    trained = pr.fusion.train(RUNS, QRELS, "probfuse", norm=None, params={"n_segments": 2})
    p = _arrays(trained, "probs")
    assert p == [[0.0, 1.0], [0.5, 0.5], [0.0, 0.0]]
    got = _scores(pr.fuse(RUNS, "probfuse", norm=None, params=trained))
    assert got == {
        ("q1", "d1"): p[0][1] / 2 + p[1][0], ("q1", "d2"): p[0][0] + p[1][1] / 2,
        ("q1", "d3"): p[0][0] + p[2][0], ("q2", "d1"): p[0][1] / 2 + p[1][1] / 2,
        ("q2", "d2"): p[0][0] + p[2][1] / 2, ("q2", "d3"): p[1][0] + p[2][0]}


def test_ranx_segfuse() -> None:
    trained = pr.fusion.train(RUNS, QRELS, "segfuse", norm=None)
    p = _arrays(trained, "probs")
    assert p == [[0.2] + [0.0] * 9, [0.2] + [0.0] * 9, [0.0] * 10]
    got = _scores(pr.fuse(RUNS, "segfuse", norm=None, params=trained))
    expected = {}
    for q, d in got:
        expected[(q, d)] = sum(p[i][0] * (1 + run[q][d]) for i, run in enumerate(RUNS)
                               if d in run[q])
    assert got == pytest.approx(expected, rel=1e-15)
    assert got[("q1", "d1")] == pytest.approx(p[0][0] * 2 + p[1][0] * 4)


@pytest.mark.parametrize("method", ["posfuse", "slidefuse"])
def test_ranx_position_probabilities(method: str) -> None:
    trained = pr.fusion.train(RUNS, QRELS, method, norm=None)
    assert _arrays(trained, "probs") == [[0, 1 / 2, 1 / 1], [1 / 2, 1 / 2], [0, 0]]


def test_ranx_posfuse() -> None:
    trained = pr.fusion.train(RUNS, QRELS, "posfuse", norm=None)
    p = _arrays(trained, "probs")
    assert _scores(pr.fuse(RUNS, "posfuse", norm=None, params=trained)) == {
        ("q1", "d1"): p[0][2] + p[1][0], ("q1", "d2"): p[0][1] + p[1][1],
        ("q1", "d3"): p[0][0] + p[2][0], ("q2", "d1"): p[0][1] + p[1][1],
        ("q2", "d2"): p[0][0] + p[2][1], ("q2", "d3"): p[1][0] + p[2][0]}


def test_ranx_slidefuse() -> None:
    trained = pr.fusion.train(RUNS, QRELS, "slidefuse", norm=None, params={"w": 1})
    assert trained["w"] == 1
    p = _arrays(trained, "probs")
    got = _scores(pr.fuse(RUNS, "slidefuse", norm=None, params=trained))
    assert got == pytest.approx({
        ("q1", "d1"): sum(p[0][1:3]) / 2 + sum(p[1]) / 2,
        ("q1", "d2"): sum(p[0]) / 3 + sum(p[1]) / 2,
        ("q1", "d3"): sum(p[0][:2]) / 2 + sum(p[2]) / 2,
        ("q2", "d1"): sum(p[0][0:2]) / 2 + sum(p[1]) / 2,
        ("q2", "d2"): sum(p[0][0:2]) / 2 + sum(p[2]) / 2,
        ("q2", "d3"): sum(p[1]) / 2 + sum(p[2]) / 2}, rel=1e-15, abs=1e-15)
    got = _scores(pr.fuse(RUNS, "slidefuse", norm=None, params={**trained, "w": 2}))
    assert got == pytest.approx({
        ("q1", "d1"): sum(p[0]) / 3 + sum(p[1]) / 2,
        ("q1", "d2"): sum(p[0]) / 3 + sum(p[1]) / 2,
        ("q1", "d3"): sum(p[0]) / 3 + sum(p[2]) / 2,
        ("q2", "d1"): sum(p[0][0:2]) / 2 + sum(p[1]) / 2,
        ("q2", "d2"): sum(p[0][0:2]) / 2 + sum(p[2]) / 2,
        ("q2", "d3"): sum(p[1]) / 2 + sum(p[2]) / 2}, rel=1e-15, abs=1e-15)


def test_ranx_mapfuse() -> None:
    trained = pr.fusion.train(RUNS, QRELS, "mapfuse", norm=None)
    m = trained["map_scores"].sort("system")["map"].to_list()
    assert m == pytest.approx([(1 / 3 + 1 / 2) / 2, (1 + 1 / 2) / 2, 0.0])
    assert _scores(pr.fuse(RUNS, "mapfuse", norm=None, params=trained)) == pytest.approx({
        ("q1", "d1"): m[0] / 3 + m[1] / 1, ("q1", "d2"): m[0] / 2 + m[1] / 2,
        ("q1", "d3"): m[0] / 1 + m[2] / 1, ("q2", "d1"): m[0] / 2 + m[1] / 2,
        ("q2", "d2"): m[0] / 1 + m[2] / 2, ("q2", "d3"): m[1] / 1 + m[2] / 1}, rel=1e-15)


# bayesfuse_test.py's runs and qrels: BAYES_RUN_1, BAYES_RUN_2, BAYES_QRELS (ranx_cases.py)


def test_ranx_bayesfuse() -> None:
    runs = [BAYES_RUN_1, BAYES_RUN_2]
    trained = pr.fusion.train(runs, BAYES_QRELS, "bayesfuse", norm=None)
    odds = [trained["log_odds"].filter(pl.col("system") == s).sort("rank")["log_odds"]
            .to_list() for s in (0, 1)]
    assert [len(o) for o in odds] == [1000, 1000]
    for o, first, second in ((odds[0], 8 / 15, 7 / 15), (odds[1], 12 / 15, 3 / 15)):
        assert o[:5] == pytest.approx([math.log(first / (1 - first))] * 5, rel=1e-15)
        assert o[5:10] == pytest.approx([math.log(second / (1 - second))] * 5, rel=1e-12)
        assert all(x < 0 for x in o[10:])
    got = _scores(pr.fuse(runs, "bayesfuse", norm=None, params=trained))
    position = [{q: list(run[q]) for q in run} for run in runs]
    for (q, d), value in got.items():
        expected = sum(o[position[i][q].index(d)] for i, o in enumerate(odds))
        assert value == pytest.approx(expected, rel=1e-12)
    assert got[("q1", "d3")] == pytest.approx(odds[0][2] + odds[1][5])
    assert got[("q2", "d7")] == pytest.approx(odds[0][6] + odds[1][2])


# ------------------------------------------------------------ against ranx itself
def _ranx_runs(frame: pl.DataFrame, systems: list[int], queries: list[str]) -> list[Any]:
    """ranx's runs, each list in polars-rank's order (equal scores by doc id,
    descending), which ranx keeps for lists of up to 15 documents."""
    ranx = pytest.importorskip("ranx")
    out = []
    for system in systems:
        d: dict[str, dict[str, float]] = {q: {} for q in queries}
        rows = frame.filter(pl.col("system") == system).sort("score", "docid", descending=True)
        for q, doc, s in rows.select("qid", "docid", "score").iter_rows():
            d[q][doc] = s
        out.append(ranx.Run(d))
    return out


def _ranx_train(train: pl.DataFrame, qrels: pl.DataFrame, systems: list[int], method: str,
                norm: str | None, n: int) -> dict[str, Any]:
    ranx = pytest.importorskip("ranx")
    queries = sorted(set(train["qid"].to_list()))
    judged: dict[str, dict[str, int]] = {q: {} for q in queries}
    for q, d, r in qrels.filter(pl.col("qid").is_in(queries)).iter_rows():
        judged[q][d] = r
    kwargs: dict[str, Any] = {}
    if method == "probfuse":
        kwargs = {"min_n_segments": n, "max_n_segments": n}
    if method == "slidefuse":
        kwargs = {"min_w": n, "max_w": n}
    if method in ("probfuse", "slidefuse"):
        kwargs |= {"metric": "map", "show_progress": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ranx.optimize_fusion(ranx.Qrels(judged), _ranx_runs(train, systems, queries),
                                    norm=norm, method=method, **kwargs)


def _ranx_answers(train: pl.DataFrame, test: pl.DataFrame, qrels: pl.DataFrame,
                  systems: list[int], method: str, norm: str | None, n: int
                  ) -> tuple[dict[str, Any], dict[tuple[str, str], float]]:
    """ranx trained on ``train`` (its arrays) and its fusion of ``test`` with them."""
    theirs = _ranx_train(train, qrels, systems, method, norm, n)
    queries = test["qid"].unique(maintain_order=True).to_list()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fused = pytest.importorskip("ranx").fuse(_ranx_runs(test, systems, queries),
                                                 norm=norm, method=method, params=theirs)
    return theirs, {(q, d): float(s) for q, docs in fused.to_dict().items()
                    for d, s in docs.items()}


def _compare(train: pl.DataFrame, test: pl.DataFrame, qrels: pl.DataFrame,
             systems: list[int], method: str, norm: str | None, n: int,
             recorded: dict[str, Any] | None = None) -> bool:
    """Train and fuse as ranx (or as ranx did, ``recorded``: ranx_cases.py); False when
    ranx's answer is its float accident."""
    if recorded is None:
        theirs, expected = _ranx_answers(train, test, qrels, systems, method, norm, n)
    else:
        theirs = {k: v if k == "w" else [unpack(a) if isinstance(a, list | dict) else a
                                         for a in v]
                  for k, v in recorded["trained"].items()}
        expected = fused_dict(recorded["fused"])
    params = {"n_segments": n} if method == "probfuse" else {"w": n} \
        if method == "slidefuse" else {}
    ours = pr.fusion.train(train, qrels, method, norm=norm, params=params)
    name = next(iter(theirs.keys() - {"w"}))
    if method == "bayesfuse" and (ours[name]["log_odds"] == math.log(1 / 0.001)).any():
        return False  # a segment all relevant: ranx's sum of n times 1/n may miss 1.0
    if method == "mapfuse":
        assert ours[name].sort("system")["map"].to_list() == pytest.approx(
            theirs[name], rel=1e-9, abs=1e-12)
    else:
        key = "segment" if method in ("probfuse", "segfuse") else "rank"
        for s, array in zip(systems, theirs[name], strict=True):
            got = ours[name].filter(pl.col("system") == s).sort(key)
            assert got[key].to_list() == list(range(1, len(array) + 1)), (method, s)
            assert got[got.columns[-1]].to_list() == pytest.approx(
                np.asarray(array).tolist(), rel=1e-9, abs=1e-12), (method, s)
    by_system = {k: v if k == "w" else dict(zip(systems, v, strict=True))
                 for k, v in theirs.items()}  # a frame's systems: ranx's arrays by name
    for trained in (ours, by_system):  # our tables, and ranx's arrays read as they are
        got_frame = pr.fuse(test, method, norm=norm, params=trained)
        assert isinstance(got_frame, pl.DataFrame)
        got = _scores(got_frame)
        assert got.keys() == expected.keys(), method
        for k, v in expected.items():
            assert math.isclose(got[k], v, rel_tol=1e-9, abs_tol=1e-9), (method, norm, k,
                                                                          got[k], v)
        for (_,), rows in got_frame.group_by("qid"):
            scores = [expected[(q, d)] for q, d in rows.sort("rank").select("qid", "docid")
                      .iter_rows()]
            assert all(a >= b - 1e-9 for a, b in itertools.pairwise(scores))
    return True


def _recorded(name: str, method: str) -> bool:
    """Compare with ranx's recorded answers for a case of ranx_cases.trained_cases."""
    case = trained_cases()[name]
    return _compare(case["train"], case["test"], case["qrels"], case["systems"], method,
                    case["norm"], case["n"],
                    recorded_case("trained", name)["methods"][method])


FIXTURE_NORMS = [n for n in (None, *NORMS) if n != "borda"]


@pytest.mark.parametrize("norm", FIXTURE_NORMS)
@pytest.mark.parametrize("method", TRAINED)
def test_ranx_fixtures_against_recorded_ranx(method: str, norm: str | None) -> None:
    """ranx's fixtures trained and fused by ranx, recorded (tests/record_ranx.py)."""
    assert _recorded(f"fixtures-{norm_key(norm)}", method)
    assert _recorded(f"bayes-{norm_key(norm)}", method)


@pytest.mark.parametrize("norm", TRAINED_NORMS)
def test_random_runs_against_recorded_ranx(norm: str | None) -> None:
    """Seeded random cases (ranx_cases.random_training: what the strategy ``data``
    below draws), trained and fused by ranx, recorded; every trained method."""
    compared = 0
    count = min(examples(RANDOM_TRAINING), RANDOM_TRAINING)
    for i in range(count):
        for method in TRAINED:
            compared += _recorded(f"random-{norm_key(norm)}-{i}", method)
    assert compared >= count * 4, compared


def test_long_lists_against_recorded_ranx() -> None:
    """Lists past SegFuse's first segments and BayesFuse's cut-offs (no ties: ranx's
    sort of more than 15 equal scores is not stable); the test lists longer than the
    training ones (PosFuse's and SlideFuse's ranks past the trained ones)."""
    for method in TRAINED:
        assert _recorded("long", method)


# ----------------------------------------- against ranx itself (POLARS_RANK_LIVE_RANX=1)
@live_ranx
@pytest.mark.parametrize("norm", FIXTURE_NORMS)
@pytest.mark.parametrize("method", TRAINED)
def test_ranx_fixtures_against_ranx(method: str, norm: str | None) -> None:
    frame, qrels = _long(RUNS), _qrels(QRELS)
    assert _compare(frame, frame, qrels, [0, 1, 2], method, norm, 2)
    bayes = _long([BAYES_RUN_1, BAYES_RUN_2])
    assert _compare(bayes, bayes, _qrels(BAYES_QRELS), [0, 1], method, norm, 3)


@cache
def _compiled() -> None:
    """ranx compiles its functions on first use: once, outside hypothesis's deadline."""
    for method in TRAINED:
        _compare(_long(RUNS), _long(RUNS), _qrels(QRELS), [0, 1, 2], method, None, 2)


@st.composite
def data(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[int]]:
    """2-3 systems; training queries t0-t3 and test queries q0-q2; up to 15 documents
    per list (ties from a few scores), documents and queries missing from some
    systems (every system has a document: ranx's Run needs one); graded labels 0-2,
    some queries with nothing relevant."""
    n_systems = draw(st.integers(2, 3))
    pool = [f"d{i:02}" for i in range(draw(st.integers(1, 20)))]
    tied = draw(st.booleans())
    score = (st.sampled_from([0.0, 1.0, 2.0, 5.0, -3.0]) if tied
             else st.floats(-50, 50, allow_nan=False, allow_infinity=False))

    def lists(prefix: str, n: int) -> pl.DataFrame:
        rows = []
        for system in range(n_systems):
            for q in range(n):
                docs = draw(st.lists(st.sampled_from(pool), min_size=int(q == 0),
                                     max_size=15, unique=True))
                rows += [{"system": system, "qid": f"{prefix}{q}", "docid": d,
                          "score": draw(score)} for d in docs]
        return pl.DataFrame(rows, schema={"system": pl.Int64, "qid": pl.String,
                                          "docid": pl.String, "score": pl.Float64})

    train, test = lists("t", draw(st.integers(1, 4))), lists("q", draw(st.integers(1, 3)))
    queries = sorted(set(train["qid"].to_list()))
    rows = [{"qid": q, "docid": pool[0], "rel": 0} for q in queries]  # every query judged
    for q in queries:
        for d in draw(st.lists(st.sampled_from(pool), max_size=8, unique=True)):
            if d != pool[0]:
                rows.append({"qid": q, "docid": d, "rel": draw(st.integers(0, 2))})
    return train, test, pl.DataFrame(rows), list(range(n_systems))


@live_ranx
@pytest.mark.parametrize("norm", [None, "min-max", "rank"])
@settings(max_examples=examples(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=data(), n=st.integers(1, 4))
def test_random_runs_against_ranx(norm: str | None, n: int,
                                  data: tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame,
                                              list[int]]) -> None:
    train, test, qrels, systems = data
    if norm == "zmuv" and test.select("system", "qid").unique().height != (
            len(systems) * test["qid"].n_unique()):
        return  # ranx's zmuv of an empty list loses other queries (test_fusion.py)
    _compiled()
    for method in TRAINED:
        _compare(train, test, qrels, systems, method, norm, n)


@live_ranx
def test_long_lists_against_ranx() -> None:
    """The long lists of test_long_lists_against_recorded_ranx, against ranx itself."""
    case = trained_cases()["long"]
    for method in TRAINED:
        assert _compare(case["train"], case["test"], case["qrels"], [0, 1, 2], method,
                        "min-max", 7)


# ------------------------------------------------------------------- the API
def test_lazy_training_and_fusion_are_one_plan() -> None:
    frame, qrels = _long(RUNS), _qrels(QRELS)
    for method in TRAINED:
        params = {"n_segments": 2} if method == "probfuse" else {"w": 1} \
            if method == "slidefuse" else {}
        eager = pr.fuse(frame, method, params=pr.fusion.train(frame, qrels, method,
                                                               params=params))
        trained = pr.fusion.train(frame.lazy(), qrels, method, params=params)
        assert all(isinstance(v, pl.LazyFrame) for k, v in trained.items() if k != "w")
        lazy = pr.fuse(frame.lazy(), method, params=trained)
        assert isinstance(lazy, pl.LazyFrame)
        assert lazy.collect().equals(eager)
        assert lazy.collect(engine="streaming").equals(eager)


def test_systems_by_name_and_renamed_columns() -> None:
    named = {"a": RUN_1, "b": RUN_2, "c": RUN_3}
    trained = pr.fusion.train(named, QRELS, "posfuse")
    assert trained["probs"]["system"].to_list() == ["a"] * 3 + ["b"] * 2 + ["c"] * 2
    by_list = pr.fuse(RUNS, "posfuse", params=pr.fusion.train(RUNS, QRELS, "posfuse"))
    assert pr.fuse(named, "posfuse", params=trained).equals(by_list)
    renamed = _long(RUNS).rename({"qid": "q", "docid": "doc", "score": "s", "system": "arm"})
    judged = _qrels(QRELS).rename({"qid": "q", "docid": "doc", "rel": "label"})
    cols = {"query": "q", "doc": "doc", "score": "s", "system": "arm"}
    t = pr.fusion.train(renamed, judged, "mapfuse", rel="label", **cols)
    assert t["map_scores"].columns == ["arm", "map"]
    out = pr.fuse(renamed, "mapfuse", params=t, **cols)
    assert out.rename({"q": "qid", "doc": "docid", "s": "score"}).equals(
        pr.fuse(RUNS, "mapfuse", params=pr.fusion.train(RUNS, QRELS, "mapfuse")))


@pytest.mark.parametrize(("call", "match"), [
    (lambda: pr.fusion.train(RUNS, QRELS, "probfuse"), "needs n_segments"),
    (lambda: pr.fusion.train(RUNS, QRELS, "probfuse", params={"n_segments": 0}),
     "needs n_segments"),
    (lambda: pr.fusion.train(RUNS, QRELS, "rrf"), "train: method must be one of"),
    (lambda: pr.fusion.train(RUNS, QRELS, "posfuse", params={"w": 2}),
     "training 'posfuse' takes none; got w"),
    (lambda: pr.fuse(RUNS, "posfuse"), "'posfuse' needs probs"),
    (lambda: pr.fuse(RUNS, "slidefuse", params={"probs": [[1.0]] * 3}), "needs w"),
    (lambda: pr.fuse(RUNS, "slidefuse", params={"probs": [[1.0]] * 3, "w": 1.5}),
     "integer >= 0"),
    (lambda: pr.fuse(RUNS, "posfuse", params={"probs": [[1.0]] * 2}), "one entry per run"),
    (lambda: pr.fuse(RUNS, "posfuse", params={"probs": {0: [1.0], 1: [1.0], 7: [1.0]}}),
     r"the systems are \[0, 1, 2\]"),
    (lambda: pr.fuse(RUNS, "posfuse", params={"probs": pl.DataFrame({"system": [0]})}),
     "needs the columns"),
])
def test_bad_parameters(call: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()
