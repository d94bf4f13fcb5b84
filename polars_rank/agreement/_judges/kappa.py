"""Cohen's kappa (two named judges) and Fleiss' kappa (the same number of judges per item)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.agreement._judges.data import (
    ITEMS,
    LABEL_A,
    LABEL_B,
    ONE,
    M,
    categories,
    component_sums,
    label_columns,
    pair_table,
    pairs,
    prepare,
    unit_wide,
)
from polars_rank.agreement._judges.statistics import WEIGHTS, CohenKappa, FleissKappa, Weights
from polars_rank.agreement._judges.summary import check_bootstrap, summarise
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["cohen_kappa", "fleiss_kappa"]


def cohen_kappa(
    judgments: FrameLike,
    judge_a: Any,
    judge_b: Any,
    *,
    weights: Weights | None = None,
    labels: Sequence[Any] | None = None,
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
    r"""Cohen's kappa between two judges on the items both labelled.

    .. math:: \kappa = 1 - \frac{\sum_{ij} w_{ij} O_{ij}}{\sum_{ij} w_{ij} E_{ij}},
              \quad E_{ij} = \frac{O_{i\cdot} O_{\cdot j}}{n}

    ``O`` is the confusion table of the two judges' labels over the ``n`` items
    (query, document) both judged, ``E`` the table expected by chance from its
    margins, ``w`` the disagreement weights: 1 off the diagonal (``weights=None``),
    ``|i - j|`` (``"linear"``) or ``(i - j)^2`` (``"quadratic"``, Cohen 1968), ``i``
    and ``j`` the categories' positions among the sorted labels. This is
    ``sklearn.metrics.cohen_kappa_score(a, b, weights=...)`` on the items both judged
    (Cohen 1960; Artstein & Poesio 2008).

    The categories are the labels that occur in those items, sorted (scikit-learn's
    default); ``labels=`` fixes them (and their order) for every row, so that a
    weighted kappa of a slice or a query is scikit-learn's with the same ``labels=``.
    Per query and per slice the categories are the whole input's.

    Parameters
    ----------
    judgments
        Long format, one row per (query, doc, judge) with a label; a null label or an
        absent row is a missing judgment. DataFrame or LazyFrame (pandas, Arrow and
        dicts of columns are read as frames).
    judge_a, judge_b
        The two judges, values of the ``judge`` column.
    weights
        ``None`` (unweighted), ``"linear"`` or ``"quadratic"``; weighted kappas need
        numeric labels.
    labels
        The categories in order (default: the sorted labels of the items both judged),
        of the label column's kind: text for a text column, numbers for a numeric one.
    query, doc, judge, label
        Column names: the query, the document, the judge, the label.
    group_by
        Slice column(s): one row per slice (a query in two slices counts in each; a
        slice where the judges share no item has no row).
    per_query
        One row per (slice, query) instead, without intervals.
    n_resamples
        Bootstrap resamples of the queries for the intervals (0: none). Only these need
        NumPy (the ``stats`` extra); the values themselves are computed by Polars.
    confidence
        Level of the (percentile) intervals.
    seed
        Seed of the resampling (``None``: fresh randomness).

    Returns
    -------
    pl.DataFrame
        ``[group_by...], n_queries, n_items, kappa, ci_low, ci_high`` (per query:
        ``[group_by...], query, n_items, kappa, ci_low, ci_high``), sorted by slice
        (and query). ``kappa`` is null where chance agreement is perfect (one label
        only); the interval is null without resamples or with one query.

    Raises
    ------
    InvalidDataError
        A column missing, a judge absent, the judges with no item in common, a judge
        labelling an item twice, non-numeric labels with ``weights``, NaN labels.
    ValueError
        ``labels`` not distinct, not values of the label column, or text for a numeric
        column (numbers for a text one).
    ImportError
        Intervals (``n_resamples > 0``, not per query) without NumPy (``pip install
        "polars-rank[stats]"``).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import cohen_kappa
    >>> judgments = pl.DataFrame({
    ...     "qid": [1] * 8 + [2] * 8,
    ...     "docid": ["a", "a", "b", "b", "c", "c", "d", "d"] * 2,
    ...     "judge": ["human", "llm"] * 8,
    ...     "rel": [2, 2, 1, 0, 0, 0, 1, 1, 2, 1, 0, 0, 1, 1, 2, 2],
    ... })
    >>> cohen_kappa(judgments, "human", "llm", n_resamples=0)
    shape: (1, 5)
    ┌───────────┬─────────┬──────────┬────────┬─────────┐
    │ n_queries ┆ n_items ┆ kappa    ┆ ci_low ┆ ci_high │
    │ ---       ┆ ---     ┆ ---      ┆ ---    ┆ ---     │
    │ i64       ┆ i64     ┆ f64      ┆ f64    ┆ f64     │
    ╞═══════════╪═════════╪══════════╪════════╪═════════╡
    │ 2         ┆ 8       ┆ 0.627907 ┆ null   ┆ null    │
    └───────────┴─────────┴──────────┴────────┴─────────┘
    >>> cohen_kappa(judgments, "human", "llm", weights="quadratic", per_query=True)
    shape: (2, 5)
    ┌─────┬─────────┬───────┬────────┬─────────┐
    │ qid ┆ n_items ┆ kappa ┆ ci_low ┆ ci_high │
    │ --- ┆ ---     ┆ ---   ┆ ---    ┆ ---     │
    │ i64 ┆ i64     ┆ f64   ┆ f64    ┆ f64     │
    ╞═════╪═════════╪═══════╪════════╪═════════╡
    │ 1   ┆ 4       ┆ 0.8   ┆ null   ┆ null    │
    │ 2   ┆ 4       ┆ 0.8   ┆ null   ┆ null    │
    └─────┴─────────┴───────┴────────┴─────────┘
    """
    if weights is not None and weights not in WEIGHTS:
        msg = f"weights must be None, 'linear' or 'quadratic', got {weights!r}"
        raise ValueError(msg)
    check_bootstrap(n_resamples, confidence, seed)
    data = prepare(judgments, query=query, doc=doc, judge=judge, label=label,
                   group_by=group_by,
                   numeric=None if weights is None else f"cohen_kappa(weights={weights!r})")
    joined = pairs(data, judge_a, judge_b)
    both = pl.concat([joined[LABEL_A].rename(label), joined[LABEL_B].rename(label)])
    cats = categories(both, labels, label)
    table, items = pair_table(data, joined, cats)
    return summarise(table, items, CohenKappa(cats.len(), weights), cats.len() ** 2,
                     name="kappa", groups=data.groups, query=query, per_query=per_query,
                     n_resamples=n_resamples, confidence=confidence, seed=seed,
                     what=f"cohen_kappa({judge_a!r}, {judge_b!r}, weights={weights!r})")


def fleiss_kappa(
    judgments: FrameLike,
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
    r"""Fleiss' kappa: agreement of ``m`` judges per item, whoever they are.

    .. math:: \kappa = \frac{\bar P - \bar P_e}{1 - \bar P_e}, \quad
              \bar P = \frac{1}{N} \sum_i \frac{\sum_c n_{ic}(n_{ic} - 1)}{m(m - 1)},
              \quad \bar P_e = \sum_c p_c^2, \quad p_c = \frac{\sum_i n_{ic}}{N m}

    ``n_ic`` judges put item ``i`` (a query, document pair) in category ``c``; every
    item has the same number ``m >= 2`` of judgments, but not necessarily from the
    same judges (Fleiss 1971). This is statsmodels'
    ``statsmodels.stats.inter_rater.fleiss_kappa(table, method="fleiss")`` on the
    items x categories table. Labels are nominal.

    Items with different numbers of judgments (missing judgments) are refused: use
    :func:`krippendorff_alpha` (``level_of_measurement="nominal"``), which allows
    them and reduces to nearly Fleiss' kappa when none is missing.

    Parameters
    ----------
    judgments
        Long format, one row per (query, doc, judge) with a label; null labels are
        missing judgments.
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
        ``[group_by...], n_queries, n_items, kappa, ci_low, ci_high`` (per query:
        ``[group_by...], query, n_items, kappa, ci_low, ci_high``).

    Raises
    ------
    InvalidDataError
        A column missing, items with different numbers of judgments (naming one, and
        Krippendorff's alpha), fewer than two judgments per item, a judge labelling an
        item twice.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import fleiss_kappa
    >>> judgments = pl.DataFrame({
    ...     "qid": [1] * 9 + [2] * 9,
    ...     "docid": ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3 + ["e"] * 3 + ["f"] * 3,
    ...     "judge": ["ann", "bob", "llm"] * 6,
    ...     "rel": [1, 1, 1, 0, 0, 1, 2, 2, 2, 0, 0, 0, 1, 2, 1, 0, 1, 0],
    ... })
    >>> fleiss_kappa(judgments, n_resamples=0)
    shape: (1, 5)
    ┌───────────┬─────────┬──────────┬────────┬─────────┐
    │ n_queries ┆ n_items ┆ kappa    ┆ ci_low ┆ ci_high │
    │ ---       ┆ ---     ┆ ---      ┆ ---    ┆ ---     │
    │ i64       ┆ i64     ┆ f64      ┆ f64    ┆ f64     │
    ╞═══════════╪═════════╪══════════╪════════╪═════════╡
    │ 2         ┆ 6       ┆ 0.485714 ┆ null   ┆ null    │
    └───────────┴─────────┴──────────┴────────┴─────────┘
    """
    check_bootstrap(n_resamples, confidence, seed)
    data = prepare(judgments, query=query, doc=doc, judge=judge, label=label,
                   group_by=group_by)
    if not data.frame.height:
        msg = f"fleiss_kappa: no judgment with a label in column {label!r}: nothing to agree on"
        raise InvalidDataError(msg)
    cats = categories(data.frame[label], None, label)
    units = unit_wide(data, cats)
    sizes = units[M].unique().sort().to_list()
    if len(sizes) != 1 or sizes[0] < 2:
        odd = units.filter(pl.col(M) != units[M].max()).sort(data.unit).head(1)
        unit = odd.row(0, named=True) if odd.height else units.sort(data.unit).row(0, named=True)
        msg = (f"fleiss_kappa needs the same number (at least 2) of judgments of every item; "
               f"items have {sizes} (column {judge!r}), e.g. query {unit[query]!r}, doc "
               f"{unit[doc]!r} with {unit[M]}: Krippendorff's alpha (krippendorff_alpha) "
               f"allows missing judgments")
        raise InvalidDataError(msg)
    size = cats.len()
    n = [pl.col(name) for name in label_columns(size)]
    by = data.keys if per_query or n_resamples else data.groups  # per query: if needed
    table = component_sums(units, by,
                           [*n, pl.sum_horizontal(c * c for c in n), ONE])
    items = units.group_by(data.keys).agg(pl.len().alias(ITEMS))
    return summarise(table, items, FleissKappa(size, sizes[0]), size + 2, name="kappa",
                     groups=data.groups, query=query, per_query=per_query,
                     n_resamples=n_resamples, confidence=confidence, seed=seed,
                     what="fleiss_kappa")
