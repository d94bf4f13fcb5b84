"""``off_policy_value`` against OBP itself, run live, on OBP's own synthetic data.

OBP (``obp`` 0.5.7, the last release) declares Python < 3.10 and pins PyYAML 5,
scikit-learn 1.0 and torch 1.x, but its code imports and runs on Python 3.11 with
current NumPy, pandas and scikit-learn once installed without its pins (torch is
needed only because ``import obp`` loads its policy learners)::

    pip install -e ".[obp-reference]"
    pip install --no-deps --ignore-requires-python obp==0.5.7

CI does that in a step of its own (``.ci/run``, with ``POLARS_RANK_OBP=1``: a missing
OBP fails there); elsewhere this file is skipped and
tests/test_ope.py compares with OBP's estimators transcribed into
tests/ope_reference.py. Here the data, the evaluation policies and the reward
models are OBP's (``SyntheticBanditDataset``, ``SyntheticSlateBanditDataset``,
``RegressionModel``, ``SlateRegressionModel``), the estimates OBP's classes', and the
transcription is checked against them too.
"""

from __future__ import annotations

import os

import numpy as np
import polars as pl
import pytest

import tests.ope_reference as transcribed
from tests.ope_logs import SingleSlot, Slate
from tests.test_ope import estimates, obp_single, obp_slate

if os.environ.get("POLARS_RANK_OBP") == "1":  # CI's OBP step: a missing OBP fails
    import obp.dataset as obp_dataset
    import obp.ope as obp_ope
else:
    obp_dataset = pytest.importorskip("obp.dataset")
    obp_ope = pytest.importorskip("obp.ope")

TOL = 1e-12
SINGLE = ("ips", "snips", "dm", "dr", "switch-dr")
SLATE = ("sips", "iips", "rips", "cascade-dr")


def single_slot(seed: int) -> SingleSlot:
    """OBP's synthetic bandit feedback, an evaluation policy and a fitted reward model."""
    from sklearn.linear_model import LogisticRegression

    data = obp_dataset.SyntheticBanditDataset(
        n_actions=6, dim_context=3, reward_type="binary",
        reward_function=obp_dataset.logistic_reward_function,
        behavior_policy_function=obp_dataset.linear_behavior_policy, random_state=seed)
    fb = data.obtain_batch_bandit_feedback(n_rounds=400)
    # the evaluation policy: a softmax over the true expected rewards (OBP's examples)
    logits = 3.0 * fb["expected_reward"]
    dist = np.exp(logits - logits.max(axis=1, keepdims=True))
    action_dist = (dist / dist.sum(axis=1, keepdims=True))[:, :, None]
    model = obp_ope.RegressionModel(n_actions=fb["n_actions"], len_list=1,
                                    base_model=LogisticRegression(random_state=seed))
    q_hat = model.fit_predict(context=fb["context"], action=fb["action"],
                              reward=fb["reward"], position=fb["position"],
                              random_state=seed)
    n = fb["n_rounds"]
    rows, action = np.arange(n), fb["action"]
    frame = pl.DataFrame({
        "impression": rows, "position": np.ones(n, dtype=np.int64), "item": action,
        "reward": fb["reward"].astype(float), "pscore": fb["pscore"],
        "target": action_dist[rows, action, 0], "q_hat": q_hat[rows, action, 0],
        "q_hat_target": (action_dist[:, :, 0] * q_hat[:, :, 0]).sum(axis=1),
    })
    return SingleSlot(frame, fb["reward"], action, fb["pscore"], fb["position"], action_dist,
                      q_hat)


@pytest.mark.parametrize("seed", range(3))
def test_single_slot_estimators_equal_obp_on_its_synthetic_data(seed: int) -> None:
    log = single_slot(seed)
    for clip, tau in ((np.inf, np.inf), (5.0, 2.0)):
        theirs = obp_single(log, clip=clip, tau=tau, obp=obp_ope)
        extra = {} if clip == np.inf else {"clip": clip, "switch_threshold": tau}
        mine = estimates(log.frame, SINGLE, **extra)
        assert {k: abs(mine[k] - theirs[k]) for k in SINGLE} == pytest.approx(
            dict.fromkeys(SINGLE, 0.0), abs=TOL)
        again = obp_single(log, clip=clip, tau=tau, obp=transcribed)
        assert {k: abs(again[k] - theirs[k]) for k in SINGLE} == pytest.approx(
            dict.fromkeys(SINGLE, 0.0), abs=TOL)
    # the estimates are not all equal: a test of five copies of one number would pass
    assert len({round(v, 9) for v in obp_single(log, obp=obp_ope).values()}) > 2


def slate(seed: int) -> Slate:
    """OBP's synthetic slate feedback, a softmax evaluation policy and its Q-model."""
    from sklearn.ensemble import RandomForestRegressor

    len_list, n_unique = 3, 5
    data = obp_dataset.SyntheticSlateBanditDataset(
        n_unique_action=n_unique, len_list=len_list, dim_context=2, reward_type="binary",
        reward_structure="cascade_additive", click_model="cascade",
        behavior_policy_function=obp_dataset.linear_behavior_policy_logit,
        random_state=seed)
    fb = data.obtain_batch_bandit_feedback(n_rounds=150, return_pscore_item_position=True)
    rng = np.random.default_rng(seed)
    logit = rng.normal(size=(fb["n_rounds"], n_unique))
    target = data.obtain_pscore_given_evaluation_policy_logit(
        action=fb["action"], evaluation_policy_logit_=logit, return_pscore_item_position=True)
    pscore, item_position, cascade = target
    action_dist = data.calc_evaluation_policy_action_dist(
        action=fb["action"], evaluation_policy_logit_=logit)
    model = obp_ope.SlateRegressionModel(
        base_model=RandomForestRegressor(n_estimators=5, max_depth=3, random_state=seed),
        len_list=len_list, n_unique_action=n_unique, fitting_method="iw")
    q_hat = model.fit_predict(context=fb["context"], action=fb["action"],
                              reward=fb["reward"], pscore_cascade=fb["pscore_cascade"],
                              evaluation_policy_pscore_cascade=cascade,
                              evaluation_policy_action_dist=action_dist)
    n = fb["n_rounds"] * len_list
    q3 = q_hat.reshape(n, n_unique)
    frame = pl.DataFrame({
        "impression": fb["slate_id"], "position": fb["position"] + 1, "item": fb["action"],
        "reward": fb["reward"].astype(float),
        "pscore": fb["pscore_item_position"], "target": item_position,
        "pscore_slate": fb["pscore"], "target_slate": pscore,
        "pscore_cascade": fb["pscore_cascade"], "target_cascade": cascade,
        "q_hat": q3[np.arange(n), fb["action"]],
        "q_hat_target": (q3 * action_dist.reshape(n, n_unique)).sum(axis=1),
    })
    arrays = {"slate_id": fb["slate_id"], "reward": fb["reward"], "position": fb["position"],
              "action": fb["action"], "pscore": fb["pscore"], "evaluation_policy_pscore": pscore,
              "pscore_item_position": fb["pscore_item_position"],
              "evaluation_policy_pscore_item_position": item_position,
              "pscore_cascade": fb["pscore_cascade"],
              "evaluation_policy_pscore_cascade": cascade, "q_hat": q_hat,
              "evaluation_policy_action_dist": action_dist}
    return Slate(frame, arrays, len_list, n_unique)


@pytest.mark.parametrize("seed", range(3))
def test_slate_estimators_equal_obp_on_its_synthetic_data(seed: int) -> None:
    log = slate(seed)
    theirs = obp_slate(log, obp=obp_ope)
    mine = estimates(log.frame, SLATE)
    assert {k: abs(mine[k] - theirs[k]) for k in SLATE} == pytest.approx(
        dict.fromkeys(SLATE, 0.0), abs=TOL)
    again = obp_slate(log, obp=transcribed)
    assert {k: abs(again[k] - theirs[k]) for k in SLATE} == pytest.approx(
        dict.fromkeys(SLATE, 0.0), abs=TOL)
    assert len({round(v, 9) for v in theirs.values()}) > 2
