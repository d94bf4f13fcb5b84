"""Pairwise metrics over the retrieved list: rank correlation and ROC AUC."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.keys import SortKeys, TieAveraged
from polars_rank._engine.lists import ranked_list, retied
from polars_rank._engine.params import UNSET, Ties, check_real, check_threshold
from polars_rank._engine.positions import Positions, TieSpans
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._language.metric_spec import NO_EXPECTED, THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["rank_correlation", "auc", "accuracy"]


RANK_CORRELATION = MetricSpec(
    "rank_correlation",
    aliases=("rc",),
    cutoff=False,
    summary="share of retrieved pairs ordered as their labels",
    paper="Liu, Learning to Rank for IR, 2009",
)
"""``rank_correlation``'s spec: no cutoff (every retrieved pair)."""


@shared_parameters
@metric(RANK_CORRELATION)
def rank_correlation(
    rel: IntoExpr,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Rank correlation with the ideal ordering (Kendall-type).

    The fraction of pairs of retrieved rows whose order agrees with their graded
    labels, pairs with equal labels agreeing (the maximum of Kendall's
    :math:`\tau_K` over every ideal ordering; Liu, *Learning to Rank for Information
    Retrieval*, 2009):

    .. math:: \mathrm{RC} = 1 - \frac{|\{(i, j) : i \text{ ranked above } j,\ l_i < l_j\}|}
              {n (n - 1) / 2}

    A list of fewer than two retrieved rows is trivially ideal: 1. Cost is
    quadratic in the length of each list (every pair is compared). trec_eval has no
    such measure.

    Parameters
    ----------
    rel
        Graded relevance label (null = unjudged, 0).
    by
        Ranking key(s); rows with a null first key are not retrieved and do not take
        part; ``None`` = row order.
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
    The worked example of Liu's book: labels 1, 0, 1 in rank order.

    >>> import polars as pl
    >>> import polars_rank as pr
    >>> pl.DataFrame({"rel": [1, 0, 1]}).select(pr.rank_correlation("rel", by=None))
    shape: (1, 1)
    ┌──────────────────┐
    │ rank_correlation │
    │ ---              │
    │ f64              │
    ╞══════════════════╡
    │ 0.666667         │
    └──────────────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(rank_correlation_value(r))


@functools.singledispatch
def rank_correlation_value(r: Ranked) -> pl.Expr:
    """Rank correlation of a ranked list."""
    labels = r.ordered(r.gains()).filter(r.retrieved())
    n = labels.len().cast(pl.Float64)
    return _share_concordant(_discordant(labels), n)


@rank_correlation_value.register(TieAveraged)
def _(r: TieAveraged) -> pl.Expr:
    """Linear in the discordant pairs: a tied pair of two labels is discordant in one bound."""
    bounds = [rank_correlation_value(retied(r, t)) for t in ("optimistic", "pessimistic")]
    return (bounds[0] + bounds[1]) / 2.0


def _discordant(labels: pl.Expr) -> pl.Expr:
    """Pairs of ``labels`` (rank order) whose upper one has the smaller label."""
    return labels.cumulative_eval((pl.element().last() > pl.element()).sum()).sum()


def _share_concordant(discordant: pl.Expr, n: pl.Expr) -> pl.Expr:
    pairs = n * (n - 1.0) / 2.0
    return pl.when(pairs > 0).then(1.0 - discordant / pairs).otherwise(1.0)


@rank_correlation_value.register(Positions)
def _positioned_rank_correlation(r: Positions) -> pl.Expr:
    """Rank correlation from given ranks: the rows left out are unjudged (label 0).

    A row with a label above 0 is discordant with every left-out row above it: those
    in the tie groups above (its first rank - 1, less the rows present there) and,
    with tie spans, in the pessimistic order those of its own group too. With tie
    bounds the value is the mean of the optimistic and pessimistic orders' (a tied
    pair of different labels is discordant in exactly one of them, and in half of
    all orderings).
    """
    lo, hi = r.bounds()
    shown = lo.is_not_null()
    lo_p, hi_p, gains = lo.filter(shown), hi.filter(shown), r.gains().filter(shown)
    above = (lo_p.rank("min") - 1).cast(pl.Int64)  # rows present in the groups above
    in_group = (lo_p.rank("max") - lo_p.rank("min") + 1).cast(pl.Int64)
    left_out_above = (lo_p - 1 - above).cast(pl.Float64)
    left_out_in_group = (hi_p - lo_p + 1 - in_group).cast(pl.Float64)
    positive = (gains > 0).cast(pl.Float64)
    orders = [True, False] if isinstance(r, TieSpans) else [True]  # optimistic, pessimistic
    total = pl.lit(0.0)
    for optimistic in orders:
        labels = _by_rank_then_label(gains, lo_p, optimistic=optimistic)
        left_out = left_out_above if optimistic else left_out_above + left_out_in_group
        total = total + _discordant(labels) + (positive * left_out).sum()
    return _share_concordant(total / float(len(orders)), r.n_retrieved().cast(pl.Float64))


def _by_rank_then_label(gains: pl.Expr, lo: pl.Expr, *, optimistic: bool) -> pl.Expr:
    """``gains`` by rank ``lo``, tied rows by gain (descending when ``optimistic``).

    Two stable sorts by one key each: Polars 1.36 cannot sort these filtered rows by
    several keys in a ``group_by`` or window. A list of keys ``[lo, gains]`` raises
    "expressions in 'sort_by' must have matching group lengths" when a list has no
    retrieved row (``evaluate(judged_only=True)`` for a query that retrieved nothing
    judged); one struct key of the filtered fields (or of a ``rank()``, as before)
    sorts, in the lists after one the filter shortened, rows of other lists, so
    ``evaluate()`` varied between runs with the lists' order. Canaries in
    tests/test_workarounds.py. It costs nothing measurable (docs/performance.md,
    "Behind the code").
    """
    lo_by_gain = lo.sort_by(gains, descending=optimistic, maintain_order=True)
    return gains.sort(descending=optimistic).sort_by(lo_by_gain, maintain_order=True)


AUC = MetricSpec(
    "auc",
    aliases=("gauc",),
    cutoff=False,
    options=(THRESHOLD,),
    summary="ROC AUC of the ranking, ties 1/2",
    reads_tie_spans=True,
    paper="Hanley & McNeil, Radiology 1982; GAUC: Zhou et al., KDD 2018",
)
"""AUC's spec: GAUC when averaged over queries; a tied pair counts one half."""


@shared_parameters
@metric(AUC)
def auc(
    rel: IntoExpr,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""ROC AUC of the retrieved rows' ranking against binary relevance (GAUC with ``query=``).

    The probability that a relevant row is ranked above a non-relevant one, tied
    ``by`` values counting one half (Mann-Whitney U with average ranks; Hanley &
    McNeil, Radiology 1982; scikit-learn's ``roc_auc_score`` on the first ``by`` key):

    .. math:: \mathrm{AUC} = \frac{1}{|P|\,|N|} \sum_{i \in P} \sum_{j \in N}
              \left(\mathbb{1}[s_i > s_j] + \tfrac{1}{2}\,\mathbb{1}[s_i = s_j]\right)

    with P the relevant and N the non-relevant retrieved rows and s the first ``by``
    key. Only that key is used: AUC defines its own treatment of ties, so there is no
    ``ties`` parameter. trec_eval has no AUC.

    A list with no relevant or no non-relevant retrieved row has no AUC: it is
    null, and the ``query=`` mean (GAUC, each query weighted once) is over the
    queries that have one, as in torchrec; the DIN paper (Zhou et al., KDD 2018)
    weights users by impressions instead (see the cookbook for that variant).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant) or a 0/1 click.
    by
        Ranking key: a score (``descending=True``, higher is better) or a rank
        (``descending=False``); rows with a null key are not retrieved and do not
        take part. ``None``: row order (first row best).
    rank
        ...
    doc
        ...
    descending
        Sort direction of the first key.
    threshold
        Labels >= threshold are positive.
    query
        Column(s) identifying a query (user): the mean over queries with an AUC.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1], null when undefined; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"click": [1, 0, 1, 0], "score": [0.9, 0.8, 0.8, 0.1]})
    >>> df.select(pr.auc("click", by="score"))  # (1 + 1 + 0.5 + 1) / 4
    shape: (1, 1)
    ┌───────┐
    │ auc   │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.875 │
    └───────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties="first", query=query, rank=rank,
                    doc=doc)
    t = check_real(threshold, "threshold", allowed="a finite number")
    return r.finish(auc_value(r, t))


def auc_value(r: Ranked, threshold: float = 1) -> pl.Expr:
    """ROC AUC of a ranked list: Mann-Whitney U from each row's (first, last) rank.

    A relevant row whose tie group holds ranks lo..hi has, counted from the bottom,
    the average rank n + 1 - (lo + hi) / 2 (ties one half). Keys mode reads the first
    key only; positions mode the given ranks (strict positions have no ties).
    """
    lo, hi, n = _spans(r)
    positive = pl.when(lo.is_not_null()).then(r.relevant(threshold)).otherwise(0.0)
    n_pos = positive.sum()
    n_neg = n - n_pos
    from_bottom = n + 1.0 - (lo + hi).cast(pl.Float64) / 2.0
    u = (positive * from_bottom).fill_null(0.0).sum() - n_pos * (n_pos + 1.0) / 2.0
    return pl.when((n_pos > 0) & (n_neg > 0)).then(u / (n_pos * n_neg)).otherwise(None)


def _spans(r: Ranked) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """AUC's (first, last) rank of each row, by the first key only, and the list's length."""
    if isinstance(r, SortKeys) and not r.keys:  # the row order
        ranks = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
        return ranks, ranks, pl.len().cast(pl.Float64)
    if isinstance(r, SortKeys):
        key, down = r.keys[0], r.descending[0]
        return (key.rank("min", descending=down), key.rank("max", descending=down),
                r.n_retrieved().cast(pl.Float64))
    lo, hi = r.bounds()
    return lo, hi, r.n_retrieved().cast(pl.Float64)


def accuracy_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """Share of (relevant, non-relevant) pairs of the top k in order; null without one.

    With m relevant rows among the n shown at ranks r_1 < ... < r_m, the i-th has
    r_i - i non-relevant rows above it, out of n - m.
    """
    hits = r.hits(k, threshold)
    ranks = r.positions(k).cast(pl.Float64)
    relevant = hits.sum()
    above = ((ranks - hits.cum_sum()) * hits).sum()  # non-relevant above each relevant
    shown = r.n_retrieved().cast(pl.Float64)
    if k is not None:
        shown = pl.min_horizontal(shown, pl.lit(float(k)))
    pairs = relevant * (shown - relevant)
    return pl.when(pairs > 0).then(1.0 - above / pairs)


ACCURACY = MetricSpec(
    "accuracy",
    options=(THRESHOLD,),
    ties=NO_EXPECTED,
    ties_note="accuracy under ties='expected' is not implemented (auc counts a tied pair "
              "as one half)",
    summary="share of (relevant, other) pairs of the top k in order",
    paper="ir_measures (MacAvaney, Macdonald & Ounis, ECIR 2022)",
)
"""``accuracy``'s spec: ir_measures' (its dialect leaves absent queries out of the mean)."""


@shared_parameters
@metric(ACCURACY)
def accuracy(
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
    r"""Pairwise accuracy of the top k, ir_measures' ``Accuracy@k``.

    .. math:: \mathrm{Accuracy@k} = \frac{1}{|P|\,|N|} \sum_{i \in P} \sum_{j \in N}
              \mathbb{1}[r_i < r_j]

    with P the relevant and N the other rows (unjudged included) among the top k
    retrieved, r their ranks: the probability that a relevant document comes before
    a non-relevant one, a diagnostic of how well a ranker orders what it retrieved
    (ir_measures 0.4.3, ``accuracy_provider.py``; MacAvaney, Macdonald & Ounis,
    ECIR 2022). It is AUC on ranks (no half credit for ties) cut at k; trec_eval has
    none. A list without a relevant or without a non-relevant row in the top k has
    none either: null, and the ``query=`` mean is over the queries that have one
    (ir_measures leaves out a query without a relevant row and fails, dividing by
    zero, on one without a non-relevant row).

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
        Float64 in [0, 1], null without a pair; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 0], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.accuracy("rel", by="score"))  # 3 of the 4 pairs in order
    shape: (1, 1)
    ┌──────────┐
    │ accuracy │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.75     │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(accuracy_value(r, cutoff(k), check_threshold(threshold)))
