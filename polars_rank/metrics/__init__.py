"""Metric expressions, one module per family."""

from __future__ import annotations

from polars_rank.metrics.binary import average_precision, gm_map, hit_rate, reciprocal_rank, yaap
from polars_rank.metrics.clicks import (
    abandonment,
    clicks_per_query,
    ctr,
    first_click_rr,
)
from polars_rank.metrics.counts import (
    hits,
    num_nonrel_judged_ret,
    num_rel,
    num_rel_ret,
    num_ret,
    utility,
)
from polars_rank.metrics.dwell import mean_dwell
from polars_rank.metrics.gain import dcg, err, ideal_dcg, ndcg
from polars_rank.metrics.gain_levels import (
    binary_normalized_gain,
    ndcg_over_relevant,
    normalized_gain,
    r_ndcg,
)
from polars_rank.metrics.incomplete import bpref, gm_bpref, unjudged
from polars_rank.metrics.intents import ap_ia, precision_ia, subtopic_recall
from polars_rank.metrics.interpolated import eleven_point_average, iprec_at_recall
from polars_rank.metrics.nerr import nerr8, nerr9, nerr10, nerr11
from polars_rank.metrics.novelty import alpha_dcg, alpha_ndcg, err_ia, nerr_ia
from polars_rank.metrics.novelty_rbp import nnrbp, nrbp
from polars_rank.metrics.overlap import compat
from polars_rank.metrics.pairwise import accuracy, auc, rank_correlation
from polars_rank.metrics.pool import infap, judged, relstring
from polars_rank.metrics.queries import num_q
from polars_rank.metrics.rbp import rbp, rbp_residual
from polars_rank.metrics.relative import r_precision_multiple, relative_precision, set_map
from polars_rank.metrics.sets import f1, precision, r_precision, recall
from polars_rank.metrics.user_models import bpm, insq, inst, sdcg

map = average_precision  # the name users know (MAP with query=)
mrr = reciprocal_rank

__all__ = [
    "dcg",
    "ideal_dcg",
    "ndcg",
    "err",
    "normalized_gain",
    "binary_normalized_gain",
    "ndcg_over_relevant",
    "r_ndcg",
    "precision",
    "recall",
    "f1",
    "average_precision",
    "map",
    "gm_map",
    "yaap",
    "reciprocal_rank",
    "mrr",
    "hit_rate",
    "hits",
    "r_precision",
    "rbp",
    "bpref",
    "gm_bpref",
    "unjudged",
    "rbp_residual",
    "infap",
    "judged",
    "relstring",
    "relative_precision",
    "r_precision_multiple",
    "set_map",
    "iprec_at_recall",
    "eleven_point_average",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "num_nonrel_judged_ret",
    "utility",
    "rank_correlation",
    "auc",
    "accuracy",
    "sdcg",
    "inst",
    "insq",
    "bpm",
    "nerr8",
    "nerr9",
    "nerr10",
    "nerr11",
    "compat",
    "num_q",
    "ctr",
    "abandonment",
    "first_click_rr",
    "clicks_per_query",
    "mean_dwell",
    "alpha_ndcg",
    "alpha_dcg",
    "err_ia",
    "nerr_ia",
    "nrbp",
    "nnrbp",
    "precision_ia",
    "ap_ia",
    "subtopic_recall",
]
