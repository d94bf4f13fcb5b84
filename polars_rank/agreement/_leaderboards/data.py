"""Per-query values of many systems as a checked (query x system) matrix."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["Matrix", "as_frame", "draw_counts", "matrix", "rng_for"]

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

    Raises :class:`InvalidDataError` naming the column and the offending rows.
    """
    for column in (system, query, value):
        if column not in frame.columns:
            msg = f"no column {column!r}{where} (columns: {frame.columns})"
            raise InvalidDataError(msg)
    if system == query:
        msg = f"system= and query= name one column {system!r}: they must be two columns"
        raise ValueError(msg)
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
    wide = (part.pivot(on=system, index=query, values=value).sort(query)
            .select([pl.col(str(s)) for s in systems]))
    return systems, queries, wide.to_numpy().astype("float64")


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
    depend on row order); the counts come from one ``bincount``.
    """
    import numpy as np

    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        msg = f"n_resamples must be a positive int, got {n_resamples!r}"
        raise ValueError(msg)
    rng = rng_for(seed, 40, 3)
    drawn = rng.integers(0, n_queries, size=(n_resamples, n_queries))
    drawn += np.arange(n_resamples)[:, None] * n_queries
    counts = np.bincount(drawn.reshape(-1), minlength=n_resamples * n_queries)
    return counts.reshape(n_resamples, n_queries).astype(np.float64)
