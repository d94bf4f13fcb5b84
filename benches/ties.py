"""The card's one-liner under the default tie policy against ``ties="first"`` (issue 36).

The same frame, the same expression, the policies in turn, round after round (paired,
interleaved), medians of wall and of CPU time (all threads); in-process after one
warm-up run. Scores are rounded to three decimals, so that lists have ties (about one
row in four shares its score). Two forms: the card's ``group_by("qid").agg(metric)``
(``--form qid``) and ``group_by("arm", "segment").agg(metric(query="qid"))``
(``--form arm``):

    python benches/ties.py 1m 10m [--repeat 5] [--form qid arm]
    python benches/ties.py 1m 10m --floor   # plain-Polars floors of the card's nDCG@10

``--floor`` times, in the card's ``group_by("qid")`` form, nDCG@10 written directly in
Polars (exponential gain, no data checks): under ``"first"`` (the top 10 by a limited
sort) and exactly under ``"expected"`` (the rows at least the 10th best score, ranked
among themselves), beside the building blocks each needs per list.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import polars as pl

import polars_rank as pr

SIZES = {"1m": 1_000_000, "10m": 10_000_000}


def frame(n: int, per: int = 100) -> pl.DataFrame:
    rng = np.random.default_rng(0)
    queries = n // per
    return pl.DataFrame({
        "qid": np.repeat(np.arange(queries), per),
        "docid": np.tile(np.arange(per), queries),
        "arm": np.repeat(rng.integers(0, 2, queries), per),
        "segment": np.repeat(rng.integers(0, 4, queries), per),
        "score": np.round(rng.random(n), 3),
        "rel": rng.integers(0, 3, n),
    }).sample(fraction=1.0, shuffle=True, seed=1)  # a join's order: none in particular


FORMS = {
    "default (expected)": {},
    "ties='first'": {"ties": "first"},
    "doc= (trec_eval)": {"doc": "docid"},
}


def one_liner(df: pl.DataFrame, metric: str, options: dict, form: str) -> pl.DataFrame:
    function = {"ndcg@10": lambda **kw: pr.ndcg("rel", k=10, **kw),
                "mrr@10": lambda **kw: pr.mrr("rel", 10, **kw),
                "map@10": lambda **kw: pr.map("rel", 10, **kw),
                "p@10": lambda **kw: pr.precision("rel", 10, **kw)}[metric]
    if form == "qid":  # the card's: one value per query
        return df.group_by("qid").agg(function(by="score", **options))
    return df.group_by("arm", "segment").agg(function(by="score", query="qid", **options))


def floors(df: pl.DataFrame, size: str, repeat: int) -> None:
    """Plain-Polars nDCG@10 under each policy, and their building blocks, per list."""
    k = 10
    score, rel = pl.col("score"), pl.col("rel")
    gain = pl.lit(2.0).pow(rel.cast(pl.Float64)) - 1.0
    positions = pl.lit(pl.Series(range(1, k + 1), dtype=pl.Float64)).head(
        pl.min_horizontal(pl.len(), pl.lit(k, pl.UInt32)))
    discount = (positions + 1.0).log(2)
    ideal = (gain.sort(descending=True).head(k) / discount).sum()
    first = (gain.sort_by(score, descending=True).head(k) / discount).sum()
    # exact expected DCG@10: the rows scoring at least the 10th best, their tie bounds
    # among themselves, each row's gain times the mean discount over its bounds
    table = pl.select(pl.lit(0.0).append(
        (1.0 / (pl.int_range(1, k + 1) + 1.0).log(2)).cum_sum())).to_series()
    top = pl.struct(score.alias("s"), gain.alias("g")).filter(
        score >= score.top_k(k).min()).implode()
    s, g = pl.element().struct.field("s"), pl.element().struct.field("g")
    lo, hi = (s.rank(how, descending=True).cast(pl.Int64) for how in ("min", "max"))
    mean = (pl.lit(table).gather(pl.min_horizontal(hi, k)) - pl.lit(table).gather(lo - 1)) / (
        hi - lo + 1).cast(pl.Float64)
    expected = top.list.eval((g * mean).sum()).list.first()
    forms = {
        "group_by overhead (len)": pl.len(),
        "polars-rank ties='first'": pr.ndcg("rel", k=10, by="score", ties="first"),
        "polars-rank default (expected)": pr.ndcg("rel", k=10, by="score"),
        "plain Polars, first": first / ideal,
        "plain Polars, expected (exact)": expected / ideal,
        "block: top 10 by a limited sort_by": gain.sort_by(score, descending=True).head(k).sum(),
        "block: 10th best score (top_k)": score.top_k(k).min(),
        "block: rows >= 10th best, as structs": top.list.len(),
        "block: one rank() per list": score.rank("min", descending=True).sum(),
        "block: two rank() per list": score.rank("min", descending=True).sum()
        + score.rank("max", descending=True).sum(),
        "block: full sort_by + cum_sum": gain.sort_by(score, descending=True).cum_sum().last(),
    }
    cpu: dict[str, list[float]] = {name: [] for name in forms}
    for expr in forms.values():  # warm-up
        df.group_by("qid").agg(expr)
    for _ in range(repeat):
        for name, expr in forms.items():
            start = time.process_time()
            df.group_by("qid").agg(expr)
            cpu[name].append(time.process_time() - start)
    first_cpu = statistics.median(cpu["polars-rank ties='first'"])
    for name in forms:
        median = statistics.median(cpu[name])
        print(f"{size:>4} floor {name:40} CPU {median:6.3f} s  {median / first_cpu:5.2f}x "
              "polars-rank's ties='first'")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="+", choices=list(SIZES))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--metrics", default="ndcg@10,mrr@10,p@10,map@10")
    parser.add_argument("--form", nargs="+", default=["qid", "arm"], choices=["qid", "arm"])
    parser.add_argument("--floor", action="store_true")
    args = parser.parse_args()
    for size in args.sizes:
        df = frame(SIZES[size])
        if args.floor:
            floors(df, size, args.repeat)
            continue
        for shape in args.form:
            for metric in args.metrics.split(","):
                run(df, size, shape, metric, args.repeat)


def run(df: pl.DataFrame, size: str, shape: str, metric: str, repeat: int) -> None:
    """``repeat`` paired rounds of the policies on one metric; medians and ratios."""
    wall: dict[str, list[float]] = {form: [] for form in FORMS}
    cpu: dict[str, list[float]] = {form: [] for form in FORMS}
    for options in FORMS.values():  # warm-up
        one_liner(df, metric, options, shape)
    for _ in range(repeat):
        for form, options in FORMS.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            one_liner(df, metric, options, shape)
            wall[form].append(time.perf_counter() - start)
            cpu[form].append(time.process_time() - start_cpu)
    pairs = {form: statistics.median(w / f for w, f in zip(wall[form], wall["ties='first'"],
                                                            strict=True)) for form in FORMS}
    first_cpu = statistics.median(cpu["ties='first'"])
    for form in FORMS:
        median, median_cpu = statistics.median(wall[form]), statistics.median(cpu[form])
        print(f"{size:>4} {shape:4} {metric:8} {form:20} {median:7.3f} s "
              f"(CPU {median_cpu:6.3f} s)  {pairs[form]:5.2f}x first (paired wall), "
              f"{median_cpu / first_cpu:5.2f}x (CPU)")


if __name__ == "__main__":
    main()
