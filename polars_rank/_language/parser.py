"""The metric-string parser: a string, in a dialect, to a :class:`Metric`.

The syntax and every spelling are described in :mod:`polars_rank.registry`; the
metrics are the registered specs (:data:`polars_rank._language.metric_spec.SPECS`,
which the registry orders and calls ``METRICS``).
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from polars_rank._engine.params import check_k
from polars_rank._language.dialects import DialectName, convention
from polars_rank._language.ir_measures import chosen_metric
from polars_rank._language.metric import Metric
from polars_rank._language.metric_spec import ALIASES, SPECS, MetricSpec
from polars_rank._language.option_text import split_options, trec_parameters
from polars_rank.preferences import PREFS_MEASURES, PREFS_SETS

__all__ = ["parse_metric", "trec_cut_spellings"]

METRICS = SPECS  # the registry's METRICS: every registered spec, in the registry's order
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



def _options(text: str | None, definition: MetricSpec, spec: str) -> dict[str, Any]:
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


def parse_metric(spec: str | Metric, dialect: DialectName = "polars-rank") -> Metric:
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
