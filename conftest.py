"""pytest: the modules of optional extras are doctested only where the extra is installed."""

from __future__ import annotations

import importlib.util

collect_ignore = [
    path
    for module, path in (("pyspark", "polars_rank/spark.py"), ("dask", "polars_rank/dask.py"))
    if importlib.util.find_spec(module) is None
]
