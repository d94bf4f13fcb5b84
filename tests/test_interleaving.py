"""Interleaving (issue 39, item 1) against mpkato/interleaving, transcribed.

tests/interleaving_reference.py is the reference (file and commit cited there). Its
own test cases are transcribed first; then random rankings: the reference driven by
the coins polars-rank draws gives the same lists, the same credit for the same lists
and clicks, and the same probabilistic distribution (1e-12).
"""

from __future__ import annotations

import random
import re
from typing import Any

import polars as pl
import pytest

from polars_rank.errors import InvalidDataError
from polars_rank.online import credit, interleave, probabilistic_lists
from polars_rank.online._interleaving.runs import priority, uniform
from tests import interleaving_reference as ref

SEED = 7


def runs_of(lists_by_query: dict[Any, list[list[Any]]]) -> pl.DataFrame:
    rows = [(q, f"r{j}", d, i + 1) for q, lists in lists_by_query.items()
            for j, lst in enumerate(lists) for i, d in enumerate(lst)]
    return pl.DataFrame(rows, schema=["qid", "system", "docid", "rank"], orient="row")


def lists_of(frame: pl.DataFrame) -> dict[Any, tuple[Any, ...]]:
    return {q: tuple(g.sort("position")["docid"]) for (q,), g in frame.group_by("qid")}


def teams_of(frame: pl.DataFrame) -> dict[Any, dict[int, set[Any]]]:
    out: dict[Any, dict[int, set[Any]]] = {}
    for row in frame.iter_rows(named=True):
        out.setdefault(row["qid"], {}).setdefault(int(row["system"][1:]), set()).add(row["docid"])
    return out


# ---- the reference's own cases ------------------------------------------------------

def possible(method: str, lists: list[list[int]], k: int, n: int = 64) -> set[tuple[int, ...]]:
    """The lists ``method`` shows for n queries with the same rankings (n coins)."""
    out = interleave(runs_of(dict.fromkeys(range(n), lists)), method, k=k, seed=SEED, rank="rank")
    return set(lists_of(out).values())  # type: ignore[arg-type]


@pytest.mark.parametrize(("lists", "k", "ideals"), [
    ([[1, 2], [2, 3]], 2, {(1, 2), (2, 1)}),
    ([[1, 2], [3, 4]], 2, {(1, 3), (3, 1)}),
    ([[1, 2], [2, 3]], 3, {(1, 2), (2, 1, 3)}),
    ([[1, 2], [3, 4]], 3, {(1, 3, 2), (3, 1, 4)}),
])
def test_balanced_interleave(lists: list[list[int]], k: int, ideals: set[Any]) -> None:
    assert possible("balanced", lists, k) == ideals


@pytest.mark.parametrize(("lists", "k", "ideals"), [
    ([[1, 2], [2, 3]], 2, {(1, 2), (2, 1)}),
    ([[1, 2], [2, 3]], 3, {(1, 2, 3), (2, 1, 3)}),
    ([[1, 2], [2, 3]], 4, {(1, 2, 3), (2, 1, 3)}),
    ([[1, 2], [3, 4]], 2, {(1, 3), (3, 1)}),
    ([[1, 2], [3, 4]], 3, {(1, 3, 2), (1, 3, 4), (3, 1, 2), (3, 1, 4)}),
    ([[1, 2], [2, 3], [3, 4]], 2, {(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)}),
    ([[1, 2], [3, 4], [5, 6]], 2, {(1, 3), (1, 5), (3, 1), (3, 5), (5, 1), (5, 3)}),
])
def test_team_draft_interleave(lists: list[list[int]], k: int, ideals: set[Any]) -> None:
    assert possible("team_draft", lists, k) == ideals


def test_team_draft_teams() -> None:
    for lists, teams in (([[1, 2], [2, 3]], {0: {1}, 1: {2}}),
                         ([[1, 2], [3, 4]], {0: {1}, 1: {3}})):
        out = interleave(runs_of(dict.fromkeys(range(8), lists)), seed=SEED, rank="rank")
        assert all(t == teams for t in teams_of(out).values())
    out = interleave(runs_of({q: [[1, 2, 3], [2, 3, 1]] for q in range(64)}), seed=SEED,
                     rank="rank")
    assert len({(lst, frozenset((j, frozenset(s)) for j, s in teams_of(out)[q].items()))
                for q, lst in lists_of(out).items()}) == 4  # test_team_draft_ranking


def log_of(shown: list[Any], clicks: list[int], teams: dict[int, list[Any]] | None = None,
           impression: int = 0) -> pl.DataFrame:
    team = {d: f"r{j}" for j, ds in (teams or {}).items() for d in ds}
    return pl.DataFrame({"impression": impression, "qid": 0,
                         "position": list(range(1, len(shown) + 1)), "docid": shown,
                         "system": [team.get(d) for d in shown],
                         "click": [int(i in clicks) for i in range(len(shown))]})


def winners(c: pl.DataFrame) -> set[tuple[int, int]]:
    out = set()
    for row in c.iter_rows(named=True):
        i, j = int(row["system"][1:]), int(row["other"][1:])
        if row["win"]:
            out.add((i, j))
        elif row["loss"]:
            out.add((j, i))
    return out


@pytest.mark.parametrize(("shown", "clicks", "result"), [
    ([1, 2], [0, 1], set()), ([1, 2], [0], {(0, 1)}), ([1, 2], [1], {(1, 0)}),
    ([1, 2], [], set()),
    ([2, 1, 3], [0, 1, 2], set()), ([2, 1, 3], [0, 1], set()), ([2, 1, 3], [0, 2], {(1, 0)}),
    ([2, 1, 3], [1, 2], set()), ([2, 1, 3], [0], {(1, 0)}), ([2, 1, 3], [1], {(0, 1)}),
    ([2, 1, 3], [2], {(1, 0)}), ([2, 1, 3], [], set()),
])
def test_balanced_evaluate(shown: list[int], clicks: list[int], result: set[Any]) -> None:
    runs = runs_of({0: [[1, 2], [2, 3]]})
    got = credit(log_of(shown, clicks), runs, method="balanced", rank="rank")
    assert winners(got) == result
    ranking = ref.BalancedRanking(shown)
    ranking.a, ranking.b = [1, 2], [2, 3]
    assert set(ref.Balanced.evaluate(ranking, clicks)) == result


@pytest.mark.parametrize(("shown", "teams", "clicks", "result"), [
    ([1, 2], {0: [1], 1: [2]}, [0, 1], set()), ([1, 2], {0: [1], 1: [2]}, [0], {(0, 1)}),
    ([1, 2], {0: [1], 1: [2]}, [1], {(1, 0)}), ([1, 2], {0: [1], 1: [2]}, [], set()),
    ([1, 3, 4], {0: [1], 1: [3, 4]}, [0, 1, 2], {(1, 0)}),
    ([1, 3, 4], {0: [1], 1: [3, 4]}, [0, 1], set()),
    ([1, 3, 4], {0: [1], 1: [3, 4]}, [0, 2], set()),
    ([1, 3, 4], {0: [1], 1: [3, 4]}, [1, 2], {(1, 0)}),
    ([1, 3, 4], {0: [1], 1: [3, 4]}, [0], {(0, 1)}),
    ([1, 3, 4], {0: [1], 1: [3, 4]}, [1], {(1, 0)}),
    ([1, 3, 4], {0: [1], 1: [3, 4]}, [2], {(1, 0)}),
])
def test_team_draft_evaluate(shown: list[int], teams: dict[int, list[int]],
                             clicks: list[int], result: set[Any]) -> None:
    got = credit(log_of(shown, clicks, teams).vstack(log_of([9], [], {0: [9]}, 1)))
    assert winners(got.filter(pl.col("impression") == 0)) == result


def test_probabilistic_score_interleave() -> None:
    # test_score_interleave: the allocations' weights, normalised, are our credits
    runs = runs_of({0: [[1, 2], [2, 3]]})
    got = credit(log_of([1, 2], [0, 1]), runs, method="probabilistic", rank="rank").row(
        0, named=True)
    w00, w01 = 1 / (1 + 0.125) * (0.125 / 0.125), 1 / (1 + 0.125) * (1 / (1 + 0.125))
    assert got["credit"] == pytest.approx(w00 / (w00 + w01), abs=1e-15)
    assert got["other_credit"] == 0.0
    runs = runs_of({0: [[1, 2, 3, 4], [2, 3, 4, 1]]})  # test_evaluate_interleave
    assert winners(credit(log_of([1, 2, 3, 4], [1, 2]), runs, method="probabilistic",
                          rank="rank")) == {(1, 0)}


def test_probabilistic_tie_within_rounding() -> None:
    # both rankers win with probability 1/2; the reference's sums differ in the last
    # bit (1.4817175741478534 against ...557) and give ranker 1 the win
    runs = runs_of({0: [[5, 0, 9], [9, 5, 0]]})
    got = credit(log_of([9, 5, 0], [2]), runs, method="probabilistic", rank="rank")
    assert got.select("credit", "other_credit").row(0) == pytest.approx((0.5, 0.5), abs=1e-15)
    assert got["tie"].to_list() == [1]
    scores = ref.Probabilistic.compute_scores(ref.ProbabilisticRanking(
        [[5, 0, 9], [9, 5, 0]], [9, 5, 0]), [2])
    assert scores[0] != scores[1]
    assert abs(scores[0] - scores[1]) < 1e-14


def test_probabilistic_multileave_score() -> None:
    runs = runs_of({0: [[1, 2], [2, 1], [2, 3]]})
    got = credit(log_of([1, 2], [0, 1]), runs, method="probabilistic", rank="rank")
    assert winners(got) == {(0, 1), (0, 2), (1, 2)}  # test_evaluate_multileave
    expected = ref.Probabilistic.compute_scores(ref.ProbabilisticRanking(
        [[1, 2], [2, 1], [2, 3]], [1, 2]), [0, 1])
    scores = {0: got["credit"][0], 1: got["credit"][2], 2: got["other_credit"][2]}
    assert max(abs(scores[j] - expected[j]) for j in range(3)) < 1e-12


@pytest.mark.parametrize(("lists", "first"), [
    ([[0], [1]], {0: 0.5, 1: 0.5}),
    ([[0, 1, 2], [0, 1, 2]], {0: 0.86056, 1: 0.10757, 2: 0.03187}),
    ([[0, 1], [1, 2]], {0: 0.44444, 1: 0.5, 2: 0.05556}),
    ([[0], [1], [2]], {0: 1 / 3, 1: 1 / 3, 2: 1 / 3}),
    ([[0, 1, 2]], {0: 0.86056, 1: 0.10757, 2: 0.03187}),
    ([[0, 3, 6], [1, 4, 7], [2, 5, 8]], None),
])
def test_probabilistic_first_position(lists: list[list[int]], first: dict[int, float] | None
                                      ) -> None:
    # the reference's sampled frequencies (to 0.01), here exact
    d = probabilistic_lists(runs_of({0: lists}), rank="rank", k=1)
    got = {row["docid"][0]: row["probability"] for row in d.iter_rows(named=True)}
    if first is None:  # test_selected_ranker: each ranker first a third of the time
        by_ranker = [sum(p for doc, p in got.items() if doc % 3 == j) for j in range(3)]
        assert by_ranker == pytest.approx([1 / 3] * 3, abs=1e-12)
        return
    assert set(got) == set(first)
    assert all(abs(got[doc] - p) < 1e-5 for doc, p in first.items())


def test_probabilistic_lengths() -> None:
    # test_sanity, test_no_shortage, test_uniqueness, test_ranking_with_teams
    cases = {0: [[0], [0]], 1: [[0, 1], [0, 1, 2]], 2: [[0], [0, 1], [0, 1, 2]],
             3: [[0, 1, 2], [1, 2, 0]]}
    got = lists_of(interleave(runs_of(cases), "probabilistic", rank="rank", seed=SEED))
    assert got[0] == (0,)
    assert (len(got[1]), len(got[2])) == (2, 1)
    assert len(set(got[3])) == 3
    d = probabilistic_lists(runs_of({0: [[1, 2, 3], [2, 3, 1]]}), rank="rank")
    assert d.height == 6
    assert abs(d["probability"].sum() - 1) < 1e-12


# ---- random rankings: the reference driven by our coins -----------------------------

class Coins:
    """The coins interleave() draws for one query, as the reference's ``rng``."""

    def __init__(self, q: Any, stream: int, n_rankers: int, steps: int) -> None:
        frame = pl.DataFrame({"qid": [q] * (steps * n_rankers),
                              "step": [s for s in range(steps) for _ in range(n_rankers)],
                              "ranker": list(range(n_rankers)) * steps})
        got = frame.select(
            "step", "ranker", first=uniform(["qid"], SEED, 0, 0),
            doc=uniform(["qid"], SEED, pl.col("step"), 3),
            prio=priority(["qid"], SEED, pl.col("step"), stream, pl.col("ranker")))
        self.first = got["first"][0]
        self.doc = dict(zip(got["step"], got["doc"], strict=True))
        self.prio = {(s, j): p for s, j, p in zip(got["step"], got["ranker"], got["prio"],
                                                   strict=True)}

    def randint(self, low: int, high: int, step: int) -> int:
        return 0 if self.first < 0.5 else 1

    def choice(self, seq: list[int], step: int) -> int:
        return min(seq, key=lambda j: (self.prio[step, j], j))

    def rand(self, step: int) -> float:
        return self.doc[step]

    def shuffle(self, seq: list[int], step: int) -> None:
        pass


def random_case(rng: random.Random, n_rankers: int, pool: int = 8) -> list[list[int]]:
    return [rng.sample(range(pool), rng.randint(2, 6)) for _ in range(n_rankers)]


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_random_lists_as_the_reference(method: str) -> None:
    rng = random.Random(1)
    cases = {q: random_case(rng, 2 if method == "balanced" else rng.randint(2, 4))
             for q in range(60)}
    ks = {q: rng.choice([None, 2, 4, 7]) for q in cases}
    for k in {*ks.values()}:
        chosen = {q: v for q, v in cases.items() if ks[q] == k}
        if method == "probabilistic" and k is not None:
            chosen = {q: v for q, v in chosen.items() if k <= min(map(len, v))}
        out = interleave(runs_of(chosen), method, k=k, seed=SEED, rank="rank")
        got, teams = lists_of(out), teams_of(out)
        for q, lists in chosen.items():
            coins = Coins(q, {"team_draft": 1, "probabilistic": 2}.get(method, 0),
                          len(lists), 8)
            cls = {"team_draft": ref.TeamDraft, "balanced": ref.Balanced,
                   "probabilistic": ref.Probabilistic}[method]
            expected = cls(lists, max_length=k, rng=coins).interleave()
            assert got.get(q, ()) == tuple(expected), (q, lists, k)
            if method == "team_draft":
                assert dict(teams.get(q, {})) == {
                    j: s for j, s in expected.teams.items() if s}


def test_lists_do_not_depend_on_row_order() -> None:
    rng = random.Random(2)
    runs = runs_of({q: random_case(rng, 3) for q in range(40)})
    for method in ("team_draft", "probabilistic"):
        a = interleave(runs, method, seed=3, rank="rank")
        b = interleave(runs.sample(fraction=1.0, shuffle=True, seed=5), method, seed=3,
                       rank="rank")
        assert a.equals(b)
        assert not a.equals(interleave(runs, method, seed=4, rank="rank"))


def test_random_credit_as_the_reference() -> None:
    rng = random.Random(3)
    for n_rankers, method in ((2, "team_draft"), (3, "team_draft"), (2, "balanced"),
                              (2, "probabilistic"), (3, "probabilistic")):
        cases = {q: random_case(rng, n_rankers) for q in range(40)}
        out = interleave(runs_of(cases), method, seed=SEED, rank="rank")
        clicks = {q: [i for i in range(len(lst)) if rng.random() < 0.4]
                  for q, lst in lists_of(out).items()}
        log = out.with_columns(impression=pl.col("qid"), click=pl.Series([
            int(p - 1 in clicks[q]) for q, p in zip(out["qid"], out["position"], strict=True)]))
        got = credit(log, runs_of(cases), method=method, rank="rank")  # type: ignore[arg-type]
        lists, teams = lists_of(out), teams_of(out)
        for q, lst in lists.items():
            rows = got.filter(pl.col("impression") == q)
            if method == "team_draft":
                r: Any = ref.TeamRanking(range(n_rankers), lst)
                r.teams.update(teams[q])
            elif method == "balanced":
                r = ref.BalancedRanking(lst)
                r.a, r.b = cases[q]
            else:
                r = ref.ProbabilisticRanking(cases[q], lst)
            cls = {"team_draft": ref.TeamDraft, "balanced": ref.Balanced,
                   "probabilistic": ref.Probabilistic}[method]
            scores = cls.compute_scores(r, clicks[q])
            if method == "probabilistic" and n_rankers == 2:
                z = sum(p for _, p in scores.allocations.values())
                scores = {j: scores[j] / z for j in (0, 1)} if z > 0 else {0: 0.0, 1: 0.0}
            ours = {0: rows["credit"][0]}
            for row in rows.iter_rows(named=True):
                ours[int(row["other"][1:])] = row["other_credit"]
            assert max(abs(ours[j] - scores[j]) for j in range(n_rankers)) < 1e-12, (q, lst)
            # a tie within rounding is a tie here; the reference lets the last bit decide
            near = {(i, j) for i in range(n_rankers) for j in range(n_rankers)
                    if i != j and abs(scores[i] - scores[j]) < 1e-9}
            assert winners(rows) == set(cls.evaluate(r, clicks[q])) - near, (q, lst)


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic"])
def test_credit_does_not_depend_on_row_order(method: str) -> None:
    rng = random.Random(5)
    n = 2 if method == "balanced" else 3
    runs = runs_of({q: random_case(rng, n) for q in range(30)})
    out = interleave(runs, method, seed=SEED, rank="rank")
    log = out.with_columns(impression=pl.col("qid"), seg=pl.col("qid") % 3,
                           click=pl.Series([rng.random() < 0.5 for _ in range(out.height)]))
    a = credit(log, runs, method=method, rank="rank", by=["seg"])  # type: ignore[arg-type]
    b = credit(log.sample(fraction=1.0, shuffle=True, seed=1),  # type: ignore[arg-type]
               runs.sample(fraction=1.0, shuffle=True, seed=2), method=method, rank="rank",
               by=["seg"])
    assert a.equals(b)
    assert a["win"].sum() + a["loss"].sum() > 0


def test_probabilistic_distribution_as_the_reference() -> None:
    rng = random.Random(4)
    cases = {q: random_case(rng, rng.randint(1, 3), pool=6) for q in range(12)}
    got = probabilistic_lists(runs_of(cases), rank="rank", k=3, tau=2.5)
    worst = 0.0
    for q, lists in cases.items():
        k = min(3, len({d for lst in lists for d in lst}))
        expected = ref.probabilistic_distribution(lists, k, tau=2.5)
        ours = {tuple(row["docid"]): row["probability"]
                for row in got.filter(pl.col("qid") == q).iter_rows(named=True)}
        assert set(ours) == set(expected)
        worst = max(worst, *(abs(ours[x] - p) for x, p in expected.items()))
    assert worst < 1e-12


# ---- bad input ------------------------------------------------------------------

def test_bad_input() -> None:
    runs = runs_of({"q1": [[1, 2, 1], [2, 3]]})
    with pytest.raises(InvalidDataError, match=r"duplicate doc.*'docid'.*qid='q1'"):
        interleave(runs, rank="rank")
    log = log_of([1, 2], [0], {0: [1], 1: [2]})
    with pytest.raises(InvalidDataError, match=r"duplicate doc.*impression=0"):
        credit(log.with_columns(docid=pl.lit(1)))
    with pytest.raises(InvalidDataError, match=r"not 0/1 in column 'click'.*impression=0"):
        credit(log.with_columns(click=pl.lit(2)))
    clicks = pl.DataFrame({"impression": [0], "position": [5]})
    with pytest.raises(InvalidDataError, match=r"not shown \(column 'position'\).*impression=0"):
        credit(log.drop("click"), clicks=clicks)
    with pytest.raises(ValueError, match="balanced interleaving takes two rankers"):
        interleave(runs_of({0: [[1], [2], [3]]}), "balanced", rank="rank")
    with pytest.raises(ValueError, match="k must be"):
        interleave(runs_of({0: [[1], [2]]}), k=0, rank="rank")


def test_key_columns_named_like_result_columns() -> None:
    # raised Polars' DuplicateError
    runs = runs_of({"q1": [[1, 2], [2, 3]]}).rename({"qid": "position"})
    with pytest.raises(ValueError, match=re.escape(
            "query, system and doc columns may not be named like result columns: "
            "['position']")):
        interleave(runs, query="position", rank="rank")
    log = log_of([1, 2], [0], {0: [1], 1: [2]}).rename({"impression": "other"})
    with pytest.raises(ValueError, match=re.escape(
            "impression and by columns may not be named like result columns: ['other']")):
        credit(log, impression="other")
    with pytest.raises(ValueError, match=re.escape("result columns: ['win']")):
        credit(log.rename({"other": "impression"}).with_columns(win=pl.lit(1)), by=["win"])


def test_two_sources_of_clicks_and_key_types() -> None:
    # the log's click column was ignored when clicks= was given (A lost impression 1),
    # and mismatched key types raised SchemaErrors naming _m, _pos, _d
    log = pl.DataFrame({"impression": [1] * 4, "qid": "q1", "position": [1, 2, 3, 4],
                        "docid": ["a", "b", "c", "d"], "system": ["A", "B", "A", "B"],
                        "click": [1, 0, 0, 0]})
    with pytest.raises(InvalidDataError, match=r"two sources of clicks.*'click' and clicks="):
        credit(log, clicks=pl.DataFrame({"impression": [1], "position": [2]}))
    bare = log.drop("click")
    for clicks, column, theirs, ours in [
            (pl.DataFrame({"impression": ["1"], "position": [2]}), "impression", "String",
             "Int64"),
            (pl.DataFrame({"impression": [1], "position": [2.0]}), "position", "Float64",
             "Int64"),
            (pl.DataFrame({"impression": [1], "docid": ["b"]},
                          schema={"impression": pl.Int64, "docid": pl.Categorical}),
             "docid", "Categorical", "String")]:
        with pytest.raises(InvalidDataError, match=rf"clicks: column '{column}' is {theirs}"
                           rf".* the log's is {ours}"):
            credit(bare, clicks=clicks)
    # integers of other widths join as before
    narrow = pl.DataFrame({"impression": [1], "position": [2]},
                          schema={"impression": pl.Int32, "position": pl.UInt8})
    assert credit(bare, clicks=narrow)["loss"].to_list() == [1]
    # and an empty frame's columns of no type are no clicks
    empty = pl.DataFrame({"impression": [], "position": []})
    assert credit(bare, clicks=empty)["tie"].to_list() == [1]
    runs = runs_of({"q1": [["a", "c", "b", "d"], ["b", "d", "a", "c"]]})
    for bad, column in [(runs.with_columns(qid=pl.lit(1)), "qid"),
                        (runs.with_columns(pl.col("docid").cast(pl.Categorical)), "docid")]:
        with pytest.raises(InvalidDataError, match=rf"runs: column '{column}' is .* the log's"):
            credit(log, bad, method="balanced", rank="rank")


@pytest.mark.parametrize("method", ["balanced", "probabilistic", "optimized"])
def test_credit_needs_the_runs_of_every_shown_list(method: str) -> None:
    # an impression whose query had no runs, or showing a doc in neither run, was a tie
    log = pl.DataFrame({"impression": [1, 1, 2, 2], "qid": ["q1", "q1", "q9", "q9"],
                        "position": [1, 2, 1, 2], "docid": ["a", "b", "a", "b"],
                        "system": None, "click": [1, 0, 0, 1]})
    runs = runs_of({"q1": [["a", "b"], ["b", "a"]]})
    with pytest.raises(InvalidDataError, match=r"query of impression=2 \(qid='q9'\) has no runs"):
        credit(log, runs, method=method, rank="rank")  # type: ignore[arg-type]
    stray = log.with_columns(qid=pl.lit("q1"), docid=pl.Series(["a", "b", "a", "z"]))
    if method == "optimized":  # the reference's rule: 1 / (length + 1) for an unranked doc
        assert credit(stray, runs, method=method, rank="rank").height == 2
        return
    with pytest.raises(InvalidDataError,
                       match=r"impression=2, docid='z' is in no ranker's run for qid='q1'"):
        credit(stray, runs, method=method, rank="rank")  # type: ignore[arg-type]


def test_inputs_scores_dicts_and_lazy() -> None:
    # scores rank highest first, equal scores by doc id descending (evaluate()'s order);
    # a dict of runs is the same as one frame; lazy in, lazy out
    by_rank = runs_of({"q": [[3, 1, 2], [2, 4, 1]]})
    by_score = by_rank.with_columns(score=pl.when(pl.col("docid") == 3).then(5.0)
                                    .otherwise(1.0 / pl.col("rank"))).drop("rank")
    tied = by_score.with_columns(score=pl.when(pl.col("system") == "r0").then(1.0)
                                 .otherwise(pl.col("score")))
    for method in ("team_draft", "balanced", "probabilistic"):
        expected = interleave(by_rank, method, rank="rank", seed=2)
        assert interleave(by_score, method, seed=2).equals(expected)
        runs = {name: g.drop("system") for (name,), g in by_score.group_by("system")}
        assert interleave(runs, method, seed=2).equals(expected)
        lazy = interleave(by_score.lazy(), method, seed=2)
        assert isinstance(lazy, pl.LazyFrame)
        assert lazy.collect().equals(expected)
    ties = interleave(tied.filter(pl.col("system") == "r0"), seed=2)
    assert ties["docid"].to_list() == [3, 2, 1]


def test_clicks_apart_by_position_or_doc() -> None:
    log = log_of([1, 3, 4], [0, 2], {0: [1], 1: [3, 4]})
    expected = credit(log)
    by_position = pl.DataFrame({"impression": [0, 0, 0], "position": [1, 2, 3],
                                "click": [True, False, True]})
    by_doc = pl.DataFrame({"impression": [0, 0], "docid": [1, 4]})
    assert credit(log.drop("click"), clicks=by_position).equals(expected)
    assert credit(log.drop("click"), clicks=by_doc).equals(expected)
    with pytest.raises(InvalidDataError, match=r"not shown \(column 'docid'\).*docid=9"):
        credit(log.drop("click"), clicks=by_doc.with_columns(docid=pl.lit(9)))


def test_lists_do_not_depend_on_threads() -> None:
    import os
    import subprocess
    import sys

    code = ("import polars as pl, random\n"
            "from tests.test_interleaving import runs_of, random_case\n"
            "from polars_rank.online import interleave\n"
            "rng = random.Random(9)\n"
            "runs = runs_of({q: random_case(rng, 3) for q in range(200)})\n"
            "for m in ('team_draft', 'probabilistic'):\n"
            "    print(interleave(runs, m, seed=5, rank='rank').write_csv())\n")
    env = {**os.environ, "POLARS_MAX_THREADS": "1"}
    one = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    rng = random.Random(9)
    runs = runs_of({q: random_case(rng, 3) for q in range(200)})
    here = "".join(interleave(runs, m, seed=5, rank="rank").write_csv() + "\n"  # type: ignore[union-attr]
                   for m in ("team_draft", "probabilistic"))
    assert one == here


@pytest.mark.parametrize("method", ["team_draft", "balanced", "probabilistic", "optimized"])
def test_credit_with_the_impression_in_the_query_key(method: str) -> None:
    """A list per impression (query=[query, impression], as the guide teaches): balanced,
    probabilistic and optimized read the impression as a query column too (they did not
    find it: the log's impression column was renamed before the rankers' join)."""
    runs = pl.DataFrame({"qid": ["q"] * 6, "system": ["a"] * 3 + ["b"] * 3,
                         "docid": ["x", "y", "z", "z", "x", "y"],
                         "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]})
    per_impression = runs.join(pl.DataFrame({"impression": [1, 2, 3]}), how="cross")
    lists = interleave(per_impression, method, k=3, seed=0, query=["qid", "impression"])
    log = lists.with_columns(click=(pl.col("position") == 2).cast(pl.Int8))
    got = credit(log, per_impression, method=method, query=["qid", "impression"])
    # the same credit with the impression as a query column under another name
    renamed = per_impression.with_columns(page=pl.col("impression"))
    expected = credit(log.with_columns(page=pl.col("impression")), renamed, method=method,
                      query=["qid", "page"])
    assert got.height == 3
    assert got.equals(expected)
