"""One comparison as a result row; Tukey's family of all pairs of arms.

A comparison is an arm against a baseline on one metric in one slice.
"""

from __future__ import annotations

import math
import zlib
from typing import TYPE_CHECKING, Any

from polars_rank._compare.options import FLOAT_COLUMNS
from polars_rank._stats.bootstrap import MIN_BOOTSTRAP_N
from polars_rank.stats import (
    TestResult,
    bootstrap_test,
    randomization_test,
    sign_test,
    t_test,
    wilcoxon_test,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np
    import numpy.typing as npt

    from polars_rank._compare.data import Notes, Values
    from polars_rank.stats import Alternative, Interval

    Array = npt.NDArray[np.float64]


def rng_key(seed: int | None, key: tuple[Any, ...]) -> np.random.SeedSequence:
    """A seed per comparison, from the seed and the comparison's (slice, metric, arm).

    The same comparison gets the same resamples whatever else is compared.
    """
    import numpy as np

    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(repr(key).encode()),))


def _effect_size(a: Array, b: Array, *, paired: bool) -> float | None:
    """Cohen's d: mean difference / SD of the differences (paired, d_z), or / pooled SD."""
    if paired:
        sd = float((a - b).std(ddof=1))
    else:
        pooled = ((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1))
        sd = math.sqrt(float(pooled) / (a.size + b.size - 2))
    return (float(a.mean()) - float(b.mean())) / sd if sd > 0 else None


def _p_floor(test: str, n: int, n_resamples: int, *, paired: bool, n_b: int,
             alternative: str = "two-sided") -> float | None:
    """The smallest p-value a resampling test can give here: its resolution.

    Randomization: twice the smallest one-sided p-value, ``2 / total`` when all
    ``total`` rearrangements are enumerated, else ``2 / (n_resamples + 1)`` (one-sided:
    half of those); bootstrap: ``1 / n_resamples``. A p-value at the floor means "at
    most this", not "equal".
    """
    if test == "bootstrap":
        return 1 / n_resamples
    if test != "randomization":
        return None
    total = 2 ** n if paired else math.comb(n + n_b, n)
    sides = 2 if alternative == "two-sided" else 1
    return sides / total if total <= n_resamples else sides / (n_resamples + 1)


def compare_pair(a: Array, b: Array, *, paired: bool, test: str, alpha: float, n_resamples: int,
                 interval: Interval, zero_method: str, seed: np.random.SeedSequence | None,
                 where: str, notes: Notes,
                 alternative: Alternative = "two-sided") -> dict[str, Any]:
    """The statistics of one comparison as a row (without the keys and the options).

    ``alpha`` here is the intervals' (``1 - alpha``): adjusted when they are simultaneous.
    """
    row: dict[str, Any] = dict.fromkeys(FLOAT_COLUMNS)
    row.update(n=int(a.size), significant=None, wins=None, ties=None, losses=None)
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
    if paired:
        row.update(wins=int((a > b).sum()), ties=int((a == b).sum()), losses=int((a < b).sum()))
    sizes = f"n = {a.size}" if paired else f"n = {a.size} and {b.size}"
    if min(a.size, b.size) < 2:
        notes.too_few.append(f"{where}: {sizes}")
        return row
    if test == "bootstrap" and min(a.size, b.size) < MIN_BOOTSTRAP_N:
        notes.too_few_to_resample.append(f"{where}: {sizes}")
        row["effect_size"] = _effect_size(a, b, paired=paired)
        return row
    row["effect_size"] = _effect_size(a, b, paired=paired)
    result: TestResult
    if test == "t":
        result = t_test(a, b, paired=paired, alpha=alpha, alternative=alternative)
    elif test == "randomization":
        result = randomization_test(a, b, paired=paired, alpha=alpha,
                                    n_resamples=n_resamples, seed=seed,
                                    alternative=alternative)
    elif test == "bootstrap":
        result = bootstrap_test(a, b, paired=paired, alpha=alpha, n_resamples=n_resamples,
                                seed=seed, interval=interval)
    elif test == "wilcoxon":
        result = wilcoxon_test(a, b, paired=paired, zero_method=zero_method,  # type: ignore[arg-type]
                               alternative=alternative)
    else:
        result = sign_test(a, b, alternative=alternative)
    row.update(delta_ci_low=result.ci_low, delta_ci_high=result.ci_high,
               lift_ci_low=result.lift_low, lift_ci_high=result.lift_high,
               p_value=result.p_value,
               p_floor=_p_floor(test, a.size, n_resamples, paired=paired, n_b=b.size,
                                alternative=alternative))
    return row


def tukey_rows(values: dict[Any, Array], pairs: Sequence[tuple[Any, Any]], alpha: float,
               where: str, notes: Notes) -> list[dict[str, Any]]:
    """Tukey's HSD over every arm with values: one row per (arm, baseline) pair asked.

    ``scipy.stats.tukey_hsd`` on each arm's values as independent groups (the pairing
    of queries is not used, as in ranx and statsmodels' ``pairwise_tukeyhsd``): its
    p-values and intervals hold for the whole family of pairs of arms at once.
    """
    from scipy import stats as sps

    arms = [arm for arm, v in values.items() if v.size >= 2]
    rows: list[dict[str, Any]] = []
    result = None
    if len(arms) >= 2:
        result = sps.tukey_hsd(*(values[arm] for arm in arms))
        ci = result.confidence_interval(confidence_level=1 - alpha)
    for other, base in pairs:
        a, b = values.get(other), values.get(base)
        row: dict[str, Any] = dict.fromkeys(FLOAT_COLUMNS)
        row.update(n=0 if a is None else int(a.size), significant=None, wins=None,
                   ties=None, losses=None)
        if a is not None and a.size and b is not None and b.size:
            mean, baseline_mean = float(a.mean()), float(b.mean())
            row.update(mean=mean, baseline_mean=baseline_mean, delta=mean - baseline_mean,
                       lift=(mean - baseline_mean) / baseline_mean if baseline_mean else None)
        if result is None or other not in arms or base not in arms:
            notes.too_few.append(f"{where}: {other!r} vs {base!r}, fewer than 2 values")
        else:
            i, j = arms.index(other), arms.index(base)
            row.update(delta_ci_low=float(ci.low[i, j]), delta_ci_high=float(ci.high[i, j]),
                       p_value=float(result.pvalue[i, j]), p_adjusted=float(result.pvalue[i, j]),
                       effect_size=_effect_size(values[other], values[base], paired=False))
        rows.append(row)
    return rows


def tukey_bounds(mine: Values, theirs: Values) -> tuple[Any, ...] | None:
    """Tukey compares each arm's values as a group: the bounds of each side's own."""
    if mine.bounds is None or theirs.bounds is None:
        return None
    return (*mine.bounds[:2], *theirs.bounds[:2])
