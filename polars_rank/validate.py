"""Find the rows a metric cannot score.

A raw metric expression cannot stop a query plan, so on bad data it returns NaN for
the affected list. :func:`validate` lists the offending rows, so the NaN can be
traced to a query and a row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, overload

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank._engine.params import check_real, to_expr, to_exprs
from polars_rank._engine.rules import (
    id_rules,
    key_type_problem,
    label_rules,
    label_type_problem,
    run_score_rules,
    score_rules,
    slice_rules,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike
    from polars_rank._engine.params import By, IntoExpr, Query

__all__ = ["validate"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def problems(
    frame: pl.LazyFrame,
    rel: IntoExpr | None,
    *,
    by: By = None,
    query: Query = None,
    doc: IntoExpr | None = None,
    max_grade: float | None = None,
    group_by: str | Sequence[str] | None = None,
) -> list[tuple[str, pl.Expr]]:
    """(description, row mask) for every kind of bad row of ``frame``, as expressions.

    The columns' types are read from ``frame``'s schema (no data is read): a label or
    score of the wrong type puts every row holding a value in the list.
    """
    label = None if rel is None else to_expr(rel, "rel")
    score = None if by is None else to_exprs(by, "by")[0]
    if max_grade is not None:
        max_grade = check_real(max_grade, "max_grade", low=1,
                               allowed="a finite number >= 1 or None")
    dtypes = frame.select(*([] if label is None else [label.alias("label")]),
                          *([] if score is None else [score.alias("score")])).collect_schema()
    checks: list[tuple[str, pl.Expr]] = []
    if label is not None:
        wrong = label_type_problem(dtypes["label"])
        checks += ([(wrong, label.is_not_null())] if wrong is not None
                   else label_rules(label.cast(pl.Float64), max_grade))
    if score is not None:
        wrong = key_type_problem(dtypes["score"])
        rules = score_rules(score) + (run_score_rules(score) if label is None else [])
        checks += ([(wrong, score.is_not_null())] if wrong is not None
                   else [(f"{problem} in `by`", mask) for problem, mask in rules])
    queries = list(to_exprs(query, "query")) if query is not None else []
    if group_by is not None:
        if not queries:
            msg = "validate(group_by=...) checks slices within queries: give query= too"
            raise ValueError(msg)
        checks += slice_rules(list(to_exprs(group_by, "group_by")), queries)
    doc_expr = to_expr(doc, "doc") if doc is not None else None
    checks += id_rules(queries, doc_expr)
    if doc_expr is not None:
        ids = [*queries, doc_expr]
        checks.append(("duplicate (query, doc) row", pl.struct(*ids).is_duplicated()))
    return [(what, mask.fill_null(False)) for what, mask in checks]


@overload
def validate(
    frame: FrameT,
    rel: IntoExpr | None = ...,
    *,
    by: By = ...,
    query: Query = ...,
    doc: IntoExpr | None = ...,
    max_grade: float | None = ...,
    group_by: str | Sequence[str] | None = ...,
) -> FrameT: ...
@overload
def validate(  # pandas, Arrow, dicts, ranx (typed Any): a DataFrame (Dataset: LazyFrame)
    frame: FrameLike,
    rel: IntoExpr | None = ...,
    *,
    by: By = ...,
    query: Query = ...,
    doc: IntoExpr | None = ...,
    max_grade: float | None = ...,
    group_by: str | Sequence[str] | None = ...,
) -> Any: ...
def validate(
    frame: FrameLike,
    rel: IntoExpr | None = "rel",
    *,
    by: By = None,
    query: Query = None,
    doc: IntoExpr | None = None,
    max_grade: float | None = None,
    group_by: str | Sequence[str] | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """List the rows that make a metric NaN, one row per (row, problem).

    Checks: negative, non-finite or text relevance; a NaN or text first ``by`` key;
    with ``max_grade``, relevance above it (ERR); with ``query``, a null query id;
    with ``doc``, a null document id and duplicate (query, doc) rows; with
    ``group_by``, a slice column that varies within a query. Null relevance
    (unjudged) is valid, and so is a null ``by`` in a frame with labels (a judged
    document the run did not retrieve); with ``rel=None`` the frame is a run to be
    evaluated against separate qrels, whose every row is a retrieved document, so a
    null ``by`` is listed. The same rules make :func:`evaluate` raise and a metric
    expression NaN: ``validate(run, None, by="score", query="qid", doc="docid")`` and
    ``validate(qrels, "rel", query="qid", doc="docid")`` list what
    ``evaluate(run, qrels)`` would raise for.

    Parameters
    ----------
    frame
        A DataFrame or LazyFrame, one row per (query, document).
    rel
        Relevance column or expression; ``None`` for a run without labels.
    by
        Ranking key(s); only the first is checked for NaN.
    query
        Query column(s), used with ``doc`` for the duplicate check.
    doc
        Document id column: rows repeating a (query, doc) pair are reported.
    max_grade
        Highest valid label (as given to :func:`polars_rank.err`).
    group_by
        Slice columns (segment, locale): each must be constant within a query (with
        arms, give them in ``query``: ``query=["arm", "qid"]``).

    Returns
    -------
    DataFrame or LazyFrame
        The offending rows (all columns) and a ``problem`` column; empty when the
        data is clean. Lazy in, lazy out.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"qid": ["a", "a", "b"], "rel": [1.0, -1.0, 2.0],
    ...                    "score": [0.5, 0.4, float("nan")]})
    >>> pr.validate(df, "rel", by="score")
    shape: (2, 4)
    ┌─────┬──────┬───────┬────────────────────┐
    │ qid ┆ rel  ┆ score ┆ problem            │
    │ --- ┆ ---  ┆ ---   ┆ ---                │
    │ str ┆ f64  ┆ f64   ┆ str                │
    ╞═════╪══════╪═══════╪════════════════════╡
    │ a   ┆ -1.0 ┆ 0.4   ┆ negative relevance │
    │ b   ┆ 2.0  ┆ NaN   ┆ NaN score in `by`  │
    └─────┴──────┴───────┴────────────────────┘
    >>> run = pl.DataFrame({"qid": ["a", "a"], "docid": ["x", "y"], "score": [0.5, None]})
    >>> pr.validate(run, None, by="score", query="qid", doc="docid")
    shape: (1, 4)
    ┌─────┬───────┬───────┬────────────────────┐
    │ qid ┆ docid ┆ score ┆ problem            │
    │ --- ┆ ---   ┆ ---   ┆ ---                │
    │ str ┆ str   ┆ f64   ┆ str                │
    ╞═════╪═══════╪═══════╪════════════════════╡
    │ a   ┆ y     ┆ null  ┆ null score in `by` │
    └─────┴───────┴───────┴────────────────────┘
    """
    lazy_in = isinstance(frame, pl.LazyFrame)  # a scanned Arrow Dataset comes out eager
    frame = as_polars(frame, "frame", query=query if isinstance(query, str) else "qid",
                      doc=doc if isinstance(doc, str) else "docid",
                      value=rel if isinstance(rel, str)  # a run's dict: its score
                      else by if rel is None and isinstance(by, str) else "rel")
    lazy = frame.lazy()
    parts = [
        lazy.filter(mask).with_columns(problem=pl.lit(what))
        for what, mask in problems(lazy, rel, by=by, query=query, doc=doc,
                                   max_grade=max_grade, group_by=group_by)
    ]
    out = pl.concat(parts, how="vertical")
    return out if lazy_in else out.collect()
