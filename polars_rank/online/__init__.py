"""Online evaluation from click logs, as Polars plans.

Interleaving (two rankers or several, and who won each impression), click models
fitted on a log (what users examined and found attractive), examination propensities,
and counterfactual (off-policy) estimators of a new ranker's online value from the old
ranker's log.
"""

from __future__ import annotations

__all__: list[str] = []
