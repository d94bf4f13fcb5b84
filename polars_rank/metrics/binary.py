"""Average precision and GMAP (and, re-exported, YAAP, reciprocal rank and hit rate).

A row is *relevant* when its label is >= ``threshold`` (default 1, trec_eval's
``-l``); unjudged rows (null label) never are. R, the number of relevant rows,
counts judged rows the ranking did not retrieve (null ``by``), as trec_eval does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import safe_div
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
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._language.metric_spec import (
    EMPTY_LIST,
    THRESHOLD,
    MetricSpec,
    Option,
    register,
)
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._expected_ap import expected_ap_over_hits
from polars_rank.metrics._precision_sum import precision_sum
from polars_rank.metrics.first_hit import hit_rate, reciprocal_rank
from polars_rank.metrics.sets import hits_value
from polars_rank.metrics.yaap import yaap

if TYPE_CHECKING:
    from collections.abc import Sequence

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
