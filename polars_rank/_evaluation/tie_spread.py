"""How far ties in a run's scores can move its metrics: :func:`tie_spread`.

A constant scorer gets MRR 1.0 from trec_eval when its relevant documents have the
largest ids: ties decide numbers more often than users know. The spread between the
order of the tied rows that is best for a metric (``ties="optimistic"``) and the
worst (``"pessimistic"``) says how much of a number is the tie-breaking rule's.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from polars_rank.errors import user_stacklevel
from polars_rank.registry import Metric

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._evaluation.spec import Missing

__all__ = ["tie_spread", "TIED_WARNING_SHARE"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

TIED_WARNING_SHARE = 0.5
""":func:`tie_spread` warns when more than this share of the retrieved rows tie."""


def tie_spread(
    run: FrameT,
    qrels: object = None,
    metrics: str | Metric | Sequence[str | Metric] = ("ndcg@10", "map", "mrr@10"),
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    group_by: str | Sequence[str] | None = None,
    per_query: bool = False,
    missing: Missing = "skip",
) -> FrameT:
    """Each metric under the worst and the best order of the tied rows, and their spread.

    :func:`polars_rank.evaluate` twice, with ``ties="pessimistic"`` and
    ``"optimistic"`` (tied rows by the metric's gain, lowest / highest first), side by
    side: ``<metric>_pessimistic``, ``<metric>_optimistic`` and ``<metric>_spread``
    (their difference: 0 where ties cannot move the metric), per group or per query,
    and ``tied_share``, the share of the retrieved rows whose score another row of
    their query shares. Given an eager run, it warns when more than half of the
    retrieved rows tie (a lazy run gives a plan: nothing is read to warn).
    For the metrics summing gains under a non-increasing discount (DCG, P@k, AP, RR,
    RBP, ERR, bpref) the two are the extremes over every order of the ties
    (docs/conventions.md#ties); ``evaluate(..., ties="expected")`` gives the mean.

    Parameters
    ----------
    run, qrels, metrics, query, doc, score, rel, group_by, per_query, missing
        As :func:`polars_rank.evaluate`.

    Returns
    -------
    pl.DataFrame or pl.LazyFrame
        Eager in, eager out.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> run = pl.DataFrame({"qid": ["q1"] * 4, "docid": ["a", "b", "c", "d"],
    ...                     "score": [0.5, 0.5, 0.3, 0.2]})
    >>> qrels = pl.DataFrame({"qid": ["q1"], "docid": ["b"], "rel": [1]})
    >>> pr.tie_spread(run, qrels, "mrr")
    shape: (1, 4)
    ┌─────────────────┬────────────────┬────────────┬────────────┐
    │ mrr_pessimistic ┆ mrr_optimistic ┆ mrr_spread ┆ tied_share │
    │ ---             ┆ ---            ┆ ---        ┆ ---        │
    │ f64             ┆ f64            ┆ f64        ┆ f64        │
    ╞═════════════════╪════════════════╪════════════╪════════════╡
    │ 0.5             ┆ 1.0            ┆ 0.5        ┆ 0.5        │
    └─────────────────┴────────────────┴────────────┴────────────┘

    The two tied documents could come either way: RR is 1/2 or 1.
    """
    from polars_rank._engine.frames import as_polars
    from polars_rank._evaluation.pipeline import evaluate

    listed = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    labels = [str(m) for m in listed]
    groups: list[str] = ([] if group_by is None else [group_by] if isinstance(group_by, str)
                         else list(group_by))
    keys = [*groups, query] if per_query else groups
    frame: pl.LazyFrame = (run if isinstance(run, pl.LazyFrame)
                           else as_polars(run, "run", query=query, doc=doc).lazy())
    common = {"query": query, "doc": doc, "score": score, "rel": rel, "group_by": group_by,
              "per_query": per_query, "missing": missing}
    low = evaluate(frame, qrels, listed, ties="pessimistic", **common)  # type: ignore[arg-type]
    with warnings.catch_warnings():  # the first call gave the data's warnings
        warnings.simplefilter("ignore")
        high = evaluate(frame, qrels, listed, ties="optimistic",
                        **common)  # type: ignore[arg-type]
    one = pl.lit(0).alias("__all")  # the join key of a frame without groups
    on = keys or ["__all"]
    tied = (
        frame.filter(pl.col(score).is_not_null())
        .with_columns(pl.col(score).cast(pl.Float64).is_duplicated().over(query).alias("__tied"),
                      one)
        .group_by(on).agg(pl.col("__tied").mean().alias("tied_share"))
    )
    out = (
        low.lazy().with_columns(one).rename({m: f"{m}_pessimistic" for m in labels})
        .join(high.lazy().with_columns(one).rename({m: f"{m}_optimistic" for m in labels}),
              on=on, how="left", nulls_equal=True)
        .join(tied, on=on, how="left", nulls_equal=True)
        .with_columns((pl.col(f"{m}_optimistic") - pl.col(f"{m}_pessimistic")).abs()
                      .alias(f"{m}_spread") for m in labels)
        .select(*keys, *[f"{m}_{part}" for m in labels
                         for part in ("pessimistic", "optimistic", "spread")], "tied_share")
    )
    if isinstance(run, pl.LazyFrame):
        return out
    result = out.collect()
    share = result["tied_share"].mean()
    if isinstance(share, float) and share > TIED_WARNING_SHARE:
        msg = (f"{share:.0%} of the run's retrieved rows share their score with another row "
               "of their query: the tie-breaking rule decides much of each metric (the "
               "_spread columns say how much)")
        warnings.warn(msg, UserWarning, stacklevel=user_stacklevel())
    return result
