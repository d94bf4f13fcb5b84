"""DCG's arithmetic: row gains, the discount, the ranked and ideal sums of nDCG and DCG."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import group_sum, safe_div
from polars_rank._engine.gain_table import gain_of
from polars_rank._engine.params import (
    GAINS,
    check_choice,
    check_real,
)
from polars_rank._engine.ranked import Ranked, when_empty

if TYPE_CHECKING:
    from collections.abc import Mapping

    from polars_rank._engine.gain_table import GainTable

__all__ = ["check_gain_options", "dcg_row_gain", "dcg_value", "ideal_dcg_value", "ndcg_value",
           "row_gain"]


def _gain(labels: pl.Expr, gain: str, threshold: float | None = None) -> pl.Expr:
    """The gain of each label; unjudged (null) and labels below ``threshold`` gain 0.

    Without a threshold a label gains when it is > 0 (only ``"binary"`` needs saying
    so); with one, when it is >= it (ranx's ``-l``; ``threshold=0`` counts every
    judged row, MS Recommenders' binary gain).
    """
    counted = (labels > 0 if threshold is None else labels >= threshold).fill_null(False)
    if gain == "binary":  # 1 per counted label (MS Recommenders' score_type="binary")
        return counted.cast(pl.Float64)
    values = labels.fill_null(0.0)
    gains = pl.lit(2.0).pow(values) - 1.0 if gain == "exponential" else values
    return gains if threshold is None else pl.when(counted).then(gains).otherwise(0.0)


def row_gain(labels: pl.Expr, gain: str = "linear", threshold: float | None = None,
             gains: GainTable | None = None) -> pl.Expr:
    """Each row's gain as DCG sums it: a gain table's for a listed label, else :func:`_gain`."""
    return gain_of(labels, _gain(labels, gain, threshold), gains)


def _discount(gains: pl.Expr, positions: pl.Expr, log_base: float = 2) -> pl.Expr:
    """gains[r] / log_b(1 + r)."""
    return gains / (positions + 1).cast(pl.Float64).log(log_base)


def _dcg_parts(r: Ranked, k: int | None, gain: str, threshold: float | None = None,
               log_base: float = 2,
               gains: GainTable | None = None) -> tuple[pl.Expr, pl.Expr]:
    """(DCG@k of the ranking, ideal DCG@k over every judged row).

    The ideal holds the positive gains only: a gain table may give a label a negative
    gain, which trec_eval's ideal ranking never takes (m_ndcg.c stops at gain <= 0).
    """
    def discount(values: pl.Expr, positions: pl.Expr) -> pl.Expr:
        return _discount(values, positions, log_base)

    g = row_gain(r.labels, gain, threshold, gains)
    actual = r.by_gain(g).rank_sum(g, k, discount)
    if gains and min(gains.values()) < 0:
        g = g.clip(lower_bound=0.0)
    ideal = r.prepared_ideal()
    if ideal is not None and not gains:  # a gain that grows with the label: sorted labels
        ideal_gains = row_gain(ideal, gain, threshold)
    else:
        ideal_gains = g.sort(descending=True)
    ideal_gains = ideal_gains if k is None else ideal_gains.head(k)
    return actual, group_sum(discount(ideal_gains, Ranked.ideal_positions(k)))


def dcg_value(r: Ranked, k: int | None = None, gain: str = "exponential",
              threshold: float | None = None, log_base: float = 2,
              gains: GainTable | None = None) -> pl.Expr:
    """DCG@k of a ranked list (validated parameters)."""
    return _dcg_parts(r, k, gain, threshold, log_base, gains)[0]


def ideal_dcg_value(r: Ranked, k: int | None = None, gain: str = "exponential",
                    threshold: float | None = None, log_base: float = 2,
                    gains: GainTable | None = None) -> pl.Expr:
    """The ideal DCG@k of a list's judged rows (validated parameters)."""
    return _dcg_parts(r, k, gain, threshold, log_base, gains)[1]


def ndcg_value(r: Ranked, k: int | None = None, gain: str = "exponential",
               threshold: float | None = None, empty: str = "zero",
               gains: GainTable | None = None) -> pl.Expr:
    """NDCG@k of a ranked list (validated parameters)."""
    actual, ideal = _dcg_parts(r, k, gain, threshold, gains=gains)
    if gains and min(gains.values()) < 0:  # a negative DCG over a positive ideal
        value = pl.when(ideal > 0).then(actual / ideal).otherwise(0.0)
    else:
        value = safe_div(actual, ideal)
    return when_empty(value, _gain(r.labels, gain, threshold), empty)


def check_gain_options(gain: str, threshold: float | None) -> float | None:
    check_choice(gain, "gain", GAINS)
    if threshold is None:
        return None
    return check_real(threshold, "threshold", allowed="a finite number or None")


def dcg_row_gain(labels: pl.Expr, o: Mapping[str, Any]) -> pl.Expr:
    """A row's gain under DCG's options ``o`` (gain, threshold, gains): ties order by it."""
    return row_gain(labels, o["gain"], o["threshold"], o["gains"])
