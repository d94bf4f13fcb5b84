"""Step 1 of an evaluation: the arguments, checked, and the inputs as lazy frames.

Every later step reads one :class:`Options` value; column names the steps add to
frames are defined here, once.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank._engine.rules import is_number
from polars_rank._engine.sort_keys import LABEL_TIES, TREC_TIES
from polars_rank.errors import InvalidDataError
from polars_rank.metrics.incomplete import check_unjudged_order

if TYPE_CHECKING:
    from collections.abc import Mapping

    from polars_rank._evaluation.spec import EvaluationSpec
    from polars_rank.registry import Metric

__all__ = ["Options", "PerQuery", "check_arguments", "inputs", "read_once"]

DOC_TIES = (*TREC_TIES, "doc_ascending")
"""The policies that order equal scores by document id (and so need the ``doc`` column)."""

# columns the steps add; the public ones (RANK, RANK_LAST) are ranked()'s output
RANK = "rank"
RANK_LAST = "rank_last"
LIST = "__polars_rank_list"
"""A number per ranked list (UInt64 or UInt32): sorting and grouping on it is cheaper
than on the id strings."""
N_RET = "__polars_rank_n_retrieved"
_GAIN_RANK = "__polars_rank_rank_by_gain_"
"""Ranks with ties ordered by a metric's gain (:attr:`Options.gain_ranks`), numbered."""
TIE_FIRST = "__polars_rank_tie_first"
TIE_LAST = "__polars_rank_tie_last"
"""The score's tie spans (AUC counts a tied pair one half, whatever the tie policy)."""
JUDGED = "__polars_rank_judged"
RETRIEVED = "__polars_rank_retrieved"
POOLED = "__polars_rank_pooled"
"""True on the rows of the qrels (judged or pooled but not judged), false on the
list ends: the ``pooled=`` of the metrics that read it (``MetricDef.reads_pool``)."""
RELEVANT = "__polars_rank_relevant_"
HITS = "__polars_rank_hits_"
PRECISION = "__polars_rank_precision_"
PRECISION_SUM = "__polars_rank_precision_sum_"
IDEAL = "__polars_rank_ideal"
"""Columns computed once for every metric (:class:`polars_rank._engine.ranked.RankColumn`),
all but the last numbered per relevance threshold."""


@dataclass(frozen=True)
class Options:
    """:func:`polars_rank.evaluate`'s checked arguments, passed down as one value."""

    named: list[tuple[str, Metric]]
    query: str
    doc: str
    score: str
    rel: str
    groups: list[str]
    ties: str
    missing: str
    validate: bool
    max_grade: float | None
    has_doc: bool
    all_groups: pl.LazyFrame | None = None  # missing="zero": groups of the whole run
    subtopic: str | None = None
    """The qrels' subtopic column (diversity qrels: a row per (query, subtopic, doc)),
    when they have one; the other metrics read the qrels collapsed to one row per
    (query, doc) with the largest label."""
    absent: Mapping[str, float | None] = field(default_factory=dict)
    """``missing="zero"``: metric column -> what a judged query with nothing retrieved
    scores, where the dialect says (:meth:`polars_rank.registry.Convention.absent`);
    the others score as ``trec_eval -c``."""

    @property
    def intents(self) -> list[tuple[str, Metric]]:
        """The intent-aware metrics (they read the subtopic rows)."""
        return [(name, m) for name, m in self.named if m.definition.subtopics]

    @property
    def plain(self) -> list[tuple[str, Metric]]:
        """Every other metric (one row per (query, doc))."""
        return [(name, m) for name, m in self.named if not m.definition.subtopics]

    @property
    def keys(self) -> list[str]:
        """The columns naming a ranked list: the groups, then the query."""
        return [*self.groups, self.query]

    @property
    def columns(self) -> list[str]:
        """The metric columns, named as given."""
        return [name for name, _ in self.named]

    @property
    def needs_pooled(self) -> bool:
        """Whether a metric tells pooled unjudged rows from unpooled ones (infAP)."""
        return any(m.definition.reads_pool for _, m in self.named)

    @property
    def needs_tie_span(self) -> bool:
        """Whether the score's tie spans are needed beside the ranks (AUC)."""
        return any(m.definition.reads_tie_spans for _, m in self.named)

    @property
    def gain_ranks(self) -> dict[str, pl.Expr]:
        """Rank columns by gain: their names -> the gains of the ``rel`` column.

        Under ``ties="optimistic"`` / ``"pessimistic"``, one per distinct row gain that
        orders ties otherwise than the label (a metric's gain table,
        :meth:`Metric.tie_gain`); none otherwise.
        """
        if self.ties not in LABEL_TIES:
            return {}
        labels = pl.col(self.rel).cast(pl.Float64)
        distinct: list[pl.Expr] = []
        for _, m in self.plain:
            gain = m.tie_gain(labels)
            # meta.eq, not the text: Polars shortens a long literal list in an
            # expression's text, so two gain tables can print alike
            if gain is not None and not any(gain.meta.eq(d) for d in distinct):
                distinct.append(gain)
        return {f"{_GAIN_RANK}{i}": gain for i, gain in enumerate(distinct)}

    def rank_of(self, metric: Metric) -> str | tuple[str, str]:
        """The ``rank=`` a metric reads: tie spans for AUC and ties="expected".

        Under ``ties="optimistic"`` / ``"pessimistic"``, a metric whose gain table
        reorders the labels reads the ranks by its gain (:attr:`gain_ranks`).
        """
        if self.ties == "expected":
            return (RANK, RANK_LAST)
        if metric.definition.reads_tie_spans:
            return (TIE_FIRST, TIE_LAST)
        gain = metric.tie_gain(pl.col(self.rel).cast(pl.Float64))
        if gain is not None and self.ties in LABEL_TIES:
            return next(name for name, g in self.gain_ranks.items() if g.meta.eq(gain))
        return RANK


class PerQuery(NamedTuple):
    """:func:`~polars_rank._evaluation.pipeline.per_query_values`' result."""

    frame: pl.LazyFrame
    """One row per evaluated (group..., query): the keys, then the metrics."""
    options: Options
    without_judgments: list[pl.DataFrame]
    """Validation's one-row summaries: count, example keys."""


def _check_columns(frame: pl.LazyFrame, what: str, needed: dict[str, str]) -> pl.Schema:
    """``needed``: column -> the evaluate() parameter that names it."""
    schema = frame.collect_schema()
    for column, param in needed.items():
        if column not in schema:
            msg = (f"{what} has no column {column!r} (named by {param}=); "
                   f"its columns are {list(schema)}")
            raise InvalidDataError(msg)
    return schema


def _check_numeric(schema: pl.Schema, column: str, what: str) -> None:
    dtype = schema[column]
    if not is_number(dtype):
        msg = f"{what} column {column!r} must be numeric, got {dtype}"
        raise InvalidDataError(msg)


Frame: TypeAlias = "pl.DataFrame | pl.LazyFrame"


def inputs(run: Any, qrels: Any, spec: EvaluationSpec) -> tuple[Frame, Frame | None]:
    """The run and the qrels as Polars frames: the one conversion of an evaluation.

    Any input :func:`polars_rank._engine.frames.as_polars` reads (pandas, Arrow, dicts) is
    read here once; every later step, :func:`check_arguments` first, takes the
    Polars frames.
    """
    return (as_polars(run, "run", query=spec.query, doc=spec.doc, value=spec.score),
            None if qrels is None else as_polars(qrels, "qrels", query=spec.query,
                                                 doc=spec.doc, value=spec.rel))


def read_once(run: Frame, qrels: Frame | None,
              spec: EvaluationSpec) -> tuple[Frame, Frame | None]:
    """The inputs in memory, each read once, with the columns an evaluation reads.

    The checks of the data and the ranking need every row before any metric; reading a
    LazyFrame here once (both inputs in one ``collect_all``, the columns projected, so
    a Parquet scan reads only those) is the evaluation's one pass over the data, and
    every later step (each tie-policy pass, each ``unjudged`` variant, the absent
    queries of ``missing="zero"``) reads memory. Inputs lacking a column the spec
    needs come back as they are: :func:`check_arguments`' error then lists their
    columns, not the projection's.
    """
    run_schema = run.collect_schema()
    needed = [*spec.groups, spec.query, spec.score,
              *([spec.doc] if qrels is not None else [spec.rel])]
    wanted = [*needed, spec.doc]
    frames = [run.lazy().select([c for c in dict.fromkeys(wanted) if c in run_schema])]
    complete = all(c in run_schema for c in needed)
    if qrels is not None:
        qrels_schema = qrels.collect_schema()
        complete = complete and all(c in qrels_schema for c in (spec.query, spec.doc, spec.rel))
        judged = [spec.query, spec.doc, spec.rel, spec.subtopic, spec.judgment_group]
        frames.append(qrels.lazy().select([c for c in judged if c in qrels_schema]))
    if not complete:
        return run, qrels
    read = pl.collect_all(frames)
    return read[0], (read[1] if qrels is not None else None)


def check_arguments(
    run: Frame,
    qrels: Frame | None,
    named: list[tuple[str, Metric]],
    spec: EvaluationSpec,
    *,
    ties: str,
    missing: str,
    validate: bool,
    all_groups: pl.DataFrame | None = None,
    absent: Mapping[str, float | None] | None = None,
) -> tuple[Options, pl.LazyFrame, pl.LazyFrame | None]:
    """Check the columns for one pass of ``spec``; its options and the inputs as lazy frames.

    The inputs are Polars frames, from :func:`inputs`. ``named``: the pass's metrics
    (none for ``ranked()``), ranked under ``ties`` and averaged over ``missing``'s
    queries (:meth:`EvaluationSpec.passes`); ``validate``: whether this pass checks the
    data. The spec's subtopic column is kept when the qrels have it (see
    :func:`_check_intents`). Join keys whose types differ between run and qrels are
    cast to text on both sides. ``absent``: :attr:`Options.absent`.
    """
    for _, metric in named:  # the ranking step decides ties: the metrics cannot check
        if metric.definition.of_unjudged:
            check_unjudged_order(ties, str(metric))
    query, doc, score, rel, subtopic = spec.query, spec.doc, spec.score, spec.rel, spec.subtopic
    groups = list(spec.groups)
    max_grades = [m.max_grade for _, m in named if m.max_grade is not None]

    lazy_run = run.lazy()
    needed = {query: "query", score: "score", **dict.fromkeys(groups, "group_by")}
    if qrels is not None or ties in DOC_TIES:
        needed[doc] = "doc"
    if qrels is None:
        needed[rel] = "rel"
    run_schema = _check_columns(lazy_run, "run", needed)
    _check_numeric(run_schema, score, "run")
    lazy_qrels = None
    has_subtopic = False
    if qrels is not None:
        lazy_qrels = qrels.lazy()
        qrels_schema = _check_columns(lazy_qrels, "qrels",
                                      {query: "query", doc: "doc", rel: "rel"})
        _check_numeric(qrels_schema, rel, "qrels")
        has_subtopic = subtopic in qrels_schema
        lazy_qrels = lazy_qrels.select(query, doc, rel, *([subtopic] if has_subtopic else []))
        for key in (query, doc):  # join keys: make differing id types agree
            if run_schema[key] != qrels_schema[key]:
                lazy_run = lazy_run.with_columns(pl.col(key).cast(pl.String))
                lazy_qrels = lazy_qrels.with_columns(pl.col(key).cast(pl.String))
        if rel in run_schema:
            lazy_run = lazy_run.drop(rel)
    else:
        _check_numeric(run_schema, rel, "run")
    has_subtopic = _check_intents(named, has_subtopic, subtopic, ties, has_qrels=qrels is not None)
    options = Options(
        named=named, query=query, doc=doc, score=score, rel=rel, groups=groups, ties=ties,
        missing=missing, validate=validate, max_grade=min(max_grades) if max_grades else None,
        has_doc=doc in run_schema, all_groups=None if all_groups is None else all_groups.lazy(),
        subtopic=subtopic if has_subtopic else None, absent=dict(absent or {}),
    )
    return options, lazy_run, lazy_qrels


def _check_intents(named: list[tuple[str, Metric]], has_subtopic: bool, subtopic: str,
                   ties: str, *, has_qrels: bool) -> bool:
    """Whether the qrels' subtopic column is read; the intent-aware metrics' checks.

    They need qrels (a run's own labels name no subtopic) and rank documents by doc
    id on equal scores (ndeval's order) or in the run's row order. Qrels without the
    column hold one subtopic per query, as ir_measures then reads them (with a
    warning, here too).
    """
    asked = [name for name, m in named if m.definition.subtopics]
    if not asked:
        return has_subtopic
    if not has_qrels:
        msg = (f"{asked[0]}: an intent-aware metric reads diversity qrels (a row per "
               f"query, subtopic and document): pass qrels= with a {subtopic!r} column")
        raise ValueError(msg)
    if ties not in (*TREC_TIES, "first"):
        msg = (f"{asked[0]}: an intent-aware metric under ties={ties!r}: a document's "
               "novelty depends on every document above it, so there is no closed form "
               "over tie orders; use ties='trec_eval' (equal scores by doc id as ndeval "
               "orders them, ascending) or 'first'")
        raise NotImplementedError(msg)
    if not has_subtopic:
        warnings.warn(
            f"{asked[0]}: the qrels have no {subtopic!r} column, so every document is "
            "judged for one subtopic per query (as ir_measures reads such qrels); read "
            "diversity qrels with read_qrels(path, subtopics=True)",
            UserWarning, stacklevel=4)
    return has_subtopic
