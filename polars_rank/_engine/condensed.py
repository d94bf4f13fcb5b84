"""Condensed lists: a metric over the judged rows of a ranking only.

trec_eval's ``-J`` (``judged_docs_only_flag``, form_res_rels.c:202, trec_eval 10.0)
removes every retrieved document without a judgment, in the pool or not, before any
measure is computed, and ranks the rest in their order: a document at rank 5 below
two unjudged ones is at rank 3. ir_measures' ``judged_only=True`` is the same flag
(its pytrec_eval provider passes ``judged_docs_only_flag``). Here a judged row is a
row with a label (not null); a metric of the condensed list is the same metric with
its ranking rewritten, so every metric takes it, in every mode:

* ``by=``: the first key is null on unjudged rows, which makes them "not retrieved"
  (``by=None``, the row order, becomes the row index with nulls the same way);
* ``rank=``: the positions are re-ranked among the judged rows (a tie-bound pair
  likewise, each bound to its block among the judged rows). A ``rank()`` inside a
  metric is what Polars 1.36 mishandles in ``.over()``: see
  :meth:`polars_rank._engine.ranked.Ranked.bad`.

A judged row the ranking did not retrieve stays not retrieved; unjudged rows then
count for nothing in any metric (null labels are never relevant and have no gain).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.params import UNSET, to_expr, to_exprs

if TYPE_CHECKING:
    from polars_rank._engine.params import IntoExpr

__all__ = ["judged_only_ranking"]


def judged_only_ranking(rel: IntoExpr, kwargs: dict[str, Any]) -> dict[str, Any]:
    """A metric call's ranking arguments (``by``/``rank``/``descending``), judged rows only.

    Arguments the metric checks itself (a missing ``by``, a bad ``rank``) are left as
    they are, for the metric's own error.
    """
    judged = to_expr(rel, "rel").is_not_null()
    rank = kwargs.get("rank")
    if rank is not None:
        if isinstance(rank, tuple) and len(rank) == 2:  # tie spans: each block re-ranked
            first = pl.when(judged).then(to_expr(rank[0], "rank"))
            return {**kwargs, "rank": (first.rank("min"), first.rank("max"))}
        if isinstance(rank, (str, pl.Expr)):
            return {**kwargs, "rank": pl.when(judged).then(to_expr(rank, "rank"))
                    .rank("ordinal")}
        return kwargs
    by = kwargs.get("by", UNSET)
    if by is UNSET:
        return kwargs
    if by is None:  # the row order: the row index, null where unjudged
        return {**kwargs, "by": pl.when(judged).then(pl.int_range(pl.len())),
                "descending": False}
    keys = to_exprs(by, "by")
    return {**kwargs, "by": [pl.when(judged).then(keys[0]), *keys[1:]]}
