"""The data checks of an evaluation, sharing one pass over the data with the ranking.

:func:`check_data` raises :class:`~polars_rank.InvalidDataError` for the first row
breaking a rule of :mod:`polars_rank._engine.rules` (or a duplicate (query, doc) row, or a
null query id), naming the query, before any metric is computed.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.rules import hint, id_rules, label_rules, run_score_rules, score_rules
from polars_rank.errors import DuplicateRowsError, InvalidDataError, user_stacklevel

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._evaluation.options import Options

__all__ = ["check_data", "row_hash"]


def _first_offender(frame: pl.LazyFrame, mask: pl.Expr, keys: list[str]) -> pl.LazyFrame:
    return frame.filter(mask.fill_null(False)).select(keys).head(1)


def row_hash(columns: Sequence[str], first_seed: int = 0) -> pl.Expr:
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


def check_data(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    o: Options,
    *,
    run_lists: pl.LazyFrame | None = None,
    with_frames: Sequence[pl.LazyFrame] = (),
    pair_hash: str | None = None,
    beside_counts: Sequence[pl.LazyFrame] = (),
) -> tuple[list[pl.DataFrame], pl.DataFrame]:
    """Raise :class:`InvalidDataError` for the first problem found, before any metric.

    In the same pass, count the run queries without judgments, and collect
    ``with_frames`` (plans that share work with the checks). ``run_lists``, when
    given, is one row per (group..., query) of the run; ``pair_hash``, a column that
    both frames already hold with ``row_hash([query, doc])``. ``beside_counts``: plans
    collected with the duplicate counts, on the in-memory engine (which runs them in
    parallel), returned after ``with_frames``. Returns the collected
    ``with_frames`` and a one-row frame (count, up to 3 example keys) of the
    unjudged queries.
    """
    query, score, rel, groups = o.query, o.score, o.rel, o.groups
    doc = o.doc if o.has_doc else None
    labelled = run if qrels is None else qrels
    where = "run" if qrels is None else "qrels"
    # (message up to the offending row, its rows, what the message adds after them)
    checks: list[tuple[str, pl.LazyFrame, str]] = [
        (f"{problem} in {where} column {rel!r}", _first_offender(labelled, mask, [query]),
         hint(problem))
        for problem, mask in label_rules(pl.col(rel).cast(pl.Float64), o.max_grade)
    ]
    # with qrels, every run row is a retrieved document (a null score is no "judged but
    # not retrieved" row: those come from the qrels)
    score_checks = score_rules(pl.col(score)) + ([] if qrels is None
                                                 else run_score_rules(pl.col(score)))
    shown = [query] if doc is None else [query, doc]
    checks += [(f"{problem} in run column {score!r}", _first_offender(run, mask, shown),
                hint(problem))
               for problem, mask in score_checks]
    for frame, name in ((run, "run"), (qrels, "qrels")):
        if frame is None:  # a row of no query or no document: trec_eval has neither
            continue
        other = score if name == "run" else rel
        reported = {"null query id": [doc] if doc is not None else [other],
                    "null document id": [query, other]}
        for problem, mask in id_rules([pl.col(query)], None if doc is None else pl.col(doc)):
            column = query if problem == "null query id" else doc
            checks.append((f"{problem} in {name} column {column!r}",
                           _first_offender(frame, mask, reported[problem]), hint(problem)))
    # duplicates: (problem, frame, id columns, columns to report)
    duplicates: list[tuple[str, pl.LazyFrame, pl.Expr, list[str], list[str]]] = []
    if doc is not None:
        pair = row_hash([query, doc]) if pair_hash is None else pl.col(pair_hash)
        run_key = pair ^ row_hash(groups, first_seed=2) if groups else pair
        duplicates.append(("duplicate (query, doc) rows in the run", run, run_key,
                           [*groups, query, doc], [query, doc]))
        if qrels is not None:
            duplicates.append(("duplicate (query, doc) rows in the qrels", qrels, pair,
                               [query, doc], [query, doc]))
    query_keys = [*groups, query]
    lists = run.select(query_keys).unique() if run_lists is None else run_lists
    if qrels is None:
        unjudged = run.group_by(query_keys).agg(pl.col(rel).is_not_null().any().alias("judged"))
        unjudged = unjudged.filter(~pl.col("judged")).select(query_keys)
    else:
        unjudged = lists.join(qrels.select(query), on=query, how="anti")
    summary = unjudged.select(pl.len(), pl.struct(query_keys).sort().head(3).implode().alias("e"))
    plans = [frame for _, frame, _ in checks]
    # a query in several groups: (pair counts beside, lists and queries with the rest)
    spread = [] if doc is None or not groups else [_distinct_count(run, pair)]
    spans = [] if not spread else [lists.select(pl.len(), pl.col(query).n_unique())]
    # the hash counts run faster on the in-memory engine, the rest on the streaming
    # one (docs/performance.md, "Behind the code")
    counted = [_distinct_count(f, key) for _, f, key, _, _ in duplicates]
    beside = pl.collect_all([*counted, *spread, *beside_counts], engine="in-memory")
    counts = beside[: len(counted)]
    collected = pl.collect_all([*plans, summary, *with_frames, *spans])
    if spread:
        _warn_split(beside.pop(len(counted)), collected.pop(), run, query, groups)
    found = collected[: len(checks)]
    for (problem, _, after), rows in zip(checks, found, strict=True):
        _raise_at(problem, rows, after)
    for (problem, frame, _, ids, shown), count in zip(duplicates, counts, strict=True):
        if count["hashes"].item() < count["rows"].item():
            _raise_at(problem, _first_offender(frame, pl.struct(ids).is_duplicated(),
                                               shown).collect(), error=DuplicateRowsError)
    return [*collected[len(plans) + 1 :], *beside[len(counted):]], collected[len(plans)]


def _warn_split(pairs: pl.DataFrame, spans: pl.DataFrame, run: pl.LazyFrame, query: str,
                groups: Sequence[str]) -> None:
    """Warn when queries span several groups and no two groups share a (query, doc) pair.

    Arms rank the same query's documents, so some pair is in two groups (more rows
    than distinct pairs: a pair twice in one group is a duplicate, an error). A group
    column that describes rows (a document's category) puts each document of a query
    in one group, so queries span groups (more lists than queries) and no pair is
    shared anywhere. Which one a column is cannot be known for sure, so this warns,
    and only when no query looks like arms. ``pairs``: rows and distinct pair hashes
    of the run; ``spans``: lists and distinct queries. Grouping the run by query for
    this cost ``evaluate(group_by=...)`` 60% at 1M rows (measured); the queries are
    found only when it warns.
    """
    if spans.item(0, 0) == spans.item(0, 1) or pairs["hashes"].item() < pairs["rows"].item():
        return
    several = (row_hash(groups, first_seed=2).n_unique() > 1).alias("several")
    split = (run.group_by(query).agg(several).filter("several")
             .select(pl.col(query).sort()).collect()[query])
    count = split.len()
    columns = ", ".join(repr(g) for g in groups)
    examples = ", ".join(repr(q) for q in split.head(3))
    warnings.warn(
        f"{count} quer{'y has' if count == 1 else 'ies have'} rows in several groups of "
        f"group_by={columns}, and no query's groups share a document (as arms ranking "
        f"the same query's documents would; e.g. {query}={examples}): if a group "
        "column describes rows (a document's category), each such query was split and "
        "its parts scored as separate lists. Slice columns must be constant within a "
        "query (validate(..., group_by=...) lists the rows).",
        UserWarning,
        stacklevel=user_stacklevel(),
    )


def _raise_at(problem: str, rows: pl.DataFrame, after: str = "", *,
              error: type[InvalidDataError] = InvalidDataError) -> None:
    if rows.height:
        where = ", ".join(f"{c}={v!r}" for c, v in rows.row(0, named=True).items())
        msg = f"{problem}: first at {where}" + (f". {after[0].upper()}{after[1:]}"
                                                 if after else "")
        raise error(msg)
