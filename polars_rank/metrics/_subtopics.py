"""The machinery of the intent-aware (diversity) metrics: a list of (document, subtopic) rows.

Diversity judgments say which of a query's subtopics (intents, aspects) each document
is relevant to: TREC's diversity qrels ``qid subtopic docid rel``. The intent-aware
metrics read them as **one row per (document, subtopic) pair**, the join of a run with
such qrels on (query, document):

* ``rel``: the document's label for the row's subtopic (null: unjudged);
* ``subtopic``: the subtopic id (null on the one row of a retrieved document the
  qrels do not mention);
* ``doc``: the document id; every row of a document shares its score (``by``) or its
  position (``rank``), and so its rank; a null score: judged but not retrieved.

Rows, not a List column of per-subtopic labels: the join gives them as they are, a
document's subtopics need no common order across documents, and every quantity is a
plain expression of the rows (a window over the subtopic, ordered by rank), so the
metrics run in ``select``, ``group_by().agg()``, ``over()`` and with ``query=``.

Relevance is binary per subtopic, as ndeval's (TREC Web track, version 4.5, as
pyndeval 0.0.8 builds it: src/ndeval.c at seanmacavaney/pyndeval@acde21d): label >=
``threshold``. Ties are ndeval's as pyndeval calls it: equal scores by document id,
ascending (``ties="ndeval"``).
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.column_types import checked_key, checked_label
from polars_rank._engine.compat import any_true, group_sum
from polars_rank._engine.params import (
    INTENT_TIES,
    check_choice,
    check_real,
    check_threshold,
    to_expr,
    to_exprs,
)
from polars_rank._engine.ranked import NAN
from polars_rank._engine.rules import id_rules, label_rules, score_rules
from polars_rank._engine.sort_keys import rank_key, trec_score
from polars_rank._engine.summaries import summarize
from polars_rank._language.metric_spec import Option

if TYPE_CHECKING:
    from collections.abc import Callable

    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["ALPHA", "Intents", "check_alpha", "ideal_ideal", "nrbp_depth"]

_TIE_TOLERANCE = 1e-12  # equal greedy gains summed in another order differ by an ulp


ALPHA = Option("alpha", float, 0.5, description="redundancy intolerance (ndeval's)")
"""The intent-aware metrics' alpha (novelty.py and novelty_rbp.py), declared once."""


def check_alpha(alpha: object, name: str = "alpha") -> float:
    """Ndeval's alpha (redundancy intolerance) or beta (patience): a number in [0, 1]."""
    return check_real(alpha, name, low=0, high=1, allowed="a number in [0, 1]")


def ideal_ideal(n_intents: pl.Expr, alpha: float, depth: int,
                weight: Callable[[int], float]) -> pl.Expr:
    """Ndeval's "ideal ideal" normaliser at ``depth``: every subtopic at every rank.

    S * sum over ranks i <= depth of (1 - alpha)^(i-1) * weight(i): each rank holding a
    document relevant to all S subtopics (ndeval.c, computeDCG and computeERR).
    """
    total = math.fsum((1.0 - alpha) ** (i - 1) * weight(i) for i in range(1, depth + 1))
    return n_intents.cast(pl.Float64) * total


def nrbp_depth(beta: float) -> int:
    """The depth to which nNRBP follows its ideal ranking (see :func:`Intents.ideal`).

    Past rank d the ideal NRBP gains at most S beta^d / (1 - beta), against at least 1
    at rank 1: d makes that below 10^-12 for up to 16 subtopics (45 for beta = 0.5).
    """
    if beta == 0.0:
        return 1
    if beta == 1.0:
        msg = "beta=1: NRBP never discounts, nNRBP has no finite ideal depth; use beta < 1"
        raise ValueError(msg)
    return max(1, math.ceil(math.log(1e-12 / 16 * (1.0 - beta)) / math.log(beta)))


@dataclass(frozen=True)
class Intents:
    """One ranked list of (document, subtopic) rows (the evaluation context)."""

    labels: pl.Expr
    """Float64 labels, null = unjudged."""
    subtopic: pl.Expr
    doc: pl.Expr
    rank: pl.Expr
    """The row's document's rank (Int64, 1-based), null when not retrieved."""
    placed: pl.Expr
    """What every row of a document must share: its score or its given position."""
    query: tuple[pl.Expr, ...]
    score: pl.Expr | None
    positions: bool
    threshold: float

    @classmethod
    def build(cls, rel: IntoExpr, *, subtopic: IntoExpr, doc: IntoExpr,
              by: IntoExpr | None, rank: IntoExpr | None, descending: bool,
              ties: str, query: Query, threshold: float) -> Intents:
        """Validate the common parameters and rank the documents."""
        threshold = check_threshold(threshold)
        labels = (checked_label(to_expr(rel, "rel")) * 1.0).cast(pl.Float64)
        # a literal (pl.lit(1): one subtopic for all) broadcast to the rows
        sub = pl.when(labels.is_null() | labels.is_not_null()).then(to_expr(subtopic,
                                                                            "subtopic"))
        doc_expr = to_expr(doc, "doc")
        check_choice(ties, "ties", INTENT_TIES)
        if not isinstance(descending, bool):
            msg = f"descending must be a bool, got {descending!r}"
            raise TypeError(msg)
        query_exprs = () if query is None else to_exprs(query, "query")
        if rank is not None and by is None:
            given = to_expr(rank, "rank")
            return cls(labels, sub, doc_expr, given.cast(pl.Int64), given, query_exprs,
                       None, True, threshold)
        if by is None or rank is not None:
            msg = ("an intent-aware metric needs by= (the score, all rows of a document "
                   "sharing it) or rank= (the document's position on each of its rows), "
                   "not both")
            raise TypeError(msg)
        score = checked_key(to_expr(by, "by"))  # a text score would be parsed
        key = trec_score(score, ties)  # trec_eval 10: 64-bit, as ndeval
        text = doc_expr.cast(pl.String)
        folded, down = rank_key([key, text], [descending, ties == "trec_eval"])
        ranks = folded.rank("dense", descending=down).cast(pl.Int64)
        return cls(labels, sub, doc_expr, pl.when(score.is_not_null()).then(ranks), score,
                   query_exprs, score, False, threshold)

    # ------------------------------------------------------------------ rows
    def relevant(self) -> pl.Expr:
        """1.0 where the row's document is relevant to the row's subtopic, else 0.0."""
        return ((self.labels >= self.threshold) & self.subtopic.is_not_null()).fill_null(
            False).cast(pl.Float64)

    def shown(self, k: int | None = None) -> pl.Expr:
        """True on the rows of documents retrieved within the cutoff."""
        inside = self.rank.is_not_null()
        return inside if k is None else inside & (self.rank <= k)

    def found(self, k: int | None = None) -> pl.Expr:
        """1.0 on relevant rows retrieved within k, else 0.0."""
        return pl.when(self.shown(k)).then(self.relevant()).otherwise(0.0)

    def seen(self) -> pl.Expr:
        """Relevant retrieved rows of the row's subtopic at earlier ranks (novelty count).

        A running count per subtopic in rank order. Polars allows no window ordered by
        a computed rank inside a ``group_by`` context, so: the rows sorted by
        (subtopic, rank), the running count of the sorted hits less its value where
        the row's subtopic starts (whole numbers: exact), put back in row order.
        """
        sub = self.subtopic.rank("dense").fill_null(0).cast(pl.Int64)
        order = pl.struct(sub.alias("s"), self.rank.fill_null(2**62).alias("r")).arg_sort()
        # + 0.0: on an empty group Polars 2.1 gathers a Null column, which cum_sum rejects
        hits = self.found().gather(order) + 0.0
        before = hits.cum_sum() - hits
        first = sub.gather(order).rank("min").cast(pl.Int64) - 1  # sorted: the start
        return (before - before.gather(first)).gather(order.arg_sort()) + 0.0

    def subtopic_total(self, values: pl.Expr) -> pl.Expr:
        """Each row's sum of whole-number ``values`` over the rows of its subtopic.

        A sort by subtopic and differences of a running sum (exact on whole numbers),
        not a window: the subtopic may be any expression (see :meth:`seen`).
        """
        sub = self.subtopic.rank("dense").fill_null(0).cast(pl.Int64)
        order = sub.arg_sort()
        ordered = values.gather(order) + 0.0  # see seen()
        sums = ordered.cum_sum()
        by_sub = sub.gather(order)
        start = by_sub.rank("min").cast(pl.Int64) - 1
        end = by_sub.rank("max").cast(pl.Int64) - 1
        return (sums.gather(end) - sums.gather(start) + ordered.gather(start)).gather(
            order.arg_sort()) + 0.0

    def novel_gain(self, alpha: float, k: int | None = None) -> pl.Expr:
        """(1 - alpha)^seen on relevant rows retrieved within k, else 0: ndeval's gain."""
        return self.found(k) * pl.lit(1.0 - alpha).pow(self.seen())

    def n_intents(self) -> pl.Expr:
        """S: the subtopics with a relevant document (ndeval's actualSubtopics)."""
        return self.subtopic.filter(self.relevant() > 0).n_unique()

    def n_retrieved(self) -> pl.Expr:
        """Documents retrieved: the largest rank (0 when none)."""
        return self.rank.max().fill_null(0)

    def rank_sum(self, values: pl.Expr, weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """Sum of ``values * weight(rank)`` (``values`` 0 where not shown)."""
        return group_sum((values * weight(self.rank.cast(pl.Float64))).fill_null(0.0))

    # ------------------------------------------------------------------ the ideal
    def ideal(self, alpha: float, depth: int, weight: Callable[[int], float]) -> pl.Expr:
        """Sum over ranks t <= depth of g*_t weight(t): ndeval's greedy ideal ranking.

        ndeval (idealResult) ranks the judged documents greedily: at each rank, the
        one adding the most gain sum_j (1 - alpha)^(documents above it relevant to j)
        over the subtopics j it is relevant to, ties to the largest document id (byte
        order); exact maximisation is NP-hard (Clarke et al., SIGIR 2008). The greedy
        is sequential, so the expression unrolls it: one step per rank, each a few
        aggregations over the list's relevant rows, the state (the picks and each
        row's novelty count) carried in a struct.

        Each step is its own ``list.eval`` over the previous step's list: inside it the
        state is ``pl.element()``, a leaf, so the expression grows linearly with
        ``depth``. Written as one ``list.eval`` whose steps refer to the step before,
        Polars 1.36 copies the previous state into every field reference and the plan
        grows exponentially (out of memory at depth 4). Steps run in ``list.eval``
        because a lazy ``group_by`` rejects aggregations within ``struct.with_fields``
        in its own context (Polars 2.1).
        """
        keep = self.relevant() > 0
        key = self.doc.cast(pl.String).filter(keep)
        codes = key.rank("dense").cast(pl.Int64).sort_by(key, maintain_order=True)
        subs = self.subtopic.filter(keep).rank("dense").cast(pl.Int64).sort_by(
            key, maintain_order=True)
        first = codes.rank("min").cast(pl.Int64) - 1
        members = pl.int_ranges(first, codes.rank("max").cast(pl.Int64))
        field = pl.field
        q = 1.0 - alpha
        # a last row that is never open (c = -1): the list is never empty, which Polars
        # 1.36's list.eval in a group_by turns into a list[null] and panics on
        never = pl.lit(-1, pl.Int64)
        d = codes.append(never)
        rows = pl.struct(d=d, s=subs.append(never),
                         m=members.append(pl.lit([], pl.List(pl.Int64))),
                         c=pl.when(d >= 0).then(0).otherwise(never), total=pl.lit(0.0))
        state = rows.implode()
        for t in range(1, depth + 1):
            open_ = field("c") >= 0  # c = -1: the row's document is ranked already
            gain = pl.when(open_).then(pl.lit(q).pow(field("c"))).otherwise(0.0)
            doc_gain = gain.implode().list.gather(field("m")).list.sum()
            best = doc_gain.filter(open_).max()
            chosen = field("d").filter(open_ & (doc_gain >= best * (1.0 - _TIE_TOLERANCE)))
            hit = field("d") == chosen.max()
            covered = field("s").is_in(field("s").filter(hit).implode()).cast(pl.Int64)
            state = state.list.eval(pl.element().struct.with_fields(
                c=pl.when(hit).then(-1).when(open_).then(field("c") + covered)
                .otherwise(field("c")),
                total=field("total") + best.fill_null(0.0) * weight(t),
            ))
        totals = state.list.eval(pl.element().struct.field("total"))
        return totals.list.first().fill_null(0.0)

    # ------------------------------------------------------------------ finishing
    def bad(self) -> pl.Expr:
        """True when the list holds a value no metric can score."""
        rules = label_rules(self.labels) + id_rules(list(self.query), self.doc)
        if self.score is not None:
            rules += score_rules(self.score)
        flag = functools.reduce(operator.or_, (mask for _, mask in rules))
        out = pl.lit(False)
        if self.positions:
            first = self.placed.cast(pl.Float64)
            flag = flag | (first < 1) | (first != first.floor())
            # one document a position
            retrieved = self.doc.filter(self.rank.is_not_null()).n_unique()
            out = self.rank.drop_nulls().n_unique() != retrieved
        out = out | any_true(flag)
        # a (document, subtopic) pair twice, or a document whose rows disagree on its place
        pairs = pl.struct(self.doc.alias("d"), self.subtopic.alias("s"))
        out = out | any_true(pairs.is_duplicated())
        placed = pl.struct(self.doc.alias("d"), self.placed.alias("p")).n_unique()
        return out | (placed != self.doc.n_unique())

    def finish(self, value: pl.Expr) -> pl.Expr:
        """NaN for unscorable lists, the mean over queries with ``query=``."""
        out = pl.when(self.bad()).then(pl.lit(NAN)).otherwise(value.cast(pl.Float64))
        if self.query:
            per_query = out.over(list(self.query), mapping_strategy="explode")
            out = summarize(per_query, "mean").median()  # see Ranked.finish
        return out.cast(pl.Float64)
