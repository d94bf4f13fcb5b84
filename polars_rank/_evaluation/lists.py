"""Numbering the ranked lists: one integer per (group..., query), cheaper than the ids.

Sorting and grouping on a number is several times cheaper than on the id strings;
the numbers are also the high half of the ranking's sort key
(:mod:`polars_rank._evaluation.ranking`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

import polars as pl

from polars_rank._evaluation.options import LIST

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["ListCode", "list_code"]


class ListCode(NamedTuple):
    """:func:`list_code`'s result."""

    code: pl.Expr
    """The list's number (UInt64, below 2**32) of each row."""
    lists: Callable[[pl.DataFrame], pl.DataFrame]
    """From the collected frame holding ``code`` as ``LIST``: one row (``LIST``,
    keys...) per list."""


def _lists_of_rows(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """One row (``LIST``, keys...) per list: the first row of each number."""
    return frame.select(pl.col(LIST, *keys).gather(frame[LIST].arg_unique()))


def list_code(frame: pl.LazyFrame, keys: list[str]) -> ListCode | None:
    """A number per list (combination of ``keys``) below 2**32, or ``None``.

    A run whose lists each come as one block of rows (as trec_eval's files do) is
    numbered by its blocks (:func:`_grouped_code`). Otherwise each key column is
    numbered (the codes of a categorical for strings, the dense rank for integers; a
    null is a value of its own) and the numbers are combined in mixed radix. ``None``
    when a key has another type or the combinations would not fit in 32 bits: the
    window ranking handles those lists. Eager: the codes of one categorical cast agree
    only within one column.
    """
    schema = frame.collect_schema()
    if not all(schema[key] == pl.String or schema[key].is_integer() for key in keys):
        return None
    grouped = _grouped_code(frame, keys)
    if grouped is not None:
        blocks, firsts = grouped
        return ListCode(pl.lit(blocks), lambda _: firsts)
    codes = []
    # each string column a categorical of its own: codes 0, 1, ... as the rows are read.
    # Polars keeps a categorical's names only while a Series or an expression of its
    # type lives (neither the ``Categories`` object nor a bare dtype holds them): an
    # empty Series of the type keeps them for :func:`_category_lists` (a workaround:
    # tests/test_workarounds.py tells when Polars keeps them)
    anchors = {key: pl.Series(key, [], dtype=pl.Categorical(pl.Categories.random()))
               for key in keys if schema[key] == pl.String}
    for key in keys:
        if key in anchors:
            code = pl.col(key).cast(anchors[key].dtype).to_physical()
        else:  # an integer
            code = pl.col(key).rank("dense")
        codes.append(code.cast(pl.UInt64).alias(key))
    if len(keys) == 1:  # one query column: its codes (all below 2**32 - 1), null last
        key = keys[0]
        lists: Callable[[pl.DataFrame], pl.DataFrame] = (
            (lambda run: _category_lists(anchors[key], run, key)) if key in anchors
            else (lambda run: _lists_of_rows(run, keys)))
        return ListCode(codes[0].fill_null(2**32 - 1), lists)
    numbered = frame.select(codes).collect()
    numbered = numbered.with_columns(pl.col(k).fill_null(pl.col(k).max().fill_null(0) + 1)
                                     for k in keys)
    out = pl.lit(0, pl.UInt64)
    size = 1
    for key in keys:
        radix = int(numbered.select(pl.col(key).max()).item() or 0) + 1
        size *= radix
        if size >= 2**32:
            return None
        out = out * radix + pl.col(key)
    return ListCode(pl.lit(numbered.select(out.alias(LIST)).to_series()),
                     lambda run: _lists_of_rows(run, keys))


def _category_lists(anchor: pl.Series, run: pl.DataFrame, key: str) -> pl.DataFrame:
    """The lists of one string query column numbered by the codes of ``anchor``'s type.

    Code i is the i-th category (those of this one cast, all of them in the run), and
    a null query id is number 2**32 - 1: no pass over the rows (docs/performance.md,
    "Behind the code"). ``anchor``, an empty Series of the categorical type,
    keeps the names alive (:func:`list_code`).
    """
    dtype = anchor.dtype
    assert isinstance(dtype, pl.Categorical)
    names = dtype.categories.to_series()
    lists = pl.DataFrame({LIST: pl.int_range(names.len(), dtype=pl.UInt64, eager=True),
                          key: names})
    if run[key].null_count():
        nulls = pl.DataFrame({LIST: [2**32 - 1], key: [None]},
                             schema={LIST: pl.UInt64, key: pl.String})
        lists = pl.concat([lists, nulls])
    return lists


def _grouped_code(frame: pl.LazyFrame,
                  keys: list[str]) -> tuple[pl.Series, pl.DataFrame] | None:
    """The block number of each row (0, 1, ...) when each list is one block, or ``None``.

    With the numbers, their lists: one row (``LIST``, keys...) per block.

    A block is a run of consecutive rows with equal keys (``rle_id``, several times
    cheaper than a categorical cast of the ids: docs/performance.md, "Behind the
    code"). The blocks are the
    lists when no two blocks share their keys, checked on the first row of each.
    Blocks averaging fewer than 4 rows, in the first 2**16 rows or in all, mean the
    rows are not grouped: ``None`` without checking.
    """
    key = pl.struct(keys) if len(keys) > 1 else pl.col(keys[0])
    head = frame.head(2**16).select(key.rle_id().max().alias(LIST), pl.len()).collect()
    last, rows = head.row(0)
    if last is None or (last + 1) * 4 > rows:
        return None
    code = frame.select(key.rle_id().alias(LIST)).collect().to_series()
    if (code[-1] + 1) * 4 > code.len():
        return None
    firsts = frame.select(keys).filter(code.diff().fill_null(1) != 0).collect()
    if not firsts.is_unique().all():
        return None
    return code, firsts.with_row_index(LIST).with_columns(pl.col(LIST).cast(code.dtype))
