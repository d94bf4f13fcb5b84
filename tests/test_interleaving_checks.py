"""credit()'s checks of the log after issue 39's speed-up, and its fast path for blocks.

credit() answers a log's rules from one aggregation of the impressions, and a log
in blocks (every impression S consecutive rows, in (impression, position) order)
from one select of array reductions (polars_rank/online/_interleaving/blocks.py).
Every rule must still raise the same error naming the rule, the column and the
impression, whether the log is in blocks, shuffled or ragged; and the fast path must
give what the general path gives (and a brute-force count of each team's clicks).
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rank.errors import InvalidDataError
from polars_rank.online import credit
from polars_rank.online._interleaving.blocks import team_draft_blocks
from polars_rank.online._interleaving.shown import strictly_ordered, team_names
from tests.budget import examples


def blocks_log(impressions: int, span: int, *, seed: int = 0, names: tuple[Any, Any] = (
        "A", "B"), docs: str = "int") -> pl.DataFrame:
    """A team-draft log in blocks: ``span`` positions per impression, in order."""
    rnd = random.Random(seed)
    rows = []
    for m in range(impressions):
        pool = rnd.sample(range(100), span)
        for p in range(1, span + 1):
            d: Any = pool[p - 1] if docs == "int" else f"d{pool[p - 1]}"
            rows.append((m * 3 + 1, p, d, names[rnd.random() < 0.5], int(rnd.random() < 0.4)))
    return pl.DataFrame(rows, schema=["impression", "position", "docid", "system", "click"],
                        orient="row")


def brute_force(log: pl.DataFrame) -> dict[Any, tuple[int, int]]:
    """Each impression's clicks per team (sorted names), by a loop over the rows."""
    names = sorted(set(log["system"].to_list()))
    out: dict[Any, list[int]] = {}
    for row in log.iter_rows(named=True):
        counts = out.setdefault(row["impression"], [0, 0])
        counts[names.index(row["system"])] += row["click"]
    return {m: (a, b) for m, (a, b) in out.items()}


def eager(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    assert isinstance(frame, pl.DataFrame)
    return frame


def as_counts(got: pl.DataFrame) -> dict[Any, tuple[int, int]]:
    return {r["impression"]: (int(r["credit"]), int(r["other_credit"]))
            for r in got.iter_rows(named=True)}


@settings(max_examples=examples(25), deadline=None)
@given(impressions=st.integers(1, 30), span=st.integers(1, 20), seed=st.integers(0, 10**6),
       docs=st.sampled_from(["int", "str"]))
def test_blocks_fast_path_equals_the_general_path(impressions: int, span: int, seed: int,
                                                  docs: str) -> None:
    log = blocks_log(impressions, span, seed=seed, docs=docs)
    if impressions * span < 2 or log["system"].n_unique() < 2:
        return
    # the fast path answers this log (else this test would test the general path twice)
    shown = log.rename({"impression": "_m", "position": "_pos", "docid": "_d"})
    assert team_draft_blocks(shown, "system", "click") is not None
    got = eager(credit(log))
    shuffled = log.sample(fraction=1.0, shuffle=True, seed=seed)  # the general path
    if not shuffled.equals(log):
        assert team_draft_blocks(shuffled.rename({"impression": "_m", "position": "_pos",
                                                  "docid": "_d"}), "system", "click") is None
    assert got.equals(eager(credit(shuffled)))
    assert as_counts(got) == brute_force(log)
    assert got["impression"].to_list() == sorted(set(log["impression"].to_list()))


def test_the_fast_path_declines_what_it_cannot_answer() -> None:
    log = blocks_log(4, 3).rename({"impression": "_m", "position": "_pos", "docid": "_d"})
    assert team_draft_blocks(log, "system", "click") is not None
    ragged = log.filter(~((pl.col("_m") == 4) & (pl.col("_pos") == 3)))
    straddling = log.with_columns(_m=pl.Series([1, 1, 1, 1, 4, 4, 4, 4, 7, 7, 10, 10]))
    for bad in (ragged,  # an impression of 2 rows among blocks of 3
                log.with_columns(_d=pl.lit(5)),  # a document twice
                log.with_columns(system=pl.lit("A")),  # one team
                log.with_columns(system=pl.Series(["A", "B", "C"] * 4)),  # three teams
                log.reverse(),  # not in order
                straddling):  # in order, positions repeat across an impression of 4 rows
        assert team_draft_blocks(bad, "system", "click") is None


@pytest.mark.parametrize("layout", ["blocks", "shuffled", "ragged"])
def test_every_rule_names_the_column_and_the_impression(layout: str) -> None:
    log = blocks_log(5, 4, seed=3)
    if layout == "shuffled":
        log = log.sample(fraction=1.0, shuffle=True, seed=1)
    elif layout == "ragged":
        log = log.filter(~((pl.col("impression") == 13) & (pl.col("position") == 4)))
    first = pl.col("impression") == 7  # the third impression
    cases = [
        (log.with_columns(docid=pl.when(first).then(pl.lit(999)).otherwise("docid")),
         r"duplicate doc in a ranking \(column 'docid'\) at impression=7, docid=999"),
        (log.with_columns(position=pl.when(first).then(pl.lit(2)).otherwise("position")),
         r"two rows at one position \(column 'position'\) at impression=7, position=2"),
        (log.with_columns(click=pl.when(first & (pl.col("position") == 2)).then(pl.lit(2))
                          .otherwise("click")),
         r"clicks not 0/1 in column 'click': 2 at impression=7"),
        (log.with_columns(click=pl.when(first & (pl.col("position") == 2)).then(None)
                          .otherwise("click")),
         r"clicks not 0/1 in column 'click': None at impression=7"),
        (log.with_columns(docid=pl.when(first & (pl.col("position") == 2)).then(None)
                          .otherwise("docid")),
         r"null in column 'docid' at impression=7"),
        (log.with_columns(position=pl.when(first & (pl.col("position") == 2)).then(None)
                          .otherwise("position")),
         r"null in column 'position' at impression=7"),
        (log.with_columns(system=pl.when(first & (pl.col("position") == 2)).then(None)
                          .otherwise("system")),
         r"null team in column 'system' at impression=7"),
        (log.with_columns(system=pl.lit("A")), r"needs at least two rankers; got \['A'\]"),
    ]
    for bad, message in cases:
        with pytest.raises(InvalidDataError, match=message):
            credit(bad)
    with pytest.raises(InvalidDataError, match=r"column 'seg' \(by=\) takes two values in "
                       r"impression=7"):
        credit(log.with_columns(seg=pl.when(first & (pl.col("position") == 2)).then(1)
                                .otherwise(0)), by=["seg"])
    # the log's own rules first, then the clicks given apart
    clicks = pl.DataFrame({"impression": [7], "position": [9]})
    with pytest.raises(InvalidDataError, match=r"not shown \(column 'position'\).*impression=7"):
        credit(log.drop("click"), clicks=clicks)
    with pytest.raises(InvalidDataError, match="duplicate doc"):
        credit(log.drop("click").with_columns(docid=pl.lit(1)), clicks=clicks)


def test_by_and_several_teams_as_before() -> None:
    log = blocks_log(6, 3, seed=5, names=("x", "y")).with_columns(
        seg=pl.col("impression") % 2)
    got = eager(credit(log, by=["seg"]))
    assert got.columns[:2] == ["impression", "seg"]
    assert got.drop("seg").equals(eager(credit(log)))
    three = log.with_columns(system=pl.when(pl.col("position") == 3).then(pl.lit("z"))
                             .otherwise("system"))
    out = eager(credit(three))
    assert out.height == 3 * 6
    assert out.select("system", "other").unique().sort("system", "other").rows() == [
        ("x", "y"), ("x", "z"), ("y", "z")]


def test_helpers() -> None:
    assert strictly_ordered(pl.DataFrame({"_m": ["a", "a", "b"], "_pos": [1, 2, 1]}))
    assert not strictly_ordered(pl.DataFrame({"_m": ["a", "a", "b"], "_pos": [2, 1, 1]}))
    assert not strictly_ordered(pl.DataFrame({"_m": [2**62, 2**62, -2**62], "_pos": [1, 2, 1]}))
    assert team_names(pl.DataFrame({"s": ["b", "a", "c"]}), "s") == ["a", "b", "c"]
    assert team_names(pl.DataFrame({"s": [True, False]}), "s") == [False, True]


def test_an_enum_team_column_keeps_its_order_on_either_path() -> None:
    """The teams are named in the column's own order (an Enum's, here B before A), whether
    the log comes in blocks (the fast path) or not (reversed: the general path)."""
    rows = [(i, p, f"d{p}", "B" if (p + i) % 2 else "A", int(p == 1 or (i == 2 and p == 2)))
            for i in range(4) for p in range(1, 5)]
    log = pl.DataFrame(rows, schema=["impression", "position", "docid", "system", "click"],
                       orient="row").with_columns(pl.col("system").cast(pl.Enum(["B", "A"])))
    blocks = credit(log, method="team_draft")
    general = credit(log.reverse(), method="team_draft")
    assert blocks.equals(general)
    assert blocks.row(0, named=True)["system"] == "B"


@pytest.mark.parametrize("clicks", [[0.0, 1.0, 0.0, 0.0], [0, 1, 0, 0],
                                    [False, True, False, False]])
def test_float_and_boolean_clicks(clicks: list[Any]) -> None:
    """0.0 and 1.0 are clicks: Polars 2 raised "'is_in' cannot check for Float64 values in
    List(Int64) data" (a pandas int column with a NaN is float)."""
    log = pl.DataFrame({"impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
                        "docid": ["a", "b", "b", "a"], "system": ["A", "B", "B", "A"],
                        "click": clicks})
    got = credit(log)
    assert got.select("win", "loss", "tie").rows() == [(0, 1, 0), (0, 0, 1)]


@pytest.mark.parametrize(("clicks", "shown"), [([0.0, 0.5, 0.0, 0.0], "0.5"),
                                               ([0.0, float("nan"), 0.0, 0.0], "nan"),
                                               (["0", "1", "0", "0"], "String")])
def test_clicks_not_zero_one_are_named(clicks: list[Any], shown: str) -> None:
    log = pl.DataFrame({"impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
                        "docid": ["a", "b", "b", "a"], "system": ["A", "B", "B", "A"],
                        "click": clicks})
    with pytest.raises(InvalidDataError, match=rf"clicks not 0/1 in column 'click'.*{shown}"):
        credit(log)
