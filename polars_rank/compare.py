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

from polars_rank._compare import cuped
from polars_rank._compare.comparison import compare_pair, rng_key, tukey_bounds, tukey_rows
from polars_rank._compare.data import (
    Notes,
    check_arms,
    check_finite,
    check_unique,
    describe_key,
    paired_arrays,
    to_long,
    unpaired_arrays,
)
from polars_rank._compare.options import CORRECTIONS as CORRECTIONS
from polars_rank._compare.options import (
    COUNT_COLUMNS,
    FLOAT_COLUMNS,
    arm_pairs,
    check_options,
    covariate_column,
    metric_columns,
    name_list,
)
from polars_rank._compare.options import RESULT_COLUMNS as RESULT_COLUMNS
from polars_rank._compare.options import TESTS as TESTS
from polars_rank._compare.robust import BOUNDS, ROBUST_COLUMNS, band, bound_columns
from polars_rank._engine.frames import as_polars
from polars_rank._engine.params import UNSET, Unset, check_result_names
from polars_rank.errors import InvalidDataError
from polars_rank.stats import adjust, require

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike
    from polars_rank.stats import Alternative, Correction, Interval

__all__ = ["compare"]

Test: TypeAlias = Literal["t", "randomization", "bootstrap", "wilcoxon", "sign", "tukey"]
ZeroMethod: TypeAlias = Literal["wilcox", "pratt", "zsplit"]


def compare(
    per_query: FrameLike,
    *,
    arm: str = "arm",
    baseline: Any = None,
    metrics: str | Sequence[str] | None = None,
    query: str | Sequence[str] | None = "qid",
    group_by: str | Sequence[str] | None = None,
    paired: bool = True,
    test: Test = "t",
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    correction: Correction | Unset | None = UNSET,
    interval: Interval = "bca",
    zero_method: ZeroMethod = "wilcox",
    simultaneous: bool = False,
    alternative: Alternative = "two-sided",
    covariate: str | None = None,
    robust: bool = False,
) -> pl.DataFrame:
    r"""Compare arms: delta, lift, intervals, effect size, wins and losses, p-values.

    One row per (slice, metric, pair of arms): the arm's mean, the baseline's mean,
    their difference ``delta = mean - baseline_mean``, the relative
    ``lift = delta / baseline_mean``, ``1 - alpha`` confidence intervals of both, the
    effect size, the p-value of "no difference" (two-sided unless ``alternative``
    says otherwise), the p-value adjusted for
    multiple comparisons within the slice (across metrics x pairs), whether it is
    significant (``p_adjusted <= alpha``), and the options that produced the row.

    **Which pairs.** ``baseline="A"``: every other arm against A. ``baseline=["A",
    "B"]``: every arm against each of them (a pair of two baselines once, the later
    arm against the earlier). ``baseline=None`` (the default): all pairs of arms, in
    sorted order (each arm against every arm before it), as ranx compares runs.

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
      intervals invert the test. ``p_floor`` is the smallest p-value it can give.
    * ``"bootstrap"``: resampled queries (paired) or units of each arm (unpaired);
      BCa intervals (``interval="percentile"`` for percentile ones) as
      ``scipy.stats.bootstrap``; the p-value is the level at which the interval of
      the delta reaches 0.
    * ``"wilcoxon"``: Wilcoxon signed-rank test (``scipy.stats.wilcoxon``, exact for
      small n; zero differences handled by ``zero_method``), the rank-sum
      (Mann-Whitney) test when unpaired; no interval (it tests a location shift).
    * ``"sign"``: the sign test (wins against losses, ties left out; paired only);
      no interval.
    * ``"tukey"``: Tukey's HSD over all arms of the slice and metric
      (``scipy.stats.tukey_hsd``, the arms as independent groups as in ranx); its
      p-values and intervals already hold for all pairs at once, so ``p_adjusted``
      is its p-value and ``correction`` must stay unset.

    **One-sided** (``alternative="greater"`` or ``"less"``, SciPy's meaning: "greater"
    tests whether the arm is above the baseline): for the t, randomization, Wilcoxon
    and sign tests; the intervals are one-sided too, one end infinite.

    **CUPED** (``covariate="pre_ctr"``, unpaired only; Deng, Xu, Kohavi & Walker,
    WSDM 2013): each unit's value Y is replaced by ``Y - theta (X - mean(X))``, X the
    unit's pre-period value in that column, ``theta = cov(Y, X) / var(X)``, both
    pooled over the arms per slice and metric; the means, tests and intervals are
    those of the adjusted values (the same expected delta, less variance), and the
    column ``cuped_theta`` gives theta.

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
        The baseline's value in ``arm``, a list of them, or ``None``: all pairs.
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
        ``"t"``, ``"randomization"``, ``"bootstrap"``, ``"wilcoxon"``, ``"sign"`` or
        ``"tukey"``.
    alpha
        Significance level, and intervals at ``1 - alpha``.
    n_resamples
        Resamples for ``"randomization"`` and ``"bootstrap"``.
    seed
        Seed of the resampling; ``None`` for fresh, irreproducible randomness.
    correction
        ``"holm"`` (the default, except for Tukey), ``"bonferroni"``, ``"holm-sidak"``,
        ``"bh"`` (Benjamini-Hochberg: false discovery rate) or ``None``, across metrics
        x pairs within each slice.
    interval
        Bootstrap interval: ``"bca"`` (default) or ``"percentile"``.
    zero_method
        Zero differences in the Wilcoxon test: ``"wilcox"`` (dropped, SciPy's
        default), ``"pratt"`` or ``"zsplit"`` (``scipy.stats.wilcoxon``).
    simultaneous
        Multiplicity-adjusted intervals: each at ``1 - alpha / m`` for the slice's m
        comparisons (Bonferroni), so that all of them hold together with probability
        at least ``1 - alpha``. Tukey's intervals are simultaneous already.
    alternative
        ``"two-sided"`` (the default), ``"greater"`` (the arm above the baseline) or
        ``"less"``; not for the bootstrap and Tukey.
    covariate
        CUPED: the column of each unit's pre-experiment value (no nulls), for
        ``paired=False``; not a metric.
    robust
        ``True``: read each metric's bounds, ``<metric>_low`` and ``<metric>_high``
        (``evaluate(..., per_query=True, bounds=True)``; from two evaluations under
        ``ties="pessimistic"`` and ``"optimistic"`` to bound the tie order too), and
        say whether each difference survives them (columns below). Not with
        ``covariate``.

    Returns
    -------
    pl.DataFrame
        ``[group_by...], metric, arm, baseline, n, mean, baseline_mean, delta,
        delta_ci_low, delta_ci_high, lift, lift_ci_low, lift_ci_high, effect_size,
        wins, ties, losses, test, alternative, alpha, correction, p_value, p_adjusted,
        significant, n_resamples, p_floor``, ordered by the slice values, the metrics
        in the order given, then the pairs. ``n``: pairs (paired) or the arm's units
        (unpaired). ``effect_size``: Cohen's d, the mean difference over the standard
        deviation of the differences (paired, d_z) or over the pooled standard
        deviation (unpaired, and Tukey). ``wins``/``ties``/``losses``: queries where
        the arm is above, equal to, below the baseline (paired only). ``alternative``
        is the one asked; ``alpha`` is the level asked (intervals are at
        ``1 - alpha / m`` when ``simultaneous``). ``n_resamples`` and ``p_floor`` (the
        smallest p-value the resampling can give: a p-value at the floor means "at
        most this") are null for the other tests. ``lift`` and its interval are null
        when the baseline mean is 0. A row whose arm or baseline has no value in the
        slice has ``n = 0`` and null statistics; with fewer than 2 pairs (or values per
        arm), or fewer than 10 for the bootstrap (``stats.MIN_BOOTSTRAP_N``: its
        intervals are too narrow below), the means are given, the tests and intervals
        are null; each case is reported in a ``UserWarning``. Zero-variance
        differences give p = 1 if the delta is 0, else 0 (t-test; SciPy returns NaN).
        With ``covariate``, a last column ``cuped_theta``. With ``robust=True``, three
        last columns: ``delta_low`` (the arm's ``<metric>_low`` mean minus the
        baseline's ``<metric>_high`` mean), ``delta_high`` (the other way round) and
        ``robust``: whether the difference keeps its sign across them (``delta_low >
        0`` or ``delta_high < 0``); the means are over the values ``delta`` compares
        (the pairs, paired), so the band holds ``delta``. See docs/how-sure.md.

    Raises
    ------
    ValueError
        Unknown option, missing or misused column, baseline not among the arms, or
        only the baseline present.
    InvalidDataError
        Non-finite metric values, or a (slice, arm, query) given twice.
    ImportError
        NumPy (and SciPy for the t, Wilcoxon, sign and Tukey tests) missing:
        ``pip install "polars-rank[stats]"``.

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
    >>> out.select("metric", "arm", "baseline", "n", "mean", "baseline_mean", "delta")
    shape: (1, 7)
    ┌────────┬─────┬──────────┬─────┬──────────┬───────────────┬──────────┐
    │ metric ┆ arm ┆ baseline ┆ n   ┆ mean     ┆ baseline_mean ┆ delta    │
    │ ---    ┆ --- ┆ ---      ┆ --- ┆ ---      ┆ ---           ┆ ---      │
    │ str    ┆ str ┆ str      ┆ i64 ┆ f64      ┆ f64           ┆ f64      │
    ╞════════╪═════╪══════════╪═════╪══════════╪═══════════════╪══════════╡
    │ ndcg   ┆ A   ┆ B        ┆ 6   ┆ 0.733333 ┆ 0.6           ┆ 0.133333 │
    └────────┴─────┴──────────┴─────┴──────────┴───────────────┴──────────┘
    >>> out.select("delta_ci_low", "delta_ci_high", "wins", "ties", "losses", "p_value")
    shape: (1, 6)
    ┌──────────────┬───────────────┬──────┬──────┬────────┬──────────┐
    │ delta_ci_low ┆ delta_ci_high ┆ wins ┆ ties ┆ losses ┆ p_value  │
    │ ---          ┆ ---           ┆ ---  ┆ ---  ┆ ---    ┆ ---      │
    │ f64          ┆ f64           ┆ i64  ┆ i64  ┆ i64    ┆ f64      │
    ╞══════════════╪═══════════════╪══════╪══════╪════════╪══════════╡
    │ 0.047647     ┆ 0.219019      ┆ 5    ┆ 1    ┆ 0      ┆ 0.010323 │
    └──────────────┴───────────────┴──────┴──────┴────────┴──────────┘
    >>> pr.compare(per_query, baseline="B", test="wilcoxon")["p_value"].item()
    0.0625
    """
    if isinstance(correction, Unset):
        correction = None if test == "tukey" else "holm"
    check_options(test=test, correction=correction, alpha=alpha, n_resamples=n_resamples,
                  seed=seed, paired=paired, interval=interval, zero_method=zero_method,
                  simultaneous=simultaneous, alternative=alternative)
    require("numpy", f"compare(test={test!r})")
    if test not in ("randomization", "bootstrap"):
        require("scipy", f"compare(test={test!r})")
    per_query = as_polars(per_query, "per_query",  # pandas, Arrow, dicts too
                          query=query if isinstance(query, str) else "qid")
    if not isinstance(arm, str):
        msg = f"arm must be a column name, got {arm!r}"
        raise TypeError(msg)
    queries = name_list(query, "query")
    groups = name_list(group_by, "group_by")
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
    check_result_names("arm, query and group_by", keys, RESULT_COLUMNS)
    if len(set(keys)) != len(keys):
        msg = f"arm, query and group_by must name different columns, got {keys}"
        raise ValueError(msg)
    extra = covariate_column(covariate, schema, keys, paired)
    metric_names = metric_columns(schema, metrics, [*keys, *extra])
    if not isinstance(robust, bool):
        msg = f"robust must be True or False, got {robust!r}"
        raise TypeError(msg)
    bounds = []
    if robust:
        if covariate is not None:
            msg = ("robust=True bounds the plain means; with covariate= (CUPED) the delta "
                   "is that of the adjusted values: compare without the covariate for the "
                   "bounds")
            raise ValueError(msg)
        metric_names = bound_columns(schema, metric_names)
        bounds = [f"{m}_{end}" for m in metric_names for end in BOUNDS]

    frame = per_query.lazy().select(*keys, *extra, *metric_names, *bounds).collect()
    # one row order for any input order: CUPED's sums and every array follow it
    frame = frame.sort(frame.columns, nulls_last=True)
    arms = check_arms(frame, arm, baseline)
    pairs = arm_pairs(arms, baseline)
    for q in queries:
        if frame[q].null_count():
            msg = f"query column {q!r} has null values"
            raise InvalidDataError(msg)
    if queries:
        check_unique(frame, [*groups, arm, *queries])
    long = to_long(frame, [*keys, *extra], metric_names, BOUNDS if robust else None)
    check_finite(long, arm, queries)
    thetas: dict[tuple[Any, ...], float] = {}
    if covariate is not None:
        cuped.check_covariate(frame, covariate)
        long, thetas = cuped.adjust(long, covariate, groups)

    slices = (frame.select(groups).unique().sort(groups, nulls_last=True).rows()
              if groups else [()])
    notes = Notes([], [], [])
    bases = list(dict.fromkeys(base for _, base in pairs))
    if test == "tukey":
        arrays = {None: unpaired_arrays(long, arm, None, groups)}
    elif paired:
        arrays = {base: paired_arrays(long, arm, base, [o for o, b in pairs if b == base],
                                      queries, groups, notes) for base in bases}
    else:
        arrays = {base: unpaired_arrays(long, arm, base, groups) for base in bases}
    family = len(metric_names) * len(pairs)
    interval_alpha = alpha / family if simultaneous and test != "tukey" else alpha
    options = {"test": test, "alternative": alternative, "alpha": alpha,
               "correction": "tukey" if test == "tukey" else correction,
               "n_resamples": n_resamples if test in ("randomization", "bootstrap") else None}

    rows: list[dict[str, Any]] = []
    for key in slices:
        in_slice: list[dict[str, Any]] = []
        for metric in metric_names:
            where = f"[{describe_key(groups, key)}] metric {metric!r}"
            if test == "tukey":
                each = {a: arrays[None](key, metric, a) for a in arms}
                results = tukey_rows({a: v.a for a, v in each.items()}, pairs, alpha, where, notes)
                bands = [tukey_bounds(each[other], each[base]) for other, base in pairs]
            else:
                found = [arrays[base](key, metric, other) for other, base in pairs]
                results = [
                    compare_pair(v.a, v.b, paired=paired, test=test,
                                 alpha=interval_alpha, n_resamples=n_resamples, interval=interval,
                                 zero_method=zero_method, alternative=alternative,
                                 seed=(rng_key(seed, (key, metric, other))
                                       if test in ("randomization", "bootstrap") else None),
                                 where=f"{where}, arm {other!r} vs {base!r}", notes=notes)
                    for (other, base), v in zip(pairs, found, strict=True)
                ]
                bands = [v.bounds for v in found]
            for (other, base), result, bounds_of in zip(pairs, results, bands, strict=True):
                in_slice.append({**dict(zip(groups, key, strict=True)), "metric": metric,
                                 arm: other, "baseline": base, **result, **options,
                                 cuped.THETA: thetas.get((*key, metric)),
                                 **(band(bounds_of) if robust else {})})
        tested = [r for r in in_slice if r["p_value"] is not None]
        if test != "tukey":
            for r, p in zip(tested, adjust([r["p_value"] for r in tested], correction),
                            strict=True):
                r["p_adjusted"] = p
        for r in tested:
            r["significant"] = r["p_adjusted"] <= alpha
        rows += in_slice
    notes.emit(paired)
    arm_type = frame.schema[arm]
    out_schema: dict[str, pl.DataType | type[pl.DataType]] = {
        **{g: frame.schema[g] for g in groups}, "metric": pl.String, arm: arm_type,
        "baseline": arm_type, **dict.fromkeys(COUNT_COLUMNS, pl.Int64),
        **dict.fromkeys(FLOAT_COLUMNS, pl.Float64), "test": pl.String, "alternative": pl.String,
        "alpha": pl.Float64, "correction": pl.String, "significant": pl.Boolean,
        cuped.THETA: pl.Float64,
        **({"delta_low": pl.Float64, "delta_high": pl.Float64, "robust": pl.Boolean}
           if robust else {}),
    }
    columns = [*groups, "metric", arm, *RESULT_COLUMNS[1:], *([cuped.THETA] if extra else []),
               *(ROBUST_COLUMNS if robust else ())]
    return pl.DataFrame(rows, schema=out_schema).select(columns)
