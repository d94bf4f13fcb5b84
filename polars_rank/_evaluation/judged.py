"""Step 2 of an evaluation: the judged rows of every ranked list, with their ranks.

Only judged documents can change a metric; every other retrieved row only takes a
rank. So the ranking reaches the metrics as the frame :class:`Judged` holds, the
one intermediate frame between the steps and the output of
:func:`polars_rank.ranked`: per list, each judged row with its rank (null when the
run did not retrieve it) and the list's last retrieved row, whose rank is the
list's length. The metric expressions read it with ``rank=`` (positions mode of
:class:`~polars_rank._engine.ranked.Ranked`).

Two ways to rank, one result: ``ties="trec_eval"`` (and ``"trec_eval9"``) sorts one
integer key per run row (:mod:`polars_rank._evaluation.sorted_key`, where this Polars
can); every other policy is a window ranking of each list, here.
"""

from __future__ import annotations

import polars as pl

from polars_rank._engine.compat import HAS_BIT_CAST
from polars_rank._engine.ranked import tie_key
from polars_rank._engine.sort_keys import LABEL_TIES, TREC_TIES, rank_key, trec_score
from polars_rank._evaluation.checks import check_data, row_hash
from polars_rank._evaluation.judged_frame import Judged, rank_columns, with_list_ends
from polars_rank._evaluation.lists import list_code
from polars_rank._evaluation.options import (
    LIST,
    N_RET,
    RANK,
    RANK_LAST,
    TIE_FIRST,
    TIE_LAST,
    Options,
)
from polars_rank._evaluation.sorted_key import HASH, rank_by_sorted_key

__all__ = ["judged_rows"]

_ORDER = "__polars_rank_order"
_MATCHED = "__polars_rank_matched"


def judged_rows(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: Options,
                without_judgments: list[pl.DataFrame], *, doc: bool = False) -> Judged:
    """Rank the run's lists and keep their judged rows (validating the data on the way).

    ``without_judgments`` receives validation's summary of the run queries without judgments;
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
                                      without_judgments, code, doc=doc)
        run = run.drop(HASH)
    return _rank_by_window(run, qrels, o, without_judgments, doc=doc)


def _rank_by_window(run: pl.LazyFrame, qrels: pl.LazyFrame | None, o: Options,
                    without_judgments: list[pl.DataFrame], *, doc: bool) -> Judged:
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
        without_judgments.append(summary)
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
    if o.needs_tie_span:
        out += [score.rank("min", descending=True).over(keys).cast(pl.Int64).alias(TIE_FIRST),
                score.rank("max", descending=True).over(keys).cast(pl.Int64).alias(TIE_LAST)]
    return out


def _by_gain(score: pl.Expr, gain: pl.Expr, ties: str) -> pl.Expr:
    """The key ranking ``score`` (descending), ties by ``gain``: largest first when optimistic."""
    return pl.struct(score.alias("s"), (gain if ties == "optimistic" else -gain).alias("g"))
