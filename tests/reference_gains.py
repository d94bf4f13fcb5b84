"""trec_eval 10.0's gain-table measures, transcribed from its C source (test oracle).

The loops of m_ndcg.c, m_G.c, m_binG.c, m_ndcg_rel.c, m_Rndcg.c and m_11pt_avg.c,
and gain_init.c's ``setup_gains`` / ``get_gain``, written as the C is, over the
conventions of ``reference.py``: ``ranked`` are the retrieved labels in rank order
(None = unjudged), ``unretrieved`` the labels of judged rows never retrieved.
Standard library only; it never imports polars or polars_rank.

``setup_gains`` sorts the gain table either by gain (``order="gain"``, what
polars-rank computes) or as trec_eval does on glibc (``order="trec_eval"``): a
stable merge sort (glibc's ``msort``, what its ``qsort`` runs for small arrays) with
trec_eval's comparator, the difference of two gains truncated to an int, so gains
less than 1 apart compare equal. The second needs integer labels, as trec_eval.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

Label = float | None
Order = Literal["gain", "trec_eval"]
NONPOOL = -1  # RELVALUE_NONPOOL: a retrieved document the qrels do not have


@dataclass
class RelGain:
    """gain_init.c's REL_GAIN: a level, its gain, how many judged rows have it."""

    rel_level: float
    gain: float
    num_at_level: int


def _msort(items: list[RelGain], cmp: Callable[[RelGain, RelGain], int]) -> list[RelGain]:
    """glibc's msort_with_tmp: n1 = n / 2 first, merge taking the left on cmp <= 0."""
    if len(items) <= 1:
        return items
    n1 = len(items) // 2
    left, right = _msort(items[:n1], cmp), _msort(items[n1:], cmp)
    out: list[RelGain] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def setup_gains(ranked: Sequence[Label], unretrieved: Sequence[Label],
                gains: Mapping[int, float] | None, order: Order = "gain") -> list[RelGain]:
    """gain_init.c setup_gains: listed pairs first, then each level not listed (gain = level).

    trec_eval lists the levels 0..max judged; with ``order="gain"`` the labels present
    are enough (an empty level takes no ideal position once the table is sorted).
    """
    judged = Counter(label for label in [*ranked, *unretrieved] if label is not None)
    table = [RelGain(level, float(gain), 0) for level, gain in (gains or {}).items()]
    if order == "trec_eval":
        top = max((int(level) for level, n in judged.items() if n), default=-1)
        levels: list[float] = list(range(top + 1))
    else:
        levels = sorted(judged)
    for level in levels:
        listed = next((g for g in table if g.rel_level == level), None)
        if listed is not None:
            listed.num_at_level = judged.get(level, 0)
        else:
            table.append(RelGain(level, float(level), judged.get(level, 0)))
    if order == "trec_eval":
        return _msort(table, lambda a, b: int(a.gain - b.gain))  # C's (int) truncation
    return sorted(table, key=lambda g: g.gain)


def get_gain(rel_level: float, table: list[RelGain]) -> float:
    for g in table:
        if rel_level == g.rel_level:
            return g.gain
    return 0.0


def _results(ranked: Sequence[Label]) -> list[float]:
    return [NONPOOL if label is None else label for label in ranked]


class _IdealWalk:
    """trec_eval's walk down the sorted gain table: ``cur_level``, ``num_at_level``."""

    def __init__(self, table: list[RelGain]) -> None:
        self.table = table
        self.cur_level = len(table) - 1
        self.ideal_gain = table[self.cur_level].gain if self.cur_level >= 0 else 0.0
        self.num_at_level = 0

    def step(self) -> float:
        self.num_at_level += 1
        while self.cur_level >= 0 and self.num_at_level > self.table[self.cur_level].num_at_level:
            self.num_at_level = 1
            self.cur_level -= 1
            self.ideal_gain = self.table[self.cur_level].gain if self.cur_level >= 0 else 0.0
        return self.ideal_gain


def ndcg(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
         gains: Mapping[int, float] | None = None, order: Order = "gain",
         dcg: bool = False, ideal: bool = False) -> float:
    """m_ndcg.c (``dcg=True``: its ``dcg`` measure; ``ideal=True``: ``ideal_dcg``)."""
    results = _results(ranked)
    table = setup_gains(ranked, unretrieved, gains, order)
    results_dcg = ideal_dcg = 0.0
    walk = _IdealWalk(table)
    i = 0
    while i < len(results) and walk.ideal_gain > 0.0:
        results_gain = get_gain(results[i], table)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        ideal_gain = walk.step()
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    while i < len(results):
        results_gain = get_gain(results[i], table)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        i += 1
    while walk.ideal_gain > 0.0:
        ideal_gain = walk.step()
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if dcg or ideal:
        return ideal_dcg if ideal else results_dcg
    return results_dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def ndcg_cut(ranked: Sequence[Label], unretrieved: Sequence[Label] = (), k: int | None = None,
             gains: Mapping[int, float] | None = None, dcg: bool = False) -> float:
    """NDCG@k with a gain table (polars-rank's ``ndcg@k(gains=...)``): the ideal is the
    k largest positive gains of every judged row (trec_eval 10's ndcg_cut takes no table)."""
    table = setup_gains(ranked, unretrieved, gains)
    shown = _results(ranked)[: len(ranked) if k is None else k]
    got = sum(get_gain(label, table) / math.log2(i + 2) for i, label in enumerate(shown))
    if dcg:
        return got
    ideal = sorted((get_gain(label, table) for label in [*ranked, *unretrieved]
                    if label is not None and get_gain(label, table) > 0), reverse=True)
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[: len(ideal) if k is None else k]))
    return got / best if best > 0 else 0.0


def g_measure(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
              gains: Mapping[int, float] | None = None, order: Order = "gain") -> float:
    """m_G.c."""
    results = _results(ranked)
    table = setup_gains(ranked, unretrieved, gains, order)
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    walk = _IdealWalk(table)
    min_cost = 1.0
    i = 0
    while i < len(results) and walk.ideal_gain > 0.0:
        results_gain = get_gain(results[i], table)
        sum_results += results_gain
        ideal_gain = walk.step()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
        sum_cost += ideal_gain if ideal_gain >= min_cost else min_cost
        if results_gain != 0:
            results_g += results_gain / _c_log2(2 + sum_cost - sum_results)
        i += 1
    while i < len(results):
        results_gain = get_gain(results[i], table)
        sum_results += results_gain
        sum_cost += min_cost
        if results_gain != 0:
            results_g += results_gain / _c_log2(2 + sum_cost - sum_results)
        i += 1
    while walk.ideal_gain > 0.0:
        ideal_gain = walk.step()
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
        i += 1
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def bin_g(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
          threshold: float = 1) -> float:
    """m_binG.c: num_rel counts the relevant rows, retrieved or not (form_res_rels.c)."""
    results = _results(ranked)
    num_rel = sum(1 for x in [*ranked, *unretrieved] if x is not None and x >= threshold)
    rel_so_far = 0
    total = 0.0
    for i, rel in enumerate(results):
        if rel >= threshold:
            rel_so_far += 1
            total += 1.0 / math.log2(3 + i - rel_so_far)
    return total / num_rel if rel_so_far else 0.0


def ndcg_rel(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
             gains: Mapping[int, float] | None = None, order: Order = "gain") -> float:
    """m_ndcg_rel.c."""
    results = _results(ranked)
    table = setup_gains(ranked, unretrieved, gains, order)
    results_dcg = ideal_dcg = total = 0.0
    num_rel_ret = num_rel = 0
    walk = _IdealWalk(table)
    i = 0
    while i < len(results) and walk.ideal_gain > 0.0:
        results_gain = get_gain(results[i], table)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        ideal_gain = walk.step()
        if ideal_gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal_gain / math.log2(i + 2)
        if results_gain > 0:  # ideal_dcg is 0 only on a table sorted as trec_eval does
            total += _c_div(results_dcg, ideal_dcg)
            num_rel_ret += 1
        i += 1
    while i < len(results):
        results_gain = get_gain(results[i], table)
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        if results_gain > 0:  # ideal_dcg is 0 only on a table sorted as trec_eval does
            total += _c_div(results_dcg, ideal_dcg)
            num_rel_ret += 1
        i += 1
    while walk.ideal_gain > 0.0:
        ideal_gain = walk.step()
        if ideal_gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    total += _c_div((num_rel - num_rel_ret) * results_dcg, ideal_dcg)
    return total / num_rel if total > 0.0 else 0.0  # NaN > 0 is false, as in C


def _c_div(a: float, b: float) -> float:
    """C's double division: x / 0 is inf (or NaN for 0 / 0), not an exception."""
    if b != 0:
        return a / b
    return math.nan if a == 0 else math.copysign(math.inf, a)


def _c_log2(x: float) -> float:
    """C's log2: -inf at 0, NaN below (a table sorted as trec_eval does can get there)."""
    if x > 0:
        return math.log2(x)
    return -math.inf if x == 0 else math.nan


def r_ndcg(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
           gains: Mapping[int, float] | None = None, threshold: float = 1,
           order: Order = "gain") -> float:
    """m_Rndcg.c (NaN where trec_eval divides 0 by 0)."""
    results = _results(ranked)
    table = setup_gains(ranked, unretrieved, gains, order)
    if not any(x is not None and x >= threshold for x in [*ranked, *unretrieved]):
        return 0.0
    results_dcg = ideal_dcg = total = 0.0
    walk = _IdealWalk(table)
    old_ideal_gain = walk.ideal_gain
    num_changed = 0
    i = 0
    while i < len(results) and walk.ideal_gain > 0.0:
        results_gain = get_gain(results[i], table)
        ideal_gain = walk.step()
        if old_ideal_gain != ideal_gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                num_changed += 1
            old_ideal_gain = ideal_gain
        if results_gain != 0:
            results_dcg += results_gain / math.log2(i + 2)
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if i < len(results):
        while i < len(results):
            results_gain = get_gain(results[i], table)
            if results_gain != 0:
                results_dcg += results_gain / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            num_changed += 1
    while walk.ideal_gain > 0.0:
        ideal_gain = walk.step()
        if old_ideal_gain != ideal_gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                num_changed += 1
            old_ideal_gain = ideal_gain
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    return _c_div(total, num_changed)


def eleven_point_average(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
                         levels: Sequence[float] = tuple(i / 10 for i in range(11)),
                         threshold: float = 1) -> float:
    """m_11pt_avg.c, its cutoff walk as written (it takes the levels as sorted)."""
    results = _results(ranked)
    num_rel = sum(1 for x in [*ranked, *unretrieved] if x is not None and x >= threshold)
    num_ret = len(results)
    num_rel_ret = sum(1 for x in results if x >= threshold)
    cutoffs = [_lround(x * num_rel) for x in levels]
    current_cut = len(levels) - 1
    while current_cut >= 0 and cutoffs[current_cut] > num_rel_ret:
        current_cut -= 1
    precis = _c_div(num_rel_ret, num_ret)
    int_precis = precis
    rel_so_far = num_rel_ret
    total = 0.0
    i = num_ret
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        int_precis = max(int_precis, precis)
        if results[i - 1] >= threshold:
            while current_cut >= 0 and rel_so_far == cutoffs[current_cut]:
                total += int_precis
                current_cut -= 1
            rel_so_far -= 1
        i -= 1
    while current_cut >= 0:
        total += int_precis
        current_cut -= 1
    return total / len(levels)


def _lround(x: float) -> int:
    """C's lround: half away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))
