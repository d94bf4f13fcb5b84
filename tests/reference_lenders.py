"""Plain-Python transcriptions of two lenders that are not installed in the tests.

Like ``reference.py`` (which has grown past the size of a module), this is a test
oracle: standard library only, never polars or polars_rank, each function read line
by line from the lender's source, keeping its quirks.

* **torchmetrics** (Lightning-AI/torchmetrics, commit dab0333, 2026-08-20; torch is
  too heavy for CI): ``src/torchmetrics/functional/retrieval/{ndcg,average_precision,
  precision,recall,r_precision,reciprocal_rank,hit_rate}.py`` for one query, and
  ``src/torchmetrics/retrieval/base.py`` (``RetrievalMetric.compute``) for the mean
  over queries with ``empty_target_action``. ``torch.topk`` and ``torch.argsort`` do
  not say how they order equal scores: here, in input order (the tests compare these
  metrics on scores without ties; NDCG averages over ties itself).
* **MS Recommenders** (recommenders-team/recommenders, commit b02c95e, 2025-09-29):
  ``recommenders/evaluation/python_evaluation.py`` (``merge_ranking_true_pred``,
  ``precision_at_k``, ``recall_at_k``, ``r_precision_at_k``, ``ndcg_at_k``, ``map``,
  ``map_at_k``, ``get_top_k_items``), pandas operations written out: a user's top k
  are sorted by prediction, ties in row order (pandas' multi-key sort is stable).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

# ------------------------------------------------------------------------- torchmetrics


def _order(preds: Sequence[float]) -> list[int]:
    """Indices by decreasing score (``topk(sorted=True)`` / ``argsort(descending=True)``)."""
    return sorted(range(len(preds)), key=lambda i: -preds[i])


def _positive_only(preds: Sequence[float], target: Sequence[float]) -> list[float]:
    """``torch.where(preds > 0, target, 0)``: a document scored <= 0 is not relevant."""
    return [t if p > 0 else 0.0 for p, t in zip(preds, target, strict=True)]


def tm_average_precision(preds: Sequence[float], target: Sequence[float],
                         top_k: int | None = None) -> float:
    """``retrieval_average_precision``: the mean precision at the hits within top_k."""
    top_k = top_k or len(preds)
    kept = _positive_only(preds, target)
    ranked = [kept[i] for i in _order(preds)[: min(top_k, len(preds))]]
    if not sum(ranked):
        return 0.0
    positions = [i + 1 for i, t in enumerate(ranked) if t > 0]
    return sum((j + 1) / p for j, p in enumerate(positions)) / len(positions)


def _tie_average_dcg(target: Sequence[float], preds: Sequence[float],
                     discount_cumsum: list[float]) -> float:
    """``_tie_average_dcg`` (sklearn's): each tie group's mean gain times its discounts."""
    values = sorted(set(preds), reverse=True)  # torch.unique(-preds): ascending -preds
    total, end = 0.0, 0
    for value in values:
        group = [t for t, p in zip(target, preds, strict=True) if p == value]
        start, end = end, end + len(group)
        discounts = discount_cumsum[end - 1] - (discount_cumsum[start - 1] if start else 0.0)
        total += sum(group) / len(group) * discounts
    return total


def _dcg_sample_scores(target: Sequence[float], preds: Sequence[float], top_k: int,
                       ignore_ties: bool) -> float:
    discount = [1.0 / math.log2(i + 2.0) for i in range(len(target))]
    discount = [d if i < top_k else 0.0 for i, d in enumerate(discount)]
    if ignore_ties:
        ranked = [target[i] for i in sorted(range(len(preds)), key=lambda i: -preds[i])]
        return sum(d * t for d, t in zip(discount, ranked, strict=True))
    cumsum = [sum(discount[: i + 1]) for i in range(len(discount))]
    return _tie_average_dcg(target, preds, cumsum)


def tm_normalized_dcg(preds: Sequence[float], target: Sequence[float],
                      top_k: int | None = None) -> float:
    """``retrieval_normalized_dcg``: linear gain, ties averaged, 0 when the ideal is 0."""
    top_k = len(preds) if top_k is None else top_k
    gain = _dcg_sample_scores(target, preds, top_k, ignore_ties=False)
    normalized = _dcg_sample_scores(target, target, top_k, ignore_ties=True)
    return 0.0 if normalized == 0 else gain / normalized


def tm_precision(preds: Sequence[float], target: Sequence[float], top_k: int | None = None,
                 adaptive_k: bool = False) -> float:
    """``retrieval_precision``: relevant in the top k over k (min(k, n) if adaptive)."""
    if top_k is None or (adaptive_k and top_k > len(preds)):
        top_k = len(preds)
    if not sum(target):
        return 0.0
    kept = _positive_only(preds, target)
    relevant = sum(kept[i] for i in _order(preds)[: min(top_k, len(preds))])
    return relevant / top_k


def tm_recall(preds: Sequence[float], target: Sequence[float],
              top_k: int | None = None) -> float:
    """``retrieval_recall``: relevant in the top k over all relevant."""
    top_k = len(preds) if top_k is None else top_k
    if not sum(target):
        return 0.0
    kept = _positive_only(preds, target)
    return sum(kept[i] for i in _order(preds)[:top_k]) / sum(target)


def tm_r_precision(preds: Sequence[float], target: Sequence[float]) -> float:
    """``retrieval_r_precision``: relevant in the top R over R (no score filter)."""
    relevant_number = int(sum(target))
    if not relevant_number:
        return 0.0
    return sum(target[i] for i in _order(preds)[:relevant_number]) / relevant_number


def tm_reciprocal_rank(preds: Sequence[float], target: Sequence[float],
                       top_k: int | None = None) -> float:
    """``retrieval_reciprocal_rank``: 1 / the first hit's position within top_k."""
    top_k = top_k or len(preds)
    kept = _positive_only(preds, target)
    ranked = [kept[i] for i in _order(preds)[: min(top_k, len(preds))]]
    for position, t in enumerate(ranked):
        if t:
            return 1.0 / (position + 1.0)
    return 0.0


def tm_hit_rate(preds: Sequence[float], target: Sequence[float],
                top_k: int | None = None) -> float:
    """``retrieval_hit_rate``: 1 if a relevant document is in the top k (no score filter)."""
    top_k = len(preds) if top_k is None else top_k
    return 1.0 if sum(target[i] for i in _order(preds)[:top_k]) > 0 else 0.0


def tm_mean(queries: Sequence[tuple[Sequence[float], Sequence[float]]],
            metric: Callable[[Sequence[float], Sequence[float]], float],
            empty_target_action: str = "neg") -> float:
    """``RetrievalMetric.compute``: the metric per query, an empty target per the action.

    A query whose targets sum to 0 scores 0 ("neg"), 1 ("pos"), is left out ("skip")
    or raises ("error"); the mean of what is left, 0.0 when nothing is.
    """
    values = []
    for preds, target in queries:
        if not sum(target):
            if empty_target_action == "error":
                msg = "`compute` method was provided with a query with no positive target."
                raise ValueError(msg)
            if empty_target_action == "pos":
                values.append(1.0)
            elif empty_target_action == "neg":
                values.append(0.0)
        else:
            values.append(metric(preds, target))
    return sum(values) / len(values) if values else 0.0


# ------------------------------------------------------------------------- MS Recommenders
Rating = tuple[object, object, float]
"""(user, item, rating or prediction), one row of a pandas frame."""


def _top_k_items(rating_pred: Sequence[Rating], k: int) -> dict[object, list[object]]:
    """``get_top_k_items``: each user's first k items by prediction, ties in row order."""
    by_user: dict[object, list[tuple[float, object]]] = defaultdict(list)
    for user, item, prediction in rating_pred:
        by_user[user].append((prediction, item))
    return {user: [item for _, item in sorted(rows, key=lambda r: -r[0])[:k]]
            for user, rows in by_user.items()}


def _merge_ranking(rating_true: Sequence[Rating], rating_pred: Sequence[Rating], k: int,
                   ) -> tuple[dict[object, list[int]], dict[object, int], int]:
    """``merge_ranking_true_pred`` (relevancy_method="top_k").

    The common users' hits (the ranks of their top-k items that are in rating_true),
    each such user's number of rating_true rows ("actual"), and the number of
    common users.
    """
    true_items: dict[object, set[object]] = defaultdict(set)
    for user, item, _ in rating_true:
        true_items[user].add(item)
    common = set(true_items) & {user for user, _, _ in rating_pred}
    top = _top_k_items([row for row in rating_pred if row[0] in common], k)
    hits = {user: [rank for rank, item in enumerate(items, 1) if item in true_items[user]]
            for user, items in top.items()}
    hits = {user: ranks for user, ranks in hits.items() if ranks}
    actual = {user: len(true_items[user]) for user in hits}
    return hits, actual, len(common)


def rec_precision_at_k(rating_true: Sequence[Rating], rating_pred: Sequence[Rating],
                       k: int) -> float:
    """``precision_at_k``: hits / k summed over users with hits, over the common users."""
    hits, _, n_users = _merge_ranking(rating_true, rating_pred, k)
    if not hits:
        return 0.0
    return sum(len(ranks) / k for ranks in hits.values()) / n_users


def rec_recall_at_k(rating_true: Sequence[Rating], rating_pred: Sequence[Rating],
                    k: int) -> float:
    """``recall_at_k``: hits / actual summed over users with hits, over the common users."""
    hits, actual, n_users = _merge_ranking(rating_true, rating_pred, k)
    if not hits:
        return 0.0
    return sum(len(ranks) / actual[user] for user, ranks in hits.items()) / n_users


def rec_r_precision_at_k(rating_true: Sequence[Rating], rating_pred: Sequence[Rating],
                         k: int) -> float:
    """``r_precision_at_k``: hits at ranks <= actual, over actual; a pandas mean.

    ``df_merged.groupby(user).size() / df_hit_count.set_index(user)['actual']``
    aligns on the users: one with hits but none at a rank <= actual is NaN, and
    ``.mean()`` skips it (as it skips the users without hits): the mean is over the
    users with a hit within the top min(actual, k) only (NaN when there is none).
    """
    hits, actual, _ = _merge_ranking(rating_true, rating_pred, k)
    if not hits:
        return 0.0
    values = [sum(1 for rank in ranks if rank <= actual[user]) / actual[user]
              for user, ranks in hits.items()]
    counted = [v for v in values if v > 0]
    return sum(counted) / len(counted) if counted else math.nan


def _rr_sums(rating_true: Sequence[Rating], rating_pred: Sequence[Rating], k: int,
             ) -> tuple[dict[object, float], dict[object, int], int]:
    """``_get_reciprocal_rank``: per user with hits, the sum of (i-th hit) i / its rank."""
    hits, actual, n_users = _merge_ranking(rating_true, rating_pred, k)
    sums = {user: sum(i / rank for i, rank in enumerate(ranks, 1)) for user, ranks in hits.items()}
    return sums, actual, n_users


def rec_map(rating_true: Sequence[Rating], rating_pred: Sequence[Rating], k: int) -> float:
    """``map``: the precision sum within the top k over actual, over the common users."""
    sums, actual, n_users = _rr_sums(rating_true, rating_pred, k)
    if not sums:
        return 0.0
    return sum(total / actual[user] for user, total in sums.items()) / n_users


def rec_map_at_k(rating_true: Sequence[Rating], rating_pred: Sequence[Rating], k: int) -> float:
    """``map_at_k``: the precision sum within the top k over min(actual, k)."""
    sums, actual, n_users = _rr_sums(rating_true, rating_pred, k)
    if not sums:
        return 0.0
    return sum(total / min(actual[user], k) for user, total in sums.items()) / n_users


def rec_ndcg_at_k(rating_true: Sequence[Rating], rating_pred: Sequence[Rating], k: int,
                  score_type: str = "binary", discfun_type: str = "loge") -> float:
    """``ndcg_at_k``: DCG of the hits over the ideal of the user's true items, cut at k.

    The frame is the hits merged (outer) with every rating_true row, so every user of
    rating_true counts, a user absent from rating_pred with DCG 0; a user whose ideal
    is 0 (score_type="raw", every rating 0) is NaN and pandas' mean skips it.
    """
    hits, _, _ = _merge_ranking(rating_true, rating_pred, k)
    if not hits:
        return 0.0
    discount = math.log if discfun_type == "loge" else math.log2
    rating = {(user, item): value for user, item, value in rating_true}

    def rel(value: float) -> float:
        return {"binary": 1.0, "raw": value, "exp": 2.0**value - 1.0}[score_type]

    top = _top_k_items([row for row in rating_pred if row[0] in hits], k)
    values = []
    for user in dict.fromkeys(user for user, _, _ in rating_true):
        dcg = sum(rel(rating[user, item]) / discount(1 + rank)
                  for rank, item in enumerate(top.get(user, []), 1) if (user, item) in rating)
        ideal = sorted((value for (u, _), value in rating.items() if u == user), reverse=True)
        idcg = sum(rel(value) / discount(1 + rank) for rank, value in enumerate(ideal[:k], 1))
        if idcg != 0:
            values.append(dcg / idcg)
        elif dcg != 0:  # x / 0 is inf in pandas; it cannot happen with non-negative gains
            values.append(math.inf)
    return sum(values) / len(values) if values else math.nan  # pandas: the mean of NaNs
