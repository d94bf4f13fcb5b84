"""The ranked-list protocol (issue 38, item 2): four variants, chosen in one place.

``polars_rank._engine.lists.ranked_list`` picks a list's variant from how it is given
(``by=`` or ``rank=``) and its tie policy; the kernels read the protocol's questions
and, where their maths differ by variant, register one implementation per variant
class. No metric module tests the tie policy or the list mode itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from polars_rank._engine.expected import Expected
from polars_rank._engine.keys import SortKeys, TieAveraged
from polars_rank._engine.lists import ranked_list, retied
from polars_rank._engine.params import TIES, UNSET
from polars_rank._engine.positions import Positions, TieSpans
from polars_rank.metrics._precision_sum import precision_sum

METRICS = Path(__file__).resolve().parents[1] / "polars_rank" / "metrics"


@pytest.mark.parametrize("ties", TIES)
def test_keys_give_sort_keys_or_tie_averaged(ties: str) -> None:
    r = ranked_list("rel", by="score", descending=True, ties=ties, query=None, doc="doc")
    expected = TieAveraged if ties == "expected" else SortKeys
    assert type(r) is expected
    assert isinstance(r, Expected) == (ties == "expected")


def test_positions_and_tie_spans() -> None:
    at = ranked_list("rel", by=UNSET, descending=True, ties=None, query=None, rank="r")
    spans = ranked_list("rel", by=UNSET, descending=True, ties=None, query=None,
                        rank=("lo", "hi"))
    assert type(at) is Positions
    assert type(spans) is TieSpans
    assert isinstance(spans, Expected)
    assert isinstance(spans, Positions)
    # a strict order of a tie span reads its first position, its span kept for the checks
    first = retied(spans, "first")
    assert type(first) is Positions
    assert first.rank_last is not None
    assert type(retied(first, "expected")) is TieSpans


def test_retied_keys_keep_their_fields() -> None:
    r = ranked_list("rel", by="score", descending=True, ties="expected", query="q")
    for ties, variant in (("optimistic", SortKeys), ("pessimistic", SortKeys),
                          ("expected", TieAveraged)):
        other = retied(r, ties)
        assert type(other) is variant
        assert other.ties == ties
        assert other.keys == r.keys
        assert other.query == r.query


def test_a_kernel_dispatches_on_the_variant() -> None:
    """AP's numerator: the closed form for both tie-averaged variants, trec_eval's sum
    for positions, the sorted hits for sort keys; the numbers agree where they must."""
    frame = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [3.0, 2.0, 2.0, 1.0],
                          "r": [1, 2, 3, 4], "lo": [1, 2, 2, 4], "hi": [1, 3, 3, 4]})
    impl = precision_sum.dispatch
    assert impl(TieSpans) is impl(TieAveraged) is impl(Expected)
    assert impl(Positions) is not impl(Expected)
    assert impl(SortKeys) is not impl(Positions)

    def total(**given: object) -> float:
        r = ranked_list("rel", descending=True, query=None, **given)  # type: ignore[arg-type]
        return float(frame.select(precision_sum(r, None, 1.0)).item())

    # the tied pair (d2 non-relevant, d3 relevant) in either order: 1 + 2/3 + 3/4 or
    # 1 + 2/2 + 3/4; their mean from the keys and from the spans
    mean = (1 + 2 / 3 + 3 / 4 + 1 + 2 / 2 + 3 / 4) / 2
    assert total(by="score", ties="expected") == pytest.approx(mean, abs=1e-15)
    assert total(by=UNSET, ties=None, rank=("lo", "hi")) == pytest.approx(mean, abs=1e-15)
    assert total(by=UNSET, ties=None, rank="r") == pytest.approx(1 + 2 / 3 + 3 / 4)
    assert total(by="score", ties="first") == pytest.approx(1 + 2 / 3 + 3 / 4)


BRANCHES = re.compile(r"\.ties\s*[!=]=|\.rank(_last)?\s+is\s+(not\s+)?None")


def test_no_metric_module_tests_the_policy_or_the_mode() -> None:
    found = [f"{path.name}:{n}: {line.strip()}"
             for path in sorted(METRICS.glob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if BRANCHES.search(line)]
    assert not found, ("a kernel tests the tie policy or the list mode: register an "
                       f"implementation per variant instead (docs/architecture.md): {found}")


def test_the_check_finds_a_branch() -> None:
    assert BRANCHES.search('    if r.ties == "expected":')
    assert BRANCHES.search("    if r.rank is not None:")
    assert not BRANCHES.search("    if rank is not None:")  # a parameter, not the list
