"""Whether a frame's rows are already in an order, and where each group of rows starts.

A log is usually written in (impression, position) order; checking that costs one pass
over the keys, where sorting a million rows again costs several (and a sort in a lazy
plan over a scanned file more still: Polars 2.1 took 4x the read).
"""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["in_order", "sorted_by", "starts"]


def in_order(frame: pl.DataFrame, order: Sequence[str]) -> bool:
    """Whether the rows are sorted by ``order``, ascending, nulls first (``sort``'s order).

    >>> in_order(pl.DataFrame({"a": [1, 1, 2], "b": [None, 3, 1]}), ["a", "b"])
    True
    >>> in_order(pl.DataFrame({"a": [1, 1, 2], "b": [3, None, 1]}), ["a", "b"])
    False
    """
    if frame.height < 2:
        return True
    later, same = pl.lit(False), pl.lit(True)
    for name in order:
        c, before = pl.col(name), pl.col(name).shift(1)
        # this key decides where the keys before it are equal
        up = (c.is_not_null() & before.is_null()) | (c > before).fill_null(False)
        later = later | (same & up)
        same = same & c.eq_missing(before)
    return bool(frame.select((later | same).slice(1).all()).item())


def sorted_by(frame: pl.DataFrame, order: Sequence[str]) -> pl.DataFrame:
    """``frame.sort(order)``, without the sort when the rows are in that order already."""
    return frame if in_order(frame, order) else frame.sort(list(order))


def starts(keys: Sequence[str]) -> pl.Expr:
    """True on a row whose ``keys`` differ from the row before's (and on the first row)."""
    return functools.reduce(operator.or_, [pl.col(k).ne_missing(pl.col(k).shift(1))
                                           for k in keys], pl.int_range(pl.len()) == 0)
