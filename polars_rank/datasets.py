"""A reproducible synthetic A/B experiment to learn and demo with."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import polars as pl

__all__ = ["synthetic_experiment"]

DEVICES = ("mobile", "desktop")
LOCALES = ("en-US", "de-DE", "fr-FR", "ja-JP")
GRADES = (0, 1, 2, 3)
GRADE_WEIGHTS = (0.62, 0.22, 0.11, 0.05)


def synthetic_experiment(
    n_queries: int = 2000,
    arms: Sequence[str] | Mapping[str, float] = ("control", "treatment"),
    *,
    seed: int = 0,
    pool: int = 30,
    shown: int = 10,
    unjudged: float = 0.1,
) -> pl.DataFrame:
    """Generate a search A/B experiment: queries, arms, graded judgments and clicks.

    Every query has a pool of ``pool`` documents with latent relevance grades 0-3.
    Each arm ranks the pool with ``score = quality * grade + noise`` and shows its top
    ``shown``; the rest of the pool is judged but not retrieved (null score and
    position), so relevant documents an arm missed still count for recall and the
    ideal. About ``unjudged`` of the labels are null. Clicks follow a cascade model:
    the user examines results from the top, clicks with probability
    ``(2^grade - 1) / 8`` and stops after a click with probability 0.6.
    Every arm ranks every query (a paired, offline-style experiment).

    Parameters
    ----------
    n_queries
        Number of queries.
    arms
        Arm names (quality 1.0, 1.15, 1.3, ... in order), or a mapping arm -> quality.
    seed
        Random seed: the same seed gives the same frame.
    pool
        Judged documents per query.
    shown
        Documents each arm shows per query.
    unjudged
        Share of documents with no label (null ``rel``).

    Returns
    -------
    pl.DataFrame
        ``arm, qid, device, locale, docid, score, position, rel, clicked``: one row
        per (arm, query, pool document).

    Examples
    --------
    >>> import polars_rank as pr
    >>> df = pr.datasets.synthetic_experiment(n_queries=200, seed=1)
    >>> df.shape, sorted(df["arm"].unique())
    ((12000, 9), ['control', 'treatment'])
    >>> pr.evaluate(df, metrics=["ndcg@10", "mrr@10"], group_by="arm", doc="docid")
    shape: (2, 3)
    ┌───────────┬──────────┬──────────┐
    │ arm       ┆ ndcg@10  ┆ mrr@10   │
    │ ---       ┆ ---      ┆ ---      │
    │ str       ┆ f64      ┆ f64      │
    ╞═══════════╪══════════╪══════════╡
    │ control   ┆ 0.739207 ┆ 0.937917 │
    │ treatment ┆ 0.775125 ┆ 0.939583 │
    └───────────┴──────────┴──────────┘
    """
    if n_queries < 1 or pool < 1 or shown < 1:
        msg = f"n_queries, pool and shown must be >= 1, got {n_queries}, {pool}, {shown}"
        raise ValueError(msg)
    quality = (
        dict(arms) if isinstance(arms, Mapping)
        else {arm: 1.0 + 0.15 * i for i, arm in enumerate(arms)}
    )
    if not quality:
        msg = "arms must name at least one arm"
        raise ValueError(msg)
    rnd = random.Random(seed)
    columns: dict[str, list[object]] = {
        name: [] for name in
        ("arm", "qid", "device", "locale", "docid", "score", "position", "rel", "clicked")
    }
    for q in range(n_queries):
        qid = f"q{q:05d}"
        device = rnd.choices(DEVICES, weights=(0.6, 0.4))[0]
        locale = rnd.choice(LOCALES)
        grades = rnd.choices(GRADES, weights=GRADE_WEIGHTS, k=pool)
        labels = [None if rnd.random() < unjudged else g for g in grades]
        docs = [f"{qid}-d{d:03d}" for d in range(pool)]
        noise_scale = 1.2 if device == "mobile" else 1.0
        for arm, arm_quality in quality.items():
            scores = [round(arm_quality * g + rnd.gauss(0.0, noise_scale), 4) for g in grades]
            order = sorted(range(pool), key=lambda i: -scores[i])
            position = {doc_index: rank for rank, doc_index in enumerate(order[:shown], 1)}
            clicks = _cascade_clicks([grades[i] for i in order[:shown]], rnd)
            for i in range(pool):
                rank = position.get(i)
                columns["arm"].append(arm)
                columns["qid"].append(qid)
                columns["device"].append(device)
                columns["locale"].append(locale)
                columns["docid"].append(docs[i])
                columns["score"].append(scores[i] if rank is not None else None)
                columns["position"].append(rank)
                columns["rel"].append(labels[i])
                columns["clicked"].append(clicks[rank - 1] if rank is not None else None)
    return pl.DataFrame(columns, schema={
        "arm": pl.String, "qid": pl.String, "device": pl.String, "locale": pl.String,
        "docid": pl.String, "score": pl.Float64, "position": pl.Int32, "rel": pl.Int8,
        "clicked": pl.Int8,
    })


def _cascade_clicks(grades: list[int], rnd: random.Random) -> list[int]:
    """Cascade user: examine from the top, click with P(grade), stop after a click (0.6)."""
    clicks = [0] * len(grades)
    for rank, grade in enumerate(grades):
        if rnd.random() < (2**grade - 1) / 8:
            clicks[rank] = 1
            if rnd.random() < 0.6:
                break
    return clicks
