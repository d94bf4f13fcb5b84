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
    from collections.abc import Callable, Sequence

__all__ = ["RESULT_SCHEMA", "check_resampling", "read_log", "result_frame", "unestimable"]

_TWICE, _LO, _HI, _N, _FRAC, _SEVERAL = (f"__polars_rank_{name}" for name in (
    "twice", "lo", "hi", "n", "frac", "several"))

RESULT_SCHEMA = {"position": pl.Int64, "propensity": pl.Float64,
                 "ci_low": pl.Float64, "ci_high": pl.Float64}
"""Every estimator's output: one row per position, propensities relative to position 1."""


def check_resampling(n_resamples: int, alpha: float, seed: int = 0) -> None:
    """ValueError for a negative ``n_resamples``, an ``alpha`` outside (0, 1), a negative seed."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        msg = f"n_resamples must be an int >= 0 (0: no interval), got {n_resamples!r}"
        raise ValueError(msg)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        msg = f"alpha must be in (0, 1), got {alpha!r}"
        raise ValueError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        msg = f"seed must be an int >= 0, got {seed!r}"
        raise ValueError(msg)


def _first(frame: pl.DataFrame, impression: str) -> Any:
    return frame.sort(impression).item(0, impression)


def read_log(log: Any, *, impression: str, position: str, click: str,
             per_impression: Sequence[str] = (), others: Sequence[str] = (),
             numbers: Sequence[str] = (), reserved: Callable[[str], bool] | None = None,
             caller: str = "") -> pl.DataFrame:
    """The log's columns, collected, checked, sorted by (impression, position).

    ``per_impression``: columns constant within an impression (the query, the ranker);
    ``others``: further columns that must exist and have no nulls (item, features);
    ``numbers``: those of them that hold finite numbers (or booleans).
    Raises :class:`~polars_rank.InvalidDataError` naming the rule, the column and the
    first offending impression: a null, a click other than 0/1, positions that are
    not 1..n, a ``per_impression`` column with two values in one impression; and a
    ValueError for a column named as one of ``caller``'s working columns (``reserved``).
    """
    frame = as_polars(log, "log")
    names = list(dict.fromkeys([impression, position, click, *per_impression, *others]))
    for name in names:
        if reserved is not None and reserved(name):
            msg = (f"{caller}: the log's column {name!r} has the name of a column "
                   f"{caller} works with; rename it (and pass the new name)")
            raise ValueError(msg)
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    missing = [n for n in names if n not in schema]
    if missing:
        msg = f"the log has no column {missing[0]!r} (columns: {list(schema)})"
        raise InvalidDataError(msg)
    for name in (position, click, *numbers):
        if not (schema[name].is_numeric() or (schema[name] == pl.Boolean and name != position)):
            msg = f"column {name!r} must be numeric, got {schema[name]}"
            raise InvalidDataError(msg)
    data = frame.lazy().select(names).collect()
    counts = data.null_count().row(0, named=True)
    ids = [impression, *per_impression, *[c for c in others if c not in numbers]]
    for name in names:
        nan = name in ids and data.schema[name].is_float()  # pandas' missing integer id
        if counts[name] or (nan and data[name].is_nan().any()):
            nulls = data.filter(pl.col(name).is_null() | (pl.col(name).is_nan() if nan
                                                           else pl.lit(value=False)))
            msg = (f"null {name!r} in the log (impression "
                   f"{_first(nulls, impression)!r})" if name != impression
                   else f"null {impression!r} (impression id) in the log")
            raise InvalidDataError(msg)
    for name in numbers:
        bad = data.filter(~pl.col(name).cast(pl.Float64).is_finite())
        if bad.height:
            msg = (f"column {name!r} must hold finite numbers: impression "
                   f"{_first(bad, impression)!r} has {bad.sort(impression).item(0, name)!r}")
            raise InvalidDataError(msg)
    # a float or boolean click (pandas, a Parquet file) is read as its number
    bad = data.filter(~pl.col(click).cast(pl.Float64).is_in([0.0, 1.0]))
    if bad.height:
        row = bad.sort(impression, click).row(0, named=True)
        msg = (f"column {click!r}: a click is 0 or 1, got {row[click]!r}"
               f" in impression {row[impression]!r}")
        raise InvalidDataError(msg)
    pos = pl.col(position)
    data = data.sort(impression, position)
    same = (pl.col(impression) == pl.col(impression).shift(1)) & (pos == pos.shift(1))
    shape = data.with_columns(same.fill_null(value=False).alias(_TWICE)).group_by(
        impression).agg(
        pos.min().alias(_LO), pos.max().alias(_HI), pl.len().alias(_N),
        pl.col(_TWICE).any(), (pos != pos.round()).any().alias(_FRAC)
        if schema[position].is_float() else pl.lit(value=False).alias(_FRAC),
        *[(pl.col(c) != pl.col(c).first()).any().alias(f"{_SEVERAL}{i}")
          for i, c in enumerate(per_impression)])
    bad = shape.filter(pl.col(_FRAC) | (pl.col(_LO) != 1) | (pl.col(_HI) != pl.col(_N))
                       | pl.col(_TWICE))
    if bad.height:
        row = bad.sort(impression).row(0, named=True)
        msg = (f"column {position!r}: the positions of an impression are 1..n, each once; "
               f"impression {row[impression]!r} has {row[_N]} rows with positions "
               f"from {row[_LO]} to {row[_HI]}"
               + (" (one twice)" if row[_TWICE] else ""))
        raise InvalidDataError(msg)
    for i, c in enumerate(per_impression):
        bad = shape.filter(pl.col(f"{_SEVERAL}{i}"))
        if bad.height:
            msg = (f"column {c!r} has several values in impression "
                   f"{_first(bad, impression)!r} (one {c} per impression)")
            raise InvalidDataError(msg)
    if data.height == 0:
        msg = "the log is empty"
        raise InvalidDataError(msg)
    return data.with_columns(pos.cast(pl.Int64), pl.col(click).cast(pl.Int64),
                             *[pl.col(c).cast(pl.Float64) for c in numbers
                               if data.schema[c] == pl.Boolean])


def unestimable(positions: Sequence[int], why: str) -> InvalidDataError:
    """The error for positions the log cannot estimate, naming them and why."""
    shown = ", ".join(str(p) for p in sorted(positions))
    return InvalidDataError(f"no interventions found for position(s) {shown}: {why}; "
                            f"these positions cannot be estimated")


def result_frame(positions: Sequence[int], propensity: Sequence[float],
                 lower: Sequence[float | None], upper: Sequence[float | None]) -> pl.DataFrame:
    """The estimators' output frame (position, propensity, ci_low, ci_high), by position."""
    return pl.DataFrame({"position": list(positions), "propensity": list(propensity),
                         "ci_low": list(lower), "ci_high": list(upper)},
                        schema=RESULT_SCHEMA).sort("position")
