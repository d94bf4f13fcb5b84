"""Recommender evaluation: polars-rank against MS Recommenders' pandas implementation.

The issue's battery, per experiment arm: 5 beyond-accuracy metrics (catalog coverage,
distributional coverage, novelty, diversity and serendipity, the last two from the
item co-occurrence similarity of the training log: MSR's defaults) and 3 accuracy
metrics (precision@10, NDCG@10, MAP@10), on the same Parquet files, each tool in a
fresh process, round after round (``run.py``'s ``measure``). MS Recommenders is the
``recommenders`` package itself (``recommenders.evaluation.python_evaluation``,
1.2.1), called as its docs show, once per arm; polars-rank is ``evaluate(...,
group_by="arm", dialect="recommenders")`` plus the beyond-accuracy expressions in one
``group_by("arm")`` and the ``user_diversity`` / ``user_serendipity`` frames. The
means of the two must agree (checked, 1e-9).

    python benches/recsys.py 1m [--repeat 3]

At 10M rows MS Recommenders needs more memory than this 23 GiB machine has: run each
tool's child alone under ``benches/capped.py`` (RESULTS.md shows the commands).

``recommenders`` pulls in a large dependency tree; install it in its own environment
(``pip install -e .[bench-recsys]`` in a fresh venv: polars-rank, polars, pyarrow and
recommenders) and run this file with that interpreter.
"""

from __future__ import annotations

import argparse
import platform
import sys
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
sys.path.insert(0, str(HERE))
from run import byte_compile, child_json, measure  # noqa: E402

SIZES = {"100k": 5_000, "1m": 50_000, "2m": 100_000, "10m": 500_000}  # users; 2 arms x 10
N_ITEMS, TRAIN_PER_USER, TEST_PER_USER, K = 10_000, 20, 5, 10
METRICS = ["precision@10", "ndcg@10", "map@10", "catalog_coverage",
           "distributional_coverage", "novelty", "diversity", "serendipity"]


# ---------------------------------------------------------------- data
def generate(size: str, seed: int = 0) -> None:
    """train (userID, itemID), test (userID, itemID, rating=1), reco (arm, userID, itemID,
    prediction): Zipf-like item popularity, every user's top 10 per arm."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    users = SIZES[size]
    weights = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.8
    weights /= weights.sum()

    def draw(per_user: int, seen: pl.DataFrame | None = None) -> pl.DataFrame:
        n = users * per_user * 3  # then each user's first per_user distinct (unseen) items
        frame = pl.DataFrame({"userID": np.repeat(np.arange(users), per_user * 3),
                              "itemID": rng.choice(N_ITEMS, size=n, p=weights)})
        frame = frame.unique(["userID", "itemID"], keep="first", maintain_order=True)
        if seen is not None:  # MSR refuses recommendations of training items
            frame = frame.join(seen, on=["userID", "itemID"], how="anti", maintain_order="left")
        return frame.filter(pl.int_range(pl.len()).over("userID") < per_user)

    folder = DATA / f"recsys_{size}"
    folder.mkdir(parents=True, exist_ok=True)
    train = draw(TRAIN_PER_USER)
    train.write_parquet(folder / "train.parquet")
    draw(TEST_PER_USER, train).with_columns(rating=pl.lit(1.0)).write_parquet(
        folder / "test.parquet")
    arms = []
    for arm in ("A", "B"):
        top = draw(K, train)
        arms.append(top.with_columns(arm=pl.lit(arm),
                                     prediction=rng.random(top.height)))
    pl.concat(arms).select("arm", "userID", "itemID", "prediction").write_parquet(
        folder / "reco.parquet")


# ---------------------------------------------------------------- tools (child side)
def msr(folder: Path) -> dict:
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    train = pd.read_parquet(folder / "train.parquet")
    test = pd.read_parquet(folder / "test.parquet")
    reco = pd.read_parquet(folder / "reco.parquet")
    out = {}
    for arm, pred in reco.groupby("arm"):
        pred = pred.drop(columns="arm").reset_index(drop=True)
        items = pred[["userID", "itemID"]]
        acc = {"col_prediction": "prediction", "k": K}
        out[arm] = [
            pe.precision_at_k(test, pred, **acc), pe.ndcg_at_k(test, pred, **acc),
            pe.map_at_k(test, pred, **acc),
            pe.catalog_coverage(train, items), pe.distributional_coverage(train, items),
            pe.novelty(train, items), pe.diversity(train, items), pe.serendipity(train, items),
        ]
    return {f"{arm} {m}": v for arm, values in out.items()
            for m, v in zip(METRICS, values, strict=True)}


def ours(folder: Path) -> dict:
    import polars as pl

    import polars_rank as pr

    train = pl.scan_parquet(folder / "train.parquet")
    reco = pl.scan_parquet(folder / "reco.parquet")
    accuracy = pr.evaluate(reco, pl.scan_parquet(folder / "test.parquet"),
                           ["p@10", "ndcg@10", "map@10"], query="userID", doc="itemID",
                           score="prediction", rel="rating", group_by="arm",
                           dialect="recommenders")
    catalog = train.select(pl.col("itemID").n_unique()).collect().item()
    beyond = reco.join(pr.item_popularity(train, item="itemID"), on="itemID", how="left") \
        .group_by("arm").agg(pr.catalog_coverage("itemID", catalog=catalog),
                             pr.distributional_coverage("itemID"),
                             pr.novelty("share", unseen="zero"))
    # one list per (arm, user): a combined key for the frame functions
    keyed = reco.with_columns(
        key=pl.col("userID") * 2 + (pl.col("arm") == "B").cast(pl.Int64), relevance=pl.lit(1.0))
    log = train.join(keyed.select("userID", "key").unique(), on="userID")
    sim = pr.item_similarity(train, user="userID", item="itemID")
    arm = (pl.col("key") % 2).replace_strict([0, 1], ["A", "B"]).alias("arm")
    diversity = pr.user_diversity(keyed, sim, user="key", item="itemID").group_by(arm).agg(
        pl.col("user_diversity").mean().alias("diversity"))
    serendipity = pr.user_serendipity(keyed, log, sim, relevance="relevance", user="key",
                                      item="itemID").group_by(arm).agg(
        pl.col("user_serendipity").mean().alias("serendipity"))
    frames = pl.collect_all([accuracy, beyond, diversity, serendipity])
    table = frames[0]
    for more in frames[1:]:
        table = table.join(more, on="arm")
    return {f"{row[0]} {m}": v for row in table.sort("arm").rows()
            for m, v in zip(METRICS, row[1:], strict=True)}


TOOLS = {"polars-rank": ours, "MS Recommenders (pandas)": msr}
IMPORTS = {"polars-rank": ("polars", "polars_rank"),
           "MS Recommenders (pandas)": ("pandas", "recommenders.evaluation.python_evaluation")}


# ---------------------------------------------------------------- parent side
def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", default=["1m"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--child", nargs=2, metavar=("TOOL", "SIZE"))
    parser.add_argument("--out", type=Path, default=None,
                        help="also write the markdown here (RESULTS.md has a section of it)")
    args = parser.parse_args()
    if args.child:
        tool, size = args.child
        child_json(lambda: TOOLS[tool](DATA / f"recsys_{size}"), IMPORTS[tool])
        return
    import polars as pl

    byte_compile()
    lines = [f"# Recommender benchmark ({date.today()})", "",
             f"Machine: {platform.machine()}, {__import__('os').cpu_count()} cores; Python "
             f"{platform.python_version()}, polars {pl.__version__}. Medians of "
             f"{args.repeat} rounds, fresh process per run, imports included; per arm "
             f"(2 arms): {', '.join(METRICS)}. Ratio = polars-rank / MS Recommenders.", ""]
    for size in args.sizes:
        if not (DATA / f"recsys_{size}" / "reco.parquet").exists():
            generate(size)
        results = measure(list(TOOLS), size, args.repeat, args.timeout, script=__file__)
        a, b = (results[t] for t in TOOLS)
        rows = 2 * SIZES[size] * K
        lines += [f"## {size}: {rows:,} recommendation rows, {SIZES[size]:,} users, "
                  f"{SIZES[size] * TRAIN_PER_USER:,} training rows", "",
                  "| tool | seconds | after imports | peak RSS (MiB) |", "|---|---|---|---|"]
        for tool, res in results.items():
            lines.append(f"| {tool} | " + (
                "timeout or failed | | |" if not res or "timeout" in res else
                f"{res['seconds']:.2f} | {res['work']:.2f} | {res['peak_mib']:.0f} |"))
        if a and b and "seconds" in a and "seconds" in b:
            bad = [m for m, v in a["means"].items() if abs(v - b["means"][m]) > 1e-9]
            lines += ["", f"Ratio: {a['seconds'] / b['seconds']:.3f}x "
                      f"({a['work'] / b['work']:.3f}x after imports). Agreement: "
                      + ("every metric of both arms within 1e-9." if not bad
                         else "DIFFER: " + ", ".join(bad)), ""]
        print("\n".join(lines), flush=True)
    if args.out is not None:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
