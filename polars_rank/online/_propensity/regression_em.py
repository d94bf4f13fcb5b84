"""Regression EM (Wang et al., WSDM 2018): the position-based model fitted by EM."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._stats.common import require
from polars_rank.online._propensity._allpairs import connected_to_first
from polars_rank.online._propensity._em import em_theta
from polars_rank.online._propensity._log import (
    check_resampling,
    read_log,
    result_frame,
    unestimable,
)
from polars_rank.online._propensity._resample import (
    quantile_bounds,
    query_weights,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["regression_em_propensities"]

_RESERVED = frozenset({"n", "c", "rep", "weight", "theta", "gamma", "e", "r", "mu", "ratio",
                       "other"})


def _reserved(name: str) -> bool:
    """Whether a log column has the name of a column the EM works with (b0, g1, h0_1...)."""
    return name in _RESERVED or re.fullmatch(r"[bg]\d+|h\d+_\d+", name) is not None


def regression_em_propensities(
    log: Any, *, features: Sequence[str] | None = None, impression: str = "impression",
    position: str = "position", query: str = "query", item: str = "item",
    click: str = "click", iterations: int = 100, newton_steps: int = 3,
    n_resamples: int = 50, alpha: float = 0.05, seed: int = 0,
) -> pl.DataFrame:
    r"""Examination propensities of the position-based model, fitted by (regression) EM.

    Wang, Golbandi, Bendersky, Metzler & Najork, "Position Bias Estimation for Unbiased
    Learning to Rank in Personal Search", WSDM 2018. A click needs the
    result examined (:math:`\theta_k`, by position) and relevant (:math:`\gamma`):
    :math:`P(C = 1) = \theta_k \gamma_{q,d}`. The E-step gives each unclicked row's
    posterior of being examined and of being relevant,

    .. math::

        P(E = 1 \mid C = 0) = \frac{\theta_k (1 - \gamma)}{1 - \theta_k \gamma},
        \qquad
        P(R = 1 \mid C = 0) = \frac{(1 - \theta_k) \gamma}{1 - \theta_k \gamma}

    (both 1 for a clicked row); the M-step sets :math:`\theta_k` to the mean
    posterior of examination at :math:`k` and the relevance to the mean posterior of
    relevance: per (query, item) without ``features`` (the paper's plain EM), or,
    with ``features``, a logistic regression :math:`\gamma = \sigma(\beta^\top x)`
    on them (the paper's regression EM) fitted by
    ``newton_steps`` Newton steps on the expected log-likelihood (soft labels: the
    posteriors themselves, where the paper samples binary labels from them).

    Parameters
    ----------
    log
        One row per (impression, position): DataFrame or LazyFrame.
    features
        Numeric columns describing each row's (query, item) (an intercept is added);
        ``None``: a relevance per (query, item).
    impression, position, query, item, click
        Column names.
    iterations
        EM iterations (a fixed number: no stopping rule, so the same call gives the
        same number); :math:`\theta` and :math:`\gamma` start at 0.5.
    newton_steps
        Newton steps of the logistic regression per M-step (with ``features``).
    n_resamples, alpha, seed
        Percentile bootstrap interval over queries, each resample a full EM fit
        (``0``: null bounds).

    Returns
    -------
    DataFrame
        ``position, propensity, ci_low, ci_high``: :math:`\theta_k / \theta_1`.

    Raises
    ------
    InvalidDataError
        Clicks other than 0/1, positions not 1..n, a non-numeric feature, no click at
        position 1, or (without features) positions that share no (query, item) with
        a chain of positions leading to position 1 (named).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import regression_em_propensities
    >>> log = pl.DataFrame({
    ...     "impression": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "query": ["q"] * 8,
    ...     "item": ["x", "y", "x", "y", "y", "x", "y", "x"],
    ...     "position": [1, 2] * 4,
    ...     "click": [1, 0, 1, 1, 1, 0, 0, 1],
    ... })
    >>> regression_em_propensities(log, n_resamples=0).with_columns(
    ...     pl.col("propensity").round(3))
    shape: (2, 4)
    ┌──────────┬────────────┬────────┬─────────┐
    │ position ┆ propensity ┆ ci_low ┆ ci_high │
    │ ---      ┆ ---        ┆ ---    ┆ ---     │
    │ i64      ┆ f64        ┆ f64    ┆ f64     │
    ╞══════════╪════════════╪════════╪═════════╡
    │ 1        ┆ 1.0        ┆ null   ┆ null    │
    │ 2        ┆ 0.593      ┆ null   ┆ null    │
    └──────────┴────────────┴────────┴─────────┘
    """
    for name, value, low in (("iterations", iterations, 1), ("newton_steps", newton_steps, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            msg = f"{name} must be an int >= {low}, got {value!r}"
            raise ValueError(msg)
    check_resampling(n_resamples, alpha, seed)
    require("numpy", "regression_em_propensities")
    feats = [features] if isinstance(features, str) else list(features or [])
    for f in feats:
        if f in (impression, position, query, item, click) or feats.count(f) > 1:
            msg = (f"features must be other columns than the log's impression, position, "
                   f"query, item and click, each once; got {feats!r}")
            raise ValueError(msg)
    data = read_log(log, impression=impression, position=position, click=click,
                    per_impression=[query], others=[item, *feats], numbers=feats,
                    reserved=_reserved, caller="regression_em_propensities")
    keys = [query, item, position, *feats]
    table = (data.group_by(keys).agg(pl.len().cast(pl.Float64).alias("n"),
                                     pl.col(click).sum().cast(pl.Float64).alias("c"))
             .sort(keys))
    last = int(data[position].max())  # type: ignore[arg-type]
    if last == 1:  # one position: nothing to compare with
        ones: list[float | None] = [1.0] if n_resamples else [None]
        return result_frame([1], [1.0], ones, ones)
    _check_estimable(table, query, item, position, last, with_features=bool(feats))
    reps = table.with_columns(pl.lit(0, pl.Int64).alias("rep"))
    if n_resamples:
        weights = query_weights(table[query], n_resamples, seed)
        reps = pl.concat([reps, table.join(weights, on=query).with_columns(
            pl.col("n") * pl.col("weight"), pl.col("c") * pl.col("weight"))
            .drop("weight").select(reps.columns)]).sort("rep", *keys)
    theta = em_theta(reps, query=query, item=item, position=position, features=feats,
                     iterations=iterations, newton_steps=newton_steps)
    wide = (theta.with_columns((pl.col("theta") / pl.col("theta").filter(
        pl.col(position) == 1).first().over("rep")).alias("ratio"))
        .filter(pl.col(position) > 1).sort("rep", position))
    import numpy as np

    values = (wide.pivot(on=position, index="rep", values="ratio").sort("rep")
              .drop("rep").to_numpy().astype(np.float64))
    point = values[0]
    positions = sorted(set(wide[position].to_list()))
    if n_resamples:
        lower, upper = quantile_bounds(values[1:], alpha)
        ones = [1.0]
    else:
        lower = upper = [None] * len(positions)
        ones = [None]
    return result_frame([1, *positions], [1.0, *point.tolist()],
                        [*ones, *lower], [*ones, *upper])


def _check_estimable(table: pl.DataFrame, query: str, item: str, position: str,
                     last: int, *, with_features: bool) -> None:
    """No click at position 1, or (no features) positions not linked to 1 by shared items."""
    first = table.filter(pl.col(position) == 1)["c"].sum()
    if first == 0:
        raise unestimable(range(2, last + 1), "no click at position 1 to compare with")
    if with_features:
        return
    placed = table.select(query, item, position).unique()
    links = (placed.join(placed.rename({position: "other"}), on=[query, item])
             .filter(pl.col(position) < pl.col("other")).select(position, "other").unique()
             .sort(position, "other"))
    pairs = [(a - 1, b - 1) for a, b in links.iter_rows()]
    reach = connected_to_first(last, pairs)
    lost = [k + 1 for k in range(last) if not reach[k]]
    if lost:
        raise unestimable(lost, "no (query, item) shown there was also shown at a "
                          "position linked to position 1 (the plain EM needs the same "
                          "item at several positions; give features for a regression)")
