"""The metrics of the first relevant row: reciprocal rank and hit rate.

A row is *relevant* when its label is >= ``threshold`` (default 1, trec_eval's
``-l``); unjudged rows (null label) never are. Under ``ties="expected"`` each is the
exact mean over the orders of the tied rows (:meth:`Ranked.first_hit`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import (
    UNSET,
    Empty,
    Ties,
    check_threshold,
)
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._engine.terms import reached, reciprocal
from polars_rank._language.metric_spec import (
    EMPTY_LIST,
    THRESHOLD,
    MetricSpec,
)
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["reciprocal_rank", "hit_rate"]


def reciprocal_rank_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """RR@k of a ranked list (validated parameters)."""
    return r.first_hit(r.relevant(threshold), k, reciprocal)


def hit_rate_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """Hit rate @k of a ranked list (validated parameters)."""
    return r.first_hit(r.relevant(threshold), k, reached)


RECIPROCAL_RANK = MetricSpec(
    "mrr",
    aliases=("rr", "reciprocal_rank", "recip_rank"),
    options=(THRESHOLD, EMPTY_LIST),
    trec_eval="recip_rank (no cutoff)",
    summary="1 / rank of the first relevant row within k",
    paper="Voorhees, TREC-8 QA 1999",
)
"""``mrr``'s spec: also ``rr``, ``reciprocal_rank``, ``recip_rank``."""


@shared_parameters
@metric(RECIPROCAL_RANK)
def reciprocal_rank(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    empty: Empty = "zero",
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Reciprocal rank of the first relevant row (MRR with ``query=``).

    .. math:: \mathrm{RR@k} = 1 / \min\{r \le k : l_r \ge t\}

    0 when no relevant row is ranked within k. trec_eval's ``recip_rank`` is
    ``k=None`` (it has no cutoff). MRR was the measure of the TREC-8 question
    answering track (Voorhees, TREC 1999).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff. ``None`` = the whole ranked list.
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        ...
    doc
        ...
    descending
        ...
    threshold
        ...
    empty
        ...
    query
        Column(s) identifying a query: the mean over queries (MRR).
    ties
        ...

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": [1, 1, 2, 2, 3], "rel": [0, 1, 1, 0, 0]})
    >>> df.select(pr.reciprocal_rank("rel", by=None, query="qid"))  # (1/2 + 1 + 0) / 3
    shape: (1, 1)
    ┌─────┐
    │ mrr │
    │ --- │
    │ f64 │
    ╞═════╡
    │ 0.5 │
    └─────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = check_threshold(threshold)
    return r.finish_empty(reciprocal_rank_value(r, cutoff(k), level), level, empty)


HIT_RATE = MetricSpec(
    "hit_rate",
    aliases=("success",),
    options=(THRESHOLD, EMPTY_LIST),
    trec_eval="success.k",
    summary="1 if a relevant row is within k",
    paper="Deshpande & Karypis, TOIS 2004",
    trec_cut=("success",),
)
"""``hit_rate``'s spec: also ``success``; trec_eval's ``success_k``."""


@shared_parameters
@metric(HIT_RATE)
def hit_rate(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    empty: Empty = "zero",
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Hit rate at k: 1 if any relevant row is ranked within k, else 0.

    .. math:: \mathrm{HR@k} = \mathbb{1}\left[\exists\, r \le k : l_r \ge t\right]

    trec_eval's ``success.k``, ir_measures' ``Success@k``; with ``query=``, the share
    of queries with a hit, the hit rate of top-N recommendation (Deshpande & Karypis,
    "Item-based top-N recommendation algorithms", TOIS 2004).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff. ``None`` = the whole ranked list.
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        ...
    doc
        ...
    descending
        ...
    threshold
        ...
    empty
        ...
    query
        Column(s) identifying a query: the share of queries with a hit.
    ties
        ...

    Returns
    -------
    pl.Expr
        Float64, 0 or 1 per list; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": [1, 1, 2, 2], "rel": [0, 1, 0, 0], "score": [2, 1, 2, 1]})
    >>> df.group_by("qid", maintain_order=True).agg(pr.hit_rate("rel", 2, by="score"))
    shape: (2, 2)
    ┌─────┬────────────┐
    │ qid ┆ hit_rate@2 │
    │ --- ┆ ---        │
    │ i64 ┆ f64        │
    ╞═════╪════════════╡
    │ 1   ┆ 1.0        │
    │ 2   ┆ 0.0        │
    └─────┴────────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = check_threshold(threshold)
    return r.finish_empty(hit_rate_value(r, cutoff(k), level), level, empty)
