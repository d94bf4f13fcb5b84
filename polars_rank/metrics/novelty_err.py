"""Novelty-biased intent-aware ERR: ERR-IA / nERR-IA, as ndeval computes them.

The novelty gain and the ideals are alpha-nDCG's (:mod:`polars_rank.metrics.novelty`,
which says how ndeval computes them and re-exports both); the discount is the rank's
reciprocal, not its log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.compat import safe_div
from polars_rank._engine.ranked import cutoff
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._novelty import by_ideal_ideal, needs_cutoff, reciprocal
from polars_rank.metrics._subtopics import (
    ALPHA,
    Intents,
    check_alpha,
)

if TYPE_CHECKING:
    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import IntentTies, IntoExpr, Query
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["err_ia", "nerr_ia"]


def err_ia_value(r: Intents, k: int | None, alpha: float) -> pl.Expr:
    """Ndeval's ERR-IA@k: novelty gains over the rank, over the ideal-ideal list."""
    raw = r.rank_sum(r.novel_gain(alpha, k), lambda p: p.pow(-1))
    return by_ideal_ideal(r, raw, alpha, k, reciprocal)


def nerr_ia_value(r: Intents, k: int, alpha: float) -> pl.Expr:
    """ERR-IA@k over the ERR-IA@k of ndeval's greedy ideal ranking."""
    raw = r.rank_sum(r.novel_gain(alpha, k), lambda p: p.pow(-1))
    return safe_div(raw, r.ideal(alpha, k, reciprocal))


ERR_IA = MetricSpec(
    "err_ia",
    aliases=("err-ia",),
    options=(ALPHA, THRESHOLD),
    summary="intent-aware ERR@k / every subtopic at every rank",
    subtopics=True,
    paper="Chapelle et al., CIKM 2009",
)
"""``err_ia``\'s spec: intent-aware (rows per document and subtopic); also ``err-ia``."""


@shared_parameters
@metric(ERR_IA)
def err_ia(
    rel: IntoExpr,
    k: int | None = None,
    *,
    subtopic: IntoExpr,
    doc: IntoExpr,
    by: IntoExpr | None = None,
    rank: IntoExpr | None = None,
    descending: bool = True,
    alpha: float = 0.5,
    threshold: float = 1,
    query: Query = None,
    ties: IntentTies = "ndeval",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Intent-aware ERR@k as ndeval computes it (Chapelle et al., CIKM 2009).

    .. math:: \frac{\sum_{r \le k} \frac{1}{r} \sum_j l_{rj} (1 - \alpha)^{c_{rj}}}
              {S \sum_{r \le k} (1 - \alpha)^{r - 1} / r}

    With binary labels, ERR for subtopic j with stopping probability alpha is the
    alpha-discounted gain over the rank; averaged over the S subtopics of the query
    and divided by its value on an "ideal ideal" list (collection-independent). As in
    ndeval, ``alpha`` (0.5) is the stopping probability, and k = 1 is not divided
    (the value is the number of subtopics the first document covers). ``k=None``:
    the whole list. ir_measures' ``ERR_IA@k``; trec_eval has no diversity metric.

    Parameters
    ----------
    rel
        The document's label for the row's subtopic (null = unjudged).
    k
        Cutoff. ``None`` = the whole list.
    subtopic
        ...
    doc
        ... intents
    by
        ... intents
    rank
        ... intents
    descending
        ... intents
    alpha
        The chance a relevant document satisfies the user, in [0, 1] (0.5).
    threshold
        ...
    query
        ...
    ties
        ... intents

    Returns
    -------
    pl.Expr
        Float64 (in [0, 1] for k > 1); NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"docid": ["a", "a", "b"], "subtopic": [1, 2, 1],
    ...                    "rel": [1, 1, 1], "score": [3.0, 3.0, 2.0]})
    >>> df.select(pr.err_ia("rel", 2, subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌──────────┐
    │ err_ia@2 │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.9      │
    └──────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(err_ia_value(r, cutoff(k), check_alpha(alpha)))


NERR_IA = MetricSpec(
    "nerr_ia",
    aliases=("nerr-ia",),
    options=(ALPHA, THRESHOLD),
    summary="intent-aware ERR@k / its greedy ideal",
    subtopics=True,
    paper="Chapelle et al., CIKM 2009",
)
"""``nerr_ia``\'s spec: intent-aware (rows per document and subtopic); also ``nerr-ia``."""


@shared_parameters
@metric(NERR_IA)
def nerr_ia(
    rel: IntoExpr,
    k: int | None = None,
    *,
    subtopic: IntoExpr,
    doc: IntoExpr,
    by: IntoExpr | None = None,
    rank: IntoExpr | None = None,
    descending: bool = True,
    alpha: float = 0.5,
    threshold: float = 1,
    query: Query = None,
    ties: IntentTies = "ndeval",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Normalised intent-aware ERR@k, ndeval's nERR-IA (Chapelle et al., CIKM 2009).

    .. math:: \frac{\sum_{r \le k} \frac{1}{r} \sum_j l_{rj} (1 - \alpha)^{c_{rj}}}
              {\text{the same for the greedy ideal ranking}}

    :func:`err_ia` divided by its value on ndeval's greedy ideal ranking of the
    judged documents (the one :func:`alpha_ndcg` uses; collection-dependent); 0 when
    nothing is relevant. ir_measures' ``nERR_IA@k``; trec_eval has no diversity
    metric.

    Parameters
    ----------
    rel
        The document's label for the row's subtopic (null = unjudged).
    k
        Cutoff, required (the ideal ranking is built one rank at a time).
    subtopic
        ...
    doc
        ... intents
    by
        ... intents
    rank
        ... intents
    descending
        ... intents
    alpha
        The chance a relevant document satisfies the user, in [0, 1] (0.5).
    threshold
        ...
    query
        ...
    ties
        ... intents

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"docid": ["a", "a", "b", "d"], "subtopic": [1, 2, 1, 3],
    ...                    "rel": [1, 1, 1, 1], "score": [3.0, 3.0, 2.0, None]})
    >>> df.select(pr.nerr_ia("rel", 2, subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌───────────┐
    │ nerr_ia@2 │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.9       │
    └───────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(nerr_ia_value(r, needs_cutoff(k, "nerr_ia"), check_alpha(alpha)))
