"""The rules data must follow, written once for every entry point.

:func:`polars_rank.evaluate` raises :class:`~polars_rank.InvalidDataError` at the
first row breaking one (naming the query), :func:`polars_rank.validate` lists the
rows that break them, and a metric expression, which cannot stop a query plan,
evaluates to NaN for a list holding such a row.

Null relevance (unjudged) is valid. A null score is valid where a row carries its
label (a judged document the run did not retrieve), and an error in a run given with
separate qrels (:func:`run_score_rules`). NaN is a value, never a missing one: a NaN
score or label breaks a rule in every input format (:mod:`polars_rank._engine.frames` keeps
pandas' NaN as NaN).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "NAN_IS_NO_MISSING_VALUE",
    "hint",
    "id_rules",
    "is_number",
    "key_type_problem",
    "label_rules",
    "label_type_problem",
    "run_score_rules",
    "score_rules",
    "slice_rules",
]

NAN_SCORE = "NaN score"
NON_FINITE_LABEL = "non-finite relevance (NaN or inf)"
NULL_RUN_SCORE = "null score"
TEXT_LABEL = "text relevance (cast it to a number)"
TEXT_SCORE = "text score (it would rank alphabetically; cast it to a number)"

NAN_IS_NO_MISSING_VALUE = (
    "NaN is a value, not a missing one: a missing score or label is null (in pandas, "
    "None or pd.NA in a nullable column: df.convert_dtypes() turns a float column's "
    "NaN into pd.NA)")
_HINTS = {
    NAN_SCORE: NAN_IS_NO_MISSING_VALUE,
    NON_FINITE_LABEL: NAN_IS_NO_MISSING_VALUE,
    NULL_RUN_SCORE: (
        "a run given with qrels is the documents it retrieved, each ranked by its score; "
        "the judged documents it did not retrieve come from the qrels. Drop the row, or "
        "evaluate one frame holding the labels too (qrels=None), where a null score "
        "means judged but not retrieved"),
}


def hint(problem: str) -> str:
    """What an error breaking rule ``problem`` adds after the offending row ('' if nothing)."""
    return _HINTS.get(problem, "")


def label_rules(label: pl.Expr, max_grade: float | None = None) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask) for the relevance labels (``label`` as Float64).

    A mask is null where the label is (null is valid); ``max_grade`` is ERR's highest
    grade, when an ERR metric is computed.
    """
    rules = [
        ("negative relevance", label < 0),
        (NON_FINITE_LABEL, ~label.is_finite()),
    ]
    if max_grade is not None:
        rules.append((f"relevance above max_grade={max_grade:g}", label > max_grade))
    return rules


def score_rules(score: pl.Expr) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask) for a ranking score (numbers, dates, booleans).

    Only floats can be NaN; a text score is a type error (:func:`key_type_problem`).
    """
    return [(NAN_SCORE, score.cast(pl.Float64, strict=False).is_nan())]


def run_score_rules(score: pl.Expr) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask) for the score of a run given without its labels (with qrels).

    Every row of such a run is a document it retrieved, so it has a score; a judged
    document the run did not retrieve comes from the qrels (their join), not from a run
    row. Where the labels and scores share a frame, a null score is that document and
    is valid: the rule is only for runs evaluated against separate qrels.
    """
    return [(NULL_RUN_SCORE, score.is_null())]


def is_number(dtype: pl.DataType) -> bool:
    """A number column: what a label is, and :func:`evaluate`'s score.

    Booleans are 0/1; an all-null column (``pl.Null``) holds no value to misread.
    """
    return dtype.is_numeric() or dtype == pl.Boolean or dtype == pl.Null


def _is_text(dtype: pl.DataType) -> bool:
    return dtype.base_type() in (pl.String, pl.Categorical, pl.Binary)


def label_type_problem(dtype: pl.DataType) -> str | None:
    """The rule a relevance column's type breaks (None: it is a number).

    A text label would be parsed ("1") or fail; a date or a list is no grade.
    """
    if is_number(dtype):
        return None
    return TEXT_LABEL if _is_text(dtype) else f"relevance of type {dtype} (a label is a number)"


def key_type_problem(dtype: pl.DataType) -> str | None:
    """The rule a ranking key's type breaks (None: it ranks as a number or a date does).

    Text ranks alphabetically ("9.0" above "10.0"); numbers, booleans, dates and
    times rank by value. (:func:`evaluate` reads scores as numbers only, as trec_eval.)
    """
    return TEXT_SCORE if _is_text(dtype) else None


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
