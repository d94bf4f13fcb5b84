"""Sums and means whose value does not depend on the order of the rows.

A float sum depends on the order of its terms, and Polars adds a group's values in
an order that follows the rows (a join, a ``group_by`` or a shuffle changes it) and,
in a ``group_by`` on the streaming engine, the morsels. A ``sort()`` right before
``sum()`` does not help: Polars drops it as useless. These helpers add the values
smallest first, as one list: the same terms in the same order on every call.
Measured (1M rows, 100k lists of 10, in a window): 1.9x a plain ``mean()``; a
``sort().cum_sum().last()`` was 3.9x.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

__all__ = ["ordered_mean", "ordered_sum"]


def ordered_sum(values: pl.Expr) -> pl.Expr:
    """The sum of ``values`` (nulls left out) added smallest first; 0 without values."""
    return values.drop_nulls().sort().implode().list.sum()


def ordered_mean(values: pl.Expr) -> pl.Expr:
    """The mean of ``values`` (nulls left out) added smallest first; null without values."""
    return values.drop_nulls().sort().implode().list.mean()
