"""Preference judgments in the Python API: the readers and ``pr.evaluate_prefs``.

The numbers are checked against the trec_eval binary in test_trec_eval_prefs.py; here,
against trec_eval's own documentation (get_prefs.c counts the preferences of its
examples), against a plain-Python reference written from the measures' definitions
(hypothesis), and for the API's promises: lazy in lazy out, row order never matters,
slices (``group_by``) are the runs evaluated apart, bad files and frames raise naming
the file and line, or the query.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank.preferences import PREFS_MEASURES, PrefsDataError, prefs_measures

DATA = Path(__file__).parent / "data" / "trec_eval"


def prefs_frame(lines: str) -> pl.DataFrame:
    """``qid jg jsg docid rel`` lines as a frame."""
    rows = [line.split() for line in lines.strip().splitlines()]
    return pl.DataFrame({"qid": [r[0] for r in rows], "jg": [r[1] for r in rows],
                         "jsg": [r[2] for r in rows], "docid": [r[3] for r in rows],
                         "rel": [float(r[4]) for r in rows]})


def run_frame(docs: str, qid: str = "q") -> pl.DataFrame:
    """A run ranking ``docs`` (space-separated) in that order."""
    names = docs.split()
    return pl.DataFrame({"qid": [qid] * len(names), "docid": names,
                         "score": [float(len(names) - i) for i in range(len(names))]})


# ----------------------------------------------------------------------------- readers


def test_read_prefs(tmp_path: Path) -> None:
    path = tmp_path / "prefs"
    path.write_text("# a comment\nq1\tu1 s1  d1 3\nq1 u1 s1 d2 -0\n  q1 u1 s2 d1 1e0  \r\n")
    frame = pr.read_qrels(path, format="prefs")
    assert frame.schema == pl.Schema({"qid": pl.String, "jg": pl.String, "jsg": pl.String,
                                      "docid": pl.String, "rel": pl.Float64})
    assert frame.rows() == [("q1", "u1", "s1", "d1", 3.0), ("q1", "u1", "s1", "d2", 0.0),
                            ("q1", "u1", "s2", "d1", 1.0)]
    assert math.copysign(1.0, frame["rel"][1]) == 1.0  # -0 read as 0, as C compares it
    lazy = pr.scan_qrels(path, format="prefs")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(), frame)


def test_read_qrels_as_prefs() -> None:
    frame = pr.read_qrels(DATA / "qrels.test", format="qrels_prefs")
    qrels = pr.read_qrels(DATA / "qrels.test")
    assert frame.columns == ["qid", "jg", "jsg", "docid", "rel"]
    assert frame["jsg"].unique().to_list() == ["0"]
    assert frame.height == qrels.height
    assert frame["rel"].cast(pl.Int64).to_list() == qrels["rel"].to_list()


def test_qrels_prefs_keep_negative_and_fractional_levels(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_text("q 0 a 2.5\nq 0 b -1\nq 1 c 0\n")
    assert pr.read_qrels(path, format="qrels_prefs").rows() == [
        ("q", "0", "0", "a", 2.5), ("q", "0", "0", "b", -1.0), ("q", "1", "0", "c", 0.0)]


@pytest.mark.parametrize(("text", "line", "why"), [
    ("q u s d1 1\nq u s d2\n", 2, "4 fields"),
    ("q u s d1 1\nq u s d2 1 x\n", 2, "6 fields"),
    ("q u s d1 1\n\nq u s d2 1\n", 2, "a blank line"),
    ("q u s d1 1\nq u s d2 high\n", 2, "rel 'high' is not a number"),
    ("q u s d1 1\nq u s d2 nan\n", 2, "rel 'nan' is not a number"),
    ("q u s d1 1\n# last\n", 2, "a comment as the last line"),
])
def test_malformed_prefs_name_the_file_and_line(tmp_path: Path, text: str, line: int,
                                                why: str) -> None:
    path = tmp_path / "prefs"
    path.write_text(text)
    with pytest.raises(pr.TrecFormatError) as error:
        pr.read_qrels(path, format="prefs")
    message = str(error.value)
    assert message.startswith(f"{path}: malformed prefs line, expected 'qid jg jsg docid rel'")
    assert f"line {line}: " in message
    assert why in message


def test_malformed_qrels_prefs(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_text("q 0 a 1\nq 0 b\n")
    with pytest.raises(pr.TrecFormatError, match=r"malformed qrels_prefs line, expected "
                                                 r"'qid jg docid rel' -- line 2: 'q 0 b'"):
        pr.read_qrels(path, format="qrels_prefs")


@pytest.mark.parametrize(("text", "why"), [("", "empty file"), ("# only\n\n", "no prefs line"),
                                           ("\x00\x01", "NUL")])
def test_unreadable_prefs_files(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "prefs"
    path.write_text(text)
    with pytest.raises(pr.TrecFormatError, match=why):
        pr.scan_qrels(path, format="prefs")


def test_reader_options(tmp_path: Path) -> None:
    path = tmp_path / "prefs"
    path.write_text("q u s d 1\n")
    with pytest.raises(ValueError, match=r"format='jg': 'qrels' .* 'prefs' or 'qrels_prefs'"):
        pr.read_qrels(path, format="jg")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="subtopics=True reads TREC's diversity qrels"):
        pr.read_qrels(path, format="prefs", subtopics=True)


# ----------------------------------------------------------------------------- trec_eval's examples

# get_prefs.c's documentation: each example, the preferences it expresses, and an order
# that fulfils them all (None: its users disagree). The second, the comment says,
# "expresses 5 preferences (1>2, 1>3, 2>3, 4>1, 4>2)"; its subgroups also give 4>3
# through 1 (4>1>3), which the code's transitive closure adds: the binary counts 6.
EXAMPLES = {
    "13 preferences, one subgroup": ("q u s d1 3\nq u s d2 2\nq u s d3 0\nq u s d4 6\n"
                                     "q u s d5 0\nq u s d6 2\n", 13, "d4 d1 d2 d6 d3 d5"),
    "6 preferences, two subgroups, 1>2 once": ("q u s1 d1 3\nq u s1 d2 2\nq u s1 d3 1\n"
                                               "q u s2 d1 2\nq u s2 d2 1\nq u s2 d4 3\n", 6,
                                               "d4 d1 d2 d3"),
    "5 preferences, two users": ("q u1 s1 d1 3\nq u1 s1 d2 2\nq u2 s1 d1 0\nq u2 s1 d3 6\n"
                                 "q u2 s1 d4 2\nq u2 s2 d1 0\nq u2 s2 d2 8\n", 5, None),
    "5 preferences, transitive": ("q u s1 d1 3\nq u s1 d2 2\nq u s1 d3 1\nq u s2 d2 5\n"
                                  "q u s2 d4 4\n", 5, "d1 d2 d3 d4"),
}


@pytest.mark.parametrize("example", list(EXAMPLES))
def test_trec_evals_examples(example: str) -> None:
    lines, count, order = EXAMPLES[example]
    prefs = prefs_frame(lines)
    nothing = run_frame("elsewhere")  # the query, nothing judged retrieved
    out = pr.evaluate_prefs(nothing, prefs, ["prefs_num_prefs_poss", "prefs_num_prefs_ful",
                                             "prefs_simp"])
    assert out.row(0) == (count, 0.0, 0.0)
    if order is not None:
        out = pr.evaluate_prefs(run_frame(order), prefs, ["prefs_num_prefs_ful_ret",
                                                          "prefs_simp"])
        assert out.row(0) == (count, 1.0)
        backwards = pr.evaluate_prefs(run_frame(" ".join(reversed(order.split()))), prefs,
                                      ["prefs_simp"])
        assert backwards.item() == 0.0
    else:  # users 1 and 2 disagree on d1 and d2: at most 4 of 5
        out = pr.evaluate_prefs(run_frame("d3 d4 d1 d2"), prefs, ["prefs_num_prefs_ful"])
        assert out.item() == 4


def test_the_docstring_example_by_hand() -> None:
    """u1: d1 > d2 > d3 (3 preferences), u2: d3 > d1; the run: d1, d3."""
    prefs = prefs_frame("q u1 s d1 2\nq u1 s d2 1\nq u1 s d3 0\nq u2 s d3 1\nq u2 s d1 0")
    out = pr.evaluate_prefs(run_frame("d1 d3"), prefs, "all_prefs").row(0, named=True)
    assert out["prefs_num_prefs_poss"] == 4
    assert out["prefs_num_prefs_ful"] == 2  # d1 > d3 (u1), d1 > d2 (d2 not retrieved)
    assert out["prefs_num_prefs_ful_ret"] == 1
    assert out["prefs_simp"] == 0.5
    assert out["prefs_simp_ret"] == 0.5  # d1 > d3 of u1, not u2's d3 > d1
    assert out["prefs_simp_imp"] == 0.5  # every preference has a retrieved document
    assert out["prefs_avgjg"] == (2 / 3 + 0) / 2
    assert out["prefs_avgjg_ret"] == (1 + 0) / 2
    # pairs: {d1, d3} 1 of 2 preferences, {d1, d2} 1 of 1, {d2, d3} 0 of 1
    assert out["prefs_pair"] == out["prefs_pair_imp"] == 0.5
    assert out["prefs_pair_ret"] == 0.5
    # without d3 in the run, d2 > d3 is between two documents neither retrieved
    out = pr.evaluate_prefs(run_frame("d1"), prefs, "all_prefs").row(0, named=True)
    assert out["prefs_simp_imp"] == 2 / 3  # d1 > d2, d1 > d3, not d3 > d1
    assert out["prefs_pair"] == (0.5 + 1 + 0) / 3
    assert out["prefs_pair_imp"] == (0.5 + 1) / 2


def test_ties_are_ranked_by_document_id_ascending() -> None:
    """form_prefs_counts.c breaks ties by docno ascending (its other measures descending)."""
    prefs = prefs_frame("q u s a 1\nq u s b 0")
    tied = pl.DataFrame({"qid": ["q", "q"], "docid": ["b", "a"], "score": [1.0, 1.0]})
    assert pr.evaluate_prefs(tied, prefs, ["prefs_simp"]).item() == 1.0


def test_max_ret_and_missing() -> None:
    prefs = prefs_frame("q u s a 1\nq u s b 0\nq2 u s a 1\nq2 u s b 0\nq2 u s c 0")
    run = run_frame("b a")
    assert pr.evaluate_prefs(run, prefs, ["prefs_simp"]).item() == 0.0
    # -M 1: b alone retrieved, a > b now fails by implication too
    assert pr.evaluate_prefs(run, prefs, ["prefs_simp"], max_ret=1).item() == 0.0
    assert pr.evaluate_prefs(run, prefs, ["prefs_simp"], max_ret=0).item() == 0.0
    per = pr.evaluate_prefs(run, prefs, ["prefs_num_prefs_poss", "prefs_simp"], per_query=True,
                            missing="zero")
    assert per.rows() == [("q", 1.0, 0.0), ("q2", 2.0, 0.0)]  # q2: poss counted, 0 fulfilled
    over = pr.evaluate_prefs(run, prefs, ["prefs_num_prefs_poss", "prefs_simp"], missing="zero")
    assert over.rows() == [(3.0, 0.0)]  # counts summed, ratios averaged


# ----------------------------------------------------------------------------- a reference


def reference(run: pl.DataFrame, prefs: pl.DataFrame, max_ret: int | None = None
              ) -> dict[str, dict[str, float]]:
    """prefs_simp, _ret, _imp, prefs_avgjg (three) and prefs_pair (three) per query, written
    from the measures' descriptions (m_prefs_*.c), one query and one group at a time."""
    out = {}
    for (qid,), judged in prefs.group_by("qid"):
        listed = sorted(run.filter(pl.col("qid") == qid).rows(named=True),
                        key=lambda r: (-r["score"], r["docid"]))[:max_ret]
        position = {r["docid"]: i for i, r in enumerate(listed)}
        counts = {"ret": [0, 0], "imp": [0, 0], "all": [0, 0]}
        per_group: dict[str, list[tuple[float, float]]] = {k: [] for k in counts}
        pair_votes: dict[frozenset[str], list[bool]] = {}
        docs = set(judged["docid"])
        rank = {d: (0, position[d]) if d in position else (1, d) for d in docs}
        for _, group in sorted(judged.group_by("jg"), key=lambda g: str(g[0][0])):
            prefs_of_group = _preferences(group)
            ful = {"ret": 0, "imp": 0, "all": 0}
            poss = {"ret": 0, "imp": 0, "all": 0}
            for a, b in prefs_of_group:
                kind = ("ret" if a in position and b in position else
                        "none" if a not in position and b not in position else "imp")
                fulfilled = a in position and (b not in position or position[a] < position[b])
                for k in ("ret", "imp", "all"):
                    if k == "all" or kind == "ret" or (k == "imp" and kind == "imp"):
                        poss[k] += 1
                        ful[k] += fulfilled
                pair_votes.setdefault(frozenset((a, b)), []).append(rank[a] < rank[b])
            for k in counts:
                counts[k][0] += ful[k]
                counts[k][1] += poss[k]
                per_group[k].append((ful[k], poss[k]))
        values = {}
        for k, name in (("all", ""), ("ret", "_ret"), ("imp", "_imp")):
            f, p = counts[k]
            values[f"prefs_simp{name}"] = f / p if p else 0.0
            total = sum(f / p for f, p in per_group[k] if p)
            values[f"prefs_avgjg{name}"] = total / len(per_group[k]) if total > 0 else 0.0
        shares = {"ret": [], "imp": [], "all": []}
        for pair, votes in pair_votes.items():
            retrieved = sum(d in position for d in pair)
            share = sum(votes) / len(votes)
            shares["all"].append(share if retrieved else 0.0)
            if retrieved:
                shares["imp"].append(share)
            if retrieved == 2:
                shares["ret"].append(share)
        for k, name in (("all", ""), ("ret", "_ret"), ("imp", "_imp")):
            values[f"prefs_pair{name}"] = (sum(shares[k]) / len(shares[k]) if shares[k]
                                           else 0.0)
        out[str(qid)] = values
    return out


def _preferences(group: pl.DataFrame) -> list[tuple[str, str]]:
    """A judgment group's preferences: one subgroup, every pair of its lines at two levels;
    several, the relation of all subgroups closed transitively (each pair once)."""
    rows = group.rows(named=True)
    if group["jsg"].n_unique() == 1:
        return [(a["docid"], b["docid"]) for a in rows for b in rows if a["rel"] > b["rel"]]
    relation = {(a["docid"], b["docid"]) for a in rows for b in rows
                if a["jsg"] == b["jsg"] and a["rel"] > b["rel"] and a["docid"] != b["docid"]}
    while True:
        more = relation | {(a, d) for a, b in relation for c, d in relation if b == c and a != d}
        if more == relation:
            return sorted(relation)
        relation = more


REFERENCE_MEASURES = [m for m in PREFS_MEASURES if "Rnonrel" not in m and "num" not in m]


@st.composite
def judged_runs(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Consistent preference judgments (a hidden worth per document, each subgroup its own
    increasing levels) and a run with tied scores, unjudged and unretrieved documents."""
    docs = ("a", "b", "c", "d", "e", "f")
    rows = []
    queries = draw(st.lists(st.sampled_from(("q1", "q2", "q10")), min_size=1, max_size=2,
                            unique=True))
    for q in queries:
        for jg in draw(st.lists(st.sampled_from(("u1", "u2", "u3")), min_size=1, max_size=3,
                                unique=True)):
            members = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=5, unique=True))
            worth = {d: draw(st.integers(0, 3)) for d in members}
            for s in range(draw(st.integers(1, 3))):
                subset = draw(st.lists(st.sampled_from(members), min_size=1, unique=True))
                steps = sorted(draw(st.lists(st.integers(1, 4), min_size=3, max_size=3)))
                rows += [(q, jg, f"s{s}", d, float(0 if worth[d] == 0 else steps[worth[d] - 1]))
                         for d in subset]
    prefs = pl.DataFrame(rows, schema=["qid", "jg", "jsg", "docid", "rel"], orient="row")
    run_rows = [(q, d, float(draw(st.integers(0, 3))))
                for q in queries for d in draw(st.lists(st.sampled_from((*docs, "x", "y")),
                                                        min_size=1, max_size=7, unique=True))]
    run = pl.DataFrame(run_rows, schema=["qid", "docid", "score"], orient="row")
    return run, prefs


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=judged_runs(), max_ret=st.sampled_from([None, None, 2]))
def test_equals_the_reference(case: tuple[pl.DataFrame, pl.DataFrame], max_ret: int | None
                              ) -> None:
    run, prefs = case
    got = pr.evaluate_prefs(run, prefs, REFERENCE_MEASURES, per_query=True, max_ret=max_ret)
    want = reference(run, prefs, max_ret)
    assert sorted(got["qid"]) == sorted(want)
    for row in got.iter_rows(named=True):
        for m in REFERENCE_MEASURES:
            assert row[m] == pytest.approx(want[row["qid"]][m], rel=1e-12, abs=1e-15), m


@pytest.mark.parametrize("levels", [2, 3, 5, 17, 64, 200])
def test_many_levels(levels: int) -> None:
    """A group with one subgroup and many levels: its pairs are never made, its counts
    come from a dominance count over the bits of each level's place (up to 8 here)."""
    rng = np.random.default_rng(levels)
    docs = [f"d{i:03d}" for i in range(200)]
    prefs = pl.DataFrame({"qid": "q", "jg": "u", "jsg": "s", "docid": docs,
                          "rel": rng.integers(0, levels, len(docs)).astype(float)})
    retrieved = rng.choice([*docs, "x", "y"], 120, replace=False)
    run = pl.DataFrame({"qid": "q", "docid": retrieved,
                        "score": rng.integers(0, 30, len(retrieved)).astype(float)})
    for max_ret in (None, 40):
        got = pr.evaluate_prefs(run, prefs, REFERENCE_MEASURES, max_ret=max_ret)
        want = reference(run, prefs, max_ret)["q"]
        for m in REFERENCE_MEASURES:
            assert got[m].item() == pytest.approx(want[m], rel=1e-12), m


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=judged_runs(), seed=st.integers(0, 2**16))
def test_row_order_never_matters(case: tuple[pl.DataFrame, pl.DataFrame], seed: int) -> None:
    run, prefs = case
    once = pr.evaluate_prefs(run, prefs, "all_prefs", per_query=True)
    shuffled = pr.evaluate_prefs(run.sample(fraction=1, shuffle=True, seed=seed),
                                 prefs.sample(fraction=1, shuffle=True, seed=seed + 1),
                                 "all_prefs", per_query=True)
    assert_frame_equal(once, shuffled)  # bit for bit
    assert_frame_equal(pr.evaluate_prefs(run, prefs, "all_prefs"),
                       pr.evaluate_prefs(run.reverse(), prefs.reverse(), "all_prefs"))


# ----------------------------------------------------------------------------- the API


def test_lazy_in_lazy_out() -> None:
    run = pr.read_run(DATA / "prefs.results.test")
    prefs = pr.read_qrels(DATA / "prefs.test", format="prefs")
    lazy = pr.evaluate_prefs(run.lazy(), prefs.lazy(), "all_prefs", per_query=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema() == pl.Schema({"qid": pl.String,
                                               **dict.fromkeys(PREFS_MEASURES, pl.Float64)})
    assert_frame_equal(lazy.collect(), pr.evaluate_prefs(run, prefs, "all_prefs",
                                                         per_query=True))
    scanned = pr.evaluate_prefs(pr.scan_run(DATA / "prefs.results.test"),
                                pr.scan_qrels(DATA / "prefs.test", format="prefs"))
    assert_frame_equal(scanned.collect(), pr.evaluate_prefs(run, prefs))


def test_group_by_is_each_arm_apart() -> None:
    run = pr.read_run(DATA / "prefs.results.test")
    prefs = pr.read_qrels(DATA / "prefs.test", format="prefs")
    other = run.with_columns(pl.col("score").rank("ordinal").cast(pl.Float64) % 5)
    arms = pl.concat([run.with_columns(arm=pl.lit("a")), other.with_columns(arm=pl.lit("b"))])
    for per_query in (False, True):
        both = pr.evaluate_prefs(arms, prefs, "all_prefs", group_by="arm", per_query=per_query)
        for arm, frame in (("a", run), ("b", other)):
            alone = pr.evaluate_prefs(frame, prefs, "all_prefs", per_query=per_query)
            assert_frame_equal(both.filter(pl.col("arm") == arm).drop("arm"), alone)


def test_input_formats_and_column_names() -> None:
    run = run_frame("d1 d3").rename({"qid": "query", "docid": "doc", "score": "s"})
    prefs = prefs_frame("q u1 s d1 2\nq u1 s d2 1").rename({"qid": "query", "docid": "doc"})
    out = pr.evaluate_prefs(run.to_pandas(), prefs.to_arrow(), ["prefs_simp"], query="query",
                            doc="doc", score="s")
    assert out.item() == 1.0
    # without jsg, each group is one subgroup; without jg, each query one group
    assert pr.evaluate_prefs(run, prefs.drop("jg", "jsg"), "prefs", query="query", doc="doc",
                             score="s").row(0) == pr.evaluate_prefs(
        run, prefs, "prefs", query="query", doc="doc", score="s").row(0)


def test_measure_names() -> None:
    assert prefs_measures("all_prefs") == list(PREFS_MEASURES)
    assert prefs_measures(["PREFS_PAIR", "prefs_pair", "Prefs"])[:2] == [
        "prefs_pair", "prefs_num_prefs_poss"]
    with pytest.raises(ValueError, match="'ndcg' is not a preference measure"):
        prefs_measures(["ndcg"])
    with pytest.raises(ValueError, match=r"is a trec_eval preference measure.*evaluate_prefs"):
        pr.evaluate(run_frame("a").with_columns(rel=pl.lit(1)), None, ["prefs_simp"])


@pytest.mark.parametrize(("change", "error", "message"), [
    ({"max_ret": -1}, ValueError, "max_ret=-1"),
    ({"missing": "error"}, ValueError, "missing='error'"),
    ({"score": "points"}, ValueError, "run: no column 'points'"),
])
def test_parameters_are_checked(change: dict[str, Any], error: type[Exception],
                                message: str) -> None:
    with pytest.raises(error, match=message):
        pr.evaluate_prefs(run_frame("a"), prefs_frame("q u s a 1"), **change)


@pytest.mark.parametrize(("run", "prefs", "message"), [
    (run_frame("a b").with_columns(pl.lit(float("nan")).alias("score")),
     prefs_frame("q u s a 1"), "run: the score 'score' is NaN for query 'q', document 'a'"),
    (run_frame("a"), prefs_frame("q u s a 1").with_columns(rel=pl.lit(float("nan"))),
     "prefs: the level 'rel' is NaN"),
    (run_frame("a").with_columns(docid=pl.lit(None, pl.String)), prefs_frame("q u s a 1"),
     "run: 1 null value"),
])
def test_bad_data(run: pl.DataFrame, prefs: pl.DataFrame, message: str) -> None:
    with pytest.raises(pr.InvalidDataError, match=message):
        pr.evaluate_prefs(run, prefs)


@pytest.mark.parametrize(("lines", "run", "message", "aborts"), [
    ("q u s a 2\nq u s a 1\nq u s b 0", "a b", "document 'a' is at two levels", False),
    ("q u s1 a 2\nq u s1 b 0\nq u s2 b 1\nq u s2 c 0", "a", "document 'b' is at level 0 in "
     "one subgroup and above 0 in another", False),
    ("q u s1 a 2\nq u s1 b 1\nq u s2 b 2\nq u s2 a 1", "a", "document 'a' and document 'b' "
     "are each preferred to the other", True),
    ("q u s a 2\nq u s b 1", "a a", "document 'a' is on more than one row of query 'q'",
     False),
])
def test_judgments_trec_eval_stops_on(lines: str, run: str, message: str,
                                      aborts: bool) -> None:
    with pytest.raises(PrefsDataError, match=message) as error:
        pr.evaluate_prefs(run_frame(run), prefs_frame(lines))
    assert (error.value.query, error.value.aborts) == ("q", aborts)
    assert isinstance(error.value, pr.InvalidDataError)


def test_the_first_problem_in_trec_evals_order() -> None:
    """Queries in byte order (q10 < q9), and in a query the run before the judgments."""
    lines = "q9 u s a 2\nq9 u s a 1\nq10 u s a 1\nq10 u s b 0\nq10 v s a 2\nq10 v s a 1"
    run = pl.concat([run_frame("a a", "q10"), run_frame("a", "q9")])
    with pytest.raises(PrefsDataError, match="document 'a' is on more than one row of query "
                                             "'q10'"):
        pr.evaluate_prefs(run, prefs_frame(lines))


def test_partially_retrieved_sums_are_in_group_order() -> None:
    """prefs_avgjg's sum over groups, added in trec_eval's order (groups by id)."""
    lines = "\n".join(f"q g{i} s d{i} 1\nq g{i} s e{i} 0" for i in range(12))
    run = run_frame(" ".join(f"d{i} e{i}" if i % 3 else f"e{i} d{i}" for i in range(12)))
    value = pr.evaluate_prefs(run, prefs_frame(lines), ["prefs_avgjg"]).item()
    total = 0.0
    for i in sorted(range(12), key=lambda i: f"g{i}"):
        total += 1.0 if i % 3 else 0.0
    assert value == total / 12
