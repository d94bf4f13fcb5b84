r"""``polars-rank eval``: TREC files in, trec_eval's measures and output out.

The command line speaks trec_eval's dialect (``-m P.5,10``, ``-m official``, ``-q``,
``-c``, ``-l``, ``-M``, ``-n``, ``-J``, ``-D``; ``rbp`` is trec_eval 10's;
``--dialect`` picks another tool's, :data:`polars_rank.registry.DIALECTS`) and, for
one run, prints trec_eval's own lines (``%-22s\t%s\t%6.4f``, counts as integers,
``-nan`` where trec_eval divides 0 by 0), so its output can be diffed against
trec_eval's. polars-rank metric strings (``ndcg@10``) mix in. Where trec_eval 10
stops (a judged query absent from the run, no query to evaluate), :class:`Stop` says
so with its message and exit status.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING

import polars as pl

# what was asked, and the stops (eval_settings), and -Z (zscore_files) are in their own
# modules, where the other subcommands import them from
from polars_rank._cli.eval_settings import (
    IDS,
    Asked,
    Settings,
    is_text,
    shown,
    stop_at,
    stop_twice,
    to_ids,
    with_level,
    write_lines,
)
from polars_rank._cli.zscore_files import standardized_values, zscore_reference
from polars_rank._engine.sort_keys import trec_score
from polars_rank._engine.summaries import GEOMETRIC_FLOOR, summarize
from polars_rank._evaluation import evaluate
from polars_rank._evaluation import zscores as zscores
from polars_rank.errors import DuplicateRowsError, TrecFormatError
from polars_rank.io import last_tag, read_qrels, read_run
from polars_rank.registry import Convention, Metric, parse_metric

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

__all__ = ["evaluate_files", "print_trec_eval"]

_EMPTY = "__polars_rank_nothing_retrieved"
_R = "__polars_rank_relevant"
_NO_DOCUMENT = " "
"""The document of each list under ``-M 0``: removed under ``-J`` as unjudged (no
qrels line can hold a blank id), leaving the empty list trec_eval evaluates."""


def _top(run: pl.LazyFrame, max_ret: int, ties: str) -> pl.LazyFrame:
    """trec_eval's ``-M``: each query's first ``max_ret`` documents in trec_eval's order.

    Scores compared as trec_eval 10 does, as 32-bit floats under ``ties="trec_eval9"``.
    """
    order = run.sort(["qid", trec_score(pl.col("score"), ties), "docid"],
                     descending=[False, True, True], nulls_last=True)
    return order.filter(pl.int_range(pl.len()).over("qid") < max_ret)


def _lists(path: Path, qrels: pl.LazyFrame, s: Settings,
           queries: pl.LazyFrame | None = None) -> tuple[pl.LazyFrame, pl.LazyFrame, bool]:
    """The run and the qrels evaluate() reads, and its ``judged_only``.

    ``-D level.qid`` keeps one query. ``-M n`` keeps each list's first n documents;
    ``-M 0`` none, yet trec_eval still evaluates the queries (an empty list each), so
    each list becomes one blank document that ``judged_only`` removes. ``queries``:
    the run's queries kept (a ``qid`` column), when not all.
    """
    run = read_run(path, encoding=IDS).lazy()  # read once: evaluate() reads it twice
    if queries is not None:
        run = run.join(queries, on="qid", how="semi")
    if s.debug_query is not None:
        run = run.filter(pl.col("qid") == s.debug_query)
        qrels = qrels.filter(pl.col("qid") == s.debug_query)
    if s.max_ret == 0:
        queries = run.select("qid")
        if s.zero:  # trec_eval -c: every judged query, its list empty too
            queries = pl.concat([queries, qrels.select("qid")])
        run = queries.unique().with_columns(pl.lit(_NO_DOCUMENT).alias("docid"),
                                            pl.lit(0.0).alias("score"))
        return run, qrels, True
    if s.max_ret is not None:
        run = _top(run, s.max_ret, s.chosen.ties)
    return run, qrels, s.judged_only


def _per_query(path: Path, qrels: pl.LazyFrame, a: Asked, s: Settings, *,
               zero_over_zero: bool = False,
               queries: pl.LazyFrame | None = None) -> pl.DataFrame:
    """Per-query values, a column per printed name, sorted by query.

    ``s.chosen``: the dialect with ``--ties`` and ``-c`` (each metric's tie policy, the
    queries counted). ``s.judged_only``: trec_eval's ``-J``, after ``-M`` (form_res_rels.c
    cuts the list at ``-M`` before it removes the unjudged documents). ``s.unjudged``,
    ``s.unjudged_grade``: :func:`polars_rank.evaluate`'s (``--unjudged``); ``a.ends``
    (``--bounds``): its ``bounds=True``. ``zero_over_zero``: NaN where trec_eval
    divides 0 by 0 (:meth:`Asked.zero_over_zero`). ``queries``: :func:`_lists`'.
    """
    run, judged, judged_only = _lists(path, qrels, s, queries)
    levels = a.zero_over_zero() if zero_over_zero and judged_only else {}
    hidden: dict[str, Metric] = {}  # read here, not printed
    if levels or not a.metrics:  # with only runid and num_q: the queries evaluated
        # (judgment groups are read by their own measures only)
        hidden[_EMPTY] = parse_metric("map_avgjg" if s.rel_info_format == "qrels_jg"
                                      else "num_ret")
    if levels:
        hidden[_R] = with_level(parse_metric("num_rel", a.dialect), a.level)
    metrics = list(dict.fromkeys([*a.unique(), *hidden.values()]))
    per = evaluate(run, judged, metrics, per_query=True,
                   missing=s.chosen.given_missing,  # type: ignore[arg-type]
                   ties=s.chosen.given_ties,  # type: ignore[arg-type]
                   dialect=s.chosen.dialect.name,
                   memory=s.memory, judged_only=judged_only,  # type: ignore[arg-type]
                   unjudged=s.unjudged, unjudged_grade=s.unjudged_grade,  # type: ignore[arg-type]
                   bounds=bool(a.ends)).collect()
    per = per.select("qid", *(pl.col(str(m) + a.ends.get(n, "")).alias(n)
                              for n, m in (*a.metrics.items(), *hidden.items())))
    if levels:
        empty = pl.col(_EMPTY) == 0
        per = per.with_columns(
            pl.when(empty & pl.any_horizontal([x * pl.col(_R) < 0.5 for x in xs]))
            .then(float("nan")).otherwise(pl.col(n)).alias(n)
            for n, xs in levels.items()
        )
    return per.drop(*hidden).sort("qid")


def _absent(per: pl.DataFrame, qrels: pl.LazyFrame, s: Settings) -> str | None:
    """Without ``-c`` (``missing="error"``): the first judged query the run lacks.

    The first in trec_eval's order, the qrels' query ids sorted byte-wise; under
    ``-D level.qid`` only that query is looked at.
    """
    if not s.stop:
        return None
    if s.debug_query is not None:
        qrels = qrels.filter(pl.col("qid") == s.debug_query)
    absent: str | None = (qrels.select("qid").unique()
                          .join(per.lazy().select("qid"), on="qid", how="anti")
                          .select(pl.col("qid").min()).collect().item())
    return absent


def _twice(path: Path, qrels: pl.LazyFrame,
           s: Settings) -> tuple[str | None, tuple[str, str, str] | None]:
    """Where trec_eval stops in a run with a document twice: the query, and why.

    form_res_rels.c checks each query trec_eval evaluates, in turn (the judged
    queries, by id): its ranking after ``-M`` ("the run"), then its judgments ("the
    qrels"), and stops at the first with a document twice ("duplicate docs", then
    "Can't calculate measure", exit status 4). It never evaluates a run query without
    judgments, nor checks it; without ``-c`` it stops before, at a judged query the
    run lacks. Returns the query it stops at (None: it does not stop) and, for a
    document twice, (query, document, where).
    """
    run, judged, _ = _lists(path, qrels, s)
    queries = judged.select("qid").unique()
    absent = (queries.join(run.select("qid").unique(), on="qid", how="anti")
              .select(pl.col("qid").min()).collect().item()) if s.stop else None
    if absent is not None:
        queries = queries.filter(pl.col("qid") < absent)
    twice = pl.col("len") > 1
    found = pl.concat([
        frame.join(queries, on="qid", how="semi").group_by("qid", "docid").len()
        .filter(twice).with_columns(pl.lit(w).alias("w"))
        for w, frame in enumerate((run, judged))
    ]).sort("qid", "w", "docid").head(1).collect()
    if found.is_empty():
        return absent, None
    q, d, w = found.select("qid", "docid", "w").row(0)
    return q, (q, d, ("the run", "the qrels")[w])


def _checked_per_query(path: Path, qrels: pl.LazyFrame, a: Asked, s: Settings, *,
                       zero_over_zero: bool = False
                       ) -> tuple[pl.DataFrame, tuple[str, str, str] | None]:
    """:func:`_per_query`, and the document twice trec_eval stops on (:func:`_twice`).

    Given a document twice, the values of the queries trec_eval evaluates before it
    stops (all, when the document is where trec_eval never looks).
    """
    try:
        return _per_query(path, qrels, a, s, zero_over_zero=zero_over_zero), None
    except DuplicateRowsError:
        limit, twice = _twice(path, qrels, s)
        before = qrels if limit is None else qrels.filter(pl.col("qid") < limit)
        return _per_query(path, before, a, s, zero_over_zero=zero_over_zero,
                          queries=before.select("qid").unique()), twice



def _complete(per: pl.DataFrame, qrels: pl.LazyFrame, s: Settings,
              a: Asked | None = None) -> pl.DataFrame:
    """The queries the ``all`` line averages over.

    Under ``-c -D level.qid`` trec_eval evaluates one query but divides by every judged
    query (meas_avg.c reads num_q_rels): the others count as 0 (a string: empty). Under
    ``-Z`` (``a``: the measures) they add nothing to the sums of z-scores but
    log(1e-5) to a geometric mean's (te_calc_avg_meas_s_gm).
    """
    if s.debug_query is None or not s.zero:
        return per
    floor = math.log(GEOMETRIC_FLOOR)
    logged = {n for n, m in a.metrics.items()
              if m.definition.over_queries == "geometric"} if a is not None else set()
    others = (qrels.select("qid").unique().filter(pl.col("qid") != s.debug_query)
              .collect().sort("qid"))
    zeros = others.with_columns(
        pl.lit("" if dtype == pl.String else floor if name in logged else 0.0)
        .cast(dtype).alias(name)
        for name, dtype in per.schema.items() if name != "qid")
    return pl.concat([per, zeros.select(per.columns)])


def _summary(per: pl.DataFrame, a: Asked, complete: pl.LazyFrame | None = None, *,
             standardized: bool = False) -> pl.DataFrame:
    """The ``all`` row: each measure over the queries, added in trec_eval's order (by qid).

    ``complete``: the qrels, under ``-c``. trec_eval's ``num_rel`` then counts every
    qrels line labelled above 0 instead of adding the queries' values
    (m_num_rel.c, te_calc_avg_num_rel), so ``-l``, ``-M`` and ``-J`` do not change it
    (nor ``-Z``). ``standardized``: ``per`` holds z-scores (``-Z``).
    """
    how = zscores.zscore_summary if standardized else summarize
    summaries = {n: how(pl.col(n), m.definition.over_queries, in_order=True)
                 for n, m in a.metrics.items()}
    if complete is not None and "num_rel" in summaries:
        lines = complete.select((pl.col("rel") > 0).sum()).collect().item()
        summaries["num_rel"] = pl.lit(float(lines))
    return per.sort("qid").select(pl.lit("all").alias("qid"),
                                  *(e.alias(n) for n, e in summaries.items()))


def _judgments(qrels: Path, a: Asked, s: Settings) -> pl.LazyFrame:
    """The qrels, with their subtopic field when an intent-aware metric is asked.

    ndeval's qrels are TREC's 4 fields with the subtopic second; 3-field qrels give
    those metrics one subtopic per query (evaluate() warns). ``-R qrels_jg``: the
    judgment group second.
    """
    if s.rel_info_format == "qrels_jg":
        return read_qrels(qrels, format="qrels_jg", encoding=IDS).lazy()
    if any(m.definition.subtopics for m in a.metrics.values()):
        try:
            return read_qrels(qrels, subtopics=True, encoding=IDS).lazy()
        except TrecFormatError:  # not 4 fields a line (or malformed: raised again below)
            pass
    return read_qrels(qrels, encoding=IDS).lazy()



def _counted(judgments: pl.LazyFrame, chosen: Convention) -> pl.LazyFrame | None:
    """The qrels, when the summary counts them as ``trec_eval -c`` does (:func:`_summary`).

    Not in a dialect whose absent queries score its own values (ir_measures' NumRel:
    0 there, so its sum is over the retrieved queries).
    """
    return judgments if chosen.missing == "zero" and not chosen.dialect.absent else None



def evaluate_files(qrels: Path, runs: Sequence[Path], names: Sequence[str], a: Asked,
                   s: Settings | None = None, *, per_query: bool = False) -> pl.DataFrame:
    """Long results: ``metric, qid`` (``all`` for the summary), one column per run.

    ``s``: the settings (default: trec_eval's dialect, no stop). Numbers only: a
    string per query (``relstring``) is left out, with a note when the queries are
    shown (``--format trec_eval`` prints it). Query ids as text (:func:`shown`); under
    ``-Z`` (``s.zscores``) the values are z-scores and the metrics named ``Z<name>``,
    as trec_eval prints them.
    """
    s = Settings() if s is None else s
    judgments = _judgments(qrels, a, s)
    merged: pl.DataFrame | None = None
    queries: dict[str, set[str]] = {}  # each run's evaluated queries
    text = [n for n, m in a.metrics.items() if is_text(m)]
    if text and per_query:
        print(f"polars-rank: note: {', '.join(text)} left out: strings are printed by "
              "--format trec_eval (one run)", file=sys.stderr)
    a = a.numbers_only()
    reference: pl.DataFrame | None = None
    for name, path in zip(names, runs, strict=True):
        per, twice = _checked_per_query(path, judgments, a, s)
        if s.zscores is not None:
            reference = zscore_reference(s) if reference is None else reference
            assert reference is not None  # s.zscores is set
            per = standardized_values(per, reference, a, s)
        stop_twice(twice, name if len(runs) > 1 else None)
        stop_at(_absent(per, judgments, s), per, name if len(runs) > 1 else None)
        queries[name] = set(per["qid"])
        z = reference is not None
        summary = _summary(_complete(per, judgments, s, a if z else None), a,
                           _counted(judgments, s.chosen), standardized=z)
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
    prefix = "Z" if reference is not None else ""
    texts = {q: shown(q) for q in merged["qid"].unique()}
    return (
        merged.with_columns(
            pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("__m"),
            (pl.col("qid") == "all").alias("__all"),
        )
        .sort("__m", "__all", "qid")
        .drop("__m", "__all")
        .with_columns(pl.concat_str(pl.lit(prefix), "metric").alias("metric"),
                      pl.col("qid").replace_strict(texts, return_dtype=pl.String))
        .select("metric", "qid", pl.exclude("metric", "qid"))
    )


def _line(name: str, qid: str, value: float | str | None, a: Asked, *,
          standardized: bool = False) -> str:
    r"""One trec_eval line: a count as an integer, a string quoted (m_relstring.c:103).

    A count is a metric summed over queries. ``standardized`` (``-Z``): a number
    printed ``Z%-22s\t%s\t%6.4f``, counts too (meas_print_single.c,
    meas_print_final.c); strings (runid, relstring) as without ``-Z``. ``qid`` and a
    string value as read (``IDS`` text), the name as given on the command line.
    """
    metric = a.metrics.get(name)
    count = name == "num_q" or (metric is not None and metric.definition.over_queries == "sum")
    if isinstance(value, str):
        text = f"'{value}'" if metric is not None and is_text(metric) else value
    elif value is None:
        text = ""
    elif math.isnan(value):  # trec_eval's 0 / 0 (Rndcg without a positive gain), C's "-nan"
        text = "  -nan"
    elif count and not standardized:
        text = str(round(value))
    else:
        text = f"{value:6.4f}"
    prefix = "Z" if standardized and not isinstance(value, str) else ""
    return f"{prefix}{to_ids(name):<22}\t{qid}\t{text}"


def _per_query_line(metric: Metric) -> bool:
    """Whether trec_eval prints a measure per query: not its geometric means.

    It keeps their logs per query (meas_avg.c:68-87) and prints only the summary.
    """
    return metric.definition.over_queries != "geometric"


def print_trec_eval(qrels: Path, run: Path, a: Asked, s: Settings | None = None, *,
                    per_query: bool = False, summary: bool = True) -> None:
    """One run, printed exactly as trec_eval prints it (its -nan included).

    When trec_eval stops on a judged query the run lacks, or on a document twice in a
    query's ranking or judgments (:func:`_twice`), the queries it printed before
    (``-q``, in its order) are printed, then :class:`Stop` is raised. Ids are
    printed as the bytes the files hold; under ``-Z`` (``s.zscores``) each value as
    its z-score (:mod:`polars_rank._evaluation.zscores`), as trec_eval prints it.
    """
    s = Settings() if s is None else s
    judgments = _judgments(qrels, a, s)
    per, twice = _checked_per_query(run, judgments, a, s, zero_over_zero=True)
    reference = zscore_reference(s)
    if reference is not None:
        per = standardized_values(per, reference, a, s)
    z = reference is not None
    absent = None if twice is not None else _absent(per, judgments, s)
    lines = []
    if per_query:
        printed = [n for n in a.names if n in a.metrics and _per_query_line(a.metrics[n])]
        evaluated = per if absent is None else per.filter(pl.col("qid") < absent)
        for row in evaluated.iter_rows(named=True):
            lines += [_line(n, row["qid"], row[n], a, standardized=z) for n in printed]
    if absent is None and twice is None and per.height and summary:
        complete = _complete(per, judgments, s, a if z else None)
        means = _summary(complete, a, _counted(judgments, s.chosen),
                         standardized=z).row(0, named=True)
        meta: dict[str, float | str] = {"num_q": float(complete.height)}
        if "runid" in a.names:  # the tag of the run's last line, as trec_eval
            meta["runid"] = last_tag(run, encoding=IDS)
        lines += [_line(n, "all", meta[n] if n in meta else means[n], a, standardized=z)
                  for n in a.names if n not in a.metrics or not is_text(a.metrics[n])]
    write_lines(lines)
    stop_twice(twice)
    stop_at(absent, per)
