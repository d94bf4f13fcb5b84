"""Online evaluation from click logs, as Polars plans.

Interleaving (two rankers or several, and who won each impression), click models
fitted on a log (what users examined and found attractive), examination propensities,
and counterfactual (off-policy) estimators of a new ranker's online value from the old
ranker's log.
"""

from __future__ import annotations

from polars_rank.online._propensity.harvest import harvested_propensities
from polars_rank.online._propensity.regression_em import regression_em_propensities
from polars_rank.online._propensity.swap import swap_propensities

__all__ = [
    "harvested_propensities",
    "regression_em_propensities",
    "swap_propensities",
]
