"""The paired t-test and Welch's t-test."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from polars_rank._stats.common import (
    TestResult,
    as_arrays,
    check_alpha,
    check_alternative,
    relative_lift,
    require,
)

if TYPE_CHECKING:
    from polars_rank._stats.common import Alternative, ArrayLike


# ---------------------------------------------------------------------------- t-tests
def _welch_df(v1: float, n1: int, v2: float, n2: int) -> float:
    """Welch-Satterthwaite degrees of freedom of ``v1 + v2`` (squared standard errors)."""
    den = v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1)
    return (v1 + v2) ** 2 / den if den > 0 else float(max(n1, n2) - 1)


def _t_interval(estimate: float, se: float, df: float, alpha: float,
                alternative: Alternative = "two-sided") -> tuple[float, float]:
    """The t-interval; one-sided (one end infinite) for a one-sided alternative, as SciPy."""
    from scipy import stats as sps

    if se == 0:
        return estimate, estimate
    if alternative == "two-sided":
        half = float(sps.t.ppf(1 - alpha / 2, df)) * se
        return estimate - half, estimate + half
    half = float(sps.t.ppf(1 - alpha, df)) * se
    return (estimate - half, math.inf) if alternative == "greater" else (-math.inf,
                                                                         estimate + half)


def _t_p_value(delta: float, se: float, df: float, alternative: Alternative) -> float:
    """P-value of t = delta / se; zero variance: 0 or 1 (every difference is the delta)."""
    from scipy import stats as sps

    if se == 0:
        if alternative == "greater":
            return 0.0 if delta > 0 else 1.0
        if alternative == "less":
            return 0.0 if delta < 0 else 1.0
        return 1.0 if delta == 0 else 0.0
    t = delta / se
    if alternative == "greater":
        return float(sps.t.sf(t, df))
    if alternative == "less":
        return float(sps.t.cdf(t, df))
    return min(1.0, float(2 * sps.t.sf(abs(t), df)))


def t_test(arm: ArrayLike, baseline: ArrayLike, *, paired: bool = True,
           alpha: float = 0.05, alternative: Alternative = "two-sided") -> TestResult:
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

    ``alternative="greater"`` (or ``"less"``) is the one-sided test that the arm is
    above (below) the baseline, with the one-sided interval SciPy gives (one end
    infinite), as ``ttest_rel(..., alternative=...)``.

    When the differences (paired) or both arms (unpaired) have zero variance, t is
    undefined (SciPy returns NaN); here the p-value is 1 if the delta is 0 and 0
    otherwise (one-sided: 0 if the delta is on the alternative's side, else 1), and
    the interval is the single point delta.

    Parameters
    ----------
    arm, baseline
        Finite per-query values of the arm and the baseline; aligned pairs when
        ``paired``. At least 2 (per arm).
    paired
        Paired (same queries) or unpaired (different units) test.
    alpha
        Intervals are at level ``1 - alpha``.
    alternative
        ``"two-sided"``, ``"greater"`` (the arm above the baseline) or ``"less"``.

    Returns
    -------
    TestResult
        Means, delta, lift, intervals and p-value.

    Examples
    --------
    >>> from polars_rank.stats import t_test
    >>> r = t_test([0.5, 0.7, 0.9, 0.6], [0.4, 0.5, 0.8, 0.6])
    >>> round(r.delta, 3), round(r.p_value, 4), round(r.ci_low, 4), round(r.ci_high, 4)
    (0.1, 0.0917, -0.0299, 0.2299)
    """
    require("numpy", "the t-test")
    require("scipy", "the t-test")
    alpha = check_alpha(alpha)
    check_alternative(alternative)
    a, b = as_arrays(arm, baseline, paired)
    ma, mb = float(a.mean()), float(b.mean())
    lift = relative_lift(ma - mb, mb)
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
    p = _t_p_value(delta, se, df, alternative)
    low, high = _t_interval(delta, se, df, alpha, alternative)
    lift_low = lift_high = None
    if lift is not None:
        lift_low, lift_high = _t_interval(lift, lift_se, lift_df, alpha, alternative)
    return TestResult(n, ma, mb, delta, lift, low, high, lift_low, lift_high, p)
