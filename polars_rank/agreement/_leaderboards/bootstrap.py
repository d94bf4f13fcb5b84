"""Each system's leaderboard position under a bootstrap of the queries."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.params import check_real
from polars_rank.agreement._leaderboards.data import as_frame, draw_counts, matrix
from polars_rank.agreement._leaderboards.orders import shared_positions

if TYPE_CHECKING:
    from typing import Any

    from polars_rank._engine.frames import FrameLike

__all__ = ["leaderboard_bootstrap", "resample_means"]


def resample_means(values: Any, n_resamples: int, seed: int | None) -> Any:
    """Means of each system over ``n_resamples`` bootstrap resamples of the queries.

    One product: the (resamples x queries) matrix of draw counts times the (queries x
    systems) values, over the number of queries.
    """
    return (draw_counts(values.shape[0], n_resamples, seed) @ values) / values.shape[0]


def leaderboard_bootstrap(
    per_query: FrameLike,
    *,
    system: str = "system",
    query: str = "qid",
    value: str = "value",
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | None = 0,
    distribution: bool = False,
) -> pl.DataFrame:
    """How sure each system's place on the leaderboard is: its position under a query bootstrap.

    The queries are resampled with replacement ``n_resamples`` times (seeded: the same
    seed gives the same output whatever the row order); in each resample the systems
    are ranked by their mean (1 = highest). Systems with equal means (within 1e-12,
    relative: the rule of every leaderboard function) share the best of their
    positions, as in a competition ranking ("1, 1, 3"): ``p_first`` counts every
    system that ties for the lead, so the shares can sum to more than 1, and no
    system leads only because of its name.

    Parameters
    ----------
    per_query
        One row per (system, query) with the value (e.g. an nDCG@10). DataFrame or
        LazyFrame; pandas, Arrow and dicts of columns are read as ``evaluate()`` reads them.
    system, query, value
        Column names.
    n_resamples, alpha, seed
        Resamples, the interval's level, the seed.
    distribution
        ``True``: the distribution instead, one row per (system, position) with the
        share of resamples that put the system there.

    Returns
    -------
    pl.DataFrame
        system, mean, position (on the data), position_low, position_high (the
        ``1 - alpha`` percentile interval, lower end rounded down, upper end up),
        p_first (share of resamples where it leads, alone or tied), sorted by position
        (then system); or, with
        ``distribution=True``, system, position, share.

    Raises
    ------
    InvalidDataError
        A system without a value for a query, duplicate rows, non-finite values.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import leaderboard_bootstrap
    >>> df = pl.DataFrame({"system": ["a"] * 4 + ["b"] * 4,
    ...                    "qid": [1, 2, 3, 4] * 2,
    ...                    "value": [0.9, 0.8, 0.7, 0.1, 0.5, 0.6, 0.5, 0.4]})
    >>> leaderboard_bootstrap(df, n_resamples=500).select("system", "position", "p_first")
    shape: (2, 3)
    ┌────────┬──────────┬─────────┐
    │ system ┆ position ┆ p_first │
    │ ---    ┆ ---      ┆ ---     │
    │ str    ┆ i64      ┆ f64     │
    ╞════════╪══════════╪═════════╡
    │ a      ┆ 1        ┆ 0.848   │
    │ b      ┆ 2        ┆ 0.248   │
    └────────┴──────────┴─────────┘
    """
    import numpy as np

    level = check_real(alpha, "alpha", low=0, low_open=True, high=1, high_open=True,
                       allowed="in (0, 1)")
    systems, _, values = matrix(as_frame(per_query), system=system, query=query, value=value)
    boot = shared_positions(resample_means(values, n_resamples, seed))  # resamples x systems
    kind = pl.Series(systems).dtype
    if distribution:
        n = len(systems)
        cells = np.arange(n) * n + boot.astype(np.int64) - 1  # (system, position - 1)
        shares = np.bincount(cells.reshape(-1), minlength=n * n) / boot.shape[0]
        return pl.DataFrame({
            "system": pl.Series(np.repeat(np.array(systems, dtype=object), n).tolist(),
                                dtype=kind),
            "position": np.tile(np.arange(1, n + 1), n).astype(np.int64),
            "share": shares.reshape(-1),
        }).filter(pl.col("share") > 0)
    means = values.mean(axis=0)
    return pl.DataFrame({
        "system": pl.Series(systems, dtype=kind),
        "mean": means,
        "position": shared_positions(means).astype(np.int64),
        "position_low": np.floor(np.percentile(boot, 100 * level / 2, axis=0)).astype(np.int64),
        "position_high": np.ceil(np.percentile(boot, 100 * (1 - level / 2), axis=0))
        .astype(np.int64),
        "p_first": (boot == 1).mean(axis=0),
    }).sort("position", maintain_order=True)
