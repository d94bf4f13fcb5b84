"""Whether a leaderboard keeps its order from one condition to another (judges, metrics, pools)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.params import check_real
from polars_rank.agreement._leaderboards.data import as_frame, draw_counts, matrix
from polars_rank.agreement._leaderboards.orders import order_taus, tied_means
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["leaderboard_agreement", "swapped_pairs", "two_conditions"]


def two_conditions(data: object, *, system: str, query: str, value: str | Sequence[str],
                   condition: str | None) -> tuple[list[Any], list[Any], Any, Any, list[Any]]:
    """The (query x system) matrices of the two conditions, checked alike."""
    import numpy as np

    frame = as_frame(data)
    if isinstance(value, str):
        if condition is None or condition not in frame.columns:
            msg = (f"no column {condition!r} naming the two conditions; or give value= "
                   "two columns, one per condition")
            raise InvalidDataError(msg)
        if frame.get_column(condition).null_count():
            row = frame.filter(pl.col(condition).is_null()).row(0, named=True)
            msg = (f"column {condition!r} has null values (e.g. system {row.get(system)!r}, "
                   f"query {row.get(query)!r}): every row needs its condition")
            raise InvalidDataError(msg)
        names = frame.get_column(condition).unique().sort().to_list()
        if len(names) != 2:
            msg = f"column {condition!r} must hold two conditions, got {len(names)}: {names[:5]}"
            raise InvalidDataError(msg)
        parts = [(frame.filter(pl.col(condition) == c), value, f" ({condition}={c!r})")
                 for c in names]
    else:
        cols = list(value)
        if len(cols) != 2 or not all(isinstance(c, str) for c in cols):
            msg = f"value must be a column name or two of them, got {value!r}"
            raise ValueError(msg)
        names = cols
        parts = [(frame, c, "") for c in cols]
    mats = [matrix(f, system=system, query=query, value=v, where=w) for f, v, w in parts]
    (sys_a, q_a, va), (sys_b, q_b, vb) = mats
    if sys_a != sys_b:
        only = sorted(set(sys_a) ^ set(sys_b), key=str)[0]
        msg = f"system {only!r} (column {system!r}) is under one condition only"
        raise InvalidDataError(msg)
    if q_a != q_b:
        only = sorted(set(q_a) ^ set(q_b), key=str)[0]
        msg = f"query {only!r} (column {query!r}) is under one condition only"
        raise InvalidDataError(msg)
    return sys_a, q_a, np.asarray(va), np.asarray(vb), names


def leaderboard_agreement(
    per_query: FrameLike,
    *,
    system: str = "system",
    query: str = "qid",
    value: str | Sequence[str] = "value",
    condition: str | None = "condition",
    n_resamples: int = 1000,
    alpha: float = 0.05,
    seed: int | None = 0,
) -> pl.DataFrame:
    r"""Kendall's tau and tau_AP between two leaderboards, with bootstrap intervals.

    The systems are ordered by their mean over queries under each condition (two
    judges, two metrics, two pools); tau_b compares the orderings (Voorhees, "Variations
    in relevance judgments", SIGIR 1998), tau_AP weights swaps near the top more, with
    the first condition as the reference (Yilmaz, Aslam & Robertson, SIGIR 2008).
    Intervals: the ``1 - alpha`` percentile interval over ``n_resamples`` bootstrap
    resamples of the queries (the same draw for both conditions), seeded; the result
    does not depend on row order.

    Parameters
    ----------
    per_query
        One row per (system, query[, condition]) with the value. DataFrame or
        LazyFrame; pandas, Arrow and dicts of columns are read as ``evaluate()`` reads them.
    system, query
        Column names.
    value
        The value column, with ``condition`` naming the two conditions; or two
        value columns, one per condition (``condition`` is then not read).
    condition
        The column holding the two conditions (sorted: the first is the reference).
    n_resamples, alpha, seed
        Bootstrap resamples, the intervals' level, the seed.

    Returns
    -------
    pl.DataFrame
        One row: reference, other, n_systems, n_queries, kendall_tau, kendall_tau_low,
        kendall_tau_high, tau_ap, tau_ap_low, tau_ap_high, n_swaps (pairs that change
        order), largest_swap (the largest difference of means, under the reference,
        of a pair that changes order; 0 without a swap). ``kendall_tau`` is null
        where tau_b is undefined, when every system ties under a condition
        (``scipy.stats.kendalltau`` gives NaN); its interval is over the resamples where
        it is defined (null if none is). tau_AP orders tied systems by name, so it
        stays defined (1.0 when both leaderboards are all ties). Means within 1e-12
        (relative) tie, as in :func:`leaderboard_bootstrap`: a rounding difference
        is no swap.

    Raises
    ------
    InvalidDataError
        A system without a value for a query, two rows of one system and query,
        a non-finite value, systems or queries under one condition only.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import leaderboard_agreement
    >>> df = pl.DataFrame({"system": ["a", "a", "b", "b", "c", "c"],
    ...                    "qid": [1, 2, 1, 2, 1, 2],
    ...                    "judge_1": [0.9, 0.7, 0.5, 0.6, 0.1, 0.3],
    ...                    "judge_2": [0.4, 0.6, 0.8, 0.7, 0.2, 0.1]})
    >>> out = leaderboard_agreement(df, value=["judge_1", "judge_2"], n_resamples=200)
    >>> out.select("kendall_tau", "tau_ap", "n_swaps", "largest_swap")
    shape: (1, 4)
    ┌─────────────┬────────┬─────────┬──────────────┐
    │ kendall_tau ┆ tau_ap ┆ n_swaps ┆ largest_swap │
    │ ---         ┆ ---    ┆ ---     ┆ ---          │
    │ f64         ┆ f64    ┆ i64     ┆ f64          │
    ╞═════════════╪════════╪═════════╪══════════════╡
    │ 0.333333    ┆ 0.0    ┆ 1       ┆ 0.25         │
    └─────────────┴────────┴─────────┴──────────────┘
    """
    import numpy as np

    level = check_real(alpha, "alpha", low=0, low_open=True, high=1, high_open=True,
                       allowed="in (0, 1)")
    systems, queries, va, vb, names = two_conditions(
        per_query, system=system, query=query, value=value, condition=condition)
    ma, mb = va.mean(axis=0), vb.mean(axis=0)
    tau, tap = order_taus(ma, mb)
    nq = len(queries)
    counts = draw_counts(nq, n_resamples, seed)
    taus, taps = order_taus(counts @ va / nq, counts @ vb / nq)
    lo, hi = 100 * level / 2, 100 * (1 - level / 2)
    swaps = swapped_pairs(per_query, system=system, query=query, value=value,
                          condition=condition)
    deltas = swaps.get_column("reference_delta").to_list()
    largest = max(deltas, default=0.0)
    defined = taus[~np.isnan(taus)]  # tau_b is undefined where a leaderboard is all ties

    def number(x: float) -> float | None:
        return None if np.isnan(x) else float(x)

    return pl.DataFrame({
        "reference": [str(names[0])], "other": [str(names[1])],
        "n_systems": [len(systems)], "n_queries": [nq],
        "kendall_tau": [number(tau)],
        "kendall_tau_low": [float(np.percentile(defined, lo)) if defined.size else None],
        "kendall_tau_high": [float(np.percentile(defined, hi)) if defined.size else None],
        "tau_ap": [float(tap)], "tau_ap_low": [float(np.percentile(taps, lo))],
        "tau_ap_high": [float(np.percentile(taps, hi))],
        "n_swaps": [swaps.height], "largest_swap": [largest],
    })


def swapped_pairs(
    per_query: FrameLike,
    *,
    system: str = "system",
    query: str = "qid",
    value: str | Sequence[str] = "value",
    condition: str | None = "condition",
) -> pl.DataFrame:
    """The pairs of systems whose order by mean differs between the two conditions.

    Parameters
    ----------
    per_query, system, query, value, condition
        As :func:`leaderboard_agreement`.

    Returns
    -------
    pl.DataFrame
        system_1 (ahead under the reference), system_2, reference_delta (mean of
        system_1 minus system_2 under the reference, >= 0), other_delta (the same
        under the other condition, of the other sign or 0), largest reference_delta
        first. A tie under one condition and not the other counts as a change of order.
        Means within 1e-12 (relative) tie, as in :func:`leaderboard_bootstrap`.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import swapped_pairs
    >>> df = pl.DataFrame({"system": ["a", "a", "b", "b"], "qid": [1, 2, 1, 2],
    ...                    "x": [0.9, 0.7, 0.5, 0.6], "y": [0.4, 0.6, 0.8, 0.7]})
    >>> swapped_pairs(df, value=["x", "y"])
    shape: (1, 4)
    ┌──────────┬──────────┬─────────────────┬─────────────┐
    │ system_1 ┆ system_2 ┆ reference_delta ┆ other_delta │
    │ ---      ┆ ---      ┆ ---             ┆ ---         │
    │ str      ┆ str      ┆ f64             ┆ f64         │
    ╞══════════╪══════════╪═════════════════╪═════════════╡
    │ a        ┆ b        ┆ 0.25            ┆ -0.25       │
    └──────────┴──────────┴─────────────────┴─────────────┘
    """
    systems, _, va, vb, _ = two_conditions(
        per_query, system=system, query=query, value=value, condition=condition)
    ma, mb = va.mean(axis=0), vb.mean(axis=0)
    ta, tb = tied_means(ma), tied_means(mb)  # equal within 1e-12: a tie, not an order
    first: list[Any] = []
    second: list[Any] = []
    deltas: list[tuple[float, float]] = []
    for i in range(len(systems)):  # a loop over pairs of systems, not over rows
        for j in range(i + 1, len(systems)):
            da = float(ma[i] - ma[j]) if ta[i] != ta[j] else 0.0
            db = float(mb[i] - mb[j]) if tb[i] != tb[j] else 0.0
            if (da > 0) - (da < 0) == (db > 0) - (db < 0):
                continue
            if da < 0 or (da == 0 and db > 0):  # system_1: ahead under the reference
                first.append(systems[j])
                second.append(systems[i])
                deltas.append((-da, -db))
            else:
                first.append(systems[i])
                second.append(systems[j])
                deltas.append((da, db))
    kind = pl.Series(systems).dtype
    frame = pl.DataFrame({
        "system_1": pl.Series(first, dtype=kind), "system_2": pl.Series(second, dtype=kind),
        "reference_delta": pl.Series([d[0] for d in deltas], dtype=pl.Float64),
        "other_delta": pl.Series([d[1] for d in deltas], dtype=pl.Float64)})
    return frame.sort("reference_delta", "system_1", "system_2",
                      descending=[True, False, False])
