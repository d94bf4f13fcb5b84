"""What the Spark and Dask front ends share: the pieces they hand to polars-rank.

A *piece* is a Polars frame holding every row of its queries: the run's rows and,
when qrels are given, the qrels rows of the same queries, told apart by the
:data:`SIDE` column. :func:`evaluate_piece` runs :func:`evaluate`'s own code path
(``per_query_values``) on it, so the per-query values are those ``evaluate()``
gives in one process. This module imports neither PySpark nor Dask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._evaluation.means import warn_without_judgments as warn_about
from polars_rank._evaluation.pipeline import per_query_values
from polars_rank.errors import DuplicateRowsError, InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.summaries import Summary
    from polars_rank._evaluation.options import Options, PerQuery
    from polars_rank._evaluation.spec import EvaluationSpec

SIDE = "__polars_rank_is_qrels"
"""True on the qrels rows of a combined piece, false on the run's."""
ORDER = "__polars_rank_row"
"""The run's row order, carried through the shuffle for ``ties="first"``."""
WITHOUT_JUDGMENTS = "__polars_rank_without_judgments"
"""Non-null on the rows naming unjudged run queries (for the driver's warning)."""

# A worker's exception reaches us as text; the class name picks the class again.
_DATA_ERRORS = {kind.__name__: kind for kind in (InvalidDataError, DuplicateRowsError)}
_INVALID = re.compile(rf"({'|'.join(_DATA_ERRORS)}): ([^\n]*)")


@dataclass(frozen=True)
class Plan:
    """How to evaluate each piece: the resolved spec, checked on the driver's schemas."""

    spec: EvaluationSpec
    """:func:`evaluate`'s arguments, resolved on the driver: every piece reads it."""
    run_columns: tuple[str, ...]
    with_qrels: bool
    columns: tuple[str, ...]
    summaries: tuple[Summary, ...]
    """How each column's per-query values become one number (the registry's)."""
    all_groups: pl.DataFrame | None = None
    row_order: bool = False
    """The run's row order ranks ties (``ties="first"``, or a dialect's): the front end
    carries it through the shuffle as :data:`ORDER`."""
    fills_absent: bool = False
    """Absent qrels queries score (``missing="zero"``, or a dialect's)."""

    @property
    def query(self) -> str:
        """The query column."""
        return self.spec.query

    @property
    def groups(self) -> tuple[str, ...]:
        """The ``group_by`` columns."""
        return self.spec.groups

    @property
    def keys(self) -> list[str]:
        """The output's key columns: the groups, then the query."""
        return self.spec.keys

    def evaluate(self, run: pl.DataFrame | pl.LazyFrame,
                 qrels: pl.DataFrame | pl.LazyFrame | None) -> PerQuery:
        """``per_query_values`` of this plan's spec."""
        return per_query_values(run, qrels, self.spec, all_groups=self.all_groups)


def make_plan(run: pl.DataFrame, qrels: pl.DataFrame | None, spec: EvaluationSpec, *,
              zscores: object = None) -> Plan:
    """Check the spec on the driver, on empty frames with the inputs' schemas.

    ``run`` and ``qrels`` are empty frames with the distributed frames' columns; the
    check is :func:`evaluate`'s own, so a bad column raises here exactly as in one
    process, before any job starts (a bad metric string or option raised already, in
    :func:`~polars_rank._evaluation.spec.resolve`). What the pieces cannot compute
    yet is refused here.
    """
    if zscores is not None:  # standardised per query against a reference: not yet
        msg = ("zscores: Spark and Dask do not standardise per-query values yet; use "
               "polars_rank.evaluate (or evaluate per query here and join the reference)")
        raise NotImplementedError(msg)
    per = per_query_values(run, qrels, spec)
    per.frame.collect()  # plan-time errors too (types the checks let through)
    _refuse(spec, per.options)
    wanted = [*spec.groups, spec.query, spec.score]
    if spec.doc in run.columns:
        wanted.append(spec.doc)
    if qrels is None:
        wanted.append(spec.rel)
    return Plan(
        spec=spec, run_columns=tuple(dict.fromkeys(wanted)), with_qrels=qrels is not None,
        columns=tuple(per.options.columns),
        summaries=tuple(m.definition.over_queries for _, m in per.options.named),
        row_order=per.options.ties == "first", fills_absent=per.options.missing == "zero",
    )


def _refuse(spec: EvaluationSpec, options: Options) -> None:
    """What a piece cannot compute: a qrels column the pieces lack, a string per query."""
    for kind, column, needs in (
            ("intent-aware", spec.subtopic, lambda m: m.definition.subtopics),
            ("judgment-group", spec.judgment_group,
             lambda m: m.definition.per_judgment_group is not None)):
        refused = [name for name, m in options.named if needs(m)]
        if refused:
            msg = (f"{refused[0]}: the {kind} metrics are not computed on Spark or Dask "
                   f"yet (their qrels pieces hold no {column!r} column); use "
                   "polars_rank.evaluate on each part of the data holding whole queries")
            raise NotImplementedError(msg)
    text = [name for name, m in options.named if m.definition.over_queries == "none"]
    if text:  # every metric column of a piece is Float64
        msg = (f"{', '.join(text)}: a string per query, which the Spark and Dask front ends "
               "do not return (they give numbers); use polars_rank.evaluate for it")
        raise ValueError(msg)


def key_casts(run: pl.DataFrame, qrels: pl.DataFrame | None, plan: Plan) -> list[str]:
    """The join keys :func:`evaluate` casts to strings: their types differ in run and qrels."""
    if qrels is None:
        return []
    return [key for key in (plan.spec.query, plan.spec.doc)
            if run.schema[key] != qrels.schema[key]]


def needs_all_groups(plan: Plan) -> bool:
    """``missing="zero"`` with groups: each piece needs every group of the run."""
    return plan.fills_absent and bool(plan.groups) and plan.with_qrels


def output_schema(run: pl.DataFrame, plan: Plan, casts: Sequence[str]) -> pl.Schema:
    """The schema of :func:`evaluate_piece`'s result."""
    schema = {g: run.schema[g] for g in plan.groups}
    schema[plan.query] = pl.String() if plan.query in casts else run.schema[plan.query]
    schema.update(dict.fromkeys(plan.columns, pl.Float64()))
    schema[WITHOUT_JUDGMENTS] = pl.Int64()
    return pl.Schema(schema)


def evaluate_piece(piece: pl.DataFrame, plan: Plan) -> pl.DataFrame:
    """Per-query values of one piece, then rows naming its unjudged queries.

    The result has the key columns, one Float64 column per metric and
    :data:`WITHOUT_JUDGMENTS`: null on the per-query rows; on up to three example rows of the
    piece's unjudged run queries (metrics null), their count on the first, 0 on the
    others. Raises :class:`InvalidDataError` as :func:`evaluate` does.
    """
    if plan.with_qrels:
        run = piece.filter(~pl.col(SIDE))
        qrels: pl.DataFrame | None = piece.filter(pl.col(SIDE)).select(
            plan.spec.query, plan.spec.doc, plan.spec.rel
        )
    else:
        run, qrels = piece, None
    if ORDER in run.columns:
        run = run.sort(ORDER)
    run = run.select(plan.run_columns)
    if plan.all_groups is not None:
        all_groups = plan.all_groups.cast({g: run.schema[g] for g in plan.groups})
        plan = replace(plan, all_groups=all_groups)
    per = plan.evaluate(run, qrels)
    values = per.frame.collect()
    keys, columns = plan.keys, list(plan.columns)
    parts = [values.select(*keys, *columns)
             .with_columns(pl.lit(None, pl.Int64).alias(WITHOUT_JUDGMENTS))]
    for summary in per.without_judgments:
        count = int(summary.item(0, 0))
        if count:
            examples = summary.select(pl.col(summary.columns[1]).explode()).unnest(
                summary.columns[1]
            )
            flags = [count] + [0] * (examples.height - 1)
            parts.append(examples.with_columns(
                *(pl.lit(None, pl.Float64).alias(c) for c in columns),
                pl.Series(WITHOUT_JUDGMENTS, flags, pl.Int64),
            ).select(parts[0].columns))
    return pl.concat(parts, how="vertical_relaxed") if len(parts) > 1 else parts[0]


def warn_without_judgments(rows: Sequence[dict[str, object]], plan: Plan) -> None:
    """The warning :func:`evaluate` gives, from the pieces' :data:`WITHOUT_JUDGMENTS` rows."""
    count = sum(int(row[WITHOUT_JUDGMENTS]) for row in rows)  # type: ignore[call-overload]
    examples = [{k: row[k] for k in plan.keys} for row in rows]
    summary = pl.DataFrame({"len": [count], "e": [examples]})
    warn_about([summary], plan.query, list(plan.groups))


def data_error(error: BaseException) -> InvalidDataError | None:
    """The :class:`InvalidDataError` a worker raised, from the error that reached us."""
    found = _INVALID.search(str(error))
    if found is None:
        return None
    return _DATA_ERRORS[found.group(1)](found.group(2).strip())
