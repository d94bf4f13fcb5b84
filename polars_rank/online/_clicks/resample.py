"""A click model refitted on bootstrap resamples of the log's impressions, all at once.

A resample weighs each impression (a search session's result page) by a Poisson(1)
draw from a hash of its id, the resample's number and the seed (the same draws for
any row order; Hanley & MacGibbon's Poisson bootstrap, the large-sample limit of
drawing impressions with replacement). The resamples are fitted together: their rows
are the log's, repeated once per resample that draws the impression (weight > 0), with
the resample's number ``REP`` as one more key of every table, so that one EM step is
one plan for every resample of a batch (``estimate(..., by=(REP,))``). An
impression's rows are added in the log's order in each resample: a resample's tables
are those of a fit on the log weighted by its draws, bit for bit.
"""

from __future__ import annotations

import math

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.draws import uniform
from polars_rank._stats.common import batch_sizes
from polars_rank.online._clicks.estimate import REP, WEIGHT, estimate
from polars_rank.online._clicks.log import IMP, POS, hashable
from polars_rank.online._clicks.params import DEFAULT, TABLES, Model, keys_of
from polars_rank.online._clicks.probs import examined
from polars_rank.online._order import starts

__all__ = ["poisson", "refits", "percentiles", "propensities", "REP"]

_BATCH_ROWS = 1 << 20
"""Resamples are fitted in batches of about this many rows (log rows x resamples)."""
_BATCH_MOST = 512
"""And at most this many resamples in a batch (a plan's size grows with them)."""


def poisson(seed: int, draw: int, imp: pl.Expr) -> pl.Expr:
    """A Poisson(1) weight per impression from a hash of it: the same for any row order."""
    u = uniform(imp, seed * 100_003 + draw + 17)
    cdf, term, out = 0.0, math.exp(-1.0), []
    for k in range(20):
        cdf += term
        term /= k + 1
        out.append((u >= cdf).cast(pl.Float64))
    return pl.sum_horizontal(out).alias(WEIGHT)


def _numbered(prepared: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The rows with ``_no``, their impression's number, and the impressions (sorted)."""
    rows = prepared.drop(WEIGHT, strict=False).with_columns(
        starts([IMP]).cum_sum().cast(pl.Int64).alias("_no"))
    return rows, rows.select(IMP, "_no").unique(IMP, keep="first").sort("_no")


def _batches(n_resamples: int, rows: int) -> list[range]:
    budget = min(_BATCH_ROWS, _BATCH_MOST * rows)
    out, first = [], 0
    for size in batch_sizes(n_resamples, rows, budget=budget):
        out.append(range(first, first + size))
        first += size
    return out


def refits(model: Model, prepared: pl.DataFrame, iterations: int, n_resamples: int,
           seed: int) -> dict[str, pl.DataFrame]:
    """Each table fitted on resamples 0..n_resamples-1: its columns and ``REP``.

    ``prepared``: the log with its history (sorted by impression and position). A key
    a resample has no row for (all its impressions drawn 0 times) is missing here;
    the fit gives it 0.5 (:func:`percentiles` puts it back).
    """
    imp = hashable(prepared.schema[IMP])
    rows, impressions = _numbered(prepared)
    n_imp = impressions.height
    out: dict[str, list[pl.DataFrame]] = {table: [] for table in TABLES[model]}
    for batch in _batches(n_resamples, prepared.height):
        weights = pl.concat([impressions.lazy().select(
            "_no", pl.lit(b, dtype=pl.Int64).alias(REP), poisson(seed, b, imp))
            for b in batch]).filter(pl.col(WEIGHT) > 0)
        # each resample's impressions numbered apart (the windows run over IMP)
        fitted = weights.join(rows.lazy(), on="_no").sort(REP, "_no", POS).with_columns(
            (pl.col(REP) * n_imp + pl.col("_no")).alias(IMP)).drop("_no").collect()
        for table, frame in estimate(model, fitted, iterations, by=(REP,)).items():
            out[table].append(frame)
    return {table: pl.concat(frames) for table, frames in out.items()}


def percentiles(model: Model, point: dict[str, pl.DataFrame], draws: dict[str, pl.DataFrame],
                n_resamples: int, alpha: float) -> dict[str, pl.DataFrame]:
    """The point tables with ``ci_low``, ``ci_high``: the draws' percentiles.

    Each key of a point table gets every resample's value, 0.5 where a resample had
    no row for it (what a fit on that resample gives), and its ``alpha / 2`` and
    ``1 - alpha / 2`` quantiles (linear interpolation between order statistics).
    """
    reps = pl.DataFrame({REP: pl.int_range(0, n_resamples, dtype=pl.Int64, eager=True)})
    out = {}
    for table, frame in point.items():
        keys = keys_of(model, table)
        grid = frame.select(keys).join(reps, how="cross") if keys else reps
        values = grid.join(draws[table], on=[*keys, REP], how="left").with_columns(
            pl.col(table).fill_null(DEFAULT))
        bounds = [pl.col(table).quantile(alpha / 2, "linear").alias("ci_low"),
                  pl.col(table).quantile(1 - alpha / 2, "linear").alias("ci_high")]
        if keys:
            out[table] = frame.join(values.group_by(keys).agg(bounds), on=keys,
                                    how="left", maintain_order="left")
        else:
            out[table] = pl.concat([frame, values.select(bounds)], how="horizontal")
    return out


def propensities(model: Model, prepared: pl.DataFrame, draws: dict[str, pl.DataFrame],
                 n_resamples: int) -> pl.DataFrame:
    """``REP, POS, examination``: each refit's mean over the log of P(E_r = 1), at once.

    For the chain models (cascade, DCM, SDBN, DBN, CCM): the whole log repeated once
    per resample, each copy's impressions numbered apart and given its resample's
    tables (0.5 where it has no row), and :func:`~polars_rank.online._clicks.probs.examined`
    over them; the sums run in the log's order, as a single model's do.
    """
    rows, impressions = _numbered(prepared)
    rows = rows.select("_no", POS, *[c for c in rows.columns if c not in ("_no", POS, IMP)])
    out = []
    for batch in _batches(n_resamples, prepared.height):
        reps = pl.DataFrame({REP: pl.Series(list(batch), dtype=pl.Int64)}).lazy()
        lazy = reps.join(rows.lazy(), how="cross").sort(REP, "_no", POS).with_columns(
            (pl.col(REP) * impressions.height + pl.col("_no")).alias(IMP))
        for table, frame in draws.items():
            keys = [REP, *keys_of(model, table)]
            lazy = lazy.join(frame.lazy(), on=keys, how="left", maintain_order="left")
            lazy = lazy.with_columns(pl.col(table).fill_null(DEFAULT))
        mean = group_sum(pl.col("_exam")) / pl.len()
        out.append(examined(lazy, model).group_by(REP, POS).agg(mean.alias("examination"))
                   .collect())
    return pl.concat(out)
