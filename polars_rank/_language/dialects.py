"""Dialects: each tool's whole convention, and its resolution for one evaluation.

A dialect says what a spelling two tools share means (option defaults), how each
metric ranks equal scores and which queries a mean is over; :func:`convention`
resolves one with the caller's ``ties`` and ``missing``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from polars_rank._language.ir_measures import provider_ties

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from polars_rank._language.metric import Metric
    from polars_rank._language.metric_spec import MetricSpec

__all__ = ["Dialect", "DIALECTS", "Convention", "convention", "DialectName"]

DialectName: TypeAlias = Literal["polars-rank", "trec_eval", "ir_measures", "ranx", "sklearn",
                                 "torchmetrics", "recommenders"]
"""A dialect's name: a key of :data:`DIALECTS` (a test holds the two equal)."""


@dataclass(frozen=True)
class Dialect:
    """One tool's whole convention: what its spellings mean and how it evaluates.

    Every fact is read from the lender's source (``source``); :func:`convention`
    resolves one for an evaluation, and :func:`polars_rank.evaluate` and the command
    line read nothing else.
    """

    name: DialectName
    source: str
    """Where the lender defines them: file (and version or commit)."""
    options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Metric name -> option defaults (gains, thresholds, rounding); ``"*"``: every
    metric that has the option. Options written in a metric string win."""
    ties: str | Callable[[Metric], str] = "trec_eval"
    """The order among equal scores: one :func:`polars_rank.evaluate` tie policy, or
    each metric's (ir_measures: its provider's,
    :func:`polars_rank._language.ir_measures.provider_ties`)."""
    missing: str | Mapping[str, str] = "skip"
    """Which queries a mean is over: ``"skip"``, the run's queries that have judgments
    (trec_eval); ``"zero"``, every query of the qrels, a query the run lacks scoring
    :attr:`absent`. Or per metric name, ``"*"`` for the others (MS Recommenders)."""
    absent: Mapping[str, float | None] = field(default_factory=dict)
    """Metric name (``"*"``: every metric) -> what a qrels query the run lacks scores
    under ``missing="zero"``, None: no value (left out of the mean). Not given:
    ``trec_eval -c``'s, 0 but ``num_rel`` (its R)."""
    summary: str = ""

    def defaults(self, definition: MetricSpec) -> dict[str, Any]:
        """The option defaults this dialect gives ``definition``'s metric strings."""
        every = {name: value for name, value in self.options.get("*", {}).items()
                 if definition.option(name) is not None}
        return {**every, **self.options.get(definition.name, {})}

    def ties_of(self, metric: Metric) -> str:
        """The tie policy ``metric`` is ranked with."""
        return self.ties if isinstance(self.ties, str) else self.ties(metric)

    def missing_of(self, metric: Metric | None = None) -> str:
        """The queries ``metric``'s mean is over (None: the dialect's default)."""
        if isinstance(self.missing, str):
            return self.missing
        name = "*" if metric is None else metric.definition.name
        return self.missing.get(name, self.missing["*"])


@dataclass(frozen=True)
class Convention:
    """A dialect resolved for one evaluation, with the caller's ``ties`` and ``missing``.

    Given ones win for every metric; otherwise each is the dialect's.
    """

    dialect: Dialect
    given_ties: str | None = None
    given_missing: str | None = None

    @property
    def missing(self) -> str:
        """``"skip"`` or ``"zero"``: which queries a mean is over (the dialect's default)."""
        return self.given_missing or self.dialect.missing_of()

    def missing_of(self, metric: Metric) -> str:
        """``"skip"`` or ``"zero"``: which queries ``metric``'s mean is over."""
        return self.given_missing or self.dialect.missing_of(metric)

    @property
    def ties(self) -> str:
        """The tie policy of steps that rank the run once for all metrics (``-M``)."""
        if self.given_ties is not None:
            return self.given_ties
        return self.dialect.ties if isinstance(self.dialect.ties, str) else "trec_eval"

    def ties_of(self, metric: Metric) -> str:
        """The tie policy ``metric`` is ranked with."""
        return self.given_ties or self.dialect.ties_of(metric)

    def passes(self, named: list[tuple[str, Metric]],
               ) -> dict[tuple[str, str], list[tuple[str, Metric]]]:
        """The metrics grouped by (tie policy, missing), first seen first.

        One evaluation each: one in all, unless the dialect ranks or averages metrics
        apart.
        """
        out: dict[tuple[str, str], list[tuple[str, Metric]]] = {}
        for name, metric in named:
            key = (self.ties_of(metric), self.missing_of(metric))
            out.setdefault(key, []).append((name, metric))
        return out

    def absent(self, named: list[tuple[str, Metric]]) -> dict[str, float | None]:
        """Output name -> what a qrels query the run lacks scores, where the dialect says.

        The others score as ``trec_eval -c`` (:mod:`polars_rank._evaluation.means`).
        """
        table = self.dialect.absent
        return {name: table.get(m.definition.name, table["*"]) if "*" in table
                else table[m.definition.name]
                for name, m in named if m.definition.over_queries != "none"  # a string
                and ("*" in table or m.definition.name in table)}


DIALECTS: dict[str, Dialect] = {d.name: d for d in [
    Dialect("polars-rank", "docs/conventions.md",
            summary="ir_measures' numbers where the tools disagree (rbp: p = 0.8, binary)"),
    Dialect("trec_eval", "trec_eval 10.0: m_rbp.c, m_rbp_resid.c",
            {"rbp": {"p": 0.9, "gain": "graded"}, "rbp_resid": {"p": 0.9}},
            summary="rbp and rbp_resid: p = 0.9, graded (label / the query's largest)"),
    Dialect("ir_measures", "ir_measures 0.4.3: ir_measures/measures/*.py, providers/*.py",
            {"iprec_at_recall": {"rounding": "trec_eval9"}, "11pt_avg": {"rounding": "trec_eval9"}},
            ties=provider_ties, missing="zero",
            # providers/base.py Evaluator.iter_calc: measure.DEFAULT (0, measures/base.py)
            # for every qrels query without a value; the accuracy provider overrides
            # iter_calc without it (accuracy_provider.py)
            absent={"*": 0.0, "accuracy": None},
            summary="each metric ranked as its provider ranks (pytrec_eval: trec_eval 9, "
                    "scores as 32-bit floats; RR@k, Judged, Compat: doc id ascending); "
                    "means over the qrels' queries, 0 for those the run lacks; IPrec: "
                    "trec_eval 9's recall rounding; otherwise polars-rank's defaults are "
                    "ir_measures' (nDCG linear, RBP p = 0.8 binary)"),
    Dialect("ranx", "ranx 0.3.21: ranx/metrics/*.py, ranx/meta/evaluate.py, "
            "ranx/data_structures/common.py",
            {"rbp": {"gain": "raw"}, "ndcg": {"threshold": 1}, "dcg": {"threshold": 1}},
            missing="zero", absent={"*": 0.0},
            summary="rbp graded with the raw label; ndcg and dcg drop labels below 1 "
                    "(rel_lvl=1); means over the qrels' queries, 0 for those the run "
                    "lacks (make_comparable=True)"),
    Dialect("sklearn", "scikit-learn 1.9: sklearn/metrics/_ranking.py (ndcg_score, dcg_score)",
            ties="expected",
            summary="ties averaged (ignore_ties=False): ties='expected'"),
    Dialect("torchmetrics", "torchmetrics 1.9 (Lightning-AI/torchmetrics@dab0333): "
            "src/torchmetrics/functional/retrieval/*.py, retrieval/base.py",
            {"map": {"denominator": "retrieved"}}, ties="expected",
            summary="map over the relevant rows within k; NDCG's ties averaged "
                    "(ties='expected'); empty_target_action='neg' is empty='zero'"),
    Dialect("recommenders", "MS Recommenders (recommenders-team/recommenders@b02c95e): "
            "recommenders/evaluation/python_evaluation.py",
            {"*": {"threshold": 0}, "map": {"denominator": "capped"},
             "ndcg": {"gain": "binary", "empty": "skip"}},
            # ndcg_at_k merges the hits with every rating_true row (how="outer"); the
            # other functions average over merge_ranking_true_pred's common users
            ties="first", missing={"ndcg": "zero", "*": "skip"},
            summary="every judged row relevant (threshold=0); map@k over min(R, k); ndcg "
                    "binary gain (score_type='binary'), over every user of rating_true; "
                    "ties in row order"),
]}
"""Each tool's whole convention: option defaults, tie order, queries averaged.

``dialect=`` on :func:`parse_metric`, :func:`polars_rank.evaluate` and the command
line (``--dialect``) picks one; the command line speaks trec_eval's. Each entry says
where the lender defines its numbers; docs/conventions.md shows every difference.
"""


def convention(dialect: DialectName, *, ties: str | None = None,
               missing: str | None = None) -> Convention:
    """``dialect``'s convention for one evaluation: the one place it is resolved.

    :func:`polars_rank.evaluate` and the command line read each metric's tie policy
    and the queries averaged from it.

    Parameters
    ----------
    dialect
        A key of :data:`DIALECTS`.
    ties, missing
        The caller's, which win over the dialect's for every metric (None: the
        dialect's).

    Returns
    -------
    Convention
        The dialect with the caller's choices.

    Raises
    ------
    ValueError
        An unknown dialect.

    Examples
    --------
    >>> from polars_rank.registry import convention, parse_metric
    >>> c = convention("ir_measures")
    >>> c.missing, c.ties_of(parse_metric("RR")), c.ties_of(parse_metric("RR@10"))
    ('zero', 'trec_eval9', 'doc_ascending')
    >>> convention("ir_measures", ties="first").ties_of(parse_metric("RR@10"))
    'first'
    """
    if dialect not in DIALECTS:
        msg = f"dialect must be one of {', '.join(DIALECTS)}, got {dialect!r}"
        raise ValueError(msg)
    return Convention(DIALECTS[dialect], ties, missing)
