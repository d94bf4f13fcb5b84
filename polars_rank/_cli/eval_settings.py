"""What ``polars-rank eval`` was asked: its settings, the measures, the ids, and its stops.

``Settings`` holds the command line's options, ``Asked`` the measures parsed in the
chosen dialect; ids are read byte for byte (``IDS``); ``Stop`` is where trec_eval 10
stops, with its message and exit status.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from polars_rank._engine.unjudged import HIGH, LOW
from polars_rank._language import trec_measures as trec
from polars_rank.preferences import PREFS_MEASURES
from polars_rank.registry import DIALECTS, Convention, Metric, convention, parse_metric

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    import polars as pl

    from polars_rank._language.dialects import DialectName

_META = ("runid", "num_q")  # trec_eval's measures of a run, not of its queries (summary only)
IDS = "latin-1"
"""How the command line reads ids: each byte one character, so that ids compare as
bytes, as trec_eval compares them (files need not be UTF-8), and print back as the
same bytes (:func:`write_lines`)."""


def to_ids(text: str) -> str:
    """A command-line argument (``-D level.qid``) as an id read byte for byte (``IDS``)."""
    return os.fsencode(text).decode(IDS)


def shown(qid: str) -> str:
    r"""An id read byte for byte as text to show: its UTF-8, ``\x`` escapes where not UTF-8."""
    return qid.encode(IDS).decode("utf-8", "backslashreplace")


def readable(message: str) -> str:
    """A message naming ids read byte for byte (a warning of evaluate()), as text.

    Its ids shown as :func:`shown` shows them; a message with a character no byte
    reads as (not from the files) is left as it is.
    """
    try:
        return shown(message)
    except UnicodeEncodeError:
        return message


def write_lines(lines: Sequence[str]) -> None:
    """trec_eval's lines, ids as the bytes the files hold (text in :data:`IDS`)."""
    if not lines:
        return
    data = ("\n".join(lines) + "\n").encode(IDS)
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text stream (redirect_stdout to a StringIO)
        sys.stdout.write(data.decode("utf-8", "backslashreplace"))
        return
    sys.stdout.flush()
    buffer.write(data)


class Stop(Exception):
    """trec_eval 10 stops here: its message, a hint, and its exit status."""

    def __init__(self, message: str, status: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.hint = hint


@dataclass(frozen=True)
class Settings:
    """How ``eval`` evaluates each run: trec_eval's flags and polars-rank's own.

    Built by :meth:`of` from the command line's ``--dialect``, ``--ties`` and
    ``--missing``/``-c``.
    """

    chosen: Convention = field(default_factory=lambda: convention("trec_eval"))
    """The dialect with ``--ties`` and ``--missing``: each metric's tie policy and the
    queries its mean is over (:func:`polars_rank.registry.convention`)."""
    stop: bool = False
    """A judged query absent from a run stops (trec_eval 10 without ``-c``:
    :class:`Stop`, exit 4); the numbers are then the dialect's ``"skip"``'s."""
    memory: str = "auto"
    max_ret: int | None = None
    """``-M``: each query's first documents only (0: none, as trec_eval)."""
    judged_only: bool = False
    unjudged: str = "low"
    unjudged_grade: float | None = None
    debug_query: str | None = None
    """``-D level.qid``: evaluate that query only (trec_eval's averages under ``-c``
    still count every judged query); the id as read from the files (:func:`to_ids`)."""
    zscores: Path | None = None
    """``-Z``: trec_eval's z-score file; each value printed as its z-score
    (:mod:`polars_rank._evaluation.zscores`)."""
    rel_info_format: str = "qrels"
    """``-R``: the qrels' format; ``qrels_jg``: judgment groups
    (:mod:`polars_rank._cli.judgment_groups`)."""

    @classmethod
    def of(cls, dialect: DialectName, *, ties: str | None = None, missing: str | None = None,
           **rest: Any) -> Settings:
        """The settings of ``--dialect``, ``--ties`` and ``--missing`` (``-c``: ``"zero"``).

        ``missing``: ``"error"`` (stop), ``"skip"``, ``"zero"``, or None: the dialect's.
        A dialect whose means are over the run's queries (trec_eval's, the default)
        stops as trec_eval 10 does; one whose means are over the qrels' queries
        (ir_measures, ranx, MS Recommenders' ndcg) averages as it does, without a stop.
        ``rest``: the other fields.
        """
        if missing is None and dialect in DIALECTS and DIALECTS[dialect].missing == "skip":
            missing = "error"
        chosen = convention(dialect, ties=ties,
                            missing="skip" if missing == "error" else missing)
        return dataclasses.replace(cls(chosen, stop=missing == "error"), **rest)

    @property
    def zero(self) -> bool:
        """Every judged query counted (``-c``, or the dialect's means over the qrels)."""
        return self.chosen.missing == "zero"


class Asked:
    """The measures asked: printed names, their metrics, and what was left out."""

    def __init__(self, specs: Sequence[str], level: int | None,
                 dialect: DialectName = "trec_eval", num_docs: int | None = None) -> None:
        self.level, self.dialect = level, dialect
        self.names: list[str] = []
        self.metrics: dict[str, Metric] = {}
        self.skipped: list[str] = []
        self.ends: dict[str, str] = {}
        """``--bounds``: a printed name -> the suffix of evaluate()'s column it reads."""
        self.notes: list[str] = []
        """Notes for stderr: parameters trec_eval ignores."""
        self.prefs: list[str] = []
        """The preference measures asked (``-R prefs``: :mod:`polars_rank._cli.prefs`)."""
        given = trec.first_parameters(specs)
        for spec in specs:
            expanded = trec.expand(spec, given)
            if expanded is None:  # a polars-rank metric string
                lines = [(spec, spec)]
            else:
                lines = expanded.lines
                if expanded.note and expanded.note not in self.notes:
                    self.notes.append(expanded.note)
            for name, string in lines:
                measure = trec.printed(name) if expanded is not None else None
                if name in self.names:
                    continue
                if measure in trec.UNSUPPORTED:
                    if measure not in self.skipped:
                        self.skipped.append(measure)
                    continue
                self.names.append(name)
                if measure in PREFS_MEASURES:  # read from preference judgments, no metric
                    self.prefs.append(name)
                elif name not in _META:
                    metric = with_level(parse_metric(string, dialect), level)
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
        out = self._empty()
        for name in self.names:
            out.names.append(name)
            metric = self.metrics.get(name)
            if metric is None:
                continue
            out.metrics[name] = metric
            if is_text(metric):
                continue
            for end in (LOW, HIGH):
                out.names.append(f"{name}_{end}")
                out.metrics[f"{name}_{end}"] = metric
                out.ends[f"{name}_{end}"] = f"_{end}"
        return out

    def _empty(self) -> Asked:
        """An Asked without measures, with this one's settings and notes."""
        out = Asked([], self.level, self.dialect)
        out.skipped, out.notes = self.skipped, self.notes
        return out

    def numbers_only(self) -> Asked:
        """These measures without the string ones (relstring)."""
        out = self._empty()
        out.metrics = {n: m for n, m in self.metrics.items() if not is_text(m)}
        out.names = [n for n in self.names if n not in self.metrics or n in out.metrics]
        out.ends = self.ends
        return out

    def zero_over_zero(self) -> dict[str, tuple[float, ...]]:
        """The measures trec_eval divides 0 by 0 on an empty list, with their recall levels.

        m_iprec_at_recall.c and m_11pt_avg.c start from the precision of the whole
        list, num_rel_ret / num_ret: NaN when nothing is retrieved (``-J``, ``-M 0``),
        which they keep at each level x with lround(x R) = 0 (C prints ``-nan``).
        """
        out: dict[str, tuple[float, ...]] = {}
        for name, m in self.metrics.items():
            if m.definition.name == "iprec_at_recall":
                out[name] = (float(m.options.get("recall", 0.0)),)
            elif m.definition.name == "11pt_avg":
                option = m.definition.option("levels")
                assert option is not None  # 11pt_avg has recall levels
                out[name] = tuple(m.options.get("levels", option.default))
        return out


def with_level(metric: Metric, level: int | None) -> Metric:
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
          dialect: DialectName = "trec_eval", num_docs: int | None = None) -> Asked:
    """Parse the ``-m`` arguments (default: trec_eval's ``official`` set) in ``dialect``."""
    return Asked(list(specs) if specs else ["official"], level, dialect, num_docs)


def is_text(metric: Metric) -> bool:
    """A string per query (relstring): printed per query only, never summarised."""
    return metric.definition.over_queries == "none"


def stop_twice(twice: tuple[str, str, str] | None, run: str | None = None) -> None:
    """Stop where trec_eval stops on a document twice (:func:`_twice`), exit status 4."""
    if twice is None:
        return
    q, d, where = shown(twice[0]), shown(twice[1]), twice[2]
    msg = (f"{'' if run is None else f'{run}: '}duplicate (query, doc) rows in {where}: "
           f"query '{q}' has document '{d}' twice")
    raise Stop(msg, 4, "trec_eval stops at that query (\"duplicate docs\", then \"Can't "
                       "calculate measure\", exit status 4), after the queries before it; a "
                       "document is ranked and judged once per query")


def stop_at(absent: str | None, per: pl.DataFrame, run: str | None = None) -> None:
    """Stop where trec_eval 10 stops (trec_eval.c:389-393 and 445-449).

    A judged query the run lacks, without ``-c``: exit 4, with trec_eval's message
    (whose "result" and "qrels" are the wrong way round) and a hint. No query
    evaluated: exit 7. ``run``: the run's name, when several are evaluated.
    """
    where = "" if run is None else f"{run}: "
    if absent is not None:
        absent = shown(absent)
        hint = (f"the qrels judge query '{absent}' and {run or 'the run'} has no line for "
                "it: trec_eval 10 stops there (exit status 4); -c scores such queries 0 "
                "(as trec_eval -c), --missing skip leaves them out (as trec_eval 9 and "
                "pytrec_eval)")
        msg = f"{where}result qid '{absent}' not found in qrels"
        raise Stop(msg, 4, hint)
    if per.height == 0:
        msg = f"{where}No queries with both results and relevance info"
        raise Stop(msg, 7, "the run and the qrels share no query id")
