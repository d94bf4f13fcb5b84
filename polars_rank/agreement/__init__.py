"""Agreement: between two rankings, between judges, between leaderboards.

How alike two rankers' result lists are (rank-biased overlap, Kendall's and Spearman's
correlations, tau_AP, overlap), how far judges agree on the same documents (Cohen's and
Fleiss' kappa, Krippendorff's alpha), whether a leaderboard keeps its order when the
judge, the metric or the pool changes, and what labels that are only probably right do
to a metric.
"""

from __future__ import annotations

from polars_rank.agreement._judges.alpha import krippendorff_alpha
from polars_rank.agreement._judges.kappa import cohen_kappa, fleiss_kappa
from polars_rank.agreement._judges.raw import confusion, raw_agreement
from polars_rank.agreement._uncertain.comparison import compare_uncertain
from polars_rank.agreement._uncertain.evaluation import (
    UncertainResult,
    evaluate_uncertain,
    label_draws,
)
from polars_rank.agreement._uncertain.labels import label_distribution

__all__: list[str] = [
    # judges (docs/judge-agreement.md)
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "raw_agreement",
    "confusion",
    # uncertain labels (issue 40, item 4)
    "evaluate_uncertain",
    "label_draws",
    "label_distribution",
    "UncertainResult",
    "compare_uncertain",
]
