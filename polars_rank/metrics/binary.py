"""Rank-sensitive binary metrics: average precision (GMAP, YAAP), reciprocal rank, hit rate.

A row is *relevant* when its label is >= ``threshold`` (default 1, trec_eval's
``-l``); unjudged rows (null label) never are. R, the number of relevant rows,
counts judged rows the ranking did not retrieve (null ``by``), as trec_eval does.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import group_sum, safe_div
from polars_rank._engine.expected import Expected
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import (
    DENOMINATORS,
    UNSET,
    Denominator,
    Empty,
    Ties,
    check_choice,
    check_threshold,
)
from polars_rank._engine.positions import Positions
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._engine.terms import by_parts_weights, reached, reciprocal
from polars_rank._language.metric_spec import (
    EMPTY_LIST,
    NO_EXPECTED,
    THRESHOLD,
    MetricSpec,
    Option,
    register,
)
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._expected_ap import expected_ap_over_hits, expected_precision_sum
from polars_rank.metrics.sets import hits_value

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["average_precision", "gm_map", "yaap", "reciprocal_rank", "hit_rate"]


def average_precision_value(r: Ranked, k: int | None = None, threshold: float = 1,
                            denominator: str = "relevant") -> pl.Expr:
    """AP@k of a ranked list (validated parameters).

    The sum of the precisions at the relevant ranks within k, divided by R (all
    relevant rows), min(R, k) (``"capped"``) or the relevant rows ranked within k
    (``"retrieved"``).
    """
    relevant = r.relevant(threshold)
    if denominator == "retrieved" and isinstance(r, Expected) and k is not None:
        return expected_ap_over_hits(r, relevant, k)  # the number of hits is random
    if denominator == "relevant":
        whole = r.n_relevant(threshold)
    elif denominator == "capped":
        whole = r.n_relevant(threshold)
        whole = whole if k is None else pl.min_horizontal(whole, pl.lit(float(k)))
    else:
        whole = hits_value(r, k, threshold)
    return safe_div(precision_sum(r, k, threshold), whole)


@functools.singledispatch
def precision_sum(r: Ranked, k: int | None, threshold: float) -> pl.Expr:
    """The sum of the precisions at the relevant ranks within k: AP's numerator, R x AP.

    Sort keys: by parts over the sorted hits. Under ``ties="expected"`` its exact mean
    over the orders of the tied rows; over positions trec_eval's sum.
    """
    return _dense_precision_sum(r.hits(k, threshold), k)


@precision_sum.register(Expected)
def _(r: Expected, k: int | None, threshold: float) -> pl.Expr:
    return expected_precision_sum(r, r.relevant(threshold), k)


@precision_sum.register(Positions)
def _(r: Positions, k: int | None, threshold: float) -> pl.Expr:
    if (so_far := r.prepared_precision_sum(threshold)) is not None:
        # the running sum below, computed once for every AP of the evaluation: at the
        # last retrieved row within k (it only grows down the list)
        return pl.when(r.within(k)).then(so_far).max().fill_null(0.0)
    # trec_eval's sum (m_map.c): i / rank_i at the i-th hit, added in rank order, so
    # that the printed digits are trec_eval's even at a half unit (AP = 23/32)
    hit = r.within(k) & (r.relevant(threshold) > 0)
    n_hits = hit.sum()  # counted before the sort (Ranked.ordered says why)
    ranks = r.sorted_ranks(r.rank.filter(hit)).cast(pl.Float64)
    terms = pl.int_range(1, n_hits + 1, dtype=pl.Int64).cast(pl.Float64) / ranks
    return terms.cum_sum().last().fill_null(0.0)


def yaap_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """YAAP@k of a ranked list (validated parameters): ln((1 + S) / (1 + R - S)).

    S is :func:`precision_sum`; 1 + R - S >= 1, since each of its terms is at most 1
    and there are at most R of them, so the logarithm is always defined. m_yaap.c
    computes ``log((1.0 + sum) / (1.0 + (double) num_rel - sum))``, and so does this.
    """
    total = precision_sum(r, k, threshold)
    return ((1.0 + total) / (1.0 + r.n_relevant(threshold) - total)).log()


def _dense_precision_sum(hits: pl.Expr, k: int | None) -> pl.Expr:
    """Sum over ranks p = 1..m of hits_p * z_p / p, z the running hit count, m rows.

    ``hits * hits.cum_sum()`` would name ``hits`` (the rank sort) twice. With 0/1 hits,
    hits_p * z_p = T(z_p) - T(z_(p-1)), T(z) = z(z + 1)/2, so the sum is taken by parts
    (:func:`by_parts_weights`, T(z_0) = 0). Every term is >= 0, so nothing cancels;
    T(z) is exact for z < 2^26.
    """
    triangle = ((hits.cum_sum() + 0.5).pow(2) - 0.25) * 0.5
    return group_sum(triangle * by_parts_weights(k, Ranked.depth(k)))


def reciprocal_rank_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """RR@k of a ranked list (validated parameters)."""
    return r.first_hit(r.relevant(threshold), k, reciprocal)


def hit_rate_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """Hit rate @k of a ranked list (validated parameters)."""
    return r.first_hit(r.relevant(threshold), k, reached)



AVERAGE_PRECISION = MetricSpec(
    "map",
    aliases=("ap", "average_precision", "map_cut"),
    options=(
        THRESHOLD,
        Option(
            "denominator",
            str,
            "relevant",
            DENOMINATORS,
            "R, min(R, k) or the relevant rows within k",
        ),
        EMPTY_LIST,
    ),
    trec_eval="map, map_cut.k",
    summary="(1/R) sum of P@r at relevant ranks r <= k",
    paper="Buckley & Voorhees, 2000",
    trec_cut=("map_cut",),
)
"""``map``'s spec: also ``ap``, ``average_precision``, ``map_cut``; trec_eval's ``map_cut_k``."""


@shared_parameters
@metric(AVERAGE_PRECISION)
def average_precision(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    denominator: Denominator = "relevant",
    empty: Empty = "zero",
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Average precision (AP; MAP with ``query=``), as trec_eval's ``map`` / ``map_cut.k``.

    .. math:: \mathrm{AP@k} = \frac{1}{R} \sum_{r \le k,\ l_r \ge t} \mathrm{P@r}

    R is the number of relevant rows of the list, retrieved or not and whatever the
    cutoff (trec_eval, ranx, ir_measures; ``denominator="relevant"``). 0 when R = 0.
    See Buckley & Voorhees, "Evaluating evaluation measure stability", SIGIR 2000.
    Other tools divide by min(R, k) (``denominator="capped"``: MS Recommenders'
    ``map_at_k``, recommenders/evaluation/python_evaluation.py; Spark's
    ``RankingMetrics.meanAveragePrecisionAt``) or by the relevant rows ranked within
    k, so that AP is the mean precision at the hits (``denominator="retrieved"``:
    torchmetrics' ``RetrievalMAP(top_k=)``,
    torchmetrics/functional/retrieval/average_precision.py).

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
    denominator
        ``"relevant"`` (R), ``"capped"`` (min(R, k)) or ``"retrieved"`` (the
        relevant rows ranked within k).
    empty
        ...
    query
        Column(s) identifying a query: the mean over queries (MAP).
    ties
        ...

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    Relevant, non-relevant, relevant, non-relevant, relevant:

    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 0, 1]})
    >>> df.select(pr.average_precision("rel", by=None))  # (1 + 2/3 + 3/5) / 3
    shape: (1, 1)
    ┌──────────┐
    │ map      │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.755556 │
    └──────────┘

    At k = 2 the precision sum is 1; R is 3, min(R, k) 2, and one relevant row is
    ranked within 2:

    >>> df.select(pr.map("rel", 2, by=None, denominator=d).alias(d)
    ...           for d in ("relevant", "capped", "retrieved"))
    shape: (1, 3)
    ┌──────────┬────────┬───────────┐
    │ relevant ┆ capped ┆ retrieved │
    │ ---      ┆ ---    ┆ ---       │
    │ f64      ┆ f64    ┆ f64       │
    ╞══════════╪════════╪═══════════╡
    │ 0.333333 ┆ 0.5    ┆ 1.0       │
    └──────────┴────────┴───────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = check_threshold(threshold)
    check_choice(denominator, "denominator", DENOMINATORS)
    return r.finish_empty(average_precision_value(r, cutoff(k), level, denominator), level, empty)


MAP_AVGJG = register(
    MetricSpec(
        "map_avgjg",
        function=average_precision,
        options=(THRESHOLD,),
        trec_eval="map_avgjg (-R qrels_jg: each judgment group's AP, averaged)",
        per_judgment_group="map",
        summary="AP against each judgment group of the qrels, averaged",
        paper="trec_eval 9.0, m_map_avgjg.c (Buckley, 2008)",
    )
)
"""``map_avgjg``'s spec: average_precision's function against each judgment group."""


GM_MAP = MetricSpec(
    "gm_map", aliases=("gmap",), options=(THRESHOLD,), trec_eval="gm_map",
    summary="AP, geometric mean over queries (floor 1e-5)", paper="Robertson, CIKM 2006",
    over_queries="geometric")
"""GMAP's spec: its geometric mean over queries, read by ``query=`` and ``evaluate()``."""


@shared_parameters
@metric(GM_MAP)
def gm_map(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Geometric mean average precision, trec_eval's ``gm_map``: AP, its geometric mean.

    .. math:: \mathrm{GMAP} = \exp\Big(\frac{1}{|Q|} \sum_q \ln \max(\mathrm{AP}_q, 10^{-5})\Big)

    Per list it is :func:`average_precision`; with ``query=`` the queries' values are
    floored at 1e-5 and averaged geometrically, as trec_eval does (Robertson, "On
    GMAP", CIKM 2006).

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
    >>> df = pl.DataFrame({"q": [1, 1, 2, 2], "rel": [1, 0, 0, 1]})
    >>> df.select(pr.gm_map("rel", by=None, query="q"))  # sqrt(1 * 0.5)
    shape: (1, 1)
    ┌──────────┐
    │ gm_map   │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.707107 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    value = average_precision_value(r, cutoff(k), check_threshold(threshold))
    return r.finish(value, summary=GM_MAP.over_queries)


def _yaap_stand_in(relevant: pl.Expr, _: Mapping[str, Any]) -> pl.Expr:
    """Yaap of a query the run lacks, under ``missing="zero"``: trec_eval's, not 0."""
    # m_yaap.c: ln((1 + S) / (1 + R - S)), S = 0
    out: pl.Expr = ((1.0 + 0.0) / (1.0 + relevant - 0.0)).log()
    return out


YAAP = MetricSpec(
    "yaap",
    aliases=("yet_another_average_precision",),
    options=(THRESHOLD,),
    trec_eval="yaap",
    summary="ln((1 + S) / (1 + R - S)), S = R x AP: AP smoothed",
    paper="Robertson, ECIR 2012",
    ties=NO_EXPECTED,
    ties_note="yaap has no closed form under ties='expected' (the logarithm of a ratio of "
              "the precision sum, not a sum over ranks)",
    absent=_yaap_stand_in,
    empty_value=True,
)
"""``yaap``'s spec: its own value for an empty list and for a query the run lacks."""


@shared_parameters
@metric(YAAP)
def yaap(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Yet another average precision (YAAP): AP smoothed on a log-odds scale, trec_eval's ``yaap``.

    .. math:: \mathrm{YAAP@k} = \ln \frac{1 + S}{1 + R - S}, \qquad
              S = \sum_{r \le k,\ l_r \ge t} \mathrm{P@r} = R \cdot \mathrm{AP@k}

    S is the sum of the precisions at the relevant ranks (AP before its division by R,
    the number of relevant rows, retrieved or not). YAAP grows with AP on one query
    (R fixed) but spreads its extremes, so that a mean over queries is less dominated
    by the queries scoring near 0 or 1: Robertson's smoothed AP, "On Smoothing
    Average Precision", ECIR 2012 (LNCS 7224, pp. 158-169), as trec_eval 10 computes
    it (m_yaap.c). 0 for a list without relevant rows; ln(1 / (1 + R)) when none is
    retrieved, the value ``missing="zero"`` (``trec_eval -c``) gives a judged query
    the run lacks. Values are in [-ln(1 + R), ln(1 + R)], negative below AP = 1/2.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff of the sum S (R counts every relevant row). ``None`` = the whole ranked
        list, as trec_eval's ``yaap``.
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
    query
        Column(s) identifying a query: the mean over queries.
    ties
        ... The exact mean over tie orders (``"expected"``) has no closed form here:
        asked for by name it raises; as the default (no ``ties``, no ``doc``) it
        becomes ``"pessimistic"``.

    Returns
    -------
    pl.Expr
        Float64; NaN for a list that cannot be scored.

    Examples
    --------
    Relevant, non-relevant, relevant, and one relevant row never retrieved: S = 1 +
    2/3, R = 3.

    >>> import math
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [3.0, 2.0, 1.0, None]})
    >>> df.select(pr.yaap("rel", by="score", ties="first"))
    shape: (1, 1)
    ┌──────────┐
    │ yaap     │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.133531 │
    └──────────┘
    >>> round(math.log((1 + 5 / 3) / (1 + 3 - 5 / 3)), 6)
    0.133531
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(yaap_value(r, cutoff(k), check_threshold(threshold)))


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
