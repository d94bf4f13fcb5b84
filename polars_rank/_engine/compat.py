"""What differs between the Polars versions we support (1.36 to 2.x), in one place.

Each fact names the test that watches it (tests/test_workarounds.py and the canaries
beside the code they guard): a canary fails when Polars changes, and the workaround
can then go.
"""

from __future__ import annotations

import functools
import operator
import sys
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["HAS_BIT_CAST", "POLARS_2", "PREPARED_RANKS", "SLICES_BY_MANY_OFFSETS",
           "TOP_ROWS", "any_true", "counted_cheaply", "group_sum", "nonempty", "partitioned_sink",
           "per_list", "row_sum", "safe_div", "times_reciprocal"]

_SMALLEST_NORMAL = sys.float_info.min  # 2.2e-308

POLARS_2 = int(pl.__version__.split(".")[0]) >= 2
"""Polars 2.x (the newest we test) rather than 1.x (the oldest we support)."""

PREPARED_RANKS = POLARS_2
"""Whether ``evaluate()`` passes its metrics a marked rank column
(:class:`polars_rank._engine.ranked.RankColumn`) whose rows come in rank order. On Polars 1.x
the marked path gave a wrong nDCG (the floor pass found it): there it is read as a
plain rank column."""

TOP_ROWS = POLARS_2
"""Whether :meth:`polars_rank._engine.keys.TieAveraged.top_rows` is used. On Polars 1.36 a
struct of rows filtered in a ``group_by`` took rows of other groups
(``test_a_struct_of_filtered_fields_in_a_group_by_still_sorts_other_rows``), and
these structs were not tried there: ``ties="expected"`` ranks whole lists, as before."""

SLICES_BY_MANY_OFFSETS = POLARS_2
"""Whether ``list.slice`` cuts one list at many offsets (Polars 2): the segment sums of
ERR under ``ties="expected"`` need it, exactly. Polars 1.x wants one offset per list
and has no exact alternative in ``list.eval`` (no ``over``, no dynamic ``reshape``;
differences of running sums lose digits), so ERR under ``ties="expected"`` raises
there (canary ``test_a_list_is_still_sliced_at_one_offset_on_polars_1``)."""


def _bit_cast_available() -> bool:
    """Whether this Polars reinterprets a float's bits (``reinterpret(dtype=)``, 2.x)."""
    try:
        pl.lit(0.0, pl.Float32).reinterpret(dtype=pl.Int32)
    except TypeError:
        return False
    return True


HAS_BIT_CAST = _bit_cast_available()
"""Polars 1.x cannot reinterpret a float's bits: there trec_eval ties use the window ranking."""


def nonempty(lists: pl.Expr, filler: pl.Expr) -> pl.Expr:
    """``lists`` with each empty list replaced by ``filler`` (a one-element list literal).

    For ``lists.list.eval(<an aggregate>)``: Polars 1.36 gives the aggregate of an
    empty list no value, and the values of the lists after it move up one list, in
    ``select`` and ``group_by`` alike (a wrong number for every later list; canary
    ``test_an_aggregate_of_an_empty_list_still_shifts_the_next_lists``). The caller
    gives a filler whose result it discards or which gives the empty list's value.
    """
    return pl.when(lists.list.len() > 0).then(lists).otherwise(filler)


def group_sum(values: pl.Expr) -> pl.Expr:
    """The sum of ``values`` over a group, added in the group's row order (nulls: 0).

    Polars 2.1's lazy ``group_by`` adds a group's float values so that the last bit
    depends on where the group sits in the frame: the same rows in the same order sum
    differently when other groups come before them (the canary
    ``test_canary_polars_group_sums_follow_the_groups_position``; Polars 1.36 gives
    one sum). A query's value must not depend on which queries precede it, so a
    metric adds its float terms with this: the group as one list, summed (its cost:
    docs/performance.md, "Order-free group sums").
    """
    # an empty list sums to -0.0 (IEEE's additive identity), which would print as such;
    # "+ 0.0" left hit_rate's doctest at -0.0 in a group_by: compared, not added
    total = values.implode().list.sum()
    return pl.when(total == 0.0).then(0.0).otherwise(total)


def row_sum(terms: Iterable[pl.Expr]) -> pl.Expr:
    """The terms added left to right, row by row (``((t0 + t1) + t2) + ...``).

    ``pl.sum_horizontal`` of float columns adds them in an order that differs between
    the eager and the lazy engine, and over many columns on Polars 2.1 with the row's
    position in the frame (the canary
    ``test_canary_polars_sum_horizontal_follows_the_rows_position``): a chain of
    ``+`` adds them in one order.
    """
    return functools.reduce(operator.add, terms)


def times_reciprocal(value: pl.Expr, constant: float) -> pl.Expr:
    """``value / constant`` as ``value * (1 / constant)``, in every plan.

    Polars 2.1 computes a per-group value divided by a float literal sometimes as a
    division and sometimes as a product with the reciprocal, by how the groups are
    held (a ``group_by`` on a key flagged sorted, or not): INSQ's last bit followed
    the list's position (tests/test_list_position.py). One spelling, one value.
    """
    return value * (1.0 / constant)


def per_list(value: float) -> pl.Expr:
    """``value`` as one Float64 per list, not a literal, to divide by.

    Polars divides a column by a literal by multiplying with its reciprocal, which
    can be an ulp off the quotient: in a ``group_by``, P@10 with 3 hits came out as
    3 * (1/10) = 0.30000000000000004 where trec_eval prints 3 / 10 = 0.3. A value per
    list (the list's length times 0, plus ``value``) is divided element by element
    (a Polars workaround: tests/test_workarounds.py tells when it is no longer needed).
    """
    return pl.len().cast(pl.Float64) * 0.0 + float(value)


def safe_div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den``, 0 where ``den`` is 0.

    Every use divides a part by its whole (hits by rows shown, relevant retrieved by
    relevant, DCG by the ideal DCG), both non-negative, so ``num`` is 0 wherever
    ``den`` is: raising ``den`` to the smallest normal float (a whole that small would
    need labels below 1e-307) gives 0 / tiny = 0 there, also where Polars multiplies
    by the reciprocal (which a subnormal would make infinite). ``den`` appears once
    on purpose: in a ``group_by`` context Polars does not share a repeated
    sub-expression, and ``when(den > 0)`` (or ``fill_nan``) computed the ideal DCG,
    a sort per list, twice (tests/test_workarounds.py tells when Polars shares it).
    """
    return num / den.clip(lower_bound=_SMALLEST_NORMAL)


def any_true(mask: pl.Expr) -> pl.Expr:
    """Whether any row of ``mask`` is true in the context's group: ``mask.sum() > 0``.

    Not ``mask.any()``: on Polars 1.36, in a window whose lists are not contiguous
    rows, ``when(mask.any())`` of a mask from a per-list expression (a ``rank()``,
    ``is_duplicated()``) mapped the value back to the rows in the lists' order
    (canary in tests/test_workarounds.py, skipped on Polars 2, which maps it right).
    """
    return mask.sum() > 0


def counted_cheaply(frame: pl.LazyFrame) -> int | None:
    """The rows of a LazyFrame whose count reads no data, or None.

    A file's metadata (Parquet, IPC), a CSV's line count and a frame in memory count
    cheaply.
    A plan that must run to be counted (a join, a filter, a Python function) is not
    counted: counting it would read its sources once more, and the default would
    cost a pass where ``memory="high"`` reads them once. The optimised count plan
    says which: a scan or a frame under the count, and nothing else. Polars has no API
    for "does this count read data"; the text of ``explain()`` is read instead
    (canary: ``test_a_cheap_count_is_told_from_the_explained_plan``).
    """
    count = frame.select(pl.len())
    lines = [line.strip() for line in count.explain().splitlines() if line.strip()]
    source = lines[1] if len(lines) > 1 else ""
    bare = (lines[:1] == ["SELECT [len()]"]
            and (source.startswith("DF ") or ("SCAN [" in source and "PYTHON" not in source))
            and all(line.startswith(("PROJECT", "ESTIMATED ROWS")) for line in lines[2:]))
    fast = bool(lines) and lines[0].startswith("FAST COUNT")  # a CSV's line count
    if not (bare or fast):
        return None
    return int(count.collect().item())


def partitioned_sink(folder: str, key: str) -> object | None:  # the type differs by version
    """The partitioned Parquet target of this Polars (its name changed in 2.0), or None.

    Canary: ``test_a_partitioned_sink_exists_on_every_supported_polars``.
    """
    if hasattr(pl, "PartitionBy"):  # Polars 2.x
        return pl.PartitionBy(folder, key=key, include_key=True)
    by_key = getattr(pl, "PartitionByKey", None)  # Polars 1.x (unstable API)
    return None if by_key is None else by_key(folder, by=key, include_key=True)
