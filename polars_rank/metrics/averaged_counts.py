"""Counts averaged over queries: ranx's hits@k and trec_eval's linear utility.

Each is a count of the list's rows (relevant retrieved; retrieved and missed, weighted)
that, unlike trec_eval's counts (:mod:`polars_rank.metrics.counts`), is *averaged*
over queries. :mod:`polars_rank.metrics.counts` re-exports both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_real, check_threshold
from polars_rank._engine.ranked import cutoff
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec, Option
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.sets import hits_value

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["hits", "utility"]


HITS = MetricSpec(
    "hits",
    options=(THRESHOLD,),
    summary="number of relevant rows within k (ranx)",
    paper="Bassani, ECIR 2022",
)
"""``hits``'s spec: ranx's count of relevant rows within k (averaged, not summed)."""


@shared_parameters
@metric(HITS)
def hits(
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
    r"""Hits at k: the number of relevant rows in the top k (ranx's ``hits``).

    .. math:: \mathrm{hits@k} = |\{r \le k : l_r \ge t\}|

    ranx (Bassani, ECIR 2022) averages it over queries, as ``query=`` does here;
    trec_eval's ``num_rel_ret`` is the same count without k, summed over queries
    (:func:`num_rel_ret`). ``hit_rate`` is the 0/1 version.

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
        Float64 count; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1], "score": [3.0, 2.0, 1.0]})
    >>> df.select(pr.hits("rel", 2, by="score"))
    shape: (1, 1)
    ┌────────┐
    │ hits@2 │
    │ ---    │
    │ f64    │
    ╞════════╡
    │ 1.0    │
    └────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(hits_value(r, cutoff(k), check_threshold(threshold)))


def _utility_stand_in(relevant: pl.Expr, options: Mapping[str, Any]) -> pl.Expr | None:
    """Utility of a query the run lacks, with weights given: trec_eval's, not 0."""
    # m_utility.c on trec_eval's stand-in ranking (one unjudged document): b + c R +
    # d (-1 - R); trec_eval.c zeroes only the measure printed as "utility"
    if "weights" not in options:
        return None
    weights: tuple[float, float, float, float] = options["weights"]
    _, b, c, d = weights
    return b + c * relevant + d * (-1.0 - relevant)


UTILITY = MetricSpec(
    "utility",
    cutoff=False,
    options=(
        Option(
            "weights",
            tuple,
            (1.0, -1.0, 0.0, 0.0),
            description="[a,b,c,d]: worth of rel/non-rel retrieved, rel/non-rel missed",
        ),
        THRESHOLD,
        Option("num_docs", int, 0, description="documents in the collection (-N)"),
    ),
    trec_eval="utility, utility.a,b,c,d",
    summary="relevant retrieved - non-relevant retrieved",
    paper="Hull & Robertson, TREC-8, 1999",
    absent=_utility_stand_in,
)
"""``utility``'s spec: trec_eval's ``utility.a,b,c,d``; its value for a query the run lacks."""


@shared_parameters
@metric(UTILITY)
def utility(
    rel: IntoExpr,
    weights: tuple[float, float, float, float] = (1.0, -1.0, 0.0, 0.0),
    *,
    num_docs: int = 0,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Linear utility of the retrieved set, trec_eval's ``utility``.

    .. math:: a\,|rr| + b\,(n - |rr|) + c\,(R - |rr|) + d\,(N + |rr| - n - R)

    with rr the relevant rows retrieved, n the rows retrieved, R the relevant rows and
    N the collection size (``num_docs``, trec_eval's ``-N``, default 0). trec_eval's
    default weights (1, -1, 0, 0) give relevant retrieved minus non-relevant retrieved
    (TREC filtering track; Hull & Robertson, TREC-8, 1999). Averaged over queries.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    weights
        (a, b, c, d): the worth of a relevant retrieved row, a non-relevant retrieved
        one, a relevant missed one and a non-relevant missed one.
    num_docs
        N, the number of documents in the collection.
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
        Float64; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [4.0, 3.0, 2.0, None]})
    >>> df.select(pr.utility("rel", by="score"))  # 2 relevant - 1 non-relevant retrieved
    shape: (1, 1)
    ┌─────────┐
    │ utility │
    │ ---     │
    │ f64     │
    ╞═════════╡
    │ 1.0     │
    └─────────┘
    """
    if len(weights) != 4:
        msg = f"weights must be four numbers (a, b, c, d), got {weights!r}"
        raise ValueError(msg)
    a, b, c, d = (check_real(w, "weights", allowed="four finite numbers") for w in weights)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    t = check_threshold(threshold)
    found, shown = hits_value(r, None, t), r.n_retrieved().cast(pl.Float64)
    relevant = r.n_relevant(t)
    value = (a * found + b * (shown - found) + c * (relevant - found)
             + d * (num_docs + found - shown - relevant))
    return r.finish(value)
