"""The metric registry: one entry per metric drives strings, aliases, the CLI and the docs.

A *metric string* is ``name``, ``name@k`` and/or ``name(option=value, ...)``,
case-insensitive: ``ndcg@10``, ``map``, ``err@20(max_grade=4)``, ``rbp(p=0.8)``.
A spelling borrowed from another tool gives that tool's number: NDCG and DCG strings
are linear gain (trec_eval, ir_measures, ranx, scikit-learn), ``ndcg_burges@10`` or
``ndcg@10(gain=exponential)`` the exponential form the functions default to;
ir_measures spellings are aliases (``nDCG@10``, ``AP``, ``RR@10``, ``R@100``,
``P(rel=2)@10``, ``IPrec@0.5``, ``SetP``) and trec_eval's mean what trec_eval computes
(``ndcg_cut_10``, ``P_10`` / ``P.10``, ``recip_rank``, ``map_cut_10``, ``Rprec``,
``success_10``, ``iprec_at_recall_0.50``, ``num_rel_ret``, ``gm_map``, ``set_F``).
Where two tools share a spelling for different numbers, :data:`DIALECTS` says which.
Structured options keep their commas in brackets: a gain table
``ndcg(gains={1:3,2:9})`` (ir_measures' spelling; trec_eval's is ``ndcg.1=3,2=9``),
``utility(weights=[2,-1,0,0])`` (``utility.2,-1,0,0``) and
``11pt_avg(levels=[0.2,0.5,0.8])`` (``11pt_avg.0.2,0.5,0.8``).

>>> from polars_rank.registry import parse_metric
>>> m = parse_metric("ndcg_cut.10")
>>> str(m), m.k, m.expr("rel", by="score").meta.output_name()
('ndcg@10', 10, 'ndcg@10')
>>> str(parse_metric("ERR@20(max_grade=3)"))
'err@20(max_grade=3)'
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import polars_rank.metrics  # noqa: F401 (imported, the metric modules register their specs)
from polars_rank._engine.condensed import judged_only_ranking
from polars_rank._engine.params import check_k
from polars_rank._engine.unjudged import check_unjudged, with_unjudged
from polars_rank._language.ir_measures import chosen_metric, provider_ties
from polars_rank._language.metric_spec import (
    ALIASES,
    GAIN_TABLE,
    JUDGED_ONLY,
    SPECS,
    UNJUDGED_GRADE,
    UNJUDGED_POLICY,
    MetricSpec,
    check_rewritable,
    gather,
    metric_string,
)
from polars_rank._language.option_text import split_options, trec_parameters
from polars_rank.preferences import PREFS_MEASURES, PREFS_SETS

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import polars as pl


__all__ = ["MetricDef", "Metric", "METRICS", "Dialect", "DIALECTS", "Convention", "convention",
           "parse_metric"]


MetricDef = MetricSpec
"""A registered metric: :class:`polars_rank._language.metric_spec.MetricSpec` (the old name)."""


# Every metric is declared beside its kernel (its module's MetricSpec, handed to its
# function's decorator). This list gives only the order users see (the CLI's list, the
# docs table, "Known metrics"): METRICS is _language.metric_spec.SPECS itself, so a metric
# declared later (outside the package) is in it, after these.
METRICS: dict[str, MetricDef] = gather([
        SPECS["ndcg"],  # metrics/gain.py: NDCG
        SPECS["dcg"],  # metrics/gain.py: DCG
        SPECS["ideal_dcg"],  # metrics/gain.py: IDEAL_DCG
        SPECS["g"],  # metrics/gain_levels.py: NORMALIZED_GAIN
        SPECS["bing"],  # metrics/gain_levels.py: BINARY_NORMALIZED_GAIN
        SPECS["ndcg_rel"],  # metrics/gain_levels.py: NDCG_OVER_RELEVANT
        SPECS["rndcg"],  # metrics/gain_levels.py: R_NDCG
        SPECS["map"],  # metrics/binary.py: AVERAGE_PRECISION
        SPECS["gm_map"],  # metrics/binary.py: GM_MAP
        SPECS["yaap"],  # metrics/binary.py: YAAP
        SPECS["mrr"],  # metrics/binary.py: RECIPROCAL_RANK
        SPECS["p"],  # metrics/sets.py: PRECISION
        SPECS["recall"],  # metrics/sets.py: RECALL
        SPECS["f1"],  # metrics/sets.py: F1
        SPECS["err"],  # metrics/gain.py: ERR
        SPECS["hit_rate"],  # metrics/binary.py: HIT_RATE
        SPECS["hits"],  # metrics/counts.py: HITS
        SPECS["rprec"],  # metrics/sets.py: R_PRECISION
        SPECS["bpref"],  # metrics/incomplete.py: BPREF
        SPECS["rbp"],  # metrics/rbp.py: RBP
        SPECS["rbp_resid"],  # metrics/rbp.py: RBP_RESIDUAL
        SPECS["utility"],  # metrics/counts.py: UTILITY
        SPECS["gm_bpref"],  # metrics/incomplete.py: GM_BPREF
        SPECS["unj"],  # metrics/incomplete.py: UNJ
        SPECS["infap"],  # metrics/pool.py: INFAP
        SPECS["judged"],  # metrics/pool.py: JUDGED
        SPECS["relstring"],  # metrics/pool.py: RELSTRING
        SPECS["relative_p"],  # metrics/relative.py: RELATIVE_PRECISION
        SPECS["rprec_mult"],  # metrics/relative.py: R_PRECISION_MULTIPLE
        # trec_eval's judgment-group measures (-R qrels_jg): each of the metrics above
        # against every judgment group (a user's judgments) of a query, averaged
        SPECS["map_avgjg"],  # metrics/binary.py: MAP_AVGJG
        SPECS["p_avgjg"],  # metrics/sets.py: P_AVGJG
        SPECS["rprec_mult_avgjg"],  # metrics/relative.py: R_PRECISION_MULTIPLE_AVGJG
        SPECS["set_map"],  # metrics/relative.py: SET_MAP
        SPECS["iprec_at_recall"],  # metrics/interpolated.py: IPREC_AT_RECALL
        SPECS["11pt_avg"],  # metrics/interpolated.py: ELEVEN_POINT_AVERAGE
        SPECS["num_ret"],  # metrics/counts.py: NUM_RET
        SPECS["num_rel"],  # metrics/counts.py: NUM_REL
        SPECS["num_rel_ret"],  # metrics/counts.py: NUM_REL_RET
        SPECS["num_nonrel_judged_ret"],  # metrics/counts.py: NUM_NONREL_JUDGED_RET
        SPECS["rank_correlation"],  # metrics/pairwise.py: RANK_CORRELATION
        SPECS["auc"],  # metrics/pairwise.py: AUC
        # intent-aware (diversity) metrics, ndeval's: one row per (document, subtopic)
        SPECS["alpha_ndcg"],  # metrics/novelty.py: ALPHA_NDCG
        SPECS["alpha_dcg"],  # metrics/novelty.py: ALPHA_DCG
        SPECS["err_ia"],  # metrics/novelty.py: ERR_IA
        SPECS["nerr_ia"],  # metrics/novelty.py: NERR_IA
        SPECS["nrbp"],  # metrics/novelty_rbp.py: NRBP
        SPECS["nnrbp"],  # metrics/novelty_rbp.py: NNRBP
        SPECS["p_ia"],  # metrics/intents.py: PRECISION_IA
        SPECS["ap_ia"],  # metrics/intents.py: AP_IA
        SPECS["strecall"],  # metrics/intents.py: SUBTOPIC_RECALL
        SPECS["accuracy"],  # metrics/pairwise.py: ACCURACY
        SPECS["num_q"],  # metrics/queries.py: NUM_Q
        # ir_measures' C/W/L metrics, computed as cwl_eval does (ranks 1..1000)
        SPECS["sdcg"],  # metrics/user_models.py: SDCG
        SPECS["inst"],  # metrics/user_models.py: INST
        SPECS["insq"],  # metrics/user_models.py: INSQ
        SPECS["bpm"],  # metrics/user_models.py: BPM
        SPECS["nerr8"],  # metrics/nerr.py: NERR8
        SPECS["nerr9"],  # metrics/nerr.py: NERR9
        SPECS["nerr10"],  # metrics/nerr.py: NERR10
        SPECS["nerr11"],  # metrics/nerr.py: NERR11
        SPECS["compat"],  # metrics/overlap.py: COMPAT
        # click metrics: the label column holds clicks (0/1 or counts)
        SPECS["ctr"],  # metrics/clicks.py: CTR
        SPECS["abandonment"],  # metrics/clicks.py: ABANDONMENT
        SPECS["first_click_rr"],  # metrics/clicks.py: FIRST_CLICK_RR
        SPECS["clicks_per_query"],  # metrics/clicks.py: CLICKS_PER_QUERY
])

_BY_ALIAS = ALIASES  # every name and alias, of the metrics registered so far and later

_SYNTAX = re.compile(
    r"^(?P<name>[a-z0-9][a-z0-9_\-]*?)"
    r"(?:\((?P<opts1>[^()]*)\))?"
    r"(?:@(?P<k>[^()]+))?"
    r"(?:\((?P<opts2>[^()]*)\))?$"
)
_TREC_CUT = re.compile(r"^(?P<name>[a-z_]+?)[._](?P<k>\d+)$")
_RANX_RBP = re.compile(r"^rbp\.(?P<digits>\d+)$")
_TREC_LEVEL = re.compile(
    r"^(?P<name>iprec_at_recall|rprec_mult|rprec_mult_avgjg)[._](?P<x>\d*\.?\d+)$")
_RANX_LEVEL = re.compile(r"^(?P<spec>.+)-l(?P<level>\d+)$")  # ranx: map@10-l2


def trec_cut_spellings() -> dict[str, tuple[str, dict[str, Any]]]:
    """trec_eval's names taking a cutoff (``P_10``, ``P.10``): the specs' ``trec_cut``."""
    return {n: (m.name, {}) for m in METRICS.values() for n in m.trec_cut}


def _whole_list(name: str) -> tuple[str, dict[str, Any]]:
    """A name without a cutoff (``set_p``): its metric and the options it fixes."""
    spec = next((m for m in METRICS.values() if name in m.spellings), None)
    return (name, {}) if spec is None else (spec.name, dict(spec.spellings[name]))


# an option value in another tool's spelling: (option, value) -> (option, value)
_OPTION_SPELLINGS = {
    ("dcg", "exp-log2"): ("gain", "exponential"),
    ("dcg", "log2"): ("gain", "linear"),
    # torchmetrics' retrieval metrics (retrieval/base.py)
    ("empty_target_action", "neg"): ("empty", "zero"),
    ("empty_target_action", "pos"): ("empty", "one"),
    ("empty_target_action", "skip"): ("empty", "skip"),
    ("empty_target_action", "error"): ("empty", "error"),
}

@dataclass(frozen=True)
class Dialect:
    """One tool's whole convention: what its spellings mean and how it evaluates.

    Every fact is read from the lender's source (``source``); :func:`convention`
    resolves one for an evaluation, and :func:`polars_rank.evaluate` and the command
    line read nothing else.
    """

    name: str
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

    def defaults(self, definition: MetricDef) -> dict[str, Any]:
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


def convention(dialect: str, *, ties: str | None = None,
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


@dataclass(frozen=True)
class Metric:
    """A parsed metric string: a registered metric, a cutoff and options.

    ``str(metric)`` is the canonical spelling: lower case, ``name@k``, then the options
    that were given, in the registry's order. It parses back to an equal metric;
    metrics are equal when they compute the same thing (defaults filled in).
    """

    definition: MetricDef
    k: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return metric_string(self.definition, self.k, self.options)

    def _key(self) -> tuple[str, int | None, tuple[Any, ...]]:
        values = tuple(self.options.get(o.name, o.default)
                       for o in self.definition.string_options)
        return self.definition.name, self.k, values

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Metric) and self._key() == other._key()

    @property
    def max_grade(self) -> float | None:
        """The highest label this metric takes (ERR's ``max_grade`` option), if any."""
        option = self.definition.option("max_grade")
        if option is None:
            return None
        return float(self.options.get(option.name, option.default))

    def tie_gain(self, labels: pl.Expr) -> pl.Expr | None:
        """The gain ``ties="optimistic"`` / ``"pessimistic"`` order its tied rows by.

        None where that is the label's order (:func:`polars_rank._engine.ranked.tie_key`):
        only a gain table reorders labels. :func:`polars_rank.evaluate` ranks once for
        every metric, so a metric with one is ranked apart; its expression orders by
        its gain itself (:meth:`polars_rank._engine.ranked.Ranked.by_gain`).
        """
        if self.definition.row_gain is None or not self.options.get(GAIN_TABLE.name):
            return None
        params = {o.name: self.options.get(o.name, o.default) for o in self.definition.options}
        return self.definition.row_gain(labels, params)

    def expr(self, rel: str | pl.Expr, **kwargs: Any) -> pl.Expr:
        """The metric's expression, ``kwargs`` being by/rank/descending/query/ties.

        Every option is passed, given or not: a metric string's defaults are the
        registry's (``ndcg@10`` is linear gain; the function's default is exponential).
        ``judged_only=True`` ranks the judged rows only (:mod:`polars_rank._engine.condensed`);
        ``unjudged`` / ``unjudged_grade`` rewrite the unjudged rows first
        (:mod:`polars_rank._engine.unjudged`). ``bounds=True`` (not an option of the string):
        the struct ``{low, high}`` of the metric under ``unjudged="low"`` and ``"high"``.
        """
        bounds = kwargs.pop("bounds", False)
        params = {o.name: self.options.get(o.name, o.default) for o in self.definition.options}
        if self.k is not None:
            params["k"] = self.k
        if self.definition.reads_tie_spans:
            kwargs.pop("ties", None)
        unjudged = self.options.get(UNJUDGED_POLICY.name, "low")
        grade = check_unjudged(unjudged, self.options.get(UNJUDGED_GRADE.name), bounds)
        check_rewritable(self.definition, unjudged, bounds=bounds)
        condensed = bool(self.options.get(JUDGED_ONLY.name))
        function = self.definition.function

        def call(labels: str | pl.Expr, arguments: dict[str, Any]) -> pl.Expr:
            if condensed:  # after "high" relabels: the data's rule first, as evaluate()
                arguments = judged_only_ranking(labels, arguments)
            assert function is not None  # a registered spec has its function
            return function(labels, **params, **arguments)

        # named after the metric, so several metrics fit in one select or agg
        return with_unjudged(call, rel, kwargs, unjudged, grade, bounds=bounds,
                             name=str(self)).alias(str(self))


def _options(text: str | None, definition: MetricDef, spec: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not text or not text.strip():
        return out
    for part in split_options(text):
        key, eq, raw = part.partition("=")
        key, raw = _OPTION_SPELLINGS.get((key.strip(), raw.strip().strip("'\"")), (key, raw))
        option = definition.option(key.strip())
        if not eq or option is None:
            allowed = ", ".join(o.name for o in definition.options) or "none"
            msg = (f"{spec!r}: unknown option {part.strip()!r} for {definition.name} "
                   f"(options: {allowed})")
            raise ValueError(msg)
        out[option.name] = option.coerce(raw, spec)
    return out


def _unknown(spec: str, name: str) -> ValueError:
    if name.lower() in {*(m.lower() for m in PREFS_MEASURES), *PREFS_SETS}:
        return ValueError(
            f"{spec!r} is a trec_eval preference measure: it reads preference judgments, "
            "not a relevance column; polars_rank.evaluate_prefs(run, "
            f"polars_rank.read_qrels(path, format='prefs'), [{spec!r}]) computes it")
    names = sorted({*_BY_ALIAS, *(f"{t}_10" for t in trec_cut_spellings())})
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else "."
    return ValueError(f"unknown metric {spec!r}{hint} Known metrics: {', '.join(METRICS)}")


def parse_metric(spec: str | Metric, dialect: str = "polars-rank") -> Metric:
    """Parse a metric string (case-insensitive) into a :class:`Metric`.

    A spelling borrowed from another tool gives that tool's number: NDCG and DCG
    strings are linear gain unless they say otherwise (``ndcg_burges@10``,
    ``ndcg@10(gain=exponential)``), as in trec_eval, ir_measures and ranx.

    Parameters
    ----------
    spec
        ``name``, ``name@k``, ``name(option=value)``, ``name@k(option=value)``, or a
        trec_eval spelling such as ``ndcg_cut_10`` / ``P.10`` / ``iprec_at_recall_0.50``
        / ``ndcg.1=3,2=9`` (a gain table) / ``utility.2,-1,0,0``.
    dialect
        Which tool's number a spelling two tools share means: ``"polars-rank"``,
        ``"trec_eval"``, ``"ir_measures"``, ``"ranx"``, ``"sklearn"``,
        ``"torchmetrics"`` or ``"recommenders"`` (:data:`DIALECTS`). Options given
        in the string win.

    Returns
    -------
    Metric
        The parsed metric; ``str()`` of it is the canonical spelling.

    Raises
    ------
    ValueError
        Unknown metric (with the nearest valid names), bad cutoff, option or dialect.

    Examples
    --------
    >>> from polars_rank import parse_metric
    >>> [str(parse_metric(s)) for s in ["nDCG@10", "P_5", "recip_rank", "rbp(p=0.9)"]]
    ['ndcg@10', 'p@5', 'mrr', 'rbp(p=0.9)']
    >>> parse_metric("ndcg_cut_10") == parse_metric("ndcg@10") == parse_metric("nDCG@10")
    True
    >>> str(parse_metric("ndcg_burges@10")), str(parse_metric("rbp", dialect="trec_eval"))
    ('ndcg@10(gain=exponential)', 'rbp(p=0.9,gain=graded)')
    >>> parse_metric("ndgc@10")
    Traceback (most recent call last):
    ...
    ValueError: unknown metric 'ndgc@10'; did you mean ndcg...
    """
    chosen = convention(dialect).dialect  # an unknown dialect: ValueError
    if isinstance(spec, Metric):
        return spec
    if not isinstance(spec, str):
        msg = f"a metric must be a string such as 'ndcg@10', got {spec!r}"
        raise TypeError(msg)
    metric = _parse(spec)
    defaults = chosen.defaults(metric.definition)
    if defaults:
        metric = Metric(metric.definition, metric.k, {**defaults, **metric.options})
    probe: dict[str, Any] = {"by": None, "ties": "first"}  # one order: relstring checks it
    if metric.definition.subtopics:
        probe = {"subtopic": "subtopic", "doc": "doc", "rank": "rank"}
    try:  # the function's own parameter checks, now
        metric.expr("rel", **probe)
    except (TypeError, ValueError) as exc:
        msg = f"{spec!r}: {exc}"
        raise ValueError(msg) from None
    return metric


def _parse(spec: str) -> Metric:
    text = spec.strip().lower().replace(" ", "").replace("\u03b1", "alpha")  # ir_measures' alpha
    parameterised = trec_parameters(spec, text)
    if parameterised is not None:
        name, options = parameterised
        return Metric(METRICS[name], None, options)
    relevance = _RANX_LEVEL.match(text)  # ranx: "-l2" is the relevance level 2
    if relevance:
        metric = _parse(relevance["spec"])
        if metric.definition.option("threshold") is None:
            msg = f"{spec!r}: {metric.definition.name} has no relevance level ('-l')"
            raise ValueError(msg)
        threshold = float(relevance["level"])
        return Metric(metric.definition, metric.k, {**metric.options, "threshold": threshold})
    if "," in text and "(" not in text:
        msg = f"{spec!r}: one cutoff per metric string (write 'p@5' and 'p@10')"
        raise ValueError(msg)
    trec = _TREC_CUT.match(text)
    cut = trec_cut_spellings()
    if trec and trec["name"] in cut:
        name, options = cut[trec["name"]]
        return Metric(METRICS[name], check_k(int(trec["k"]), f"{spec!r}: cutoff"), options)
    persistence = _RANX_RBP.match(text)  # ranx: rbp.95 is p = 0.95, the raw label's gain
    if persistence:
        ranx = {"p": float(f"0.{persistence['digits']}"), "gain": "raw"}
        return Metric(METRICS["rbp"], None, ranx)
    level = _TREC_LEVEL.match(text)
    if level:
        by_level = METRICS[level["name"]]
        assert by_level.at is not None
        return Metric(by_level, None, {by_level.at: float(level["x"])})
    match = _SYNTAX.match(text)
    if match is None:
        raise _unknown(spec, text)
    name, opts1, opts2 = chosen_metric(match["name"], match["opts1"], match["opts2"])
    name, fixed = _whole_list(name)
    definition = _BY_ALIAS.get(name)
    if definition is None:
        raise _unknown(spec, match["name"])
    k: int | None = None
    options = dict(fixed)
    if match["k"] is not None:
        if definition.at is not None:
            at = definition.option(definition.at)
            assert at is not None  # the registry names an option of its own
            options[at.name] = at.coerce(match["k"], spec)
        elif not definition.cutoff or (fixed and match["name"].startswith("set")):
            msg = f"{spec!r}: {definition.name} takes no cutoff"
            raise ValueError(msg)
        elif not match["k"].isdigit():
            msg = f"{spec!r}: the cutoff after '@' must be a positive int, got {match['k']!r}"
            raise ValueError(msg)
        else:
            k = check_k(int(match["k"]), f"{spec!r}: cutoff")
    options.update(_options(opts1, definition, spec))
    options.update(_options(opts2, definition, spec))
    return Metric(definition, k, options)

