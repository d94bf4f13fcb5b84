"""``compare(robust=True)``: whether a difference survives what ties and judgments leave open.

A per-query frame from ``evaluate(..., bounds=True)`` holds, beside each metric, its
pessimistic and optimistic values (``<metric>_low``, ``<metric>_high``: unjudged
documents non-relevant / relevant; evaluated under ``ties="pessimistic"`` and
``"optimistic"`` they bound the tie order too). A difference between an arm and its
baseline is *robust* when it keeps its sign from the arm's pessimistic mean against
the baseline's optimistic one to the arm's optimistic mean against the baseline's
pessimistic one: the interval ``[delta_low, delta_high]`` excludes 0. Per query the
smaller of the two ends is the pessimistic one (for nDCG or AP, "high" can be below
"low": docs/how-sure.md). The means are over the values the delta compares: the
pairs of queries with a value on both sides (paired), each arm's units with a value
(unpaired), so that the band holds the delta when the bounds hold the values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polars_rank._engine.unjudged import HIGH, LOW

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import polars as pl

    Array = npt.NDArray[np.float64]

__all__ = ["BOUNDS", "ROBUST_COLUMNS", "band", "bound_columns"]

BOUNDS = (LOW, HIGH)
"""The suffixes of a metric's bound columns."""

ROBUST_COLUMNS = ("delta_low", "delta_high", "robust")


def bound_columns(schema: pl.Schema, metrics: list[str]) -> list[str]:
    """``metrics`` without the bound columns of another metric, each bound checked."""
    names = [m for m in metrics
             if not any(m == f"{base}_{end}" for base in metrics for end in (LOW, HIGH))]
    for m in names:
        for end in (LOW, HIGH):
            if f"{m}_{end}" not in schema:
                msg = (f"robust=True reads {m!r}'s bounds, {m}_{LOW} and {m}_{HIGH} "
                       f"(evaluate(..., bounds=True)); per_query has no {m}_{end!s}")
                raise ValueError(msg)
    return names


def band(bounds: tuple[Array, ...] | None) -> dict[str, Any]:
    """``delta_low``, ``delta_high`` and ``robust`` from one comparison's bounds.

    ``bounds``: the arm's smaller and larger bound, then the baseline's, of the very
    values the delta compares (the pairs, paired; each arm's units, unpaired).
    """
    if bounds is None or any(b.size == 0 for b in bounds):
        return dict.fromkeys(ROBUST_COLUMNS)
    a_low, a_high, b_low, b_high = (float(b.mean()) for b in bounds)
    delta_low, delta_high = a_low - b_high, a_high - b_low
    return {"delta_low": delta_low, "delta_high": delta_high,
            "robust": delta_low > 0 or delta_high < 0}
