"""The ``polars-rank`` command line (also ``python -m polars_rank``).

``polars-rank eval QRELS RUN [RUN ...] -m ndcg@10 -m map`` prints trec_eval-shaped
results (metric, query or ``all``, value), several runs side by side;
``polars-rank demo`` evaluates the embedded synthetic A/B experiment and compares its
arms per segment (deltas, confidence intervals, significance);
``polars-rank compare QRELS RUN RUN ... -m ndcg@10`` tests which runs are better than
which and prints a ranx-style table; ``polars-rank fuse RUN RUN ... -m rrf -o OUT``
fuses runs into one; ``polars-rank metrics`` lists the metric strings.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, get_args

import polars as pl

from polars_rank import __version__, _cli_compare, _cli_fuse, _cli_judgment_groups, datasets
from polars_rank._cli_eval import (
    Settings,
    Stop,
    asked,
    evaluate_files,
    print_trec_eval,
    readable,
    to_ids,
)
from polars_rank._cli_getopt import UsageError, spelled_out
from polars_rank._cli_prefs import PREFS_FORMATS, evaluate_prefs_files, print_prefs, refuse
from polars_rank._cli_status import exit_status, first_refusal, stop_in_order
from polars_rank._evaluation import evaluate
from polars_rank._evaluation.spec import EvalTies
from polars_rank._trec_measures import atol
from polars_rank.compare import compare
from polars_rank.errors import InvalidDataError, TrecFormatError
from polars_rank.metrics import abandonment, auc, clicks_per_query, ctr, first_click_rr, mrr
from polars_rank.preferences import PREFS_MEASURES, PREFS_SUMMARIES
from polars_rank.recsys._table import TABLE as BEYOND_ACCURACY
from polars_rank.recsys._table import summary
from polars_rank.registry import DIALECTS, METRICS

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

__all__ = ["main"]

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


def _parser() -> argparse.ArgumentParser:
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


def _run_names(runs: Sequence[str]) -> list[str]:
    """Column names for the runs: file names, made unique (``-``: standard input)."""
    paths = [Path(r) for r in runs]
    names = [r if r == "-" else p.name for r, p in zip(runs, paths, strict=True)]
    if len(set(names)) < len(names):
        names = [str(p) for p in paths]
    if len(set(names)) < len(names):
        names = [f"{n}#{i}" for i, n in enumerate(names, 1)]
    return names


def _eval(args: argparse.Namespace) -> None:
    """``polars-rank eval``."""
    # the -m trec_eval refuses, with its exit status, where it stops (_cli_status)
    refused = first_refusal(args.metrics or ["official"], args.dialect)
    if refused is not None and refused.status == 1:  # read with the options
        raise refused
    _check_formats(args.Rel_info_format, args.Results_format)
    if args.max_ret is not None and args.max_ret < 0:
        msg = (f"-M {args.max_ret}: the number of documents per query is 0 or more "
               "(trec_eval crashes on a negative -M)")
        raise ValueError(msg)
    level, debug_query = args.Debug_level or (0, None)
    if debug_query is not None:  # as the files' ids are read: byte for byte
        debug_query = to_ids(debug_query)
    if refused is not None:  # after the files
        with _standard_input(args.runs) as runs:
            stop_in_order(refused, args.qrels, runs, args.Rel_info_format, args.Zscore,
                          debug_query)
    measures = asked(args.metrics, args.level, args.dialect, args.num_docs)
    try:
        _cli_judgment_groups.check_measures(measures, args.Rel_info_format)
    except Stop as stop:  # trec_eval finds it when it calculates: after reading the files
        with _standard_input(args.runs) as runs:
            stop_in_order(stop, args.qrels, runs, args.Rel_info_format, args.Zscore,
                          debug_query)
    for note in measures.notes:
        print(f"polars-rank: note: {note}", file=sys.stderr)
    if measures.skipped:
        print("polars-rank: note: not computed (not in polars-rank yet): "
              + ", ".join(measures.skipped), file=sys.stderr)
    if not measures.names:
        msg = "no measure left to compute (see the note above)"
        raise ValueError(msg)
    prefs = args.Rel_info_format in PREFS_FORMATS
    if prefs:
        _check_prefs_options(args)
    if args.bounds:
        measures = measures.with_bounds()
    if level > 0:
        print(f"polars-rank: note: -D {level}: trec_eval's debugging traces are not printed "
              "(polars-rank computes the measures another way)", file=sys.stderr)
    settings = Settings.of(args.dialect, ties=args.ties, missing=args.missing,
                           memory=args.memory, max_ret=args.max_ret,
                           judged_only=args.judged_only, unjudged=args.unjudged,
                           unjudged_grade=args.unjudged_grade, debug_query=debug_query,
                           zscores=args.Zscore, rel_info_format=args.Rel_info_format)
    fmt = args.format or ("trec_eval" if len(args.runs) == 1 else "table")
    if fmt == "trec_eval" and len(args.runs) > 1:
        msg = "--format trec_eval prints one run; give one, or --format table"
        raise ValueError(msg)
    with warnings.catch_warnings(record=True) as caught, _standard_input(args.runs) as runs:
        warnings.simplefilter("always")
        try:
            if prefs or measures.prefs:  # trec_eval stops where the two do not meet
                refuse(args.Rel_info_format, measures, args.qrels, runs, settings)
            if prefs and fmt == "trec_eval":
                print_prefs(args.Rel_info_format, args.qrels, runs[0], measures, settings,
                            per_query=args.per_query, summary=not args.no_summary)
            elif fmt == "trec_eval":
                print_trec_eval(args.qrels, runs[0], measures, settings,
                                per_query=args.per_query, summary=not args.no_summary)
            else:
                result = (evaluate_prefs_files(args.Rel_info_format, args.qrels, runs,
                                               _run_names(args.runs), measures, settings,
                                               per_query=args.per_query) if prefs else
                          evaluate_files(args.qrels, runs, _run_names(args.runs), measures,
                                         settings, per_query=args.per_query))
                if fmt == "csv":
                    sys.stdout.write(result.write_csv())
                elif fmt == "json":
                    sys.stdout.write(result.write_json() + "\n")
                else:
                    _print_table(result)
        finally:
            for w in caught:  # their ids as the files hold them
                print(f"polars-rank: warning: {readable(str(w.message))}", file=sys.stderr)


def _check_formats(qrels: str, run: str) -> None:
    """trec_eval's ``-R`` and ``-T``: the formats polars-rank reads, or why not."""
    if qrels not in ("qrels", "qrels_jg", *PREFS_FORMATS):
        msg = f"-R {qrels}: not a qrels format trec_eval knows (Illegal rel_format); -R qrels"
        raise ValueError(msg)
    if run != "trec_results":
        msg = (f"-T {run}: not a results format trec_eval knows (Illegal retrieval results "
               "format); -T trec_results")
        raise ValueError(msg)


def _check_prefs_options(args: argparse.Namespace) -> None:
    """polars-rank's own options that preference judgments have no use for."""
    given = [option for option, used in (
        ("--bounds", args.bounds), ("--unjudged", args.unjudged != "low"),
        ("--unjudged-grade", args.unjudged_grade is not None), ("--ties", args.ties),
        ("--dialect", args.dialect != "trec_eval"), ("--memory", args.memory != "auto"),
    ) if used]
    if given:
        msg = (f"{given[0]}: not for preference judgments (-R {args.Rel_info_format}), "
               "which trec_eval evaluates one way: equal scores by document id ascending, "
               "unjudged documents left out of every preference")
        raise ValueError(msg)


@contextlib.contextmanager
def _standard_input(runs: Sequence[str]) -> Iterator[list[Path]]:
    """The run files, ``-`` (trec_eval's standard input) copied to a temporary file.

    Read as trec_eval reads it: a run named ``-``; any other name is a file.
    """
    if runs.count("-") > 1:
        msg = "- (standard input) can be given for one run only"
        raise ValueError(msg)
    if "-" not in runs:
        yield [Path(r) for r in runs]
        return
    with tempfile.TemporaryDirectory(prefix="polars-rank-") as folder:
        path = Path(folder) / "standard-input"
        with path.open("wb") as copy:
            shutil.copyfileobj(sys.stdin.buffer, copy)
        yield [path if r == "-" else Path(r) for r in runs]


def _print_table(frame: pl.DataFrame) -> None:
    runs = frame.columns[2:]
    width_m = max([len("metric"), *(len(m) for m in frame["metric"])])
    width_q = max([len("qid"), *(len(q) for q in frame["qid"])])
    widths = [max(len(r), 6) for r in runs]
    head = [f"{'metric':<{width_m}}", f"{'qid':<{width_q}}",
            *(f"{r:>{w}}" for r, w in zip(runs, widths, strict=True))]
    print("\t".join(head))
    for row in frame.iter_rows():
        cells = [f"{row[0]:<{width_m}}", f"{row[1]:<{width_q}}"]
        cells += [f"{'':>{w}}" if v is None else f"{v:>{w}.4f}"
                  for v, w in zip(row[2:], widths, strict=True)]
        print("\t".join(cells))


def _demo(n_queries: int, seed: int) -> None:
    df = datasets.synthetic_experiment(n_queries, seed=seed)
    with pl.Config(tbl_hide_dataframe_shape=True, tbl_rows=50, float_precision=4):
        _print_demo(df, n_queries, seed)


def _print_demo(df: pl.DataFrame, n_queries: int, seed: int) -> None:
    metrics = ["ndcg@10", "map", "mrr@10", "p@5", "recall@10", "err@10(max_grade=3)"]
    print(f"Synthetic A/B experiment: {n_queries} queries, arms {sorted(df['arm'].unique())}, "
          f"{df.height} rows (seed {seed})\n")
    print("Per arm (mean over queries, each query once):")
    print(evaluate(df, metrics=metrics, group_by="arm", doc="docid"))
    print("\nPer device and arm:")
    print(evaluate(df, metrics=metrics[:3], group_by=["device", "arm"], doc="docid"))
    print("\nPer locale and arm:")
    print(evaluate(df, metrics=metrics[:1], group_by=["locale", "arm"], doc="docid"))
    print("\nClicks per arm (cascade clicks on the shown results):")
    shown = df.filter(pl.col("position").is_not_null())
    print(shown.group_by("arm").agg(
        ctr("clicked", 5, by="position", descending=False, query="qid").alias("ctr@5"),
        mrr("clicked", by="position", descending=False, query="qid").alias("click_mrr"),
        abandonment("clicked", by="position", descending=False, query="qid")
        .alias("abandonment"),
        clicks_per_query("clicked", by="position", descending=False, query="qid")
        .alias("clicks/query"),
        auc("clicked", by="score", query="qid").alias("gauc"),
    ).sort("arm"))
    try:
        with pl.Config(tbl_cols=-1, tbl_width_chars=200, tbl_hide_column_data_types=True,
                       tbl_hide_dtype_separator=True):
            _print_comparisons(df, shown)
    except ImportError as exc:
        print(f"\nSignificance tests skipped: {exc}")


def _print_comparisons(df: pl.DataFrame, shown: pl.DataFrame) -> None:
    """Treatment vs control with deltas, intervals and tests, per segment."""
    per_device = evaluate(df, metrics=["ndcg@10", "map", "mrr@10"],
                          group_by=["device", "arm"], per_query=True, doc="docid")
    print("\nTreatment vs control per device: paired t-test over the queries, 95% intervals,"
          "\nHolm-adjusted p-values across the metrics of a device (* significant at 0.05):")
    print(_readable(compare(per_device, baseline="control", group_by="device"), ["device"]))

    per_locale = evaluate(df, metrics=["ndcg@10"], group_by=["locale", "arm"],
                          per_query=True, doc="docid")
    print("\nTreatment vs control per locale, ndcg@10: paired randomization test "
          "(10,000 sign flips):")
    out = compare(per_locale, baseline="control", group_by="locale", test="randomization")
    print(_readable(out, ["locale"]))

    by_position = {"by": "position", "descending": False}
    impressions = shown.group_by("arm", "qid").agg(
        ctr("clicked", 5, **by_position).alias("ctr@5"),  # type: ignore[arg-type]
        first_click_rr("clicked", **by_position).alias("click_mrr"),  # type: ignore[arg-type]
        abandonment("clicked", **by_position).alias("abandonment"),  # type: ignore[arg-type]
    )
    print("\nClicks, treatment vs control, as an online test: each impression an independent"
          "\nunit (unpaired), BCa bootstrap intervals (10,000 resamples):")
    out = compare(impressions, baseline="control", paired=False, test="bootstrap")
    print(_readable(out, []))


def _readable(out: pl.DataFrame, groups: list[str]) -> pl.DataFrame:
    """A comparison for reading: rounded, intervals and lift as text, a significance mark."""

    def number(x: float | None, sign: str = "+") -> str:
        return "" if x is None else f"{x:{sign}.4f}"

    def p_value(p: float | None) -> str:
        return "" if p is None else ("<0.0001" if p < 1e-4 else f"{p:.4f}")

    rows = []
    for r in out.iter_rows(named=True):
        rows.append({
            **{g: r[g] for g in groups},
            "metric": r["metric"],
            "control": number(r["baseline_mean"], ""),
            "treatment": number(r["mean"], ""),
            "delta": number(r["delta"]),
            "95% CI": (f"[{number(r['delta_ci_low'])}, {number(r['delta_ci_high'])}]"
                       if r["delta_ci_low"] is not None else ""),
            "lift": "" if r["lift"] is None else f"{100 * r['lift']:+.1f}%",
            "p (adj.)": p_value(r["p_adjusted"]),
            "": "*" if r["significant"] else "",
        })
    return pl.DataFrame(rows)


def _list_metrics() -> None:
    for m in METRICS.values():
        spelling = m.name + ("@k" if m.cutoff else "")
        options = ", ".join(f"{o.name}={o.default}" for o in m.options)
        aliases = ", ".join(m.aliases)
        print(f"{spelling:<20} {m.summary}"
              + (f"\n{'':<20}   options: {options}" if options else "")
              + (f"\n{'':<20}   aliases: {aliases}" if aliases else "")
              + (f"\n{'':<20}   trec_eval: {m.trec_eval}" if m.trec_eval else ""))
    print("\ntrec_eval's preference measures: read preference judgments (eval -R prefs, "
          "-R qrels_prefs;\npr.evaluate_prefs), not metric strings")
    print("\n".join(f"{m:<24} {PREFS_SUMMARIES[m]}" for m in PREFS_MEASURES))
    print("\nbeyond-accuracy (recommender) metrics: Polars expressions and frame functions")
    print("(pr.<name>), not metric strings; see the Beyond accuracy docs page")
    for e in BEYOND_ACCURACY:
        print(f"{e.name:<24} {summary(e.function)}"
              f"\n{'':<24}   {e.kind}; reads: {e.reads}; matches: {e.matches}")


def _eval_long_options(parser: argparse.ArgumentParser) -> set[str]:
    """The long options of ``eval``'s parser, as written (``--measure``)."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {o for a in commands.choices["eval"]._actions for o in a.option_strings
            if o.startswith("--")}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    trec = next((a for a in argv if not a.startswith("-")), None) == "eval"
    if trec:  # trec_eval's command line: its abbreviations, its usage errors' status 1
        try:
            argv = spelled_out(argv, _eval_long_options(parser))
        except UsageError as exc:
            print(f"polars-rank eval: error: {exc}", file=sys.stderr)
            return 1
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        if trec and exc.code == 2:  # argparse's usage error; trec_eval exits 1 there
            raise SystemExit(1) from None
        raise
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "eval":
            _eval(args)
        elif args.command == "compare":
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                _cli_compare.run(args)
            for w in caught:
                print(f"polars-rank: warning: {readable(str(w.message))}", file=sys.stderr)
        elif args.command == "fuse":
            _cli_fuse.run(args)
        elif args.command == "demo":
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                _demo(args.queries, args.seed)
            for w in caught:
                print(f"polars-rank: warning: {w.message}", file=sys.stderr)
        else:
            _list_metrics()
    except BrokenPipeError:  # the reader left (| head): entry_point ends quietly
        raise
    except Stop as stop:  # where trec_eval 10 stops, with its message and exit status
        print(f"polars-rank: {stop}", file=sys.stderr)
        if stop.hint:
            print(f"polars-rank: hint: {stop.hint}", file=sys.stderr)
        return stop.status
    except (OSError, TrecFormatError, InvalidDataError, ValueError, ImportError) as exc:
        print(f"polars-rank: error: {exc}", file=sys.stderr)
        return exit_status(exc)  # trec_eval's, for an error it has too
    return 0


def entry_point() -> None:
    """Console-script entry point.

    A reader that stops reading (``polars-rank eval ... | head``) ends the program as
    it ends trec_eval and other C programs: by SIGPIPE, with nothing on stderr.
    """
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's advice (docs: signal, "Note on SIGPIPE"): point stdout at devnull so
        # that the flush at exit cannot fail again, then die of the signal
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if hasattr(signal, "SIGPIPE"):
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGPIPE)
        sys.exit(1)  # Windows has no SIGPIPE
    sys.exit(code)


if __name__ == "__main__":
    entry_point()
