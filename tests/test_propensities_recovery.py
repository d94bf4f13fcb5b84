"""Examination propensities recover the truth from logs simulated with known propensities.

Logs of 20,000 impressions x 5 positions from the position-based model (examination
``THETA``: 1, 0.7, 0.5, 0.4, 0.3; 200 queries of 8 items of uniform relevance in
[0.05, 0.95]; 3 rankers, each a noisy order by relevance, for harvesting), and for EM
10,000 impressions of 50 queries (the plain EM's per-(query, item) relevance is
biased when each pair is seen little: with 200 queries and 50 iterations, +0.006 at
position 2, about one standard deviation; docs/propensities.md), relevance uniform
or logistic on two features: each estimator's 99% bootstrap interval holds the true
relative propensity at every position, and is narrow enough to mean something
(width under 0.1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl
import pytest

from polars_rank.online import (
    harvested_propensities,
    regression_em_propensities,
    swap_propensities,
)
from tests.propensity_logs import THETA, simulate

if TYPE_CHECKING:
    from collections.abc import Callable

SIZE = {"impressions": 20_000, "depth": 5, "queries": 200}
SIZE_EM = {"impressions": 10_000, "depth": 5, "queries": 50}

CASES: dict[str, tuple[str, bool, Callable[[pl.DataFrame], pl.DataFrame]]] = {
    "swap": ("swap", False, lambda log: swap_propensities(
        log, n_resamples=100, alpha=0.01, seed=1)),
    "swap by query": ("swap", False, lambda log: swap_propensities(
        log, n_resamples=100, alpha=0.01, seed=1, resample="query")),
    "randtop": ("randtop", False, lambda log: swap_propensities(
        log, design="randtop", n_resamples=100, alpha=0.01, seed=1)),
    "harvest": ("rankers", False, lambda log: harvested_propensities(
        log, n_resamples=100, alpha=0.01, seed=1)),
    "em": ("rankers", False, lambda log: regression_em_propensities(
        log, iterations=150, n_resamples=30, alpha=0.01, seed=1)),
    "regression em": ("rankers", True, lambda log: regression_em_propensities(
        log, features=["f1", "f2"], iterations=150, n_resamples=30, alpha=0.01, seed=1)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_interval_holds_the_truth(name: str) -> None:
    design, features, call = CASES[name]
    size = SIZE_EM if name.endswith("em") else SIZE
    log = simulate(design, seed=13, features=features, **size)
    out = call(log)
    truth = pl.Series(THETA[:5])
    assert out["position"].to_list() == [1, 2, 3, 4, 5]
    assert ((out["ci_low"] <= truth) & (truth <= out["ci_high"])).all(), (name, out, truth)
    assert ((out["ci_high"] - out["ci_low"]) < 0.1).all()
    assert (out["propensity"] - truth).abs().max() < 0.03  # type: ignore[operator]


def test_harvesting_stops_at_max_position() -> None:
    log = simulate("rankers", seed=12, **SIZE)
    out = harvested_propensities(log, max_position=3, n_resamples=0)
    assert out["position"].to_list() == [1, 2, 3]
    assert (out["propensity"] - pl.Series(THETA[:3])).abs().max() < 0.03  # type: ignore[operator]
