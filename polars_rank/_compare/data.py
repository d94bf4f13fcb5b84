"""The per-query frame: checked, reshaped, split into one pair of arrays per comparison."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

import polars as pl

from polars_rank._stats.bootstrap import MIN_BOOTSTRAP_N
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np
    import numpy.typing as npt

METRIC = "__polars_rank_metric"
VALUE = "__polars_rank_value"
_LOW = "__polars_rank_low"
_HIGH = "__polars_rank_high"
_ARM_VALUE = "__polars_rank_a"
_BASE_VALUE = "__polars_rank_b"
_BOUNDS = (_LOW, _HIGH)

_EXAMPLES = 3


def describe_key(groups: list[str], key: tuple[Any, ...]) -> str:
    if not groups:
        return "all rows"
    return ", ".join(f"{g}={v!r}" for g, v in zip(groups, key, strict=True))


def _examples(values: list[Any]) -> str:
    shown = ", ".join(repr(v) for v in values[:_EXAMPLES])
    return f"e.g. {shown}" + (", ..." if len(values) > _EXAMPLES else "")


@dataclass
class Notes:
    """What compare() reports in warnings, gathered over all comparisons."""

    dropped: list[str]
    empty: list[str]
    too_few: list[str]
    too_few_to_resample: list[str] = field(default_factory=list)  # the bootstrap's minimum

    def emit(self, paired: bool) -> None:
        if self.dropped:
            msg = ("compare(paired=True) left out queries that do not have a value in both "
                   "the arm and the baseline: " + "; ".join(self.dropped))
            warnings.warn(msg, UserWarning, stacklevel=3)
        if self.empty:
            msg = ("compare(): nothing to compare (no values for the arm or the baseline in "
                   "the slice); these rows have n = 0 and null statistics: "
                   + "; ".join(self.empty))
            warnings.warn(msg, UserWarning, stacklevel=3)
        if self.too_few:
            what = "pairs" if paired else "values in each arm"
            msg = (f"compare(): fewer than 2 {what}, so no test or interval; these rows "
                   f"have null p-values and intervals: " + "; ".join(self.too_few))
            warnings.warn(msg, UserWarning, stacklevel=3)
        if self.too_few_to_resample:
            what = "pairs" if paired else "values in an arm"
            msg = (f"compare(test='bootstrap'): fewer than {MIN_BOOTSTRAP_N} {what}, too few "
                   "for the bootstrap (its intervals are too narrow there: a true null is "
                   "rejected far more often than alpha says); these rows have null p-values "
                   "and intervals; test='t' or test='randomization' (exact with few "
                   "queries) answer at any n: " + "; ".join(self.too_few_to_resample))
            warnings.warn(msg, UserWarning, stacklevel=3)


def check_arms(frame: pl.DataFrame, arm: str, baseline: Any) -> list[Any]:
    """The arms, sorted; each baseline asked (one, a list, or None: all pairs) among them."""
    if frame[arm].null_count():
        msg = f"arm column {arm!r} has null values"
        raise InvalidDataError(msg)
    arms: list[Any] = frame[arm].unique().sort().to_list()
    bases = ([] if baseline is None
             else list(baseline) if isinstance(baseline, (list, tuple)) else [baseline])
    if baseline is not None and not bases:
        msg = "baseline is an empty list: give an arm, a list of arms, or None (all pairs)"
        raise ValueError(msg)
    for base in bases:
        if base not in arms:
            msg = f"baseline {base!r} is not a value of column {arm!r}; its values are {arms}"
            raise ValueError(msg)
    if len(arms) < 2:
        what = f"only the baseline {bases[0]!r}" if bases else f"only the arm {arms!r}"
        msg = f"column {arm!r} holds {what}: nothing to compare"
        raise ValueError(msg)
    return arms


def check_unique(frame: pl.DataFrame, keys: list[str]) -> None:
    duplicated = frame.filter(pl.struct(keys).is_duplicated()).select(keys)
    if duplicated.height:
        first = duplicated.row(0, named=True)
        msg = (f"per_query has {duplicated.height} rows whose ({', '.join(keys)}) is not "
               f"unique, first {first}: give one row per query and arm (and slice)")
        raise InvalidDataError(msg)


def to_long(frame: pl.DataFrame, keys: list[str], metrics: list[str],
            bounds: tuple[str, str] | None = None) -> pl.DataFrame:
    """One row per (key..., metric): the value as Float64, nulls kept.

    ``bounds``: the suffixes of each metric's two bound columns (``("low", "high")``):
    their smaller and larger value per row beside it, as ``_LOW`` and ``_HIGH``.
    """
    def unpivot(columns: list[pl.Expr], name: str) -> pl.DataFrame:
        return frame.select(*keys, *columns).unpivot(index=keys, variable_name=METRIC,
                                                     value_name=name)

    long = unpivot([pl.col(m).cast(pl.Float64) for m in metrics], VALUE)
    if bounds is None:
        return long
    ends = [[pl.col(f"{m}_{end}").cast(pl.Float64) for end in bounds] for m in metrics]

    def both(pick: Callable[..., pl.Expr], e: list[pl.Expr], m: str) -> pl.Expr:
        # null when a bound is (min_horizontal would skip it)
        return pl.when(pl.all_horizontal(x.is_not_null() for x in e)).then(pick(e)).alias(m)

    # unpivot stacks the columns in order, each in the frame's row order: rows align
    low = unpivot([both(pl.min_horizontal, e, m) for m, e in zip(metrics, ends, strict=True)],
                  _LOW)
    high = unpivot([both(pl.max_horizontal, e, m) for m, e in zip(metrics, ends, strict=True)],
                   _HIGH)
    return long.with_columns(low[_LOW], high[_HIGH])


def check_finite(long: pl.DataFrame, arm: str, queries: list[str]) -> None:
    bad = long.filter(~pl.col(VALUE).is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        msg = (f"metric {row[METRIC]!r} has {bad.height} non-finite values (NaN or inf: "
               f"data the metric could not score), first at {_at(row, arm, queries)}"
               "; find the offending rows with polars_rank.validate()")
        raise InvalidDataError(msg)
    if _LOW not in long.columns:
        return
    # a value needs both bounds (robust=True reads them where the delta reads the value)
    bad = long.filter(pl.col(VALUE).is_not_null()
                      & ~(pl.col(_LOW).is_finite() & pl.col(_HIGH).is_finite()).fill_null(False))
    if bad.height:
        row = bad.row(0, named=True)
        metric = row[METRIC]
        msg = (f"robust=True: metric {metric!r} has {bad.height} values whose bounds "
               f"({metric}_low, {metric}_high) are null, NaN or infinite, first at "
               f"{_at(row, arm, queries)}")
        raise InvalidDataError(msg)


def _at(row: dict[str, Any], arm: str, queries: list[str]) -> str:
    where = ", ".join(f"{q}={row[q]!r}" for q in queries)
    return f"{arm}={row[arm]!r}" + (f", {where}" if where else "")


class Values(NamedTuple):
    """One comparison's values: the arm's and the baseline's (aligned pairs when paired).

    With bounds (``robust=True``), each value's smaller and larger bound, aligned.
    """

    a: npt.NDArray[np.float64]
    b: npt.NDArray[np.float64]
    bounds: tuple[npt.NDArray[np.float64], ...] | None = None  # a_low, a_high, b_low, b_high


Lookup: TypeAlias = "Callable[[tuple[Any, ...], str, Any], Values]"
"""(slice key, metric, arm) -> the arm's and the baseline's values."""


def paired_arrays(long: pl.DataFrame, arm: str, baseline: Any, others: list[Any],
                  queries: list[str], groups: list[str], notes: Notes) -> Lookup:
    """(slice, metric, arm) -> aligned (arm, baseline) values over the shared queries."""
    import numpy as np

    sides = {side: {c: f"{side}{c}" for c in _BOUNDS if c in long.columns}
             for side in (_ARM_VALUE, _BASE_VALUE)}
    base = (long.filter(pl.col(arm) == baseline).drop(arm)
            .rename({VALUE: _BASE_VALUE, **sides[_BASE_VALUE]})
            .join(pl.DataFrame({arm: others}, schema={arm: long.schema[arm]}), how="cross"))
    arm_rows = long.filter(pl.col(arm) != baseline).rename({VALUE: _ARM_VALUE,
                                                           **sides[_ARM_VALUE]})
    on = [*groups, arm, METRIC, *queries]
    joined = arm_rows.join(base, on=on, how="full", coalesce=True, nulls_equal=True)
    a_null, b_null = pl.col(_ARM_VALUE).is_null(), pl.col(_BASE_VALUE).is_null()
    # per (slice, arm): the queries that lack a value on one side only (for some metric),
    # unless that side has no value at all in the slice (reported as empty instead)
    side = [*groups, arm]
    present = joined.group_by(side).agg(
        (~a_null).any().alias("has_a"), (~b_null).any().alias("has_b"))
    lost = (
        joined.filter(a_null ^ b_null)
        .join(present, on=side, nulls_equal=True)
        .group_by([*side, *queries])
        .agg(
            (a_null & ~b_null & pl.col("has_a")).any().alias("no_arm"),
            (b_null & ~a_null & pl.col("has_b")).any().alias("no_base"),
        )
        .filter(pl.col("no_arm") | pl.col("no_base"))
        .sort([*side, *queries], nulls_last=True)
    )
    query_id = pl.struct(queries) if len(queries) > 1 else pl.col(queries[0])
    totals = joined.group_by(side).agg(pl.struct(queries).n_unique().alias("n_total"))
    summary = (
        lost.group_by(side).agg(
            query_id.filter(pl.col("no_arm")).alias("no_arm"),
            query_id.filter(pl.col("no_base")).alias("no_base"),
            pl.len().alias("n_lost"),
        )
        .join(totals, on=side, how="left", nulls_equal=True)
        .sort(side, nulls_last=True)
    )
    for row in summary.iter_rows(named=True):
        key = tuple(row[g] for g in groups)
        parts = []
        if row["no_arm"]:
            parts.append(f"{len(row['no_arm'])} without a value for {row[arm]!r} "
                         f"({_examples(row['no_arm'])})")
        if row["no_base"]:
            parts.append(f"{len(row['no_base'])} without a value for the baseline "
                         f"{baseline!r} ({_examples(row['no_base'])})")
        notes.dropped.append(f"[{describe_key(groups, key)}] {row[arm]!r} vs {baseline!r}: "
                             f"{row['n_lost']} of {row['n_total']} queries, "
                             f"{' and '.join(parts)}")

    # sorted by value (then bounds): resamples, hence results, do not depend on row
    # order or query ids
    ends = [f"{side}{end}" for side in (_ARM_VALUE, _BASE_VALUE) for end in _BOUNDS
            if f"{side}{end}" in joined.columns]
    pairs = joined.filter(~a_null & ~b_null).sort(_ARM_VALUE, _BASE_VALUE, *ends)
    parts_by_key = pairs.partition_by([*groups, METRIC, arm], as_dict=True,
                                      include_key=False)
    empty = np.empty(0, dtype=np.float64)

    def lookup(key: tuple[Any, ...], metric: str, other: Any) -> Values:
        part = parts_by_key.get((*key, metric, other))
        if part is None:
            return Values(empty, empty, (empty,) * 4 if ends else None)
        return Values(_array(part[_ARM_VALUE]), _array(part[_BASE_VALUE]),
                      tuple(_array(part[e]) for e in ends) if ends else None)

    return lookup


def _array(values: pl.Series) -> npt.NDArray[np.float64]:
    import numpy as np

    return values.to_numpy().astype(np.float64)


def unpaired_arrays(long: pl.DataFrame, arm: str, baseline: Any,
                    groups: list[str]) -> Lookup:
    """(slice, metric, arm) -> (arm values, baseline values), nulls dropped."""
    import numpy as np

    # sorted by value (then bounds): resamples, hence results, do not depend on row order
    ends = [c for c in _BOUNDS if c in long.columns]
    values = long.filter(pl.col(VALUE).is_not_null()).sort(VALUE, *ends)
    parts_by_key = values.partition_by([*groups, METRIC, arm], as_dict=True,
                                       include_key=False)
    empty = np.empty(0, dtype=np.float64)

    def get(key: tuple[Any, ...], column: str) -> npt.NDArray[np.float64]:
        part = parts_by_key.get(key)
        return empty if part is None else _array(part[column])

    def lookup(key: tuple[Any, ...], metric: str, other: Any) -> Values:
        mine, theirs = (*key, metric, other), (*key, metric, baseline)
        bounds = (tuple(get(k, c) for k in (mine, theirs) for c in ends) if ends else None)
        return Values(get(mine, VALUE), get(theirs, VALUE), bounds)

    return lookup
