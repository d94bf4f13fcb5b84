"""``ips_click_metric``: a new ranking's click metric from a click log, under the PBM."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.frames import FrameLike, as_polars
from polars_rank.errors import InvalidDataError
from polars_rank.online._ope.checks import (
    Rule,
    check_group_by,
    check_numeric,
    flags,
    missing_columns,
    missing_id,
    position_rules,
    raise_flagged,
    rank_rules,
)
from polars_rank.online._ope.options import group_columns

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ips_click_metric"]

CALLER = "ips_click_metric"
RESULT_COLUMNS = ("metric", "estimate", "ci_low", "ci_high", "n_impressions", "max_weight")
METRIC = re.compile(r"^(clicks|dcg)(?:@(\d+))?$")


def _parse(metric: str) -> tuple[str, int | None]:
    found = METRIC.match(metric.lower()) if isinstance(metric, str) else None
    if found is None or (found.group(2) is not None and int(found.group(2)) < 1):
        msg = f"metric must be 'clicks@k' or 'dcg@k' (k a positive int, or no @k), got {metric!r}"
        raise ValueError(msg)
    return found.group(1), int(found.group(2)) if found.group(2) else None


def _examination(examination: Sequence[float]) -> dict[int, float]:
    values = list(examination)
    if not values or any(isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v)
                         or not 0 < v <= 1 for v in values):
        msg = ("examination must be a non-empty sequence of propensities in (0, 1], "
               f"the first for rank 1; got {examination!r}")
        raise ValueError(msg)
    return {rank: float(v) for rank, v in enumerate(values, start=1)}


def ips_click_metric(
    log: FrameLike,
    metric: str | Sequence[str] = "dcg@10",
    *,
    examination: Sequence[float],
    impression: str = "impression",
    position: str = "position",
    click: str = "click",
    target_rank: str = "target_rank",
    group_by: str | Sequence[str] | None = None,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: int | None = 0,
) -> pl.DataFrame:
    r"""A target ranking's click metric estimated from a click log with inverse propensity weights.

    Under the position-based model a click on the item at logged position p happens
    with probability ``theta_p * alpha_d`` (examination times attractiveness), so
    ``click / theta_p`` is an unbiased estimate of ``alpha_d`` (Joachims, Swaminathan
    and Schnabel, WSDM 2017; Wang et al., SIGIR 2016). Each clicked row is weighted by
    the target ranking's gain at the item's target rank r (``target_rank``):

    - ``"clicks@k"``: ``theta_r`` for r <= k: the expected number of clicks the target
      ranking would get in its top k (Li et al., WSDM 2018, the item-position model);
    - ``"dcg@k"``: ``1 / log2(1 + r)`` for r <= k: DCG of the target ranking with the
      debiased clicks as relevance (Agarwal et al., SIGIR 2019).

    The estimate is the mean over impressions of
    ``sum_rows click * gain(target_rank) / theta_position``, unbiased when the logger
    showed, at a position with ``theta > 0``, every item the target ranks within k
    (items it never showed are not in the log and count as no click).

    Parameters
    ----------
    log
        One row per shown (impression, position), eager or lazy (or a pandas frame, an
        Arrow table: what :func:`polars_rank.evaluate` reads).
    metric
        ``"clicks@k"`` or ``"dcg@k"`` (``@k`` left out: the whole list), or several.
    examination
        ``examination[k - 1]`` is the probability that rank k is examined, in (0, 1];
        given for every logged position (and, for ``clicks``, every target rank up to k).
    impression, position, click, target_rank
        Column names; ``click`` is 0/1, ``target_rank`` the target ranking's rank of the
        row's item (null: the target does not rank it).
    group_by
        Slice columns: one result row per slice and metric.
    alpha, n_resamples, seed
        The bootstrap over impressions (percentile interval; 0 resamples: none).

    Returns
    -------
    DataFrame
        ``[group_by...], metric, estimate, ci_low, ci_high, n_impressions, max_weight``
        (the largest ``1 / theta`` of a clicked row).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank.online as pro
    >>> log = pl.DataFrame({
    ...     "impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
    ...     "click": [0, 1, 1, 0], "target_rank": [2, 1, 1, 2],
    ... })
    >>> pro.ips_click_metric(log, ["clicks@1", "dcg"], examination=[1.0, 0.5],
    ...                      n_resamples=0).select("metric", "estimate", "max_weight")
    shape: (2, 3)
    ┌──────────┬──────────┬────────────┐
    │ metric   ┆ estimate ┆ max_weight │
    │ ---      ┆ ---      ┆ ---        │
    │ str      ┆ f64      ┆ f64        │
    ╞══════════╪══════════╪════════════╡
    │ clicks@1 ┆ 1.5      ┆ 2.0        │
    │ dcg      ┆ 1.5      ┆ 2.0        │
    └──────────┴──────────┴────────────┘
    """
    metrics = (metric,) if isinstance(metric, str) else tuple(metric)
    parsed = [_parse(m) for m in metrics]
    if not parsed:
        msg = "metric must name at least one metric"
        raise ValueError(msg)
    theta = _examination(examination)
    for name, k in parsed:
        if name == "clicks" and (k is None or k > len(theta)):
            msg = (f"metric 'clicks@k' needs k <= len(examination) = {len(theta)} (the target "
                   f"ranks' examination propensities), got {name}@{k}")
            raise ValueError(msg)
    from polars_rank.online._ope.options import check_options

    check_options("ips", group_by=None, clip=None, switch_threshold=None, support="error",
                  near_zero=0.0, alpha=alpha, n_resamples=n_resamples, seed=seed)
    keys = group_columns(group_by)
    # the metrics' names are columns of the per-impression sums
    check_group_by(keys, impression=impression, position=position,
                   result=[*RESULT_COLUMNS, *metrics])
    lf = as_polars(log, "log").lazy()
    schema = lf.collect_schema()
    missing_columns(schema.names(),
                    [impression, position, click, target_rank, *keys],
                    caller=CALLER,
                    why={click: "the click, 0/1", target_rank: "the target's ranking"})
    check_numeric(schema, [position, click, target_rank], caller=CALLER,
                  positions=[position, target_rank])
    lf = lf.sort([*keys, impression, position])
    c, p, r = pl.col(click).cast(pl.Float64), pl.col(position), pl.col(target_rank)
    rules = [
        missing_id(impression, schema[impression]),
        *position_rules(position, impression),
        Rule(position, f"must be a rank with an examination propensity (1..{len(theta)})",
             p > len(theta)),
        Rule(click, "must be a click, 0 or 1", (~c.is_in([0.0, 1.0])).fill_null(True)),
        *rank_rules(target_rank),
    ]
    inverse = 1.0 / p.replace_strict(theta, default=None, return_dtype=pl.Float64)
    terms = []
    for (name, k), label in zip(parsed, metrics, strict=True):
        within = r <= k if k is not None else r.is_not_null()
        gain = (r.replace_strict(theta, default=None, return_dtype=pl.Float64) if name == "clicks"
                else 1.0 / (r.cast(pl.Float64) + 1.0).log(2))
        # in position order (the sort, kept by the ordered group_by), as one list
        terms.append(group_sum(pl.when(within).then(c * gain * inverse).otherwise(0.0))
                     .alias(label))
    per_impression = (lf.group_by([*keys, impression], maintain_order=True)
                      .agg(*terms, (c * inverse).max().alias("__mw"), *flags(rules)).collect())
    if per_impression.height == 0:
        msg = f"{CALLER}: the log has no rows"
        raise InvalidDataError(msg)
    raise_flagged(per_impression, lf, rules, impression=impression, caller=CALLER)
    return _results(per_impression, metrics, keys, alpha=alpha, n_resamples=n_resamples,
                    seed=seed)


def _results(per_impression: pl.DataFrame, metrics: tuple[str, ...], keys: tuple[str, ...], *,
             alpha: float, n_resamples: int, seed: int | None) -> pl.DataFrame:
    parts = (per_impression.partition_by(list(keys), maintain_order=True, as_dict=True)
             if keys else {(): per_impression})
    out: list[dict[str, object]] = []
    for key, frame in parts.items():
        intervals: list[tuple[float | None, float | None]] = [(None, None)] * len(metrics)
        if n_resamples:  # NumPy (the stats extra) only for an interval
            import numpy as np

            from polars_rank.online._ope.resample import ratio_intervals

            arrays = [(frame[m].to_numpy(), np.ones(frame.height)) for m in metrics]
            intervals = list(ratio_intervals(arrays, seed=seed, key=tuple(key), alpha=alpha,
                                             n_resamples=n_resamples))
        for m, (low, high) in zip(metrics, intervals, strict=True):
            row: dict[str, object] = dict(zip(keys, key, strict=True))
            row.update({"metric": m, "estimate": math.fsum(frame[m].to_list()) / frame.height,
                        "ci_low": low, "ci_high": high, "n_impressions": frame.height,
                        "max_weight": frame["__mw"].max()})
            out.append(row)
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        c: per_impression.schema[c] for c in keys}
    schema.update({"metric": pl.String, "estimate": pl.Float64, "ci_low": pl.Float64,
                   "ci_high": pl.Float64, "n_impressions": pl.Int64, "max_weight": pl.Float64})
    return pl.from_dicts(out, schema=schema)
