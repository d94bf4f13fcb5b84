"""The cost of the plan-time type check of labels and keys (issue 36, Polars >= 2.0).

The README's one-line form, five metrics, and ``group_by("arm")`` with ``query=``, at
1M rows (10k queries; best of 5 per process) and on a 3-row frame (plan time, minima
of 2000 runs built and collected), each in a fresh process with the check on
(``polars_rank._engine.column_types.PLAN_HOOK``) or off, rounds alternating:

    python benches/type_check.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

CHILD = """
import sys, time
import numpy as np, polars as pl
import polars_rank as pr
import polars_rank._engine.column_types as column_types
column_types.PLAN_HOOK = sys.argv[1] == "1"
n, per = 1_000_000, 100
rng = np.random.default_rng(0)
df = pl.DataFrame({"qid": np.repeat(np.arange(n // per), per), "rel": rng.integers(0, 4, n),
                   "score": rng.random(n), "arm": rng.integers(0, 2, n)})
forms = {
    "one-liner": lambda f: f.group_by("qid").agg(pl.col("rel").rank.ndcg(k=10, by="score")),
    "five metrics": lambda f: f.group_by("qid").agg(
        pr.ndcg("rel", k=10, by="score"), pr.map("rel", by="score"),
        pr.mrr("rel", k=10, by="score"), pr.precision("rel", k=5, by="score"),
        pr.recall("rel", k=100, by="score")),
    "arms, query=": lambda f: f.group_by("arm").agg(
        pr.ndcg("rel", k=10, by="score", query="qid")),
}
def seconds(form, frame):
    start = time.perf_counter()
    form(frame)
    return time.perf_counter() - start
for name, form in forms.items():
    form(df)
    large = min(seconds(form, df) for _ in range(5))
    small = min(seconds(form, df.head(3)) for _ in range(2000))
    print(name, large, small)
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    best: dict[tuple[str, str], list[float]] = {}
    for i in range(args.repeat):
        for hook in ("1", "0") if i % 2 == 0 else ("0", "1"):
            out = subprocess.run([sys.executable, "-c", CHILD, hook], check=True,
                                 capture_output=True, text=True).stdout
            for line in out.splitlines():
                *name, large, small = line.split()
                best.setdefault((" ".join(name), hook), []).extend([float(large), float(small)])
    for (name, hook), values in sorted(best.items()):
        large = min(values[0::2])
        small = min(values[1::2])
        print(f"{name:14s} check={'on ' if hook == '1' else 'off'} 1M rows {large:.3f} s, "
              f"3 rows {small * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
