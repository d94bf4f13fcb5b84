"""A click log, checked and put in the canonical columns the click models read.

One row per (impression, position): the impression (a search session's result page),
its display position 1..n, the query, the item shown and a 0/1 click. The models read
it in canonical column names (``IMP``, ``POS``, ``QUERY``, ``ITEM``, ``CLICK``), one
order (impression, position), so that no result depends on the order of the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from polars_rank.errors import InvalidDataError

__all__ = ["Columns", "prepare", "IMP", "POS", "QUERY", "ITEM", "CLICK"]

IMP, POS, QUERY, ITEM, CLICK = "_imp", "_pos", "_query", "_item", "_click"


@dataclass(frozen=True)
class Columns:
    """The names of a click log's columns."""

    impression: str = "impression"
    position: str = "position"
    query: str = "query"
    item: str = "item"
    click: str = "click"

    def canonical(self) -> dict[str, str]:
        """The log's names to the canonical ones."""
        return {self.impression: IMP, self.position: POS, self.query: QUERY,
                self.item: ITEM, self.click: CLICK}


def _first(frame: pl.DataFrame) -> object:
    return frame.sort(IMP).get_column(IMP)[0]


def prepare(log: pl.DataFrame | pl.LazyFrame, columns: Columns, *,
            clicks: bool = True) -> pl.DataFrame:
    """The log in canonical columns, checked, sorted by (impression, position).

    Raises :class:`~polars_rank.errors.InvalidDataError` naming the column and the
    first offending impression: a click not 0 or 1, a position not an integer,
    positions of an impression that are not 1..n (a gap, a duplicate), an impression
    with two queries, a null key. ``clicks=False`` reads a ranking without clicks.
    """
    if not isinstance(log, (pl.DataFrame, pl.LazyFrame)):
        msg = f"log must be a polars DataFrame or LazyFrame, got {type(log).__name__}"
        raise TypeError(msg)
    names = columns.canonical()
    if not clicks:
        names.pop(columns.click)
    schema = log.collect_schema() if isinstance(log, pl.LazyFrame) else log.schema
    missing = [name for name in names if name not in schema]
    if missing:
        msg = (
            f"the click log has no column {missing[0]!r} "
                               f"(columns: {list(schema)})"
        )
        raise InvalidDataError(msg)
    if not schema[columns.position].is_integer():
        msg = (
            f"column {columns.position!r} must hold integer positions "
                               f"1..n, got {schema[columns.position]}"
        )
        raise InvalidDataError(msg)
    frame = log.lazy().select([pl.col(name).alias(new) for name, new in names.items()]).collect()
    for name, new in names.items():
        nulls = frame.filter(pl.col(new).is_null())
        if nulls.height:
            where = ("" if new == IMP else f" in impression {_first(nulls)!r}")
            msg = f"column {name!r} has a null value{where}"
            raise InvalidDataError(msg)
    if clicks:
        bad = frame.filter(~pl.col(CLICK).cast(pl.Float64).is_in([0.0, 1.0]))
        if bad.height:
            row = bad.sort(IMP, POS).row(0, named=True)
            msg = (
                f"column {columns.click!r} must be 0 or 1: impression "
                                   f"{row[IMP]!r} has {row[CLICK]!r} at position {row[POS]}"
            )
            raise InvalidDataError(msg)
        frame = frame.with_columns(pl.col(CLICK).cast(pl.Float64))
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
