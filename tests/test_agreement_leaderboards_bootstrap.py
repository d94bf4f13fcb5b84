"""leaderboard_bootstrap and its (query x system) matrix against plain-Python references.

The matrix of valid data takes a quick way (hash joins with the sorted keys, one
scatter) and everything else the checked way (every check in turn, then a sort of the
rows): both must give the same matrix for every key type, whatever the row order. The
bootstrap is recomputed here one resample at a time from the same draws (one
``integers`` call for all resamples, counts by a per-row ``Counter``), with competition
positions ("1, 1, 3") and percentiles written out by hand.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter

import numpy as np
import polars as pl
import pytest

import polars_rank.agreement._leaderboards.data as data
from polars_rank.agreement import leaderboard_bootstrap
from polars_rank.errors import InvalidDataError

KEYS = {
    "str": pl.Series(["b", "B", "ä", "", "a1"]),
    "int": pl.Series([3, -1, 7, 0, 12]),
    "categorical": pl.Series(["s3", "s1", "s0", "s2", "s4"], dtype=pl.Categorical),
    "enum": pl.Series(["z", "a", "m", "b", "c"], dtype=pl.Enum(["z", "m", "c", "b", "a"])),
    "float with NaN": pl.Series([0.5, float("nan"), 2.0, -3.0, 1e9]),
    "bool": pl.Series([True, False]),
    "date": pl.Series([dt.date(2020, 1, i + 1) for i in range(5)]),
    "datetime": pl.Series([dt.datetime(2020, 1, 1, i) for i in range(5)]),
}


def long(systems: pl.Series, queries: pl.Series, values: np.ndarray) -> pl.DataFrame:
    """One row per (system, query), values[query, system]."""
    s, q = len(systems), len(queries)
    return pl.DataFrame({"system": systems.gather(np.repeat(np.arange(s), q)),
                         "qid": queries.gather(np.tile(np.arange(q), s)),
                         "value": values.T.reshape(-1)})


@pytest.mark.parametrize("system_key", list(KEYS))
@pytest.mark.parametrize("query_key", ["int", "str", "float with NaN", "date"])
def test_the_quick_matrix_is_the_checked_one(system_key: str, query_key: str) -> None:
    systems, queries = KEYS[system_key], KEYS[query_key]
    values = np.random.default_rng(len(systems)).random((len(queries), len(systems)))
    frame = long(systems, queries, values)
    by_key = {(repr(s), repr(q)): v for s, q, v in frame.iter_rows()}
    for rows in (frame, frame.reverse(), frame.sample(fraction=1.0, shuffle=True, seed=1)):
        quick = data.quick_matrix(rows, system="system", query="qid", value="value")
        checked = data.checked_matrix(rows, system="system", query="qid", value="value")
        assert quick is not None
        assert repr(quick[0]) == repr(checked[0]) == repr(systems.sort().to_list())
        assert repr(quick[1]) == repr(checked[1]) == repr(queries.sort().to_list())
        assert np.array_equal(quick[2], checked[2])
        assert quick[2].flags.f_contiguous  # the layout of main's pivot: the same sums
        assert checked[2].flags.f_contiguous
        assert all(quick[2][j, i] == by_key[repr(s), repr(q)]
                   for i, s in enumerate(quick[0]) for j, q in enumerate(quick[1]))
    out = leaderboard_bootstrap(frame, n_resamples=20)
    assert np.allclose(np.sort(out.get_column("mean").to_numpy()),
                       np.sort(values.mean(axis=0)), rtol=1e-14, atol=0)


def test_the_quick_matrix_hands_bad_data_to_the_checks() -> None:
    values = np.arange(12, dtype=np.float64).reshape(4, 3)
    good = long(pl.Series(["a", "b", "c"]), pl.Series([1, 2, 3, 4]), values)
    zeros = long(pl.Series(["a", "b", "c"]), pl.Series([0.0, -0.0, 1.0, 2.0]), values)
    bad = {
        "two rows for system 'a', query 1": pl.concat([good, good.head(1)]),
        "system 'a' has no value for query 1": good.tail(-1),
        "has null values": good.with_columns(qid=pl.when(pl.col("value") == 5)
                                             .then(None).otherwise(pl.col("qid"))),
        "holds inf for system 'b', query 2": good.with_columns(
            value=pl.when(pl.col("value") == 4).then(float("inf")).otherwise("value")),
        "at least two systems": good.filter(pl.col("system") == "a"),
        "two rows for system 'a', query": zeros,  # -0.0 and 0.0: one query to group_by
    }
    for message, frame in bad.items():
        assert data.quick_matrix(frame, system="system", query="qid", value="value") is None
        with pytest.raises(InvalidDataError, match=message):
            leaderboard_bootstrap(frame)
    assert data.quick_matrix(good, system="system", query="qid", value="value") is not None


@pytest.mark.parametrize("cells", [1, 7, 1 << 17])
def test_draw_counts_are_one_draw_for_all_resamples(cells: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data, "_COUNT_CELLS", cells)
    for n_queries, n_resamples in ((7, 13), (1, 4), (50, 3), (3, 1)):
        rng = np.random.default_rng(np.random.SeedSequence(entropy=5, spawn_key=(40, 3)))
        drawn = rng.integers(0, n_queries, size=(n_resamples, n_queries))
        want = [[Counter(row.tolist())[q] for q in range(n_queries)] for row in drawn]
        got = data.draw_counts(n_queries, n_resamples, 5)
        assert got.dtype == np.float64
        assert got.tolist() == want


def percentile(xs: list[float], p: float) -> float:
    """NumPy's default (linear) percentile of a list, by hand."""
    xs = sorted(xs)
    h = (len(xs) - 1) * p / 100
    lo = math.floor(h)
    return xs[lo] + (h - lo) * (xs[min(lo + 1, len(xs) - 1)] - xs[lo])


def test_the_bootstrap_is_a_loop_over_resamples() -> None:
    n_sys, n_q, n_res, alpha = 5, 9, 60, 0.2
    values = np.round(np.random.default_rng(3).random((n_q, n_sys)), 1)
    values[:, 1] = np.minimum(values[:, 1] + 0.3, 1.0)
    values[:, 3] = values[:, 1]  # two systems tied in every resample, often for the lead
    systems = pl.Series([f"s{i}" for i in range(n_sys)])
    frame = long(systems, pl.Series(np.arange(n_q) * 10), values)
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=4)
    rng = np.random.default_rng(np.random.SeedSequence(entropy=8, spawn_key=(40, 3)))
    drawn = rng.integers(0, n_q, size=(n_res, n_q))
    cols = values.T.tolist()
    spots: list[list[int]] = [[] for _ in range(n_sys)]
    for row in drawn:
        means = [sum(col[q] for q in row) / n_q for col in cols]
        for i, m in enumerate(means):  # competition positions: 1 + how many are above
            spots[i].append(1 + sum(o > m + 1e-9 for o in means))
    want = {
        f"s{i}": (math.floor(percentile(s, 100 * alpha / 2)),
                  math.ceil(percentile(s, 100 * (1 - alpha / 2))), s.count(1) / n_res)
        for i, s in enumerate(spots)}
    for rows in (frame, shuffled):
        out = leaderboard_bootstrap(rows, n_resamples=n_res, alpha=alpha, seed=8)
        got = {s: (lo, hi, p) for s, lo, hi, p in
               out.select("system", "position_low", "position_high", "p_first").iter_rows()}
        assert got == want
        dist = leaderboard_bootstrap(rows, n_resamples=n_res, seed=8, distribution=True)
        shares = {(s, r): v for s, r, v in dist.iter_rows()}
        assert shares == {(f"s{i}", r): c / n_res for i, s in enumerate(spots)
                          for r, c in sorted(Counter(s).items())}
    assert want["s1"] == want["s3"]
    assert sum(p for _, _, p in want.values()) > 1  # ties for the lead count for both
