"""The engine: one ranked list as Polars expressions.

Sort keys, tie policies, order-free sums, how per-query values become one number, the
rules data must follow, the input frames, and the Polars workarounds (compat). The
lowest layer: it imports no metric, no metric string, no evaluation
(tests/test_imports.py).
"""
