"""Brute force for uncertain labels: every labelling of a short list, weighted by its probability.

For one query whose labelled documents each have a distribution over grades
(independent across documents), :func:`enumerate_labellings` lists every assignment
(``itertools.product`` over the supports) with its probability, the product of its
grades' probabilities. :func:`brute_force` computes each metric on every assignment
with the package's own :func:`polars_rank.evaluate` (the assignments as separate
queries of one call; a plain formula would do as well but this is the definition the
expectations must agree with) and returns its expectation, minimum and maximum.
Deliberately slow: lists of up to 8 labelled documents.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import polars as pl

import polars_rank as pr

if TYPE_CHECKING:
    from collections.abc import Sequence


def enumerate_labellings(
    support: dict[str, list[tuple[float, float]]],
) -> list[tuple[dict[str, float], float]]:
    """Every assignment {doc: grade} with its probability (``support``: doc -> [(grade, p)])."""
    docs = sorted(support)
    out = []
    for choice in itertools.product(*(support[d] for d in docs)):
        grades = {d: g for d, (g, _) in zip(docs, choice, strict=True)}
        out.append((grades, math.prod(p for _, p in choice)))
    return out


def brute_force(
    run: list[tuple[str, float | None]],
    support: dict[str, list[tuple[float, float]]],
    metrics: Sequence[str],
) -> dict[str, tuple[float, float, float]]:
    """metric -> (expected value, min, max) over every labelling of one query.

    ``run``: (doc, score) of the retrieved documents; ``support``: each labelled
    document's [(grade, probability)] (documents not in the run are judged, not
    retrieved; documents of the run not in it are unjudged).
    """
    labellings = enumerate_labellings(support)
    runs = pl.DataFrame(
        {"qid": [i for i in range(len(labellings)) for _ in run],
         "docid": [d for _ in labellings for d, _ in run],
         "score": [s for _ in labellings for _, s in run]},
        schema={"qid": pl.Int64, "docid": pl.String, "score": pl.Float64})
    qrels = pl.DataFrame(
        {"qid": [i for i, (grades, _) in enumerate(labellings) for _ in grades],
         "docid": [d for grades, _ in labellings for d in grades],
         "rel": [g for grades, _ in labellings for g in grades.values()]},
        schema={"qid": pl.Int64, "docid": pl.String, "rel": pl.Float64})
    values = pr.evaluate(runs, qrels, list(metrics), per_query=True).sort("qid")
    weights = [p for _, p in labellings]
    out = {}
    for metric in metrics:
        column = values[metric].to_list()
        assert len(column) == len(weights)
        out[metric] = (math.fsum(v * w for v, w in zip(column, weights, strict=True)),
                       min(column), max(column))
    return out


def reciprocal_rank(probabilities: list[float]) -> float:
    """E[RR] of a list whose i-th document is relevant with ``probabilities[i]`` (plain formula)."""
    total, none_yet = 0.0, 1.0
    for i, p in enumerate(probabilities, start=1):
        total += none_yet * p / i
        none_yet *= 1 - p
    return total
