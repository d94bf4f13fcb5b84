"""The machinery every metric is built on: one ranked list as Polars expressions.

A metric expression is evaluated in some *context*: a ``group_by`` group, a window
partition, or a whole frame. :class:`Ranked` describes that context as one ranked
list (or, with ``query=``, as many lists whose metric values are averaged). It is a
protocol with four variants, chosen once when the expression is built
(:func:`polars_rank._engine.lists.ranked_list`) from how the list is given and the
tie policy:

================  ===========================================  =========================
variant           the list is given as                         tie policies
================  ===========================================  =========================
``SortKeys``      ranking keys (``by=``), or the row order     first, last, optimistic,
                  (``by=None``): every metric sorts its list   pessimistic (trec_eval's
                  (or ranks it) itself                         become sort keys)
``TieAveraged``   ranking keys                                 expected
``Positions``     each row's 1-based position (``rank=``)      first (decided before)
``TieSpans``      each row's (first, last) position            expected
                  (``rank=(first, last)``)
================  ===========================================  =========================

``TieAveraged`` and ``TieSpans`` are both :class:`~polars_rank._engine.expected.Expected`:
the exact mean over every order of the tied rows, from each row's tie span.
Positions come from a ranking step run once for every metric
(:func:`polars_rank.ranked` or ``rank("ordinal").over(query)``), so most metrics are
plain sums, counts and minima of row contributions and none sorts; a list may omit
unjudged rows (they only occupy ranks), its length is its largest rank.

Every variant answers the same questions (:meth:`Ranked.ordered`,
:meth:`Ranked.positions`, :meth:`Ranked.retrieved`, :meth:`Ranked.bounds`,
:meth:`Ranked.rank_sum`, :meth:`Ranked.first_hit`, ...), so most kernels are written
once against :class:`Ranked`. A kernel with maths of its own for a variant (average
precision's closed form under ``"expected"``, trec_eval's arithmetic over positions)
registers one implementation per variant class (``functools.singledispatch``); what a
metric does not support is declared in its spec and refused by its decorator
(:mod:`polars_rank._language.naming`), never by a kernel.

In every variant:

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
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import any_true
from polars_rank._engine.params import EMPTY, check_choice, check_k
from polars_rank._engine.rules import id_rules, label_rules, score_rules
from polars_rank._engine.summaries import summarize
from polars_rank._engine.sums import ordered_sum

if TYPE_CHECKING:
    from collections.abc import Callable

    from polars_rank._engine.summaries import Summary

NAN = float("nan")
_RANK_TABLE_MAX = 10_000  # the largest cutoff k whose ranks 1..k are a literal

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


@dataclass(frozen=True, kw_only=True)
class Ranked(ABC):
    """One ranked list (the evaluation context), seen through a ranking: the protocol.

    The fields every variant has; the variants add how the list is ranked (sort keys,
    positions). Built by :func:`polars_rank._engine.lists.ranked_list`.
    """

    labels: pl.Expr
    """Relevance (or clicks) as Float64, null = unjudged."""
    ties: str = "first"
    """The tie policy the variant was chosen for (``SortKeys`` orders tied rows by it)."""
    query: tuple[pl.Expr, ...] = ()
    doc: pl.Expr | None = None
    """Document ids (``doc=``): a list repeating one is unscorable."""
    score: pl.Expr | None = None
    """The first ranking key as given (a sort key may be the form trec_eval compares)."""
    gain: pl.Expr | None = None
    """Each row's gain as the metric computes it (:meth:`by_gain`), the key that
    ``ties="optimistic"`` / ``"pessimistic"`` order tied rows by; None: the label."""
    checked: bool = False
    """The data passed :func:`polars_rank.evaluate`'s checks: no list is unscorable."""

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


    @abstractmethod
    def n_retrieved(self) -> pl.Expr:
        """Length of the ranked list: retrieved rows (keys), the largest rank (positions)."""

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
        for e in (*self._row_flags(), *extra):
            flag = flag | e
        out = any_true(flag) | self._type_probe()
        if self.doc is not None:  # a document twice in one list
            out = out | any_true(self.doc.is_duplicated())
        for e in self._list_flags():
            out = out | e
        return out

    def _row_flags(self) -> tuple[pl.Expr, ...]:
        """The variant's own rules for a row (true: unscorable)."""
        return ()

    def _list_flags(self) -> tuple[pl.Expr, ...]:
        """The variant's own rules for a whole list (true: unscorable)."""
        return ()

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


    # ------------------------------------------------------------------ the ranking
    @abstractmethod
    def bounds(self) -> tuple[pl.Expr, pl.Expr]:
        """(first, last) rank of each row's tie group, in input order (null: not retrieved).

        Rows with equal keys share a block of ranks; every order of a group being
        equally likely, each of its rows is at each of its ranks with probability
        1 / (last - first + 1) (McSherry & Najork, ECIR 2008).
        """

    @abstractmethod
    def ordered(self, values: pl.Expr, k: int | None = None) -> pl.Expr:
        """``values`` in rank order (retrieved first, then unretrieved), first ``k``.

        Aligned with :meth:`positions` and masked by :meth:`retrieved`. Count and sum
        values *before* ordering them, never ``ordered(v).sum()`` or ``.len()`` (nor of
        ``v.sort()``) beside another use of the ordered values: Polars 2.1's in-memory
        engine drops the sort from an order-free aggregate that occurs twice, and its
        common-subexpression elimination then hands the other uses the unsorted values
        too (G and compat came out wrong in a ``select``; the canary
        ``test_a_shared_count_of_a_sorted_list_still_unsorts_it_in_memory`` tells when
        it no longer does).
        """

    @abstractmethod
    def positions(self, k: int | None = None) -> pl.Expr:
        """Ranks aligned with ``ordered(values, k)`` (null on rows not retrieved)."""

    @abstractmethod
    def retrieved(self, k: int | None = None) -> pl.Expr:
        """Mask aligned with ``ordered(values, k)``: True on retrieved rows within k."""

    def _prepared_column(self, kind: str, threshold: float) -> pl.Expr | None:
        """A column computed once for every metric (positions from evaluate() only)."""
        return None

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
        return None


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
    @abstractmethod
    def rank_sum(self, values: pl.Expr, k: int | None = None,
                 term: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None,
                 term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None) -> pl.Expr:
        """Sum over the retrieved ranks p <= k of ``term(value at rank p, p)``.

        ``term`` (default: the value) must be linear in the value, as the terms of
        DCG, P@k, R@k, RBP and CTR are. ``term_sum(lo, hi)``: the sum of ``term(1, p)``
        over p = lo..hi when it has a closed form (the tie-averaged variants use it).
        """

    @abstractmethod
    def first_hit(self, indicator: pl.Expr, k: int | None,
                  weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """E[weight(p)] over the rank p of the first hit within k (0 without one).

        ``indicator`` is 1.0 / 0.0 per row (relevant, clicked). ``weight(p)`` is
        1 / p (reciprocal rank) or 1 (a hit at all).
        """

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

def value_term(value: pl.Expr, _rank: pl.Expr) -> pl.Expr:
    """The term of a rank sum without one given: the value itself (P@k, R@k, CTR)."""
    return value


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
