"""Novelty-biased intent-aware metrics: alpha-DCG / alpha-nDCG and ERR-IA / nERR-IA.

A document relevant to a subtopic already covered higher up gains less: its gain for
subtopic j is (1 - alpha)^(documents above it relevant to j) (Clarke et al., SIGIR
2008). Each metric is computed as ndeval (TREC Web track's diversity tool, version
4.5; src/ndeval.c at seanmacavaney/pyndeval@acde21d, which ir_measures calls) computes
it, "intent aware" in the sense of Agrawal et al. (WSDM 2009): the collection-
independent forms divide by an "ideal ideal" list (every subtopic at every rank), the
``n`` forms by ndeval's greedy ideal ranking of the judged documents. The input is one
row per (document, subtopic): see :mod:`polars_rank.metrics._subtopics`.

ERR-IA and nERR-IA are in :mod:`polars_rank.metrics.novelty_err` (re-exported here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.compat import safe_div
from polars_rank._engine.ranked import cutoff
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._novelty import by_ideal_ideal, log_discount, needs_cutoff
from polars_rank.metrics._subtopics import (
    ALPHA,
    Intents,
    check_alpha,
)
from polars_rank.metrics.novelty_err import err_ia, nerr_ia

if TYPE_CHECKING:
    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import IntentTies, IntoExpr, Query
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["alpha_dcg", "alpha_ndcg", "err_ia", "nerr_ia"]


def alpha_dcg_value(r: Intents, k: int | None, alpha: float) -> pl.Expr:
    """Ndeval's alpha-DCG@k: novelty-discounted DCG over the ideal-ideal list."""
    raw = r.rank_sum(r.novel_gain(alpha, k), lambda p: (p + 1.0).log(2).pow(-1))
    return by_ideal_ideal(r, raw, alpha, k, log_discount)


def alpha_ndcg_value(r: Intents, k: int, alpha: float) -> pl.Expr:
    """alpha-DCG@k over the alpha-DCG@k of ndeval's greedy ideal ranking."""
    raw = r.rank_sum(r.novel_gain(alpha, k), lambda p: (p + 1.0).log(2).pow(-1))
    return safe_div(raw, r.ideal(alpha, k, log_discount))


ALPHA_NDCG = MetricSpec(
    "alpha_ndcg",
    aliases=("alpha-ndcg",),
    options=(ALPHA, THRESHOLD),
    summary="novelty-biased DCG@k / its greedy ideal",
    subtopics=True,
    paper="Clarke et al., SIGIR 2008",
)
"""``alpha_ndcg``\'s spec: intent-aware (rows per document and subtopic); also ``alpha-ndcg``."""


@shared_parameters
@metric(ALPHA_NDCG)
def alpha_ndcg(
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
    r"""alpha-nDCG@k, novelty-biased NDCG over subtopics (Clarke et al., SIGIR 2008).

    .. math:: \frac{\sum_{r \le k} \sum_j l_{rj} (1 - \alpha)^{c_{rj}} / \log_2(1 + r)}
              {\text{the same for the greedy ideal ranking}}

    l_rj is 1 when the document at rank r is relevant to subtopic j (label >=
    ``threshold``), c_rj the number of documents above it relevant to j. The ideal
    ranking is ndeval's greedy one over every judged document of the list, retrieved
    or not; 0 when nothing is relevant. ir_measures' ``alpha_nDCG@k`` (also spelt
    with the Greek letter), the TREC Web track's ``alpha-nDCG@k`` (ndeval); trec_eval
    has no diversity metric.

    Parameters
    ----------
    rel
        The document's label for the row's subtopic (null = unjudged).
    k
        Cutoff, required: the ideal ranking is built one rank at a time, so the
        expression grows with k (ndeval computes k <= 20).
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
        Redundancy intolerance in [0, 1]: a subtopic's gain shrinks by 1 - alpha with
        each document above relevant to it (0.5, as ndeval).
    threshold
        ...
    query
        ...
    ties
        ... intents

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored (a negative label, a
        (document, subtopic) pair twice, a document whose rows disagree on its score).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({  # a: subtopics 1 and 2; b: 1; c unjudged; d: 3, not retrieved
    ...     "docid": ["a", "a", "b", "c", "d"],
    ...     "subtopic": [1, 2, 1, None, 3],
    ...     "rel": [1, 1, 1, None, 1],
    ...     "score": [3.0, 3.0, 2.0, 1.0, None],
    ... })
    >>> df.select(pr.alpha_ndcg("rel", 3, subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌──────────────┐
    │ alpha_ndcg@3 │
    │ ---          │
    │ f64          │
    ╞══════════════╡
    │ 0.803721     │
    └──────────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(alpha_ndcg_value(r, needs_cutoff(k, "alpha_ndcg"), check_alpha(alpha)))


ALPHA_DCG = MetricSpec(
    "alpha_dcg",
    aliases=("alpha-dcg",),
    options=(ALPHA, THRESHOLD),
    summary="novelty-biased DCG@k / every subtopic at every rank",
    subtopics=True,
    paper="Clarke et al., SIGIR 2008",
)
"""``alpha_dcg``\'s spec: intent-aware (rows per document and subtopic); also ``alpha-dcg``."""


@shared_parameters
@metric(ALPHA_DCG)
def alpha_dcg(
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
    r"""alpha-DCG@k as ndeval reports it: over an "ideal ideal" list (Clarke et al., 2008).

    .. math:: \frac{\sum_{r \le k} \sum_j l_{rj} (1 - \alpha)^{c_{rj}} / \log_2(1 + r)}
              {S \sum_{r \le k} (1 - \alpha)^{r - 1} / \log_2(1 + r)}

    The novelty-biased DCG of :func:`alpha_ndcg`, divided by the DCG of a list whose
    every document is relevant to all S subtopics of the query (those with a relevant
    document): collection-independent. At k = 1 ndeval does not divide (its loop
    starts at rank 2), so neither does this: the value is the number of subtopics the
    first document covers. ``k=None``: the whole list. ir_measures' ``alpha_DCG@k``;
    trec_eval has no diversity metric.

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
        Redundancy intolerance in [0, 1] (0.5, as ndeval).
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
    >>> df.select(pr.alpha_dcg("rel", 2, subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌─────────────┐
    │ alpha_dcg@2 │
    │ ---         │
    │ f64         │
    ╞═════════════╡
    │ 0.880094    │
    └─────────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(alpha_dcg_value(r, cutoff(k), check_alpha(alpha)))
