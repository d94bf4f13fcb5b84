"""Binary-relevance metrics: precision, recall, F1, AP, RR, hit rate, R-precision, RBP, bpref.

A row is *relevant* when its label is >= ``threshold`` (default 1, trec_eval's
``-l``); unjudged rows (null label) never are. R, the number of relevant rows,
counts judged rows the ranking did not retrieve (null ``by``), as trec_eval does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._params import Ties, check_real
from polars_rank._ranked import (
    Ranked,
    by_parts_weights,
    count,
    cutoff,
    per_list,
    reached,
    reciprocal,
    safe_div,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._params import By, IntoExpr, Query, Rank

__all__ = [
    "precision",
    "recall",
    "f1",
    "average_precision",
    "reciprocal_rank",
    "hit_rate",
    "r_precision",
    "rbp",
    "bpref",
]


def _threshold(threshold: float) -> float:
    return check_real(threshold, "threshold", allowed="a finite number")


def _hits(r: Ranked, k: int | None, threshold: float) -> pl.Expr:
    """1.0 / 0.0 relevance in rank order, first k, 0.0 on rows not retrieved (keys mode)."""
    return pl.when(r.retrieved(k)).then(r.ordered(r.relevant(threshold), k)).otherwise(0.0)


def precision_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """P@k of a ranked list (validated parameters)."""
    hits = r.rank_sum(r.relevant(threshold), k, term_sum=count)
    denominator = per_list(k) if k is not None else r.n_retrieved().cast(pl.Float64)
    return safe_div(hits, denominator)


def recall_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """Recall@k of a ranked list (validated parameters)."""
    return safe_div(r.rank_sum(r.relevant(threshold), k, term_sum=count),
                    r.n_relevant(threshold))


def f1_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """F1@k of a ranked list (validated parameters)."""
    p, rc = precision_value(r, k, threshold), recall_value(r, k, threshold)
    return safe_div(2.0 * p * rc, p + rc)


def _expected_precision_sum(r: Ranked, hits: pl.Expr, k: int | None) -> pl.Expr:
    """ties="expected": E[sum of precision at the relevant ranks within k].

    A tie group holds ranks lo..hi (n rows), m relevant rows, and c relevant rows
    rank above it. At its slot j (rank p = lo + j - 1) the expected precision term is
    E[rel_j (c + 1 + relevant among slots 1..j-1)] / p = (A + B (p - lo)) / p with
    A = (m/n)(c + 1), B = m (m - 1) / (n (n - 1)); over the slots within k that is
    (A - B lo) H + B s, H the sum of 1/p over them and s their number. Each relevant
    row carries 1/m of its group's total; c and m are ranks among the relevant rows.
    """
    lo, hi = r.bounds()
    mask = (hits > 0) & lo.is_not_null()
    lo_h, hi_h = lo.filter(mask), hi.filter(mask)
    c = (lo_h.rank("min") - 1).cast(pl.Float64)
    m = (lo_h.rank("max") - lo_h.rank("min") + 1).cast(pl.Float64)
    n = (hi_h - lo_h + 1).cast(pl.Float64)
    n_ret = r.n_retrieved().cast(pl.Int64)
    limit = n_ret if k is None else pl.min_horizontal(n_ret, pl.lit(k, pl.Int64))
    last = pl.min_horizontal(hi_h, limit)
    # Polars 2.1 workaround: gathering these sums from a prefix table (Ranked.prefix_sums)
    # panics in a group_by of no rows (tests/test_workarounds.py tells when it stops)
    harmonic = pl.int_ranges(lo_h, last + 1).list.eval(1.0 / pl.element()).list.sum()
    slots = (last - lo_h + 1).clip(lower_bound=0).cast(pl.Float64)
    a = m / n * (c + 1.0)
    b = m * (m - 1.0) / (n * (n - 1.0)).clip(lower_bound=1.0)  # 0 when n = 1 (so m <= 1)
    return (((a - b * lo_h.cast(pl.Float64)) * harmonic + b * slots) / m).sum()


def average_precision_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """AP@k of a ranked list (validated parameters)."""
    if r.ties == "expected":
        total = _expected_precision_sum(r, r.relevant(threshold), k)
    elif r.rank is not None:
        # x = 1/rank at the hits within k, 0 elsewhere; sorted ascending, the sum of
        # its running sums is sum_i i * x_(i), i = the hit's rank among the hits
        inside = r.rank.is_not_null() if k is None else r.rank <= k
        x = pl.when(inside).then(r.relevant(threshold) / r.rank).otherwise(0.0)
        total = x.sort().cum_sum().sum()
    else:
        total = _dense_precision_sum(_hits(r, k, threshold), k)
    return safe_div(total, r.n_relevant(threshold))


def _dense_precision_sum(hits: pl.Expr, k: int | None) -> pl.Expr:
    """Sum over ranks p = 1..m of hits_p * z_p / p, z the running hit count, m rows.

    ``hits * hits.cum_sum()`` would name ``hits`` (the rank sort) twice. With 0/1 hits,
    hits_p * z_p = T(z_p) - T(z_(p-1)), T(z) = z(z + 1)/2, so the sum is taken by parts
    (:func:`by_parts_weights`, T(z_0) = 0). Every term is >= 0, so nothing cancels;
    T(z) is exact for z < 2^26.
    """
    triangle = ((hits.cum_sum() + 0.5).pow(2) - 0.25) * 0.5
    return (triangle * by_parts_weights(k, Ranked.depth(k))).sum()


def reciprocal_rank_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """RR@k of a ranked list (validated parameters)."""
    return r.first_hit(r.relevant(threshold), k, reciprocal)


def hit_rate_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """Hit rate @k of a ranked list (validated parameters)."""
    return r.first_hit(r.relevant(threshold), k, reached)


def r_precision_value(r: Ranked, threshold: float = 1) -> pl.Expr:
    """R-precision of a ranked list (validated parameters)."""
    hits = r.relevant(threshold)
    n_rel = r.n_relevant(threshold)
    if r.ties == "expected":  # the share of each row's tie group within the top R
        lo, hi = r.bounds()
        share = (pl.min_horizontal(hi, n_rel) - lo + 1).clip(lower_bound=0) / (hi - lo + 1)
        in_top_r = (hits * share).fill_null(0.0)
    elif r.rank is not None:
        in_top_r = pl.when(r.rank <= n_rel).then(hits).otherwise(0.0)
    else:
        in_top_r = pl.when(r.positions() <= n_rel).then(_hits(r, None, threshold)).otherwise(0.0)
    return safe_div(in_top_r.sum(), n_rel)


def rbp_value(r: Ranked, p: float = 0.8, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """RBP of a ranked list (validated parameters)."""
    def term(hit: pl.Expr, rank: pl.Expr) -> pl.Expr:
        return hit * pl.lit(float(p)).pow(rank - 1)

    def term_sum(lo: pl.Expr, hi: pl.Expr) -> pl.Expr:  # p^(lo-1) + ... + p^(hi-1)
        return (pl.lit(float(p)).pow(lo - 1) - pl.lit(float(p)).pow(hi)) / (1.0 - p)

    return (1.0 - p) * r.rank_sum(r.relevant(threshold), k, term, term_sum)


def bpref_value(r: Ranked, threshold: float = 1) -> pl.Expr:
    """Bpref of a ranked list (validated parameters)."""
    if r.ties == "expected":
        msg = ("bpref has no closed form under ties='expected' (its penalty is capped at R, "
               "so it is not linear in the ranks); use 'first', 'optimistic' or 'pessimistic'")
        raise NotImplementedError(msg)
    non_relevant = (r.labels < threshold).fill_null(False).cast(pl.Float64)  # judged only
    n_rel, n_non = r.n_relevant(threshold), non_relevant.sum()
    ranked_rel = r.ordered(r.relevant(threshold))
    ranked_non = r.ordered(non_relevant)
    above = ranked_non.cum_sum() - ranked_non  # judged non-relevant ranked above
    penalty = pl.when(above > 0).then(  # 0 without relevant rows (n_rel = 0)
        safe_div(pl.min_horizontal(above, n_rel), pl.min_horizontal(n_rel, n_non))
    ).otherwise(0.0)
    contrib = pl.when(r.retrieved()).then(ranked_rel * (1.0 - penalty)).otherwise(0.0)
    return safe_div(contrib.sum(), n_rel)


def precision(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
) -> pl.Expr:
    r"""Precision at k: relevant rows among the top k, divided by k.

    .. math:: \mathrm{P@k} = \frac{|\{r \le k : l_r \ge t\}|}{k}

    As trec_eval's ``P.k``, it divides by k even when fewer than k rows were
    retrieved (the missing ones count as non-relevant). With ``k=None`` it divides by
    the number of retrieved rows. See Manning, Raghavan & Schütze, *Introduction to
    Information Retrieval*, 2008, 8.4.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff. ``None`` = the whole ranked list.
    by
        Ranking key(s): a score (``descending=True``) or a rank (``descending=False``),
        optionally followed by tie-breaking keys; null = judged but not retrieved;
        ``None`` = the current row order.
    rank
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant.
    query
        Column(s) identifying a query: the mean over queries, each query once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (relevant rows
        first / last among ties) or ``"expected"`` (the exact mean over every order of
        the tied rows; McSherry & Najork, ECIR 2008).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1], "score": [3.0, 2.0, 1.0]})
    >>> df.select(p2=pr.precision("rel", 2, by="score"), p10=pr.precision("rel", 10, by="score"))
    shape: (1, 2)
    ┌─────┬─────┐
    │ p2  ┆ p10 │
    │ --- ┆ --- │
    │ f64 ┆ f64 │
    ╞═════╪═════╡
    │ 0.5 ┆ 0.2 │
    └─────┴─────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    return r.finish(precision_value(r, cutoff(k), _threshold(threshold)))


def recall(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
) -> pl.Expr:
    r"""Recall at k: relevant rows among the top k, divided by all relevant rows (R).

    .. math:: \mathrm{R@k} = \frac{|\{r \le k : l_r \ge t\}|}{R}

    R counts relevant rows the ranking did not retrieve (null ``by``); 0 when R = 0,
    as trec_eval's ``recall.k``. See Manning, Raghavan & Schütze, *Introduction to
    Information Retrieval*, 2008, 8.3-8.4.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff. ``None`` = the whole ranked list.
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant.
    query
        Column(s) identifying a query: the mean over queries, each query once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (relevant rows
        first / last among ties) or ``"expected"`` (the exact mean over every order of
        the tied rows; McSherry & Najork, ECIR 2008).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [3.0, 2.0, 1.0, None]})
    >>> df.select(pr.recall("rel", 2, by="score"))
    shape: (1, 1)
    ┌──────────┐
    │ rel      │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.333333 │
    └──────────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    return r.finish(recall_value(r, cutoff(k), _threshold(threshold)))


def f1(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
) -> pl.Expr:
    r"""F1 at k: the harmonic mean of :func:`precision` @k and :func:`recall` @k.

    .. math:: F_1\mathrm{@k} = \frac{2 \, P@k \, R@k}{P@k + R@k}

    0 when both are 0 (ranx ``f1@k``; trec_eval only has the set-based ``set_F``).
    The F-measure is van Rijsbergen's (*Information Retrieval*, 1979, ch. 7) with
    beta = 1.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff. ``None`` = the whole ranked list.
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant.
    query
        Column(s) identifying a query: the mean over queries, each query once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (relevant rows
        first / last among ties) or ``"expected"`` (the exact mean over every order of
        the tied rows; McSherry & Najork, ECIR 2008).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [3.0, 2.0, 1.0, None]})
    >>> df.select(pr.f1("rel", 2, by="score"))
    shape: (1, 1)
    ┌─────┐
    │ rel │
    │ --- │
    │ f64 │
    ╞═════╡
    │ 0.4 │
    └─────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    return r.finish(f1_value(r, cutoff(k), _threshold(threshold)))


def average_precision(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
) -> pl.Expr:
    r"""Average precision (AP; MAP with ``query=``), as trec_eval's ``map`` / ``map_cut.k``.

    .. math:: \mathrm{AP@k} = \frac{1}{R} \sum_{r \le k,\ l_r \ge t} \mathrm{P@r}

    R is the number of relevant rows of the list, retrieved or not and whatever the
    cutoff (trec_eval, ranx, ir_measures; not min(R, k)). 0 when R = 0. See Buckley &
    Voorhees, "Evaluating evaluation measure stability", SIGIR 2000.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff. ``None`` = the whole ranked list.
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant.
    query
        Column(s) identifying a query: the mean over queries (MAP).
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (relevant rows
        first / last among ties) or ``"expected"`` (the exact mean over every order of
        the tied rows; McSherry & Najork, ECIR 2008).

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
    >>> df.select(pr.average_precision("rel"))  # (1 + 2/3 + 3/5) / 3
    shape: (1, 1)
    ┌──────────┐
    │ rel      │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.755556 │
    └──────────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    return r.finish(average_precision_value(r, cutoff(k), _threshold(threshold)))


def reciprocal_rank(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
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
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant.
    query
        Column(s) identifying a query: the mean over queries (MRR).
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (relevant rows
        first / last among ties) or ``"expected"`` (the exact mean over every order of
        the tied rows; McSherry & Najork, ECIR 2008).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": [1, 1, 2, 2, 3], "rel": [0, 1, 1, 0, 0]})
    >>> df.select(pr.reciprocal_rank("rel", query="qid"))  # (1/2 + 1 + 0) / 3
    shape: (1, 1)
    ┌─────┐
    │ rel │
    │ --- │
    │ f64 │
    ╞═════╡
    │ 0.5 │
    └─────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    return r.finish(reciprocal_rank_value(r, cutoff(k), _threshold(threshold)))


def hit_rate(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
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
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant.
    query
        Column(s) identifying a query: the share of queries with a hit.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (relevant rows
        first / last among ties) or ``"expected"`` (the exact mean over every order of
        the tied rows; McSherry & Najork, ECIR 2008).

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
    ┌─────┬─────┐
    │ qid ┆ rel │
    │ --- ┆ --- │
    │ i64 ┆ f64 │
    ╞═════╪═════╡
    │ 1   ┆ 1.0 │
    │ 2   ┆ 0.0 │
    └─────┴─────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    return r.finish(hit_rate_value(r, cutoff(k), _threshold(threshold)))


def r_precision(
    rel: IntoExpr,
    *,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
) -> pl.Expr:
    r"""R-precision: precision at R, the number of relevant rows of the list.

    .. math:: \mathrm{RPrec} = \frac{|\{r \le R : l_r \ge t\}|}{R}

    As trec_eval's ``Rprec``: relevant rows among the top R retrieved, divided by R
    (so rows never retrieved count as misses); 0 when R = 0. See Manning, Raghavan &
    Schütze, *Introduction to Information Retrieval*, 2008, 8.4.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant.
    query
        Column(s) identifying a query: the mean over queries, each query once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (relevant rows
        first / last among ties) or ``"expected"`` (the exact mean over every order of
        the tied rows; McSherry & Najork, ECIR 2008).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [4.0, 3.0, 2.0, None]})
    >>> df.select(pr.r_precision("rel", by="score"))  # R = 3; top 3 holds 2 hits
    shape: (1, 1)
    ┌──────────┐
    │ rel      │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.666667 │
    └──────────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    return r.finish(r_precision_value(r, _threshold(threshold)))


def rbp(
    rel: IntoExpr,
    p: float = 0.8,
    *,
    k: int | None = None,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
) -> pl.Expr:
    r"""Rank-biased precision (Moffat & Zobel, TOIS 2008), binary relevance.

    .. math:: \mathrm{RBP} = (1 - p) \sum_{r=1}^{k} \mathrm{rel}_r \, p^{r-1}

    A user reads rank r + 1 with probability ``p`` after rank r. ``rel_r`` is 1 when
    the label is >= ``threshold`` (ranx ``rbp.p``; trec_eval 10's graded ``rbp`` is
    not this). The default p = 0.8 is ir_measures'.

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
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant.
    query
        Column(s) identifying a query: the mean over queries, each query once.
    ties
        ``"first"`` (input order), ``"optimistic"`` / ``"pessimistic"`` (relevant rows
        first / last among ties) or ``"expected"`` (the exact mean over every order of
        the tied rows; McSherry & Najork, ECIR 2008).

    Returns
    -------
    pl.Expr
        Float64 in [0, 1); NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1]})
    >>> df.select(pr.rbp("rel", 0.5))  # 0.5 * (1 + 0.25)
    shape: (1, 1)
    ┌───────┐
    │ rel   │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.625 │
    └───────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    persistence = check_real(p, "p", low=0, low_open=True, high=1, high_open=True,
                             allowed="a number strictly between 0 and 1")
    return r.finish(rbp_value(r, persistence, cutoff(k), _threshold(threshold)))


def bpref(
    rel: IntoExpr,
    *,
    by: By = None,
    rank: Rank = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties = "first",
) -> pl.Expr:
    r"""Binary preference (Buckley & Voorhees, SIGIR 2004), exactly as trec_eval's ``bpref``.

    .. math:: \mathrm{bpref} = \frac{1}{R} \sum_{\text{relevant retrieved } r}
              \left(1 - \frac{\min(n_r, R)}{\min(R, N)}\right)

    where :math:`n_r` is the number of *judged* non-relevant rows ranked above r and
    N the number of judged non-relevant rows of the list (retrieved or not).
    Unjudged rows (null label) are ignored entirely. 0 when R = 0.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged: neither relevant nor judged non-relevant).
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        Instead of ``by``: positions from a ranking step run once for every metric,
        a column of 1-based ranks (null = not retrieved), or the pair (first, last)
        of tie bounds; see :func:`polars_rank.ranked`.
    descending
        Sort direction, one bool or one per key of ``by``.
    threshold
        Labels >= threshold are relevant; judged labels below it are non-relevant.
    query
        Column(s) identifying a query: the mean over queries, each query once.
    ties
        ``"first"`` (input order), ``"optimistic"`` or ``"pessimistic"`` (relevant rows
        first / last among ties). ``"expected"`` raises NotImplementedError: this
        metric has no closed form for it.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [0, 1, None, 1, 0], "score": [5, 4, 3, 2, None]})
    >>> df.select(pr.bpref("rel", by="score"))  # (1 - 1/2 + 1 - 1/2) / 2
    shape: (1, 1)
    ┌─────┐
    │ rel │
    │ --- │
    │ f64 │
    ╞═════╡
    │ 0.5 │
    └─────┘
    """
    r = Ranked.build(rel, by=by, descending=descending, ties=ties, query=query, rank=rank)
    return r.finish(bpref_value(r, _threshold(threshold)))
