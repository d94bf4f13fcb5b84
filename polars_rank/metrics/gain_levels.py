r"""trec_eval 10's gain-level measures: ``G``, ``binG``, ``ndcg_rel`` and ``Rndcg``.

Experimental measures of trec_eval 10.0 (Chris Buckley, 2008: m_G.c, m_binG.c,
m_ndcg_rel.c, m_Rndcg.c) that read a ranked list against its *ideal gains*
:math:`I_1 \ge I_2 \ge \dots \ge I_P`: the positive gains of every judged row of
the query, retrieved or not, largest first. A row's gain is its label, or a gain
table's (``gains=``, trec_eval's ``-m G.1=3,2=9``); unjudged rows gain 0.

trec_eval sorts its gain table with a comparator that returns the difference of two
gains truncated to an int (gain_init.c, ``comp_rel_gain``), so two gains less than 1
apart compare equal and the C library's sort may leave them out of order; its ideal
then is not the largest gains first (with glibc, ``-m ndcg.1=0.5`` on labels 0, 1, 2
walks the gains 2 then 0 and stops, leaving out the label-1 rows). polars-rank
orders the ideal by gain, as the table is meant to be: the numbers agree with
trec_eval's whenever the gains in play are integers, or any two of them are equal or
at least 1 apart (every gain table trec_eval's documentation shows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import group_sum, safe_div
from polars_rank._engine.gain_table import check_gains
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_threshold
from polars_rank._engine.ranked import NAN, Ranked
from polars_rank._language.metric_spec import GAIN_TABLE, NO_EXPECTED, THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.gain import row_gain

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.gain_table import GainTable
    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["normalized_gain", "binary_normalized_gain", "ndcg_over_relevant", "r_ndcg"]


def _table_gain(labels: pl.Expr, o: Mapping[str, Any]) -> pl.Expr:
    """A row's gain under a gain table ``o["gains"]``: ``evaluate()`` orders ties by it."""
    return row_gain(labels, gains=o["gains"])


def _no_closed_form(name: str) -> str:
    """Why these metrics' specs leave out ``ties="expected"``."""
    return (f"{name} has no closed form under ties='expected' (each row's term depends on "
            "the rows ranked before it)")


class _Walk:
    """A list's gains in rank order beside its ideal gains, as trec_eval walks them."""

    def __init__(self, r: Ranked, gains: GainTable | None) -> None:
        g = row_gain(r.labels, gains=gains)
        self.retrieved = r.retrieved()
        self.got = pl.when(self.retrieved).then(r.by_gain(g).ordered(g)).otherwise(0.0)
        """Gains in rank order, 0 on rows not retrieved."""
        self.rank = r.positions()
        """Ranks aligned with :attr:`got` (null or past the list: not retrieved)."""
        positive = g.filter(g > 0)
        ideal = r.prepared_ideal()
        if ideal is not None and not gains:  # the labels, sorted once for every metric
            self.ideal = row_gain(ideal).filter(row_gain(ideal) > 0)
        else:
            self.ideal = positive.sort(descending=True)
        """I_1 >= ... >= I_P."""
        # counted and summed before the sort (Ranked.ordered says why)
        self.n_ideal = positive.len()
        self.best = positive.sum()
        """I_1 + ... + I_P."""

    def at_ideal(self, prefix: pl.Expr) -> pl.Expr:
        """``prefix`` ([0, p_1, ..., p_P], over ideal positions) at each row's min(rank, P)."""
        return prefix.gather(pl.min_horizontal(self.rank, self.n_ideal))

    def dcg_terms(self) -> pl.Expr:
        """Each gain over log2(rank + 1), in rank order."""
        return self.got / (self.rank.cast(pl.Float64) + 1.0).log(2)

    @staticmethod
    def total(terms: pl.Expr) -> pl.Expr:
        """The sum of ``terms`` (in rank order) as one list's sum.

        A plain ``sum()`` adds a column's values per list with another kernel than
        a sorted list's (several partial sums), which can move the last bit: rows
        already in rank order (:class:`~polars_rank._engine.ranked.RankColumn`) and rows
        sorted here then differ. As one list, the same bits either way.
        """
        return terms.implode().list.sum()

    def ideal_dcg(self) -> pl.Expr:
        """[0, IDCG_1, ..., IDCG_P]: the ideal DCG at each ideal position."""
        ranks = pl.int_range(2, self.n_ideal + 2, dtype=pl.Int64).cast(pl.Float64)
        return pl.lit(0.0).append((self.ideal / ranks.log(2)).cum_sum())


def normalized_gain_value(r: Ranked, gains: GainTable | None = None) -> pl.Expr:
    """trec_eval's G of a ranked list (validated parameters)."""
    w = _Walk(r, gains)
    # trec_eval's sum_cost: the ideal gains so far, each at least 1, 1 past the ideal
    cost = pl.lit(0.0).append(w.ideal.clip(lower_bound=1.0).cum_sum())
    within = pl.min_horizontal(w.rank, w.n_ideal)
    so_far = w.at_ideal(cost) + (w.rank - within).cast(pl.Float64)
    term = w.got / ((2.0 + so_far) - w.got.cum_sum()).log(2)
    total = group_sum(pl.when(w.retrieved & (w.got != 0)).then(term).otherwise(0.0))
    return pl.when(w.best > 0).then(total / w.best).otherwise(0.0)


def binary_normalized_gain_value(r: Ranked, threshold: float = 1) -> pl.Expr:
    """trec_eval's binG of a ranked list (validated parameters)."""
    hit = r.hits(None, threshold)
    non_relevant_before = r.positions().cast(pl.Float64) - hit.cum_sum()
    term = pl.when(hit > 0).then(1.0 / (2.0 + non_relevant_before).log(2)).otherwise(0.0)
    return safe_div(group_sum(term), r.n_relevant(threshold))


def ndcg_over_relevant_value(r: Ranked, gains: GainTable | None = None) -> pl.Expr:
    """trec_eval's ndcg_rel of a ranked list (validated parameters)."""
    w = _Walk(r, gains)
    terms = w.dcg_terms()
    ideal = w.ideal_dcg()
    found = w.retrieved & (w.got > 0)
    at_found = group_sum(
        pl.when(found).then(terms.cum_sum() / w.at_ideal(ideal)).otherwise(0.0))
    # a positive-gain row never retrieved scores the whole list's NDCG
    missed = (w.n_ideal - found.sum()).cast(pl.Float64) * w.total(terms) / ideal.last()
    # total named once (in a group_by each name is computed again): a negative total
    # (a gain table's negative gains) scores 0, as the condition total > 0 did; a zero
    # that is not a literal (Polars drops "+ 0.0") turns the -0.0 clip leaves into 0.0
    mean = ((at_found + missed) / w.n_ideal).clip(lower_bound=0.0)
    return pl.when(w.n_ideal > 0).then(mean + pl.len().cast(pl.Float64) * 0.0).otherwise(0.0)


def r_ndcg_value(r: Ranked, gains: GainTable | None = None, threshold: float = 1) -> pl.Expr:
    """trec_eval's Rndcg of a ranked list (validated parameters)."""
    w = _Walk(r, gains)
    terms = w.dcg_terms()
    ideal = w.ideal_dcg()
    # an R level ends at ideal position b where the ideal gain changes (always at P):
    # sum_b DCG_b / IDCG_b = sum over rows of term x sum_(levels b >= rank) 1 / IDCG_b
    ends = (w.ideal != w.ideal.shift(-1)).fill_null(True)
    weight = pl.when(ends).then(1.0 / ideal.slice(1)).otherwise(0.0)
    from_rank = weight.reverse().cum_sum().reverse().append(pl.lit(0.0))
    at_levels = w.total(terms * from_rank.gather(pl.min_horizontal(w.rank, w.n_ideal + 1) - 1))
    # trec_eval adds the whole list's NDCG when the list runs past position P + 1
    past = r.n_retrieved().cast(pl.Int64) > w.n_ideal.cast(pl.Int64) + 1
    tail = pl.when(past).then(w.total(terms) / ideal.last()).otherwise(0.0)
    levels = ends.sum().cast(pl.Float64) + past.cast(pl.Float64)
    return (
        pl.when(r.n_relevant(threshold) == 0).then(0.0)
        .when(w.n_ideal == 0).then(NAN)  # no positive gain: trec_eval's 0 / 0
        .otherwise((at_levels + tail) / levels)
    )


NORMALIZED_GAIN = MetricSpec(
    "g",
    ties=NO_EXPECTED,
    ties_note=_no_closed_form("normalized_gain (G)"),
    aliases=("normalized_gain",),
    cutoff=False,
    options=(GAIN_TABLE,),
    trec_eval="G",
    summary="gain / log2(2 + ideal gain so far - gain so far), over the ideal",
    paper="trec_eval 10.0, m_G.c (Buckley, 2008; experimental)",
    row_gain=_table_gain,
)
"""``g``'s spec: also ``normalized_gain``."""


@shared_parameters
@metric(NORMALIZED_GAIN)
def normalized_gain(
    rel: IntoExpr,
    *,
    gains: Mapping[int, float] | None = None,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Normalized gain, trec_eval's ``G`` (Buckley, 2008; trec_eval 10.0, m_G.c).

    .. math:: G = \frac{1}{\sum_t I_t} \sum_{r=1}^{n}
        \frac{g_r}{\log_2\big(2 + \sum_{t \le r} \max(I_t, 1) - \sum_{s \le r} g_s\big)}

    with :math:`g_r` the gain at rank r and :math:`I_t` the ideal gains (0 past the
    last): a row is discounted by how far the gain so far lags the ideal's, so a row
    after rows of higher gain costs little. Combines qualities of MAP and NDCG
    (Buckley). 0 when no row has a positive gain. The gain is the label (linear),
    or the table's.

    Parameters
    ----------
    rel
        Graded relevance label (>= 0; null = unjudged, gain 0).
    gains
        ...
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
        ``"first"``, ``"trec_eval"``, ``"optimistic"`` or ``"pessimistic"`` (see
        :func:`ndcg`); ``"expected"`` raises NotImplementedError: no closed form.

    Returns
    -------
    pl.Expr
        Float64; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 2], "score": [3.0, 2.0, 1.0]})
    >>> df.select(pr.normalized_gain("rel", by="score"),
    ...           pr.normalized_gain("rel", by="score", gains={2: 9}).alias("2=9"))
    shape: (1, 2)
    ┌─────────┬─────────┐
    │ g       ┆ 2=9     │
    │ ---     ┆ ---     │
    │ f64     ┆ f64     │
    ╞═════════╪═════════╡
    │ 0.63093 ┆ 0.59794 │
    └─────────┴─────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(normalized_gain_value(r, check_gains(gains)))


BINARY_NORMALIZED_GAIN = MetricSpec(
    "bing",
    ties=NO_EXPECTED,
    ties_note=_no_closed_form("binary_normalized_gain (binG)"),
    aliases=("binary_normalized_gain",),
    cutoff=False,
    options=(THRESHOLD,),
    trec_eval="binG",
    summary="mean over relevant rows of 1 / log2(2 + non-relevant above)",
    paper="trec_eval 10.0, m_binG.c (Buckley, 2008; experimental)",
)
"""``bing``'s spec: also ``binary_normalized_gain``."""


@shared_parameters
@metric(BINARY_NORMALIZED_GAIN)
def binary_normalized_gain(
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
    r"""Binary normalized gain, trec_eval's ``binG`` (Buckley, 2008; m_binG.c).

    .. math:: \mathrm{binG} = \frac{1}{R} \sum_{r:\, l_r \ge t}
        \frac{1}{\log_2(2 + \text{non-relevant rows ranked before } r)}

    :func:`normalized_gain` with binary gains: each relevant row retrieved scores 1
    over the log of 2 plus the rows that are not relevant (judged or not) above it;
    R is every relevant row, retrieved or not. 0 when nothing relevant is retrieved.

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
        ``"first"``, ``"trec_eval"``, ``"optimistic"`` or ``"pessimistic"`` (see
        :func:`ndcg`); ``"expected"`` raises NotImplementedError: no closed form.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [3.0, 2.0, 1.0, None]})
    >>> df.select(pr.binary_normalized_gain("rel", by="score"))  # (1 + 1/log2(3)) / 3
    shape: (1, 1)
    ┌──────────┐
    │ bing     │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.543643 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(binary_normalized_gain_value(r, check_threshold(threshold)))


NDCG_OVER_RELEVANT = MetricSpec(
    "ndcg_rel",
    ties=NO_EXPECTED,
    ties_note=_no_closed_form("ndcg_over_relevant (ndcg_rel)"),
    aliases=("ndcg_over_relevant",),
    cutoff=False,
    options=(GAIN_TABLE,),
    trec_eval="ndcg_rel",
    summary="NDCG averaged at the ranks of the relevant rows",
    paper="trec_eval 10.0, m_ndcg_rel.c (Buckley; experimental)",
    row_gain=_table_gain,
)
"""``ndcg_rel``'s spec: also ``ndcg_over_relevant``."""


@shared_parameters
@metric(NDCG_OVER_RELEVANT)
def ndcg_over_relevant(
    rel: IntoExpr,
    *,
    gains: Mapping[int, float] | None = None,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""NDCG averaged over the relevant rows, trec_eval's ``ndcg_rel`` (m_ndcg_rel.c).

    .. math:: \frac{1}{P} \Big(\sum_{r:\, g_r > 0} \frac{\mathrm{DCG}_r}
        {\mathrm{IDCG}_{\min(r, P)}} + (P - P_{ret})
        \frac{\mathrm{DCG}_n}{\mathrm{IDCG}_P}\Big)

    NDCG (linear gain, or the table's) measured at the rank of each retrieved row of
    positive gain; each of the P positive-gain rows the list missed (P_ret were
    retrieved) scores the whole list's NDCG. Averaging NDCG at the relevant rows
    smooths its jumps at the changes of ideal gain level (NDCG: Järvelin &
    Kekäläinen, TOIS 2002; this average: Buckley, 2008, experimental in trec_eval
    10.0). 0 when P is 0 or the sum is not positive.

    Parameters
    ----------
    rel
        Graded relevance label (>= 0; null = unjudged, gain 0).
    gains
        ...
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
        ``"first"``, ``"trec_eval"``, ``"optimistic"`` or ``"pessimistic"`` (see
        :func:`ndcg`); ``"expected"`` raises NotImplementedError: no closed form.

    Returns
    -------
    pl.Expr
        Float64; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 2], "score": [3.0, 2.0, 1.0]})
    >>> df.select(pr.ndcg_over_relevant("rel", by="score"))
    shape: (1, 1)
    ┌──────────┐
    │ ndcg_rel │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.630094 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(ndcg_over_relevant_value(r, check_gains(gains)))


R_NDCG = MetricSpec(
    "rndcg",
    ties=NO_EXPECTED,
    ties_note=_no_closed_form("r_ndcg (Rndcg)"),
    aliases=("r_ndcg",),
    cutoff=False,
    options=(GAIN_TABLE, THRESHOLD),
    trec_eval="Rndcg",
    summary="NDCG averaged where the ideal gain level changes",
    paper="trec_eval 10.0, m_Rndcg.c (Buckley; experimental)",
    row_gain=_table_gain,
)
"""``rndcg``'s spec: also ``r_ndcg``."""


@shared_parameters
@metric(R_NDCG)
def r_ndcg(
    rel: IntoExpr,
    *,
    gains: Mapping[int, float] | None = None,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""NDCG averaged at the R levels, trec_eval's ``Rndcg`` (m_Rndcg.c).

    .. math:: \frac{1}{|B|} \sum_{b \in B} \frac{\mathrm{DCG}_b}{\mathrm{IDCG}_b}

    B holds the ideal positions where the ideal gain changes: with 5 rows of gain
    3, 3 of gain 2 and 10 of gain 1, NDCG at 5, 8 and 18, as trec_eval's
    documentation puts it; when the list runs past P + 1 rows (P: the rows of
    positive gain), also the whole list's DCG over IDCG_P, the "implied R level" at
    its end (NDCG: Järvelin & Kekäläinen, TOIS 2002; these levels: Buckley, 2008,
    experimental in trec_eval 10.0). 0 when no row is relevant at
    ``threshold`` (trec_eval's ``-l``); NaN when rows are relevant but no gain is
    positive (trec_eval's 0 / 0).

    Parameters
    ----------
    rel
        Graded relevance label (>= 0; null = unjudged, gain 0).
    gains
        ...
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
        ``"first"``, ``"trec_eval"``, ``"optimistic"`` or ``"pessimistic"`` (see
        :func:`ndcg`); ``"expected"`` raises NotImplementedError: no closed form.

    Returns
    -------
    pl.Expr
        Float64; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 2, 2], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.r_ndcg("rel", by="score"))  # NDCG at 2 and at 3
    shape: (1, 1)
    ┌──────────┐
    │ rndcg    │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.419113 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(r_ndcg_value(r, check_gains(gains), check_threshold(threshold)))
