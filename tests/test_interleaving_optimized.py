"""Optimized interleaving (issue 39, item 1) against mpkato/interleaving's programme."""

from __future__ import annotations

import random

import numpy as np
import polars as pl
import pytest

from polars_rank.errors import InvalidDataError
from polars_rank.online import credit, interleave, optimized_lists
from polars_rank.online._interleaving.optimized import _candidates
from polars_rank.online._interleaving.runs import Rankings
from tests import interleaving_reference as ref
from tests.test_interleaving import lists_of, runs_of


def test_candidates_of_the_reference_case() -> None:
    # test_init_sampling / test_secure_sampling: the three prefix-constrained lists
    d = optimized_lists(runs_of({0: [[1, 2], [2, 3]]}), rank="rank")
    assert sorted(map(tuple, d["docid"].to_list())) == [(1, 2), (2, 1), (2, 3)]
    assert abs(d["probability"].sum() - 1) < 1e-12


def test_same_programme_as_the_reference() -> None:
    rng = random.Random(0)
    cases = {q: [rng.sample(range(6), rng.randint(2, 4)) for _ in range(rng.choice([2, 3]))]
             for q in range(25)}
    infeasible = {10, 16, 18, 19, 22, 24}
    with pytest.raises(InvalidDataError, match=r"infeasible.*qid=10"):
        optimized_lists(runs_of(cases), rank="rank")
    for q in infeasible:  # the reference's programme on our candidates: infeasible too
        r = Rankings(runs_of({q: cases[q]}), query="qid", system="system", doc="docid",
                     score="score", rank="rank")
        paths = _candidates(r, r.lengths().select("qid", _limit="_len"))["_path"].to_list()
        o = ref.Optimized(cases[q])
        assert not o._compute_probabilities(cases[q], [o.credit_ranking(cases[q], x)
                                                       for x in paths])[0]
        with pytest.raises(InvalidDataError, match=rf"qid={q}\b"):
            optimized_lists(runs_of({q: cases[q]}), rank="rank")
    cases = {q: v for q, v in cases.items() if q not in infeasible}
    got = optimized_lists(runs_of(cases), rank="rank")
    worst_fun = worst_cons = 0.0
    for q, lists in cases.items():
        rows = got.filter(pl.col("qid") == q)
        o = ref.Optimized(lists)
        rankings = [o.credit_ranking(lists, x) for x in rows["docid"].to_list()]
        ok, _, fun = o._compute_probabilities(lists, rankings)
        assert ok
        p = rows["probability"].to_numpy()
        ours = float(o._sensitivity(lists, rankings) @ p)
        cons = o._unbiasedness_constraints(lists, rankings) @ p
        worst_fun = max(worst_fun, abs(ours - fun))
        worst_cons = max(worst_cons, float(np.max(np.abs(cons))), abs(p.sum() - 1))
    # the optimum's value is unique (the solution need not be)
    assert worst_fun < 1e-9
    assert worst_cons < 1e-9


def test_lists_and_credit_as_the_reference() -> None:
    rng = random.Random(1)
    cases = {q: [rng.sample(range(8), rng.randint(3, 5)) for _ in range(2)] for q in range(30)}
    runs = runs_of(cases)
    dist = optimized_lists(runs, rank="rank")
    possible = {(q, tuple(x)) for q, x, p in dist.iter_rows() if p > 0}
    shown = interleave(runs, "optimized", seed=3, rank="rank")
    assert shown["system"].null_count() == shown.height
    lists = lists_of(shown)
    assert {(q, x) for q, x in lists.items()} <= possible
    assert len(lists) == len(cases)
    clicks = {q: [i for i in range(len(x)) if rng.random() < 0.5] for q, x in lists.items()}
    log = shown.with_columns(impression=pl.col("qid"), click=pl.Series([
        int(p - 1 in clicks[q]) for q, p in zip(shown["qid"], shown["position"], strict=True)]))
    got = credit(log, runs, method="optimized", rank="rank")
    worst = 0.0
    for q, x in lists.items():
        o = ref.Optimized(cases[q])
        scores = ref.Optimized.compute_scores(o.credit_ranking(cases[q], x), clicks[q])
        row = got.filter(pl.col("impression") == q).row(0, named=True)
        worst = max(worst, abs(row["credit"] - scores[0]), abs(row["other_credit"] - scores[1]))
        assert (row["win"], row["loss"]) == (int(scores[0] > scores[1]), int(scores[0] < scores[1]))
    assert worst < 1e-12
