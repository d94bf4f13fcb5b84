"""The parameters of ``off_policy_value``, checked once when it is called."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from polars_rank.online._ope.spec import ESTIMATORS

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Options", "check_options", "group_columns"]


@dataclass(frozen=True)
class Options:
    """The checked parameters."""

    estimators: tuple[str, ...]
    group_by: tuple[str, ...]
    clip: float
    switch: float
    support: str
    near_zero: float
    alpha: float
    n_resamples: int
    seed: int | None


def group_columns(group_by: str | Sequence[str] | None) -> tuple[str, ...]:
    """``group_by`` as a tuple of column names."""
    if group_by is None:
        return ()
    if isinstance(group_by, str):
        return (group_by,)
    if not all(isinstance(c, str) for c in group_by):
        msg = f"group_by must be a column name or a sequence of them, got {group_by!r}"
        raise TypeError(msg)
    return tuple(group_by)


def _positive_or_none(name: str, value: object, *, zero_ok: bool) -> float:
    if value is None:
        return math.inf
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value) or (
            value < 0 or (value == 0 and not zero_ok)):
        allowed = "a number >= 0" if zero_ok else "a number > 0"
        msg = f"{name} must be {allowed} or None, got {value!r}"
        raise ValueError(msg)
    return float(value)


def check_options(estimator: str | Sequence[str], *, group_by: str | Sequence[str] | None,
                  clip: object, switch_threshold: object, support: object, near_zero: object,
                  alpha: object, n_resamples: object, seed: object) -> Options:
    """Check every parameter, naming it, the value and what is allowed."""
    names = (estimator,) if isinstance(estimator, str) else tuple(estimator)
    for name in names:
        if name not in ESTIMATORS:
            msg = f"estimator must be among {sorted(ESTIMATORS)}, got {name!r}"
            raise ValueError(msg)
    if not names:
        msg = "estimator must name at least one estimator"
        raise ValueError(msg)
    if len(set(names)) != len(names):
        msg = f"estimator names an estimator twice: {list(names)}"
        raise ValueError(msg)
    if support not in ("error", "ignore"):
        msg = f"support must be 'error' or 'ignore', got {support!r}"
        raise ValueError(msg)
    if isinstance(near_zero, bool) or not isinstance(near_zero, (int, float)) or not (
            0 <= near_zero < 1):
        msg = f"near_zero must be a number in [0, 1), got {near_zero!r}"
        raise ValueError(msg)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        msg = f"alpha must be a number in (0, 1), got {alpha!r}"
        raise ValueError(msg)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 0:
        msg = f"n_resamples must be an int >= 0 (0: no interval), got {n_resamples!r}"
        raise ValueError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        msg = f"seed must be a non-negative int or None (fresh randomness), got {seed!r}"
        raise ValueError(msg)
    return Options(estimators=names, group_by=group_columns(group_by),
                   clip=_positive_or_none("clip", clip, zero_ok=False),
                   switch=_positive_or_none("switch_threshold", switch_threshold, zero_ok=True),
                   support=str(support), near_zero=float(near_zero), alpha=float(alpha),
                   n_resamples=n_resamples, seed=seed)
