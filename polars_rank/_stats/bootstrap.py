"""The bootstrap: BCa or percentile intervals, and the p-value that inverts them."""

from __future__ import annotations

import math
import statistics
from typing import TYPE_CHECKING

from polars_rank._stats.common import (
    TestResult,
    as_arrays,
    batch_sizes,
    check_alpha,
    check_resamples,
    relative_lift,
    require,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from polars_rank._stats.common import Array, ArrayLike, Interval, SeedLike

_NORMAL = statistics.NormalDist()

MIN_BOOTSTRAP_N = 10
"""The fewest pairs (paired) or values per arm (unpaired) the bootstrap accepts.

Below it the bootstrap distribution is the data's few values reshuffled (n values
have ``C(2n - 1, n)`` distinct resamples: 3 for n = 2, 35 for n = 4, 92,378 for n =
10, more than the default 10,000 draws), its intervals are too narrow (they ignore
that the spread itself is estimated) and a true null is rejected far more often than
``alpha`` says: at ``alpha = 0.05``, 49% of the time with 2 normal pairs, 18% with 4,
12% with 8, 9% with 10 (docs/compare.md, the table of rejection rates). The t-test
and the randomization test (exact with few pairs) hold their level at any n.
"""


# ---------------------------------------------------------------------------- bootstrap
def _acceleration(jackknife: Sequence[Array]) -> float:
    """BCa acceleration from each sample's leave-one-out replicates (scipy's formula)."""
    num = den = 0.0
    for theta_i in jackknife:
        n = theta_i.size
        u = (n - 1) * (theta_i.mean() - theta_i)
        num += float((u**3).sum()) / n**3
        den += float((u**2).sum()) / n**2
    return num / (6 * den**1.5) if den > 0 else 0.0


def _share_below(values: Array, x: float) -> float:
    """Share of ``values`` below ``x``, ties counting one half (scipy's ``'mean'``)."""
    import numpy as np

    count = int(np.count_nonzero(values < x)) + int(np.count_nonzero(values <= x))
    return count / (2 * values.size)


def _z(p: float) -> float:
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return _NORMAL.inv_cdf(p)


def _phi(z: float) -> float:
    if math.isinf(z):
        return 0.0 if z < 0 else 1.0
    return _NORMAL.cdf(z)


def _bootstrap_interval(
    theta_hat: float, theta_b: Array, jackknife: Sequence[Array], alpha: float,
    method: Interval,
) -> tuple[tuple[float, float], Callable[[float], float]]:
    """Interval of ``theta`` and the p-value of ``theta = x`` (the interval inverted)."""
    import numpy as np

    clip = 0.5 / theta_b.size
    if method == "bca":
        z0 = _z(min(max(_share_below(theta_b, theta_hat), clip), 1 - clip))
        acc = _acceleration(jackknife)
    else:
        z0 = acc = 0.0

    def level(z_alpha: float) -> float:
        num = z0 + z_alpha
        return _phi(z0 + num / (1 - acc * num))

    quantiles = np.quantile(theta_b, [level(_z(alpha / 2)), level(_z(1 - alpha / 2))])
    interval = (float(quantiles[0]), float(quantiles[1]))

    def p_value(x: float) -> float:
        # the z_alpha whose level() is the share of resamples below x
        w = _z(min(max(_share_below(theta_b, x), clip), 1 - clip)) - z0
        den = 1 + acc * w
        u = w / den if den > 0 else math.copysign(math.inf, w)
        return min(1.0, max(2 * _phi(-abs(u - z0)), 1 / theta_b.size))

    return interval, p_value


def bootstrap_test(arm: ArrayLike, baseline: ArrayLike, *, paired: bool = True,
                   alpha: float = 0.05, n_resamples: int = 10_000, seed: SeedLike = 0,
                   interval: Interval = "bca") -> TestResult:
    r"""Bootstrap intervals of the delta and the lift, and the matching p-value.

    Paired: queries are resampled with replacement, keeping each query's pair of
    values together. Unpaired: each arm's units are resampled separately. The
    interval is BCa (bias-corrected and accelerated; Efron & Tibshirani 1993, 14.3;
    the acceleration from the jackknife) or percentile, computed as
    ``scipy.stats.bootstrap(method="BCa" | "percentile")`` does. The lift interval
    bootstraps the ratio of the means minus 1.

    It needs at least :data:`MIN_BOOTSTRAP_N` (10) pairs, or values in each arm:
    with fewer, its intervals are too narrow and its p-values too small to mean what
    they say (with 2 to 4 pairs of one sign, p = 1/B); use :func:`t_test` or
    :func:`randomization_test` there.

    The p-value inverts the interval: it is the two-sided level ``alpha`` at which
    the interval of the delta has 0 as an endpoint, so ``p <= alpha`` exactly when
    the interval excludes 0 (up to the interpolation between resamples). The share of
    resamples below 0 is clipped to ``[1/(2B), 1 - 1/(2B)]`` for B resamples, and the
    p-value is at least 1/B: B resamples cannot resolve smaller ones.

    Parameters
    ----------
    arm, baseline
        Finite per-query values; aligned pairs when ``paired``. At least 10 (per arm).
    paired
        Resample pairs (same queries) or each arm separately (different units).
    alpha
        Intervals are at level ``1 - alpha``.
    n_resamples
        Bootstrap resamples.
    seed
        Seed or NumPy generator; the same seed gives the same result.
    interval
        ``"bca"`` (default) or ``"percentile"``.

    Returns
    -------
    TestResult
        Means, delta, lift, intervals and two-sided p-value.

    Examples
    --------
    >>> from polars_rank.stats import bootstrap_test
    >>> arm = [0.5, 0.7, 0.9, 0.6, 0.8, 0.9, 0.4, 0.7, 0.6, 0.8]
    >>> baseline = [0.4, 0.5, 0.8, 0.6, 0.6, 0.7, 0.3, 0.6, 0.6, 0.6]
    >>> r = bootstrap_test(arm, baseline)
    >>> round(r.delta, 3), r.ci_low > 0, r.p_value < 0.05
    (0.12, True, True)
    """
    require("numpy", "the bootstrap")
    import numpy as np

    alpha = check_alpha(alpha)
    n_resamples = check_resamples(n_resamples)
    if interval not in ("bca", "percentile"):
        msg = f"interval must be one of 'bca', 'percentile', got {interval!r}"
        raise ValueError(msg)
    a, b = as_arrays(arm, baseline, paired)
    smallest = min(a.size, b.size)
    if smallest < MIN_BOOTSTRAP_N:
        what = "pairs" if paired else "values in each arm"
        msg = (f"the bootstrap needs at least {MIN_BOOTSTRAP_N} {what}, got {smallest}: "
               "with fewer its intervals are too narrow and a true null is rejected far "
               "more often than alpha says; use t_test or randomization_test (exact with "
               "few pairs)")
        raise ValueError(msg)
    rng = np.random.default_rng(seed)
    ma, mb = float(a.mean()), float(b.mean())
    mean_a: list[Array] = []
    mean_b: list[Array] = []
    if paired:
        n = a.size
        for size in batch_sizes(n_resamples, n):
            idx = rng.integers(0, n, size=(size, n))
            mean_a.append(a[idx].mean(axis=1))
            mean_b.append(b[idx].mean(axis=1))
        loo_a = [(a.sum() - a) / (n - 1)]  # leave-one-out means, one list per sample
        loo_b = [(b.sum() - b) / (n - 1)]
        jack_delta = [loo_a[0] - loo_b[0]]
        with np.errstate(divide="ignore", invalid="ignore"):
            jack_lift = [loo_a[0] / loo_b[0] - 1]
    else:
        n = a.size
        for size in batch_sizes(n_resamples, a.size + b.size):
            mean_a.append(a[rng.integers(0, a.size, size=(size, a.size))].mean(axis=1))
            mean_b.append(b[rng.integers(0, b.size, size=(size, b.size))].mean(axis=1))
        loo_a1 = (a.sum() - a) / (a.size - 1)
        loo_b1 = (b.sum() - b) / (b.size - 1)
        jack_delta = [loo_a1 - mb, ma - loo_b1]
        with np.errstate(divide="ignore", invalid="ignore"):
            jack_lift = [loo_a1 / mb - 1, ma / loo_b1 - 1]
    boot_a, boot_b = np.concatenate(mean_a), np.concatenate(mean_b)
    delta = ma - mb
    (low, high), p_of = _bootstrap_interval(delta, boot_a - boot_b, jack_delta, alpha,
                                            interval)
    lift = relative_lift(delta, mb)
    lift_low = lift_high = None
    if lift is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            boot_lift = boot_a / boot_b - 1
        if np.isfinite(boot_lift).all() and all(np.isfinite(j).all() for j in jack_lift):
            (lift_low, lift_high), _ = _bootstrap_interval(lift, boot_lift, jack_lift, alpha,
                                                           interval)
    return TestResult(n, ma, mb, delta, lift, low, high, lift_low, lift_high, p_of(0.0))
