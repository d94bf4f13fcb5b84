"""The trec_eval 10.0 binary the tests compare with: built once per test run.

Every test file that runs the binary uses the ``trec_eval`` fixture of tests/conftest.py,
which builds NIST's source from ``../shared/trec_eval-10.0`` (``TREC_EVAL_SOURCE``
elsewhere) once for the whole run, shared by the xdist workers under a file lock, or
takes a binary given as ``TREC_EVAL``. Each test file used to build its own copy, once
per worker: about 7 seconds each, 8 files, twice in CI.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

SOURCE = Path(os.environ.get(
    "TREC_EVAL_SOURCE", Path(__file__).resolve().parents[2] / "shared" / "trec_eval-10.0"))
REQUIRED = bool(os.environ.get("CI"))  # CI must build and run trec_eval, never skip


def build_trec_eval(folder: Path) -> Path:
    """trec_eval 10.0 built in ``folder`` (skips, or fails on CI, when it cannot be)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    problem = (f"no trec_eval source at {SOURCE}" if not (SOURCE / "Makefile").is_file()
               else "no C compiler (cc or gcc)" if compiler is None
               else "no make" if shutil.which("make") is None else None)
    if problem is not None:
        if REQUIRED:
            pytest.fail(f"CI builds trec_eval 10.0 from source: {problem}")
        pytest.skip(problem)
    build = folder / "src"
    shutil.copytree(SOURCE, build)
    made = subprocess.run(["make", "-s", f"CC={compiler}"], cwd=build, capture_output=True,
                          text=True, check=False)
    assert made.returncode == 0, f"building trec_eval failed:\n{made.stderr[-3000:]}"
    return build / "trec_eval"


def build_trec_eval_17(trec_eval: Path, folder: Path) -> Path:
    """The same trec_eval printing every value as ``%.17g``: its doubles, exactly."""
    build = folder / "src17"
    shutil.copytree(trec_eval.parent, build, ignore=shutil.ignore_patterns("trec_eval"))
    for name in ("meas_print_single.c", "meas_print_final.c"):
        source = build / name
        source.write_text(source.read_text().replace("%6.4f", "%.17g"))
    made = subprocess.run(["make", "-s"], cwd=build, capture_output=True, text=True,
                          check=False)
    assert made.returncode == 0, made.stderr[-3000:]
    return build / "trec_eval"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # no flock (Windows): the caller builds in its own folder
        yield
        return
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """``build(folder)``'s binary, built once for the whole run (all xdist workers)."""
    base = factory.getbasetemp()
    shared = os.environ.get("PYTEST_XDIST_WORKER") is not None
    root = base.parent if shared else base
    folder = root / name
    with _locked(root / f"{name}.lock"):
        done = folder / "built"
        if done.is_file():
            return Path(done.read_text())
        if folder.exists():  # an earlier build stopped half-way
            shutil.rmtree(folder)
        folder.mkdir()
        binary = build(folder)
        done.write_text(str(binary))
        return binary


def trec_eval_binary(factory: pytest.TempPathFactory) -> Path:
    """The binary given as ``TREC_EVAL``, or trec_eval 10.0 built once for the run."""
    given = os.environ.get("TREC_EVAL")
    if given:
        return Path(given)
    return once(factory, "trec_eval-10.0", build_trec_eval)
