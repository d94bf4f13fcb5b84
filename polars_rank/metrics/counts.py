"""Counts of a ranked list: hits@k (ranx), trec_eval's num_ret, num_rel, num_rel_ret, utility.

trec_eval prints its counts as integers and *sums* them over queries (meas_avg.c);
with ``query=`` these expressions do the same. ``hits`` is ranx's: the number of
relevant rows in the top k, averaged over queries; it and ``utility``, averaged too,
are defined in :mod:`polars_rank.metrics.averaged_counts` and re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_threshold
from polars_rank._engine.terms import count
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.averaged_counts import hits, utility
from polars_rank.metrics.sets import hits_value

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._engine.ranked import Ranked
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["hits", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "utility"]


def num_nonrel_judged_ret_value(r: Ranked, threshold: float = 1) -> pl.Expr:
    """Judged rows below the threshold that were retrieved."""
    judged_non = (r.labels < threshold).fill_null(False).cast(pl.Float64)
    return r.rank_sum(judged_non, None, term_sum=count)


NUM_RET = MetricSpec(
    "num_ret",
    aliases=("numret",),
    cutoff=False,
    trec_eval="num_ret",
    summary="rows retrieved (summed over queries)",
    paper="trec_eval (NIST, 2006)",
    over_queries="sum",
)
"""``num_ret``'s spec: also ``numret``; its sum over queries."""


@shared_parameters
@metric(NUM_RET)
def num_ret(
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
    r"""Number of retrieved rows, trec_eval's ``num_ret``; summed over queries.

    .. math:: \mathrm{num\_ret} = n

    Rows with a null ``by`` (judged, not retrieved) do not count. trec_eval
    (Buckley, 1991-2006 and NIST) prints it as an integer and sums it over queries,
    as ``query=`` does.

    Parameters
    ----------
    rel
        Relevance label (only its list's length is read).
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
        ...

    Returns
    -------
    pl.Expr
        Float64 count.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"q": [1, 1, 2], "rel": [1, 0, 1], "score": [3.0, None, 1.0]})
    >>> df.select(pr.num_ret("rel", by="score", query="q"))
    shape: (1, 1)
    ┌─────────┐
    │ num_ret │
    │ ---     │
    │ f64     │
    ╞═════════╡
    │ 2.0     │
    └─────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(r.n_retrieved(), summary=NUM_RET.over_queries)


def _relevant_count(relevant: pl.Expr, _: Mapping[str, Any]) -> pl.Expr:
    """num_rel of a query the run lacks: R, as ``trec_eval -c`` prints it (not 0)."""
    return relevant


NUM_REL = MetricSpec(
    "num_rel",
    aliases=("numrel",),
    cutoff=False,
    options=(THRESHOLD,),
    trec_eval="num_rel",
    summary="relevant rows (summed over queries)",
    paper="trec_eval (NIST, 2006)",
    over_queries="sum",
    absent=_relevant_count,
)
"""``num_rel``'s spec: summed over queries; R for a query the run lacks."""


@shared_parameters
@metric(NUM_REL)
def num_rel(
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
    r"""Number of relevant rows, retrieved or not (R), trec_eval's ``num_rel``.

    .. math:: \mathrm{num\_rel} = R = |\{d : l_d \ge t\}|

    Summed over queries, as trec_eval (Buckley, 1991-2006 and NIST) does.

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
        ...

    Returns
    -------
    pl.Expr
        Float64 count.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [2, 0, 1], "score": [3.0, 2.0, None]})
    >>> df.select(pr.num_rel("rel", by="score"),
    ...           pr.num_rel("rel", by="score", threshold=2).alias("r2"))
    shape: (1, 2)
    ┌─────────┬─────┐
    │ num_rel ┆ r2  │
    │ ---     ┆ --- │
    │ f64     ┆ f64 │
    ╞═════════╪═════╡
    │ 2.0     ┆ 1.0 │
    └─────────┴─────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(r.n_relevant(check_threshold(threshold)), summary=NUM_REL.over_queries)


NUM_REL_RET = MetricSpec(
    "num_rel_ret",
    aliases=("numrelret",),
    cutoff=False,
    options=(THRESHOLD,),
    trec_eval="num_rel_ret",
    summary="relevant rows retrieved (summed over queries)",
    paper="trec_eval (NIST, 2006)",
    over_queries="sum",
)
"""``num_rel_ret``'s spec: also ``numrelret``; its sum over queries."""


@shared_parameters
@metric(NUM_REL_RET)
def num_rel_ret(
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
    r"""Number of relevant rows retrieved, trec_eval's ``num_rel_ret``; summed over queries.

    .. math:: \mathrm{num\_rel\_ret} = |\{r \le n : l_r \ge t\}|

    As trec_eval (Buckley, 1991-2006 and NIST); :func:`hits` is the same count at a
    cutoff, averaged over queries as ranx does.

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
        ...

    Returns
    -------
    pl.Expr
        Float64 count.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [2, 0, 1], "score": [3.0, 2.0, None]})
    >>> df.select(pr.num_rel_ret("rel", by="score"))
    shape: (1, 1)
    ┌─────────────┐
    │ num_rel_ret │
    │ ---         │
    │ f64         │
    ╞═════════════╡
    │ 1.0         │
    └─────────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    value = hits_value(r, None, check_threshold(threshold))
    return r.finish(value, summary=NUM_REL_RET.over_queries)


NUM_NONREL_JUDGED_RET = MetricSpec(
    "num_nonrel_judged_ret",
    cutoff=False,
    options=(THRESHOLD,),
    trec_eval="num_nonrel_judged_ret",
    summary="judged non-relevant rows retrieved (summed over queries)",
    paper="trec_eval (NIST, 2006)",
    over_queries="sum",
)
"""``num_nonrel_judged_ret``'s spec: its sum over queries."""


@shared_parameters
@metric(NUM_NONREL_JUDGED_RET)
def num_nonrel_judged_ret(
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
    r"""Judged non-relevant rows retrieved, trec_eval's ``num_nonrel_judged_ret``.

    .. math:: |\{r \le n : 0 \le l_r < t\}|

    Unjudged rows (null label) do not count. Summed over queries, as trec_eval
    (Buckley, 1991-2006 and NIST) does.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged).
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
        Float64 count.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [2, 0, None], "score": [3.0, 2.0, 1.0]})
    >>> df.select(pr.num_nonrel_judged_ret("rel", by="score"))
    shape: (1, 1)
    ┌───────────────────────┐
    │ num_nonrel_judged_ret │
    │ ---                   │
    │ f64                   │
    ╞═══════════════════════╡
    │ 1.0                   │
    └───────────────────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    value = num_nonrel_judged_ret_value(r, check_threshold(threshold))
    return r.finish(value, summary=NUM_NONREL_JUDGED_RET.over_queries)
