"""The rules data must follow, written once for every entry point.

:func:`polars_rank.evaluate` raises :class:`~polars_rank.InvalidDataError` at the
first row breaking one (naming the query), :func:`polars_rank.validate` lists the
rows that break them, and a metric expression, which cannot stop a query plan,
evaluates to NaN for a list holding such a row.

Null relevance (unjudged) and a null score (judged but not retrieved) are valid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["id_rules", "label_rules", "score_rules", "slice_rules", "type_rules"]


def label_rules(label: pl.Expr, max_grade: float | None = None) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask) for the relevance labels (``label`` as Float64).

    A mask is null where the label is (null is valid); ``max_grade`` is ERR's highest
    grade, when an ERR metric is computed.
    """
    rules = [
        ("negative relevance", label < 0),
        ("non-finite relevance (NaN or inf)", ~label.is_finite()),
    ]
    if max_grade is not None:
        rules.append((f"relevance above max_grade={max_grade:g}", label > max_grade))
    return rules


def score_rules(score: pl.Expr) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask) for a ranking score (numbers, dates, booleans).

    Only floats can be NaN; text is read as numbers (a text score is a type error:
    ``evaluate()`` checks the column type, an expression fails when its plan is
    resolved, and :func:`validate` names it with :func:`type_rules`).
    """
    return [("NaN score", score.cast(pl.Float64, strict=False).is_nan())]


def type_rules(score: pl.Expr | None, label: pl.Expr) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask) for text where a number belongs, for :func:`validate`.

    A text score would rank alphabetically ("9.0" above "10.0") and a text label
    would be parsed; ``evaluate()`` checks the column types and the expressions fail
    on them when the plan is resolved, but ``validate`` lists rows: a value is text
    when casting it to text leaves it as it is (equal hashes).
    """
    def text(e: pl.Expr) -> pl.Expr:
        return (e.cast(pl.String, strict=False).hash() == e.hash()) & e.is_not_null()

    rules = [("text relevance (cast it to a number)", text(label))]
    if score is not None:
        rules.append(("text score (it would rank alphabetically; cast it to a number)",
                      text(score)))
    return rules


def slice_rules(slices: Sequence[pl.Expr], query: Sequence[pl.Expr]) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask): a slice column that varies within a query's rows.

    A slice (segment, locale) describes a query; one that describes rows (a
    document's category) would split a query's list in two, each scored alone.
    """
    return [(f"slice column {s.meta.output_name()!r} varies within the query",
             s.n_unique().over(list(query)) > 1) for s in slices]


def id_rules(query: Sequence[pl.Expr], doc: pl.Expr | None = None) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask) for the ids: a row of no query, or of no document."""
    rules = [("null query id", pl.any_horizontal(q.is_null() for q in query))] if query else []
    if doc is not None:
        rules.append(("null document id", doc.is_null()))
    return rules
