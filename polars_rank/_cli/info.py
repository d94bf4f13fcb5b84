"""The subcommands that read no file: ``polars-rank demo`` and ``polars-rank metrics``."""

from __future__ import annotations

import polars as pl

from polars_rank import datasets
from polars_rank._evaluation import evaluate
from polars_rank.compare import compare
from polars_rank.metrics import abandonment, auc, clicks_per_query, ctr, first_click_rr, mrr
from polars_rank.preferences import PREFS_MEASURES, PREFS_SUMMARIES
from polars_rank.recsys._table import TABLE as BEYOND_ACCURACY
from polars_rank.recsys._table import summary
from polars_rank.registry import METRICS


def demo(n_queries: int, seed: int) -> None:
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


def list_metrics() -> None:
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
