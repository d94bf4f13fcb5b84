"""Sampled-negative evaluation: Krichene & Rendle's corrected metrics (KDD 2020).

* the correction table against a direct computation of the paper's closed form:
  the full n x (m + 1) binomial matrix (SciPy's pmf), no Beta integral;
* a simulation: users' full ranks drawn from a top-heavy distribution, negatives
  sampled without replacement, the corrected mean within a tolerance of the exact
  full-ranking metric, while the plain sampled metric is far off;
* the expression: the sampled rank under each tie policy against plain Python, in
  select, group_by, over and with query=; bad lists are NaN.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy.stats import binom

import polars_rank as pr


def metric_at(metric: str, k: int, r: float) -> float:
    if r > k:
        return 0.0
    return {"recall": 1.0, "hit_rate": 1.0, "precision": 1.0 / k,
            "ndcg": 1.0 / math.log2(1.0 + r)}.get(metric, 1.0 / r)


def direct_table(metric: str, k: int | None, n: int, m: int, gamma: float) -> np.ndarray:
    """The closed form with the whole matrix A[r, s] = P(sampled rank s | full rank r)."""
    r = np.arange(1, n + 1)
    a = binom.pmf(np.arange(m + 1)[None, :], m, ((r - 1) / (n - 1))[:, None])
    p = np.full(n, 1.0 / n)
    b = np.array([metric_at(metric, k or n, float(x)) for x in r])
    ata = a.T @ (p[:, None] * a)
    c = a.T @ p
    return np.linalg.solve((1 - gamma) * ata + gamma * np.diag(c), a.T @ (p * b))


@pytest.mark.parametrize(("metric", "k", "n", "m", "gamma"), [
    ("recall", 10, 300, 20, 0.01), ("ndcg", 10, 300, 20, 0.01), ("ap", None, 300, 20, 0.1),
    ("mrr", 5, 1000, 50, 0.001), ("precision", 20, 500, 9, 1.0), ("hit_rate", 1, 200, 99, 0.05),
])
def test_table_is_the_closed_form(metric: str, k: int | None, n: int, m: int,
                                  gamma: float) -> None:
    got = np.array(pr.sampled_correction(metric, k, n_items=n, n_sampled=m,  # type: ignore[arg-type]
                                         gamma=gamma))
    want = direct_table(metric, k, n, m, gamma)
    assert got.shape == (m + 1,)
    scale = np.abs(want).max()
    assert np.abs(got - want).max() <= 1e-6 * scale, np.abs(got - want).max() / scale


@pytest.mark.parametrize(("metric", "k"), [("recall", 10), ("ndcg", 10), ("ap", None),
                                           ("recall", 100), ("mrr", 20)])
def test_corrected_estimates_recover_the_full_ranking_metric(metric: str, k: int | None) -> None:
    rng = np.random.default_rng(7)
    n, m, users = 3000, 99, 40_000
    full = np.minimum(rng.geometric(0.006, users), n)  # top-heavy full ranks
    above = rng.hypergeometric(full - 1, n - full, m)  # sampled without replacement
    exact = np.mean([metric_at(metric, k or n, float(r)) for r in full])
    frame = pl.DataFrame({"user": np.repeat(np.arange(users), m + 1),
                          "rel": np.tile([1] + [0] * m, users)})
    # row 0 of a user is the positive (score 0); of the m negatives after it, the
    # first ``above`` score 1 (ranked above it), the others -1
    position = np.tile(np.arange(m + 1), users)
    score = np.where(position == 0, 0.0,
                     np.where(position <= np.repeat(above, m + 1), 1.0, -1.0))
    frame = frame.with_columns(score=pl.Series(score))
    ask = {"by": "score", "n_items": n, "n_sampled": m, "query": "user"}
    got = frame.select(
        corrected=pr.sampled_metric(metric, "rel", k, **ask),  # type: ignore[arg-type]
        plain=pr.sampled_metric(metric, "rel", k, correction="none", **ask),  # type: ignore[arg-type]
    ).row(0, named=True)
    assert abs(got["corrected"] - exact) <= 0.1 * exact + 0.002, (got, exact)
    assert abs(got["plain"] - exact) > 0.5 * exact, (got, exact)  # the bias corrected


def sampled_rank(scores: list[float], positive: int, ties: str) -> int:
    s = scores[positive]
    above = sum(x > s for x in scores)
    tied_before = sum(x == s for x in scores[:positive])
    tied = sum(x == s for x in scores) - 1
    return 1 + above + {"first": tied_before, "optimistic": 0, "pessimistic": tied}[ties]


@pytest.mark.parametrize("ties", ["first", "optimistic", "pessimistic"])
@pytest.mark.parametrize("correction", ["bias_variance", "minimal_bias", "rank", "none"])
def test_expression_looks_the_sampled_rank_up(ties: str, correction: str) -> None:
    rng = np.random.default_rng(3)
    n, m, k = 500, 4, 3
    rows = []
    for user in range(30):
        scores = rng.choice([0.1, 0.5, 0.9], m + 1).tolist()
        positive = int(rng.integers(m + 1))
        rows += [(user % 3, user, float(x), int(i == positive)) for i, x in enumerate(scores)]
    frame = pl.DataFrame(rows, schema=["arm", "user", "score", "rel"], orient="row")
    table = pr.sampled_correction("ndcg", k, n_items=n, n_sampled=m)
    bounded = pr.sampled_correction("ndcg", k, n_items=n, n_sampled=m,
                                    correction="minimal_bias")
    want = {}
    for (user,), part in frame.group_by(["user"]):
        s = sampled_rank(part["score"].to_list(), part["rel"].to_list().index(1), ties)
        want[user] = {"bias_variance": table[s - 1], "minimal_bias": bounded[s - 1],
                      "rank": metric_at("ndcg", k, 1 + (s - 1) * (n - 1) / m),
                      "none": metric_at("ndcg", k, s)}[correction]
    expr = pr.sampled_metric("ndcg", "rel", k, by="score", n_items=n, n_sampled=m,
                             correction=correction, ties=ties)  # type: ignore[arg-type]
    per_user = frame.group_by("user").agg(expr.alias("v"))
    assert {u: pytest.approx(want[u], abs=1e-12) for u in want} == dict(per_user.iter_rows())
    over = frame.with_columns(expr.over("user").alias("v")).group_by("user").agg(
        pl.col("v").first())
    assert dict(over.iter_rows()) == dict(per_user.iter_rows())
    per_arm = frame.group_by("arm").agg(
        pr.sampled_metric("ndcg", "rel", k, by="score", n_items=n, n_sampled=m,
                          correction=correction, ties=ties, query="user").alias("v"))  # type: ignore[arg-type]
    for arm, value in per_arm.iter_rows():
        users = frame.filter(pl.col("arm") == arm)["user"].unique().to_list()
        assert value == pytest.approx(float(np.mean([want[u] for u in users])), abs=1e-12)
    lazy = frame.lazy().select(
        pr.sampled_metric("ndcg", "rel", k, by="score", n_items=n, n_sampled=m,
                          correction=correction, ties=ties, query="user")).collect()  # type: ignore[arg-type]
    assert lazy.item() == pytest.approx(float(np.mean(list(want.values()))), abs=1e-12)


@pytest.mark.parametrize("frame", [
    pl.DataFrame({"rel": [1, 1, 0], "score": [0.3, 0.2, 0.1]}),  # two positives
    pl.DataFrame({"rel": [0, 0, 0], "score": [0.3, 0.2, 0.1]}),  # none
    pl.DataFrame({"rel": [1, 0], "score": [0.3, 0.2]}),  # m + 1 = 3 rows expected
    pl.DataFrame({"rel": [1, 0, 0], "score": [0.3, None, 0.1]}),
    pl.DataFrame({"rel": [1, 0, 0], "score": [0.3, float("nan"), 0.1]}),
    pl.DataFrame({"rel": [1, -1, 0], "score": [0.3, 0.2, 0.1]}),
])
def test_bad_lists_are_nan(frame: pl.DataFrame) -> None:
    value = frame.select(pr.sampled_metric("recall", "rel", 1, by="score", n_items=10,
                                           n_sampled=2)).item()
    assert math.isnan(value)


def test_parameters_are_checked() -> None:
    ask = {"by": "score", "n_items": 100, "n_sampled": 9}
    with pytest.raises(ValueError, match="metric"):
        pr.sampled_metric("err", "rel", **ask)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_sampled must be an int from 1 to n_items - 1"):
        pr.sampled_metric("ndcg", "rel", by="score", n_items=10, n_sampled=10)
    with pytest.raises(ValueError, match="n_items must be an int >= 2"):
        pr.sampled_metric("ndcg", "rel", by="score", n_items=1.5, n_sampled=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="gamma"):
        pr.sampled_metric("ndcg", "rel", gamma=0, **ask)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="gamma"):
        pr.sampled_correction("ndcg", n_items=100, n_sampled=9, gamma=1.5)
    with pytest.raises(ValueError, match="correction"):
        pr.sampled_metric("ndcg", "rel", correction="cls", **ask)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="k"):
        pr.sampled_metric("ndcg", "rel", 0, **ask)  # type: ignore[arg-type]
