"""Find the rows a metric cannot score.

A raw metric expression cannot stop a query plan, so on bad data it returns NaN for
the affected list. :func:`validate` lists the offending rows, so the NaN can be
traced to a query and a row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar, overload

import polars as pl

from polars_rank._frames import as_polars
from polars_rank._params import check_real, to_expr, to_exprs
from polars_rank._rules import id_rules, label_rules, score_rules, slice_rules, type_rules

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._frames import FrameLike
    from polars_rank._params import By, IntoExpr, Query

__all__ = ["validate"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def problems(
    rel: IntoExpr,
    *,
    by: By = None,
    query: Query = None,
    doc: IntoExpr | None = None,
    max_grade: float | None = None,
    group_by: str | Sequence[str] | None = None,
) -> list[tuple[str, pl.Expr]]:
    """(description, row mask) for every kind of bad row, as expressions."""
    label = to_expr(rel, "rel")
    labels = label.cast(pl.Float64, strict=False)
    if max_grade is not None:
        max_grade = check_real(max_grade, "max_grade", low=1,
                               allowed="a finite number >= 1 or None")
    checks = label_rules(labels, max_grade)
    score = None if by is None else to_exprs(by, "by")[0]
    if score is not None:
        checks += [(f"{problem} in `by`", mask)
                   for problem, mask in score_rules(score)]
    checks += type_rules(score, label)
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
    rel: IntoExpr = ...,
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
    rel: IntoExpr = ...,
    *,
    by: By = ...,
    query: Query = ...,
    doc: IntoExpr | None = ...,
    max_grade: float | None = ...,
    group_by: str | Sequence[str] | None = ...,
) -> Any: ...
def validate(
    frame: FrameLike,
    rel: IntoExpr = "rel",
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
    (unjudged) and null ``by`` (not retrieved) are valid. The same rules make
    :func:`evaluate` raise and a metric expression NaN.

    Parameters
    ----------
    frame
        A DataFrame or LazyFrame, one row per (query, document).
    rel
        Relevance column or expression.
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
    """
    lazy_in = isinstance(frame, pl.LazyFrame)  # a scanned Arrow Dataset comes out eager
    frame = as_polars(frame, "frame", query=query if isinstance(query, str) else "qid",
                      doc=doc if isinstance(doc, str) else "docid",
                      value=rel if isinstance(rel, str) else "rel")
    lazy = frame.lazy()
    parts = [
        lazy.filter(mask).with_columns(problem=pl.lit(what))
        for what, mask in problems(rel, by=by, query=query, doc=doc, max_grade=max_grade,
                                   group_by=group_by)
    ]
    out = pl.concat(parts, how="vertical")
    return out if lazy_in else out.collect()
