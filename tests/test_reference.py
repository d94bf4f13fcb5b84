"""Tests for the slow reference oracle in ``reference.py``.

1. Hand-checked examples.
2. Agreement with trec_eval (through pytrec_eval) on random data.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import pytest
import pytrec_eval
import reference as ref

# --------------------------------------------------------------------------
# 1. hand-checked examples
# --------------------------------------------------------------------------


def close(a: float | None, b: float, tol: float = 1e-12) -> bool:
    return a is not None and abs(a - b) <= tol


def test_average_precision_hand() -> None:
    ranked = [1, 0, 1, 0, 1]  # R N R N R, R = 3
    assert close(ref.average_precision(ranked), (1 + 2 / 3 + 3 / 5) / 3)
    # an unretrieved relevant doc raises R to 4
    assert close(ref.average_precision(ranked, unretrieved=[2]), (1 + 2 / 3 + 3 / 5) / 4)
    # AP@2 still divides by R = 3
    assert close(ref.average_precision(ranked, k=2), 1 / 3)


def test_ndcg_hand() -> None:
    assert close(ref.ndcg([3, 2, 1]), 1.0)
    dcg_231 = 3 / 1 + 7 / math.log2(3) + 1 / 2  # 7.91650...
    idcg = 7 / 1 + 3 / math.log2(3) + 1 / 2  # 9.39278...
    assert close(ref.dcg([2, 3, 1]), dcg_231)
    assert abs(dcg_231 - 7.91651) < 1e-5
    assert abs(idcg - 9.39279) < 1e-5
    assert close(ref.ndcg([2, 3, 1]), dcg_231 / idcg)
    assert abs(ref.ndcg([2, 3, 1]) - 0.84283) < 1e-5
    # linear gain, unjudged = 0, and an unretrieved doc in the ideal ranking
    assert close(ref.dcg([None, 2], gain="linear"), 2 / math.log2(3))
    assert close(
        ref.ndcg([None, 2], unretrieved=[1], gain="linear"),
        (2 / math.log2(3)) / (2 + 1 / math.log2(3)),
    )
    assert ref.ndcg([0, None, 0], unretrieved=[0]) == 0.0


def test_err_hand() -> None:
    # R = (3/8, 7/8, 0): 3/8 + (1/2)(7/8)(5/8) = 0.6484375
    assert close(ref.err([2, 3, 0], max_grade=3), 0.6484375)
    assert close(ref.err([2, 3, 0], k=1, max_grade=3), 0.375)
    assert ref.err([]) == 0.0


def test_rank_correlation_hand() -> None:
    assert close(ref.rank_correlation([1, 0, 1]), 2 / 3)
    assert ref.rank_correlation([3, 2, 2, None]) == 1.0
    assert ref.rank_correlation([0, 1]) == 0.0
    assert ref.rank_correlation([5]) == 1.0


def test_auc_hand() -> None:
    scores = [0.9, 0.8, 0.7, 0.7, 0.1]
    labels = [1, 0, 2, None, 1]
    # positives: 0.9, 0.7, 0.1 ; negatives: 0.8, 0.7
    # 0.9 beats both (2); 0.7 loses to 0.8 and ties 0.7 (0.5); 0.1 loses both (0)
    assert close(ref.auc(scores, labels), 2.5 / 6)
    assert ref.auc([1.0, 2.0], [1, 1]) is None
    assert ref.auc([1.0, 2.0], [0, None]) is None
    assert ref.auc([2.0, 1.0], [1, 0]) == 1.0


def test_binary_hand() -> None:
    ranked = [0, None, 2, 1]
    assert close(ref.precision(ranked, k=2), 0.0)
    assert close(ref.precision(ranked, k=10), 2 / 10)  # trec_eval: divide by k
    assert close(ref.precision(ranked), 2 / 4)
    assert ref.precision([]) == 0.0
    assert close(ref.recall(ranked, unretrieved=[1, 0], k=3), 1 / 3)
    assert ref.recall([0, None], unretrieved=[0]) == 0.0
    p, r = 2 / 10, 2 / 3
    assert close(ref.f1(ranked, unretrieved=[1], k=10), 2 * p * r / (p + r))
    assert ref.f1([0], k=1) == 0.0
    assert close(ref.reciprocal_rank(ranked), 1 / 3)
    assert ref.reciprocal_rank(ranked, k=2) == 0.0
    assert ref.hit_rate(ranked, k=3) == 1.0
    assert ref.hit_rate(ranked, k=2) == 0.0
    assert close(ref.reciprocal_rank(ranked, threshold=2), 1 / 3)
    assert close(ref.r_precision(ranked, unretrieved=[3, 3]), 2 / 4)  # R = 4
    assert close(ref.r_precision(ranked, unretrieved=[3, 3, 3]), 2 / 5)  # R = 5 > len
    assert close(ref.r_precision([1], unretrieved=[1, 1]), 1 / 3)
    assert close(ref.rbp([1, 0, 1], p=0.5), 0.5 * (1 + 0.25))
    assert close(ref.rbp([1, 0, 1], p=0.5, k=2), 0.5)


def test_bpref_hand() -> None:
    # R = 2, N = 3 (one unretrieved): relevant at rank 2 has 1 nonrel above,
    # relevant at rank 5 has 2 nonrel above (the unjudged doc is skipped)
    ranked = [0, 1, None, 0, 1]
    assert close(ref.bpref(ranked, unretrieved=[0]), ((1 - 1 / 2) + (1 - 2 / 2)) / 2)
    # N < R: the denominator is min(N, R) = 1
    assert close(ref.bpref([1, 0, 1, 1], unretrieved=[]), (1 + 0 + 0) / 3)
    assert ref.bpref([0, None]) == 0.0
    assert ref.bpref([None, 1]) == 1.0


def test_click_metrics_hand() -> None:
    clicks = [0, None, 1, 2, 0]
    assert ref.abandonment(clicks) == 0.0
    assert ref.abandonment(clicks, k=2) == 1.0
    assert ref.abandonment([]) == 1.0  # nothing shown, nothing clicked
    assert close(ref.first_click_rr(clicks), 1 / 3)
    assert ref.first_click_rr(clicks, k=2) == 0.0
    assert ref.clicks_per_query(clicks) == 3.0
    assert ref.clicks_per_query(clicks, k=3) == 1.0
    dwell = [None, 4.0, 30.0, 0.0, None]
    assert close(ref.mean_dwell(dwell), (4 + 30 + 0) / 3)
    assert close(ref.mean_dwell(dwell, clicks=clicks), (30 + 0) / 2)
    assert ref.mean_dwell(dwell, k=2, clicks=clicks) is None
    assert ref.mean_dwell([None, None]) is None


def test_ctr_hand() -> None:
    assert close(ref.ctr([1, 0, None, 2]), 3 / 4)
    assert close(ref.ctr([1, 0, None, 2], k=2), 1 / 2)
    assert close(ref.ctr([1, 0], k=10), 1 / 2)  # divides by items shown
    assert ref.ctr([]) == 0.0


def test_bad_cutoff() -> None:
    with pytest.raises(ValueError, match="cutoff"):
        ref.precision([1], k=0)


# --------------------------------------------------------------------------
# 2. agreement with trec_eval (pytrec_eval)
# --------------------------------------------------------------------------
MEASURES = {
    "ndcg",
    "ndcg_cut.5,10",
    "map",
    "map_cut.5,10",
    "recip_rank",
    "P.5,10",
    "recall.5,10",
    "Rprec",
    "bpref",
    "success.1,5,10",
}
CUTOFFS = (5, 10)


@dataclass
class Query:
    ranked: list[int | None] = field(default_factory=list)  # None = absent from qrels
    unretrieved: list[int] = field(default_factory=list)


def random_queries(seed: int) -> dict[str, Query]:
    rng = random.Random(seed)
    queries: dict[str, Query] = {}
    for q in range(rng.randint(1, 8)):
        no_relevant = rng.random() < 0.25
        grades = [0] if no_relevant else [0, 0, 1, 2, 3]
        choices: list[int | None] = [None, *grades]
        query = Query()
        for _ in range(rng.randint(0, 30)):
            query.ranked.append(rng.choice(choices))
        for _ in range(rng.randint(0, 12)):
            query.unretrieved.append(rng.choice(grades))
        queries[f"q{q}"] = query
    return queries


def to_trec(queries: dict[str, Query], seed: int) -> tuple[dict, dict]:
    rng = random.Random(10_000 + seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qid, query in queries.items():
        # distinct scores, decreasing with rank; doc ids deliberately not in rank order
        scores = sorted(rng.sample(range(1, 1_000_000), len(query.ranked)), reverse=True)
        judged: dict[str, int] = {}
        run[qid] = {}
        for rank, (label, score) in enumerate(zip(query.ranked, scores, strict=True)):
            doc = f"r{rng.randrange(10**6)}_{rank}"
            run[qid][doc] = score / 7.0
            if label is not None:
                judged[doc] = label
        for i, label in enumerate(query.unretrieved):
            judged[f"u{i}"] = label
        if judged:  # a qrels entry needs at least one judgement
            qrels[qid] = judged
    run["only_in_run"] = {"x": 1.0}
    qrels["only_in_qrels"] = {"x": 1}
    return qrels, run


def expected(query: Query) -> dict[str, float]:
    ranked, unret = query.ranked, query.unretrieved
    out = {
        "ndcg": ref.ndcg(ranked, unret, gain="linear"),
        "map": ref.average_precision(ranked, unret),
        "recip_rank": ref.reciprocal_rank(ranked),
        "Rprec": ref.r_precision(ranked, unret),
        "bpref": ref.bpref(ranked, unret),
    }
    for k in CUTOFFS:
        out[f"ndcg_cut_{k}"] = ref.ndcg(ranked, unret, k=k, gain="linear")
        out[f"map_cut_{k}"] = ref.average_precision(ranked, unret, k=k)
        out[f"P_{k}"] = ref.precision(ranked, k=k)
        out[f"recall_{k}"] = ref.recall(ranked, unret, k=k)
    for k in (1, 5, 10):
        out[f"success_{k}"] = ref.hit_rate(ranked, k=k)
    return out


@pytest.mark.parametrize("seed", range(30))
def test_agrees_with_trec_eval(seed: int) -> None:
    queries = random_queries(seed)
    qrels, run = to_trec(queries, seed)
    results = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)

    # pytrec_eval reports exactly the queries present in both qrels and run
    assert set(results) == set(qrels) & set(run)
    assert "only_in_run" not in results
    assert "only_in_qrels" not in results

    compared = 0
    for qid, got in results.items():
        want = expected(queries[qid])
        assert set(want) == set(got)
        for measure, value in want.items():
            assert abs(got[measure] - value) <= 1e-9, (
                seed,
                qid,
                measure,
                got[measure],
                value,
                queries[qid],
            )
            compared += 1
    assert compared > 0


def test_random_data_covers_edge_cases() -> None:
    """The random generator really produces the interesting situations."""
    seen = {
        "empty_run": False,
        "no_relevant": False,
        "fewer_ret_than_R": False,
        "unjudged_ret": False,
    }
    for seed in range(30):
        qrels, _ = to_trec(random_queries(seed), seed)
        for qid, query in random_queries(seed).items():
            if qid not in qrels:
                continue
            num_rel = sum(
                1 for x in [*query.ranked, *query.unretrieved] if x is not None and x >= 1
            )
            seen["empty_run"] |= not query.ranked
            seen["no_relevant"] |= num_rel == 0
            seen["fewer_ret_than_R"] |= 0 < len(query.ranked) < num_rel
            seen["unjudged_ret"] |= None in query.ranked
    assert all(seen.values()), seen
