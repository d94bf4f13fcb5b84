"""Power from pilot data: how many queries a lift needs, and the smallest detectable lift.

The pilot is a per-query frame as ``compare()`` takes it. Paired (offline: every arm
ranks the same queries), what matters is the spread of the per-query differences
between two arms; unpaired (online A/B), each arm's spread of per-unit values.

* ``test="t"``: analytic, from the noncentral t distribution: power(n) =
  P(|T| > t_{1-alpha/2}) with T noncentral t, n - 1 degrees of freedom paired (as
  statsmodels' ``TTestPower``) or Welch-Satterthwaite's unpaired (statsmodels'
  ``TTestIndPower`` pools them, 2n - 2: the same for equal variances, one more
  degree of freedom, so sometimes one unit less, for unequal ones).
* ``test="wilcoxon"`` and ``"sign"`` (paired): by simulation: n queries are drawn with
  replacement from the pilot's differences, shifted so that their mean is the delta
  asked, ``n_simulations`` times; the power is the share of draws the test rejects
  (the Wilcoxon statistic's normal approximation with tie correction, as SciPy's
  ``method="approx"``; the sign test's exact binomial p-value).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank._compare.data import Notes, check_arms, paired_arrays, to_long
from polars_rank._compare.options import metric_columns, name_list
from polars_rank._engine.frames import as_polars
from polars_rank._stats.common import require

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import numpy as np
    import numpy.typing as npt

    from polars_rank._engine.frames import FrameLike

    Array = npt.NDArray[np.float64]

__all__ = ["power", "mde"]

PowerTest: TypeAlias = Literal["t", "wilcoxon", "sign"]
_MAX_N = 10_000_000


class _Pilot:
    """One metric's pilot: the spread that decides power, and the baseline's mean."""

    def __init__(self, a: Array, b: Array, *, paired: bool) -> None:
        self.paired = paired
        self.baseline_mean = float(b.mean())
        if paired:
            self.differences = a - b
            self.sd = float(self.differences.std(ddof=1))
            self.variances = (self.sd**2, 0.0)
        else:
            self.differences = a - b.mean()  # unused by the t formulas
            self.variances = (float(a.var(ddof=1)), float(b.var(ddof=1)))
            self.sd = math.sqrt(sum(self.variances) / 2)

    def t_power(self, n: int, delta: float, alpha: float) -> float:
        """Power of the two-sided t-test with n queries (n per arm unpaired)."""
        from scipy import stats as sps

        va, vb = self.variances
        if self.paired:
            se, df = math.sqrt(va / n), n - 1.0
        else:
            se = math.sqrt((va + vb) / n)
            df = (va + vb) ** 2 * (n - 1) / (va**2 + vb**2)
        if se == 0:
            return 1.0 if delta != 0 else alpha
        crit = float(sps.t.ppf(1 - alpha / 2, df))
        nc = delta / se
        power = float(sps.nct.sf(crit, df, nc) + sps.nct.cdf(-crit, df, nc))
        if math.isnan(power):  # SciPy's nct fails far in the tail, where power is ~1:
            # the normal approximation is exact to many digits there
            power = float(sps.norm.sf(crit - nc) + sps.norm.cdf(-crit - nc))
        return power

    def simulated_power(self, n: int, delta: float, alpha: float, test: str,
                        n_simulations: int, seed: int) -> float:
        """Share of draws of n shifted pilot differences that the test rejects."""
        import numpy as np
        from scipy import stats as sps

        rng = np.random.default_rng(seed)  # the same draws for every n and delta
        d = self.differences - self.differences.mean() + delta
        draws = d[rng.integers(0, d.size, size=(n_simulations, n))]
        if test == "sign":
            wins, losses = (draws > 0).sum(axis=1), (draws < 0).sum(axis=1)
            m = wins + losses
            tail = np.minimum(sps.binom.cdf(wins, m, 0.5), sps.binom.sf(wins - 1, m, 0.5))
            p = np.where(m > 0, np.minimum(1.0, 2 * tail), 1.0)
        else:
            nonzero = np.any(draws != 0, axis=1)
            p = np.ones(n_simulations)
            if nonzero.any():
                # the normal approximation with tie correction: SciPy's exact and
                # permutation methods take minutes over thousands of small draws
                p[nonzero] = sps.wilcoxon(draws[nonzero], axis=1, method="approx").pvalue
        return float(np.mean(p <= alpha))


def _pilots(per_query: FrameLike, metrics: str | Sequence[str] | None, *, arm: str,
            baseline: Any, query: str | Sequence[str] | None,
            paired: bool) -> dict[str, _Pilot]:
    frame = as_polars(per_query, "per_query",
                      query=query if isinstance(query, str) else "qid").lazy().collect()
    queries = name_list(query, "query")
    if paired and not queries:
        msg = "paired=True needs query= (the column(s) that pair the arms' values)"
        raise ValueError(msg)
    keys = [arm, *queries]
    for column in keys:
        if column not in frame.columns:
            msg = f"per_query has no column {column!r}; columns: {frame.columns}"
            raise ValueError(msg)
    names = metric_columns(frame.schema, metrics, keys)
    arms = frame[arm].unique().sort().to_list()
    if paired:
        if len(arms) != 2 and baseline is None:
            msg = (f"paired power reads the per-query differences of two arms (a pilot A/B "
                   f"or A/A); {arm!r} has {len(arms)}: {arms}. Give baseline= and keep two "
                   "arms, or paired=False for one arm's spread")
            raise ValueError(msg)
        base = arms[0] if baseline is None else baseline
        check_arms(frame, arm, base)
        other = next(a for a in arms if a != base)
        lookup = paired_arrays(to_long(frame, keys, names), arm, base, [other], queries, [],
                               Notes([], [], []))
        pairs = {m: (lookup((), m, other).a, lookup((), m, other).b) for m in names}
    else:
        base = baseline if baseline is not None else arms[0]
        values = {m: {a: frame.filter(pl.col(arm) == a)[m].drop_nulls().cast(pl.Float64)
                      .to_numpy() for a in arms} for m in names}
        other = next((a for a in arms if a != base), base)  # one arm: both alike
        pairs = {m: (values[m][other], values[m][base]) for m in names}
    out = {}
    for m, (a, b) in pairs.items():
        if min(a.size, b.size) < 2:
            msg = f"metric {m!r}: the pilot needs at least 2 values per side, got {a.size}"
            raise ValueError(msg)
        out[m] = _Pilot(a, b, paired=paired)
    return out


def _check(test: str, paired: bool, alpha: float, target: float) -> None:
    if test not in ("t", "wilcoxon", "sign"):
        msg = (f"test must be 't', 'wilcoxon' or 'sign', got {test!r} (the randomization "
               "and bootstrap tests have the t-test's power for the mean to within "
               "simulation error: use test='t')")
        raise ValueError(msg)
    if test != "t" and not paired:
        msg = f"test={test!r} power is simulated from paired differences: use paired=True"
        raise ValueError(msg)
    for name, value in (("alpha", alpha), ("power", target)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            msg = f"{name} must be a number strictly between 0 and 1, got {value!r}"
            raise ValueError(msg)


def _power_of(pilot: _Pilot, test: str, alpha: float, n_simulations: int,
              seed: int) -> Callable[[int, float], float]:
    if test == "t":
        return lambda n, delta: pilot.t_power(n, delta, alpha)
    return lambda n, delta: pilot.simulated_power(n, delta, alpha, test, n_simulations, seed)


def power(
    per_query: FrameLike,
    metrics: str | Sequence[str] | None = None,
    *,
    lift: float | None = None,
    delta: float | None = None,
    arm: str = "arm",
    baseline: Any = None,
    query: str | Sequence[str] | None = "qid",
    paired: bool = True,
    alpha: float = 0.05,
    power: float = 0.8,
    test: PowerTest = "t",
    n_simulations: int = 2000,
    seed: int = 0,
) -> pl.DataFrame:
    """The number of queries needed to detect a lift (or delta) with the power asked.

    Parameters
    ----------
    per_query
        Pilot per-query values, as ``compare()`` takes them: two arms when paired
        (their per-query differences), one or two arms unpaired.
    metrics
        Metric column(s); ``None``: every numeric column but ``arm`` and ``query``.
    lift, delta
        The effect to detect: a relative lift over the baseline's pilot mean, or an
        absolute difference of means (give one).
    arm, baseline, query, paired
        As in :func:`polars_rank.compare`; ``baseline`` defaults to the first arm in
        sorted order.
    alpha
        Two-sided significance level.
    power
        The chance of detecting the effect when it is there.
    test
        ``"t"`` (analytic), ``"wilcoxon"`` or ``"sign"`` (simulated).
    n_simulations, seed
        Simulations per candidate n (Wilcoxon and sign tests).

    Returns
    -------
    pl.DataFrame
        One row per metric: ``metric, test, alpha, power, sd, baseline_mean, delta,
        lift, n``: ``n`` queries (paired) or units per arm (unpaired); ``sd`` is the
        standard deviation of the differences (paired) or the root mean arm variance.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> pilot = pr.evaluate(pr.datasets.synthetic_experiment(300, seed=1),
    ...                     metrics=["ndcg@10"], group_by="arm", per_query=True)
    >>> pr.power(pilot, "ndcg@10", lift=0.02).select("metric", "lift", "n")
    shape: (1, 3)
    ┌─────────┬──────┬─────┐
    │ metric  ┆ lift ┆ n   │
    │ ---     ┆ ---  ┆ --- │
    │ str     ┆ f64  ┆ i64 │
    ╞═════════╪══════╪═════╡
    │ ndcg@10 ┆ 0.02 ┆ 779 │
    └─────────┴──────┴─────┘
    """
    require("scipy", "power()")
    _check(test, paired, alpha, power)
    if (lift is None) == (delta is None):
        msg = "give the effect to detect as lift= (relative) or delta= (absolute), not both"
        raise ValueError(msg)
    rows = []
    for metric, pilot in _pilots(per_query, metrics, arm=arm, baseline=baseline, query=query,
                                 paired=paired).items():
        effect = delta if delta is not None else float(lift) * pilot.baseline_mean  # type: ignore[arg-type]
        if effect == 0:
            msg = f"metric {metric!r}: an effect of 0 cannot be detected"
            raise ValueError(msg)
        of = _power_of(pilot, test, alpha, n_simulations, seed)

        def enough(n: int, of: Callable[[int, float], float] = of,
                   effect: float = effect) -> bool:
            return of(n, effect) >= power

        n = _smallest(enough)
        rows.append({"metric": metric, "test": test, "alpha": alpha, "power": power,
                     "sd": pilot.sd, "baseline_mean": pilot.baseline_mean, "delta": effect,
                     "lift": effect / pilot.baseline_mean if pilot.baseline_mean else None,
                     "n": n})
    return pl.DataFrame(rows, schema={"metric": pl.String, "test": pl.String,
                                      "alpha": pl.Float64, "power": pl.Float64,
                                      "sd": pl.Float64, "baseline_mean": pl.Float64,
                                      "delta": pl.Float64, "lift": pl.Float64,
                                      "n": pl.Int64})


def _smallest(enough: Callable[[int], bool]) -> int:
    """The smallest n >= 2 for which ``enough(n)``: doubling, then bisection."""
    high = 2
    while not enough(high):
        high *= 2
        if high > _MAX_N:
            msg = f"more than {_MAX_N:,} queries would be needed"
            raise ValueError(msg)
    low = max(2, high // 2)
    if enough(low):
        return low
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if enough(mid) else (mid, high)
    return high


def mde(
    per_query: FrameLike,
    metrics: str | Sequence[str] | None = None,
    *,
    n: int | None = None,
    arm: str = "arm",
    baseline: Any = None,
    query: str | Sequence[str] | None = "qid",
    paired: bool = True,
    alpha: float = 0.05,
    power: float = 0.8,
    test: PowerTest = "t",
    n_simulations: int = 2000,
    seed: int = 0,
) -> pl.DataFrame:
    """The minimum detectable effect: the smallest delta (and lift) the test detects.

    With ``n`` queries (paired; per arm unpaired), by default the pilot's own, the
    smallest positive delta whose power reaches ``power`` at two-sided level
    ``alpha``. Parameters as :func:`power`.

    Returns
    -------
    pl.DataFrame
        One row per metric: ``metric, test, alpha, power, sd, baseline_mean, n,
        delta, lift``.

    Examples
    --------
    >>> import polars_rank as pr
    >>> pilot = pr.evaluate(pr.datasets.synthetic_experiment(300, seed=1),
    ...                     metrics=["ndcg@10"], group_by="arm", per_query=True)
    >>> round(pr.mde(pilot, "ndcg@10")["lift"].item(), 4)  # on the pilot's 300 queries
    0.0323
    """
    require("scipy", "mde()")
    _check(test, paired, alpha, power)
    rows = []
    for metric, pilot in _pilots(per_query, metrics, arm=arm, baseline=baseline, query=query,
                                 paired=paired).items():
        size = n if n is not None else pilot.differences.size
        if isinstance(size, bool) or not isinstance(size, int) or size < 2:
            msg = f"n must be an int >= 2, got {size!r}"
            raise ValueError(msg)
        of = _power_of(pilot, test, alpha, n_simulations, seed)
        scale = max(pilot.sd, 1e-12)
        high = scale
        while of(size, high) < power:
            high *= 2
        low = 0.0
        for _ in range(60):  # bisection to ~1e-18 of the scale
            mid = (low + high) / 2
            low, high = (low, mid) if of(size, mid) >= power else (mid, high)
        rows.append({"metric": metric, "test": test, "alpha": alpha, "power": power,
                     "sd": pilot.sd, "baseline_mean": pilot.baseline_mean, "n": size,
                     "delta": high,
                     "lift": high / pilot.baseline_mean if pilot.baseline_mean else None})
    return pl.DataFrame(rows, schema={"metric": pl.String, "test": pl.String,
                                      "alpha": pl.Float64, "power": pl.Float64,
                                      "sd": pl.Float64, "baseline_mean": pl.Float64,
                                      "n": pl.Int64, "delta": pl.Float64,
                                      "lift": pl.Float64})
