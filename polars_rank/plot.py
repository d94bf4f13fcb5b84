"""Charts of evaluation results: metric@k curves, forest plots, per-query distributions.

Three questions are easier to answer by looking than by reading a table:

* how does a metric grow with the cutoff, per arm? :func:`metric_at_k`
* which deltas are real, per metric and segment? :func:`forest`, from
  :func:`polars_rank.compare` output
* is a mean difference a few queries or many? :func:`distribution`, of a metric or
  of its per-query difference between an arm and the baseline

The charts are `Altair <https://altair-viz.github.io>`_ charts, the library behind
Polars' own ``DataFrame.plot``: they take Polars frames as they are, show exact
values in tooltips in a notebook or a web page, can be restyled or combined with
Altair's operators (``chart.properties(width=500)``, ``a | b``), and save to PNG or
SVG without a display (``chart.save("forest.png")``, through ``vl-convert-python``).
Install them with ``pip install "polars-rank[plot]"``; the rest of the package does
not need Altair, and this module imports it only when a chart is built.

Each chart has a ``*_data`` twin that returns the Polars frame the chart draws, so
the numbers behind a chart can be printed, tested or plotted with another library.
"""

from __future__ import annotations

from polars_rank._plot.at_k import metric_at_k, metric_at_k_data
from polars_rank._plot.common import INSTALL_HINT
from polars_rank._plot.common import Frame as Frame
from polars_rank._plot.common import Value as Value
from polars_rank._plot.distribution import distribution, distribution_data
from polars_rank._plot.forest import forest, forest_data

__all__ = [
    "metric_at_k",
    "metric_at_k_data",
    "forest",
    "forest_data",
    "distribution",
    "distribution_data",
    "INSTALL_HINT",
]

# Defined in polars_rank._plot; help(), pickle and the API reference know them by this
# module's name, where they were defined before it was split.
for _public in (metric_at_k, metric_at_k_data, forest, forest_data, distribution,
                distribution_data):
    _public.__module__ = __name__
del _public
