r"""``polars-rank eval -R prefs`` and ``-R qrels_prefs``: trec_eval's preference measures.

The judgments file is read as :func:`polars_rank.read_qrels` reads ``format="prefs"``
or ``"qrels_prefs"``, each run evaluated by :func:`polars_rank.evaluate_prefs`, and one
run printed as trec_eval prints it: ``-q`` lines per query (in query id order, byte
order), then the ``all`` lines (``runid``, ``num_q``, the counts summed, the others
averaged), ``%ld`` for counts and ``%6.4f`` otherwise. ``-c``, ``-M``, ``-n`` and
``-D level.qid`` act as in trec_eval; ``-J``, ``-l`` and ``-N`` do not reach these
measures there, nor here. Ids are read byte for byte, as the rest of the command line
reads them (:data:`~polars_rank._cli.eval_settings.IDS`); ``-Z`` converts each value to its
z-score as trec_eval converts every measure's.

Where trec_eval cannot compute a measure it stops with exit status 4 ("Can't
calculate measure"): a qrels measure under ``-R prefs`` (its default, ``official``,
included), a preference measure under ``-R qrels``. So does the command line, with a
hint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._cli.eval_settings import IDS, Stop, readable, shown, write_lines
from polars_rank._cli.zscore_files import zscore_reference, zscored
from polars_rank._language import trec_measures as trec
from polars_rank.io import last_tag, read_qrels, read_run
from polars_rank.preferences import (
    PREFS_COUNTS,
    PREFS_MEASURES,
    PrefsDataError,
    evaluate_prefs,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from polars_rank._cli.eval_settings import Asked, Settings
    from polars_rank._engine.summaries import Summary

__all__ = ["PREFS_FORMATS", "evaluate_prefs_files", "print_prefs", "refuse"]

PREFS_FORMATS = ("prefs", "qrels_prefs")
"""trec_eval's ``-R`` values whose judgments are preferences."""

_META = ("runid", "num_q")
_HINT = ("preference judgments (-R prefs, -R qrels_prefs) give trec_eval's preference "
         "measures only: -m prefs, -m all_prefs or -m prefs_simp ...; qrels (-R qrels, the "
         "default) the others")


def refuse(rel_format: str, a: Asked, qrels: Path, runs: Sequence[Path],
           s: Settings) -> None:
    """Stop as trec_eval stops when a measure and the judgments' format do not meet.

    Under a preference format, the first other measure (trec_eval's order: ``num_ret``
    for the default ``official``); under ``-R qrels``, the first preference measure.
    trec_eval stops on the first query it evaluates, before printing it, with exit
    status 4: "Can't calculate measure", or first "result qid ... not found" when that
    query is one the run lacks (without ``-c``); before, it reads the files (a file it
    cannot read: exit status 2, a z-score file: 255).
    """
    prefs = rel_format in PREFS_FORMATS
    strings = [n for n in a.names if n not in _META and trec.printed(n) not in trec.MEASURES]
    if prefs and strings:
        msg = (f"-m {strings[0]}: a polars-rank metric reads qrels, not preferences "
               f"(-R {rel_format}); " + _HINT)
        raise ValueError(msg)
    wrong = [trec.printed(n) for n in a.names if n not in _META
             and (trec.printed(n) in PREFS_MEASURES) != prefs]
    if not wrong:
        return
    judged = (_judgments(qrels, rel_format) if prefs
              else read_qrels(qrels, encoding=IDS)).get_column("qid").unique().sort()
    retrieved = [_run(run).get_column("qid") for run in runs]
    zscore_reference(s)  # trec_eval reads it before it evaluates (exit status 255)
    if s.debug_query is not None:
        judged = judged.filter(judged == s.debug_query)
    if judged.len() == 0:
        msg = "No queries with both results and relevance info"
        raise Stop(msg, 7, "the judgments have no query -D names")
    first = judged[0]
    if s.stop and not any(qids.eq(first).any() for qids in retrieved):
        msg = f"result qid '{shown(first)}' not found in qrels"
        raise Stop(msg, 4, f"the judgments have query '{shown(first)}' and the run has no line for "
                           "it: trec_eval 10 stops there (exit status 4); -c scores such "
                           "queries (as trec_eval -c)")
    msg = f"Can't calculate measure '{wrong[0]}'"
    raise Stop(msg, 4, f"-R {rel_format}: {wrong[0]} cannot be computed from these "
                       "judgments; " + _HINT)


def _evaluated(judgments: pl.DataFrame, run: pl.DataFrame, a: Asked,
               s: Settings) -> pl.DataFrame:
    """The preference measures of one run, per query (sorted), as printed names."""
    # with runid and num_q only: one measure, for the queries evaluated
    measures = [trec.printed(n) for n in a.prefs] or [PREFS_COUNTS[0]]
    per = evaluate_prefs(run, judgments, measures, per_query=True,
                         missing="zero" if s.zero else "skip", max_ret=s.max_ret)
    return per.select("qid", *(pl.col(trec.printed(n)).alias(n) for n in a.prefs)).sort("qid")


def _standardized(per: pl.DataFrame, reference: pl.DataFrame | None, a: Asked,
                  s: Settings) -> pl.DataFrame:
    r"""``-Z``: each value as its z-score, as trec_eval converts every measure's.

    trec_eval converts a query's values before it adds them up (trec_eval.c:433-438),
    preference measures as the others: counts are then sums of z-scores, the others
    means of them (:func:`_summary`), printed ``Z%-22s\t%s\t%6.4f``.
    """
    if reference is None:
        return per
    columns: dict[str, Summary] = {n: "sum" if trec.printed(n) in PREFS_COUNTS else "mean"
                                   for n in a.prefs}
    return zscored(per, reference, columns, a.names, s)


def _per_query(judgments: pl.DataFrame, path: Path, a: Asked, s: Settings, *,
               per_line: list[str] | None = None) -> tuple[pl.DataFrame, str | None]:
    """One run's values per query, and the first judged query it lacks (without ``-c``).

    trec_eval evaluates its judged queries in order and stops at the first the run
    lacks: the queries after it are not evaluated (their judgments not checked). Where
    it stops on the data of a query (:class:`~polars_rank.preferences.PrefsDataError`),
    the lines it prints before (``per_line``: the ``-q`` lines) are printed, then
    :class:`~polars_rank._cli.eval_settings.Stop` is raised.
    """
    run = _run(path)
    reference = zscore_reference(s)  # read after the judgments and the run, as trec_eval
    if s.debug_query is not None:
        run = run.filter(pl.col("qid") == s.debug_query)
        judgments = judgments.filter(pl.col("qid") == s.debug_query)
    absent: str | None = None
    if s.stop:
        absent = (judgments.select("qid").unique().join(run.select("qid"), on="qid",
                                                        how="anti")
                  .select(pl.col("qid").min()).item())
        if absent is not None:
            judgments = judgments.filter(pl.col("qid") < absent)
    try:
        return _standardized(_evaluated(judgments, run, a, s), reference, a, s), absent
    except PrefsDataError as error:  # where trec_eval stops (exit 4) or aborts
        if per_line and not error.aborts:  # an abort loses the lines C buffered
            before = _evaluated(judgments.filter(pl.col("qid") < error.query), run, a, s)
            write_lines(_lines(_standardized(before, reference, a, s), per_line,
                               standardized=reference is not None))
        what = "aborts (a crash)" if error.aborts else "stops (\"Can't calculate measure\")"
        raise Stop(readable(str(error)), 4, f"trec_eval {what} on these judgments at query "
                                            f"'{shown(error.query)}'") from None


def _lines(per: pl.DataFrame, per_line: list[str], *, standardized: bool) -> list[str]:
    return [_line(n, row["qid"], row[n], standardized=standardized)
            for row in per.iter_rows(named=True) for n in per_line]


def _stop(absent: str | None, per: pl.DataFrame, run: str | None = None) -> None:
    where = "" if run is None else f"{run}: "
    if absent is not None:
        absent = shown(absent)
        msg = f"{where}result qid '{absent}' not found in qrels"
        raise Stop(msg, 4, f"the judgments have query '{absent}' and {run or 'the run'} has "
                           "no line for it: trec_eval 10 stops there (exit status 4); -c "
                           "scores such queries (as trec_eval -c), --missing skip leaves "
                           "them out")
    if per.height == 0:
        msg = f"{where}No queries with both results and relevance info"
        raise Stop(msg, 7, "the run and the judgments share no query id")


def _summary(per: pl.DataFrame, a: Asked, judgments: pl.DataFrame,
             s: Settings) -> dict[str, float]:
    """The ``all`` values: counts summed, the others averaged.

    Each sum is over the queries in query order, as trec_eval adds them; a mean divides
    by the queries counted: under ``-c`` every judged query (trec_eval's num_q_rels,
    also under ``-D``).
    """
    counted = judgments["qid"].n_unique() if s.zero else per.height
    out: dict[str, float] = {"num_q": float(counted)}
    for name in a.prefs:
        total = per.select(pl.col(name).cum_sum().last()).item() if per.height else 0.0
        out[name] = total if trec.printed(name) in PREFS_COUNTS else total / counted
    return out


def _line(name: str, qid: str, value: float | str, *, standardized: bool = False) -> str:
    """One trec_eval line; ``standardized`` (``-Z``): every number ``Z...%6.4f``, counts too."""
    if isinstance(value, str):
        return f"{name:<22}\t{qid}\t{value}"
    if standardized:
        return f"Z{name:<22}\t{qid}\t{value:6.4f}"
    if name == "num_q" or trec.printed(name) in PREFS_COUNTS:
        return f"{name:<22}\t{qid}\t{int(value)}"  # C's (long) cast
    return f"{name:<22}\t{qid}\t{value:6.4f}"


def _judgments(qrels: Path, rel_format: str) -> pl.DataFrame:
    """The preference judgments, ids read byte for byte.

    As :data:`~polars_rank._cli.eval_settings.IDS` reads them.
    """
    return read_qrels(qrels, format=rel_format, encoding=IDS)  # type: ignore[arg-type]


def _run(path: Path) -> pl.DataFrame:
    """A run, ids read byte for byte, as the rest of the command line reads it."""
    return read_run(path, encoding=IDS)


def print_prefs(rel_format: str, qrels: Path, run: Path, a: Asked, s: Settings, *,
                per_query: bool = False, summary: bool = True) -> None:
    """One run, printed as trec_eval prints ``-R prefs`` (``-R qrels_prefs``)."""
    judgments = _judgments(qrels, rel_format)
    per_line = [n for n in a.names if n in a.prefs] if per_query else []
    per, absent = _per_query(judgments, run, a, s, per_line=per_line)
    z = s.zscores is not None
    lines = _lines(per, per_line, standardized=z)
    if absent is None and per.height and summary:
        values: dict[str, float | str] = {**_summary(per, a, judgments, s)}
        if "runid" in a.names:  # the tag of the run's last line, as trec_eval
            values["runid"] = last_tag(run, encoding=IDS)
        lines += [_line(n, "all", values[n], standardized=z) for n in a.names]
    write_lines(lines)
    _stop(absent, per)


def evaluate_prefs_files(rel_format: str, qrels: Path, runs: Sequence[Path],
                         names: Sequence[str], a: Asked, s: Settings, *,
                         per_query: bool = False) -> pl.DataFrame:
    """Long results, as :func:`polars_rank._cli.eval.evaluate_files`.

    Columns ``metric, qid`` (``all`` for the summary), then one per run.
    """
    judgments = _judgments(qrels, rel_format)
    merged: pl.DataFrame | None = None
    for name, path in zip(names, runs, strict=True):
        per, absent = _per_query(judgments, path, a, s)
        _stop(absent, per, name if len(runs) > 1 else None)
        means = _summary(per, a, judgments, s)
        rows = pl.DataFrame([{"qid": "all", **{n: means[n] for n in a.prefs}}],
                            schema={"qid": pl.String, **dict.fromkeys(a.prefs, pl.Float64)})
        if per_query:
            rows = pl.concat([per, rows])
        long = rows.unpivot(index="qid", variable_name="metric", value_name=name)
        merged = long if merged is None else merged.join(long, on=["metric", "qid"],
                                                         how="full", coalesce=True)
    assert merged is not None  # runs is non-empty (argparse nargs="+")
    order = {m: i for i, m in enumerate(a.prefs)}
    texts = {q: shown(q) for q in merged["qid"].unique()}  # sorted as bytes, shown as text
    prefix = "Z" if s.zscores is not None else ""  # as trec_eval -Z names them
    return (merged.with_columns(
                pl.col("metric").replace_strict(order, return_dtype=pl.Int64).alias("__m"),
                (pl.col("qid") == "all").alias("__all"))
            .sort("__m", "__all", "qid").drop("__m", "__all")
            .with_columns(pl.concat_str(pl.lit(prefix), "metric").alias("metric"),
                          pl.col("qid").replace_strict(texts, return_dtype=pl.String))
            .select("metric", "qid", pl.exclude("metric", "qid")))
