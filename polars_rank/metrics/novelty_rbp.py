"""Novelty- and rank-biased precision over subtopics: NRBP and nNRBP.

RBP (Moffat & Zobel, TOIS 2008) over the novelty-discounted gains of
:mod:`polars_rank.metrics.novelty` (Clarke, Kolla & Vechtomova, ICTIR 2009), as ndeval
computes them (TREC Web track's diversity tool, version 4.5; src/ndeval.c at
seanmacavaney/pyndeval@acde21d, which ir_measures calls). The input is one row per
(document, subtopic): see :mod:`polars_rank.metrics._subtopics`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import safe_div
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec, Option
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._subtopics import (
    ALPHA,
    Intents,
    check_alpha,
    nrbp_depth,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from polars_rank._engine.params import IntentTies, IntoExpr, Query
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["nrbp", "nnrbp"]


def nrbp_value(r: Intents, alpha: float, beta: float) -> pl.Expr:
    """Ndeval's NRBP: (1 - (1 - alpha) beta) / S * sum of gain_r beta^(r-1)."""
    raw = r.rank_sum(r.novel_gain(alpha), lambda p: pl.lit(beta).pow(p - 1.0))
    return safe_div(raw * (1.0 - (1.0 - alpha) * beta), r.n_intents().cast(pl.Float64))


def nnrbp_value(r: Intents, alpha: float, beta: float) -> pl.Expr:
    """NRBP over the NRBP of ndeval's greedy ideal ranking."""
    raw = r.rank_sum(r.novel_gain(alpha), lambda p: pl.lit(beta).pow(p - 1.0))
    return safe_div(raw, r.ideal(alpha, nrbp_depth(beta), lambda t: beta ** (t - 1)))



BETA = Option("beta", float, 0.5, description="patience (ndeval's)")
"""NRBP's and NNRBP's beta."""


NRBP = MetricSpec(
    "nrbp",
    cutoff=False,
    options=(ALPHA, BETA, THRESHOLD),
    summary="novelty- and rank-biased precision",
    subtopics=True,
    paper="Clarke, Kolla & Vechtomova, ICTIR 2009",
)
"""NRBP's spec: intent-aware (rows per document and subtopic), no cutoff."""


@shared_parameters
@metric(NRBP)
def nrbp(
    rel: IntoExpr,
    *,
    subtopic: IntoExpr,
    doc: IntoExpr,
    by: IntoExpr | None = None,
    rank: IntoExpr | None = None,
    descending: bool = True,
    alpha: float = 0.5,
    beta: float = 0.5,
    threshold: float = 1,
    query: Query = None,
    ties: IntentTies = "ndeval",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Novelty- and rank-biased precision, ndeval's NRBP (Clarke, Kolla & Vechtomova, ICTIR 2009).

    .. math:: \frac{1 - (1 - \alpha)\beta}{S}
              \sum_r \beta^{r - 1} \sum_j l_{rj} (1 - \alpha)^{c_{rj}}

    RBP with patience ``beta`` over the novelty-discounted gains of the whole list,
    scaled so that a list relevant to every subtopic at every rank scores 1
    (collection-independent); 0 when nothing is relevant. ir_measures' ``NRBP``;
    trec_eval has no diversity metric.

    Parameters
    ----------
    rel
        The document's label for the row's subtopic (null = unjudged).
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
        Redundancy intolerance in [0, 1] (0.5).
    beta
        Patience in [0, 1]: the chance the user reads on (0.5, as ndeval).
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
    >>> df = pl.DataFrame({"docid": ["a", "a", "b"], "subtopic": [1, 2, 1],
    ...                    "rel": [1, 1, 1], "score": [3.0, 3.0, 2.0]})
    >>> df.select(pr.nrbp("rel", subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌─────────┐
    │ nrbp    │
    │ ---     │
    │ f64     │
    ╞═════════╡
    │ 0.84375 │
    └─────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(nrbp_value(r, check_alpha(alpha), check_alpha(beta, "beta")))


NNRBP = MetricSpec(
    "nnrbp",
    cutoff=False,
    options=(ALPHA, BETA, THRESHOLD),
    summary="NRBP / its greedy ideal",
    subtopics=True,
    paper="Clarke, Kolla & Vechtomova, ICTIR 2009",
)
"""NNRBP's spec: NRBP over its greedy ideal."""


@shared_parameters
@metric(NNRBP)
def nnrbp(
    rel: IntoExpr,
    *,
    subtopic: IntoExpr,
    doc: IntoExpr,
    by: IntoExpr | None = None,
    rank: IntoExpr | None = None,
    descending: bool = True,
    alpha: float = 0.5,
    beta: float = 0.5,
    threshold: float = 1,
    query: Query = None,
    ties: IntentTies = "ndeval",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Normalised NRBP, ndeval's nNRBP (Clarke, Kolla & Vechtomova, ICTIR 2009).

    .. math:: \frac{\sum_r \beta^{r - 1} \sum_j l_{rj} (1 - \alpha)^{c_{rj}}}
              {\text{the same for the greedy ideal ranking}}

    :func:`nrbp` over its value on ndeval's greedy ideal ranking (collection-
    dependent). The ideal is followed to the depth d where what it could still add,
    at most S beta^d / (1 - beta), is below 10^-12 of its value for up to 16
    subtopics (d = 45 for beta = 0.5; the expression grows with d, so beta close to
    1 is slow to plan: docs/performance.md, "Behind the code"). A list
    with nothing relevant scores 0, where ndeval divides 0 by 0 (NaN).
    ir_measures' ``nNRBP``; trec_eval has no diversity metric.

    Parameters
    ----------
    rel
        The document's label for the row's subtopic (null = unjudged).
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
        Redundancy intolerance in [0, 1] (0.5).
    beta
        Patience in [0, 1) (0.5).
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
    >>> df.select(pr.nnrbp("rel", subtopic="subtopic", doc="docid", by="score"))
    shape: (1, 1)
    ┌──────────┐
    │ nnrbp    │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.857143 │
    └──────────┘
    """
    r = Intents.build(rel, subtopic=subtopic, doc=doc, by=by, rank=rank, descending=descending,
                      ties=ties, query=query, threshold=threshold)
    return r.finish(nnrbp_value(r, check_alpha(alpha), check_alpha(beta, "beta")))
