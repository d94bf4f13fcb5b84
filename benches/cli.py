"""``polars-rank eval`` against the trec_eval 10.0 binary, on the same TREC text files.

    python benches/cli.py 1m 7m [--repeat 5] [--trec-eval PATH] [--out benches/RESULTS_cli.md]

The files are ``generate.py``'s run and qrels written as trec_eval reads them
(``benches/data/run_<size>.txt``: ``qid Q0 docid rank score tag``, one space between
fields, grouped by query; ``qrels_<size>.txt``: ``qid 0 docid rel``). The binary is
built from ``../shared/trec_eval-10.0`` (``make``, in a temporary copy) unless
``--trec-eval`` names one. For each size and each measure set (trec_eval's five
``-m map -m ndcg_cut.10 -m recip_rank -m P.10 -m recall.100``, and ``-m all_trec``),
both programs run in turn, round after round, each in a fresh process, the order
swapped every round (paired and interleaved: a machine that slows down for a while
slows both); medians of the wall times, of the CPU times and of the peak resident
memory (``wait4``'s ``ru_maxrss``). ``polars-rank eval`` runs as ``python -m polars_rank``
from this checkout, byte-compiled first as ``pip install`` leaves it. Their outputs are
compared line for line.

Then where polars-rank's time goes, in fresh processes per size: the interpreter's
start, ``import polars``, ``import polars_rank``, reading the two files (``read_run`` +
``read_qrels``), ``evaluate()`` of each measure set on the frames read (the ranking
step, the data checks, the metrics), and the whole command for each set (reading,
evaluation, the CLI's own steps and printing); and the floor of reading: Polars' own
CSV reader on the run file alone.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
SOURCE = ROOT.parent / "shared" / "trec_eval-10.0"
MEASURES = {
    "5 measures": ["-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m", "P.10",
                   "-m", "recall.100"],
    "all_trec": ["-m", "all_trec"],
}


# ---------------------------------------------------------------------------- the files
def text_files(size: str) -> tuple[Path, Path]:
    """The run and qrels of ``generate.py`` as TREC text (written once, then reused)."""
    run, qrels = DATA / f"run_{size}.txt", DATA / f"qrels_{size}.txt"
    if run.exists() and qrels.exists():
        return run, qrels
    import polars as pl

    sys.path.insert(0, str(HERE))
    from generate import SIZES, generate

    DATA.mkdir(exist_ok=True)
    frame, judged = generate(*SIZES[size])
    frame.with_columns(pl.int_range(1, pl.len() + 1).over("qid").alias("rank")).select(
        "qid", pl.lit("Q0").alias("q0"), "docid", "rank", pl.col("score").round(3),
        pl.lit("bench").alias("tag"),
    ).write_csv(run, separator=" ", include_header=False)
    judged.select("qid", pl.lit("0").alias("iter"), "docid", "rel").write_csv(
        qrels, separator=" ", include_header=False)
    return run, qrels


def trec_eval_binary(given: Path | None) -> Path:
    """``given``, or trec_eval 10.0 built from ``../shared`` in a temporary copy."""
    if given is not None:
        return given
    build = Path(tempfile.mkdtemp(prefix="trec_eval-")) / "src"
    shutil.copytree(SOURCE, build)
    subprocess.run(["make", "-s"], cwd=build, check=True, capture_output=True)
    return build / "trec_eval"


def byte_compile() -> None:
    """Bytecode for this checkout's modules, as ``pip install`` writes it (this machine
    sets PYTHONDONTWRITEBYTECODE: without it every run would compile every module)."""
    import compileall

    compileall.compile_dir(ROOT / "polars_rank", quiet=1)


# ------------------------------------------------------------------------------ running
def timed(command: list[str], out: Path) -> dict[str, float]:
    """One run: wall seconds, CPU seconds, peak resident MiB; stdout to ``out``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    errors = out.with_suffix(".err")
    with open(out, "wb") as sink, open(errors, "wb") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=sink, stderr=err, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
    child.returncode = code = os.waitstatus_to_exitcode(status)
    if code != 0:
        text = errors.read_text(errors="replace")[-2000:]
        msg = f"{command[:4]}... exited {code}: {text}"
        raise RuntimeError(msg)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "peak_mib": usage.ru_maxrss / 1024}


def compare_outputs(theirs: Path, ours: Path) -> str:
    """``identical`` or how many of trec_eval's lines differ."""
    a, b = theirs.read_bytes().splitlines(), ours.read_bytes().splitlines()
    if a == b:
        return "identical"
    differ = len(set(a) ^ set(b)) // 2 or 1
    return f"{differ} of {len(a)} lines differ"


def paired(binary: Path, size: str, flags: list[str], repeat: int,
           scratch: Path) -> dict[str, object]:
    """``repeat`` rounds of both programs, the order swapped every round; medians."""
    run, qrels = text_files(size)
    commands = {
        "trec_eval": [str(binary), *flags, str(qrels), str(run)],
        "polars-rank": [sys.executable, "-m", "polars_rank", "eval", *flags, str(qrels),
                        str(run)],
    }
    outputs = {tool: scratch / f"{tool}.out" for tool in commands}
    for tool, command in commands.items():  # warm: the page cache, bytecode
        timed(command, outputs[tool])
    agreement = compare_outputs(outputs["trec_eval"], outputs["polars-rank"])
    runs: dict[str, list[dict[str, float]]] = {tool: [] for tool in commands}
    tools = list(commands)
    for round_ in range(repeat):
        for tool in tools if round_ % 2 == 0 else tools[::-1]:
            result = timed(commands[tool], outputs[tool])
            runs[tool].append(result)
            print(f"  round {round_ + 1} {size} {' '.join(flags[:4]):28} {tool:12} "
                  f"{result['wall']:.2f}s", file=sys.stderr, flush=True)
    pairs = list(zip(runs["trec_eval"], runs["polars-rank"], strict=True))
    return {
        tool: {key: statistics.median(r[key] for r in done) for key in done[0]}
        for tool, done in runs.items()
    } | {"paired_ratio": statistics.median(ours["wall"] / te["wall"] for te, ours in pairs),
         "cpu_ratio": statistics.median(ours["cpu"] / te["cpu"] for te, ours in pairs),
         "outputs": agreement}


# ---------------------------------------------------------------------------- breakdown
def breakdown_child(size: str, measures: str) -> None:
    """Where one ``polars-rank eval`` spends its time, printed as JSON.

    The command runs whole first (as a user runs it), then ``read_run`` +
    ``read_qrels`` and ``evaluate()`` on the frames read, with the CLI's metrics and
    convention (warm: the command paid the first call's costs).
    """
    start = time.perf_counter()
    import polars as pl

    polars_imported = time.perf_counter()
    import contextlib
    import io

    import polars_rank as pr
    from polars_rank.__main__ import main
    from polars_rank._cli.eval import asked

    imported = time.perf_counter()
    run, qrels = text_files(size)
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        code = main(["eval", *MEASURES[measures], str(qrels), str(run)])
    assert code == 0
    whole = time.perf_counter()
    run_frame = pr.read_run(run)
    qrels_frame = pr.read_qrels(qrels)
    read = time.perf_counter()
    metrics = [str(m) for m in asked([f for f in MEASURES[measures] if f != "-m"]).unique()]
    pr.evaluate(run_frame, qrels_frame, metrics, per_query=True, ties="trec_eval",
                dialect="trec_eval", missing="skip")
    evaluated = time.perf_counter()
    pl.read_csv(run, separator=" ", has_header=False)
    floor = time.perf_counter()
    print(json.dumps({"import polars": polars_imported - start,
                      "import polars_rank": imported - polars_imported,
                      "eval command": whole - imported,
                      "read_run + read_qrels": read - whole,
                      "evaluate()": evaluated - read,
                      "pl.read_csv(run) alone": floor - evaluated,
                      "lines": printed.getvalue().count("\n")}))


def breakdown(size: str, measures: str, repeat: int) -> dict[str, float]:
    """Medians over ``repeat`` fresh processes, with the interpreter's own start."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parts: list[dict[str, float]] = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, env=env)
        bare = time.perf_counter() - start
        done = subprocess.run([sys.executable, __file__, "--child", size, measures],
                              check=True, capture_output=True, text=True, env=env)
        parts.append({"python start": bare} | json.loads(done.stdout.splitlines()[-1]))
    return {key: statistics.median(p[key] for p in parts) for key in parts[0]}


# --------------------------------------------------------------------------------- main
def report(results: dict[str, dict[str, dict[str, object]]],
           parts: dict[str, dict[str, dict[str, float]]], repeat: int,
           load: tuple[float, float]) -> str:
    lines = [
        f"# polars-rank eval against trec_eval 10.0 ({date.today()})",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, load average "
        f"{load[0]:.1f} at the start and {load[1]:.1f} at the end (other jobs share it: "
        f"compare ratios, not seconds); Python {platform.python_version()}. Medians of "
        f"{repeat} paired rounds, each running trec_eval and `polars-rank eval` once in "
        "fresh processes, the order swapped every round; \"paired ratio\" is the median of "
        "the rounds' polars-rank / trec_eval wall times, \"CPU ratio\" of their CPU times (user + "
        "system, every thread). Same text files (benches/cli.py).",
        "",
        "| rows | measures | trec_eval s | polars-rank s | paired ratio | CPU s (trec_eval, "
        "polars-rank) | CPU ratio | peak MiB (trec_eval, polars-rank) | output |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for size, by_flags in results.items():
        for name, res in by_flags.items():
            te, ours = res["trec_eval"], res["polars-rank"]
            assert isinstance(te, dict)
            assert isinstance(ours, dict)
            lines.append(
                f"| {size.upper()} | {name} | {te['wall']:.2f} | {ours['wall']:.2f} | "
                f"{res['paired_ratio']:.2f}x | {te['cpu']:.2f}, {ours['cpu']:.2f} | "
                f"{res['cpu_ratio']:.2f}x | {te['peak_mib']:.0f}, {ours['peak_mib']:.0f} | "
                f"{res['outputs']} |")
    lines += ["", "Where polars-rank's time goes (wall seconds, medians of fresh processes; "
              "`eval command` is the whole command after the imports, run first; then, "
              "warm, the reading and `evaluate()` on the frames read with the CLI's "
              "metrics; the rest = eval command - reading - evaluate(): the CLI's own "
              "steps, printing and first-call costs):", "",
              "| rows | measures | python start | import polars | import polars_rank | "
              "read_run + read_qrels | evaluate() | eval command | the rest | floor: "
              "pl.read_csv(run) |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for size, by_flags in parts.items():
        for name, p in by_flags.items():
            rest = p["eval command"] - p["read_run + read_qrels"] - p["evaluate()"]
            lines.append(
                f"| {size.upper()} | {name} | {p['python start']:.2f} | "
                f"{p['import polars']:.2f} | {p['import polars_rank']:.2f} | "
                f"{p['read_run + read_qrels']:.2f} | {p['evaluate()']:.2f} | "
                f"{p['eval command']:.2f} | {rest:.2f} | {p['pl.read_csv(run) alone']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", default=["1m", "7m"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--trec-eval", type=Path, default=None)
    parser.add_argument("--measures", nargs="*", default=list(MEASURES), choices=list(MEASURES))
    parser.add_argument("--child", nargs=2, metavar=("SIZE", "MEASURES"))
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS_cli.md")
    args = parser.parse_args()
    if args.child:
        breakdown_child(*args.child)
        return
    byte_compile()
    binary = trec_eval_binary(args.trec_eval)
    load_start = os.getloadavg()[0]
    results: dict[str, dict[str, dict[str, object]]] = {}
    parts: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for size in args.sizes:
            results[size] = {name: paired(binary, size, MEASURES[name], args.repeat,
                                          Path(scratch)) for name in args.measures}
            parts[size] = {name: breakdown(size, name, args.repeat) for name in args.measures}
    text = report(results, parts, args.repeat, (load_start, os.getloadavg()[0]))
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
