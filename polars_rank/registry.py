"""The metric registry: one entry per metric drives strings, aliases, the CLI and the docs.

A *metric string* is ``name``, ``name@k`` and/or ``name(option=value, ...)``,
case-insensitive: ``ndcg@10``, ``map``, ``err@20(max_grade=4)``, ``rbp(p=0.8)``.
A spelling borrowed from another tool gives that tool's number: NDCG and DCG strings
are linear gain (trec_eval, ir_measures, ranx, scikit-learn), ``ndcg_burges@10`` or
``ndcg@10(gain=exponential)`` the exponential form the functions default to;
ir_measures spellings are aliases (``nDCG@10``, ``AP``, ``RR@10``, ``R@100``,
``P(rel=2)@10``, ``IPrec@0.5``, ``SetP``) and trec_eval's mean what trec_eval computes
(``ndcg_cut_10``, ``P_10`` / ``P.10``, ``recip_rank``, ``map_cut_10``, ``Rprec``,
``success_10``, ``iprec_at_recall_0.50``, ``num_rel_ret``, ``gm_map``, ``set_F``).
Where two tools share a spelling for different numbers, :data:`DIALECTS` says which.
Structured options keep their commas in brackets: a gain table
``ndcg(gains={1:3,2:9})`` (ir_measures' spelling; trec_eval's is ``ndcg.1=3,2=9``),
``utility(weights=[2,-1,0,0])`` (``utility.2,-1,0,0``) and
``11pt_avg(levels=[0.2,0.5,0.8])`` (``11pt_avg.0.2,0.5,0.8``).

>>> from polars_rank.registry import parse_metric
>>> m = parse_metric("ndcg_cut.10")
>>> str(m), m.k, m.expr("rel", by="score").meta.output_name()
('ndcg@10', 10, 'ndcg@10')
>>> str(parse_metric("ERR@20(max_grade=3)"))
'err@20(max_grade=3)'

The pieces live in the language layer: the parsed :class:`Metric`
(:mod:`polars_rank._language.metric`), the dialects (:mod:`polars_rank._language.dialects`)
and the parser (:mod:`polars_rank._language.parser`); this module orders the metrics and
is their public face.
"""

from __future__ import annotations

import polars_rank.metrics  # noqa: F401 (imported, the metric modules register their specs)
from polars_rank._language.dialects import DIALECTS, Convention, Dialect, convention
from polars_rank._language.metric import Metric
from polars_rank._language.metric_spec import SPECS, MetricSpec, gather
from polars_rank._language.parser import parse_metric

__all__ = ["MetricDef", "Metric", "METRICS", "Dialect", "DIALECTS", "Convention", "convention",
           "parse_metric"]


MetricDef = MetricSpec
"""A registered metric: :class:`polars_rank._language.metric_spec.MetricSpec` (the old name)."""


# Every metric is declared beside its kernel (its module's MetricSpec, handed to its
# function's decorator). This list gives only the order users see (the CLI's list, the
# docs table, "Known metrics"): METRICS is _language.metric_spec.SPECS itself, so a metric
# declared later (outside the package) is in it, after these.
METRICS: dict[str, MetricDef] = gather([
        SPECS["ndcg"],  # metrics/gain.py: NDCG
        SPECS["dcg"],  # metrics/gain.py: DCG
        SPECS["ideal_dcg"],  # metrics/gain.py: IDEAL_DCG
        SPECS["g"],  # metrics/gain_levels.py: NORMALIZED_GAIN
        SPECS["bing"],  # metrics/gain_levels.py: BINARY_NORMALIZED_GAIN
        SPECS["ndcg_rel"],  # metrics/ndcg_levels.py: NDCG_OVER_RELEVANT
        SPECS["rndcg"],  # metrics/ndcg_levels.py: R_NDCG
        SPECS["map"],  # metrics/binary.py: AVERAGE_PRECISION
        SPECS["gm_map"],  # metrics/binary.py: GM_MAP
        SPECS["yaap"],  # metrics/yaap.py: YAAP
        SPECS["mrr"],  # metrics/first_hit.py: RECIPROCAL_RANK
        SPECS["p"],  # metrics/sets.py: PRECISION
        SPECS["recall"],  # metrics/sets.py: RECALL
        SPECS["f1"],  # metrics/sets.py: F1
        SPECS["err"],  # metrics/err.py: ERR
        SPECS["hit_rate"],  # metrics/first_hit.py: HIT_RATE
        SPECS["hits"],  # metrics/averaged_counts.py: HITS
        SPECS["rprec"],  # metrics/r_precision.py: R_PRECISION
        SPECS["bpref"],  # metrics/incomplete.py: BPREF
        SPECS["rbp"],  # metrics/rbp.py: RBP
        SPECS["rbp_resid"],  # metrics/rbp.py: RBP_RESIDUAL
        SPECS["utility"],  # metrics/averaged_counts.py: UTILITY
        SPECS["gm_bpref"],  # metrics/incomplete.py: GM_BPREF
        SPECS["unj"],  # metrics/incomplete.py: UNJ
        SPECS["infap"],  # metrics/pool.py: INFAP
        SPECS["judged"],  # metrics/pool.py: JUDGED
        SPECS["relstring"],  # metrics/pool.py: RELSTRING
        SPECS["relative_p"],  # metrics/relative.py: RELATIVE_PRECISION
        SPECS["rprec_mult"],  # metrics/relative.py: R_PRECISION_MULTIPLE
        # trec_eval's judgment-group measures (-R qrels_jg): each of the metrics above
        # against every judgment group (a user's judgments) of a query, averaged
        SPECS["map_avgjg"],  # metrics/binary.py: MAP_AVGJG
        SPECS["p_avgjg"],  # metrics/sets.py: P_AVGJG
        SPECS["rprec_mult_avgjg"],  # metrics/relative.py: R_PRECISION_MULTIPLE_AVGJG
        SPECS["set_map"],  # metrics/relative.py: SET_MAP
        SPECS["iprec_at_recall"],  # metrics/interpolated.py: IPREC_AT_RECALL
        SPECS["11pt_avg"],  # metrics/interpolated.py: ELEVEN_POINT_AVERAGE
        SPECS["num_ret"],  # metrics/counts.py: NUM_RET
        SPECS["num_rel"],  # metrics/counts.py: NUM_REL
        SPECS["num_rel_ret"],  # metrics/counts.py: NUM_REL_RET
        SPECS["num_nonrel_judged_ret"],  # metrics/counts.py: NUM_NONREL_JUDGED_RET
        SPECS["rank_correlation"],  # metrics/pairwise.py: RANK_CORRELATION
        SPECS["auc"],  # metrics/pairwise.py: AUC
        # intent-aware (diversity) metrics, ndeval's: one row per (document, subtopic)
        SPECS["alpha_ndcg"],  # metrics/novelty.py: ALPHA_NDCG
        SPECS["alpha_dcg"],  # metrics/novelty.py: ALPHA_DCG
        SPECS["err_ia"],  # metrics/novelty_err.py: ERR_IA
        SPECS["nerr_ia"],  # metrics/novelty_err.py: NERR_IA
        SPECS["nrbp"],  # metrics/novelty_rbp.py: NRBP
        SPECS["nnrbp"],  # metrics/novelty_rbp.py: NNRBP
        SPECS["p_ia"],  # metrics/intents.py: PRECISION_IA
        SPECS["ap_ia"],  # metrics/intents.py: AP_IA
        SPECS["strecall"],  # metrics/intents.py: SUBTOPIC_RECALL
        SPECS["accuracy"],  # metrics/pairwise.py: ACCURACY
        SPECS["num_q"],  # metrics/queries.py: NUM_Q
        # ir_measures' C/W/L metrics, computed as cwl_eval does (ranks 1..1000)
        SPECS["sdcg"],  # metrics/user_models.py: SDCG
        SPECS["inst"],  # metrics/user_models.py: INST
        SPECS["insq"],  # metrics/user_models.py: INSQ
        SPECS["bpm"],  # metrics/user_models.py: BPM
        SPECS["nerr8"],  # metrics/nerr.py: NERR8
        SPECS["nerr9"],  # metrics/nerr.py: NERR9
        SPECS["nerr10"],  # metrics/nerr.py: NERR10
        SPECS["nerr11"],  # metrics/nerr.py: NERR11
        SPECS["compat"],  # metrics/overlap.py: COMPAT
        # click metrics: the label column holds clicks (0/1 or counts)
        SPECS["ctr"],  # metrics/clicks.py: CTR
        SPECS["abandonment"],  # metrics/clicks.py: ABANDONMENT
        SPECS["first_click_rr"],  # metrics/clicks.py: FIRST_CLICK_RR
        SPECS["clicks_per_query"],  # metrics/clicks.py: CLICKS_PER_QUERY
])
