"""Comparing arms when the labels are uncertain: a bootstrap over queries and label draws.

:func:`compare_uncertain` reads :func:`label_draws` output (``draw``, ``arm``, query,
metric columns: each query's value in each arm under each of S label draws, the labels
of draw ``s`` shared by every arm). Each bootstrap replicate resamples the queries
with replacement and, for each resampled query, one label draw (the same draw for the
arm and the baseline: their labels are the same documents' labels). The percentile
interval of the mean difference then holds both the sampling of queries and the
uncertainty of the labels. Beside it, ``fixed_ci_*`` is the same bootstrap of the
queries with each query's difference averaged over the draws (the labels' expectation
taken as known): the gap between the two is what the labels' uncertainty costs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank._stats.common import batch_sizes
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["compare_uncertain"]

_CELLS = 4_000_000  # resampled (replicate x query) cells per block of replicates


def compare_uncertain(
    draws: FrameLike,
    *,
    arm: str = "arm",
    baseline: Any,
    metrics: str | Sequence[str] | None = None,
    query: str = "qid",
    draw: str = "draw",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> pl.DataFrame:
    """Each arm against the baseline, with intervals that carry label uncertainty.

    Parameters
    ----------
    draws
        :func:`label_draws` output with ``arm=``: one row per (draw, arm, query).
        Every arm must have every (query, draw) of the baseline, once. A pandas
        DataFrame is read as ``evaluate()`` reads it.
    arm, baseline
        The column naming the arm and the baseline's value in it.
    metrics
        The metric columns (default: every column but draw, arm and query).
    alpha, n_resamples, seed
        ``1 - alpha`` percentile intervals from ``n_resamples`` replicates (NumPy's
        ``default_rng(seed)``; queries and draws are read in sorted order, so the result
        does not depend on row order).

    Returns
    -------
    DataFrame
        metric, arm, n (queries), draws, mean, baseline_mean, delta (the mean over
        queries and draws of the difference), delta_ci_low, delta_ci_high (queries and
        draws resampled), fixed_ci_low, fixed_ci_high (queries only, on each query's
        expected difference).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import compare_uncertain, label_draws
    >>> run = pl.DataFrame({"arm": ["A"] * 4 + ["B"] * 4,
    ...                     "qid": ["q1", "q1", "q2", "q2"] * 2,
    ...                     "docid": ["a", "b", "c", "d"] * 2,
    ...                     "score": [2.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 2.0]})
    >>> labels = pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["a", "b", "c", "d"],
    ...                        "probability": [0.9, 0.2, 0.6, 0.5]})
    >>> draws = label_draws(run, labels, ["mrr"], form="probability", arm="arm", samples=50)
    >>> out = compare_uncertain(draws, baseline="B", n_resamples=500)
    >>> out.select("metric", "arm", "n", "draws").row(0)
    ('mrr', 'A', 2, 50)
    >>> bool(out["delta_ci_low"][0] <= out["delta"][0] <= out["delta_ci_high"][0])
    True
    """
    import numpy as np

    if not 0 < alpha < 1:
        msg = f"alpha={alpha!r}: expected a number in (0, 1)"
        raise ValueError(msg)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        msg = f"n_resamples={n_resamples!r}: expected a positive int"
        raise ValueError(msg)
    read = as_polars(draws, "draws")
    frame = read.collect() if isinstance(read, pl.LazyFrame) else read
    for name in (arm, query, draw):
        if name not in frame.columns:
            msg = f"draws: no column {name!r} (label_draws(..., arm=...) output expected)"
            raise InvalidDataError(msg)
    keys = [arm, query, draw]
    names = ([metrics] if isinstance(metrics, str) else list(metrics) if metrics is not None
             else [c for c in frame.columns if c not in keys])
    arms = frame[arm].unique().sort().to_list()
    if baseline not in arms:
        msg = f"baseline={baseline!r}: not a value of column {arm!r} ({arms})"
        raise ValueError(msg)
    if len(arms) < 2:
        msg = (f"draws: column {arm!r} holds the baseline {baseline!r} only: no arm to "
               "compare with it (an empty frame would look like no difference)")
        raise ValueError(msg)
    twice = frame.filter(pl.struct(keys).is_duplicated()).sort(keys)
    if twice.height:
        a, q, d = twice.select(keys).row(0)
        msg = (f"draws: two rows for {arm}={a!r}, {query}={q!r}, {draw}={d!r} (columns "
               f"{keys}); one row per arm, query and draw")
        raise InvalidDataError(msg)
    for name in names:
        if name not in frame.columns or not frame.schema[name].is_numeric():
            msg = (f"draws: metric column {name!r} is missing or not numeric (columns: "
                   f"{frame.columns})")
            raise InvalidDataError(msg)
        bad = frame.filter(~pl.col(name).cast(pl.Float64).is_finite().fill_null(False))
        if bad.height:
            a, q, d = bad.sort(keys).select(keys).row(0)
            msg = (f"draws: column {name!r} holds a null or non-finite value, first at "
                   f"{arm}={a!r}, {query}={q!r}, {draw}={d!r}")
            raise InvalidDataError(msg)
    frame = frame.sort(keys)
    base = frame.filter(pl.col(arm) == baseline)
    queries = base[query].n_unique()
    n_draws = base[draw].n_unique()
    if base.height != queries * n_draws:
        msg = f"draws: the baseline {baseline!r} lacks some (query, draw) rows"
        raise InvalidDataError(msg)
    rows = []
    for other in (a for a in arms if a != baseline):
        mine = frame.filter(pl.col(arm) == other)
        if not mine.select(query, draw).equals(base.select(query, draw)):
            msg = (f"draws: arm {other!r} has not the baseline's (query, draw) rows; "
                   f"make them with one label_draws(..., arm={arm!r}) call")
            raise InvalidDataError(msg)
        for name in names:
            a = mine[name].to_numpy().reshape(queries, n_draws)
            b = base[name].to_numpy().reshape(queries, n_draws)
            delta = a - b
            expected = delta.mean(axis=1)
            rng = np.random.default_rng(seed)
            stats, fixed = [], []
            for size in batch_sizes(n_resamples, queries, budget=_CELLS):
                qi = rng.integers(0, queries, (size, queries))
                di = rng.integers(0, n_draws, (size, queries))
                stats.append(delta[qi, di].mean(axis=1))
                fixed.append(expected[qi].mean(axis=1))
            q = [alpha / 2, 1 - alpha / 2]
            low, high = np.quantile(np.concatenate(stats), q)
            fixed_low, fixed_high = np.quantile(np.concatenate(fixed), q)
            rows.append({"metric": name, "arm": other, "n": queries, "draws": n_draws,
                         "mean": float(a.mean()), "baseline_mean": float(b.mean()),
                         "delta": float(delta.mean()), "delta_ci_low": float(low),
                         "delta_ci_high": float(high), "fixed_ci_low": float(fixed_low),
                         "fixed_ci_high": float(fixed_high)})
    return pl.DataFrame(rows, schema={
        "metric": pl.String, "arm": frame.schema[arm], "n": pl.Int64, "draws": pl.Int64,
        "mean": pl.Float64, "baseline_mean": pl.Float64, "delta": pl.Float64,
        "delta_ci_low": pl.Float64, "delta_ci_high": pl.Float64,
        "fixed_ci_low": pl.Float64, "fixed_ci_high": pl.Float64})
