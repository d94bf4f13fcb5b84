"""``compare()``: arms against a baseline, per metric and slice, with intervals and tests.

The input is a frame of per-query values (``evaluate(..., per_query=True)``, or any
frame with an arm column, a query or unit column and metric columns). Polars does
the reshaping, pairing and bookkeeping; :mod:`polars_rank.stats` runs the tests on
NumPy arrays, one (slice, metric, arm) comparison at a time, each vectorised over
its queries and resamples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank._compare.comparison import _one, _rng_key
from polars_rank._compare.data import (
    _check_arms,
    _check_finite,
    _check_unique,
    _describe,
    _long,
    _Notes,
    _paired_arrays,
    _unpaired_arrays,
)
from polars_rank._compare.options import _FLOATS, _check_options, _metric_columns, _names
from polars_rank._compare.options import CORRECTIONS as CORRECTIONS
from polars_rank._compare.options import RESULT_COLUMNS as RESULT_COLUMNS
from polars_rank._compare.options import TESTS as TESTS
from polars_rank._frames import as_polars
from polars_rank.errors import InvalidDataError
from polars_rank.stats import adjust, require

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._frames import FrameLike
    from polars_rank.stats import Correction, Interval

__all__ = ["compare"]

Test: TypeAlias = Literal["t", "randomization", "bootstrap"]


def compare(
    per_query: FrameLike,
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
        ``evaluate(..., per_query=True, group_by="arm")``. Lazy frames are collected;
        a pandas DataFrame, pyarrow Table or dict of columns is read as a frame.
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
    per_query = as_polars(per_query, "per_query",  # pandas, Arrow, dicts too
                          query=query if isinstance(query, str) else "qid")
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
