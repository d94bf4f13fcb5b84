"""Rank fusion and score normalisation, as ranx's, in one lazy Polars plan.

:func:`fuse` combines any number of runs (hybrid search: lexical, dense, a reranker)
into one run that every metric takes; :func:`normalize` and the expressions
:func:`min_max_norm`, :func:`max_norm`, :func:`sum_norm`, :func:`zmuv_norm`,
:func:`rank_norm` and :func:`borda_norm` normalise scores per query; :func:`train`
trains ranx's ProbFuse, SegFuse, SlideFuse, PosFuse, BayesFuse and MAPFuse on runs
and qrels for :func:`fuse`. Each method and normalisation is ranx 0.3.21's (AmenRa/ranx
commit 2cae52f), tested against it.
"""

from __future__ import annotations

from polars_rank.fusion._compare import compare_fusion
from polars_rank.fusion._fuse import NORMS as NORMS  # the normalisations' names
from polars_rank.fusion._fuse import fuse, normalize
from polars_rank.fusion._grid import optimization_grid
from polars_rank.fusion._methods import METHODS as METHODS  # the methods, by ranx's names
from polars_rank.fusion._norms import (
    borda_norm,
    max_norm,
    min_max_norm,
    rank_norm,
    sum_norm,
    zmuv_norm,
)
from polars_rank.fusion._optimize import OptimizedFusion, optimize_fusion
from polars_rank.fusion._train import train

__all__ = [
    "fuse",
    "normalize",
    "train",
    "min_max_norm",
    "max_norm",
    "sum_norm",
    "zmuv_norm",
    "rank_norm",
    "borda_norm",
    "optimize_fusion",
    "OptimizedFusion",
    "optimization_grid",
    "compare_fusion",
]
