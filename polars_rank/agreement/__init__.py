"""Agreement: between two rankings, between judges, between leaderboards.

How alike two rankers' result lists are (rank-biased overlap, Kendall's and Spearman's
correlations, tau_AP, overlap), how far judges agree on the same documents (Cohen's and
Fleiss' kappa, Krippendorff's alpha), whether a leaderboard keeps its order when the
judge, the metric or the pool changes, and what labels that are only probably right do
to a metric.
"""

from __future__ import annotations

from polars_rank.agreement._leaderboards.agreement import leaderboard_agreement, swapped_pairs
from polars_rank.agreement._leaderboards.bootstrap import leaderboard_bootstrap
from polars_rank.agreement._leaderboards.power import discriminative_power
from polars_rank.agreement._rankings.correlation import kendall_tau, spearman_rho, tau_ap
from polars_rank.agreement._rankings.join import join_rankings
from polars_rank.agreement._rankings.rbo import average_overlap, rbo
from polars_rank.agreement._rankings.sets import jaccard, overlap

__all__: list[str] = [
    "average_overlap",
    "discriminative_power",
    "jaccard",
    "join_rankings",
    "kendall_tau",
    "leaderboard_agreement",
    "leaderboard_bootstrap",
    "overlap",
    "rbo",
    "spearman_rho",
    "swapped_pairs",
    "tau_ap",
]
