"""Online evaluation from click logs, as Polars plans.

Interleaving (two rankers or several, and who won each impression), click models
fitted on a log (what users examined and found attractive), examination propensities,
and counterfactual (off-policy) estimators of a new ranker's online value from the old
ranker's log.
"""

from __future__ import annotations

from polars_rank.online._ope.clicks import ips_click_metric
from polars_rank.online._ope.value import off_policy_value

__all__: list[str] = ["ips_click_metric", "off_policy_value"]
