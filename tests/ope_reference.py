"""OBP's off-policy estimators, transcribed: the reference of ``polars_rank.online``'s.

Open Bandit Pipeline (st-tech/zr-obp), commit 8cbd5fa4558b7ad2ba4781546d6604e4cc3e07c4,
Apache 2.0 (Copyright (c) Yuta Saito, Yusuke Narita, and ZOZO Technologies, Inc.).
OBP does not install here (it pins old scikit-learn/NumPy), so the estimators' code is
copied: ``_estimate_round_rewards`` and ``estimate_policy_value`` of

- ``obp/ope/estimators.py``: ``InverseProbabilityWeighting``,
  ``SelfNormalizedInverseProbabilityWeighting``, ``DirectMethod``, ``DoublyRobust``,
  ``SwitchDoublyRobust``;
- ``obp/ope/estimators_slate.py``: ``SlateStandardIPS``, ``SlateIndependentIPS``,
  ``SlateRewardInteractionIPS``, ``SlateCascadeDoublyRobust``;

and ``estimate_confidence_interval_by_bootstrap`` of ``obp/utils.py``. Left out: the
input checks (``check_ope_inputs`` and friends), ``use_estimated_pscore`` and the MSE
scores used for tuning; nothing else is changed but the docstrings.
"""

# ruff: noqa: UP045, C408  (OBP's spelling, kept as transcribed)
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np


@dataclass
class InverseProbabilityWeighting:
    """obp/ope/estimators.py, class InverseProbabilityWeighting."""

    lambda_: float = np.inf
    estimator_name: str = "ipw"

    def _estimate_round_rewards(self, reward, action, pscore, action_dist,
                                position: Optional[np.ndarray] = None, **kwargs):
        if position is None:
            position = np.zeros(action_dist.shape[0], dtype=int)

        iw = action_dist[np.arange(action.shape[0]), action, position] / pscore
        # weight clipping
        if isinstance(iw, np.ndarray):
            iw = np.minimum(iw, self.lambda_)
        return reward * iw

    def estimate_policy_value(self, reward, action, action_dist, pscore=None, position=None,
                              **kwargs):
        if position is None:
            position = np.zeros(action_dist.shape[0], dtype=int)
        return self._estimate_round_rewards(
            reward=reward, action=action, position=position, pscore=pscore,
            action_dist=action_dist,
        ).mean()


@dataclass
class SelfNormalizedInverseProbabilityWeighting(InverseProbabilityWeighting):
    """obp/ope/estimators.py, class SelfNormalizedInverseProbabilityWeighting."""

    estimator_name: str = "snipw"

    def _estimate_round_rewards(self, reward, action, pscore, action_dist,
                                position: Optional[np.ndarray] = None, **kwargs):
        if position is None:
            position = np.zeros(action_dist.shape[0], dtype=int)

        iw = action_dist[np.arange(action.shape[0]), action, position] / pscore
        return reward * iw / iw.mean()


@dataclass
class DirectMethod:
    """obp/ope/estimators.py, class DirectMethod."""

    estimator_name: str = "dm"

    def _estimate_round_rewards(self, action_dist, estimated_rewards_by_reg_model,
                                position: Optional[np.ndarray] = None, **kwargs):
        if position is None:
            position = np.zeros(action_dist.shape[0], dtype=int)

        n = position.shape[0]
        q_hat_at_position = estimated_rewards_by_reg_model[np.arange(n), :, position]
        pi_e_at_position = action_dist[np.arange(n), :, position]
        return np.average(
            q_hat_at_position,
            weights=pi_e_at_position,
            axis=1,
        )

    def estimate_policy_value(self, action_dist, estimated_rewards_by_reg_model,
                              position=None, **kwargs):
        if position is None:
            position = np.zeros(action_dist.shape[0], dtype=int)
        return self._estimate_round_rewards(
            position=position,
            estimated_rewards_by_reg_model=estimated_rewards_by_reg_model,
            action_dist=action_dist,
        ).mean()


@dataclass
class DoublyRobust:
    """obp/ope/estimators.py, class DoublyRobust."""

    lambda_: float = np.inf
    estimator_name: str = "dr"

    def _estimate_round_rewards(self, reward, action, pscore, action_dist,
                                estimated_rewards_by_reg_model,
                                position: Optional[np.ndarray] = None, **kwargs):
        if position is None:
            position = np.zeros(action_dist.shape[0], dtype=int)
        n = action.shape[0]
        iw = action_dist[np.arange(n), action, position] / pscore
        # weight clipping
        if isinstance(iw, np.ndarray):
            iw = np.minimum(iw, self.lambda_)
        q_hat_at_position = estimated_rewards_by_reg_model[np.arange(n), :, position]
        q_hat_factual = estimated_rewards_by_reg_model[np.arange(n), action, position]
        pi_e_at_position = action_dist[np.arange(n), :, position]
        estimated_rewards = np.average(
            q_hat_at_position,
            weights=pi_e_at_position,
            axis=1,
        )
        estimated_rewards += iw * (reward - q_hat_factual)
        return estimated_rewards

    def estimate_policy_value(self, reward, action, action_dist,
                              estimated_rewards_by_reg_model, pscore=None, position=None,
                              **kwargs):
        if position is None:
            position = np.zeros(action_dist.shape[0], dtype=int)
        return self._estimate_round_rewards(
            reward=reward, action=action, position=position, pscore=pscore,
            action_dist=action_dist,
            estimated_rewards_by_reg_model=estimated_rewards_by_reg_model,
        ).mean()


@dataclass
class SwitchDoublyRobust(DoublyRobust):
    """obp/ope/estimators.py, class SwitchDoublyRobust."""

    lambda_: float = np.inf
    estimator_name: str = "switch-dr"

    def _estimate_round_rewards(self, reward, action, pscore, action_dist,
                                estimated_rewards_by_reg_model,
                                position: Optional[np.ndarray] = None, **kwargs):
        n = action.shape[0]
        iw = action_dist[np.arange(n), action, position] / pscore
        switch_indicator = np.array(iw <= self.lambda_, dtype=int)
        q_hat_at_position = estimated_rewards_by_reg_model[np.arange(n), :, position]
        q_hat_factual = estimated_rewards_by_reg_model[np.arange(n), action, position]
        pi_e_at_position = action_dist[np.arange(n), :, position]
        estimated_rewards = np.average(
            q_hat_at_position,
            weights=pi_e_at_position,
            axis=1,
        )
        estimated_rewards += switch_indicator * iw * (reward - q_hat_factual)
        return estimated_rewards


@dataclass
class BaseSlateInverseProbabilityWeighting:
    """obp/ope/estimators_slate.py, class BaseSlateInverseProbabilityWeighting."""

    len_list: int

    def _estimate_round_rewards(self, reward, position, behavior_policy_pscore,
                                evaluation_policy_pscore, **kwargs):
        iw = evaluation_policy_pscore / behavior_policy_pscore
        estimated_rewards = reward * iw
        return estimated_rewards


@dataclass
class SlateStandardIPS(BaseSlateInverseProbabilityWeighting):
    """obp/ope/estimators_slate.py, class SlateStandardIPS."""

    estimator_name: str = "sips"

    def estimate_policy_value(self, slate_id, reward, position, pscore,
                              evaluation_policy_pscore, **kwargs):
        return (
            self._estimate_round_rewards(
                reward=reward,
                position=position,
                behavior_policy_pscore=pscore,
                evaluation_policy_pscore=evaluation_policy_pscore,
            ).sum()
            / np.unique(slate_id).shape[0]
        )


@dataclass
class SlateIndependentIPS(BaseSlateInverseProbabilityWeighting):
    """obp/ope/estimators_slate.py, class SlateIndependentIPS."""

    estimator_name: str = "iips"

    def estimate_policy_value(self, slate_id, reward, position, pscore_item_position,
                              evaluation_policy_pscore_item_position, **kwargs):
        return (
            self._estimate_round_rewards(
                reward=reward,
                position=position,
                behavior_policy_pscore=pscore_item_position,
                evaluation_policy_pscore=evaluation_policy_pscore_item_position,
            ).sum()
            / np.unique(slate_id).shape[0]
        )


@dataclass
class SlateRewardInteractionIPS(BaseSlateInverseProbabilityWeighting):
    """obp/ope/estimators_slate.py, class SlateRewardInteractionIPS."""

    estimator_name: str = "rips"

    def estimate_policy_value(self, slate_id, reward, position, pscore_cascade,
                              evaluation_policy_pscore_cascade, **kwargs):
        return (
            self._estimate_round_rewards(
                reward=reward,
                position=position,
                behavior_policy_pscore=pscore_cascade,
                evaluation_policy_pscore=evaluation_policy_pscore_cascade,
            ).sum()
            / np.unique(slate_id).shape[0]
        )


@dataclass
class SlateCascadeDoublyRobust:
    """obp/ope/estimators_slate.py, class SlateCascadeDoublyRobust."""

    len_list: int
    n_unique_action: int
    estimator_name: str = "cascade-dr"

    def _estimate_round_rewards(self, action, reward, position, behavior_policy_pscore,
                                evaluation_policy_pscore, q_hat,
                                evaluation_policy_action_dist, **kwargs):
        # (n_rounds_ * len_list * n_unique_action, ) -> (n_rounds_, len_list, n_unique_action)
        q_hat_3d = q_hat.reshape((-1, self.len_list, self.n_unique_action))
        # the estimated Q functions for the action taken by the behavior policy
        # (n_rounds_, len_list, n_unique_action) -> (n_rounds_ * len_list, )
        q_hat_for_observed_action = []
        for i in range(self.n_rounds_):
            for pos_ in range(self.len_list):
                q_hat_for_observed_action.append(
                    q_hat_3d[i, pos_, action[i * self.len_list + pos_]]
                )
        q_hat_for_observed_action = np.array(q_hat_for_observed_action)
        # the expected Q function under the evaluation policy
        expected_q_hat_under_eval_policy = (
            (evaluation_policy_action_dist * q_hat)
            .reshape((-1, self.len_list, self.n_unique_action))
            .sum(axis=2)
            .flatten()
        )
        # importance weights
        # (n_rounds * len_list, )
        iw = evaluation_policy_pscore / behavior_policy_pscore
        iw_prev = np.roll(iw, 1)
        iw_prev[np.array([i * self.len_list for i in range(self.n_rounds_)])] = 1
        # estimate policy value given each round and slot in a doubly robust manner
        estimated_rewards = (
            iw * (reward - q_hat_for_observed_action)
            + iw_prev * expected_q_hat_under_eval_policy
        )
        return estimated_rewards

    def estimate_policy_value(self, slate_id, action, reward, position, pscore_cascade,
                              evaluation_policy_pscore_cascade, q_hat,
                              evaluation_policy_action_dist, **kwargs):
        self.n_rounds_ = np.unique(slate_id).shape[0]
        return (
            self._estimate_round_rewards(
                action=action,
                reward=reward,
                position=position,
                behavior_policy_pscore=pscore_cascade,
                evaluation_policy_pscore=evaluation_policy_pscore_cascade,
                q_hat=q_hat,
                evaluation_policy_action_dist=evaluation_policy_action_dist,
            ).sum()
            / self.n_rounds_
        )


def estimate_confidence_interval_by_bootstrap(samples, alpha=0.05, n_bootstrap_samples=10000,
                                              random_state=None):
    """obp/utils.py, estimate_confidence_interval_by_bootstrap (checks left out)."""
    boot_samples = list()
    random_ = np.random.RandomState(random_state)
    for _ in np.arange(n_bootstrap_samples):
        boot_samples.append(np.mean(random_.choice(samples, size=samples.shape[0])))
    lower_bound = np.percentile(boot_samples, 100 * (alpha / 2))
    upper_bound = np.percentile(boot_samples, 100 * (1.0 - alpha / 2))
    return {
        "mean": np.mean(boot_samples),
        f"{100 * (1. - alpha)}% CI (lower)": lower_bound,
        f"{100 * (1. - alpha)}% CI (upper)": upper_bound,
    }
