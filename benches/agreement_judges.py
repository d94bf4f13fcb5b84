"""Krippendorff's alpha and Fleiss' kappa on 1M judgments against their references.

    python benches/agreement_judges.py [--items 200000] [--repeat 3]

A seeded collection: ``--items`` (query, document) items, 10 per query, each judged
by 5 judges on a 0-3 scale (1M judgments at the default); for alpha a tenth of the
judgments are then removed (missing). polars-rank reads the long frame (one row per
judgment); the references get their own input, built beforehand and not timed: the
``krippendorff`` package a judges x items matrix with NaN for missing judgments,
statsmodels the items x judges matrix that ``aggregate_raters`` turns into its
table (timed, as it is part of computing the statistic there). Medians of
``--repeat`` runs in one process, imports and first calls excluded; the values must
agree to 1e-12. The point estimates only (``n_resamples=0``); one bootstrap of 1,000
resamples over the queries is timed apart.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import krippendorff
import numpy as np
import polars as pl
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from polars_rank.agreement import fleiss_kappa, krippendorff_alpha

JUDGES = 5
DOCS = 10


def collection(items: int, missing: float, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray[Any, Any]]:
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


def timed(run: Callable[[], float], repeat: int) -> tuple[float, float]:
    run()  # warm: imports, first compilations
    times, value = [], 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        value = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rows = []
    frame, matrix = collection(args.items, missing=0.1)
    ours, a = timed(lambda: krippendorff_alpha(frame, level_of_measurement="ordinal",
                                               n_resamples=0)["alpha"].item(), args.repeat)
    theirs, b = timed(lambda: float(krippendorff.alpha(matrix, level_of_measurement="ordinal")),
                      args.repeat)
    assert abs(a - b) <= 1e-12, (a, b)
    rows.append(("Krippendorff's alpha (ordinal)", frame.height, ours, "krippendorff", theirs))
    boot, _ = timed(lambda: krippendorff_alpha(frame, level_of_measurement="ordinal",
                                               n_resamples=1000)["alpha"].item(), 1)

    frame, matrix = collection(args.items, missing=0.0)
    table = matrix.T.astype(np.int64)
    ours, a = timed(lambda: fleiss_kappa(frame, n_resamples=0)["kappa"].item(), args.repeat)
    theirs, b = timed(lambda: float(sm_fleiss_kappa(aggregate_raters(table)[0])), args.repeat)
    assert abs(a - b) <= 1e-12, (a, b)
    rows.append(("Fleiss' kappa", frame.height, ours, "statsmodels", theirs))

    print("| statistic | judgments | polars-rank | reference | reference's time | ratio |")
    print("|---|---|---|---|---|---|")
    for name, n, t_ours, ref, t_ref in rows:
        print(f"| {name} | {n:,} | {t_ours:.3f} s | {ref} | {t_ref:.3f} s "
              f"| {t_ours / t_ref:.2f}x |")
    print(f"\nalpha with a bootstrap of 1,000 resamples over {args.items // DOCS:,} queries: "
          f"{boot:.3f} s")


if __name__ == "__main__":
    main()
