"""A list's value does not depend on where its rows sit in the frame (issue 36).

Polars 2.1's lazy ``group_by`` adds a group's float values in a way that depends on
the group's position in the frame: the same rows, in the same order, give sums that
differ in the last bit when other groups come before them (the canary below). A
run's queries come in any order, so every metric sum goes through
:func:`polars_rank._engine.sums.group_sum`. These tests move whole lists, keeping each
list's rows in their order, and ask for the same bits: from ``evaluate`` (every
trec_eval measure, and the bounds under unjudged documents) and from the expressions
in a lazy ``group_by``.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import polars as pl
import pytest
from test_against_reference import METRICS, Params, Row, frame
from test_ties import DEFAULT_METRICS, bits

import polars_rank as pr
from polars_rank._engine.compat import POLARS_2
from polars_rank._language.trec_measures import SETS, expand


def _bits(values: list[float | None]) -> list[object]:
    return [bits(v) for v in values]


def _lists(seed: int, n_lists: int = 8) -> list[pl.DataFrame]:
    """Lists of 60-140 rows, scores from 40 values (ties), labels 0-3, some unjudged."""
    rnd = random.Random(seed)
    out = []
    for q in range(n_lists):
        n = rnd.randint(60, 140)
        out.append(pl.DataFrame({
            "qid": [f"q{q}"] * n, "docid": [f"d{i}" for i in range(n)],
            "score": [float(rnd.randint(0, 40)) for _ in range(n)],
            "rel": [None if rnd.random() < 0.2 else rnd.randint(0, 3) for _ in range(n)],
        }, schema={"qid": pl.String, "docid": pl.String, "score": pl.Float64,
                   "rel": pl.Int64}))
    return out


def _arrangements(lists: list[pl.DataFrame], count: int) -> list[pl.DataFrame]:
    """The lists concatenated in ``count`` orders (each list's rows kept in order)."""
    out = []
    for seed in range(count):
        order = list(range(len(lists)))
        random.Random(seed).shuffle(order)
        out.append(pl.concat([lists[i] for i in order]))
    return out


def test_canary_polars_group_sums_follow_the_groups_position() -> None:
    """The Polars defect group_sum works around (a canary: it fails when Polars fixes
    it, and then group_sum can go). Polars 1.x adds the same bits; 2.1 does not."""
    rng = np.random.default_rng(1)
    blocks = [rng.integers(0, 4, 100) / np.log2(np.arange(100) + 2) for _ in range(3)]
    sums = set()
    for order in ([0, 1, 2], [1, 0, 2], [2, 1, 0], [1, 2, 0]):
        df = pl.DataFrame({"g": np.repeat(np.arange(3), 100), "id": np.repeat(order, 100),
                           "x": np.concatenate([blocks[j] for j in order])})
        out = (df.with_columns(pl.col("g").set_sorted()).lazy()
               .group_by("g").agg(pl.col("x").sum(), pl.col("id").first()).collect())
        sums.add(tuple(out.sort("id")["x"].to_list()))
    assert (len(sums) > 1) == POLARS_2, sums


@pytest.mark.parametrize("options", [{}, {"unjudged": "high"}, {"bounds": True}],
                         ids=["plain", "unjudged-high", "bounds"])
def test_evaluate_gives_a_list_the_same_bits_wherever_it_sits(options: dict[str, object]
                                                              ) -> None:
    lists = _lists(seed=5)
    runs = _arrangements(lists, 4)
    qrels = pl.concat(lists).filter(pl.col("rel").is_not_null()).select("qid", "docid", "rel")
    measures = ([m for spec in SETS["all_trec"] if (e := expand(spec)) is not None
                 for _, m in e.lines if m not in ("runid", "relstring")] if not options
                else ["ndcg", "ndcg_cut_10", "map", "P_10", "rbp", "err", "infap"])
    got = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unjudged documents, as meant
        for run in runs:
            got.append(pr.evaluate(run.drop("rel"), qrels, measures, per_query=True,
                                   **options).sort("qid"))
        got.append(pr.evaluate(runs[0], None, measures, per_query=True, **options).sort("qid"))
        got.append(pr.evaluate(runs[1], None, measures, per_query=True, **options).sort("qid"))
    moved = sorted(
        name for name in got[0].columns if got[0][name].dtype == pl.Float64
        and (any(_bits(o[name].to_list()) != _bits(got[0][name].to_list()) for o in got[1:4])
             or _bits(got[5][name].to_list()) != _bits(got[4][name].to_list())))
    assert moved == []


@pytest.mark.parametrize("doc", [False, True], ids=["default", "doc"])
def test_expressions_give_a_list_the_same_bits_wherever_it_sits(doc: bool) -> None:
    rnd = random.Random(3)
    params = Params(k=5)
    parts = []
    for q in range(8):
        rows: list[Row] = [(float(rnd.randint(0, 3)), float(rnd.randint(0, 40)))
                           for _ in range(rnd.randint(60, 140))]
        parts.append(frame(rows, params).with_columns(qid=pl.lit(f"q{q}")).with_row_index(
            "docid").with_columns(pl.col("docid").cast(pl.String)))
    by = {"by": "score", "doc": "docid"} if doc else {"by": "score"}
    exprs = [METRICS[n][0](params, by).alias(n) for n in DEFAULT_METRICS]
    got = []
    for arranged in _arrangements(parts, 3):
        for flagged in (arranged, arranged.sort("qid", maintain_order=True)):
            got.append(flagged.lazy().group_by("qid").agg(exprs).sort("qid").collect())
    moved = [name for name in DEFAULT_METRICS
             if any(_bits(o[name].to_list()) != _bits(got[0][name].to_list()) for o in got[1:])]
    assert moved == []
