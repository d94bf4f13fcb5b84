"""pytest: which doctests run where.

The examples of optional extras run only where the extra is installed, and those of
what Polars 1.x cannot compute only on Polars 2.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
    """Order the tests, and skip what this Polars cannot run.

    The tests that call ranx come last (:func:`pytest_configure`); on Polars 1.x the
    examples of :data:`NEEDS_POLARS_2` are skipped.
    """
    items.sort(key=lambda item: item.get_closest_marker("ranx") is not None)  # stable
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


# ------------------------------------------------------------------ ranx's Numba code
# ranx compiles its Numba functions on first use and caches them beside its source. In
# a fresh environment (CI's) each pytest-xdist worker compiled them all on its own,
# about 220 CPU-seconds each, concurrently (measured 2026-11-29: two processes, 221 and
# 210 s of user time, against 30 s warm). So a run of the whole suite starts one
# background process that runs the ranx tests with the fewest examples, which fills
# the cache once, while the workers run the other tests; the ranx tests come last and
# each waits for that process (it is done long before: docs/performance.md).
RANX_DONE = "POLARS_RANK_RANX_WARM"  # the file the warm-up process writes when it ends
_WARM_CACHE = 100  # cached ranx functions (the tests compile about 110): warm, no warm-up


def _ranx_cache_is_cold() -> bool:
    spec = importlib.util.find_spec("ranx")
    if spec is None or spec.origin is None:
        return False  # no ranx: its tests skip
    return sum(1 for _ in Path(spec.origin).parent.rglob("*.nbi")) < _WARM_CACHE


def pytest_configure(config: pytest.Config) -> None:
    """On the README's whole-suite run with a cold ranx cache: the warm-up process."""
    if hasattr(config, "workerinput") or RANX_DONE in os.environ:
        return  # a worker (it inherits the variable), or the warm-up itself (empty)
    whole_suite = not config.args or set(config.args) <= {"tests", "polars_rank"}
    if not whole_suite or "ranx" in (config.option.markexpr or "") or not _ranx_cache_is_cold():
        return
    done = Path(tempfile.mkdtemp(prefix="ranx-warm-")) / "done"
    os.environ[RANX_DONE] = str(done)
    log = done.with_name("log.txt").open("w")  # read after a failure: the warm-up's output
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o",
               "addopts=", "-m", "ranx", "tests"]
    # RANX_DONE empty: the warm-up's own ranx tests wait for nothing, and start nothing
    env = {**os.environ, "POLARS_RANK_EXAMPLES": "0", RANX_DONE: ""}
    # its end writes the marker file, pass or fail (the ranx tests of this run report)
    script = (f"import subprocess, sys; subprocess.run({command!r}); "
              f"open({str(done)!r}, 'w').close()")
    subprocess.Popen([sys.executable, "-c", script], env=env, stdout=log, stderr=log,
                     cwd=config.rootpath)


_WAITED: list[float] = []  # when this process's first ranx test began to wait


@pytest.fixture(autouse=True)
def _ranx_warm(request: pytest.FixtureRequest) -> None:
    """A ranx test waits for the warm-up process, if the run started one.

    At most 20 minutes from the first wait of this process, then the tests compile
    ranx themselves, as without the warm-up (it failed to start, or hangs).
    """
    marker = os.environ.get(RANX_DONE)
    if not marker or request.node.get_closest_marker("ranx") is None:
        return
    if not _WAITED:
        _WAITED.append(time.monotonic())
    while not Path(marker).exists() and time.monotonic() < _WAITED[0] + 1200:
        time.sleep(1.0)
