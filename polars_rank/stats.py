"""Statistics for comparing an arm with a baseline: t-tests, randomization, bootstrap.

These are the building blocks of :func:`polars_rank.compare`. Each test takes the
per-query (or per-unit) values of one metric for one arm and for the baseline, as
1-D arrays, and returns a :class:`TestResult`: the means, the difference (delta), the
relative lift, confidence intervals of both, and a two-sided p-value for
"no difference". :func:`adjust` corrects p-values for multiple comparisons (Holm,
Bonferroni, Holm-Šidák, Benjamini-Hochberg).

The t, randomization, Wilcoxon and sign tests also take ``alternative="greater"``
or ``"less"`` (one-sided, SciPy's meaning: "greater" = the arm above the baseline).

* :func:`t_test`: paired t-test on the per-query differences (``paired=True``,
  ``scipy.stats.ttest_rel``) or Welch's unequal-variance t-test (``paired=False``,
  ``scipy.stats.ttest_ind(equal_var=False)``). The interval of the lift uses the
  delta method (Deng, Knoblich & Lu, KDD 2018).
* :func:`randomization_test`: sign flips of the per-query differences (paired,
  Fisher's randomization test as in Smucker, Allan & Carterette, CIKM 2007) or
  permutations of the arm labels (unpaired). Two-sided p-value as
  ``scipy.stats.permutation_test``; exact enumeration when there are no more
  rearrangements than ``n_resamples``. Intervals invert the test.
* :func:`wilcoxon_test` (signed-rank, or rank-sum unpaired) and :func:`sign_test`:
  p-values of a location shift from ranks or signs, without intervals.
* :func:`bootstrap_test`: resampling of queries (paired) or of each arm's units
  (unpaired), BCa or percentile intervals as ``scipy.stats.bootstrap``; the p-value
  is the level at which the interval has 0 as an endpoint. At least
  :data:`MIN_BOOTSTRAP_N` (10) pairs or values per arm.

NumPy (and SciPy for the t-tests) are optional dependencies:
``pip install "polars-rank[stats]"``. They are imported when a test first runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._stats.bootstrap import MIN_BOOTSTRAP_N, bootstrap_test
from polars_rank._stats.common import INSTALL_HINT, TestResult
from polars_rank._stats.common import Alternative as Alternative
from polars_rank._stats.common import Correction as Correction
from polars_rank._stats.common import Interval as Interval
from polars_rank._stats.common import require as require
from polars_rank._stats.correction import (
    CORRECTIONS,
    adjust,
    benjamini_hochberg,
    bonferroni,
    holm,
    holm_sidak,
)
from polars_rank._stats.randomization import randomization_test
from polars_rank._stats.rank_tests import sign_test, wilcoxon_test
from polars_rank._stats.t_test import t_test

if TYPE_CHECKING:
    from polars_rank._stats.common import Array as Array
    from polars_rank._stats.common import ArrayLike as ArrayLike
    from polars_rank._stats.common import SeedLike as SeedLike

__all__ = [
    "TestResult",
    "t_test",
    "randomization_test",
    "bootstrap_test",
    "wilcoxon_test",
    "sign_test",
    "adjust",
    "holm",
    "bonferroni",
    "holm_sidak",
    "benjamini_hochberg",
    "CORRECTIONS",
    "INSTALL_HINT",
    "MIN_BOOTSTRAP_N",
]

# Defined in polars_rank._stats; help(), pickle and the API reference know them by this
# module's name, where they were defined before it was split.
for _public in (TestResult, t_test, randomization_test, bootstrap_test, wilcoxon_test,
                sign_test, adjust, holm, bonferroni, holm_sidak, benjamini_hochberg, require):
    _public.__module__ = __name__
del _public
