"""Plain-Python references for the beyond-accuracy metrics, written from the definitions
(MS Recommenders' python_evaluation.py b02c95e, Evidently's legacy recsys metrics
a4aa4c2, RecBole's GiniIndex): deliberately slow, loops over pairs."""

from __future__ import annotations

import itertools
import math
from collections import Counter


def entropy(items: list[object]) -> float:
    counts = Counter(items)
    n = len(items)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def gini(items: list[object], catalog: int | None = None) -> float | None:
    counts = sorted(Counter(items).values())
    if catalog is not None:
        counts = [0] * (catalog - len(counts)) + counts
    n = len(counts)
    denominator = n - 1 if catalog is None else n
    if denominator <= 0:
        return None
    return sum((2 * j - n - 1) * c for j, c in enumerate(counts, 1)) / (denominator * sum(counts))


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def ils(vectors: list[list[float]]) -> float | None:
    pairs = list(itertools.combinations(vectors, 2))
    return sum(cosine(a, b) for a, b in pairs) / len(pairs) if pairs else None


def ils_category(categories: list[object]) -> float | None:
    pairs = list(itertools.combinations(categories, 2))
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def personalization(lists: list[list[object]], k: int) -> float | None:
    pairs = list(itertools.permutations(range(len(lists)), 2))
    if not pairs:
        return None
    overlap = sum(len(set(lists[u]) & set(lists[v])) / k for u, v in pairs)
    return 1 - overlap / len(pairs)


def mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


# ------------------------------------------------ MS Recommenders' co-occurrence measures
def cooccurrence(log: list[tuple[object, object]]) -> dict[tuple[object, object], float]:
    """sim(i, j) = |U_i & U_j| / sqrt(|U_i| |U_j|) for i <= j seen together (Auralist)."""
    users_of: dict[object, set[object]] = {}
    for user, item in set(log):
        users_of.setdefault(item, set()).add(user)
    return {(a, b): len(users_of[a] & users_of[b]) / math.sqrt(len(users_of[a]) * len(users_of[b]))
            for a in users_of for b in users_of
            if a <= b and users_of[a] & users_of[b]}  # type: ignore[operator]


def user_diversity(reco: dict[object, list[object]],
                   sim: dict[tuple[object, object], float]) -> dict[object, float]:
    """1 - the mean similarity over the pairs i < j of each user's items (2 or more)."""
    out = {}
    for user, items in reco.items():
        pairs = [(a, b) for a in items for b in items if a < b]  # type: ignore[operator]
        if pairs:
            out[user] = 1 - sum(sim.get(p, 0.0) for p in pairs) / len(pairs)
    return out


def user_serendipity(reco: dict[object, list[tuple[object, float]]],
                     log: list[tuple[object, object]],
                     sim: dict[tuple[object, object], float]) -> dict[object, float]:
    """Per user in the log: the mean of (1 - mean_h sim(i, h)) * rel(i) over its rows."""
    history: dict[object, list[object]] = {}
    for user, item in log:
        history.setdefault(user, []).append(item)
    out = {}
    for user, rows in reco.items():
        if user not in history or not rows:
            continue
        values = [(1 - sum(sim.get((min(i, h), max(i, h)), 0.0)  # type: ignore[type-var]
                           for h in history[user]) / len(history[user])) * rel
                  for i, rel in rows]
        out[user] = sum(values) / len(values)
    return out
