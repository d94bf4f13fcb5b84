"""Time polars-rank against pytrec_eval, ranx, ir_measures and plain Polars, in one run.

Every measurement runs in a fresh process (so JIT caches, allocator state and page
cache are comparable), the tools in turn, round after round, end to end from the
Parquet files of ``generate.py`` to per-query values and their means, for the
5-metric battery ndcg@10 (linear gain, as trec_eval), map, mrr@10 (recip_rank for
pytrec_eval, which has no cutoff), p@10, recall@100. It prints medians (with and
without the imports), peak RSS and ratios, checks that the tools' means
agree where their definitions match, and writes ``benches/RESULTS.md``.

    python benches/generate.py 1m && python benches/run.py 1m [10m 7m 100m] [--repeat 5]

At 50m and 100m only ``evaluate(memory="low")`` runs (the other tools need the whole
data in memory several times over).

A fusion section (issue 25) times ``pr.fuse`` of three runs (``fusion_files``: each
``size`` rows, derived from the run) with RRF and with min-max CombSUM against
``ranx.fuse`` (cold: Numba's compilation included; warm: compiled first), end to end
from Parquet, and checks that they give the same run (rows and score sum):

    python benches/run.py 1m --tools "polars-rank fuse, rrf" "ranx fuse, rrf (cold)" ...

Needs the ``bench`` extra (ranx, ir-measures) besides the ``test`` one.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable  # noqa: TC003 (used at run time by the annotations of child_json)
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
OURS = ["ndcg_cut_10", "map", "mrr@10", "P_10", "recall_100"]
NAMES = ["ndcg@10", "map", "mrr@10", "p@10", "recall@100"]
TREC = {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"}
TREC_KEYS = ["ndcg_cut_10", "map", "recip_rank", "P_10", "recall_100"]
RANX = ["ndcg@10", "map", "mrr@10", "precision@10", "recall@100"]


# ---------------------------------------------------------------- tools (child side)
def polars_rank_evaluate(
    run: Path, qrels: Path, metrics: list[str] = OURS, ties: str = "trec_eval"
) -> dict:
    import polars as pl

    import polars_rank as pr

    per = pr.evaluate(
        pl.scan_parquet(run), pl.scan_parquet(qrels), metrics, per_query=True, ties=ties
    ).collect()
    return dict(zip(NAMES, per.select(pl.exclude("qid").mean()).row(0), strict=False))


def polars_rank_low_memory(run: Path, qrels: Path) -> dict:
    """``memory="low"``: hash buckets of queries, one scan each (the beyond-RAM path)."""
    import polars as pl

    import polars_rank as pr

    means = pr.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), OURS, memory="low")
    return dict(zip(NAMES, means.collect().row(0), strict=True))


def polars_rank_ndcg_only(run: Path, qrels: Path) -> dict:
    return polars_rank_evaluate(run, qrels, ["ndcg_cut_10"])


EVALUATE_ONE = "polars-rank evaluate, ndcg@10 only"


def _battery(ranking: dict, only_ndcg: bool = False) -> list:
    """The five metrics (or ndcg@10 alone) as expressions with the ranking arguments."""
    import polars_rank as pr

    exprs = [pr.ndcg("rel", 10, gain="linear", **ranking).alias("ndcg@10")]
    if not only_ndcg:
        exprs += [
            pr.map("rel", **ranking).alias("map"),
            pr.mrr("rel", 10, **ranking).alias("mrr@10"),
            pr.precision("rel", 10, **ranking).alias("p@10"),
            pr.recall("rel", 100, **ranking).alias("recall@100"),
        ]
    return exprs


def polars_rank_ranked(run: Path, qrels: Path, form: str, only_ndcg: bool = False) -> dict:
    """The documented fast forms: rank once with ``pr.ranked``, then metrics on ``rank=``."""
    import polars as pl

    import polars_rank as pr

    lists = pr.ranked(pl.scan_parquet(run), pl.scan_parquet(qrels))
    if form == "group_by":
        out = lists.group_by("qid").agg(_battery({"rank": "rank"}, only_ndcg))
        out = out.select(pl.exclude("qid").mean())
    else:
        out = lists.select(_battery({"rank": "rank", "query": "qid"}, only_ndcg))
    return out.collect().row(0, named=True)


def _joined(run: Path, qrels: Path):
    """The one-line forms' input: run and qrels fully joined, trec_eval's query universe
    (queries of the run with judgments)."""
    import polars as pl

    r, q = pl.scan_parquet(run), pl.scan_parquet(qrels)
    in_run = r.select("qid").unique()
    return r.join(
        q.join(in_run, on="qid", how="semi"), on=["qid", "docid"], how="full", coalesce=True
    ).filter(pl.col("qid").is_in(q.select("qid").unique().collect()["qid"].implode()))


def polars_rank_one_line(run: Path, qrels: Path, form: str, only_ndcg: bool = False) -> dict:
    """The card's one-line forms: each metric ranks its lists itself (``by="score"``,
    ties in row order: not trec_eval's, so not compared with pytrec_eval)."""
    import polars as pl

    joined = _joined(run, qrels)
    if form == "group_by":
        out = joined.group_by("qid").agg(_battery({"by": "score"}, only_ndcg))
        out = out.select(pl.exclude("qid").mean())
    else:
        out = joined.select(_battery({"by": "score", "query": "qid"}, only_ndcg))
    return out.collect().row(0, named=True)


def plain_polars(run: Path, qrels: Path) -> dict:
    """A hand-written plan: rank by window, join the judgments, sum per query."""
    import polars as pl

    r = pl.scan_parquet(run).with_columns(
        pl.struct(pl.col("score").cast(pl.Float32), "docid")
        .rank("ordinal", descending=True)
        .over("qid")
        .alias("pos")
    )
    q = pl.scan_parquet(qrels)
    hit = r.join(q, on=["qid", "docid"], how="inner")
    rel = pl.col("rel").cast(pl.Float64)
    per_ret = hit.group_by("qid").agg(
        dcg=(rel / (pl.col("pos") + 1).log(2)).filter(pl.col("pos") <= 10).sum(),
        ap=((pl.col("rel") >= 1).cast(pl.Float64).sort_by("pos").cum_sum() / pl.col("pos").sort())
        .filter(pl.col("rel").sort_by("pos") >= 1)
        .sum(),
        rr=(1.0 / pl.col("pos")).filter((pl.col("rel") >= 1) & (pl.col("pos") <= 10)).max(),
        p10=((pl.col("rel") >= 1) & (pl.col("pos") <= 10)).sum() / 10.0,
        r100=((pl.col("rel") >= 1) & (pl.col("pos") <= 100)).sum(),
    )
    ideal = q.group_by("qid").agg(
        idcg=(
            rel.sort(descending=True).head(10)
            / (pl.int_range(2, pl.len().clip(upper_bound=10) + 2)).log(2)
        ).sum(),
        n_rel=(pl.col("rel") >= 1).sum(),
    )
    queries = r.select("qid").unique().join(ideal, on="qid", how="inner")
    per = (
        queries.join(per_ret, on="qid", how="left")
        .fill_null(0)
        .select(
            pl.when(pl.col("idcg") > 0)
            .then(pl.col("dcg") / pl.col("idcg"))
            .otherwise(0.0)
            .alias("ndcg@10"),
            pl.when(pl.col("n_rel") > 0)
            .then(pl.col("ap") / pl.col("n_rel"))
            .otherwise(0.0)
            .alias("map"),
            pl.col("rr").alias("mrr@10"),
            pl.col("p10").alias("p@10"),
            pl.when(pl.col("n_rel") > 0)
            .then(pl.col("r100") / pl.col("n_rel"))
            .otherwise(0.0)
            .alias("recall@100"),
        )
        .collect()
    )
    return per.mean().row(0, named=True)


def _dicts(run: Path, qrels: Path) -> tuple[dict, dict]:
    """The incumbents' input, built the fast way: one list per query from Polars."""
    import polars as pl

    def nested(path: Path, value: str) -> dict:
        grouped = pl.read_parquet(path).group_by("qid").agg("docid", value)
        return {q: dict(zip(d, v, strict=True)) for q, d, v in grouped.iter_rows()}

    return nested(run, "score"), nested(qrels, "rel")


def pytrec_eval_tool(run: Path, qrels: Path) -> dict:
    import pytrec_eval

    run_d, qrels_d = _dicts(run, qrels)
    per = pytrec_eval.RelevanceEvaluator(qrels_d, TREC).evaluate(run_d)
    return {
        n: statistics.fmean(v[k] for v in per.values())
        for n, k in zip(NAMES, TREC_KEYS, strict=True)
    }


def ranx_tool(run: Path, qrels: Path, *, warm: bool) -> dict:
    from ranx import Qrels, Run, evaluate

    run_d, qrels_d = _dicts(run, qrels)
    qrels_r, run_r = Qrels(qrels_d), Run(run_d)
    if warm:  # compile (Numba) on a tiny input first, outside the timing
        tiny_q, tiny_r = Qrels({"q": {"d": 1}}), Run({"q": {"d": 1.0}})
        evaluate(tiny_q, tiny_r, RANX)
    out = evaluate(qrels_r, run_r, RANX, make_comparable=True)
    return dict(zip(NAMES, (out[m] for m in RANX), strict=True))


def ir_measures_tool(run: Path, qrels: Path) -> dict:
    import ir_measures
    import polars as pl
    from ir_measures import AP, RR, P, R, nDCG

    qrels_df = (
        pl.read_parquet(qrels)
        .rename({"qid": "query_id", "docid": "doc_id", "rel": "relevance"})
        .to_pandas()
    )
    run_df = pl.read_parquet(run).rename({"qid": "query_id", "docid": "doc_id"}).to_pandas()
    measures = [nDCG @ 10, AP, RR @ 10, P @ 10, R @ 100]
    out = ir_measures.calc_aggregate(measures, qrels_df, run_df)
    return dict(zip(NAMES, (out[m] for m in measures), strict=True))


def floor_sort(run: Path, qrels: Path) -> dict:
    import polars as pl

    pl.scan_parquet(run).group_by("qid").agg(
        pl.col("docid").sort_by("score", descending=True)
    ).collect()
    return {}


def floor_join_sort(run: Path, qrels: Path) -> dict:
    import polars as pl

    (
        pl.scan_parquet(run)
        .join(pl.scan_parquet(qrels), on=["qid", "docid"], how="full")
        .sort("qid", "score", descending=[False, True])
        .collect()
    )
    return {}


# ---------------------------------------------------------------- fusion (issue 25)
FUSE_SYSTEMS = 3


def fusion_files(size: str) -> list[Path]:
    """Three runs of ``run_<size>.parquet``'s queries (each ``size`` rows): each keeps
    a random 80% of the rows plus 20% other documents, its scores the run's plus
    noise, rounded to 3 decimals (ties). Written once, beside the run."""
    import numpy as np
    import polars as pl

    paths = [DATA / f"fuse_{size}_{i}.parquet" for i in range(FUSE_SYSTEMS)]
    if all(p.exists() for p in paths):
        return paths
    run = pl.read_parquet(DATA / f"run_{size}.parquet")
    for i, path in enumerate(paths):
        rng = np.random.default_rng(100 + i)
        n = run.height
        keep = rng.random(n) < 0.8
        docid = pl.Series(np.where(keep, run["docid"].to_numpy(),
                                   "X" + pl.Series(rng.integers(0, 10**9, n))
                                   .cast(pl.String).to_numpy()))
        out = run.with_columns(docid=docid, score=(pl.col("score") + pl.Series(
            rng.normal(scale=0.5, size=n))).round(3)).unique(["qid", "docid"],
                                                             maintain_order=True)
        out.write_parquet(path)
    return paths


def polars_rank_fuse(run: Path, qrels: Path, method: str, norm: str) -> dict:
    """``pr.fuse`` of the three runs, lazy from Parquet to the fused run in memory."""
    import polars as pl

    import polars_rank as pr

    size = run.stem.removeprefix("run_")
    fused = pr.fuse([pl.scan_parquet(p) for p in fusion_files(size)], method,
                    norm=norm).collect()
    return {"rows": fused.height, "score_sum": fused["score"].sum()}


def ranx_fuse(run: Path, qrels: Path, method: str, norm: str, *, warm: bool) -> dict:
    """``ranx.fuse`` of the same runs, read from Parquet the fast way (one Polars
    group_by per run into ranx's dicts); ``warm``: Numba compiled on a tiny input
    first, outside the timing."""
    import polars as pl
    from ranx import Run, fuse

    size = run.stem.removeprefix("run_")
    if warm:
        tiny = [Run({"q": {"d": 1.0, "e": 0.5}}), Run({"q": {"d": 0.2}})]
        fuse(tiny, norm=norm, method=method)
    runs = []
    for path in fusion_files(size):
        grouped = pl.read_parquet(path).group_by("qid").agg("docid", "score")
        runs.append(Run({q: dict(zip(d, v, strict=True)) for q, d, v in grouped.iter_rows()}))
    fused = fuse(runs, norm=norm, method=method)
    return {"rows": sum(len(d) for d in fused.run.values()),
            "score_sum": sum(sum(d.values()) for d in fused.run.values())}


def plain_polars_fuse(run: Path, qrels: Path, method: str) -> dict:
    """The floor: the same fusion written directly in Polars, no checks, no ranx order
    among equal scores (RRF: 1 / (60 + rank) by score; CombSUM: min-max per run and
    query, summed), the fused run sorted and ranked per query."""
    import polars as pl

    size = run.stem.removeprefix("run_")
    rows = pl.concat([pl.scan_parquet(p).with_columns(sys=pl.lit(i))
                      for i, p in enumerate(fusion_files(size))])
    s = pl.col("score")
    if method == "rrf":
        value = 1.0 / (60.0 + s.rank("ordinal", descending=True).over("sys", "qid"))
    else:
        lo, hi = s.min().over("sys", "qid"), s.max().over("sys", "qid")
        value = (s - lo) / (hi - lo)
    fused = (rows.with_columns(v=value).group_by("qid", "docid").agg(score=pl.col("v").sum())
             .sort(["qid", "score", "docid"], descending=[False, True, True])
             .with_columns(rank=pl.int_range(1, pl.len() + 1).over("qid")).collect())
    return {"rows": fused.height, "score_sum": fused["score"].sum()}


FUSE_TOOLS = {
    "plain Polars fuse, rrf": lambda r, q: plain_polars_fuse(r, q, "rrf"),
    "plain Polars fuse, min-max CombSUM": lambda r, q: plain_polars_fuse(r, q, "sum"),
    "polars-rank fuse, rrf": lambda r, q: polars_rank_fuse(r, q, "rrf", "min-max"),
    "ranx fuse, rrf (cold)": lambda r, q: ranx_fuse(r, q, "rrf", "min-max", warm=False),
    "ranx fuse, rrf (warm)": lambda r, q: ranx_fuse(r, q, "rrf", "min-max", warm=True),
    "polars-rank fuse, min-max CombSUM": lambda r, q: polars_rank_fuse(r, q, "sum",
                                                                       "min-max"),
    "ranx fuse, min-max CombSUM (cold)": lambda r, q: ranx_fuse(r, q, "sum", "min-max",
                                                                warm=False),
    "ranx fuse, min-max CombSUM (warm)": lambda r, q: ranx_fuse(r, q, "sum", "min-max",
                                                                warm=True),
}


def fusion_lines(results: dict[str, dict | None]) -> list[str]:
    """Each fusion of polars-rank against ranx's (cold and warm), and their agreement."""
    out = ["| fusion of 3 runs | polars-rank (s) | plain Polars (s) | ranx cold (s) "
           "| ranx warm (s) | / plain Polars | / ranx cold | / ranx warm | same run |",
           "|---|---|---|---|---|---|---|---|---|"]
    for method in ("rrf", "min-max CombSUM"):
        ours = results.get(f"polars-rank fuse, {method}") or {}
        cold = results.get(f"ranx fuse, {method} (cold)") or {}
        warm = results.get(f"ranx fuse, {method} (warm)") or {}
        floor = results.get(f"plain Polars fuse, {method}") or {}
        if not ours.get("seconds"):
            continue
        others = [t for t in (floor, cold, warm) if t.get("means")]
        same = bool(others) and all(
            abs(ours["means"]["rows"] - t["means"]["rows"]) == 0
            and abs(ours["means"]["score_sum"] - t["means"]["score_sum"])
            <= 1e-6 * max(1.0, abs(t["means"]["score_sum"])) for t in others)
        cells = [f"{ours['seconds']:.2f}", f"{floor.get('seconds', float('nan')):.2f}",
                 f"{cold.get('seconds', float('nan')):.2f}",
                 f"{warm.get('seconds', float('nan')):.2f}",
                 f"{ours['seconds'] / floor['seconds']:.2f}x" if floor.get("seconds") else "",
                 f"{ours['seconds'] / cold['seconds']:.3f}x" if cold.get("seconds") else "",
                 f"{ours['seconds'] / warm['seconds']:.3f}x" if warm.get("seconds") else "",
                 "yes (rows, score sum)" if same else ("NO" if others else "-")]
        out.append(f"| {method} | {' | '.join(cells)} |")
    return out


def _grouped(run: Path) -> Path:
    """The same run with its rows grouped by query (``generate.py``)."""
    return run.with_name(f"{run.stem}_grouped.parquet")


LOW_MEMORY = "polars-rank evaluate, memory=low"
GROUPED_OURS, GROUPED_TREC = ("polars-rank evaluate, run grouped by query",
                              "pytrec_eval, run grouped by query")
BEYOND_RAM = {"50m", "100m"}
RANKED_GB = "polars-rank ranked + group_by"
RANKED_Q = "polars-rank ranked + query="
ONE_LINE_GB = "polars-rank one-line group_by (by=score)"
ONE_LINE_Q = "polars-rank one-line query= (by=score)"
FORMS = ["polars-rank evaluate", RANKED_GB, RANKED_Q, ONE_LINE_GB, ONE_LINE_Q]
TOOLS = {
    "polars-rank evaluate": polars_rank_evaluate,
    EVALUATE_ONE: polars_rank_ndcg_only,
    "polars-rank evaluate, memory=low": polars_rank_low_memory,
    GROUPED_OURS: lambda r, q: polars_rank_evaluate(_grouped(r), q),
    "polars-rank evaluate, ties=trec_eval9": lambda r, q: polars_rank_evaluate(
        r, q, ties="trec_eval9"
    ),
    "polars-rank evaluate, ties=first": lambda r, q: polars_rank_evaluate(r, q, ties="first"),
    "polars-rank evaluate, ties=expected": lambda r, q: polars_rank_evaluate(
        r, q, ties="expected"
    ),
    RANKED_GB: lambda r, q: polars_rank_ranked(r, q, "group_by"),
    RANKED_GB + ", ndcg@10 only": lambda r, q: polars_rank_ranked(r, q, "group_by", True),
    RANKED_Q: lambda r, q: polars_rank_ranked(r, q, "query"),
    RANKED_Q + ", ndcg@10 only": lambda r, q: polars_rank_ranked(r, q, "query", True),
    ONE_LINE_GB: lambda r, q: polars_rank_one_line(r, q, "group_by"),
    ONE_LINE_GB + ", ndcg@10 only": lambda r, q: polars_rank_one_line(r, q, "group_by", True),
    ONE_LINE_Q: lambda r, q: polars_rank_one_line(r, q, "query"),
    ONE_LINE_Q + ", ndcg@10 only": lambda r, q: polars_rank_one_line(r, q, "query", True),
    "hand-written Polars": plain_polars,
    "pytrec_eval": pytrec_eval_tool,
    GROUPED_TREC: lambda r, q: pytrec_eval_tool(_grouped(r), q),
    "ranx (cold)": lambda r, q: ranx_tool(r, q, warm=False),
    "ranx (warm)": lambda r, q: ranx_tool(r, q, warm=True),
    "ir_measures": ir_measures_tool,
    "floor: read + per-query sort": floor_sort,
    "floor: read + full join + global sort": floor_join_sort,
}
TOOLS |= FUSE_TOOLS  # --tools with these names: the fusion section only


def _imports(tool: str) -> tuple[str, ...]:
    """The modules ``tool`` imports before its work: timed apart from the work."""
    for prefix, modules in (("polars-rank", ("polars_rank",)), ("pytrec_eval", ("pytrec_eval",)),
                            ("ranx", ("ranx",)), ("ir_measures", ("ir_measures", "pandas"))):
        if tool.startswith(prefix):
            return ("polars", *modules)
    return ("polars",)


def child(tool: str, size: str) -> None:
    run, qrels = DATA / f"run_{size}.parquet", DATA / f"qrels_{size}.parquet"
    child_json(lambda: TOOLS[tool](run, qrels), _imports(tool))


def child_json(work: Callable[[], dict], modules: tuple[str, ...]) -> None:
    """Import ``modules``, run ``work``; print the times, peak RSS and means as JSON."""
    import importlib

    start = time.perf_counter()
    for module in modules:
        importlib.import_module(module)
    imported = time.perf_counter()
    means = work()
    end = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB on Linux
    print(json.dumps({"seconds": end - start, "work": end - imported, "peak_mib": peak,
                      "means": means}))


# ---------------------------------------------------------------- parent side
def _run_child(tool: str, size: str, timeout: float, script: str = __file__) -> dict | None:
    """One fresh process of ``script --child tool size`` (this file's tools by default;
    ``recsys.py`` passes its own): its JSON, ``{"timeout": ...}``, or ``None`` when it
    failed."""
    try:
        out = subprocess.run(
            [sys.executable, script, "--child", tool, size],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    except subprocess.CalledProcessError as exc:
        print(f"  {tool}: failed\n{exc.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(tools: list[str], size: str, repeat: int, timeout: float,
            script: str = __file__) -> dict[str, dict | None]:
    """Medians over ``repeat`` rounds, each round running every tool once in turn.

    Round robin rather than one tool's runs back to back: a machine that slows down
    for a minute (a noisy neighbour) then slows every tool a little, not one tool's
    every run, so the ratios stay fair. Each round starts one tool further on, so the
    first slot of a round (after the previous round's last tool) is not always the
    same tool's; within a round the order is the same. A tool that fails or times
    out is not run again (its earlier rounds are dropped; stderr says which round).
    """
    runs: dict[str, list[dict]] = {tool: [] for tool in tools}
    out: dict[str, dict | None] = {}
    for round_ in range(repeat):
        start = round_ % len(tools)
        for tool in tools[start:] + tools[:start]:
            if tool in out:
                continue  # failed or timed out in an earlier round
            res = _run_child(tool, size, timeout, script)
            if res is None or "timeout" in res:
                out[tool] = res
                print(f"  {tool}: failed or timed out in round {round_ + 1}", file=sys.stderr)
            else:
                runs[tool].append(res)
                print(f"  round {round_ + 1} {size:>4} {tool:42} {res['seconds']:.2f}s",
                      file=sys.stderr, flush=True)
    for tool in tools:
        if tool not in out:
            done = runs[tool]
            out[tool] = {
                "seconds": statistics.median(r["seconds"] for r in done),
                "work": statistics.median(r["work"] for r in done),
                "peak_mib": statistics.median(r["peak_mib"] for r in done),
                "means": done[0]["means"],
            }
    return {tool: out[tool] for tool in tools}


def form_ratios(results: dict[str, dict | None]) -> list[str]:
    """Each form against evaluate() and pytrec_eval, and its five metrics against one."""
    def seconds(name: str) -> float | None:
        return (results.get(name) or {}).get("seconds")

    evaluate, trec = seconds("polars-rank evaluate"), seconds("pytrec_eval")
    out = ["| form | / evaluate() | / pytrec_eval | 5 metrics / ndcg@10 alone |",
           "|---|---|---|---|"]
    for form in FORMS:
        five = seconds(form)
        one = seconds(form + ", ndcg@10 only")
        if not five:
            continue
        cells = [f"{five / evaluate:.2f}x" if evaluate else "",
                 f"{five / trec:.2f}x" if trec else "", f"{five / one:.2f}x" if one else ""]
        out.append(f"| {form} | {' | '.join(cells)} |")
    return out


def agreement(results: dict[str, dict | None]) -> list[str]:
    """Means must agree with pytrec_eval where definitions match (ranx: ties differ).

    pytrec_eval compares scores as 32-bit floats (trec_eval 9), polars-rank's default as
    doubles (trec_eval 10): the data's scores (``np.round(x, 3)``) hold doubles one
    float32 apart (-0.691 and -0.6910000000000001), ordered differently. So
    ``ties=trec_eval9`` must agree to 1e-9, the trec_eval 10 order to 1e-3.
    """
    notes = []
    ref = (results.get("pytrec_eval") or {}).get("means")
    if not ref:
        return ["no pytrec_eval result to compare with"]
    for tool, res in results.items():
        if not res or not res.get("means") or tool == "pytrec_eval":
            continue
        for metric, value in res["means"].items():
            nine = "ties=trec_eval9" in tool
            if metric == "mrr@10" or metric not in ref or ("ties=" in tool and not nine) \
                    or "by=" in tool:
                continue  # pytrec_eval's recip_rank has no cutoff; other tie orders
            ten = tool.startswith("polars-rank") and not nine
            tol = 1e-3 if ten or tool.startswith(("ranx", "ir_measures")) else 1e-9
            ok = abs(value - ref[metric]) <= tol
            if not ok:
                notes.append(f"{tool} {metric}: {value:.6f} vs pytrec_eval {ref[metric]:.6f}")
    return notes


def byte_compile() -> None:
    """Compile polars-rank's modules to bytecode first, as ``pip install`` does.

    An editable install on a machine that sets PYTHONDONTWRITEBYTECODE (as the
    benchmark machine does) would compile every module again in every fresh process
    (``evaluate()`` at 1M rows: 0.466 s against 0.384 s from bytecode, medians of 7),
    where the other tools, installed wheels, import bytecode.
    """
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("polars_rank")
    if spec is not None and spec.origin is not None:
        compileall.compile_dir(Path(spec.origin).parent, quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", default=["1m"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=180)
    parser.add_argument("--tools", nargs="*", default=list(TOOLS))
    parser.add_argument("--child", nargs=2, metavar=("TOOL", "SIZE"))
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md",
                        help="the markdown file to write (a focused run: not RESULTS.md)")
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    import polars as pl

    byte_compile()
    lines = [
        f"# Benchmark results ({date.today()})",
        "",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
        f"{__import__('os').cpu_count()} cores; Python {platform.python_version()}, "
        f"polars {pl.__version__}. Medians of {args.repeat} rounds, each running every "
        "tool once in a fresh process, in turn (each round starting one tool further "
        "on). End to end from Parquet to per-query "
        "values and means of ndcg@10 (linear), map, mrr@10, p@10, recall@100, including "
        "the imports (polars-rank's byte-compiled first, as pip does); \"after imports\": "
        "the same runs from after `import polars` and the tool's own import (what a "
        "session that has them imported waits). Ratio = time / pytrec_eval's time.",
        "",
    ]
    for size in args.sizes:
        # beyond RAM: only the bucketed path (the in-memory tools need tens of GB)
        tools = [LOW_MEMORY] if size in BEYOND_RAM else args.tools
        # one untimed run first: the first fresh process of a size (caches cold
        # after the previous size) came out ~10% slower than the next ones; not worth
        # another minute beyond RAM
        if any(t in FUSE_TOOLS for t in tools):
            fusion_files(size)  # written once, outside the timing
        if size not in BEYOND_RAM:
            _run_child(tools[0], size, args.timeout)
        results = measure(tools, size, args.repeat, args.timeout)
        for tool, res in results.items():
            shown = (
                "timeout"
                if res and "timeout" in res
                else "failed"
                if res is None
                else f"{res['seconds']:.2f}s ({res['work']:.2f}s after imports) "
                f"{res['peak_mib']:.0f} MiB"
            )
            print(f"{size:>4} {tool:42} {shown}", flush=True)
        base = results.get("pytrec_eval") or {}
        warm = (results.get("ranx (warm)") or {}).get("seconds")
        lines += [
            f"## {size}",
            "",
            "| tool | seconds | after imports | peak RSS (MiB) | ratio to pytrec_eval "
            "| ratio after imports | ratio to ranx (warm) |",
            "|---|---|---|---|---|---|---|",
        ]
        for tool, res in results.items():
            if res is None or "timeout" in res:
                shown = f"> {args.timeout:.0f}s" if res else "failed"
                lines.append(f"| {tool} | {shown} | | | | | |")
                continue
            ratio = f"{res['seconds'] / base['seconds']:.2f}x" if base.get("seconds") else ""
            work = f"{res['work'] / base['work']:.2f}x" if base.get("work") else ""
            to_warm = f"{res['seconds'] / warm:.2f}x" if warm else ""
            lines.append(f"| {tool} | {res['seconds']:.2f} | {res['work']:.2f} "
                         f"| {res['peak_mib']:.0f} | {ratio} | {work} | {to_warm} |")
        if any(t in results for t in FUSE_TOOLS):
            lines += ["", *fusion_lines(results)]
        lines += ["", *form_ratios(results)]
        ours, theirs = (results.get(n) or {} for n in (GROUPED_OURS, GROUPED_TREC))
        if ours.get("seconds") and theirs.get("seconds"):
            lines += ["", f"Run grouped by query: polars-rank evaluate / pytrec_eval: "
                          f"{ours['seconds'] / theirs['seconds']:.2f}x"]
        notes = agreement(results)
        lines += [
            "",
            "Agreement with pytrec_eval: "
            + ("all means agree." if not notes else "; ".join(notes)),
            "",
        ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
