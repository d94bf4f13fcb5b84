"""The number of queries evaluated: trec_eval's ``num_q``, ir_measures' ``NumQ``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.compat import per_list
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties
from polars_rank._language.metric_spec import MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["num_q"]


NUM_Q = MetricSpec(
    "num_q",
    aliases=("numq",),
    cutoff=False,
    trec_eval="num_q",
    summary="queries evaluated (summed)",
    paper="trec_eval (NIST, 2006)",
    over_queries="sum",
)
"""``num_q``'s spec: 1 per query, summed over queries (trec_eval's count)."""


@shared_parameters
@metric(NUM_Q)
def num_q(
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
    r"""Number of queries, ir_measures' ``NumQ`` (trec_eval's ``num_q``); summed.

    .. math:: \mathrm{num\_q} = 1 \text{ per list}

    1 for each list, so that the sum over queries (``query=``, and
    :func:`polars_rank.evaluate`, which sums it as trec_eval does) counts them. In
    ``evaluate(..., missing="zero")`` a judged query the run did not answer counts
    0, as in ir_measures, whose ``NumQ`` is the number of queries both in the run
    and in the qrels.

    Parameters
    ----------
    rel
        Relevance label (not read, but for the list's validity).
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
    >>> df = pl.DataFrame({"q": [1, 1, 2], "rel": [1, 0, 1], "score": [3.0, 2.0, 1.0]})
    >>> df.select(pr.num_q("rel", by="score", query="q"))
    shape: (1, 1)
    ┌───────┐
    │ num_q │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 2.0   │
    └───────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(per_list(1.0), summary=NUM_Q.over_queries)
