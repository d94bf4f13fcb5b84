"""A PBM fit (20 EM iterations) from Parquet against PyClick's, transcribed.

    python benches/online_click_models.py [--impressions 100000] [--subset 5000]

A seeded log of ``--impressions`` impressions x 10 positions (50 queries, 40 items
each, clicks drawn from a PBM) is written to Parquet. polars-rank reads it
(``pl.scan_parquet``) and fits PBM with 20 EM iterations, in a fresh process; PyClick
(``tests/click_models_reference.py``, its code transcribed: pure Python, as PyClick
is) fits the first ``--subset`` impressions, in another fresh process, and its time is
scaled linearly to the whole log (an EM iteration is one pass over the sessions). Each
process reports its wall time and its peak resident memory (``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ITERATIONS = 20


def make_log(path: Path, impressions: int) -> None:
    import polars as pl

    from polars_rank.online import ClickModel, simulate_clicks

    q = pl.int_range(0, 50 * 40, eager=True)
    attr = pl.DataFrame({"query": (q // 40).cast(pl.String), "item": (q % 40).cast(pl.String),
                         "attractiveness": ((q * 7919) % 97 / 110 + 0.05)})
    model = ClickModel.from_parameters("pbm", attractiveness=attr,
                                       examination={r: 1 / r ** 0.8 for r in range(1, 11)})
    shown = pl.DataFrame({"impression": pl.int_range(0, impressions, eager=True)}).with_columns(
        (pl.col("impression") * 31 % 50).cast(pl.String).alias("query"),
        pl.int_ranges(1, 11).alias("position")).explode("position").with_columns(
        ((pl.col("impression") * 13 + pl.col("position") * 4) % 40).cast(pl.String).alias("item"))
    simulate_clicks(model, shown, seed=1).write_parquet(path)


def run_ours(path: Path) -> dict[str, float]:
    import polars as pl

    from polars_rank.online import fit_click_model

    start = time.perf_counter()
    model = fit_click_model(pl.scan_parquet(path), "pbm", iterations=ITERATIONS)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "theta_2": model.parameters["examination"]["examination"][1]}


def run_pyclick(path: Path, subset: int) -> dict[str, float]:
    import polars as pl

    sys.path.insert(0, str(ROOT))
    from tests import click_models_reference as ref

    log = pl.read_parquet(path).filter(pl.col("impression") < subset).sort("impression",
                                                                           "position")
    start = time.perf_counter()
    sessions = []
    for (_,), rows in log.group_by("impression", maintain_order=True):
        session = ref.SearchSession(rows["query"][0])
        session.web_results = [ref.SearchResult(d, c) for d, c in zip(rows["item"], rows["click"],
                                                                       strict=True)]
        sessions.append(session)
    model = ref.PBM(ITERATIONS)
    model.train(sessions)
    seconds = time.perf_counter() - start
    exam = model.params[model.param_names.exam]._container[1].value()
    return {"seconds": seconds, "theta_2": exam}


def child(kind: str, path: str, number: int) -> None:
    if kind == "make":
        make_log(Path(path), number)
        return
    out = run_ours(Path(path)) if kind == "ours" else run_pyclick(Path(path), number)
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--impressions", type=int, default=100_000)
    parser.add_argument("--subset", type=int, default=5_000)
    parser.add_argument("--child", nargs=3)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return
    with tempfile.TemporaryDirectory() as tmp:
        # every step in its own process: a child forked from a big parent would report
        # the parent's resident memory as its peak
        path = Path(tmp) / "log.parquet"
        results = {}
        for kind, number in (("make", args.impressions), ("ours", 0),
                             ("pyclick", args.subset)):
            done = subprocess.run([sys.executable, __file__, "--child", kind, str(path),
                                   str(number)], check=True, capture_output=True,
                                  text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)})
            if kind != "make":
                results[kind] = json.loads(done.stdout)
    scaled = results["pyclick"]["seconds"] * args.impressions / args.subset
    print(f"log: {args.impressions:,} impressions x 10 positions, PBM, {ITERATIONS} EM iterations")
    ours = results["ours"]
    print(f"polars-rank: {ours['seconds']:.2f} s, peak {ours['peak_mib']:.0f} MiB")
    print(f"PyClick (transcribed) on {args.subset:,} impressions: "
          f"{results['pyclick']['seconds']:.2f} s, "
          f"peak {results['pyclick']['peak_mib']:.0f} MiB; "
          f"scaled to {args.impressions:,}: {scaled:.1f} s")
    print(f"ratio polars-rank / PyClick (scaled): {ours['seconds'] / scaled:.4f}")
    print(f"theta_2: {ours['theta_2']:.6f} (polars-rank, whole log), "
          f"{results['pyclick']['theta_2']:.6f} (PyClick, subset)")


if __name__ == "__main__":
    main()
