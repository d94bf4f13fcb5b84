"""Properties of polars_rank.online (issue 39): interleaving, click models, propensities.

The other online test files compare with transcribed references on chosen cases; these
draw small random runs and logs and check what must hold whatever the input: lists
without repeats and of the right length, balanced teams, credit symmetric under
renaming the rankers, EM never lowering the likelihood, fits and propensities that do
not depend on row order or on the names of items and queries.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from polars_rank.online import (
    credit,
    fit_click_model,
    harvested_propensities,
    interleave,
    preference,
    probabilistic_lists,
    swap_propensities,
)
from tests import propensity_reference as ref
from tests.budget import examples
from tests.propensity_logs import simulate

SETTINGS = settings(max_examples=examples(12), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
DOCS = list(range(6))


# ---- strategies ---------------------------------------------------------------------

@st.composite
def two_runs(draw: st.DrawFn, same_docs: bool = False) -> dict[int, tuple[list[int], list[int]]]:
    """Per query (1 to 3), the two rankers' lists of distinct docs (1 to 5 each)."""
    out = {}
    for q in range(draw(st.integers(1, 3))):
        a = draw(st.permutations(DOCS).map(lambda p: p[:5]))
        a = a[:draw(st.integers(1, 5))]
        b = list(draw(st.permutations(a))) if same_docs else draw(
            st.permutations(DOCS).map(lambda p: p[:draw(st.integers(1, 5))]))
        out[q] = (list(a), list(b))
    return out


def frame_of(runs: dict[int, tuple[list[int], list[int]]],
             names: tuple[str, str] = ("A", "B")) -> pl.DataFrame:
    rows = [(q, name, d, i + 1) for q, lists in runs.items()
            for name, lst in zip(names, lists, strict=True) for i, d in enumerate(lst)]
    return pl.DataFrame(rows, schema=["qid", "system", "docid", "rank"], orient="row")


def shuffled(frame: pl.DataFrame, seed: int) -> pl.DataFrame:
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


@st.composite
def click_logs(draw: st.DrawFn) -> pl.DataFrame:
    """3 to 10 impressions of 3 positions over 2 queries and 5 items, random clicks."""
    rows = []
    for m in range(draw(st.integers(3, 10))):
        q = draw(st.integers(0, 1))
        items = draw(st.permutations(range(5)))[:3]
        clicks = draw(st.lists(st.integers(0, 1), min_size=3, max_size=3))
        rows += [(m, r + 1, q, items[r], clicks[r]) for r in range(3)]
    return pl.DataFrame(rows, schema=["impression", "position", "query", "item", "click"],
                        orient="row")


def relabelled(frame: pl.DataFrame) -> pl.DataFrame:
    """Items and queries renamed by a bijection (ids and their order change)."""
    return frame.with_columns(item=(pl.col("item") * 3 + 7) % 11 + 100, query=10 - pl.col("query"))


def rows_of(frame: pl.DataFrame) -> list[tuple[Any, ...]]:
    return sorted(frame.rows())


def close(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]], tol: float = 1e-9) -> bool:
    return len(a) == len(b) and all(
        len(x) == len(y) and all(
            (math.isclose(u, v, rel_tol=tol, abs_tol=tol) if isinstance(u, float) else u == v)
            for u, v in zip(x, y, strict=True)) for x, y in zip(a, b, strict=True))


# ---- interleave ---------------------------------------------------------------------

@SETTINGS
@given(runs=two_runs(), method=st.sampled_from(["team_draft", "balanced", "probabilistic"]),
       k=st.integers(1, 8), seed=st.integers(0, 2**31))
def test_interleaved_lists_are_lists_of_the_runs(runs: Any, method: str, k: int,
                                                 seed: int) -> None:
    frame = frame_of(runs)
    out = interleave(frame, method, k=k, seed=seed, rank="rank")
    assert isinstance(out, pl.DataFrame)
    for q, (a, b) in runs.items():
        got = out.filter(pl.col("qid") == q).sort("position")
        docs = got["docid"].to_list()
        assert len(docs) == len(set(docs)), (q, docs)
        assert set(docs) <= set(a) | set(b)
        assert got["position"].to_list() == list(range(1, len(docs) + 1))
        if method != "balanced":  # balanced stops when one list runs out
            assert len(docs) == min(k, len(set(a) | set(b))), (q, docs, a, b)
        else:
            assert len(docs) <= k
    # the same seed gives the same lists whatever the row order
    again = interleave(shuffled(frame, seed), method, k=k, seed=seed, rank="rank")
    assert isinstance(again, pl.DataFrame)
    assert rows_of(again) == rows_of(out)


@SETTINGS
@given(runs=two_runs(same_docs=True), seed=st.integers(0, 2**31))
def test_team_draft_teams_are_balanced(runs: Any, seed: int) -> None:
    out = interleave(frame_of(runs), "team_draft", k=8, seed=seed, rank="rank")
    assert isinstance(out, pl.DataFrame)
    for (q,), got in out.group_by("qid"):
        got = got.sort("position")
        teams = got["system"].to_list()
        for n in range(1, len(teams) + 1):  # after every position, not only at the end
            assert abs(teams[:n].count("A") - teams[:n].count("B")) <= 1, (q, teams)
        # each team's documents come in its ranker's order
        a, b = runs[q]
        for name, lst in (("A", a), ("B", b)):
            mine = got.filter(pl.col("system") == name)["docid"].to_list()
            assert mine == sorted(mine, key=lst.index)


@SETTINGS
@given(runs=two_runs(), k=st.integers(1, 3))
def test_probabilistic_distribution(runs: Any, k: int) -> None:
    dist = probabilistic_lists(frame_of(runs), k=k, rank="rank")
    assert isinstance(dist, pl.DataFrame)
    sums = dist.group_by("qid").agg(pl.col("probability").sum())
    assert all(math.isclose(s, 1.0, abs_tol=1e-12) for s in sums["probability"])
    assert (dist["probability"] > 0).all()
    # the distribution of lists does not depend on which ranker is called what
    swapped = probabilistic_lists(frame_of(runs, ("B", "A")), k=k, rank="rank")
    assert isinstance(swapped, pl.DataFrame)
    key = ["qid", pl.col("docid").cast(pl.List(pl.String)).list.join(",")]
    assert close(rows_of(dist.select(*key, "probability")),
                 rows_of(swapped.select(*key, "probability")), 1e-12)
    # an interleaved list is one the distribution gives a probability to
    drawn = interleave(frame_of(runs), "probabilistic", k=k, seed=k, rank="rank")
    assert isinstance(drawn, pl.DataFrame)
    support = {(q, tuple(d)) for q, d in dist.select("qid", "docid").iter_rows()}
    for (q,), got in drawn.group_by("qid"):
        assert (q, tuple(got.sort("position")["docid"])) in support


# ---- credit and preference ----------------------------------------------------------

@st.composite
def team_draft_logs(draw: st.DrawFn) -> pl.DataFrame:
    """Team-draft lists of random runs shown in 1 to 4 impressions each, random clicks."""
    runs = draw(two_runs())
    shown = interleave(frame_of(runs), "team_draft", k=4, seed=draw(st.integers(0, 99)),
                       rank="rank")
    assert isinstance(shown, pl.DataFrame)
    assume(shown["system"].n_unique() == 2)  # credit reads the rankers from the teams shown
    parts = []
    for m in range(draw(st.integers(1, 4))):
        clicks = draw(st.lists(st.integers(0, 1), min_size=shown.height, max_size=shown.height))
        parts.append(shown.with_columns(impression=pl.lit(m) * 10 + pl.col("qid"),
                                        click=pl.Series(clicks)))
    return pl.concat(parts)


def outcome(frame: pl.DataFrame) -> list[tuple[Any, ...]]:
    return rows_of(frame.select("impression", "system", "other", "credit", "other_credit",
                                "win", "loss", "tie"))


@settings(max_examples=examples(8), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=team_draft_logs(), seed=st.integers(0, 99))
def test_credit_symmetries(log: pl.DataFrame, seed: int) -> None:
    got = credit(log)
    assert isinstance(got, pl.DataFrame)
    assert (got["win"] + got["loss"] + got["tie"] == 1).all()
    assert got["impression"].n_unique() == got.height == log["impression"].n_unique()
    again = credit(shuffled(log, seed))
    assert isinstance(again, pl.DataFrame)
    assert outcome(again) == outcome(got)
    # renaming the rankers A <-> B swaps wins and losses
    renamed = credit(log.with_columns(system=pl.col("system").replace({"A": "B", "B": "A"})))
    assert isinstance(renamed, pl.DataFrame)
    mirrored = got.select("impression", "system", "other", pl.col("other_credit").alias("credit"),
                          pl.col("credit").alias("other_credit"), pl.col("loss").alias("win"),
                          pl.col("win").alias("loss"), "tie")
    assert outcome(renamed) == outcome(mirrored)
    # no clicks: every impression a tie
    none = credit(log.with_columns(click=pl.lit(0)))
    assert isinstance(none, pl.DataFrame)
    assert (none["tie"] == 1).all()
    # the pairs' preference: counts add up, p-values are probabilities, symmetric
    pref = preference(got)
    flipped = preference(renamed)
    assert (pref["wins"] + pref["losses"] + pref["ties"] == pref["impressions"]).all()
    assert pref["impressions"].sum() == got.height
    for col in ("p_value", "p_adjusted"):
        assert ((pref[col] >= 0) & (pref[col] <= 1)).all()
    assert math.isclose(pref["p_value"][0], flipped["p_value"][0], abs_tol=1e-12)
    assert math.isclose(pref["delta"][0], -flipped["delta"][0], abs_tol=1e-12)
    assert (pref["wins"][0], pref["losses"][0]) == (flipped["losses"][0], flipped["wins"][0])


# ---- click models -------------------------------------------------------------------

@SETTINGS
@given(log=click_logs(), model=st.sampled_from(["pbm", "ubm", "dbn"]), n=st.integers(1, 4))
def test_em_never_lowers_the_likelihood(log: pl.DataFrame, model: str, n: int) -> None:
    before = fit_click_model(log, model, iterations=n)  # type: ignore[arg-type]
    after = fit_click_model(log, model, iterations=n + 1)  # type: ignore[arg-type]
    assert after.log_likelihood(log) >= before.log_likelihood(log) - 1e-9
    for name, table in after.parameters.items():
        assert ((table[name] >= 0) & (table[name] <= 1)).all(), name
    assert after.perplexity(log) >= 1 - 1e-12


@SETTINGS
@given(log=click_logs(), model=st.sampled_from(["pbm", "ubm", "dbn", "ccm", "sdbn", "dcm",
                                                "cascade"]), seed=st.integers(0, 99))
def test_fit_ignores_row_order_and_names(log: pl.DataFrame, model: str, seed: int) -> None:
    fitted = fit_click_model(log, model, iterations=3)  # type: ignore[arg-type]
    again = fit_click_model(shuffled(log, seed), model, iterations=3)  # type: ignore[arg-type]
    renamed = fit_click_model(relabelled(log), model, iterations=3)  # type: ignore[arg-type]
    for name, table in fitted.parameters.items():
        assert ((table[name] >= 0) & (table[name] <= 1)).all(), name
        assert close(rows_of(again.parameters[name]), rows_of(table)), name
        mapped = relabelled(table) if "item" in table.columns else table
        assert close(rows_of(renamed.parameters[name]), rows_of(mapped)), name
    assert math.isclose(fitted.log_likelihood(log), renamed.log_likelihood(relabelled(log)),
                        rel_tol=1e-9)


@SETTINGS
@given(log=click_logs(), model=st.sampled_from(["sdbn", "dcm", "cascade"]))
def test_no_clicks_attractiveness_is_the_prior_alone(log: pl.DataFrame, model: str) -> None:
    """(1 + clicks) / (2 + rows counted) (docs/click-models.md): every row counts."""
    fitted = fit_click_model(log.with_columns(click=pl.lit(0)), model)  # type: ignore[arg-type]
    shown = log.group_by("query", "item").agg(pl.len().alias("n"))
    got = fitted.attractiveness.join(shown, on=["query", "item"], how="full", coalesce=True)
    assert got.height == shown.height
    expected = 1.0 / (2.0 + got["n"].cast(pl.Float64))
    assert ((got["attractiveness"] - expected).abs() < 1e-12).all()


# ---- propensities -------------------------------------------------------------------

def check_propensities(table: pl.DataFrame) -> None:
    """p_1 = 1, positions 1..n, p > 0, and ordered bounds (a percentile interval need
    not hold the point estimate: it is not checked)."""
    assert table.sort("position")["propensity"][0] == 1.0
    assert table["position"].to_list() == list(range(1, table.height + 1))
    assert (table["propensity"] > 0).all()
    assert (table["ci_low"] <= table["ci_high"]).all()
    assert table.filter(pl.col("position") == 1).select("ci_low", "ci_high").row(0) == (1.0, 1.0)


@settings(max_examples=examples(6), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), design=st.sampled_from(["swap", "randtop"]))
def test_swap_propensities_properties(seed: int, design: str) -> None:
    log = simulate(design, impressions=200, depth=4, seed=seed, queries=6)
    got = swap_propensities(log, design=design, n_resamples=20, seed=seed)  # type: ignore[arg-type]
    check_propensities(got)
    # resampled by impression: neither the row order nor the ids of items and queries matter
    again = swap_propensities(shuffled(relabelled(log), seed), design=design,  # type: ignore[arg-type]
                              n_resamples=20, seed=seed)
    assert close(rows_of(again), rows_of(got))


@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16))
def test_harvested_propensities_properties(seed: int) -> None:
    log = simulate("rankers", impressions=300, depth=4, seed=seed, queries=6)
    got = harvested_propensities(log, n_resamples=0)
    assert got.sort("position")["propensity"][0] == 1.0
    assert (got["propensity"] > 0).all()
    # the bootstrap resamples queries by their ids: the point estimate only is compared
    again = harvested_propensities(shuffled(relabelled(log), seed), n_resamples=0)
    assert close(rows_of(again), rows_of(got), 1e-9)


def test_harvested_propensity_of_a_cell_clicked_every_time() -> None:
    """Both rankers' top results are always clicked (p_1 r_12 = 1, so r_12 = 1), their
    second results 3 times out of 5: p_2 r_12 = 0.6, so p_2 = 0.6."""
    rows = []
    for ranker, (top, second) in (("R1", ("x", "y")), ("R2", ("y", "x"))):
        for i in range(5):
            m = len(rows) // 2
            rows += [(m, 1, "q", top, 1, ranker), (m, 2, "q", second, int(i < 3), ranker)]
    log = pl.DataFrame(rows, schema=["impression", "position", "query", "item", "click",
                                     "ranker"], orient="row")
    got = harvested_propensities(log, n_resamples=0).sort("position")["propensity"]
    assert abs(got[1] - 0.6) < 1e-6
    assert abs(ref.harvest_reference(log.to_dicts())[2] - 0.6) < 1e-6
