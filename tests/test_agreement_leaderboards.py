"""Agreement between leaderboards against SciPy, a plain-Python tau_AP and Sakai's procedure.

Sakai's discriminative power is computed here from scratch (every pair of systems by
scipy.stats.ttest_rel, statsmodels' multipletests over the pairs) and compared with
discriminative_power(), which goes through polars_rank.compare.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
import scipy.stats
from statsmodels.stats.multitest import multipletests

from polars_rank.agreement import (
    discriminative_power,
    leaderboard_agreement,
    leaderboard_bootstrap,
    swapped_pairs,
)
from polars_rank.errors import InvalidDataError

TOL = 1e-12


def board(seed: int, n_systems: int = 8, n_queries: int = 30) -> pl.DataFrame:
    """Per-query values of systems under two judges (long: system, qid, condition, value)."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.5, 0.1, n_systems)
    rows = []
    for s, q in itertools.product(range(n_systems), range(n_queries)):
        base = skill[s] + rng.normal(0, 0.15)
        rows.append((f"s{s}", q, "judge_1", base))
        rows.append((f"s{s}", q, "judge_2", base + rng.normal(0, 0.1)))
    return pl.DataFrame(rows, schema=["system", "qid", "condition", "value"], orient="row")


def tau_ap_reference(reference: list[str], ranked: list[str]) -> float:
    """tau_AP of ``ranked`` against ``reference`` (Yilmaz, Aslam & Robertson, SIGIR 2008)."""
    where = {x: i for i, x in enumerate(reference)}
    total = sum(sum(1 for j in range(i) if where[ranked[j]] < where[ranked[i]]) / i
                for i in range(1, len(ranked)))
    return 2.0 / (len(ranked) - 1) * total - 1.0


def means(df: pl.DataFrame, condition: str) -> dict[str, float]:
    part = (df.filter(pl.col("condition") == condition)
            .group_by("system").agg(pl.col("value").mean()))
    return dict(part.iter_rows())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_taus_are_those_of_the_system_means(seed: int) -> None:
    df = board(seed)
    out = leaderboard_agreement(df, n_resamples=200, seed=seed)
    ma, mb = means(df, "judge_1"), means(df, "judge_2")
    systems = sorted(ma)
    want = scipy.stats.kendalltau([ma[s] for s in systems], [mb[s] for s in systems])
    assert abs(out.item(0, "kendall_tau") - float(want.statistic)) < TOL
    ra = sorted(systems, key=lambda s: -ma[s])
    rb = sorted(systems, key=lambda s: -mb[s])
    assert abs(out.item(0, "tau_ap") - tau_ap_reference(ra, rb)) < TOL
    assert out.item(0, "kendall_tau_low") <= out.item(0, "kendall_tau_high")
    assert out.item(0, "tau_ap_low") <= out.item(0, "tau_ap_high")
    swaps = swapped_pairs(df)
    brute = {(a, b) for a, b in itertools.permutations(systems, 2)
             if ma[a] > ma[b] and mb[a] < mb[b]}
    assert set(zip(swaps["system_1"], swaps["system_2"], strict=True)) == brute
    assert out.item(0, "n_swaps") == len(brute)
    gaps = [ma[a] - ma[b] for a, b in brute]
    assert out.item(0, "largest_swap") == pytest.approx(max(gaps, default=0.0), abs=TOL)


def test_means_equal_but_for_rounding_tie() -> None:
    """A and B both average 0.2 under v1, but their float sums differ by 5.6e-17: a tie
    (the bootstrap's 1e-12 rule), not a swap with B (kendall_tau was 0.8165, n_swaps 1)."""
    df = pl.DataFrame({"system": ["A"] * 3 + ["B"] * 3 + ["C"] * 3, "qid": [1, 2, 3] * 3,
                       "v1": [0.1, 0.2, 0.3, 0.3, 0.2, 0.1, 0, 0, 0],
                       "v2": [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0]})
    out = leaderboard_agreement(df, value=["v1", "v2"], n_resamples=10)
    want = scipy.stats.kendalltau([0.2, 0.2, 0.0], [0.5, 0.5, 0.0]).statistic
    assert out.item(0, "kendall_tau") == pytest.approx(float(want), abs=TOL)
    assert out.item(0, "tau_ap") == 1.0
    assert out.item(0, "n_swaps") == 0
    assert out.item(0, "largest_swap") == 0.0
    assert swapped_pairs(df, value=["v1", "v2"]).height == 0
    # random boards with a copy of s0 that differs by rounding only (s0 + 0.1 - 0.1): the
    # same taus, intervals and swaps as with an exact copy, and the taus of the rounded
    # means are scipy's
    for seed in range(3):
        wide = board(seed, n_systems=6).pivot(on="condition", index=["system", "qid"],
                                              values="value")
        s0 = wide.filter(pl.col("system") == "s0")
        exact = pl.concat([wide, s0.with_columns(system=pl.lit("s9"))])
        noisy = pl.concat([wide, s0.with_columns(
            pl.lit("s9").alias("system"), (pl.col("judge_1") + 0.1) - 0.1,
            (pl.col("judge_2") * 3.0) / 3.0)])
        assert not noisy.equals(exact)
        cols = ["judge_1", "judge_2"]
        got = leaderboard_agreement(noisy, value=cols, n_resamples=200, seed=seed)
        base = leaderboard_agreement(exact, value=cols, n_resamples=200, seed=seed)
        assert got.drop("largest_swap").equals(base.drop("largest_swap"))
        assert got.item(0, "largest_swap") == pytest.approx(base.item(0, "largest_swap"),
                                                            abs=TOL)
        m = noisy.group_by("system").agg(pl.col(cols).mean().round(12)).sort("system")
        want = scipy.stats.kendalltau(m["judge_1"], m["judge_2"]).statistic
        assert got.item(0, "kendall_tau") == pytest.approx(float(want), abs=TOL)
        pairs = swapped_pairs(noisy, value=cols)
        assert "s9" not in pairs.filter(pl.col("system_1") == "s0")["system_2"].to_list()


def test_two_value_columns_equal_the_long_form() -> None:
    df = board(5)
    wide = df.pivot(on="condition", index=["system", "qid"], values="value")
    long_out = leaderboard_agreement(df, n_resamples=100, seed=3)
    wide_out = leaderboard_agreement(wide, value=["judge_1", "judge_2"], n_resamples=100, seed=3)
    assert long_out.drop("reference", "other").equals(wide_out.drop("reference", "other"))


def test_seeded_and_free_of_row_order() -> None:
    df = board(3)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=9)
    first = leaderboard_agreement(df, n_resamples=300, seed=4)
    assert first.equals(leaderboard_agreement(shuffled.lazy(), n_resamples=300, seed=4))
    assert not first.equals(leaderboard_agreement(df, n_resamples=300, seed=5))
    one = df.filter(pl.col("condition") == "judge_1")
    boot = leaderboard_bootstrap(one, n_resamples=300, seed=4)
    assert boot.equals(leaderboard_bootstrap(one.sample(fraction=1.0, shuffle=True, seed=2),
                                             n_resamples=300, seed=4))
    dist = leaderboard_bootstrap(one, n_resamples=300, seed=4, distribution=True)
    assert dist.equals(leaderboard_bootstrap(one.reverse(), n_resamples=300, seed=4,
                                             distribution=True))


def test_bootstrap_positions() -> None:
    one = board(6).filter(pl.col("condition") == "judge_1")
    boot = leaderboard_bootstrap(one, n_resamples=400, seed=1)
    m = means(board(6), "judge_1")
    assert boot.get_column("system").to_list() == sorted(m, key=lambda s: -m[s])
    assert boot.get_column("position").to_list() == list(range(1, len(m) + 1))
    assert (boot["position_low"] <= boot["position"]).all()
    assert (boot["position"] <= boot["position_high"]).all()
    dist = leaderboard_bootstrap(one, n_resamples=400, seed=1, distribution=True)
    totals = dist.group_by("system").agg(pl.col("share").sum())
    assert np.allclose(totals.get_column("share").to_numpy(), 1.0)
    firsts = dist.filter(pl.col("position") == 1).select("system", "share")
    p_first = dict(boot.select("system", "p_first").iter_rows())
    assert all(abs(p_first[s] - v) < TOL for s, v in firsts.iter_rows())
    # the positions by hand: the same draws as a plain loop over resamples
    rng = np.random.default_rng(np.random.SeedSequence(entropy=1, spawn_key=(40, 3)))
    systems = sorted(m)
    values = np.array([[v for _, v in sorted(one.filter(pl.col("qid") == q)
                                             .select("system", "value").iter_rows())]
                       for q in sorted(set(one["qid"]))])
    drawn = rng.integers(0, values.shape[0], size=(400, values.shape[0]))
    leads = np.zeros(len(systems))
    for idx in drawn:
        resample = values[idx].mean(axis=0)
        leads[int(np.argmax(resample))] += 1
    want = dict(zip(systems, leads / 400, strict=True))
    assert all(abs(p_first[s] - want[s]) < 1e-9 for s in systems)


@pytest.mark.parametrize(("correction", "method"), [("holm", "holm"), ("bonferroni", "bonferroni")])
def test_discriminative_power_is_sakais(correction: str, method: str) -> None:
    df = board(7, n_systems=6, n_queries=25).filter(pl.col("condition") == "judge_1")
    wide = df.rename({"value": "ndcg"}).with_columns(err=pl.col("ndcg") ** 2)
    out = discriminative_power(wide.drop("condition"), correction=correction)  # type: ignore[arg-type]
    for metric in ("ndcg", "err"):
        values = {s: [v for _, v in sorted(wide.filter(pl.col("system") == s)
                                           .select("qid", metric).iter_rows())]
                  for s in sorted(set(wide["system"]))}
        p = [scipy.stats.ttest_rel(values[a], values[b]).pvalue
             for a, b in itertools.combinations(sorted(values), 2)]
        reject = multipletests(p, alpha=0.05, method=method)[0]
        row = out.filter(pl.col("metric") == metric)
        assert row.item(0, "n_pairs") == len(p) == 15
        assert row.item(0, "n_significant") == int(reject.sum())
        assert abs(row.item(0, "discriminative_power") - reject.mean()) < TOL
    assert 0 < out.item(0, "n_significant") < 15  # a case where the correction matters


def test_bad_input() -> None:
    df = board(1, n_systems=3, n_queries=4)
    with pytest.raises(InvalidDataError,
                       match=r"system 's0' has no value for query 2 \(column 'qid'\)"):
        leaderboard_agreement(df.filter(~((pl.col("system") == "s0") & (pl.col("qid") == 2))))
    with pytest.raises(InvalidDataError, match=r"two rows for system 's1', query 0"):
        leaderboard_agreement(pl.concat([df, df.filter((pl.col("system") == "s1")
                                                       & (pl.col("qid") == 0))]))
    other = df.with_columns(pl.when(pl.col("condition") == "judge_2")
                            .then(pl.col("qid") + 10).otherwise(pl.col("qid")).alias("qid"))
    with pytest.raises(InvalidDataError, match=r"query 0 \(column 'qid'\) is under one condition"):
        leaderboard_agreement(other)
    with pytest.raises(InvalidDataError, match="column 'condition' must hold two conditions"):
        leaderboard_agreement(df.filter(pl.col("condition") == "judge_1"))
    nan = df.with_columns(pl.when(pl.col("qid") == 3).then(float("nan"))
                          .otherwise(pl.col("value")).alias("value"))
    with pytest.raises(InvalidDataError,
                       match=r"column 'value'.* holds nan for system 's0', query 3"):
        leaderboard_bootstrap(nan.filter(pl.col("condition") == "judge_1"))
    with pytest.raises(InvalidDataError, match=r"system 's2' has no value for query 1"):
        discriminative_power(df.filter(pl.col("condition") == "judge_1")
                             .filter(~((pl.col("system") == "s2") & (pl.col("qid") == 1))),
                             metrics="value")
    with pytest.raises(ValueError, match="n_resamples must be a positive int"):
        leaderboard_bootstrap(df.filter(pl.col("condition") == "judge_1"), n_resamples=0)
