"""``evaluate()``: a run (and qrels) in, one Float64 column per metric out.

trec_eval's semantics: the run is joined with the qrels so that judged documents the
run never returned count for the ideal ranking and for recall; the queries
evaluated are those of the run that have judgments (``missing="zero"`` adds the
qrels queries absent from the run with every metric 0, as ``trec_eval -c``); equal
scores are ordered by document id, descending (``ties="trec_eval"``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, NamedTuple, TypeVar

import polars as pl

from polars_rank._params import check_choice
from polars_rank._ranked import Ranked
from polars_rank.registry import Metric, parse_metric

if TYPE_CHECKING:
    from polars_rank._params import By

__all__ = ["evaluate", "InvalidDataError"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
EvalTies = Literal["trec_eval", "first", "optimistic", "pessimistic", "expected"]
Missing = Literal["skip", "zero"]
Memory = Literal["high", "low"]

_ORDER = "__polars_rank_order"
_JUDGED = "__polars_rank_judged"
_RETRIEVED = "__polars_rank_retrieved"


class InvalidDataError(ValueError):
    """The data cannot be evaluated; the message names the problem and the query."""


def _names(value: str | Sequence[str] | None, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        return list(value)
    msg = f"{what} must be a column name or a list of column names, got {value!r}"
    raise TypeError(msg)


def _metric_list(metrics: str | Metric | Sequence[str | Metric]) -> list[tuple[str, Metric]]:
    items = [metrics] if isinstance(metrics, (str, Metric)) else list(metrics)
    if not items:
        msg = "metrics must name at least one metric, e.g. ('ndcg@10', 'map')"
        raise ValueError(msg)
    out = [(str(m), parse_metric(m)) for m in items]
    names = [name for name, _ in out]
    if len(set(names)) != len(names):
        msg = f"metrics has duplicate names: {names}"
        raise ValueError(msg)
    return out


def _check_columns(frame: pl.LazyFrame, what: str, needed: dict[str, str]) -> pl.Schema:
    """``needed``: column -> the evaluate() parameter that names it."""
    schema = frame.collect_schema()
    for column, param in needed.items():
        if column not in schema:
            msg = (f"{what} has no column {column!r} (named by {param}=); "
                   f"its columns are {list(schema)}")
            raise InvalidDataError(msg)
    return schema


def _check_numeric(schema: pl.Schema, column: str, what: str) -> None:
    dtype = schema[column]
    if not (dtype.is_numeric() or dtype == pl.Boolean or dtype == pl.Null):
        msg = f"{what} column {column!r} must be numeric, got {dtype}"
        raise InvalidDataError(msg)


def _first_offender(frame: pl.LazyFrame, mask: pl.Expr, keys: list[str]) -> pl.LazyFrame:
    return frame.filter(mask.fill_null(False)).select(keys).head(1)


def _row_hash(columns: Sequence[str], first_seed: int = 0) -> pl.Expr:
    """A 64-bit hash of the values of ``columns`` in each row.

    The columns' own hashes, each with its own seed, combined by xor: cheaper than
    hashing a struct (which encodes every row first), and as good for the duplicate
    check, which guards against collisions (:func:`_distinct_count`).
    """
    out = pl.col(columns[0]).hash(seed=first_seed)
    for seed, column in enumerate(columns[1:], start=first_seed + 1):
        out = out ^ pl.col(column).hash(seed=seed)
    return out


def _distinct_count(frame: pl.LazyFrame, key: pl.Expr) -> pl.LazyFrame:
    """Rows and distinct 64-bit hashes ``key``: fewer hashes than rows flags duplicates.

    Hashing is several times cheaper than an exact ``is_duplicated`` over strings;
    a hash collision only sends the check down the exact (slow) path, which then finds
    nothing.
    """
    return frame.select(pl.len().alias("rows"), key.n_unique().alias("hashes"))


def _validate(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    *,
    query: str,
    doc: str | None,
    score: str,
    rel: str,
    groups: list[str],
    max_grade: float | None,
    run_lists: pl.LazyFrame | None = None,
    with_frames: Sequence[pl.LazyFrame] = (),
    pair_hash: str | None = None,
    beside_counts: Sequence[pl.LazyFrame] = (),
) -> tuple[list[pl.DataFrame], pl.DataFrame]:
    """Raise :class:`InvalidDataError` for the first problem found, before any metric.

    In the same pass, count the run queries without judgments, and collect
    ``with_frames`` (plans that share work with the checks). ``run_lists``, when
    given, is one row per (group..., query) of the run; ``pair_hash``, a column that
    both frames already hold with ``_row_hash([query, doc])``. ``beside_counts``: plans
    collected with the duplicate counts, on the in-memory engine (which runs them in
    parallel), returned after ``with_frames``. Returns the collected
    ``with_frames`` and a one-row frame (count, up to 3 example keys) of the
    unjudged queries.
    """
    labelled = run if qrels is None else qrels
    where = "run" if qrels is None else "qrels"
    label = pl.col(rel).cast(pl.Float64)
    checks: list[tuple[str, pl.LazyFrame]] = [
        (f"negative relevance in {where} column {rel!r}",
         _first_offender(labelled, label < 0, [query])),
        (f"non-finite relevance (NaN or inf) in {where} column {rel!r}",
         _first_offender(labelled, ~label.is_finite(), [query])),
        (f"NaN score in run column {score!r}",
         _first_offender(run, pl.col(score).cast(pl.Float64).is_nan(), [query])),
    ]
    for frame, name in ((run, "run"), (qrels, "qrels")):
        if frame is not None:  # a row of no query: trec_eval has no such thing
            shown = [doc] if doc is not None else [score if name == "run" else rel]
            checks.append((f"null query id in {name} column {query!r}",
                           _first_offender(frame, pl.col(query).is_null(), shown)))
    if max_grade is not None:
        checks.append((f"relevance above max_grade={max_grade:g} (ERR) in {where} column {rel!r}",
                       _first_offender(labelled, label > max_grade, [query])))
    # duplicates: (problem, frame, id columns, columns to report)
    duplicates: list[tuple[str, pl.LazyFrame, pl.Expr, list[str], list[str]]] = []
    if doc is not None:
        pair = _row_hash([query, doc]) if pair_hash is None else pl.col(pair_hash)
        run_key = pair ^ _row_hash(groups, first_seed=2) if groups else pair
        duplicates.append(("duplicate (query, doc) rows in the run", run, run_key,
                           [*groups, query, doc], [query, doc]))
        if qrels is not None:
            duplicates.append(("duplicate (query, doc) rows in the qrels", qrels, pair,
                               [query, doc], [query, doc]))
    query_keys = [*groups, query]
    if qrels is None:
        unjudged = run.group_by(query_keys).agg(pl.col(rel).is_not_null().any().alias("judged"))
        unjudged = unjudged.filter(~pl.col("judged")).select(query_keys)
    else:
        lists = run.select(query_keys).unique() if run_lists is None else run_lists
        unjudged = lists.join(qrels.select(query), on=query, how="anti")
    summary = unjudged.select(pl.len(), pl.struct(query_keys).sort().head(3).implode().alias("e"))
    plans = [frame for _, frame in checks]
    # the hash counts run about twice as fast on the in-memory engine as on the
    # streaming one (Polars 2.1: 0.14 s against 0.31 s for 7M rows); the rest the
    # other way round
    counted = [_distinct_count(f, key) for _, f, key, _, _ in duplicates]
    beside = pl.collect_all([*counted, *beside_counts], engine="in-memory")
    counts = beside[: len(counted)]
    collected = pl.collect_all([*plans, summary, *with_frames])
    found = collected[: len(checks)]
    for (problem, _), rows in zip(checks, found, strict=True):
        _raise_at(problem, rows)
    for (problem, frame, _, ids, shown), count in zip(duplicates, counts, strict=True):
        if count["hashes"].item() < count["rows"].item():
            _raise_at(problem, _first_offender(frame, pl.struct(ids).is_duplicated(),
                                               shown).collect())
    return [*collected[len(plans) + 1 :], *beside[len(counted):]], collected[len(plans)]


def _raise_at(problem: str, rows: pl.DataFrame) -> None:
    if rows.height:
        where = ", ".join(f"{c}={v!r}" for c, v in rows.row(0, named=True).items())
        msg = f"{problem}: first at {where}"
        raise InvalidDataError(msg)


def evaluate(
    run: FrameT,
    qrels: pl.DataFrame | pl.LazyFrame | None = None,
    metrics: str | Metric | Sequence[str | Metric] = ("ndcg@10", "map", "mrr@10"),
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    group_by: str | Sequence[str] | None = None,
    per_query: bool = False,
    ties: EvalTies = "trec_eval",
    missing: Missing = "skip",
    validate: bool = True,
    memory: Memory = "high",
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
        as ``"ndcg_cut_10"`` (linear gain, as trec_eval) or ``"P_10"``.
    query, doc, score, rel
        Column names.
    group_by
        Slice / arm columns of the run: one output row per group, the mean over its
        queries (each query weighted once).
    per_query
        ``True``: one row per (group..., query) instead of means.
    ties
        ``"trec_eval"`` (equal scores ordered by doc id descending, byte-wise, as
        trec_eval; scores compared as 32-bit floats, as trec_eval stores them, so
        1.348 and 1.3479999999999999 tie), ``"first"`` (the run's row order),
        ``"optimistic"`` / ``"pessimistic"`` (relevant documents first / last among
        ties), or ``"expected"``: the exact mean of each metric over every order of
        the tied documents (no metric string of ERR or bpref: they have no closed
        form and raise NotImplementedError). The last three rank the whole run
        rather than only its judged documents, so they cost more (see the docs).
    missing
        Queries with judgments but nothing retrieved: ``"skip"`` (trec_eval), or
        ``"zero"`` (every metric 0 for them, as ``trec_eval -c``).
    validate
        Check the data first and raise :class:`InvalidDataError` naming the problem
        and the query (negative or non-finite relevance, NaN scores, null query
        ids, duplicate (query, doc) rows, labels above ERR's ``max_grade``). The
        checks share one pass over the data with the ranking of the run, which
        therefore runs when ``evaluate`` is called (a LazyFrame result then only
        holds the per-query arithmetic on the judged rows). ``validate=False`` keeps
        the whole plan lazy; use it only for data you already checked.
    memory
        ``"high"`` (default): one pass over the data; the ranking is a window over
        each query, which Polars computes in memory (the streaming engine falls back
        for it), so the run must fit in RAM a few times over. ``"low"``: split the
        queries into hash buckets of about 4M run rows and evaluate them one after
        another, each reading the (ideally Parquet, scanned) inputs again with the
        bucket as a filter; peak memory follows the bucket, not the data, at the cost
        of one scan per bucket. The result is identical; it is computed when
        ``evaluate`` is called.

    Returns
    -------
    DataFrame or LazyFrame
        The group columns (and the query column with ``per_query=True``), then one
        Float64 column per metric, named as given. Lazy in, lazy out.

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
    │ 0.576113 ┆ 0.375 ┆ 0.1  │
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
    per: _PerQuery = _evaluate_complete_queries(
        run, qrels, metrics, query=query, doc=doc, score=score, rel=rel, group_by=group_by,
        ties=ties, missing=missing, validate=validate, memory=memory,
    )
    _warn_unjudged(per.unjudged, query, per.groups)
    keys, columns = [*per.groups, query], per.columns
    if per_query:
        out = per.frame.sort(keys)
    elif per.groups:
        out = per.frame.group_by(per.groups).agg(pl.col(columns).mean()).sort(per.groups)
    else:
        out = per.frame.select(pl.col(columns).mean())
    return out if isinstance(run, pl.LazyFrame) else out.collect()


class _PerQuery(NamedTuple):
    """:func:`_evaluate_complete_queries`' result."""

    frame: pl.LazyFrame  # one row per evaluated (group..., query): keys, then metrics
    groups: list[str]
    columns: list[str]  # the metric columns, named as given
    unjudged: list[pl.DataFrame]  # validation's one-row summaries: count, example keys


def _evaluate_complete_queries(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame | None,
    metrics: str | Metric | Sequence[str | Metric],
    *,
    query: str,
    doc: str,
    score: str,
    rel: str,
    group_by: str | Sequence[str] | None,
    ties: EvalTies,
    missing: Missing,
    validate: bool,
    memory: Memory = "high",
    all_groups: pl.DataFrame | None = None,
) -> _PerQuery:
    """Per-query values of a frame holding complete queries: all of :func:`evaluate`.

    The one code path behind :func:`evaluate` and the distributed front ends
    (:mod:`polars_rank.spark`, :mod:`polars_rank.dask`), which call it on each piece
    of data holding every run and qrels row of its queries, so local and distributed
    numbers cannot drift. It checks the arguments and columns (the front ends call it
    on empty frames with their schemas to raise those errors on the driver), validates
    the data (raising :class:`InvalidDataError`), and returns the per-query values
    (not sorted) with the unjudged-query summaries, without warning. ``all_groups``:
    the ``group_by`` combinations of the whole run's retrieved rows, for
    ``missing="zero"`` when the piece holds only part of the run (default: the
    piece's own).
    """
    named = _metric_list(metrics)
    check_choice(ties, "ties", ["trec_eval", "first", "optimistic", "pessimistic", "expected"])
    check_choice(missing, "missing", ["skip", "zero"])
    check_choice(memory, "memory", ["high", "low"])
    groups: list[str] = _names(group_by, "group_by")
    for column, param in ((query, "query"), (doc, "doc"), (score, "score"), (rel, "rel")):
        if not isinstance(column, str):
            msg = f"{param} must be a column name, got {column!r}"
            raise TypeError(msg)
    max_grades = [m.max_grade for _, m in named if m.max_grade is not None]
    max_grade = min(max_grades) if max_grades else None

    lazy_run = run.lazy()
    needs_doc = qrels is not None or ties == "trec_eval"
    needed = {query: "query", score: "score", **dict.fromkeys(groups, "group_by")}
    if needs_doc:
        needed[doc] = "doc"
    if qrels is None:
        needed[rel] = "rel"
    run_schema = _check_columns(lazy_run, "run", needed)
    _check_numeric(run_schema, score, "run")
    has_doc = doc in run_schema

    lazy_qrels = None
    if qrels is not None:
        lazy_qrels = qrels.lazy()
        qrels_schema = _check_columns(lazy_qrels, "qrels",
                                      {query: "query", doc: "doc", rel: "rel"})
        _check_numeric(qrels_schema, rel, "qrels")
        lazy_qrels = lazy_qrels.select(query, doc, rel)
        for key in (query, doc):  # join keys: make differing id types agree
            if run_schema[key] != qrels_schema[key]:
                lazy_run = lazy_run.with_columns(pl.col(key).cast(pl.String))
                lazy_qrels = lazy_qrels.with_columns(pl.col(key).cast(pl.String))
        if rel in run_schema:
            lazy_run = lazy_run.drop(rel)
    else:
        _check_numeric(run_schema, rel, "run")

    columns = [name for name, _ in named]
    options = _Options(named=named, query=query, doc=doc, score=score, rel=rel, groups=groups,
                       ties=ties, missing=missing, validate=validate, max_grade=max_grade,
                       has_doc=has_doc,
                       all_groups=None if all_groups is None else all_groups.lazy())
    unjudged: list[pl.DataFrame] = []
    if memory == "low":
        per = _per_query_bucketed(lazy_run, lazy_qrels, options, unjudged)
    else:
        per = _per_query(lazy_run, lazy_qrels, options, unjudged)
    return _PerQuery(per, groups, columns, unjudged)


@dataclass(frozen=True)
class _Options:
    """evaluate()'s checked arguments, passed down as one value."""

    named: list[tuple[str, Metric]]
    query: str
    doc: str
    score: str
    rel: str
    groups: list[str]
    ties: str
    missing: str
    validate: bool
    max_grade: float | None
    has_doc: bool
    all_groups: pl.LazyFrame | None = None  # missing="zero": groups of the whole run


def _per_query(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: _Options,
               unjudged: list[pl.DataFrame]) -> pl.LazyFrame:
    """One row per evaluated (group..., query): the group and query columns, the metrics."""
    query, score, groups = o.query, o.score, o.groups
    keys = [*groups, query]
    named = o.named
    sparse = o.ties in ("trec_eval", "first", "expected") and all(
        m.definition.sparse for _, m in named
    )
    if sparse:
        per = _per_query_sparse(run, qrels, o, unjudged)
    else:
        if o.validate:
            _, summary = _validate(run, qrels, doc=o.doc if o.has_doc else None,
                                   max_grade=o.max_grade, query=query, score=score, rel=o.rel,
                                   groups=groups)
            unjudged.append(summary)
        per = _per_query_dense(run, qrels, named, ties=o.ties, query=query, doc=o.doc,
                               score=score, rel=o.rel, groups=groups)
    columns = [name for name, _ in named]
    if o.missing == "skip":
        per = per.filter(pl.col(_JUDGED) & pl.col(_RETRIEVED))
    else:
        per = per.filter(pl.col(_JUDGED)).with_columns(
            pl.when(pl.col(_RETRIEVED)).then(pl.col(c)).otherwise(0.0).alias(c) for c in columns
        )
        if qrels is not None:
            retrieved = run.filter(pl.col(score).is_not_null())
            per = pl.concat([per, _absent(retrieved, qrels, query, groups, columns,
                                          per.collect_schema(), o.all_groups)],
                            how="vertical")
    return per.select(*keys, *columns)


_BUCKET_ROWS = 4_000_000


def _per_query_bucketed(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: _Options,
                        unjudged: list[pl.DataFrame]) -> pl.LazyFrame:
    """``memory="low"``: evaluate hash buckets of query ids one after another.

    Every row of a query lands in the same bucket (run and qrels alike), so each
    bucket is a complete evaluation; only ~``_BUCKET_ROWS`` rows are in memory at
    once. The per-query values are concatenated (they are few) and returned.
    """
    rows = run.select(pl.len()).collect().item()
    n = max(1, -(-rows // _BUCKET_ROWS))
    if o.missing == "zero" and o.groups and qrels is not None and o.all_groups is None:
        # a bucket may hold no run row of a group: its absent queries need every group
        retrieved = run.filter(pl.col(o.score).is_not_null())
        o = replace(o, all_groups=retrieved.select(o.groups).unique().collect().lazy())
    bucket = pl.col(o.query).hash() % n
    parts = []
    for i in range(n):
        part_run = run.filter(bucket == i)
        part_qrels = None if qrels is None else qrels.filter(bucket == i)
        parts.append(_per_query(part_run, part_qrels, o, unjudged).collect())
    return pl.concat(parts, how="vertical").lazy()


def _warn_unjudged(summaries: list[pl.DataFrame], query: str, groups: list[str]) -> None:
    """One warning for all run queries without judgments (summaries: count, examples)."""
    count = sum(int(s.item(0, 0)) for s in summaries)
    if not count:
        return
    # the same order as one pass's ``pl.struct(keys).sort()``: values, not their text
    examples = sorted((e for s in summaries for e in s.item(0, 1)),
                      key=lambda e: tuple((v is None, v) for v in e.values()))[:3]
    shown = ", ".join(
        repr(e[query]) if not groups else f"({', '.join(f'{k}={v!r}' for k, v in e.items())})"
        for e in examples
    )
    warnings.warn(
        f"{count} run quer{'y has' if count == 1 else 'ies have'} no judgments and "
        f"{'is' if count == 1 else 'are'} not evaluated (e.g. {shown})",
        UserWarning,
        stacklevel=3,
    )


def _join(run: pl.LazyFrame, qrels: pl.LazyFrame | None, *, query: str, doc: str,
          score: str, rel: str, groups: list[str]) -> pl.LazyFrame:
    """One frame: retrieved rows with their labels, then judged rows not retrieved."""
    run = run.with_row_index(_ORDER)
    if qrels is None:
        return run.with_columns(pl.col(rel).is_not_null().alias(_JUDGED))
    judged = qrels.with_columns(pl.lit(True).alias(_JUDGED))
    retrieved = run.join(judged, on=[query, doc], how="left").with_columns(
        pl.col(_JUDGED).fill_null(False)
    )
    # a query counts as judged if it is in the qrels at all, even when no retrieved
    # doc was: mark every retrieved row of such a query
    in_qrels = qrels.select(query).unique().with_columns(pl.lit(True).alias("__in_qrels"))
    retrieved = (
        retrieved.join(in_qrels, on=query, how="left")
        .with_columns((pl.col(_JUDGED) | pl.col("__in_qrels").fill_null(False)).alias(_JUDGED))
        .drop("__in_qrels")
    )
    present = run.select(*groups, query, doc)
    unretrieved = (
        run.select(*groups, query).unique()
        .join(judged, on=query, how="inner")
        .join(present, on=[*groups, query, doc], how="anti")
    )
    return pl.concat([retrieved, unretrieved], how="diagonal_relaxed")


def _absent(run: pl.LazyFrame, qrels: pl.LazyFrame, query: str, groups: list[str],
            columns: list[str], schema: pl.Schema,
            all_groups: pl.LazyFrame | None = None) -> pl.LazyFrame:
    """Zero rows for qrels queries absent from (each group of) the run: trec_eval -c."""
    queries = qrels.select(query).unique()
    if all_groups is None:
        all_groups = run.select(groups).unique()
    keys = all_groups.join(queries, how="cross") if groups else queries
    absent = keys.join(run.select(*groups, query).unique(), on=[*groups, query], how="anti")
    return absent.with_columns(
        *(pl.lit(0.0).alias(c) for c in columns),
        pl.lit(True).alias(_JUDGED),
        pl.lit(False).alias(_RETRIEVED),
    ).select(pl.col(name).cast(dtype) for name, dtype in schema.items())



def _per_query_dense(run: pl.LazyFrame, qrels: pl.LazyFrame | None,
                     named: list[tuple[str, Metric]], *, query: str, doc: str, score: str,
                     rel: str, groups: list[str], ties: str) -> pl.LazyFrame:
    """Per-query metrics on the full joined lists: every metric, every tie policy."""
    joined = _join(run, qrels, query=query, doc=doc, score=score, rel=rel, groups=groups)
    if ties == "expected":  # with AUC or rank correlation; else the sparse path
        return _per_query_expected(joined, named, query=query, score=score, rel=rel,
                                   groups=groups)
    if ties == "trec_eval":  # trec_eval keeps scores as 32-bit floats
        by: By = [pl.col(score).cast(pl.Float32), pl.col(doc).cast(pl.String)]
        descending, tie_policy = [True, True], "first"
    elif ties == "first":
        by, descending, tie_policy = [pl.col(score), pl.col(_ORDER)], [True, False], "first"
    else:  # relevance decides among equal scores
        by, descending, tie_policy = [pl.col(score)], [True], ties
    exprs = [m.expr(rel, by=by, descending=descending, ties=tie_policy).alias(name)
             for name, m in named]
    return joined.group_by([*groups, query]).agg(
        *exprs,
        pl.col(_JUDGED).any().alias(_JUDGED),
        pl.col(score).is_not_null().any().alias(_RETRIEVED),
    )


_START = "__polars_rank_tie_start"
_END = "__polars_rank_tie_end"


def _per_query_expected(joined: pl.LazyFrame, named: list[tuple[str, Metric]], *, query: str,
                        score: str, rel: str, groups: list[str]) -> pl.LazyFrame:
    """``ties="expected"``: tie groups found once per frame, then metrics on sorted lists.

    One sort by (query, score descending); the tie groups (rows of a list with equal
    scores) as row-index bounds from windows; the metrics then read the bounds
    instead of sorting and searching each list themselves.
    """
    keys = [*groups, query]
    tie = (pl.col(score).cast(pl.Float64) + 0.0).alias(_ORDER)  # + 0.0: -0.0 ties with 0.0
    ordered = _with_tie_rows(
        joined.with_columns(tie)
        .sort([*keys, _ORDER], descending=[*(False for _ in keys), True], nulls_last=True),
        keys, _ORDER,
    )
    ranked_list = Ranked.presorted_ties(rel, _ORDER, _START, _END)
    return ordered.group_by(keys, maintain_order=True).agg(
        *(m.value(ranked_list).cast(pl.Float64).alias(name) for name, m in named),
        pl.col(_JUDGED).any().alias(_JUDGED),
        pl.col(score).is_not_null().any().alias(_RETRIEVED),
    )


_POS = "__polars_rank_pos"
_N_RET = "__polars_rank_n_retrieved"


def _tie_fillers(judged: pl.LazyFrame, keys: list[str], rel: str) -> pl.LazyFrame:
    """Unjudged rows tied with a judged one (``ties="expected"``), as label-less rows.

    A tie group's ranks are shared by all its rows; the metrics need every rank of a
    group holding a judged row, so its unjudged rows come back as rows with a null
    label (rows of other groups cannot move and are not needed).
    """
    groups = judged.group_by([*keys, _POS]).agg(pl.col(_END).first(), pl.len().alias(_N_RET))
    missing = pl.col(_END) - pl.col(_POS) - pl.col(_N_RET)
    return (
        groups.filter(missing > 0)
        .select(*keys, _POS, _END, pl.int_ranges(0, missing).alias(rel))
        .explode(rel)
        .with_columns(pl.lit(None, pl.Float64).alias(rel))
    )


_ROW = "__polars_rank_row"


def _with_tie_rows(frame: pl.LazyFrame, keys: list[str], tie: str) -> pl.LazyFrame:
    """Each row's index in its list and its tie group's row bounds.

    ``frame`` is sorted by (keys, ``tie``); adds ``_ROW`` (0-based index in the list)
    and ``_START``, ``_END`` (the rows of equal ``tie`` in the list, end exclusive).
    """
    group = [*keys, tie]
    return frame.with_columns(
        pl.int_range(pl.len(), dtype=pl.Int64).over(keys).alias(_ROW)
    ).with_columns(
        pl.col(_ROW).min().over(group).alias(_START),
        (pl.col(_ROW).max().over(group) + 1).alias(_END),
    )


_KEY = "__polars_rank_sort_key"
_LIST = "__polars_rank_list"
_TIE_OFFSET = "__polars_rank_tie_offset"
_HASH = "__polars_rank_hash"
_QROW = "__polars_rank_qrels_row"


class _ListCode(NamedTuple):
    """:func:`_list_code`'s result."""

    code: pl.Expr
    """The list's number (UInt64, below 2**32) of each row."""
    lists: Callable[[pl.DataFrame], pl.DataFrame]
    """From the collected frame holding ``code`` as ``_LIST``: one row (``_LIST``,
    keys...) per list."""


def _lists_of_rows(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """One row (``_LIST``, keys...) per list: the first row of each number."""
    return frame.select(pl.col(_LIST, *keys).gather(frame[_LIST].arg_unique()))


def _list_code(frame: pl.LazyFrame, keys: list[str]) -> _ListCode | None:
    """A number per list (combination of ``keys``) below 2**32, or ``None``.

    A run whose lists each come as one block of rows (as trec_eval's files do) is
    numbered by its blocks (:func:`_grouped_code`). Otherwise each key column is
    numbered (the codes of a categorical for strings, the dense rank for integers; a
    null is a value of its own) and the numbers are combined in mixed radix. ``None``
    when a key has another type or the combinations would not fit in 32 bits: the
    window ranking handles those lists. Eager: the codes of one categorical cast agree
    only within one column.
    """
    schema = frame.collect_schema()
    if not all(schema[key] == pl.String or schema[key].is_integer() for key in keys):
        return None
    grouped = _grouped_code(frame, keys)
    if grouped is not None:
        blocks, firsts = grouped
        return _ListCode(pl.lit(blocks), lambda _: firsts)
    codes = []
    # each string column a categorical of its own: codes 0, 1, ... as the rows are read.
    # Polars keeps a categorical's names only while a Series or an expression of its
    # type lives (neither the ``Categories`` object nor a bare dtype holds them): an
    # empty Series of the type keeps them for :func:`_category_lists`
    anchors = {key: pl.Series(key, [], dtype=pl.Categorical(pl.Categories.random()))
               for key in keys if schema[key] == pl.String}
    for key in keys:
        if key in anchors:
            code = pl.col(key).cast(anchors[key].dtype).to_physical()
        else:  # an integer
            code = pl.col(key).rank("dense")
        codes.append(code.cast(pl.UInt64).alias(key))
    if len(keys) == 1:  # one query column: its codes (all below 2**32 - 1), null last
        key = keys[0]
        lists: Callable[[pl.DataFrame], pl.DataFrame] = (
            (lambda run: _category_lists(anchors[key], run, key)) if key in anchors
            else (lambda run: _lists_of_rows(run, keys)))
        return _ListCode(codes[0].fill_null(2**32 - 1), lists)
    numbered = frame.select(codes).collect()
    numbered = numbered.with_columns(pl.col(k).fill_null(pl.col(k).max().fill_null(0) + 1)
                                     for k in keys)
    out = pl.lit(0, pl.UInt64)
    size = 1
    for key in keys:
        radix = int(numbered.select(pl.col(key).max()).item() or 0) + 1
        size *= radix
        if size >= 2**32:
            return None
        out = out * radix + pl.col(key)
    return _ListCode(pl.lit(numbered.select(out.alias(_LIST)).to_series()),
                     lambda run: _lists_of_rows(run, keys))


def _category_lists(anchor: pl.Series, run: pl.DataFrame, key: str) -> pl.DataFrame:
    """The lists of one string query column numbered by the codes of ``anchor``'s type.

    Code i is the i-th category (those of this one cast, all of them in the run), and
    a null query id is number 2**32 - 1: no pass over the rows (``arg_unique`` over
    10M numbers took 0.08 s). ``anchor``, an empty Series of the categorical type,
    keeps the names alive (:func:`_list_code`).
    """
    dtype = anchor.dtype
    assert isinstance(dtype, pl.Categorical)
    names = dtype.categories.to_series()
    lists = pl.DataFrame({_LIST: pl.int_range(names.len(), dtype=pl.UInt64, eager=True),
                          key: names})
    if run[key].null_count():
        nulls = pl.DataFrame({_LIST: [2**32 - 1], key: [None]},
                             schema={_LIST: pl.UInt64, key: pl.String})
        lists = pl.concat([lists, nulls])
    return lists


def _grouped_code(frame: pl.LazyFrame,
                  keys: list[str]) -> tuple[pl.Series, pl.DataFrame] | None:
    """The block number of each row (0, 1, ...) when each list is one block, or ``None``.

    With the numbers, their lists: one row (``_LIST``, keys...) per block.

    A block is a run of consecutive rows with equal keys (``rle_id``: 0.05 s for 10M
    rows, where a categorical cast of the query ids takes 0.25 s). The blocks are the
    lists when no two blocks share their keys, checked on the first row of each.
    Blocks averaging fewer than 4 rows, in the first 2**16 rows or in all, mean the
    rows are not grouped: ``None`` without checking.
    """
    key = pl.struct(keys) if len(keys) > 1 else pl.col(keys[0])
    head = frame.head(2**16).select(key.rle_id().max().alias(_LIST), pl.len()).collect()
    last, rows = head.row(0)
    if last is None or (last + 1) * 4 > rows:
        return None
    code = frame.select(key.rle_id().alias(_LIST)).collect().to_series()
    if (code[-1] + 1) * 4 > code.len():
        return None
    firsts = frame.select(keys).filter(code.diff().fill_null(1) != 0).collect()
    if not firsts.is_unique().all():
        return None
    return code, firsts.with_row_index(_LIST).with_columns(pl.col(_LIST).cast(code.dtype))


def _bit_cast_available() -> bool:
    """Whether this Polars reinterprets a float's bits (``reinterpret(dtype=)``, 2.x)."""
    try:
        pl.lit(0.0, pl.Float32).reinterpret(dtype=pl.Int32)
    except TypeError:
        return False
    return True


_HAS_BIT_CAST = _bit_cast_available()  # without it (Polars 1.x): the window ranking


def _sort_key(code: pl.Expr, score: str) -> pl.Expr:
    """One UInt64 whose ascending order is trec_eval's: list, then score descending.

    The high 32 bits are the list's :func:`_list_code`, the low 32 bits map the
    score, as trec_eval's 32-bit float with -0.0 equal to 0.0, to an unsigned integer
    in descending order. Sorting this one column is several times cheaper than
    ranking a (score, doc id) struct within every query.
    """
    score32 = pl.col(score).cast(pl.Float32)
    score32 = pl.when(score32 == 0).then(pl.lit(0.0, pl.Float32)).otherwise(score32)  # -0.0
    bits = score32.reinterpret(dtype=pl.Int32).cast(pl.Int64)
    ascending = pl.when(bits >= 0).then(bits + 2**31).otherwise(2**31 - 1 - (bits & 0x7FFFFFFF))
    return code * 2**32 + (2**32 - 1 - ascending).cast(pl.UInt64)


def _positions(judged: pl.DataFrame, sorted_keys: pl.Series, starts: pl.DataFrame,
               retrieved: pl.DataFrame, doc: str) -> pl.DataFrame:
    """trec_eval's rank of each judged row, from the sorted :func:`_sort_key` column.

    In the sorted keys, the rows ranked above a judged row are those between its
    list's first key (``starts``: ``_LIST`` -> ``_ROW``, the index of its first key,
    and any other list columns, joined to the rows) and its own key; rows with its
    very key tie with it on the score, and trec_eval orders them by doc id,
    descending: only those (few) rows are ranked by doc id. ``judged`` and
    ``retrieved`` carry the run row number ``_ORDER``, which matches them.
    """
    judged = judged.sort(_KEY)  # sorted needles: a binary search that walks forward
    key = judged[_KEY]
    below = sorted_keys.search_sorted(key, side="left")
    # the judged key is among the sorted ones: it ties if the next key is the same
    after = sorted_keys.gather((below + 1).clip(upper_bound=max(sorted_keys.len() - 1, 0)))
    tied = (after == key) & (below + 1 < sorted_keys.len())
    judged = judged.with_columns(below.cast(pl.Int64).alias(_POS)).join(
        starts, on=_LIST, how="left").with_columns((pl.col(_POS) - pl.col(_ROW) + 1).alias(_POS))
    tie_keys = key.filter(tied).unique()
    if tie_keys.len():
        index = pl.int_range(pl.len(), dtype=pl.Int64)
        first = pl.when(pl.col(_KEY).ne_missing(pl.col(_KEY).shift(1))).then(index)
        members = (
            retrieved.lazy().filter(pl.col(_KEY).is_in(tie_keys.implode()))
            .select(_KEY, doc, _ORDER)
            .sort([_KEY, doc], descending=[False, True])  # trec_eval: doc id descending
            .select(_ORDER, (index - first.forward_fill()).alias(_TIE_OFFSET))
            .collect()
        )
        judged = judged.join(members, on=_ORDER, how="left").with_columns(
            (pl.col(_POS) + pl.col(_TIE_OFFSET).fill_null(0)).alias(_POS))
    return judged.drop(_KEY, _ROW, _ORDER, _TIE_OFFSET, strict=False)


def _tie_slots(sparse: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Rows sorted by tie group: give each a distinct rank and its group's row bounds."""
    return _with_tie_rows(sparse, keys, _POS).with_columns(  # null: unretrieved
        (pl.col(_POS) + 1 + pl.col(_ROW) - pl.col(_START)).alias(_POS)
    )


def _per_query_sparse(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: _Options,
                      unjudged: list[pl.DataFrame]) -> pl.LazyFrame:
    """Per-query metrics from the ranks of the judged documents only (the fast path).

    The ranking reaches only judged rows, with their rank and the list length, so the
    metrics work on ~R rows per query instead of the whole run. ``ties="trec_eval"``
    ranks by one sorted key (:func:`_per_query_sorted`) where it can; otherwise one
    window pass ranks every retrieved row (score descending, then doc id descending
    or row order). With ``validate`` the run is read once into memory and shared by
    the ranking and the checks.
    """
    query, doc, score, rel, groups, has_doc = o.query, o.doc, o.score, o.rel, o.groups, o.has_doc
    keys = [*groups, query]
    needed = [*keys, score, *([doc] if has_doc else []), *([rel] if qrels is None else [])]
    run = run.select(needed)
    if o.ties == "trec_eval" and _HAS_BIT_CAST:  # ranks from one sorted key
        # the (query, doc) hash of the duplicate check and the qrels join: computed
        # while reading, it runs in parallel with the decoding
        run = run.with_columns(_row_hash([query, doc]).alias(_HASH)).collect().lazy()
        code = _list_code(run, keys)
        if code is not None:
            return _per_query_sorted(run, None if qrels is None else qrels.collect(), o,
                                     unjudged, code)
        run = run.drop(_HASH)
    if o.validate:  # one read of each input, shared by every branch below
        run = run.collect().lazy()
        qrels = None if qrels is None else qrels.collect().lazy()
    retrieved = run.filter(pl.col(score).is_not_null())
    expected = o.ties == "expected"
    if expected:  # each row's tie group as ranks: (rows above it, rows above or tied)
        tie = pl.col(score).cast(pl.Float64) + 0.0  # + 0.0: -0.0 ties with 0.0
        ranked = retrieved.with_columns(
            (tie.rank("min", descending=True).over(keys).cast(pl.Int64) - 1).alias(_POS),
            tie.rank("max", descending=True).over(keys).cast(pl.Int64).alias(_END),
        )
        rank_columns = [_POS, _END]
    else:
        if o.ties == "trec_eval":  # trec_eval keeps scores as 32-bit floats (TEXT_RESULTS.sim)
            score_key, tie_key = pl.col(score).cast(pl.Float32), pl.col(doc).cast(pl.String)
        else:
            retrieved = retrieved.with_row_index(_ORDER)
            score_key, tie_key = pl.col(score).cast(pl.Float64), -pl.col(_ORDER).cast(pl.Int64)
        ranked = retrieved.with_columns(
            pl.struct(score_key, tie_key).rank("ordinal", descending=True).over(keys).alias(_POS)
        )
        rank_columns = [_POS]
    lists = retrieved.group_by(keys).agg(pl.len().cast(pl.UInt32).alias(_N_RET))
    if qrels is None:
        judged_ranked = ranked.filter(pl.col(rel).is_not_null()).select(
            *keys, *rank_columns, rel
        )
    else:
        judged_ranked = ranked.join(qrels, on=[query, doc], how="inner").select(
            *keys, doc, *rank_columns, rel
        )
    if o.validate:
        (judged_df, lists_df), summary = _validate(
            run, qrels, query=query, doc=doc if has_doc else None, score=score, rel=rel,
            groups=groups, max_grade=o.max_grade, run_lists=lists.select(keys),
            with_frames=[judged_ranked, lists],
        )
        unjudged.append(summary)
        judged_ranked, lists = judged_df.lazy(), lists_df.lazy()
    if qrels is None:
        unretrieved = run.filter(pl.col(score).is_null() & pl.col(rel).is_not_null()).select(
            *keys, rel
        )
    else:
        unretrieved = (
            lists.select(keys).join(qrels, on=query, how="inner")
            .join(judged_ranked.select(*keys, doc), on=[*keys, doc], how="anti")
            .select(*keys, rel)
        )
    parts = [judged_ranked.select(*keys, *rank_columns, rel),
             unretrieved.with_columns(pl.lit(None, pl.Int64).alias(c) for c in rank_columns)
             .select(*keys, *rank_columns, rel)]
    if expected:
        parts.append(_tie_fillers(judged_ranked, keys, rel))
    # a number per list: sorting and grouping on it is cheaper than on string ids
    lists = lists.with_row_index(_LIST)
    sparse = pl.concat(parts, how="vertical_relaxed").join(lists, on=keys, how="left")
    per = _metrics(sparse, o, ties=(_START, _END) if expected else None)
    return per.join(lists.select(_LIST, *keys), on=_LIST, how="left").drop(_LIST)


def _metrics(sparse: pl.LazyFrame, o: _Options, ties: tuple[str, str] | None = None, *,
             in_rank_order: bool = False) -> pl.LazyFrame:
    """The metrics per list of ``sparse``: rows (``_LIST``, ``_POS``, rel, ``_N_RET``).

    Rank order within each list once, so no metric sorts (group_by keeps row order);
    ``in_rank_order``: ``sparse`` is already sorted by :func:`_rank_order` and its
    ``_LIST`` flagged sorted, so each list is a slice of the frame (0.42 against
    0.30 s for 100k lists). The flag is set only on a collected frame: Polars 1.x
    drops a sort before a ``group_by`` whose aggregations ignore row order, and
    would keep the flag.
    """
    if not in_rank_order:
        sparse = sparse.sort(_rank_order())
    if ties is not None:
        sparse = _tie_slots(sparse, [_LIST])
    ranked_list = Ranked.sparse(o.rel, _POS, _N_RET, presorted=True, ties=ties)
    return sparse.group_by(_LIST).agg(
        *(m.value(ranked_list).cast(pl.Float64).alias(name) for name, m in o.named),
        pl.lit(True).alias(_JUDGED),
        (pl.col(_N_RET).max().fill_null(0) > 0).alias(_RETRIEVED),
    )


def _rank_order() -> pl.Expr:
    """One UInt64 ordered as (``_LIST``, ``_POS``, unretrieved last).

    Sorting it is several times cheaper than sorting the two columns.
    """
    rank = pl.col(_POS).fill_null(2**32 - 1).cast(pl.UInt64)
    return pl.col(_LIST).cast(pl.UInt64) * 2**32 + rank


def _per_query_sorted(run: pl.LazyFrame, qrels: pl.DataFrame | None, o: _Options,
                      unjudged: list[pl.DataFrame], code: _ListCode) -> pl.LazyFrame:
    """``ties="trec_eval"``: ranks from one sorted key, lists as integers, hash joins.

    Every run row gets its list's number (``code``, :func:`_list_code`) and the
    :func:`_sort_key`; the retrieved keys are sorted once and each judged row's rank
    found by binary search (:func:`_positions`). The lists are the distinct numbers
    (their lengths come from the sorted keys), not a group_by on the id strings, and
    the run is matched with the qrels on a 64-bit hash of (query, doc) (a candidate
    filter, then a join whose ids are compared exactly), so no step hashes the run's
    id strings twice.
    """
    query, doc, score, rel, groups = o.query, o.doc, o.score, o.rel, o.groups
    keys = [*groups, query]
    # the numbers collected before the key: one plan of both took 0.36 s for 10M
    # rows against 0.25 s for two (Polars 2.1, medians of 9); the whole evaluate()
    # 2.16 against 2.21 s (fresh processes, medians of 9), 1M rows unchanged
    numbered = run.with_columns(code.code.alias(_LIST)).collect().lazy()
    run_df = numbered.with_columns(
        _sort_key(pl.col(_LIST), score).alias(_KEY)).with_row_index(_ORDER).collect()
    ranked = run_df.lazy()
    lists = code.lists(run_df).lazy()
    if qrels is None:
        judged = ranked.filter(pl.col(rel).is_not_null() & pl.col(_KEY).is_not_null())
        judged = judged.select(_LIST, _KEY, _ORDER, rel)
    else:
        qrels = qrels.with_row_index(_QROW).with_columns(_row_hash([query, doc]).alias(_HASH))
        exact = {query: "__polars_rank_qrels_query", doc: "__polars_rank_qrels_doc"}
        judged = (
            ranked.filter(pl.col(_KEY).is_not_null())
            .select(_LIST, _KEY, _ORDER, query, doc, _HASH)
            .filter(pl.col(_HASH).is_in(qrels[_HASH].implode()))
            .join(qrels.lazy().rename(exact).select(_HASH, *exact.values(), _QROW, rel),
                  on=_HASH, how="inner")
            .select(_LIST, _KEY, _ORDER, doc, _QROW, rel, query, *exact.values())
        )  # ids compared once collected: Polars makes a filter here join keys (slower)
    frames = [judged, ranked.select(pl.col(_KEY).drop_nulls().sort())]
    if o.validate:
        collected, summary = _validate(
            ranked.select(*keys, doc, score, _HASH, *([rel] if qrels is None else [])),
            None if qrels is None else qrels.lazy().select(query, doc, rel, _HASH),
            query=query, doc=doc, score=score, rel=rel, groups=groups,
            max_grade=o.max_grade, run_lists=lists.select(keys), with_frames=frames[:1],
            pair_hash=_HASH, beside_counts=frames[1:],  # the sort beside the counts
        )
        unjudged.append(summary)
    else:
        collected = pl.collect_all(frames)
    judged_df, sorted_keys = collected[0], collected[1][_KEY]
    if qrels is not None:  # the exact comparison of the ids (hash collisions)
        judged_df = judged_df.filter(
            *(pl.col(c) == pl.col(q) for c, q in exact.items())).drop(query, doc, *exact.values())
    # the length of each list: its run of keys in the sorted column
    lengths = (sorted_keys // 2**32).rle().struct.unnest().select(
        pl.col("value").alias(_LIST), pl.col("len").cast(pl.UInt32).alias(_N_RET),
        (pl.col("len").cum_sum() - pl.col("len")).cast(pl.Int64).alias(_ROW),  # first key
    )
    lists = lists.join(lengths.lazy().select(_LIST, _N_RET), on=_LIST, how="left").with_columns(
        pl.col(_N_RET).fill_null(0))
    if qrels is not None:  # a run row without a score is ignored
        lists = lists.filter(pl.col(_N_RET) > 0)
    judged_df = _positions(judged_df, sorted_keys, lengths, run_df, doc)
    if qrels is None:
        unretrieved = ranked.filter(pl.col(_KEY).is_null() & pl.col(rel).is_not_null()).join(
            lists.select(_LIST, _N_RET), on=_LIST, how="inner")
    elif not groups:  # one list per query: the qrels rows no list matched, with their list
        matched = judged_df[_QROW]
        unretrieved = (
            qrels.lazy().select(query, _QROW, rel).filter(~pl.col(_QROW).is_in(matched.implode()))
            .join(lists.select(_LIST, query, _N_RET), on=query, how="inner")
        )  # filtered before the join on the query ids: 4x cheaper for 10M rows
    else:  # the (list, qrels row) pairs of each list's query that the list did not match
        pair = pl.col(_LIST) * 2**32 + pl.col(_QROW).cast(pl.UInt64)
        matched = judged_df.select(pair).to_series()
        unretrieved = (
            lists.select(_LIST, query, _N_RET)
            .join(qrels.lazy().select(query, _QROW, rel), on=query, how="inner")
            .filter(~pair.is_in(matched.implode()))
        )
    sparse = pl.concat(
        [judged_df.lazy().select(_LIST, _POS, rel, _N_RET),
         unretrieved.select(_LIST, pl.lit(None, pl.Int64).alias(_POS), rel, _N_RET)],
        how="vertical_relaxed",
    )
    ordered = sparse.sort(_rank_order()).collect().with_columns(pl.col(_LIST).set_sorted())
    per = _metrics(ordered.lazy(), o, in_rank_order=True)
    return per.join(lists.select(_LIST, *keys), on=_LIST, how="left").drop(_LIST)
