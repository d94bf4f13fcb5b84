"""Per-query tables to results: per query, per slice or overall, with bootstrap intervals.

The bootstrap resamples queries (with replacement, as many as the slice has) and sums
their count tables: an item's judgments stay together, and the queries' correlation
is what the interval reflects. Each slice's resamples come from a generator seeded
by ``seed`` and the slice (and the statistic), over its queries in sorted order, so
the intervals do not depend on row order nor on the other slices.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any, TypeVar

import polars as pl

from polars_rank.agreement._judges.data import COUNT, ITEMS, KEY
from polars_rank.agreement._judges.estimates import VALUE, estimate
from polars_rank.stats import require

if TYPE_CHECKING:
    from polars_rank.agreement._judges.statistics import Array, Statistic


FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
_ROW = "__polars_rank_row"
_START, _LEN = "__polars_rank_start", "__polars_rank_len"  # a slice's run of rows
_BATCH = 256  # resamples drawn at a time


def check_bootstrap(n_resamples: object, confidence: object, seed: object) -> None:
    """Parameter checks shared by every function (ValueError/TypeError naming them)."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        msg = f"n_resamples must be an int >= 0 (0: no intervals), got {n_resamples!r}"
        raise ValueError(msg)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not (
            0 < confidence < 1):
        msg = f"confidence must be a number strictly between 0 and 1, got {confidence!r}"
        raise ValueError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        msg = f"seed must be an int or None, got {seed!r}"
        raise TypeError(msg)


def _dense(table: pl.DataFrame, rows: pl.DataFrame, keys: list[str], size: int) -> Array:
    """The tables as a (rows, size) array, rows in the order of ``rows``."""
    import numpy as np

    indexed = table.join(rows.with_row_index(_ROW), on=keys, how="inner", nulls_equal=True)
    out = np.zeros((rows.height, size))
    out[indexed[_ROW].to_numpy(), indexed[KEY].to_numpy()] = indexed[COUNT].to_numpy()
    return out


def _interval(statistic: Statistic, tables: Array, n_resamples: int, confidence: float,
              seed: int | None, key: tuple[Any, ...]) -> tuple[float | None, float | None]:
    """Percentile interval of the statistic over resampled queries (rows of ``tables``)."""
    import numpy as np

    queries = tables.shape[0]
    if n_resamples == 0 or queries < 2:
        return None, None
    rng = np.random.default_rng(np.random.SeedSequence(
        seed, spawn_key=(zlib.crc32(repr(key).encode()),)))
    share = np.full(queries, 1.0 / queries)
    values = []
    for start in range(0, n_resamples, _BATCH):
        weights = rng.multinomial(queries, share, size=min(_BATCH, n_resamples - start))
        values.append(statistic(weights.astype(np.float64) @ tables))
    resampled = np.concatenate(values)
    resampled = resampled[~np.isnan(resampled)]
    if not resampled.size:
        return None, None
    low, high = np.quantile(resampled, [(1 - confidence) / 2, (1 + confidence) / 2])
    return float(low), float(high)


def summarise(table: pl.DataFrame | pl.LazyFrame, items: pl.DataFrame | pl.LazyFrame,
              statistic: Statistic, size: int, *, name: str, groups: list[str], query: str,
              per_query: bool, n_resamples: int, confidence: float, seed: int | None,
              what: str) -> pl.DataFrame:
    """One row per query (``per_query``) or per slice: the statistic and its interval.

    ``table``: ``[*groups, query, KEY, COUNT]``, a query's count at each of ``size``
    components; ``items``: ``[*groups, query, n_items]``. The values are computed by
    Polars (:func:`.estimates.estimate`, one plan); NumPy only draws the bootstrap
    (``n_resamples > 0``, not per query). ``what`` names the statistic in the seed, so
    that two statistics of one slice draw different resamples.
    """
    keys = [*groups, query]
    taken = [k for k in (keys if per_query else groups)
             if k in {"n_queries", ITEMS, name, "ci_low", "ci_high"}]
    if taken:
        msg = (f"{what}: column {taken[0]!r} (query= or group_by=) has the name of a result "
               f"column ({['n_queries', ITEMS, name, 'ci_low', 'ci_high']}); rename it")
        raise ValueError(msg)
    table, items = table.lazy(), items.lazy()
    none = [pl.lit(None, pl.Float64).alias("ci_low"), pl.lit(None, pl.Float64).alias("ci_high")]
    if per_query:
        values = estimate(statistic, table, keys)
        return (items.join(values, on=keys, how="left").sort(keys)
                .select(*keys, pl.col(ITEMS).cast(pl.Int64), pl.col(VALUE).alias(name), *none)
                .collect())
    totals = table.group_by([*groups, KEY]).agg(pl.col(COUNT).sum())
    counts = [pl.len().cast(pl.Int64).alias("n_queries"), pl.col(ITEMS).sum().cast(pl.Int64)]
    per = (items.group_by(groups).agg(*counts) if groups else items.select(*counts))
    values = estimate(statistic, totals, groups)
    if n_resamples == 0:
        joined = per.join(values, on=groups) if groups else pl.concat([per, values],
                                                                       how="horizontal")
        return (_sorted(joined, groups).select(*groups, "n_queries", ITEMS,
                                           pl.col(VALUE).alias(name), *none).collect())
    require("numpy", what)
    frames = pl.collect_all([table, items, per, values])
    out = (frames[2].join(frames[3], on=groups) if groups
           else pl.concat(frames[2:], how="horizontal"))
    out = _sorted(out, groups)
    low, high = _intervals(statistic, frames[0], frames[1], size, out.select(groups),
                           keys=keys, n_resamples=n_resamples, confidence=confidence,
                           seed=seed, what=what)
    return out.select(*groups, "n_queries", ITEMS, pl.col(VALUE).alias(name),
                      pl.Series("ci_low", low, dtype=pl.Float64),
                      pl.Series("ci_high", high, dtype=pl.Float64))


def _sorted(frame: FrameT, groups: list[str]) -> FrameT:
    return frame.sort(groups) if groups else frame


def _intervals(statistic: Statistic, table: pl.DataFrame, items: pl.DataFrame, size: int,
               slices: pl.DataFrame, *, keys: list[str], n_resamples: int, confidence: float,
               seed: int | None, what: str) -> tuple[list[float | None], list[float | None]]:
    """Each slice's bootstrap interval (NumPy), slices in the order of ``slices``."""
    groups = slices.columns
    per = items.sort(keys, nulls_last=True)
    tables = _dense(table, per.select(keys), keys, size)
    # the slices are runs of rows of ``per`` (sorted by slice first): their bounds
    bounds = (per.with_row_index(_ROW)
              .group_by(groups or pl.lit(0), maintain_order=True)
              .agg(pl.col(_ROW).min().alias(_START), pl.len().alias(_LEN)))
    if groups:
        bounds = slices.join(bounds, on=groups, how="left", maintain_order="left")
    lows: list[float | None] = []
    highs: list[float | None] = []
    for *key, start, n in bounds.select(*groups, _START, _LEN).rows():
        low, high = _interval(statistic, tables[start:start + n], n_resamples, confidence,
                              seed, (what, *key))
        lows.append(low)
        highs.append(high)
    return lows, highs
