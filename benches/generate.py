"""Reproducible benchmark data: a TREC-like run and qrels as Parquet files.

Sizes (queries x documents per query): 1m = 10k x 100, 10m = 100k x 100,
7m = 7k x 1000 (MS MARCO-like). Graded labels 0-3 on ~10% of the retrieved
documents, plus judged documents the run did not retrieve; scores rounded to 3
decimals so ties occur; string ids. The run's rows are shuffled
(``run_<size>.parquet``); up to 10m, the same rows grouped by query, as trec_eval's
files and most logs come, are written beside (``run_<size>_grouped.parquet``).

    python benches/generate.py 1m [--out benches/data]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import polars as pl

SIZES = {
    "1m": (10_000, 100),
    "10m": (100_000, 100),
    "7m": (7_000, 1_000),
    "100m": (1_000_000, 100),
    "50m": (500_000, 100),
}
GROUPED = {"1m", "10m", "7m"}  # sizes that also get a run grouped by query


def generate(n_queries: int, depth: int, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(run grouped by query, qrels); the shuffled run is ``shuffled(run)``."""
    rng = np.random.default_rng(seed)
    n = n_queries * depth
    q = np.repeat(np.arange(n_queries), depth)
    doc = rng.integers(0, 50 * depth, size=n)
    # unique doc ids within a query: offset by position
    doc = doc * depth + np.tile(np.arange(depth), n_queries)
    score = np.round(rng.normal(size=n), 3)
    run = pl.DataFrame(
        {
            "qid": "Q" + pl.Series(q).cast(pl.String),
            "docid": "D" + pl.Series(doc).cast(pl.String),
            "score": score,
        }
    )
    judged = rng.random(n) < 0.10
    grade = rng.choice([0, 1, 2, 3], size=n, p=[0.5, 0.3, 0.15, 0.05])
    # relevant documents get a score boost so rankings are better than random
    run = run.with_columns(pl.col("score") + pl.Series(np.where(judged, grade * 0.5, 0.0)))
    qrels_ret = (
        run.filter(pl.Series(judged))
        .select("qid", "docid")
        .with_columns(rel=pl.Series(grade[judged]).cast(pl.Int64))
    )
    # judged but not retrieved: ~2 per query
    extra = n_queries * 2
    qrels_unret = pl.DataFrame(
        {
            "qid": "Q" + pl.Series(rng.integers(0, n_queries, size=extra)).cast(pl.String),
            "docid": "U" + pl.Series(np.arange(extra)).cast(pl.String),
            "rel": rng.choice([0, 1, 2, 3], size=extra, p=[0.4, 0.3, 0.2, 0.1]),
        }
    )
    qrels = pl.concat([qrels_ret, qrels_unret])
    return run, qrels


def shuffled(run: pl.DataFrame, seed: int = 0) -> pl.DataFrame:
    return run.sample(fraction=1.0, shuffle=True, seed=seed)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("size", choices=sorted(SIZES))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    run, qrels = generate(*SIZES[args.size])
    if args.size in GROUPED:
        run.write_parquet(args.out / f"run_{args.size}_grouped.parquet")
    run = shuffled(run)
    run.write_parquet(args.out / f"run_{args.size}.parquet")
    qrels.write_parquet(args.out / f"qrels_{args.size}.parquet")
    print(args.size, run.shape, qrels.shape)


if __name__ == "__main__":
    main()
