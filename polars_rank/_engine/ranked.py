"""The machinery every metric is built on: one ranked list as Polars expressions.

A metric expression is evaluated in some *context*: a ``group_by`` group, a window
partition, or a whole frame. :class:`Ranked` describes that context as one ranked
list (or, with ``query=``, as many lists whose metric values are averaged), in one
of two modes, chosen once when the expression is built:

* **keys** (``by=``): the context's rows are ranked by the keys, so every metric
  sorts (or ranks) its list itself: one-line expressions, self-contained.
* **positions** (``rank=``): the rows already carry their 1-based position in the
  list (a ranking step ran before, once for every metric: :func:`polars_rank.ranked`
  or ``rank("ordinal").over(query)``), so most metrics are plain sums, counts and
  minima of row contributions, Polars' fast aggregations, and none sorts. A list may
  omit unjudged rows (they only occupy ranks); its length is its largest rank.

In both modes:

* rows without a rank (a null first ranking key, a null position) are *judged but
  not retrieved*: they count for the ideal ranking and for the number of relevant
  documents, and never take a rank;
* null relevance is *unjudged*: gain 0, never relevant, not a judged non-relevant;
* a list holding data no metric can score (negative or non-finite relevance, a NaN
  ranking key, a position below 1, ...) evaluates to NaN, so a mean over it is NaN.

Everything is a plain Polars expression, so it runs in ``select``,
``group_by().agg()``, ``over()``, lazily and on the streaming engine.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.column_types import checked_keys, checked_label
from polars_rank._engine.compat import PREPARED_RANKS, TOP_ROWS, any_true, group_sum
from polars_rank._engine.params import (
    EMPTY,
    TIES,
    UNSET,
    check_choice,
    check_descending,
    check_k,
    to_expr,
    to_exprs,
)
from polars_rank._engine.rules import id_rules, label_rules, score_rules
from polars_rank._engine.sort_keys import LABEL_TIES, TREC_TIES, rank_key, sort_by, trec_score
from polars_rank._engine.summaries import summarize
from polars_rank._engine.sums import ordered_sum

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._engine.summaries import Summary

NAN = float("nan")
_RANK_TABLE_MAX = 10_000  # the largest cutoff k whose ranks 1..k are a literal


class RankColumn(str):
    """``rank=`` as :func:`polars_rank.evaluate` passes it: its judged rows' rank column.

    Private (the public ``rank=`` is a column name, an expression or a pair). Its rows
    come in rank order within each list: the retrieved ones by rank, ascending, then
    the judged rows not retrieved (:func:`polars_rank._evaluation.judged_frame.in_rank_order`),
    so a metric reads its values in rank order without sorting them (a sort per list
    and per metric: ``-m all_trec`` sorted each list about a hundred times).
    ``checked``: the data passed evaluate()'s checks (its ``validate=True``), so no list
    is unscorable and no metric tests its own list again.

    The other fields name columns computed once for every metric of the evaluation
    (:func:`polars_rank._evaluation.scoring.per_list`), from the label column
    ``labels``: a metric reading those labels reads them instead of computing each
    its own (Polars shares no sub-expression between the expressions of a
    ``group_by``): ``relevant``, per threshold, the list's relevant rows (R, on every
    row: comparing each row with a list's number costs a per-list broadcast, a row's
    own column does not); ``hits``, per threshold, the relevant retrieved rows at or
    above each row; ``precisions``, per threshold, the precision i / rank at the i-th
    relevant retrieved row (null on the others); ``precision_sums``, their sum over the
    rows at or above each row, added in rank order (trec_eval's average precision,
    m_map.c); ``ideal``, each list's labels sorted descending,
    unjudged last (the ideal ranking's labels, row by row); ``longest``, the length of
    the longest list (a table of powers p^0..p^longest, built once, serves them all).
    """

    checked: bool
    labels: str | None
    relevant: Mapping[float, str]
    hits: Mapping[float, str]
    precisions: Mapping[float, str]
    precision_sums: Mapping[float, str]
    ideal: str | None
    longest: int | None

    def __new__(cls, name: str, *, checked: bool, labels: str | None = None,
                relevant: Mapping[float, str] | None = None,
                hits: Mapping[float, str] | None = None,
                precisions: Mapping[float, str] | None = None,
                precision_sums: Mapping[float, str] | None = None,
                ideal: str | None = None, longest: int | None = None) -> RankColumn:
        out = super().__new__(cls, name)
        out.checked = checked
        out.labels = labels
        out.relevant = dict(relevant or {})
        out.hits = dict(hits or {})
        out.precisions = dict(precisions or {})
        out.precision_sums = dict(precision_sums or {})
        out.ideal = ideal
        out.longest = longest
        return out


@functools.cache
def _rank_table(k: int) -> pl.Series:
    """The ranks 1..k (Int64), built once per cutoff."""
    return pl.int_range(1, k + 1, dtype=pl.Int64, eager=True)


def tie_key(labels: pl.Expr, gain: pl.Expr | None = None) -> pl.Expr:
    """What ``ties="optimistic"`` / ``"pessimistic"`` order tied rows by, largest first / last.

    A sum over ranks of row gains times a non-increasing discount (DCG, P@k, RBP,
    ...) is largest with the larger gains first, and smallest with them last (the
    rearrangement inequality), so the policies are the best and the worst order of
    the tied rows for every such metric. The key is the metric's row gain where it
    gives one (a gain table's, which may put a judged label below another or below
    an unjudged row's 0: :meth:`Ranked.by_gain`), else the label with unjudged lowest:
    that order refines relevance (label >= threshold) for any threshold, and every
    gain that grows with the label and is 0 for unjudged rows and label 0. Unjudged
    as -1, not 0: a judged 0 is relevant with ``threshold=0`` (every judged row
    relevant, MS Recommenders' convention), an unjudged row never.
    """
    return labels.fill_null(-1.0) if gain is None else gain


@dataclass(frozen=True)
class Ranked:
    """One ranked list (the evaluation context), seen through a ranking."""

    labels: pl.Expr
    """Relevance (or clicks) as Float64, null = unjudged."""
    keys: tuple[pl.Expr, ...] = ()
    """Keys mode: ranking keys, the first decides retrieval (null = not retrieved);
    empty (and no ``rank``) = row order."""
    descending: tuple[bool, ...] = ()
    ties: str = "first"
    query: tuple[pl.Expr, ...] = ()
    rank: pl.Expr | None = None
    """Positions mode: each row's 1-based position (null = not retrieved); with
    :attr:`rank_last`, the first position of the row's tie group."""
    rank_last: pl.Expr | None = None
    """Positions mode, ``ties="expected"``: the last position of the row's tie group."""
    doc: pl.Expr | None = None
    """Document ids (``doc=``): a list repeating one is unscorable."""
    score: pl.Expr | None = None
    """The first ranking key as given (``keys[0]`` may be the form trec_eval compares)."""
    columns_only: bool = False
    """Keys mode: the labels, keys and doc ids are plain columns (see :meth:`ordered`)."""
    gain: pl.Expr | None = None
    """Each row's gain as the metric computes it (:meth:`by_gain`), the key that
    ``ties="optimistic"`` / ``"pessimistic"`` order tied rows by; None: the label."""
    rank_ordered: bool = False
    """Positions mode: the rows come in rank order, the ones not retrieved last
    (:class:`RankColumn`): values are in rank order as they are."""
    checked: bool = False
    """The data passed :func:`polars_rank.evaluate`'s checks: no list is unscorable."""
    prepared: RankColumn | None = None
    """Columns computed for every metric from these labels (:class:`RankColumn`)."""
    longest: int | None = None
    """Positions mode: no list is longer (:class:`RankColumn`); None: not known."""

    @classmethod
    def build(
        cls,
        rel: IntoExpr,
        *,
        by: By | Unset,
        descending: bool | Sequence[bool],
        ties: str | None,
        query: Query,
        rank: Rank = None,
        doc: IntoExpr | None = None,
    ) -> Ranked:
        """Validate the common parameters and describe the list."""
        rel_expr = to_expr(rel, "rel")
        if by is UNSET:
            if rank is None:
                msg = ("a metric needs by= (the column to rank by, e.g. a score, highest "
                       "first) or rank= (each row's position); by=None ranks the rows in "
                       "their current order")
                raise TypeError(msg)
            by = None
        doc_expr = None if doc is None else to_expr(doc, "doc")
        if ties is None:
            ties = default_ties(by=by, rank=rank, doc=doc_expr)
        check_choice(ties, "ties", TIES)
        query_exprs = () if query is None else to_exprs(query, "query")
        # `* 1.0`, not a cast: a text label fails when the plan is resolved ("arithmetic
        # on dtypes str and dyn float") where a cast would parse "1"; it costs the same
        labels = (checked_label(rel_expr) * 1.0).cast(pl.Float64)
        if rank is not None:
            if by is not None:
                msg = ("give either by= (rank each list here) or rank= (positions ranked "
                       "before), not both")
                raise ValueError(msg)
            if ties != "first":
                msg = (f"ties={ties!r} with rank=: the ranking step decides ties; for "
                       "ties='expected' pass its tie spans, rank=('rank', 'rank_last') "
                       "from polars_rank.ranked(..., ties='expected')")
                raise ValueError(msg)
            first, last = _rank_columns(rank)
            # Polars 1.x: the marked column gave wrong numbers there (an nDCG@5 of
            # 0.52 for 0.89, tests/test_evaluate.py::test_run_with_labels_and_no_qrels),
            # so it is read as a plain rank column, as before RankColumn
            prepared = rank if isinstance(rank, RankColumn) and PREPARED_RANKS else None
            # its columns hold the labels' numbers: not those of labels rewritten here
            same = (prepared is not None and prepared.labels is not None
                    and rel_expr.meta.eq(pl.col(prepared.labels)))
            return cls(labels, (), (), "expected" if last is not None else "first",
                       query_exprs, first, last, doc=doc_expr,
                       rank_ordered=prepared is not None,
                       checked=prepared is not None and prepared.checked,
                       prepared=prepared if same else None,
                       longest=None if prepared is None else prepared.longest)
        keys = () if by is None else to_exprs(by, "by")
        desc = check_descending(descending, max(len(keys), 1))[: len(keys)]
        if ties == "expected" and not keys:
            msg = "ties='expected' needs a ranking key `by` (without one, rows cannot tie)"
            raise ValueError(msg)
        given = [rel_expr, *keys, *([] if doc_expr is None else [doc_expr])]
        columns_only = all(e.meta.is_column() for e in given)
        keys = checked_keys(keys)  # a text key: InvalidDataError naming it, at plan time
        score = keys[0] if keys else None
        if ties in TREC_TIES:
            if doc_expr is None or not keys:
                msg = (f"ties={ties!r} orders equal scores by document id, descending: "
                       "it needs by= (the score) and doc= (the document id column)")
                raise ValueError(msg)
            # trec_eval compares scores as doubles (9: floats) and doc ids as text, byte-wise
            keys = (trec_score(keys[0], ties), *keys[1:], doc_expr.cast(pl.String))
            desc = (*desc, True)
            ties = "first"
        return cls(labels, keys, desc, ties, query_exprs, doc=doc_expr, score=score,
                   columns_only=columns_only)

    # ------------------------------------------------------------------ whole list
    def gains(self) -> pl.Expr:
        """Labels with unjudged as 0."""
        return self.labels.fill_null(0.0)

    def by_gain(self, gain: pl.Expr) -> Ranked:
        """The list, ``ties="optimistic"`` / ``"pessimistic"`` ordering tied rows by ``gain``.

        A metric whose row gain is not a non-decreasing function of the label, with
        unjudged rows at the bottom, says so here: a gain table may give a judged label
        less than another label, or less than an unjudged row's 0 (``gains={0: -2}``).
        """
        return replace(self, gain=gain)

    def relevance_order(self) -> pl.Expr:
        """The key of ``ties="optimistic"`` / ``"pessimistic"`` (:func:`tie_key`)."""
        return tie_key(self.labels, self.gain)

    def relevant(self, threshold: float) -> pl.Expr:
        """1.0 where the label is >= threshold, 0.0 otherwise (unjudged: 0.0)."""
        return (self.labels >= threshold).fill_null(False).cast(pl.Float64)

    def hits(self, k: int | None, threshold: float) -> pl.Expr:
        """1.0 / 0.0 relevance in rank order, first k, 0.0 on rows not retrieved."""
        ordered = self.ordered(self.relevant(threshold), k)
        return pl.when(self.retrieved(k)).then(ordered).otherwise(0.0)

    def n_relevant(self, threshold: float) -> pl.Expr:
        """Number of relevant rows, retrieved or not (R)."""
        by_row = self._prepared_column("relevant", threshold)
        return self.relevant(threshold).sum() if by_row is None else by_row.first()

    def n_relevant_by_row(self, threshold: float) -> pl.Expr:
        """R to compare rows with: on every row when prepared, else the list's number."""
        by_row = self._prepared_column("relevant", threshold)
        return self.n_relevant(threshold) if by_row is None else by_row

    def n_retrieved(self) -> pl.Expr:
        """Length of the ranked list: retrieved rows (keys), the largest rank (positions)."""
        if self.rank is not None:
            return self.bounds()[1].max().fill_null(0)
        # is_not_null().sum(), not count(): Polars 1.36 counts the nulls of a per-list
        # key in a group_by (by=pl.col("s").rank(); the canary in bad() below)
        return self.keys[0].is_not_null().sum() if self.keys else pl.len()

    def bad(self, *extra: pl.Expr) -> pl.Expr:
        """True when the list holds a value no metric can score.

        A mask is tested with :func:`~polars_rank._engine.compat.any_true`, not
        ``mask.any()`` (a Polars 1.36 workaround): its masks come from per-list
        expressions, a ``rank()`` (``unjudged="condensed"`` re-ranks ``rank=`` with
        one; a user's ``rank=pl.col("s").rank()`` or ``by=``) or an
        ``is_duplicated()``. It costs nothing measurable (docs/performance.md,
        "Behind the code").
        """
        if self.checked and not extra:
            return pl.lit(False)
        rules = label_rules(self.labels) + id_rules(list(self.query), self.doc)
        if self.score is not None:
            rules += score_rules(self.score)
        flag = functools.reduce(operator.or_, (mask for _, mask in rules))
        if self.rank is not None:  # positions are whole numbers >= 1 (null: not retrieved)
            first = self.rank.cast(pl.Float64)
            flag = flag | (first < 1) | (first != first.floor())
            if self.rank_last is not None:
                flag = flag | (self.rank_last.cast(pl.Float64) < first)
        for e in extra:
            flag = flag | e
        out = any_true(flag) | self._type_probe()
        if self.doc is not None:  # a document twice in one list
            out = out | any_true(self.doc.is_duplicated())
        if self.rank is not None and self.rank_last is None:
            # distinct positions 1..n: at least as large a largest one as there are
            # positions (catches dense ranks; rank("ordinal") and ranked() give distinct).
            # is_not_null().sum(), not count(): in a group_by, Polars 1.36 counts the
            # nulls of a rank() result too (judged_only re-ranks with one)
            out = out | (self.rank.max() < self.rank.is_not_null().sum())
        return out

    def _type_probe(self) -> pl.Expr:
        """False, but a text score makes the plan fail when it is resolved.

        ``x * 1.0`` is "arithmetic on dtypes str and dyn float", an error before any
        row is read, where a sort would put "9.0" above "10.0". It reads one value
        per list: multiplying every row cost a one-line ``group_by`` of five metrics
        15-20% at 1M rows (Polars 2.1, measured; docs/performance.md).
        """
        if self.score is None:
            return pl.lit(False)
        # dates and numbers rank (a date's physical value is its day number); a NaN
        # first score is a bad value anyway: the probe adds no rule
        return (self.score.first().to_physical() * 1.0).is_nan().fill_null(False)

    # ------------------------------------------------------------------ positions
    def bounds(self) -> tuple[pl.Expr, pl.Expr]:
        """``ties="expected"``: (first, last) rank of each row's tie group, input order.

        Rows with equal keys share a block of ranks; every order of a group being
        equally likely, each of its rows is at each of its ranks with probability
        1 / (last - first + 1) (McSherry & Najork, ECIR 2008). Null: not retrieved.
        """
        if self.rank is not None:
            last = self.rank if self.rank_last is None else self.rank_last
            return self.rank.cast(pl.Int64), last.cast(pl.Int64)
        key, down = rank_key(list(self.keys), list(self.descending))
        lo = self._retrieved_only(key.rank("min", descending=down).cast(pl.Int64))
        hi = self._retrieved_only(key.rank("max", descending=down).cast(pl.Int64))
        return lo, hi

    def _retrieved_only(self, ranks: pl.Expr) -> pl.Expr:
        """``ranks`` where the first key is not null (a struct key ranks null rows too)."""
        if len(self.keys) == 1:
            return ranks  # a single key's rank is null where the key is
        return pl.when(self.keys[0].is_not_null()).then(ranks)

    # ------------------------------------------------------------------ rank order
    def ordered(self, values: pl.Expr, k: int | None = None) -> pl.Expr:
        """``values`` in rank order (retrieved first, then unretrieved), first ``k``.

        Keys mode cuts the list at ``k``; positions mode keeps every row (its ranks
        need not be contiguous), aligned with :meth:`positions` and masked by
        :meth:`retrieved`.

        Count and sum values *before* ordering them, never ``ordered(v).sum()`` or
        ``.len()`` (nor of ``v.sort()``) beside another use of the ordered values: Polars
        2.1's in-memory engine drops the sort from an order-free aggregate that occurs
        twice, and its common-subexpression elimination then hands the other uses the
        unsorted values too (G and compat came out wrong in a ``select``; the canary
        ``test_a_shared_count_of_a_sorted_list_still_unsorts_it_in_memory`` tells when
        it no longer does).
        """
        if self.rank is not None:
            return self.in_rank_order(values)
        out = values
        if self.keys:
            keys = list(self.keys)
            desc = list(self.descending)
            if self.ties in LABEL_TIES:
                keys.append(self.relevance_order())
                desc.append(self.ties == "optimistic")
            out = sort_by(values, keys, desc)
        if k is None:
            return out
        # head(k) lets Polars sort only the first k (a "limit" in the plan; without it
        # a five-metric group_by took longer: docs/performance.md). Polars 2.1 panics on
        # that sort in a group_by or window, or gets it wrong, when a key or the values
        # are per-list expressions (by=pl.col("s").rank(), or s - s.mean()): those take
        # head(min(n, k)), the same rows without the limit (the canary
        # test_a_limited_sort_by_a_rank_in_a_group_by_still_goes_wrong tells when not needed)
        return out.head(k) if self.columns_only else out.head(self.depth(k))

    def in_rank_order(self, values: pl.Expr, ranks: pl.Expr | None = None) -> pl.Expr:
        """Positions mode: ``values`` sorted by rank, the rows not retrieved last.

        ``ranks``: the ranks of ``values`` when they are some of the rows (filtered).
        """
        assert self.rank is not None
        if self.rank_ordered:
            return values
        by = self.rank if ranks is None else ranks
        return values.sort_by(by, nulls_last=True, maintain_order=True)

    def _prepared_column(self, kind: str, threshold: float) -> pl.Expr | None:
        """The :class:`RankColumn` column ``kind`` at ``threshold``, when computed."""
        if self.prepared is None:
            return None
        column = getattr(self.prepared, kind).get(threshold)
        return None if column is None else pl.col(column)

    def prepared_hits(self, threshold: float) -> pl.Expr | None:
        """The relevant retrieved rows at or above each row, when computed (RankColumn)."""
        return self._prepared_column("hits", threshold)

    def prepared_precision(self, threshold: float) -> pl.Expr | None:
        """The precision i / rank at the i-th relevant retrieved row (null on others)."""
        return self._prepared_column("precisions", threshold)

    def prepared_precision_sum(self, threshold: float) -> pl.Expr | None:
        """The precisions at the relevant rows so far, added in rank order, when computed."""
        return self._prepared_column("precision_sums", threshold)

    def prepared_ideal(self) -> pl.Expr | None:
        """The list's labels sorted descending (unjudged last), when computed."""
        if self.prepared is None or self.prepared.ideal is None:
            return None
        return pl.col(self.prepared.ideal).cast(pl.Float64)

    def sorted_ranks(self, ranks: pl.Expr) -> pl.Expr:
        """``ranks`` (the rank column, or part of it filtered) ascending, nulls last."""
        return ranks if self.rank_ordered else ranks.sort(nulls_last=True)

    def positions(self, k: int | None = None) -> pl.Expr:
        """Ranks aligned with ``ordered(values, k)`` (null on rows not retrieved)."""
        if self.rank is not None:
            return self.sorted_ranks(self.rank).cast(pl.Int64)
        return self.ideal_positions(k)

    def retrieved(self, k: int | None = None) -> pl.Expr:
        """Mask aligned with ``ordered(values, k)``: True on retrieved rows within k."""
        if self.rank is not None:
            ranks = self.positions()
            inside = ranks.is_not_null()
            return inside if k is None else inside & (ranks <= k)
        return self.positions(k) <= self.n_retrieved()

    @staticmethod
    def depth(k: int | None = None) -> pl.Expr:
        """min(n, k): how many of the context's n rows rank within the cutoff k."""
        return pl.len() if k is None else pl.min_horizontal(pl.len(), pl.lit(k, pl.UInt32))

    @staticmethod
    def ideal_positions(k: int | None = None) -> pl.Expr:
        """Ranks 1..min(n, k) of the context's rows (the ideal ordering).

        With a cutoff, the first min(n, k) of a literal 1..k: in a ``group_by`` or
        window, ``int_range`` builds a range per list, several times slower
        (docs/performance.md, "Behind the code").
        """
        if k is not None and k <= _RANK_TABLE_MAX:
            return pl.lit(_rank_table(k)).head(Ranked.depth(k))
        return pl.int_range(1, Ranked.depth(k) + 1, dtype=pl.Int64)

    # ------------------------------------------------------------------ sums over ranks
    def rank_sum(self, values: pl.Expr, k: int | None = None,
                 term: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None,
                 term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None) -> pl.Expr:
        """Sum over the retrieved ranks p <= k of ``term(value at rank p, p)``.

        ``term`` (default: the value) must be linear in the value, as the terms of
        DCG, P@k, R@k, RBP and CTR are. Positions mode sums each row's term where
        its rank is within k: no sort. With ``ties="expected"`` it is the exact mean
        over tie orders, without sorting the values: each row of a tie group holding
        ranks lo..hi is at each of them with probability 1/(hi - lo + 1), so it
        contributes its value times the mean of ``term(1, p)`` over lo..hi:
        ``term_sum(lo, hi)`` when the sum has a closed form (empty when hi < lo),
        else prefix sums of the terms over the ranks.
        """
        apply = term if term is not None else (lambda v, _p: v)
        if self.ties == "expected" and k is not None and self.top_rows_apply():
            top = self._expected_top_sum(values, k, apply, term_sum)
            if top is not None:
                return top
        if self.ties == "expected":
            lo, hi = self.bounds()
            n_ret = self.n_retrieved().cast(pl.Int64)
            limit = n_ret if k is None else pl.min_horizontal(n_ret, pl.lit(k, pl.Int64))
            if term_sum is not None:
                last = pl.min_horizontal(hi, limit)
                total = pl.when(last >= lo).then(term_sum(lo, last)).otherwise(0.0)
            else:
                table = self.prefix_sums(lambda p: apply(pl.lit(1.0), p), limit)
                total = table.gather(hi) - table.gather(lo - 1)
            mean_term = total / (hi - lo + 1).cast(pl.Float64)
            return order_free_sum((values * mean_term).fill_null(0.0))
        if self.rank is not None:
            rank = self.rank
            inside = rank.is_not_null() if k is None else rank <= k
            return group_sum(pl.when(inside).then(apply(values, rank)).otherwise(0.0))
        ranked = pl.when(self.retrieved(k)).then(self.ordered(values, k)).otherwise(0.0)
        return group_sum(apply(ranked, self.positions(k)).fill_null(0.0))

    def top_rows_apply(self) -> bool:
        """Keys mode, one ranking key: :meth:`top_rows` can cut the list at k."""
        return TOP_ROWS and self.rank is None and len(self.keys) == 1

    def top_rows(self, k: int, **fields: pl.Expr) -> pl.Expr:
        """The rows whose key is at least the k-th best, as one list of structs per list.

        Keys mode, one key. Those rows are every tie group holding a rank <= k (the
        group at rank k whole, however far it reaches past k), and each keeps its tie
        bounds when ranked among them alone: they are the rows ranked above any of
        them. The k-th best key is a ``top_k`` (a selection, no sort); a list without
        a retrieved row has none. ``fields``: the struct's fields besides ``key``.
        Ranking these few rows in a ``list.eval`` replaces two ``rank()`` of the whole
        list (the card's nDCG@10 with ``ties="expected"``: 4.2x ``"first"`` -> 1.9x at
        1M rows, docs/performance.md).
        """
        key, down = self.keys[0], self.descending[0]
        kth = key.top_k(k).min() if down else key.bottom_k(k).max()  # nulls left out
        inside = key >= kth if down else key <= kth
        return pl.struct(key.alias("key"), *(e.alias(n) for n, e in fields.items())).filter(
            inside).implode()

    def _expected_top_sum(self, values: pl.Expr, k: int,
                          apply: Callable[[pl.Expr, pl.Expr], pl.Expr],
                          term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None,
                          ) -> pl.Expr | None:
        """:meth:`rank_sum` under ``ties="expected"`` within k, over :meth:`top_rows`.

        The same terms as over the whole list (the rows past them add zeros, and the
        sum of a sorted list adds its values in order, so leaving zeros out changes
        no bit); the prefix sums of the terms over the ranks 1..k are a literal, built
        here as the whole list's would be. None when ``apply`` reads a column.
        """
        if term_sum is None:
            ranks = pl.int_range(1, k + 1, dtype=pl.Int64)
            try:
                table = pl.select(pl.lit(0.0).append(
                    pl.when(ranks <= k).then(apply(pl.lit(1.0), ranks)).otherwise(0.0)
                    .cum_sum())).to_series()
            except pl.exceptions.PolarsError:  # a term of a column: each list's own
                return None
        down = self.descending[0]
        key, value = pl.element().struct.field("key"), pl.element().struct.field("value")
        lo = key.rank("min", descending=down).cast(pl.Int64)
        hi = key.rank("max", descending=down).cast(pl.Int64)
        last = pl.min_horizontal(hi, pl.lit(k, pl.Int64))  # hi <= the list's length
        if term_sum is not None:
            total = pl.when(last >= lo).then(term_sum(lo, last)).otherwise(0.0)
        else:
            total = pl.lit(table).gather(last) - pl.lit(table).gather(lo - 1)  # lo <= k
        mean_term = total / (hi - lo + 1).cast(pl.Float64)
        summed = order_free_sum((value * mean_term).fill_null(0.0))
        return self.top_rows(k, value=values).list.eval(summed).list.first().fill_null(0.0)

    def prefix_sums(self, term: Callable[[pl.Expr], pl.Expr], limit: pl.Expr) -> pl.Expr:
        """[0, t(1), t(1) + t(2), ...]: prefix sums of ``term`` over the ranks 1..n.

        Each term is 0 past ``limit``; gathering two of them sums a block of ranks.
        """
        ranks = pl.int_range(1, self.n_retrieved() + 1, dtype=pl.Int64)
        terms = pl.when(ranks <= limit).then(term(ranks)).otherwise(0.0)
        return pl.lit(0.0).append(terms.cum_sum())

    def first_hit(self, indicator: pl.Expr, k: int | None,
                  weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """E[weight(p)] over the rank p of the first hit within k (0 without one).

        ``indicator`` is 1.0 / 0.0 per row (relevant, clicked). ``weight(p)`` is
        1 / p (reciprocal rank) or 1 (a hit at all). Strict orders read the smallest
        rank of a hit. With ``ties="expected"`` only the first tie group holding a
        hit matters: with n rows and m hits, ranks lo..hi, the first hit is at slot
        j with probability m / (n - j + 1) * prod_(t<j) (n - m - t + 1) / (n - t + 1)
        (drawing without replacement), j = 1..n - m + 1.
        """
        hit = indicator > 0
        if self.ties != "expected":
            if self.rank is not None:
                rank = self.rank
                inside = rank.is_not_null() if k is None else rank <= k
                first = pl.when(hit & inside).then(rank).min()
            else:
                shown = pl.when(self.retrieved(k)).then(self.ordered(indicator, k))
                first = pl.when(shown > 0).then(self.positions(k)).min()
            return weight(first.cast(pl.Float64)).fill_null(0.0)
        if k is not None and self.top_rows_apply():  # the group lies among the top rows
            down = self.descending[0]
            key = pl.element().struct.field("key")
            hits = pl.element().struct.field("hit") > 0
            # the counts first, as one list each (read many times below: bound once)
            counts = pl.concat_list([c.cast(pl.Float64) for c in
                                     _first_hit_counts(key, down, hits)])
            lo_1, n, m = (pl.element().get(i) for i in range(3))
            chance = _first_hit_chance(lo_1.cast(pl.Int64), n, m, k, weight)
            return (self.top_rows(k, hit=hit.cast(pl.Float64)).list.eval(counts)
                    .list.first().list.eval(chance).list.first().fill_null(0.0))
        return _first_hit_chance(*self._first_hit_group(hit), k, weight)

    def _first_hit_group(self, hit: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
        """(first rank, rows, hits) of the first tie group holding a hit; null without one.

        One ranking key: read from counts against the best score of a hit (rows above it,
        rows equal to it), with no rank per row: two ``rank()`` per list made
        ``mrr@10`` under ``ties="expected"`` about 100x ``"first"`` (docs/performance.md).
        """
        if self.rank is None and len(self.keys) == 1:
            key = self.keys[0]
            return _first_hit_counts(key, self.descending[0], hit & key.is_not_null())
        lo, hi = self.bounds()
        hits = hit & lo.is_not_null()
        lo_1 = lo.filter(hits).min()
        n = (hi.filter(hits).min() - lo_1 + 1).cast(pl.Float64)
        m = (hits & (lo == lo_1)).sum().cast(pl.Float64)
        return lo_1, n, m

    # ------------------------------------------------------------------ finishing
    def finish_empty(self, value: pl.Expr, threshold: float, empty: str) -> pl.Expr:
        """:meth:`finish`, a list without a row >= ``threshold`` scoring what ``empty`` says."""
        check_choice(empty, "empty", EMPTY)
        return self.finish(when_empty(value, self.relevant(threshold), empty))

    def finish(self, value: pl.Expr, bad: pl.Expr | None = None,
               summary: Summary = "mean", *, judgments: bool = True) -> pl.Expr:
        """NaN for unscorable lists, ``summary`` over queries with ``query=``.

        With ``query=``, a query without a judged row (every label null) is left out,
        as trec_eval leaves out a run query its qrels do not name; ``judgments=False``
        (the click metrics, whose labels are a log's clicks) keeps every query.

        Unnamed: the public functions name their expression after the metric
        (:mod:`polars_rank._language.naming`), ``Metric.expr`` after its string.
        """
        flag = self.bad() if bad is None else bad
        if self.checked and bad is None:  # evaluate() checked the data: nothing to flag
            flag = pl.lit(False)
            out = value.cast(pl.Float64)
        else:
            out = pl.when(flag).then(pl.lit(NAN)).otherwise(value.cast(pl.Float64))
        if self.query:  # one value per query ("explode": no broadcast back to rows)
            # a list without a judged row is not a query of the evaluation: trec_eval
            # and evaluate() leave out a run query the qrels do not name, so the full
            # join of a run with its qrels gives their mean (an unscorable list stays NaN)
            if judgments:
                judged = any_true(self.labels.is_not_null())
                out = pl.when(judged | flag).then(out)
            # .median() of the one mean is the mean; it makes the streaming engine
            # compute every such metric of a select in one in-memory node, sharing
            # the query groups, instead of one node (and one hashing) per metric
            # (a workaround: tests/test_workarounds.py tells when it is not needed)
            per_query = out.over(list(self.query), mapping_strategy="explode")
            out = summarize(per_query, summary).median()
        return out.cast(pl.Float64)


def _first_hit_counts(key: pl.Expr, down: bool,
                      hits: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(first rank, rows, hits) of the first tie group of ``key`` holding a hit.

    Read from counts against the best key of a hit (rows above it, rows equal to it):
    no rank per row. Null without a hit. ``hits``: true on the retrieved hits.
    """
    shown = key.filter(hits)
    best = shown.max() if down else shown.min()  # the score of the first hit
    above = ((key > best) if down else (key < best)).sum()
    lo_1 = pl.when(best.is_not_null()).then(above + 1).cast(pl.Int64)
    n = pl.when(best.is_not_null()).then((key == best).sum()).cast(pl.Float64)
    m = (hits & (key == best)).sum().cast(pl.Float64)
    return lo_1, n, m


def _first_hit_chance(lo_1: pl.Expr, n: pl.Expr, m: pl.Expr, k: int | None,
                      weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """E[weight(p)] over the first hit's rank p within k, its group at lo_1, n rows, m hits.

    :meth:`Ranked.first_hit`'s sum over the slots of the group (0 without a hit).
    """
    slot = pl.int_range(1, (n - m + 2).fill_null(1).cast(pl.Int64), dtype=pl.Int64)
    j = slot.cast(pl.Float64)
    none_before = ((n - m - j + 1.0) / (n - j + 1.0)).cum_prod().shift(1, fill_value=1.0)
    rank = (lo_1 + slot - 1).cast(pl.Float64)
    chance = none_before * m / (n - j + 1.0) * weight(rank)
    inside = chance if k is None else pl.when(rank <= k).then(chance).otherwise(0.0)
    return group_sum(inside)


def order_free_sum(values: pl.Expr) -> pl.Expr:
    """The sum of ``values`` added in ascending order: the same bits for any row order.

    Floating-point addition is not associative, so a sum over rows in the order they
    come (a join's, a shuffle's) can differ in the last place from one order to the
    next: under ``ties="expected"`` the terms of a list are its rows', not its ranks'.
    :func:`polars_rank._engine.sums.ordered_sum` adds them as one sorted list (``sort().sum()``
    would not do: Polars drops a sort before an order-free aggregate).
    """
    return ordered_sum(values.cast(pl.Float64))


def default_ties(*, by: object, rank: object, doc: object) -> str:
    """The tie policy of a metric called without ``ties``: one value for any row order.

    Polars gives no row order after a join, a ``group_by`` or a shuffle, so the
    default never reads it (DESIGN, revised 2026-11-28). With ``doc``: trec_eval's
    order (doc id descending), as :func:`polars_rank.evaluate`. Without: the exact
    mean over every order of the tied rows (``"expected"``; scikit-learn's
    ``ndcg_score`` and torchmetrics average ties too), which a metric without its
    closed form replaces by ``"pessimistic"`` (its spec's ``ties``: the metric
    decorator, :func:`polars_rank._language.naming.metric`). Positions (``rank=``)
    and the row order (``by=None``) have no ties to break: ``"first"``.
    """
    if rank is not None or by is None:
        return "first"
    return "trec_eval" if doc is not None else "expected"


def _rank_columns(rank: Rank) -> tuple[pl.Expr, pl.Expr | None]:
    """``rank=``: a column (positions), or a tie span (first, last)."""
    if isinstance(rank, (str, pl.Expr)):
        return to_expr(rank, "rank"), None
    if isinstance(rank, tuple) and len(rank) == 2:
        return to_expr(rank[0], "rank"), to_expr(rank[1], "rank")
    msg = ("rank must be a column of positions or a tie span (first, last), "
           f"got {rank!r}")
    raise TypeError(msg)


def reciprocal(rank: pl.Expr) -> pl.Expr:
    """The weight of a first hit at ``rank`` for reciprocal rank: 1 / rank."""
    return 1.0 / rank


def reached(rank: pl.Expr) -> pl.Expr:
    """The weight of a first hit for "any hit at all": 1 (null, no hit, stays null)."""
    return rank * 0.0 + 1.0


def cutoff(k: object) -> int | None:
    """Validated cutoff."""
    return check_k(k)


def when_empty(value: pl.Expr, relevant: pl.Expr, empty: str) -> pl.Expr:
    """``value``, or what ``empty`` says a list without relevant rows scores.

    ``relevant`` is > 0 on the rows that make a list non-empty (relevant, or gaining),
    retrieved or not. Every metric with ``empty`` already scores such a list 0, so
    ``"zero"`` adds nothing to the plan; ``"skip"`` is null (a mean over queries
    leaves it out) and ``"error"`` NaN (torchmetrics' ``empty_target_action``,
    torchmetrics/retrieval/base.py, ``RetrievalMetric.compute``).
    """
    if empty == "zero":
        return value
    fill = {"one": pl.lit(1.0), "skip": pl.lit(None, pl.Float64), "error": pl.lit(NAN)}[empty]
    return pl.when(relevant.max() > 0).then(value).otherwise(fill)


def count(lo: pl.Expr, hi: pl.Expr) -> pl.Expr:
    """The number of ranks lo..hi: the sum of unit terms (P@k, R@k, CTR)."""
    return (hi - lo + 1).cast(pl.Float64)


def by_parts_weights(k: int | None, last: pl.Expr) -> pl.Expr:
    """Weights w_p, over the ranks 1..min(n, k), for summing differences by parts.

    sum_(p=1..m) (A_p - A_(p-1)) / p = sum_p A_p * w_p - A_0, with w_p = 1/(p (p + 1))
    below the last rank m (``last``), 1/m at it and 0 past it. A metric whose terms are
    such differences of a running value A (a cumulative sum or product of the ranked
    values) then names the ranked values once: in a ``group_by`` or window context,
    Polars evaluates every name of a sub-expression on its own (a sort per list each).

    The weights are sums of 0/1 masks times values, not a ``when/then/when`` chain:
    Polars 2.1's in-memory engine panics on that chain in a ``select`` when the masks
    are shorter than the frame (the first min(n, k) ranks); the canary
    ``test_a_chained_when_of_a_short_mask_still_panics_in_memory`` tells when it no
    longer does. Adding 0.0 and multiplying by 1.0 leave every weight exact.
    """
    ranks = Ranked.ideal_positions(k)
    rank = ranks.cast(pl.Float64)
    below = (ranks < last).cast(pl.Float64)
    at = (ranks == last).cast(pl.Float64)
    return below * (1.0 / (rank * (rank + 1.0))) + at * (1.0 / rank)
