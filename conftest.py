"""pytest: the modules of optional extras are doctested only where the extra is installed."""

from __future__ import annotations

import importlib.util

# polars_rank/plot.py's examples draw charts (the [plot] extra, also in [test]); the
# scale-out modules (spark.py, dask.py, from the scale-out work) need their own extras
collect_ignore = [
    path
    for module, path in (("pyspark", "polars_rank/spark.py"), ("dask", "polars_rank/dask.py"),
                         ("altair", "polars_rank/plot.py"))
    if importlib.util.find_spec(module) is None
]
