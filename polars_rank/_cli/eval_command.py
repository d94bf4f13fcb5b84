"""``polars-rank eval``: from the parsed arguments to trec_eval's output, or its stop."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from polars_rank._cli import judgment_groups as _cli_judgment_groups
from polars_rank._cli.eval import evaluate_files, print_trec_eval
from polars_rank._cli.eval_settings import Settings, Stop, asked, readable, to_ids
from polars_rank._cli.prefs import PREFS_FORMATS, evaluate_prefs_files, print_prefs, refuse
from polars_rank._cli.status import first_refusal, stop_in_order

if TYPE_CHECKING:
    import argparse
    from collections.abc import Iterator, Sequence

    import polars as pl


def _run_names(runs: Sequence[str]) -> list[str]:
    """Column names for the runs: file names, made unique (``-``: standard input)."""
    paths = [Path(r) for r in runs]
    names = [r if r == "-" else p.name for r, p in zip(runs, paths, strict=True)]
    if len(set(names)) < len(names):
        names = [str(p) for p in paths]
    if len(set(names)) < len(names):
        names = [f"{n}#{i}" for i, n in enumerate(names, 1)]
    return names


def run_eval(args: argparse.Namespace) -> None:
    """``polars-rank eval``."""
    # the -m trec_eval refuses, with its exit status, where it stops (_cli_status)
    refused = first_refusal(args.metrics or ["official"], args.dialect)
    if refused is not None and refused.status == 1:  # read with the options
        raise refused
    _check_formats(args.Rel_info_format, args.Results_format)
    if args.max_ret is not None and args.max_ret < 0:
        msg = (f"-M {args.max_ret}: the number of documents per query is 0 or more "
               "(trec_eval crashes on a negative -M)")
        raise ValueError(msg)
    level, debug_query = args.Debug_level or (0, None)
    if debug_query is not None:  # as the files' ids are read: byte for byte
        debug_query = to_ids(debug_query)
    if refused is not None:  # after the files
        with _standard_input(args.runs) as runs:
            stop_in_order(refused, args.qrels, runs, args.Rel_info_format, args.Zscore,
                          debug_query)
    measures = asked(args.metrics, args.level, args.dialect, args.num_docs)
    try:
        _cli_judgment_groups.check_measures(measures, args.Rel_info_format)
    except Stop as stop:  # trec_eval finds it when it calculates: after reading the files
        with _standard_input(args.runs) as runs:
            stop_in_order(stop, args.qrels, runs, args.Rel_info_format, args.Zscore,
                          debug_query)
    for note in measures.notes:
        print(f"polars-rank: note: {note}", file=sys.stderr)
    if measures.skipped:
        print("polars-rank: note: not computed (not in polars-rank yet): "
              + ", ".join(measures.skipped), file=sys.stderr)
    if not measures.names:
        msg = "no measure left to compute (see the note above)"
        raise ValueError(msg)
    prefs = args.Rel_info_format in PREFS_FORMATS
    if prefs:
        _check_prefs_options(args)
    if args.bounds:
        measures = measures.with_bounds()
    if level > 0:
        print(f"polars-rank: note: -D {level}: trec_eval's debugging traces are not printed "
              "(polars-rank computes the measures another way)", file=sys.stderr)
    settings = Settings.of(args.dialect, ties=args.ties, missing=args.missing,
                           memory=args.memory, max_ret=args.max_ret,
                           judged_only=args.judged_only, unjudged=args.unjudged,
                           unjudged_grade=args.unjudged_grade, debug_query=debug_query,
                           zscores=args.Zscore, rel_info_format=args.Rel_info_format)
    fmt = args.format or ("trec_eval" if len(args.runs) == 1 else "table")
    if fmt == "trec_eval" and len(args.runs) > 1:
        msg = "--format trec_eval prints one run; give one, or --format table"
        raise ValueError(msg)
    with warnings.catch_warnings(record=True) as caught, _standard_input(args.runs) as runs:
        warnings.simplefilter("always")
        try:
            if prefs or measures.prefs:  # trec_eval stops where the two do not meet
                refuse(args.Rel_info_format, measures, args.qrels, runs, settings)
            if prefs and fmt == "trec_eval":
                print_prefs(args.Rel_info_format, args.qrels, runs[0], measures, settings,
                            per_query=args.per_query, summary=not args.no_summary)
            elif fmt == "trec_eval":
                print_trec_eval(args.qrels, runs[0], measures, settings,
                                per_query=args.per_query, summary=not args.no_summary)
            else:
                result = (evaluate_prefs_files(args.Rel_info_format, args.qrels, runs,
                                               _run_names(args.runs), measures, settings,
                                               per_query=args.per_query) if prefs else
                          evaluate_files(args.qrels, runs, _run_names(args.runs), measures,
                                         settings, per_query=args.per_query))
                if fmt == "csv":
                    sys.stdout.write(result.write_csv())
                elif fmt == "json":
                    sys.stdout.write(result.write_json() + "\n")
                else:
                    _print_table(result)
        finally:
            for w in caught:  # their ids as the files hold them
                print(f"polars-rank: warning: {readable(str(w.message))}", file=sys.stderr)


def _check_formats(qrels: str, run: str) -> None:
    """trec_eval's ``-R`` and ``-T``: the formats polars-rank reads, or why not."""
    if qrels not in ("qrels", "qrels_jg", *PREFS_FORMATS):
        msg = f"-R {qrels}: not a qrels format trec_eval knows (Illegal rel_format); -R qrels"
        raise ValueError(msg)
    if run != "trec_results":
        msg = (f"-T {run}: not a results format trec_eval knows (Illegal retrieval results "
               "format); -T trec_results")
        raise ValueError(msg)


def _check_prefs_options(args: argparse.Namespace) -> None:
    """polars-rank's own options that preference judgments have no use for."""
    given = [option for option, used in (
        ("--bounds", args.bounds), ("--unjudged", args.unjudged != "low"),
        ("--unjudged-grade", args.unjudged_grade is not None), ("--ties", args.ties),
        ("--dialect", args.dialect != "trec_eval"), ("--memory", args.memory != "auto"),
    ) if used]
    if given:
        msg = (f"{given[0]}: not for preference judgments (-R {args.Rel_info_format}), "
               "which trec_eval evaluates one way: equal scores by document id ascending, "
               "unjudged documents left out of every preference")
        raise ValueError(msg)


@contextlib.contextmanager
def _standard_input(runs: Sequence[str]) -> Iterator[list[Path]]:
    """The run files, ``-`` (trec_eval's standard input) copied to a temporary file.

    Read as trec_eval reads it: a run named ``-``; any other name is a file.
    """
    if runs.count("-") > 1:
        msg = "- (standard input) can be given for one run only"
        raise ValueError(msg)
    if "-" not in runs:
        yield [Path(r) for r in runs]
        return
    with tempfile.TemporaryDirectory(prefix="polars-rank-") as folder:
        path = Path(folder) / "standard-input"
        with path.open("wb") as copy:
            shutil.copyfileobj(sys.stdin.buffer, copy)
        yield [path if r == "-" else Path(r) for r in runs]


def _print_table(frame: pl.DataFrame) -> None:
    runs = frame.columns[2:]
    width_m = max([len("metric"), *(len(m) for m in frame["metric"])])
    width_q = max([len("qid"), *(len(q) for q in frame["qid"])])
    widths = [max(len(r), 6) for r in runs]
    head = [f"{'metric':<{width_m}}", f"{'qid':<{width_q}}",
            *(f"{r:>{w}}" for r, w in zip(runs, widths, strict=True))]
    print("\t".join(head))
    for row in frame.iter_rows():
        cells = [f"{row[0]:<{width_m}}", f"{row[1]:<{width_q}}"]
        cells += [f"{'':>{w}}" if v is None else f"{v:>{w}.4f}"
                  for v, w in zip(row[2:], widths, strict=True)]
        print("\t".join(cells))
