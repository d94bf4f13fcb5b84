"""Online evaluation from click logs, as Polars plans.

Interleaving (two rankers or several, and who won each impression), click models
fitted on a log (what users examined and found attractive), examination propensities,
and counterfactual (off-policy) estimators of a new ranker's online value from the old
ranker's log.
"""

from __future__ import annotations

from polars_rank.online._clicks.model import ClickModel, fit_click_model
from polars_rank.online._clicks.simulate import simulate_clicks
from polars_rank.online._ope.clicks import ips_click_metric
from polars_rank.online._ope.value import off_policy_value
from polars_rank.online._propensity.harvest import harvested_propensities
from polars_rank.online._propensity.regression_em import regression_em_propensities
from polars_rank.online._propensity.swap import swap_propensities

__all__ = [
    # click models (docs/click-models.md)
    "ClickModel",
    "fit_click_model",
    "simulate_clicks",
    # examination propensities (docs/propensities.md; a click model's: ClickModel.examination)
    "swap_propensities",
    "harvested_propensities",
    "regression_em_propensities",
    # counterfactual estimators (docs/counterfactual.md)
    "off_policy_value",
    "ips_click_metric",
]
