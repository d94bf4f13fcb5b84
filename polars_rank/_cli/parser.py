"""The command line's parser: every subcommand's arguments, and ``eval``'s help text."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import get_args

from polars_rank import __version__
from polars_rank._cli import compare as _cli_compare
from polars_rank._cli import fuse as _cli_fuse
from polars_rank._cli.status import first_refusal
from polars_rank._engine.params import EvalTies
from polars_rank._language.trec_measures import atol
from polars_rank.registry import DIALECTS

EVAL_HELP = """\
Evaluate TREC runs against qrels, like trec_eval (and with trec_eval's flags).

Measures (-m, repeatable), in trec_eval's dialect: trec_eval's names and parameters
  official (the default), all_trec, P.5,10, ndcg_cut.10, iprec_at_recall..1,.5, map,
  gm_map, Rprec, bpref, recip_rank, ndcg, rbp (trec_eval 10's: p=0.9, graded), ...
and polars-rank metric strings: name, name@k, name(option=value), case-insensitive:
  ndcg@10            NDCG, linear gain as trec_eval (ndcg_burges@10: exponential)
  map, map@10, AP, mrr@10, RR@10, p@10, recall@100, R@100, hits@10, hit_rate@10,
  err@20(max_grade=4), f1@10, rbp(p=0.8) (ir_measures' binary RBP)
Run `polars-rank metrics` for the full list. Measures trec_eval has and polars-rank
does not compute yet are left out, with a note on stderr. Preference judgments:
  -R prefs (qid jg jsg docid rel) or -R qrels_prefs (qrels read as preferences), with
  -m prefs, -m all_prefs or any prefs_* measure (trec_eval's preference measures).

One run prints trec_eval's own output, byte for byte (-nan where trec_eval divides 0
by 0); several runs a table side by side. trec_eval 10's long options work too
(--query_eval_wanted, --complete_rel_info_wanted, --level_for_rel, --nosummary,
--Max_retrieved_per_topic, --Judged_docs_only, --Number_docs_in_coll, --Debug_level,
--Rel_info_format, --Results_format, --Zscore, --measure, --version; abbreviated as
trec_eval's getopt_long takes them: --meas, --q), and a run named - is read from
standard input. Ids are compared as bytes, as trec_eval compares them (files need
not be UTF-8), and printed as the files hold them. -Z FILE prints each value as a
z-score against FILE's per-topic mean and standard deviation (trec_eval -Z); -o
(trec_eval's obsolete old output format) changes nothing, as in trec_eval 10.

Queries evaluated: those of the run that have judgments. A judged query absent from
a run stops the evaluation as it stops trec_eval 10 (exit status 4); -c scores such
queries 0 (as trec_eval -c), --missing skip leaves them out (as trec_eval 9).
Errors exit with trec_eval's status: 1 an unknown option or measure, 2 a file it
cannot read or a bad parameter (-m P.0), 255 a -Z file it cannot read, 4 a query it
cannot evaluate (absent from the run, a document twice, -m utility.1), 7 no query.
--dialect ir_measures and ranx average over the qrels' queries instead (0 for those a
run lacks, no stop) unless -c or --missing is given. Equal scores are ordered by
document id, descending, as trec_eval does, scores compared as 64-bit doubles as
trec_eval 10 (--ties trec_eval9: as 32-bit floats, as trec_eval 9 and pytrec_eval;
--ties first: file order; --dialect: each measure its tool's order).

Unjudged retrieved documents are non-relevant, as in trec_eval; --unjudged high
judges them at --unjudged-grade (default: the qrels' largest label), --unjudged
condensed removes them (as -J), and --bounds prints, after each measure, <measure>_low
and <measure>_high: the interval the missing judgments leave open.

--dialect reads shared spellings as another tool does (trec_eval's by default):
  ranx (rbp graded with the raw label), sklearn (ties averaged), torchmetrics (map
  over the relevant documents within k, ties averaged), recommenders (every judged
  document relevant, map@k over min(R, k), file order), ir_measures, polars-rank.
"""


def _integer(text: str) -> int:
    """An integer option read as trec_eval reads it (C's atol: ``-l2.5`` is 2)."""
    if not re.match(r"\s*[-+]?\d", text):
        msg = f"{text!r} is not an integer"
        raise argparse.ArgumentTypeError(msg)
    return atol(text)


def _debug(text: str) -> tuple[int, str | None]:
    """trec_eval's ``-D level`` or ``-D level.qid`` (trec_eval.c, get_debug_level_query)."""
    level, dot, query = text.partition(".")
    return _integer(level) if level else 0, query if dot else None  # atol("") is 0


class _Version(argparse.Action):
    """``-v``: the version on stderr, exit 0, as trec_eval -v (no files needed)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        # trec_eval reads its options in order: an unknown -m before -v stops it (exit 1)
        refused = first_refusal(namespace.metrics or [], namespace.dialect)
        if refused is not None and refused.status == 1:
            parser.exit(1, f"polars-rank: error: {refused}\n")
        print(f"polars-rank version {__version__}, trec_eval version 10.0-rc3's measures and "
              "command line", file=sys.stderr)
        parser.exit(0)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="polars-rank",
        description="Ranking evaluation with Polars: trec_eval-compatible metrics.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    ev = sub.add_parser("eval", help="evaluate TREC runs against qrels",
                        description=EVAL_HELP,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ev.add_argument("qrels", type=Path, help="TREC qrels file: qid iter docid rel")
    ev.add_argument("runs", nargs="+", metavar="run",
                    help="TREC run file(s): qid Q0 docid rank score tag (the rank is not "
                         "read, as in trec_eval); - reads one from standard input")
    ev.add_argument("-m", "--metric", "--measure", action="append", dest="metrics",
                    metavar="METRIC",
                    help="measure or metric string, repeatable (default: official)")
    ev.add_argument("-q", "--per-query", "--query_eval_wanted", action="store_true",
                    help="also print one line per query (as trec_eval -q)")
    ev.add_argument("-n", "--no-summary", "--nosummary", action="store_true",
                    help="no summary lines (as trec_eval -n)")
    ev.add_argument("-l", "--level", "--level_for_rel", type=_integer, metavar="L",
                    help="labels >= L are relevant for binary measures (trec_eval -l)")
    ev.add_argument("-M", "--max-ret", "--Max_retrieved_per_topic", type=_integer,
                    metavar="N",
                    help="evaluate each query's first N documents only (trec_eval -M; "
                         "0: none, each query still evaluated)")
    ev.add_argument("-J", "--judged-only", "--Judged_docs_only", action="store_true",
                    help="rank the judged documents only, removing the others before any "
                         "measure (as trec_eval -J; metric strings: judged_only=True)")
    ev.add_argument("-c", "--complete_rel_info_wanted", dest="missing",
                    action="store_const", const="zero",
                    help="score judged queries absent from a run 0 (as trec_eval -c)")
    ev.add_argument("--missing", choices=["error", "skip", "zero"],
                    help="judged queries absent from a run: stop with trec_eval 10's "
                         "message and exit status 4 (error), leave them out (skip: "
                         "trec_eval 9, pytrec_eval) or score them 0 (zero: -c); default: "
                         "error, but the dialect's means over the qrels' queries under "
                         "--dialect ir_measures, ranx and recommenders")
    ev.add_argument("-N", "--num-docs", "--Number_docs_in_coll", type=_integer, metavar="N",
                    help="documents in the collection, read by utility's fourth weight "
                         "(as trec_eval -N; no other measure reads it)")
    ev.add_argument("-D", "--Debug_level", type=_debug, metavar="LEVEL[.QID]",
                    help="trec_eval's debug level; LEVEL.QID evaluates query QID only "
                         "(polars-rank prints no debugging traces)")
    ev.add_argument("-R", "--Rel_info_format", default="qrels", metavar="FORMAT",
                    help="the qrels' format (trec_eval -R): qrels; qrels_jg (judgment "
                         "groups, for -m qrels_jg: map_avgjg, P_avgjg, Rprec_mult_avgjg); or "
                         "preference judgments: prefs (qid jg jsg docid rel), qrels_prefs "
                         "(qrels read as preferences), with -m prefs or -m all_prefs")
    ev.add_argument("-T", "--Results_format", default="trec_results", metavar="FORMAT",
                    help="the run's format (trec_eval -T): trec_results")
    ev.add_argument("-v", "--version", action=_Version, nargs=0,
                    help="print the version on stderr and exit (as trec_eval -v)")
    ev.add_argument("-Z", "--Zscore", type=Path, metavar="ZSCORES_FILE",
                    help="print z-scores: (value - mean) / stddev, the mean and standard "
                         "deviation of each query and measure read from the file, lines "
                         "'qid measure mean stddev' (as trec_eval -Z; -1000000 where the "
                         "file has none)")
    ev.add_argument("-o", action="store_true", dest="old_format",
                    help="trec_eval's old output format: obsolete, changes nothing (as "
                         "in trec_eval 10)")
    ev.add_argument("--Output_old_results_format", metavar="X", dest="old_format_value",
                    help="trec_eval's long -o, which takes a value: ignored, as -o")
    ev.add_argument("--unjudged", choices=["low", "high", "ignore", "condensed"],
                    default="low",
                    help="unjudged retrieved documents: non-relevant (low, ignore; "
                         "trec_eval's), relevant at --unjudged-grade (high) or removed "
                         "(condensed, as -J)")
    ev.add_argument("--unjudged-grade", type=float, metavar="G",
                    help="the label --unjudged high gives them (default: the qrels' "
                         "largest label, at least 1)")
    ev.add_argument("--bounds", action="store_true",
                    help="after each measure, <measure>_low and <measure>_high: unjudged "
                         "retrieved documents non-relevant, and judged at --unjudged-grade")
    ev.add_argument("--format", choices=["trec_eval", "table", "csv", "json"],
                    help="output format (default: trec_eval for one run, else table)")
    ev.add_argument("--ties", help="order among equal scores (default: the dialect's, "
                                   "trec_eval's unless it says otherwise)",
                    choices=get_args(EvalTies))
    ev.add_argument("--dialect", choices=list(DIALECTS), default="trec_eval",
                    help="which tool's number a shared spelling means (default: trec_eval)")
    ev.add_argument("--memory", choices=["auto", "high", "low"], default="auto",
                    help="low: evaluate hash buckets of queries one after another "
                         "(runs larger than memory); high: all in memory; auto (the "
                         "default): low for runs above 12M rows")
    _cli_compare.add_parser(sub)
    _cli_fuse.add_parser(sub)
    demo = sub.add_parser("demo", help="evaluate and compare the arms of the embedded "
                                       "synthetic A/B experiment")
    demo.add_argument("--queries", type=int, default=2000, help="number of queries")
    demo.add_argument("--seed", type=int, default=0, help="random seed")
    sub.add_parser("metrics", help="list the metric strings")
    return parser


def eval_long_options(parser: argparse.ArgumentParser) -> set[str]:
    """The long options of ``eval``'s parser, as written (``--measure``)."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {o for a in commands.choices["eval"]._actions for o in a.option_strings
            if o.startswith("--")}
