"""Similarity of rankings and leaderboard bootstraps against the plain-Python references.

    python benches/agreement_rankings.py [--queries 100000] [--reference-queries 5000]

1. RBO (ext, p=0.9) and tau_AP over ``--queries`` query pairs of two 100-document
   lists drawn from a pool of 150 documents (about 67 documents in common), as one
   ``select(...(query="qid"))`` on the joined frame. The references run on the first
   ``--reference-queries`` pairs and are scaled linearly to all of them (their cost
   per pair does not depend on the others): the ``rbo`` package's ``rbo_ext``
   (transcribed, tests/rbo_reference.py) and tau_AP as the paper writes it (O(n^2)
   per pair, tests/test_agreement_rankings.py). The same with ``ranking_similarity``
   (the frame form: its rank columns are positions 1..100, so no sort for RBO and one
   for tau_AP), and all four values at once against the sum of both references.
   Floors, in the same run on the same frame: the least a Polars program does, with
   nothing checked. RBO: one gather of F(max(a, b) - 1) per row and one ``group_by``
   of a sum, a count and a max (the closed form of Eq. 32 for two lists of length k);
   tau_AP: the common rows sorted once by (query, rank_b) and one ``group_by`` of a
   sum (less than tau_AP needs). A floor above 0.05x of its reference makes that
   target out of reach for any Polars plan.
2. ``leaderboard_bootstrap``: 50 systems x 5,000 queries x 1,000 resamples, against a
   loop over the resamples that draws query indices and averages the drawn rows
   (NumPy per resample, the plain way to write it) and against its floor (the same
   draws and product, no check: ``bootstrap_floor``); CPU times printed as well.
   ``--only bootstrap`` runs this part alone.
Medians of ``--repeat`` rounds; one process, one thing at a time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from rbo_reference import RankingSimilarity
from test_agreement_rankings import tau_ap_reference

from polars_rank.agreement import leaderboard_bootstrap, ranking_similarity, rbo, tau_ap


def lists(n_queries: int, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    rng = random.Random(seed)
    a, b = [], []
    for _ in range(n_queries):
        pool = [f"d{i}" for i in range(150)]
        a.append(rng.sample(pool, 100))
        b.append(rng.sample(pool, 100))
    return a, b


def joined(a: list[list[str]], b: list[list[str]]) -> pl.DataFrame:
    qa = np.repeat(np.arange(len(a)), 100)
    left = pl.DataFrame({"qid": qa, "docid": [d for x in a for d in x],
                         "rank_a": np.tile(np.arange(1, 101), len(a))})
    right = pl.DataFrame({"qid": qa, "docid": [d for x in b for d in x],
                          "rank_b": np.tile(np.arange(1, 101), len(b))})
    return left.join(right, on=["qid", "docid"], how="full", coalesce=True)


def rbo_floor(frame: pl.DataFrame, p: float) -> float:
    """The least a Polars program does for RBO ext here: one gather, one group_by, no check.

    Both lists of a query have the same length k (positions 1..k, trusted, not checked):
    RBO_ext = sum over the common documents c of (1-p)/p (F(k) - F(m_c - 1)) + p^k / k,
    m_c = max(rank_a, rank_b), F(n) = sum_(d<=n) p^d / d (Eq. 32 with s = l), plain
    float sums (row-order dependent).
    """
    table, total = [0.0], 0.0
    for d in range(1, 2 * 100 + 1):
        total += p**d / d
        table.append(total)
    ra, rb = pl.col("rank_a"), pl.col("rank_b")
    both = ra.is_not_null() & rb.is_not_null()
    f = pl.when(both).then(pl.lit(pl.Series(table)).gather((pl.max_horizontal(ra, rb) - 1)
                                                           .fill_null(0)))
    per = frame.lazy().with_columns(f.alias("f")).group_by("qid").agg(
        pl.col("f").sum().alias("s"), pl.col("f").count().alias("x"), ra.max().alias("k"))
    x, k = pl.col("x"), pl.col("k")
    c = (1 - p) / p
    value = c * (x * pl.lit(pl.Series(table)).gather(k) - pl.col("s")) \
        + x * pl.lit(p).pow(k) / k
    return float(per.select(value.mean()).collect().item())


def tau_floor(frame: pl.DataFrame) -> float:
    """Less than any tau_AP needs: the common rows sorted once by (query, rank_b), a sum.

    tau_AP needs at least the positions among the common documents in one ranking (a
    sort) and one pass per query; this floor does only that (its value is not tau_AP).
    """
    ra, rb = pl.col("rank_a"), pl.col("rank_b")
    common = frame.lazy().filter(ra.is_not_null() & rb.is_not_null()).sort("qid", "rank_b")
    i = pl.col("i")
    return float(common.with_row_index("i").group_by("qid").agg(
        (ra / (i - i.min() + 1)).sum()).select(pl.col("rank_a").mean()).collect().item())


def best(f: Any, repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - start)
    return statistics.median(times), out


def show(rows: list[tuple[str, float, float, float]]) -> None:
    print("| workload | polars-rank | reference | ratio | mean difference |")
    print("|---|---|---|---|---|")
    for name, ours, ref_t, diff in rows:
        print(f"| {name} | {ours:.3f} s | {ref_t:.3f} s | {ours / ref_t:.3f}x | {diff:.1e} |")


def bootstrap_floor(per_query: pl.DataFrame, n_res: int, seed: int) -> pl.DataFrame:
    """The least a program does for leaderboard_bootstrap's output, without any check.

    The (query x system) matrix in sorted order (hash joins of the sorted keys, one
    scatter), the same draws (``integers`` and ``bincount`` per batch of resamples),
    one product, the shared positions by one ``argsort``, the percentiles, the output
    frame.
    """
    systems = per_query.get_column("system").unique().sort()
    queries = per_query.get_column("qid").unique().sort()
    n_sys, n_q = len(systems), len(queries)
    keys = (per_query
            .join(pl.DataFrame({"system": systems, "s": np.arange(n_sys)}), on="system")
            .join(pl.DataFrame({"qid": queries, "q": np.arange(n_q)}), on="qid")
            .select(pl.col("s") * n_q + pl.col("q"), "value"))
    flat = np.empty(n_sys * n_q)
    flat[keys.get_column("s").to_numpy()] = keys.get_column("value").to_numpy()
    values = flat.reshape(n_sys, n_q).T
    rng = np.random.default_rng(np.random.SeedSequence(entropy=seed, spawn_key=(40, 3)))
    counts = np.empty((n_res, n_q))
    step = 26  # resamples per batch: about 1 MB of counts, in the cache
    shift = np.arange(step)[:, None] * n_q
    for start in range(0, n_res, step):
        drawn = rng.integers(0, n_q, size=(min(step, n_res - start), n_q))
        drawn += shift[:len(drawn)]
        counts[start:start + len(drawn)] = np.bincount(
            drawn.reshape(-1), minlength=drawn.size).reshape(drawn.shape)
    means = counts @ values / n_q
    order = np.argsort(-means, axis=1, kind="stable")
    ranked = np.take_along_axis(means, order, axis=1)
    starts = np.ones(means.shape, dtype=bool)
    starts[:, 1:] = (ranked[:, :-1] - ranked[:, 1:]) > 1e-12
    first = np.maximum.accumulate(np.where(starts, np.arange(n_sys), 0), axis=1)
    boot = np.empty(means.shape)
    np.put_along_axis(boot, order, first + 1.0, axis=1)
    mean = values.mean(axis=0)
    return pl.DataFrame({
        "system": systems, "mean": mean,
        "position": (np.argsort(np.argsort(-mean, kind="stable"), kind="stable") + 1),
        "position_low": np.floor(np.percentile(boot, 2.5, axis=0)).astype(np.int64),
        "position_high": np.ceil(np.percentile(boot, 97.5, axis=0)).astype(np.int64),
        "p_first": (boot == 1).mean(axis=0),
    }).sort("position")


def bootstrap_rows(repeat: int) -> list[tuple[str, float, float, float]]:
    """leaderboard_bootstrap (50 x 5,000 x 1,000) against the loop and the floor.

    The "mean difference" column: the largest difference of p_first from the
    reference's (which draws its own indices: a sampling difference, not an error)
    and, for the floor, from ours (the same draws: 0 expected).
    """
    rng = np.random.default_rng(0)
    n_sys, n_q, n_res = 50, 5_000, 1_000
    values = rng.random((n_q, n_sys))
    per_query = pl.DataFrame({"system": np.repeat([f"s{s:02d}" for s in range(n_sys)], n_q),
                              "qid": np.tile(np.arange(n_q), n_sys),
                              "value": values.T.reshape(-1)})

    def reference() -> Any:
        draw = np.random.default_rng(1)
        lead = np.zeros(n_sys)
        for _ in range(n_res):
            idx = draw.integers(0, n_q, n_q)
            lead[int(np.argmax(values[idx].mean(axis=0)))] += 1
        return lead / n_res

    runs = {"ours": lambda: leaderboard_bootstrap(per_query, n_resamples=n_res, seed=1),
            "floor": lambda: bootstrap_floor(per_query, n_res, 1), "reference": reference}
    wall: dict[str, list[float]] = {k: [] for k in runs}
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    out: dict[str, Any] = {}
    for _ in range(repeat):  # the three in turn, so that a change of load hits all three
        for name, run in runs.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            out[name] = run()
            wall[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    t = {k: statistics.median(v) for k, v in wall.items()}
    c = {k: statistics.median(v) for k, v in cpu.items()}
    ratio = {k: c[k] / c["reference"] for k in ("ours", "floor")}
    print(f"bootstrap CPU seconds (medians; all threads): ours {c['ours']:.3f}, floor "
          f"{c['floor']:.3f}, reference {c['reference']:.3f}; ratios {ratio['ours']:.3f}x, "
          f"{ratio['floor']:.3f}x; ours / floor {c['ours'] / c['floor']:.2f} "
          f"(wall {t['ours'] / t['floor']:.2f})")
    p_first = out["ours"].sort("system").get_column("p_first").to_numpy()
    diff_floor = float(np.abs(out["floor"].sort("system").get_column("p_first").to_numpy()
                              - p_first).max())
    return [("leaderboard bootstrap 50 x 5,000 x 1,000", t["ours"], t["reference"],
             float(np.abs(p_first - out["reference"]).max())),
            ("  its floor (no checks, same draws)", t["floor"], t["reference"], diff_floor)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--reference-queries", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["all", "bootstrap", "frame"], default="all",
                        help="bootstrap: the leaderboard bootstrap alone; frame: all but "
                             "the expressions (minutes at 100k pairs)")
    args = parser.parse_args()
    if args.only == "bootstrap":
        show(bootstrap_rows(args.repeat))
        return
    a, b = lists(args.queries)
    frame = joined(a, b)
    m = min(args.reference_queries, args.queries)
    scale = args.queries / m
    rows: list[tuple[str, float, float, float]] = []
    means: dict[str, float] = {}
    refs: dict[str, float] = {}
    for name, expr, ref in (
        ("RBO ext (p=0.9)", rbo("rank_a", "rank_b", p=0.9, query="qid"),
         lambda: [RankingSimilarity(a[i], b[i]).rbo_ext(0.9) for i in range(m)]),
        ("tau_AP", tau_ap("rank_a", "rank_b", query="qid"),
         lambda: [tau_ap_reference(a[i], b[i]) for i in range(m)]),
    ):
        t_ref, values = best(ref, args.repeat)
        t_ref *= scale
        means[name], refs[name] = sum(values) / m, t_ref
        if args.only != "frame":
            t_ours, _ = best(lambda e=expr: frame.select(e).item(), args.repeat)
            sub = frame.filter(pl.col("qid") < m).select(expr).item()
            rows.append((name, t_ours, t_ref, abs(sub - sum(values) / m)))
        # the frame form, same references, same subset check
        measure = "rbo" if name.startswith("RBO") else "tau_ap"
        t_fast, _ = best(lambda ms=measure: ranking_similarity(frame, measures=[ms]),
                         args.repeat)
        sub_fast = ranking_similarity(frame.filter(pl.col("qid") < m),
                                      measures=[measure])[measure].mean()
        rows.append((f"{name}, ranking_similarity", t_fast, t_ref,
                     abs(sub_fast - sum(values) / m)))  # type: ignore[operator]
    for name, floor, ref_t in (("RBO ext floor (one gather, one group_by)",
                                lambda: rbo_floor(frame, 0.9), refs["RBO ext (p=0.9)"]),
                               ("tau_AP floor (one sort of the common rows, one group_by)",
                                lambda: tau_floor(frame), refs["tau_AP"])):
        t_floor, _ = best(floor, args.repeat)
        diff = abs(rbo_floor(frame.filter(pl.col("qid") < m), 0.9) - means["RBO ext (p=0.9)"]) \
            if name.startswith("RBO") else float("nan")
        rows.append((name, t_floor, ref_t, diff))
    t_all, _ = best(lambda: ranking_similarity(
        frame, measures=["rbo", "rbo_min", "rbo_res", "tau_ap"]), args.repeat)
    rows.append(("RBO ext+min+res and tau_AP, ranking_similarity", t_all,
                 refs["RBO ext (p=0.9)"] + refs["tau_AP"], float("nan")))
    if args.only != "frame":
        rows += bootstrap_rows(args.repeat)
    print(f"{args.queries:,} query pairs (references on {m:,}, scaled x{scale:g})")
    show(rows)


if __name__ == "__main__":
    main()
