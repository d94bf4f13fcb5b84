"""The README's commands are the ones CI runs, and its examples are true."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import polars as pl
import pytest

import polars_rank as pr

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
CI = (ROOT / ".ci" / "run").read_text()


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci_line = next(line for line in CI.splitlines() if "pytest" in line and "pip install" in line)
    command = ci_line.removesuffix(" || exit 1")
    assert f"```bash\n{command}\n```" in README


def test_ci_runs_exactly_the_readme_demo_command() -> None:
    ci_line = next(line for line in CI.splitlines() if "polars-rank demo" in line)
    command = ci_line.removesuffix(" || exit 1")
    assert f"```bash\n{command}\n```" in README


def test_readme_names_every_metric() -> None:
    for name in pr.metrics.__all__:
        assert re.search(rf"`{name}\b", README), name


@pytest.mark.parametrize("gain", ["exponential", "linear"])
def test_function_and_namespace_forms_agree(gain: str) -> None:
    df = pl.DataFrame({"rel": [0, 2, 1], "score": [0.3, 0.2, 0.1]})
    a = df.select(pr.ndcg("rel", k=10, by="score", gain=gain)).item()  # type: ignore[arg-type]
    b = df.select(pl.col("rel").rank.ndcg(k=10, by="score", gain=gain)).item()
    assert a == b


def test_readme_examples_print_what_they_say() -> None:
    """The README's ``>>>`` examples run and print exactly the output shown."""
    text = re.sub(r"^```.*$", "", README, flags=re.MULTILINE)  # a fence ends an output
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(ROOT / "README.md"), 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    with pl.Config():
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 5
    assert result.failed == 0
