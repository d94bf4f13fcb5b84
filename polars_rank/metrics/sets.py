"""Set-based binary metrics: precision, recall and F1 at a cutoff, R-precision.

They count the relevant rows in the top k (or the top R) without regard to their order
there (Manning, Raghavan & Schütze, *Introduction to IR*, 2008, 8.3-8.4). A row is
*relevant* when its label is >= ``threshold`` (default 1, trec_eval's ``-l``);
unjudged rows (null label) never are. R counts judged rows the ranking did not
retrieve (null ``by``), as trec_eval does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import per_list, safe_div
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Empty, Ties, check_real, check_threshold
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._engine.terms import count
from polars_rank._language.metric_spec import EMPTY_LIST, THRESHOLD, MetricSpec, Option, register
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.r_precision import r_precision

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["precision", "recall", "f1", "r_precision"]


def hits_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """Relevant rows within the top k (all retrieved rows without k)."""
    return r.rank_sum(r.relevant(threshold), k, term_sum=count)


def precision_value(r: Ranked, k: int | None = None, threshold: float = 1,
                    adaptive_k: bool = False) -> pl.Expr:
    """P@k of a ranked list (validated parameters); ``adaptive_k``: over min(k, n)."""
    n_ret = r.n_retrieved().cast(pl.Float64)
    if k is None:
        denominator = n_ret
    elif adaptive_k:
        denominator = pl.min_horizontal(n_ret, per_list(k))
    else:
        denominator = per_list(k)
    return safe_div(hits_value(r, k, threshold), denominator)


def recall_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """Recall@k of a ranked list (validated parameters)."""
    return safe_div(hits_value(r, k, threshold), r.n_relevant(threshold))


def f1_value(r: Ranked, k: int | None = None, threshold: float = 1,
             beta: float = 1.0) -> pl.Expr:
    """F@k of a ranked list, recall weighted ``beta`` (validated parameters)."""
    p, rc = precision_value(r, k, threshold), recall_value(r, k, threshold)
    return safe_div((beta + 1.0) * p * rc, beta * p + rc)  # as m_set_F.c computes it


PRECISION = MetricSpec(
    "p", aliases=("precision",),
    options=(THRESHOLD, Option("adaptive_k", bool, False,
                               description="divide by min(k, rows retrieved)"), EMPTY_LIST),
    trec_eval="P.k", trec_cut=("p",), spellings={"set_p": {}, "setp": {}},
    summary="relevant in the top k / k",
    paper="Manning, Raghavan & Schütze, Introduction to IR, 2008, 8.4")
"""P@k's spec: trec_eval's ``P_10`` / ``P.10`` and ``set_P``, ir_measures' ``P@10``,
``SetP``."""


@shared_parameters
@metric(PRECISION)
def precision(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    adaptive_k: bool = False,
    empty: Empty = "zero",
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Precision at k: relevant rows among the top k, divided by k.

    .. math:: \mathrm{P@k} = \frac{|\{r \le k : l_r \ge t\}|}{k}

    As trec_eval's ``P.k``, it divides by k even when fewer than k rows were
    retrieved (the missing ones count as non-relevant). With ``k=None`` it divides by
    the number of retrieved rows, and so does ``adaptive_k=True`` when fewer than k
    were retrieved: min(k, n), torchmetrics' ``RetrievalPrecision(adaptive_k=True)``
    (torchmetrics/functional/retrieval/precision.py). See Manning, Raghavan &
    Schütze, *Introduction to Information Retrieval*, 2008, 8.4.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff. ``None`` = the whole ranked list.
    by
        ...
    rank
        ...
    doc
        ...
    descending
        ...
    threshold
        ...
    adaptive_k
        Divide by min(k, rows retrieved) instead of k.
    empty
        ...
    query
        ...
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
    >>> df = pl.DataFrame({"rel": [1, 0, 1], "score": [3.0, 2.0, 1.0]})
    >>> df.select(p2=pr.precision("rel", 2, by="score"), p10=pr.precision("rel", 10, by="score"))
    shape: (1, 2)
    ┌─────┬─────┐
    │ p2  ┆ p10 │
    │ --- ┆ --- │
    │ f64 ┆ f64 │
    ╞═════╪═════╡
    │ 0.5 ┆ 0.2 │
    └─────┴─────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = check_threshold(threshold)
    if not isinstance(adaptive_k, bool):
        msg = f"adaptive_k must be True or False, got {adaptive_k!r}"
        raise TypeError(msg)
    return r.finish_empty(precision_value(r, cutoff(k), level, adaptive_k), level, empty)


P_AVGJG = register(
    MetricSpec(
        "p_avgjg",
        function=precision,
        options=(THRESHOLD,),
        trec_eval="P_avgjg.k (-R qrels_jg: each judgment group's P@k, averaged)",
        per_judgment_group="p",
        summary="P@k against each judgment group of the qrels, averaged",
        paper="trec_eval 9.0, m_P_avgjg.c (Buckley, 2008)",
        trec_cut=("p_avgjg",),
    )
)
"""``p_avgjg``'s spec: precision's function against each judgment group (``P_avgjg_k``)."""


RECALL = MetricSpec(
    "recall",
    aliases=("r",),
    options=(THRESHOLD, EMPTY_LIST),
    trec_eval="recall.k",
    summary="relevant in the top k / R",
    paper="Manning, Raghavan & Schütze, Introduction to IR, 2008, 8.4",
    spellings={"set_recall": {}, "setr": {}},
    trec_cut=("recall",),
)
"""Recall's spec: trec_eval's ``recall_k`` and ``set_recall``, ir_measures' ``R@k``, ``SetR``."""


@shared_parameters
@metric(RECALL)
def recall(
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
    r"""Recall at k: relevant rows among the top k, divided by all relevant rows (R).

    .. math:: \mathrm{R@k} = \frac{|\{r \le k : l_r \ge t\}|}{R}

    R counts relevant rows the ranking did not retrieve (null ``by``); 0 when R = 0,
    as trec_eval's ``recall.k``. See Manning, Raghavan & Schütze, *Introduction to
    Information Retrieval*, 2008, 8.3-8.4.

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
        ...
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
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [3.0, 2.0, 1.0, None]})
    >>> df.select(pr.recall("rel", 2, by="score"))
    shape: (1, 1)
    ┌──────────┐
    │ recall@2 │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.333333 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = check_threshold(threshold)
    return r.finish_empty(recall_value(r, cutoff(k), level), level, empty)


F1 = MetricSpec(
    "f1",
    options=(
        THRESHOLD,
        Option("beta", float, 1, description="recall's weight (trec_eval's x)"),
    ),
    summary="(1 + beta) P R / (beta P + R) of P@k and recall@k",
    paper="van Rijsbergen, Information Retrieval, 1979",
    spellings={"set_f": {}, "setf": {}},
)
"""F1's spec: trec_eval's ``set_F``, ir_measures' ``SetF``."""


@shared_parameters
@metric(F1)
def f1(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    beta: float = 1.0,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""F1 at k: the harmonic mean of :func:`precision` @k and :func:`recall` @k.

    .. math:: F_1\mathrm{@k} = \frac{2 \, P@k \, R@k}{P@k + R@k},\quad
        F_x\mathrm{@k} = \frac{(1 + x) \, P@k \, R@k}{x \, P@k + R@k}

    0 when both are 0 (ranx ``f1@k``). Without k it is trec_eval's ``set_F`` and
    ir_measures' ``SetF``. ``beta`` is their x, "the relative importance of R to P"
    (trec_eval 10.0, m_set_F.c; ir_measures' ``SetF(beta=x)``), which is the square
    of van Rijsbergen's and scikit-learn's beta: ``fbeta_score(beta=2)`` is
    ``beta=4`` here (van Rijsbergen, *Information Retrieval*, 1979, ch. 7).

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
    beta
        x, the weight of recall against precision (trec_eval's and ir_measures'
        beta; the square of the textbook beta), a positive number.
    query
        ...
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
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [3.0, 2.0, 1.0, None]})
    >>> df.select(pr.f1("rel", 2, by="score"))
    shape: (1, 1)
    ┌──────┐
    │ f1@2 │
    │ ---  │
    │ f64  │
    ╞══════╡
    │ 0.4  │
    └──────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    weight = check_real(beta, "beta", low=0, low_open=True, allowed="a positive number")
    return r.finish(f1_value(r, cutoff(k), check_threshold(threshold), weight))
