"""compare()'s options and result columns, and the checks of its arguments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from polars_rank._stats.common import ALTERNATIVES as ALTERNATIVES
from polars_rank._stats.correction import CORRECTIONS as CORRECTIONS

TESTS: tuple[str, ...] = ("t", "randomization", "bootstrap", "wilcoxon", "sign", "tukey")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
RESULT_COLUMNS = ("metric", "baseline", "n", "mean", "baseline_mean", "delta",
                  "delta_ci_low", "delta_ci_high", "lift", "lift_ci_low", "lift_ci_high",
                  "effect_size", "wins", "ties", "losses", "test", "alternative", "alpha",
                  "correction", "p_value", "p_adjusted", "significant", "n_resamples",
                  "p_floor")
"""compare()'s columns after the slice and arm columns, in order."""
CUPED_THETA = "cuped_theta"
OPTIONAL_COLUMNS = (CUPED_THETA,)
"""Columns compare() adds after those when an option asks (``covariate=``)."""
FLOAT_COLUMNS = ("mean", "baseline_mean", "delta", "delta_ci_low", "delta_ci_high", "lift",
                 "lift_ci_low", "lift_ci_high", "effect_size", "p_value", "p_adjusted", "p_floor")
COUNT_COLUMNS = ("n", "wins", "ties", "losses", "n_resamples")


def name_list(value: str | Sequence[str] | None, param: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        return list(value)
    msg = f"{param} must be a column name or a non-empty list of column names, got {value!r}"
    raise TypeError(msg)


def check_options(*, test: object, correction: object, alpha: object, n_resamples: object,
                  seed: object, paired: object, interval: object, zero_method: object,
                  simultaneous: object, alternative: object = "two-sided") -> None:
    if test not in TESTS:
        msg = f"test must be one of {', '.join(map(repr, TESTS))}, got {test!r}"
        raise ValueError(msg)
    if alternative not in ALTERNATIVES:
        msg = (f"alternative must be one of {', '.join(map(repr, ALTERNATIVES))}, "
               f"got {alternative!r}")
        raise ValueError(msg)
    if alternative != "two-sided" and test in ("bootstrap", "tukey"):
        msg = (f"alternative={alternative!r} applies to the t, randomization, wilcoxon and "
               f"sign tests; test={test!r} is two-sided only")
        raise ValueError(msg)
    if correction not in CORRECTIONS:
        msg = f"correction must be one of {', '.join(map(repr, CORRECTIONS))}, got {correction!r}"
        raise ValueError(msg)
    if test == "sign" and paired is False:
        msg = "test='sign' counts wins and losses of paired queries: it needs paired=True"
        raise ValueError(msg)
    if test == "tukey" and correction is not None:
        msg = ("test='tukey' adjusts for every pair of arms itself: leave correction= "
               f"unset or None, got {correction!r}")
        raise ValueError(msg)
    if zero_method not in ZERO_METHODS:
        allowed = ", ".join(map(repr, ZERO_METHODS))
        msg = f"zero_method must be one of {allowed}, got {zero_method!r}"
        raise ValueError(msg)
    if not isinstance(simultaneous, bool):
        msg = f"simultaneous must be True or False, got {simultaneous!r}"
        raise TypeError(msg)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        msg = f"alpha must be a number strictly between 0 and 1, got {alpha!r}"
        raise ValueError(msg)
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, int)
            or n_resamples < 1):
        msg = f"n_resamples must be a positive int, got {n_resamples!r}"
        raise ValueError(msg)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        msg = f"seed must be a non-negative int or None (fresh randomness), got {seed!r}"
        raise ValueError(msg)
    if not isinstance(paired, bool):
        msg = f"paired must be True or False, got {paired!r}"
        raise TypeError(msg)
    if interval not in ("bca", "percentile"):
        msg = f"interval must be one of 'bca', 'percentile', got {interval!r}"
        raise ValueError(msg)
    if interval != "bca" and test != "bootstrap":
        msg = f"interval={interval!r} applies to test='bootstrap' only, got test={test!r}"
        raise ValueError(msg)


def metric_columns(schema: pl.Schema, metrics: str | Sequence[str] | None,
                   keys: list[str]) -> list[str]:
    if metrics is None:
        names = [c for c, t in schema.items()
                 if c not in keys and (t.is_numeric() or t == pl.Boolean)]
        if not names:
            msg = (f"per_query has no numeric metric column besides {keys}; "
                   f"columns: {list(schema)}")
            raise ValueError(msg)
        return names
    names = name_list(metrics, "metrics")
    if len(set(names)) != len(names):
        msg = f"metrics has duplicate names: {names}"
        raise ValueError(msg)
    for m in names:
        if m not in schema:
            msg = f"per_query has no metric column {m!r}; columns: {list(schema)}"
            raise ValueError(msg)
        if m in keys:
            msg = f"metric column {m!r} is also the arm, a query or a group_by column"
            raise ValueError(msg)
        dtype = schema[m]
        if not (dtype.is_numeric() or dtype == pl.Boolean or dtype == pl.Null):
            msg = f"metric column {m!r} must be numeric, got {dtype}"
            raise TypeError(msg)
    return names


def covariate_column(covariate: str | None, schema: pl.Schema, keys: list[str],
                     paired: bool) -> list[str]:
    """``[covariate]`` checked (unpaired arms, a column of its own), or ``[]``."""
    if covariate is None:
        return []
    if not isinstance(covariate, str):
        msg = f"covariate must be a column name or None, got {covariate!r}"
        raise TypeError(msg)
    if paired:
        msg = ("covariate= (CUPED) adjusts unpaired online arms: it needs paired=False "
               "(paired arms already remove each query's own level)")
        raise ValueError(msg)
    if covariate not in schema:
        msg = (f"per_query has no column {covariate!r} (named by covariate=); "
               f"columns: {list(schema)}")
        raise ValueError(msg)
    if covariate in keys or covariate in RESULT_COLUMNS or covariate == CUPED_THETA:
        msg = f"covariate column {covariate!r} is also the arm, a query, a slice or a result column"
        raise ValueError(msg)
    return [covariate]


def arm_pairs(arms: list[Any], baseline: Any) -> list[tuple[Any, Any]]:
    """The (arm, baseline) pairs to compare, for one baseline, a list of them, or None."""
    if baseline is None:
        return [(other, base) for i, base in enumerate(arms) for other in arms[i + 1:]]
    bases = list(baseline) if isinstance(baseline, (list, tuple)) else [baseline]
    pairs: list[tuple[Any, Any]] = []
    for base in bases:
        for other in arms:
            # two baselines are compared once: the later arm against the earlier
            if other != base and not (other in bases and arms.index(other) < arms.index(base)):
                pairs.append((other, base))
    return pairs
