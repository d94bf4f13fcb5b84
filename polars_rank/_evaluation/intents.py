"""The intent-aware metrics of an evaluation: the run against diversity qrels.

Diversity qrels hold a row per (query, subtopic, document). The other metrics read
them collapsed to one row per (query, document) with the largest label, a document
relevant to any subtopic being relevant to the query (ndeval's own MAP reads them so;
trec_eval 10.0 refuses such qrels: "duplicate docs", form_res_rels.c). The
intent-aware metrics read every row: each list's retrieved documents ranked (equal
scores by document id, ascending, as ndeval ranks the runs ir_measures gives it;
``ties="first"``: the run's row order), joined with the subtopic rows of its query,
plus the judged documents it did not retrieve, then the metric expressions in
positions mode (``rank=``), one ``group_by`` over the lists.
"""

from __future__ import annotations

import polars as pl

from polars_rank._engine.rules import label_rules
from polars_rank._engine.sort_keys import rank_key
from polars_rank._evaluation.options import RANK, Options
from polars_rank.errors import InvalidDataError

__all__ = ["collapsed", "intent_values", "check_subtopics"]

SUBTOPIC = "__polars_rank_subtopic"


def collapsed(qrels: pl.LazyFrame, o: Options) -> pl.LazyFrame:
    """One row per (query, doc), the largest label: what the other metrics read."""
    if o.subtopic is None:
        return qrels
    return qrels.group_by(o.query, o.doc).agg(pl.col(o.rel).max())


def check_subtopics(qrels: pl.LazyFrame, o: Options) -> None:
    """Raise :class:`InvalidDataError` for a bad label or a repeated subtopic row."""
    if o.subtopic is None:
        return
    label = pl.col(o.rel).cast(pl.Float64)
    rules = [*label_rules(label),
             ("duplicate (query, subtopic, doc) rows",
              pl.struct(o.query, o.subtopic, o.doc).is_duplicated())]
    found = qrels.select(
        pl.col(o.query).filter(mask.fill_null(False)).first().alias(str(i))
        for i, (_, mask) in enumerate(rules)).collect()
    for i, (problem, _) in enumerate(rules):
        where = found[str(i)][0]
        if where is not None:
            msg = f"{problem} in qrels (query {where!r})"
            raise InvalidDataError(msg)


def intent_values(run: pl.LazyFrame, qrels: pl.LazyFrame, o: Options) -> pl.LazyFrame:
    """One row per list whose query has judgments: the keys and each intent metric."""
    keys, query, doc = o.keys, o.query, o.doc
    retrieved = run.filter(pl.col(o.score).is_not_null()).select(*keys, doc, o.score)
    if o.ties == "first":  # the run's row order within each list
        rank = pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(keys)
    else:  # ndeval's: score (64-bit), then doc id ascending (byte order)
        score = pl.col(o.score).cast(pl.Float64) + 0.0
        key, down = rank_key([score, pl.col(doc).cast(pl.String)], [True, False])
        rank = key.rank("ordinal", descending=down).over(keys).cast(pl.Int64)
    ranked = retrieved.with_columns(rank.alias(RANK)).drop(o.score)
    subtopic = pl.col(o.subtopic) if o.subtopic is not None else pl.lit("0")
    judged = qrels.select(query, doc, o.rel, subtopic.cast(pl.String).alias(SUBTOPIC))
    lists = ranked.select(keys).unique().join(judged.select(query).unique(), on=query,
                                              how="semi")
    shown = ranked.join(lists, on=keys, how="semi").join(judged, on=[query, doc], how="left")
    missed = (lists.join(judged, on=query, how="inner")
              .join(ranked.select(*keys, doc), on=[*keys, doc], how="anti"))
    rows = pl.concat([shown, missed], how="diagonal_relaxed")
    return rows.group_by(keys).agg(
        m.expr(o.rel, subtopic=SUBTOPIC, doc=doc, rank=RANK).alias(name)
        for name, m in o.intents)
