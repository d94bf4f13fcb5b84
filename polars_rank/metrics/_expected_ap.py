"""Average precision under ``ties="expected"``: the exact mean over tie orders.

McSherry & Najork ("Computing Information Retrieval Performance Measures
Efficiently in the Presence of Tied Scores", ECIR 2008) for AP over R; the same
reasoning, conditioned on how many relevant rows of the tie group that holds rank k
fall within k, for AP over the relevant rows ranked within k (torchmetrics'
``RetrievalMAP(top_k=)``), whose denominator is random under ties.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import any_true, group_sum
from polars_rank._engine.keys import TieAveraged
from polars_rank._engine.ranked import order_free_sum
from polars_rank.metrics._let import Get, let

if TYPE_CHECKING:
    from polars_rank._engine.expected import Expected

__all__ = ["expected_precision_sum", "expected_ap_over_hits"]


def _limit(r: Expected, k: int | None) -> pl.Expr:
    """min(n, k): the last rank within the cutoff (n = the list's length)."""
    n_ret = r.n_retrieved().cast(pl.Int64)
    return n_ret if k is None else pl.min_horizontal(n_ret, pl.lit(k, pl.Int64))


def _harmonic(first: pl.Expr, last: pl.Expr) -> pl.Expr:
    """Per row: the sum of 1/p over p = first..last (0 when last < first).

    A Polars 2.1 workaround: gathering these sums from a prefix table
    (Expected.prefix_sums) panics in a group_by of no rows (tests/test_workarounds.py
    tells when it stops).
    """
    return pl.int_ranges(first, last + 1).list.eval(1.0 / pl.element()).list.sum()


def expected_precision_sum(r: Expected, hits: pl.Expr, k: int | None,
                           whole_groups: bool = False) -> pl.Expr:
    """ties="expected": E[sum of precision at the relevant ranks within k].

    A tie group holds ranks lo..hi (n rows), m relevant rows, and c relevant rows
    rank above it. At its slot j (rank p = lo + j - 1) the expected precision term is
    E[rel_j (c + 1 + relevant among slots 1..j-1)] / p = (A + B (p - lo)) / p with
    A = (m/n)(c + 1), B = m (m - 1) / (n (n - 1)); over the slots within k that is
    (A - B lo) H + B s, H the sum of 1/p over them and s their number. Each relevant
    row carries 1/m of its group's total; c and m are ranks among the relevant rows.
    ``whole_groups``: only the groups ranked entirely within k.

    The tie spans of the relevant rows are bound once (:func:`let`): read a dozen
    times, each reading ranked the list again in a ``group_by`` (MAP@10 took about
    30x ``ties="first"``; docs/performance.md).
    """
    if k is not None and not whole_groups and isinstance(r, TieAveraged) and r.top_rows_apply():
        # within k only the rows at least the k-th best count (TieAveraged.top_rows): their
        # tie spans among themselves, then the same terms (limit: hi <= the length)
        down = r.descending[0]
        key = pl.element().struct.field("key")
        relevant = pl.element().struct.field("hit") > 0
        # the relevant rows' bounds, packed as let() packs them (a list of two lists)
        bounds = pl.concat_list([
            key.rank(how, descending=down).cast(pl.Float64).filter(relevant).implode()
            .implode() for how in ("min", "max")])
        packed = r.top_rows(k, hit=hits.cast(pl.Float64)).list.eval(bounds).list.first()

        def get(name: str) -> pl.Expr:
            if name == "limit":
                return pl.lit(float(k))
            return pl.element().get(("lo", "hi").index(name)).explode()

        # Polars sums an empty list to -0.0; the whole list's terms sum to 0.0 when it
        # retrieved a relevant row below these (each term 0.0): a signed zero added
        # (not a literal, which Polars would simplify away) keeps the sign of before
        found = any_true((hits > 0) & r.keys[0].is_not_null())
        zero = pl.when(found).then(pl.lit(0.0)).otherwise(pl.lit(-0.0))
        return packed.list.eval(_precision_terms(get)).list.first() + zero
    lo, hi = r.bounds()
    limit = _limit(r, k)
    mask = (hits > 0) & lo.is_not_null()
    if whole_groups:
        mask = mask & (hi <= limit)
    return let(_precision_terms, lo=lo.filter(mask), hi=hi.filter(mask), limit=limit)


def _precision_terms(get: Get) -> pl.Expr:
    """:func:`expected_precision_sum` over the relevant rows' tie spans."""
    lo_h, hi_h, limit = get("lo"), get("hi"), get("limit").first()
    c = lo_h.rank("min") - 1.0
    m = lo_h.rank("max") - lo_h.rank("min") + 1.0
    n = hi_h - lo_h + 1.0
    last = pl.min_horizontal(hi_h, limit)
    harmonic = _harmonic(lo_h.cast(pl.Int64), last.cast(pl.Int64))
    slots = (last - lo_h + 1.0).clip(lower_bound=0.0)
    a = m / n * (c + 1.0)
    b = m * (m - 1.0) / (n * (n - 1.0)).clip(lower_bound=1.0)  # 0 when n = 1 (so m <= 1)
    return order_free_sum(((a - b * lo_h) * harmonic + b * slots) / m)


def _log_factorial(x: pl.Expr) -> pl.Expr:
    """The log of x! per row (x >= 0)."""
    return pl.int_ranges(1, x + 1).list.eval(pl.element().cast(pl.Float64).log()).list.sum()


def _log_choose(a: pl.Expr, b: pl.Expr) -> pl.Expr:
    """The log of C(a, b), 0 <= b <= a."""
    return _log_factorial(a) - _log_factorial(b) - _log_factorial(a - b)


def expected_ap_over_hits(r: Expected, hits: pl.Expr, k: int) -> pl.Expr:
    """ties="expected": E[AP@k over the relevant rows ranked within k].

    With K = min(n, k), the groups ranked entirely within K hold c relevant rows and
    an expected precision sum S (:func:`expected_precision_sum`). At most one group
    holds both rank K and rank K + 1: ranks lo..hi, n rows, m relevant, s = K - lo + 1
    slots within K. J, its relevant rows within K, is hypergeometric (m of n rows, s
    drawn); given J = j they sit uniformly in the s slots, so (as above) the group adds
    (j/s)(c + 1) H + j (j - 1) / (s (s - 1)) (s - lo H), H = sum of 1/p over lo..K,
    and E[AP] = sum_j P(J = j) (S + that) / (c + j), 0 when c + j = 0. The orders
    within the groups above K are independent of J, so S enters through its mean.
    """
    lo, hi = r.bounds()
    limit = _limit(r, k)
    inside = expected_precision_sum(r, hits, k, whole_groups=True)
    relevant = (hits > 0) & lo.is_not_null()
    c = (relevant & (hi <= limit)).sum().cast(pl.Float64)
    straddles = lo.is_not_null() & (lo <= limit) & (hi > limit)
    first = lo.filter(straddles).min()
    n = (hi.filter(straddles).min() - first + 1).fill_null(0)
    m = (relevant & straddles).sum().cast(pl.Int64)
    first = first.fill_null(limit + 1)  # no such group: no slot, J = 0
    s = limit - first + 1
    j = pl.int_range(pl.max_horizontal(s - (n - m), 0), pl.min_horizontal(m, s) + 1,
                     dtype=pl.Int64)
    chance = (_log_choose(m, j) + _log_choose(n - m, s - j) - _log_choose(n, s)).exp()
    h = group_sum(1.0 / pl.int_range(first, limit + 1, dtype=pl.Int64).cast(pl.Float64))
    jf, sf = j.cast(pl.Float64), s.cast(pl.Float64)
    slots = sf.clip(lower_bound=1.0)
    pairs = (slots * (slots - 1.0)).clip(lower_bound=1.0)  # s <= 1: J <= 1, no pair
    group = jf / slots * (c + 1.0) * h + jf * (jf - 1.0) / pairs * (sf - first * h)
    denominator = c + jf
    terms = chance * (inside + group) / denominator.clip(lower_bound=1.0)
    return group_sum(pl.when(denominator > 0).then(terms).otherwise(0.0))
