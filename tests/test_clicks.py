"""Click metrics on impression logs against the plain-Python oracle in ``reference.py``.

A log has one row per shown result: session, display position (1, 2, ... with gaps,
in any row order), clicks (0/1, counts, or null) and a dwell time (null, or seconds;
0 on some unclicked rows, as some loggers write). ``by="position",
descending=False`` is the display order.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
import reference as ref
from budget import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

import polars_rank as pr

TOL = 1e-12
SHOWN = {"by": "pos", "descending": False}

Row = tuple[int, int, "int | None", "float | None"]  # session, position, clicks, dwell

row_st = st.tuples(
    st.integers(0, 4),
    st.integers(1, 30),
    st.one_of(st.none(), st.sampled_from([0, 0, 0, 1, 1, 2])),
    st.one_of(st.none(), st.sampled_from([0.0, 3.5, 12.0, 60.0])),
)


def log_st() -> st.SearchStrategy[list[Row]]:
    """Sessions of rows with distinct positions per session."""
    return st.lists(row_st, max_size=25, unique_by=lambda r: (r[0], r[1]))


def frame(rows: list[Row]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema={"session": pl.Int64, "pos": pl.Int64, "clicked": pl.Int64,
                      "dwell": pl.Float64},
        orient="row",
    )


def sessions(rows: list[Row]) -> dict[int, tuple[list[int | None], list[float | None]]]:
    """Per session: clicks and dwell times in display order."""
    out: dict[int, tuple[list[int | None], list[float | None]]] = {}
    for s, _, c, d in sorted(rows, key=lambda r: (r[0], r[1])):
        clicks, dwell = out.setdefault(s, ([], []))
        clicks.append(c)
        dwell.append(d)
    return out


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=TOL, abs_tol=TOL)


def exprs(k: int | None, **kw: object) -> dict[str, pl.Expr]:
    return {
        "ctr": pr.ctr("clicked", k, **SHOWN, **kw),
        "abandonment": pr.abandonment("clicked", k, **SHOWN, **kw),
        "first_click_rr": pr.first_click_rr("clicked", k, **SHOWN, **kw),
        "clicks_per_query": pr.clicks_per_query("clicked", k, **SHOWN, **kw),
        "mean_dwell": pr.mean_dwell("dwell", k, clicks="clicked", **SHOWN, **kw),
        "mean_dwell_any": pr.mean_dwell("dwell", k, **SHOWN, **kw),
    }


def oracle(clicks: list[int | None], dwell: list[float | None], k: int | None,
           ) -> dict[str, float | None]:
    return {
        "ctr": ref.ctr(clicks, k),
        "abandonment": ref.abandonment(clicks, k),
        "first_click_rr": ref.first_click_rr(clicks, k),
        "clicks_per_query": ref.clicks_per_query(clicks, k),
        "mean_dwell": ref.mean_dwell(dwell, k, clicks=clicks),
        "mean_dwell_any": ref.mean_dwell(dwell, k),
    }


@settings(max_examples=examples(150), deadline=None)
@given(rows=log_st(), k=st.sampled_from([None, 1, 2, 3, 10]))
@example(rows=[], k=None)
@example(rows=[(0, 3, None, None), (0, 1, 0, 0.0)], k=None)  # no click, dwell 0 logged
@example(rows=[(1, 5, 2, 60.0), (1, 2, 0, 0.0), (1, 9, 1, None)], k=2)  # gaps in positions
def test_per_session_matches_reference(rows: list[Row], k: int | None) -> None:
    per_session = frame(rows).group_by("session").agg(
        e.alias(name) for name, e in exprs(k).items())
    expected = {s: oracle(c, d, k) for s, (c, d) in sessions(rows).items()}
    assert set(per_session["session"]) == set(expected)
    for row in per_session.iter_rows(named=True):
        for name, value in expected[row["session"]].items():
            assert close(row[name], value), (name, row, value)


@settings(max_examples=examples(100), deadline=None)
@given(rows=log_st(), k=st.sampled_from([None, 1, 3]))
def test_query_mean_over_sessions(rows: list[Row], k: int | None) -> None:
    """``query=``: the mean over sessions, each once (mean dwell: over those with one)."""
    got = frame(rows).select(
        e.alias(name) for name, e in exprs(k, query="session").items()).row(0, named=True)
    per = [oracle(c, d, k) for c, d in sessions(rows).values()]
    for name, value in got.items():
        defined = [p[name] for p in per if p[name] is not None]
        expected = math.fsum(defined) / len(defined) if defined else None  # type: ignore[arg-type]
        assert close(value, expected), (name, value, expected)


def test_hand_example() -> None:
    log = pl.DataFrame({
        "session": [1, 1, 1, 2, 2, 3, 3],
        "pos": [3, 1, 2, 1, 2, 1, 2],
        "clicked": [1, 0, 1, 0, 0, 2, None],
        "dwell": [40.0, 0.0, 20.0, 0.0, 0.0, 9.0, None],
    })
    out = log.select(e.alias(n) for n, e in exprs(None, query="session").items())
    row = out.row(0, named=True)
    assert close(row["ctr"], (2 / 3 + 0 / 2 + 2 / 2) / 3)  # counts: 2 clicks / 2 shown
    assert close(row["abandonment"], 1 / 3)
    assert close(row["first_click_rr"], (1 / 2 + 0 + 1) / 3)
    assert close(row["clicks_per_query"], (2 + 0 + 2) / 3)
    assert close(row["mean_dwell"], (30.0 + 9.0) / 2)  # session 2 has no click
    assert close(row["mean_dwell_any"], (20.0 + 0.0 + 9.0) / 3)  # the logged zeros count


def test_cutoff_counts_display_rank_not_position_value() -> None:
    log = pl.DataFrame({"pos": [10, 20, 30], "clicked": [0, 0, 1]})
    assert log.select(pr.first_click_rr("clicked", **SHOWN)).item() == pytest.approx(1 / 3)
    assert log.select(pr.abandonment("clicked", 2, **SHOWN)).item() == 1.0
    assert log.select(pr.abandonment("clicked", 3, **SHOWN)).item() == 0.0


def test_rows_not_shown_are_ignored() -> None:
    log = pl.DataFrame({"pos": [1, None, 2], "clicked": [0, 1, 0], "dwell": [None, 50.0, None]})
    assert log.select(pr.abandonment("clicked", **SHOWN)).item() == 1.0
    assert log.select(pr.first_click_rr("clicked", **SHOWN)).item() == 0.0
    assert log.select(pr.clicks_per_query("clicked", **SHOWN)).item() == 0.0
    assert log.select(pr.mean_dwell("dwell", **SHOWN)).item() is None


@pytest.mark.parametrize("name", ["abandonment", "first_click_rr", "clicks_per_query"])
@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_bad_clicks_give_nan(name: str, bad: float) -> None:
    log = pl.DataFrame({"s": [1, 1, 2], "pos": [1, 2, 1], "clicked": [1.0, bad, 1.0]})
    per = log.group_by("s").agg(getattr(pr, name)("clicked", **SHOWN)).sort("s")
    assert math.isnan(per[name][0])  # the column is named after its metric
    assert not math.isnan(per[name][1])
    mean = log.select(getattr(pr, name)("clicked", **SHOWN, query="s")).item()
    assert math.isnan(mean)


@pytest.mark.parametrize("column", ["dwell", "clicked"])
def test_bad_dwell_or_clicks_give_nan_mean_dwell(column: str) -> None:
    log = pl.DataFrame({"pos": [1, 2], "clicked": [1.0, 1.0], "dwell": [5.0, 7.0]})
    bad = log.with_columns(pl.when(pl.col("pos") == 2).then(-1.0).otherwise(pl.col(column))
                           .alias(column))
    expr = pr.mean_dwell("dwell", clicks="clicked", **SHOWN)
    assert log.select(expr).item() == 6.0
    assert math.isnan(bad.select(expr).item())


def test_namespace_and_streaming() -> None:
    log = frame([(s, p, (s + p) % 3 == 0, float(p)) for s in range(4) for p in range(1, 6)])
    eager = log.select(
        pr.abandonment("clicked", 3, **SHOWN, query="session").alias("a"),
        pl.col("clicked").rank.first_click_rr(**SHOWN, query="session").alias("b"),
        pl.col("dwell").rank.mean_dwell(clicks="clicked", **SHOWN, query="session").alias("c"),
    )
    lazy = log.lazy().select(
        pl.col("clicked").rank.abandonment(3, **SHOWN, query="session").alias("a"),
        pr.first_click_rr("clicked", **SHOWN, query="session").alias("b"),
        pr.mean_dwell("dwell", clicks="clicked", **SHOWN, query="session").alias("c"),
    ).collect(engine="streaming")
    assert eager.equals(lazy)


@pytest.mark.parametrize("k", [0, -1])
@pytest.mark.parametrize("name", ["abandonment", "first_click_rr", "clicks_per_query",
                                  "mean_dwell"])
def test_bad_k_raises_when_built(name: str, k: int) -> None:
    with pytest.raises(ValueError, match="k must be a positive int"):
        getattr(pr, name)("clicked", k, **SHOWN)


def test_clicks_must_be_a_column_or_expression() -> None:
    with pytest.raises(TypeError, match="clicks must be a column name or a polars expression"):
        pr.mean_dwell("dwell", clicks=3, **SHOWN)  # type: ignore[arg-type]
