"""Krippendorff's alpha: any number of judges per item, missing judgments allowed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.agreement._judges.data import (
    COUNT,
    ITEMS,
    KEY,
    C,
    J,
    Judgments,
    M,
    categories,
    component_sums,
    label_columns,
    positions,
    prepare,
    unit_counts,
    unit_wide,
)
from polars_rank.agreement._judges.statistics import LEVELS, KrippendorffAlpha, Level
from polars_rank.agreement._judges.summary import check_bootstrap, summarise
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["krippendorff_alpha"]

_OTHER = "__polars_rank_other"
_OTHER_COUNT = "__polars_rank_other_count"


WIDE = 16
"""Up to this many labels, the coincidences are sums of products of an item's label
counts, one column per pair of labels; above it, a join of each item's counts with
themselves (fewer columns, more rows)."""


def coincidences(data: Judgments, cats: pl.Series,
                 by: list[str]) -> tuple[pl.DataFrame, pl.DataFrame, list[int]]:
    """Per ``by`` (query or slice): ``sum n_uc (n_uk - [c = k])`` over items with m >= 2.

    Returns the table (key ``(j * C + c) * C + k``, ``j`` the position of ``m`` among
    the numbers of judgments), the pairable items per query and those numbers. Without
    intervals or per-query values, ``by`` is the slice only: one table per slice.
    """
    size = cats.len()
    if size > WIDE:
        return _joined(data, cats, by)
    units = unit_wide(data, cats).filter(pl.col(M) >= 2)
    if not units.height:
        _none(data)
    position, sizes = positions(units)
    n = [pl.col(name) for name in label_columns(size)]
    parts = [n[c] * (n[k] - int(c == k)) for c in range(size) for k in range(size)]
    table = (component_sums(units, [*by, M], parts).join(position, on=M)
             .select(*by, (pl.col(J) * size * size + pl.col(KEY)).alias(KEY), COUNT))
    return table, units.group_by(data.keys).agg(pl.len().alias(ITEMS)), sizes


def _none(data: Judgments) -> None:
    msg = (f"no item has two judgments or more (column {data.judge!r}): there is no "
           f"agreement to measure")
    raise InvalidDataError(msg)


def _joined(data: Judgments, cats: pl.Series,
            by: list[str]) -> tuple[pl.DataFrame, pl.DataFrame, list[int]]:
    """:func:`coincidences` by a join of each item's label counts with themselves."""
    size = cats.len()
    counts = unit_counts(data, cats).filter(pl.col(M) >= 2)
    if not counts.height:
        _none(data)
    position, sizes = positions(counts.select(pl.col(M).cast(pl.Int64)))
    other = counts.select(*data.unit, pl.col(C).alias(_OTHER), pl.col(COUNT).alias(_OTHER_COUNT))
    pairs = counts.with_columns(pl.col(M).cast(pl.Int64)).join(other, on=data.unit).join(
        position, on=M)
    table = (pairs.with_columns(
        (pl.col(COUNT) * (pl.col(_OTHER_COUNT) - (pl.col(C) == pl.col(_OTHER)).cast(pl.Int64)))
        .alias(COUNT),
        ((pl.col(J) * size + pl.col(C)) * size + pl.col(_OTHER)).alias(KEY))
        .group_by([*by, KEY]).agg(pl.col(COUNT).sum()))
    items = counts.select(*data.unit).unique().group_by(data.keys).agg(pl.len().alias(ITEMS))
    return table, items, sizes


def krippendorff_alpha(
    judgments: FrameLike,
    *,
    level_of_measurement: Level,
    query: str = "qid",
    doc: str = "docid",
    judge: str = "judge",
    label: str = "rel",
    group_by: str | Sequence[str] | None = None,
    per_query: bool = False,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> pl.DataFrame:
    r"""Krippendorff's alpha: agreement of any judges, missing judgments allowed.

    .. math:: \alpha = 1 - \frac{D_o}{D_e} = 1 - (n - 1)
              \frac{\sum_{c,k} o_{ck}\, \delta_{ck}}{\sum_{c,k} n_c n_k\, \delta_{ck}}

    The coincidence matrix ``o_ck`` counts, over the items (query, document) with
    two judgments or more, the ordered pairs of judgments (c, k) by two different
    judges, each item's pairs weighted by ``1 / (m_u - 1)`` (``m_u`` its judgments);
    ``n_c`` are its margins and ``n`` their sum, the pairable judgments. The
    distance ``delta`` is the level of measurement's (Krippendorff 2011, "Computing
    Krippendorff's alpha-reliability"; Hayes & Krippendorff 2007):

    * ``"nominal"``: 0 if ``c = k``, else 1;
    * ``"ordinal"``: ``(sum_{g=c..k} n_g - (n_c + n_k) / 2)^2`` over the sorted labels;
    * ``"interval"``: ``(c - k)^2``;
    * ``"ratio"``: ``((c - k) / (c + k))^2``.

    This is ``krippendorff.alpha(reliability_data, level_of_measurement=...)`` of the
    ``krippendorff`` package, judges x items with NaN for missing judgments. Items
    judged once are left out (they have no pair); so are the judges' names: any
    judgments of an item count, whoever gave them.

    There is no default level: it is a property of the labels (relevance grades are
    ordinal; the ``krippendorff`` package defaults to ``"interval"``). Ordinal,
    interval and ratio levels need numeric labels.

    Parameters
    ----------
    judgments
        Long format, one row per (query, doc, judge) with a label; a null label or an
        absent row is a missing judgment.
    level_of_measurement
        ``"nominal"``, ``"ordinal"``, ``"interval"`` or ``"ratio"``.
    query, doc, judge, label
        Column names.
    group_by
        Slice column(s): one row per slice.
    per_query
        One row per (slice, query) instead, without intervals.
    n_resamples
        Bootstrap resamples of the queries for the intervals (0: none). Only these need
        NumPy (the ``stats`` extra); the values themselves are computed by Polars.
    confidence
        Level of the (percentile) intervals.
    seed
        Seed of the resampling.

    Returns
    -------
    pl.DataFrame
        ``[group_by...], n_queries, n_items, alpha, ci_low, ci_high`` (per query:
        ``[group_by...], query, n_items, alpha, ci_low, ci_high``); ``n_items`` counts
        the items with two judgments or more. ``alpha`` is null where there is no
        expected disagreement (a single label).

    Raises
    ------
    InvalidDataError
        A column missing, non-numeric labels for an ordinal, interval or ratio level,
        no item with two judgments, a judge labelling an item twice.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import krippendorff_alpha
    >>> judgments = pl.DataFrame({
    ...     "qid": [1] * 7 + [2] * 5,
    ...     "docid": ["a", "a", "a", "b", "b", "c", "c", "d", "d", "d", "e", "e"],
    ...     "judge": ["ann", "bob", "llm", "ann", "llm", "bob", "llm"] + ["ann", "bob",
    ...               "llm", "ann", "llm"],
    ...     "rel": [2, 2, 1, 0, 0, 1, None, 0, 1, 0, 2, 2],
    ... })
    >>> krippendorff_alpha(judgments, level_of_measurement="ordinal", n_resamples=0)
    shape: (1, 5)
    ┌───────────┬─────────┬───────┬────────┬─────────┐
    │ n_queries ┆ n_items ┆ alpha ┆ ci_low ┆ ci_high │
    │ ---       ┆ ---     ┆ ---   ┆ ---    ┆ ---     │
    │ i64       ┆ i64     ┆ f64   ┆ f64    ┆ f64     │
    ╞═══════════╪═════════╪═══════╪════════╪═════════╡
    │ 2         ┆ 4       ┆ 0.775 ┆ null   ┆ null    │
    └───────────┴─────────┴───────┴────────┴─────────┘
    """
    if level_of_measurement not in LEVELS:
        msg = (f"level_of_measurement must be one of {', '.join(map(repr, LEVELS))}, "
               f"got {level_of_measurement!r}")
        raise ValueError(msg)
    check_bootstrap(n_resamples, confidence, seed)
    numeric = (None if level_of_measurement == "nominal"
               else f"krippendorff_alpha(level_of_measurement={level_of_measurement!r})")
    data = prepare(judgments, query=query, doc=doc, judge=judge, label=label,
                   group_by=group_by, numeric=numeric)
    cats = categories(data.frame[label], None, label)
    by = data.keys if per_query or n_resamples else data.groups
    table, items, sizes = coincidences(data, cats, by)
    values = tuple(cats.cast(pl.Float64).to_list()) if numeric else ()
    statistic = KrippendorffAlpha(cats.len(), tuple(sizes), level_of_measurement, values)
    return summarise(table, items, statistic, len(sizes) * cats.len() ** 2, name="alpha",
                     groups=data.groups, query=query, per_query=per_query,
                     n_resamples=n_resamples, confidence=confidence, seed=seed,
                     what=f"krippendorff_alpha({level_of_measurement!r})")
