"""The one table of the beyond-accuracy functions: what each is, reads and matches.

``polars-rank metrics`` (its beyond-accuracy section), the generated metric reference
(``docs/_ext/hooks.py``) and the table of the Beyond accuracy page are printed from
:data:`TABLE`; a test holds it equal to :data:`polars_rank.recsys.__all__`.

They are not metric strings of :func:`polars_rank.evaluate`: the cross-list ones have
no value per query (``evaluate()``'s unit), and they read item ids, an item table or a
log rather than relevance labels; compute them per arm in a ``group_by`` and join them
to ``evaluate(..., group_by="arm")`` (the cookbook shows how).
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from polars_rank.recsys import coverage, diversity, exposure, popularity, similarity

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Entry", "TABLE", "summary"]

Kind = Literal["per list", "cross-list", "per slice", "frame", "input"]


@dataclass(frozen=True)
class Entry:
    """One beyond-accuracy function: its kind, what it reads and whose numbers it gives."""

    function: Callable[..., object]
    kind: Kind
    reads: str
    matches: str

    @property
    def name(self) -> str:
        """The function's name (``pr.<name>``)."""
        return self.function.__name__


def summary(function: Callable[..., object]) -> str:
    """The first line of a docstring without reST markup."""
    line = (inspect.getdoc(function) or "").splitlines()[0]
    return re.sub(r":\w+:", "", line.replace("``", "`"))


TABLE: tuple[Entry, ...] = (
    Entry(coverage.catalog_coverage, "cross-list", "item ids; catalog= size or ids",
          "MSR (catalog= int), Evidently (catalog= ids)"),
    Entry(coverage.distributional_coverage, "cross-list", "item ids", "MSR"),
    Entry(coverage.gini_index, "cross-list", "item ids",
          "Evidently (catalog=None), RecBole (catalog=N)"),
    Entry(diversity.personalization, "cross-list", "item ids; query= users", "Evidently"),
    Entry(popularity.novelty, "per list", "p(i) from item_popularity (share, user_share)",
          "MSR (share, no query=), Evidently (user_share, query=)"),
    Entry(popularity.average_popularity, "per list", "popularity from item_popularity",
          "Evidently ARP"),
    Entry(popularity.long_tail_share, "per list", "long-tail flag from item_popularity",
          "Abdollahpouri et al. 2019 (APLT)"),
    Entry(popularity.popularity_lift, "per slice", "popularity; history= user means",
          "Abdollahpouri et al. 2020 (delta GAP)"),
    Entry(diversity.intra_list_similarity, "per list", "features, embedding or category",
          "MSR item_feature_vector; Evidently (x (n-1)/2)"),
    Entry(diversity.intra_list_diversity, "per list", "features, embedding or category",
          "MSR item_feature_vector; Evidently (x (n-1)/2)"),
    Entry(exposure.exposure_share, "per list", "item group column",
          "Singh & Joachims 2018"),
    Entry(exposure.group_exposure, "frame", "item group column; query=",
          "Singh & Joachims 2018 (disparity: ours)"),
    Entry(similarity.user_diversity, "frame", "recommendations + item_similarity",
          "MSR diversity / user_diversity"),
    Entry(similarity.user_serendipity, "frame",
          "recommendations, log, item_similarity, relevance",
          "MSR serendipity / user_serendipity"),
    Entry(popularity.item_popularity, "input", "interaction log",
          "MSR historical_item_novelty, Evidently popularity"),
    Entry(similarity.item_similarity, "input", "log or item feature vectors",
          "MSR item_cooccurrence_count, item_feature_vector"),
    Entry(coverage.exposure_counts, "input", "recommendations",
          "sufficient statistic (partitions add up)"),
    Entry(coverage.coverage_from_counts, "frame", "merged exposure_counts",
          "catalog coverage, entropy, Gini"),
)
