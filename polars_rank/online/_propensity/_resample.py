"""Percentile bootstrap intervals over units (impressions or queries) of a click log.

Each unit contributes a row of additive statistics (counts, sums); a resample draws
the units with replacement (multinomial counts, NumPy's ``default_rng(seed)``) and
sums their rows, and the estimator turns each resample's sums into propensities. The
units come sorted by their key, so the draws do not depend on the order of the rows.
NumPy is imported here, when an interval is asked for (the ``stats`` extra).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._stats.common import batch_sizes

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float64]

__all__ = ["per_unit", "percentile_bounds", "quantile_bounds", "query_weights"]

_BATCH_CELLS = 1 << 22
"""Resamples are drawn in batches of about this many cells (resamples x units)."""


def per_unit(long: pl.DataFrame, unit: str, width: int) -> Matrix:
    """``unit, stat, value`` rows (``stat`` in 0..width-1) as a units x stats matrix.

    One row per unit, in the units' sorted order (so that resamples do not depend on
    the order of the log's rows); a stat a unit has no row for is 0, repeated rows add.
    """
    import numpy as np

    keys = long.get_column(unit).unique().sort()
    index = long.join(keys.to_frame().with_row_index("row"), on=unit).select(
        pl.col("row").cast(pl.Int64), pl.col("stat").cast(pl.Int64),
        pl.col("value").cast(pl.Float64))
    flat = index["row"].to_numpy() * width + index["stat"].to_numpy()
    sums = np.bincount(flat, weights=index["value"].to_numpy(), minlength=keys.len() * width)
    out: Matrix = sums.astype(np.float64).reshape(keys.len(), width)
    return out


def percentile_bounds(stats: Matrix, estimate: Callable[[Matrix], Matrix],
                      *, width: int, n_resamples: int, alpha: float, seed: int
                      ) -> tuple[list[float | None], list[float | None]]:
    """The ``alpha/2`` and ``1 - alpha/2`` quantiles of ``estimate`` over resamples.

    ``stats``: one row per unit (in the units' sorted order), one column per statistic;
    ``estimate`` maps a (resamples x statistics) matrix of sums to a (resamples x
    ``width`` positions) matrix of propensities (NaN where a resample cannot estimate
    one; such resamples are left out of that position's quantiles). With
    ``n_resamples == 0`` the bounds are null.
    """
    if n_resamples == 0:
        return [None] * width, [None] * width
    import numpy as np

    n_units = stats.shape[0]
    rng = np.random.default_rng(seed)
    draws: list[Matrix] = []
    for size in batch_sizes(n_resamples, n_units, budget=_BATCH_CELLS):
        counts = rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=size)
        draws.append(estimate(counts.astype(np.float64) @ stats))
    return quantile_bounds(np.vstack(draws), alpha)


def query_weights(queries: pl.Series, n_resamples: int, seed: int) -> pl.DataFrame:
    """Bootstrap weights ``rep, <query>, weight`` (rep 1..n, weight > 0) over sorted queries."""
    import numpy as np

    keys = queries.unique().sort()
    n_units = keys.len()
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=n_resamples)
    rep, unit = np.nonzero(counts)
    return pl.DataFrame({"rep": rep + 1, queries.name: keys.gather(unit),
                         "weight": counts[rep, unit].astype(np.float64)},
                        schema_overrides={"rep": pl.Int64})


def quantile_bounds(values: Matrix, alpha: float) -> tuple[list[float | None],
                                                          list[float | None]]:
    """The ``alpha/2`` and ``1 - alpha/2`` quantiles of each column (NaN left out)."""
    import numpy as np

    with warnings.catch_warnings():  # a position no resample could estimate: NaN, null
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(values, [alpha / 2, 1 - alpha / 2], axis=0)
    return ([None if np.isnan(v) else float(v) for v in low],
            [None if np.isnan(v) else float(v) for v in high])
