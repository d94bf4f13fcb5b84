"""Random logs for the off-policy estimators' tests, as OBP's arrays and as our long frame."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl


@dataclass
class SingleSlot:
    """OBP's single-slot inputs (with positions) and the same log in long format."""

    frame: pl.DataFrame
    reward: np.ndarray
    action: np.ndarray
    pscore: np.ndarray
    position: np.ndarray
    action_dist: np.ndarray
    q_hat: np.ndarray


def single_slot(seed: int, n_impressions: int = 40, len_list: int = 3,
                n_actions: int = 4) -> SingleSlot:
    """Each (impression, position) one round of OBP's data, action drawn from pscore."""
    rng = np.random.default_rng(seed)
    n = n_impressions * len_list
    position = np.tile(np.arange(len_list), n_impressions)
    action = rng.integers(0, n_actions, size=n)
    pscore = rng.uniform(0.05, 1.0, size=n)
    action_dist = rng.uniform(0.0, 1.0, size=(n, n_actions, len_list))
    action_dist /= action_dist.sum(axis=1, keepdims=True)
    q_hat = rng.uniform(0.0, 1.0, size=(n, n_actions, len_list))
    reward = rng.binomial(1, 0.4, size=n).astype(float)
    rows = np.arange(n)
    frame = pl.DataFrame({
        "impression": np.repeat(np.arange(n_impressions), len_list),
        "position": position + 1,
        "item": action,
        "reward": reward,
        "pscore": pscore,
        "target": action_dist[rows, action, position],
        "q_hat": q_hat[rows, action, position],
        "q_hat_target": np.average(q_hat[rows, :, position], weights=action_dist[rows, :, position],
                                   axis=1),
    })
    return SingleSlot(frame, reward, action, pscore, position, action_dist, q_hat)


@dataclass
class Slate:
    """OBP's slate inputs and the same log in long format."""

    frame: pl.DataFrame
    arrays: dict[str, np.ndarray]
    len_list: int
    n_actions: int


def slate(seed: int, n_impressions: int = 30, len_list: int = 3, n_actions: int = 5) -> Slate:
    """Random propensities of every kind (they need not be consistent for the algebra)."""
    rng = np.random.default_rng(seed)
    n = n_impressions * len_list
    slate_id = np.repeat(np.arange(n_impressions), len_list)
    position = np.tile(np.arange(len_list), n_impressions)
    action = rng.integers(0, n_actions, size=n)

    def cascade(low: float) -> np.ndarray:
        step = rng.uniform(low, 1.0, size=(n_impressions, len_list))
        return np.cumprod(step, axis=1).ravel()

    a = {
        "slate_id": slate_id, "position": position, "action": action,
        "reward": rng.binomial(1, 0.3, size=n).astype(float),
        "pscore": np.repeat(rng.uniform(0.02, 1.0, size=n_impressions), len_list),
        "evaluation_policy_pscore": np.repeat(rng.uniform(0.0, 1.0, size=n_impressions),
                                              len_list),
        "pscore_item_position": rng.uniform(0.05, 1.0, size=n),
        "evaluation_policy_pscore_item_position": rng.uniform(0.0, 1.0, size=n),
        "pscore_cascade": cascade(0.2),
        "evaluation_policy_pscore_cascade": cascade(0.0),
        "q_hat": rng.uniform(0.0, 1.0, size=n * n_actions),
    }
    dist = rng.uniform(0.0, 1.0, size=(n, n_actions))
    a["evaluation_policy_action_dist"] = (dist / dist.sum(axis=1, keepdims=True)).ravel()
    q3 = a["q_hat"].reshape(n, n_actions)
    frame = pl.DataFrame({
        "impression": slate_id, "position": position + 1, "item": action,
        "reward": a["reward"],
        "pscore": a["pscore_item_position"], "target": a["evaluation_policy_pscore_item_position"],
        "pscore_slate": a["pscore"], "target_slate": a["evaluation_policy_pscore"],
        "pscore_cascade": a["pscore_cascade"],
        "target_cascade": a["evaluation_policy_pscore_cascade"],
        "q_hat": q3[np.arange(n), action],
        "q_hat_target": (q3 * a["evaluation_policy_action_dist"].reshape(n, n_actions)).sum(axis=1),
    })
    return Slate(frame, a, len_list, n_actions)
