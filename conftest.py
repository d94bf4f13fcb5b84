"""pytest: which doctests run where.

The examples of optional extras run only where the extra is installed, and those of
what Polars 1.x cannot compute only on Polars 2.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

# polars_rank/plot.py's examples draw charts (the [plot] extra, also in [test]); the
# scale-out modules (spark.py, dask.py, from the scale-out work) need their own extras
collect_ignore = [
    path
    for module, path in (("pyspark", "polars_rank/spark.py"), ("dask", "polars_rank/dask.py"),
                         ("altair", "polars_rank/plot.py"))
    if importlib.util.find_spec(module) is None
]
# tests/toy_metric.py registers a metric when imported (it has no doctest):
# tests/test_metric_spec.py imports it and removes it after each test, so that the
# registry-wide tables of the other test files never see it
collect_ignore.append("tests/toy_metric.py")

# Examples of what Polars 1.x cannot compute (ERR under ties="expected": see
# polars_rank/metrics/_expected_err.py, SLICES_BY_MANY_OFFSETS) run on Polars 2 only.
NEEDS_POLARS_2 = ("polars_rank.metrics.err.err",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the examples of :data:`NEEDS_POLARS_2` on Polars 1.x."""
    from polars_rank.metrics._expected_err import SLICES_BY_MANY_OFFSETS

    if SLICES_BY_MANY_OFFSETS:
        return
    skip = pytest.mark.skip(reason="ERR under ties='expected' needs Polars 2")
    for item in items:
        if isinstance(item, pytest.DoctestItem) and item.name in NEEDS_POLARS_2:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """With ``POLARS_RANK_FILE_TIMES=N``: the N test files that took longest (CI sets it).

    The worker-seconds of each file, setup and teardown included, summed over its
    tests: where CI's time budget goes (tests/budget.py), which ``--durations`` (one
    test at a time) does not show.
    """
    count = int(os.environ.get("POLARS_RANK_FILE_TIMES", "0"))
    if count <= 0:
        return
    seconds: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                path = report.nodeid.split("::", 1)[0]
                seconds[path] = seconds.get(path, 0.0) + report.duration
    total = sum(seconds.values())
    terminalreporter.write_sep("=", f"test files by worker-seconds (of {total:.0f} s)")
    for path, spent in sorted(seconds.items(), key=lambda item: -item[1])[:count]:
        terminalreporter.write_line(f"{spent:8.1f} s  {spent / total:5.1%}  {path}")
