"""Canaries: each fails when Polars no longer needs the workaround it names.

When one fails, simplify the code it points to and delete the canary.
"""

from __future__ import annotations

import polars as pl
import pytest

POLARS_2 = int(pl.__version__.split(".")[0]) >= 2


def _prefix_table_precision_sum() -> pl.Expr:
    """Expected AP's sum of 1/p over each tie group, gathered from a prefix table.

    The form ``polars_rank/metrics/binary.py`` (``_expected_precision_sum``) had
    before it summed ``int_ranges`` per group instead.
    """
    lo, hi = pl.col("rank"), pl.col("rank_last")
    mask = (pl.col("rel") >= 1).fill_null(False) & lo.is_not_null()
    lo_h, hi_h = lo.filter(mask), hi.filter(mask)
    c = (lo_h.rank("min") - 1).cast(pl.Float64)
    m = (lo_h.rank("max") - lo_h.rank("min") + 1).cast(pl.Float64)
    n = (hi_h - lo_h + 1).cast(pl.Float64)
    n_ret = hi.max().cast(pl.Int64).fill_null(0)
    ranks = pl.int_range(1, n_ret + 1, dtype=pl.Int64)
    inverse = pl.when(ranks <= n_ret).then(1.0 / ranks.cast(pl.Float64)).otherwise(0.0)
    table = pl.lit(0.0).append(inverse.cum_sum())
    harmonic = table.gather(hi_h) - table.gather(lo_h - 1)
    slots = (pl.min_horizontal(hi_h, n_ret) - lo_h + 1).clip(lower_bound=0).cast(pl.Float64)
    a = m / n * (c + 1.0)
    b = m * (m - 1.0) / (n * (n - 1.0)).clip(lower_bound=1.0)
    return (((a - b * lo_h.cast(pl.Float64)) * harmonic + b * slots) / m).sum()


@pytest.mark.skipif(not POLARS_2, reason="Polars 1.x evaluates it (the panic came with 2.x)")
def test_prefix_table_in_a_group_by_of_no_rows_still_panics() -> None:
    """Polars 2.1 panics ("cannot get ref Float64 from Null") on that expression in a
    ``group_by`` of an empty frame; the same expression on rows is fine."""
    empty = pl.DataFrame(schema={"q": pl.Int64, "rel": pl.Float64, "rank": pl.Int64,
                                 "rank_last": pl.Int64})
    # when this stops raising, _expected_precision_sum in polars_rank/metrics/binary.py
    # can gather from a prefix table again (a Rust panic is a BaseException)
    with pytest.raises(BaseException, match="cannot get ref"):
        empty.group_by("q").agg(_prefix_table_precision_sum())
