"""The checks of a log: columns present, propensities in (0, 1], positions 1..n, support.

Each rule is a boolean expression that is true on an offending row (or impression);
each becomes a flag per impression in the estimator's own aggregation, so checking
costs no extra pass over the log, and the first offending impression (in impression
order) is named in an :class:`~polars_rank.errors.InvalidDataError` with the rule and
the column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.params import check_result_names
from polars_rank.errors import InvalidDataError
from polars_rank.online._order import starts

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["BAD", "FIRST", "Rule", "check_group_by", "check_numeric", "constant_rule",
           "finite_rule", "flags", "missing_columns", "missing_id", "position_rules",
           "raise_flagged", "range_rule", "rank_rules", "row_flags"]


FIRST = "__first"  # in row_flags: the row is the first of its impression
BAD = "__bad"  # in row_flags: the row breaks a rule


@dataclass(frozen=True)
class Rule:
    """An offending row is one where ``bad`` is true; ``column`` is the one to blame.

    ``whole``: ``bad`` is an aggregation over an impression's rows (positions 1..n, one
    value per impression) rather than a row's test; ``run`` is then the same test as a
    row's, on rows sorted by (impression, position) with ``FIRST`` true on the first row
    of each impression (the impression breaks the rule where a row does).
    """

    column: str
    rule: str
    bad: pl.Expr
    whole: bool = False
    run: pl.Expr | None = None

    def flag(self) -> pl.Expr:
        """Per impression (in a ``group_by``), whether it breaks the rule."""
        return self.bad if self.whole else self.bad.any()


def flags(rules: Sequence[Rule]) -> list[pl.Expr]:
    """The per-impression aggregations ``raise_flagged`` reads, one per rule."""
    return [r.flag().alias(f"__bad{n}") for n, r in enumerate(rules)]


def row_flags(frame: pl.LazyFrame, rules: Sequence[Rule],
              keys: Sequence[str]) -> tuple[pl.LazyFrame, list[pl.Expr]]:
    """``flags`` in two steps, for rows sorted by ``keys`` (the impression last) and position.

    The row tests as columns of ``frame`` (``__bad<n>``, and ``BAD``, true where any
    rule is broken), and the aggregations (one ``any()`` per impression and rule) for
    its ``group_by(keys)``: a ``group_by`` then aggregates plain columns, which Polars
    does in one vectorised pass, where expressions inside an aggregation run group by
    group. A clean log needs only ``BAD``'s aggregation; the rules' are for naming the
    offence. Every ``whole`` rule needs its ``run`` form.
    """
    tests = []
    for n, r in enumerate(rules):
        test = r.run if r.whole else r.bad
        if test is None:
            msg = f"rule {r.rule!r} on {r.column!r} has no row form"
            raise AssertionError(msg)
        tests.append(test.alias(f"__bad{n}"))
    frame = frame.with_columns(starts(keys).alias(FIRST)).with_columns(tests).with_columns(
        pl.any_horizontal(pl.lit(False), *(f"__bad{n}" for n in range(len(rules))))
        .alias(BAD))
    return frame, [pl.col(f"__bad{n}").implode().list.any().alias(f"__bad{n}")
                   for n in range(len(rules))]


def raise_flagged(per_impression: pl.DataFrame, rows: pl.LazyFrame, rules: Sequence[Rule], *,
                  impression: str, caller: str) -> None:
    """Raise for the first rule an impression breaks (``per_impression`` in impression order).

    The values shown are the offending row's (a row rule) or the impression's (``whole``),
    read from ``rows`` only when there is an error.
    """
    for n, r in enumerate(rules):
        hit = per_impression.filter(pl.col(f"__bad{n}")).select(impression).head(1)
        if hit.height == 0:
            continue
        which = hit[impression][0]
        if which is None or which != which:  # null, or NaN
            msg = (f"{caller}: column {impression!r} must not be null; a shown row has no "
                   "impression id")
            raise InvalidDataError(msg)
        mine = rows.filter(pl.col(impression) == which)
        if r.whole:
            values = mine.select(pl.col(r.column).sort()).collect()[r.column].to_list()
            shown = str(values)
        else:
            found = mine.filter(r.bad).select(pl.col(r.column).first()).collect()
            shown = str(found[r.column][0])
        msg = f"{caller}: column {r.column!r} {r.rule}; impression {which!r} has {shown}"
        raise InvalidDataError(msg)


def missing_columns(schema: Sequence[str], needed: Sequence[str], *, caller: str,
                    why: dict[str, str]) -> None:
    """Raise if a needed column is not in the log, naming it and what needs it."""
    for name in needed:
        if name not in schema:
            msg = (f"{caller}: the log has no column {name!r} ({why.get(name, 'needed')}); "
                   f"its columns are {list(schema)}")
            raise InvalidDataError(msg)


def position_rules(position: str, impression: str) -> list[Rule]:
    """Rules on the shown rows: positions are 1..n within an impression, once each."""
    p = pl.col(position)
    whole = (p.min() != 1) | (p.max() != pl.len()) | (p.n_unique() != pl.len())
    # sorted by position: 1 first, then each the one before plus 1
    run = pl.when(pl.col(FIRST)).then(p != 1).otherwise(p != p.shift(1) + 1).fill_null(True)
    return [Rule(position, "must be positions 1..n within an impression, each once", whole,
                 whole=True, run=run)]


def range_rule(column: str, *, low_open: bool, rule: str) -> Rule:
    """Values in (0, 1] (``low_open``) or in [0, 1]; null and NaN are out of range."""
    c = pl.col(column).cast(pl.Float64)
    low = (c <= 0) if low_open else (c < 0)
    return Rule(column, rule, (low | (c > 1) | c.is_null() | c.is_nan()).fill_null(True))


def finite_rule(column: str, rule: str = "must be a finite number") -> Rule:
    """Values that are finite numbers (not null, NaN or infinite)."""
    c = pl.col(column).cast(pl.Float64)
    return Rule(column, rule, (c.is_null() | ~c.is_finite()).fill_null(True))


def constant_rule(column: str, impression: str) -> Rule:
    """A column that is one value per impression (a slate's joint propensity)."""
    c = pl.col(column)
    run = pl.when(pl.col(FIRST)).then(False).otherwise(c.ne_missing(c.shift(1)))
    return Rule(column, "must be one value per impression (the whole slate's propensity)",
                c.n_unique() > 1, whole=True, run=run)


def missing_id(column: str, dtype: pl.DataType) -> Rule:
    """An id that is null, or NaN in a float column (pandas' missing integer id)."""
    bad = pl.col(column).is_null()
    if dtype.is_float():
        bad = bad | pl.col(column).is_nan()
    return Rule(column, "must not be null", bad)


def check_numeric(schema: pl.Schema, columns: Sequence[str], *, caller: str,
                  positions: Sequence[str] = ()) -> None:
    """Raise if a column of numbers (or of booleans; not ``positions``) has another type."""
    for name in columns:
        dtype = schema[name]
        if not (dtype.is_numeric() or dtype == pl.Null
                or (dtype == pl.Boolean and name not in positions)):
            msg = f"{caller}: column {name!r} must hold numbers, got {dtype}"
            raise InvalidDataError(msg)


# the per-estimator columns of value._per_impression (num0, den0, w0, ww0, sw0, sww0, mw0,
# near0, ...); its other working columns start with "__"
_WORKING = re.compile(r"(num|den|w|ww|sw|sww|mw|near)[0-9]+")


def check_group_by(group_by: Sequence[str], *, impression: str, position: str,
                   result: Sequence[str]) -> None:
    """ValueError for a slice column that is the impression, the position or a result column.

    Or one named like the estimators' working columns (``num0``, ``den0``, ``w0``, ``ww0``,
    ``sw0``, ``sww0``, ``mw0``, ``near0``, ... and names starting with ``__``), which Polars
    refused as duplicates deep in the plan.
    """
    check_result_names("group_by", group_by, result)
    internal = [g for g in group_by if g.startswith("__") or _WORKING.fullmatch(g)]
    if internal:
        msg = (f"group_by columns may not be named like the estimators' working columns "
               f"(num0, den0, w0, ww0, sw0, sww0, mw0, near0, ..., or __...): "
               f"{sorted(internal)}")
        raise ValueError(msg)
    for name in group_by:
        if name in (impression, position):
            role = "impression" if name == impression else "position"
            msg = (f"group_by must not hold the {role} column {name!r}: a slice is a set of "
                   "whole impressions")
            raise ValueError(msg)


def rank_rules(column: str, *, within_list: bool = False,
               impression: str | None = None) -> list[Rule]:
    """A ranking's ranks on an impression's rows: whole numbers >= 1, each once (null: unranked).

    ``within_list``: only the ranks 1..n (n the impression's rows) must be distinct, a
    rank below the list (any number > n) may mean "not in the slate" for several rows.
    ``impression``: give the repeated rank its row form (for ``row_flags``), a window
    over the impression's rows: a row whose rank another row of its impression has.
    """
    r = pl.col(column)
    ranked = r.drop_nulls()
    if within_list:
        ranked = ranked.filter(ranked <= pl.len())
    run = None
    if impression is not None:
        counted = r.is_not_null() & (pl.len().over(impression, column) > 1)
        if within_list:
            counted = counted & (r <= pl.len().over(impression))
        run = counted.fill_null(False)
    where = "within the list " if within_list else ""
    return [Rule(column, "must be a whole-number rank >= 1 or null",
                 ((r < 1) | (r.cast(pl.Float64) != r.cast(pl.Float64).round())
                  | r.cast(pl.Float64).is_nan()).fill_null(False)),
            Rule(column, f"must rank each item once {where}(two rows of an impression have one "
                 "rank)", ranked.n_unique() != ranked.len(), whole=True, run=run)]
