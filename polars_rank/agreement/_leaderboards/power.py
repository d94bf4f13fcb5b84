"""Discriminative power of a metric (Sakai, SIGIR 2006), through compare()."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.agreement._leaderboards.data import as_frame, matrix
from polars_rank.compare import compare

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["discriminative_power"]


def discriminative_power(
    per_query: FrameLike,
    *,
    system: str = "system",
    query: str = "qid",
    metrics: str | Sequence[str] | None = None,
    test: Any = "t",
    alpha: float = 0.05,
    correction: Any = "holm",
    n_resamples: int = 10_000,
    seed: int | None = 0,
) -> pl.DataFrame:
    """The share of system pairs that a metric tells apart: its discriminative power.

    For each metric, every pair of systems is tested on the per-query values by
    :func:`polars_rank.compare` (``baseline=None``: all pairs; ``test``, ``alpha``,
    ``n_resamples`` and ``seed`` passed on), the p-values of the metric's pairs
    corrected together (``correction``, compare's); the discriminative power is the
    share of pairs with a corrected p-value <= ``alpha`` (Sakai, "Evaluating
    evaluation metrics based on the bootstrap", SIGIR 2006, who used a bootstrap
    test; Sakai 2012 recommends a correction over all pairs).

    Parameters
    ----------
    per_query
        One row per (system, query) with one column per metric. DataFrame or
        LazyFrame; pandas, Arrow and dicts of columns are read as ``evaluate()`` reads them.
    system, query
        Column names.
    metrics
        Metric column(s); ``None``: every numeric column but ``system`` and ``query``.
    test, alpha, correction, n_resamples, seed
        As :func:`polars_rank.compare`.

    Returns
    -------
    pl.DataFrame
        metric, n_systems, n_pairs, n_significant, discriminative_power.

    Raises
    ------
    InvalidDataError
        A system without a value for a query, duplicate rows, non-finite values.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import discriminative_power
    >>> df = pl.DataFrame({"system": ["a"] * 5 + ["b"] * 5 + ["c"] * 5,
    ...                    "qid": list(range(5)) * 3,
    ...                    "ndcg": [0.9, 0.8, 0.9, 0.7, 0.8, 0.1, 0.2, 0.1, 0.3, 0.2,
    ...                             0.2, 0.1, 0.3, 0.2, 0.2]})
    >>> discriminative_power(df)
    shape: (1, 5)
    ┌────────┬───────────┬─────────┬───────────────┬──────────────────────┐
    │ metric ┆ n_systems ┆ n_pairs ┆ n_significant ┆ discriminative_power │
    │ ---    ┆ ---       ┆ ---     ┆ ---           ┆ ---                  │
    │ str    ┆ i64       ┆ i64     ┆ i64           ┆ f64                  │
    ╞════════╪═══════════╪═════════╪═══════════════╪══════════════════════╡
    │ ndcg   ┆ 3         ┆ 3       ┆ 2             ┆ 0.666667             │
    └────────┴───────────┴─────────┴───────────────┴──────────────────────┘
    """
    frame = as_frame(per_query)
    if metrics is None:
        names = [c for c, t in frame.schema.items() if c not in (system, query) and t.is_numeric()]
    else:
        names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        msg = (f"discriminative_power: no metric column (metrics={metrics!r}; columns "
               f"other than {system!r} and {query!r} that hold numbers: none)")
        raise ValueError(msg)
    rows = []
    for name in names:  # a loop over metrics
        systems, _, _ = matrix(frame, system=system, query=query, value=name)
        result = compare(frame.select(system, query, name), arm=system, baseline=None,
                         metrics=name, query=query, test=test, alpha=alpha,
                         n_resamples=n_resamples, seed=seed, correction=correction)
        n_pairs = result.height
        n_sig = int(result.get_column("significant").sum())
        rows.append((name, len(systems), n_pairs, n_sig, n_sig / n_pairs))
    return pl.DataFrame(rows, schema=[("metric", pl.String), ("n_systems", pl.Int64),
                                      ("n_pairs", pl.Int64), ("n_significant", pl.Int64),
                                      ("discriminative_power", pl.Float64)], orient="row")
