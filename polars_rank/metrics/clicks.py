"""Click metrics on impression logs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._ranked import Ranked, cutoff, safe_div

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._params import By, IntoExpr, Query, Ties

__all__ = ["ctr"]


def ctr(
    clicks: IntoExpr,
    k: int | None = None,
    *,
    by: By = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties = "first",
) -> pl.Expr:
    r"""Click-through rate at k: clicks within the top k / items shown within the top k.

    .. math:: \mathrm{CTR@k} = \frac{\sum_{r \le \min(k, n)} c_r}{\min(k, n)}

    Unlike :func:`precision`, it divides by what was shown (n rows retrieved), not by
    k. Clicks may be 0/1 or counts; null counts as 0. 0 when nothing was shown.

    Parameters
    ----------
    clicks
        Click indicator or count per shown item (>= 0).
    k
        Cutoff. ``None`` = everything shown.
    by
        Display position (``descending=False``) or score; rows with a null first key
        were not shown. ``None`` = row order.
    descending
        Sort direction, one bool or one per key of ``by``.
    query
        Column(s) identifying an impression (query, session): the mean over them,
        each weighted once.
    ties
        ``"first"`` (input order), ``"optimistic"`` or ``"pessimistic"``.

    Returns
    -------
    pl.Expr
        Float64 >= 0; NaN for a list with negative or non-finite clicks.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> log = pl.DataFrame({"session": [1, 1, 1, 2, 2], "pos": [1, 2, 3, 1, 2],
    ...                     "clicked": [0, 1, 0, 1, 1]})
    >>> log.select(pr.ctr("clicked", 2, by="pos", descending=False, query="session"))
    shape: (1, 1)
    ┌─────────┐
    │ clicked │
    │ ---     │
    │ f64     │
    ╞═════════╡
    │ 0.75    │
    └─────────┘
    """
    r = Ranked.build(clicks, by=by, descending=descending, ties=ties, query=query)
    return r.finish(ctr_value(r, cutoff(k)))


def ctr_value(r: Ranked, k: int | None = None) -> pl.Expr:
    """CTR@k of a ranked list of clicks (validated parameters)."""
    clicked = pl.when(r.retrieved(k)).then(r.ordered(r.gains(), k)).otherwise(0.0).sum()
    n_retrieved = r.n_retrieved().cast(pl.Float64)
    n_shown = n_retrieved if k is None else pl.min_horizontal(n_retrieved, float(k))
    return safe_div(clicked, n_shown)
