"""Krippendorff's alpha and Fleiss' kappa on 1M judgments against their references.

    python benches/agreement_judges.py [--items 200000] [--repeat 3]

A seeded collection: ``--items`` (query, document) items, 10 per query, each judged
by 5 judges on a 0-3 scale (1M judgments at the default); for alpha a tenth of the
judgments are then removed (missing). polars-rank reads the long frame (one row per
judgment); the references get their own input, built beforehand and not timed: the
``krippendorff`` package a judges x items matrix with NaN for missing judgments,
statsmodels the items x judges matrix that ``aggregate_raters`` turns into its
table (timed, as it is part of computing the statistic there); alpha is timed a second
time from the long frame, pivoted by Polars to the package's matrix. Medians of
``--repeat`` runs in one process, imports and first calls excluded, of the wall time
and of the CPU time of all the process's threads (steadier on a busy machine); the values must
agree to 1e-12. The point estimates only (``n_resamples=0``); one bootstrap of 1,000
resamples over the queries is timed apart, and so is alpha per query.

The floor is plain Polars written by hand for this one input (no checks, the labels
known to be 0-3): one ``group_by`` over the items counting each label, one over the
numbers of judgments summing the products of those counts (alpha) or the counts and
their squares (Fleiss), then a few lines of Python arithmetic on the sums.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import TYPE_CHECKING, Any

import krippendorff
import numpy as np
import polars as pl
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from polars_rank.agreement import fleiss_kappa, krippendorff_alpha

if TYPE_CHECKING:
    from collections.abc import Callable

JUDGES = 5
DOCS = 10


def collection(items: int, missing: float,
               seed: int = 0) -> tuple[pl.DataFrame, np.ndarray[Any, Any]]:
    """The long frame and the judges x items matrix (NaN: missing)."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(4, size=items, p=[0.5, 0.25, 0.15, 0.1])
    step = rng.choice([-1, 0, 1], size=(JUDGES, items), p=[0.15, 0.7, 0.15])
    labels = np.clip(truth + step, 0, 3).astype(np.float64)
    labels[rng.random(labels.shape) < missing] = np.nan
    item = np.arange(items)
    frame = pl.DataFrame({
        "qid": np.tile(item // DOCS, JUDGES),
        "docid": np.tile(item % DOCS, JUDGES),
        "judge": np.repeat(np.arange(JUDGES), items),
        "rel": labels.ravel(),
    }).with_columns(pl.col("rel").fill_nan(None).cast(pl.Int64)).drop_nulls("rel")
    return frame, labels


def timed(run: Callable[[], float], repeat: int) -> tuple[float, float, float]:
    """Median wall time, median CPU time (all the process's threads), the value."""
    run()  # warm: imports, first compilations
    times, cpu, value = [], [], 0.0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        value = run()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(times), statistics.median(cpu), value


def floor_alpha(frame: pl.DataFrame) -> float:
    """Ordinal alpha from two hand-written ``group_by`` (labels 0-3, no checks)."""
    n = [pl.col("rel").eq(c).sum().cast(pl.Int64).alias(f"n{c}") for c in range(4)]
    units = frame.lazy().group_by("qid", "docid").agg(pl.len().alias("m"), *n)
    sums = (units.filter(pl.col("m") >= 2).group_by("m")
            .agg(*((pl.col(f"n{c}") * (pl.col(f"n{k}") - int(c == k))).sum().alias(f"{c}{k}")
                   for c in range(4) for k in range(4))).collect())
    o = [[sum(r[f"{c}{k}"] / (r["m"] - 1) for r in sums.rows(named=True)) for k in range(4)]
         for c in range(4)]
    n_c = [sum(row) for row in o]
    cum = [sum(n_c[:i]) for i in range(5)]
    d = [[(cum[max(c, k) + 1] - cum[min(c, k)] - (n_c[c] + n_c[k]) / 2) ** 2 for k in range(4)]
         for c in range(4)]
    observed = sum(o[c][k] * d[c][k] for c in range(4) for k in range(4))
    expected = sum(n_c[c] * n_c[k] * d[c][k] for c in range(4) for k in range(4))
    return 1 - (sum(n_c) - 1) * observed / expected


def floor_fleiss(frame: pl.DataFrame) -> float:
    """Fleiss' kappa from two hand-written ``group_by`` (labels 0-3, no checks)."""
    n = [pl.col("rel").eq(c).sum().cast(pl.Int64).alias(f"n{c}") for c in range(4)]
    units = frame.lazy().group_by("qid", "docid").agg(pl.len().alias("m"), *n)
    sums = units.select(pl.len().alias("items"), pl.col("m").first(),
                        *(pl.col(f"n{c}").sum() for c in range(4)),
                        pl.sum_horizontal(pl.col(f"n{c}") ** 2 for c in range(4)).sum()
                        .alias("squares")).collect().row(0, named=True)
    judged = sums["items"] * sums["m"]
    agree = (sums["squares"] - judged) / (judged * (sums["m"] - 1))
    chance = sum((sums[f"n{c}"] / judged) ** 2 for c in range(4))
    return float((agree - chance) / (1 - chance))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rows = []
    frame, matrix = collection(args.items, missing=0.1)
    ours, ours_cpu, a = timed(lambda: krippendorff_alpha(frame, level_of_measurement="ordinal",
                                               n_resamples=0)["alpha"].item(), args.repeat)
    theirs, theirs_cpu, b = timed(
        lambda: float(krippendorff.alpha(matrix, level_of_measurement="ordinal")), args.repeat)
    assert abs(a - b) <= 1e-12, (a, b)
    rows.append(("Krippendorff's alpha (ordinal)", frame.height, ours, ours_cpu, "krippendorff",
                 theirs, theirs_cpu))

    def pivoted() -> float:  # the reference from the long frame: pivot first
        wide = frame.pivot(on="judge", index=["qid", "docid"], values="rel")
        data = wide.drop("qid", "docid").to_numpy().astype(np.float64).T
        return float(krippendorff.alpha(data, level_of_measurement="ordinal"))

    theirs, theirs_cpu, b = timed(pivoted, args.repeat)
    assert abs(a - b) <= 1e-12, (a, b)
    rows.append(("Krippendorff's alpha (ordinal)", frame.height, ours, ours_cpu,
                 "Polars pivot + krippendorff", theirs, theirs_cpu))
    floor, floor_cpu, b = timed(lambda: floor_alpha(frame), args.repeat)
    assert abs(a - b) <= 1e-12, (a, b)
    rows.append(("Krippendorff's alpha (ordinal)", frame.height, ours, ours_cpu,
                 "floor: plain Polars by hand", floor, floor_cpu))
    per_query, per_query_cpu, _ = timed(lambda: float(krippendorff_alpha(
        frame, level_of_measurement="ordinal", per_query=True)["alpha"].sum()), args.repeat)
    boot, boot_cpu, _ = timed(lambda: krippendorff_alpha(frame, level_of_measurement="ordinal",
                                               n_resamples=1000)["alpha"].item(), 1)

    frame, matrix = collection(args.items, missing=0.0)
    table = matrix.T.astype(np.int64)
    ours, ours_cpu, a = timed(lambda: fleiss_kappa(frame, n_resamples=0)["kappa"].item(),
                              args.repeat)
    theirs, theirs_cpu, b = timed(lambda: float(sm_fleiss_kappa(aggregate_raters(table)[0])),
                                  args.repeat)
    assert abs(a - b) <= 1e-12, (a, b)
    rows.append(("Fleiss' kappa", frame.height, ours, ours_cpu, "statsmodels", theirs,
                 theirs_cpu))
    floor, floor_cpu, b = timed(lambda: floor_fleiss(frame), args.repeat)
    assert abs(a - b) <= 1e-12, (a, b)
    rows.append(("Fleiss' kappa", frame.height, ours, ours_cpu, "floor: plain Polars by hand",
                 floor, floor_cpu))

    print("| statistic | judgments | polars-rank wall (CPU) | reference | its wall (CPU) "
          "| ratio wall (CPU) |")
    print("|---|---|---|---|---|---|")
    for name, n, t_ours, c_ours, ref, t_ref, c_ref in rows:
        print(f"| {name} | {n:,} | {t_ours:.3f} s ({c_ours:.3f} s) | {ref} "
              f"| {t_ref:.3f} s ({c_ref:.3f} s) "
              f"| {t_ours / t_ref:.2f}x ({c_ours / c_ref:.2f}x) |")
    print(f"\nalpha with a bootstrap of 1,000 resamples over {args.items // DOCS:,} queries: "
          f"{boot:.3f} s ({boot_cpu:.3f} s CPU)")
    print(f"alpha per query ({args.items // DOCS:,} queries): {per_query:.3f} s "
          f"({per_query_cpu:.3f} s CPU)")


if __name__ == "__main__":
    main()
