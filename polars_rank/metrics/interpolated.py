"""Interpolated precision at recall levels: trec_eval's iprec_at_recall and 11pt_avg.

The interpolated precision at recall x is the best precision at any rank where recall
is at least x (Manning, Raghavan & Schütze, *Introduction to IR*, 2008, 8.4). As
trec_eval 10 (m_iprec_at_recall.c:70-99), x becomes a number of relevant rows
c = round(x R), half away from zero; the value is the best precision at or after the
c-th relevant row (the first, when c = 0), 0 when fewer than c were retrieved or R = 0.
Precision only rises at a relevant row, so that best is a maximum over relevant rows.
``rounding="trec_eval9"`` gives trec_eval 9's c = (long)(x R + 0.9) (m_iprec_at_recall.c
at usnistgov/trec_eval dc0c991), which pytrec_eval computes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias

import polars as pl

from polars_rank._engine.compat import per_list
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_choice, check_real, check_threshold
from polars_rank._engine.positions import Positions
from polars_rank._language.metric_spec import NO_EXPECTED, THRESHOLD, MetricSpec, Option
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._engine.ranked import Ranked
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["iprec_at_recall", "eleven_point_average"]

ELEVEN_POINTS = tuple(i / 10 for i in range(11))
"""trec_eval's default recall levels, 0.0, 0.1, ..., 1.0."""

Rounding: TypeAlias = Literal["nearest", "trec_eval9"]
ROUNDINGS = ("nearest", "trec_eval9")
"""How x R becomes a number of relevant rows: trec_eval 10's lround, or 9's."""


ROUNDING = Option("rounding", str, "nearest", ROUNDINGS,
                  "recall x as relevant rows: round(x R) as trec_eval 10, or "
                  "(long)(x R + 0.9) as trec_eval 9 and pytrec_eval")
"""How a recall level becomes a count of relevant rows (ir_measures' dialect: trec_eval 9's)."""


@functools.singledispatch
def _relevant_ranks(r: Ranked, threshold: float) -> pl.Expr:
    """The ranks of the relevant retrieved rows, ascending."""
    return r.positions().filter(r.hits(None, threshold) > 0).cast(pl.Float64)


@_relevant_ranks.register(Positions)
def _(r: Positions, threshold: float) -> pl.Expr:
    inside = r.within(None) & (r.relevant(threshold) > 0)
    return r.sorted_ranks(r.rank.filter(inside)).cast(pl.Float64)


def iprec_at_recall_value(r: Ranked, recall: float, threshold: float = 1,
                          rounding: str = "nearest") -> pl.Expr:
    """Interpolated precision at ``recall`` of a ranked list (validated parameters)."""
    wanted = r.n_relevant_by_row(threshold) * recall
    found, precision = r.prepared_hits(threshold), r.prepared_precision(threshold)
    if found is not None and precision is not None:  # on every row: no list's c to broadcast
        # the i-th relevant row counts when c <= i, that is wanted < i + 1/2 (nearest:
        # wanted - floor(wanted) is exact) or wanted + 0.9 < i + 1 (trec_eval 9)
        counts = (wanted + 0.9 < found + 1.0) if rounding == "trec_eval9" else (
            wanted < found + 0.5)
        return pl.when(counts).then(precision).max().fill_null(0.0)
    if rounding == "trec_eval9":
        c = (wanted + 0.9).floor()  # (long) (x * R + 0.9), x R >= 0
    else:
        c = wanted.floor() + (wanted - wanted.floor() >= 0.5).cast(pl.Float64)  # C's lround
    least = pl.max_horizontal(c, pl.lit(1.0))
    ranks = _relevant_ranks(r, threshold)
    found = pl.int_range(1, ranks.len() + 1, dtype=pl.Int64).cast(pl.Float64)
    best = (found / ranks).filter(found >= least).max()
    return best.fill_null(0.0)


IPREC_NOTE = ("iprec_at_recall has no closed form under ties='expected' (a maximum over "
              "ranks)")

IPREC_AT_RECALL = MetricSpec(
    "iprec_at_recall",
    aliases=("iprec",),
    cutoff=False,
    options=(Option("recall", float, 0.0, description="recall level"), THRESHOLD, ROUNDING),
    at="recall",
    trec_eval="iprec_at_recall_x",
    ties=NO_EXPECTED,
    ties_note=IPREC_NOTE,
    summary="best precision at recall >= x",
    paper="Manning, Raghavan & Schütze, Introduction to IR, 2008, 8.4",
)
"""``iprec_at_recall``'s spec: ``@x`` sets the recall (``IPrec@0.5``, ``iprec_at_recall_0.50``)."""


@shared_parameters
@metric(IPREC_AT_RECALL)
def iprec_at_recall(
    rel: IntoExpr,
    recall: float = 0.0,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    rounding: Rounding = "nearest",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Interpolated precision at a recall level, trec_eval's ``iprec_at_recall_x``.

    .. math:: \mathrm{iprec}(x) = \max_{i \ge \max(1, c)} \frac{i}{r_i},\quad
        c = \mathrm{round}(x R)

    with :math:`r_i` the rank of the i-th relevant row retrieved; 0 when fewer than
    c relevant rows were retrieved. trec_eval 10 rounds c half away from zero;
    trec_eval 9 (and pytrec_eval) took (long)(x R + 0.9), up from a tenth:
    ``rounding="trec_eval9"``. 11-point averages are the mean of
    the eleven levels 0.0, 0.1, ..., 1.0 (Manning, Raghavan & Schütze, 2008, 8.4).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    recall
        The recall level x, in [0, 1].
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
    rounding
        How x R becomes a number c of relevant rows: ``"nearest"`` (trec_eval 10,
        half away from zero) or ``"trec_eval9"`` (trec_eval 9 and pytrec_eval:
        (long)(x R + 0.9)).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [0, 1, 0, 1], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.iprec_at_recall("rel", 0.5, by="score").alias("at 0.5"),
    ...           pr.iprec_at_recall("rel", 1.0, by="score").alias("at 1.0"))
    shape: (1, 2)
    ┌────────┬────────┐
    │ at 0.5 ┆ at 1.0 │
    │ ---    ┆ ---    │
    │ f64    ┆ f64    │
    ╞════════╪════════╡
    │ 0.5    ┆ 0.5    │
    └────────┴────────┘

    Three relevant rows, recall 0.4: trec_eval 10 asks for round(1.2) = 1 of them,
    trec_eval 9 for 2:

    >>> df = pl.DataFrame({"rel": [1, 0, 1, 0, 1], "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.iprec_at_recall("rel", 0.4, by="score").alias("10"),
    ...           pr.iprec_at_recall("rel", 0.4, by="score", rounding="trec_eval9").alias("9"))
    shape: (1, 2)
    ┌─────┬──────────┐
    │ 10  ┆ 9        │
    │ --- ┆ ---      │
    │ f64 ┆ f64      │
    ╞═════╪══════════╡
    │ 1.0 ┆ 0.666667 │
    └─────┴──────────┘
    """
    level = check_real(recall, "recall", low=0, high=1, allowed="a recall level in [0, 1]")
    how = check_choice(rounding, "rounding", ROUNDINGS)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(iprec_at_recall_value(r, level, check_threshold(threshold), how))


ELEVEN_POINT_AVERAGE = MetricSpec(
    "11pt_avg",
    aliases=("eleven_point_average",),
    cutoff=False,
    ties=NO_EXPECTED,
    ties_note=IPREC_NOTE,
    options=(
        Option("levels", tuple, ELEVEN_POINTS, description="recall levels, [0.2,0.5,0.8]"),
        THRESHOLD,
        ROUNDING,
    ),
    trec_eval="11pt_avg, 11pt_avg.x,y,...",
    summary="mean interpolated precision at recall 0, 0.1, ..., 1",
    paper="Manning, Raghavan & Schütze, Introduction to IR, 2008, 8.4",
)
"""``11pt_avg``'s spec: its recall levels a string may set (``11pt_avg.0.2,0.5,0.8``)."""


@shared_parameters
@metric(ELEVEN_POINT_AVERAGE)
def eleven_point_average(
    rel: IntoExpr,
    *,
    levels: Sequence[float] = ELEVEN_POINTS,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    rounding: Rounding = "nearest",
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""11-point interpolated average precision, trec_eval's ``11pt_avg``.

    .. math:: \frac{1}{11} \sum_{x \in \{0, 0.1, \ldots, 1\}} \mathrm{iprec}(x)

    The mean of :func:`iprec_at_recall` at the eleven recall levels (Manning,
    Raghavan & Schütze, *Introduction to IR*, 2008, 8.4; trec_eval's m_11pt_avg.c),
    or at the ``levels`` given: trec_eval's ``-m 11pt_avg.0.2,0.5,0.8`` is the 3-point
    average of trec_eval 8 (``levels=(0.2, 0.5, 0.8)``). A level above 1 scores 0, a
    level at or below 0 the best precision at a relevant row, as in trec_eval.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    levels
        The recall levels averaged (finite numbers, at least one; a level given twice
        counts twice).
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
    rounding
        How x R becomes a number c of relevant rows: ``"nearest"`` (trec_eval 10,
        half away from zero) or ``"trec_eval9"`` (trec_eval 9 and pytrec_eval:
        (long)(x R + 0.9)).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 0, 1], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.eleven_point_average("rel", by="score"))  # (8 x 1 + 3 x 1/2) / 11
    shape: (1, 1)
    ┌──────────┐
    │ 11pt_avg │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.863636 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    t = check_threshold(threshold)
    how = check_choice(rounding, "rounding", ROUNDINGS)
    points = check_levels(levels)
    # added one by one from the last level down, as m_11pt_avg.c adds them (another
    # order, or sum_horizontal's, can move the last bit, and a printed digit at a half
    # unit)
    total = pl.lit(0.0)
    for x in reversed(points):
        total = total + iprec_at_recall_value(r, x, t, how)
    return r.finish(total / per_list(len(points)))


def check_levels(levels: object) -> tuple[float, ...]:
    """``levels`` as a tuple of finite numbers (at least one), or raise."""
    allowed = "a non-empty sequence of finite recall levels"
    if isinstance(levels, str) or not isinstance(levels, Sequence):
        msg = f"levels must be {allowed}, got {levels!r}"
        raise TypeError(msg)
    if not levels:
        msg = f"levels must be {allowed}, got {levels!r}"
        raise ValueError(msg)
    return tuple(check_real(x, "levels", allowed=allowed) for x in levels)
