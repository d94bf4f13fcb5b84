"""Online evaluation from click logs, as Polars plans.

Interleaving (two rankers or several, and who won each impression), click models
fitted on a log (what users examined and found attractive), examination propensities,
and counterfactual (off-policy) estimators of a new ranker's online value from the old
ranker's log.
"""

from __future__ import annotations

from polars_rank.online._clicks.model import ClickModel, fit_click_model
from polars_rank.online._clicks.simulate import simulate_clicks
from polars_rank.online._interleaving.build import interleave
from polars_rank.online._interleaving.credit import credit
from polars_rank.online._interleaving.distribution import probabilistic_lists
from polars_rank.online._interleaving.optimized import optimized_lists
from polars_rank.online._interleaving.preference import impressions_needed, preference
from polars_rank.online._ope.clicks import ips_click_metric
from polars_rank.online._ope.value import off_policy_value
from polars_rank.online._propensity.harvest import harvested_propensities
from polars_rank.online._propensity.regression_em import regression_em_propensities
from polars_rank.online._propensity.swap import swap_propensities

__all__: list[str] = [
    "interleave",
    "probabilistic_lists",
    "optimized_lists",
    "credit",
    "preference",
    "impressions_needed",
    "ClickModel",
    "fit_click_model",
    "simulate_clicks",
    "ips_click_metric",
    "off_policy_value",
    "harvested_propensities",
    "regression_em_propensities",
    "swap_propensities",
]
