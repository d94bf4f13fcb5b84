"""``compare_fusion()``: is the fused run better than its parts? One call answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._evaluation import evaluate
from polars_rank.compare import compare
from polars_rank.fusion._fuse import fuse
from polars_rank.fusion._runs import Runs
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from polars_rank._engine.frames import FrameLike
    from polars_rank._engine.params import EvalTies
    from polars_rank._evaluation.spec import Missing
    from polars_rank._language.dialects import DialectName
    from polars_rank.fusion._fuse import FusionMethod
    from polars_rank.fusion._runs import Norm

__all__ = ["compare_fusion"]


@shared_parameters
def compare_fusion(
    runs: FrameLike,
    qrels: FrameLike,
    method: FusionMethod = "rrf",
    *,
    norm: Norm | None = "min-max",
    params: Mapping[str, Any] | None = None,
    metrics: str | Sequence[str] = ("ndcg@10",),
    name: str = "fused",
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    system: str = "system",
    ties: EvalTies | None = None,
    dialect: DialectName = "polars-rank",
    missing: Missing = "skip",
    **options: Any,
) -> pl.DataFrame:
    """Fuse the runs and compare each of them with the fused run, per query, in one call.

    The recipe it runs: :func:`polars_rank.fuse` (``method``, ``norm``, ``params``),
    :func:`polars_rank.evaluate` of the runs and the fused run per query (one
    ``group_by`` over the systems), then :func:`polars_rank.compare` with the fused
    run as the baseline, so that the correction (Holm by default) is across the runs
    x metrics. Each row is a run against the fused run: ``delta = mean -
    baseline_mean`` is the run's mean minus the fused run's, so a negative delta
    (``significant``) says the fusion is better than that run.

    Parameters
    ----------
    runs, method, norm, params
        As :func:`polars_rank.fuse`.
    qrels
        ... fusion
    metrics
        Metric strings, as :func:`polars_rank.evaluate` reads them.
    name
        The fused run's name in the ``system`` column (the runs' names are text:
        ``"0"``, ``"1"``, ... for a list of runs).
    query, doc, score, rel, system
        Column names.
    ties, dialect, missing
        As :func:`polars_rank.evaluate`. ``missing="zero"`` scores a run 0 on the
        judged queries it returned nothing for (``trec_eval -c``), so that every
        query pairs; with ``"skip"`` those queries leave that run's comparison, and
        :func:`polars_rank.compare` warns.
    **options
        :func:`polars_rank.compare`'s options: ``test``, ``correction``, ``alpha``,
        ``alternative``, ``n_resamples``, ``seed``, ...

    Returns
    -------
    pl.DataFrame
        :func:`polars_rank.compare`'s frame, its arm column named ``system``: one row
        per metric and run, ``baseline`` the fused run.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> bm25 = pl.DataFrame({"qid": ["q1"] * 3 + ["q2"] * 3,
    ...                      "docid": ["a", "b", "c", "d", "e", "f"],
    ...                      "score": [12.0, 9.0, 3.0, 7.0, 6.0, 1.0]})
    >>> dense = pl.DataFrame({"qid": ["q1"] * 3 + ["q2"] * 3,
    ...                       "docid": ["c", "b", "a", "f", "e", "d"],
    ...                       "score": [0.9, 0.6, 0.5, 0.8, 0.7, 0.2]})
    >>> qrels = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["b", "c", "e"],
    ...                       "rel": [2, 1, 1]})
    >>> out = pr.compare_fusion({"bm25": bm25, "dense": dense}, qrels, "wsum",
    ...                         params={"weights": [0.25, 0.75]}, metrics=["ndcg@2", "mrr"])
    >>> out.select("metric", "system", "baseline", "mean", "baseline_mean", "delta")
    shape: (4, 6)
    ┌────────┬────────┬──────────┬──────────┬───────────────┬───────────┐
    │ metric ┆ system ┆ baseline ┆ mean     ┆ baseline_mean ┆ delta     │
    │ ---    ┆ ---    ┆ ---      ┆ ---      ┆ ---           ┆ ---       │
    │ str    ┆ str    ┆ str      ┆ f64      ┆ f64           ┆ f64       │
    ╞════════╪════════╪══════════╪══════════╪═══════════════╪═══════════╡
    │ ndcg@2 ┆ bm25   ┆ fused    ┆ 0.555277 ┆ 0.929859      ┆ -0.374582 │
    │ ndcg@2 ┆ dense  ┆ fused    ┆ 0.745324 ┆ 0.929859      ┆ -0.184535 │
    │ mrr    ┆ bm25   ┆ fused    ┆ 0.5      ┆ 1.0           ┆ -0.5      │
    │ mrr    ┆ dense  ┆ fused    ┆ 0.75     ┆ 1.0           ┆ -0.25     │
    └────────┴────────┴──────────┴──────────┴───────────────┴───────────┘

    (Two queries make a poor test; real comparisons need many.)
    """
    reserved = {"arm", "baseline", "metrics", "query", "group_by", "paired"} & set(options)
    if reserved:
        msg = (f"compare_fusion sets compare()'s {', '.join(sorted(reserved))}; for other "
               "designs fuse, evaluate and compare yourself (see the Fusion docs)")
        raise TypeError(msg)
    r = Runs(runs, query=query, doc=doc, score=score, system=system)
    fused = fuse(runs, method, norm=norm, params=params, query=query, doc=doc, score=score,
                 system=system)
    parts = r.frame.select(pl.col("sys").cast(pl.String).alias(system), pl.col("q").alias(query),
                           pl.col("d").alias(doc), pl.col("s").alias(score))
    names = parts.select(pl.col(system).unique()).collect()[system].to_list()
    if name in names:
        msg = f"name: {name!r} is the name of one of the runs; choose another"
        raise ValueError(msg)
    every = pl.concat([parts, fused.lazy().select(pl.lit(name).alias(system), query, doc,
                                                  score)])
    metric_list = [metrics] if isinstance(metrics, str) else list(metrics)
    per = evaluate(every, qrels, metric_list, query=query, doc=doc, score=score, rel=rel,
                   group_by=system, per_query=True, ties=ties, dialect=dialect,
                   missing=missing)
    per_df = per.collect() if isinstance(per, pl.LazyFrame) else per
    out = compare(per_df, arm=system, baseline=name, metrics=metric_list, query=query,
                  **options)
    return out
