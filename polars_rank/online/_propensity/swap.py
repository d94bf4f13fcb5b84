"""Propensities from randomised result lists: swap-with-top (RandPair) and RandTop-n."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from polars_rank._stats.common import require
from polars_rank.errors import InvalidDataError
from polars_rank.online._propensity._log import (
    check_resampling,
    read_log,
    result_frame,
    unestimable,
)
from polars_rank.online._propensity._resample import (
    per_unit,
    percentile_bounds,
)

if TYPE_CHECKING:
    from polars_rank.online._propensity._resample import Matrix

__all__ = ["swap_propensities"]

_PARTNER = "__polars_rank_partner"
_RESERVED = frozenset({"at_one", "moved", "stat", "value", "row", _PARTNER})
"""Names of the columns swap_propensities works with (a log column may not have one)."""


def swap_propensities(
    log: Any, *, design: Literal["swap", "randtop"] = "swap",
    impression: str = "impression", position: str = "position", query: str = "query",
    click: str = "click", logged: str = "logged_position", top_n: int | None = None,
    resample: Literal["impression", "query"] = "impression", n_resamples: int = 1000,
    alpha: float = 0.05, seed: int = 0,
) -> pl.DataFrame:
    r"""Examination propensities from a log of randomised result lists.

    **Swap-with-top** (``design="swap"``; Joachims, Swaminathan & Schnabel, "Unbiased
    Learning-to-Rank with Biased Feedback", WSDM 2017, the swap intervention; RandPair with pivot
    rank 1 in Wang et al., WSDM 2018): each impression either shows the ranker's list
    as it is (a *control*) or with its results at ranks 1 and ``k`` swapped; the column
    ``logged`` gives each row's position in the ranker's list, before the swap. Under
    the position-based model, with :math:`\bar c_{\text{swap } k}(i)` the click rate
    at position :math:`i` of the impressions whose top result was swapped to
    :math:`k`, and :math:`\bar c_{\text{ctl}}(i)` that of the controls,

    .. math::

        \frac{\hat p_k}{\hat p_1} = \frac{\bar c_{\text{swap } k}(k)
            + \bar c_{\text{ctl}}(k)}{\bar c_{\text{ctl}}(1) + \bar c_{\text{swap } k}(1)}

    the clicks of the ranker's top result moved to rank :math:`k` against the same
    result left at rank 1, and the ranker's :math:`k`-th result left at rank :math:`k`
    against the same moved to rank 1 (both directions, so that the two results'
    relevance cancels in expectation).

    **RandTop-n** (``design="randtop"``; Wang, Bendersky, Metzler & Najork, SIGIR
    2016): the top ``top_n`` results (default: all) are shuffled uniformly, so that
    relevance does not depend on the position and :math:`\hat p_k / \hat p_1` is the
    click rate at position :math:`k` over the click rate at position 1.

    Parameters
    ----------
    log
        One row per (impression, position): DataFrame or LazyFrame.
    design
        ``"swap"`` (needs ``logged``) or ``"randtop"``.
    impression, position, query, click, logged
        Column names; ``query`` is read only with ``resample="query"``.
    top_n
        RandTop-n: the number of shuffled positions (default: the longest list).
    resample
        The bootstrap's unit: impressions, or queries (clustered clicks of a query).
    n_resamples, alpha, seed
        Percentile bootstrap interval at level ``1 - alpha`` over ``n_resamples``
        resamples drawn with ``seed`` (``0``: no interval, null bounds).

    Returns
    -------
    DataFrame
        ``position, propensity, ci_low, ci_high``; position 1 is 1 (its bounds too, when
        there is an interval).

    Raises
    ------
    InvalidDataError
        Clicks other than 0/1, positions not 1..n, an impression that is neither a
        control nor a swap of ranks 1 and ``k``, no control impression, a position
        no impression was swapped to, or one whose comparison has no click at
        position 1 (named).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import swap_propensities
    >>> log = pl.DataFrame({
    ...     "impression": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "position": [1, 2] * 4,
    ...     "logged_position": [1, 2, 1, 2, 2, 1, 2, 1],
    ...     "click": [1, 0, 1, 1, 0, 1, 1, 0],
    ... })
    >>> swap_propensities(log, n_resamples=0)
    shape: (2, 4)
    ┌──────────┬────────────┬────────┬─────────┐
    │ position ┆ propensity ┆ ci_low ┆ ci_high │
    │ ---      ┆ ---        ┆ ---    ┆ ---     │
    │ i64      ┆ f64        ┆ f64    ┆ f64     │
    ╞══════════╪════════════╪════════╪═════════╡
    │ 1        ┆ 1.0        ┆ null   ┆ null    │
    │ 2        ┆ 0.666667   ┆ null   ┆ null    │
    └──────────┴────────────┴────────┴─────────┘
    """
    if design not in ("swap", "randtop"):
        msg = f"design must be 'swap' or 'randtop', got {design!r}"
        raise ValueError(msg)
    if resample not in ("impression", "query"):
        msg = f"resample must be 'impression' or 'query', got {resample!r}"
        raise ValueError(msg)
    if top_n is not None and (isinstance(top_n, bool) or not isinstance(top_n, int)
                              or top_n < 2):
        msg = f"top_n must be an int >= 2 or None, got {top_n!r}"
        raise ValueError(msg)
    check_resampling(n_resamples, alpha, seed)
    require("numpy", "swap_propensities")
    unit = impression if resample == "impression" else query
    data = read_log(log, impression=impression, position=position, click=click,
                    per_impression=[query] if resample == "query" else [],
                    others=[logged] if design == "swap" else [],
                    numbers=[logged] if design == "swap" else [],
                    reserved=_RESERVED.__contains__, caller="swap_propensities")
    last = int(data[position].max())  # type: ignore[arg-type]
    if design == "swap":
        units, estimate, positions = _swap_stats(data, impression, position, click, logged,
                                                 unit, last)
    else:
        depth = last if top_n is None else min(top_n, last)
        units, estimate, positions = _randtop_stats(data, position, click, unit, depth)
    point = estimate(units.sum(axis=0))[0]
    lower, upper = percentile_bounds(units, estimate, width=len(positions),
                                     n_resamples=n_resamples, alpha=alpha, seed=seed)
    ones: list[float | None] = [1.0] if n_resamples else [None]
    return result_frame([1, *positions], [1.0, *point.tolist()],
                        [*ones, *lower], [*ones, *upper])


def _swap_stats(data: pl.DataFrame, impression: str, position: str, click: str,
                logged: str, unit: str, last: int) -> tuple[Matrix, Any, list[int]]:
    """Per unit: swapped impressions and their clicks at 1 and k; controls' clicks by k."""
    pos, was = pl.col(position), pl.col(logged)
    moved = data.filter(pos != was).group_by(impression).agg(pl.len().alias("moved"))
    per = (data.filter(pos == 1).select(impression, was.alias("at_one"))
           .join(data.filter(was == 1).select(impression, pos.alias(_PARTNER)),
                 on=impression, how="left")
           .join(moved, on=impression, how="left"))
    ok = (pl.col("moved").is_null() & (pl.col(_PARTNER) == 1)) | (
        (pl.col("moved") == 2) & (pl.col("at_one") == pl.col(_PARTNER)))
    bad = per.filter(~ok.fill_null(value=False))
    if bad.height:
        first = bad.sort(impression).item(0, impression)
        msg = (f"column {logged!r}: impression {first!r} is neither a control (every "
               f"{logged} equal to its {position}) nor a swap of ranks 1 and k")
        raise InvalidDataError(msg)
    rows = data.join(per.select(impression, _PARTNER), on=impression)
    partner = pl.col(_PARTNER)
    ks = range(2, last + 1)
    width = last - 1
    # the columns: s_n, s_top, s_one (k = 2..last), then c_n, c_clk (k = 1..last)
    block = {"s_n": 0, "s_top": width, "s_one": 2 * width,
             "c_n": 3 * width, "c_clk": 4 * width + 1}

    def stat(frame: pl.DataFrame, name: str, k: pl.Expr, value: pl.Expr) -> pl.DataFrame:
        return frame.select(unit, (block[name] + k - 2).alias("stat"), value.alias("value"))

    at_one = rows.filter((partner > 1) & (pos == 1))
    at_k = rows.filter((partner > 1) & (pos == partner))
    control = rows.filter(partner == 1)
    one, clicked = pl.lit(1, pl.Int64), pl.col(click)
    long = pl.concat([
        stat(at_one, "s_n", partner, one), stat(at_k, "s_top", partner, clicked),
        stat(at_one, "s_one", partner, clicked), stat(control, "c_n", pos + 1, one),
        stat(control, "c_clk", pos + 1, clicked)])
    units = per_unit(long, unit, 5 * width + 2)
    total = units.sum(axis=0)
    names = [*[f"s_n{k}" for k in ks], *[f"s_top{k}" for k in ks],
             *[f"s_one{k}" for k in ks], *[f"c_n{k}" for k in range(1, last + 1)],
             *[f"c_clk{k}" for k in range(1, last + 1)]]
    sums = dict(zip(names, total.tolist(), strict=True))
    if sums["c_n1"] == 0:
        msg = "no control impression (one without a swap): the click rates at position 1"
        raise unestimable(range(2, last + 1), msg)
    lost = [k for k in ks if sums[f"s_n{k}"] == 0 or sums[f"c_n{k}"] == 0]
    if lost:
        raise unestimable(lost, "no impression swapped its top result there, or no "
                          "control impression reached it")
    # the denominator: position 1's click rates, of the controls and of the swaps to k
    blind = [k for k in ks if sums["c_clk1"] == 0 and sums[f"s_one{k}"] == 0]
    if blind:
        raise unestimable(blind, "no click at position 1 to compare with")

    def estimate(m: Matrix) -> Matrix:
        import numpy as np

        m = np.atleast_2d(m)
        s_n, s_top, s_one = m[:, :width], m[:, width:2 * width], m[:, 2 * width:3 * width]
        c_n, c_clk = m[:, 3 * width:4 * width + 1], m[:, 4 * width + 1:]
        with np.errstate(divide="ignore", invalid="ignore"):
            num = s_top / s_n + c_clk[:, 1:] / c_n[:, 1:]
            den = (c_clk[:, :1] / c_n[:, :1]) + s_one / s_n
            out: Matrix = num / den
        out[~np.isfinite(out)] = np.nan
        return out

    return units, estimate, list(ks)


def _randtop_stats(data: pl.DataFrame, position: str, click: str, unit: str,
                   depth: int) -> tuple[Matrix, Any, list[int]]:
    """Per unit: rows and clicks at each position up to ``depth``."""
    pos = pl.col(position)
    shown = data.filter(pos <= depth)
    long = pl.concat([
        shown.select(unit, (offset + pos - 1).alias("stat"), value.alias("value"))
        for offset, value in ((0, pl.lit(1, pl.Int64)), (depth, pl.col(click)))])
    units = per_unit(long, unit, 2 * depth)
    if units[:, depth].sum() == 0:
        raise unestimable(range(2, depth + 1), "no click at position 1 to compare with")

    def estimate(m: Matrix) -> Matrix:
        import numpy as np

        m = np.atleast_2d(m)
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = m[:, depth:] / m[:, :depth]
            out: Matrix = rate[:, 1:] / rate[:, :1]
        out[~np.isfinite(out)] = np.nan
        return out

    return units, estimate, list(range(2, depth + 1))
