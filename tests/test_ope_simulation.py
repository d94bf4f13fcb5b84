"""Unbiased estimators are unbiased: the mean over 500 simulated logs is the true value.

Each test simulates 500 small logs as one frame (a ``log`` column) and estimates them
in one call with ``group_by="log"``; the mean of the 500 estimates must lie within
3.29 standard errors (99.9%) of the true policy value. Seeded, so deterministic; a
misreported logging propensity moves IPS out of that interval (the test can fail).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from polars_rank.online import ips_click_metric, off_policy_value

LOGS = 500
Z = 3.29


def within(estimates: pl.Series, truth: float) -> bool:
    values = estimates.to_numpy()
    return abs(values.mean() - truth) <= Z * values.std(ddof=1) / np.sqrt(values.size)


def by_estimator(out: pl.DataFrame) -> dict[str, pl.Series]:
    return {name: out.filter(pl.col("estimator") == name)["estimate"]
            for name in out["estimator"].unique(maintain_order=True)}


def test_single_slot_estimators_are_unbiased() -> None:
    rng = np.random.default_rng(0)
    pi_b, pi_e = np.array([0.4, 0.3, 0.2, 0.1]), np.array([0.1, 0.2, 0.3, 0.4])
    mu = np.array([0.2, 0.5, 0.3, 0.8])
    q_wrong = np.clip(mu + np.array([0.3, -0.2, 0.1, -0.3]), 0, 1)
    n = LOGS * 100
    action = rng.choice(4, size=n, p=pi_b)
    frame = pl.DataFrame({
        "log": np.repeat(np.arange(LOGS), 100), "impression": np.arange(n), "position": 1,
        "reward": rng.binomial(1, mu[action]).astype(float), "pscore": pi_b[action],
        "target": pi_e[action], "q_hat": q_wrong[action], "q_hat_target": pi_e @ q_wrong,
    })
    truth = float(pi_e @ mu)
    found = by_estimator(off_policy_value(frame, ("ips", "dr"), group_by="log", n_resamples=0))
    assert within(found["ips"], truth)
    assert within(found["dr"], truth)
    # DM without contexts is the model's value: exact with the true model, off without it
    true_model = frame.with_columns(pl.Series("q_hat_target", np.full(n, truth)))
    dm = by_estimator(off_policy_value(true_model, "dm", group_by="log", n_resamples=0))["dm"]
    assert (dm - truth).abs().max() <= 1e-12
    dm = by_estimator(off_policy_value(frame, "dm", group_by="log", n_resamples=0))["dm"]
    assert abs(dm.mean() - truth) > 0.05
    lied = frame.with_columns(pl.lit(0.25).alias("pscore"))  # a logger that misreports
    assert not within(by_estimator(off_policy_value(lied, "ips", group_by="log",
                                                    n_resamples=0))["ips"], truth)


def test_slate_estimators_are_unbiased() -> None:
    rng = np.random.default_rng(1)
    length, n_items, per_log = 3, 4, 40
    pi_b = rng.dirichlet(np.full(n_items, 3.0), size=length)  # per position, independent
    pi_e = rng.dirichlet(np.full(n_items, 1.0), size=length)
    mu = rng.uniform(0.1, 0.9, size=(length, n_items))
    q_hat = np.clip(mu + rng.normal(0, 0.2, size=mu.shape), 0, 1)
    n = LOGS * per_log
    items = np.stack([rng.choice(n_items, size=n, p=pi_b[k]) for k in range(length)], axis=1)
    k = np.tile(np.arange(length), n)
    item = items.ravel()
    b, e = pi_b[k, item], pi_e[k, item]
    frame = pl.DataFrame({
        "log": np.repeat(np.arange(LOGS), per_log * length),
        "impression": np.repeat(np.arange(n), length), "position": k + 1, "item": item,
        "reward": rng.binomial(1, mu[k, item]).astype(float), "pscore": b, "target": e,
        "pscore_cascade": np.cumprod(b.reshape(n, length), axis=1).ravel(),
        "target_cascade": np.cumprod(e.reshape(n, length), axis=1).ravel(),
        "pscore_slate": np.repeat(b.reshape(n, length).prod(axis=1), length),
        "target_slate": np.repeat(e.reshape(n, length).prod(axis=1), length),
        "q_hat": q_hat[k, item], "q_hat_target": (pi_e * q_hat).sum(axis=1)[k],
    })
    truth = float((pi_e * mu).sum())
    found = by_estimator(off_policy_value(frame, ("sips", "iips", "rips", "cascade-dr"),
                                          group_by="log", n_resamples=0))
    for name in ("sips", "iips", "rips", "cascade-dr"):
        assert within(found[name], truth), name


def test_ips_click_metrics_are_unbiased_under_the_position_based_model() -> None:
    rng = np.random.default_rng(2)
    n_items, per_log = 4, 60
    theta = np.array([1.0, 0.6, 0.35, 0.2])
    alpha = np.array([0.7, 0.1, 0.5, 0.3])
    target_rank = np.array([2, 4, 1, 3])  # the target ranks item 2 first, then 0, 3, 1
    n = LOGS * per_log
    shown = rng.permuted(np.tile(np.arange(n_items), (n, 1)), axis=1)  # the logger shuffles
    position = np.tile(np.arange(1, n_items + 1), n)
    item = shown.ravel()
    click = rng.binomial(1, theta[position - 1] * alpha[item])
    frame = pl.DataFrame({"log": np.repeat(np.arange(LOGS), per_log * n_items),
                          "impression": np.repeat(np.arange(n), n_items), "position": position,
                          "click": click, "target_rank": target_rank[item]})
    out = ips_click_metric(frame, ["clicks@2", "dcg@3"], examination=theta.tolist(),
                           group_by="log", n_resamples=0)
    order = np.argsort(target_rank)
    clicks_truth = float((theta[:2] * alpha[order][:2]).sum())
    dcg_truth = float((alpha[order][:3] / np.log2(np.arange(2, 5))).sum())
    assert within(out.filter(pl.col("metric") == "clicks@2")["estimate"], clicks_truth)
    assert within(out.filter(pl.col("metric") == "dcg@3")["estimate"], dcg_truth)
    naive = frame.group_by("log", "impression").agg(
        ((pl.col("target_rank") <= 2) * pl.col("click")).sum().alias("click")).group_by("log").agg(
        pl.col("click").mean().alias("estimate"))
    assert not within(naive["estimate"], clicks_truth)  # unweighted clicks are biased
