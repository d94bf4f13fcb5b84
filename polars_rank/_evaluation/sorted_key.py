"""trec_eval's ranking from one sorted integer key per run row (the default's fast path).

Every run row gets one ``UInt64``: its list's number (:mod:`~polars_rank._evaluation.lists`)
in the high 32 bits, its score as a 32-bit float mapped to descending order in the
low 32 bits. The retrieved keys are sorted once; a judged row's rank is then a binary
search (the rows above it are the keys between its list's first key and its own),
and only rows whose key another row shares are ordered by their score and document
id, as trec_eval breaks ties.

The 32-bit float is trec_eval 9's score (``ties="trec_eval9"``); trec_eval 10 compares
64-bit doubles (``"trec_eval"``). For it the key is a bucket: rounding to a float is
monotone, so a strictly greater key means a strictly greater double, and the binary
search is right for every row whose key no other row shares; the rows sharing a key
(already ordered by doc id there, and few) are ordered by the double, then the doc id.

The run is matched with the qrels on a 64-bit hash of (query, doc): a candidate
filter, then a join whose ids are compared exactly, so no step hashes the run's id
strings twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._evaluation.checks import check_data, row_hash
from polars_rank._evaluation.judged_frame import Judged, rank_columns, with_list_ends
from polars_rank._evaluation.options import LIST, N_RET, RANK, TIE_FIRST, TIE_LAST, Options

if TYPE_CHECKING:
    from polars_rank._evaluation.lists import ListCode

__all__ = ["HASH", "rank_by_sorted_key"]

HASH = "__polars_rank_hash"
_KEY = "__polars_rank_sort_key"
_ORDER = "__polars_rank_order"
_ROW = "__polars_rank_row"
_TIE_OFFSET = "__polars_rank_tie_offset"
_TIE_FIRST = "__polars_rank_tie_offset_first"
_TIE_LAST = "__polars_rank_tie_offset_last"
_DOUBLE = "__polars_rank_double"
_QROW = "__polars_rank_qrels_row"


def _sort_key(code: pl.Expr, score: str) -> pl.Expr:
    """One UInt64 whose ascending order is trec_eval 9's: list, then score descending.

    The high 32 bits are the list's number, the low 32 bits map the score, as
    trec_eval 9's 32-bit float with -0.0 equal to 0.0, to an unsigned integer in
    descending order (for trec_eval 10, a bucket of its doubles: see the module).
    Sorting this one column is several times cheaper than ranking a (score, doc id)
    struct within every query.
    """
    score32 = pl.col(score).cast(pl.Float32)
    score32 = pl.when(score32 == 0).then(pl.lit(0.0, pl.Float32)).otherwise(score32)  # -0.0
    bits = score32.reinterpret(dtype=pl.Int32).cast(pl.Int64)
    ascending = pl.when(bits >= 0).then(bits + 2**31).otherwise(2**31 - 1 - (bits & 0x7FFFFFFF))
    return code * 2**32 + (2**32 - 1 - ascending).cast(pl.UInt64)


def _ranks(judged: pl.DataFrame, sorted_keys: pl.Series, starts: pl.DataFrame,
           retrieved: pl.DataFrame, doc: str, *, bounds: bool,
           double: str | None) -> pl.DataFrame:
    """trec_eval's rank of each judged row, from the sorted :func:`_sort_key` column.

    In the sorted keys, the rows ranked above a judged row are those between its
    list's first key (``starts``: ``LIST`` -> ``_ROW``, the index of its first key)
    and its own key; rows with its very key are ordered by trec_eval's comparison:
    the score as a double (``double``: its column; ``None``: trec_eval 9, where the
    key is the score), then doc id, descending (as text). Only those (few) rows are
    sorted. ``judged`` and ``retrieved`` carry the run row number ``_ORDER``, which
    matches them. ``bounds``: also the first and last rank of the row's score tie.
    """
    judged = judged.sort(_KEY)  # sorted needles: a binary search that walks forward
    key = judged[_KEY]
    below = sorted_keys.search_sorted(key, side="left")
    # the judged key is among the sorted ones: it ties if the next key is the same
    after = sorted_keys.gather((below + 1).clip(upper_bound=max(sorted_keys.len() - 1, 0)))
    tied = (after == key) & (below + 1 < sorted_keys.len())
    judged = judged.with_columns(below.cast(pl.Int64).alias(RANK))
    if bounds:
        judged = judged.with_columns(
            sorted_keys.search_sorted(key, side="right").cast(pl.Int64).alias(TIE_LAST))
    judged = judged.join(starts, on=LIST, how="left").with_columns(
        (pl.col(RANK) - pl.col(_ROW) + 1).alias(RANK))
    if bounds:
        judged = judged.with_columns(pl.col(RANK).alias(TIE_FIRST),
                                     (pl.col(TIE_LAST) - pl.col(_ROW)).alias(TIE_LAST))
    tie_keys = key.filter(tied).unique()
    if tie_keys.len():
        judged = _order_ties(judged, retrieved.lazy().filter(
            pl.col(_KEY).is_in(tie_keys.implode())), doc, bounds=bounds, double=double)
    return judged.drop(_KEY, _ROW, _ORDER, _TIE_OFFSET, _TIE_FIRST, _TIE_LAST, N_RET,
                       strict=False)


def _order_ties(judged: pl.DataFrame, members: pl.LazyFrame, doc: str, *, bounds: bool,
                double: str | None) -> pl.DataFrame:
    """The judged rows' ranks (and tie spans) within the keys they share with others.

    ``members``: the retrieved rows of those keys. Each is sorted by (key, double
    descending, doc id descending); a row's offset from its key's first row moves its
    rank, and the run of rows with its double (its key, under trec_eval 9) its tie
    bounds.
    """
    index = pl.int_range(pl.len(), dtype=pl.Int64)
    new_key = pl.col(_KEY).ne_missing(pl.col(_KEY).shift(1))
    order, scores = [_KEY, doc], [pl.col(doc).cast(pl.String)]
    if double is not None:
        order.insert(1, _DOUBLE)
        scores.append((pl.col(double).cast(pl.Float64) + 0.0).alias(_DOUBLE))  # -0.0: 0.0
    ordered = (
        members.select(_KEY, _ORDER, *scores)
        .sort(order, descending=[False, *[True] * (len(order) - 1)])
        .with_columns((index - pl.when(new_key).then(index).forward_fill()).alias(_TIE_OFFSET))
    )
    shown = [_ORDER, _TIE_OFFSET]
    if bounds and double is not None:  # the runs of equal doubles within a key
        run = (new_key | pl.col(_DOUBLE).ne_missing(pl.col(_DOUBLE).shift(1))).cum_sum()
        ordered = ordered.with_columns(pl.col(_TIE_OFFSET).min().over(run).alias(_TIE_FIRST),
                                       pl.col(_TIE_OFFSET).max().over(run).alias(_TIE_LAST))
        shown += [_TIE_FIRST, _TIE_LAST]
    ranks = [(pl.col(RANK) + pl.col(_TIE_OFFSET).fill_null(0)).alias(RANK)]
    if bounds and double is not None:  # else the key's bounds are the score's
        tied = pl.col(_TIE_FIRST).is_not_null()
        ranks += [(pl.col(TIE_FIRST) + pl.col(_TIE_FIRST).fill_null(0)).alias(TIE_FIRST),
                  pl.when(tied).then(pl.col(TIE_FIRST) + pl.col(_TIE_LAST))
                  .otherwise(pl.col(TIE_LAST)).alias(TIE_LAST)]
    return judged.join(ordered.select(shown).collect(), on=_ORDER, how="left").with_columns(ranks)


def rank_by_sorted_key(run: pl.LazyFrame, qrels: pl.DataFrame | None, o: Options,
                       without_judgments: list[pl.DataFrame], code: ListCode, *,
                       doc: bool = False) -> Judged:
    """``ties="trec_eval"`` / ``"trec_eval9"``: the judged rows' ranks from one sorted key.

    ``run`` holds HASH. The lists are the distinct numbers (their lengths come from the
    sorted keys), not a group_by on the id strings.
    """
    query, rel, keys = o.query, o.rel, o.keys
    # the numbers collected before the key: two plans are faster than one
    # (docs/performance.md, "Behind the code")
    numbered = run.with_columns(code.code.alias(LIST)).collect().lazy()
    run_df = numbered.with_columns(
        _sort_key(pl.col(LIST), o.score).alias(_KEY)).with_row_index(_ORDER).collect()
    ranked = run_df.lazy()
    lists = code.lists(run_df).lazy()
    exact = {query: "__polars_rank_qrels_query", o.doc: "__polars_rank_qrels_doc"}
    if qrels is None:
        judged = ranked.filter(pl.col(rel).is_not_null() & pl.col(_KEY).is_not_null())
        judged = judged.select(LIST, _KEY, _ORDER, rel, o.doc)
    else:
        qrels = qrels.with_row_index(_QROW).with_columns(row_hash([query, o.doc]).alias(HASH))
        judged = (
            ranked.filter(pl.col(_KEY).is_not_null())
            .select(LIST, _KEY, _ORDER, query, o.doc, HASH)
            .filter(pl.col(HASH).is_in(qrels[HASH].implode()))
            .join(qrels.lazy().rename(exact).select(HASH, *exact.values(), _QROW, rel),
                  on=HASH, how="inner")
            .select(LIST, _KEY, _ORDER, o.doc, _QROW, rel, query, *exact.values())
        )  # ids compared once collected: Polars makes a filter here join keys (slower)
    frames = [judged, ranked.select(pl.col(_KEY).drop_nulls().sort())]
    if o.validate:
        collected, summary = check_data(
            ranked.select(*keys, o.doc, o.score, HASH, *([rel] if qrels is None else [])),
            None if qrels is None else qrels.lazy().select(query, o.doc, rel, HASH),
            o, run_lists=lists.select(keys), with_frames=frames[:1],
            pair_hash=HASH, beside_counts=frames[1:],  # the sort beside the counts
        )
        without_judgments.append(summary)
    else:
        collected = pl.collect_all(frames)
    judged_df, sorted_keys = collected[0], collected[1][_KEY]
    ids = [o.doc] if doc else []  # carried along only when shown (ranked())
    if qrels is not None:  # the exact comparison of the ids (hash collisions)
        judged_df = judged_df.filter(*(pl.col(c) == pl.col(q) for c, q in exact.items()))
    judged_df = judged_df.drop(*(c for c in (query, o.doc, *exact.values()) if c not in ids),
                               strict=False)
    # the length of each list: its run of keys in the sorted column
    lengths = (sorted_keys // 2**32).rle().struct.unnest().select(
        pl.col("value").alias(LIST), pl.col("len").cast(pl.UInt32).alias(N_RET),
        (pl.col("len").cum_sum() - pl.col("len")).cast(pl.Int64).alias(_ROW),  # first key
    )
    lists = lists.join(lengths.lazy().select(LIST, N_RET), on=LIST, how="left").with_columns(
        pl.col(N_RET).fill_null(0))
    if qrels is not None:  # a run row without a score is ignored
        lists = lists.filter(pl.col(N_RET) > 0)
    judged_df = _ranks(judged_df, sorted_keys, lengths, run_df, o.doc, bounds=o.needs_tie_span,
                       double=o.score if o.ties == "trec_eval" else None)
    unretrieved = _unretrieved(ranked, qrels, judged_df, lists, o, ids)
    rows = pl.concat(
        [judged_df.lazy().select(LIST, *rank_columns(o), rel, *ids),
         unretrieved.select(LIST, rel, *ids)],
        how="diagonal_relaxed",
    )
    return Judged(with_list_ends(rows, lists, o, doc=doc), lists)


def _unretrieved(ranked: pl.LazyFrame, qrels: pl.DataFrame | None, judged: pl.DataFrame,
                 lists: pl.LazyFrame, o: Options, ids: list[str]) -> pl.LazyFrame:
    """The judged rows each list did not retrieve (``LIST``, rel, and ``ids``)."""
    query, rel = o.query, o.rel
    if qrels is None:
        return ranked.filter(pl.col(_KEY).is_null() & pl.col(rel).is_not_null()).join(
            lists.select(LIST), on=LIST, how="inner")
    if not o.groups:  # one list per query: the qrels rows no list matched, with their list
        matched = judged[_QROW]
        return (
            qrels.lazy().select(query, *ids, _QROW, rel)
            .filter(~pl.col(_QROW).is_in(matched.implode()))
            .join(lists.select(LIST, query), on=query, how="inner")
        )  # filtered before the join on the query ids: 4x cheaper for 10M rows
    # the (list, qrels row) pairs of each list's query that the list did not match
    pair = pl.col(LIST) * 2**32 + pl.col(_QROW).cast(pl.UInt64)
    matched = judged.select(pair).to_series()
    return (
        lists.select(LIST, query)
        .join(qrels.lazy().select(query, *ids, _QROW, rel), on=query, how="inner")
        .filter(~pair.is_in(matched.implode()))
    )
