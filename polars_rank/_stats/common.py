"""What the tests share: the optional dependencies, the result, checked inputs, batches."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

# The statistics' types, here rather than in polars_rank.stats (which re-exports them)
# so that the test modules below it need not import it back (tests/test_imports.py).
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array: TypeAlias = npt.NDArray[np.float64]
    ArrayLike: TypeAlias = "npt.ArrayLike"
    SeedLike: TypeAlias = "int | np.random.SeedSequence | np.random.Generator | None"

Interval: TypeAlias = Literal["bca", "percentile"]
Correction: TypeAlias = Literal["holm", "bonferroni", "holm-sidak", "bh"]
Alternative: TypeAlias = Literal["two-sided", "greater", "less"]
"""SciPy's ``alternative``: ``"greater"`` tests whether the arm is above the baseline."""

INSTALL_HINT = 'pip install "polars-rank[stats]"'
"""How to install the optional statistics dependencies (NumPy and SciPy)."""

_BATCH_CELLS = 1 << 20
"""Resamples are drawn in batches of about this many cells (batch x rows)."""


def require(module: str, purpose: str) -> None:
    """Import ``module`` or raise an ``ImportError`` saying how to install it."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        msg = (f"{purpose} needs {module.split('.')[0]}, which is not installed; "
               f"install the statistics extra: {INSTALL_HINT}")
        raise ImportError(msg) from exc


@dataclass(frozen=True)
class TestResult:
    """One arm against the baseline on one metric.

    ``n`` is the number of pairs (paired) or of the arm's units (unpaired).
    ``delta = mean - baseline_mean``; ``lift = delta / baseline_mean`` (``None`` when
    the baseline mean is 0). Intervals are two-sided at level ``1 - alpha``; an
    endpoint may be infinite when the test cannot reject anything (randomization on
    a handful of queries); ``None`` when undefined.
    """

    __test__ = False  # not a pytest test class

    n: int
    mean: float
    baseline_mean: float
    delta: float
    lift: float | None
    ci_low: float | None
    ci_high: float | None
    lift_low: float | None
    lift_high: float | None
    p_value: float


# ---------------------------------------------------------------------------- input
def as_arrays(arm: ArrayLike, baseline: ArrayLike, paired: bool) -> tuple[Array, Array]:
    import numpy as np

    a = np.asarray(arm, dtype=np.float64)
    b = np.asarray(baseline, dtype=np.float64)
    if a.ndim != 1 or b.ndim != 1:
        msg = f"arm and baseline must be 1-D, got shapes {a.shape} and {b.shape}"
        raise ValueError(msg)
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        msg = "arm and baseline values must be finite (no NaN, no inf)"
        raise ValueError(msg)
    if paired and a.size != b.size:
        msg = f"paired values need as many baseline as arm values, got {a.size} and {b.size}"
        raise ValueError(msg)
    smallest = min(a.size, b.size)
    if smallest < 2:
        what = "pairs" if paired else "values in each arm"
        msg = f"a test needs at least 2 {what}, got {smallest}"
        raise ValueError(msg)
    return a, b


def check_alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        msg = f"alpha must be a number strictly between 0 and 1, got {alpha!r}"
        raise ValueError(msg)
    return float(alpha)


ALTERNATIVES = ("two-sided", "greater", "less")


def check_alternative(alternative: str) -> str:
    if alternative not in ALTERNATIVES:
        msg = (f"alternative must be one of {', '.join(map(repr, ALTERNATIVES))}, "
               f"got {alternative!r}")
        raise ValueError(msg)
    return alternative


def check_resamples(n_resamples: int) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        msg = f"n_resamples must be a positive int, got {n_resamples!r}"
        raise ValueError(msg)
    return n_resamples


def relative_lift(delta: float, baseline_mean: float) -> float | None:
    return delta / baseline_mean if baseline_mean != 0 else None


def batch_sizes(n_resamples: int, cells_per_resample: int, *,
                budget: int = _BATCH_CELLS) -> list[int]:
    """``n_resamples`` split into batches of about ``budget`` cells (at least 1 resample)."""
    size = max(1, budget // max(cells_per_resample, 1))
    full, rest = divmod(n_resamples, size)
    return [size] * full + ([rest] if rest else [])
