"""trec_eval 10's gain-level NDCGs: ``ndcg_rel`` and ``Rndcg``.

Experimental measures of trec_eval 10.0 (m_ndcg_rel.c, m_Rndcg.c) that read a ranked
list against its ideal gains, as :mod:`polars_rank.metrics.gain_levels` describes
(which re-exports both).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.gain_table import check_gains
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_threshold
from polars_rank._engine.ranked import NAN, Ranked
from polars_rank._language.metric_spec import GAIN_TABLE, NO_EXPECTED, THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._ideal_gains import Walk, no_closed_form, table_gain

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.gain_table import GainTable
    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["ndcg_over_relevant", "r_ndcg"]


def ndcg_over_relevant_value(r: Ranked, gains: GainTable | None = None) -> pl.Expr:
    """trec_eval's ndcg_rel of a ranked list (validated parameters)."""
    w = Walk(r, gains)
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
    w = Walk(r, gains)
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


NDCG_OVER_RELEVANT = MetricSpec(
    "ndcg_rel",
    ties=NO_EXPECTED,
    ties_note=no_closed_form("ndcg_over_relevant (ndcg_rel)"),
    aliases=("ndcg_over_relevant",),
    cutoff=False,
    options=(GAIN_TABLE,),
    trec_eval="ndcg_rel",
    summary="NDCG averaged at the ranks of the relevant rows",
    paper="trec_eval 10.0, m_ndcg_rel.c (Buckley; experimental)",
    row_gain=table_gain,
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
    ties_note=no_closed_form("r_ndcg (Rndcg)"),
    aliases=("r_ndcg",),
    cutoff=False,
    options=(GAIN_TABLE, THRESHOLD),
    trec_eval="Rndcg",
    summary="NDCG averaged where the ideal gain level changes",
    paper="trec_eval 10.0, m_Rndcg.c (Buckley; experimental)",
    row_gain=table_gain,
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
