"""The click log of the propensity estimators: read, checked, and the result's shape.

A log has one row per (impression, position): the impression id, the position
(1..n within the impression), the query, the item and the click (0 or 1). Every
estimator reads it through :func:`read_log`, which collects it once, checks it and
names the first offending impression (in sorted order, so that the message does not
depend on the order of the rows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["RESULT_SCHEMA", "check_resampling", "read_log", "result_frame", "unestimable"]

RESULT_SCHEMA = {"position": pl.Int64, "propensity": pl.Float64,
                 "lower": pl.Float64, "upper": pl.Float64}
"""Every estimator's output: one row per position, propensities relative to position 1."""


def check_resampling(n_resamples: int, alpha: float) -> None:
    """ValueError for a negative ``n_resamples`` or an ``alpha`` outside (0, 1)."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        msg = f"n_resamples must be an int >= 0 (0: no interval), got {n_resamples!r}"
        raise ValueError(msg)
    if not 0 < alpha < 1:
        msg = f"alpha must be in (0, 1), got {alpha!r}"
        raise ValueError(msg)


def _first(frame: pl.DataFrame, impression: str) -> Any:
    return frame.sort(impression).item(0, impression)


def read_log(log: Any, *, impression: str, position: str, click: str,
             per_impression: Sequence[str] = (), others: Sequence[str] = ()) -> pl.DataFrame:
    """The log's columns, collected, checked, sorted by (impression, position).

    ``per_impression``: columns constant within an impression (the query, the ranker);
    ``others``: further columns that must exist and have no nulls (item, features).
    Raises :class:`~polars_rank.InvalidDataError` naming the rule, the column and the
    first offending impression: a null, a click other than 0/1, positions that are
    not 1..n, a ``per_impression`` column with two values in one impression.
    """
    frame = as_polars(log, "log")
    names = list(dict.fromkeys([impression, position, click, *per_impression, *others]))
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    missing = [n for n in names if n not in schema]
    if missing:
        msg = f"the log has no column {missing[0]!r} (columns: {list(schema)})"
        raise InvalidDataError(msg)
    for name in (position, click):
        if not schema[name].is_numeric():
            msg = f"column {name!r} must be numeric, got {schema[name]}"
            raise InvalidDataError(msg)
    data = frame.lazy().select(names).collect()
    counts = data.null_count().row(0, named=True)
    for name in names:
        if counts[name]:
            nulls = data.filter(pl.col(name).is_null())
            msg = (f"null {name!r} in the log (impression "
                   f"{_first(nulls, impression)!r})" if name != impression
                   else f"null {impression!r} (impression id) in the log")
            raise InvalidDataError(msg)
    bad = data.filter(~pl.col(click).is_in([0, 1]))
    if bad.height:
        row = bad.sort(impression, click).row(0, named=True)
        msg = (f"column {click!r}: a click is 0 or 1, got {row[click]!r}"
               f" in impression {row[impression]!r}")
        raise InvalidDataError(msg)
    pos = pl.col(position)
    data = data.sort(impression, position)
    same = (pl.col(impression) == pl.col(impression).shift(1)) & (pos == pos.shift(1))
    shape = data.with_columns(same.fill_null(value=False).alias("twice")).group_by(
        impression).agg(
        pos.min().alias("lo"), pos.max().alias("hi"), pl.len().alias("n"),
        pl.col("twice").any(), (pos != pos.round()).any().alias("frac")
        if schema[position].is_float() else pl.lit(value=False).alias("frac"),
        *[(pl.col(c) != pl.col(c).first()).any().alias(f"u{i}")
          for i, c in enumerate(per_impression)])
    bad = shape.filter(pl.col("frac") | (pl.col("lo") != 1) | (pl.col("hi") != pl.col("n"))
                       | pl.col("twice"))
    if bad.height:
        row = bad.sort(impression).row(0, named=True)
        msg = (f"column {position!r}: the positions of an impression are 1..n, each once; "
               f"impression {row[impression]!r} has {row['n']} rows with positions "
               f"from {row['lo']} to {row['hi']}"
               + (" (one twice)" if row["twice"] else ""))
        raise InvalidDataError(msg)
    for i, c in enumerate(per_impression):
        bad = shape.filter(pl.col(f"u{i}"))
        if bad.height:
            msg = (f"column {c!r} has several values in impression "
                   f"{_first(bad, impression)!r} (one {c} per impression)")
            raise InvalidDataError(msg)
    if data.height == 0:
        msg = "the log is empty"
        raise InvalidDataError(msg)
    return data.with_columns(pos.cast(pl.Int64), pl.col(click).cast(pl.Int64))


def unestimable(positions: Sequence[int], why: str) -> InvalidDataError:
    """The error for positions the log cannot estimate, naming them and why."""
    shown = ", ".join(str(p) for p in sorted(positions))
    return InvalidDataError(f"no interventions found for position(s) {shown}: {why}; "
                            f"these positions cannot be estimated")


def result_frame(positions: Sequence[int], propensity: Sequence[float],
                 lower: Sequence[float | None], upper: Sequence[float | None]) -> pl.DataFrame:
    """The estimators' output frame (position, propensity, lower, upper), by position."""
    return pl.DataFrame({"position": list(positions), "propensity": list(propensity),
                         "lower": list(lower), "upper": list(upper)},
                        schema=RESULT_SCHEMA).sort("position")
