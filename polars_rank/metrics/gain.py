"""Graded-gain metrics: DCG, NDCG and ERR."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import SLICES_BY_MANY_OFFSETS, group_sum, safe_div
from polars_rank._engine.expected import Expected
from polars_rank._engine.gain_table import check_gains, gain_of
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import (
    EMPTY,
    GAINS,
    TIES,
    UNSET,
    Empty,
    Gain,
    Ties,
    check_choice,
    check_real,
)
from polars_rank._engine.positions import Positions
from polars_rank._engine.ranked import Ranked, cutoff, when_empty
from polars_rank._engine.terms import by_parts_weights
from polars_rank._language.metric_spec import (
    DCG_OPTIONS,
    EMPTY_LIST,
    GAIN_TABLE,
    GAIN_THRESHOLD,
    LINEAR,
    NO_EXPECTED,
    MetricSpec,
    Option,
)
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._expected_err import POLARS_1_ERR, expected_err

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.gain_table import GainTable
    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["dcg", "ideal_dcg", "ndcg", "err"]


def _gain(labels: pl.Expr, gain: str, threshold: float | None = None) -> pl.Expr:
    """The gain of each label; unjudged (null) and labels below ``threshold`` gain 0.

    Without a threshold a label gains when it is > 0 (only ``"binary"`` needs saying
    so); with one, when it is >= it (ranx's ``-l``; ``threshold=0`` counts every
    judged row, MS Recommenders' binary gain).
    """
    counted = (labels > 0 if threshold is None else labels >= threshold).fill_null(False)
    if gain == "binary":  # 1 per counted label (MS Recommenders' score_type="binary")
        return counted.cast(pl.Float64)
    values = labels.fill_null(0.0)
    gains = pl.lit(2.0).pow(values) - 1.0 if gain == "exponential" else values
    return gains if threshold is None else pl.when(counted).then(gains).otherwise(0.0)


def row_gain(labels: pl.Expr, gain: str = "linear", threshold: float | None = None,
             gains: GainTable | None = None) -> pl.Expr:
    """Each row's gain as DCG sums it: a gain table's for a listed label, else :func:`_gain`."""
    return gain_of(labels, _gain(labels, gain, threshold), gains)


def _discount(gains: pl.Expr, positions: pl.Expr, log_base: float = 2) -> pl.Expr:
    """gains[r] / log_b(1 + r)."""
    return gains / (positions + 1).cast(pl.Float64).log(log_base)


def _dcg_parts(r: Ranked, k: int | None, gain: str, threshold: float | None = None,
               log_base: float = 2,
               gains: GainTable | None = None) -> tuple[pl.Expr, pl.Expr]:
    """(DCG@k of the ranking, ideal DCG@k over every judged row).

    The ideal holds the positive gains only: a gain table may give a label a negative
    gain, which trec_eval's ideal ranking never takes (m_ndcg.c stops at gain <= 0).
    """
    def discount(values: pl.Expr, positions: pl.Expr) -> pl.Expr:
        return _discount(values, positions, log_base)

    g = row_gain(r.labels, gain, threshold, gains)
    actual = r.by_gain(g).rank_sum(g, k, discount)
    if gains and min(gains.values()) < 0:
        g = g.clip(lower_bound=0.0)
    ideal = r.prepared_ideal()
    if ideal is not None and not gains:  # a gain that grows with the label: sorted labels
        ideal_gains = row_gain(ideal, gain, threshold)
    else:
        ideal_gains = g.sort(descending=True)
    ideal_gains = ideal_gains if k is None else ideal_gains.head(k)
    return actual, group_sum(discount(ideal_gains, Ranked.ideal_positions(k)))


def dcg_value(r: Ranked, k: int | None = None, gain: str = "exponential",
              threshold: float | None = None, log_base: float = 2,
              gains: GainTable | None = None) -> pl.Expr:
    """DCG@k of a ranked list (validated parameters)."""
    return _dcg_parts(r, k, gain, threshold, log_base, gains)[0]


def ideal_dcg_value(r: Ranked, k: int | None = None, gain: str = "exponential",
                    threshold: float | None = None, log_base: float = 2,
                    gains: GainTable | None = None) -> pl.Expr:
    """The ideal DCG@k of a list's judged rows (validated parameters)."""
    return _dcg_parts(r, k, gain, threshold, log_base, gains)[1]


def ndcg_value(r: Ranked, k: int | None = None, gain: str = "exponential",
               threshold: float | None = None, empty: str = "zero",
               gains: GainTable | None = None) -> pl.Expr:
    """NDCG@k of a ranked list (validated parameters)."""
    actual, ideal = _dcg_parts(r, k, gain, threshold, gains=gains)
    if gains and min(gains.values()) < 0:  # a negative DCG over a positive ideal
        value = pl.when(ideal > 0).then(actual / ideal).otherwise(0.0)
    else:
        value = safe_div(actual, ideal)
    return when_empty(value, _gain(r.labels, gain, threshold), empty)


def _check_gain_options(gain: str, threshold: float | None) -> float | None:
    check_choice(gain, "gain", GAINS)
    if threshold is None:
        return None
    return check_real(threshold, "threshold", allowed="a finite number or None")


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

def dcg_row_gain(labels: pl.Expr, o: Mapping[str, Any]) -> pl.Expr:
    """A row's gain under DCG's options ``o`` (gain, threshold, gains): ties order by it."""
    return row_gain(labels, o["gain"], o["threshold"], o["gains"])


DCG = MetricSpec(
    "dcg",
    options=DCG_OPTIONS,
    string_defaults=("gain",),
    trec_eval="dcg (trec_eval 10, gain=linear)",
    summary="sum of gain(l_r) / log2(1 + r)",
    paper="Järvelin & Kekäläinen, TOIS 2002",
    row_gain=dcg_row_gain,
    spellings={"dcg_burges": {"gain": "exponential"}},
)
"""DCG's spec: linear gain in strings (trec_eval's), ``dcg_burges`` exponential."""


@shared_parameters
@metric(DCG)
def dcg(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    gain: Gain = "exponential",
    threshold: float | None = None,
    log_base: float = 2,
    gains: Mapping[int, float] | None = None,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Discounted cumulative gain (Järvelin & Kekäläinen, TOIS 2002).

    .. math:: \mathrm{DCG@k} = \sum_{r=1}^{k} \frac{g(l_r)}{\log_b(1 + r)}

    with ``gain="exponential"`` :math:`g(l) = 2^l - 1` (Burges et al., ICML 2005; the
    default), ``gain="linear"`` :math:`g(l) = l` (trec_eval 10 ``dcg``) or
    ``gain="binary"`` (1 per label > 0, or >= ``threshold``), and b = ``log_base``
    (2; scikit-learn's ``dcg_score(log_base=)``, sklearn/metrics/_ranking.py, 1.9).

    Parameters
    ----------
    rel
        Graded relevance label (>= 0; null = unjudged, gain 0).
    k
        Cutoff: only ranks 1..k count. ``None`` = the whole ranked list.
    by
        Ranking key: a score (``descending=True``) or a rank position
        (``descending=False``), optionally followed by tie-breaking keys. Rows whose
        first key is null are judged but not retrieved. ``None``: the current row
        order is the ranking.
    rank
        ...
    doc
        ...
    descending
        ...
    gain
        ``"exponential"`` (2^l - 1), ``"linear"`` (l) or ``"binary"`` (1).
    threshold
        Labels below it gain 0 (ranx's ``dcg@k-l2``: ``threshold=2``); ``None``: none.
    log_base
        Base b of the discount's logarithm, > 1 (scikit-learn's ``log_base``).
    gains
        ...
    query
        Column(s) identifying a query. Without it the whole context is one ranked
        list; with it the metric is computed per query and averaged (each query once).
    ties
        ...

    Returns
    -------
    pl.Expr
        A Float64 scalar per context; NaN for a list that cannot be scored
        (negative or non-finite relevance, NaN score).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [3, 2, 1], "score": [0.9, 0.8, 0.1]})
    >>> df.select(pr.dcg("rel", by="score"), pr.dcg("rel", by="score", gain="linear").alias("lin"))
    shape: (1, 2)
    ┌───────────────────────┬─────────┐
    │ dcg(gain=exponential) ┆ lin     │
    │ ---                   ┆ ---     │
    │ f64                   ┆ f64     │
    ╞═══════════════════════╪═════════╡
    │ 9.392789              ┆ 4.76186 │
    └───────────────────────┴─────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = _check_gain_options(gain, threshold)
    base = check_real(log_base, "log_base", low=1, low_open=True, allowed="a number > 1")
    return r.finish(dcg_value(r, cutoff(k), gain, level, base, check_gains(gains)))




IDEAL_DCG = MetricSpec(
    "ideal_dcg", aliases=("idcg",), options=DCG_OPTIONS, string_defaults=("gain",),
    trec_eval="ideal_dcg (trec_eval 10, gain=linear)",
    summary="DCG of the judged rows ranked by gain: nDCG's denominator",
    paper="Järvelin & Kekäläinen, TOIS 2002", row_gain=dcg_row_gain,
    # trec_eval -c evaluates a query the run lacks on an empty ranking: the ideal
    # of the qrels' labels, not 0
    absent="judgments", empty_value=True)
"""IDCG's spec: linear gain in strings (trec_eval's), a gain table, its absent value."""


@shared_parameters
@metric(IDEAL_DCG)
def ideal_dcg(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    gain: Gain = "exponential",
    threshold: float | None = None,
    log_base: float = 2,
    gains: Mapping[int, float] | None = None,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""The ideal DCG: :func:`dcg` of the list's judged rows ranked by gain, largest first.

    .. math:: \mathrm{IDCG@k} = \sum_{r=1}^{k} \frac{g(l^*_r)}{\log_b(1 + r)}

    where :math:`l^*` are the list's labels (retrieved or not) ordered by gain,
    largest first, and only positive gains count: the denominator of :func:`ndcg`
    (Järvelin & Kekäläinen, TOIS 2002).
    trec_eval 10's ``ideal_dcg`` (m_ndcg.c) is ``gain="linear"`` without a cutoff,
    a gain table as ``-m ideal_dcg.1=3,2=9`` (``gains={1: 3, 2: 9}``). The ranking
    (``by``, ``rank``) decides only which lists are scored: the value does not
    depend on it.

    Parameters
    ----------
    rel
        Graded relevance label (>= 0; null = unjudged, gain 0).
    k
        Cutoff: only ideal ranks 1..k count. ``None`` = every judged row.
    by
        ...
    rank
        ...
    doc
        ...
    descending
        ...
    gain
        ``"exponential"`` (2^l - 1), ``"linear"`` (l) or ``"binary"`` (1).
    threshold
        Labels below it gain 0; ``None``: none.
    log_base
        Base b of the discount's logarithm, > 1.
    gains
        ...
    query
        ...
    ties
        ...

    Returns
    -------
    pl.Expr
        A Float64 scalar per context; NaN for a list that cannot be scored
        (negative or non-finite relevance, NaN score).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 3, 2], "score": [0.9, 0.8, None]})
    >>> df.select(pr.ideal_dcg("rel", by="score", gain="linear"))  # 3 + 2/log2(3) + 1/2
    shape: (1, 1)
    ┌───────────┐
    │ ideal_dcg │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 4.76186   │
    └───────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = _check_gain_options(gain, threshold)
    base = check_real(log_base, "log_base", low=1, low_open=True, allowed="a number > 1")
    return r.finish(ideal_dcg_value(r, cutoff(k), gain, level, base, check_gains(gains)))


NDCG = MetricSpec(
    "ndcg",
    options=(LINEAR, GAIN_THRESHOLD, EMPTY_LIST, GAIN_TABLE),
    string_defaults=("gain",),
    trec_eval="ndcg_cut.k (gain=linear)",
    summary="DCG@k / ideal DCG@k",
    paper="Järvelin & Kekäläinen, TOIS 2002; Burges et al., ICML 2005",
    row_gain=dcg_row_gain,
    spellings={"ndcg_burges": {"gain": "exponential"}},
    trec_cut=("ndcg_cut",),
)
"""nDCG's spec: linear gain in strings (every tool's), ``ndcg_burges`` exponential;
trec_eval's ``ndcg_cut_k``."""


@shared_parameters
@metric(NDCG)
def ndcg(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    gain: Gain = "exponential",
    threshold: float | None = None,
    empty: Empty = "zero",
    gains: Mapping[int, float] | None = None,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Normalised discounted cumulative gain (Järvelin & Kekäläinen, TOIS 2002).

    .. math:: \mathrm{NDCG@k} = \frac{\mathrm{DCG@k}}{\mathrm{IDCG@k}}

    IDCG@k is the DCG@k of the ideal ordering of *every judged row* of the list,
    retrieved or not (rows with a null ``by`` count here), as trec_eval does. A list
    whose IDCG is 0 (nothing relevant) scores 0. trec_eval's ``ndcg`` and
    ``ndcg_cut.k`` are ``gain="linear"``; the default ``"exponential"`` gain is
    Burges' (ranx ``ndcg_burges``, gdeval, TF-Ranking); ``"binary"`` gains 1 per
    label > 0 (or >= ``threshold``), MS Recommenders' ``ndcg_at_k`` default
    (``score_type="binary"``). ``threshold`` zeroes the gain of labels below it, as
    ranx's relevance level (``ndcg@10-l2``: ranx/metrics/ndcg.py drops the qrels
    below it, 0.3.21). NDCG does not depend on the logarithm's base (see :func:`dcg`).

    Parameters
    ----------
    rel
        Graded relevance label (>= 0; null = unjudged, gain 0).
    k
        Cutoff for both DCG and IDCG. ``None`` = the whole list.
    by
        Ranking key(s); see :func:`dcg`. Null = judged but not retrieved.
    rank
        ...
    doc
        ...
    descending
        ...
    gain
        ``"exponential"`` (2^l - 1, default), ``"linear"`` (l, trec_eval) or
        ``"binary"`` (1).
    threshold
        Labels below it gain 0 (ranx's ``-l``); ``None``: every label counts.
    empty
        ...
    gains
        ...
    query
        Column(s) identifying a query: the mean of per-query NDCG, each query once.
    ties
        ...

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank  # registers the `rank` namespace
    >>> df = pl.DataFrame(
    ...     {
    ...         "qid": [1, 1, 1, 2, 2, 2],
    ...         "rel": [2, 3, 1, 0, 1, 1],
    ...         "score": [0.9, 0.8, 0.7, 0.6, 0.5, None],
    ...     }
    ... )
    >>> df.group_by("qid", maintain_order=True).agg(pl.col("rel").rank.ndcg(k=3, by="score"))
    shape: (2, 2)
    ┌─────┬──────────────────────────┐
    │ qid ┆ ndcg@3(gain=exponential) │
    │ --- ┆ ---                      │
    │ i64 ┆ f64                      │
    ╞═════╪══════════════════════════╡
    │ 1   ┆ 0.842828                 │
    │ 2   ┆ 0.386853                 │
    └─────┴──────────────────────────┘

    The second query's unretrieved relevant row (null score) still counts for the
    ideal. With ``query=`` the same expression gives the mean over queries:

    >>> df.select(pl.col("rel").rank.ndcg(k=3, by="score", query="qid"))
    shape: (1, 1)
    ┌──────────────────────────┐
    │ ndcg@3(gain=exponential) │
    │ ---                      │
    │ f64                      │
    ╞══════════════════════════╡
    │ 0.614841                 │
    └──────────────────────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = _check_gain_options(gain, threshold)
    return r.finish(ndcg_value(r, cutoff(k), gain, level, check_choice(empty, "empty", EMPTY),
                               check_gains(gains)))


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
