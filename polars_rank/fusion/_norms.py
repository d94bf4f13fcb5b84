"""Score normalisations as expressions over one query's scores, exactly as ranx's.

Each function returns a ``pl.Expr`` over its context: ``.over("qid")`` (or
``.over("system", "qid")`` on a frame of several runs) normalises each query's list,
``group_by("qid").agg(...)`` gives the list of normalised scores. The definitions, the
``1e-9`` floors included, are ranx 0.3.21's (``ranx/normalization/*.py``, AmenRa/ranx
commit 2cae52f); :func:`polars_rank.fusion.normalize` applies them to whole runs
(and adds the rows Borda normalisation gives the documents a run did not return).
The sums (sum and z-score normalisation) add the values smallest first, and the
rank-based ones order equal scores by document id when given ``doc``, so that no
value depends on the order of the rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.sums import ordered_sum
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from polars_rank._engine.params import IntoExpr

__all__ = ["min_max_norm", "max_norm", "sum_norm", "zmuv_norm", "rank_norm", "borda_norm"]

FLOOR = 1e-9
"""ranx's smallest denominator: a list whose scores are all equal divides by it."""


def _col(score: IntoExpr) -> pl.Expr:
    return pl.col(score) if isinstance(score, str) else score


def _positions(s: pl.Expr, doc: IntoExpr | None) -> pl.Expr:
    """0-based position by score, highest first; equal scores by ``doc`` descending.

    Without ``doc``, equal scores in input order.
    """
    if doc is None:
        return s.rank("ordinal", descending=True).cast(pl.Float64) - 1.0
    # a struct is named as its first field: the result keeps the score's name
    key = pl.struct(s, _col(doc)).rank("ordinal", descending=True)
    return pl.when(s.is_not_null()).then(key).cast(pl.Float64) - 1.0


@shared_parameters
def min_max_norm(score: IntoExpr = "score", *, invert: bool = False) -> pl.Expr:
    r"""Min-max normalisation: the lowest score becomes 0, the highest 1.

    .. math:: \frac{s - s_{min}}{\max(s_{max} - s_{min}, 10^{-9})}
        \quad\text{or, with } \texttt{invert=True}, \quad
        \frac{s_{max} - s}{\max(s_{max} - s_{min}, 10^{-9})}

    ``invert=True`` is ranx's ``"min-max-inverted"``, for distances (lower is
    better): the lowest score becomes 1. A list whose scores are all equal (one
    document, say) becomes all 0, as in ranx (``min_max_norm.py``).

    Parameters
    ----------
    score
        ... fusion
    invert
        Map the highest score to 0 and the lowest to 1.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": ["a", "a", "a", "b"], "score": [2.0, 4.0, 3.0, 7.0]})
    >>> df.with_columns(
    ...     norm=pr.min_max_norm("score").over("qid"),
    ...     inverted=pr.min_max_norm("score", invert=True).over("qid"),
    ... )
    shape: (4, 4)
    ┌─────┬───────┬──────┬──────────┐
    │ qid ┆ score ┆ norm ┆ inverted │
    │ --- ┆ ---   ┆ ---  ┆ ---      │
    │ str ┆ f64   ┆ f64  ┆ f64      │
    ╞═════╪═══════╪══════╪══════════╡
    │ a   ┆ 2.0   ┆ 0.0  ┆ 1.0      │
    │ a   ┆ 4.0   ┆ 1.0  ┆ 0.0      │
    │ a   ┆ 3.0   ┆ 0.5  ┆ 0.5      │
    │ b   ┆ 7.0   ┆ 0.0  ┆ 0.0      │
    └─────┴───────┴──────┴──────────┘
    """
    s = _col(score).cast(pl.Float64)
    low, high = s.min(), s.max()
    spread = pl.max_horizontal(high - low, pl.lit(FLOOR))
    return ((high - s) if invert else (s - low)) / spread


@shared_parameters
def max_norm(score: IntoExpr = "score") -> pl.Expr:
    r"""Max normalisation: each score over the list's highest score.

    .. math:: \frac{s}{\max(s_{max}, 10^{-9})}

    As ranx (``max_norm.py``): when the highest score is not positive the scores
    are divided by :math:`10^{-9}`.

    Parameters
    ----------
    score
        ... fusion

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": ["a", "a", "b"], "score": [2.0, 4.0, 5.0]})
    >>> df.with_columns(norm=pr.max_norm("score").over("qid"))
    shape: (3, 3)
    ┌─────┬───────┬──────┐
    │ qid ┆ score ┆ norm │
    │ --- ┆ ---   ┆ ---  │
    │ str ┆ f64   ┆ f64  │
    ╞═════╪═══════╪══════╡
    │ a   ┆ 2.0   ┆ 0.5  │
    │ a   ┆ 4.0   ┆ 1.0  │
    │ b   ┆ 5.0   ┆ 1.0  │
    └─────┴───────┴──────┘
    """
    s = _col(score).cast(pl.Float64)
    return s / pl.max_horizontal(s.max(), pl.lit(FLOOR))


@shared_parameters
def sum_norm(score: IntoExpr = "score") -> pl.Expr:
    r"""Sum normalisation: the lowest score becomes 0 and the scores sum to 1.

    .. math:: \frac{s - s_{min}}{\max(\sum_{s'} (s' - s_{min}), 10^{-9})}

    As ranx (``sum_norm.py``, whose denominator is :math:`\sum s' - n\,s_{min}`): a
    list whose scores are all equal becomes all 0.

    Parameters
    ----------
    score
        ... fusion

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": ["a", "a", "a"], "score": [1.0, 2.0, 4.0]})
    >>> df.with_columns(norm=pr.sum_norm("score").over("qid"))
    shape: (3, 3)
    ┌─────┬───────┬──────┐
    │ qid ┆ score ┆ norm │
    │ --- ┆ ---   ┆ ---  │
    │ str ┆ f64   ┆ f64  │
    ╞═════╪═══════╪══════╡
    │ a   ┆ 1.0   ┆ 0.0  │
    │ a   ┆ 2.0   ┆ 0.25 │
    │ a   ┆ 4.0   ┆ 0.75 │
    └─────┴───────┴──────┘
    """
    s = _col(score).cast(pl.Float64)
    low = s.min()
    total = ordered_sum(s) - low * s.len().cast(pl.Float64)
    return (s - low) / pl.max_horizontal(total, pl.lit(FLOOR))


@shared_parameters
def zmuv_norm(score: IntoExpr = "score") -> pl.Expr:
    r"""Z-score (zero mean, unit variance) normalisation.

    .. math:: \frac{s - \bar s}{\max(\sigma, 10^{-9})}, \quad
        \sigma = \sqrt{\tfrac{1}{n} \textstyle\sum (s - \bar s)^2}

    with the population standard deviation (NumPy's ``np.std``), as ranx
    (``zmuv_norm.py``): a list whose scores are all equal becomes all 0.

    Parameters
    ----------
    score
        ... fusion

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": ["a", "a", "b"], "score": [1.0, 3.0, 5.0]})
    >>> df.with_columns(norm=pr.zmuv_norm("score").over("qid"))
    shape: (3, 3)
    ┌─────┬───────┬──────┐
    │ qid ┆ score ┆ norm │
    │ --- ┆ ---   ┆ ---  │
    │ str ┆ f64   ┆ f64  │
    ╞═════╪═══════╪══════╡
    │ a   ┆ 1.0   ┆ -1.0 │
    │ a   ┆ 3.0   ┆ 1.0  │
    │ b   ┆ 5.0   ┆ 0.0  │
    └─────┴───────┴──────┘
    """
    s = _col(score).cast(pl.Float64)
    n = s.count().cast(pl.Float64)
    centred = s - ordered_sum(s) / n
    sd = (ordered_sum(centred * centred) / n).sqrt()
    return centred / pl.max_horizontal(sd, pl.lit(FLOOR))


@shared_parameters
def rank_norm(score: IntoExpr = "score", *, doc: IntoExpr | None = None) -> pl.Expr:
    r"""Rank normalisation: the document at rank r of n scores 1 - (r - 1) / n.

    .. math:: 1 - \frac{r - 1}{n}

    The top document scores 1, the last 1/n (ranx's ``rank_norm.py``). Equal scores
    take ranks by ``doc`` id, descending (trec_eval's order, as
    :func:`polars_rank.fuse` and :func:`polars_rank.fusion.normalize` rank them), or
    without ``doc`` in input order (ranx: in the order of its sorted run, the input
    order for lists of up to 15 documents), which a join or a shuffle changes.

    Parameters
    ----------
    score
        ... ranked
    doc
        The document id column or expression that orders equal scores (descending);
        ``None``: the rows' order.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": ["a", "a", "a", "a"], "docid": ["w", "x", "y", "z"],
    ...                    "score": [0.2, 0.9, 0.5, 0.5]})
    >>> df.with_columns(norm=pr.rank_norm("score", doc="docid").over("qid"))
    shape: (4, 4)
    ┌─────┬───────┬───────┬──────┐
    │ qid ┆ docid ┆ score ┆ norm │
    │ --- ┆ ---   ┆ ---   ┆ ---  │
    │ str ┆ str   ┆ f64   ┆ f64  │
    ╞═════╪═══════╪═══════╪══════╡
    │ a   ┆ w     ┆ 0.2   ┆ 0.25 │
    │ a   ┆ x     ┆ 0.9   ┆ 1.0  │
    │ a   ┆ y     ┆ 0.5   ┆ 0.5  │
    │ a   ┆ z     ┆ 0.5   ┆ 0.75 │
    └─────┴───────┴───────┴──────┘
    """
    s = _col(score)
    return -(_positions(s, doc) / s.len().cast(pl.Float64)) + 1.0  # named as the score


@shared_parameters
def borda_norm(score: IntoExpr = "score", *, candidates: IntoExpr | int,
               doc: IntoExpr | None = None) -> pl.Expr:
    r"""Borda normalisation of the documents a run returned for a query.

    .. math:: 1 - \frac{r - 1}{|C|}

    with r the document's rank in the run and C the query's candidates, the
    documents any of the fused runs returned for it. A document the run did not
    return scores :math:`\frac12 - \frac{|r| - 1}{2 |C|}`, |r| the length of the run's
    list (ranx's ``borda_norm.py``); an expression cannot add those rows:
    :func:`polars_rank.fusion.normalize` and :func:`polars_rank.fuse` with
    ``norm="borda"`` do. Equal scores take ranks by ``doc`` id, descending, or
    without ``doc`` in input order (as :func:`rank_norm`).

    Parameters
    ----------
    score
        ... ranked
    candidates
        The number of candidates of the query (an int, or an expression such as
        ``pl.col("docid").n_unique().over("qid")`` on a frame of several runs).
    doc
        The document id column or expression that orders equal scores (descending);
        ``None``: the rows' order.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": ["a", "a"], "score": [0.2, 0.9]})
    >>> df.with_columns(norm=pr.borda_norm("score", candidates=4).over("qid"))
    shape: (2, 3)
    ┌─────┬───────┬──────┐
    │ qid ┆ score ┆ norm │
    │ --- ┆ ---   ┆ ---  │
    │ str ┆ f64   ┆ f64  │
    ╞═════╪═══════╪══════╡
    │ a   ┆ 0.2   ┆ 0.75 │
    │ a   ┆ 0.9   ┆ 1.0  │
    └─────┴───────┴──────┘
    """
    size = (pl.lit(candidates) if isinstance(candidates, int) else _col(candidates))
    return -(_positions(_col(score), doc) / size.cast(pl.Float64)) + 1.0
