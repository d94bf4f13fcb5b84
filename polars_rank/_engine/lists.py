"""Which variant of a ranked list a metric reads: chosen once, from how it is given and its ties.

:func:`ranked_list` validates a metric's common parameters (``by``, ``rank``, ``ties``,
``query``, ``doc``) and builds one of the four variants of
:class:`~polars_rank._engine.ranked.Ranked`; :func:`retied` reads the same list under
another tie policy. Nothing else chooses a variant.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.column_types import checked_keys, checked_label
from polars_rank._engine.compat import PREPARED_RANKS
from polars_rank._engine.keys import SortKeys, TieAveraged
from polars_rank._engine.params import (
    TIES,
    UNSET,
    check_choice,
    check_descending,
    to_expr,
    to_exprs,
)
from polars_rank._engine.positions import Positions, RankColumn, TieSpans
from polars_rank._engine.ranked import Ranked, default_ties
from polars_rank._engine.sort_keys import TREC_TIES, trec_score

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset

__all__ = ["ranked_list", "retied"]


def ranked_list(
    rel: IntoExpr,
    *,
    by: By | Unset,
    descending: bool | Sequence[bool],
    ties: str | None,
    query: Query,
    rank: Rank = None,
    doc: IntoExpr | None = None,
) -> Ranked:
    """Validate the common parameters and describe the list as its variant.

    ``rank=`` gives :class:`Positions` (a column) or :class:`TieSpans` (a pair, first
    and last); ``by=`` gives :class:`TieAveraged` under ``ties="expected"``, else
    :class:`SortKeys` (trec_eval's tie orders become its last sort keys).
    """
    rel_expr = to_expr(rel, "rel")
    if by is UNSET:
        if rank is None:
            msg = ("a metric needs by= (the column to rank by, e.g. a score, highest "
                   "first) or rank= (each row's position); by=None ranks the rows in "
                   "their current order")
            raise TypeError(msg)
        by = None
    doc_expr = None if doc is None else to_expr(doc, "doc")
    if ties is None:
        ties = default_ties(by=by, rank=rank, doc=doc_expr)
    check_choice(ties, "ties", TIES)
    query_exprs = () if query is None else to_exprs(query, "query")
    # `* 1.0`, not a cast: a text label fails when the plan is resolved ("arithmetic
    # on dtypes str and dyn float") where a cast would parse "1"; it costs the same
    labels = (checked_label(rel_expr) * 1.0).cast(pl.Float64)
    if rank is not None:
        if by is not None:
            msg = ("give either by= (rank each list here) or rank= (positions ranked "
                   "before), not both")
            raise ValueError(msg)
        if ties != "first":
            msg = (f"ties={ties!r} with rank=: the ranking step decides ties; for "
                   "ties='expected' pass its tie spans, rank=('rank', 'rank_last') "
                   "from polars_rank.ranked(..., ties='expected')")
            raise ValueError(msg)
        first, last = _rank_columns(rank)
        # Polars 1.x: the marked column gave wrong numbers there (an nDCG@5 of
        # 0.52 for 0.89, tests/test_evaluate.py::test_run_with_labels_and_no_qrels),
        # so it is read as a plain rank column, as before RankColumn
        prepared = rank if isinstance(rank, RankColumn) and PREPARED_RANKS else None
        # its columns hold the labels' numbers: not those of labels rewritten here
        same = (prepared is not None and prepared.labels is not None
                and rel_expr.meta.eq(pl.col(prepared.labels)))
        if last is not None:
            return TieSpans(labels=labels, ties="expected", query=query_exprs, rank=first,
                            rank_last=last, doc=doc_expr, rank_ordered=prepared is not None,
                            checked=prepared is not None and prepared.checked,
                            prepared=prepared if same else None,
                            longest=None if prepared is None else prepared.longest)
        return Positions(labels=labels, ties="first", query=query_exprs, rank=first,
                         doc=doc_expr, rank_ordered=prepared is not None,
                         checked=prepared is not None and prepared.checked,
                         prepared=prepared if same else None,
                         longest=None if prepared is None else prepared.longest)
    keys = () if by is None else to_exprs(by, "by")
    desc = check_descending(descending, max(len(keys), 1))[: len(keys)]
    if ties == "expected" and not keys:
        msg = "ties='expected' needs a ranking key `by` (without one, rows cannot tie)"
        raise ValueError(msg)
    given = [rel_expr, *keys, *([] if doc_expr is None else [doc_expr])]
    columns_only = all(e.meta.is_column() for e in given)
    keys = checked_keys(keys)  # a text key: InvalidDataError naming it, at plan time
    score = keys[0] if keys else None
    if ties in TREC_TIES:
        if doc_expr is None or not keys:
            msg = (f"ties={ties!r} orders equal scores by document id, descending: "
                   "it needs by= (the score) and doc= (the document id column)")
            raise ValueError(msg)
        # trec_eval compares scores as doubles (9: floats) and doc ids as text, byte-wise
        keys = (trec_score(keys[0], ties), *keys[1:], doc_expr.cast(pl.String))
        desc = (*desc, True)
        ties = "first"
    variant = TieAveraged if ties == "expected" else SortKeys
    return variant(labels=labels, keys=keys, descending=desc, ties=ties, query=query_exprs,
                   doc=doc_expr, score=score, columns_only=columns_only)


def retied(r: Ranked, ties: str) -> Ranked:
    """The same list under another tie policy (``"expected"`` or a strict order).

    A strict order of a tie span reads its first position (its ``rank_last`` kept for
    the checks of :meth:`Ranked.bad`); ``"optimistic"`` / ``"pessimistic"`` of ranking
    keys order the tied rows by relevance.
    """
    given = {f.name: getattr(r, f.name) for f in fields(r)} | {"ties": ties}
    if isinstance(r, Positions):
        if ties == "expected" and r.rank_last is not None:
            return TieSpans(**given)
        return Positions(**given)
    assert isinstance(r, SortKeys)
    return (TieAveraged if ties == "expected" else SortKeys)(**given)


def _rank_columns(rank: Rank) -> tuple[pl.Expr, pl.Expr | None]:
    """``rank=``: a column (positions), or a tie span (first, last)."""
    if isinstance(rank, (str, pl.Expr)):
        return to_expr(rank, "rank"), None
    if isinstance(rank, tuple) and len(rank) == 2:
        return to_expr(rank[0], "rank"), to_expr(rank[1], "rank")
    msg = ("rank must be a column of positions or a tie span (first, last), "
           f"got {rank!r}")
    raise TypeError(msg)
