"""Interleaving credit: ``credit()`` from Parquet against the transcribed reference.

    PYTHONPATH=. python benches/online_interleaving.py [--impressions 100000] [--repeat 3]

Synthetic: 10,000 queries, two rankers of 20 documents each (drawn from 30), the
lists interleaved by ``interleave()`` (10 positions), 10 impressions per query with
clicks at random (30% of positions): 100k impressions x 10 positions by default. The
log and the runs are written to Parquet; ``credit()`` reads them (``scan_parquet``)
and computes every impression's win, loss or tie. The reference is
tests/interleaving_reference.py (mpkato/interleaving, transcribed) on the same lists
and clicks, its ``evaluate`` called per impression; its time leaves out building its
Python lists from the frames (in its favour). Probabilistic credit enumerates 2^10
assignments per impression in the reference, so it runs on the first
``--probabilistic-sample`` impressions and its time is scaled up to all of them.
The winners are compared: they must be the same.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from polars_rank.online import credit, interleave
from tests import interleaving_reference as ref


def data(folder: Path, impressions: int, method: str) -> tuple[Path, Path]:
    rng = random.Random(0)
    queries = impressions // 10
    rows = []
    for q in range(queries):
        pool = list(range(30))
        for name in ("A", "B"):
            docs = rng.sample(pool, 20)
            rows += [(q, name, d, i + 1) for i, d in enumerate(docs)]
    runs = pl.DataFrame(rows, schema=["qid", "system", "docid", "rank"], orient="row")
    lists = interleave(runs, method, k=10, seed=1, rank="rank")
    assert isinstance(lists, pl.DataFrame)
    log = (lists.join(pl.DataFrame({"qid": [q for q in range(queries) for _ in range(10)],
                                    "impression": range(queries * 10)}), on="qid")
           .with_columns(click=(pl.struct("impression", "position").hash(3) % 10 < 3)
                         .cast(pl.Int8)))
    runs.write_parquet(folder / "runs.parquet")
    log.write_parquet(folder / "log.parquet")
    return folder / "runs.parquet", folder / "log.parquet"


def ours(runs: Path, log: Path, method: str) -> pl.DataFrame:
    out = credit(pl.scan_parquet(log), pl.scan_parquet(runs), method=method,  # type: ignore[arg-type]
                 rank="rank")
    assert isinstance(out, pl.LazyFrame)
    return out.collect()


def reference_inputs(runs: Path, log: Path, method: str, limit: int | None) -> list[Any]:
    r = pl.read_parquet(runs).sort("qid", "system", "rank")
    lists = {(q, s): g["docid"].to_list() for (q, s), g in r.group_by("qid", "system")}
    out = []
    frame = pl.read_parquet(log).sort("impression", "position")
    for (m,), g in frame.group_by("impression", maintain_order=True):
        if limit is not None and len(out) >= limit:
            break
        q = g["qid"][0]
        shown = g["docid"].to_list()
        clicks = [i for i, c in enumerate(g["click"]) if c]
        if method == "team_draft":
            ranking: Any = ref.TeamRanking([0, 1], shown)
            for d, t in zip(shown, g["system"], strict=True):
                ranking.teams[0 if t == "A" else 1].add(d)
        elif method == "balanced":
            ranking = ref.BalancedRanking(shown)
            ranking.a, ranking.b = lists[q, "A"], lists[q, "B"]
        else:
            ranking = ref.ProbabilisticRanking([lists[q, "A"], lists[q, "B"]], shown)
        out.append((m, ranking, clicks))
    return out


def reference(inputs: list[Any], method: str) -> dict[Any, int]:
    cls = {"team_draft": ref.TeamDraft, "balanced": ref.Balanced,
           "probabilistic": ref.Probabilistic}[method]
    out = {}
    for m, ranking, clicks in inputs:
        won = cls.evaluate(ranking, clicks)
        out[m] = 1 if (0, 1) in won else -1 if (1, 0) in won else 0
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--impressions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--probabilistic-sample", type=int, default=500)
    args = parser.parse_args()
    print(f"{args.impressions:,} impressions x 10 positions; medians of {args.repeat}\n")
    print("| method | credit() from Parquet | reference | reference / credit() |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for method in ("team_draft", "balanced", "probabilistic"):
            runs, log = data(Path(tmp), args.impressions, method)
            limit = args.probabilistic_sample if method == "probabilistic" else None
            inputs = reference_inputs(runs, log, method, limit)
            mine, theirs = [], []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                got = ours(runs, log, method)
                mine.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                expected = reference(inputs, method)
                theirs.append((time.perf_counter() - t0) * args.impressions / len(inputs))
            outcome = dict(zip(got["impression"], got["win"] - got["loss"], strict=True))
            assert all(outcome[m] == o for m, o in expected.items()), method
            a, b = statistics.median(mine), statistics.median(theirs)
            scaled = " (scaled)" if limit else ""
            print(f"| {method} | {a:.2f} s | {b:.2f} s{scaled} | {b / a:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
