"""Fixtures shared by the test files: the trec_eval binary (tests/trec_eval_build.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from trec_eval_build import build_trec_eval_17, once, trec_eval_binary

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(scope="session")
def trec_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The trec_eval 10.0 binary, built from NIST's source once for the test run."""
    return trec_eval_binary(tmp_path_factory)


@pytest.fixture(scope="session")
def trec_eval_17(trec_eval: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same trec_eval printing every value as ``%.17g``: its doubles, exactly."""
    return once(tmp_path_factory, "trec_eval-10.0-17g",
                lambda folder: build_trec_eval_17(trec_eval, folder))
