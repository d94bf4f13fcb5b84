"""Precision relative to R: trec_eval's relative_P, set_relative_P, Rprec_mult, set_map.

R-precision (:func:`polars_rank.r_precision`) reads the top R rows; these read the top
k rows against min(k, R), the top multiple of R, or the retrieved set as a whole
(trec_eval 10.0: m_rel_P.c, m_set_rel_P.c, m_Rprec_mult.c, m_set_map.c). A row is
relevant when its label is >= ``threshold``; R counts unretrieved relevant rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import safe_div
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_real, check_threshold
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec, Option, register
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.r_precision import relevant_within
from polars_rank.metrics.sets import hits_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["relative_precision", "r_precision_multiple", "set_map"]


MULTIPLE = Option("multiple", float, 1.0, description="x: depth x R")
"""Rprec_mult's x (its ``@x``): the depth, x R."""


def relative_precision_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """Relevant rows in the top k over min(k, R) (k = the list's length without k)."""
    found = hits_value(r, k, threshold)
    shown = r.n_retrieved().cast(pl.Float64) if k is None else pl.lit(float(k))
    return safe_div(found, pl.min_horizontal(shown, r.n_relevant(threshold)))


def r_precision_multiple_value(r: Ranked, multiple: float, threshold: float = 1) -> pl.Expr:
    """P at depth (long)(multiple * R + 0.9), 0 at depth 0 (m_Rprec_mult.c:66)."""
    def depth(n_relevant: pl.Expr) -> pl.Expr:
        return (n_relevant * multiple + 0.9).floor()

    found = relevant_within(r, depth(r.n_relevant_by_row(threshold)), threshold)
    return safe_div(found, depth(r.n_relevant(threshold)))


def set_map_value(r: Ranked, threshold: float = 1) -> pl.Expr:
    """Relevant retrieved squared over (retrieved x R): set precision times set recall."""
    found = hits_value(r, None, threshold)
    return safe_div(found * found, r.n_retrieved().cast(pl.Float64) * r.n_relevant(threshold))


RELATIVE_PRECISION = MetricSpec(
    "relative_p",
    aliases=("relative_precision",),
    options=(THRESHOLD,),
    trec_eval="relative_P.k, set_relative_P",
    summary="relevant in the top k / min(k, R)",
    paper="Buckley & Voorhees, SIGIR 2000",
    spellings={"set_relative_p": {}, "setrelp": {}},
    trec_cut=("relative_p",),
)
"""``relative_p``'s spec: trec_eval's ``relative_P_k`` and ``set_relative_P``, ir_measures'
``SetRelP``."""


@shared_parameters
@metric(RELATIVE_PRECISION)
def relative_precision(
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
    r"""Relative precision at k, trec_eval's ``relative_P.k`` (``set_relative_P`` without k).

    .. math:: \frac{|\{r \le k : l_r \ge t\}|}{\min(k, R)}

    Precision that a perfect ranking can reach at any k: 1 when the top k holds as
    many relevant rows as it can. Without k, k is the number retrieved. 0 when R = 0
    (trec_eval 10.0, m_rel_P.c; Buckley & Voorhees, SIGIR 2000).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff. ``None`` = the whole ranked list (``set_relative_P``).
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
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 0], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.relative_precision("rel", 3, by="score"))  # 2 / min(3, 2)
    shape: (1, 1)
    ┌──────────────┐
    │ relative_p@3 │
    │ ---          │
    │ f64          │
    ╞══════════════╡
    │ 1.0          │
    └──────────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(relative_precision_value(r, cutoff(k), check_threshold(threshold)))


R_PRECISION_MULTIPLE = MetricSpec(
    "rprec_mult",
    aliases=("r_precision_multiple",),
    cutoff=False,
    at="multiple",
    options=(MULTIPLE, THRESHOLD),
    trec_eval="Rprec_mult_x",
    summary="precision at depth x R (rounded up)",
    paper="Buckley & Voorhees, SIGIR 2000",
)
"""``rprec_mult``'s spec: ``@x`` sets its multiple (trec_eval's ``Rprec_mult_x``)."""


@shared_parameters
@metric(R_PRECISION_MULTIPLE)
def r_precision_multiple(
    rel: IntoExpr,
    multiple: float = 1.0,
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
    r"""Precision at a multiple of R, trec_eval's ``Rprec_mult_x``.

    .. math:: \mathrm{P@}d,\quad d = \lfloor x R + 0.9 \rfloor

    The depth rounds as trec_eval 10.0 does (m_Rprec_mult.c:66; its recall levels
    round otherwise); missing ranks count as non-relevant, and a depth of 0 gives 0.
    ``multiple=1`` is R-precision for R >= 1 (Buckley & Voorhees, SIGIR 2000).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    multiple
        x, a positive number (trec_eval's defaults: 0.2, 0.4, ..., 2.0).
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
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 0], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.r_precision_multiple("rel", 2.0, by="score"))  # P@4
    shape: (1, 1)
    ┌──────────────┐
    │ rprec_mult@2 │
    │ ---          │
    │ f64          │
    ╞══════════════╡
    │ 0.5          │
    └──────────────┘
    """
    x = check_real(multiple, "multiple", low=0, low_open=True, allowed="a positive number")
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(r_precision_multiple_value(r, x, check_threshold(threshold)))


R_PRECISION_MULTIPLE_AVGJG = register(
    MetricSpec(
        "rprec_mult_avgjg",
        function=r_precision_multiple,
        cutoff=False,
        at="multiple",
        options=(MULTIPLE, THRESHOLD),
        trec_eval="Rprec_mult_avgjg_x (-R qrels_jg: each judgment group's "
        "Rprec_mult_x, averaged)",
        per_judgment_group="rprec_mult",
        summary="precision at depth x R against each judgment group, averaged",
        paper="trec_eval 9.0, m_Rprec_mult_avgjg.c (Buckley, 2008)",
    )
)
"""``rprec_mult_avgjg``'s spec: rprec_mult's function, against each judgment group."""


SET_MAP = MetricSpec(
    "set_map",
    aliases=("setap",),
    cutoff=False,
    options=(THRESHOLD,),
    trec_eval="set_map",
    summary="set precision x set recall",
    paper="Manning, Raghavan & Schütze, Introduction to IR, 2008, 8.3",
)
"""``set_map``'s spec: also ``setap``."""


@shared_parameters
@metric(SET_MAP)
def set_map(
    rel: IntoExpr,
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
    r"""Set MAP, trec_eval's ``set_map``: set precision times set recall.

    .. math:: \frac{|\mathrm{rel} \cap \mathrm{ret}|^2}{|\mathrm{ret}|\, R}

    The retrieved rows as an unordered set; 0 when nothing was retrieved or R = 0
    (trec_eval 10.0, m_set_map.c; Manning, Raghavan & Schütze, 2008, 8.3).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
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
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 0], "score": [4.0, 3.0, None, 1.0]})
    >>> df.select(pr.set_map("rel", by="score"))  # 1^2 / (3 x 2)
    shape: (1, 1)
    ┌──────────┐
    │ set_map  │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.166667 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(set_map_value(r, check_threshold(threshold)))
