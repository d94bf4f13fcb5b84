"""Uncertain labels, in any of three forms, as one distribution per (query, document).

The three forms a label that is only probably right comes in:

* ``"probability"``: one row per (query, doc) with ``probability``, the probability that
  the document is relevant: grade 1 with that probability, grade 0 otherwise;
* ``"distribution"``: long format, one row per (query, doc, grade) with ``probability``,
  the probability of that grade; a document's probabilities sum to 1 (within
  ``tolerance``, then divided by their sum);
* ``"judges"``: one row per (query, doc, judge) with ``grade``: the empirical
  distribution of the judges' grades (each judge's grade weighs one over the number of
  judges of that document).

:func:`label_distribution` reads each into the same long frame: ``query``, ``doc``,
``grade`` (Float64), ``probability`` (Float64, > 0; grades of probability 0 are left
out, so the rows of a document are its *support*).
"""

from __future__ import annotations

from typing import Literal, get_args

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.frames import FrameLike, as_polars
from polars_rank._engine.rules import label_type_problem
from polars_rank.errors import InvalidDataError

__all__ = ["GRADE", "PROBABILITY", "TOLERANCE", "LabelForm", "label_distribution"]

LabelForm = Literal["probability", "distribution", "judges"]
GRADE = "grade"
PROBABILITY = "probability"
TOLERANCE = 1e-6
"""How far from 1 a document's probabilities may sum (``form="distribution"``)."""
_N = "__polars_rank_n"  # a grade's number of judges


def label_distribution(
    labels: FrameLike,
    *,
    form: LabelForm = "distribution",
    query: str = "qid",
    doc: str = "docid",
    grade: str = GRADE,
    probability: str = PROBABILITY,
    judge: str = "judge",
    tolerance: float = TOLERANCE,
) -> pl.DataFrame:
    """Uncertain labels as one distribution over grades per (query, document).

    Parameters
    ----------
    labels
        The labels in the ``form`` given (see :mod:`polars_rank.agreement`'s guide,
        *Uncertain labels*).
    form
        ``"probability"`` (``query``, ``doc``, ``probability`` of relevance),
        ``"distribution"`` (``query``, ``doc``, ``grade``, ``probability``) or
        ``"judges"`` (``query``, ``doc``, ``judge``, ``grade``).
    tolerance
        How far a document's probabilities may sum from 1 (``"distribution"``).

    Returns
    -------
    DataFrame
        ``query``, ``doc``, ``grade``, ``probability``: the support of each document's
        label (probability > 0), sorted.

    Raises
    ------
    ValueError
        ``query`` or ``doc`` named ``grade`` or ``probability`` (the result's columns).
    InvalidDataError
        A column missing, a text grade or probability, a probability outside [0, 1]
        or null, a document's probabilities not summing to 1, a negative, null or
        non-finite grade, a duplicate row; the message names the column and the first
        offending document.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import label_distribution
    >>> judges = pl.DataFrame({"qid": ["q"] * 3, "docid": ["d"] * 3,
    ...                        "judge": ["a", "b", "c"], "grade": [2, 0, 2]})
    >>> label_distribution(judges, form="judges")
    shape: (2, 4)
    ┌─────┬───────┬───────┬─────────────┐
    │ qid ┆ docid ┆ grade ┆ probability │
    │ --- ┆ ---   ┆ ---   ┆ ---         │
    │ str ┆ str   ┆ f64   ┆ f64         │
    ╞═════╪═══════╪═══════╪═════════════╡
    │ q   ┆ d     ┆ 0.0   ┆ 0.333333    │
    │ q   ┆ d     ┆ 2.0   ┆ 0.666667    │
    └─────┴───────┴───────┴─────────────┘
    """
    if form not in get_args(LabelForm):
        msg = f"form={form!r}: expected one of {get_args(LabelForm)}"
        raise ValueError(msg)
    if not 0 <= tolerance < 1:
        msg = f"tolerance={tolerance!r}: expected a number in [0, 1)"
        raise ValueError(msg)
    for name, param in ((query, "query"), (doc, "doc")):
        if name in (GRADE, PROBABILITY):
            msg = (f"{param}={name!r}: the labels' distribution has columns {GRADE!r} and "
                   f"{PROBABILITY!r} of its own; rename the {param} column")
            raise ValueError(msg)
    read = as_polars(labels, "labels", query=query, doc=doc, value=grade)
    frame = read.collect() if isinstance(read, pl.LazyFrame) else read
    keys = [query, doc]
    if form == "probability":
        _require(frame, [*keys, probability], form, [probability])
        frame = frame.select(*keys, pl.col(probability).cast(pl.Float64))
        _check_probability(frame, keys, probability)
        _check_unique(frame, keys, "(query, doc)")
        p = pl.col(probability)
        long = pl.concat([frame.select(*keys, pl.lit(1.0).alias(GRADE), p.alias(PROBABILITY)),
                          frame.select(*keys, pl.lit(0.0).alias(GRADE),
                                       (1.0 - p).alias(PROBABILITY))])
    elif form == "distribution":
        _require(frame, [*keys, grade, probability], form, [grade, probability])
        frame = frame.select(*keys, pl.col(grade).cast(pl.Float64).alias(GRADE),
                             pl.col(probability).cast(pl.Float64))
        _check_grade(frame, keys, grade)
        _check_probability(frame, keys, probability)
        _check_unique(frame, [*keys, GRADE], "(query, doc, grade)")
        frame = frame.sort([*keys, GRADE])  # the sums in one order, whatever the rows'
        total = group_sum(pl.col(probability)).over(keys)
        _raise_first(frame, (total - 1.0).abs() > tolerance, keys,
                     f"column {probability!r}: a document's probabilities must sum to 1 "
                     f"(within {tolerance:g})")
        long = frame.select(*keys, GRADE, (pl.col(probability) / total).alias(PROBABILITY))
    else:
        _require(frame, [*keys, judge, grade], form, [grade])
        frame = frame.select(*keys, judge, pl.col(grade).cast(pl.Float64).alias(GRADE))
        _raise_first(frame, pl.col(judge).is_null(), keys,
                     f"column {judge!r}: a null judge (whose grade would count as a judge's)")
        _check_grade(frame, keys, grade)
        _check_unique(frame, [*keys, judge], "(query, doc, judge)")
        n = pl.col(_N)
        long = frame.group_by([*keys, GRADE]).agg(pl.len().alias(_N)).select(
            *keys, GRADE, (n / n.sum().over(keys)).alias(PROBABILITY))
    return long.filter(pl.col(PROBABILITY) > 0).sort([*keys, GRADE])


def _require(frame: pl.DataFrame, columns: list[str], form: str, numbers: list[str]) -> None:
    for name in columns:
        if name not in frame.columns:
            msg = (f"labels (form={form!r}) have no column {name!r}: they need "
                   f"{columns}, got {frame.columns}")
            raise InvalidDataError(msg)
    # grades and probabilities are numbers, as every label is: text ("0.5") was parsed
    for name in numbers:
        problem = label_type_problem(frame.schema[name])
        if problem is not None:
            msg = f"labels (form={form!r}): column {name!r}: {problem}"
            raise InvalidDataError(msg)


def _raise_first(frame: pl.DataFrame, bad: pl.Expr, keys: list[str], rule: str) -> None:
    offenders = frame.filter(bad.fill_null(True))
    if offenders.height:
        first = offenders.sort(keys).row(0, named=True)
        where = ", ".join(f"{k}={first[k]!r}" for k in keys)
        msg = f"{rule}; first at {where} ({offenders.height} rows)"
        raise InvalidDataError(msg)


def _check_probability(frame: pl.DataFrame, keys: list[str], column: str) -> None:
    p = pl.col(column)
    _raise_first(frame, p.is_null() | p.is_nan() | (p < 0) | (p > 1), keys,
                 f"column {column!r}: a probability must be in [0, 1]")


def _check_grade(frame: pl.DataFrame, keys: list[str], column: str) -> None:
    g = pl.col(GRADE)
    _raise_first(frame, g.is_null() | ~g.is_finite() | (g < 0), keys,
                 f"column {column!r}: a grade must be a finite number >= 0")


def _check_unique(frame: pl.DataFrame, keys: list[str], what: str) -> None:
    _raise_first(frame, pl.struct(keys).is_duplicated(), keys[:2],
                 f"duplicate {what} rows in the labels")
