"""Label draws: S labellings sampled from the labels' distributions, as one Polars plan.

Each (query, doc, draw) gets a uniform number from a seeded hash of its key
(``pl.struct(query, doc, draw).hash(seed)``), so a draw depends on the seed and the
key only: not on row order, threads or the run (every arm of an experiment sees the
same labels in draw ``s``). Its grade is the inverse of the document's cumulative
distribution at that number. The draws are a frame of (draw x label) rows, evaluated
with :func:`polars_rank.evaluate` as lists keyed by (draw, query); the draws are made
in blocks of ``block`` draws (one plan each) so that memory stays bounded.
"""

from __future__ import annotations

import polars as pl

from polars_rank._evaluation import evaluate

__all__ = ["draw_labels", "label_intervals", "per_draw_values"]

_KEY = "_list"
_DRAW = "_draw"
_U64 = 2.0 ** 64


def label_intervals(dist: pl.LazyFrame, query: str, doc: str) -> pl.LazyFrame:
    """Each grade's interval [_lower, _upper) of the document's cumulative distribution.

    ``dist``: query, doc, grade, probability. The last grade's interval ends at
    infinity, so rounding never leaves a gap.
    """
    upper = pl.col("probability").cum_sum().over(query, doc)
    last = pl.col("grade") == pl.col("grade").max().over(query, doc)
    return dist.sort(query, doc, "grade").with_columns(
        pl.when(last).then(float("inf")).otherwise(upper).alias("_upper"),
        (upper - pl.col("probability")).alias("_lower"))


def draw_labels(intervals: pl.LazyFrame, draws: pl.LazyFrame, query: str, doc: str,
                seed: int) -> pl.LazyFrame:
    """One sampled grade per (draw, query, doc): columns ``_draw``, query, doc, grade (+ the rest).

    ``intervals``: :func:`label_intervals`; ``draws``: one column ``_draw``.
    """
    u = pl.struct(query, doc, _DRAW).hash(seed=seed).cast(pl.Float64) / _U64
    return (intervals.join(draws, how="cross")
            .filter((pl.col("_lower") <= u) & (u < pl.col("_upper")))
            .drop("_lower", "_upper", "probability"))


def per_draw_values(run: pl.LazyFrame, dist: pl.LazyFrame, metrics: list[str],
                    draws: range, *, query: str, doc: str, score: str, arm: str | None,
                    seed: int, block: int) -> pl.DataFrame:
    """Each (draw, [arm], query)'s metric values under its labels, by evaluate().

    ``run``: query, doc, score (and ``arm``), the queries kept being those with labels.
    """
    queries = (dist.select(query).unique()
               .join(run.select(query).unique(), on=query, how="semi")
               .with_columns((pl.col(query).rank("dense").cast(pl.Int64) - 1).alias("_qi"))
               .collect())
    n = max(queries.height, 1)
    arms = [arm] if arm is not None else []
    # what every block reads, computed once
    ranked = run.join(queries.lazy(), on=query).select("_qi", doc, score, *arms).collect()
    intervals = label_intervals(dist.join(queries.lazy(), on=query), query, doc).collect()
    key = (pl.col(_DRAW) * n + pl.col("_qi")).alias(_KEY)
    parts = []
    for start in range(draws.start, draws.stop, block):
        frame = pl.LazyFrame({_DRAW: range(start, min(start + block, draws.stop))},
                             schema={_DRAW: pl.Int64})
        qrels = draw_labels(intervals.lazy(), frame, query, doc, seed).select(key, doc,
                                                                              "grade")
        run_s = ranked.lazy().join(frame, how="cross").select(key, doc, score, *arms)
        values = evaluate(run_s, qrels, metrics, query=_KEY, doc=doc, score=score,
                          rel="grade", group_by=arm, per_query=True)
        parts.append(values.collect() if isinstance(values, pl.LazyFrame) else values)
    out = pl.concat(parts).with_columns((pl.col(_KEY) // n).alias("draw"),
                                        (pl.col(_KEY) % n).alias("_qi"))
    return (out.join(queries, on="_qi")
            .select("draw", *arms, query, *metrics)
            .sort("draw", *arms, query))
