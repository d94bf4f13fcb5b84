"""Per-query values of many systems as a checked (query x system) matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["Matrix", "as_frame", "checked_matrix", "draw_counts", "matrix", "quick_matrix",
           "rng_for"]

_COUNT_CELLS = 1 << 17
"""Draw counts are tallied in batches of about this many cells (resamples x queries)."""

Matrix = tuple[list[Any], list[Any], "NDArray[np.float64]"]
"""Systems (sorted), queries (sorted), values[query, system]."""


def as_frame(data: object, name: str = "per_query") -> pl.DataFrame:
    """A DataFrame from anything :func:`evaluate` reads (a LazyFrame is collected).

    A Polars DataFrame or LazyFrame, a pandas DataFrame, Arrow data, a dict of columns.
    """
    frame = as_polars(data, name)
    return frame.collect() if isinstance(frame, pl.LazyFrame) else frame


def matrix(frame: pl.DataFrame, *, system: str, query: str, value: str,
           where: str = "") -> Matrix:
    """Check one value per (system, query), every system on every query; pivot.

    Valid data takes the quick way (:func:`quick_matrix`: a few sums over the columns,
    two hash joins); anything it does not vouch for goes through every check in turn
    (:func:`checked_matrix`). Raises :class:`InvalidDataError` naming the column and
    the offending rows.
    """
    for column in (system, query, value):
        if column not in frame.columns:
            msg = f"no column {column!r}{where} (columns: {frame.columns})"
            raise InvalidDataError(msg)
    if system == query:
        msg = f"system= and query= name one column {system!r}: they must be two columns"
        raise ValueError(msg)
    quick = quick_matrix(frame, system=system, query=query, value=value)
    if quick is not None:
        return quick
    return checked_matrix(frame, system=system, query=query, value=value, where=where)


def quick_matrix(frame: pl.DataFrame, *, system: str, query: str, value: str,
                 ) -> Matrix | None:
    """The matrix of valid data, or ``None`` when anything is off (no message).

    Valid: numeric finite values, no null key, at least two systems, and every
    (system, query) pair exactly once. Each row's place in the (query x system)
    matrix comes from joins with the sorted distinct systems and queries (hash joins:
    no sort of the rows); the places must cover the matrix once each, which also
    catches any key the joins and ``unique`` would see differently. The matrix is
    column-major (each system's values contiguous), as a pivot's ``to_numpy`` gave:
    NumPy's sums depend on the layout, and the means must not change.
    """
    import numpy as np

    if not frame.schema[value].is_numeric():
        return None
    part = frame.select(s=pl.col(system), q=pl.col(query), v=pl.col(value).cast(pl.Float64))
    fine = part.select(pl.col("s").null_count() + pl.col("q").null_count() == 0,
                       ok=pl.col("v").is_finite().fill_null(False).all()).row(0)
    if not all(fine):
        return None
    systems = part.get_column("s").unique().sort()
    queries = part.get_column("q").unique().sort()
    n_sys, n_q = len(systems), len(queries)
    if n_sys < 2 or part.height != n_sys * n_q:
        return None
    places = (part
              .join(pl.DataFrame({"s": systems, "i": pl.int_range(n_sys, eager=True)}), on="s")
              .join(pl.DataFrame({"q": queries, "j": pl.int_range(n_q, eager=True)}), on="q")
              .select(pl.col("i").cast(pl.Int64) * n_q + pl.col("j"), "v"))
    if places.height != part.height:
        return None
    where = places.get_column("i").to_numpy()
    if np.bincount(where, minlength=n_sys * n_q).max() != 1:
        return None
    values = np.empty(n_sys * n_q, dtype=np.float64)
    values[where] = places.get_column("v").to_numpy()
    return systems.to_list(), queries.to_list(), values.reshape(n_sys, n_q).T


def checked_matrix(frame: pl.DataFrame, *, system: str, query: str, value: str,
                   where: str = "") -> Matrix:
    """:func:`matrix` with every check in turn: the first that fails raises."""
    for column in (system, query):
        nulls = frame.filter(pl.col(column).is_null())
        if nulls.height:
            other = query if column == system else system
            msg = (f"column {column!r}{where} has null values ({nulls.height}, e.g. with "
                   f"{other}={nulls[other][0]!r}): every row needs a system and a query")
            raise InvalidDataError(msg)
    if not frame.schema[value].is_numeric():
        msg = f"column {value!r}{where} must be numeric, got {frame.schema[value]}"
        raise InvalidDataError(msg)
    part = frame.select(system, query, pl.col(value).cast(pl.Float64))
    bad = part.filter(~pl.col(value).is_finite() | pl.col(value).is_null()).sort(system, query)
    if bad.height:
        s, q, v = bad.row(0)
        msg = f"column {value!r}{where} holds {v!r} for system {s!r}, query {q!r}"
        raise InvalidDataError(msg)
    dup = part.group_by(system, query).len().filter(pl.col("len") > 1).sort(system, query)
    if dup.height:
        s, q = dup.row(0)[:2]
        msg = (f"two rows for system {s!r}, query {q!r}{where} (columns {system!r}, "
               f"{query!r}): one value per system and query")
        raise InvalidDataError(msg)
    systems = part.get_column(system).unique().sort().to_list()
    queries = part.get_column(query).unique().sort().to_list()
    if len(systems) < 2:
        msg = f"a leaderboard needs at least two systems in column {system!r}{where}"
        raise InvalidDataError(msg)
    if part.height != len(systems) * len(queries):
        have = part.group_by(system).agg(pl.col(query)).sort(system)
        for s, qs in have.iter_rows():
            missing = sorted(set(queries) - set(qs))
            if missing:
                msg = (f"system {s!r} has no value for query {missing[0]!r} (column "
                       f"{query!r}){where}: every system needs every query "
                       f"({len(missing)} missing)")
                raise InvalidDataError(msg)
    # one row per (system, query) now: sorted by system, then query, the rows are the matrix
    flat = part.sort(system, query).get_column(value).to_numpy().astype("float64")
    return systems, queries, flat.reshape(len(systems), len(queries)).T


def rng_for(seed: int | None, *key: int) -> Any:
    """A NumPy generator seeded by ``seed`` and ``key`` (imported lazily)."""
    import numpy as np

    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        msg = f"seed must be an int or None, got {seed!r}"
        raise TypeError(msg)
    return np.random.default_rng(np.random.SeedSequence(entropy=seed, spawn_key=key))


def draw_counts(n_queries: int, n_resamples: int, seed: int | None) -> Any:
    """(resamples x queries) draw counts of a bootstrap of the queries, as float64.

    Each resample draws ``n_queries`` query indices uniformly with replacement from a
    generator seeded by ``seed`` (the queries in sorted order, so the draw does not
    depend on row order); the counts come from a ``bincount`` per batch of resamples.
    The batches are small enough for the cache and change nothing: ``integers`` called
    per batch continues the one stream (the generator keeps the unused half of a
    64-bit word between calls), so the draws are those of one call for all resamples.
    """
    import numpy as np

    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        msg = f"n_resamples must be a positive int, got {n_resamples!r}"
        raise ValueError(msg)
    rng = rng_for(seed, 40, 3)
    counts = np.empty((n_resamples, n_queries), dtype=np.float64)
    batch = max(1, _COUNT_CELLS // max(n_queries, 1))
    shift = np.arange(min(batch, n_resamples))[:, None] * n_queries
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        drawn = rng.integers(0, n_queries, size=(size, n_queries))
        drawn += shift[:size]
        counts[start:start + size] = np.bincount(
            drawn.reshape(-1), minlength=drawn.size).reshape(size, n_queries)
    return counts
