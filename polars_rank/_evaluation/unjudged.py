"""Unjudged documents in an evaluation: ``unjudged=`` and ``bounds=True``.

The ranking step keeps only the judged rows of each list (:mod:`.judged`), which is
all that ``unjudged="low"``, ``"ignore"`` and ``"condensed"`` read. ``"high"`` needs
the unjudged retrieved rows too, so it is the same rule written on the data
(:mod:`polars_rank._engine.unjudged`): a run carrying its labels, every unjudged retrieved
document of a judged query labelled ``unjudged_grade`` (the largest label of the
qrels, at least 1, by default), each list's unretrieved judgments beside it, evaluated by the
one pipeline. The two evaluations' per-query values are joined on the list keys; a
list the run retrieved nothing for has nothing to relabel, so its high value is its
low one (``missing="zero"``).

:func:`polars_rank.ranked` takes the same ``unjudged=``: its frame is the ranking of
the relabelled run under ``"high"`` (:func:`high_run`), and each list's positions
among its judged rows under ``"condensed"`` (:func:`condensed_ranks`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

import polars as pl

from polars_rank._engine.condensed import judged_only_ranking
from polars_rank._engine.unjudged import HIGH, LOW
from polars_rank._evaluation.judged_frame import rank_columns
from polars_rank._evaluation.spec import under_policy
from polars_rank._language.metric_spec import UNJUDGED_GRADE, UNJUDGED_POLICY
from polars_rank.registry import Metric

if TYPE_CHECKING:
    from polars_rank._evaluation.options import Frame, Options

__all__ = ["evaluate_variants", "high_run", "condensed_ranks"]

_TOP = "__polars_rank_top_label"
_TWIN = "__polars_rank_low_twin_"


def _is_high(metric: Metric) -> bool:
    return metric.options.get(UNJUDGED_POLICY.name) == HIGH


def _grade(metric: Metric) -> float | None:
    grade = metric.options.get(UNJUDGED_GRADE.name)
    return None if grade is None else float(grade)


class OneVariant(Protocol):
    """The pipeline on one data variant: ``high`` for the relabelled run of ``"high"``."""

    def __call__(self, named: list[tuple[str, Metric]], run: Frame, qrels: Frame | None, *,
                 high: bool) -> tuple[pl.LazyFrame, Options, list[pl.DataFrame]]: ...


def evaluate_variants(
    named: list[tuple[str, Metric]],
    run: Frame,
    qrels: Frame | None,
    evaluate: OneVariant,
) -> tuple[pl.LazyFrame, Options, list[pl.DataFrame]]:
    """The per-query values of ``named``: one evaluation per data variant, joined.

    ``evaluate(named, run, qrels, high=...)`` is the pipeline on one variant. Metrics
    asked twice (``<name>`` and ``<name>_low``) are computed once.
    """
    distinct: dict[Metric, str] = {}
    for name, m in named:
        distinct.setdefault(m, name)
    main = [(name, m) for m, name in distinct.items() if not _is_high(m)]
    highs: dict[float | None, list[tuple[str, Metric]]] = {}
    for m, name in distinct.items():
        if _is_high(m):
            grade, top = _grade(m), m.max_grade
            if grade is not None and top is not None and grade > top:
                msg = f"{name}: unjudged_grade={grade:g} is above ERR's max_grade={top:g}"
                raise ValueError(msg)
            highs.setdefault(_grade(m), []).append((name, m))
    twins: dict[str, str] = {}  # high column -> its low twin's column (lists not retrieved)
    for i, (name, m) in enumerate(v for group in highs.values() for v in group):
        low = under_policy(m, LOW)
        if low not in distinct:
            distinct[low] = f"{_TWIN}{i}"
            main.append((distinct[low], low))
        twins[name] = distinct[low]
    frame, options, unjudged = evaluate(main, run, qrels, high=False)
    keys = options.keys
    for grade, group in highs.items():
        stripped = [(name, Metric(m.definition, m.k,
                                  {k: v for k, v in m.options.items()
                                   if k not in (UNJUDGED_POLICY.name, UNJUDGED_GRADE.name)}))
                    for name, m in group]
        high, _, _ = evaluate(stripped, high_run(run, qrels, options, grade), None,
                              high=True)
        frame = frame.join(high.select(*keys, pl.lit(True).alias(_TOP),
                                       *(pl.col(n).alias(f"{n}{_TOP}") for n, _ in group)),
                           on=keys, how="left", nulls_equal=True)
        present = pl.col(_TOP).fill_null(False)  # a null value (AUC) is a value
        frame = frame.with_columns(
            pl.when(present).then(pl.col(f"{n}{_TOP}")).otherwise(pl.col(twins[n])).alias(n)
            for n, _ in group).drop(_TOP, *(f"{n}{_TOP}" for n, _ in group))
    frame = frame.select(*keys, *(pl.col(distinct[m]).alias(name) for name, m in named))
    return frame, replace(options, named=named), unjudged


def high_run(run: pl.DataFrame | pl.LazyFrame, qrels: pl.DataFrame | pl.LazyFrame | None,
             o: Options, grade: float | None) -> pl.LazyFrame:
    """The run with its labels, every unjudged retrieved row of a judged list at ``grade``.

    ``None``: the largest label of the qrels (of the run without them), at least 1. Each
    list's judgments it did not retrieve follow as rows with a null score, so the
    pipeline reads it with ``qrels=None``.
    """
    query, doc, score, rel, groups = o.query, o.doc, o.score, o.rel, o.groups
    lazy = run.lazy()
    lists = [*groups, query]
    if qrels is None:
        labels = pl.col(rel).cast(pl.Float64)
        top = pl.lit(_top(lazy.select(labels.max()), grade), pl.Float64)
        judged_list = labels.is_not_null().any().over(lists)
        unjudged = labels.is_null() & pl.col(score).is_not_null() & judged_list
        return lazy.with_columns(pl.when(unjudged).then(top).otherwise(labels).alias(rel))
    judged = qrels.lazy()
    judged = judged.select(query, doc, pl.col(rel).cast(pl.Float64))
    run_schema, qrels_schema = lazy.collect_schema(), judged.collect_schema()
    for key in (query, doc):  # as check_arguments: differing id types compared as text
        if run_schema[key] != qrels_schema[key]:
            lazy = lazy.with_columns(pl.col(key).cast(pl.String))
            judged = judged.with_columns(pl.col(key).cast(pl.String))
    if o.subtopic is not None:  # diversity qrels: the largest label per document
        judged = judged.group_by(query, doc).agg(pl.col(rel).max())
    tops = judged.select(query).unique().with_columns(
        pl.lit(_top(judged.select(pl.col(rel).max()), grade), pl.Float64).alias(_TOP))
    retrieved = lazy.filter(pl.col(score).is_not_null()).select(*lists, doc, score)
    labelled = (
        retrieved.join(judged, on=[query, doc], how="left")
        .join(tops, on=query, how="left")
        .with_columns(pl.when(pl.col(rel).is_null() & pl.col(_TOP).is_not_null())
                      .then(pl.col(_TOP))
                      .otherwise(pl.col(rel)).alias(rel))
        .drop(_TOP)
    )
    unretrieved = (
        retrieved.select(lists).unique()
        .join(judged.filter(pl.col(rel).is_not_null()), on=query, how="inner")
        .join(retrieved.select(*lists, doc), on=[*lists, doc], how="anti")
        .with_columns(pl.lit(None, pl.Float64).alias(score))
    )
    return pl.concat([labelled, unretrieved], how="diagonal_relaxed")



def condensed_ranks(o: Options) -> list[pl.Expr]:
    """``ranked()``'s rank columns among each list's judged rows (``unjudged="condensed"``).

    The rule of :mod:`polars_rank._engine.condensed`, applied once to the frame: positions
    re-numbered 1..m in their order, a tie group's bounds to its block among the
    judged rows; an unjudged row (a list's last row) gets none.
    """
    columns = rank_columns(o)
    ranking = judged_only_ranking(pl.col(o.rel), {"rank": (
        tuple(columns) if len(columns) == 2 else columns[0])})["rank"]
    exprs = ranking if isinstance(ranking, tuple) else (ranking,)
    return [e.cast(pl.Int64).over(o.keys).alias(c) for e, c in zip(exprs, columns, strict=True)]


def _top(largest: pl.LazyFrame, grade: float | None) -> float:
    """``grade``, or the largest label (``largest``: one value), at least 1."""
    if grade is not None:
        return grade
    value = largest.collect().item()
    return max(float(value), 1.0) if value is not None else 1.0
