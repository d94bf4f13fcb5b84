"""A click log, checked and put in the canonical columns the click models read.

One row per (impression, position): the impression (a search session's result page),
its display position 1..n, the query, the item shown and a 0/1 click. The models read
it in canonical column names (``IMP``, ``POS``, ``QUERY``, ``ITEM``, ``CLICK``), one
order (impression, position), so that no result depends on the order of the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError
from polars_rank.online._order import sorted_by, starts

__all__ = ["Columns", "prepare", "hashable", "IMP", "POS", "QUERY", "ITEM", "CLICK"]

IMP, POS, QUERY, ITEM, CLICK = "_imp", "_pos", "_query", "_item", "_click"


@dataclass(frozen=True)
class Columns:
    """The names of a click log's columns."""

    impression: str = "impression"
    position: str = "position"
    query: str = "query"
    item: str = "item"
    click: str = "click"

    def canonical(self) -> list[tuple[str, str]]:
        """The log's names with the canonical ones (a column may play two roles)."""
        return [(self.impression, IMP), (self.position, POS), (self.query, QUERY),
                (self.item, ITEM), (self.click, CLICK)]


def _first(frame: pl.DataFrame) -> object:
    return frame.sort(IMP).get_column(IMP)[0]


def hashable(dtype: pl.DataType) -> pl.Expr:
    """The impression id as a random draw hashes it: a categorical as its text.

    Polars 1.36 hashes a categorical's physical code, which depends on the categories
    the process met before (the same log would draw other clicks in another session);
    its text gives the same draws as a string column.
    """
    if isinstance(dtype, (pl.Categorical, pl.Enum)):
        return pl.col(IMP).cast(pl.String)
    return pl.col(IMP)


def _clean(frame: pl.DataFrame, *, clicks: bool) -> pl.DataFrame | None:
    """The log cast and sorted if it breaks no rule (one pass over the sorted rows), else None.

    Sorted by (impression, position), an impression's positions are 1..n, each once,
    when the first is 1 and each the one before plus 1; its query is one when each row's
    is the one before's. None (the rule-by-rule checks name the offence) also for a
    NaN id (pandas' missing id), clicks that are not numbers or booleans, and float
    positions that are not whole numbers.
    """
    if any(frame.null_count().row(0)):
        return None
    schema = frame.schema
    nan_ids = [pl.col(c).is_nan().any() for c in (IMP, QUERY, ITEM) if schema[c].is_float()]
    if nan_ids and any(frame.select(nan_ids).row(0)):
        return None
    if schema[POS].is_float():
        whole = pl.col(POS).is_finite() & (pl.col(POS) == pl.col(POS).round())
        if not frame.select(whole.all()).item():
            return None
    if clicks:
        if not (schema[CLICK].is_numeric() or schema[CLICK] == pl.Boolean):
            return None
        if not frame.select(pl.col(CLICK).cast(pl.Float64).is_in([0.0, 1.0]).all()).item():
            return None
        frame = frame.with_columns(pl.col(CLICK).cast(pl.Float64))
    frame = sorted_by(frame.with_columns(pl.col(POS).cast(pl.Int64)), [IMP, POS])
    first, p, q = starts([IMP]), pl.col(POS), pl.col(QUERY)
    bad = pl.when(first).then(p != 1).otherwise(
        (p != p.shift(1) + 1) | (q != q.shift(1)))
    return None if frame.select(bad.any()).item() else frame


def prepare(log: object, columns: Columns, *,
            clicks: bool = True, what: str = "log") -> pl.DataFrame:
    """The log in canonical columns, checked, sorted by (impression, position).

    ``log`` is anything :func:`~polars_rank._engine.frames.as_polars` reads (a Polars
    or pandas frame, an Arrow table...). Raises
    :class:`~polars_rank.errors.InvalidDataError` naming the column and the
    first offending impression: a click not 0 or 1, a position not an integer,
    positions of an impression that are not 1..n (a gap, a duplicate), an impression
    with two queries, a null key, no row at all. ``clicks=False`` reads a ranking without
    clicks (which may be empty).
    """
    log = as_polars(log, what)
    names = columns.canonical()
    roles = {columns.position, columns.click}
    if len(roles) < 2 or roles & {columns.impression, columns.query, columns.item}:
        msg = (f"the click log's position and click must be columns of their own, got "
               f"position={columns.position!r}, click={columns.click!r}")
        raise ValueError(msg)
    if not clicks:
        names = [(name, new) for name, new in names if new != CLICK]
    schema = log.collect_schema() if isinstance(log, pl.LazyFrame) else log.schema
    missing = [name for name, _ in names if name not in schema]
    if missing:
        msg = (
            f"the click log has no column {missing[0]!r} "
                               f"(columns: {list(schema)})"
        )
        raise InvalidDataError(msg)
    if not (schema[columns.position].is_integer() or schema[columns.position].is_float()):
        msg = (
            f"column {columns.position!r} must hold integer positions "
                               f"1..n, got {schema[columns.position]}"
        )
        raise InvalidDataError(msg)
    frame = log.lazy().select([pl.col(name).alias(new) for name, new in names]).collect()
    if clicks and frame.height == 0:
        msg = f"the click {what} is empty: no impression to fit or score"
        raise InvalidDataError(msg)
    clean = _clean(frame, clicks=clicks)
    if clean is not None:
        return clean
    # something is wrong: find the first offence, rule by rule, to name it
    for name, new in names:
        missing_id = pl.col(new).is_null()
        if new in (IMP, QUERY, ITEM) and frame.schema[new].is_float():  # pandas' missing id
            missing_id = missing_id | pl.col(new).is_nan()
        nulls = frame.filter(missing_id)
        if nulls.height:
            where = ("" if new == IMP else f" in impression {_first(nulls)!r}")
            msg = f"column {name!r} has a null (or NaN) value{where}"
            raise InvalidDataError(msg)
    if clicks:
        if not (schema[columns.click].is_numeric() or schema[columns.click] == pl.Boolean):
            msg = (f"column {columns.click!r} must hold clicks 0 or 1 (numbers or booleans), "
                   f"got {schema[columns.click]}")
            raise InvalidDataError(msg)
        bad = frame.filter(~pl.col(CLICK).cast(pl.Float64).is_in([0.0, 1.0]))
        if bad.height:
            row = bad.sort(IMP, POS).row(0, named=True)
            msg = (
                f"column {columns.click!r} must be 0 or 1: impression "
                                   f"{row[IMP]!r} has {row[CLICK]!r} at position {row[POS]}"
            )
            raise InvalidDataError(msg)
        frame = frame.with_columns(pl.col(CLICK).cast(pl.Float64))
    if schema[columns.position].is_float():  # 1.0, 2.0 (a pandas column with NaN once) are fine
        bad = frame.filter(~pl.col(POS).is_finite() | (pl.col(POS) != pl.col(POS).round()))
        if bad.height:
            row = bad.sort(IMP, POS).row(0, named=True)
            msg = (f"column {columns.position!r} must hold integer positions 1..n: impression "
                   f"{row[IMP]!r} has {row[POS]!r}")
            raise InvalidDataError(msg)
    frame = frame.with_columns(pl.col(POS).cast(pl.Int64))
    dup = frame.filter(pl.len().over(IMP, POS) > 1)
    if dup.height:
        row = dup.sort(IMP, POS).row(0, named=True)
        msg = (
            f"column {columns.position!r} has a duplicate position "
                               f"{row[POS]} in impression {row[IMP]!r}"
        )
        raise InvalidDataError(msg)
    shape = frame.group_by(IMP).agg(pl.len().alias("n"), pl.col(POS).min().alias("lo"),
                                    pl.col(POS).max().alias("hi"),
                                    pl.col(QUERY).n_unique().alias("queries"))
    gaps = shape.filter((pl.col("lo") != 1) | (pl.col("hi") != pl.col("n")))
    if gaps.height:
        row = gaps.sort(IMP).row(0, named=True)
        msg = (
            f"column {columns.position!r} must number the results of an "
                               f"impression 1..n: impression {row[IMP]!r} has positions "
                               f"{row['lo']}..{row['hi']} for {row['n']} rows"
        )
        raise InvalidDataError(msg)
    two = shape.filter(pl.col("queries") > 1)
    if two.height:
        msg = (
            f"column {columns.query!r} must hold one query per impression: "
                               f"impression {_first(two)!r} has {two.sort(IMP)['queries'][0]}"
        )
        raise InvalidDataError(msg)
    return frame.sort(IMP, POS)
