"""Random draws inside a plan: a uniform number per row from a hash of the row's keys.

Every random number the package draws inside a lazy plan (interleaving's coins,
simulated clicks, a click model's bootstrap weights, sampled labels) is a function of a
seed and the row's ids, never of the row order or the thread count. The hash is Polars'
``Expr.hash``, which Polars keeps stable within a version, not across versions: the
same seed gives the same draws on the same Polars, and may give others after an
upgrade (the guides say so). ``datasets.synthetic_click_log`` draws with SplitMix64
written as integer arithmetic on integer ids instead, the same on every version.
"""

from __future__ import annotations

import polars as pl

__all__ = ["uniform"]

_TWO_53 = float(2**53)


def uniform(key: pl.Expr, seed: int) -> pl.Expr:
    """A uniform draw in [0, 1) per row: the top 53 bits of ``key.hash(seed)``.

    ``key`` is a column or a struct of the columns that name the draw (the ids, a step,
    a stream number); ``seed`` any integer (taken modulo 2**63, the hash's seed range).
    Fifty-three bits: a float64 holds them exactly, so the draw is never 1.0.
    """
    return (key.hash(seed=seed % 2**63) // 2048).cast(pl.Float64) / _TWO_53
