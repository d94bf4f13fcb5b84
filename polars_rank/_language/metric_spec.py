"""A metric is one spec beside its kernel (issue 38, item 1; docs/design/metric-spec.md).

A :class:`MetricSpec` holds every fact about a metric that is not its arithmetic:
its metric-string name, aliases and other tools' spellings, the options a string may
set (with their defaults), how its per-query values become one number, what a query
the run lacks scores under ``missing="zero"``, the tie policies it supports and its
docs text. The metric module declares it next to the kernel and hands it to the
function's decorator (:func:`polars_rank._language.naming.metric`), which registers it here
(:func:`register`): the registry only gathers (:data:`SPECS`, :data:`ALIASES`), and
nothing looks a metric up by name when an expression is built.

This module is a leaf of the package (it imports no metric, no registry), so the
metric modules, the registry, the ``rank`` namespace and the evaluation all read it
without a cycle.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from polars_rank._engine.gain_table import GainTable, check_gains
from polars_rank._engine.params import EMPTY, GAINS, TIES
from polars_rank._engine.unjudged import UNJUDGED
from polars_rank._language.option_text import parse_structured

if TYPE_CHECKING:
    import polars as pl

    from polars_rank._engine.summaries import Summary

__all__ = ["Option", "MetricSpec", "Absent", "StandIn", "COMMON_OPTIONS", "JUDGED_ONLY",
           "UNJUDGED_POLICY", "UNJUDGED_GRADE", "THRESHOLD", "EMPTY_LIST", "LINEAR",
           "GAIN_THRESHOLD", "GAIN_TABLE", "DCG_OPTIONS", "SPECS", "ALIASES", "FUNCTIONS",
           "register", "gather", "metric_string", "expression_name", "check_rewritable",
           "check_signature", "with_function"]


@dataclass(frozen=True)
class Option:
    """A metric option that a metric string may set."""

    name: str
    kind: type
    default: Any
    choices: tuple[str, ...] = ()
    description: str = ""

    def coerce(self, raw: str, metric: str) -> Any:
        """Parse ``raw`` (text from a metric string) into the option's type."""
        if self.kind is bool:
            return _boolean(raw, self.name, metric)
        if self.kind in (GainTable, tuple):
            return parse_structured(self.kind, self.name, raw, metric)
        if self.choices:
            value = raw.strip().strip("'\"").lower()
            if value in self.choices:
                return value
            allowed = ", ".join(self.choices)
            msg = f"{metric}: option {self.name}={raw!r} must be one of {allowed}"
            raise ValueError(msg)
        try:
            number = float(raw)
        except ValueError:
            msg = f"{metric}: option {self.name}={raw!r} must be a number"
            raise ValueError(msg) from None
        return int(number) if number.is_integer() and self.kind is int else number


def _boolean(raw: str, name: str, metric: str) -> bool:
    """A boolean option's text: ``True`` / ``False`` (ir_measures' spelling), 1 / 0."""
    value = raw.strip().strip("'\"").lower()
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    msg = f"{metric}: option {name}={raw!r} must be True or False"
    raise ValueError(msg)


JUDGED_ONLY = Option("judged_only", bool, False,
                     description="rank the judged rows only (trec_eval -J, ir_measures' "
                                 "judged_only): every metric has it")
UNJUDGED_POLICY = Option("unjudged", str, "low", UNJUDGED,
                         "unjudged retrieved rows non-relevant (low, ignore), relevant at "
                         "unjudged_grade (high) or removed (condensed): every metric has it")
UNJUDGED_GRADE = Option("unjudged_grade", float, None,
                        description="the label of unjudged rows under unjudged=high "
                                    "(none: the list's largest label, at least 1)")
COMMON_OPTIONS = (JUDGED_ONLY, UNJUDGED_POLICY, UNJUDGED_GRADE)
"""The options every metric string takes (they rewrite the data, not the metric)."""

NO_EXPECTED: tuple[str, ...] = tuple(t for t in TIES if t != "expected")
"""``ties`` of a metric with no closed form over tie orders (its :attr:`MetricSpec.ties_note`
says why)."""

# options several metrics share, declared once
THRESHOLD = Option("threshold", float, 1, description="labels >= threshold are relevant")
EMPTY_LIST = Option("empty", str, "zero", EMPTY,
                    "what a list without relevant rows scores (torchmetrics' "
                    "empty_target_action)")
LINEAR = Option("gain", str, "linear", GAINS,
                "gain of a label: linear in strings, as every tool's ndcg; the functions' "
                "default is exponential")
GAIN_THRESHOLD = Option("threshold", float, None,
                        description="labels below it gain 0 (ranx's -l); none by default")
GAIN_TABLE = Option("gains", GainTable, None,
                    description="gain of each listed label, {1:3,2:9} (others: the label)")
DCG_OPTIONS = (LINEAR, GAIN_THRESHOLD,
               Option("log_base", float, 2, description="the discount's log base"), GAIN_TABLE)
"""dcg's and ideal_dcg's: one discount, one gain."""


StandIn: TypeAlias = "Callable[[pl.Expr, Mapping[str, Any]], pl.Expr | None]"
"""A value from the query's R (relevant rows in the qrels) and the metric string's
options given; None: 0 for these options (utility without its weights)."""

Absent: TypeAlias = "Literal['zero', 'judgments'] | StandIn"
"""What a qrels query the run lacks scores under ``missing="zero"`` (``trec_eval -c``):
``"zero"``; ``"judgments"``, the metric on an empty ranking of the qrels' rows
(``ideal_dcg``); or a :data:`StandIn` of R (``num_rel``: R; ``yaap``: trec_eval's
value on its stand-in ranking). A dialect's ``absent`` table wins over it."""


@dataclass(frozen=True)
class MetricSpec:
    """A metric: every fact about it but its arithmetic, declared once beside its kernel."""

    name: str
    """Canonical metric-string name."""
    function: Callable[..., pl.Expr] | None = None
    """The public function; filled in when the decorator registers the spec."""
    aliases: tuple[str, ...] = ()
    cutoff: bool = True
    options: tuple[Option, ...] = ()
    """The options a metric string may set, in the string's order. Each is a keyword
    of the function; its default is the function's unless named in
    :attr:`string_defaults` (checked when the function is decorated)."""
    string_defaults: tuple[str, ...] = ()
    """Options whose metric-string default differs from the function's on purpose
    (NDCG strings are linear gain, as every tool's; the functions exponential)."""
    trec_eval: str = ""
    """Docs text: trec_eval's name for it."""
    trec_cut: tuple[str, ...] = ()
    """trec_eval's spellings taking a cutoff after ``_`` or ``.`` (``P_10``, ``P.10``)."""
    spellings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False)
    """Other tools' names without a cutoff -> the options they fix (``set_P``,
    ir_measures' ``SetP``; ``ndcg_burges``: exponential gain)."""
    summary: str = ""
    paper: str = ""
    over_queries: Summary = "mean"
    """How the per-query values become one number: trec_eval sums its counts."""
    absent: Absent = "zero"
    """What a qrels query the run lacks scores under ``missing="zero"`` (:data:`Absent`)."""
    empty_value: bool = False
    """A list with nothing retrieved scores the metric's own value there, not 0, under
    ``missing="zero"`` (yaap: ln(1 / (1 + R)); ideal_dcg: the judgments' ideal)."""
    ties: tuple[str, ...] = TIES
    """The tie policies it supports; any other is refused before it is ranked, with
    :attr:`ties_note`. The order-free default (no ``ties``: ``"expected"``) becomes
    ``"pessimistic"`` where ``"expected"`` is not listed (ties never help), or is
    refused too for a metric of the unjudged rows (:attr:`of_unjudged`)."""
    ties_note: str = ""
    """Why the policies left out of :attr:`ties` are not supported: the refusal's reason
    (``"infap has no closed form under ties='expected' (...)"``)."""
    reads_tie_spans: bool = False
    """It gives tied rows their mean rank itself (AUC: a tied pair counts one half), so it
    takes no ``ties``: :func:`polars_rank.evaluate` passes it the score's tie spans,
    ``rank=(first, last)``, whatever the policy, and its expression drops ``ties``."""
    at: str | None = None
    """The option ``@x`` sets instead of a cutoff (``iprec_at_recall@0.5``: the recall)."""
    of_unjudged: bool = False
    """A metric of the unjudged rows: undefined under ties that order relevant rows only."""
    subtopics: bool = False
    """An intent-aware metric: it reads one row per (document, subtopic), so its
    expression takes ``subtopic=`` and ``doc=`` (:mod:`polars_rank.metrics.novelty`)."""
    reads_pool: bool = False
    """The metric tells pooled unjudged rows from unpooled ones: its function takes
    ``pooled=``, which :func:`polars_rank.evaluate` passes from the qrels."""
    row_gain: Callable[..., pl.Expr] | None = None
    """Its row gain from the labels and its options, for a metric taking a gain table:
    :func:`polars_rank.evaluate` ranks the ties by it (``Metric.tie_gain``)."""
    per_judgment_group: str | None = None
    """A trec_eval ``_avgjg`` measure: the registered metric it computes against each
    judgment group of the qrels (``-R qrels_jg``), averaged over the groups of each
    query (:mod:`polars_rank._evaluation.judgment_groups`). Its function is that
    metric's: one list judged once is one group."""

    def option(self, name: str) -> Option | None:
        """The option called ``name`` (ir_measures' ``rel``: ``threshold``, ``T``: ``target``).

        ``judged_only``, ``unjudged`` and ``unjudged_grade`` (:data:`COMMON_OPTIONS`)
        are every metric's.
        """
        name = {"rel": "threshold", "t": "target"}.get(name, name)
        common = next((o for o in COMMON_OPTIONS if o.name == name), None)
        if common is not None:
            return common
        return next((o for o in self.options if o.name == name), None)

    @property
    def string_options(self) -> tuple[Option, ...]:
        """The options a metric string may set: the function's, then the common ones."""
        return (*self.options, *COMMON_OPTIONS)


SPECS: dict[str, MetricSpec] = {}
"""Every registered metric by name, in the registry's order, then in registration order:
``polars_rank.registry.METRICS`` is this dict."""
ALIASES: dict[str, MetricSpec] = {}
"""Every name and alias of :data:`SPECS` (lower case) -> its spec."""
FUNCTIONS: dict[str, Callable[..., pl.Expr]] = {}
"""The functions of the specs registered by their decorator, by ``__name__``: the
``rank`` namespace finds a metric declared outside the package here."""


def register(spec: MetricSpec) -> MetricSpec:
    """Add ``spec`` to :data:`SPECS` and :data:`ALIASES` (a name taken: ``ValueError``).

    The same function declared again (its module reloaded) replaces its spec.
    """
    names = (spec.name, *spec.aliases)
    taken = [n for n in names if n in ALIASES and ALIASES[n].name != spec.name]
    if not taken and spec.name in SPECS and not _same(SPECS[spec.name], spec):
        taken = [spec.name]
    if taken:
        msg = f"metric {spec.name!r}: the name or alias {taken[0]!r} is taken"
        raise ValueError(msg)
    SPECS[spec.name] = spec
    ALIASES.update(dict.fromkeys(names, spec))
    return spec


def _same(old: MetricSpec, new: MetricSpec) -> bool:
    """One metric: the same spec, or the same function (module and name) declared again."""
    if old is new or old.function is None or new.function is None:
        return True
    return ((old.function.__module__, old.function.__qualname__)
            == (new.function.__module__, new.function.__qualname__))


def gather(ordered: list[MetricSpec]) -> dict[str, MetricSpec]:
    """:data:`SPECS` in the order of ``ordered`` (the registry's), then any others.

    ``ordered`` holds the registry's own entries and the specs the metric modules
    registered (``SPECS["p"]``): the registry lists names, it declares nothing twice.
    """
    rest = [s for name, s in SPECS.items() if name not in {o.name for o in ordered}]
    SPECS.clear()
    for spec in [*ordered, *rest]:
        register(spec)
    return SPECS


def check_signature(spec: MetricSpec, function: Callable[..., Any]) -> None:
    """Each option of ``spec`` is a keyword of ``function``, with the same default.

    A required keyword (no default) is an option whose default is None: a metric
    string must set it, and the function says so (``sdcg``'s ``max_rel``).

    Raised when the module is imported: a spec and its function cannot drift.
    """
    parameters = inspect.signature(function).parameters
    for o in spec.options:
        parameter = parameters.get(o.name)
        if parameter is None:
            msg = f"metric {spec.name!r}: option {o.name!r} is no parameter of {function.__name__}"
            raise TypeError(msg)
        # a required keyword (C/W/L's max_rel): the option's None, a string must set it
        required = parameter.default is parameter.empty and o.default is None
        if o.name not in spec.string_defaults and parameter.default != o.default and not required:
            msg = (f"metric {spec.name!r}: option {o.name}={o.default!r}, but "
                   f"{function.__name__}'s default is {parameter.default!r} (name it in "
                   "string_defaults if the difference is meant)")
            raise TypeError(msg)
    if spec.cutoff and "k" not in parameters:
        msg = f"metric {spec.name!r} takes a cutoff: {function.__name__} has no k"
        raise TypeError(msg)


def _format(value: Any) -> str:
    if isinstance(value, bool):  # True / False, ir_measures' spelling
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (tuple, list)):  # utility's weights, 11pt_avg's levels
        return "[" + ",".join(_format(float(v)) for v in value) + "]"
    if isinstance(value, Mapping):  # a gain table, {1:3,2:9}
        return str(check_gains(value))
    return str(value)


def metric_string(spec: MetricSpec, k: int | None, options: Mapping[str, Any]) -> str:
    """The canonical metric string: lower case, ``name@k``, the options given, in order."""
    out = spec.name + (f"@{k}" if k is not None else "")
    at = spec.at
    if at is not None and at in options:
        out += f"@{_format(options[at])}"
    given = [f"{o.name}={_format(options[o.name])}" for o in spec.string_options
             if o.name in options and o.name != at]
    return out + (f"({','.join(given)})" if given else "")


def _as_option(value: Any) -> Any:
    """A function's argument as a metric string holds it: sequences as tuples, tables."""
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, Mapping):
        return check_gains(value)
    return value


def expression_name(spec: MetricSpec, arguments: Mapping[str, Any]) -> str:
    """The metric string a call of ``spec``'s function computes: its expression's name.

    ``arguments`` are the call's bound arguments (defaults applied). Options equal to
    the metric string's default are left out, so ``ndcg(k=10)`` (exponential gain) is
    ``ndcg@10(gain=exponential)`` and ``ndcg(k=10, gain="linear")`` is ``ndcg@10``.
    """
    given = {o: _as_option(arguments[o.name]) for o in spec.string_options
             if o.name in arguments}
    options = {o.name: value for o, value in given.items() if value != o.default}
    k = arguments.get("k") if spec.cutoff else None
    return metric_string(spec, k, options)


def check_rewritable(spec: MetricSpec | None, unjudged: str, *, bounds: bool) -> None:
    """Refuse ``unjudged="high"`` for the intent-aware metrics (a label names no subtopic)."""
    if spec is not None and spec.subtopics and (bounds or unjudged == "high"):
        msg = (f"{spec.name}: unjudged='high' (and bounds=True) for an intent-aware "
               "metric: an unjudged document's rows name no subtopic, so there is no label "
               "to give it; use 'low', 'ignore' or 'condensed'")
        raise NotImplementedError(msg)


def with_function(spec: MetricSpec, function: Callable[..., pl.Expr]) -> MetricSpec:
    """``spec`` with its public function, registered (the decorator's last step)."""
    registered = register(replace(spec, function=function))
    FUNCTIONS[function.__name__] = function
    return registered
