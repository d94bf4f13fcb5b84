"""Online evaluation from click logs, as Polars plans.

Interleaving (two rankers or several, and who won each impression), click models
fitted on a log (what users examined and found attractive), examination propensities,
and counterfactual (off-policy) estimators of a new ranker's online value from the old
ranker's log.
"""

from __future__ import annotations

from polars_rank.online._clicks.model import ClickModel, fit_click_model
from polars_rank.online._clicks.simulate import simulate_clicks

__all__: list[str] = ["ClickModel", "fit_click_model", "simulate_clicks"]
