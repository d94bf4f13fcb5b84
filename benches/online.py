"""Online evaluation from Parquet: polars-rank, the plain-Polars floor and the incumbents.

    PYTHONPATH=. python benches/online.py 1m [10m] [--repeat 3] [--pyclick-subset 5000]

Issue 39's benchmark: logs of ``size`` rows (``1m``: 100,000 impressions x 10
positions; ``10m``: 1,000,000 x 10), end to end from Parquet, each tool in a fresh
process, the tools in turn round after round (``run.py``'s ``measure``): medians of
the wall time (imports included, and after imports), peak RSS (``ru_maxrss``).

- **PBM**, 20 EM iterations from every parameter at 0.5, on a log simulated from a PBM
  (50 queries x 40 items): ``fit_click_model``; the floor, a hand-written plan (pair
  numbers by one join, then per iteration the two lookups by position, the posteriors
  and two plain ``group_by`` sums: no checks, no order-free sums); PyClick (commit
  98e7e46, transcribed in tests/click_models_reference.py: pure Python, as PyClick is)
  on the first ``--pyclick-subset`` impressions, its time after imports scaled
  linearly to the whole log (an EM iteration is one pass over the sessions), its
  reading and session building included. pyClickModels has DBN only (no PBM) and
  does not build here (json-c headers): not run.
- **Team-draft interleaving credit**: each impression's winner from its teams and
  clicks (two rankers, 10 positions, clicks on about 30%): ``credit(..., method=
  "team_draft")``; the floor, one ``group_by`` counting each team's clicks; the
  interleaving package (mpkato, commit 7907f7d, transcribed in
  tests/interleaving_reference.py) building a ``TeamRanking`` per impression and
  calling ``TeamDraft.evaluate``, on the first ``--interleaving-subset`` impressions,
  scaled linearly.
- **SNIPS and DR** of a target policy (10 actions, one round per row):
  ``off_policy_value(..., ["snips", "dr"], n_resamples=0)`` (and with 1,000 bootstrap
  resamples); the floor, one ``select`` of the two ratios over the rows; OBP's
  ``SelfNormalizedInverseProbabilityWeighting`` and ``DoublyRobust`` (NumPy,
  vectorised): OBP 0.5.7 itself where it is installed (the ``obp-reference`` extra,
  then ``pip install --no-deps --ignore-requires-python obp==0.5.7``), otherwise its
  code at commit 8cbd5fa transcribed in tests/ope_reference.py) on arrays made from the
  file's columns, the evaluation policy's and the reward model's (round, action)
  grids from two list columns (``benches/online_ope.py``'s layout before this file).

The estimates of polars-rank and the floor (and OBP) must agree to 1e-9 (checked).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import platform
import subprocess
import sys
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from run import byte_compile, child_json, measure  # noqa: E402

SIZES = {"100k": 10_000, "1m": 100_000, "10m": 1_000_000}  # impressions, 10 positions
POSITIONS, ACTIONS, ITERATIONS = 10, 10, 20


def path(task: str, size: str) -> Path:
    return DATA / f"online_{task}_{size}.parquet"


# ---------------------------------------------------------------- data
def make_pbm(size: str) -> None:
    """A PBM click log: 50 queries x 40 items, examination 1 / r^0.8 (as in the tests)."""
    import polars as pl

    from polars_rank.online import ClickModel, simulate_clicks

    q = pl.int_range(0, 50 * 40, eager=True)
    attr = pl.DataFrame({"query": (q // 40).cast(pl.String), "item": (q % 40).cast(pl.String),
                         "attractiveness": ((q * 7919) % 97 / 110 + 0.05)})
    model = ClickModel.from_parameters("pbm", attractiveness=attr,
                                       examination={r: 1 / r ** 0.8 for r in range(1, 11)})
    shown = pl.DataFrame({"impression": pl.int_range(0, SIZES[size], eager=True)}).with_columns(
        (pl.col("impression") * 31 % 50).cast(pl.String).alias("query"),
        pl.int_ranges(1, POSITIONS + 1).alias("position")).explode("position").with_columns(
        ((pl.col("impression") * 13 + pl.col("position") * 4) % 40).cast(pl.String).alias("item"))
    simulate_clicks(model, shown, seed=1).write_parquet(path("pbm", size))


def make_ope(size: str, seed: int = 0) -> None:
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
    pl.DataFrame({
        "impression": np.repeat(np.arange(SIZES[size]), POSITIONS),
        "position": np.tile(np.arange(1, POSITIONS + 1), SIZES[size]),
        "item": action, "reward": rng.binomial(1, q_hat[rows, action]).astype(float),
        "pscore": logging[rows, action], "target": target[rows, action],
        "q_hat": q_hat[rows, action], "q_hat_target": (target * q_hat).sum(axis=1),
        "action_dist": target, "q_hat_all": q_hat,
    }).write_parquet(path("ope", size))


def make_interleaving(size: str) -> None:
    """Team-draft lists: per impression 5 rounds, each a coin flip for who picks first
    (a hash of the impression and round), 10 distinct documents, clicks on about 30%."""
    import polars as pl

    n = SIZES[size]
    frame = pl.DataFrame({"impression": pl.int_range(0, n, eager=True)}).with_columns(
        (pl.col("impression") // 10).alias("qid"),
        pl.int_ranges(1, POSITIONS + 1).alias("position")).explode("position")
    first = pl.struct("impression", (pl.col("position") + 1) // 2).hash(7) % 2 == 0
    odd = pl.col("position") % 2 == 1
    frame.with_columns(
        pl.when(first == odd).then(pl.lit("A")).otherwise(pl.lit("B")).alias("system"),
        (pl.col("position") * 1000 + pl.col("impression") % 997).alias("docid"),
        (pl.struct("impression", "position").hash(3) % 10 < 3).cast(pl.Int8).alias("click"),
    ).write_parquet(path("interleaving", size))


# ---------------------------------------------------------------- PBM (child side)
def pbm_ours(size: str) -> dict:
    import polars as pl

    from polars_rank.online import fit_click_model

    model = fit_click_model(pl.scan_parquet(path("pbm", size)), "pbm", iterations=ITERATIONS)
    return _pbm_summary(model.parameters["examination"]["examination"],
                        model.parameters["attractiveness"]["attractiveness"])


def _pbm_summary(exam: object, attr: object) -> dict:
    import polars as pl

    assert isinstance(exam, pl.Series)
    assert isinstance(attr, pl.Series)
    return {"theta_2": exam[1], "theta_10": exam[-1], "alpha_sum": attr.sum()}


def pbm_floor(size: str) -> dict:
    """The maths by hand: pair numbers once, then per iteration two lookups, two sums."""
    import polars as pl

    log = pl.scan_parquet(path("pbm", size)).select(
        "query", "item", (pl.col("position") - 1).cast(pl.UInt32).alias("r"),
        pl.col("click").cast(pl.Float64).alias("c")).collect()
    pairs = log.select("query", "item").unique().sort("query", "item").with_row_index("qd")
    log = log.join(pairs, on=["query", "item"]).select("qd", "r", "c")
    attr = pl.Series([0.5] * pairs.height)
    exam = pl.Series([0.5] * (int(log["r"].max()) + 1))  # type: ignore[arg-type]
    c = pl.col("c")
    for _ in range(ITERATIONS):
        a, e = pl.lit(attr).gather(pl.col("qd")), pl.lit(exam).gather(pl.col("r"))
        rows = log.select("qd", "r", (c + (1 - c) * (1 - e) * a / (1 - e * a)).alias("pa"),
                          (c + (1 - c) * (1 - a) * e / (1 - e * a)).alias("pe"))
        top = 1 - 1e-6
        attr = rows.group_by("qd").agg(((1 + pl.col("pa").sum()) / (2 + pl.len()))
                                       .clip(upper_bound=top).alias("v")).sort("qd")["v"]
        exam = rows.group_by("r").agg(((1 + pl.col("pe").sum()) / (2 + pl.len()))
                                      .clip(upper_bound=top).alias("v")).sort("r")["v"]
    return _pbm_summary(exam, attr)


def pbm_pyclick(size: str) -> dict:
    import polars as pl

    from tests import click_models_reference as ref

    subset = min(int(os.environ.get("ONLINE_BENCH_PYCLICK", "5000")), SIZES[size])
    log = (pl.scan_parquet(path("pbm", size)).filter(pl.col("impression") < subset)
           .collect().sort("impression", "position"))
    sessions = []
    for (_,), rows in log.group_by("impression", maintain_order=True):
        session = ref.SearchSession(rows["query"][0])
        session.web_results = [ref.SearchResult(d, c)
                               for d, c in zip(rows["item"], rows["click"], strict=True)]
        sessions.append(session)
    model = ref.PBM(ITERATIONS)
    model.train(sessions)
    exam = model.params[model.param_names.exam]._container[1].value()
    return {"theta_2 (subset)": exam, "fraction": subset / SIZES[size]}


# ---------------------------------------------------------------- SNIPS, DR (child side)
def ope_ours(size: str, n_resamples: int = 0) -> dict:
    import polars as pl

    from polars_rank.online import off_policy_value

    out = off_policy_value(pl.scan_parquet(path("ope", size)), ["snips", "dr"],
                           n_resamples=n_resamples)
    return dict(zip(out["estimator"], out["estimate"], strict=True))


def ope_floor(size: str) -> dict:
    import polars as pl

    w = pl.col("target") / pl.col("pscore")
    r = pl.col("reward")
    out = pl.scan_parquet(path("ope", size)).select(
        ((r * w).sum() / w.sum()).alias("snips"),
        (pl.col("q_hat_target") + w * (r - pl.col("q_hat"))).mean().alias("dr")).collect()
    return out.row(0, named=True)


def ope_obp(size: str) -> dict:
    import numpy as np
    import polars as pl

    ope = importlib.import_module(OBP_MODULE)
    DoublyRobust = ope.DoublyRobust
    SelfNormalizedInverseProbabilityWeighting = ope.SelfNormalizedInverseProbabilityWeighting

    log = pl.read_parquet(path("ope", size), columns=["item", "reward", "pscore",
                                                      "action_dist", "q_hat_all"])
    n = log.height
    # OBP indexes (round, action, position) grids at each round's position; the file
    # holds that slice, so the grids are (rounds, actions, 1) with position 0
    target = log["action_dist"].to_numpy().reshape(n, ACTIONS, 1)
    q_hat = log["q_hat_all"].to_numpy().reshape(n, ACTIONS, 1)
    common = {"reward": log["reward"].to_numpy(), "action": log["item"].to_numpy(),
              "pscore": log["pscore"].to_numpy(), "action_dist": target,
              "position": np.zeros(n, dtype=int)}
    return {"snips": SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(**common),
            "dr": DoublyRobust().estimate_policy_value(**common,
                                                       estimated_rewards_by_reg_model=q_hat)}


# ---------------------------------------------------------------- interleaving (child side)
def tdi_ours(size: str) -> dict:
    import polars as pl

    from polars_rank.online import credit

    out = credit(pl.scan_parquet(path("interleaving", size)), method="team_draft")
    assert isinstance(out, pl.LazyFrame)
    return _tdi_summary(out.collect())


def _tdi_summary(out: object) -> dict:
    import polars as pl

    assert isinstance(out, pl.DataFrame)
    return {"wins": int(out["win"].sum()), "losses": int(out["loss"].sum()),
            "ties": int(out["tie"].sum())}


def tdi_floor(size: str) -> dict:
    """Team-draft credit by hand: each team's clicks per impression, compared."""
    import polars as pl

    click = pl.col("click") == 1
    per = pl.scan_parquet(path("interleaving", size)).group_by("impression").agg(
        (click & (pl.col("system") == "A")).sum().alias("a"),
        (click & (pl.col("system") == "B")).sum().alias("b"))
    out = per.select((pl.col("a") > pl.col("b")).alias("win"),
                     (pl.col("a") < pl.col("b")).alias("loss"),
                     (pl.col("a") == pl.col("b")).alias("tie")).collect()
    return _tdi_summary(out)


def tdi_reference(size: str) -> dict:
    import polars as pl

    from tests import interleaving_reference as ref

    subset = min(int(os.environ.get("ONLINE_BENCH_INTERLEAVING", "100000")), SIZES[size])
    log = (pl.scan_parquet(path("interleaving", size)).filter(pl.col("impression") < subset)
           .collect().sort("impression", "position"))
    wins = losses = ties = 0
    for _, rows in log.group_by("impression", maintain_order=True):
        shown = rows["docid"].to_list()
        ranking = ref.TeamRanking([0, 1], shown)
        for d, t in zip(shown, rows["system"], strict=True):
            ranking.teams[0 if t == "A" else 1].add(d)
        won = ref.TeamDraft.evaluate(ranking, [i for i, c in enumerate(rows["click"]) if c])
        wins += (0, 1) in won
        losses += (1, 0) in won
        ties += not won
    return {"wins (subset)": wins, "losses (subset)": losses, "ties (subset)": ties,
            "fraction": subset / SIZES[size]}


OURS_PBM, FLOOR_PBM, PYCLICK = "PBM: polars-rank", "PBM: plain Polars (floor)", "PBM: PyClick"
# OBP itself where it is installed, else its code transcribed
OBP_MODULE = "obp.ope" if importlib.util.find_spec("obp") else "tests.ope_reference"
OURS_OPE, FLOOR_OPE, OBP = ("SNIPS+DR: polars-rank", "SNIPS+DR: plain Polars (floor)",
                            "SNIPS+DR: OBP 0.5.7" if OBP_MODULE == "obp.ope"
                            else "SNIPS+DR: OBP (transcribed)")
BOOT = "SNIPS+DR: polars-rank, 1,000 resamples"
OURS_TDI, FLOOR_TDI, MPKATO = ("team-draft credit: polars-rank",
                               "team-draft credit: plain Polars (floor)",
                               "team-draft credit: interleaving (mpkato)")
TOOLS = {OURS_TDI: tdi_ours, FLOOR_TDI: tdi_floor, MPKATO: tdi_reference,
         OURS_PBM: pbm_ours, FLOOR_PBM: pbm_floor, PYCLICK: pbm_pyclick,
         OURS_OPE: ope_ours, BOOT: lambda size: ope_ours(size, 1000), FLOOR_OPE: ope_floor,
         OBP: ope_obp}
IMPORTS = {OURS_TDI: ("polars", "polars_rank.online"), FLOOR_TDI: ("polars",),
           MPKATO: ("polars", "tests.interleaving_reference"),
           OURS_PBM: ("polars", "polars_rank.online"), FLOOR_PBM: ("polars",),
           PYCLICK: ("polars", "tests.click_models_reference"),
           OURS_OPE: ("polars", "polars_rank.online"),
           BOOT: ("polars", "polars_rank.online", "numpy"), FLOOR_OPE: ("polars",),
           OBP: ("polars", "numpy", OBP_MODULE)}
TASKS = {"pbm": (OURS_PBM, FLOOR_PBM, PYCLICK), "interleaving": (OURS_TDI, FLOOR_TDI, MPKATO),
         "ope": (OURS_OPE, FLOOR_OPE, OBP, BOOT)}
MAKE = {"pbm": make_pbm, "interleaving": make_interleaving, "ope": make_ope}


# ---------------------------------------------------------------- parent side
def scaled(res: dict) -> tuple[float, float]:
    """(seconds, after imports), the part after imports scaled up from a subset."""
    fraction = res["means"].get("fraction", 1.0)
    work = res["work"] / fraction
    return res["seconds"] - res["work"] + work, work


def table(task: str, results: dict[str, dict | None]) -> list[str]:
    ours_name = TASKS[task][0]
    lines = ["| tool | seconds | after imports | peak RSS (MiB) | ours / this | "
             "ours / this, after imports |", "|---|---|---|---|---|---|"]
    ours = results.get(ours_name)
    for tool in [t for t in TASKS[task] if t in results]:
        res = results.get(tool)
        if not res or "timeout" in res:
            lines.append(f"| {tool} | timeout or failed | | | | |")
            continue
        sec, work = scaled(res)
        note = ""
        if res["means"].get("fraction", 1.0) < 1.0:
            note = f" (scaled from {res['means']['fraction']:.2%} of the impressions)"
        ratio = ratio_work = ""
        if ours and "seconds" in ours and not tool.startswith(ours_name):
            ratio = f"{ours['seconds'] / sec:.4f}x"
            ratio_work = f"{ours['work'] / work:.4f}x"
        lines.append(f"| {tool}{note} | {sec:.2f} | {work:.2f} | {res['peak_mib']:.0f} | "
                     f"{ratio} | {ratio_work} |")
    lines += ["", agreement(task, results)]
    return lines


def agreement(task: str, results: dict[str, dict | None]) -> str:
    ours = (results.get(TASKS[task][0]) or {}).get("means")
    if not ours:
        return "Agreement: polars-rank failed."
    out = []
    for tool in TASKS[task][1:]:
        theirs = (results.get(tool) or {}).get("means") or {}
        shared = [k for k in ours if k in theirs]
        if not shared:
            continue
        worst = max(abs(ours[k] - theirs[k]) for k in shared)
        out.append(f"{tool}: {', '.join(shared)} within {worst:.1e}"
                   + ("" if worst <= 1e-9 else " (DIFFER beyond 1e-9)"))
    return "Agreement with polars-rank: " + ("; ".join(out) or "nothing comparable") + "."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", default=["1m"], help=f"among {list(SIZES)}")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--tasks", nargs="*", default=list(TASKS), choices=list(TASKS))
    parser.add_argument("--pyclick-subset", type=int, default=5000,
                        help="impressions PyClick fits (its time is scaled up)")
    parser.add_argument("--interleaving-subset", type=int, default=100_000,
                        help="impressions the interleaving reference scores (scaled up)")
    parser.add_argument("--skip", nargs="*", default=[], choices=list(TOOLS),
                        help="tools not to run (the bootstrap, say, at 10m)")
    parser.add_argument("--child", nargs=2, metavar=("TOOL", "SIZE"))
    parser.add_argument("--make", nargs=2, metavar=("TASK", "SIZE"))
    args = parser.parse_args()
    if args.make:
        task, size = args.make
        MAKE[task](size)
        return
    if args.child:
        tool, size = args.child
        child_json(lambda: TOOLS[tool](size), IMPORTS[tool])
        return
    import polars as pl

    unknown = [s for s in args.sizes if s not in SIZES]
    if unknown:
        parser.error(f"sizes must be among {list(SIZES)}, got {unknown}")
    os.environ["ONLINE_BENCH_PYCLICK"] = str(args.pyclick_subset)
    os.environ["ONLINE_BENCH_INTERLEAVING"] = str(args.interleaving_subset)
    byte_compile()
    DATA.mkdir(exist_ok=True)
    load = os.getloadavg()
    lines = [f"# Online evaluation from Parquet ({date.today()})", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores, load average "
             f"{load[0]:.1f} at the start; Python {platform.python_version()}, polars "
             f"{pl.__version__}. Medians of {args.repeat} rounds, fresh process per run.", ""]
    for size in args.sizes:
        for task in args.tasks:
            if not path(task, size).exists():
                # in a process of its own: Linux keeps a process's peak RSS across
                # fork and exec, so every tool would report the parent's peak
                subprocess.run([sys.executable, __file__, "--make", task, size], check=True)
            tools = [t for t in TASKS[task] if t not in args.skip]
            results = measure(tools, size, args.repeat, args.timeout, script=__file__)
            lines += [f"## {task.upper()}, {SIZES[size]:,} impressions x {POSITIONS} "
                      f"positions", "", *table(task, results), ""]
            print("\n".join(lines), flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
