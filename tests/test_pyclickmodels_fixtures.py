"""Our DBN against pyClickModels' (recorded: CI cannot build it), and what differs.

pyClickModels (WillianFuks/pyClickModels, commit e0515d8) was built and run by
``tests/record_pyclickmodels.py`` on the seeded logs of tests/pyclickmodels_cases.py,
every parameter started at 0.5 (tests/fixtures/pyclickmodels_init.patch), once as
shipped (C float) and once in double precision. The chain of checks:

1. the recorded logs are the ones the seeds draw now (a hash);
2. ``PyClickModelsDBN`` (tests/click_models_reference.py, its Cython transcribed)
   equals the double build to 1e-9 and the float build to its float precision;
3. the same transcription with its four switches set to the book's equals our DBN
   to 1e-9, on the recorded logs and on random ones;
4. each switch alone moves the parameters: the four differences (docs/click-models.md,
   "pyClickModels") are all there is between pyClickModels' DBN and ours, and each is
   a real one.

The case with purchases (pyClickModels' extension) checks the transcription only.
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rank.online import fit_click_model
from tests import click_models_reference as ref
from tests import pyclickmodels_cases as pc
from tests.budget import examples

TOL = 1e-9
FLOAT_TOL = 5e-6  # C float: about 1e-7 relative per operation; 1.4e-6 seen after 30 steps
BOOK: dict[str, Any] = {"exam": "conditional", "gamma_factor": "book",
                        "last_transition": False, "gamma_per_query": False}
CASES = pc.cases()
RECORDED = pc.recorded()

Params = tuple[dict[tuple[str, str], float], dict[tuple[str, str], float], float]


def ours(sessions: list[pc.Session], iterations: int) -> Params:
    assert not any(p for _, _, rows in sessions for _, _, p in rows)  # ours has no purchases
    log = pl.DataFrame([(i, r + 1, q, d, c) for i, q, rows in sessions
                        for r, (d, c, _) in enumerate(rows)],
                       schema=["impression", "position", "query", "item", "click"],
                       orient="row")
    fit = fit_click_model(log.sample(fraction=1.0, shuffle=True, seed=0), "dbn",
                          iterations=iterations)
    return ({(q, d): v for q, d, v in fit.attractiveness.iter_rows()},
            {(q, d): v for q, d, v in fit.parameters["satisfaction"].iter_rows()},
            fit.parameters["continuation"].item())


def transcribed(sessions: list[pc.Session], iterations: int, **switches: Any) -> Params:
    model = ref.PyClickModelsDBN(iterations, **switches)
    model.train(pc.by_query(sessions))
    return model.alpha, model.sigma, model.gamma


def recorded(build: str, name: str, iterations: int) -> Params:
    got = RECORDED["builds"][build][name][str(iterations)]
    alpha, sigma = ({(q, d): v for q, docs in got[p].items() for d, v in docs.items()}
                    for p in ("alpha", "sigma"))
    return alpha, sigma, got["gamma"]


def gap(a: Params, b: Params) -> float:
    """Largest difference over alpha, sigma (0.5 where one has no value: unseen) and gamma."""
    assert a[0].keys() == b[0].keys()
    return max(max(abs(a[0][k] - b[0][k]) for k in a[0]),
               max(abs(a[1].get(k, 0.5) - b[1].get(k, 0.5)) for k in a[0]),
               abs(a[2] - b[2]))


def test_recorded_logs_are_the_seeds_logs() -> None:
    assert RECORDED["inputs"] == {name: pc.case_hash(s) for name, s in CASES.items()}, (
        "tests/pyclickmodels_cases.py draws other logs than pyClickModels answered: "
        "record again (tests/record_pyclickmodels.py)")
    assert RECORDED["iterations"] == list(pc.ITERATIONS)
    assert sorted(RECORDED["builds"]) == ["double", "float"]
    assert all(sorted(RECORDED["builds"][b]) == sorted(CASES) for b in RECORDED["builds"])


def test_a_changed_log_changes_the_hash() -> None:
    sessions = CASES["one_query"]
    i, q, rows = sessions[7]
    flipped = [(i, q, [(d, 1 - c, p) if r == 2 else (d, c, p)
                       for r, (d, c, p) in enumerate(rows)])]
    assert pc.case_hash(sessions[:7] + flipped + sessions[8:]) != pc.case_hash(sessions)


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("iterations", pc.ITERATIONS)
def test_transcription_is_pyclickmodels(name: str, iterations: int) -> None:
    mine = transcribed(CASES[name], iterations)
    assert mine[1].keys() == recorded("double", name, iterations)[1].keys()
    assert gap(mine, recorded("double", name, iterations)) < TOL
    assert gap(mine, recorded("float", name, iterations)) < FLOAT_TOL


@pytest.mark.parametrize("name", pc.OURS)
@pytest.mark.parametrize("iterations", pc.ITERATIONS)
def test_the_book_switches_give_our_dbn(name: str, iterations: int) -> None:
    assert gap(transcribed(CASES[name], iterations, **BOOK), ours(CASES[name], iterations)) < TOL


@pytest.mark.parametrize(("switch", "name"), [
    ("exam", "one_query"), ("gamma_factor", "one_query"), ("last_transition", "few_clicks"),
    ("gamma_per_query", "three_queries")])
def test_each_difference_is_a_real_one(switch: str, name: str) -> None:
    """pyClickModels' own value of one switch, the book's for the others, moves the fit
    (at 30 iterations, by 1e-3 or more) away from ours."""
    only = {k: v for k, v in BOOK.items() if k != switch}
    assert gap(transcribed(CASES[name], 30, **only), ours(CASES[name], 30)) > 5e-4


def test_one_step_of_satisfaction_is_ours() -> None:
    """sigma's update is the book's: one step from 0.5 on one query (gamma is then
    still 0.5 for every session) gives our sigma, in pyClickModels' double build."""
    theirs, mine = recorded("double", "one_query", 1), ours(CASES["one_query"], 1)
    assert max(abs(theirs[1][k] - mine[1].get(k, 0.5)) for k in theirs[1]) < TOL
    assert gap(theirs, mine) > 1e-3  # but not alpha and gamma


@settings(max_examples=examples(8), deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(2, 6))
def test_the_book_switches_give_our_dbn_on_random_logs(seed: int, queries: int,
                                                       length: int) -> None:
    rng = random.Random(seed)
    sessions = pc.simulate(seed, queries, length + 2, 30, (1, length),
                           (rng.uniform(0.0, 0.3), rng.uniform(0.4, 1.0)), rng.random())
    book = transcribed(sessions, 4, **BOOK)
    assert gap(book, ours(sessions, 4)) < TOL
    dbn = ref.BookDBN(4)  # and the book's DBN written as its recursions (no factors)
    dbn.train([session(q, rows) for _, q, rows in sessions])
    assert gap(book, (dbn.attr, dbn.sat, dbn.gamma)) < TOL


def session(query: str, rows: list[tuple[str, int, int]]) -> ref.SearchSession:
    out = ref.SearchSession(query)
    out.web_results = [ref.SearchResult(d, c) for d, c, _ in rows]
    return out
