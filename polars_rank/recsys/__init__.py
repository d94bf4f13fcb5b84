"""Beyond-accuracy recommender metrics as Polars expressions.

Coverage, novelty, popularity bias, diversity, serendipity and exposure fairness (and,
where a metric needs item-pair similarities from a log, frame functions).
"""

from __future__ import annotations

from polars_rank.recsys.coverage import (
    catalog_coverage,
    coverage_from_counts,
    distributional_coverage,
    exposure_counts,
    gini_index,
)
from polars_rank.recsys.diversity import (
    intra_list_diversity,
    intra_list_similarity,
    personalization,
)
from polars_rank.recsys.exposure import exposure_share, group_exposure
from polars_rank.recsys.popularity import (
    average_popularity,
    item_popularity,
    long_tail_share,
    novelty,
    popularity_lift,
)
from polars_rank.recsys.similarity import item_similarity, user_diversity, user_serendipity

__all__ = [
    "item_popularity",
    "novelty",
    "average_popularity",
    "long_tail_share",
    "popularity_lift",
    "intra_list_similarity",
    "intra_list_diversity",
    "personalization",
    "item_similarity",
    "user_diversity",
    "user_serendipity",
    "exposure_share",
    "group_exposure",
    "catalog_coverage",
    "distributional_coverage",
    "gini_index",
    "exposure_counts",
    "coverage_from_counts",
]
