"""Scale without a switch (issue 38, item 5): ``evaluate()``'s default against both
``memory=`` paths, and the lazy ETL forms on the streaming engine, side by side.

Each variant runs in a fresh process (``run.py``'s ``measure``: round after round,
every variant once in turn), end to end from the Parquet files of ``generate.py``,
five metrics (ndcg@10 linear, map, mrr@10, p@10, recall@100) for ``evaluate()`` and
two (ndcg@10, map) for the ETL forms, as the issue's measurements; peak RSS is the
process's maximum resident set (``getrusage``, what ``/usr/bin/time -v`` reports).

    python benches/generate.py 10m && python benches/generate.py 50m
    python benches/scale.py 10m 50m [--repeat 3] [--tools ...] [--out FILE] [--interleave]

``--interleave`` runs every (variant, size) in turn within each round, so that the
ratio of the 50M time to the 10M time is measured under the same load.

The ETL forms:

- ``ETL join + group_by``: the card's form, ``scan_parquet(run).join(scan_parquet(qrels),
  how="left").group_by("qid").agg(ndcg, map)`` collected with ``engine="streaming"``;
- ``ETL join + query=``: the same join, ``select(ndcg(query=), map(query=))``;
- ``ETL in query buckets``: ``pr.in_buckets`` (the documented form beyond memory):
  the joined frame written once into hash buckets of queries, each bucket's
  ``group_by("qid").agg`` collected on its own and the per-query values concatenated.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import DATA, OURS, byte_compile, child_json, measure  # noqa: E402

NAMES = ["ndcg@10", "map", "mrr@10", "p@10", "recall@100"]


def evaluate(run: Path, qrels: Path, memory: str | None) -> dict:
    import polars as pl

    import polars_rank as pr

    kwargs = {} if memory is None else {"memory": memory}
    means = pr.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), OURS, **kwargs)
    return dict(zip(NAMES, means.collect().row(0), strict=True))


def _etl_metrics(query: str | None = None) -> list:
    import polars_rank as pr

    extra = {} if query is None else {"query": query}
    return [pr.ndcg("rel", 10, by="score", gain="linear", **extra).alias("ndcg@10"),
            pr.map("rel", by="score", **extra).alias("map")]


def _joined(run: Path, qrels: Path):
    import polars as pl

    return pl.scan_parquet(run).join(pl.scan_parquet(qrels), on=["qid", "docid"], how="left")


def etl_group_by(run: Path, qrels: Path) -> dict:
    import polars as pl

    per = _joined(run, qrels).group_by("qid").agg(_etl_metrics())
    return per.select(pl.exclude("qid").mean()).collect(engine="streaming").row(0, named=True)


def etl_query(run: Path, qrels: Path) -> dict:
    return _joined(run, qrels).select(_etl_metrics("qid")).collect(
        engine="streaming").row(0, named=True)


def etl_buckets(run: Path, qrels: Path) -> dict:
    import polars as pl

    import polars_rank as pr

    per = pr.in_buckets(_joined(run, qrels),
                        lambda part: part.group_by("qid").agg(_etl_metrics()))
    return per.select(pl.exclude("qid").mean()).row(0, named=True)


def floor_sort_group(run: Path, qrels: Path) -> dict:
    """Plain Polars: read, sort every query's scores (no join, no metric)."""
    import polars as pl

    pl.scan_parquet(run).group_by("qid").agg(
        pl.col("docid").sort_by("score", descending=True).first()).collect()
    return {}


TOOLS = {
    "evaluate (default)": lambda r, q: evaluate(r, q, None),
    'evaluate, memory="high"': lambda r, q: evaluate(r, q, "high"),
    'evaluate, memory="low"': lambda r, q: evaluate(r, q, "low"),
    "ETL join + group_by (streaming)": etl_group_by,
    "ETL join + query= (streaming)": etl_query,
    "ETL in query buckets": etl_buckets,
    "floor: read + per-query sort": floor_sort_group,
}


def child(tool: str, size: str) -> None:
    if "@" in tool:  # --interleave: the size travels with the tool
        tool, size = tool.rsplit("@", 1)
    run, qrels = DATA / f"run_{size}.parquet", DATA / f"qrels_{size}.parquet"
    modules = ("polars",) if tool.startswith("floor") else ("polars", "polars_rank")
    child_json(lambda: TOOLS[tool](run, qrels), modules)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sizes", nargs="*", default=["10m"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--tools", nargs="*", default=list(TOOLS))
    parser.add_argument("--child", nargs=2, metavar=("TOOL", "SIZE"))
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--interleave", action="store_true",
                        help="every (variant, size) in turn in each round, so that the "
                             "ratio between sizes is measured under the same load")
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    byte_compile()
    lines = [f"# Scale without a switch ({date.today()})", ""]
    if args.interleave:
        pairs = [f"{tool}@{size}" for size in args.sizes for tool in args.tools]
        both = measure(pairs, "", args.repeat, args.timeout, script=__file__)
        results = {size: {tool: both[f"{tool}@{size}"] for tool in args.tools}
                   for size in args.sizes}
    else:
        results = {size: measure(args.tools, size, args.repeat, args.timeout,
                                 script=__file__) for size in args.sizes}
    lines += ["| variant | " + " | ".join(f"{s} s | {s} MiB" for s in args.sizes)
              + (" | time ratio |" if len(args.sizes) == 2 else " |"),
              "|---|" + "---|---|" * len(args.sizes) + ("---|" if len(args.sizes) == 2 else "")]
    for tool in args.tools:
        cells, secs = [], []
        for size in args.sizes:
            res = results[size].get(tool)
            if not res or "timeout" in res:
                cells += ["failed" if res is None else "timeout", ""]
                secs.append(None)
            else:
                cells += [f"{res['seconds']:.2f}", f"{res['peak_mib']:.0f}"]
                secs.append(res["seconds"])
        ratio = ""
        if len(secs) == 2 and all(secs):
            ratio = f" {secs[1] / secs[0]:.2f}x |"
        lines.append(f"| {tool} | " + " | ".join(cells) + " |" + ratio)
    for size in args.sizes:
        lines += ["", f"{size} means: " + "; ".join(
            f"{tool}: {res['means']}" for tool, res in results[size].items()
            if res and res.get("means"))]
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
