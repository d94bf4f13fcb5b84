"""The steps of :func:`polars_rank.compare` (the docs are there)."""
