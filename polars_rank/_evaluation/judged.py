"""Step 2 of an evaluation: the judged rows of every ranked list, with their ranks.

Only judged documents can change a metric; every other retrieved row only takes a
rank. So the ranking reaches the metrics as the frame :class:`Judged` holds, the
one intermediate frame between the steps and the output of
:func:`polars_rank.ranked`: per list, each judged row with its rank (null when the
run did not retrieve it) and the list's last retrieved row, whose rank is the
list's length. The metric expressions read it with ``rank=`` (positions mode of
:class:`~polars_rank._ranked.Ranked`).

Two ways to rank, one result: ``ties="trec_eval"`` (and ``"trec_eval9"``) sorts one
integer key per run row (:mod:`polars_rank._evaluation.sorted_key`, where this Polars
can); every other policy is a window ranking of each list, here.
"""

from __future__ import annotations

from typing import NamedTuple

import polars as pl

from polars_rank._compat import HAS_BIT_CAST
from polars_rank._evaluation.checks import check_data, row_hash
from polars_rank._evaluation.lists import list_code
from polars_rank._evaluation.options import (
    BOUND_FIRST,
    BOUND_LAST,
    LIST,
    N_RET,
    POOLED,
    RANK,
    RANK_LAST,
    Options,
)
from polars_rank._evaluation.sorted_key import HASH, rank_by_sorted_key
from polars_rank._ranked import tie_key
from polars_rank._sort_keys import LABEL_TIES, TREC_TIES, rank_key, trec_score

__all__ = ["Judged", "in_rank_order", "judged_rows", "rank_columns"]

_ORDER = "__polars_rank_order"
_MATCHED = "__polars_rank_matched"


class Judged(NamedTuple):
    """The ranking's result: what every metric of an evaluation reads."""

    rows: pl.LazyFrame
    """Per list (``LIST``): the judged rows (``RANK`` null: not retrieved) and the
    last retrieved row, with ``rel`` and the rank columns of :func:`rank_columns`;
    sorted by ``LIST`` (and flagged sorted) when it comes collected."""
    lists: pl.LazyFrame
    """One row per list with a retrieved or a judged row: ``LIST``, the list's keys
    (groups, query) and ``N_RET``, its length."""


def rank_columns(o: Options) -> list[str]:
    """The rank columns of :attr:`Judged.rows`: positions, tie bounds, AUC's bounds."""
    if o.ties == "expected":
        return [RANK, RANK_LAST]
    bounds = [BOUND_FIRST, BOUND_LAST] if o.needs_bounds else []
    return [RANK, *bounds, *o.gain_ranks]


def judged_rows(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: Options,
                unjudged: list[pl.DataFrame], *, doc: bool = False) -> Judged:
    """Rank the run's lists and keep their judged rows (validating the data on the way).

    ``unjudged`` receives validation's summary of the run queries without judgments;
    ``doc``: keep the document ids (:func:`polars_rank.ranked` shows them).
    """
    keys = o.keys
    needed = [*keys, o.score, *([o.doc] if o.has_doc else []),
              *([o.rel] if qrels is None else [])]
    run = run.select(needed)
    if o.ties in TREC_TIES and HAS_BIT_CAST:  # ranks from one sorted key
        # the (query, doc) hash of the duplicate check and the qrels join: computed
        # while reading, it runs in parallel with the decoding
        run = run.with_columns(row_hash([o.query, o.doc]).alias(HASH)).collect().lazy()
        code = list_code(run, keys)
        if code is not None:
            return rank_by_sorted_key(run, None if qrels is None else qrels.collect(), o,
                                      unjudged, code, doc=doc)
        run = run.drop(HASH)
    return _rank_by_window(run, qrels, o, unjudged, doc=doc)


def _rank_by_window(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: Options,
                    unjudged: list[pl.DataFrame], *, doc: bool) -> Judged:
    """Every run row's rank from one window per list, then the judged rows."""
    keys, query, score, rel = o.keys, o.query, o.score, o.rel
    if o.validate:  # one read of each input, shared by the checks and the ranking
        run = run.collect().lazy()
        qrels = None if qrels is None else qrels.collect().lazy()
    retrieved = run.filter(pl.col(score).is_not_null())
    if qrels is not None and o.ties in LABEL_TIES:  # labels (or gains) decide ties
        labels = qrels.with_columns(pl.lit(True).alias(_MATCHED))
        retrieved = retrieved.join(labels, on=[query, o.doc], how="left")
    ranked = retrieved.with_columns(_window_ranks(o))
    lists = retrieved.group_by(keys).agg(pl.len().cast(pl.UInt32).alias(N_RET))
    ids = [o.doc] if doc or qrels is not None else []  # the anti-join below needs them
    shown = [*keys, *rank_columns(o), rel, *ids]
    if qrels is None:
        judged = ranked.filter(pl.col(rel).is_not_null()).select(shown)
    elif o.ties in LABEL_TIES:
        judged = ranked.filter(pl.col(_MATCHED).fill_null(False)).select(shown)
    else:
        judged = ranked.join(qrels, on=[query, o.doc], how="inner").select(shown)
    if o.validate:
        (judged_df, lists_df), summary = check_data(
            run, qrels, o, run_lists=lists.select(keys), with_frames=[judged, lists])
        unjudged.append(summary)
        judged, lists = judged_df.lazy(), lists_df.lazy()
    if qrels is None:
        unretrieved = run.filter(pl.col(score).is_null() & pl.col(rel).is_not_null())
    else:
        unretrieved = (
            lists.select(keys).join(qrels, on=query, how="inner")
            .join(judged.select(*keys, o.doc), on=[*keys, o.doc], how="anti")
        )
    # a number per list, cheaper to sort and group on; collected, so that every plan
    # reading the numbers sees the same (a group_by's row order changes between runs)
    lists = lists.with_row_index(LIST).collect().lazy()
    rows = pl.concat(
        [judged, unretrieved.select(*keys, rel, *ids)], how="diagonal_relaxed",
    ).join(lists.select(LIST, *keys), on=keys, how="left")
    return Judged(with_list_ends(rows.drop(keys), lists, o, doc=doc), lists)


def _window_ranks(o: Options) -> list[pl.Expr]:
    """Each retrieved row's rank columns, one window per list.

    trec_eval compares scores as 64-bit floats (trec_eval 9: 32-bit, :func:`trec_score`)
    and breaks ties by document id, descending, byte-wise (ids of any type compared as
    text); ``doc_ascending`` compares 64-bit scores and breaks ties by document id,
    ascending (ir_measures' Python providers); the other policies
    compare 64-bit scores (+ 0.0: -0.0 ties with 0.0) and break ties by row order
    (``first``, the ordinal rank), gain (``optimistic``, ``pessimistic``: the label,
    :func:`tie_key`, and a rank column per metric gain table), or
    not at all (``expected``: each row's first and last rank).
    """
    keys = o.keys
    if o.ties in TREC_TIES:
        score = trec_score(pl.col(o.score), o.ties)
        key = pl.struct(score.alias("s"), pl.col(o.doc).cast(pl.String).alias("d"))
    elif o.ties == "doc_ascending":  # as Python's sorted(key=lambda x: (-x.score, x.doc))
        score = pl.col(o.score).cast(pl.Float64) + 0.0
        key, _ = rank_key([score, pl.col(o.doc).cast(pl.String)], [True, False])
    else:
        score = pl.col(o.score).cast(pl.Float64) + 0.0
        key = score
        if o.ties in LABEL_TIES:
            key = _by_gain(score, tie_key(pl.col(o.rel).cast(pl.Float64)), o.ties)
    if o.ties == "expected":
        return [score.rank("min", descending=True).over(keys).cast(pl.Int64).alias(RANK),
                score.rank("max", descending=True).over(keys).cast(pl.Int64).alias(RANK_LAST)]
    out = [key.rank("ordinal", descending=True).over(keys).cast(pl.Int64).alias(RANK)]
    out += [_by_gain(score, gain, o.ties).rank("ordinal", descending=True).over(keys)
            .cast(pl.Int64).alias(name) for name, gain in o.gain_ranks.items()]
    if o.needs_bounds:
        out += [score.rank("min", descending=True).over(keys).cast(pl.Int64).alias(BOUND_FIRST),
                score.rank("max", descending=True).over(keys).cast(pl.Int64).alias(BOUND_LAST)]
    return out


def _by_gain(score: pl.Expr, gain: pl.Expr, ties: str) -> pl.Expr:
    """The key ranking ``score`` (descending), ties by ``gain``: largest first when optimistic."""
    return pl.struct(score.alias("s"), (gain if ties == "optimistic" else -gain).alias("g"))


def with_list_ends(rows: pl.LazyFrame, lists: pl.LazyFrame, o: Options, *,
                   doc: bool = False) -> pl.LazyFrame:
    """``rows`` (``LIST``, rank columns, rel) and a row at the end of each list.

    A list's length is its largest rank: a list with judged rows whose last
    retrieved row is not judged gets that row, label-less (every rank column at the
    length); a list without judged rows is not evaluated and gets none. Every row of
    ``rows`` has a qrels line (or a label, without qrels) and no end row has: that is
    ``POOLED``, added when a metric reads it (``o.needs_pooled``). Then the
    rows sorted by list, so that each list is a slice of the frame (a ``group_by``
    on a column Polars knows is sorted slices instead of gathering: 0.42 against
    0.30 s for 100k lists), and by rank within it.

    The ranks by a metric's gain (:attr:`Options.gain_ranks`) put the last retrieved
    row elsewhere than ``RANK`` may: the end row is there when any ranking misses
    the length, at the length in each ranking that misses it (null, not retrieved, in
    the others: an unjudged row counts nowhere else).
    """
    last = RANK_LAST if o.ties == "expected" else RANK
    columns = [LIST, *rank_columns(o), o.rel, *([o.doc] if doc else [])]
    pooled = [pl.lit(True).alias(POOLED)] if o.needs_pooled else []
    rows_df = rows.select(*columns, *pooled).collect()  # read three times below: once
    owners = [last, *o.gain_ranks]  # the columns whose largest rank decides an end row
    largest = rows_df.lazy().group_by(LIST).agg(
        pl.col(c).max().fill_null(0).alias(f"__largest{c}") for c in owners)
    short = {c: pl.col(f"__largest{c}") < pl.col(N_RET) for c in owners}
    length = pl.col(N_RET).cast(pl.Int64)
    ends = (
        largest.join(lists.select(LIST, N_RET), on=LIST, how="inner")
        .filter((pl.col(N_RET) > 0) & pl.any_horizontal(short.values()))
        .select(LIST, *(pl.when(short.get(c, short[last])).then(length).alias(c)
                        for c in rank_columns(o)),
                pl.lit(None, pl.Float64).alias(o.rel),
                *([pl.lit(False).alias(POOLED)] if o.needs_pooled else []))
    )
    out = in_rank_order(pl.concat([rows_df.lazy(), ends], how="diagonal_relaxed"), LIST, o)
    return out.collect().with_columns(pl.col(LIST).set_sorted()).lazy()


def in_rank_order(rows: pl.LazyFrame, numbers: str, o: Options) -> pl.LazyFrame:
    """``rows`` sorted by list (the integer column ``numbers``), then by rank.

    Sums then add up in trec_eval's order, the same whatever path ranked the rows;
    one UInt64 (list, rank) sorts several times faster than the two columns.
    """
    order = pl.col(numbers).cast(pl.UInt64) * 2**32 + pl.col(RANK).fill_null(
        2**32 - 1).cast(pl.UInt64)
    if o.ties == "expected":  # rows sharing a rank: by label
        return rows.sort(order, pl.col(o.rel), nulls_last=True)
    return rows.sort(order)

