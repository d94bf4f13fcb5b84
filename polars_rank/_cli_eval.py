r"""``polars-rank eval``: TREC files in, trec_eval's measures and output out.

The command line speaks trec_eval's dialect (``-m P.5,10``, ``-m official``, ``-q``,
``-c``, ``-l``, ``-M``, ``-n``; ``rbp`` is trec_eval 10's; ``--dialect`` picks another
tool's, :data:`polars_rank.registry.DIALECTS`) and, for one run, prints
trec_eval's own lines (``%-22s\t%s\t%6.4f``, counts as integers), so its output can
be diffed against trec_eval's. polars-rank metric strings (``ndcg@10``) mix in.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import polars as pl

from polars_rank import _trec_measures as trec
from polars_rank._evaluation import evaluate
from polars_rank._summaries import summarize
from polars_rank.io import scan_qrels, scan_run
from polars_rank.registry import Metric, parse_metric

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

__all__ = ["Asked", "asked", "evaluate_files", "print_trec_eval"]

_META = ("runid", "num_q")  # trec_eval's measures of a run, not of its queries (summary only)


class Asked:
    """The measures asked: printed names, their metrics, and what was left out."""

    def __init__(self, specs: Sequence[str], level: int | None,
                 dialect: str = "trec_eval") -> None:
        self.names: list[str] = []
        self.metrics: dict[str, Metric] = {}
        self.skipped: list[str] = []
        for spec in specs:
            try:
                expanded = trec.expand(spec)
            except ValueError as exc:
                self.skipped.append(str(exc))
                continue
            for name in expanded if expanded is not None else [spec]:
                measure = trec.printed(name) if expanded is not None else None
                if name in self.names:
                    continue
                if measure in trec.UNSUPPORTED:
                    if measure not in self.skipped:
                        self.skipped.append(measure)
                    continue
                self.names.append(name)
                if name not in _META:
                    self.metrics[name] = _with_level(parse_metric(name, dialect), level)
        rank = {m: i for i, m in enumerate(trec.ORDER)}
        last = len(rank)
        # trec_eval's measures in its order; polars-rank strings after them, as asked
        self.names.sort(key=lambda n: rank.get(trec.printed(n), last))

    def unique(self) -> list[Metric]:
        """The distinct metrics to evaluate (two spellings may name one)."""
        return list(dict.fromkeys(self.metrics.values()))


def _with_level(metric: Metric, level: int | None) -> Metric:
    """trec_eval's ``-l``: the relevance threshold of every binary measure not given one.

    Not a gain threshold (ndcg's, ranx's ``-l``; its default is None): trec_eval's
    ndcg ignores ``-l``.
    """
    option = metric.definition.option("threshold")
    if level is None or option is None or option.default is None:
        return metric
    if "threshold" in metric.options:
        return metric
    return Metric(metric.definition, metric.k, {**metric.options, "threshold": level})


def asked(specs: Sequence[str] | None, level: int | None = None,
          dialect: str = "trec_eval") -> Asked:
    """Parse the ``-m`` arguments (default: trec_eval's ``official`` set) in ``dialect``."""
    return Asked(list(specs) if specs else ["official"], level, dialect)


def _top(run: pl.LazyFrame, max_ret: int) -> pl.LazyFrame:
    """trec_eval's ``-M``: each query's first ``max_ret`` documents in trec_eval's order."""
    order = run.sort(["qid", pl.col("score").cast(pl.Float32), "docid"],
                     descending=[False, True, True], nulls_last=True)
    return order.filter(pl.int_range(pl.len()).over("qid") < max_ret)


def _per_query(path: Path, qrels: pl.LazyFrame, a: Asked, *, missing: str, ties: str,
               memory: str, max_ret: int | None) -> pl.DataFrame:
    """Per-query values, a column per printed name, sorted by query."""
    run = scan_run(path)
    if max_ret is not None:
        run = _top(run, max_ret)
    metrics = a.unique()
    per = evaluate(run, qrels, metrics, per_query=True, missing=missing,  # type: ignore[arg-type]
                   ties=ties, memory=memory).collect()  # type: ignore[arg-type]
    column = {m: str(m) for m in metrics}
    per = per.select("qid", *(pl.col(column[m]).alias(n) for n, m in a.metrics.items()))
    return per.sort("qid")


def _summary(per: pl.DataFrame, a: Asked) -> pl.DataFrame:
    return per.select(pl.lit("all").alias("qid"), *(
        summarize(pl.col(n), m.definition.over_queries).alias(n) for n, m in a.metrics.items()))


def evaluate_files(qrels: Path, runs: Sequence[Path], names: Sequence[str], a: Asked, *,
                   per_query: bool = False, missing: str = "skip", ties: str = "trec_eval",
                   memory: str = "high", max_ret: int | None = None) -> pl.DataFrame:
    """Long results: ``metric, qid`` (``all`` for the summary), one column per run."""
    judgments = scan_qrels(qrels)
    merged: pl.DataFrame | None = None
    queries: dict[str, set[str]] = {}  # each run's evaluated queries
    for name, path in zip(names, runs, strict=True):
        per = _per_query(path, judgments, a, missing=missing, ties=ties, memory=memory,
                         max_ret=max_ret)
        queries[name] = set(per["qid"])
        rows = pl.concat([per, _summary(per, a)]) if per_query else _summary(per, a)
        long = rows.unpivot(index="qid", variable_name="metric", value_name=name)
        merged = long if merged is None else merged.join(long, on=["metric", "qid"],
                                                         how="full", coalesce=True)
    assert merged is not None  # runs is non-empty (argparse nargs="+")
    if len({frozenset(q) for q in queries.values()}) > 1:
        counts = ", ".join(f"{n}: {len(q)}" for n, q in queries.items())
        print(f"polars-rank: note: the runs were evaluated over different queries ({counts}); "
              "each mean is over its run's own queries (-c scores absent queries 0)",
              file=sys.stderr)
    order = {m: i for i, m in enumerate(a.metrics)}
    return (
        merged.with_columns(
            pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("__m"),
            (pl.col("qid") == "all").alias("__all"),
        )
        .sort("__m", "__all", "qid")
        .drop("__m", "__all")
        .select("metric", "qid", pl.exclude("metric", "qid"))
    )


def _line(name: str, qid: str, value: float | str | None, a: Asked) -> str:
    """One trec_eval line: a count (a metric summed over queries) as an integer."""
    metric = a.metrics.get(name)
    if isinstance(value, str):
        text = value
    elif value is None:
        text = ""
    elif name == "num_q" or (metric is not None and metric.definition.over_queries == "sum"):
        text = str(round(value))
    else:
        text = f"{value:6.4f}"
    return f"{name:<22}\t{qid}\t{text}"


def _per_query_line(metric: Metric) -> bool:
    """Whether trec_eval prints a measure per query: not its geometric means.

    It keeps their logs per query (meas_avg.c:68-87) and prints only the summary.
    """
    return metric.definition.over_queries != "geometric"


def print_trec_eval(qrels: Path, run: Path, a: Asked, *, per_query: bool = False,
                    summary: bool = True, missing: str = "skip", ties: str = "trec_eval",
                    memory: str = "high", max_ret: int | None = None) -> None:
    """One run, printed exactly as trec_eval prints it."""
    per = _per_query(run, scan_qrels(qrels), a, missing=missing, ties=ties, memory=memory,
                     max_ret=max_ret)
    lines = []
    if per_query:
        shown = [n for n in a.names if n in a.metrics and _per_query_line(a.metrics[n])]
        for row in per.iter_rows(named=True):
            lines += [_line(n, row["qid"], row[n], a) for n in shown]
    if summary:
        means = _summary(per, a).row(0, named=True)
        meta: dict[str, float | str] = {"num_q": float(per.height)}
        if "runid" in a.names:  # the tag of the run's last line, as trec_eval
            tag = scan_run(run).select(pl.col("tag").last()).collect().item()
            meta["runid"] = "" if tag is None else str(tag)
        lines += [_line(n, "all", meta[n] if n in meta else means[n], a) for n in a.names]
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
