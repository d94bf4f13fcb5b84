"""The EM iterations of the position-based model, every resample at once (column ``rep``).

The table has one row per (rep, query, item, position, features...) with weighted
impressions ``n`` and clicks ``c``; every sum is a Polars aggregation over it, grouped
by ``rep`` (and position, or (query, item)), on rows sorted by those keys, added in
that order (``group_sum``), so that no sum depends on the order of the rows or on the
other resamples. The logistic regression's Newton step solves its
(features + 1)-square system per rep in NumPy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["em_theta"]


def _sigmoid(x: pl.Expr) -> pl.Expr:
    return 1.0 / (1.0 + (-x).exp())


def _start(value: float, name: str) -> pl.Expr:
    """A column of ``value`` that is a full column, not a broadcast constant.

    Polars 1.36 evaluates arithmetic on a constant column (a literal, kept constant
    through a join) in another order than on a full one, so the in-memory and the
    streaming engine gave EM sums differing in the last bit.
    """
    return pl.int_range(pl.len()).cast(pl.Float64).mul(0.0).add(value).alias(name)


def _relevance(features: Sequence[str]) -> pl.Expr:
    """sigma(b0 + b1 x1 + ...): the regression's relevance, on rows joined with beta."""
    score = pl.col("b0")
    for i, f in enumerate(features, start=1):
        score = score + pl.col(f"b{i}") * pl.col(f)
    return _sigmoid(score)


def em_theta(table: pl.DataFrame, *, query: str, item: str, position: str,
             features: Sequence[str], iterations: int, newton_steps: int) -> pl.DataFrame:
    """``rep, <position>, theta`` after ``iterations`` EM iterations from 0.5."""
    import numpy as np

    n, c = pl.col("n"), pl.col("c")
    theta = (table.select("rep", position).unique().sort("rep", position)
             .with_columns(_start(0.5, "theta")))
    reps = table.select("rep").unique().sort("rep")
    width = len(features) + 1
    if features:
        beta = reps.with_columns(*[_start(0.0, f"b{i}") for i in range(width)])
        gamma_of = _relevance(features)
    else:
        gamma = (table.select("rep", query, item).unique().sort("rep", query, item)
                 .with_columns(_start(0.5, "gamma")))
    xs = [pl.lit(1.0), *[pl.col(f).cast(pl.Float64) for f in features]]
    for _ in range(iterations):
        if features:
            rows = table.join(theta, on=["rep", position]).join(beta, on="rep").with_columns(
                gamma_of.alias("gamma"))
        else:
            rows = table.join(theta, on=["rep", position]).join(
                gamma, on=["rep", query, item])
        t, g = pl.col("theta"), pl.col("gamma")
        missed = pl.when(n > c).then(n - c).otherwise(0.0)
        rows = rows.sort("rep", query, item, position, *features).with_columns(
            (c + pl.when(n > c).then(missed * t * (1 - g) / (1 - t * g)).otherwise(0.0))
            .alias("e"),
            (c + pl.when(n > c).then(missed * (1 - t) * g / (1 - t * g)).otherwise(0.0))
            .alias("r"))
        theta = (rows.sort("rep", position, query, item, *features)
                 .group_by("rep", position, maintain_order=True)
                 .agg((group_sum(pl.col("e")) / group_sum(n)).alias("theta")))
        if not features:
            gamma = (rows.group_by("rep", query, item, maintain_order=True)
                     .agg((group_sum(pl.col("r")) / group_sum(n)).alias("gamma")))
            continue
        for _ in range(newton_steps):
            mu = rows.drop([f"b{i}" for i in range(width)]).join(beta, on="rep").with_columns(
                gamma_of.alias("mu"))
            w = n * pl.col("mu") * (1 - pl.col("mu"))
            resid = pl.col("r") - n * pl.col("mu")
            sums = mu.group_by("rep", maintain_order=True).agg(
                *[group_sum(x * resid).alias(f"g{i}") for i, x in enumerate(xs)],
                *[group_sum(xs[i] * xs[j] * w).alias(f"h{i}_{j}")
                  for i in range(width) for j in range(width)]).sort("rep")
            grad = sums.select([f"g{i}" for i in range(width)]).to_numpy()
            hess = sums.select([f"h{i}_{j}" for i in range(width)
                                for j in range(width)]).to_numpy().reshape(-1, width, width)
            try:
                step = np.linalg.solve(hess, grad[..., None])[..., 0]
            except np.linalg.LinAlgError:
                msg = (f"the relevance regression on features {list(features)} cannot be "
                       "fitted: a feature is constant or a combination of the others "
                       "(X'WX is singular)")
                raise InvalidDataError(msg) from None
            old = beta.sort("rep").select([f"b{i}" for i in range(width)]).to_numpy()
            beta = pl.DataFrame(old + step, schema=[f"b{i}" for i in range(width)]
                                ).with_columns(sums["rep"])
    return theta.sort("rep", position)
