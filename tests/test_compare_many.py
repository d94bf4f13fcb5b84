"""``compare()`` beyond two arms: all pairs, several baselines, rank tests, Tukey's HSD,
FDR and Holm-Šidák corrections, simultaneous intervals, the columns that explain a row.

References: SciPy (``ttest_rel``, ``wilcoxon``, ``mannwhitneyu``, ``binomtest``,
``tukey_hsd``) and statsmodels (``multipletests``, ``pairwise_tukeyhsd``) on the values
each row should have used.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from test_compare import per_query_frame, simulated, values

import polars_rank as pr
from polars_rank.stats import benjamini_hochberg, holm_sidak

multitest = pytest.importorskip("statsmodels.stats.multitest")


def pair_arrays(df: pl.DataFrame, arm: str, base: str, metric: str,
                **where: object) -> tuple[np.ndarray, np.ndarray]:
    a, b = values(df, arm, metric, **where), values(df, base, metric, **where)
    shared = sorted(set(a) & set(b))
    return np.array([a[q] for q in shared]), np.array([b[q] for q in shared])


def test_all_pairs_and_baseline_lists() -> None:
    df = per_query_frame()
    every = pr.compare(df, metrics="ndcg")  # baseline=None: all pairs, sorted arms
    assert list(zip(every["arm"], every["baseline"], strict=True)) == [
        ("B", "A"), ("C", "A"), ("C", "B")]
    for row in every.iter_rows(named=True):
        a, b = pair_arrays(df, row["arm"], row["baseline"], "ndcg")
        assert row["p_value"] == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-9)
    listed = pr.compare(df, metrics="ndcg", baseline=["B", "A"])
    assert sorted(zip(listed["arm"], listed["baseline"], strict=True)) == [
        ("B", "A"), ("C", "A"), ("C", "B")]  # A and B compared once
    one = pr.compare(df, metrics="ndcg", baseline="C")
    assert list(zip(one["arm"], one["baseline"], strict=True)) == [("A", "C"), ("B", "C")]
    with pytest.raises(ValueError, match="baseline 'Z' is not a value"):
        pr.compare(df, baseline=["A", "Z"])


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_wilcoxon_rows_equal_scipy(zero_method: str) -> None:
    df = per_query_frame(3).with_columns(pl.col("mrr").round(1))  # many zero differences
    out = pr.compare(df, baseline="A", test="wilcoxon", zero_method=zero_method)  # type: ignore[arg-type]
    for row in out.iter_rows(named=True):
        a, b = pair_arrays(df, row["arm"], "A", row["metric"])
        ref = sps.wilcoxon(a - b, zero_method=zero_method, method="auto").pvalue
        assert row["p_value"] == pytest.approx(ref, rel=1e-9)
        assert row["delta_ci_low"] is None and row["lift_ci_high"] is None  # noqa: PT018
        assert row["test"] == "wilcoxon"


def test_wilcoxon_unpaired_is_the_rank_sum_test_and_sign_test_counts() -> None:
    df = per_query_frame(4)
    out = pr.compare(df, baseline="A", test="wilcoxon", paired=False)
    for row in out.iter_rows(named=True):
        a = np.array(list(values(df, row["arm"], row["metric"]).values()))
        b = np.array(list(values(df, "A", row["metric"]).values()))
        ref = sps.mannwhitneyu(a, b, alternative="two-sided", method="auto").pvalue
        assert row["p_value"] == pytest.approx(ref, rel=1e-9)
        assert row["wins"] is None  # unpaired: no wins and losses
    sign = pr.compare(df, baseline="A", test="sign")
    for row in sign.iter_rows(named=True):
        a, b = pair_arrays(df, row["arm"], "A", row["metric"])
        wins, losses = int((a > b).sum()), int((a < b).sum())
        assert (row["wins"], row["ties"], row["losses"]) == (wins, int((a == b).sum()), losses)
        assert row["p_value"] == pytest.approx(sps.binomtest(wins, wins + losses).pvalue)
    with pytest.raises(ValueError, match="needs paired=True"):
        pr.compare(df, baseline="A", test="sign", paired=False)


def test_tukey_rows_equal_scipy_and_statsmodels() -> None:
    multicomp = pytest.importorskip("statsmodels.stats.multicomp")
    df = per_query_frame(5, arms=("A", "B", "C", "D"), lifts=(0.0, 0.05, -0.02, 0.1))
    out = pr.compare(df, test="tukey", metrics="ndcg", alpha=0.1)
    groups = [np.array(list(values(df, a, "ndcg").values())) for a in "ABCD"]
    ref = sps.tukey_hsd(*groups)
    ci = ref.confidence_interval(0.9)
    sm = multicomp.pairwise_tukeyhsd(np.concatenate(groups), np.repeat(list("ABCD"), 60),
                                     alpha=0.1)
    sm_p = dict(zip(zip(sm.groupsunique[sm._multicomp.pairindices[0]],
                        sm.groupsunique[sm._multicomp.pairindices[1]], strict=True),
                    sm.pvalues, strict=True))
    assert out.height == 6
    for row in out.iter_rows(named=True):
        i, j = "ABCD".index(row["arm"]), "ABCD".index(row["baseline"])
        assert row["p_value"] == row["p_adjusted"] == pytest.approx(ref.pvalue[i, j], rel=1e-9)
        assert row["p_value"] == pytest.approx(sm_p[(row["baseline"], row["arm"])], abs=1e-3)
        assert row["delta_ci_low"] == pytest.approx(ci.low[i, j], rel=1e-9)
        assert row["delta_ci_high"] == pytest.approx(ci.high[i, j], rel=1e-9)
        assert row["correction"] == "tukey"
    with pytest.raises(ValueError, match="adjusts for every pair"):
        pr.compare(df, test="tukey", correction="holm")


@pytest.mark.parametrize(("ours", "theirs"), [("bh", "fdr_bh"), ("holm-sidak", "holm-sidak"),
                                             ("holm", "holm"), ("bonferroni", "bonferroni")])
def test_corrections_equal_statsmodels(ours: str, theirs: str) -> None:
    df = per_query_frame(6, arms=("A", "B", "C", "D"), lifts=(0.0, 0.03, -0.02, 0.01))
    out = pr.compare(df, group_by="device", correction=ours)  # type: ignore[arg-type]
    for device in ("desktop", "mobile"):
        rows = out.filter(pl.col("device") == device)
        ref = multitest.multipletests(rows["p_value"].to_numpy(), method=theirs)[1]
        assert rows["p_adjusted"].to_numpy() == pytest.approx(ref, rel=1e-12)
        assert rows["significant"].to_list() == list(ref <= 0.05)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_fdr_and_holm_sidak_equal_statsmodels(p: list[float]) -> None:
    for ours, theirs in ((benjamini_hochberg, "fdr_bh"), (holm_sidak, "holm-sidak")):
        with np.errstate(divide="ignore"):  # statsmodels' log1p(-1) at p = 1
            ref = multitest.multipletests(p, method=theirs)[1]
        assert ours(p) == pytest.approx(list(ref), rel=1e-9, abs=1e-15)


def test_simultaneous_intervals_are_at_alpha_over_the_family() -> None:
    df = per_query_frame(7)
    out = pr.compare(df, baseline="A", simultaneous=True, alpha=0.1)
    m = out.height  # 2 metrics x 2 arms, one slice
    for row in out.iter_rows(named=True):
        a, b = pair_arrays(df, row["arm"], "A", row["metric"])
        ci = sps.ttest_rel(a, b).confidence_interval(1 - 0.1 / m)
        assert (row["delta_ci_low"], row["delta_ci_high"]) == pytest.approx((ci.low, ci.high))
        assert row["alpha"] == 0.1
    plain = pr.compare(df, baseline="A", alpha=0.1)
    assert ((out["delta_ci_high"] - out["delta_ci_low"])
            > (plain["delta_ci_high"] - plain["delta_ci_low"])).all()


def test_effect_size_wins_and_the_columns_that_explain_a_row() -> None:
    df = per_query_frame(8)
    out = pr.compare(df, baseline="A", metrics="ndcg")
    for row in out.iter_rows(named=True):
        a, b = pair_arrays(df, row["arm"], "A", "ndcg")
        d = a - b
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
        assert row["wins"] + row["ties"] + row["losses"] == row["n"] == d.size
        assert (row["test"], row["alternative"], row["alpha"], row["correction"]) == (
            "t", "two-sided", 0.05, "holm")
        assert row["n_resamples"] is None and row["p_floor"] is None  # noqa: PT018
    unpaired = pr.compare(df, baseline="A", metrics="ndcg", paired=False)
    for row in unpaired.iter_rows(named=True):
        a = np.array(list(values(df, row["arm"], "ndcg").values()))
        b = np.array(list(values(df, "A", "ndcg").values()))
        pooled = math.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1))
                           / (a.size + b.size - 2))
        assert row["effect_size"] == pytest.approx((a.mean() - b.mean()) / pooled)


def test_p_floor_of_the_resampling_tests() -> None:
    small = pl.DataFrame({"arm": ["A"] * 6 + ["B"] * 6, "qid": list(range(6)) * 2,
                          "m": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]})
    exact = pr.compare(small, baseline="A", test="randomization").row(0, named=True)
    assert exact["p_floor"] == 2 / 2**6 == exact["p_value"]  # every query improved: the floor
    df = per_query_frame(9)
    sampled = pr.compare(df, baseline="A", test="randomization", n_resamples=999)
    assert (sampled["p_floor"] == 2 / 1000).all()
    assert (sampled["p_value"] >= sampled["p_floor"]).all()
    assert (sampled["n_resamples"] == 999).all()
    boot = pr.compare(df, baseline="A", test="bootstrap", n_resamples=500)
    assert (boot["p_floor"] == 1 / 500).all()
    assert (boot["p_value"] >= boot["p_floor"]).all()


NEW_TESTS = [("wilcoxon", True), ("wilcoxon", False), ("sign", True), ("t", True),
             ("tukey", False)]
CORRECTIONS = [None, "holm", "holm-sidak", "bh", "bonferroni"]


@pytest.mark.slow
@pytest.mark.parametrize(("test", "paired"), NEW_TESTS)
@pytest.mark.parametrize("correction", CORRECTIONS)
def test_null_rejection_rates_of_every_test_and_correction(
        test: str, paired: bool, correction: str | None) -> None:
    """Three arms, no difference, all three pairs: without a correction each comparison
    rejects at alpha (the sign test, discrete, at most); Holm, Holm-Šidák, Bonferroni and
    BH (whose FDR is the family-wise rate when every null is true) keep the chance of
    any rejection in an experiment at most alpha; Tukey's HSD holds it at about alpha.
    Within 4 binomial standard errors over 400 experiments (Tukey: 100)."""
    if test == "tukey" and correction is not None:
        pytest.skip("Tukey's HSD is its own correction")
    # scipy's Tukey HSD integrates the studentized range per experiment: fewer of them
    n_sims, alpha = (100 if test == "tukey" else 400), 0.1
    df = simulated(n_sims, 30, lift=0.0, paired=paired, arms=("A", "B", "C"),
                   seed=CORRECTIONS.index(correction) + 7 * len(test))
    kwargs = {} if test == "tukey" else {"correction": correction}
    out = pr.compare(df, metrics="m", group_by="sim", paired=paired, test=test,  # type: ignore[arg-type]
                     alpha=alpha, **kwargs)  # type: ignore[arg-type]
    assert out.height == 3 * n_sims
    se = math.sqrt(alpha * (1 - alpha) / n_sims)
    if correction is None and test != "tukey":
        rate = out["significant"].mean()
        assert rate <= alpha + 4 * se, rate  # type: ignore[operator]
        if test != "sign":
            assert rate >= alpha - 4 * se, rate  # type: ignore[operator]
        return
    any_rejection = out.group_by("sim").agg(pl.col("significant").any())["significant"].mean()
    assert any_rejection <= alpha + 4 * se, any_rejection  # type: ignore[operator]
    if test == "tukey":
        assert any_rejection >= alpha - 4 * se, any_rejection  # type: ignore[operator]
