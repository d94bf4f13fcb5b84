"""Dwell time on clicked results: the mean dwell of the clicks within the top k.

The impression log of :mod:`polars_rank.metrics.clicks` with a dwell-time column; the
dwell column plays the part of the label and ``clicks=`` says which rows were clicked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.expected import Expected
from polars_rank._engine.lists import ranked_list, retied
from polars_rank._engine.params import UNSET, to_expr
from polars_rank._engine.ranked import cutoff, default_ties
from polars_rank._language.naming import named_after_metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Ties, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["mean_dwell"]


@shared_parameters
@named_after_metric
def mean_dwell(
    dwell: IntoExpr,
    k: int | None = None,
    *,
    clicks: IntoExpr | None = None,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Mean dwell time of the clicked results within the top k.

    .. math:: \mathrm{Dwell@k} = \frac{\sum_{r \le k,\, c_r > 0} d_r}{|\{r \le k : c_r > 0\}|}

    Dwell time as a signal of satisfaction: Fox et al., "Evaluating implicit measures
    to improve web search", TOIS 2005; trec_eval has no click metrics.
    Per impression, the mean of ``dwell`` over the shown rows within k that have a
    dwell time (not null) and, when ``clicks=`` is given, were clicked (clicks > 0):
    logs that record a dwell of 0 for unclicked results need ``clicks=``. Null when
    no row qualifies; with ``query=``, the mean over the impressions that have one,
    each weighted once (not the mean over all clicks).

    Parameters
    ----------
    dwell
        Dwell time per shown item (seconds, say; >= 0); null where not clicked.
    k
        Cutoff. ``None`` = everything shown.
    clicks
        Optional click indicator or count: only rows with clicks > 0 count.
    by
        Display position (``descending=False``) or score; rows with a null first key
        were not shown. ``None`` = row order.
    rank
        ...
    doc
        ...
    descending
        ...
    query
        Column(s) identifying an impression (query, session): the mean over the
        impressions with a dwell time, each weighted once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (tied rows by
        dwell time, longest first / last, rows without one last / first; not always
        the largest / smallest mean, which skips the rows without a dwell time) or
        ``"expected"`` (the exact mean over every order
        of the tied rows; with a cutoff ``k`` it raises NotImplementedError, as the
        mean of a ratio has no closed form).

    Returns
    -------
    pl.Expr
        Float64 >= 0 or null; NaN for a list with negative or non-finite dwell times
        or clicks.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> log = pl.DataFrame({"session": [1, 1, 1, 2, 2, 3], "pos": [1, 2, 3, 1, 2, 1],
    ...                     "clicked": [1, 0, 1, 0, 0, 1],
    ...                     "dwell": [30.0, 0.0, 90.0, 0.0, 0.0, 12.0]})
    >>> log.group_by("session", maintain_order=True).agg(
    ...     pr.mean_dwell("dwell", clicks="clicked", by="pos", descending=False))
    shape: (3, 2)
    ┌─────────┬────────────┐
    │ session ┆ mean_dwell │
    │ ---     ┆ ---        │
    │ i64     ┆ f64        │
    ╞═════════╪════════════╡
    │ 1       ┆ 60.0       │
    │ 2       ┆ null       │
    │ 3       ┆ 12.0       │
    └─────────┴────────────┘
    >>> log.select(pr.mean_dwell("dwell", clicks="clicked", by="pos", descending=False,
    ...                          query="session"))  # (60 + 12) / 2
    shape: (1, 1)
    ┌────────────┐
    │ mean_dwell │
    │ ---        │
    │ f64        │
    ╞════════════╡
    │ 36.0       │
    └────────────┘
    """
    k = cutoff(k)
    # a ratio of two counts within k: no closed form under "expected" (mean_dwell has no
    # MetricSpec, whose ties the decorator would check: it is no metric of evaluate())
    if k is not None and (ties or default_ties(by=by, rank=rank, doc=doc)) == "expected":
        if ties is not None:
            msg = ("mean_dwell has no closed form under ties='expected' with a cutoff k "
                   "(k=None has); use ties='trec_eval' (with doc=), 'optimistic' or "
                   "'pessimistic' (bounds), or 'first' (the row order)")
            raise NotImplementedError(msg)
        ties = "pessimistic"  # the order-free default without the closed form
    r = ranked_list(dwell, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    if isinstance(r, Expected):
        r = retied(r, "first")  # without a cutoff the order does not matter
    counted = r.retrieved(k)
    values = r.ordered(r.labels, k)
    extra: list[pl.Expr] = []
    if clicks is not None:
        click = to_expr(clicks, "clicks").cast(pl.Float64)
        counted = counted & (r.ordered(click, k) > 0).fill_null(False)
        extra.append((click < 0) | ~click.is_finite())
    value = pl.when(counted).then(values).otherwise(None).mean()
    return r.finish(value, r.bad(*extra), judgments=False)
