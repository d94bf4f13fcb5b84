"""A toy metric, declared in this one file: its spec beside its kernel (issue 38, item 1).

Importing this module is all it takes: the decorator registers the spec, and the
metric strings, ``evaluate()``, the ``rank`` namespace, the CLI's list and the docs
table find it (tests/test_metric_spec.py). Nothing else in the package is edited.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, check_real, check_threshold
from polars_rank._engine.ranked import cutoff
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec, Option
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.sets import hits_value

if TYPE_CHECKING:
    from collections.abc import Sequence

    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Ties, Unset
    from polars_rank._language.naming import UnjudgedOptions

TOY = MetricSpec(
    "toy", aliases=("toy_hits",),
    options=(THRESHOLD, Option("weight", float, 1.0, description="each hit's worth")),
    trec_eval="", trec_cut=("toy_cut",), spellings={"settoy": {}},
    summary="weight x relevant rows in the top k (a test's toy)",
    paper="tests/toy_metric.py (issue 38)", over_queries="sum",
    # no "expected": the refusal is the spec's, in one place (polars_rank._language.naming)
    ties=("first", "optimistic", "pessimistic", "trec_eval", "trec_eval9"))


@shared_parameters
@metric(TOY)
def toy(
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    weight: float = 1.0,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""A toy: ``weight`` times the relevant rows in the top k.

    .. math:: \mathrm{toy@k} = w \, |\{r \le k : l_r \ge t\}|

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
    weight
        Each relevant row's worth.
    query
        ...
    ties
        ...

    Returns
    -------
    pl.Expr
        Float64 >= 0.
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    w = check_real(weight, "weight", allowed="a finite number")
    return r.finish(w * hits_value(r, cutoff(k), check_threshold(threshold)),
                    summary=TOY.over_queries)
