"""The ``polars-rank`` command line (also ``python -m polars_rank``).

``polars-rank eval QRELS RUN [RUN ...] -m ndcg@10 -m map`` prints trec_eval-shaped
results (metric, query or ``all``, value), several runs side by side;
``polars-rank demo`` evaluates the embedded synthetic A/B experiment and compares its
arms per segment (deltas, confidence intervals, significance);
``polars-rank metrics`` lists the metric strings.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from polars_rank import datasets
from polars_rank._evaluation import evaluate
from polars_rank.compare import compare
from polars_rank.errors import InvalidDataError, TrecFormatError
from polars_rank.io import scan_qrels, scan_run
from polars_rank.metrics import abandonment, auc, clicks_per_query, ctr, first_click_rr, mrr
from polars_rank.registry import METRICS

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]

EVAL_HELP = """\
Evaluate TREC runs against qrels, like trec_eval.

Metric strings (-m, repeatable): name, name@k, name(option=value), case-insensitive:
  ndcg@10            NDCG, exponential gain (2^l - 1)
  ndcg@10(gain=linear), ndcg_cut_10, ndcg_cut.10    trec_eval's NDCG (linear gain)
  map, map@10, AP    average precision (divides by all relevant documents)
  mrr, mrr@10, recip_rank, RR@10
  p@10, P_10, P.10   precision;  recall@100, recall_100, R@100
  err@20(max_grade=4), hit_rate@10 (success_10), rprec (Rprec), bpref, rbp(p=0.8), f1@10
Run `polars-rank metrics` for the full list.

Queries evaluated: those of the run that have judgments (--missing zero adds qrels
queries absent from a run with every metric 0, as trec_eval -c). Equal scores are
ordered by document id, descending, as trec_eval does (--ties first: file order).
"""


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
    ev.add_argument("runs", type=Path, nargs="+", metavar="run",
                    help="TREC run file(s): qid Q0 docid rank score tag")
    ev.add_argument("-m", "--metric", action="append", dest="metrics", metavar="METRIC",
                    help="metric string, repeatable (default: ndcg@10, map, mrr@10)")
    ev.add_argument("-q", "--per-query", action="store_true",
                    help="also print one line per query (as trec_eval -q)")
    ev.add_argument("--format", choices=["table", "csv", "json"], default="table",
                    help="output format (default: table, 4 decimals like trec_eval)")
    ev.add_argument("--missing", choices=["skip", "zero"], default="skip",
                    help="qrels queries absent from a run: skip, or zero (trec_eval -c)")
    ev.add_argument("--ties", default="trec_eval", help="order among equal scores",
                    choices=["trec_eval", "first", "optimistic", "pessimistic", "expected"])
    ev.add_argument("--memory", choices=["high", "low"], default="high",
                    help="low: evaluate hash buckets of queries one after another "
                         "(runs larger than memory)")
    demo = sub.add_parser("demo", help="evaluate and compare the arms of the embedded "
                                       "synthetic A/B experiment")
    demo.add_argument("--queries", type=int, default=2000, help="number of queries")
    demo.add_argument("--seed", type=int, default=0, help="random seed")
    sub.add_parser("metrics", help="list the metric strings")
    return parser


def _run_names(paths: Sequence[Path]) -> list[str]:
    """Column names for the runs: file names, made unique."""
    names = [p.name for p in paths]
    if len(set(names)) < len(names):
        names = [str(p) for p in paths]
    if len(set(names)) < len(names):
        names = [f"{n}#{i}" for i, n in enumerate(names, 1)]
    return names


def evaluate_files(
    qrels: Path,
    runs: Sequence[Path],
    metrics: Sequence[str],
    *,
    per_query: bool = False,
    missing: str = "skip",
    ties: str = "trec_eval",
    memory: str = "high",
) -> pl.DataFrame:
    """Long results: ``metric, qid`` (``all`` for the mean), one column per run."""
    judgments = scan_qrels(qrels)
    merged: pl.DataFrame | None = None
    for name, path in zip(_run_names(runs), runs, strict=True):
        per = evaluate(scan_run(path), judgments, metrics, per_query=True,
                       missing=missing, ties=ties,  # type: ignore[arg-type]
                       memory=memory).collect()  # type: ignore[arg-type]
        columns = [c for c in per.columns if c != "qid"]
        means = per.select(pl.lit("all").alias("qid"), pl.col(columns).mean())
        rows = pl.concat([per, means]) if per_query else means
        long = rows.unpivot(index="qid", variable_name="metric", value_name=name)
        merged = long if merged is None else merged.join(long, on=["metric", "qid"],
                                                         how="full", coalesce=True)
    assert merged is not None  # runs is non-empty (argparse nargs="+")
    order = {m: i for i, m in enumerate(metrics)}
    return (
        merged.with_columns(
            pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("__m"),
            (pl.col("qid") == "all").alias("__all"),
        )
        .sort("__m", "__all", "qid")
        .drop("__m", "__all")
        .select("metric", "qid", pl.exclude("metric", "qid"))
    )


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
            "95% CI": (f"[{number(r['ci_low'])}, {number(r['ci_high'])}]"
                       if r["ci_low"] is not None else ""),
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


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "eval":
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = evaluate_files(
                    args.qrels, args.runs, args.metrics or ["ndcg@10", "map", "mrr@10"],
                    per_query=args.per_query, missing=args.missing, ties=args.ties,
                    memory=args.memory,
                )
            for w in caught:
                print(f"polars-rank: warning: {w.message}", file=sys.stderr)
            if args.format == "csv":
                sys.stdout.write(result.write_csv())
            elif args.format == "json":
                sys.stdout.write(result.write_json() + "\n")
            else:
                _print_table(result)
        elif args.command == "demo":
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                _demo(args.queries, args.seed)
            for w in caught:
                print(f"polars-rank: warning: {w.message}", file=sys.stderr)
        else:
            _list_metrics()
    except (OSError, TrecFormatError, InvalidDataError, ValueError) as exc:
        print(f"polars-rank: error: {exc}", file=sys.stderr)
        return 2
    return 0


def entry_point() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
