"""The terms a kernel sums over ranks: weights of a first hit, unit counts, weights by parts."""

from __future__ import annotations

import polars as pl

from polars_rank._engine.ranked import Ranked

__all__ = ["by_parts_weights", "count", "reached", "reciprocal"]


def reciprocal(rank: pl.Expr) -> pl.Expr:
    """The weight of a first hit at ``rank`` for reciprocal rank: 1 / rank."""
    return 1.0 / rank


def reached(rank: pl.Expr) -> pl.Expr:
    """The weight of a first hit for "any hit at all": 1 (null, no hit, stays null)."""
    return rank * 0.0 + 1.0


def count(lo: pl.Expr, hi: pl.Expr) -> pl.Expr:
    """The number of ranks lo..hi: the sum of unit terms (P@k, R@k, CTR)."""
    return (hi - lo + 1).cast(pl.Float64)


def by_parts_weights(k: int | None, last: pl.Expr) -> pl.Expr:
    """Weights w_p, over the ranks 1..min(n, k), for summing differences by parts.

    sum_(p=1..m) (A_p - A_(p-1)) / p = sum_p A_p * w_p - A_0, with w_p = 1/(p (p + 1))
    below the last rank m (``last``), 1/m at it and 0 past it. A metric whose terms are
    such differences of a running value A (a cumulative sum or product of the ranked
    values) then names the ranked values once: in a ``group_by`` or window context,
    Polars evaluates every name of a sub-expression on its own (a sort per list each).

    The weights are sums of 0/1 masks times values, not a ``when/then/when`` chain:
    Polars 2.1's in-memory engine panics on that chain in a ``select`` when the masks
    are shorter than the frame (the first min(n, k) ranks); the canary
    ``test_a_chained_when_of_a_short_mask_still_panics_in_memory`` tells when it no
    longer does. Adding 0.0 and multiplying by 1.0 leave every weight exact.
    """
    ranks = Ranked.ideal_positions(k)
    rank = ranks.cast(pl.Float64)
    below = (ranks < last).cast(pl.Float64)
    at = (ranks == last).cast(pl.Float64)
    return below * (1.0 / (rank * (rank + 1.0))) + at * (1.0 / rank)
