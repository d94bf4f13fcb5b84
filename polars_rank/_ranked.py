"""The machinery every metric is built on: one ranked list as Polars expressions.

A metric expression is evaluated in some *context*: a ``group_by`` group, a window
partition, or a whole frame. :class:`Ranked` describes that context as one ranked
list (or, with ``query=``, as many lists whose metric values are averaged):

* rows whose first ranking key is null are *judged but not retrieved*: they sort
  after every retrieved row, count for the ideal ranking and for the number of
  relevant documents, and never take a rank;
* null relevance is *unjudged*: gain 0, never relevant, not a judged non-relevant;
* a list holding data no metric can score (negative or non-finite relevance, a NaN
  ranking key, ...) evaluates to NaN, so a mean over it is NaN as well.

Everything is a plain Polars expression (``sort_by``/``head``/``cum_sum``/
``int_range`` and aggregations), so it runs in ``select``, ``group_by().agg()``,
``over()``, lazily and on the streaming engine.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._params import (
    TIES,
    check_choice,
    check_descending,
    check_k,
    to_expr,
    to_exprs,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from polars_rank._params import By, IntoExpr, Query

NAN = float("nan")
_SMALLEST_NORMAL = sys.float_info.min  # 2.2e-308
_RANK_TABLE_MAX = 10_000  # the largest cutoff k whose ranks 1..k are a literal


@functools.cache
def _rank_table(k: int) -> pl.Series:
    """The ranks 1..k (Int64), built once per cutoff."""
    return pl.int_range(1, k + 1, dtype=pl.Int64, eager=True)


@dataclass(frozen=True)
class Ranked:
    """One ranked list (the evaluation context), seen through a ranking."""

    labels: pl.Expr
    """Relevance (or clicks) as Float64, null = unjudged."""
    keys: tuple[pl.Expr, ...]
    """Ranking keys, first one decides retrieval (null = not retrieved); empty = row order."""
    descending: tuple[bool, ...]
    ties: str
    query: tuple[pl.Expr, ...]
    name: str | None
    given_positions: pl.Expr | None = None
    """Sparse mode: the rank of each row (null = not retrieved); rows not listed are
    non-relevant, and only relevance-carrying rows need to be present."""
    given_n_retrieved: pl.Expr | None = None
    """Sparse mode: the number of retrieved rows of the list."""

    presorted: bool = False
    """Rows already come in rank order (unretrieved last): sparse mode, or dense
    ``ties="expected"`` with :attr:`given_ties`."""
    given_ties: tuple[pl.Expr, pl.Expr] | None = None
    """Dense ``ties="expected"`` on presorted rows: each row's tie group as (start,
    end), 0-based row indices within the list, end exclusive."""

    @classmethod
    def sparse(cls, rel: str, positions: str, n_retrieved: str, *, presorted: bool = False,
               ties: tuple[str, str] | None = None) -> Ranked:
        """A list given by the ranks of its judged rows (``evaluate``'s fast path).

        The context holds every judged row of one query: those retrieved carry their
        rank (1-based) in ``positions``, the others null; ``n_retrieved`` holds the
        length of the ranked list. Unjudged retrieved rows need not be present: they
        only occupy ranks, which ``positions`` already accounts for. ``presorted``: the
        rows of each list already come in rank order, unretrieved last.
        """
        given_ties = None if ties is None else (pl.col(ties[0]), pl.col(ties[1]))
        return cls(pl.col(rel).cast(pl.Float64), (pl.col(positions),), (False,),
                   "first" if ties is None else "expected", (), None, pl.col(positions),
                   pl.col(n_retrieved).max().fill_null(0), presorted, given_ties)

    @classmethod
    def presorted_ties(cls, rel: str, score: str, start: str, end: str) -> Ranked:
        """Whole lists sorted by ``score`` (descending, nulls last), tie groups given.

        ``evaluate(ties="expected")``: the frame computes the groups once with
        windows, so the metrics need no sort and no group search of their own.
        """
        return cls(pl.col(rel).cast(pl.Float64), (pl.col(score),), (True,), "expected", (),
                   None, presorted=True, given_ties=(pl.col(start), pl.col(end)))

    @classmethod
    def build(
        cls,
        rel: IntoExpr,
        *,
        by: By,
        descending: bool | Sequence[bool],
        ties: str,
        query: Query,
    ) -> Ranked:
        """Validate the common parameters and describe the list."""
        rel_expr = to_expr(rel, "rel")
        keys = () if by is None else to_exprs(by, "by")
        desc = check_descending(descending, max(len(keys), 1))[: len(keys)]
        check_choice(ties, "ties", TIES)
        if ties == "expected" and not keys:
            msg = "ties='expected' needs a ranking key `by` (without one, rows cannot tie)"
            raise ValueError(msg)
        query_exprs = () if query is None else to_exprs(query, "query")
        name = rel_expr.meta.output_name(raise_if_undetermined=False)
        return cls(rel_expr.cast(pl.Float64), keys, desc, ties, query_exprs, name)

    # ------------------------------------------------------------------ whole list
    def gains(self) -> pl.Expr:
        """Labels with unjudged as 0."""
        return self.labels.fill_null(0.0)

    def relevant(self, threshold: float) -> pl.Expr:
        """1.0 where the label is >= threshold, 0.0 otherwise (unjudged: 0.0)."""
        return (self.labels >= threshold).fill_null(False).cast(pl.Float64)

    def n_relevant(self, threshold: float) -> pl.Expr:
        """Number of relevant rows, retrieved or not (R)."""
        return self.relevant(threshold).sum()

    def n_retrieved(self) -> pl.Expr:
        """Number of retrieved rows (non-null first ranking key)."""
        if self.given_n_retrieved is not None:
            return self.given_n_retrieved
        return self.keys[0].count() if self.keys else pl.len()

    def bad(self, *extra: pl.Expr) -> pl.Expr:
        """True when the list holds a value no metric can score."""
        flag = (self.labels < 0) | ~self.labels.is_finite()
        if self.keys:
            flag = flag | self.keys[0].cast(pl.Float64, strict=False).is_nan()
        for e in extra:
            flag = flag | e
        return flag.any()

    # ------------------------------------------------------------------ rank order
    def ordered(self, values: pl.Expr, k: int | None = None) -> pl.Expr:
        """``values`` in rank order (retrieved first, then unretrieved), first ``k``.

        In sparse mode every row is kept (rows past ``k`` are masked by
        :meth:`retrieved`), aligned with :meth:`positions`.
        """
        if self.ties == "expected":
            return self.cut(self.tie_sum(self.sorted(values)) / self.tie_size().cast(pl.Float64),
                            k)
        if self.given_positions is not None:
            if self.presorted:
                return values
            return values.sort_by(self.given_positions, nulls_last=True, maintain_order=True)
        out = values
        if self.keys:
            keys = list(self.keys)
            desc = list(self.descending)
            if self.ties in ("optimistic", "pessimistic"):
                keys.append(self.gains())
                desc.append(self.ties == "optimistic")
            out = sort_by(values, keys, desc)
        return out if k is None else out.head(k)

    # ------------------------------------------------------------------ tie groups
    # ties="expected" (McSherry & Najork, ECIR 2008): the rows are sorted by the keys
    # alone; rows with equal keys form a tie group occupying a block of ranks, and
    # every ordering of a group is equally likely. Each rank ("slot") of a group then
    # holds each of the group's rows with probability 1/n, so a metric that is a sum
    # of per-rank terms has as expected value the same sum over the slot means; the
    # other metrics use the group's counts (see the kernels). All in rank order, over
    # the whole list (cutoffs are applied after).
    def cut(self, ranked: pl.Expr, k: int | None) -> pl.Expr:
        """The first ``k`` of a rank-ordered expression (sparse mode keeps every row)."""
        return ranked if k is None or self.given_positions is not None else ranked.head(k)

    def sorted(self, values: pl.Expr) -> pl.Expr:
        """``values`` sorted by the keys only (ties in input order), whole list."""
        if self.presorted:
            return values
        return sort_by(values, list(self.keys), list(self.descending))

    def _tie_bounds(self) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
        """(slot index, group start, group end): 0-based, end exclusive, rank order."""
        if self.given_ties is not None:
            return pl.int_range(pl.len(), dtype=pl.Int64), *self.given_ties
        index = pl.int_range(pl.len(), dtype=pl.Int64)
        if self._ranks_give_ties():  # the rank bounds of each row, in rank order
            lo, hi = self._tie_ranks()
            return index, (lo - 1).sort(nulls_last=True), hi.sort(nulls_last=True)
        ranked_key = self.sorted(key_struct(self.keys))
        starts = (index == 0) | ranked_key.ne_missing(ranked_key.shift(1))
        ends = starts.shift(-1, fill_value=True)
        start = pl.when(starts).then(index).otherwise(None).forward_fill()
        end = pl.when(ends).then(index + 1).otherwise(None).backward_fill()
        return index, start, end

    def tie_size(self) -> pl.Expr:
        """Size of the tie group of each slot (rank order)."""
        _, start, end = self._tie_bounds()
        return end - start

    def tie_slot(self) -> pl.Expr:
        """1-based slot of each rank within its tie group."""
        index, start, _ = self._tie_bounds()
        return index - start + 1

    def tie_sum(self, ranked: pl.Expr) -> pl.Expr:
        """Sum of ``ranked`` (rank order, from :meth:`sorted`) over each slot's group."""
        _, start, end = self._tie_bounds()
        total = ranked.cum_sum()
        return total.gather(end - 1) - (total - ranked).gather(start)

    def tie_before(self, ranked: pl.Expr) -> pl.Expr:
        """Sum of ``ranked`` over the groups ranked above each slot's group."""
        _, start, _ = self._tie_bounds()
        return (ranked.cum_sum() - ranked).gather(start)

    def rank_sum(self, values: pl.Expr, k: int | None = None,
                 term: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None,
                 term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None) -> pl.Expr:
        """Sum over the retrieved ranks p <= k of ``term(value at rank p, p)``.

        ``term`` (default: the value) must be linear in the value, as the terms of
        DCG, P@k, R@k, RBP and CTR are. With ``ties="expected"`` it is the exact mean
        over tie orders, computed without sorting the values: each row of a tie group
        holding ranks lo..hi (from two ranks of the key) is at each of them with
        probability 1/(hi - lo + 1), so it contributes its value times the mean of
        ``term(1, p)`` over lo..hi: ``term_sum(lo, hi)`` when the sum has a closed form
        (ranks lo..hi, empty when hi < lo), else prefix sums of the terms over the
        ranks.
        """
        apply = term if term is not None else (lambda v, _p: v)
        if self.ties == "expected" and self._ranks_give_ties():
            lo, hi = self._tie_ranks()
            n_ret = self.n_retrieved().cast(pl.Int64)
            limit = n_ret if k is None else pl.min_horizontal(n_ret, pl.lit(k, pl.Int64))
            ranks = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
            last = pl.min_horizontal(hi, limit)
            if term_sum is not None:
                total = pl.when(last >= lo).then(term_sum(lo, last)).otherwise(0.0)
            else:
                table = pl.when(ranks <= limit).then(apply(pl.lit(1.0), ranks)).otherwise(0.0)
                table = pl.lit(0.0).append(table.cum_sum())  # [m]: terms of ranks 1..m
                total = table.gather(hi) - table.gather(lo - 1)
            mean_term = total / (hi - lo + 1).cast(pl.Float64)
            return (values * mean_term).fill_null(0.0).sum()
        ranked = pl.when(self.retrieved(k)).then(self.ordered(values, k)).otherwise(0.0)
        return apply(ranked, self.positions(k)).fill_null(0.0).sum()

    def _ranks_give_ties(self) -> bool:
        """Tie groups can come from ranks of the key: dense mode, one sort direction."""
        return self.given_positions is None and len(set(self.descending)) == 1

    def _tie_ranks(self) -> tuple[pl.Expr, pl.Expr]:
        """(first, last) rank (1-based, input order) of each row's tie group."""
        key = self.keys[0] if len(self.keys) == 1 else key_struct(self.keys)
        lo = key.rank("min", descending=self.descending[0]).cast(pl.Int64)
        hi = key.rank("max", descending=self.descending[0]).cast(pl.Int64)
        return lo, hi

    def expected_first(self, indicator: pl.Expr, k: int | None) -> tuple[pl.Expr, pl.Expr]:
        """ties="expected": (P(no hit above the slot), P(hit at the slot | none above)).

        ``indicator``: 1.0 / 0.0 per row (a hit: relevant, clicked). Within a group of
        n rows holding m hits, slot j (1-based) holds the group's first hit with
        probability prod_{t<j} (n-m-t+1)/(n-t+1) * m/(n-j+1) (drawing without
        replacement); a group ranked above with a hit makes it 0. Rank order, first
        k, masked to retrieved rows. Their product is P(the first hit is at the slot).
        """
        hits = self.sorted(indicator)
        n = self.tie_size().cast(pl.Float64)
        m = self.tie_sum(hits)
        j = self.tie_slot().cast(pl.Float64)
        shown = self.retrieved(k)
        none_here = self.cut(((n - m - j + 1.0) / (n - j + 1.0)).clip(lower_bound=0.0), k)
        none_above = pl.when(shown).then(none_here).otherwise(1.0).cum_prod().shift(
            1, fill_value=1.0)
        first_here = self.cut(m / (n - j + 1.0), k)
        return none_above, pl.when(shown).then(first_here).otherwise(0.0)

    @staticmethod
    def depth(k: int | None = None) -> pl.Expr:
        """min(n, k): how many of the context's n rows rank within the cutoff k."""
        return pl.len() if k is None else pl.min_horizontal(pl.len(), pl.lit(k, pl.UInt32))

    @staticmethod
    def ideal_positions(k: int | None = None) -> pl.Expr:
        """Ranks 1..min(n, k) of the context's rows (the ideal ordering).

        With a cutoff, the first min(n, k) of a literal 1..k: in a ``group_by`` or
        window, ``int_range`` builds a range per list (0.065 s for 100k lists, where
        the slice of the literal took 0.010 s).
        """
        if k is not None and k <= _RANK_TABLE_MAX:
            return pl.lit(_rank_table(k)).head(Ranked.depth(k))
        return pl.int_range(1, Ranked.depth(k) + 1, dtype=pl.Int64)

    def positions(self, k: int | None = None) -> pl.Expr:
        """Ranks aligned with ``ordered(values, k)`` (null on rows not retrieved)."""
        if self.given_positions is not None:
            ranks = self.given_positions
            return (ranks if self.presorted else ranks.sort(nulls_last=True)).cast(pl.Int64)
        return self.ideal_positions(k)

    def retrieved(self, k: int | None = None) -> pl.Expr:
        """Mask aligned with ``ordered(values, k)``: True on retrieved rows within k."""
        if self.given_positions is not None:
            ranks = self.positions()
            inside = ranks.is_not_null()
            return inside if k is None else inside & (ranks <= k)
        return self.positions(k) <= self.n_retrieved()

    # ------------------------------------------------------------------ finishing
    def finish(self, value: pl.Expr, bad: pl.Expr | None = None) -> pl.Expr:
        """NaN for unscorable lists, mean over queries with ``query=``, Float64, named."""
        flag = self.bad() if bad is None else bad
        out = pl.when(flag).then(pl.lit(NAN)).otherwise(value.cast(pl.Float64))
        if self.query:  # one value per query ("explode": no broadcast back to rows)
            # .median() of the one mean is the mean; it makes the streaming engine
            # compute every such metric of a select in one in-memory node, sharing
            # the query groups, instead of one node (and one hashing) per metric
            out = out.over(list(self.query), mapping_strategy="explode").mean().median()
        out = out.cast(pl.Float64)
        return out.alias(self.name) if self.name else out


def sort_by(values: pl.Expr, keys: list[pl.Expr], descending: list[bool]) -> pl.Expr:
    """``values`` sorted by ``keys`` (nulls last, ties in input order).

    Several keys sorted in one direction become one struct key. In a ``group_by`` or
    window context, a sort by a list of keys slows down with the number of chunks the
    frame comes in (the streaming engine's morsels; a single key does not). Sorting
    [score, docid] in the 100k windows of a 10M-row frame of 165 chunks took 1.55 s
    as a list of keys and 0.98 s as a struct (rechunked: 0.95 and 0.88 s); in the 7k
    windows of 7M rows, 0.98 and 0.39 s. The five-metric battery over 2M rows (in
    memory): 22-29% faster in a ``group_by`` with lists of 100-1000 rows, 4-8% slower
    with lists of 10 rows, and 1.8x slower for one list of all 2M rows in a
    ``select``: metrics are mostly evaluated per group. A struct orders a null field
    below every value: nulls last when sorting descending; ascending, each key is
    preceded by its null flag.
    """
    if len(keys) < 2 or len(set(descending)) > 1:
        return values.sort_by(keys, descending=descending, nulls_last=True,
                              maintain_order=True)
    down = descending[0]
    fields = keys if down else [f for key in keys for f in (key.is_null(), key)]
    return values.sort_by(key_struct(fields), descending=down, nulls_last=True,
                          maintain_order=True)


def key_struct(keys: Sequence[pl.Expr]) -> pl.Expr:
    """The keys as one struct, its fields named by position.

    Two keys may share a name (``by=["score", pl.col("score") * 2]``); two fields of
    a struct may not.
    """
    return pl.struct(*(key.alias(f"_{i}") for i, key in enumerate(keys)))


def cutoff(k: object) -> int | None:
    """Validated cutoff."""
    return check_k(k)


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
    """
    ranks = Ranked.ideal_positions(k)
    rank = ranks.cast(pl.Float64)
    return (
        pl.when(ranks < last).then(1.0 / (rank * (rank + 1.0)))
        .when(ranks == last).then(1.0 / rank)
        .otherwise(0.0)
    )


def per_list(value: float) -> pl.Expr:
    """``value`` as one Float64 per list, not a literal, to divide by.

    Polars divides a column by a literal by multiplying with its reciprocal, which
    can be an ulp off the quotient: in a ``group_by``, P@10 with 3 hits came out as
    3 * (1/10) = 0.30000000000000004 where trec_eval prints 3 / 10 = 0.3. A value per
    list (the list's length times 0, plus ``value``) is divided element by element.
    """
    return pl.len().cast(pl.Float64) * 0.0 + float(value)


def safe_div(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den``, 0 where ``den`` is 0.

    Every use divides a part by its whole (hits by rows shown, relevant retrieved by
    relevant, DCG by the ideal DCG), both non-negative, so ``num`` is 0 wherever
    ``den`` is: raising ``den`` to the smallest normal float (a whole that small would
    need labels below 1e-307) gives 0 / tiny = 0 there, also where Polars multiplies
    by the reciprocal (which a subnormal would make infinite). ``den`` appears once
    on purpose: in a ``group_by`` context Polars does not share a repeated
    sub-expression, and ``when(den > 0)`` (or ``fill_nan``) computed the ideal DCG,
    a sort per list, twice.
    """
    return num / den.clip(lower_bound=_SMALLEST_NORMAL)
