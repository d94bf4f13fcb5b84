"""The agreement statistics, from summed per-query count tables (NumPy, batched).

These serve the bootstrap (batches of resampled tables); the point estimates are the
same arithmetic in Polars (:mod:`.estimates`), without NumPy.

Each statistic reads a row of ``K`` integer totals (a query's table, a slice's sum of
them, or a bootstrap resample's weighted sum) and gives one value; a batch of rows
gives a vector. Undefined values (no chance disagreement to compare with) are NaN.
The totals are integers held as floats, so any sum of them is exact and the result
does not depend on the order of the sum.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Array: TypeAlias = npt.NDArray[np.float64]

Weights: TypeAlias = Literal["linear", "quadratic"]
Level: TypeAlias = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS = ("nominal", "ordinal", "interval", "ratio")
WEIGHTS = ("linear", "quadratic")


def _ratio(num: Array, den: Array) -> Array:
    import numpy as np

    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


@dataclass(frozen=True)
class CohenKappa:
    """Cohen's kappa from the confusion table of two judges, ``C * C`` totals.

    As ``sklearn.metrics.cohen_kappa_score``: disagreement weights on the category
    indices (0 on the diagonal; 1, ``|i - j|`` or ``(i - j)^2`` off it),
    ``kappa = 1 - sum(w * O) / sum(w * E)``, ``E`` the outer product of the margins
    over ``n``.
    """

    size: int
    weights: Weights | None = None

    def __call__(self, totals: Array) -> Array:
        import numpy as np

        c = self.size
        o = totals.reshape(-1, c, c)
        n = o.sum(axis=(1, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            e = o.sum(axis=2)[:, :, None] * o.sum(axis=1)[:, None, :] / n[:, None, None]
        i = np.arange(c)
        if self.weights is None:
            w = 1.0 - np.eye(c)
        elif self.weights == "linear":
            w = np.abs(i[:, None] - i[None, :]).astype(np.float64)
        else:
            w = ((i[:, None] - i[None, :]) ** 2).astype(np.float64)
        return 1.0 - _ratio((w * o).sum(axis=(1, 2)), (w * e).sum(axis=(1, 2)))


@dataclass(frozen=True)
class ObservedAgreement:
    """The share of items two judges label alike: the trace of their table over ``n``."""

    size: int

    def __call__(self, totals: Array) -> Array:
        import numpy as np

        o = totals.reshape(-1, self.size, self.size)
        return _ratio(np.trace(o, axis1=1, axis2=2), o.sum(axis=(1, 2)))


@dataclass(frozen=True)
class FleissKappa:
    """Fleiss' kappa, ``m`` judges per item: totals ``[T_0..T_{C-1}, sum n_ic^2, N]``.

    ``T_c``: judgments in category c; ``sum n_ic^2`` over items and categories; ``N``
    items. ``P = (sum n_ic^2 - N m) / (N m (m - 1))``, ``p_c = T_c / (N m)``,
    ``kappa = (P - sum p_c^2) / (1 - sum p_c^2)`` (statsmodels' ``fleiss_kappa``).
    """

    size: int
    judges: int

    def __call__(self, totals: Array) -> Array:
        m, c = float(self.judges), self.size
        items = totals[:, c + 1]
        p = _ratio(totals[:, :c], (items * m)[:, None])
        observed = _ratio(totals[:, c] - items * m, items * m * (m - 1))
        chance = (p * p).sum(axis=1)
        return _ratio(observed - chance, 1.0 - chance)


@dataclass(frozen=True)
class MeanPairAgreement:
    """The mean over items of the share of pairs of judges that agree.

    Totals ``[A_m for each m] + [N_m for each m]``: ``A_m`` sums ``n_ic (n_ic - 1)``
    over the items judged ``m`` times, ``N_m`` counts them; an item's share of
    agreeing pairs is ``sum_c n_ic (n_ic - 1) / (m (m - 1))``.
    """

    judges: tuple[int, ...]

    def __call__(self, totals: Array) -> Array:
        import numpy as np

        m = np.asarray(self.judges, dtype=np.float64)
        k = m.size
        return _ratio((totals[:, :k] / (m * (m - 1))).sum(axis=1), totals[:, k:].sum(axis=1))


@dataclass(frozen=True)
class KrippendorffAlpha:
    """Krippendorff's alpha from the coincidence counts, per number of judges of an item.

    Totals ``[m][c][k]``: ``sum n_uc (n_uk - [c = k])`` over the items ``u`` judged
    ``m`` times (``m >= 2``). The coincidence matrix is ``o_ck = sum_m total / (m - 1)``,
    ``n_c`` its margins, ``alpha = 1 - (n - 1) sum o_ck d_ck / sum_(c,k) n_c n_k d_ck``
    (the ``krippendorff`` package's ``1 - sum(o d) / sum(e d)``).
    """

    size: int
    judges: tuple[int, ...]
    level: Level
    values: tuple[float, ...] = ()  # the categories' labels (interval and ratio levels)

    def distances(self, n_c: Array) -> Array:
        """``d_ck`` for each row of margins ``n_c`` (ordinal distances depend on them)."""
        import numpy as np

        c = self.size
        batch = n_c.shape[0]
        if self.level == "nominal":
            return np.broadcast_to(1.0 - np.eye(c), (batch, c, c))
        if self.level == "ordinal":
            i = np.arange(c)
            low, high = np.minimum.outer(i, i), np.maximum.outer(i, i)
            cum = np.concatenate([np.zeros((batch, 1)), np.cumsum(n_c, axis=1)], axis=1)
            between = cum[:, high + 1] - cum[:, low]  # sum of n_g for low <= g <= high
            ordinal: Array = (between - (n_c[:, :, None] + n_c[:, None, :]) / 2) ** 2
            return ordinal
        v = np.asarray(self.values, dtype=np.float64)
        diff = v[:, None] - v[None, :]
        if self.level == "interval":
            return np.broadcast_to(diff**2, (batch, c, c))
        total = v[:, None] + v[None, :]
        ratio = np.where(total != 0, diff / np.where(total != 0, total, 1.0), 0.0)
        return np.broadcast_to(ratio**2, (batch, c, c))

    def __call__(self, totals: Array) -> Array:
        import numpy as np

        c = self.size
        m = np.asarray(self.judges, dtype=np.float64)
        o = (totals.reshape(-1, m.size, c, c) / (m - 1)[None, :, None, None]).sum(axis=1)
        n_c = o.sum(axis=2)
        n = n_c.sum(axis=1)
        d = self.distances(n_c)
        observed = (o * d).sum(axis=(1, 2))
        expected = (n_c[:, :, None] * n_c[:, None, :] * d).sum(axis=(1, 2))
        return 1.0 - _ratio((n - 1) * observed, expected)


Statistic: TypeAlias = (
    "CohenKappa | ObservedAgreement | FleissKappa | MeanPairAgreement | KrippendorffAlpha")
"""Any of the statistics: NumPy rows of totals to values (and :mod:`.estimates` in Polars)."""
