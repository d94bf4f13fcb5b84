"""Counts of a ranked list: hits@k (ranx), trec_eval's num_ret, num_rel, num_rel_ret, utility.

trec_eval prints its counts as integers and *sums* them over queries (meas_avg.c);
with ``query=`` these expressions do the same. ``hits`` is ranx's: the number of
relevant rows in the top k, averaged over queries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_real, check_threshold
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._engine.terms import count
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec, Option
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.sets import hits_value

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["hits", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "utility"]


def num_nonrel_judged_ret_value(r: Ranked, threshold: float = 1) -> pl.Expr:
    """Judged rows below the threshold that were retrieved."""
    judged_non = (r.labels < threshold).fill_null(False).cast(pl.Float64)
    return r.rank_sum(judged_non, None, term_sum=count)


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
