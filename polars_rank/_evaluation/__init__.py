"""Evaluating runs against judgments, trec_eval's way, in steps (see :mod:`.pipeline`)."""

from __future__ import annotations

from polars_rank._evaluation.pipeline import evaluate
from polars_rank._evaluation.ranking import ranked
from polars_rank._evaluation.tie_spread import tie_spread

__all__ = ["evaluate", "ranked", "tie_spread"]
