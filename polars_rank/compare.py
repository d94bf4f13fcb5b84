"""``compare()``: arms against a baseline, per metric and slice, with intervals and tests.

The input is a frame of per-query values (``evaluate(..., per_query=True)``, or any
frame with an arm column, a query or unit column and metric columns). Polars does
the reshaping, pairing and bookkeeping; :mod:`polars_rank.stats` runs the tests on
NumPy arrays, one (slice, metric, arm) comparison at a time, each vectorised over
its queries and resamples.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank.errors import InvalidDataError
from polars_rank.stats import (
    TestResult,
    adjust,
    bootstrap_test,
    randomization_test,
    require,
    t_test,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np
    import numpy.typing as npt

    from polars_rank.stats import Correction, Interval

__all__ = ["compare"]

Test: TypeAlias = Literal["t", "randomization", "bootstrap"]
TESTS: tuple[str, ...] = ("t", "randomization", "bootstrap")
CORRECTIONS = ("holm", "bonferroni", None)

_METRIC = "__polars_rank_metric"
_VALUE = "__polars_rank_value"
_ARM_VALUE = "__polars_rank_a"
_BASE_VALUE = "__polars_rank_b"

RESULT_COLUMNS = ("metric", "n", "mean", "baseline_mean", "delta", "lift", "ci_low",
                  "ci_high", "lift_low", "lift_high", "p_value", "p_adjusted", "significant")
_FLOATS = ("mean", "baseline_mean", "delta", "lift", "ci_low", "ci_high", "lift_low",
           "lift_high", "p_value", "p_adjusted")
_EXAMPLES = 3


def _names(value: str | Sequence[str] | None, param: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        return list(value)
    msg = f"{param} must be a column name or a non-empty list of column names, got {value!r}"
    raise TypeError(msg)


def _check_options(*, test: object, correction: object, alpha: object, n_resamples: object,
                   seed: object, paired: object, interval: object) -> None:
    if test not in TESTS:
        msg = f"test must be one of {', '.join(map(repr, TESTS))}, got {test!r}"
        raise ValueError(msg)
    if correction not in CORRECTIONS:
        msg = f"correction must be one of 'holm', 'bonferroni', None, got {correction!r}"
        raise ValueError(msg)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        msg = f"alpha must be a number strictly between 0 and 1, got {alpha!r}"
        raise ValueError(msg)
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, int)
            or n_resamples < 1):
        msg = f"n_resamples must be a positive int, got {n_resamples!r}"
        raise ValueError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        msg = f"seed must be a non-negative int or None (fresh randomness), got {seed!r}"
        raise ValueError(msg)
    if not isinstance(paired, bool):
        msg = f"paired must be True or False, got {paired!r}"
        raise TypeError(msg)
    if interval not in ("bca", "percentile"):
        msg = f"interval must be one of 'bca', 'percentile', got {interval!r}"
        raise ValueError(msg)
    if interval != "bca" and test != "bootstrap":
        msg = f"interval={interval!r} applies to test='bootstrap' only, got test={test!r}"
        raise ValueError(msg)


def _describe(groups: list[str], key: tuple[Any, ...]) -> str:
    if not groups:
        return "all rows"
    return ", ".join(f"{g}={v!r}" for g, v in zip(groups, key, strict=True))


def _examples(values: list[Any]) -> str:
    shown = ", ".join(repr(v) for v in values[:_EXAMPLES])
    return f"e.g. {shown}" + (", ..." if len(values) > _EXAMPLES else "")


@dataclass
class _Notes:
    """What compare() reports in warnings, gathered over all comparisons."""

    dropped: list[str]
    empty: list[str]
    too_few: list[str]

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


def _rng_key(seed: int | None, key: tuple[Any, ...]) -> np.random.SeedSequence:
    """A seed per comparison, from the seed and the comparison's (slice, metric, arm).

    The same comparison gets the same resamples whatever else is compared.
    """
    import numpy as np

    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(repr(key).encode()),))


def compare(
    per_query: pl.DataFrame | pl.LazyFrame,
    *,
    arm: str = "arm",
    baseline: Any,
    metrics: str | Sequence[str] | None = None,
    query: str | Sequence[str] | None = "qid",
    group_by: str | Sequence[str] | None = None,
    paired: bool = True,
    test: Test = "t",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    correction: Correction | None = "holm",
    interval: Interval = "bca",
) -> pl.DataFrame:
    r"""Compare every arm with the baseline: delta, lift, confidence intervals, p-values.

    One row per (slice, metric, arm other than the baseline), with the arm's mean, the
    baseline's mean, their difference ``delta = mean - baseline_mean``, the relative
    ``lift = delta / baseline_mean``, two-sided ``1 - alpha`` confidence intervals of
    both, the two-sided p-value of "no difference", the p-value adjusted for
    multiple comparisons within the slice (across metrics x arms), and whether it is
    significant (``p_adjusted <= alpha``).

    **Paired** (``paired=True``, offline evaluation: every arm ranks the same
    queries): each arm is compared with the baseline on the queries where both have a
    value; a ``UserWarning`` says how many queries were left out and which side
    lacked them. **Unpaired** (``paired=False``, online A/B: arms see different users
    or sessions): all of each arm's units (rows) are used; ``query`` may be ``None``.
    Null values are skipped (AUC of a query without both classes, say).

    Tests (see :mod:`polars_rank.stats`):

    * ``"t"``: paired t-test on the per-query differences, Welch's t-test when
      unpaired (as ``scipy.stats.ttest_rel`` / ``ttest_ind(equal_var=False)``); the
      lift interval by the delta method. Needs SciPy.
    * ``"randomization"``: random sign flips of the differences (paired) or
      permutations of the arm labels (unpaired), exact when there are at most
      ``n_resamples`` rearrangements; p-value as ``scipy.stats.permutation_test``;
      intervals invert the test.
    * ``"bootstrap"``: resampled queries (paired) or units of each arm (unpaired);
      BCa intervals (``interval="percentile"`` for percentile ones) as
      ``scipy.stats.bootstrap``; the p-value is the level at which the interval of
      the delta reaches 0.

    Resampling is seeded: each comparison draws from a generator seeded by ``seed``
    and its (slice, metric, arm), so results are reproducible and do not change when
    other metrics or arms are added.

    Parameters
    ----------
    per_query
        One row per (slice..., arm, query) with one column per metric, e.g.
        ``evaluate(..., per_query=True, group_by="arm")``. Lazy frames are collected.
    arm
        The column naming the system or A/B arm.
    baseline
        The baseline's value in ``arm``.
    metrics
        Metric column(s). ``None``: every numeric column other than ``arm``,
        ``query`` and ``group_by``.
    query
        Column(s) identifying a query (or user, session): pairs the arms' values
        (paired), and no (slice, arm, query) may appear twice. ``None`` (unpaired
        only): every row is a unit.
    group_by
        Slice column(s) (segment, locale, device): compare within each slice.
    paired
        Same queries in every arm (True) or different units (False).
    test
        ``"t"``, ``"randomization"`` or ``"bootstrap"``.
    alpha
        Significance level, and intervals at ``1 - alpha`` (not adjusted for
        multiplicity).
    n_resamples
        Resamples for ``"randomization"`` and ``"bootstrap"``.
    seed
        Seed of the resampling; ``None`` for fresh, irreproducible randomness.
    correction
        ``"holm"`` (default), ``"bonferroni"`` or ``None``, across metrics x arms
        within each slice.
    interval
        Bootstrap interval: ``"bca"`` (default) or ``"percentile"``.

    Returns
    -------
    pl.DataFrame
        ``[group_by...], metric, arm, n, mean, baseline_mean, delta, lift, ci_low,
        ci_high, lift_low, lift_high, p_value, p_adjusted, significant``, ordered by
        the slice values, the metrics in the order given, then the arms. ``n``: pairs
        (paired) or the arm's units (unpaired). ``lift`` and its interval are null
        when the baseline mean is 0. A row whose arm or baseline has no value in the
        slice has ``n = 0`` and null statistics; with fewer than 2 pairs (or values per
        arm) the means are given, the tests and intervals are null; both are reported
        in a ``UserWarning``. Zero-variance differences give p = 1 if the delta is 0,
        else 0 (t-test; SciPy returns NaN).

    Raises
    ------
    ValueError
        Unknown option, missing or misused column, baseline not among the arms, or
        only the baseline present.
    InvalidDataError
        Non-finite metric values, or a (slice, arm, query) given twice.
    ImportError
        NumPy (and SciPy for ``test="t"``) missing: ``pip install "polars-rank[stats]"``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> per_query = pl.DataFrame({
    ...     "arm": ["A"] * 6 + ["B"] * 6,
    ...     "qid": [1, 2, 3, 4, 5, 6] * 2,
    ...     "ndcg": [0.5, 0.7, 0.9, 0.6, 0.8, 0.9, 0.4, 0.5, 0.8, 0.6, 0.6, 0.7],
    ... })
    >>> out = pr.compare(per_query, baseline="B")
    >>> out.select("metric", "arm", "n", "mean", "baseline_mean", "delta", "lift")
    shape: (1, 7)
    ┌────────┬─────┬─────┬──────────┬───────────────┬──────────┬──────────┐
    │ metric ┆ arm ┆ n   ┆ mean     ┆ baseline_mean ┆ delta    ┆ lift     │
    │ ---    ┆ --- ┆ --- ┆ ---      ┆ ---           ┆ ---      ┆ ---      │
    │ str    ┆ str ┆ i64 ┆ f64      ┆ f64           ┆ f64      ┆ f64      │
    ╞════════╪═════╪═════╪══════════╪═══════════════╪══════════╪══════════╡
    │ ndcg   ┆ A   ┆ 6   ┆ 0.733333 ┆ 0.6           ┆ 0.133333 ┆ 0.222222 │
    └────────┴─────┴─────┴──────────┴───────────────┴──────────┴──────────┘
    >>> out.select("ci_low", "ci_high", "p_value", "p_adjusted", "significant")
    shape: (1, 5)
    ┌──────────┬──────────┬──────────┬────────────┬─────────────┐
    │ ci_low   ┆ ci_high  ┆ p_value  ┆ p_adjusted ┆ significant │
    │ ---      ┆ ---      ┆ ---      ┆ ---        ┆ ---         │
    │ f64      ┆ f64      ┆ f64      ┆ f64        ┆ bool        │
    ╞══════════╪══════════╪══════════╪════════════╪═════════════╡
    │ 0.047647 ┆ 0.219019 ┆ 0.010323 ┆ 0.010323   ┆ true        │
    └──────────┴──────────┴──────────┴────────────┴─────────────┘
    """
    _check_options(test=test, correction=correction, alpha=alpha, n_resamples=n_resamples,
                   seed=seed, paired=paired, interval=interval)
    require("numpy", f"compare(test={test!r})")
    if test == "t":
        require("scipy", "compare(test='t')")
    if not isinstance(per_query, (pl.DataFrame, pl.LazyFrame)):
        msg = f"per_query must be a polars DataFrame or LazyFrame, got {type(per_query).__name__}"
        raise TypeError(msg)
    if not isinstance(arm, str):
        msg = f"arm must be a column name, got {arm!r}"
        raise TypeError(msg)
    queries = _names(query, "query")
    groups = _names(group_by, "group_by")
    if paired and not queries:
        msg = "paired=True needs query= (the column(s) that pair the arms' values)"
        raise ValueError(msg)
    schema = per_query.collect_schema()
    keys = [arm, *queries, *groups]
    for column, param in [(arm, "arm"), *((q, "query") for q in queries),
                          *((g, "group_by") for g in groups)]:
        if column not in schema:
            msg = f"per_query has no column {column!r} (named by {param}=); columns: {list(schema)}"
            raise ValueError(msg)
    clash = sorted(set(keys) & set(RESULT_COLUMNS))
    if clash:
        msg = f"arm, query and group_by columns may not be named like result columns: {clash}"
        raise ValueError(msg)
    if len(set(keys)) != len(keys):
        msg = f"arm, query and group_by must name different columns, got {keys}"
        raise ValueError(msg)
    metric_names = _metric_columns(schema, metrics, keys)

    frame = per_query.lazy().select(*keys, *metric_names).collect()
    arms = _check_arms(frame, arm, baseline)
    for q in queries:
        if frame[q].null_count():
            msg = f"query column {q!r} has null values"
            raise InvalidDataError(msg)
    if queries:
        _check_unique(frame, [*groups, arm, *queries])
    long = _long(frame, keys, metric_names)
    _check_finite(long, arm, queries)

    slices = (frame.select(groups).unique().sort(groups, nulls_last=True).rows()
              if groups else [()])
    others = [a for a in arms if a != baseline]
    notes = _Notes([], [], [])
    if paired:
        arrays = _paired_arrays(long, arm, baseline, others, queries, groups, notes)
    else:
        arrays = _unpaired_arrays(long, arm, baseline, groups)

    rows: list[dict[str, Any]] = []
    for key in slices:
        in_slice: list[dict[str, Any]] = []
        for metric in metric_names:
            for other in others:
                a, b = arrays(key, metric, other)
                where = f"[{_describe(groups, key)}] metric {metric!r}, arm {other!r}"
                result = _one(a, b, paired=paired, test=test, alpha=alpha,
                              n_resamples=n_resamples, interval=interval,
                              seed=None if test == "t" else _rng_key(seed, (key, metric, other)),
                              where=where, notes=notes)
                in_slice.append({**dict(zip(groups, key, strict=True)), "metric": metric,
                                 arm: other, **result})
        tested = [r for r in in_slice if r["p_value"] is not None]
        adjusted = adjust([r["p_value"] for r in tested], correction)
        for r, p in zip(tested, adjusted, strict=True):
            r["p_adjusted"] = p
            r["significant"] = p <= alpha
        rows += in_slice
    notes.emit(paired)
    out_schema: dict[str, pl.DataType | type[pl.DataType]] = {
        **{g: frame.schema[g] for g in groups}, "metric": pl.String, arm: frame.schema[arm],
        "n": pl.Int64, **dict.fromkeys(_FLOATS, pl.Float64), "significant": pl.Boolean,
    }
    columns = [*groups, "metric", arm, *RESULT_COLUMNS[1:]]
    return pl.DataFrame(rows, schema=out_schema).select(columns)


def _metric_columns(schema: pl.Schema, metrics: str | Sequence[str] | None,
                    keys: list[str]) -> list[str]:
    if metrics is None:
        names = [c for c, t in schema.items()
                 if c not in keys and (t.is_numeric() or t == pl.Boolean)]
        if not names:
            msg = (f"per_query has no numeric metric column besides {keys}; "
                   f"columns: {list(schema)}")
            raise ValueError(msg)
        return names
    names = _names(metrics, "metrics")
    if len(set(names)) != len(names):
        msg = f"metrics has duplicate names: {names}"
        raise ValueError(msg)
    for m in names:
        if m not in schema:
            msg = f"per_query has no metric column {m!r}; columns: {list(schema)}"
            raise ValueError(msg)
        if m in keys:
            msg = f"metric column {m!r} is also the arm, a query or a group_by column"
            raise ValueError(msg)
        dtype = schema[m]
        if not (dtype.is_numeric() or dtype == pl.Boolean or dtype == pl.Null):
            msg = f"metric column {m!r} must be numeric, got {dtype}"
            raise TypeError(msg)
    return names


def _check_arms(frame: pl.DataFrame, arm: str, baseline: Any) -> list[Any]:
    if frame[arm].null_count():
        msg = f"arm column {arm!r} has null values"
        raise InvalidDataError(msg)
    arms: list[Any] = frame[arm].unique().sort().to_list()
    if baseline not in arms:
        msg = f"baseline {baseline!r} is not a value of column {arm!r}; its values are {arms}"
        raise ValueError(msg)
    if len(arms) < 2:
        msg = f"column {arm!r} holds only the baseline {baseline!r}: nothing to compare"
        raise ValueError(msg)
    return arms


def _check_unique(frame: pl.DataFrame, keys: list[str]) -> None:
    duplicated = frame.filter(pl.struct(keys).is_duplicated()).select(keys)
    if duplicated.height:
        first = duplicated.row(0, named=True)
        msg = (f"per_query has {duplicated.height} rows whose ({', '.join(keys)}) is not "
               f"unique, first {first}: give one row per query and arm (and slice)")
        raise InvalidDataError(msg)


def _long(frame: pl.DataFrame, keys: list[str], metrics: list[str]) -> pl.DataFrame:
    """One row per (key..., metric): the value as Float64, nulls kept."""
    return frame.select(
        *keys, *(pl.col(m).cast(pl.Float64) for m in metrics)
    ).unpivot(index=keys, on=metrics, variable_name=_METRIC, value_name=_VALUE)


def _check_finite(long: pl.DataFrame, arm: str, queries: list[str]) -> None:
    bad = long.filter(~pl.col(_VALUE).is_finite())
    if bad.height:
        row = bad.row(0, named=True)
        where = ", ".join(f"{q}={row[q]!r}" for q in queries)
        msg = (f"metric {row[_METRIC]!r} has {bad.height} non-finite values (NaN or inf: "
               f"data the metric could not score), first at {arm}={row[arm]!r}"
               + (f", {where}" if where else "")
               + "; find the offending rows with polars_rank.validate()")
        raise InvalidDataError(msg)


Arrays: TypeAlias = "tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]"
Lookup: TypeAlias = "Callable[[tuple[Any, ...], str, Any], Arrays]"
"""(slice key, metric, arm) -> (arm values, baseline values)."""


def _paired_arrays(long: pl.DataFrame, arm: str, baseline: Any, others: list[Any],
                   queries: list[str], groups: list[str], notes: _Notes) -> Lookup:
    """(slice, metric, arm) -> aligned (arm, baseline) values over the shared queries."""
    import numpy as np

    base = (long.filter(pl.col(arm) == baseline).drop(arm)
            .rename({_VALUE: _BASE_VALUE})
            .join(pl.DataFrame({arm: others}, schema={arm: long.schema[arm]}), how="cross"))
    arm_rows = long.filter(pl.col(arm) != baseline).rename({_VALUE: _ARM_VALUE})
    on = [*groups, arm, _METRIC, *queries]
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
        notes.dropped.append(f"[{_describe(groups, key)}] {row[arm]!r} vs {baseline!r}: "
                             f"{row['n_lost']} of {row['n_total']} queries, "
                             f"{' and '.join(parts)}")

    # sorted by value: resamples, hence results, do not depend on row order or query ids
    pairs = joined.filter(~a_null & ~b_null).sort(_ARM_VALUE, _BASE_VALUE)
    parts_by_key = pairs.partition_by([*groups, _METRIC, arm], as_dict=True,
                                      include_key=False)
    empty = np.empty(0, dtype=np.float64)

    def lookup(key: tuple[Any, ...], metric: str, other: Any) -> Arrays:
        part = parts_by_key.get((*key, metric, other))
        if part is None:
            return empty, empty
        return (part[_ARM_VALUE].to_numpy().astype(np.float64),
                part[_BASE_VALUE].to_numpy().astype(np.float64))

    return lookup


def _unpaired_arrays(long: pl.DataFrame, arm: str, baseline: Any,
                     groups: list[str]) -> Lookup:
    """(slice, metric, arm) -> (arm values, baseline values), nulls dropped."""
    import numpy as np

    # sorted by value: resamples, hence results, do not depend on row order
    values = long.filter(pl.col(_VALUE).is_not_null()).sort(_VALUE)
    parts_by_key = values.partition_by([*groups, _METRIC, arm], as_dict=True,
                                       include_key=False)
    empty = np.empty(0, dtype=np.float64)

    def get(key: tuple[Any, ...]) -> npt.NDArray[np.float64]:
        part = parts_by_key.get(key)
        return empty if part is None else part[_VALUE].to_numpy().astype(np.float64)

    def lookup(key: tuple[Any, ...], metric: str, other: Any) -> Arrays:
        return get((*key, metric, other)), get((*key, metric, baseline))

    return lookup


def _one(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], *, paired: bool, test: str,
         alpha: float, n_resamples: int, interval: Interval,
         seed: np.random.SeedSequence | None, where: str, notes: _Notes) -> dict[str, Any]:
    """The statistics of one comparison as a row (without the keys)."""
    row: dict[str, Any] = dict.fromkeys(_FLOATS)
    row["n"] = int(a.size)
    row["significant"] = None
    if a.size == 0 or b.size == 0:
        if not paired:
            row["mean"] = float(a.mean()) if a.size else None
            row["baseline_mean"] = float(b.mean()) if b.size else None
        if paired:
            notes.empty.append(f"{where}: no query with a value in both")
        else:
            notes.empty.append(f"{where}: no {'arm' if a.size == 0 else 'baseline'} values")
        return row
    mean, baseline_mean = float(a.mean()), float(b.mean())
    delta = mean - baseline_mean
    row.update(mean=mean, baseline_mean=baseline_mean, delta=delta,
               lift=delta / baseline_mean if baseline_mean != 0 else None)
    if min(a.size, b.size) < 2:
        sizes = f"n = {a.size}" if paired else f"n = {a.size} and {b.size}"
        notes.too_few.append(f"{where}: {sizes}")
        return row
    result: TestResult
    if test == "t":
        result = t_test(a, b, paired=paired, alpha=alpha)
    elif test == "randomization":
        result = randomization_test(a, b, paired=paired, alpha=alpha,
                                    n_resamples=n_resamples, seed=seed)
    else:
        result = bootstrap_test(a, b, paired=paired, alpha=alpha, n_resamples=n_resamples,
                                seed=seed, interval=interval)
    row.update(ci_low=result.ci_low, ci_high=result.ci_high, lift_low=result.lift_low,
               lift_high=result.lift_high, p_value=result.p_value)
    return row
