"""Intervention harvesting (Agarwal et al., WSDM 2019): propensities from several rankers' logs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._stats.common import require
from polars_rank.online._propensity._allpairs import all_pairs, connected_to_first, used_pairs
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

__all__ = ["harvested_propensities"]

_B = "__polars_rank_other_position"
_RESERVED = frozenset({"n", "c", "clicks", "misses", "other", "stat", "value", "row", "__r", _B})
"""Names of the columns harvested_propensities works with (a log column may not have one)."""


def harvested_counts(data: pl.DataFrame, *, query: str, item: str, position: str,
                     click: str, ranker: str | None, depth: int) -> pl.DataFrame:
    r"""Per query and ordered pair of positions (k, k'): harvested clicks and non-clicks.

    :math:`(q, d) \in S_{k,k'}` when one ranker showed ``d`` for ``q`` at ``k`` and
    another at ``k'`` (any two impressions with ``ranker=None``). Its clicks at ``k``
    count with weight :math:`1 / w_k(q, d)`, :math:`w_k(q, d)` the number of
    impressions that showed it at ``k``: columns ``query, position, other, clicks,
    misses`` (positions up to ``depth``), sorted.
    """
    rows = data.filter(pl.col(position) <= depth)
    shown = rows.group_by(query, item, position).agg(
        pl.len().alias("n"), pl.col(click).sum().alias("c"))
    keys = [query, item, position]
    placed = rows.select([*keys, ranker] if ranker else keys).unique()
    pairs = placed.join(placed.rename({position: _B, **({ranker: "__r"} if ranker else {})}),
                        on=[query, item])
    differ = pl.col(position) != pl.col(_B)
    if ranker:
        differ = differ & (pl.col(ranker) != pl.col("__r"))
    cells = (pairs.filter(differ).select(*keys, _B).unique()
             .join(shown, on=keys)
             .sort(query, item, position, _B)
             .group_by(query, position, _B, maintain_order=True)
             .agg(group_sum(pl.col("c") / pl.col("n")).alias("clicks"),
                  group_sum((pl.col("n") - pl.col("c")) / pl.col("n")).alias("misses")))
    return cells.rename({_B: "other"}).sort(query, position, "other")


def harvested_propensities(
    log: Any, *, ranker: str | None = "ranker", impression: str = "impression",
    position: str = "position", query: str = "query", item: str = "item",
    click: str = "click", max_position: int | None = None, n_resamples: int = 200,
    alpha: float = 0.05, seed: int = 0,
) -> pl.DataFrame:
    r"""Examination propensities harvested from the logs of several rankers.

    Agarwal, Zaitsev, Wang, Li, Najork & Joachims, "Estimating Position Bias without
    Intrusive Interventions", WSDM 2019. When different rankers put the same item at
    different positions for the same query, the log holds an *intervention* without
    anyone having randomised: the interventional set :math:`S_{k,k'}` holds the
    (query, item) pairs one ranker showed at :math:`k` and another at :math:`k'`.
    Each impression's click counts with weight :math:`1/w_k(q,d)`, the number of
    impressions showing :math:`d` at :math:`k`:

    .. math::

        \hat c_k^{k,k'} = \sum_{(q,d) \in S_{k,k'}} \frac{\mathrm{clicks}_k(q,d)}{w_k(q,d)},
        \qquad
        \neg\hat c_k^{k,k'} = \sum_{(q,d) \in S_{k,k'}}
            \frac{w_k(q,d) - \mathrm{clicks}_k(q,d)}{w_k(q,d)}

    and the AllPairs extremum estimator maximises
    :math:`\sum_{k \ne k'} \hat c_k^{k,k'} \log(p_k r_{k,k'}) + \neg\hat c_k^{k,k'}
    \log(1 - p_k r_{k,k'})` with :math:`r_{k,k'} = r_{k',k}`, :math:`p_1 = 1` and
    every :math:`p_k r_{k,k'} \le 1`, by Newton's method (the objective is concave in
    the logarithms of :math:`p` and :math:`r`), with a log barrier on the cells
    clicked every time they were seen, whose maximum may lie on the boundary.

    Parameters
    ----------
    log
        One row per (impression, position): DataFrame or LazyFrame.
    ranker
        The column naming the ranker that produced each impression; ``None``: any two
        impressions placing (q, d) differently are an intervention (a ranker that
        randomises).
    impression, position, query, item, click
        Column names.
    max_position
        Estimate positions 1..``max_position`` only (default: all).
    n_resamples, alpha, seed
        Percentile bootstrap interval over queries (``0``: null bounds).

    Returns
    -------
    DataFrame
        ``position, propensity, ci_low, ci_high``; position 1 is 1.

    Raises
    ------
    InvalidDataError
        Clicks other than 0/1, positions not 1..n, a query or ranker changing within
        an impression, or positions no interventional set links to position 1
        (named).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import harvested_propensities
    >>> log = pl.DataFrame({
    ...     "impression": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "ranker": ["A", "A", "A", "A", "B", "B", "B", "B"],
    ...     "query": ["q"] * 8,
    ...     "item": ["x", "y", "x", "y", "y", "x", "y", "x"],
    ...     "position": [1, 2] * 4,
    ...     "click": [1, 0, 1, 1, 1, 0, 0, 1],
    ... })
    >>> harvested_propensities(log, n_resamples=0)
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
    if max_position is not None and (isinstance(max_position, bool)
                                     or not isinstance(max_position, int)
                                     or max_position < 2):
        msg = f"max_position must be an int >= 2 or None, got {max_position!r}"
        raise ValueError(msg)
    check_resampling(n_resamples, alpha, seed)
    require("numpy", "harvested_propensities")
    import numpy as np

    data = read_log(log, impression=impression, position=position, click=click,
                    per_impression=[query, *([ranker] if ranker else [])], others=[item],
                    reserved=_RESERVED.__contains__, caller="harvested_propensities")
    last = int(data[position].max())  # type: ignore[arg-type]
    depth = last if max_position is None else min(max_position, last)
    cells = harvested_counts(data, query=query, item=item, position=position, click=click,
                             ranker=ranker, depth=depth)
    size = depth * depth
    cell = (pl.col(position) - 1) * depth + pl.col("other") - 1
    long = pl.concat([cells.select(query, (offset + cell).alias("stat"),
                                   pl.col(value).alias("value"))
                      for offset, value in ((0, "clicks"), (size, "misses"))])
    units = per_unit(long, query, 2 * size)

    def estimate(m: Matrix) -> Matrix:
        m = np.atleast_2d(m)
        return np.vstack([all_pairs(row[:size].reshape(depth, depth),
                                    row[size:].reshape(depth, depth)) for row in m])

    total = units.sum(axis=0)
    reach = connected_to_first(depth, used_pairs(total[:size].reshape(depth, depth)))
    lost = [k + 1 for k in range(depth) if not reach[k]]
    if lost:
        raise unestimable(lost, "no (query, item) with a click was placed there and at "
                          "a position linked to position 1 by different rankers")
    point = estimate(total)[0]
    lower, upper = percentile_bounds(units, estimate, width=depth - 1,
                                     n_resamples=n_resamples, alpha=alpha, seed=seed)
    ones: list[float | None] = [1.0] if n_resamples else [None]
    return result_frame(range(1, depth + 1), [1.0, *point.tolist()],
                        [*ones, *lower], [*ones, *upper])
