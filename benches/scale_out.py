"""Scale out: the same evaluation in one process, on Spark local[2] and on Dask.

Each engine runs in a fresh process, end to end from the Parquet files of
``generate.py`` (run and qrels) to the means of the 5-metric battery of ``run.py``
(ndcg_cut_10, map, mrr@10, P_10, recall_100), with polars-rank's validation on. The
parent samples the resident memory of the child's whole process tree (for Spark the
driver, the JVM and its Python workers; for Dask the scheduler, nannies and workers)
every 0.2 s and reports the peak of the sum, next to the wall time. The engines'
means must agree within 1e-9. Writes ``benches/SCALE_OUT.md``.

    python benches/generate.py 50m && python benches/scale_out.py 50m

Needs the ``spark`` and ``dask`` extras and Java (``openjdk-17-jre-headless``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
METRICS = ["ndcg_cut_10", "map", "mrr@10", "P_10", "recall_100"]
THREADS = "2"  # local[2]: two tasks of one Polars thread each; the single process gets both


# ---------------------------------------------------------------- engines (child side)
def single_process(run: Path, qrels: Path) -> tuple[dict, dict]:
    import polars as pl

    import polars_rank as pr

    start = time.perf_counter()
    means = pr.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), METRICS).collect()
    return dict(zip(METRICS, means.row(0), strict=True)), {"evaluate": time.perf_counter() - start}


def single_process_low(run: Path, qrels: Path) -> tuple[dict, dict]:
    import polars as pl

    import polars_rank as pr

    start = time.perf_counter()
    means = pr.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), METRICS, memory="low")
    return dict(zip(METRICS, means.collect().row(0), strict=True)), {
        "evaluate": time.perf_counter() - start}


def spark(run: Path, qrels: Path) -> tuple[dict, dict]:
    from pyspark.sql import SparkSession

    from polars_rank import spark as prs

    start = time.perf_counter()
    session = (
        SparkSession.builder.master("local[2]")
        .appName("polars-rank scale-out bench")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.executorEnv.POLARS_MAX_THREADS", "1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter()
    means = prs.evaluate(session.read.parquet(str(run)), session.read.parquet(str(qrels)),
                         METRICS, partitions=int(os.environ.get("BENCH_PARTITIONS", "16")))
    row = means.collect()[0]
    done = time.perf_counter()
    session.stop()
    return {m: row[m] for m in METRICS}, {"session": started - start,
                                          "evaluate": done - started}


def dask(run: Path, qrels: Path) -> tuple[dict, dict]:
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from polars_rank import dask as prd

    start = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0", env={"POLARS_MAX_THREADS": "1"})
    client = Client(cluster)
    started = time.perf_counter()
    kwargs = {"dtype_backend": "pyarrow", "blocksize": "64MiB"}  # 23 partitions at 50m
    means = prd.evaluate(dd.read_parquet(str(run), **kwargs), dd.read_parquet(str(qrels), **kwargs),
                         METRICS, partitions=int(os.environ.get("BENCH_PARTITIONS", "16")))
    row = means.compute().iloc[0]
    done = time.perf_counter()
    client.close()
    cluster.close()
    return {m: float(row[m]) for m in METRICS}, {"cluster": started - start,
                                                 "evaluate": done - started}


ENGINES = {
    "polars-rank, one process": single_process,
    "polars-rank, one process, memory='low'": single_process_low,
    "polars_rank.spark, local[2]": spark,
    "polars_rank.dask, 2 workers x 1 thread": dask,
}


def child(engine: str, size: str) -> None:
    run, qrels = DATA / f"run_{size}.parquet", DATA / f"qrels_{size}.parquet"
    means, phases = ENGINES[engine](run, qrels)
    print(json.dumps({"means": means, "phases": phases}))


# ---------------------------------------------------------------- parent side
def tree_rss_mib(root: int) -> float:
    """Resident memory of ``root`` and all its descendants, from /proc (MiB)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    total, todo = 0, [root]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * page
        except OSError:
            continue
    return total / 2**20


def measure(engine: str, size: str, timeout: float) -> dict:
    env = {**os.environ, "POLARS_MAX_THREADS": THREADS, "PYSPARK_PYTHON": sys.executable}
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--child", engine, size],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = 0.0
    while proc.poll() is None:
        peak = max(peak, tree_rss_mib(proc.pid))
        if time.perf_counter() - start > timeout:
            proc.kill()
            return {"error": f"timeout after {timeout:.0f} s"}
        time.sleep(0.2)
    seconds = time.perf_counter() - start
    out, err = proc.communicate()
    if proc.returncode:
        print(f"{engine}: failed\n{err[-3000:]}", file=sys.stderr)
        return {"error": "failed"}
    result = json.loads(out.strip().splitlines()[-1])
    return {"seconds": seconds, "peak_mib": peak, **result}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("size", nargs="?", default="1m")
    parser.add_argument("--engines", nargs="*", default=list(ENGINES))
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "SIZE"))
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    import polars as pl

    rows = pl.scan_parquet(DATA / f"run_{args.size}.parquet").select(pl.len()).collect().item()
    results = {}
    for engine in args.engines:
        print(f"{engine} ...", file=sys.stderr, flush=True)
        results[engine] = measure(engine, args.size, args.timeout)
        print(f"  {results[engine]}", file=sys.stderr, flush=True)

    reference = next((r["means"] for r in results.values() if "means" in r), {})
    lines = [
        f"# Scale-out benchmark ({date.today()})",
        "",
        f"`python benches/scale_out.py {args.size}`: {rows:,} run rows "
        f"(`generate.py {args.size}`), the means of {', '.join(METRICS)} with validation, "
        f"Parquet in. Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"Polars {pl.__version__}. Each engine in a fresh process; wall time includes "
        "starting Python (and the JVM or the cluster); peak memory is the largest sum of "
        "the resident memory of the whole process tree, sampled every 0.2 s (shared pages "
        "count once per process).",
        "",
        "| engine | wall time (s) | of which evaluate (s) | peak memory, all processes (MiB) "
        "| means agree |",
        "|---|---|---|---|---|",
    ]
    for engine, res in results.items():
        if "error" in res:
            lines.append(f"| {engine} | {res['error']} | | | |")
            continue
        agree = all(abs(res["means"][m] - reference[m]) <= 1e-9 for m in METRICS)
        lines.append(f"| {engine} | {res['seconds']:.1f} | {res['phases']['evaluate']:.1f} "
                     f"| {res['peak_mib']:.0f} | {'yes' if agree else 'NO'} |")
    lines += ["", "Means: " + ", ".join(f"{m} {reference.get(m, float('nan')):.6f}"
                                        for m in METRICS), ""]
    text = "\n".join(lines)
    print(text)
    (HERE / "SCALE_OUT.md").write_text(text)


if __name__ == "__main__":
    main()
