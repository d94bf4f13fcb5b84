"""Sampled metrics against Krichene & Rendle's paper itself (KDD 2020; CACM 2022).

* the corrections against the paper's criteria written out literally, in plain
  Python/NumPy (no power sums, no closed form): the bias-variance table is the
  minimiser of sum_r p(r) [(E[x | r] - M(r))^2 + gamma Var[x | r]] (its quadratic
  form read off the literal objective, then solved); the minimal-bias table reaches
  the least squared bias that SciPy's bounded least squares reaches on the literal
  n x (m + 1) matrix;
* the paper's worked example (three recommenders A, B, C over five users, n =
  10,000, 100 sampled negatives, 1000 repetitions): the exact metrics as printed, and
  our sampled metric on a simulation of the paper's sampling within Monte Carlo
  error of the printed mean and spread;
* ``ties="expected"`` against the mean over every order of the tied rows, and the
  sampled AUC against the Mann-Whitney count.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from scipy.optimize import lsq_linear

import polars_rank as pr


def paper_metric(metric: str, k: int | None, n: int, r: int) -> float:
    """M(r) of one relevant item at rank r of n (the paper's definitions)."""
    if metric == "auc":
        return (n - r) / (n - 1)
    if k is not None and r > k:
        return 0.0
    return {"recall": 1.0, "precision": 1.0 / (k or n), "ndcg": 1.0 / math.log2(r + 1),
            "ap": 1.0 / r}[metric]


def sampled_rank_law(n: int, m: int) -> np.ndarray:
    """P(sampled rank = j + 1 | full rank r): m draws with replacement, each above the
    item with probability (r - 1)/(n - 1); row r - 1, column j."""
    law = np.empty((n, m + 1))
    for r in range(1, n + 1):
        q = (r - 1) / (n - 1)
        for j in range(m + 1):
            law[r - 1, j] = math.comb(m, j) * q**j * (1 - q) ** (m - j)
    return law


def objective(x: np.ndarray, law: np.ndarray, exact: np.ndarray, gamma: float) -> float:
    """sum_r p(r) [(E[x | r] - M(r))^2 + gamma Var[x | r]], p(r) = 1/n."""
    mean = law @ x
    var = law @ (x * x) - mean**2
    return float(np.mean((mean - exact) ** 2 + gamma * var))


@pytest.mark.parametrize(("metric", "k", "n", "m", "gamma"), [
    ("recall", 10, 300, 12, 0.01), ("ndcg", 5, 200, 9, 0.1), ("ap", None, 150, 8, 1.0),
    ("precision", 3, 120, 6, 0.001), ("auc", None, 100, 5, 0.05),
])
def test_bias_variance_minimises_the_papers_objective(metric: str, k: int | None, n: int,
                                                      m: int, gamma: float) -> None:
    law = sampled_rank_law(n, m)
    exact = np.array([paper_metric(metric, k, n, r) for r in range(1, n + 1)])
    size = m + 1
    basis = np.eye(size)
    zero = objective(np.zeros(size), law, exact, gamma)
    single = [objective(basis[i], law, exact, gamma) for i in range(size)]
    # J(x) = x'Qx - 2h'x + J(0): Q and h by polarisation of the literal objective
    quad = np.empty((size, size))
    for i in range(size):
        for j in range(size):
            both = objective(basis[i] + basis[j], law, exact, gamma)
            quad[i, j] = (both - single[i] - single[j] + zero) / 2
    lin = (np.diag(quad) + zero - np.array(single)) / 2
    want = np.linalg.solve(quad, lin)
    got = np.array(pr.sampled_correction(metric, k, n_items=n, n_sampled=m,  # type: ignore[arg-type]
                                         gamma=gamma))
    assert np.abs(got - want).max() <= 1e-6 * max(1.0, np.abs(want).max()), (got, want)
    best = objective(got, law, exact, gamma)
    for step in (1e-3, -1e-3):  # and no move of one value lowers the objective
        for i in range(size):
            assert objective(got + step * basis[i], law, exact, gamma) >= best - 1e-15


@pytest.mark.parametrize(("metric", "k", "n", "m"), [
    ("recall", 10, 1000, 99), ("ndcg", 10, 400, 30), ("ap", None, 300, 20),
    ("precision", 5, 200, 9), ("ndcg", None, 150, 12), ("auc", None, 120, 7),
])
def test_minimal_bias_reaches_the_least_squared_bias(metric: str, k: int | None, n: int,
                                                     m: int) -> None:
    law = sampled_rank_law(n, m) / math.sqrt(n)  # sqrt(p(r)) P(sampled rank | r)
    exact = np.array([paper_metric(metric, k, n, r) for r in range(1, n + 1)])
    low, high = exact.min(), exact.max()  # values a full-ranking list can score
    reference = lsq_linear(law, exact / math.sqrt(n), bounds=(low, high), method="bvls",
                           tol=1e-14).x
    got = np.array(pr.sampled_correction(metric, k, n_items=n, n_sampled=m,  # type: ignore[arg-type]
                                         correction="minimal_bias"))
    assert got.shape == (m + 1,)
    assert low <= got.min()
    assert got.max() <= high

    def bias(x: np.ndarray) -> float:
        return float(np.sum((law @ x - exact / math.sqrt(n)) ** 2))

    assert abs(bias(got) - bias(reference)) <= 1e-9 * bias(reference) + 1e-15
    # and below the bias-variance table's, which pays for its lower variance
    assert bias(got) <= bias(np.clip(pr.sampled_correction(  # type: ignore[arg-type]
        metric, k, n_items=n, n_sampled=m, gamma=0.01), low, high)) + 1e-15


# The paper's worked example (its table of three recommenders A, B, C: the ranks of
# the relevant item of five users among n = 10,000 items; exact metrics; sampled
# metrics with 100 sampled items, mean +- standard deviation over 1000 repetitions).
EXAMPLE_RANKS = {"A": [100] * 5, "B": [40, 40, 8437, 9266, 4482],
                 "C": [212, 2, 743, 5342, 1548]}
EXAMPLE_EXACT = {"A": (0.990, 0.010, 0.150, 0.000), "B": (0.555, 0.010, 0.122, 0.000),
                 "C": (0.843, 0.101, 0.208, 0.200)}  # AUC, AP, NDCG, Recall@10
EXAMPLE_SAMPLED = {
    "A": ((0.990, 0.004), (0.630, 0.129), (0.724, 0.097), (1.000, 0.000)),
    "B": ((0.555, 0.014), (0.336, 0.073), (0.444, 0.054), (0.400, 0.000)),
    "C": ((0.843, 0.014), (0.325, 0.050), (0.460, 0.039), (0.567, 0.092)),
}
EXAMPLE_METRICS = (("auc", None), ("ap", None), ("ndcg", None), ("recall", 10))


def example_lists(reps: int, m: int, seed: int) -> pl.DataFrame:
    """Each recommender's five lists, ``reps`` times: the positive (score 0) and m
    negatives, the first ``above`` of them (binomial: drawn with replacement) above it."""
    rng = np.random.default_rng(seed)
    n = 10_000
    systems, reps_col, above = [], [], []
    for system, ranks in EXAMPLE_RANKS.items():
        q = (np.array(ranks) - 1) / (n - 1)
        above.append(rng.binomial(m, np.tile(q, reps)))
        systems += [system] * (reps * len(ranks))
        reps_col.append(np.repeat(np.arange(reps), len(ranks)))
    count = np.repeat(np.concatenate(above), m + 1)
    position = np.tile(np.arange(m + 1), len(systems))
    return pl.DataFrame({
        "system": np.repeat(systems, m + 1),
        "rep": np.repeat(np.concatenate(reps_col), m + 1),
        "list": np.repeat(np.arange(len(systems)), m + 1),
        "rel": (position == 0).astype(np.int8),
        "score": np.where(position == 0, 0.0, np.where(position <= count, 1.0, -1.0)),
    })


def test_the_papers_example_exact_metrics() -> None:
    n = 10_000
    for system, ranks in EXAMPLE_RANKS.items():
        got = [np.mean([paper_metric(metric, k, n, r) for r in ranks])
               for metric, k in EXAMPLE_METRICS]
        assert [round(v, 3) for v in got] == list(EXAMPLE_EXACT[system]), system


def test_the_papers_example_sampled_metrics() -> None:
    reps, m = 1000, 100
    frame = example_lists(reps, m, seed=2020)
    ask = {"by": "score", "n_items": 10_000, "n_sampled": m, "correction": "none"}
    per_rep = frame.group_by("system", "rep").agg(
        pr.sampled_metric(metric, "rel", k, query="list", **ask).alias(metric)  # type: ignore[arg-type]
        for metric, k in EXAMPLE_METRICS)
    summary = per_rep.group_by("system").agg(
        *(pl.col(metric).mean().alias(f"{metric}_mean") for metric, _ in EXAMPLE_METRICS),
        *(pl.col(metric).std().alias(f"{metric}_sd") for metric, _ in EXAMPLE_METRICS))
    for row in summary.iter_rows(named=True):
        printed = EXAMPLE_SAMPLED[row["system"]]
        for (metric, _), (mean, sd) in zip(EXAMPLE_METRICS, printed, strict=True):
            # two Monte Carlo means of 1000 repetitions each: within 4 standard errors
            tolerance = 4 * math.sqrt(2) * max(sd, 0.001) / math.sqrt(reps) + 5e-4
            assert abs(row[f"{metric}_mean"] - mean) <= tolerance, (row, metric)
            assert abs(row[f"{metric}_sd"] - sd) <= 0.12 * sd + 6e-4, (row, metric)


def brute_expected(scores: list[float], positive: int, table: list[float]) -> float:
    """The mean of table[position] over every order of the rows tied with the positive."""
    s = scores[positive]
    above = sum(x > s for x in scores)
    tied = [i for i, x in enumerate(scores) if x == s]
    values = []
    for order in itertools.permutations(tied):
        values.append(table[above + order.index(positive)])
    return sum(values) / len(values)


@pytest.mark.parametrize("correction", ["bias_variance", "minimal_bias", "rank", "none"])
def test_expected_ties_are_the_mean_over_tie_orders(correction: str) -> None:
    rng = np.random.default_rng(11)
    n, m, k = 400, 5, 3
    table = pr.sampled_correction("ndcg", k, n_items=n, n_sampled=m,
                                  correction=correction)  # type: ignore[arg-type]
    rows, want = [], {}
    for user in range(40):
        scores = rng.choice([0.2, 0.5, 0.8], m + 1).tolist()
        positive = int(rng.integers(m + 1))
        want[user] = brute_expected(scores, positive, table)
        rows += [(user, s, int(i == positive)) for i, s in enumerate(scores)]
    frame = pl.DataFrame(rows, schema=["user", "score", "rel"], orient="row")
    got = frame.group_by("user").agg(pr.sampled_metric(
        "ndcg", "rel", k, by="score", n_items=n, n_sampled=m, correction=correction,  # type: ignore[arg-type]
        ties="expected").alias("v"))
    assert dict(got.iter_rows()) == {u: pytest.approx(v, abs=1e-12) for u, v in want.items()}


def test_sampled_auc_is_the_lists_auc() -> None:
    rng = np.random.default_rng(5)
    m, rows, want = 6, [], {}
    for user in range(50):
        scores = rng.choice([0.1, 0.4, 0.7, 0.9], m + 1).tolist()
        positive = int(rng.integers(m + 1))
        s = scores[positive]
        negatives = [x for i, x in enumerate(scores) if i != positive]
        # Mann-Whitney: the share of negatives below the positive, a tie counting 1/2
        want[user] = sum((x < s) + 0.5 * (x == s) for x in negatives) / m
        rows += [(user, x, int(i == positive)) for i, x in enumerate(scores)]
    frame = pl.DataFrame(rows, schema=["user", "score", "rel"], orient="row")
    for correction in ("none", "rank"):
        got = frame.group_by("user").agg(pr.sampled_metric(
            "auc", "rel", by="score", n_items=1000, n_sampled=m, correction=correction,  # type: ignore[arg-type]
            ties="expected").alias("v"))
        assert dict(got.iter_rows()) == {u: pytest.approx(v, abs=1e-12)
                                         for u, v in want.items()}
    with pytest.raises(ValueError, match="'auc' has no cutoff"):
        pr.sampled_metric("auc", "rel", 10, by="score", n_items=1000, n_sampled=m)


def test_the_examples_table_in_the_docs_is_ours() -> None:
    """docs/recommenders.md's table of the paper's example: the printed columns are
    EXAMPLE_EXACT and EXAMPLE_SAMPLED; ours are our tables' means and spreads under
    the paper's law of the sampled rank."""
    from pathlib import Path

    from scipy.stats import binom

    page = (Path(__file__).parents[1] / "docs" / "recommenders.md").read_text()
    n, m = 10_000, 100
    names = {"AP": ("ap", None), "NDCG": ("ndcg", None), "Recall@10": ("recall", 10),
             "AUC": ("auc", None)}
    columns = [("none", 0.01), ("rank", 0.01), ("minimal_bias", 0.01),
               ("bias_variance", 0.1), ("bias_variance", 0.01), ("bias_variance", 0.001)]
    rows = 0
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 10 or cells[0] not in EXAMPLE_RANKS or cells[1] not in names:
            continue
        rows += 1
        system, (metric, k) = cells[0], names[cells[1]]
        index = [name for name, _ in EXAMPLE_METRICS].index(metric)
        assert float(cells[2]) == EXAMPLE_EXACT[system][index]
        assert cells[3] == "{:.3f} ± {:.3f}".format(*EXAMPLE_SAMPLED[system][index])
        law = binom.pmf(np.arange(m + 1)[None, :], m,
                        ((np.array(EXAMPLE_RANKS[system]) - 1) / (n - 1))[:, None])
        for cell, (correction, gamma) in zip(cells[4:], columns, strict=True):
            table = np.array(pr.sampled_correction(metric, k, n_items=n, n_sampled=m,  # type: ignore[arg-type]
                                                   correction=correction, gamma=gamma))  # type: ignore[arg-type]
            mean = law @ table
            spread = math.sqrt(float(np.sum(law @ table**2 - mean**2))) / len(mean)
            want = f"{mean.mean():.3f} ± {spread:.3f}".replace("-", "\N{MINUS SIGN}")
            assert cell == want, (system, metric, correction, gamma)
    assert rows == 12
