"""Statistics for comparing an arm with a baseline: t-tests, randomization, bootstrap.

These are the building blocks of :func:`polars_rank.compare`. Each test takes the
per-query (or per-unit) values of one metric for one arm and for the baseline, as
1-D arrays, and returns a :class:`TestResult`: the means, the difference (delta), the
relative lift, confidence intervals of both, and a two-sided p-value for
"no difference". :func:`adjust` corrects p-values for multiple comparisons.

* :func:`t_test`: paired t-test on the per-query differences (``paired=True``,
  ``scipy.stats.ttest_rel``) or Welch's unequal-variance t-test (``paired=False``,
  ``scipy.stats.ttest_ind(equal_var=False)``). The interval of the lift uses the
  delta method (Deng, Knoblich & Lu, KDD 2018).
* :func:`randomization_test`: sign flips of the per-query differences (paired,
  Fisher's randomization test as in Smucker, Allan & Carterette, CIKM 2007) or
  permutations of the arm labels (unpaired). Two-sided p-value as
  ``scipy.stats.permutation_test``; exact enumeration when there are no more
  rearrangements than ``n_resamples``. Intervals invert the test.
* :func:`bootstrap_test`: resampling of queries (paired) or of each arm's units
  (unpaired), BCa or percentile intervals as ``scipy.stats.bootstrap``; the p-value
  is the level at which the interval has 0 as an endpoint.

NumPy (and SciPy for the t-tests) are optional dependencies:
``pip install "polars-rank[stats]"``. They are imported when a test first runs.
"""

from __future__ import annotations

import importlib
import math
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np
    import numpy.typing as npt

    Array: TypeAlias = npt.NDArray[np.float64]
    ArrayLike: TypeAlias = "npt.ArrayLike"
    SeedLike: TypeAlias = "int | np.random.SeedSequence | np.random.Generator | None"

__all__ = [
    "TestResult",
    "t_test",
    "randomization_test",
    "bootstrap_test",
    "adjust",
    "holm",
    "bonferroni",
    "INSTALL_HINT",
]

Interval: TypeAlias = Literal["bca", "percentile"]
Correction: TypeAlias = Literal["holm", "bonferroni"]

INSTALL_HINT = 'pip install "polars-rank[stats]"'
"""How to install the optional statistics dependencies (NumPy and SciPy)."""

_NORMAL = statistics.NormalDist()
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
def _arrays(arm: ArrayLike, baseline: ArrayLike, paired: bool) -> tuple[Array, Array]:
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


def _check_alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        msg = f"alpha must be a number strictly between 0 and 1, got {alpha!r}"
        raise ValueError(msg)
    return float(alpha)


def _check_resamples(n_resamples: int) -> int:
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        msg = f"n_resamples must be a positive int, got {n_resamples!r}"
        raise ValueError(msg)
    return n_resamples


def _lift(delta: float, baseline_mean: float) -> float | None:
    return delta / baseline_mean if baseline_mean != 0 else None


def _batches(n_resamples: int, cells_per_resample: int) -> list[int]:
    size = max(1, _BATCH_CELLS // max(cells_per_resample, 1))
    full, rest = divmod(n_resamples, size)
    return [size] * full + ([rest] if rest else [])


# ---------------------------------------------------------------------------- t-tests
def _welch_df(v1: float, n1: int, v2: float, n2: int) -> float:
    """Welch-Satterthwaite degrees of freedom of ``v1 + v2`` (squared standard errors)."""
    den = v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1)
    return (v1 + v2) ** 2 / den if den > 0 else float(max(n1, n2) - 1)


def _t_interval(estimate: float, se: float, df: float, alpha: float) -> tuple[float, float]:
    from scipy import stats as sps

    if se == 0:
        return estimate, estimate
    half = float(sps.t.ppf(1 - alpha / 2, df)) * se
    return estimate - half, estimate + half


def t_test(arm: ArrayLike, baseline: ArrayLike, *, paired: bool = True,
           alpha: float = 0.05) -> TestResult:
    r"""Paired t-test, or Welch's t-test, of the arm against the baseline.

    Paired: :math:`t = \bar d / (s_d / \sqrt n)` with n - 1 degrees of freedom, on
    the differences :math:`d_i = a_i - b_i` (``scipy.stats.ttest_rel``). Unpaired:
    Welch's :math:`t = (\bar a - \bar b) / \sqrt{s_a^2/n_a + s_b^2/n_b}` with
    Welch-Satterthwaite degrees of freedom (``scipy.stats.ttest_ind(equal_var=False)``).
    The interval of the delta is the t-interval those functions'
    ``confidence_interval()`` return. The interval of the lift
    :math:`\lambda = \bar a / \bar b - 1` uses the delta method: the standard error of
    the linearised values :math:`(a_i - (1 + \hat\lambda) b_i) / \bar b`, with n - 1
    (paired) or Welch-Satterthwaite (unpaired) degrees of freedom.

    When the differences (paired) or both arms (unpaired) have zero variance, t is
    undefined (SciPy returns NaN); here the p-value is 1 if the delta is 0 and 0
    otherwise, and the interval is the single point delta.

    Parameters
    ----------
    arm, baseline
        Finite per-query values of the arm and the baseline; aligned pairs when
        ``paired``. At least 2 (per arm).
    paired
        Paired (same queries) or unpaired (different units) test.
    alpha
        Intervals are at level ``1 - alpha``.

    Returns
    -------
    TestResult
        Means, delta, lift, intervals and two-sided p-value.

    Examples
    --------
    >>> from polars_rank.stats import t_test
    >>> r = t_test([0.5, 0.7, 0.9, 0.6], [0.4, 0.5, 0.8, 0.6])
    >>> round(r.delta, 3), round(r.p_value, 4), round(r.ci_low, 4), round(r.ci_high, 4)
    (0.1, 0.0917, -0.0299, 0.2299)
    """
    require("numpy", "the t-test")
    require("scipy", "the t-test")
    from scipy import stats as sps

    alpha = _check_alpha(alpha)
    a, b = _arrays(arm, baseline, paired)
    ma, mb = float(a.mean()), float(b.mean())
    lift = _lift(ma - mb, mb)
    if paired:
        n = a.size
        d = a - b
        delta = float(d.mean())
        se = float(d.std(ddof=1)) / math.sqrt(n)
        df: float = n - 1
        if lift is not None:
            lift_se = float((a - (1 + lift) * b).std(ddof=1)) / math.sqrt(n) / abs(mb)
            lift_df: float = n - 1
    else:
        n = a.size
        delta = ma - mb
        va, vb = float(a.var(ddof=1)) / a.size, float(b.var(ddof=1)) / b.size
        se = math.sqrt(va + vb)
        df = _welch_df(va, a.size, vb, b.size)
        if lift is not None:
            wb = (1 + lift) ** 2 * vb
            lift_se = math.sqrt(va + wb) / abs(mb)
            lift_df = _welch_df(va, a.size, wb, b.size)
    # zero variance: t is undefined; every difference is the delta, so p is 1 or 0
    no_variance = 1.0 if delta == 0 else 0.0
    p = no_variance if se == 0 else float(2 * sps.t.sf(abs(delta / se), df))
    low, high = _t_interval(delta, se, df, alpha)
    lift_low = lift_high = None
    if lift is not None:
        lift_low, lift_high = _t_interval(lift, lift_se, lift_df, alpha)
    return TestResult(n, ma, mb, delta, lift, low, high, lift_low, lift_high, min(p, 1.0))


# ---------------------------------------------------------------------------- randomization
@dataclass(frozen=True)
class _NullFamily:
    """Null statistics ``u + theta * v`` and the observed ``u_obs + theta * v_obs``.

    Testing the hypothesis indexed by ``theta`` (a shift of the delta, or a lift) with
    the same rearrangements: theta = 0 is "no difference". The values are linear in
    theta, so the test can be inverted into an interval without resampling again.
    """

    u: Array
    v: Array
    u_obs: float
    v_obs: float
    exact: bool
    scale: float

    def p_value(self, theta: float) -> float:
        import numpy as np

        null = self.u + theta * self.v
        observed = self.u_obs + theta * self.v_obs
        tol = 1e-9 * (self.scale + abs(theta) * float(np.abs(self.v).mean()))
        extra = 0 if self.exact else 1
        less = int(np.count_nonzero(null <= observed + tol)) + extra
        greater = int(np.count_nonzero(null >= observed - tol)) + extra
        return min(1.0, 2 * min(less, greater) / (null.size + extra))

    def interval(self, alpha: float) -> tuple[float, float] | None:
        """The thetas around the estimate that the test does not reject at ``alpha``."""
        import numpy as np

        if self.v_obs == 0:
            return None
        center = -self.u_obs / self.v_obs  # the observed statistic is 0 there
        if self.p_value(center) <= alpha:
            return None
        spread = float(np.std(self.u + center * self.v)) / abs(self.v_obs)
        step = spread if spread > 0 else max(abs(center), 1.0) * 1e-6
        return (self._edge(center, -step, alpha), self._edge(center, step, alpha))

    def _edge(self, center: float, step: float, alpha: float) -> float:
        inner, outer = center, center + step
        for _ in range(80):  # expand until rejected
            if self.p_value(outer) <= alpha:
                break
            inner, outer = outer, center + 2 * (outer - center)
        else:
            return math.copysign(math.inf, step)
        for _ in range(200):  # bisect: inner not rejected, outer rejected
            mid = (inner + outer) / 2
            if mid in (inner, outer) or abs(outer - inner) <= 1e-13 * max(abs(center),
                                                                           abs(step)):
                break
            if self.p_value(mid) <= alpha:
                outer = mid
            else:
                inner = mid
        return inner


def _sign_flip_means(x: Array, n_resamples: int, rng: np.random.Generator,
                     ) -> tuple[Array, bool]:
    """``S @ x / n`` for sign-flip rows S: all 2^n of them if that is few enough (exact).

    ``x`` has one row per query and one column per quantity; the result one row per
    sign-flip vector (the first is "no flip" when exact).
    """
    import numpy as np

    n = x.shape[0]
    if 2**n <= n_resamples:
        out = []
        start = 0
        for size in _batches(2**n, n):
            codes = np.arange(start, start + size, dtype=np.int64)[:, None]
            out.append(((1.0 - 2.0 * ((codes >> np.arange(n)) & 1)) @ x) / n)
            start += size
        return np.concatenate(out), True
    out = [((1.0 - 2.0 * rng.integers(0, 2, size=(size, n))) @ x) / n
           for size in _batches(n_resamples, n)]
    return np.concatenate(out), False


def _relabelled_sums(x: Array, n_a: int, n_resamples: int, rng: np.random.Generator,
                     ) -> tuple[Array, bool]:
    """Sums of ``x``'s rows over the units relabelled as the arm (n_a of the n units).

    All C(n, n_a) relabellings if that is few enough (exact), else random ones.
    """
    import itertools

    import numpy as np

    n = x.shape[0]
    count = math.comb(n, n_a)
    out = []
    if count <= n_resamples:
        combos = itertools.combinations(range(n), n_a)
        for size in _batches(count, n_a * x.shape[1]):
            chunk = itertools.chain.from_iterable(itertools.islice(combos, size))
            idx = np.fromiter(chunk, dtype=np.int64, count=size * n_a).reshape(size, n_a)
            out.append(x[idx].sum(axis=1))
        return np.concatenate(out), True
    for size in _batches(n_resamples, n * x.shape[1]):
        idx = np.argpartition(rng.random((size, n)), n_a - 1, axis=1)[:, :n_a]
        out.append(x[idx].sum(axis=1))
    return np.concatenate(out), False


def randomization_test(arm: ArrayLike, baseline: ArrayLike, *, paired: bool = True,
                       alpha: float = 0.05, n_resamples: int = 10_000,
                       seed: SeedLike = 0) -> TestResult:
    r"""Randomization (permutation) test of the mean difference.

    Paired: under "no difference" each per-query difference is as likely to have
    either sign, so the null distribution of :math:`\bar d` comes from random sign
    flips (Fisher; Smucker, Allan & Carterette, CIKM 2007). Unpaired: the arm labels
    of the pooled units are permuted and the difference of the means recomputed.
    When there are at most ``n_resamples`` distinct rearrangements (2^n sign flips, or
    C(n_a + n_b, n_a) relabellings) all of them are enumerated and the test is exact.

    The two-sided p-value is ``scipy.stats.permutation_test``'s: twice the smaller
    one-sided p-value, capped at 1, where a one-sided p-value is
    ``(1 + count) / (1 + n_resamples)`` for random rearrangements (never 0; Phipson &
    Smyth 2010) and ``count / total`` when exact.

    The intervals invert the test with the same rearrangements: the delta interval
    holds every shift delta0 for which "arm - delta0 vs baseline" is not rejected at
    ``alpha``; the lift interval every lift0 for which "arm vs (1 + lift0) x baseline"
    is not rejected (for the paired test, the differences
    :math:`a_i - (1 + \lambda_0) b_i` are symmetric about 0). An endpoint is infinite
    when no shift is far enough to be rejected (too few queries for ``alpha``).

    Parameters
    ----------
    arm, baseline
        Finite per-query values; aligned pairs when ``paired``. At least 2 (per arm).
    paired
        Sign flips (same queries) or label permutations (different units).
    alpha
        Intervals are at level ``1 - alpha``.
    n_resamples
        Random rearrangements (or the enumeration bound).
    seed
        Seed or NumPy generator; the same seed gives the same result.

    Returns
    -------
    TestResult
        Means, delta, lift, intervals and two-sided p-value.

    Examples
    --------
    Six queries: all 2^6 = 64 sign flips are enumerated, the test is exact.

    >>> from polars_rank.stats import randomization_test
    >>> r = randomization_test([0.5, 0.7, 0.9, 0.6, 0.8, 0.9], [0.4, 0.5, 0.8, 0.6, 0.6, 0.7])
    >>> r.p_value  # 2 x 2/64: only "no flip" and flipping the 0 difference are as extreme
    0.0625
    """
    require("numpy", "the randomization test")
    import numpy as np

    alpha = _check_alpha(alpha)
    n_resamples = _check_resamples(n_resamples)
    a, b = _arrays(arm, baseline, paired)
    rng = np.random.default_rng(seed)
    ma, mb = float(a.mean()), float(b.mean())
    if paired:
        n = a.size
        d = a - b
        means, exact = _sign_flip_means(np.column_stack([d, np.ones(n), b]), n_resamples, rng)
        u_obs = float(d.mean())
        scale = float(np.abs(d).mean())
        u, v_shift, v_base = means[:, 0], -means[:, 1], -means[:, 2]
    else:
        n, n_b = a.size, b.size
        z = np.concatenate([a, b])
        is_arm = np.concatenate([np.ones(n), np.zeros(n_b)])
        sums, exact = _relabelled_sums(np.column_stack([z, is_arm, z * (1 - is_arm)]), n,
                                       n_resamples, rng)
        z1, k, b1 = sums[:, 0], sums[:, 1], sums[:, 2]
        z_total, b_total = float(z.sum()), float(b.sum())
        u = z1 / n - (z_total - z1) / n_b
        v_shift = -k / n + (n - k) / n_b
        v_base = b1 / n - (b_total - b1) / n_b
        u_obs = ma - mb
        scale = float(np.abs(z).mean()) * z.size / min(n, n_b)
    shift = _NullFamily(u, v_shift, u_obs, -1.0, exact, scale)
    scaled = _NullFamily(u, v_base, u_obs, -mb, exact, scale)
    p = shift.p_value(0.0)
    ci = shift.interval(alpha)
    lift = _lift(ma - mb, mb)
    lift_ci = scaled.interval(alpha) if lift is not None else None
    delta = u_obs
    return TestResult(
        n, ma, mb, delta, lift,
        None if ci is None else ci[0], None if ci is None else ci[1],
        None if lift_ci is None else lift_ci[0], None if lift_ci is None else lift_ci[1],
        p,
    )


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

    The p-value inverts the interval: it is the two-sided level ``alpha`` at which
    the interval of the delta has 0 as an endpoint, so ``p <= alpha`` exactly when
    the interval excludes 0 (up to the interpolation between resamples). The share of
    resamples below 0 is clipped to ``[1/(2B), 1 - 1/(2B)]`` for B resamples, and the
    p-value is at least 1/B: B resamples cannot resolve smaller ones.

    Parameters
    ----------
    arm, baseline
        Finite per-query values; aligned pairs when ``paired``. At least 2 (per arm).
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
    >>> r = bootstrap_test([0.5, 0.7, 0.9, 0.6, 0.8, 0.9], [0.4, 0.5, 0.8, 0.6, 0.6, 0.7])
    >>> round(r.delta, 3), r.ci_low > 0, r.p_value < 0.05
    (0.133, True, True)
    """
    require("numpy", "the bootstrap")
    import numpy as np

    alpha = _check_alpha(alpha)
    n_resamples = _check_resamples(n_resamples)
    if interval not in ("bca", "percentile"):
        msg = f"interval must be one of 'bca', 'percentile', got {interval!r}"
        raise ValueError(msg)
    a, b = _arrays(arm, baseline, paired)
    rng = np.random.default_rng(seed)
    ma, mb = float(a.mean()), float(b.mean())
    mean_a: list[Array] = []
    mean_b: list[Array] = []
    if paired:
        n = a.size
        for size in _batches(n_resamples, n):
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
        for size in _batches(n_resamples, a.size + b.size):
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
    lift = _lift(delta, mb)
    lift_low = lift_high = None
    if lift is not None:
        with np.errstate(divide="ignore", invalid="ignore"):
            boot_lift = boot_a / boot_b - 1
        if np.isfinite(boot_lift).all() and all(np.isfinite(j).all() for j in jack_lift):
            (lift_low, lift_high), _ = _bootstrap_interval(lift, boot_lift, jack_lift, alpha,
                                                           interval)
    return TestResult(n, ma, mb, delta, lift, low, high, lift_low, lift_high, p_of(0.0))


# ---------------------------------------------------------------------------- correction
def bonferroni(p_values: Sequence[float]) -> list[float]:
    """Bonferroni: each p-value times the number of tests, capped at 1.

    Parameters
    ----------
    p_values
        The family's p-values.

    Returns
    -------
    list[float]
        Adjusted p-values, in the input order.

    Examples
    --------
    >>> from polars_rank.stats import bonferroni
    >>> bonferroni([0.01, 0.04, 0.3])
    [0.03, 0.12, 0.8999999999999999]
    """
    m = len(p_values)
    return [min(1.0, m * p) for p in p_values]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (Holm 1979), monotone and capped at 1.

    The i-th smallest p-value (1-based) is multiplied by m - i + 1, then each adjusted
    value is raised to the largest one before it in that order. It controls the
    family-wise error rate as Bonferroni does and rejects at least as often.

    Parameters
    ----------
    p_values
        The family's p-values.

    Returns
    -------
    list[float]
        Adjusted p-values, in the input order.

    Examples
    --------
    >>> from polars_rank.stats import holm
    >>> holm([0.01, 0.04, 0.03, 0.005])
    [0.03, 0.06, 0.06, 0.02]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def adjust(p_values: Sequence[float], method: Correction | None) -> list[float]:
    """Adjust a family of p-values: ``"holm"``, ``"bonferroni"`` or ``None`` (unchanged).

    Parameters
    ----------
    p_values
        The family's p-values.
    method
        ``"holm"``, ``"bonferroni"`` or ``None``.

    Returns
    -------
    list[float]
        Adjusted p-values, in the input order.

    Examples
    --------
    >>> from polars_rank.stats import adjust
    >>> adjust([0.01, 0.04, 0.03], "holm"), adjust([0.01, 0.04, 0.03], None)
    ([0.03, 0.06, 0.06], [0.01, 0.04, 0.03])
    """
    if method is None:
        return [float(p) for p in p_values]
    if method == "holm":
        return holm(p_values)
    if method == "bonferroni":
        return bonferroni(p_values)
    msg = f"correction must be one of 'holm', 'bonferroni', None, got {method!r}"
    raise ValueError(msg)
