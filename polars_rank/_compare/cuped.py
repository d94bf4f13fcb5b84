"""CUPED: variance reduction with a pre-period covariate (Deng, Xu, Kohavi & Walker 2013).

"Improving the Sensitivity of Online Controlled Experiments by Utilizing
Pre-Experiment Data", WSDM 2013, section 3.2: with X a unit's value before the
experiment (unaffected by the treatment) and Y its value during it,

    Y_cuped = Y - theta (X - mean(X)),    theta = cov(Y, X) / var(X),

has the same expected difference between arms and variance
``var(Y) (1 - corr(Y, X)^2)``. theta and mean(X) are pooled over the arms (one theta
for every arm, as the paper does for treatment and control), per slice and metric,
over the units that have a value of the metric.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_rank._compare.data import METRIC, VALUE
from polars_rank._compare.options import CUPED_THETA
from polars_rank.errors import InvalidDataError

THETA = CUPED_THETA
"""The result column of theta."""


def check_covariate(frame: pl.DataFrame, covariate: str) -> None:
    """A numeric column without nulls or non-finite values."""
    dtype = frame.schema[covariate]
    if not dtype.is_numeric():
        msg = f"covariate column {covariate!r} must be numeric, got {dtype}"
        raise TypeError(msg)
    values = frame[covariate].cast(pl.Float64)
    if values.null_count():
        msg = (f"covariate column {covariate!r} has {values.null_count()} null values: CUPED "
               "needs a pre-period value for every unit (fill new units' with 0 or the mean)")
        raise InvalidDataError(msg)
    if not values.is_finite().all():
        msg = f"covariate column {covariate!r} has NaN or infinite values"
        raise InvalidDataError(msg)


def adjust(long: pl.DataFrame, covariate: str, groups: list[str],
           ) -> tuple[pl.DataFrame, dict[tuple[Any, ...], float]]:
    """The values adjusted (nulls stay null) and theta per (slice..., metric)."""
    by = [*groups, METRIC]
    y = pl.col(VALUE)
    x = pl.when(y.is_not_null()).then(pl.col(covariate).cast(pl.Float64))
    x_centred = x - x.mean().over(by)
    y_centred = y - y.mean().over(by)
    cov = (x_centred * y_centred).sum().over(by)
    var = (x_centred * x_centred).sum().over(by)
    theta = pl.when(var > 0).then(cov / var).otherwise(0.0)
    out = long.with_columns(theta.alias(THETA), x_centred.alias("__x")).with_columns(
        (y - pl.col(THETA) * pl.col("__x")).alias(VALUE))
    thetas = out.group_by(by).agg(pl.col(THETA).first())
    lookup = {tuple(row[:-1]): row[-1] for row in thetas.iter_rows()}
    return out.drop(THETA, "__x", covariate), lookup
