"""Label draws: S labellings sampled from the labels' distributions, as one Polars plan.

Each (query, doc, draw) gets a uniform number from a seeded hash of its key
(``pl.struct(query, doc, draw).hash(seed)``), so a draw depends on the seed and the
key only: not on row order, threads or the run (every arm of an experiment sees the
same labels in draw ``s``). Its grade is the inverse of the document's cumulative
distribution at that number. The metrics that read only the judged rows' positions
and labels (nDCG, AP, recall, R-precision, bpref, ...) read each list ranked once, its
rows repeated draw after draw with their grades drawn in place
(:mod:`~polars_rank.agreement._uncertain.positions`); the others are evaluated by
:func:`polars_rank.evaluate` on a frame of (draw x label) rows, as lists keyed by
(draw, query). Either way, the draws are made in blocks of ``block`` draws (one plan
each) so that memory stays bounded.
"""

from __future__ import annotations

import polars as pl

from polars_rank._engine.draws import uniform
from polars_rank._evaluation import evaluate
from polars_rank.agreement._uncertain.positions import (
    draw_rows,
    fast,
    grade_columns,
    per_draw_positions,
    ranked_lists,
)
from polars_rank.registry import parse_metric

__all__ = ["draw_labels", "label_intervals", "per_draw_values"]

_KEY = "_list"
_DRAW = "_draw"


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
    u = uniform(pl.struct(query, doc, _DRAW), seed)
    return (intervals.join(draws, how="cross")
            .filter((pl.col("_lower") <= u) & (u < pl.col("_upper")))
            .drop("_lower", "_upper", "probability"))


def per_draw_values(run: pl.LazyFrame, dist: pl.LazyFrame, metrics: list[str],
                    draws: range, *, query: str, doc: str, score: str, arm: str | None,
                    seed: int, block: int) -> pl.DataFrame:
    """Each (draw, [arm], query)'s metric values under its labels, as evaluate() gives them.

    ``run``: query, doc, score (and ``arm``), the queries kept being those with labels.
    The metrics :func:`~polars_rank.agreement._uncertain.positions.fast` accepts read
    each list ranked once (:mod:`~polars_rank.agreement._uncertain.positions`); the
    others are evaluated by :func:`polars_rank.evaluate` on each draw's (draw, query)
    lists.
    """
    queries = (dist.select(query).unique()
               .join(run.select(query).unique(), on=query, how="semi")
               .with_columns((pl.col(query).rank("dense").cast(pl.Int64) - 1).alias("_qi"))
               .collect())
    arms = [arm] if arm is not None else []
    parsed = {name: parse_metric(name) for name in metrics}
    quick = {name: m for name, m in parsed.items() if fast(m)}
    slow = [name for name in metrics if name not in quick]
    # what every block reads, computed once
    kept = run.join(queries.lazy(), on=query, how="semi").collect()
    labelled = dist.join(queries.lazy(), on=query, how="semi")
    intervals = label_intervals(labelled, query, doc).collect()
    out = None
    if quick:
        lists, longest = ranked_lists(kept, intervals.select(query, doc).unique(),
                                      query=query, doc=doc, score=score, arm=arm)
        grades, width = grade_columns(intervals, query, doc)
        rows = draw_rows(lists, grades, query, doc)
        keys = lists.select("_li", *arms, query).unique("_li")
        parts = [per_draw_positions(rows, width, longest, quick,
                                    range(start, min(start + block, draws.stop)),
                                    query=query, doc=doc, seed=seed)
                 for start in range(draws.start, draws.stop, block)]
        out = (pl.concat(parts).join(keys, on="_li")
               .select(pl.col(_DRAW).alias("draw"), *arms, query, *quick))
    if slow:
        values = _evaluated(kept, intervals, queries, slow, draws, query=query, doc=doc,
                            score=score, arm=arm, seed=seed, block=block)
        out = values if out is None else out.join(values, on=["draw", *arms, query])
    assert out is not None
    return out.select("draw", *arms, query, *metrics).sort("draw", *arms, query)


def _evaluated(run: pl.DataFrame, intervals: pl.DataFrame, queries: pl.DataFrame,
               metrics: list[str], draws: range, *, query: str, doc: str, score: str,
               arm: str | None, seed: int, block: int) -> pl.DataFrame:
    """:func:`per_draw_values` of the metrics evaluate() computes on each draw."""
    n = max(queries.height, 1)
    arms = [arm] if arm is not None else []
    ranked = run.join(queries, on=query).select("_qi", doc, score, *arms)
    labels = intervals.join(queries, on=query)
    key = (pl.col(_DRAW) * n + pl.col("_qi")).alias(_KEY)
    parts = []
    for start in range(draws.start, draws.stop, block):
        frame = pl.LazyFrame({_DRAW: range(start, min(start + block, draws.stop))},
                             schema={_DRAW: pl.Int64})
        qrels = draw_labels(labels.lazy(), frame, query, doc, seed).select(key, doc,
                                                                              "grade")
        run_s = ranked.lazy().join(frame, how="cross").select(key, doc, score, *arms)
        values = evaluate(run_s, qrels, metrics, query=_KEY, doc=doc, score=score,
                          rel="grade", group_by=arm, per_query=True)
        parts.append(values.collect() if isinstance(values, pl.LazyFrame) else values)
    out = pl.concat(parts).with_columns((pl.col(_KEY) // n).alias("draw"),
                                        (pl.col(_KEY) % n).alias("_qi"))
    return out.join(queries, on="_qi").select("draw", *arms, query, *metrics)
