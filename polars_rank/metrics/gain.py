"""Graded-gain metrics: DCG, NDCG and ERR."""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.gain_table import check_gains
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import (
    EMPTY,
    UNSET,
    Empty,
    Gain,
    Ties,
    check_choice,
    check_real,
)
from polars_rank._engine.ranked import cutoff
from polars_rank._language.metric_spec import (
    DCG_OPTIONS,
    EMPTY_LIST,
    GAIN_TABLE,
    GAIN_THRESHOLD,
    LINEAR,
    MetricSpec,
)
from polars_rank._language.naming import metric
from polars_rank.metrics._dcg import (
    check_gain_options,
    dcg_row_gain,
    dcg_value,
    ideal_dcg_value,
    ndcg_value,
)
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.err import err

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["dcg", "ideal_dcg", "ndcg", "err"]


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
    level = check_gain_options(gain, threshold)
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
    level = check_gain_options(gain, threshold)
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
    level = check_gain_options(gain, threshold)
    return r.finish(ndcg_value(r, cutoff(k), gain, level, check_choice(empty, "empty", EMPTY),
                               check_gains(gains)))
