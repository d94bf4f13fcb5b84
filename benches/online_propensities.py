"""The propensity estimators against their plain-Python references, on the same log.

    python benches/online_propensities.py [--impressions 100000] [--repeat 3]

Three seeded logs of ``--impressions`` impressions x 10 positions, simulated from the
position-based model (tests/propensity_logs.py) and written to Parquet: a swap-with-top
log, a RandTop-10 log and a log of 3 rankers over 500 queries of 12 items. Each
estimator reads its log from the Parquet file (``pl.scan_parquet``) and is timed
without an interval (``n_resamples=0``: the references compute the estimate only),
against tests/propensity_reference.py on the rows read from the same file (the
Parquet read counted on both sides). EM runs 10 iterations on both sides (the
reference's pass over a million rows takes seconds). polars-rank: medians of
``--repeat``; the references: one run. The estimates must agree to 1e-9.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from polars_rank.online import (  # noqa: E402
    harvested_propensities,
    regression_em_propensities,
    swap_propensities,
)
from tests import propensity_reference as ref  # noqa: E402
from tests.propensity_logs import simulate  # noqa: E402

EM_ITERATIONS = 10


def _timed(call: Any, repeat: int) -> tuple[float, Any]:
    seconds, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = call()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds), out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--impressions", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.impressions
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for design in ("swap", "randtop", "rankers"):
            files[design] = Path(tmp) / f"{design}.parquet"
            simulate(design, impressions=n, depth=10, seed=1, queries=500,
                     candidates=12).write_parquet(files[design])

        def rows(design: str) -> list[dict[str, Any]]:
            return pl.read_parquet(files[design]).to_dicts()

        cases = {
            "swap_propensities (swap)": (
                lambda: swap_propensities(pl.scan_parquet(files["swap"]), n_resamples=0),
                lambda: ref.swap_reference(rows("swap"))),
            "swap_propensities (randtop)": (
                lambda: swap_propensities(pl.scan_parquet(files["randtop"]),
                                          design="randtop", n_resamples=0),
                lambda: ref.randtop_reference(rows("randtop"), 10)),
            "harvested_propensities": (
                lambda: harvested_propensities(pl.scan_parquet(files["rankers"]),
                                               n_resamples=0),
                lambda: ref.harvest_reference(rows("rankers"))),
            f"regression_em_propensities ({EM_ITERATIONS} iterations)": (
                lambda: regression_em_propensities(pl.scan_parquet(files["rankers"]),
                                                   iterations=EM_ITERATIONS, n_resamples=0),
                lambda: ref.em_reference(rows("rankers"), EM_ITERATIONS)),
        }
        print(f"{n:,} impressions x 10 positions; polars-rank: medians of {args.repeat}\n")
        print("| estimator | polars-rank | Python reference | ratio | max abs difference |")
        print("|---|---|---|---|---|")
        for name, (ours, theirs) in cases.items():
            t_ours, got = _timed(ours, args.repeat)
            t_ref, want = _timed(theirs, 1)
            values = dict(zip(got["position"].to_list()[1:], got["propensity"].to_list()[1:],
                              strict=True))
            diff = max(abs(values[k] - want[k]) for k in want)
            assert diff <= 1e-9, (name, diff)
            print(f"| {name} | {t_ours:.2f} s | {t_ref:.1f} s | {t_ref / t_ours:.0f}x "
                  f"| {diff:.1e} |")


if __name__ == "__main__":
    main()
