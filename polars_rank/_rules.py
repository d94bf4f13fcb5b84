"""The rules data must follow, written once for every entry point.

:func:`polars_rank.evaluate` raises :class:`~polars_rank.InvalidDataError` at the
first row breaking one (naming the query), :func:`polars_rank.validate` lists the
rows that break them, and a metric expression, which cannot stop a query plan,
evaluates to NaN for a list holding such a row.

Null relevance (unjudged) and a null score (judged but not retrieved) are valid.
"""

from __future__ import annotations

import polars as pl

__all__ = ["label_rules", "score_rules"]


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
    """(problem, row mask) for a ranking score (any type; only floats can be NaN)."""
    return [("NaN score", score.cast(pl.Float64, strict=False).is_nan())]
