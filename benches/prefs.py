"""``polars-rank eval -R qrels_prefs`` against the trec_eval 10.0 binary.

    python benches/prefs.py [--repeat 3] [--trec-eval PATH]

Two seeded collections of qrels read as preference judgments (one judgment group per
query: trec_eval counts its pairs, polars-rank its levels): 50 queries of 1,000 judged
documents (levels 0-3) and 50 of 5,000 (levels 0-4), each with a run of 1,000
documents per query. Both programs run in turn, in fresh processes, the order swapped
every round (:func:`cli.timed`, :func:`cli.compare_outputs`); medians of the wall
time and of the peak resident memory; the outputs must be the same bytes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

from cli import byte_compile, compare_outputs, timed, trec_eval_binary

MEASURES = ["-m", "all_prefs"]
COLLECTIONS = {"50 x 1,000 judged": (1000, 3000, (0, 0, 0, 0, 1, 1, 2, 3)),
               "50 x 5,000 judged": (5000, 10000, (0, 0, 0, 0, 1, 1, 2, 3, 4))}


def collection(folder: Path, judged: int, docs: int, levels: tuple[int, ...]
               ) -> tuple[Path, Path]:
    rng = random.Random(judged)
    qrels, run = folder / f"qrels_{judged}", folder / f"run_{judged}"
    with open(qrels, "w") as q, open(run, "w") as r:
        for qid in range(50):
            pool = [f"d{i}" for i in range(docs)]
            q.writelines(f"{qid} 0 {d} {rng.choice(levels)}\n" for d in rng.sample(pool, judged))
            r.writelines(f"{qid} Q0 {d} {i} {rng.random():.4f} t\n"
                         for i, d in enumerate(rng.sample(pool, 1000)))
    return qrels, run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trec-eval", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        binary = trec_eval_binary(args.trec_eval)
        byte_compile()
        print("| collection | trec_eval | polars-rank eval | peak MiB (trec_eval, polars-rank) "
              "| output |\n|---|---|---|---|---|")
        for name, (judged, docs, levels) in COLLECTIONS.items():
            qrels, run = collection(folder, judged, docs, levels)
            flags = [*MEASURES, "-R", "qrels_prefs", str(qrels), str(run)]
            commands = {"trec_eval": [str(binary), *flags],
                        "polars-rank": [sys.executable, "-m", "polars_rank", "eval", *flags]}
            times: dict[str, list[dict[str, float]]] = {k: [] for k in commands}
            for round_ in range(args.repeat):
                order = list(commands) if round_ % 2 == 0 else list(commands)[::-1]
                for who in order:
                    times[who].append(timed(commands[who], folder / f"{who}.out"))
            wall = {k: statistics.median(t["wall"] for t in v) for k, v in times.items()}
            peak = {k: statistics.median(t["peak_mib"] for t in v) for k, v in times.items()}
            same = compare_outputs(folder / "trec_eval.out", folder / "polars-rank.out")
            print(f"| {name} | {wall['trec_eval']:.2f} s | {wall['polars-rank']:.2f} s | "
                  f"{peak['trec_eval']:.0f}, {peak['polars-rank']:.0f} | {same} |")


if __name__ == "__main__":
    main()
