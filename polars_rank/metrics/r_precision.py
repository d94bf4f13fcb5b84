"""R-precision: the share of the top R (the number of relevant rows) that is relevant.

:func:`relevant_within` counts the relevant rows within a depth computed per list, one
implementation per variant of the list; :mod:`polars_rank.metrics.relative` reads it too.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import safe_div
from polars_rank._engine.expected import Expected
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Empty, Ties, check_threshold
from polars_rank._engine.positions import Positions
from polars_rank._engine.ranked import Ranked, cutoff, order_free_sum
from polars_rank._language.metric_spec import EMPTY_LIST, THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["r_precision"]


@functools.singledispatch
def relevant_within(r: Ranked, depth: pl.Expr, threshold: float = 1) -> pl.Expr:
    """Relevant rows ranked within a depth computed per list (R, or a multiple of it).

    ``depth`` may be on every row (from :meth:`Ranked.n_relevant_by_row`).
    """
    inside = pl.when(r.positions() <= depth).then(r.hits(None, threshold)).otherwise(0.0)
    return inside.sum()


@relevant_within.register(Expected)
def _(r: Expected, depth: pl.Expr, threshold: float = 1) -> pl.Expr:
    # the share of each row's tie group within the depth
    lo, hi = r.bounds()
    share = (pl.min_horizontal(hi, depth) - lo + 1).clip(lower_bound=0) / (hi - lo + 1)
    return order_free_sum((r.relevant(threshold) * share).fill_null(0.0))  # fractions


@relevant_within.register(Positions)
def _(r: Positions, depth: pl.Expr, threshold: float = 1) -> pl.Expr:
    hits = r.relevant(threshold)
    return pl.when(r.rank <= depth).then(hits).otherwise(0.0).sum()  # whole counts


def r_precision_value(r: Ranked, threshold: float = 1, k: int | None = None) -> pl.Expr:
    """R-precision of a ranked list (validated parameters), the depth capped at k."""
    def depth(n_rel: pl.Expr) -> pl.Expr:
        return n_rel if k is None else pl.min_horizontal(n_rel, pl.lit(float(k)))

    found = relevant_within(r, depth(r.n_relevant_by_row(threshold)), threshold)
    return safe_div(found, r.n_relevant(threshold))


R_PRECISION = MetricSpec(
    "rprec",
    aliases=("r_precision", "r-prec", "r-precision"),
    options=(THRESHOLD, EMPTY_LIST),
    trec_eval="Rprec",
    summary="relevant in the top min(R, k) / R (precision at R)",
    paper="Manning, Raghavan & Schütze, Introduction to IR, 2008, 8.4",
)
"""``rprec``'s spec: also ``r_precision``, ``r-prec``, ``r-precision``."""


@shared_parameters
@metric(R_PRECISION)
def r_precision(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    empty: Empty = "zero",
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""R-precision: precision at R, the number of relevant rows of the list.

    .. math:: \mathrm{RPrec} = \frac{|\{r \le R : l_r \ge t\}|}{R}

    As trec_eval's ``Rprec``: relevant rows among the top R retrieved, divided by R
    (so rows never retrieved count as misses); 0 when R = 0. See Manning, Raghavan &
    Schütze, *Introduction to Information Retrieval*, 2008, 8.4. With a cutoff k, the
    relevant rows among the top min(R, k), still divided by R: MS Recommenders'
    ``r_precision_at_k`` (recommenders/evaluation/python_evaluation.py), which
    equals recall@k when every query has at least k relevant rows.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cap on the depth R. ``None``: R (trec_eval's ``Rprec``).
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
    empty
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
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [4.0, 3.0, 2.0, None]})
    >>> df.select(pr.r_precision("rel", by="score"))  # R = 3; top 3 holds 2 hits
    shape: (1, 1)
    ┌──────────┐
    │ rprec    │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.666667 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    level = check_threshold(threshold)
    return r.finish_empty(r_precision_value(r, level, cutoff(k)), level, empty)
