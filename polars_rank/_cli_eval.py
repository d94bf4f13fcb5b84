r"""``polars-rank eval``: TREC files in, trec_eval's measures and output out.

The command line speaks trec_eval's dialect (``-m P.5,10``, ``-m official``, ``-q``,
``-c``, ``-l``, ``-M``, ``-n``; ``rbp`` is trec_eval 10's; ``--dialect`` picks another
tool's, :data:`polars_rank.registry.DIALECTS`) and, for one run, prints
trec_eval's own lines (``%-22s\t%s\t%6.4f``, counts as integers), so its output can
be diffed against trec_eval's. polars-rank metric strings (``ndcg@10``) mix in.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING

import polars as pl

from polars_rank import _trec_measures as trec
from polars_rank._evaluation import evaluate
from polars_rank._sort_keys import trec_score
from polars_rank._summaries import summarize
from polars_rank._unjudged import HIGH, LOW
from polars_rank.errors import TrecFormatError
from polars_rank.io import last_tag, read_qrels, read_run
from polars_rank.registry import Convention, Metric, convention, parse_metric

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

__all__ = ["Asked", "asked", "evaluate_files", "print_trec_eval"]

_META = ("runid", "num_q")  # trec_eval's measures of a run, not of its queries (summary only)


class Asked:
    """The measures asked: printed names, their metrics, and what was left out."""

    def __init__(self, specs: Sequence[str], level: int | None,
                 dialect: str = "trec_eval", num_docs: int | None = None) -> None:
        self.names: list[str] = []
        self.metrics: dict[str, Metric] = {}
        self.skipped: list[str] = []
        self.ends: dict[str, str] = {}
        """``--bounds``: a printed name -> the suffix of evaluate()'s column it reads."""
        given = trec.first_parameters(specs)
        # a set's measures one by one: one that cannot be parsed leaves out only itself
        for spec in (m for s in specs for m in trec.SETS.get(s, (s,))):
            try:
                expanded = trec.expand(spec, given)
            except ValueError as exc:
                if str(exc) not in self.skipped:
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
                    metric = _with_level(parse_metric(trec.metric_string(name), dialect), level)
                    self.metrics[name] = _with_num_docs(metric, num_docs)
        rank = {m: i for i, m in enumerate(trec.ORDER)}
        last = len(rank)
        # trec_eval's measures in its order; polars-rank strings after them, as asked
        self.names.sort(key=lambda n: rank.get(trec.printed(n), last))

    def unique(self) -> list[Metric]:
        """The distinct metrics to evaluate (two spellings may name one)."""
        return list(dict.fromkeys(self.metrics.values()))

    def with_bounds(self) -> Asked:
        """``--bounds``: after each measure, ``<name>_low`` and ``<name>_high``.

        :func:`polars_rank.evaluate`'s ``bounds=True`` columns: the measure with the
        unjudged retrieved documents non-relevant and judged at the grade. A string
        per query (``relstring``) has none.
        """
        out = Asked([], None)
        out.skipped = self.skipped
        for name in self.names:
            out.names.append(name)
            metric = self.metrics.get(name)
            if metric is None:
                continue
            out.metrics[name] = metric
            if _is_text(metric):
                continue
            for end in (LOW, HIGH):
                out.names.append(f"{name}_{end}")
                out.metrics[f"{name}_{end}"] = metric
                out.ends[f"{name}_{end}"] = f"_{end}"
        return out


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


def _with_num_docs(metric: Metric, num_docs: int | None) -> Metric:
    """trec_eval's ``-N``: the collection size, which only ``utility`` reads (m_utility.c)."""
    if num_docs is None or metric.definition.option("num_docs") is None:
        return metric
    return Metric(metric.definition, metric.k, {**metric.options, "num_docs": num_docs})


def asked(specs: Sequence[str] | None, level: int | None = None,
          dialect: str = "trec_eval", num_docs: int | None = None) -> Asked:
    """Parse the ``-m`` arguments (default: trec_eval's ``official`` set) in ``dialect``."""
    return Asked(list(specs) if specs else ["official"], level, dialect, num_docs)


def _top(run: pl.LazyFrame, max_ret: int, ties: str) -> pl.LazyFrame:
    """trec_eval's ``-M``: each query's first ``max_ret`` documents in trec_eval's order.

    Scores compared as trec_eval 10 does, as 32-bit floats under ``ties="trec_eval9"``.
    """
    order = run.sort(["qid", trec_score(pl.col("score"), ties), "docid"],
                     descending=[False, True, True], nulls_last=True)
    return order.filter(pl.int_range(pl.len()).over("qid") < max_ret)


def _per_query(path: Path, qrels: pl.LazyFrame, a: Asked, *, chosen: Convention,
               memory: str, max_ret: int | None, judged_only: bool = False,
               unjudged: str = "low", unjudged_grade: float | None = None) -> pl.DataFrame:
    """Per-query values, a column per printed name, sorted by query.

    ``chosen``: the dialect with ``--ties`` and ``-c`` (each metric's tie policy, the
    queries counted). ``judged_only``: trec_eval's ``-J``, after ``-M`` (form_res_rels.c
    cuts the list at ``-M`` before it removes the unjudged documents). ``unjudged``,
    ``unjudged_grade``: :func:`polars_rank.evaluate`'s (``--unjudged``); ``a.ends``
    (``--bounds``): its ``bounds=True``.
    """
    run = read_run(path).lazy()  # read once: evaluate() reads a lazy input twice
    if max_ret is not None:
        run = _top(run, max_ret, chosen.ties)
    metrics = a.unique()
    per = evaluate(run, qrels, metrics, per_query=True,
                   missing=chosen.given_missing,  # type: ignore[arg-type]
                   ties=chosen.given_ties, dialect=chosen.dialect.name,  # type: ignore[arg-type]
                   memory=memory, judged_only=judged_only,  # type: ignore[arg-type]
                   unjudged=unjudged, unjudged_grade=unjudged_grade,  # type: ignore[arg-type]
                   bounds=bool(a.ends)).collect()
    column = {m: str(m) for m in metrics}
    per = per.select("qid", *(pl.col(column[m] + a.ends.get(n, "")).alias(n)
                              for n, m in a.metrics.items()))
    return per.sort("qid")


def _summary(per: pl.DataFrame, a: Asked, complete: pl.LazyFrame | None = None) -> pl.DataFrame:
    """The ``all`` row: each measure over the queries, added in trec_eval's order (by qid).

    ``complete``: the qrels, under ``-c``. trec_eval's ``num_rel`` then counts every
    qrels line labelled above 0 instead of adding the queries' values
    (m_num_rel.c, te_calc_avg_num_rel), so ``-l``, ``-M`` and ``-J`` do not change it.
    """
    summaries = {n: summarize(pl.col(n), m.definition.over_queries, in_order=True)
                 for n, m in a.metrics.items()}
    if complete is not None and "num_rel" in summaries:
        lines = complete.select((pl.col("rel") > 0).sum()).collect().item()
        summaries["num_rel"] = pl.lit(float(lines))
    return per.sort("qid").select(pl.lit("all").alias("qid"),
                                  *(e.alias(n) for n, e in summaries.items()))


def _judgments(qrels: Path, a: Asked) -> pl.LazyFrame:
    """The qrels, with their subtopic field when an intent-aware metric is asked.

    ndeval's qrels are TREC's 4 fields with the subtopic second; 3-field qrels give
    those metrics one subtopic per query (evaluate() warns).
    """
    if any(m.definition.subtopics for m in a.metrics.values()):
        try:
            return read_qrels(qrels, subtopics=True).lazy()
        except TrecFormatError:  # not 4 fields a line (or malformed: raised again below)
            pass
    return read_qrels(qrels).lazy()


def _is_text(metric: Metric) -> bool:
    """A string per query (relstring): printed per query only, never summarised."""
    return metric.definition.over_queries == "none"


def _complete(judgments: pl.LazyFrame, chosen: Convention) -> pl.LazyFrame | None:
    """The qrels, when the summary counts them as ``trec_eval -c`` does (:func:`_summary`).

    Not in a dialect whose absent queries score its own values (ir_measures' NumRel:
    0 there, so its sum is over the retrieved queries).
    """
    return judgments if chosen.missing == "zero" and not chosen.dialect.absent else None


def evaluate_files(qrels: Path, runs: Sequence[Path], names: Sequence[str], a: Asked, *,
                   per_query: bool = False, missing: str | None = None,
                   ties: str | None = None, dialect: str = "trec_eval",
                   memory: str = "high", max_ret: int | None = None,
                   judged_only: bool = False, unjudged: str = "low",
                   unjudged_grade: float | None = None) -> pl.DataFrame:
    """Long results: ``metric, qid`` (``all`` for the summary), one column per run.

    ``missing`` and ``ties``: the dialect's unless given. Numbers only: a string per
    query (``relstring``) is left out, with a note when the queries are shown
    (``--format trec_eval`` prints it).
    """
    chosen = convention(dialect, ties=ties, missing=missing)
    judgments = _judgments(qrels, a)
    merged: pl.DataFrame | None = None
    queries: dict[str, set[str]] = {}  # each run's evaluated queries
    text = [n for n, m in a.metrics.items() if _is_text(m)]
    if text and per_query:
        print(f"polars-rank: note: {', '.join(text)} left out: strings are printed by "
              "--format trec_eval (one run)", file=sys.stderr)
    a = _numbers_only(a)
    for name, path in zip(names, runs, strict=True):
        per = _per_query(path, judgments, a, chosen=chosen, memory=memory,
                         max_ret=max_ret, judged_only=judged_only, unjudged=unjudged,
                         unjudged_grade=unjudged_grade)
        queries[name] = set(per["qid"])
        summary = _summary(per, a, _complete(judgments, chosen))
        rows = pl.concat([per, summary]) if per_query else summary
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


def _numbers_only(a: Asked) -> Asked:
    """``a`` without its string metrics."""
    out = Asked([], None)
    out.metrics = {n: m for n, m in a.metrics.items() if not _is_text(m)}
    out.names = [n for n in a.names if n not in a.metrics or n in out.metrics]
    out.skipped = a.skipped
    out.ends = a.ends
    return out


def _line(name: str, qid: str, value: float | str | None, a: Asked) -> str:
    """One trec_eval line: a count as an integer, a string quoted (m_relstring.c:103).

    A count is a metric summed over queries.
    """
    metric = a.metrics.get(name)
    if isinstance(value, str):
        text = f"'{value}'" if metric is not None and _is_text(metric) else value
    elif value is None:
        text = ""
    elif math.isnan(value):  # trec_eval's 0 / 0 (Rndcg without a positive gain), C's "-nan"
        text = "  -nan"
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
                    summary: bool = True, missing: str | None = None,
                    ties: str | None = None, dialect: str = "trec_eval",
                    memory: str = "high", max_ret: int | None = None,
                    judged_only: bool = False, unjudged: str = "low",
                    unjudged_grade: float | None = None) -> None:
    """One run, printed exactly as trec_eval prints it.

    ``missing`` and ``ties``: the dialect's unless given.
    """
    chosen = convention(dialect, ties=ties, missing=missing)
    judgments = _judgments(qrels, a)
    per = _per_query(run, judgments, a, chosen=chosen, memory=memory,
                     max_ret=max_ret, judged_only=judged_only, unjudged=unjudged,
                     unjudged_grade=unjudged_grade)
    lines = []
    if per_query:
        shown = [n for n in a.names if n in a.metrics and _per_query_line(a.metrics[n])]
        for row in per.iter_rows(named=True):
            lines += [_line(n, row["qid"], row[n], a) for n in shown]
    if summary:
        means = _summary(per, a, _complete(judgments, chosen)).row(0, named=True)
        meta: dict[str, float | str] = {"num_q": float(per.height)}
        if "runid" in a.names:  # the tag of the run's last line, as trec_eval
            meta["runid"] = last_tag(run)
        lines += [_line(n, "all", meta[n] if n in meta else means[n], a) for n in a.names
                  if n not in a.metrics or not _is_text(a.metrics[n])]
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
