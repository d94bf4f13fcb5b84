"""Expected reciprocal rank (Chapelle et al., CIKM 2009): the cascade of graded stops.

One implementation per variant of the list (``functools.singledispatch``): by parts over
the sorted gains for sort keys, the exact mean over tie orders for the tie-averaged
variants (:mod:`polars_rank.metrics._expected_err`), the cascade in rank order over
positions.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import SLICES_BY_MANY_OFFSETS, group_sum
from polars_rank._engine.expected import Expected
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import (
    TIES,
    UNSET,
    Ties,
    check_real,
)
from polars_rank._engine.positions import Positions
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._engine.terms import by_parts_weights
from polars_rank._language.metric_spec import (
    NO_EXPECTED,
    MetricSpec,
    Option,
)
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._expected_err import POLARS_1_ERR, expected_err

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["err"]


@functools.singledispatch
def err_value(r: Ranked, k: int | None = None, max_grade: float = 4) -> pl.Expr:
    """ERR@k of a ranked list (validated parameters)."""
    stop = (pl.lit(2.0).pow(r.ordered(r.gains(), k)) - 1.0) / 2.0 ** float(max_grade)
    return _dense_err(stop, r, k)


@err_value.register(Expected)
def _(r: Expected, k: int | None = None, max_grade: float = 4) -> pl.Expr:
    return expected_err(r, k, max_grade)


@err_value.register(Positions)
def _(r: Positions, k: int | None = None, max_grade: float = 4) -> pl.Expr:
    stop = (pl.lit(2.0).pow(r.ordered(r.gains(), k)) - 1.0) / 2.0 ** float(max_grade)
    reach = (1.0 - stop).cum_prod().shift(1, fill_value=1.0)
    contrib = stop * reach / r.positions(k).cast(pl.Float64)
    return group_sum(pl.when(r.retrieved(k)).then(contrib).otherwise(0.0))


def _dense_err(stop: pl.Expr, r: Ranked, k: int | None) -> pl.Expr:
    """ERR from the stopping probabilities of ranks 1, 2, ... naming ``stop`` once.

    ``stop * reach`` would name the ranked gains (a sort per list) twice. With
    C_p = prod_(q <= p) (1 - stop_q) and C_0 = 1, stop_p * reach_p = C_(p-1) - C_p, so
    over the m retrieved ranks within k, by parts (:func:`by_parts_weights`):
    ERR = 1 - sum_p C_p * w_p (0 when m = 0). Off the direct sum by a few ulps of 1.
    """
    m = pl.min_horizontal(r.n_retrieved().cast(pl.Int64), pl.len().cast(pl.Int64))
    if k is not None:
        m = pl.min_horizontal(m, pl.lit(k, pl.Int64))
    reached = group_sum((1.0 - stop).cum_prod() * by_parts_weights(k, m))
    return pl.when(m > 0).then(1.0 - reached).otherwise(0.0)


ERR = MetricSpec(
    "err",
    options=(Option("max_grade", float, 4, description="highest label"),),
    summary="expected reciprocal rank of a cascade user",
    paper="Chapelle, Metzler, Zhang & Grinspan, CIKM 2009",
    # Polars 1.x lacks the closed form's list.slice: "expected" is refused there, and
    # the order-free default is "pessimistic" (polars_rank/metrics/_expected_err.py)
    ties=TIES if SLICES_BY_MANY_OFFSETS else NO_EXPECTED,
    ties_note="" if SLICES_BY_MANY_OFFSETS else POLARS_1_ERR,
)
"""ERR's spec: ``max_grade`` is the one option a string sets."""


@shared_parameters
@metric(ERR)
def err(
    rel: IntoExpr,
    k: int | None = None,
    *,
    max_grade: float = 4,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009).

    A cascade user scans the list from the top and stops at rank r, satisfied, with
    probability :math:`R_r = (2^{l_r} - 1) / 2^{m}`, m = ``max_grade``:

    .. math:: \mathrm{ERR@k} = \sum_{r=1}^{k} \frac{1}{r} R_r \prod_{i<r} (1 - R_i)

    The default ``max_grade=4`` is gdeval's and ir_measures' (``ERR@k``); set it
    to your label scale. A label above ``max_grade`` makes the list NaN (use
    :func:`polars_rank.validate` to find it). trec_eval has no ERR.

    Parameters
    ----------
    rel
        Graded relevance label in [0, max_grade] (null = unjudged, 0).
    k
        Cutoff. ``None`` = the whole list.
    max_grade
        The highest possible label (>= 1).
    by
        Ranking key(s); see :func:`dcg`.
    rank
        ...
    doc
        ...
    descending
        ...
    query
        Column(s) identifying a query: the mean over queries.
    ties
        ``"first"`` (input order), ``"optimistic"`` or ``"pessimistic"`` (relevant rows
        first / last among ties), or ``"expected"``: the exact mean over every order
        of the tied rows (McSherry & Najork, ECIR 2008; ERR's form is derived in
        ``polars_rank/metrics/_expected_err.py``).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1); NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [2, 3, 0], "rank": [1, 2, 3]})
    >>> df.select(pr.err("rel", max_grade=3, by="rank", descending=False))
    shape: (1, 1)
    ┌──────────────────┐
    │ err(max_grade=3) │
    │ ---              │
    │ f64              │
    ╞══════════════════╡
    │ 0.6484375        │
    └──────────────────┘

    Tied, ``ties="expected"`` is the mean of 7/8 (the 3 first) and 7/16 (second):

    >>> tied = pl.DataFrame({"rel": [0, 3], "score": [1.0, 1.0]})
    >>> round(tied.select(pr.err("rel", max_grade=3, by="score", ties="expected")).item(), 12)
    0.65625
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    m = check_real(max_grade, "max_grade", low=1, allowed="a finite number >= 1")
    return r.finish(err_value(r, cutoff(k), m), r.bad(r.labels > m))
