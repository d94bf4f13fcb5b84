"""Slow, plain-Python reference implementations of ranking metrics (test oracle).

This module is the *independent oracle* for ``polars-rank``'s tests.  It is
deliberately naive: every function handles ONE query, uses only the standard
library, and is written to read like the textbook / trec_eval definition rather
than to be fast.  It must never import polars or polars_rank.

Conventions shared by all functions
-----------------------------------
``ranked``
    Relevance labels of the retrieved documents in rank order (rank 1 first).
    ``None`` means "unjudged": it counts as non-relevant with gain 0 (except in
    :func:`bpref`, which skips unjudged documents, exactly like trec_eval).
``unretrieved``
    Labels of judged documents the system did NOT retrieve.  They only
    contribute to the ideal ranking (nDCG) and to the number of relevant
    documents ``R`` (recall, AP, R-precision, bpref); they are never part of
    the ranked list.
``k``
    Rank cutoff; ``None`` means the whole ranked list.  Must be >= 1 otherwise.
``threshold``
    A label ``l`` is relevant for binary metrics iff ``l is not None and
    l >= threshold`` (trec_eval's ``relevance_level``, default 1).
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from collections.abc import Sequence

Label = float | None
Gain = Literal["exponential", "linear", "binary"]


# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------
def _top(ranked: Sequence[Label], k: int | None) -> list[Label]:
    """The first ``k`` labels of the ranked list (all of them if ``k`` is None)."""
    if k is None:
        return list(ranked)
    if k < 1:
        msg = f"cutoff k must be >= 1 or None, got {k}"
        raise ValueError(msg)
    return list(ranked[:k])


def _is_relevant(label: Label, threshold: float) -> bool:
    """Binary relevance: judged and at least ``threshold``."""
    return label is not None and label >= threshold


def _as_number(label: Label) -> float:
    """Unjudged (None) counts as label 0."""
    return 0.0 if label is None else float(label)


def _gain(label: Label, gain: Gain, threshold: float | None = None) -> float:
    """Gain of one label: 2**l - 1 ("exponential"), l ("linear") or 1 ("binary"); None -> 0.

    Unjudged and a label below ``threshold`` (ranx's relevance level) gain 0;
    without one, a label gains when it is > 0 (only "binary" needs saying so).
    """
    value = _as_number(label)
    counted = label is not None and (value > 0 if threshold is None else value >= threshold)
    if not counted:
        return 0.0
    if gain == "binary":  # MS Recommenders' score_type="binary"
        return 1.0
    if gain == "exponential":
        return 2.0**value - 1.0
    if gain == "linear":
        return value
    msg = f"unknown gain {gain!r}"
    raise ValueError(msg)


def _num_relevant(labels: Sequence[Label], threshold: float) -> int:
    return sum(1 for label in labels if _is_relevant(label, threshold))


# --------------------------------------------------------------------------
# graded metrics
# --------------------------------------------------------------------------
def dcg(ranked: Sequence[Label], k: int | None = None, gain: Gain = "exponential",
        threshold: float | None = None, log_base: float = 2) -> float:
    """DCG@k = sum over ranks r <= k of gain(l_r) / log_b(1 + r) (b: scikit-learn's log_base)."""
    total = 0.0
    for rank, label in enumerate(_top(ranked, k), start=1):
        total += _gain(label, gain, threshold) / (math.log(1 + rank) / math.log(log_base))
    return total


def ideal_dcg(labels: Sequence[Label], k: int | None = None, gain: Gain = "exponential",
              threshold: float | None = None) -> float:
    """IDCG@k: the DCG@k of every known label (retrieved or not) sorted by gain."""
    ideal_labels = sorted(labels, key=lambda label: _gain(label, gain, threshold), reverse=True)
    return dcg(ideal_labels, k=k, gain=gain, threshold=threshold)


def ndcg(
    ranked: Sequence[Label],
    unretrieved: Sequence[Label] = (),
    k: int | None = None,
    gain: Gain = "exponential",
    threshold: float | None = None,
) -> float:
    """nDCG@k = DCG@k / IDCG@k; 0 when IDCG@k == 0.

    The ideal ranking sorts ALL known labels (retrieved + unretrieved, None -> 0)
    in decreasing order and is cut at the same k.  With ``k=None`` the ideal
    list is not truncated at ``len(ranked)`` (trec_eval ``ndcg`` does the same:
    it keeps adding ideal gains past the end of the retrieved list).
    """
    # by gain, unjudged (None) kept as such: it gains nothing, whatever the threshold
    ideal_labels = sorted([*ranked, *unretrieved],
                          key=lambda label: _gain(label, gain, threshold), reverse=True)
    ideal = dcg(ideal_labels, k=k, gain=gain, threshold=threshold)
    if ideal == 0:
        return 0.0
    return dcg(ranked, k=k, gain=gain, threshold=threshold) / ideal


def err(ranked: Sequence[Label], k: int | None = None, max_grade: float = 4) -> float:
    """Expected Reciprocal Rank (Chapelle, Metzler, Zhang, Grinspan 2009).

    R_i = (2**l_i - 1) / 2**max_grade is the probability that the user is
    satisfied by document i; ERR = sum_r (1/r) * R_r * prod_{i<r} (1 - R_i).
    """
    satisfied_prob = [
        (2.0 ** _as_number(label) - 1.0) / 2.0**max_grade for label in _top(ranked, k)
    ]
    total = 0.0
    for rank, r_r in enumerate(satisfied_prob, start=1):
        reach_prob = 1.0  # probability that the user is still scanning at `rank`
        for r_i in satisfied_prob[: rank - 1]:
            reach_prob *= 1.0 - r_i
        total += r_r * reach_prob / rank
    return total


# --------------------------------------------------------------------------
# binary metrics
# --------------------------------------------------------------------------
def precision(ranked: Sequence[Label], k: int | None = None, threshold: float = 1,
              adaptive_k: bool = False) -> float:
    """P@k = (#relevant in top k) / k.

    As in trec_eval ``P``, the denominator is k even if fewer than k documents
    were retrieved (missing positions count as non-relevant).  With ``k=None``
    the denominator is ``len(ranked)``; an empty list gives 0. ``adaptive_k``
    (torchmetrics): min(k, len(ranked)).
    """
    hits = _num_relevant(_top(ranked, k), threshold)
    denominator = len(ranked) if k is None else k
    if adaptive_k:
        denominator = min(denominator, len(ranked))
    if denominator == 0:
        return 0.0
    return hits / denominator


def recall(
    ranked: Sequence[Label],
    unretrieved: Sequence[Label] = (),
    k: int | None = None,
    threshold: float = 1,
) -> float:
    """recall@k = (#relevant in top k) / R, R = #relevant in ranked + unretrieved; 0 if R == 0."""
    num_rel = _num_relevant([*ranked, *unretrieved], threshold)
    if num_rel == 0:
        return 0.0
    return _num_relevant(_top(ranked, k), threshold) / num_rel


def f1(
    ranked: Sequence[Label],
    unretrieved: Sequence[Label] = (),
    k: int | None = None,
    threshold: float = 1,
    beta: float = 1,
) -> float:
    """F: (1 + x) P R / (x P + R) of precision@k and recall@k; 0 when both are 0.

    x = ``beta`` weighs recall x times precision, as trec_eval 10.0's m_set_F.c
    ("set_Fx = (x+1) * P * R / (R + x*P)") and ir_measures' ``SetF(beta=)``.
    """
    p = precision(ranked, k=k, threshold=threshold)
    r = recall(ranked, unretrieved, k=k, threshold=threshold)
    if p + r == 0:
        return 0.0
    return (1 + beta) * p * r / (beta * p + r)


def average_precision(
    ranked: Sequence[Label],
    unretrieved: Sequence[Label] = (),
    k: int | None = None,
    threshold: float = 1,
    denominator: str = "relevant",
) -> float:
    """AP@k = (1/R) * sum over relevant ranks r <= k of P@r; 0 when R == 0.

    R counts ALL relevant documents (retrieved or not), as in trec_eval
    ``map`` / ``map_cut`` -- so AP@k is not normalised by min(k, R).
    ``denominator="capped"``: min(R, k) (MS Recommenders' ``map_at_k``);
    ``"retrieved"``: the relevant documents within the top k (torchmetrics).
    """
    num_rel = _num_relevant([*ranked, *unretrieved], threshold)
    if denominator == "capped" and k is not None:
        num_rel = min(num_rel, k)
    elif denominator == "retrieved":
        num_rel = _num_relevant(_top(ranked, k), threshold)
    if num_rel == 0:
        return 0.0
    total = 0.0
    for rank, label in enumerate(_top(ranked, k), start=1):
        if _is_relevant(label, threshold):
            total += precision(ranked, k=rank, threshold=threshold)
    return total / num_rel


def yaap(
    ranked: Sequence[Label],
    unretrieved: Sequence[Label] = (),
    k: int | None = None,
    threshold: float = 1,
) -> float:
    """Robertson's "yet another average precision" (ECIR 2012; trec_eval's m_yaap.c).

    ln((1 + S) / (1 + R - S)): S is the sum, over the relevant ranks r <= k, of the
    precision at r; R counts ALL relevant documents (retrieved or not), as AP's.
    """
    num_rel = _num_relevant([*ranked, *unretrieved], threshold)
    total = 0.0
    for rank, label in enumerate(_top(ranked, k), start=1):
        if _is_relevant(label, threshold):
            total += precision(ranked, k=rank, threshold=threshold)
    return math.log((1 + total) / (1 + num_rel - total))


def reciprocal_rank(ranked: Sequence[Label], k: int | None = None, threshold: float = 1) -> float:
    """1 / rank of the first relevant document within the top k, else 0."""
    for rank, label in enumerate(_top(ranked, k), start=1):
        if _is_relevant(label, threshold):
            return 1.0 / rank
    return 0.0


def hit_rate(ranked: Sequence[Label], k: int | None = None, threshold: float = 1) -> float:
    """1.0 if any relevant document is within the top k, else 0.0 (trec_eval ``success``)."""
    return 1.0 if _num_relevant(_top(ranked, k), threshold) > 0 else 0.0


def r_precision(
    ranked: Sequence[Label],
    unretrieved: Sequence[Label] = (),
    threshold: float = 1,
    k: int | None = None,
) -> float:
    """R-precision = (#relevant in top R) / R; 0 when R == 0 (trec_eval ``Rprec``).

    If fewer than R documents were retrieved the denominator is still R
    (trec_eval: ``num_to_look_at = MIN(num_ret, num_rel)``, divided by num_rel).
    With ``k``: the top min(R, k), still over R (MS Recommenders' r_precision_at_k).
    """
    num_rel = _num_relevant([*ranked, *unretrieved], threshold)
    if num_rel == 0:
        return 0.0
    depth = num_rel if k is None else min(num_rel, k)
    return _num_relevant(ranked[:depth], threshold) / num_rel


def rbp(
    ranked: Sequence[Label], p: float = 0.8, k: int | None = None, threshold: float = 1,
    gain: str = "binary",
) -> float:
    """Rank-biased precision (Moffat & Zobel 2008): (1 - p) * sum_{r<=k} rel_r * p**(r-1).

    ``gain="raw"``: rel_r is the label itself when it is >= threshold (ranx 0.3.21,
    metrics/rank_biased_precision.py: the qrels below rel_lvl are dropped, the rest
    keep their score).
    """
    total = 0.0
    for rank, label in enumerate(_top(ranked, k), start=1):
        if _is_relevant(label, threshold):
            total += (float(label) if gain == "raw" else 1.0) * p ** (rank - 1)  # type: ignore[arg-type]
    return (1 - p) * total


def bpref(
    ranked: Sequence[Label],
    unretrieved: Sequence[Label] = (),
    threshold: float = 1,
) -> float:
    """Binary preference, exactly as trec_eval's ``m_bpref.c`` (Buckley & Voorhees 2004).

    * R = number of judged relevant documents (label >= threshold) among
      ranked + unretrieved.
    * N = number of judged NON-relevant documents (label not None and
      label < threshold) among ranked + unretrieved -- i.e. qrels entries with
      a low label, whether or not they were retrieved.
    * Walk down the WHOLE retrieved list (no cutoff at R or at any k):
      unjudged documents (None) are skipped entirely; a judged non-relevant
      one increments ``nonrel_so_far``; a relevant one adds
      ``1 - min(nonrel_so_far, R) / min(N, R)`` (or 1 if ``nonrel_so_far == 0``).
    * Divide by R; the result is 0 when R == 0.

    trec_eval source (m_bpref.c)::

        for (j = 0; j < epi->relevance_level; j++)
            num_nonrel += res_rels.rel_levels[j];
        ...
        for (j = 0; j < res_rels.num_ret; j++) {
            if (res_rels.results_rel_list[j] == RELVALUE_NONPOOL)
                /* document not in pool. Skip */
                continue;
            if (res_rels.results_rel_list[j] == RELVALUE_UNJUDGED) {
                /* document in pool but unjudged. */
                pool_unjudged_so_far++;
                continue;
            }
            if (res_rels.results_rel_list[j] >= 0 &&
                res_rels.results_rel_list[j] < epi->relevance_level)
                nonrel_so_far++;
            else {
                /* Judged Rel doc */
                rel_so_far++;
                if (nonrel_so_far > 0) {
                    bpref += 1.0 -
                        (((double) MIN(nonrel_so_far, res_rels.num_rel)) /
                         (double) MIN(num_nonrel, res_rels.num_rel));
                } else
                    bpref += 1.0;
            }
        }
        if (res_rels.num_rel)
            bpref /= res_rels.num_rel;

    (``rel_levels`` counts every qrels entry with label >= 0, retrieved or not;
    trec_eval treats negative qrels labels as "in pool but unjudged", which
    this oracle does not model: use None for unjudged.)
    """
    judged = [label for label in [*ranked, *unretrieved] if label is not None]
    num_rel = sum(1 for label in judged if label >= threshold)
    num_nonrel = sum(1 for label in judged if label < threshold)
    if num_rel == 0:
        return 0.0

    total = 0.0
    nonrel_so_far = 0
    for label in ranked:
        if label is None:
            continue  # unjudged: neither a preference winner nor loser
        if label < threshold:
            nonrel_so_far += 1
        elif nonrel_so_far == 0:
            total += 1.0
        else:
            # num_nonrel >= nonrel_so_far > 0 here, so the denominator is > 0
            total += 1.0 - min(nonrel_so_far, num_rel) / min(num_nonrel, num_rel)
    return total / num_rel


# --------------------------------------------------------------------------
# order / click / classification metrics
# --------------------------------------------------------------------------
def rank_correlation(ranked: Sequence[Label]) -> float:
    """Fraction of retrieved pairs whose order agrees with the label order.

    For every pair (i ranked above j) the pair is discordant iff l_i < l_j
    (labels None -> 0); ties in label count as agreeing.  Returns
    1 - #discordant / (n(n-1)/2), and 1.0 for fewer than 2 documents.
    """
    labels = [_as_number(label) for label in ranked]
    n = len(labels)
    if n < 2:
        return 1.0
    discordant = sum(1 for above, below in combinations(labels, 2) if above < below)
    return 1.0 - discordant / (n * (n - 1) / 2)


def ctr(clicks: Sequence[float | None], k: int | None = None) -> float:
    """Click-through rate in the top k: sum of clicks / number of items shown (min(k, len)).

    ``None`` clicks count as 0; returns 0 when nothing was shown.
    """
    shown = _top(clicks, k)
    if not shown:
        return 0.0
    return sum(_as_number(c) for c in shown) / len(shown)


def abandonment(clicks: Sequence[float | None], k: int | None = None) -> float:
    """1.0 if no shown item within k was clicked (click > 0; ``None`` = no click), else 0.0.

    An impression where nothing was shown counts as abandoned.
    """
    return 0.0 if any(_as_number(c) > 0 for c in _top(clicks, k)) else 1.0


def first_click_rr(clicks: Sequence[float | None], k: int | None = None) -> float:
    """1 / rank of the first clicked item within k (click > 0), 0.0 without a click."""
    for rank, c in enumerate(_top(clicks, k), start=1):
        if _as_number(c) > 0:
            return 1.0 / rank
    return 0.0


def clicks_per_query(clicks: Sequence[float | None], k: int | None = None) -> float:
    """Sum of the clicks on the top k items (``None`` = 0)."""
    return float(sum(_as_number(c) for c in _top(clicks, k)))


def mean_dwell(
    dwell: Sequence[float | None],
    k: int | None = None,
    clicks: Sequence[float | None] | None = None,
) -> float | None:
    """Mean dwell time over the top k items that have one (and a click > 0, if given).

    ``dwell`` and ``clicks`` are aligned with the ranked list. ``None`` when no item
    qualifies.
    """
    top = _top(dwell, k)
    flags = [True] * len(top) if clicks is None else [_as_number(c) > 0 for c in _top(clicks, k)]
    times = [float(t) for t, f in zip(top, flags, strict=True) if t is not None and f]
    return sum(times) / len(times) if times else None


def auc(scores: Sequence[float], labels: Sequence[Label], threshold: float = 1) -> float | None:
    """ROC AUC of the retrieved rows: P(score of a relevant > score of a non-relevant).

    Counts every (relevant, non-relevant) pair: 1 if the relevant one has the
    higher score, 1/2 on a score tie, 0 otherwise.  Unjudged (None) labels
    are non-relevant.  Returns None when there is no relevant or no
    non-relevant row (AUC undefined).
    """
    if len(scores) != len(labels):
        msg = "scores and labels must have the same length"
        raise ValueError(msg)
    positives = [
        s for s, label in zip(scores, labels, strict=True) if _is_relevant(label, threshold)
    ]
    negatives = [
        s for s, label in zip(scores, labels, strict=True) if not _is_relevant(label, threshold)
    ]
    if not positives or not negatives:
        return None
    wins = 0.0
    for pos in positives:
        for neg in negatives:
            if pos > neg:
                wins += 1.0
            elif pos == neg:
                wins += 0.5
    return wins / (len(positives) * len(negatives))


# --------------------------------------------------------------------------
# counts and trec_eval's interpolated precision, written from trec_eval 10.0's C source
# --------------------------------------------------------------------------
def hits(ranked: Sequence[Label], k: int | None = None, threshold: float = 1) -> float:
    """ranx's hits@k: relevant documents among the top k."""
    return float(_num_relevant(_top(ranked, k), threshold))


def num_rel(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
            threshold: float = 1) -> float:
    """trec_eval's num_rel: R, retrieved or not."""
    return float(_num_relevant([*ranked, *unretrieved], threshold))


def num_nonrel_judged_ret(ranked: Sequence[Label], threshold: float = 1) -> float:
    """trec_eval's num_nonrel_judged_ret: judged documents below the threshold retrieved."""
    return float(sum(1 for label in ranked if label is not None and label < threshold))


def iprec_at_recall(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
                    recall: float = 0.0, threshold: float = 1) -> float:
    """m_iprec_at_recall.c (10.0): walk the ranking, then the interpolation from the end.

    c = lround(recall * R); precision at each rank; the answer is the largest precision
    at a rank at or after the c-th relevant retrieved one (any rank when c = 0).
    """
    big_r = _num_relevant([*ranked, *unretrieved], threshold)
    if big_r == 0:
        return 0.0
    wanted = recall * big_r
    c = math.floor(wanted + 0.5) if wanted - math.floor(wanted) != 0.5 else math.floor(wanted) + 1
    found, best_after, precisions, nth = 0, 0.0, [], {}
    for rank, label in enumerate(ranked, start=1):
        if _is_relevant(label, threshold):
            found += 1
            nth[found] = rank
        precisions.append(found / rank)
    if c > found:
        return 0.0
    start = 1 if c == 0 else nth[c]
    for rank in range(start, len(ranked) + 1):
        best_after = max(best_after, precisions[rank - 1])
    return best_after


def eleven_point_average(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
                         threshold: float = 1) -> float:
    """trec_eval's 11pt_avg: the mean of iprec_at_recall at 0.0, 0.1, ..., 1.0."""
    levels = [i / 10 for i in range(11)]
    return sum(iprec_at_recall(ranked, unretrieved, x, threshold) for x in levels) / 11


def rbp_graded(ranked: Sequence[Label], unretrieved: Sequence[Label] = (), p: float = 0.9,
               k: int | None = None) -> float:
    """m_rbp.c (10.0): gains = labels, rescaled by the largest judged label when it is > 1."""
    judged = [_as_number(label) for label in [*ranked, *unretrieved] if label is not None]
    top = max([0.0, *judged])
    scale = top if top > 1 else 1.0
    return (1 - p) * sum(_as_number(label) / scale * p ** (rank - 1)
                         for rank, label in enumerate(_top(ranked, k), start=1))


def rbp_gain_table(ranked: Sequence[Label], unretrieved: Sequence[Label] = (), p: float = 0.9,
                   k: int | None = None, gains: dict[int, float] | None = None) -> float:
    """m_rbp.c (10.0) with a gain table, ``-m rbp.1=3,2=9`` (gain_init.c, setup_gains).

    A label gains the table's value, or its own. The gains in play are the table's and
    those of the levels L, L - 1, ..., down to 0 (L the largest judged label: the
    levels 0..L for integer labels) the table does not list; when one is below 0 or
    above 1, every gain becomes (g - lo) / (hi - lo), lo and hi the smallest and
    largest of them and 0 (the C variables start at 0 in NIST's binary). An unjudged
    document gains 0.
    """
    table = dict(gains or {})
    judged = [_as_number(label) for label in [*ranked, *unretrieved] if label is not None]
    top = max(judged) if judged else -1.0
    levels = [top - j for j in range(int(top) + 1) if top - j not in table]
    in_play = [0.0, *table.values(), *levels]
    lo, hi = min(in_play), max(in_play)

    def gain(label: Label) -> float:
        if label is None:
            return 0.0
        g = table.get(_as_number(label), _as_number(label))  # type: ignore[call-overload]
        return (g - lo) / (hi - lo) if lo < 0 or hi > 1 else g

    return (1 - p) * sum(gain(label) * p ** (rank - 1)
                         for rank, label in enumerate(_top(ranked, k), start=1))


def relative_precision(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
                       k: int | None = None, threshold: float = 1) -> float:
    """m_rel_P.c / m_set_rel_P.c: relevant in the top k over min(k, R) (k = n without k)."""
    big_r = _num_relevant([*ranked, *unretrieved], threshold)
    depth = len(ranked) if k is None else k
    if big_r == 0 or depth == 0:
        return 0.0
    return _num_relevant(_top(ranked, k), threshold) / min(depth, big_r)


def r_precision_multiple(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
                         multiple: float = 1.0, threshold: float = 1) -> float:
    """m_Rprec_mult.c: P at depth (long)(x R + 0.9), 0 at depth 0."""
    big_r = _num_relevant([*ranked, *unretrieved], threshold)
    depth = int(multiple * big_r + 0.9)
    if depth == 0:
        return 0.0
    return _num_relevant(ranked[:depth], threshold) / depth


def set_map(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
            threshold: float = 1) -> float:
    """m_set_map.c: rel_ret^2 / (ret x R)."""
    big_r = _num_relevant([*ranked, *unretrieved], threshold)
    found = _num_relevant(ranked, threshold)
    if not ranked or big_r == 0:
        return 0.0
    return found * found / (len(ranked) * big_r)


def unjudged(ranked: Sequence[Label], k: int) -> float:
    """m_unjudged.c: unjudged documents in the top k, over k."""
    return sum(1 for label in _top(ranked, k) if label is None) / k


def rbp_residual(ranked: Sequence[Label], p: float = 0.8) -> float:
    """m_rbp_resid.c: p^n + (1 - p) sum over unjudged ranks of p^(i-1); 0 if none unjudged."""
    unjudged_ranks = [i for i, label in enumerate(ranked, start=1) if label is None]
    if not unjudged_ranks:
        return 0.0
    return p ** len(ranked) + (1 - p) * sum(p ** (i - 1) for i in unjudged_ranks)


def utility(ranked: Sequence[Label], unretrieved: Sequence[Label] = (),
            weights: tuple[float, float, float, float] = (1, -1, 0, 0), num_docs: int = 0,
            threshold: float = 1) -> float:
    """m_utility.c: a rr + b (n - rr) + c (R - rr) + d (N + rr - n - R)."""
    a, b, c, d = weights
    rr, n = _num_relevant(ranked, threshold), len(ranked)
    big_r = _num_relevant([*ranked, *unretrieved], threshold)
    return float(a * rr + b * (n - rr) + c * (big_r - rr) + d * (num_docs + rr - n - big_r))


# --------------------------------------------------------------------------
# intent-aware (diversity) metrics: ndeval 4.5, one query
# (src/ndeval.c at seanmacavaney/pyndeval@acde21d: idealResult, computeDCG,
# computeERR, computeNRBP, computePrecision, computeSTRecall, computeMAP, renormalize)


def ndeval(judged: dict[str, set[str]], ranked: Sequence[str], k: int | None,
           alpha: float = 0.5, beta: float = 0.5) -> dict[str, float]:
    """Every ndeval measure of one query at cutoff k (None: the number retrieved).

    ``judged``: each judged document's relevant subtopics (empty: judged, relevant to
    none); ``ranked``: the retrieved documents in rank order. ndeval's depth is 20;
    here it is k. nNRBP is 0 where ndeval divides 0 by 0 (no relevant document).
    """
    depth = len(ranked) if k is None else k
    per_sub: dict[str, int] = {}
    for subs in judged.values():
        for j in subs:
            per_sub[j] = per_sub.get(j, 0) + 1
    s = len(per_sub)
    out = dict.fromkeys(["alpha_dcg", "alpha_ndcg", "err_ia", "nerr_ia", "nrbp", "nnrbp",
                         "p_ia", "strecall", "ap_ia"], 0.0)
    if s == 0:
        return out

    def gains(docs: Sequence[str]) -> list[float]:
        seen: dict[str, int] = {}
        values = []
        for d in docs:
            value = 0.0
            for j in sorted(judged.get(d, set())):
                value += (1 - alpha) ** seen.get(j, 0)
                seen[j] = seen.get(j, 0) + 1
            values.append(value)
        return values

    # idealResult: greedy, ties to the larger docno (the docs scanned in docno order)
    ideal: list[str] = []
    weight: dict[str, float] = {}
    left = sorted(judged)
    while left:
        where, best = None, 0.0
        for d in left:
            score = sum(weight.get(j, 1.0) for j in sorted(judged[d]))
            if where is None or score > best or (score == best and d > where):
                where, best = d, score
        assert where is not None
        ideal.append(where)
        left.remove(where)
        for j in judged[where]:
            weight[j] = weight.get(j, 1.0) * (1 - alpha)

    run, best_list = gains(ranked), gains(ideal)

    def dcg(values: list[float]) -> float:
        return sum(g / math.log2(i + 2) for i, g in enumerate(values[:depth]))

    def err(values: list[float]) -> float:
        return sum(g / (i + 1) for i, g in enumerate(values[:depth]))

    def rbp(values: list[float]) -> float:
        return sum(g * beta**i for i, g in enumerate(values))

    ideal_dcg = s * sum((1 - alpha) ** i / math.log2(i + 2) for i in range(depth))
    ideal_err = s * sum((1 - alpha) ** i / (i + 1) for i in range(depth))
    out["alpha_dcg"] = dcg(run) if depth == 1 else dcg(run) / ideal_dcg
    out["err_ia"] = err(run) if depth == 1 else err(run) / ideal_err
    out["alpha_ndcg"] = dcg(run) / dcg(best_list) if dcg(run) else 0.0
    out["nerr_ia"] = err(run) / err(best_list) if err(run) else 0.0
    out["nrbp"] = rbp(run) * (1 - (1 - alpha) * beta) / s
    out["nnrbp"] = rbp(run) / rbp(best_list)
    top = ranked[:depth]
    out["p_ia"] = sum(len(judged.get(d, set())) for d in top) / (depth * s) if depth else 0.0
    out["strecall"] = len(set().union(*(judged.get(d, set()) for d in top))) / s
    found: dict[str, int] = {}
    total = 0.0
    for i, d in enumerate(top, start=1):
        for j in judged.get(d, set()):
            found[j] = found.get(j, 0) + 1
            total += found[j] / i / per_sub[j]
    out["ap_ia"] = total / s
    return out


# judgment pools: three states of a retrieved document (trec_eval 10.0)
# --------------------------------------------------------------------------
# These read trec_eval's relevance codes (form_res_rels.c): a label >= 0 for a judged
# document, NONPOOL for one with no qrels line, UNJUDGED for one whose qrels line
# has a negative label (in the pool, not judged).
NONPOOL = -1  # RELVALUE_NONPOOL, trec_eval.h:226
UNJUDGED = -2  # RELVALUE_UNJUDGED, trec_eval.h:227
INFAP_EPSILON = 0.00001  # trec_eval.h:239


def res_rels(ranked: Sequence[Label], pooled: Sequence[bool]) -> list[float]:
    """form_res_rels.c: each retrieved document's code, from its label and pool flag."""
    return [float(label) if label is not None else (UNJUDGED if in_pool else NONPOOL)
            for label, in_pool in zip(ranked, pooled, strict=True)]


def condensed(rels: Sequence[float]) -> list[float]:
    """form_res_rels.c:202 (``-J``): the judged documents only, in their order."""
    return [rel for rel in rels if rel >= 0]


def infap(rels: Sequence[float], num_rel: int, threshold: float = 1) -> float:
    """m_infap.c, line for line: ``rels`` in rank order, ``num_rel`` = R."""
    nonrel_so_far = rel_so_far = pool_unjudged_so_far = 0
    inf_ap = 0.0
    for j, rel in enumerate(rels):
        if rel == NONPOOL:
            continue
        if rel == UNJUDGED:
            pool_unjudged_so_far += 1
            continue
        if 0 <= rel < threshold:
            nonrel_so_far += 1
        else:
            rel_so_far += 1
            if j == 0:
                inf_ap += 1.0
            else:
                fj = float(j)
                inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                    (rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far) / fj) * (
                    (rel_so_far - 1 + INFAP_EPSILON)
                    / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON))
    return inf_ap / num_rel if num_rel else inf_ap


def relstring(rels: Sequence[float], length: int | None = 10) -> str:
    """m_relstring.c: one character per document of the first ``length``."""
    out = []
    for rel in rels[:length]:
        code = int(rel)  # trec_eval's labels are longs
        if code > 9:
            out.append(">")
        elif code >= 0:
            out.append(str(code))
        elif code == NONPOOL:
            out.append("-")
        elif code == UNJUDGED:
            out.append(".")
        else:
            out.append("<")
    return "".join(out)


def judged(rels: Sequence[float], k: int | None = None) -> float:
    """ir_measures 0.4.3, judged_provider.py: documents of the top k with a qrels line
    (negative labels too: ``did in qid_qrels``) over min(k, retrieved); 0 when empty."""
    cutoff = len(rels) if k is None else k
    top = rels[:cutoff]
    judged_c = sum(1 for rel in top if rel != NONPOOL)
    cutoff = min(cutoff, len(top))
    return judged_c / cutoff if cutoff else 0.0
# ir_measures' C/W/L measures, as cwl_eval 1.0.12 computes them
# (cwl/ruler/measures/cwl_metrics.py, cwl_*.py; cwl/ruler/ranking.py)
# --------------------------------------------------------------------------
CWL_DEPTH = 1000  # cwl_eval's max_n: rankings are padded with zero gain or cut to it


def cwl_gains(ranked: Sequence[Label], min_rel: float, max_rel: float) -> list[float]:
    """ir_measures' IrmQrelHandler: clip to [min_rel, max_rel], scale to [0, 1]; pad."""
    gains = [0.0 if label is None else (min(max(label, min_rel), max_rel) - min_rel)
             / (max_rel - min_rel) for label in ranked[:CWL_DEPTH]]
    return gains + [0.0] * (CWL_DEPTH - len(gains))


def cwl_expected_utility(cvec: Sequence[float], gains: Sequence[float]) -> float:
    """CWLMetric.w_vector and _do_score: W_i = prod_(j<i) C_j / sum; sum W_i g_i."""
    prods = [1.0]
    for c in cvec[:-1]:
        prods.append(prods[-1] * c)
    total = sum(prods)
    return sum(p / total * g for p, g in zip(prods, gains, strict=True))


def sdcg(ranked: Sequence[Label], k: int, min_rel: float, max_rel: float) -> float:
    """NDCGCWLMetric: C_i = log(i+1) / log(i+2) for i < k, else 0."""
    gains = cwl_gains(ranked, min_rel, max_rel)
    cvec = [math.log(i + 1, 2.0) / math.log(i + 2, 2.0) if i < k else 0.0
            for i in range(1, CWL_DEPTH + 1)]
    return cwl_expected_utility(cvec, gains)


def inst(ranked: Sequence[Label], target: float, min_rel: float, max_rel: float) -> float:
    """INSTCWLMetric: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - sum g."""
    gains = cwl_gains(ranked, min_rel, max_rel)
    cvec, seen = [], 0.0
    for i, g in enumerate(gains, start=1):
        seen += g
        t_i = target - seen
        cvec.append(((i + target + t_i - 1.0) / (i + target + t_i)) ** 2.0)
    return cwl_expected_utility(cvec, gains)


def insq(ranked: Sequence[Label], target: float, min_rel: float, max_rel: float) -> float:
    """INSQCWLMetric: C_i = ((i + 2T - 1) / (i + 2T))^2."""
    gains = cwl_gains(ranked, min_rel, max_rel)
    cvec = [((i + 2.0 * target - 1.0) / (i + 2.0 * target)) ** 2.0
            for i in range(1, CWL_DEPTH + 1)]
    return cwl_expected_utility(cvec, gains)


def bpm(ranked: Sequence[Label], k: int, target: float, min_rel: float,
        max_rel: float) -> float:
    """BPMCWLMetric (static): C_i = 1 while the gain so far < T and i < k (unit costs)."""
    gains = cwl_gains(ranked, min_rel, max_rel)
    cvec, seen = [], 0.0
    for i, g in enumerate(gains, start=1):
        seen += g
        cvec.append(1.0 if seen < target and i < k else 0.0)
    # the while loops stop at the first failure: C is 0 from there on
    first_zero = next((j for j, c in enumerate(cvec) if c == 0.0), len(cvec))
    cvec = [1.0 if j < first_zero else 0.0 for j in range(len(cvec))]
    return cwl_expected_utility(cvec, gains)


def nerr(ranked: Sequence[Label], equation: int, min_rel: float, max_rel: float,
         k: int = 10, p: float = 0.9, target: float = 1.0) -> float:
    """NERReq8/9/10/11CWLMetric (Azzopardi, Mackenzie & Moffat, ICTIR 2021)."""
    gains = cwl_gains(ranked, min_rel, max_rel)
    cvec = []
    for i, g in enumerate(gains, start=1):
        if equation == 8:
            c = 1.0 - g if i < k else 0.0
        elif equation == 9:
            c = i / (i + 1.0) * (1.0 - g) if i < k else 0.0
        elif equation == 10:
            c = p * (1.0 - g)
        else:
            c = ((i + 2.0 * target - 1.0) / (i + 2.0 * target)) ** 2.0 * (1.0 - g)
        cvec.append(c)
    return cwl_expected_utility(cvec, gains)


def compat(ranked: Sequence[Label], unretrieved: Sequence[Label] = (), p: float = 0.95,
           normalize: bool = True) -> float:
    """ir_measures' compat_provider.compatibility, documents named by their position.

    The ideal ranking: labels > 0, highest first; equal labels in ranking order, the
    unretrieved after the retrieved (ir_measures sorts them by run score, 0.0 for the
    unretrieved: the same order when the scores are positive).
    """
    ranking = list(range(len(ranked)))
    labels = {**dict(enumerate(ranked)),
              **{len(ranked) + j: label for j, label in enumerate(unretrieved)}}
    ideal = [d for d, label in labels.items() if label is not None and label > 0]
    ideal.sort(key=lambda d: -_as_number(labels[d]))  # stable: position order in ties
    depth = max(len(ranking), len(ideal))

    def rbo(run: list[int], best: list[int]) -> float:
        run_set: set[int] = set()
        best_set: set[int] = set()
        score = normalizer = 0.0
        weight = 1.0
        for i in range(depth):
            if i < len(run):
                run_set.add(run[i])
            if i < len(best):
                best_set.add(best[i])
            score += weight * len(best_set & run_set) / (i + 1)
            normalizer += weight
            weight *= p
        return score / normalizer if normalizer else 0.0

    score = rbo(ranking, ideal)
    if normalize:
        best = rbo(ideal, ideal)
        if best > 0.0:
            score = score / best
    return score


def accuracy(ranked: Sequence[Label], k: int | None = None,
             threshold: float = 1) -> float | None:
    """ir_measures' AccuracyEvaluator: None where it reports nothing or divides by 0."""
    nonrels = [0]
    for label in _top(ranked, k):
        if _is_relevant(label, threshold):
            nonrels.append(nonrels[-1])
        else:
            nonrels[-1] += 1
    if len(nonrels) < 2 or nonrels[-1] == 0:
        return None
    return 1.0 - sum(nonrels[:-1]) / (float(nonrels[-1]) * (len(nonrels) - 1))
