"""polars-rank: ranking evaluation as native Polars expressions.

Importing the package registers the callable ``rank`` namespace on ``pl.Expr``:

>>> import polars as pl
>>> import polars_rank as pr
>>> df = pl.DataFrame({"qid": [1, 1, 2, 2], "rel": [0, 2, 1, 0], "score": [0.9, 0.3, 0.8, 0.1]})
>>> df.select(
...     ndcg=pl.col("rel").rank.ndcg(k=10, by="score", query="qid"),
...     mrr=pr.mrr("rel", by="score", query="qid"),
... )
shape: (1, 2)
┌──────────┬──────┐
│ ndcg     ┆ mrr  │
│ ---      ┆ ---  │
│ f64      ┆ f64  │
╞══════════╪══════╡
│ 0.815465 ┆ 0.75 │
└──────────┴──────┘

``pl.col("x").rank("dense")`` is still Polars' own ``Expr.rank``.

:func:`evaluate` computes metric strings over runs and qrels, trec_eval-style;
:func:`compare` compares A/B arms with confidence intervals and significance tests
(with the optional ``polars-rank[stats]`` extra); :mod:`polars_rank.plot` draws the
results (with the optional ``polars-rank[plot]`` extra).
"""

from __future__ import annotations

from polars_rank import agreement, datasets, fusion, online, plot, stats
from polars_rank._compare.report import report
from polars_rank._compare.summary import summarize
from polars_rank._evaluation import evaluate, ranked, tie_spread
from polars_rank._evaluation.buckets import in_buckets
from polars_rank._evaluation.zscores import read_zscores
from polars_rank._language import namespace as _namespace
from polars_rank._language.namespace import RankNameSpace, rank
from polars_rank._stats.power import mde, power
from polars_rank.compare import compare
from polars_rank.errors import InvalidDataError, TrecFormatError
from polars_rank.fusion import (
    borda_norm,
    compare_fusion,
    fuse,
    max_norm,
    min_max_norm,
    optimize_fusion,
    rank_norm,
    sum_norm,
    zmuv_norm,
)
from polars_rank.io import read_qrels, read_run, scan_qrels, scan_run, to_dict, write_run
from polars_rank.metrics import *  # noqa: F403 (every metric, listed once)
from polars_rank.metrics import __all__ as _metric_names
from polars_rank.preferences import evaluate_prefs
from polars_rank.recsys import *  # noqa: F403 (beyond-accuracy metrics, listed once)
from polars_rank.recsys import __all__ as _recsys_names
from polars_rank.registry import parse_metric
from polars_rank.sampled import sampled_correction, sampled_metric
from polars_rank.shapes import from_lists, qrels_from_interactions
from polars_rank.validate import validate

__version__ = "0.1.0"

_namespace.install()

__all__ = [  # the metrics are named once, in polars_rank.metrics
    *_metric_names,
    *_recsys_names,
    "validate",
    "evaluate",
    "evaluate_prefs",
    "ranked",
    "in_buckets",
    "tie_spread",
    "compare",
    "summarize",
    "report",
    "power",
    "mde",
    "parse_metric",
    "scan_run",
    "read_run",
    "scan_qrels",
    "read_qrels",
    "read_zscores",
    "write_run",
    "to_dict",
    "from_lists",
    "qrels_from_interactions",
    "sampled_metric",
    "sampled_correction",
    "fuse",
    "optimize_fusion",
    "compare_fusion",
    "min_max_norm",
    "max_norm",
    "sum_norm",
    "zmuv_norm",
    "rank_norm",
    "borda_norm",
    "InvalidDataError",
    "TrecFormatError",
    "RankNameSpace",
    "rank",
    "datasets",
    "stats",
    "plot",
    "fusion",
    "online",
    "agreement",
]
