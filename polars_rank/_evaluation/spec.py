"""Step 0 of an evaluation: ``evaluate()``'s arguments, resolved once into one value.

Every entry point builds an :class:`EvaluationSpec` with :func:`resolve` from the
caller's arguments, before it looks at any data: :func:`polars_rank.evaluate`, the
command line (through it), ``compare``/``fuse``/``optimize_fusion`` (through it) and
the Spark and Dask drivers, which ship the spec to their workers. Resolving means:
the dialect with the caller's ``ties`` and ``missing``
(:func:`polars_rank.registry.convention`), the metric strings parsed in that dialect,
``judged_only`` applied, the ``unjudged`` policy and the ``bounds`` variants expanded,
and every argument that needs no data checked. The later steps read the spec and
nothing else of the caller's; they add only what the data decides (the columns'
types, :class:`~polars_rank._evaluation.options.Options`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, get_args

from polars_rank._engine.params import EVAL_TIES, check_choice
from polars_rank._engine.unjudged import HIGH, LOW, check_unjudged
from polars_rank._language.metric_spec import UNJUDGED_GRADE, UNJUDGED_POLICY
from polars_rank.registry import (
    Convention,
    Metric,
    convention,
    parse_metric,
)

if TYPE_CHECKING:
    from polars_rank._engine.params import EvalTies
    from polars_rank._engine.unjudged import Unjudged
    from polars_rank._language.dialects import DialectName

__all__ = ["EvaluationSpec", "Memory", "Missing", "metric_list", "names", "resolve",
           "under_policy", "with_policy"]

Missing = Literal["skip", "zero"]
Memory = Literal["auto", "high", "low"]
JUDGMENT_GROUP = "jg"
"""The judgment-group column of qrels read with ``format="qrels_jg"``."""

Named = tuple[tuple[str, "Metric"], ...]


@dataclass(frozen=True)
class EvaluationSpec:
    """:func:`polars_rank.evaluate`'s arguments, resolved: the one value passed down."""

    asked: Named
    """The metrics as asked, parsed in the dialect (``judged_only`` applied): output name
    and metric."""
    named: Named
    """The output columns: each asked metric under its ``unjudged`` policy, and with
    ``bounds`` its ``<name>_low`` and ``<name>_high`` beside it."""
    convention: Convention
    """The dialect with the caller's ``ties`` and ``missing``: each metric's tie policy
    and the queries its mean is over."""
    query: str
    doc: str
    score: str
    rel: str
    groups: tuple[str, ...]
    per_query: bool
    validate: bool
    memory: Memory
    subtopic: str
    judgment_group: str
    unjudged: Unjudged
    unjudged_grade: float | None
    bounds: bool

    @property
    def keys(self) -> list[str]:
        """The columns naming a ranked list: the groups, then the query."""
        return [*self.groups, self.query]

    def passes(self) -> dict[tuple[str, str], list[tuple[str, Metric]]]:
        """The output columns grouped by (tie policy, queries averaged): one evaluation each.

        One in all, unless the dialect ranks or averages metrics apart (as
        ``"ir_measures"``' providers rank).
        """
        return self.convention.passes(list(self.named))

    def with_metrics(self, asked: Sequence[tuple[str, Metric]],
                     **changes: object) -> EvaluationSpec:
        """The spec for other metrics (and other fields: ``changes``), variants expanded."""
        spec = replace(self, asked=tuple(asked), **changes)  # type: ignore[arg-type]
        return replace(spec, named=with_policy(spec.asked, spec.unjudged,
                                               spec.unjudged_grade, bounds=spec.bounds))


def resolve(
    metrics: str | Metric | Sequence[str | Metric] | None,
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    group_by: str | Sequence[str] | None = None,
    per_query: bool = False,
    ties: EvalTies | None = None,
    missing: Missing | None = None,
    validate: bool = True,
    memory: Memory = "auto",
    dialect: DialectName = "polars-rank",
    subtopic: str = "subtopic",
    judged_only: bool = False,
    unjudged: Unjudged = "low",
    unjudged_grade: float | None = None,
    bounds: bool = False,
    judgment_group: str = JUDGMENT_GROUP,
) -> EvaluationSpec:
    """Check :func:`polars_rank.evaluate`'s arguments and resolve them (see the module).

    Raises the errors of a bad argument (an unknown metric, option, tie policy,
    dialect, a column name that is not text) before any data is read. ``metrics=None``:
    no metric, the ranking only (:func:`polars_rank.ranked`).
    """
    for column, param in ((query, "query"), (doc, "doc"), (score, "score"), (rel, "rel"),
                          (subtopic, "subtopic"), (judgment_group, "judgment_group")):
        if not isinstance(column, str):
            msg = f"{param} must be a column name, got {column!r}"
            raise TypeError(msg)
    if ties is not None:
        check_choice(ties, "ties", EVAL_TIES)
    if missing is not None:
        check_choice(missing, "missing", get_args(Missing))
    check_choice(memory, "memory", get_args(Memory))
    for flag, param in ((per_query, "per_query"), (validate, "validate")):
        if not isinstance(flag, bool):
            msg = f"{param} must be True or False, got {flag!r}"
            raise TypeError(msg)
    grade = check_unjudged(unjudged, unjudged_grade, bounds)
    chosen = convention(dialect, ties=ties, missing=missing)
    asked = () if metrics is None else tuple(metric_list(metrics, dialect,
                                                         judged_only=judged_only))
    return EvaluationSpec(
        asked=asked, named=with_policy(asked, unjudged, grade, bounds=bounds),
        convention=chosen, query=query, doc=doc, score=score, rel=rel,
        groups=tuple(names(group_by, "group_by")), per_query=per_query, validate=validate,
        memory=memory, subtopic=subtopic, judgment_group=judgment_group, unjudged=unjudged,
        unjudged_grade=grade, bounds=bounds)


def names(value: str | Sequence[str] | None, what: str) -> list[str]:
    """Column names given as one name, a list of them, or None."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return list(value)
    msg = f"{what} must be a column name or a list of column names, got {value!r}"
    raise TypeError(msg)


def metric_list(metrics: str | Metric | Sequence[str | Metric],
                dialect: DialectName = "polars-rank", *,
                judged_only: bool = False) -> list[tuple[str, Metric]]:
    """(output name, parsed metric) for each metric asked, names unique.

    ``judged_only``: every metric ranks the judged rows only (trec_eval's ``-J``).
    """
    items = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if not items:
        msg = "metrics must name at least one metric, e.g. ('ndcg@10', 'map')"
        raise ValueError(msg)
    out = [(str(m), parse_metric(m, dialect)) for m in items]
    if not isinstance(judged_only, bool):
        msg = f"judged_only must be True or False, got {judged_only!r}"
        raise TypeError(msg)
    if judged_only:
        out = [(name, Metric(m.definition, m.k, {**m.options, "judged_only": True}))
               for name, m in out]
    given = [name for name, _ in out]
    if len(set(given)) != len(given):
        msg = f"metrics has duplicate names: {given}"
        raise ValueError(msg)
    return out


def with_policy(named: Named, unjudged: str, grade: float | None, *, bounds: bool) -> Named:
    """Every metric under ``unjudged`` (a metric string's own option wins).

    ``bounds``: ``<name>_low`` and ``<name>_high`` beside each ``<name>``. The
    arguments are :func:`resolve`'s, checked there.
    """
    given = {UNJUDGED_POLICY.name: unjudged}
    if grade is not None:
        given[UNJUDGED_GRADE.name] = grade  # type: ignore[assignment]
    out = []
    for name, m in named:
        metric = m
        if unjudged != "low" or grade is not None:
            metric = Metric(m.definition, m.k, {**given, **m.options})
        out.append((name, metric))
        if bounds:
            out += [(f"{name}_{LOW}", under_policy(metric, LOW)), (f"{name}_{HIGH}",
                                                             under_policy(metric, HIGH))]
    return tuple(out)


def under_policy(metric: Metric, unjudged: str) -> Metric:
    """``metric`` under the ``unjudged`` policy ``unjudged``."""
    return Metric(metric.definition, metric.k, {**metric.options, UNJUDGED_POLICY.name: unjudged})
