"""The cases the fusion tests compare with ranx, and ranx's recorded answers to them.

ranx compiles its Numba code in every fresh environment and computes its optimisation
grids slowly: calling it made the fusion tests 780-1,000 worker-seconds of CI (a third
of the README step; docs/performance.md, "CI's time budget"). So ranx's answers to
these cases are recorded once, by ``python tests/record_ranx.py``, into
``tests/fixtures/ranx_*.json``, and the tests compare polars-rank's outputs with the
recorded ones (the same tolerances and ranking checks as against ranx itself). The
cases are built here, from fixed fixtures and seeded NumPy draws (nothing here calls
ranx); each recorded case keeps a hash of its inputs, and tests/test_ranx_fixtures.py
checks that the recorded cases are the ones built here.

The tests that call ranx itself (the random search with hypothesis among them) stay,
marked ``ranx`` and :data:`live_ranx`: they run with ``POLARS_RANK_LIVE_RANX=1``
(``make test-ranx``), after upgrading ranx or changing the fusion code.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import polars as pl
import pytest

FIXTURES = Path(__file__).parent / "fixtures"
FILES = {"fuse": "ranx_fuse.json", "optimize": "ranx_optimize.json",
         "trained": "ranx_trained.json", "cli": "ranx_cli_fuse.json"}
"""One fixture file per test file: test_fusion, test_fusion_optimize,
test_fusion_trained, test_cli_fuse."""

LIVE = os.environ.get("POLARS_RANK_LIVE_RANX") == "1"
F = TypeVar("F", bound=Callable[..., Any])


def live_ranx(test: F) -> F:
    """Mark a test that calls ranx itself: marked ``ranx``, skipped unless
    ``POLARS_RANK_LIVE_RANX=1`` (``make test-ranx``)."""
    skip = pytest.mark.skipif(not LIVE, reason="calls ranx itself (minutes of Numba "
                              "compiling): POLARS_RANK_LIVE_RANX=1 or make test-ranx "
                              "runs it; the recorded answers are compared by default")
    return pytest.mark.ranx(skip(test))  # type: ignore[no-any-return]


# ------------------------------------------------------------ ranx's fusion fixtures
# tests/unit/ranx/fusion/comb_sum_test.py (and every *_test.py of the comb family; the
# trained methods' probfuse_test.py etc. use the same runs)
RUN_1 = {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}}
RUN_2 = {"q1": {"d1": 3, "d2": 2}, "q2": {"d1": 1, "d3": 3}}
RUN_3 = {"q1": {"d3": 1}, "q2": {"d2": 2, "d3": 3}}
WEIGHTS = [0.3, 0.2, 0.5]
# probfuse_test.py, segfuse_test.py, ...
QRELS = {"q1": {"d1": 1}, "q2": {"d1": 1}}
# bayesfuse_test.py
BAYES_QRELS = {"q1": {"d1": 1, "d2": 1, "d8": 1, "d9": 1, "d10": 1},
               "q2": {"d2": 1, "d4": 1, "d7": 1},
               "q3": {"d1": 1, "d3": 1, "d4": 1, "d5": 1, "d6": 1, "d8": 1, "d9": 1}}
_DESC = {f"d{i}": 11.0 - i for i in range(1, 11)}
BAYES_RUN_1 = {"q1": _DESC, "q2": _DESC, "q3": _DESC}
BAYES_RUN_2 = {"q1": dict(zip(["d1", "d2", "d8", "d9", "d10", "d3", "d4", "d5", "d6", "d7"],
                              range(10, 0, -1), strict=True)),
               "q2": dict(zip(["d2", "d4", "d7", "d1", "d3", "d5", "d6", "d8", "d9", "d10"],
                              range(10, 0, -1), strict=True)),
               "q3": _DESC}
FIXTURE_QRELS = pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["d1", "d3", "d2", "d3"],
                              "rel": [1, 2, 1, 0]})
"""Graded labels for comb_sum_test.py's runs (test_fusion_optimize.py)."""

SCHEMA = {"system": pl.Int64, "qid": pl.String, "docid": pl.String, "score": pl.Float64}


def long(runs: list[dict[str, dict[str, float]]]) -> pl.DataFrame:
    """ranx-style runs (dicts) as one long frame, a system column numbering them."""
    return pl.DataFrame(
        [{"system": i, "qid": q, "docid": d, "score": float(s)}
         for i, run in enumerate(runs) for q, docs in run.items() for d, s in docs.items()],
        schema=SCHEMA)


def qrels_frame(qrels: dict[str, dict[str, int]]) -> pl.DataFrame:
    return pl.DataFrame([{"qid": q, "docid": d, "rel": r} for q, docs in qrels.items()
                         for d, r in docs.items()])


def rng_for(name: str) -> np.random.Generator:
    """A generator seeded by a case's name: each case drawn alone."""
    return np.random.default_rng(zlib.crc32(name.encode()))


# ------------------------------------------------------------ random draws
_TIED = np.array([0.0, 1.0, 2.0, 5.0, -3.0])
_EDGES = np.array([0.0, -0.0, 50.0, -50.0, 1e-9, 0.5])


def _scores(rng: np.random.Generator, n: int, tied: bool) -> list[float]:
    """A few values (ties) or continuous ones in [-50, 50], now and then an edge value
    or a repeat (what hypothesis's floats draw too)."""
    if tied:
        return [float(x) for x in rng.choice(_TIED, n)]
    out: list[float] = []
    for _ in range(n):
        u = rng.random()
        if u < 0.08:
            out.append(float(rng.choice(_EDGES)))
        elif u < 0.15 and out:
            out.append(out[int(rng.integers(len(out)))])
        else:
            out.append(float(rng.uniform(-50, 50)))
    return out


def _lists(rng: np.random.Generator, prefix: str, systems: int, queries: Callable[[], int],
           pool: list[str], tied: bool, *, first_nonempty: bool = False,
           every_nonempty: bool = False) -> pl.DataFrame:
    rows = []
    for system in range(systems):
        for q in range(queries()):
            low = int(every_nonempty or (first_nonempty and q == 0))
            size = int(rng.integers(low, min(15, len(pool)) + 1))
            docs = [str(d) for d in rng.choice(pool, size=size, replace=False)]
            rows += [(system, f"{prefix}{q}", d, s)
                     for d, s in zip(docs, _scores(rng, size, tied), strict=True)]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def random_runs(rng: np.random.Generator, *, complete: bool = False
                ) -> tuple[pl.DataFrame, list[int], list[float]]:
    """test_fusion.py's hypothesis strategy ``runs``, drawn with NumPy: 2-4 systems,
    1-3 queries each (queries missing from some systems), up to 15 of 1-20 documents
    per list (documents missing from some lists, empty lists), scores from a few values
    (ties) or continuous, ids of one length (ranx truncates longer ones); a weight in
    [0.05, 2] per system. ``complete``: every system answers every query with at least
    one document (ranx's zmuv of an empty list is not defined)."""
    n_systems = int(rng.integers(2, 5))
    pool = [f"d{i:02}" for i in range(int(rng.integers(1, 21)))]
    tied = bool(rng.random() < 0.5)
    n_queries = int(rng.integers(1, 4))
    frame = _lists(rng, "q", n_systems, (lambda: n_queries) if complete
                   else (lambda: int(rng.integers(1, 4))), pool, tied,
                   first_nonempty=complete, every_nonempty=complete)
    systems = sorted(set(frame["system"].to_list()))
    weights = [float(w) for w in rng.uniform(0.05, 2.0, len(systems))]
    return frame, systems, weights


def random_training(rng: np.random.Generator
                    ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, list[int], int]:
    """test_fusion_trained.py's hypothesis strategy ``data``, drawn with NumPy: 2-3
    systems; training queries t0-t3 and test queries q0-q2 (every system answers t0
    and q0, ranx's Run needs a document); up to 15 of 1-20 documents per list, ties or
    continuous scores; graded labels 0-2 for up to 8 documents of each training query
    (the pool's first always judged, some queries with nothing relevant); ``n`` (the
    segments or window) in 1-4."""
    n_systems = int(rng.integers(2, 4))
    pool = [f"d{i:02}" for i in range(int(rng.integers(1, 21)))]
    tied = bool(rng.random() < 0.5)
    n_train, n_test = int(rng.integers(1, 5)), int(rng.integers(1, 4))
    train = _lists(rng, "t", n_systems, lambda: n_train, pool, tied, first_nonempty=True)
    test = _lists(rng, "q", n_systems, lambda: n_test, pool, tied, first_nonempty=True)
    queries = sorted(set(train["qid"].to_list()))
    rows = [(q, pool[0], 0) for q in queries]
    for q in queries:
        size = int(rng.integers(0, min(8, len(pool)) + 1))
        for d in rng.choice(pool, size=size, replace=False):
            if d != pool[0]:
                rows.append((q, str(d), int(rng.integers(0, 3))))
    qrels = pl.DataFrame(rows, schema=["qid", "docid", "rel"], orient="row")
    return train, test, qrels, list(range(n_systems)), int(rng.integers(1, 5))


def random_optimization(rng: np.random.Generator, *, full: bool = False
                        ) -> tuple[pl.DataFrame, pl.DataFrame, list[int]]:
    """2-3 systems, 2-5 queries, every system answering every query with 3-12 of 15
    documents (ranx keeps equal scores in input order up to 15; ``full``: the same 8),
    continuous scores; graded qrels for 4-9 documents of each query."""
    n_systems, n_queries = int(rng.integers(2, 4)), int(rng.integers(2, 6))
    pool = [f"d{i:02}" for i in range(15)]
    rows, judged = [], []
    for q in range(n_queries):
        for s in range(n_systems):
            docs = pool[:8] if full else rng.choice(pool, size=int(rng.integers(3, 13)),
                                                    replace=False)
            rows += [(s, f"q{q}", str(d), float(rng.normal())) for d in docs]
        docs = rng.choice(pool, size=int(rng.integers(4, 10)), replace=False)
        judged += [(f"q{q}", str(d), int(rng.integers(0, 3))) for d in docs]
    frame = pl.DataFrame(rows, schema=["system", "qid", "docid", "score"], orient="row")
    qrels = pl.DataFrame(judged, schema=["qid", "docid", "rel"], orient="row")
    return frame, qrels, list(range(n_systems))


def long_lists() -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """test_fusion_trained.py's long lists: 6 queries of 3 systems, 120 documents in
    the 4 training queries and 300 in the 2 test ones, 60 relevant of 400; no ties."""
    rng = np.random.default_rng(7)
    rows, qrels = [], []
    for q in range(6):
        relevant = rng.choice(400, size=60, replace=False)
        qrels += [{"qid": f"q{q}", "docid": f"d{d:03}", "rel": 1} for d in relevant]
        for s in range(3):
            n = 120 if q < 4 else 300
            for d in rng.choice(400, size=n, replace=False):
                rows.append({"system": s, "qid": f"q{q}", "docid": f"d{d:03}",
                             "score": float(rng.random())})
    frame = pl.DataFrame(rows)
    return (frame.filter(pl.col("qid") < "q4"), frame.filter(pl.col("qid") >= "q4"),
            pl.DataFrame(qrels))


def cli_runs() -> list[pl.DataFrame]:
    """test_cli_fuse.py's three runs: 8 queries, lists of 1-15 of 30 documents, some
    documents in one run only, equal scores in the third."""
    rng = np.random.default_rng(3)
    out = []
    for system in range(3):
        rows = []
        for q in range(8):
            docs = rng.choice(30, size=int(rng.integers(1, 16)), replace=False)
            scores = (rng.integers(0, 3, len(docs)).astype(float) if system == 2
                      else rng.normal(size=len(docs)) * 10)
            rows += [{"qid": f"q{q}", "docid": f"d{d:02}", "score": float(s)}
                     for d, s in zip(docs, scores, strict=True)]
        out.append(pl.DataFrame(rows))
    return out


# ------------------------------------------------------------ the cases of each file
RANDOM_RUNS = 8
"""Random cases per normalisation (test_fusion.py; its hypothesis test draws 6)."""
RANDOM_TRAINING = 10
"""Random cases per normalisation (test_fusion_trained.py; hypothesis draws 10)."""
TRAINED_NORMS = [None, "min-max", "rank"]
OPTIMIZATION_METRICS = ["ndcg@5", "mrr@3", "precision@3", "ndcg", "map@5"]
SMALL_GRIDS: dict[str, dict[str, Any]] = {
    "rrf": {"min_k": 1, "max_k": 25, "step": 3},
    "rbc": {"min_phi": 0.1, "max_phi": 0.85, "step": 0.1}, "gmnz": {"step": 0.1},
    "logn_isr": {"step": 0.1}, **{m: {"step": 0.25} for m in
                                  ("wsum", "wmnz", "mixed", "w_bordafuse")},
    "w_condorcet": {"step": 0.2}}
"""Grids for the random optimisation cases (gamma's starts at 0.0, as ranx's with
step 0.1; RBC's without phi = 0 and 1, where every list ties; weighted Condorcet's
without a weight of 0.5, where votes tie)."""


def norm_key(norm: str | None) -> str:
    return "none" if norm is None else norm


@cache
def fuse_cases() -> dict[str, dict[str, Any]]:
    """test_fusion.py: ranx's fixture runs, ten sets of three runs of the same five
    documents (Condorcet's majority is an order), and per normalisation
    :data:`RANDOM_RUNS` random cases (every other one with every list non-empty);
    each with the norms it is fused with."""
    from polars_rank.fusion import NORMS
    cases = {"fixtures": {"frame": long([RUN_1, RUN_2, RUN_3]), "systems": [0, 1, 2],
                          "weights": WEIGHTS, "norms": [None, *NORMS]}}
    rng = np.random.default_rng(0)
    for i in range(10):  # three runs of the same five documents: a majority is an order
        rows = [{"system": s, "qid": "q", "docid": f"d{d:02}", "score": float(rng.random())}
                for s in range(3) for d in range(5)]
        cases[f"ordered-{i}"] = {"frame": pl.DataFrame(rows, schema=SCHEMA),
                                 "systems": [0, 1, 2], "weights": [1.0] * 3,
                                 "norms": ["min-max"], "methods": ["condorcet"]}
    for norm in (None, *NORMS):
        for i in range(RANDOM_RUNS):
            name = f"random-{norm_key(norm)}-{i}"
            frame, systems, weights = random_runs(rng_for(name), complete=i % 2 == 1)
            cases[name] = {"frame": frame, "systems": systems, "weights": weights,
                           "norms": [norm]}
    return cases


@cache
def optimize_cases() -> dict[str, dict[str, Any]]:
    """test_fusion_optimize.py: ranx's fixture runs with its default grid and metric,
    per method; twelve random cases per method (test_fusion_optimize's draws)."""
    from polars_rank.fusion._grid import OPTIMIZABLE
    cases = {}
    for method in OPTIMIZABLE:
        cases[f"fixtures-{method}"] = {
            "frame": long([RUN_1, RUN_2, RUN_3]), "qrels": FIXTURE_QRELS,
            "systems": [0, 1, 2], "method": method, "norm": "min-max", "metric": "ndcg",
            "grid": {}}
    for method in OPTIMIZABLE:
        rng = np.random.default_rng(sum(map(ord, method)))
        for i in range(12):
            frame, qrels, systems = random_optimization(rng, full=method == "w_condorcet")
            norm = ["min-max", None, "zmuv", "max"][i % 4] if method in (
                "wsum", "wmnz", "mixed", "gmnz") else "min-max"
            cases[f"random-{method}-{i}"] = {
                "frame": frame, "qrels": qrels, "systems": systems, "method": method,
                "norm": norm, "metric": OPTIMIZATION_METRICS[i % len(OPTIMIZATION_METRICS)],
                "grid": SMALL_GRIDS[method]}
    return cases


@cache
def trained_cases() -> dict[str, dict[str, Any]]:
    """test_fusion_trained.py: ranx's fixtures (its probfuse_test.py's runs with two
    segments, bayesfuse_test.py's with three) trained and fused on themselves, per
    norm; :data:`RANDOM_TRAINING` random cases per norm of :data:`TRAINED_NORMS`; the
    long lists (min-max, 7). Each with every trained method."""
    from polars_rank.fusion import NORMS
    cases: dict[str, dict[str, Any]] = {}
    runs, bayes = long([RUN_1, RUN_2, RUN_3]), long([BAYES_RUN_1, BAYES_RUN_2])
    for norm in (n for n in (None, *NORMS) if n != "borda"):
        cases[f"fixtures-{norm_key(norm)}"] = {
            "train": runs, "test": runs, "qrels": qrels_frame(QRELS), "systems": [0, 1, 2],
            "norm": norm, "n": 2}
        cases[f"bayes-{norm_key(norm)}"] = {
            "train": bayes, "test": bayes, "qrels": qrels_frame(BAYES_QRELS),
            "systems": [0, 1], "norm": norm, "n": 3}
    for norm in TRAINED_NORMS:
        for i in range(RANDOM_TRAINING):
            name = f"random-{norm_key(norm)}-{i}"
            train, test, qrels, systems, n = random_training(rng_for(name))
            cases[name] = {"train": train, "test": test, "qrels": qrels, "systems": systems,
                           "norm": norm, "n": n}
    train, test, qrels = long_lists()
    cases["long"] = {"train": train, "test": test, "qrels": qrels, "systems": [0, 1, 2],
                     "norm": "min-max", "n": 7}
    return cases


CLI_CASES: list[tuple[str, str, list[str], dict[str, Any]]] = [
    ("rrf", "min-max", [], {}),
    ("rrf", "none", ["k=10"], {"k": 10}),
    ("sum", "min-max", [], {}),
    ("mnz", "zmuv", [], {}),
    ("wsum", "min-max", ["weights=0.2,0.5,0.3"], {"weights": [0.2, 0.5, 0.3]}),
    ("rbc", "max", ["phi=0.8"], {"phi": 0.8}),
    ("isr", "rank", [], {}),
]
"""test_cli_fuse.py: method, norm, the command's --param values, fuse's params."""


@cache
def cli_cases() -> dict[str, dict[str, Any]]:
    runs = cli_runs()
    return {f"{m}-{n}": {"runs": runs, "method": m, "norm": n, "params": p}
            for m, n, _, p in CLI_CASES}


CASES: dict[str, Callable[[], dict[str, dict[str, Any]]]] = {
    "fuse": fuse_cases, "optimize": optimize_cases, "trained": trained_cases, "cli": cli_cases}


# ------------------------------------------------------------ hashes, the files
def _plain(value: Any) -> Any:
    if isinstance(value, pl.DataFrame):
        return {"columns": value.columns, "rows": [list(r) for r in value.rows()]}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def case_hash(case: dict[str, Any]) -> str:
    """A hash of a case's inputs (rows in their order, floats to the last bit)."""
    text = json.dumps(_plain(case), sort_keys=True, default=float.hex)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def pack(values: list[float]) -> Any:
    """A list of floats, runs of a repeated value as ``[value, count]`` pairs when
    that is shorter (BayesFuse's 1,000 log-odds are mostly the same few values)."""
    runs: list[list[Any]] = []
    for v in values:
        if runs and runs[-1][0] == v and math.copysign(1, runs[-1][0]) == math.copysign(1, v):
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    return {"runs": runs} if 2 * len(runs) < len(values) else list(values)


def unpack(packed: Any) -> list[float]:
    if isinstance(packed, dict):
        return [v for v, n in packed["runs"] for _ in range(n)]
    return list(packed)


@cache
def recorded(kind: str) -> dict[str, Any]:
    """The fixture file of ``kind`` (a key of :data:`FILES`), as written by record_ranx."""
    path = FIXTURES / FILES[kind]
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def recorded_case(kind: str, name: str) -> dict[str, Any]:
    """ranx's recorded answers for one case, after checking its inputs' hash."""
    case = recorded(kind)["cases"][name]
    assert case["inputs"] == case_hash(CASES[kind]()[name]), (
        f"{FILES[kind]}: case {name!r} is not what tests/ranx_cases.py builds; "
        "run python tests/record_ranx.py")
    return case  # type: ignore[no-any-return]


def fused_dict(recorded_run: dict[str, dict[str, float]]) -> dict[tuple[str, str], float]:
    """A recorded fused run ({qid: {docid: score}}) as {(qid, docid): score}."""
    return {(q, d): float(s) for q, docs in recorded_run.items() for d, s in docs.items()}
