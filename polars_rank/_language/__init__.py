"""The language: how metrics are named, spelt and called.

Metric specs and expression names, metric strings' option text, the ``rank`` namespace,
and trec_eval's and ir_measures' names. Above the engine; the registry
(:mod:`polars_rank.registry`) gathers it.
"""
