"""trec_eval 10's exit statuses, and the command line's errors that share them.

trec_eval 10 (trec_eval.c) exits with one status per kind of error, and meets the
kinds in this order:

======  =====================================================  ==========================
status  trec_eval's message                                    where
======  =====================================================  ==========================
1       its usage; ``illegal measure 'foo'``                   reading the options
                                                               (``-m foo``, ``-m P.``)
2       ``Quit in file``, ``Illegal rel_format``, ``Illegal    reading the judgments,
        retrieval results format``                             then the run
255     ``Cannot read zscores file``                           ``-Z``: then its file
2       ``Cannot initialize measure``                          initialising the measures
                                                               (``-m P.0``, ``-m P.5,5``,
                                                               ``-m ndcg.1=2,``)
4       ``result qid ... not found``, ``Can't calculate        each judged query in turn
        measure`` (a document twice in a query's ranking or    (the first one, for the
        judgments, utility without its four weights, ...)      measures' own checks)
7       ``No queries with both results and relevance info``    after the queries
======  =====================================================  ==========================

(3, 5, 6, 8 and 10 follow a failed ``malloc`` or code that cannot fail.) ``polars-rank
eval`` exits with trec_eval's status for each error the two share, after the same
files have been read, with its own message naming the rule; its own refusals (an
option trec_eval does not have, a value trec_eval reads as something else) exit 2.
Where it stops on a query (4, 7) is :class:`~polars_rank._cli.eval_settings.Stop`'s; the
others are :func:`exit_status`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from polars_rank._cli.eval_settings import IDS, Settings, Stop
from polars_rank._cli.zscore_files import zscore_reference
from polars_rank._language import trec_measures as trec
from polars_rank.errors import DuplicateRowsError
from polars_rank.io import read_qrels, read_run
from polars_rank.registry import parse_metric

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from polars_rank._language.dialects import DialectName

__all__ = ["TREC_EVAL_NAMES", "exit_status", "first_refusal", "stop_in_order"]

TREC_EVAL_NAMES = frozenset({
    # te_trec_measures (measures.c:120-178)
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
    "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP",
    "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg",
    "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
    "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
    "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
    "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp",
    "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp",
    "rbp_resid", "unj",
    # te_trec_measure_nicknames (measures.c:228-235)
    "official", "set", "all_trec", "all_prefs", "prefs", "qrels_jg",
})
"""Every name trec_eval 10's ``-m`` takes: its measures and its sets (nicknames)."""


def _refusal(spec: str, given: dict[str, str], dialect: DialectName) -> trec.MeasureError | None:
    """What trec_eval's (or polars-rank's) reading of one ``-m`` refuses, if anything."""
    measure = spec.partition(".")[0]
    try:
        if trec.expand(spec, given) is not None:  # trec_eval's syntax, read as it reads it
            return None
    except trec.MeasureError as error:
        return error
    try:
        parse_metric(spec, dialect)
    except ValueError as error:
        if measure in TREC_EVAL_NAMES:  # trec_eval's, not read by polars-rank yet
            return trec.MeasureError(f"-m {spec}: trec_eval's {measure} is not in "
                                     "polars-rank yet")
        msg = (f"-m {spec}: not a measure of trec_eval (trec_eval: illegal measure "
               f"'{measure}') nor a polars-rank metric string: {error}")
        return trec.MeasureError(msg, status=1)
    return None


def first_refusal(specs: Sequence[str], dialect: DialectName) -> trec.MeasureError | None:
    """The ``-m`` trec_eval would stop on first, or None.

    trec_eval reads each ``-m`` as it reads the options (an unknown name stops it there,
    exit status 1: :meth:`~polars_rank._language.trec_measures.MeasureError.status`), then the
    files, then initialises the measures with their parameters (2), then calculates
    them (4): the refusal with the status met first, the first ``-m`` among equals. A
    metric string polars-rank refuses is an unknown measure to trec_eval.
    """
    given = trec.first_parameters(specs)
    found = [error for spec in specs if (error := _refusal(spec, given, dialect)) is not None]
    order = {1: 0, 2: 1, 4: 2}
    return min(found, key=lambda error: order[error.status], default=None)


def stop_in_order(error: trec.MeasureError | Stop, qrels: Path, runs: Sequence[Path],
                  rel_format: str, zscores: Path | None, debug_query: str | None) -> NoReturn:
    """Raise ``error`` where trec_eval stops on it: after the files it reads first.

    The judgments and each run are read (a file trec_eval cannot read either: exit
    status 2), then ``-Z``'s file (255). A measure trec_eval refuses when it calculates
    it (status 4) stops it at the first judged query (``-D level.qid``: that one), or
    not at all when there is none (exit status 7).
    """
    judged = (read_qrels(qrels, encoding=IDS) if rel_format == "qrels" else
              read_qrels(qrels, format=rel_format, encoding=IDS))  # type: ignore[arg-type]
    for run in runs:
        read_run(run, encoding=IDS)
    zscore_reference(Settings(zscores=zscores))
    if error.status == 4:
        queries = judged.get_column("qid")
        if debug_query is not None:
            queries = queries.filter(queries == debug_query)
        if queries.is_empty():
            msg = "No queries with both results and relevance info"
            raise Stop(msg, 7, f"{error}: trec_eval finds it when it evaluates a query, and "
                               "none is evaluated (exit status 7)")
    raise error


def exit_status(error: Exception) -> int:
    """trec_eval 10's exit status for an error polars-rank shares with it; 2 otherwise.

    A ``-m`` trec_eval refuses: its status (:func:`first_refusal`). A document twice in
    a query's ranking or judgments: 4 (form_res_rels.c, "duplicate docs", then
    "Can't calculate measure").
    """
    if isinstance(error, trec.MeasureError):
        return error.status
    if isinstance(error, DuplicateRowsError):
        return 4
    return 2
