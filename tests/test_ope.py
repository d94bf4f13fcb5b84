"""Off-policy estimators against OBP's code (tests/ope_reference.py) and OBP's own test cases."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tests.ope_reference as obp
from polars_rank.online import off_policy_value
from tests.budget import examples
from tests.ope_logs import single_slot, slate

TOL = 1e-12
SINGLE = ("ips", "snips", "dm", "dr", "switch-dr")
SLATE = ("sips", "iips", "rips", "cascade-dr")


def estimates(frame: pl.DataFrame, names: tuple[str, ...], **kwargs: object) -> dict[str, float]:
    out = off_policy_value(frame, names, n_resamples=0, **kwargs)  # type: ignore[arg-type]
    return dict(zip(out["estimator"], out["estimate"], strict=True))


def obp_single(log, *, clip=np.inf, tau=np.inf, obp=obp) -> dict[str, float]:
    """OBP's five single-slot estimates (``obp``: the transcription, or ``obp.ope``)."""
    kw = {"reward": log.reward, "action": log.action, "pscore": log.pscore,
          "position": log.position, "action_dist": log.action_dist,
          "estimated_rewards_by_reg_model": log.q_hat}
    return {
        "ips": obp.InverseProbabilityWeighting(lambda_=clip).estimate_policy_value(**kw),
        "snips": obp.SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(**kw),
        "dm": obp.DirectMethod().estimate_policy_value(**kw),
        "dr": obp.DoublyRobust(lambda_=clip).estimate_policy_value(**kw),
        "switch-dr": obp.SwitchDoublyRobust(lambda_=tau).estimate_policy_value(**kw),
    }


def obp_slate(log, *, obp=obp) -> dict[str, float]:
    """OBP's four slate estimates (``obp``: the transcription, or ``obp.ope``)."""
    a = log.arrays
    common = {"slate_id": a["slate_id"], "reward": a["reward"], "position": a["position"]}
    return {
        "sips": obp.SlateStandardIPS(len_list=log.len_list).estimate_policy_value(
            **common, pscore=a["pscore"], evaluation_policy_pscore=a["evaluation_policy_pscore"]),
        "iips": obp.SlateIndependentIPS(len_list=log.len_list).estimate_policy_value(
            **common, pscore_item_position=a["pscore_item_position"],
            evaluation_policy_pscore_item_position=a["evaluation_policy_pscore_item_position"]),
        "rips": obp.SlateRewardInteractionIPS(len_list=log.len_list).estimate_policy_value(
            **common, pscore_cascade=a["pscore_cascade"],
            evaluation_policy_pscore_cascade=a["evaluation_policy_pscore_cascade"]),
        "cascade-dr": obp.SlateCascadeDoublyRobust(
            len_list=log.len_list, n_unique_action=log.n_actions).estimate_policy_value(
            **common, action=a["action"], pscore_cascade=a["pscore_cascade"],
            evaluation_policy_pscore_cascade=a["evaluation_policy_pscore_cascade"],
            q_hat=a["q_hat"], evaluation_policy_action_dist=a["evaluation_policy_action_dist"]),
    }


def max_difference(ours: dict[str, float], theirs: dict[str, float]) -> float:
    assert ours.keys() == theirs.keys()
    return max(abs(ours[k] - theirs[k]) for k in ours)


@pytest.mark.parametrize("seed", range(8))
def test_single_slot_equals_obp(seed: int) -> None:
    log = single_slot(seed)
    assert max_difference(estimates(log.frame, SINGLE), obp_single(log)) <= TOL
    clipped = estimates(log.frame, SINGLE, clip=1.0, switch_threshold=2.0)
    assert max_difference(clipped, obp_single(log, clip=1.0, tau=2.0)) <= TOL
    assert clipped["ips"] != estimates(log.frame, ("ips",))["ips"]  # the clip did something


@pytest.mark.parametrize("seed", range(8))
def test_slates_equal_obp(seed: int) -> None:
    log = slate(seed)
    assert max_difference(estimates(log.frame, SLATE), obp_slate(log)) <= TOL


def test_row_order_and_repetition_do_not_matter() -> None:
    frame = slate(3).frame
    first = off_policy_value(frame, SLATE, seed=7, n_resamples=200)
    shuffled = off_policy_value(frame.sample(fraction=1.0, shuffle=True, seed=1), SLATE, seed=7,
                                n_resamples=200)
    assert first.equals(shuffled)
    assert first.equals(off_policy_value(frame, SLATE, seed=7, n_resamples=200))
    assert not first.equals(off_policy_value(frame, SLATE, seed=8, n_resamples=200))
    assert (first["ci_low"] <= first["estimate"]).all()
    assert (first["estimate"] <= first["ci_high"]).all()


def test_slices_are_the_filtered_logs() -> None:
    frame = single_slot(4).frame.with_columns((pl.col("impression") % 3).alias("segment"))
    sliced = off_policy_value(frame, SINGLE, group_by="segment", n_resamples=50)
    for segment in range(3):
        alone = off_policy_value(frame.filter(pl.col("segment") == segment), SINGLE,
                                 n_resamples=50)
        mine = sliced.filter(pl.col("segment") == segment).drop("segment")
        assert mine.select(pl.exclude("ci_low", "ci_high")).equals(
            alone.select(pl.exclude("ci_low", "ci_high")))


def test_target_rank_gives_the_deterministic_propensities() -> None:
    rng = np.random.default_rng(5)
    frame = slate(5, n_actions=3).frame
    ranks = frame.with_columns(
        pl.Series("target_rank", np.where(rng.uniform(size=frame.height) < 0.6,
                                          frame["position"].to_numpy(), 9)))
    hit = (pl.col("target_rank") == pl.col("position")).cast(pl.Float64)
    explicit = ranks.with_columns(hit.alias("target"), hit.cum_prod().over("impression")
                                  .alias("target_cascade"),
                                  hit.min().over("impression").alias("target_slate"))
    by_rank = estimates(ranks.drop("target", "target_cascade", "target_slate"), SLATE,
                        target_rank="target_rank")
    assert max_difference(by_rank, estimates(explicit, SLATE)) == 0.0
    assert by_rank["iips"] > 0


def test_diagnostics() -> None:
    log = single_slot(2)
    out = off_policy_value(log.frame, ("ips", "dm", "snips"), n_resamples=0, near_zero=0.1)
    w = log.frame["target"].to_numpy() / log.frame["pscore"].to_numpy()
    ips = out.row(0, named=True)
    assert ips["n_impressions"] == 40
    assert ips["n_rounds"] == 120
    assert abs(ips["ess"] - w.sum() ** 2 / (w**2).sum()) <= 1e-9
    assert ips["max_weight"] == w.max()
    assert ips["near_zero"] == (log.frame["pscore"] < 0.1).mean()
    assert out.row(1, named=True)["ess"] is None  # dm has no weights
    sips = off_policy_value(slate(1).frame, "sips", n_resamples=0).row(0, named=True)
    assert sips["n_rounds"] == sips["n_impressions"] == 30


# OBP's own tests (tests/ope/ at commit 8cbd5fa), the cases with a closed-form answer.

def test_obp_dr_variants_on_zero_rewards_and_model_give_zero() -> None:
    # test_dr_estimators.py::test_dr_variants_using_valid_input_data: switch-dr is 0.0
    log = single_slot(11).frame.with_columns(pl.lit(0.0).alias("reward"),
                                             pl.lit(0.0).alias("q_hat"),
                                             pl.lit(0.0).alias("q_hat_target"))
    assert estimates(log, ("switch-dr", "dr", "dm"), switch_threshold=0.5) == {
        "switch-dr": 0.0, "dr": 0.0, "dm": 0.0}


def test_obp_switch_dr_at_its_limits() -> None:
    # test_dr_estimators.py::test_switch_dr_using_random_evaluation_policy
    log = single_slot(12).frame
    at_zero = estimates(log, ("switch-dr", "dm"), switch_threshold=0.0)
    assert at_zero["switch-dr"] == at_zero["dm"]
    at_max = estimates(log, ("switch-dr", "dr"), switch_threshold=1e10)
    assert at_max["switch-dr"] == at_max["dr"]


def test_obp_snips_is_bounded_by_the_largest_reward() -> None:
    # test_ipw_estimators.py::test_boundedness_of_snipw_using_random_evaluation_policy
    log = single_slot(13).frame.with_columns(pl.col("pscore") ** 3)
    value = estimates(log, ("snips", "ips"))
    assert value["snips"] <= 1
    assert value["ips"] > 1  # the same log unnormalised is not bounded: the test can fail


def test_obp_cascade_dr_valid_input() -> None:
    # test_dr_estimators_slate.py::valid_input_of_slate_estimators: every slot -1 + 1 = 0
    n_rounds, len_list = 5, 3
    frame = pl.DataFrame({
        "impression": np.repeat(np.arange(n_rounds), len_list),
        "position": np.tile(np.arange(1, len_list + 1), n_rounds),
        "reward": np.zeros(n_rounds * len_list), "pscore_cascade": 1.0, "target_cascade": 1.0,
        "q_hat": 1.0, "q_hat_target": 1.0,
    })
    assert estimates(frame, ("cascade-dr",)) == {"cascade-dr": 0.0}
    assert obp.SlateCascadeDoublyRobust(len_list=3, n_unique_action=10).estimate_policy_value(
        slate_id=np.repeat(np.arange(n_rounds), len_list), action=np.zeros(15, dtype=int),
        reward=np.zeros(15), position=np.tile(np.arange(3), 5), pscore_cascade=np.ones(15),
        evaluation_policy_pscore_cascade=np.ones(15), q_hat=np.ones(150),
        evaluation_policy_action_dist=np.ones(150) / 10) == 0.0


def test_interval_agrees_with_obps_bootstrap() -> None:
    # One round per impression: OBP's bootstrap of IPS's round rewards resamples the same
    # units as ours; with 4,000 resamples each the percentile ends agree to within 0.01.
    log = single_slot(21, n_impressions=300, len_list=1)
    ours = off_policy_value(log.frame, "ips", n_resamples=4000, seed=3).row(0, named=True)
    rounds = obp.InverseProbabilityWeighting()._estimate_round_rewards(
        reward=log.reward, action=log.action, pscore=log.pscore, action_dist=log.action_dist,
        position=log.position)
    theirs = obp.estimate_confidence_interval_by_bootstrap(rounds, n_bootstrap_samples=4000,
                                                           random_state=3)
    assert abs(ours["ci_low"] - theirs["95.0% CI (lower)"]) < 0.01
    assert abs(ours["ci_high"] - theirs["95.0% CI (upper)"]) < 0.01
    assert ours["ci_high"] - ours["ci_low"] > 0.05  # a real interval, not a point


@settings(max_examples=examples(10), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shuffle=st.integers(0, 2**32 - 1))
def test_any_row_order_gives_the_same_bits(seed: int, shuffle: int) -> None:
    frame = slate(seed % 1000, n_impressions=12).frame.with_columns(
        (pl.col("impression") % 2).alias("half"))
    names = (*SLATE, "ips", "snips", "dr")
    first = off_policy_value(frame, names, group_by="half", n_resamples=50, seed=seed)
    again = off_policy_value(frame.sample(fraction=1.0, shuffle=True, seed=shuffle), names,
                             group_by="half", n_resamples=50, seed=seed)
    assert first.equals(again)
