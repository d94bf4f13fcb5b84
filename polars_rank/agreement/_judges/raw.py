"""Raw (observed) agreement and the confusion table of two judges."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.agreement._judges.data import (
    COUNT,
    ITEMS,
    KEY,
    LABEL_A,
    LABEL_B,
    ONE,
    J,
    M,
    categories,
    component_sums,
    label_columns,
    pair_table,
    pairs,
    positions,
    prepare,
    unit_wide,
)
from polars_rank.agreement._judges.statistics import MeanPairAgreement, ObservedAgreement
from polars_rank.agreement._judges.summary import check_bootstrap, summarise
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["confusion", "raw_agreement"]


def raw_agreement(
    judgments: FrameLike,
    judge_a: Any = None,
    judge_b: Any = None,
    *,
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
    r"""Raw agreement: the share of judgments that agree, without chance correction.

    .. math:: P_o = \frac{1}{N} \sum_i \frac{\sum_c n_{ic}(n_{ic} - 1)}{m_i(m_i - 1)}

    With two judges named: the share of the items both labelled on which their
    labels are equal (the trace of :func:`confusion` over its sum; scikit-learn's
    ``accuracy_score`` of one judge's labels against the other's). Without: over the
    items with two judgments or more, the mean share of pairs of judges that agree
    (``n_ic`` judges put item ``i`` in category ``c``, ``m_i`` judged it): Fleiss'
    ``P-bar`` (Fleiss 1971), each item weighted once.

    Agreement by chance is not subtracted: with a label most documents get
    (non-relevant), two judges agree often however little they know. Read it beside
    a kappa or alpha.

    Parameters
    ----------
    judgments
        Long format, one row per (query, doc, judge) with a label; null labels are
        missing judgments.
    judge_a, judge_b
        Two judges (values of ``judge``), or both None: all judges.
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
        ``[group_by...], n_queries, n_items, agreement, ci_low, ci_high`` (per query:
        ``[group_by...], query, n_items, agreement, ci_low, ci_high``).

    Raises
    ------
    InvalidDataError
        A column missing, a judge absent, no item judged twice.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import raw_agreement
    >>> judgments = pl.DataFrame({
    ...     "qid": [1] * 6,
    ...     "docid": ["a", "a", "a", "b", "b", "b"],
    ...     "judge": ["ann", "bob", "llm"] * 2,
    ...     "rel": [1, 1, 0, 2, 2, 2],
    ... })
    >>> raw_agreement(judgments, "ann", "llm", n_resamples=0)["agreement"].item()
    0.5
    >>> round(raw_agreement(judgments, n_resamples=0)["agreement"].item(), 6)
    0.666667
    """
    check_bootstrap(n_resamples, confidence, seed)
    if (judge_a is None) != (judge_b is None):
        msg = "raw_agreement takes two judges (judge_a and judge_b) or none (all judges)"
        raise ValueError(msg)
    data = prepare(judgments, query=query, doc=doc, judge=judge, label=label,
                   group_by=group_by)
    options: dict[str, Any] = {
        "name": "agreement", "groups": data.groups, "query": query, "per_query": per_query,
        "n_resamples": n_resamples, "confidence": confidence, "seed": seed}
    if judge_a is not None:
        joined = pairs(data, judge_a, judge_b)
        cats = categories(pl.concat([joined[LABEL_A], joined[LABEL_B]]).rename(label), None,
                          label)
        table, items = pair_table(data, joined, cats)
        return summarise(table, items, ObservedAgreement(cats.len()), cats.len() ** 2,
                         what=f"raw_agreement({judge_a!r}, {judge_b!r})", **options)
    cats = categories(data.frame[label], None, label)
    units = unit_wide(data, cats).filter(pl.col(M) >= 2)
    if not units.height:
        msg = f"no item has two judgments or more (column {judge!r}): nothing agrees"
        raise InvalidDataError(msg)
    position, sizes = positions(units)
    agreeing = pl.sum_horizontal(pl.col(n) * (pl.col(n) - 1) for n in label_columns(cats.len()))
    by = data.keys if per_query or n_resamples else data.groups  # per query: if needed
    table = (component_sums(units, [*by, M], [agreeing, ONE])
             .join(position, on=M)
             .select(*by, (pl.col(KEY) * len(sizes) + pl.col(J)).alias(KEY), COUNT))
    items = units.group_by(data.keys).agg(pl.len().alias(ITEMS))
    return summarise(table, items, MeanPairAgreement(tuple(sizes)), 2 * len(sizes),
                     what="raw_agreement", **options)


def confusion(
    judgments: FrameLike,
    judge_a: Any,
    judge_b: Any,
    *,
    labels: Sequence[Any] | None = None,
    query: str = "qid",
    doc: str = "docid",
    judge: str = "judge",
    label: str = "rel",
    group_by: str | Sequence[str] | None = None,
    per_query: bool = False,
) -> pl.DataFrame:
    """The confusion table of two judges: how many items got each pair of labels.

    Over the items (query, document) both judges labelled: one row per (label of
    ``judge_a``, label of ``judge_b``), every pair of categories present, zeros
    included, so that ``.pivot(on="label_b", index="label_a", values="count")`` is
    ``sklearn.metrics.confusion_matrix(a, b, labels=...)`` (rows ``judge_a``, as
    scikit-learn's ``y_true``). Per slice (``group_by``) or per query
    (``per_query=True``), each with every pair.

    Parameters
    ----------
    judgments
        Long format, one row per (query, doc, judge) with a label; null labels are
        missing judgments.
    judge_a, judge_b
        The two judges (values of ``judge``): rows and columns of the table.
    labels
        The categories in order (default: the sorted labels of the items both judged),
        of the label column's kind: text for a text column, numbers for a numeric one.
    query, doc, judge, label
        Column names.
    group_by
        Slice column(s): a table per slice.
    per_query
        A table per (slice, query).

    Returns
    -------
    pl.DataFrame
        ``[group_by...], [query], label_a, label_b, count`` (Int64), sorted by slice,
        query and the categories' order.

    Raises
    ------
    InvalidDataError
        A column missing, a judge absent, the judges with no item in common.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import confusion
    >>> judgments = pl.DataFrame({
    ...     "qid": [1] * 8,
    ...     "docid": ["a", "a", "b", "b", "c", "c", "d", "d"],
    ...     "judge": ["human", "llm"] * 4,
    ...     "rel": [1, 1, 0, 1, 0, 0, 1, 1],
    ... })
    >>> confusion(judgments, "human", "llm").pivot(on="label_b", index="label_a",
    ...                                            values="count")
    shape: (2, 3)
    ┌─────────┬─────┬─────┐
    │ label_a ┆ 0   ┆ 1   │
    │ ---     ┆ --- ┆ --- │
    │ i64     ┆ i64 ┆ i64 │
    ╞═════════╪═════╪═════╡
    │ 0       ┆ 1   ┆ 1   │
    │ 1       ┆ 0   ┆ 2   │
    └─────────┴─────┴─────┘
    """
    data = prepare(judgments, query=query, doc=doc, judge=judge, label=label,
                   group_by=group_by)
    joined = pairs(data, judge_a, judge_b)
    cats = categories(pl.concat([joined[LABEL_A], joined[LABEL_B]]).rename(label), labels,
                      label)
    table, _ = pair_table(data, joined, cats)
    keys = data.keys if per_query else data.groups
    size = cats.len()
    cells = pl.DataFrame({KEY: pl.int_range(size * size, eager=True, dtype=pl.Int64)})
    cells = cells.with_columns(
        cats.gather(cells[KEY] // size).alias("label_a"),
        cats.gather(cells[KEY] % size).alias("label_b"))
    counted = table.group_by([*keys, KEY]).agg(pl.col(COUNT).sum().cast(pl.Int64))
    frames = counted.select(keys).unique() if keys else pl.DataFrame()
    grid = frames.join(cells, how="cross") if keys else cells
    return (grid.join(counted, on=[*keys, KEY], how="left", nulls_equal=True)
            .with_columns(pl.col(COUNT).fill_null(0))
            .sort([*keys, KEY], nulls_last=True)
            .select(*keys, "label_a", "label_b", pl.col(COUNT).alias("count")))

