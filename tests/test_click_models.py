"""Click models against PyClick (transcribed) and DBN against the book's EM, in plain Python."""

from __future__ import annotations

import math
import random
from typing import Any

import polars as pl
import pytest

from polars_rank.online import ClickModel, fit_click_model, simulate_clicks
from tests import click_models_reference as ref

N_RANK = 10
TOL = 1e-9


def ranking(impressions: int, seed: int, queries: int = 3, items: int = 14) -> pl.DataFrame:
    rng = random.Random(seed)
    rows = []
    for i in range(impressions):
        q = rng.randrange(queries)
        for p, d in enumerate(rng.sample(range(items), N_RANK)):
            rows.append((i, p + 1, f"q{q}", f"d{d}"))
    return pl.DataFrame(rows, schema=["impression", "position", "query", "item"], orient="row")


def truth(model: str, seed: int = 1, queries: int = 3, items: int = 14) -> ClickModel:
    rng = random.Random(seed)
    keys = [(f"q{q}", f"d{d}") for q in range(queries) for d in range(items)]
    attr = pl.DataFrame({"query": [k[0] for k in keys], "item": [k[1] for k in keys],
                         "attractiveness": [rng.uniform(0.05, 0.9) for _ in keys]})
    sat = attr.with_columns(pl.Series("satisfaction", [rng.uniform(0.1, 0.8) for _ in keys])
                            ).drop("attractiveness")
    ubm_exam = pl.DataFrame(
        [(r, p, 0.95 / (1 + 0.4 * (r - p - 1))) for r in range(1, N_RANK + 1) for p in range(r)],
        schema=["position", "previous_click", "examination"], orient="row")
    given: dict[str, Any] = {
        "pbm": {"examination": {r: 0.95 / r ** 0.7 for r in range(1, N_RANK + 1)}},
        "cascade": {},
        "dcm": {"continuation": {r: 0.7 - 0.03 * r for r in range(1, N_RANK + 1)}},
        "ubm": {"examination": ubm_exam},
        "sdbn": {"satisfaction": sat},
        "dbn": {"satisfaction": sat, "continuation": 0.85},
        "ccm": {"tau_1": 0.8, "tau_2": 0.6, "tau_3": 0.2},
    }[model]
    return ClickModel.from_parameters(model, attractiveness=attr, **given)  # type: ignore[arg-type]


def sessions(log: pl.DataFrame) -> list[ref.SearchSession]:
    out = []
    for (_,), rows in log.sort("impression", "position").group_by("impression",
                                                                   maintain_order=True):
        session = ref.SearchSession(rows["query"][0])
        session.web_results = [ref.SearchResult(d, int(c))
                               for d, c in zip(rows["item"], rows["click"], strict=True)]
        out.append(session)
    return out


def attr_diff(fit: ClickModel, values: dict[tuple[str, str], float]) -> float:
    got = {(q, d): v for q, d, v in fit.attractiveness.iter_rows()}
    assert got.keys() == values.keys()
    return max(abs(got[k] - values[k]) for k in got)


def pyclick_attr(model: Any) -> dict[tuple[str, str], float]:
    container = model.params[model.param_names.attr]._container
    return {(q, d): p.value() for q in container for d, p in container[q].items()}


@pytest.fixture(scope="module")
def logs() -> dict[str, pl.DataFrame]:
    shown = ranking(150, seed=3)
    return {m: simulate_clicks(truth(m), shown, seed=5)
            for m in ("pbm", "cascade", "dcm", "ubm", "sdbn", "dbn", "ccm")}


@pytest.mark.parametrize("model", ["pbm", "ubm", "cascade", "dcm", "sdbn"])
def test_equals_pyclick(model: str, logs: dict[str, pl.DataFrame]) -> None:
    log, iterations = logs[model], 4
    fit = fit_click_model(log, model, iterations=iterations)  # type: ignore[arg-type]
    theirs = {"pbm": lambda: ref.PBM(iterations), "ubm": lambda: ref.UBM(iterations),
              "cascade": ref.CM, "dcm": ref.DCM, "sdbn": ref.SDBN}[model]()
    data = sessions(log)
    theirs.train(data)
    assert attr_diff(fit, pyclick_attr(theirs)) < TOL
    if model == "pbm":
        exam = [p.value() for p in theirs.params[theirs.param_names.exam]._container]
        ours = fit.parameters["examination"].sort("position")["examination"].to_list()
        assert max(abs(a - b) for a, b in zip(ours, exam, strict=True)) < TOL
    if model == "ubm":
        grid = theirs.params[theirs.param_names.exam]._container
        for r, prev, value in fit.parameters["examination"].iter_rows():
            prev0 = N_RANK - 1 if prev == 0 else prev - 1  # PyClick's "no click before": M - 1
            assert abs(grid[r - 1][prev0].value() - value) < TOL
    if model == "dcm":
        cont = [p.value() for p in theirs.params[theirs.param_names.cont]._container]
        got = dict(fit.parameters["continuation"].iter_rows())
        assert max(abs(got.get(r + 1, 0.5) - cont[r]) for r in range(N_RANK)) < TOL
    if model == "sdbn":
        container = theirs.params[theirs.param_names.sat]._container
        sat = {(q, d): p.value() for q in container for d, p in container[q].items()}
        for q, d, value in fit.parameters["satisfaction"].iter_rows():
            assert abs(sat[(q, d)] - value) < TOL
    # perplexity (PyClick's Perplexity) for every model; log-likelihood but the cascade's
    overall, at_rank = ref.perplexity(theirs, data)
    assert abs(fit.perplexity(log) - overall) < TOL
    ours_at = fit.perplexity_by_rank(log)["perplexity"].to_list()
    assert max(abs(a - b) for a, b in zip(ours_at, at_rank, strict=True)) < TOL
    if model != "cascade":
        per = fit.log_likelihood(log) / (len(data) * N_RANK)
        assert abs(per - ref.log_likelihood(theirs, data)) < TOL


def test_dbn_equals_the_book(logs: dict[str, pl.DataFrame]) -> None:
    log = logs["dbn"]
    fit = fit_click_model(log, "dbn", iterations=5)
    book = ref.BookDBN(5)
    book.train(sessions(log))
    assert attr_diff(fit, book.attr) < TOL
    sat = {(q, d): v for q, d, v in fit.parameters["satisfaction"].iter_rows()}
    assert sat.keys() == book.sat.keys()
    assert max(abs(sat[k] - book.sat[k]) for k in sat) < TOL
    assert abs(fit.parameters["continuation"].item() - book.gamma) < TOL


def test_ccm_equals_the_book(logs: dict[str, pl.DataFrame]) -> None:
    log = logs["ccm"]
    fit = fit_click_model(log, "ccm", iterations=5)
    book = ref.BookCCM(5)
    book.train(sessions(log))
    assert attr_diff(fit, book.attr) < TOL
    for k in range(3):
        assert abs(fit.parameters[f"tau_{k + 1}"].item() - book.tau[k]) < TOL


def _pyclick_dbn_with(fit: ClickModel) -> ref.DBN:
    """PyClick's DBN holding our parameters (its click probabilities are right)."""
    theirs = ref.DBN()
    names = theirs.param_names
    for table, name in (("attractiveness", names.attr), ("satisfaction", names.sat)):
        for q, d, value in fit.parameters[table].iter_rows():
            param = theirs.params[name].get(q, d)
            param._numerator, param._denominator = value, 1
    cont = theirs.params[names.cont].get()
    cont._numerator, cont._denominator = fit.parameters["continuation"].item(), 1
    return theirs


def test_dbn_likelihood_and_perplexity_equal_pyclick(logs: dict[str, pl.DataFrame]) -> None:
    log = logs["dbn"]
    fit = fit_click_model(log, "dbn", iterations=3)
    theirs, data = _pyclick_dbn_with(fit), sessions(log)
    assert abs(fit.log_likelihood(log) / (len(data) * N_RANK)
               - ref.log_likelihood(theirs, data)) < TOL
    assert abs(fit.perplexity(log) - ref.perplexity(theirs, data)[0]) < TOL


def test_pyclick_dbn_is_not_the_book_on_a_session_without_clicks() -> None:
    """PyClick's fault 1: a session without a click adds nothing to alpha's numerator."""
    log = pl.DataFrame({"impression": [1, 1, 1], "position": [1, 2, 3], "query": "q",
                        "item": ["a", "b", "c"], "click": [0, 0, 0]})
    theirs = ref.DBN(1)
    theirs.train(sessions(log))
    assert pyclick_attr(theirs) == {("q", k): 1 / 3 for k in "abc"}  # every rank "examined"
    fit = fit_click_model(log, "dbn", iterations=1)
    # exact: P(A_r = 1 | no click) = (1 - eps_r) alpha / (1 - eps_r X_r), > 0 below rank 1
    got = dict(zip(fit.attractiveness["item"], fit.attractiveness["attractiveness"], strict=True))
    book = ref.BookDBN(1)
    book.train(sessions(log))
    assert all(abs(got[k] - book.attr[("q", k)]) < TOL for k in "abc")
    assert abs(got["a"] - 1 / 3) < TOL  # rank 1 is examined: not attractive
    assert got["b"] > 0.4
    assert got["c"] > 0.4


def test_pyclick_dbn_differs_from_the_book(logs: dict[str, pl.DataFrame]) -> None:
    data = sessions(logs["dbn"])
    theirs, book = ref.DBN(3), ref.BookDBN(3)
    theirs.train(data)
    book.train(data)
    gap = max(abs(v - book.attr[k]) for k, v in pyclick_attr(theirs).items())
    assert gap > 0.01


def test_cascade_log_likelihood_is_the_books(logs: dict[str, pl.DataFrame]) -> None:
    """Above the first click a_r or 1 - a_r; below it no click (1) or a click (1e-6)."""
    log = logs["cascade"].head(200)
    fit = fit_click_model(log, "cascade")
    attr = {(q, d): v for q, d, v in fit.attractiveness.iter_rows()}
    want = 0.0
    for session in sessions(log):
        seen_click = False
        for result in session.web_results:
            a = attr.get((session.query, result.id), 0.5)  # seen only below a click
            if seen_click:
                want += math.log(1e-6) if result.click else 0.0
            else:
                want += math.log(a if result.click else 1 - a)
                seen_click = bool(result.click)
    assert abs(fit.log_likelihood(log) - want) < TOL
