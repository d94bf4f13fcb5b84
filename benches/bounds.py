"""The cost of ``evaluate(..., bounds=True)`` against the plain evaluation (issue 27).

The 5-metric battery of ``run.py`` on ``generate.py``'s Parquet files, each form in a
fresh process, rounds alternating, medians of the wall times (imports excluded):

    python benches/bounds.py 10m [--repeat 3] [--data DIR]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OURS = ["ndcg_cut_10", "map", "mrr@10", "P_10", "recall_100"]
CHILD = """
import sys, time, polars as pl, polars_rank as pr
run, qrels, bounds = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
t = time.perf_counter()
out = pr.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), {metrics!r},
                  per_query=True, bounds=bounds).collect()
print(time.perf_counter() - t, out.width)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("size")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=HERE / "data")
    args = parser.parse_args()
    run = args.data / f"run_{args.size}.parquet"
    qrels = args.data / f"qrels_{args.size}.parquet"
    times: dict[str, list[float]] = {"plain": [], "bounds=True": []}
    for _ in range(args.repeat):
        for name, flag in (("plain", "0"), ("bounds=True", "1")):
            out = subprocess.run([sys.executable, "-c", CHILD.format(metrics=OURS), str(run),
                                  str(qrels), flag], capture_output=True, text=True,
                                 check=True)
            times[name].append(float(out.stdout.split()[0]))
    plain, bounds = (statistics.median(times[n]) for n in ("plain", "bounds=True"))
    print(f"{args.size}: plain {plain:.2f} s, bounds=True {bounds:.2f} s, "
          f"ratio {bounds / plain:.2f}x ({args.repeat} rounds: {times})")


if __name__ == "__main__":
    main()
