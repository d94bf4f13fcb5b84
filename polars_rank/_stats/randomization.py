"""The randomization test: sign flips (paired) or label permutations (unpaired)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from polars_rank._stats.common import (
    TestResult,
    as_arrays,
    batch_sizes,
    check_alpha,
    check_alternative,
    check_resamples,
    relative_lift,
    require,
)

if TYPE_CHECKING:
    import numpy as np

    from polars_rank._stats.common import Alternative, Array, ArrayLike, SeedLike


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
    alternative: Alternative = "two-sided"

    def p_value(self, theta: float) -> float:
        import numpy as np

        null = self.u + theta * self.v
        observed = self.u_obs + theta * self.v_obs
        tol = 1e-9 * (self.scale + abs(theta) * float(np.abs(self.v).mean()))
        extra = 0 if self.exact else 1
        less = int(np.count_nonzero(null <= observed + tol)) + extra
        greater = int(np.count_nonzero(null >= observed - tol)) + extra
        if self.alternative == "greater":  # the observed statistic is large
            return min(1.0, greater / (null.size + extra))
        if self.alternative == "less":
            return min(1.0, less / (null.size + extra))
        return min(1.0, 2 * min(less, greater) / (null.size + extra))

    def interval(self, alpha: float) -> tuple[float, float] | None:
        """The thetas around the estimate that the test does not reject at ``alpha``.

        One-sided, no theta on one side is rejected: that end is infinite.
        """
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
        for size in batch_sizes(2**n, n):
            codes = np.arange(start, start + size, dtype=np.int64)[:, None]
            out.append(((1.0 - 2.0 * ((codes >> np.arange(n)) & 1)) @ x) / n)
            start += size
        return np.concatenate(out), True
    out = [((1.0 - 2.0 * rng.integers(0, 2, size=(size, n))) @ x) / n
           for size in batch_sizes(n_resamples, n)]
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
        for size in batch_sizes(count, n_a * x.shape[1]):
            chunk = itertools.chain.from_iterable(itertools.islice(combos, size))
            idx = np.fromiter(chunk, dtype=np.int64, count=size * n_a).reshape(size, n_a)
            out.append(x[idx].sum(axis=1))
        return np.concatenate(out), True
    for size in batch_sizes(n_resamples, n * x.shape[1]):
        idx = np.argpartition(rng.random((size, n)), n_a - 1, axis=1)[:, :n_a]
        out.append(x[idx].sum(axis=1))
    return np.concatenate(out), False


def randomization_test(arm: ArrayLike, baseline: ArrayLike, *, paired: bool = True,
                       alpha: float = 0.05, n_resamples: int = 10_000,
                       seed: SeedLike = 0, alternative: Alternative = "two-sided",
                       ) -> TestResult:
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
    Smyth 2010) and ``count / total`` when exact. ``alternative="greater"``
    (``"less"``) gives the one-sided p-value that the arm is above (below) the
    baseline, the count of null statistics at least (at most) the observed one, and
    one-sided intervals (one end infinite), as ``permutation_test(alternative=...)``.

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
    alternative
        ``"two-sided"``, ``"greater"`` (the arm above the baseline) or ``"less"``.

    Returns
    -------
    TestResult
        Means, delta, lift, intervals and p-value.

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

    alpha = check_alpha(alpha)
    n_resamples = check_resamples(n_resamples)
    check_alternative(alternative)
    a, b = as_arrays(arm, baseline, paired)
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
    shift = _NullFamily(u, v_shift, u_obs, -1.0, exact, scale, alternative)
    scaled = _NullFamily(u, v_base, u_obs, -mb, exact, scale, alternative)
    p = shift.p_value(0.0)
    ci = shift.interval(alpha)
    lift = relative_lift(ma - mb, mb)
    lift_ci = scaled.interval(alpha) if lift is not None else None
    delta = u_obs
    return TestResult(
        n, ma, mb, delta, lift,
        None if ci is None else ci[0], None if ci is None else ci[1],
        None if lift_ci is None else lift_ci[0], None if lift_ci is None else lift_ci[1],
        p,
    )
