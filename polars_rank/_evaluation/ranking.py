"""``ranked()``: the ranking step of an evaluation, stopped before the metrics.

The judged rows of every list with their ranks (:mod:`~polars_rank._evaluation.judged`),
handed to the user; :func:`polars_rank._evaluation.pipeline.evaluate` goes on from the
same step through the metrics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import polars as pl

from polars_rank._engine.unjudged import HIGH
from polars_rank._evaluation.judged import judged_rows
from polars_rank._evaluation.judged_frame import in_rank_order, rank_columns
from polars_rank._evaluation.means import warn_without_judgments
from polars_rank._evaluation.options import LIST, check_arguments, inputs
from polars_rank._evaluation.spec import resolve
from polars_rank._evaluation.unjudged import condensed_ranks, high_run

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.params import EvalTies
    from polars_rank._engine.unjudged import Unjudged

__all__ = ["ranked"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
_ORDER = "__polars_rank_key_order"


def ranked(
    run: FrameT,
    qrels: pl.DataFrame | pl.LazyFrame | None = None,
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    group_by: str | Sequence[str] | None = None,
    ties: EvalTies = "trec_eval",
    validate: bool = True,
    unjudged: Unjudged = "low",
    unjudged_grade: float | None = None,
) -> FrameT:
    """The judged rows of each ranked list with their rank: the metrics' fast input.

    The ranking step of :func:`evaluate`, stopped before the metrics: each list (a
    query, within each ``group_by`` group) is ranked once, and the frame keeps what
    a metric can read, the judged rows and the list's last retrieved row. Every
    metric expression then reads the ranks with ``rank="rank"`` instead of ranking
    each list itself, as plain sums, counts and minima, so any number of metrics in
    one ``group_by().agg()`` cost little more than one:

    .. code-block:: python

        lists = pr.ranked(run, qrels)                      # rank once
        lists.group_by("qid").agg(                         # then any metrics
            pr.ndcg("rel", 10, rank="rank", gain="linear"),
            pr.map("rel", rank="rank").alias("map"),
        )

    The semantics are :func:`evaluate`'s (trec_eval's): judged documents the run did
    not retrieve are rows with a null rank; run rows with a null score are not
    retrieved; the lists are the run's (group..., query) combinations that have
    judgments (a warning names the others). A list's length is its largest rank.

    Parameters
    ----------
    run
        One row per (query, document) with a ``score`` (higher is better); with
        ``qrels=None`` it also holds ``rel`` (null: unjudged).
    qrels
        Judgments, one row per (query, document) with ``rel``, or ``None``.
    query, doc, score, rel
        Column names.
    group_by
        Slice / arm columns of the run: each (group..., query) is one list.
    ties
        As :func:`evaluate`: ``"trec_eval"`` (equal scores by document id,
        descending; ``"trec_eval9"``: scores as 32-bit floats; ``"doc_ascending"``:
        by document id, ascending), ``"first"``,
        ``"optimistic"``, ``"pessimistic"`` (by label) give each row its position in ``rank``;
        ``"expected"`` gives each row the first and last position of its tie group,
        ``rank`` and ``rank_last``, to pass as ``rank=("rank", "rank_last")``.
    validate
        Check the data first, as :func:`evaluate` does.
    unjudged
        As :func:`evaluate`'s, for every metric read from the frame with
        ``rank="rank"``: ``"low"`` or ``"ignore"`` (the judged rows, as above),
        ``"high"`` (the unjudged documents each judged list retrieved are kept,
        labelled ``unjudged_grade``) or ``"condensed"`` (each list's judged rows
        ranked among themselves, ``judged_only=True``). The frame has one labelling:
        for both ends, rank twice (or ``evaluate(bounds=True)``). A metric's own
        ``unjudged="high"`` cannot see the unjudged documents the default frame
        leaves out; ask ``ranked()`` for them.
    unjudged_grade
        The label ``"high"`` gives them; ``None``: the largest label of the qrels
        (of the run's ``rel`` without qrels), at least 1.

    Returns
    -------
    DataFrame or LazyFrame
        The group and query columns, ``doc``, ``rel`` and ``rank`` (Int64, 1-based;
        null: judged but not retrieved), plus ``rank_last`` with ``ties="expected"``;
        the lists' last rows have a null ``doc`` and ``rel`` when unjudged. Computed
        when called; lazy in, lazy out.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> run = pl.DataFrame({"qid": ["q1"] * 4, "docid": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.DataFrame({"qid": ["q1"] * 3, "docid": ["b", "c", "z"], "rel": [1, 2, 1]})
    >>> lists = pr.ranked(run, qrels)
    >>> lists.sort("rank", nulls_last=True)
    shape: (4, 4)
    ┌─────┬───────┬──────┬──────┐
    │ qid ┆ docid ┆ rel  ┆ rank │
    │ --- ┆ ---   ┆ ---  ┆ ---  │
    │ str ┆ str   ┆ f64  ┆ i64  │
    ╞═════╪═══════╪══════╪══════╡
    │ q1  ┆ b     ┆ 1.0  ┆ 2    │
    │ q1  ┆ c     ┆ 2.0  ┆ 3    │
    │ q1  ┆ null  ┆ null ┆ 4    │
    │ q1  ┆ z     ┆ 1.0  ┆ null │
    └─────┴───────┴──────┴──────┘
    >>> lists.group_by("qid").agg(
    ...     pr.precision("rel", 2, rank="rank").alias("p@2"),
    ...     pr.recall("rel", rank="rank").alias("recall"),
    ...     pr.map("rel", rank="rank").alias("map"),
    ... )
    shape: (1, 4)
    ┌─────┬─────┬──────────┬──────────┐
    │ qid ┆ p@2 ┆ recall   ┆ map      │
    │ --- ┆ --- ┆ ---      ┆ ---      │
    │ str ┆ f64 ┆ f64      ┆ f64      │
    ╞═════╪═════╪══════════╪══════════╡
    │ q1  ┆ 0.5 ┆ 0.666667 ┆ 0.388889 │
    └─────┴─────┴──────────┴──────────┘
    """
    spec = resolve(None, query=query, doc=doc, score=score, rel=rel, group_by=group_by,
                   ties=ties, missing="skip", validate=validate, unjudged=unjudged,
                   unjudged_grade=unjudged_grade)
    run_in, qrels_in = inputs(run, qrels, spec)
    options, lazy_run, lazy_qrels = check_arguments(
        run_in, qrels_in, [], spec, ties=spec.convention.ties, missing="skip",
        validate=validate)
    if unjudged == HIGH:  # the relabelled run (with its labels), ranked as it is
        high = ranked(high_run(lazy_run, lazy_qrels, options, unjudged_grade), None,
                      query=query, doc=doc, score=score, rel=rel, group_by=group_by,
                      ties=ties, validate=validate)
        return high if isinstance(run, pl.LazyFrame) else high.collect()
    summaries: list[pl.DataFrame] = []
    judged = judged_rows(lazy_run, lazy_qrels, options, summaries, doc=options.has_doc)
    warn_without_judgments(summaries, query, options.groups)
    ids = [doc] if options.has_doc else []
    keys = options.keys
    # the lists numbered in the order of their keys, so that the rows come sorted by
    # them: a group_by on a query column Polars knows is sorted slices the frame
    # (docs/performance.md, "Behind the code")
    order = judged.lists.select(LIST, *keys).sort(keys, nulls_last=False).with_row_index(_ORDER)
    out = in_rank_order(judged.rows.join(order, on=LIST, how="left"), _ORDER, options)
    out_df = out.select(*keys, *ids, options.rel, *rank_columns(options)).collect()
    if unjudged == "condensed":
        out_df = out_df.with_columns(condensed_ranks(options))
    if len(keys) == 1:
        out_df = out_df.with_columns(pl.col(keys[0]).set_sorted())
    return out_df.lazy() if isinstance(run, pl.LazyFrame) else out_df
