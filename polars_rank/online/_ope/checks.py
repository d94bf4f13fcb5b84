"""The checks of a log: columns present, propensities in (0, 1], positions 1..n, support.

Each rule is a boolean expression that is true on an offending row (or impression);
each becomes a flag per impression in the estimator's own aggregation, so checking
costs no extra pass over the log, and the first offending impression (in impression
order) is named in an :class:`~polars_rank.errors.InvalidDataError` with the rule and
the column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Rule", "constant_rule", "finite_rule", "flags",
           "missing_columns", "position_rules", "range_rule", "raise_flagged"]


@dataclass(frozen=True)
class Rule:
    """An offending row is one where ``bad`` is true; ``column`` is the one to blame.

    ``whole``: ``bad`` is an aggregation over an impression's rows (positions 1..n, one
    value per impression) rather than a row's test.
    """

    column: str
    rule: str
    bad: pl.Expr
    whole: bool = False

    def flag(self) -> pl.Expr:
        """Per impression (in a ``group_by``), whether it breaks the rule."""
        return self.bad if self.whole else self.bad.any()


def flags(rules: Sequence[Rule]) -> list[pl.Expr]:
    """The per-impression aggregations ``raise_flagged`` reads, one per rule."""
    return [r.flag().alias(f"__bad{n}") for n, r in enumerate(rules)]


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
        mine = rows.filter(pl.col(impression).is_null() if which is None
                           else pl.col(impression) == which)
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
    return [Rule(position, "must be positions 1..n within an impression, each once", whole,
                 whole=True)]


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
    return Rule(column, "must be one value per impression (the whole slate's propensity)",
                c.n_unique() > 1, whole=True)
