"""One comparison: its seed, and its statistics as a result row."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from polars_rank._compare.options import _FLOATS
from polars_rank.stats import (
    TestResult,
    bootstrap_test,
    randomization_test,
    t_test,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from polars_rank._compare.data import _Notes
    from polars_rank.stats import Interval


def _rng_key(seed: int | None, key: tuple[Any, ...]) -> np.random.SeedSequence:
    """A seed per comparison, from the seed and the comparison's (slice, metric, arm).

    The same comparison gets the same resamples whatever else is compared.
    """
    import numpy as np

    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(repr(key).encode()),))


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
