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
