"""The Monte Carlo draws' metrics from each list ranked once: evaluate()'s step 3 per draw.

The run's order does not depend on the labels, so each (arm, query) list is ranked
once, by :func:`polars_rank.ranked` (evaluate()'s order and its judged rows: the
labelled documents, retrieved or not, and the list's last retrieved row), and every
draw reads those rows as they come: the draws' rows are the ranked frame repeated,
draw after draw, each row's grade drawn in place from its document's cumulative
distribution (no join), and each metric reads the positions (``rank=``) through the
columns evaluate() prepares (:func:`polars_rank._evaluation.scoring.prepared_ranks`),
in one ``group_by`` over the (draw, list) keys: the same expressions on the same rows
in the same order as :func:`polars_rank.evaluate` on that draw's labels, so the same
numbers, without ranking (sorting) each (draw, list) again.

:func:`fast` says which metrics read only that (the others go through evaluate()).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.draws import uniform
from polars_rank._evaluation.options import IDEAL, LIST, RANK
from polars_rank._evaluation.ranking import ranked
from polars_rank._evaluation.scoring import prepared_ranks

if TYPE_CHECKING:
    from polars_rank.registry import Metric

__all__ = ["draw_rows", "fast", "grade_columns", "per_draw_positions", "ranked_lists"]

_DRAW = "_draw"
_LI = "_li"
_GRADE = "_grade"
# metric options that change which rows a metric reads (evaluate() ranks those apart)
_ROW_OPTIONS = ("judged_only", "unjudged", "unjudged_grade")


def fast(metric: Metric) -> bool:
    """Whether the metric reads only the judged rows' positions and labels.

    Not those reading the pool, the tie spans, the subtopics or the judgment groups,
    or rewriting the unjudged rows.
    """
    d = metric.definition
    return (d.function is not None and not d.reads_pool and not d.reads_tie_spans
            and not d.subtopics and d.per_judgment_group is None
            and not any(metric.options.get(o) not in (None, False, "low")
                        for o in _ROW_OPTIONS))


def ranked_lists(run: pl.DataFrame, labelled: pl.DataFrame, *, query: str, doc: str,
                 score: str, arm: str | None) -> tuple[pl.DataFrame, int]:
    """Each list's judged rows in rank order, numbered ``_li`` (0, 1, ... in row order).

    ``run``: query, doc, score (and ``arm``); ``labelled``: query, doc of the
    labelled documents. Also the longest list's length.
    """
    qrels = labelled.select(query, doc, pl.lit(1.0).alias(_GRADE))
    lists = ranked(run, qrels, query=query, doc=doc, score=score, rel=_GRADE,
                   group_by=arm, validate=False)
    keys = [*([arm] if arm is not None else []), query]
    lists = lists.with_columns(pl.struct(keys).rle_id().cast(pl.Int64).alias(_LI))
    longest = lists.select(pl.col(RANK).max()).item()
    return lists.drop(_GRADE), int(longest or 0)


def grade_columns(intervals: pl.DataFrame, query: str, doc: str) -> tuple[pl.DataFrame, int]:
    """Each labelled document's grades and their intervals' upper ends, as columns.

    ``intervals``: :func:`~polars_rank.agreement._uncertain.sampling.label_intervals`.
    ``_g0, _g1, ...`` (grades ascending) and ``_u0, _u1, ...`` (their upper ends;
    the last is infinite); a document with fewer grades repeats its last one.
    """
    indexed = intervals.with_columns(pl.int_range(pl.len()).over(query, doc).alias("_j"))
    width = int(indexed.select(pl.col("_j").max()).item() or 0) + 1
    wide = indexed.group_by(query, doc).agg(
        *(pl.col("grade").get(pl.min_horizontal(pl.len() - 1, j)).alias(f"_g{j}")
          for j in range(width)),
        *(pl.col("_upper").get(pl.min_horizontal(pl.len() - 1, j)).alias(f"_u{j}")
          for j in range(width)))
    return wide, width


def _drawn_grade(query: str, doc: str, width: int, seed: int) -> pl.Expr:
    """The grade of each row's document in its draw: sampling.draw_labels's, in place."""
    u = uniform(pl.struct(query, doc, _DRAW), seed)
    if width == 1:
        return pl.col("_g0")
    grade: Any = pl.when(u < pl.col("_u0")).then(pl.col("_g0"))
    for j in range(1, width - 1):
        grade = grade.when(u < pl.col(f"_u{j}")).then(pl.col(f"_g{j}"))
    out: pl.Expr = grade.otherwise(pl.col(f"_g{width - 1}"))
    return out


def draw_rows(lists: pl.DataFrame, grades: pl.DataFrame, query: str,
              doc: str) -> pl.DataFrame:
    """:func:`ranked_lists`' rows with their documents' :func:`grade_columns`, in order.

    The lists' last rows without labels get none (their grade is null in every draw).
    """
    return lists.join(grades, on=[query, doc], how="left", maintain_order="left")


def per_draw_positions(rows: pl.DataFrame, width: int, longest: int,
                       metrics: dict[str, Metric], draws: range, *, query: str, doc: str,
                       seed: int) -> pl.DataFrame:
    """``_draw``, ``_li`` and each metric's value in that draw, for the draws given.

    ``rows``: :func:`draw_rows`; ``width``: :func:`grade_columns`'; ``longest``:
    :func:`ranked_lists`'.
    """
    n = rows.height and int(rows.select(pl.col(_LI).max()).item()) + 1
    draw_frame = pl.DataFrame({_DRAW: list(draws)}, schema={_DRAW: pl.Int64})
    frame = (draw_frame.join(rows, how="cross", maintain_order="left_right")
             .with_columns(pl.when(pl.col(doc).is_not_null())
                           .then(_drawn_grade(query, doc, width, seed)).alias(_GRADE),
                           (pl.col(_DRAW) * n + pl.col(_LI)).alias(LIST).set_sorted())
             .select(LIST, RANK, _GRADE))
    thresholds = sorted({float(m.options.get("threshold", o.default))
                         for m in metrics.values()
                         if (o := m.definition.option("threshold")) is not None
                         and m.options.get("threshold", o.default) is not None})
    rank, columns = prepared_ranks(_GRADE, thresholds, checked=True, longest=longest)
    # each list's labels sorted, as evaluate()'s sort of the whole frame by (list,
    # label) gives them; the lists being sorted runs of rows, a sort per window is
    # the same column for a tenth of the time
    ideal = pl.col(_GRADE).sort(descending=True, nulls_last=True).over(LIST).alias(IDEAL)
    columns = [ideal if c.meta.output_name() == IDEAL else c for c in columns]
    values = (frame.lazy().with_columns(columns).group_by(LIST)
              .agg(m.expr(_GRADE, rank=rank).alias(name) for name, m in metrics.items())
              .collect())
    return values.select((pl.col(LIST) // n).alias(_DRAW), (pl.col(LIST) % n).alias(_LI),
                         *metrics)
