"""ir_measures' spellings and providers: what ``dialect="ir_measures"`` reads from it.

ir_measures (MacAvaney, Macdonald & Ounis, ECIR 2022) writes some metrics as a
parameter of another: ``SetP(relative=True)`` is ``SetRelP`` (trec_eval's
``set_relative_P``), ``NumRet(rel=2)`` counts the relevant rows retrieved
(``num_rel_ret``), and ``SDCG(dcg='log2')`` names SDCG's only discount; the metric-
string parser reads them before the registry (:func:`chosen_metric`).

It computes each measure with one of its providers, and each provider orders equal
scores its own way (:data:`PROVIDER_TIES`): the ``"ir_measures"`` dialect ranks each
metric as its provider does (:func:`provider_ties`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from polars_rank._language.option_text import split_options

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["PROVIDER_TIES", "chosen_metric", "provider", "provider_ties"]

# ir_measures parameters that choose another metric: (name, option, value; None: any
# value) -> (the metric's name, whether the option stays)
CHOOSING_OPTIONS: dict[tuple[str, str, str | None], tuple[str, bool]] = {
    ("setp", "relative", "true"): ("setrelp", False),
    ("setp", "relative", "false"): ("setp", False),
    ("numret", "rel", None): ("num_rel_ret", True),
    ("sdcg", "dcg", "log2"): ("sdcg", False),
}


def chosen_metric(name: str, *texts: str | None) -> tuple[str, str | None, str | None]:
    """``name`` and its option texts after the options that choose the metric.

    ir_measures spells some metrics as another's parameter: ``SetP(relative=True)``
    is ``SetRelP``, ``NumRet(rel=2)`` counts relevant rows (``num_rel_ret``).
    """
    kept: list[str | None] = []
    for text in texts:
        if not text:
            kept.append(text)
            continue
        parts = []
        for part in split_options(text):
            key, _, raw = part.partition("=")
            value = raw.strip().strip("'\"")
            choice = (CHOOSING_OPTIONS.get((name, key.strip(), value))
                      or CHOOSING_OPTIONS.get((name, key.strip(), None)))
            if choice is None or choice[1]:
                parts.append(part)
            if choice is not None:
                name = choice[0]
        kept.append(",".join(parts))
    return name, kept[0], kept[1]


# --------------------------------------------------------------------------- providers
# ir_measures computes a measure with the first provider of its DefaultPipeline
# (ir_measures/__init__.py: runtime, pytrec_eval, cwl_eval, compat, pyndeval, judged,
# msmarco, gdeval, accuracy, ranx) that supports it; pytrec_eval supports all but these
_CWL_EVAL = frozenset({"rbp", "sdcg", "inst", "insq", "bpm", "nerr8", "nerr9", "nerr10",
                       "nerr11"})
_ALONE = {"compat": "compat", "judged": "judged", "accuracy": "accuracy"}

PROVIDER_TIES: dict[str, str] = {
    # trec_eval 9 (pytrec-eval-terrier 0.5.x): scores stored as ``float sim``, equal
    # ones by docno descending (trec_eval.h, form_res_rels.c comp_sim_docno)
    "pytrec_eval": "trec_eval9",
    # sorted(..., key=x.score, reverse=True): a stable sort of the run as given
    # (util.py as_sorted_namedtuple_iter, as_sorteddict); polars-rank gives ir_measures
    # the run as pr.write_run writes it and a TREC file is read, in trec_eval's order
    "cwl_eval": "trec_eval",
    "accuracy": "trec_eval",
    # gdeval.pl runOrder: score descending (Perl doubles), then docno descending
    "gdeval": "trec_eval",
    # sorted(run[q].items(), key=lambda x: (-x[1], x[0])): docid ascending
    # (msmarco_provider.py, judged_provider.py; compat_provider.py sorts by docno, then
    # stably by score)
    "msmarco": "doc_ascending",
    "judged": "doc_ascending",
    "compat": "doc_ascending",
    # pyndeval sorts the run by docno ascending on equal scores: the intent-aware
    # metrics' order under ties="trec_eval" (polars_rank._evaluation.intents)
    "pyndeval": "trec_eval",
}
"""Each ir_measures 0.4.3 provider's order among equal scores, as an evaluate() policy."""


class _Definition(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def subtopics(self) -> bool: ...


class MetricLike(Protocol):
    """What :func:`provider` reads of a parsed metric (:class:`polars_rank.registry.Metric`).

    A protocol rather than the registry's class: the registry imports this module
    (tests/test_imports.py forbids the cycle).
    """

    @property
    def definition(self) -> _Definition: ...
    @property
    def k(self) -> int | None: ...
    @property
    def options(self) -> Mapping[str, Any]: ...


def provider(metric: MetricLike) -> str:
    """The ir_measures provider that computes ``metric``'s spelling (``PROVIDER_TIES``).

    ``RR@k`` is msmarco's (pytrec_eval's RR takes no cutoff), ``ERR@k`` and
    ``nDCG(dcg='exp-log2')@k`` gdeval's (pytrec_eval's nDCG is linear only), the C/W/L
    measures cwl_eval's, the intent-aware ones pyndeval's.
    """
    name = metric.definition.name
    if metric.definition.subtopics:
        return "pyndeval"
    if name in _CWL_EVAL:
        return "cwl_eval"
    if name in _ALONE:
        return _ALONE[name]
    if name == "mrr" and metric.k is not None:
        return "msmarco"
    if metric.k is not None and (name == "err" or (
            name == "ndcg" and metric.options.get("gain") == "exponential")):
        return "gdeval"
    return "pytrec_eval"


def provider_ties(metric: MetricLike) -> str:
    """The tie policy of the ir_measures provider that computes ``metric``."""
    return PROVIDER_TIES[provider(metric)]
