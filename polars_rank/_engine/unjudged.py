"""Unjudged documents: what a metric is when they are non-relevant, relevant, or gone.

A retrieved document nobody judged (a null label) is non-relevant to trec_eval and to
every metric here; that is one end of what its judgment could be. Every metric takes
``unjudged=`` (its function and ``rank.`` method, its metric string, and
:func:`polars_rank.evaluate`), one rule about the data applied before the metric, so
no metric has code of its own for it:

* ``"low"`` (the default) and ``"ignore"``: the labels as they are, unjudged rows
  non-relevant (trec_eval's number, what every metric computed before the option;
  ``"ignore"`` says the unjudged rows were not considered, ``"low"`` that the number
  is the pessimistic end of the interval below);
* ``"high"``: every unjudged *retrieved* row is judged at ``unjudged_grade``. The
  metric is then the metric on qrels where those documents are judged, so the
  number of relevant rows R and the ideal ranking (nDCG's IDCG, AP's and
  R-precision's R) grow with them. Unretrieved rows keep their label (null stays
  unjudged). ``unjudged_grade=None``: 1 in an expression; in
  :func:`polars_rank.evaluate`, the largest label of the qrels (at least 1);
* ``"condensed"``: the unjudged rows removed from the ranking (Sakai's condensed
  lists; ``judged_only=True``, :mod:`polars_rank._engine.condensed`).

``bounds=True`` gives both ends at once: a struct ``{low, high}`` from an expression,
two columns ``<name>_low`` and ``<name>_high`` from :func:`polars_rank.evaluate`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias, get_args

import polars as pl

from polars_rank._engine.column_types import checked_label
from polars_rank._engine.condensed import judged_only_ranking
from polars_rank._engine.params import UNSET, check_choice, check_real, to_expr, to_exprs

if TYPE_CHECKING:
    from collections.abc import Callable

    from polars_rank._engine.params import IntoExpr

__all__ = ["UNJUDGED", "Unjudged", "check_unjudged", "high_labels", "with_unjudged",
           "LOW", "HIGH"]

Unjudged: TypeAlias = Literal["low", "high", "ignore", "condensed"]
UNJUDGED: tuple[str, ...] = get_args(Unjudged)
LOW, HIGH = "low", "high"
"""The fields of ``bounds=True``'s struct (and the suffixes of evaluate()'s columns)."""


def check_unjudged(unjudged: object, grade: object, bounds: object = False) -> float | None:
    """Validate the three arguments; the grade as a float (``None``: the list's top label)."""
    check_choice(unjudged, "unjudged", UNJUDGED)
    if not isinstance(bounds, bool):
        msg = f"bounds must be True or False, got {bounds!r}"
        raise TypeError(msg)
    if grade is None:
        return None
    return check_real(grade, "unjudged_grade", low=0, low_open=True,
                      allowed="a positive finite number or None")


def _retrieved(kwargs: dict[str, Any]) -> pl.Expr | None:
    """Which rows the metric call ranks, from its ``rank=`` / ``by=`` (None: not given)."""
    rank = kwargs.get("rank")
    if rank is not None:
        if isinstance(rank, tuple) and len(rank) == 2:
            return to_expr(rank[0], "rank").is_not_null()
        if isinstance(rank, (str, pl.Expr)):
            return to_expr(rank, "rank").is_not_null()
        return None  # the metric's own error
    by = kwargs.get("by", UNSET)
    if by is UNSET:
        return None
    if by is None:  # the row order: every row is retrieved
        return pl.lit(True)
    return to_exprs(by, "by")[0].is_not_null()


def high_labels(rel: IntoExpr, retrieved: pl.Expr, grade: float | None) -> pl.Expr:
    """``rel`` with every unjudged retrieved row at ``grade`` (None: 1).

    A constant: the list's largest label as an aggregate inside the labels makes
    Polars 2.1 panic in a group_by or window ("range start index out of range", in a
    ternary's agg_list), so the default of an expression is 1 and
    :func:`polars_rank.evaluate` passes the qrels' largest label as a number.
    """
    labels = (checked_label(to_expr(rel, "rel")) * 1.0).cast(pl.Float64)  # text: refused
    top = pl.lit(1.0 if grade is None else grade, pl.Float64)
    return pl.when(labels.is_null() & retrieved).then(top).otherwise(labels)


def with_unjudged(call: Callable[[IntoExpr, dict[str, Any]], pl.Expr], rel: IntoExpr,
                  kwargs: dict[str, Any], unjudged: str, grade: float | None, *,
                  bounds: bool = False, name: str = "") -> pl.Expr:
    """``call(rel, kwargs)`` (a metric) under the policy; ``bounds``: the struct {low, high}.

    Arguments the metric checks itself (no ``by``, a bad ``rank``) reach it as they are.
    """
    if bounds:
        low = with_unjudged(call, rel, kwargs, LOW, grade).alias(LOW)
        high = with_unjudged(call, rel, kwargs, HIGH, grade).alias(HIGH)
        return pl.struct(low, high).alias(name)
    if unjudged == "condensed":
        return call(rel, judged_only_ranking(rel, kwargs))
    if unjudged == HIGH:
        retrieved = _retrieved(kwargs)
        if retrieved is not None:
            return call(high_labels(rel, retrieved, grade), kwargs)
    return call(rel, kwargs)
