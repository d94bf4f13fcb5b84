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

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum, safe_div
from polars_rank._engine.gain_table import check_gains
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_threshold
from polars_rank._language.metric_spec import GAIN_TABLE, NO_EXPECTED, THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._ideal_gains import Walk, no_closed_form, table_gain
from polars_rank.metrics.ndcg_levels import ndcg_over_relevant, r_ndcg

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.gain_table import GainTable
    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._engine.ranked import Ranked
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["normalized_gain", "binary_normalized_gain", "ndcg_over_relevant", "r_ndcg"]


def normalized_gain_value(r: Ranked, gains: GainTable | None = None) -> pl.Expr:
    """trec_eval's G of a ranked list (validated parameters)."""
    w = Walk(r, gains)
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


NORMALIZED_GAIN = MetricSpec(
    "g",
    ties=NO_EXPECTED,
    ties_note=no_closed_form("normalized_gain (G)"),
    aliases=("normalized_gain",),
    cutoff=False,
    options=(GAIN_TABLE,),
    trec_eval="G",
    summary="gain / log2(2 + ideal gain so far - gain so far), over the ideal",
    paper="trec_eval 10.0, m_G.c (Buckley, 2008; experimental)",
    row_gain=table_gain,
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
    ties_note=no_closed_form("binary_normalized_gain (binG)"),
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
