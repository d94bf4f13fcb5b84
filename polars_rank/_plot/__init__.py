"""The charts of :mod:`polars_rank.plot`, one module per chart (the docs are there)."""
