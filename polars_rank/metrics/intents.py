"""Intent-aware set and precision metrics: P-IA@k, AP-IA, subtopic recall (StRecall@k).

Each averages a binary metric over the query's subtopics (Agrawal et al., WSDM 2009),
as ndeval computes it (TREC Web track's diversity tool, version 4.5; src/ndeval.c at
seanmacavaney/pyndeval@acde21d, which ir_measures calls). S counts the subtopics
with a relevant document; a query with none scores 0. The input is one row per
(document, subtopic): see :mod:`polars_rank.metrics._subtopics`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum, safe_div
from polars_rank._engine.ranked import cutoff
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._subtopics import Intents

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from polars_rank._engine.params import IntentTies, IntoExpr, Query
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["precision_ia", "ap_ia", "subtopic_recall"]


def precision_ia_value(r: Intents, k: int | None) -> pl.Expr:
    """Relevant (document, subtopic) pairs in the top k over k * S."""
    depth = r.n_retrieved().cast(pl.Float64) if k is None else pl.lit(float(k))
    return safe_div(r.found(k).sum(), depth * r.n_intents().cast(pl.Float64))


def subtopic_recall_value(r: Intents, k: int | None) -> pl.Expr:
    """Subtopics with a relevant document in the top k, over S."""
    first = r.found(k) * (r.seen() == 0).cast(pl.Float64)
    return safe_div(first.sum(), r.n_intents().cast(pl.Float64))


def ap_ia_value(r: Intents, k: int | None) -> pl.Expr:
    """Mean over the S subtopics of each one's average precision."""
    per_subtopic = r.subtopic_total(r.relevant())
    terms = r.found(k) * (r.seen() + 1.0) / r.rank.cast(pl.Float64) / per_subtopic
    return safe_div(group_sum(terms.fill_null(0.0).fill_nan(0.0)),
                    r.n_intents().cast(pl.Float64))


PRECISION_IA = MetricSpec(
    "p_ia",
    aliases=("precision_ia", "p-ia"),
    options=(THRESHOLD,),
    summary="precision@k averaged over subtopics",
    subtopics=True,
    paper="Agrawal et al., WSDM 2009",
)
"""``p_ia``'s spec: intent-aware (rows per document and subtopic)."""


@shared_parameters
@metric(PRECISION_IA)
def precision_ia(
    rel: IntoExpr,
    k: int | None = None,
    *,
    subtopic: IntoExpr,
    doc: IntoExpr,
    by: IntoExpr | None = None,
    rank: IntoExpr | None = None,
    descending: bool = True,
    threshold: float = 1,
    query: Query = None,
    ties: IntentTies = "ndeval",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Intent-aware precision@k, ndeval's P-IA@k (Agrawal et al., WSDM 2009).

    .. math:: \frac{1}{S} \sum_j \frac{|\{r \le k : l_{rj} = 1\}|}{k}

    Precision@k for each subtopic, averaged over the S subtopics with a relevant
    document: relevant (document, subtopic) pairs in the top k over k S. It divides
    by k even when fewer are retrieved (as trec_eval's P); ``k=None`` divides by the
    number retrieved. ir_measures' ``P_IA@k``; trec_eval has no diversity metric.

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
    >>> df = pl.DataFrame({"docid": ["a", "a", "b", "c"], "subtopic": [1, 2, 1, None],
    ...                    "rel": [1, 1, 0, None], "score": [3.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.precision_ia("rel", 2, subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌────────┐
    │ p_ia@2 │
    │ ---    │
    │ f64    │
    ╞════════╡
    │ 0.5    │
    └────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(precision_ia_value(r, cutoff(k)))


SUBTOPIC_RECALL = MetricSpec(
    "strecall",
    aliases=("subtopic_recall", "strec"),
    options=(THRESHOLD,),
    summary="share of subtopics covered in the top k",
    subtopics=True,
    paper="Zhai, Cohen & Lafferty, SIGIR 2003",
)
"""``strecall``'s spec: intent-aware (rows per document and subtopic)."""


@shared_parameters
@metric(SUBTOPIC_RECALL)
def subtopic_recall(
    rel: IntoExpr,
    k: int | None = None,
    *,
    subtopic: IntoExpr,
    doc: IntoExpr,
    by: IntoExpr | None = None,
    rank: IntoExpr | None = None,
    descending: bool = True,
    threshold: float = 1,
    query: Query = None,
    ties: IntentTies = "ndeval",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Subtopic recall@k, ndeval's strec@k (Zhai, Cohen & Lafferty, SIGIR 2003).

    .. math:: \frac{|\{j : \exists r \le k,\ l_{rj} = 1\}|}{S}

    The share of the query's S subtopics (those with a relevant document) that a
    relevant document in the top k covers. ir_measures' ``StRecall@k``; trec_eval
    has no diversity metric.

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
    >>> df.select(pr.subtopic_recall("rel", 2, subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌────────────┐
    │ strecall@2 │
    │ ---        │
    │ f64        │
    ╞════════════╡
    │ 0.666667   │
    └────────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(subtopic_recall_value(r, cutoff(k)))


AP_IA = MetricSpec(
    "ap_ia",
    aliases=("map_ia", "map-ia"),
    options=(THRESHOLD,),
    summary="average precision averaged over subtopics",
    subtopics=True,
    paper="Agrawal et al., WSDM 2009",
)
"""``ap_ia``'s spec: intent-aware (rows per document and subtopic)."""


@shared_parameters
@metric(AP_IA)
def ap_ia(
    rel: IntoExpr,
    k: int | None = None,
    *,
    subtopic: IntoExpr,
    doc: IntoExpr,
    by: IntoExpr | None = None,
    rank: IntoExpr | None = None,
    descending: bool = True,
    threshold: float = 1,
    query: Query = None,
    ties: IntentTies = "ndeval",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Intent-aware average precision, ndeval's MAP-IA (Agrawal et al., WSDM 2009).

    .. math:: \frac{1}{S} \sum_j \frac{1}{R_j}
              \sum_{r : l_{rj} = 1} \frac{|\{r' \le r : l_{r'j} = 1\}|}{r}

    Average precision for each subtopic j (R_j: its relevant documents, retrieved or
    not), averaged over the S subtopics with a relevant document. ndeval reads the
    whole list; k cuts it (as trec_eval's ``map_cut``). With ``query=`` it is the
    mean, MAP-IA. ir_measures' ``AP_IA`` (``MAP_IA``); trec_eval has no diversity
    metric.

    Parameters
    ----------
    rel
        The document's label for the row's subtopic (null = unjudged).
    k
        Cutoff. ``None`` = the whole list (ndeval's).
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
    >>> df.select(pr.ap_ia("rel", subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌──────────┐
    │ ap_ia    │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.666667 │
    └──────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(ap_ia_value(r, cutoff(k)))
