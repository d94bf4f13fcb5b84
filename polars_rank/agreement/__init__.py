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
from polars_rank.agreement._leaderboards.agreement import leaderboard_agreement, swapped_pairs
from polars_rank.agreement._leaderboards.bootstrap import leaderboard_bootstrap
from polars_rank.agreement._leaderboards.power import discriminative_power
from polars_rank.agreement._rankings.correlation import kendall_tau, spearman_rho, tau_ap
from polars_rank.agreement._rankings.frame import ranking_similarity
from polars_rank.agreement._rankings.join import join_rankings
from polars_rank.agreement._rankings.rbo import average_overlap, rbo
from polars_rank.agreement._rankings.sets import jaccard, overlap
from polars_rank.agreement._uncertain.comparison import compare_uncertain
from polars_rank.agreement._uncertain.evaluation import (
    UncertainResult,
    evaluate_uncertain,
    label_draws,
)
from polars_rank.agreement._uncertain.labels import label_distribution

__all__: list[str] = [
    # two rankings of one query (docs/rankings-similarity.md)
    "rbo",
    "average_overlap",
    "kendall_tau",
    "tau_ap",
    "spearman_rho",
    "jaccard",
    "overlap",
    "join_rankings",
    "ranking_similarity",
    # judges (docs/judge-agreement.md)
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "raw_agreement",
    "confusion",
    # leaderboards (docs/leaderboards.md)
    "leaderboard_agreement",
    "swapped_pairs",
    "leaderboard_bootstrap",
    "discriminative_power",
    # uncertain labels (docs/uncertain-labels.md)
    "evaluate_uncertain",
    "label_draws",
    "label_distribution",
    "UncertainResult",
    "compare_uncertain",
]
