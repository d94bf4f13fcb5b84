"""What the novelty-biased metrics share: the ideal-ideal normaliser and their cutoff.

:mod:`polars_rank.metrics.novelty` (alpha-DCG / alpha-nDCG) and
:mod:`polars_rank.metrics.novelty_err` (ERR-IA / nERR-IA) differ in their discount only.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum, safe_div
from polars_rank._engine.ranked import cutoff
from polars_rank.metrics._subtopics import (
    Intents,
    ideal_ideal,
)

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["by_ideal_ideal", "log_discount", "needs_cutoff", "reciprocal"]


def log_discount(rank: int) -> float:
    """alpha-DCG's discount at ``rank``: 1 / log2(rank + 1)."""
    return 1.0 / math.log2(rank + 1)


def reciprocal(rank: int) -> float:
    """ERR-IA's discount at ``rank``: 1 / rank."""
    return 1.0 / rank


def by_ideal_ideal(r: Intents, raw: pl.Expr, alpha: float, k: int | None,
                    weight: Callable[[int], float]) -> pl.Expr:
    """``raw`` over the ideal-ideal list at depth k (ndeval leaves depth 1 as it is)."""
    if k == 1:  # ndeval.c normalises ranks 2..20 only (its loops start at i = 1)
        return raw
    if k is not None:
        return safe_div(raw, ideal_ideal(r.n_intents(), alpha, k, weight))
    ranks = pl.int_range(1, r.n_retrieved() + 1, dtype=pl.Int64).cast(pl.Float64)
    column = (ranks + 1.0).log(2).pow(-1) if weight is log_discount else ranks.pow(-1)
    terms = pl.lit(1.0 - alpha).pow(ranks - 1.0) * column
    whole = r.n_intents().cast(pl.Float64) * group_sum(terms)
    return pl.when(r.n_retrieved() == 1).then(raw).otherwise(safe_div(raw, whole))


def needs_cutoff(k: int | None, name: str) -> int:
    checked = cutoff(k)
    if checked is None:
        msg = (f"{name} needs a cutoff k (a positive int): its ideal ranking is built one "
               "rank at a time (ndeval computes it to rank 20)")
        raise ValueError(msg)
    return checked
