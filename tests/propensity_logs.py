"""Click logs simulated from the position-based model with known propensities (NumPy).

P(click) = theta[position] * gamma[query, item]; each query has ``candidates`` items of
random relevance. The designs: ``swap`` (control or the top result swapped with a
uniform k), ``randtop`` (the list shuffled), ``rankers`` (several rankers, each its own
noisy order of a query's candidates, an impression by a random ranker).
"""

from __future__ import annotations

import numpy as np
import polars as pl

THETA = [1.0, 0.7, 0.5, 0.4, 0.3, 0.25, 0.2, 0.17, 0.15, 0.12]


def simulate(design: str, *, impressions: int, depth: int, seed: int, queries: int = 50,
             candidates: int = 8, rankers: int = 3, features: bool = False,
             theta: list[float] | None = None) -> pl.DataFrame:
    """One row per (impression, position): impression, position, query, item, click, ..."""
    rng = np.random.default_rng(seed)
    theta_ = np.array((theta or THETA)[:depth])
    if features:
        x = rng.normal(size=(queries, candidates, 2))
        gamma = 1 / (1 + np.exp(-(-0.5 + 1.5 * x[..., 0] - 1.0 * x[..., 1])))
    else:
        gamma = rng.uniform(0.05, 0.95, size=(queries, candidates))
    orders = np.stack([np.stack([np.argsort(-(gamma[q] + rng.normal(0, 0.3, candidates)))
                                 for q in range(queries)]) for _ in range(rankers)])
    q = rng.integers(0, queries, impressions)
    r = rng.integers(0, rankers if design == "rankers" else 1, impressions)
    lists = orders[r, q][:, :depth]  # impressions x depth: the ranker's items
    logged = np.tile(np.arange(1, depth + 1), (impressions, 1))
    shown = lists.copy()
    if design == "swap":
        partner = rng.integers(0, depth, impressions)  # 0: control
        rows = np.arange(impressions)
        shown[rows, 0], shown[rows, partner] = lists[rows, partner], lists[rows, 0]
        logged[rows, 0], logged[rows, partner] = partner + 1, 1
    elif design == "randtop":
        shown = rng.permuted(lists, axis=1)
    p = theta_[None, :] * gamma[q[:, None], shown]
    click = (rng.uniform(size=p.shape) < p).astype(np.int64)
    frame = {
        "impression": np.repeat(np.arange(impressions), depth),
        "position": np.tile(np.arange(1, depth + 1), impressions),
        "query": np.repeat(q, depth),
        "item": shown.ravel(),
        "click": click.ravel(),
        "logged_position": logged.ravel(),
        "ranker": np.repeat(r, depth),
    }
    if features:
        frame["f1"] = x[q[:, None], shown, 0].ravel()
        frame["f2"] = x[q[:, None], shown, 1].ravel()
    return pl.DataFrame(frame)
