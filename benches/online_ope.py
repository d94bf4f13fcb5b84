"""Counterfactual estimators: polars-rank against OBP's code on the same Parquet log.

SNIPS and DR of a target policy from a log of 100k impressions x 10 positions (1M
rounds, 10 actions), read from one Parquet file by each tool in a fresh process,
round after round (``run.py``'s ``measure``). OBP is its code transcribed in
``tests/ope_reference.py`` (OBP does not install here): its
``SelfNormalizedInverseProbabilityWeighting`` and ``DoublyRobust``
``estimate_policy_value`` on NumPy arrays made from the file's columns, the
evaluation policy's and the reward model's (round, action) grids from two list
columns. polars-rank is ``off_policy_value(pl.scan_parquet(...), ["snips", "dr"])``
without an interval (``n_resamples=0``, as OBP's ``estimate_policy_value``) and with
1,000 bootstrap resamples. The estimates of all must agree (checked, 1e-9).

    PYTHONPATH=. python benches/online_ope.py 100k [--repeat 3]

OBP takes each round's position slice of its (round, action, position) arrays; the
file holds that slice, so the arrays are (rounds, actions, 1) with position 0: the
same numbers OBP's indexing reads, without 10x the memory. The long log carries the
reward model's expectation under the target (``q_hat_target``), which OBP computes
from the grids inside ``DoublyRobust``.
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
sys.path.insert(0, str(HERE.parent))
from run import byte_compile, child_json, measure  # noqa: E402

SIZES = {"10k": 10_000, "100k": 100_000}  # impressions, 10 positions each
POSITIONS, ACTIONS = 10, 10


def path(size: str) -> Path:
    return DATA / f"ope_{size}.parquet"


def generate(size: str, seed: int = 0) -> None:
    """The long log plus two list columns: the target's and the model's action grids."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(seed)
    n = SIZES[size] * POSITIONS
    logging = rng.dirichlet(np.ones(ACTIONS), size=n)
    target = rng.dirichlet(np.ones(ACTIONS), size=n)
    q_hat = rng.uniform(0, 1, size=(n, ACTIONS))
    u = rng.uniform(size=(n, 1))
    action = np.minimum((logging.cumsum(axis=1) < u).sum(axis=1), ACTIONS - 1)
    rows = np.arange(n)
    DATA.mkdir(exist_ok=True)
    pl.DataFrame({
        "impression": np.repeat(np.arange(SIZES[size]), POSITIONS),
        "position": np.tile(np.arange(1, POSITIONS + 1), SIZES[size]),
        "item": action, "reward": rng.binomial(1, q_hat[rows, action]).astype(float),
        "pscore": logging[rows, action], "target": target[rows, action],
        "q_hat": q_hat[rows, action], "q_hat_target": (target * q_hat).sum(axis=1),
        "action_dist": target, "q_hat_all": q_hat,
    }).write_parquet(path(size))


def polars_rank_tool(size: str, n_resamples: int = 0) -> dict:
    import polars as pl

    from polars_rank.online import off_policy_value

    log = pl.scan_parquet(path(size))
    out = off_policy_value(log, ["snips", "dr"], n_resamples=n_resamples)
    return dict(zip(out["estimator"], out["estimate"], strict=True))


def obp_tool(size: str) -> dict:
    import numpy as np
    import polars as pl

    from tests.ope_reference import DoublyRobust, SelfNormalizedInverseProbabilityWeighting

    log = pl.read_parquet(path(size), columns=["item", "reward", "pscore", "action_dist",
                                                "q_hat_all"])
    n = log.height
    action = log["item"].to_numpy()
    target = log["action_dist"].to_numpy().reshape(n, ACTIONS, 1)
    q_hat = log["q_hat_all"].to_numpy().reshape(n, ACTIONS, 1)
    common = {"reward": log["reward"].to_numpy(), "action": action,
              "pscore": log["pscore"].to_numpy(), "action_dist": target,
              "position": np.zeros(n, dtype=int)}
    return {"snips": SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(**common),
            "dr": DoublyRobust().estimate_policy_value(**common,
                                                       estimated_rewards_by_reg_model=q_hat)}


TOOLS = {"polars-rank": polars_rank_tool,
         "polars-rank, 1,000 resamples": lambda size: polars_rank_tool(size, 1000),
         "OBP (transcribed)": obp_tool}
IMPORTS = {"polars-rank": ("polars", "polars_rank.online"),
           "polars-rank, 1,000 resamples": ("polars", "polars_rank.online", "numpy"),
           "OBP (transcribed)": ("polars", "numpy", "tests.ope_reference")}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", default=["100k"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--child", nargs=2, metavar=("TOOL", "SIZE"))
    args = parser.parse_args()
    if args.child:
        tool, size = args.child
        child_json(lambda: TOOLS[tool](size), IMPORTS[tool])
        return
    import polars as pl

    byte_compile()
    lines = [f"# Counterfactual estimators ({date.today()})", "",
             f"Machine: {platform.machine()}, {__import__('os').cpu_count()} cores; Python "
             f"{platform.python_version()}, polars {pl.__version__}. Medians of "
             f"{args.repeat} rounds, fresh process per run, imports included; SNIPS and DR.",
             ""]
    for size in args.sizes:
        if not path(size).exists():
            generate(size)
        results = measure(list(TOOLS), size, args.repeat, args.timeout, script=__file__)
        lines += [f"## {SIZES[size]:,} impressions x {POSITIONS} positions", "",
                  "| tool | seconds | after imports | peak RSS (MiB) |", "|---|---|---|---|"]
        for tool, res in results.items():
            lines.append(f"| {tool} | " + (
                "timeout or failed | | |" if not res or "timeout" in res else
                f"{res['seconds']:.2f} | {res['work']:.2f} | {res['peak_mib']:.0f} |"))
        ours, obp = results["polars-rank"], results["OBP (transcribed)"]
        if ours and obp and "seconds" in ours and "seconds" in obp:
            bad = [m for m, v in ours["means"].items() if abs(v - obp["means"][m]) > 1e-9]
            lines += ["", f"Ratio: {ours['seconds'] / obp['seconds']:.3f}x "
                      f"({ours['work'] / obp['work']:.3f}x after imports). Agreement: "
                      + ("SNIPS and DR within 1e-9." if not bad else "DIFFER: " + ", ".join(bad)),
                      ""]
        print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main()
