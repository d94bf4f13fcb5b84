"""preference() and impressions_needed() (issue 39, item 1): scipy's binomtest, simulation."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from scipy import stats

from polars_rank.errors import InvalidDataError
from polars_rank.online import impressions_needed, preference
from polars_rank.stats import adjust


def credits_of(counts: list[tuple[str, int, int, int]]) -> pl.DataFrame:
    rows = []
    for seg, w, lost, t in counts:
        rows += [(seg, "A", "B", 1, 0, 0)] * w + [(seg, "A", "B", 0, 1, 0)] * lost
        rows += [(seg, "A", "B", 0, 0, 1)] * t
    return pl.DataFrame(rows, schema=["seg", "system", "other", "win", "loss", "tie"],
                        orient="row")


def test_sign_test_is_binomtest() -> None:
    rng = np.random.default_rng(0)
    counts = [(f"s{i:03d}", int(w), int(lost), int(t)) for i, (w, lost, t) in
              enumerate(rng.integers(0, 40, size=(120, 3)))]
    counts += [("x0", 0, 0, 3), ("x1", 5, 5, 0), ("x2", 0, 7, 1), ("x3", 9, 0, 0)]
    got = preference(credits_of(counts), group_by="seg", alpha=0.1, correction="bh")
    worst_p = worst_ci = worst_delta = 0.0
    for row, (_, w, lost, t) in zip(got.iter_rows(named=True), sorted(counts), strict=True):
        assert (row["wins"], row["losses"], row["ties"]) == (w, lost, t)
        o = np.array([1.0] * w + [0.0] * lost + [0.5] * t)
        delta = o.mean() - 0.5
        half = stats.norm.ppf(0.95) * o.std(ddof=1) / np.sqrt(len(o))
        worst_delta = max(worst_delta, abs(row["delta"] - delta),
                          abs(row["delta_ci_low"] - (delta - half)))
        if w + lost == 0:
            assert row["p_value"] == 1.0
            assert row["share"] is None
            continue
        test = stats.binomtest(w, w + lost)
        ci = test.proportion_ci(confidence_level=0.9)
        worst_p = max(worst_p, abs(row["p_value"] - test.pvalue))
        worst_ci = max(worst_ci, abs(row["share_ci_low"] - ci.low),
                       abs(row["share_ci_high"] - ci.high))
    assert worst_p < 1e-12
    assert worst_ci < 1e-12
    assert worst_delta < 1e-12
    assert got["p_adjusted"].to_list() == pytest.approx(adjust(got["p_value"].to_list(), "bh"),
                                                        abs=0)
    assert got["significant"].to_list() == [p < 0.1 for p in got["p_adjusted"]]


def test_binomtest_exhaustive_small() -> None:
    counts = [(f"{n:02d}-{w:02d}", w, n - w, 0) for n in range(1, 31) for w in range(n + 1)]
    got = preference(credits_of(counts), group_by="seg", correction=None)
    expected = [stats.binomtest(w, w + lost).pvalue for _, w, lost, _ in sorted(counts)]
    assert np.max(np.abs(got["p_value"].to_numpy() - expected)) < 1e-12


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="correction must be one of"):
        preference(credits_of([("s", 1, 0, 0)]), correction="sidak")  # type: ignore[arg-type]
    for kwargs in ({"preference": 0.5}, {"preference": 1.2}, {"preference": 0.6, "tie_rate": 1.0},
                   {"preference": 0.6, "alpha": 0.0}):
        with pytest.raises(ValueError, match="must"):
            impressions_needed(**kwargs)  # type: ignore[arg-type]


def _doc_credits() -> pl.DataFrame:
    return pl.DataFrame({"system": "A", "other": "B", "win": [1] * 15 + [0] * 10,
                         "loss": [0] * 15 + [1] * 5 + [0] * 5, "tie": [0] * 20 + [1] * 5})


def test_preference_checks_the_credits() -> None:
    # were counted as they came: loss=1 everywhere gave 15 wins, 25 losses of 25
    # impressions; win=2*win 30 wins of 25 (p=2e-5); a null win was dropped
    c = _doc_credits()
    one = "exactly one of win, loss, tie must be 1"
    cases = [
        (c.with_columns(loss=pl.lit(1)), f"{one}.*system='A', other='B', win=0, loss=1, tie=1"),
        (c.with_columns(win=2 * pl.col("win")), r"'win' must be 0 or 1.*win=2, loss=0, tie=0"),
        (c.with_columns(win=pl.when(pl.col("tie") == 1).then(None).otherwise(pl.col("win"))),
         r"'win' must be 0 or 1 \(not null\).*win=None, loss=0, tie=1"),
        (c.with_columns(tie=pl.lit(0)), f"{one}.*win=0, loss=0, tie=0"),
        (c.with_columns(tie=pl.lit(float("nan"))), "'tie' must be 0 or 1"),
        (c.drop("tie", "other"), r"missing column\(s\) \['other', 'tie'\]"),
        (c.with_columns(win=pl.col("win").cast(pl.String)), "'win' must hold 0/1 numbers"),
    ]
    for frame, match in cases:
        with pytest.raises(InvalidDataError, match=match):
            preference(frame)
    with pytest.raises(InvalidDataError, match=r"missing column\(s\) \['seg'\]"):
        preference(c, group_by="seg")
    row = preference(c.with_columns(pl.col("win", "loss", "tie").cast(pl.Boolean))).row(0)
    assert row[:6] == ("A", "B", 25, 15, 5, 5)
    assert preference(c.with_columns(pl.col("win", "loss", "tie").cast(pl.Float32))).row(0) \
        == preference(c).row(0)


@pytest.mark.parametrize("name", ["p_value", "wins", "system", "share"])
def test_preference_group_by_named_like_a_result_column(name: str) -> None:
    # p_value was overwritten (the slice labels gone); wins raised Polars' DuplicateError
    c = _doc_credits().with_columns(pl.lit(1).alias(name)) if name != "system" \
        else _doc_credits()
    with pytest.raises(ValueError, match=re.escape(
            f"group_by columns may not be named like result columns: ['{name}']")):
        preference(c, group_by=name)


@pytest.mark.parametrize(("p", "tie_rate", "power"), [(0.6, 0.3, 0.8), (0.45, 0.0, 0.9),
                                                      (0.55, 0.6, 0.8)])
def test_impressions_needed_by_simulation(p: float, tie_rate: float, power: float) -> None:
    n = impressions_needed(p, alpha=0.05, power=power, tie_rate=tie_rate)
    rng = np.random.default_rng(1)
    sims = 4000
    decided = rng.binomial(n, 1 - tie_rate, size=sims)
    wins = rng.binomial(decided, p)
    pvalue = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(wins, decided - wins), decided, 0.5))
    achieved = float(np.mean(pvalue < 0.05))
    # the exact test is a little conservative; the simulation's standard error is ~0.007
    assert abs(achieved - power) < 0.03, (n, achieved)
    smaller = impressions_needed(p, alpha=0.05, power=power - 0.2, tie_rate=tie_rate)
    assert smaller < n
