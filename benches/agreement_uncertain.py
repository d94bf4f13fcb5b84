"""Expected nDCG@10 and AP under uncertain labels: evaluate_uncertain's Monte Carlo vs NumPy.

Q queries x D documents, continuous scores (no ties), each document's label a
distribution over grades 0, 1, 2; S label draws. Ours: ``evaluate_uncertain(run,
labels, ["ndcg@10", "map"], samples=S)`` (each list ranked once, the S draws' labels
drawn in place in a Polars plan and the metrics read from the positions). The
reference: a plain NumPy loop over the S draws, each vectorised over queries
(inverse-CDF sampling, nDCG@10 with linear gain and the ideal over every judged
document, AP with R the judged relevant documents). Different random streams:
the two means must agree within their Monte Carlo errors (printed). Wall and CPU
times (the process's, every thread; on a shared machine the CPU ratio is the steadier
one), one round each, imports and data generation excluded:

    python benches/agreement_uncertain.py [--queries 10000] [--docs 100] [--samples 100]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl

from polars_rank.agreement import evaluate_uncertain


def data(queries: int, docs: int) -> tuple[np.ndarray, np.ndarray]:
    """Scores (Q, D) and grade probabilities (Q, D, 3)."""
    rng = np.random.default_rng(0)
    scores = rng.random((queries, docs))
    weights = rng.random((queries, docs, 3)) * np.array([3.0, 1.0, 0.5])
    return scores, weights / weights.sum(axis=2, keepdims=True)


def frames(scores: np.ndarray, probs: np.ndarray) -> tuple[pl.DataFrame, pl.DataFrame]:
    queries, docs = scores.shape
    qid = np.repeat(np.arange(queries), docs)
    docid = np.tile(np.arange(docs), queries)
    run = pl.DataFrame({"qid": qid, "docid": docid, "score": scores.ravel()})
    labels = pl.DataFrame({"qid": np.repeat(qid, 3), "docid": np.repeat(docid, 3),
                           "grade": np.tile([0.0, 1.0, 2.0], queries * docs),
                           "probability": probs.ravel()})
    return run, labels


def numpy_reference(scores: np.ndarray, probs: np.ndarray, samples: int,
                    k: int = 10) -> dict[str, tuple[float, float]]:
    """Mean over queries of the per-query Monte Carlo means, and its standard error."""
    rng = np.random.default_rng(1)
    order = np.argsort(-scores, axis=1)
    sorted_probs = np.take_along_axis(probs, order[:, :, None], axis=1)
    cdf = np.cumsum(sorted_probs, axis=2)
    discount = 1.0 / np.log2(np.arange(2, k + 2))
    ranks = np.arange(1, scores.shape[1] + 1)
    ndcg = np.empty((samples, scores.shape[0]))
    ap = np.empty_like(ndcg)
    for s in range(samples):  # the loop over draws; each draw vectorised over queries
        u = rng.random(scores.shape)
        grades = (u[:, :, None] >= cdf[:, :, :2]).sum(axis=2).astype(float)
        dcg = (grades[:, :k] * discount).sum(axis=1)
        ideal = (-np.sort(-grades, axis=1)[:, :k] * discount).sum(axis=1)
        ndcg[s] = np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1), 0.0)
        relevant = grades >= 1
        hits = np.cumsum(relevant, axis=1)
        r = relevant.sum(axis=1)
        ap[s] = np.where(r > 0, (relevant * hits / ranks).sum(axis=1) / np.maximum(r, 1), 0.0)
    out = {}
    for name, values in (("ndcg@10", ndcg), ("map", ap)):
        se_q = values.std(axis=0, ddof=1) / np.sqrt(samples)
        out[name] = (float(values.mean()), float(np.sqrt((se_q ** 2).sum()) / values.shape[1]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    scores, probs = data(args.queries, args.docs)
    run, labels = frames(scores, probs)
    t, c = time.perf_counter(), time.process_time()
    ours = evaluate_uncertain(run, labels, ["ndcg@10", "map"], samples=args.samples).mean
    t_ours, c_ours = time.perf_counter() - t, time.process_time() - c
    t, c = time.perf_counter(), time.process_time()
    reference = numpy_reference(scores, probs, args.samples)
    t_ref, c_ref = time.perf_counter() - t, time.process_time() - c
    print(f"{args.queries} queries x {args.docs} docs, S={args.samples}: "
          f"polars-rank {t_ours:.2f} s, NumPy loop {t_ref:.2f} s, ratio {t_ours / t_ref:.2f}x "
          f"(CPU {c_ours:.2f} s against {c_ref:.2f} s, {c_ours / c_ref:.2f}x)")
    for row in ours.iter_rows(named=True):
        mean, se = reference[row["metric"]]
        z = abs(row["value"] - mean) / (row["se"] ** 2 + se ** 2) ** 0.5
        print(f"  {row['metric']}: ours {row['value']:.5f} +- {row['se']:.5f}, "
              f"NumPy {mean:.5f} +- {se:.5f} (z = {z:.2f})")


if __name__ == "__main__":
    main()
