"""Rank-biased precision: a user who reads on with probability p (Moffat & Zobel, 2008).

Tools spell it ``rbp`` for different numbers: ir_measures' ``RBP(rel=1)`` (p = 0.8,
binary relevance), trec_eval 10's ``rbp`` (p = 0.9, graded: labels over the list's
largest) and ranx's ``rbp.95`` (graded: the raw label). :func:`rbp` computes all
three (``gain=``); the metric string ``rbp`` is the first, ``dialect="trec_eval"``
the second, ``dialect="ranx"`` (and ranx's own spelling ``rbp.95``) the third.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.expected import Expected
from polars_rank._engine.gain_table import check_gains, gain_of
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_choice, check_real, check_threshold
from polars_rank._engine.positions import Positions
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._engine.terms import count
from polars_rank._language.metric_spec import GAIN_TABLE, THRESHOLD, MetricSpec, Option
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.incomplete import check_unjudged_order

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.gain_table import GainTable
    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["rbp", "rbp_residual"]

RBP_GAINS = ("binary", "graded", "raw")


def _discount(p: float) -> tuple[Callable[[pl.Expr, pl.Expr], pl.Expr],
                                  Callable[[pl.Expr, pl.Expr], pl.Expr]]:
    """RBP's term at a rank, value x p^(rank - 1), and its sum over ranks lo..hi."""
    def term(value: pl.Expr, rank: pl.Expr) -> pl.Expr:
        return value * pl.lit(float(p)).pow(rank - 1)

    def term_sum(lo: pl.Expr, hi: pl.Expr) -> pl.Expr:  # p^(lo-1) + ... + p^(hi-1)
        return (pl.lit(float(p)).pow(lo - 1) - pl.lit(float(p)).pow(hi)) / (1.0 - p)

    return term, term_sum


def _table_gains(r: Ranked, gains: GainTable) -> pl.Expr:
    """Each row's gain under trec_eval 10's ``-m rbp.1=3,2=9`` (m_rbp.c:66-83).

    gain_init.c gives each label 0..L (L: the list's largest) its own value unless
    the table lists it, and adds every table entry; m_rbp.c then rescales the gains
    to [0, 1], (g - lo) / (hi - lo), when one is below 0 or above 1, lo and hi being
    the smallest and largest of them and 0 (the C code leaves its min and max
    uninitialised; they start at 0 in the binary built from NIST's source). Unjudged
    rows gain 0.
    """
    listed = [float(label) for label in gains]
    top = r.labels.max()
    # the largest label <= L the table does not list: one of L, L - 1, ..., L - len(table)
    unlisted = pl.coalesce([
        pl.when((top - j >= 0) & ~(top - j).is_in(listed)).then(top - j)
        for j in range(len(listed) + 1)
    ])
    lo = min(0.0, *gains.values())
    hi = pl.max_horizontal(pl.lit(max(0.0, *gains.values())), unlisted.fill_null(0.0))
    g = gain_of(r.labels, r.labels.cast(pl.Float64), gains)
    scaled = (g - lo) / _per_row(hi - lo, g)
    rescaled = scaled if lo < 0 else pl.when(hi > 1.0).then(scaled).otherwise(g)
    return pl.when(r.labels.is_null()).then(0.0).otherwise(rescaled)


def _powers(p: float, n: pl.Expr) -> pl.Expr:
    """[1, p, p p, ..., p^n]: the powers as m_rbp.c's ``cur_p``, one product at a time.

    ``p ** i`` (``pow``) is at times a bit away from the product, which the printed
    digits of trec_eval show at a half unit.
    """
    return pl.lit(1.0).append((pl.int_range(0, n).cast(pl.Float64) * 0.0 + p).cum_prod())


@functools.cache
def _power_table(p: float, longest: int) -> pl.Series:
    """:func:`_powers` up to p^longest, computed once (the same products, in order)."""
    return pl.select(_powers(p, pl.lit(longest, pl.Int64))).to_series()


def _powers_at(r: Positions, p: float, at: pl.Expr) -> pl.Expr:
    """p^at (``at`` = 0, 1, ... up to the list's length), each as :func:`_powers` has it.

    A table built once when the longest list is known (evaluate(): lists of 1000 built
    their tables, one each, in most of ``rbp_resid``'s time), else each list's own.
    """
    if r.longest:
        return pl.lit(_power_table(p, r.longest)).gather(at)
    return _powers(p, r.n_retrieved()).gather(at)


def _in_rank_order(r: Positions, gains: pl.Expr, p: float, k: int | None) -> pl.Expr:
    """Sum of gain x p^(rank - 1) over the rows within k: a term per non-zero gain, rank order."""
    take = r.within(k) & (gains != 0)
    ranks = r.rank.filter(take)
    terms = r.in_rank_order(gains.filter(take), ranks) * _powers_at(
        r, p, r.sorted_ranks(ranks).cast(pl.Int64) - 1)
    return terms.cum_sum().last().fill_null(0.0)


def _per_row(whole: pl.Expr, like: pl.Expr) -> pl.Expr:
    """A list's scalar as a column as long as ``like``.

    Polars divides a column by a scalar through its reciprocal, at times a bit away
    from the quotient C computes.
    """
    return whole + like * 0.0


def _rbp_sums(r: Ranked, p: float = 0.8, k: int | None = None, threshold: float = 1,
              gain: str = "binary", gains: GainTable | None = None) -> pl.Expr:
    """RBP of a ranked list (validated parameters), as sums over ranks."""
    term, term_sum = _discount(p)
    if gains:  # graded only (checked by rbp())
        g = _table_gains(r, gains)
        r = r.by_gain(g)  # ties="optimistic": the table's order, not the labels'
        return (1.0 - p) * r.rank_sum(g, k, term, term_sum).fill_null(0.0)
    if gain == "graded":  # trec_eval 10 (m_rbp.c:66-83): labels over the list's largest
        # RBP is linear in the gains: divide the sum, not the rows. A row value divided
        # by its list's maximum, then ranked, took other lists' rows on Polars 1.36
        labels = r.labels.fill_null(0.0)
        total = r.rank_sum(labels, k, term, term_sum) / r.labels.max().clip(lower_bound=1.0)
        return (1.0 - p) * total.fill_null(0.0)
    if gain == "raw":  # ranx (rank_biased_precision.py): the label itself, >= threshold
        raw = pl.when(r.labels >= threshold).then(r.labels).otherwise(0.0)  # null: 0
        return (1.0 - p) * r.rank_sum(raw, k, term, term_sum)
    return (1.0 - p) * r.rank_sum(r.relevant(threshold), k, term, term_sum)


rbp_value = functools.singledispatch(_rbp_sums)
rbp_value.register(Expected, _rbp_sums)  # tie spans: the closed forms, not the positions'


@rbp_value.register(Positions)
def _(r: Positions, p: float = 0.8, k: int | None = None, threshold: float = 1,
      gain: str = "binary", gains: GainTable | None = None) -> pl.Expr:
    """trec_eval's arithmetic (m_rbp.c): the terms of the given gains added in rank order."""
    if gains:  # graded only (checked by rbp())
        return (1.0 - p) * _in_rank_order(r, _table_gains(r, gains), p, k)
    if gain == "graded":  # m_rbp.c: each label over the list's largest, if > 1
        labels = r.labels.cast(pl.Float64)
        top = _per_row(r.labels.max().cast(pl.Float64), labels)
        scaled = pl.when(top > 1.0).then(labels / top).otherwise(labels).fill_null(0.0)
        return (1.0 - p) * _in_rank_order(r, scaled, p, k)
    return _rbp_sums(r, p, k, threshold, gain, gains)


RBP = MetricSpec(
    "rbp",
    options=(
        Option("p", float, 0.8, description="persistence"),
        THRESHOLD,
        Option("gain", str, "binary", RBP_GAINS, "binary, graded (trec_eval 10) or raw (ranx)"),
        GAIN_TABLE,
    ),
    trec_eval="rbp (dialect='trec_eval': p=0.9, gain=graded)",
    summary="(1 - p) sum rel_r p^(r-1)",
    paper="Moffat & Zobel, TOIS 2008",
)
"""RBP's spec: p = 0.8, binary (ir_measures'); the trec_eval dialect sets p = 0.9, graded."""


@shared_parameters
@metric(RBP)
def rbp(
    rel: IntoExpr,
    p: float = 0.8,
    *,
    k: int | None = None,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    gain: str = "binary",
    gains: Mapping[int, float] | None = None,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Rank-biased precision (Moffat & Zobel, TOIS 2008).

    .. math:: \mathrm{RBP} = (1 - p) \sum_{r=1}^{k} \mathrm{rel}_r \, p^{r-1}

    A user reads rank r + 1 with probability ``p`` after rank r. With
    ``gain="binary"`` ``rel_r`` is 1 when the label is >= ``threshold``
    (ir_measures' ``RBP(rel=1)``; its default p = 0.8 is this one's). With
    ``gain="graded"`` it is the label divided by the largest label of the list
    (when that exceeds 1), ``threshold`` unused: trec_eval 10's ``rbp``, whose
    default p is 0.9 (the metric string ``rbp`` with ``dialect="trec_eval"``). With
    ``gain="raw"`` it is the label itself where the label is >= ``threshold`` (0
    below): ranx's ``rbp.95`` (ranx/metrics/rank_biased_precision.py, 0.3.21), which
    can exceed 1 with grades above 1.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    p
        Persistence, 0 < p < 1.
    k
        Optional cutoff (the residual beyond k is not added). ``None`` = whole list.
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
    gain
        ``"binary"`` (labels >= threshold count 1), ``"graded"`` (trec_eval 10) or
        ``"raw"`` (labels >= threshold count their value: ranx).
    gains
        With ``gain="graded"``: the gain of each listed label, ``{1: 3.0, 2: 9.0}``
        (trec_eval 10's ``-m rbp.1=3,2=9``); other labels gain their value, and the
        gains are rescaled to [0, 1] over the smallest and largest of them, and 0,
        when one falls outside, as m_rbp.c does.
    query
        ...
    ties
        ...

    Returns
    -------
    pl.Expr
        Float64 in [0, 1) (``"raw"``: up to the largest label); NaN for a list that
        cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1]})
    >>> df.select(pr.rbp("rel", 0.5, by=None))  # 0.5 * (1 + 0.25)
    shape: (1, 1)
    ┌────────────┐
    │ rbp(p=0.5) │
    │ ---        │
    │ f64        │
    ╞════════════╡
    │ 0.625      │
    └────────────┘

    trec_eval 10's graded RBP divides the labels by the largest (2); ``-m rbp.1=4``
    gives label 1 a gain of 4, and the gains are rescaled by the largest, 4:

    >>> df = pl.DataFrame({"rel": [2, 0, 1]})
    >>> df.select(pr.rbp("rel", 0.5, by=None, gain="graded").alias("graded"),
    ...           pr.rbp("rel", 0.5, by=None, gain="graded", gains={1: 4}).alias("1=4"))
    shape: (1, 2)
    ┌────────┬───────┐
    │ graded ┆ 1=4   │
    │ ---    ┆ ---   │
    │ f64    ┆ f64   │
    ╞════════╪═══════╡
    │ 0.5625 ┆ 0.375 │
    └────────┴───────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    persistence = check_real(p, "p", low=0, low_open=True, high=1, high_open=True,
                             allowed="a number strictly between 0 and 1")
    check_choice(gain, "gain", RBP_GAINS)
    table = check_gains(gains)
    if table and gain != "graded":
        msg = f"rbp: gains={gains!r} needs gain='graded' (trec_eval 10's rbp), got gain={gain!r}"
        raise ValueError(msg)
    return r.finish(rbp_value(r, persistence, cutoff(k), check_threshold(threshold), gain,
                              table))


def _residual_sums(r: Ranked, p: float) -> pl.Expr:
    """The RBP unjudged rows could add (m_rbp_resid.c), 0 when every row retrieved is judged.

    p^n + (1 - p) sum over unjudged ranks i of p^(i-1) is 1 - (1 - p) times the sum over
    the judged ranks: the judged rows suffice (evaluate() keeps only those).
    """
    check_unjudged_order(r.ties, "rbp_residual")
    term, term_sum = _discount(p)
    judged = r.labels.is_not_null().cast(pl.Float64)
    n_judged = r.rank_sum(judged, None, term_sum=count)
    residual = 1.0 - (1.0 - p) * r.rank_sum(judged, None, term, term_sum)
    return pl.when(n_judged < r.n_retrieved()).then(residual).otherwise(0.0)


rbp_residual_value = functools.singledispatch(_residual_sums)
rbp_residual_value.register(Expected, _residual_sums)


@rbp_residual_value.register(Positions)
def _(r: Positions, p: float) -> pl.Expr:
    """m_rbp_resid.c's arithmetic: p^n and the powers at the unjudged ranks, in rank order."""
    check_unjudged_order(r.ties, "rbp_residual")
    n = r.n_retrieved()
    ranks = pl.int_range(1, n + 1, dtype=pl.Int64)
    judged = r.rank.filter(r.within(None) & r.labels.is_not_null()).cast(pl.Int64)
    n_judged = (r.within(None) & r.labels.is_not_null()).sum()
    unjudged = ranks.filter(~ranks.is_in(judged.implode()))
    total = _powers_at(r, p, unjudged - 1).cum_sum().last().fill_null(0.0)
    last = _powers_at(r, p, n.cast(pl.Int64)).first()  # p^n
    return pl.when(n_judged < n).then(last + (1.0 - p) * total).otherwise(0.0)


RBP_RESIDUAL = MetricSpec(
    "rbp_resid",
    aliases=("rbp_residual",),
    cutoff=False,
    options=(Option("p", float, 0.8, description="persistence"),),
    trec_eval="rbp_resid (dialect='trec_eval': p=0.9)",
    of_unjudged=True,
    summary="what unjudged rows could add to RBP",
    paper="Moffat & Zobel, TOIS 2008",
)
"""``rbp_resid``'s spec: a metric of the unjudged rows (what they could add to RBP)."""


@shared_parameters
@metric(RBP_RESIDUAL)
def rbp_residual(
    rel: IntoExpr,
    p: float = 0.8,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""RBP's residual: what unjudged rows and the rest of the list could still add.

    .. math:: p^n + (1 - p) \sum_{i \le n,\ l_i \text{ unjudged}} p^{i-1}

    0 when every retrieved row is judged, as trec_eval 10's ``rbp_resid`` (whose
    default p is 0.9: the metric string with ``dialect="trec_eval"``). RBP lies in
    [rbp, rbp + residual] (Moffat & Zobel, TOIS 2008).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged).
    p
        Persistence, 0 < p < 1.
    by
        ...
    rank
        ...
    doc
        ...
    descending
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
    >>> df = pl.DataFrame({"rel": [1, None, 0], "score": [3.0, 2.0, 1.0]})
    >>> df.select(pr.rbp_residual("rel", 0.5, by="score"))  # 0.5^3 + 0.5 x 0.5
    shape: (1, 1)
    ┌──────────────────┐
    │ rbp_resid(p=0.5) │
    │ ---              │
    │ f64              │
    ╞══════════════════╡
    │ 0.375            │
    └──────────────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    persistence = check_real(p, "p", low=0, low_open=True, high=1, high_open=True,
                             allowed="a number strictly between 0 and 1")
    return r.finish(rbp_residual_value(r, persistence))
