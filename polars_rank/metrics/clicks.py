"""Click metrics on impression logs: CTR, abandonment, first-click RR, clicks.

An impression log has one row per shown result: the impression (query, session)
identifier, the display position, a click indicator or count and, optionally, a
dwell time. The click column plays the part of the relevance label: ``by=`` is the
display order (``by="position", descending=False``), rows with a null ``by`` were not
shown, ``query=`` averages over impressions, each once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import safe_div
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._engine.terms import count, reached, reciprocal
from polars_rank._language.metric_spec import MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Ties, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["ctr", "abandonment", "first_click_rr", "clicks_per_query"]


CTR = MetricSpec(
    "ctr",
    summary="clicks in the top k / items shown in the top k",
    paper="Radlinski, Kurup & Joachims, CIKM 2008",
)
"""``ctr``'s spec: a click metric (the label column holds clicks)."""


@shared_parameters
@metric(CTR)
def ctr(
    clicks: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Click-through rate at k: clicks within the top k / items shown within the top k.

    .. math:: \mathrm{CTR@k} = \frac{\sum_{r \le \min(k, n)} c_r}{\min(k, n)}

    Unlike :func:`precision`, it divides by what was shown (n rows retrieved), not by
    k. Clicks may be 0/1 or counts; null counts as 0. 0 when nothing was shown. A
    click metric of online evaluation (Radlinski, Kurup & Joachims, "How does
    clickthrough data reflect retrieval quality?", CIKM 2008); trec_eval has none.

    Parameters
    ----------
    clicks
        Click indicator or count per shown item (>= 0).
    k
        Cutoff. ``None`` = everything shown.
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
        Column(s) identifying an impression (query, session): the mean over them,
        each weighted once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (clicked rows
        first / last among ties) or ``"expected"`` (the exact mean over every order
        of the tied rows).

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
    ┌───────┐
    │ ctr@2 │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.75  │
    └───────┘
    """
    r = ranked_list(clicks, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(ctr_value(r, cutoff(k)), judgments=False)


def ctr_value(r: Ranked, k: int | None = None) -> pl.Expr:
    """CTR@k of a ranked list of clicks (validated parameters)."""
    clicked = r.rank_sum(r.gains(), k, term_sum=count)
    n_retrieved = r.n_retrieved().cast(pl.Float64)
    n_shown = n_retrieved if k is None else pl.min_horizontal(n_retrieved, float(k))
    return safe_div(clicked, n_shown)


def _is_click(r: Ranked) -> pl.Expr:
    """1.0 / 0.0 per row (input order): the row was clicked (a value > 0)."""
    return (r.labels > 0).fill_null(False).cast(pl.Float64)


def abandonment_value(r: Ranked, k: int | None = None) -> pl.Expr:
    """1 if no row within k was clicked (validated parameters)."""
    return 1.0 - r.first_hit(_is_click(r), k, reached)


def first_click_rr_value(r: Ranked, k: int | None = None) -> pl.Expr:
    """1 / display rank of the first click within k, 0 without one (validated parameters)."""
    return r.first_hit(_is_click(r), k, reciprocal)


def clicks_per_query_value(r: Ranked, k: int | None = None) -> pl.Expr:
    """Sum of clicks within k (validated parameters)."""
    return r.rank_sum(r.gains(), k, term_sum=count)


ABANDONMENT = MetricSpec(
    "abandonment",
    summary="1 if nothing in the top k was clicked",
    paper="Radlinski, Kurup & Joachims, CIKM 2008",
)
"""``abandonment``'s spec: a click metric (the label column holds clicks)."""


@shared_parameters
@metric(ABANDONMENT)
def abandonment(
    clicks: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Abandonment: 1 if no result within the top k was clicked, else 0.

    .. math:: \mathrm{Abandonment@k} = \mathbb{1}\left[\sum_{r \le k} c_r = 0\right]

    With ``query=``, the abandonment rate: the share of impressions (queries,
    sessions) without a click (Radlinski, Kurup & Joachims, CIKM 2008). An
    impression where nothing was shown counts as abandoned. A row is clicked when its
    click value is > 0; null counts as 0. trec_eval has no click metrics.

    Parameters
    ----------
    clicks
        Click indicator or count per shown item (>= 0).
    k
        Cutoff. ``None`` = everything shown.
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
        Column(s) identifying an impression (query, session): the rate over them,
        each weighted once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (clicked rows
        first / last among ties) or ``"expected"`` (the exact mean over every order
        of the tied rows).

    Returns
    -------
    pl.Expr
        Float64, 0 or 1 per impression; NaN for a list with negative or non-finite
        clicks.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> log = pl.DataFrame({"session": [1, 1, 1, 2, 2, 3], "pos": [1, 2, 3, 1, 2, 1],
    ...                     "clicked": [0, 0, 1, 0, 0, 1]})
    >>> log.select(
    ...     all=pr.abandonment("clicked", by="pos", descending=False, query="session"),
    ...     top2=pr.abandonment("clicked", 2, by="pos", descending=False, query="session"),
    ... )
    shape: (1, 2)
    ┌──────────┬──────────┐
    │ all      ┆ top2     │
    │ ---      ┆ ---      │
    │ f64      ┆ f64      │
    ╞══════════╪══════════╡
    │ 0.333333 ┆ 0.666667 │
    └──────────┴──────────┘
    """
    r = ranked_list(clicks, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(abandonment_value(r, cutoff(k)), judgments=False)


FIRST_CLICK_RR = MetricSpec(
    "first_click_rr",
    aliases=("click_mrr",),
    summary="1 / rank of the first click within k",
    paper="Radlinski, Kurup & Joachims, CIKM 2008",
)
"""``first_click_rr``'s spec: a click metric (the label column holds clicks)."""


@shared_parameters
@metric(FIRST_CLICK_RR)
def first_click_rr(
    clicks: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Reciprocal rank of the first click: 1 / rank of the first clicked result within k.

    .. math:: \mathrm{RR_{click}@k} = 1 / \min\{r \le k : c_r > 0\}

    0 when nothing within k was clicked; with ``query=``, the mean over impressions
    (the click MRR of online evaluation, Radlinski, Kurup & Joachims' "max reciprocal
    rank", CIKM 2008). Ranks are 1, 2, ... in display order (``by``), whatever the
    values of a position column. trec_eval has no click metrics.

    Parameters
    ----------
    clicks
        Click indicator or count per shown item (>= 0).
    k
        Cutoff. ``None`` = everything shown.
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
        Column(s) identifying an impression (query, session): the mean over them,
        each weighted once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (clicked rows
        first / last among ties) or ``"expected"`` (the exact mean over every order
        of the tied rows).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list with negative or non-finite clicks.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> log = pl.DataFrame({"session": [1, 1, 1, 2, 2, 3], "pos": [1, 2, 3, 1, 2, 1],
    ...                     "clicked": [0, 0, 1, 0, 1, 1]})
    >>> log.select(pr.first_click_rr("clicked", by="pos", descending=False,
    ...                              query="session"))  # (1/3 + 1/2 + 1) / 3
    shape: (1, 1)
    ┌────────────────┐
    │ first_click_rr │
    │ ---            │
    │ f64            │
    ╞════════════════╡
    │ 0.611111       │
    └────────────────┘
    """
    r = ranked_list(clicks, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(first_click_rr_value(r, cutoff(k)), judgments=False)


CLICKS_PER_QUERY = MetricSpec(
    "clicks_per_query",
    aliases=("clicks",),
    summary="number of clicks on the top k",
    paper="Radlinski, Kurup & Joachims, CIKM 2008",
)
"""``clicks_per_query``'s spec: a click metric (the label column holds clicks)."""


@shared_parameters
@metric(CLICKS_PER_QUERY)
def clicks_per_query(
    clicks: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Clicks per query: the number of clicks on the top k results.

    .. math:: \mathrm{Clicks@k} = \sum_{r \le k} c_r

    Clicks may be 0/1 or counts; null counts as 0. With ``query=``, the mean number
    of clicks per impression (query, session), impressions without a click counting
    as 0 (Radlinski, Kurup & Joachims, CIKM 2008). trec_eval has no click metrics.

    Parameters
    ----------
    clicks
        Click indicator or count per shown item (>= 0).
    k
        Cutoff. ``None`` = everything shown.
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
        Column(s) identifying an impression (query, session): the mean over them,
        each weighted once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (clicked rows
        first / last among ties) or ``"expected"`` (the exact mean over every order
        of the tied rows).

    Returns
    -------
    pl.Expr
        Float64 >= 0; NaN for a list with negative or non-finite clicks.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> log = pl.DataFrame({"session": [1, 1, 1, 2, 2, 3], "pos": [1, 2, 3, 1, 2, 1],
    ...                     "clicked": [1, 0, 1, 0, 0, 1]})
    >>> log.group_by("session", maintain_order=True).agg(
    ...     pr.clicks_per_query("clicked", by="pos", descending=False))
    shape: (3, 2)
    ┌─────────┬──────────────────┐
    │ session ┆ clicks_per_query │
    │ ---     ┆ ---              │
    │ i64     ┆ f64              │
    ╞═════════╪══════════════════╡
    │ 1       ┆ 2.0              │
    │ 2       ┆ 0.0              │
    │ 3       ┆ 1.0              │
    └─────────┴──────────────────┘
    """
    r = ranked_list(clicks, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(clicks_per_query_value(r, cutoff(k)), judgments=False)
