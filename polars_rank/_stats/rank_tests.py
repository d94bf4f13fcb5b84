"""Tests that read only ranks or signs: Wilcoxon signed-rank (rank-sum unpaired), sign test.

They test a shift of location, not the mean difference, so they give no interval of
the delta or the lift (those are null): use ``test="t"`` or ``"bootstrap"`` for an
interval. They are robust to the heavy tails and bounded values of per-query metrics,
which is why IR papers and PyTerrier's ``Experiment`` use them beside the t-test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

from polars_rank._stats.common import (
    TestResult,
    as_arrays,
    check_alternative,
    relative_lift,
    require,
)

if TYPE_CHECKING:
    from polars_rank._stats.common import Alternative, ArrayLike

ZeroMethod: TypeAlias = Literal["wilcox", "pratt", "zsplit"]
"""What the signed-rank test does with zero differences (``scipy.stats.wilcoxon``):
``"wilcox"`` drops them (Wilcoxon 1945; SciPy's default), ``"pratt"`` ranks them and
drops their ranks (Pratt 1959), ``"zsplit"`` splits their ranks between the signs."""


def _no_interval(a: ArrayLike, b: ArrayLike, p: float) -> TestResult:
    import numpy as np

    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ma, mb = float(x.mean()), float(y.mean())
    return TestResult(int(x.size), ma, mb, ma - mb, relative_lift(ma - mb, mb),
                      None, None, None, None, p)


def wilcoxon_test(arm: ArrayLike, baseline: ArrayLike, *, paired: bool = True,
                  zero_method: ZeroMethod = "wilcox",
                  alternative: Alternative = "two-sided") -> TestResult:
    r"""Wilcoxon signed-rank test (paired), or the rank-sum test (unpaired).

    Paired: the ranks of :math:`|d_i|` summed over positive differences,
    ``scipy.stats.wilcoxon(d, zero_method=zero_method, method="auto")``: the exact
    null distribution for up to 50 nonzero differences without ties in :math:`|d|`,
    the normal approximation (with tie correction) otherwise. Zero differences (a
    query both arms score alike, common for bounded metrics) are handled by
    ``zero_method``: dropped by default, as SciPy and R's ``wilcox.test`` do. When
    every difference is 0 the p-value is 1.

    Unpaired: the Wilcoxon rank-sum (Mann-Whitney U) test,
    ``scipy.stats.mannwhitneyu(method="auto")``.

    ``alternative="greater"`` (``"less"``): the one-sided test that the arm is above
    (below) the baseline, SciPy's ``alternative``. No interval (null): the test is
    about location, not the mean.

    Examples
    --------
    >>> from polars_rank.stats import wilcoxon_test
    >>> r = wilcoxon_test([0.5, 0.7, 0.9, 0.6, 0.8, 0.9], [0.4, 0.5, 0.8, 0.6, 0.6, 0.7])
    >>> round(r.delta, 4), r.p_value, r.ci_low  # exact: 5 nonzero differences, one zero
    (0.1333, 0.0625, None)
    """
    require("scipy", "the Wilcoxon test")
    import numpy as np
    from scipy import stats as sps

    check_alternative(alternative)
    a, b = as_arrays(arm, baseline, paired)
    if not paired:
        p = float(sps.mannwhitneyu(a, b, alternative=alternative, method="auto").pvalue)
        return _no_interval(a, b, p)
    d = a - b
    if not np.any(d):
        return _no_interval(a, b, 1.0)
    p = float(sps.wilcoxon(d, zero_method=zero_method, method="auto",
                           alternative=alternative).pvalue)
    return _no_interval(a, b, p)


def sign_test(arm: ArrayLike, baseline: ArrayLike, *,
              alternative: Alternative = "two-sided") -> TestResult:
    r"""Sign test (paired): wins against losses, ties (zero differences) left out.

    Under "no difference" a query is as likely won as lost, so the wins among the
    :math:`w + l` non-tied queries are Binomial(w + l, 1/2); the two-sided p-value is
    ``scipy.stats.binomtest(w, w + l, 0.5).pvalue``. 1 when every query is a tie.
    ``alternative="greater"`` (``"less"``): one-sided, more wins (losses) than chance.

    Examples
    --------
    >>> from polars_rank.stats import sign_test
    >>> r = sign_test([0.5, 0.7, 0.9, 0.6, 0.8, 0.9], [0.4, 0.5, 0.8, 0.6, 0.6, 0.7])
    >>> r.p_value  # 5 wins, 0 losses, 1 tie: 2 x (1/2)^5
    0.0625
    """
    require("scipy", "the sign test")
    import numpy as np
    from scipy import stats as sps

    check_alternative(alternative)
    a, b = as_arrays(arm, baseline, paired=True)
    wins, losses = int(np.count_nonzero(a > b)), int(np.count_nonzero(a < b))
    p = 1.0 if wins + losses == 0 else float(
        sps.binomtest(wins, wins + losses, alternative=alternative).pvalue)
    return _no_interval(a, b, p)
