"""``polars-rank compare``: TREC runs in, a ranx-style significance table out.

Each run is evaluated per query exactly as ``polars-rank eval`` evaluates it (the
same measures, dialects and flags), the runs become the arms of
:func:`polars_rank.compare` (paired over the queries) and :func:`polars_rank.report`
prints the result.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._cli.eval import evaluate_files
from polars_rank._cli.eval_settings import Settings, asked
from polars_rank._compare.options import CORRECTIONS, TESTS
from polars_rank._compare.report import report
from polars_rank.compare import compare
from polars_rank.io import scan_run
from polars_rank.registry import DIALECTS, convention

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["COMPARE_HELP", "add_parser", "run"]

COMPARE_HELP = """\
Compare TREC runs: each run's mean per measure, and which runs are significantly
better than which, as ranx prints it (one row per run, lettered a, b, c...; the
letters after a mean are the runs it beats), or the full comparison as CSV.

  polars-rank compare qrels.txt bm25.run dense.run hybrid.run -m ndcg_cut_10 -m map
  polars-rank compare qrels.txt *.run -m ndcg@10 --baseline bm25 --test wilcoxon

The runs are evaluated per query as `polars-rank eval` evaluates them (measures in
trec_eval's dialect or polars-rank metric strings, -c, -l, --ties, --dialect) and
compared over the queries they share (paired). Without --baseline every pair of
runs is compared; with it, every run against the baseline(s). A run is named by its
file name without the extension (--names tag: by its run tag).
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``compare`` subcommand's arguments."""
    cp = sub.add_parser("compare", help="compare TREC runs with significance tests",
                        description=COMPARE_HELP,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    cp.add_argument("qrels", type=Path, help="TREC qrels file: qid iter docid rel")
    cp.add_argument("runs", type=Path, nargs="+", metavar="run",
                    help="TREC run files (at least two): qid Q0 docid rank score tag")
    cp.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                    required=True, help="measure or metric string, repeatable")
    cp.add_argument("--baseline", action="append", metavar="NAME",
                    help="compare every run against this one (repeatable; default: all pairs)")
    cp.add_argument("--test", choices=TESTS, default="t",
                    help="significance test (default: t, the paired t-test)")
    cp.add_argument("--correction", choices=[*(c for c in CORRECTIONS if c), "none"],
                    help="multiple-comparison correction (default: holm; tukey: none)")
    cp.add_argument("--alpha", type=float, default=0.05, help="significance level")
    cp.add_argument("--n-resamples", type=int, default=10_000,
                    help="resamples of the randomization and bootstrap tests")
    cp.add_argument("--seed", type=int, default=0, help="seed of the resampling")
    cp.add_argument("--format", choices=["table", "markdown", "latex", "csv"],
                    default="table", help="the report as text, Markdown, LaTeX, or the "
                                          "comparison's rows as CSV (default: table)")
    cp.add_argument("--digits", type=int, default=4, help="decimals of the means")
    cp.add_argument("--names", choices=["stem", "tag"], default="stem",
                    help="name a run by its file name without extension, or its run tag")
    cp.add_argument("-l", "--level", type=int, metavar="L",
                    help="labels >= L are relevant for binary measures (trec_eval -l)")
    cp.add_argument("-c", dest="missing", action="store_const", const="zero",
                    help="score qrels queries absent from a run 0 (as trec_eval -c)")
    cp.add_argument("--ties", help="order among equal scores (default: the dialect's)",
                    choices=["trec_eval", "first", "optimistic", "pessimistic", "expected"])
    cp.add_argument("--dialect", choices=list(DIALECTS), default="trec_eval",
                    help="which tool's number a shared spelling means (default: trec_eval)")


def _names(paths: Sequence[Path], by: str) -> list[str]:
    """The arms' names: file stems (or run tags), made unique with the paths."""
    if by == "tag":
        names = []
        for p in paths:
            tag = scan_run(p).select(pl.col("tag").first()).collect().item()
            names.append(p.stem if tag is None else str(tag))
    else:
        names = [p.stem for p in paths]
    if len(set(names)) < len(names):
        msg = (f"two runs have the same name {sorted(n for n in names if names.count(n) > 1)}"
               f"; rename the files or use --names {'stem' if by == 'tag' else 'tag'}")
        raise ValueError(msg)
    return names


def per_query_values(args: argparse.Namespace) -> pl.DataFrame:
    """``arm, qid`` and one column per measure: each run evaluated as ``eval`` does."""
    if len(args.runs) < 2:
        msg = "compare needs at least two runs"
        raise ValueError(msg)
    measures = asked(args.metrics, args.level, args.dialect)
    if measures.skipped:
        print("polars-rank: note: not computed (not in polars-rank yet): "
              + ", ".join(measures.skipped), file=sys.stderr)
    names = _names(args.runs, args.names)
    settings = Settings(convention(args.dialect, ties=args.ties, missing=args.missing))
    long = evaluate_files(args.qrels, args.runs, names, measures, settings, per_query=True)
    metrics = long["metric"].unique(maintain_order=True).to_list()
    return (long.filter(pl.col("qid") != "all")
            .unpivot(index=["metric", "qid"], on=names, variable_name="run")
            .pivot("metric", index=["run", "qid"], values="value")
            .select("run", "qid", *metrics)
            .sort("run", "qid"))


def run(args: argparse.Namespace) -> None:
    """``polars-rank compare``."""
    per_query = per_query_values(args)
    baseline = None if not args.baseline else (
        args.baseline[0] if len(args.baseline) == 1 else args.baseline)
    options = {} if args.correction is None else {
        "correction": None if args.correction == "none" else args.correction}
    comparison = compare(per_query, arm="run", baseline=baseline, test=args.test,
                         alpha=args.alpha, n_resamples=args.n_resamples, seed=args.seed,
                         **options)  # type: ignore[arg-type]
    if args.format == "csv":
        sys.stdout.write(comparison.write_csv())
    else:
        sys.stdout.write(report(comparison, format=args.format, arm="run",
                                digits=args.digits))
