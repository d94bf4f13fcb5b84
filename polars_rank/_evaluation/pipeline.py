"""``evaluate()``: the steps of an evaluation, wired together.

``ranked`` (:mod:`~polars_rank._evaluation.ranking`) stops after the ranking step and
hands its frame to the user; ``evaluate`` goes on through the metric expressions:

1. :mod:`~polars_rank._evaluation.options`: the arguments and columns, checked;
2. :mod:`~polars_rank._evaluation.judged`: the judged rows of every list with their
   ranks (the data checks share its pass over the data);
3. :mod:`~polars_rank._evaluation.scoring`: every metric of every list;
4. :mod:`~polars_rank._evaluation.means`: the queries that count, and their means.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from polars_rank._evaluation.buckets import buckets, chosen_memory
from polars_rank._evaluation.intents import check_subtopics, collapsed, intent_values
from polars_rank._evaluation.judged import judged_rows
from polars_rank._evaluation.judgment_groups import evaluate_groups
from polars_rank._evaluation.means import (
    counted_queries,
    means,
    raise_empty,
    warn_without_judgments,
)
from polars_rank._evaluation.options import Options, PerQuery, check_arguments, inputs, read_once
from polars_rank._evaluation.scoring import per_list
from polars_rank._evaluation.spec import JUDGMENT_GROUP, EvaluationSpec, Memory, Missing, resolve
from polars_rank._evaluation.unjudged import evaluate_variants
from polars_rank._evaluation.zscores import checked_reference, standardized

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike
    from polars_rank._engine.params import EvalTies
    from polars_rank._engine.unjudged import Unjudged
    from polars_rank._evaluation.options import Frame
    from polars_rank._language.dialects import DialectName
    from polars_rank.registry import Metric

__all__ = ["evaluate", "evaluate_spec", "per_query_values"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def evaluate(
    run: FrameT,
    qrels: FrameLike | None = None,
    metrics: str | Metric | Sequence[str | Metric] = ("ndcg@10", "map", "mrr@10"),
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    group_by: str | Sequence[str] | None = None,
    per_query: bool = False,
    ties: EvalTies | None = None,
    missing: Missing | None = None,
    validate: bool = True,
    memory: Memory = "auto",
    dialect: DialectName = "polars-rank",
    subtopic: str = "subtopic",
    judged_only: bool = False,
    unjudged: Unjudged = "low",
    unjudged_grade: float | None = None,
    bounds: bool = False,
    zscores: pl.DataFrame | pl.LazyFrame | None = None,
    judgment_group: str = JUDGMENT_GROUP,
) -> FrameT:
    """Evaluate a run against relevance judgments, per group or per query.

    Parameters
    ----------
    run
        One row per (query, document) with a ``score`` (higher is better); with
        ``qrels=None`` it also holds the ``rel`` column, and rows with a null score
        are judged documents the run did not retrieve.
    qrels
        Judgments, one row per (query, document) with ``rel``; ``None`` when the run
        already carries them. Documents judged but not in the run count for the
        ideal ranking and for recall, as in trec_eval.
    metrics
        Metric strings (see :mod:`polars_rank.registry`): ``"ndcg@10"``, ``"map"``,
        ``"mrr@10"``, ``"p@5"``, ``"err@20(max_grade=4)"``, trec_eval spellings such
        as ``"ndcg_cut_10"`` or ``"P_10"``. NDCG strings are linear gain, as in
        every tool they come from; ``"ndcg_burges@10"`` is exponential. Each metric's
        values are averaged over queries, except trec_eval's counts (``num_ret``,
        ``num_rel``, ``num_rel_ret``: summed) and ``gm_map`` (geometric mean).
    query, doc, score, rel
        Column names.
    group_by
        Slice / arm columns of the run: one output row per group, the mean over its
        queries (each query weighted once).
    per_query
        ``True``: one row per (group..., query) instead of means.
    ties
        ``"trec_eval"`` (the default, unless the dialect says otherwise: equal
        scores ordered by doc id descending, byte-wise, as
        trec_eval; scores compared as 64-bit floats, as trec_eval 10 reads them),
        ``"trec_eval9"`` (the same with scores as 32-bit floats, as trec_eval 9 and
        pytrec_eval store them, so 1.348 and 1.3479999999999999 tie),
        ``"doc_ascending"`` (64-bit scores, equal ones by doc id ascending, as
        ir_measures' Python providers sort), ``"first"`` (the run's row order),
        ``"optimistic"`` / ``"pessimistic"`` (tied documents by each metric's gain,
        largest first / last: relevant documents first / last, a gain table's
        gains), or ``"expected"``: the exact mean of each metric over every order of
        the tied documents. The last four rank the run with a
        window per list, slower than trec_eval's sorted key (see the docs).
    missing
        Queries with judgments but nothing retrieved: ``"skip"`` (trec_eval), or
        ``"zero"`` (every metric 0 for them, as ``trec_eval -c``). ``None`` (the
        default): the dialect's, ``"skip"`` but for ``"ir_measures"`` and ``"ranx"``,
        which average over the qrels' queries (``"zero"``), and MS Recommenders'
        ``ndcg`` (``dialect="recommenders"``).
    validate
        Check the data first and raise :class:`InvalidDataError` naming the problem
        and the query (negative or non-finite relevance, NaN scores, null query
        ids, duplicate (query, doc) rows, labels above ERR's ``max_grade``), in the
        one pass over the data (see Returns). ``validate=False`` skips the checks;
        use it only for data you already checked.
    memory
        ``"auto"`` (the default): ``"low"`` for a run of more than 12M rows, else
        ``"high"``. A run's size is its height, or for a LazyFrame its row count when
        that reads no data (a Parquet or IPC file's metadata, a CSV's line count, a
        frame in memory); a LazyFrame that must run to be counted (a join, a filter,
        a Python function) takes ``"high"``: pass ``"low"`` for such a plan beyond
        memory. ``"high"``: one pass over the data; the ranking is a window over
        each query, which Polars computes in memory (the streaming engine falls back
        for it), so the run must fit in RAM a few times over (about 1.2 GB at 10M
        rows, 5.3 GB at 50M). ``"low"``: split the queries into hash buckets of about
        4M run rows, written once to a temporary folder, and evaluate them one after
        another; peak memory follows the bucket, not the data (about 0.6 GB at 10M
        and at 50M rows), in about the time of ``"high"`` at 50M rows
        (docs/performance.md). The result is identical; with ``"low"`` it is
        computed when ``evaluate`` is called.
    dialect
        Whose convention: which tool's number a spelling two tools share means, the
        tie policy when ``ties`` is not given and the queries averaged when
        ``missing`` is not: ``"polars-rank"``, ``"trec_eval"``, ``"ir_measures"``
        (each metric ranked as the ir_measures provider that computes it ranks;
        means over the qrels' queries), ``"ranx"`` (means over the qrels' queries),
        ``"sklearn"`` (ties averaged), ``"torchmetrics"`` (ties averaged) or
        ``"recommenders"`` (row order); see :data:`polars_rank.registry.DIALECTS`.
    subtopic
        The qrels' subtopic column, when they are diversity qrels (a row per query,
        subtopic and document; :func:`polars_rank.read_qrels` with
        ``subtopics=True``). The intent-aware metrics (``alpha_nDCG@20``,
        ``ERR_IA@20``, ``P_IA@10``, ``StRecall@20``, ...) read every row, ranking
        equal scores by doc id ascending as ndeval does under ``ties="trec_eval"``;
        every other metric reads one row per (query, doc) with the largest label.
    judged_only
        ``True``: every metric ranks the judged rows of each list only (condensed
        lists, trec_eval's ``-J``): retrieved documents without a label, in the pool
        or not, are removed before any metric, and the rest keep their order. A query
        whose run retrieved nothing judged is still evaluated (an empty list), as
        trec_eval does. One metric at a time: ``"ndcg@10(judged_only=True)"``
        (ir_measures' ``nDCG(judged_only=True)@10``).
    unjudged
        Retrieved documents without a judgment: ``"low"`` (non-relevant, as trec_eval;
        the default), ``"ignore"`` (the same numbers), ``"high"`` (judged at
        ``unjudged_grade``, so R and the ideal ranking grow with them) or
        ``"condensed"`` (removed, as ``judged_only=True``). A metric string's own
        option wins: ``"ndcg@10(unjudged=high)"``. See docs/how-sure.md.
    unjudged_grade
        The label ``"high"`` gives them; ``None``: the largest label of the qrels
        (of the run's ``rel`` without qrels), at least 1.
    bounds
        ``True``: beside each metric column, ``<name>_low`` and ``<name>_high``, the
        metric under ``unjudged="low"`` and ``"high"`` (the interval the missing
        judgments leave open), from the same evaluation.
    zscores
        Per-topic means and standard deviations of the metrics over a reference set
        of runs (columns ``query``, ``measure``, ``mean``, ``stddev``;
        :func:`polars_rank.read_zscores` reads trec_eval's file): each query's value
        becomes its z-score, ``(value - mean) / stddev``, and the means are means of
        z-scores, as ``trec_eval -Z`` computes them. A metric is looked up by its
        column's name (trec_eval's: ``map``, ``P_10``, ``ndcg_cut_10``); where the
        reference has none for the query, or a standard deviation of 0 and a value
        off the mean, the z-score is trec_eval's -1000000. ``gm_map`` and
        ``gm_bpref`` standardize ``log(max(value, 1e-5))`` and their summary is
        exp(mean), as trec_eval's; counts (``num_ret``) sum their z-scores.
    judgment_group
        The qrels' judgment-group column, when they hold several users' judgments
        (trec_eval's ``qrels_jg``: a row per query, group and document;
        :func:`polars_rank.read_qrels` with ``format="qrels_jg"``). Such qrels are
        read by trec_eval's judgment-group measures only, ``map_avgjg``,
        ``P_avgjg@k`` (``P_avgjg_10``) and ``Rprec_mult_avgjg@x``
        (``Rprec_mult_avgjg_0.20``): each metric against every group of the query,
        averaged over them, then over the queries, as ``trec_eval -R qrels_jg``.

    Returns
    -------
    DataFrame or LazyFrame
        The group columns (and the query column with ``per_query=True``), then one
        Float64 column per metric, named as given (``relstring``: a String column
        per query, null over queries). Lazy in, lazy out: a LazyFrame input is read
        once, when ``evaluate`` is called, because the checks and the ranking need
        every row before any metric (the columns it needs, both inputs in one
        ``collect_all``: a Parquet scan reads only those); every later step reads
        memory, and the result is the plan of the rest (``explain()`` shows the
        metrics), computed when collected. ``memory="low"`` (and ``"auto"`` above
        12M rows) reads the inputs once, into the buckets' files, and evaluates
        them when called.

    Warns
    -----
    UserWarning
        When run queries have no judgments: they are not evaluated, and the warning
        says how many.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> run = pl.DataFrame({
    ...     "qid": ["q1", "q1", "q1", "q2", "q2"],
    ...     "docid": ["a", "b", "c", "a", "d"],
    ...     "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    ... })
    >>> qrels = pl.DataFrame({
    ...     "qid": ["q1", "q1", "q2", "q2"],
    ...     "docid": ["b", "z", "d", "a"],
    ...     "rel": [2, 1, 1, 0],
    ... })
    >>> pr.evaluate(run, qrels, ["ndcg@10", "map", "P_10"])
    shape: (1, 3)
    ┌──────────┬───────┬──────┐
    │ ndcg@10  ┆ map   ┆ P_10 │
    │ ---      ┆ ---   ┆ ---  │
    │ f64      ┆ f64   ┆ f64  │
    ╞══════════╪═══════╪══════╡
    │ 0.555277 ┆ 0.375 ┆ 0.1  │
    └──────────┴───────┴──────┘
    >>> pr.evaluate(run, qrels, ["recall@2"], per_query=True)
    shape: (2, 2)
    ┌─────┬──────────┐
    │ qid ┆ recall@2 │
    │ --- ┆ ---      │
    │ str ┆ f64      │
    ╞═════╪══════════╡
    │ q1  ┆ 0.5      │
    │ q2  ┆ 1.0      │
    └─────┴──────────┘
    """
    spec = resolve(
        metrics, query=query, doc=doc, score=score, rel=rel, group_by=group_by,
        per_query=per_query, ties=ties, missing=missing, validate=validate, memory=memory,
        dialect=dialect, subtopic=subtopic, judged_only=judged_only, unjudged=unjudged,
        unjudged_grade=unjudged_grade, bounds=bounds, judgment_group=judgment_group)
    out = evaluate_spec(run, qrels, spec, zscores=zscores)
    return out if isinstance(run, pl.LazyFrame) else out.collect()


def evaluate_spec(run: FrameLike, qrels: FrameLike | None, spec: EvaluationSpec, *,
                  zscores: pl.DataFrame | pl.LazyFrame | None = None) -> pl.LazyFrame:
    """:func:`evaluate` of a resolved spec: the entry points' one path after :func:`resolve`."""
    reference = None if zscores is None else checked_reference(zscores, spec.query)
    polars_run, polars_qrels = inputs(run, qrels, spec)
    spec = replace(spec, memory=chosen_memory(polars_run, spec.memory))
    grouped = evaluate_groups(per_query_values, polars_run, polars_qrels, spec)
    if grouped is not None:  # trec_eval's judgment-group measures
        if reference is not None:
            msg = ("zscores= with the judgment-group measures (map_avgjg, P_avgjg, "
                   "Rprec_mult_avgjg) is not in polars-rank")
            raise ValueError(msg)
        return grouped
    per = per_query_values(polars_run, polars_qrels, spec)
    warn_without_judgments(per.without_judgments, spec.query, per.options.groups)
    frame = per.frame
    if reference is not None:
        kinds = {name: m.definition.over_queries for name, m in per.options.named}
        frame = standardized(frame, reference, kinds, spec.query)
    return means(frame, per.options, per_query=spec.per_query, zscores=reference is not None)


def per_query_values(run: Frame, qrels: Frame | None, spec: EvaluationSpec, *,
                     all_groups: pl.DataFrame | None = None) -> PerQuery:
    """Per-query values of a frame holding complete queries: all of :func:`evaluate`.

    The inputs are Polars frames (:func:`evaluate_spec` converts the others, once).

    The one code path behind :func:`evaluate` and the distributed front ends
    (:mod:`polars_rank.spark`, :mod:`polars_rank.dask`), which call it on each piece
    of data holding every run and qrels row of its queries, so local and distributed
    numbers cannot drift. It checks the columns (the front ends call it on empty
    frames with their schemas to raise those errors on the driver), validates the
    data (raising :class:`~polars_rank.InvalidDataError`), and returns the per-query
    values (not sorted) with the summaries of the run queries without judgments,
    without warning.
    ``all_groups``: the ``group_by`` combinations of the whole run's retrieved rows,
    for ``missing="zero"`` when the piece holds only part of the run (default: the
    piece's own).

    The metrics are evaluated once per (tie policy, queries averaged) the spec's
    dialect gives them (:meth:`EvaluationSpec.passes`: once, unless the dialect ranks
    or averages metrics apart, as ``"ir_measures"``' providers rank), each pass
    validating the data, and their per-query values joined (a metric is null on a
    query another metric's queries have and its own lack).
    """
    if spec.memory != "low" and any(isinstance(f, pl.LazyFrame) for f in (run, qrels)):
        run, qrels = read_once(run, qrels, spec)
    parts = []
    for (policy, queries), group in spec.passes().items():
        def one(named: list[tuple[str, Metric]], run: Frame, qrels: Frame | None, *,
                high: bool, policy: str = policy, queries: str = queries,
                ) -> tuple[pl.LazyFrame, Options, list[pl.DataFrame]]:
            # high: the relabelled run of unjudged="high", already checked and carrying
            # its labels; its absent queries are the main variant's
            return _per_query_named(named, run, qrels, spec, ties=policy,
                                    missing="skip" if high else queries,
                                    validate=spec.validate and not high,
                                    all_groups=None if high else all_groups)
        parts.append(evaluate_variants(group, run, qrels, one))
    frame, options, summaries = parts[0]  # the queries without judgments: the same in every part
    if len(parts) > 1:
        keys = options.keys
        for other, _, _ in parts[1:]:
            frame = frame.join(other, on=keys, how="full", coalesce=True, nulls_equal=True)
        named = list(spec.named)
        frame = frame.select(*keys, *(name for name, _ in named)).sort(keys, nulls_last=False)
        options = replace(options, named=named, absent=spec.convention.absent(named))
    return PerQuery(frame, options, summaries)


def _per_query_named(
    named: list[tuple[str, Metric]],
    run: Frame,
    qrels: Frame | None,
    spec: EvaluationSpec,
    *,
    ties: str,
    missing: str,
    validate: bool,
    all_groups: pl.DataFrame | None,
) -> tuple[pl.LazyFrame, Options, list[pl.DataFrame]]:
    """:func:`per_query_values` of one pass (tie policy, queries) on one data variant."""
    options, lazy_run, lazy_qrels = check_arguments(
        run, qrels, named, spec, ties=ties, missing=missing, validate=validate,
        all_groups=all_groups, absent=spec.convention.absent(named),
    )
    without_judgments: list[pl.DataFrame] = []
    if spec.memory == "low":
        frame = _bucketed(lazy_run, lazy_qrels, options, without_judgments)
    else:
        frame = _evaluated(lazy_run, lazy_qrels, options, without_judgments)
    return raise_empty(frame, options), options, without_judgments


def _evaluated(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: Options,
               without_judgments: list[pl.DataFrame]) -> pl.LazyFrame:
    """Steps 2 to 4 on data in memory: the per-query values of the queries that count.

    Diversity qrels (a subtopic column) reach the other metrics collapsed to one row
    per (query, doc); the intent-aware metrics read every row
    (:mod:`~polars_rank._evaluation.intents`), their values joined per list.
    """
    plain = None if qrels is None else collapsed(qrels, o)
    per = per_list(judged_rows(run, plain, o, without_judgments), o)
    if o.intents and qrels is not None:
        if o.validate:
            check_subtopics(qrels, o)
        names = [name for name, _ in o.intents]
        per = per.join(intent_values(run, qrels, o), on=o.keys, how="left",
                       nulls_equal=True).with_columns(pl.col(names).fill_null(0.0))
    return counted_queries(per, run, plain, o)


_BUCKET_ROWS = 4_000_000


def _bucketed(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: Options,
              without_judgments: list[pl.DataFrame]) -> pl.LazyFrame:
    """``memory="low"``: evaluate hash buckets of queries one after another.

    :mod:`~polars_rank._evaluation.buckets` splits the run, ~``_BUCKET_ROWS`` rows a
    bucket; the per-query values are concatenated (they are few) and returned.
    """
    if o.missing == "zero" and o.groups and qrels is not None and o.all_groups is None:
        # a bucket may hold no run row of a group: its absent queries need every group
        retrieved = run.filter(pl.col(o.score).is_not_null())
        o = replace(o, all_groups=retrieved.select(o.groups).unique().collect().lazy())
    parts = [_evaluated(part_run, part_qrels, o, without_judgments).collect()
             for part_run, part_qrels in buckets(run, qrels, o.query, _BUCKET_ROWS)]
    return pl.concat(parts, how="vertical").lazy()
