"""The rankers' runs and the random coins of interleaving, as Polars expressions.

* :class:`Rankings` reads a long frame of (query, ranker, doc, rank or score) once,
  checks it and gives each ranker's list as ``_i`` (the ranker's index: the rankers'
  names sorted), ``_d`` (the document) and ``_r`` (its 1-based position in the list:
  by ``rank`` ascending, or by ``score`` descending with equal scores by document id
  descending, as ``evaluate()`` orders them).
* :func:`uniform` and :func:`priority`: the coins. Each is a hash of (seed, query,
  step, stream): a function of those values only, so a list never depends on the
  order of the rows, their chunks or the number of threads. Polars' ``hash`` is
  stable within a Polars version (not across versions), and so are the lists.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_rank._engine.draws import uniform as draw_uniform
from polars_rank._engine.frames import as_polars
from polars_rank._evaluation.checks import row_hash
from polars_rank.errors import InvalidDataError

__all__ = ["Rankings", "uniform", "priority", "query_columns", "where", "check_k"]

def check_k(k: int | None) -> None:
    """``k`` is a positive int or None (ValueError otherwise)."""
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        msg = f"k must be a positive int or None (the shortest list's length); got {k!r}"
        raise ValueError(msg)


def query_columns(query: str | Sequence[str]) -> list[str]:
    """The query key as a list of column names (a str or a sequence of them)."""
    cols = [query] if isinstance(query, str) else list(query)
    if not cols or not all(isinstance(c, str) for c in cols):
        msg = f"query must be a column name or a list of them; got {query!r}"
        raise TypeError(msg)
    return cols


def _key(query: list[str], step: int | pl.Expr, stream: int, extra: pl.Expr | None) -> pl.Expr:
    parts = [pl.col(c) for c in query]
    parts.append((step if isinstance(step, pl.Expr) else pl.lit(step, pl.Int64))
                 .cast(pl.Int64).alias("_step"))
    parts.append(pl.lit(stream, pl.Int64).alias("_stream"))
    if extra is not None:
        parts.append(extra.cast(pl.Int64).alias("_extra"))
    return pl.struct(parts)


def uniform(query: list[str], seed: int, step: int | pl.Expr, stream: int) -> pl.Expr:
    """A uniform draw in [0, 1) keyed on (seed, query, step, stream): 53 bits of a hash."""
    return draw_uniform(_key(query, step, stream, None), seed)


def priority(query: list[str], seed: int, step: int | pl.Expr, stream: int,
             ranker: pl.Expr) -> pl.Expr:
    """A random priority of each ranker keyed on (seed, query, step, stream, ranker).

    The ranker with the smallest priority among those allowed is chosen: uniform
    among them, and the same choice whichever rankers are excluded before or after.
    """
    return _key(query, step, stream, ranker).hash(seed)


def where(frame: pl.DataFrame, columns: list[str]) -> str:
    """``col=value, ...`` of the first row of ``frame``, for error messages."""
    row = frame.row(0, named=True)
    return ", ".join(f"{c}={row[c]!r}" for c in columns)


class Rankings:
    """The rankers' lists, as one eager frame: query columns, ``_s``, ``_i``, ``_d``, ``_r``."""

    def __init__(self, runs: Any, *, query: str | Sequence[str], system: str, doc: str,
                 score: str, rank: str | None) -> None:
        self.query = query_columns(query)
        self.system, self.doc = system, doc
        if isinstance(runs, Mapping) and not isinstance(runs, (pl.DataFrame, pl.LazyFrame)):
            frames = [as_polars(f, "runs").lazy().with_columns(pl.lit(name).alias(system))
                      for name, f in runs.items()]
            frame = pl.concat(frames, how="diagonal_relaxed")
        else:
            frame = as_polars(runs, "runs").lazy()
        self.lazy = isinstance(runs, pl.LazyFrame)
        schema = frame.collect_schema()
        order = rank if rank is not None else score
        for column in [*self.query, system, doc, order]:
            if column not in schema:
                msg = f"runs has no column {column!r}; columns: {list(schema)}"
                raise ValueError(msg)
        df = frame.select(*self.query, pl.col(system).alias("_s"), pl.col(doc).alias("_d"),
                          pl.col(order).alias("_o")).collect()
        for column, name in [*((c, c) for c in self.query), ("_s", system), ("_d", doc),
                             ("_o", order)]:
            bad = df.filter(pl.col(column).is_null())
            if bad.height:
                msg = f"runs: null in column {name!r} at {where(bad, self.query)}"
                raise InvalidDataError(msg)
        if df.schema["_o"].is_float():
            bad = df.filter(pl.col("_o").is_nan())
            if bad.height:
                msg = f"runs: NaN in column {order!r} at {where(bad, self.query)}"
                raise InvalidDataError(msg)
        key = [*self.query, "_s"]
        unique = df.select(row_hash([*key, "_d"]).n_unique()).item() == df.height
        twice = df.clear() if unique else df.filter(pl.struct(*key, "_d").is_duplicated())
        if twice.height:
            msg = (f"runs: duplicate doc in a ranking (column {doc!r}): "
                   f"{where(twice.rename({'_s': system, '_d': doc}), [*self.query, system, doc])}")
            raise InvalidDataError(msg)
        if rank is not None:
            twice = df.filter(pl.struct(*key, "_o").is_duplicated())
            if twice.height:
                msg = (f"runs: two docs at one rank (column {rank!r}) at "
                       f"{where(twice.rename({'_s': system}), [*self.query, system])}")
                raise InvalidDataError(msg)
            position = pl.col("_o").rank("ordinal")
        else:
            position = pl.struct("_o", "_d").rank("ordinal", descending=True)
        self.names: list[Any] = df["_s"].unique().sort().to_list()
        index = pl.col("_s").replace_strict(self.names, list(range(len(self.names))),
                                            return_dtype=pl.Int64)
        # sorted, so that every float sum over a list adds in one order, whatever the input's
        self.frame = (df.with_columns(_i=index, _r=position.over(key).cast(pl.Int64))
                      .drop("_o").sort([*self.query, "_i", "_r"]))

    def lengths(self) -> pl.DataFrame:
        """Per query: ``_len``, the shortest list's length, and ``_docs``, distinct docs."""
        per_ranker = self.frame.group_by([*self.query, "_i"]).agg(_n=pl.len())
        # a query's rankers are those with a row for it (multileaving may vary them)
        shortest = per_ranker.group_by(self.query).agg(_len=pl.col("_n").min())
        docs = self.frame.group_by(self.query).agg(_docs=pl.col("_d").n_unique())
        return shortest.join(docs, on=self.query)

    def out(self, frame: pl.DataFrame) -> pl.DataFrame | pl.LazyFrame:
        return frame.lazy() if self.lazy else frame
