"""``preference()``: wins, losses and ties per pair of rankers, with the sign test.

``impressions_needed()``: how many impressions a preference needs to be detected.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank._engine.params import check_result_names
from polars_rank._stats.common import Correction, require
from polars_rank._stats.correction import CORRECTIONS, adjust
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["preference", "impressions_needed"]

_OUTCOMES = ("win", "loss", "tie")
RESULT_COLUMNS = ("system", "other", "impressions", "wins", "losses", "ties", "share",
                  "share_ci_low", "share_ci_high", "delta", "delta_ci_low", "delta_ci_high",
                  "p_value", "p_adjusted", "significant")
"""preference()'s columns besides the slices'."""


def preference(
    credits: FrameLike,
    *,
    group_by: str | Sequence[str] | None = None,
    alpha: float = 0.05,
    correction: Correction | None = "holm",
) -> pl.DataFrame:
    """Which ranker users prefer, per pair of rankers (and per slice): the sign test.

    For each pair, with W wins, L losses and T ties of ``system`` against ``other``
    over n = W + L + T impressions:

    * ``share`` = W / (W + L), the share of wins among the impressions with a
      winner, with its exact (Clopper-Pearson) interval, and the two-sided sign
      (binomial) test of ``share`` = 1/2: ``scipy.stats.binomtest(W, W + L)``'s
      p-value and ``proportion_ci`` (method ``"exact"``);
    * ``delta`` = (W + T/2) / n - 1/2, Chapelle, Joachims, Radlinski & Yue's
      statistic (TOIS 2012), with a normal interval: each impression scores 1, 1/2
      or 0, and the interval is delta +/- z * sd / sqrt(n) (sd with ddof 1).

    P-values are corrected across every row (pairs x slices) by ``correction``, as
    :func:`polars_rank.compare` does. Needs SciPy (the ``stats`` extra).

    Parameters
    ----------
    credits
        :func:`credit`'s output (columns ``system``, ``other``, ``win``, ``loss``,
        ``tie``, and the ``group_by`` columns).
    group_by
        Slice columns: one family of rows per slice.
    alpha
        Level of the intervals (1 - alpha) and of ``significant``.
    correction
        ``"holm"``, ``"bonferroni"``, ``"holm-sidak"``, ``"bh"`` or ``None``.

    Returns
    -------
    DataFrame
        ``[group_by...], system, other, impressions, wins, losses, ties, share,
        share_ci_low, share_ci_high, delta, delta_ci_low, delta_ci_high, p_value,
        p_adjusted, significant``.

    Raises
    ------
    InvalidDataError
        A missing column; ``win``, ``loss`` or ``tie`` not 0/1 (numbers or booleans,
        no nulls), or a row without exactly one of them 1 (the first such row named).
    ValueError
        A ``group_by`` column named like a result column; a bad ``alpha`` or
        ``correction``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import preference
    >>> c = pl.DataFrame({"system": "A", "other": "B", "win": [1] * 15 + [0] * 10,
    ...                   "loss": [0] * 15 + [1] * 5 + [0] * 5, "tie": [0] * 20 + [1] * 5})
    >>> row = preference(c).row(0, named=True)
    >>> row["wins"], row["losses"], round(row["share"], 3), round(row["p_value"], 4)
    (15, 5, 0.75, 0.0414)
    """
    if correction not in CORRECTIONS:
        msg = f"correction must be one of {', '.join(map(str, CORRECTIONS))}; got {correction!r}"
        raise ValueError(msg)
    if not 0 < alpha < 1:
        msg = f"alpha must be in (0, 1); got {alpha!r}"
        raise ValueError(msg)
    require("scipy.stats", "preference()")
    import numpy as np
    from scipy import stats

    groups = [] if group_by is None else [group_by] if isinstance(group_by, str) \
        else list(group_by)
    check_result_names("group_by", groups, RESULT_COLUMNS)
    key = [*groups, "system", "other"]
    rows = _checked(as_polars(credits, "credits").lazy(), key)
    counts = (rows.group_by(key).agg(impressions=pl.len(), wins=pl.col("win").sum(),
                                     losses=pl.col("loss").sum(), ties=pl.col("tie").sum())
              .sort(key))
    w = counts["wins"].to_numpy().astype(np.int64)
    n_dec = w + counts["losses"].to_numpy().astype(np.int64)
    n = counts["impressions"].to_numpy().astype(np.float64)
    t = counts["ties"].to_numpy().astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n_dec > 0, w / np.maximum(n_dec, 1), np.nan)
        low = np.where(w > 0, stats.beta.ppf(alpha / 2, w, n_dec - w + 1), 0.0)
        high = np.where(w < n_dec, stats.beta.ppf(1 - alpha / 2, w + 1, n_dec - w), 1.0)
        # the two-sided binomial test at 1/2: the distribution is symmetric
        p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(w, n_dec - w), n_dec, 0.5))
        p = np.where((n_dec == 0) | (2 * w == n_dec), 1.0, p)
        mean = (w + t / 2) / n
        var = (w + t / 4 - n * mean**2) / (n - 1)
        half = NormalDist().inv_cdf(1 - alpha / 2) * np.sqrt(np.maximum(var, 0.0) / n)
    low = np.where(n_dec > 0, low, np.nan)
    high = np.where(n_dec > 0, high, np.nan)
    delta = mean - 0.5
    adjusted = adjust(p.tolist(), correction)
    return counts.with_columns(
        share=pl.Series(share), share_ci_low=pl.Series(low), share_ci_high=pl.Series(high),
        delta=pl.Series(delta), delta_ci_low=pl.Series(delta - half),
        delta_ci_high=pl.Series(delta + half), p_value=pl.Series(p, dtype=pl.Float64),
        p_adjusted=pl.Series(adjusted, dtype=pl.Float64),
    ).with_columns(significant=pl.col("p_adjusted") < alpha).with_columns(
        pl.col("share", "share_ci_low", "share_ci_high").fill_nan(None))


def _checked(credits: pl.LazyFrame, key: list[str]) -> pl.DataFrame:
    """The credits' key and outcome columns (as Int64), each row one win, loss or tie.

    InvalidDataError for a missing column, an outcome column not of numbers or
    booleans, an outcome other than 0/1 (or null), or a row without exactly one 1; the
    first offending row in the key's order is named.
    """
    schema = credits.collect_schema()
    missing = [c for c in [*key, *_OUTCOMES] if c not in schema]
    if missing:
        msg = f"credits: missing column(s) {missing} (credit()'s output); columns: {list(schema)}"
        raise InvalidDataError(msg)
    for c in _OUTCOMES:
        if not (schema[c].is_numeric() or schema[c] in (pl.Boolean, pl.Null)):
            msg = f"credits: column {c!r} must hold 0/1 numbers or booleans, got {schema[c]}"
            raise InvalidDataError(msg)
    rows = credits.select(*key, *_OUTCOMES).collect()
    values = [pl.col(c).cast(pl.Float64) for c in _OUTCOMES]
    flags = [(~v.is_in([0.0, 1.0]) | v.is_nan()).fill_null(value=True).alias(f"__{c}")
             for v, c in zip(values, _OUTCOMES, strict=True)]
    flags.append((pl.sum_horizontal(values) != 1).fill_null(value=False).alias("__one"))
    bad = rows.with_columns(flags).filter(pl.any_horizontal(f.meta.output_name()
                                                            for f in flags))
    if bad.height:
        first = bad.sort([*key, *_OUTCOMES], nulls_last=True).row(0, named=True)
        at = ", ".join(f"{c}={first[c]!r}" for c in [*key, *_OUTCOMES])
        broken = [c for c in _OUTCOMES if first[f"__{c}"]]
        rule = (f"column {broken[0]!r} must be 0 or 1 (not null)" if broken
                else "exactly one of win, loss, tie must be 1 in each row")
        msg = f"credits: {rule}; at {at}"
        raise InvalidDataError(msg)
    return rows.with_columns(pl.col(*_OUTCOMES).cast(pl.Int64))


def impressions_needed(preference: float, alpha: float = 0.05, power: float = 0.8,
                       tie_rate: float = 0.0) -> int:
    """Impressions for the sign test to detect a preference, at level alpha, with power.

    ``preference`` is the share of wins among impressions with a winner (p), and
    ``tie_rate`` the share of impressions without one. The normal approximation of
    the two-sided binomial test of p = 1/2 needs

        m = ((z_{1 - alpha/2} * 1/2 + z_{power} * sqrt(p (1 - p))) / (p - 1/2))^2

    impressions with a winner, so n = ceil(m / (1 - tie_rate)) impressions in all
    (tests/test_interleaving_stats.py checks the power by simulation).

    Examples
    --------
    >>> from polars_rank.online import impressions_needed
    >>> impressions_needed(0.55), impressions_needed(0.55, tie_rate=0.5)
    (783, 1566)
    """
    for name, value, lo_open in (("preference", preference, True), ("alpha", alpha, True),
                                 ("power", power, True), ("tie_rate", tie_rate, False)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                (0 < value < 1) if lo_open else (0 <= value < 1)):
            interval = "(0, 1)" if lo_open else "[0, 1)"
            msg = f"{name} must be in {interval}; got {value!r}"
            raise ValueError(msg)
    if preference == 0.5:
        msg = "preference must differ from 0.5 (no preference needs infinitely many)"
        raise ValueError(msg)
    z = NormalDist()
    m = ((z.inv_cdf(1 - alpha / 2) * 0.5 + z.inv_cdf(power)
          * math.sqrt(preference * (1 - preference))) / (preference - 0.5)) ** 2
    return math.ceil(m / (1 - tie_rate))
