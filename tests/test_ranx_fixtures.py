"""ranx's recorded answers (tests/fixtures/ranx_*.json) are to the cases ranx_cases builds.

The fusion tests compare polars-rank with ranx's answers recorded by
``python tests/record_ranx.py``; these tests check that the recorded cases are exactly
the ones tests/ranx_cases.py builds now (the same names, the same inputs to the last
bit: a hash of each), so that a changed case or generator cannot leave the fixtures
answering other questions; and, with ``POLARS_RANK_LIVE_RANX=1``, that they were
recorded with the ranx installed.
"""

from __future__ import annotations

from importlib.metadata import version

import pytest
from ranx_cases import CASES, FILES, FIXTURES, case_hash, live_ranx, pack, recorded, unpack


@pytest.mark.parametrize("kind", list(FILES))
def test_recorded_cases_are_the_generated_ones(kind: str) -> None:
    document = recorded(kind)
    cases = CASES[kind]()
    assert sorted(document["cases"]) == sorted(cases), (
        f"{FILES[kind]}: other cases than tests/ranx_cases.py's; run python "
        "tests/record_ranx.py")
    stale = [name for name, case in cases.items()
             if document["cases"][name]["inputs"] != case_hash(case)]
    assert not stale, f"{FILES[kind]}: inputs changed for {stale[:5]}; run record_ranx.py"
    assert document["ranx"].startswith("0.3."), document["ranx"]


def test_the_fixtures_are_small() -> None:
    total = sum((FIXTURES / name).stat().st_size for name in FILES.values())
    assert total < 1_000_000, total


def test_a_changed_input_changes_the_hash() -> None:
    case = CASES["fuse"]()["fixtures"]
    frame = case["frame"]
    moved = frame.with_columns(score=frame["score"].scatter(0, frame["score"][0] + 1e-15))
    assert case_hash({**case, "frame": moved}) != case_hash(case)
    assert case_hash({**case, "weights": [0.3, 0.2, 0.5000001]}) != case_hash(case)


@pytest.mark.parametrize("values", [[], [1.0], [2.0] * 1000 + [-0.0, 0.0, 0.0, 3.5],
                                    [0.1, 0.2, 0.1], [-0.0] * 5 + [0.0] * 5])
def test_pack_unpack(values: list[float]) -> None:
    got = unpack(pack(values))
    assert got == values
    assert [str(v) for v in got] == [str(v) for v in values]  # -0.0 stays -0.0


@live_ranx
@pytest.mark.parametrize("kind", list(FILES))
def test_recorded_with_the_installed_ranx(kind: str) -> None:
    """After upgrading ranx: record again (python tests/record_ranx.py)."""
    assert recorded(kind)["ranx"] == version("ranx")
