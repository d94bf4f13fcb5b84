"""The tests of :mod:`polars_rank.stats`, one module per test (the docs are there)."""
