"""Shared pytest configuration: the plot doctests need the optional ``[plot]`` extra."""

from __future__ import annotations

import importlib.util

# polars_rank/plot.py's examples draw charts: without Altair (no [plot] or [test] extra)
# they cannot run; tests/test_plot.py skips its chart tests the same way.
collect_ignore = [] if importlib.util.find_spec("altair") else ["polars_rank/plot.py"]
