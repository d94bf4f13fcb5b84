"""Similarity of two rankings against independent references.

RBO and average overlap against the ``rbo`` package (transcribed in ``rbo_reference.py``)
on its own test cases and on random lists with ties and items in one list only; RBO_min
and the residual against the paper's equations in plain Python; Kendall's tau_b and
Spearman's rho against SciPy; tau_AP against a plain-Python reading of Yilmaz, Aslam &
Robertson (SIGIR 2008).
"""

from __future__ import annotations

import math
import random
import warnings
from typing import Any

import polars as pl
import pytest
import rbo_reference as rboref
import scipy.stats
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_rank.agreement import (
    average_overlap,
    jaccard,
    join_rankings,
    kendall_tau,
    overlap,
    rbo,
    spearman_rho,
    tau_ap,
)
from polars_rank.errors import InvalidDataError

TOL = 1e-12


def frame(S: list[str], T: list[str]) -> pl.DataFrame:
    """One row per item of either list: its 1-based position in each (null: absent)."""
    items = sorted(set(S) | set(T))
    return pl.DataFrame(
        {"doc": items, "ra": [S.index(x) + 1 if x in S else None for x in items],
         "rb": [T.index(x) + 1 if x in T else None for x in items]},
        schema={"doc": pl.String, "ra": pl.Int64, "rb": pl.Int64})


def tau_ap_reference(A: list[str], B: list[str]) -> float:
    """tau_AP of B against A over their common items, from the paper's definition."""
    common = [x for x in B if x in A]
    in_a = {x: i for i, x in enumerate(x for x in A if x in common)}
    total = 0.0
    for i in range(1, len(common)):
        correct = sum(1 for j in range(i) if in_a[common[j]] < in_a[common[i]])
        total += correct / i
    return 2.0 / (len(common) - 1) * total - 1.0


@pytest.mark.parametrize(("S", "T", "expected"), rboref.PACKAGE_TESTS)
def test_the_rbo_package_cases(S: str, T: str, expected: float) -> None:
    package_case(S, T, expected, rboref.RankingSimilarity)


def package_case(S: str, T: str, expected: float, similarity: Any) -> None:
    """One of the rbo package's cases against ``similarity``: the package's
    RankingSimilarity, transcribed (here) or the release (tests/test_rbo_live.py)."""
    s, t = list(S), list(T)
    ref = similarity(s, t)
    got = frame(s, t).select(average_overlap("ra", "rb"), rbo("ra", "rb", p=0.95)).row(0)
    assert round(got[0], 3) == expected
    assert abs(got[0] - ref.rbo(p=1.0)) < TOL
    assert abs(got[1] - ref.rbo_ext(p=0.95)) < TOL
    if s and t:  # the package's rbo(k=3, ext=True): both lists read to min(3, s, t)
        k = min(3, len(s), len(t))
        at_k = frame(s, t).select(rbo("ra", "rb", p=0.95, k=k)).item()
        assert abs(at_k - ref.rbo(p=0.95, k=3, ext=True)) < TOL


def test_figure_5_of_the_paper() -> None:
    # RBO paper, Figure 5: the average overlap of these two lists at depth 7 is 0.312
    df = frame(list("abcdefg"), list("zcavwxy"))
    assert round(df.select(average_overlap("ra", "rb")).item(), 3) == 0.312


lists_st = st.tuples(
    st.lists(st.integers(0, 30), max_size=25, unique=True),
    st.lists(st.integers(0, 30), max_size=25, unique=True),
    st.lists(st.integers(0, 4), min_size=60, max_size=60),
    st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]),
)


@settings(max_examples=examples(25), deadline=None)
@given(lists_st)
def test_rbo_with_ties_and_items_in_one_list(case: tuple[list[int], list[int],
                                                         list[int], float]) -> None:
    """Scores with ties, broken by doc: the package reads the lists in that order."""
    ia, ib, scores, p = case
    items = sorted(set(ia) | set(ib))
    docs = [f"d{i:02d}" for i in items]
    sa = {i: scores[n] for n, i in enumerate(ia)}
    sb = {i: scores[30 + n] for n, i in enumerate(ib)}
    df = pl.DataFrame({"doc": docs, "sa": [sa.get(i) for i in items],
                       "sb": [sb.get(i) for i in items]},
                      schema={"doc": pl.String, "sa": pl.Int64, "sb": pl.Int64})
    S = [f"d{i:02d}" for i in sorted(ia, key=lambda i: (-sa[i], f"d{i:02d}"))]
    T = [f"d{i:02d}" for i in sorted(ib, key=lambda i: (-sb[i], f"d{i:02d}"))]
    opts = {"descending": True, "doc": "doc"}
    got = df.select(rbo("sa", "sb", p=p, **opts),
                    rbo("sa", "sb", p=p, kind="min", **opts),
                    rbo("sa", "sb", p=p, kind="res", **opts),
                    rbo("sa", "sb", p=p, kind="max", **opts),
                    average_overlap("sa", "sb", **opts)).row(0)
    ref = rboref.RankingSimilarity(S, T)
    assert abs(got[0] - ref.rbo_ext(p=p)) < TOL
    assert abs(got[4] - ref.rbo(p=1.0)) < TOL
    if S and T:
        assert abs(got[1] - rboref.rbo_min(S, T, p)) < TOL
        assert abs(got[2] - rboref.rbo_res(S, T, p)) < TOL
        assert abs(got[3] - got[1] - got[2]) < TOL
        assert got[1] - TOL <= got[0] <= got[3] + TOL  # min <= ext <= max


def test_ties_without_doc_give_nan() -> None:
    df = pl.DataFrame({"a": [1.0, 1.0, 0.5], "b": [3.0, 2.0, 1.0]})
    out = df.select(rbo("a", "b", descending=True), tau_ap("a", "b", descending=True),
                    jaccard("a", "b", 2, descending=True)).row(0)
    assert all(math.isnan(v) for v in out)
    # tau_b and rho handle ties themselves
    assert not math.isnan(df.select(kendall_tau("a", "b")).item())


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 5)),
                          st.one_of(st.none(), st.integers(0, 5))), max_size=30))
def test_tau_b_and_rho_against_scipy(pairs: list[tuple[int | None, int | None]]) -> None:
    df = pl.DataFrame({"a": [p[0] for p in pairs], "b": [p[1] for p in pairs]},
                      schema={"a": pl.Int64, "b": pl.Int64})
    tau, rho = df.select(kendall_tau("a", "b"), spearman_rho("a", "b")).row(0)
    common = [(x, y) for x, y in pairs if x is not None and y is not None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SciPy warns of a constant input, and gives NaN
        want_tau = scipy.stats.kendalltau([c[0] for c in common], [c[1] for c in common])
        want_rho = scipy.stats.spearmanr([c[0] for c in common], [c[1] for c in common])
    for x, y in ((tau, float(want_tau.statistic)), (rho, float(want_rho.statistic))):
        assert (math.isnan(x) and math.isnan(y)) or abs(x - y) < TOL


@settings(max_examples=examples(25), deadline=None)
@given(st.lists(st.integers(0, 40), max_size=30, unique=True),
       st.lists(st.integers(0, 40), max_size=30, unique=True))
def test_tau_ap_against_the_paper(ia: list[int], ib: list[int]) -> None:
    A, B = [f"d{i:02d}" for i in ia], [f"d{i:02d}" for i in ib]
    df = frame(A, B)
    got, back, sym = df.select(tau_ap("ra", "rb"), tau_ap("rb", "ra").alias("back"),
                               tau_ap("ra", "rb", symmetric=True).alias("sym")).row(0)
    if len([x for x in B if x in A]) < 2:
        assert math.isnan(got)
        return
    assert abs(got - tau_ap_reference(A, B)) < TOL
    assert abs(back - tau_ap_reference(B, A)) < TOL
    assert abs(sym - (got + back) / 2) < TOL


def test_tau_ap_weights_the_top() -> None:
    # one swap at the top costs more than one at the bottom (the paper's point)
    top = pl.DataFrame({"a": [1, 2, 3, 4, 5], "b": [2, 1, 3, 4, 5]})
    bottom = pl.DataFrame({"a": [1, 2, 3, 4, 5], "b": [1, 2, 3, 5, 4]})
    t_top = top.select(tau_ap("a", "b")).item()
    t_bottom = bottom.select(tau_ap("a", "b")).item()
    assert t_top < t_bottom
    assert top.select(kendall_tau("a", "b")).item() == bottom.select(kendall_tau("a", "b")).item()


@settings(max_examples=examples(20), deadline=None)
@given(st.lists(st.integers(0, 20), max_size=15, unique=True),
       st.lists(st.integers(0, 20), max_size=15, unique=True), st.integers(1, 12))
def test_jaccard_and_overlap_against_sets(ia: list[int], ib: list[int], k: int) -> None:
    A, B = [f"d{i:02d}" for i in ia], [f"d{i:02d}" for i in ib]
    jk, ok, jall = frame(A, B).select(jaccard("ra", "rb", k), overlap("ra", "rb", k),
                                      jaccard("ra", "rb")).row(0)
    ta, tb = set(A[:k]), set(B[:k])
    assert jk == (len(ta & tb) / len(ta | tb) if ta | tb else 1.0)
    assert ok == len(ta & tb) / k
    assert jall == (len(set(A) & set(B)) / len(set(A) | set(B)) if A or B else 1.0)


def _two_runs(seed: int, n_queries: int = 6) -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = random.Random(seed)
    runs = []
    for _ in range(2):
        rows = [(q, f"d{d}", float(rng.randint(0, 9)))
                for q in range(n_queries) for d in rng.sample(range(6), rng.randint(4, 6))]
        runs.append(pl.DataFrame(rows, schema=["qid", "docid", "score"], orient="row"))
    return runs[0], runs[1]


ALL = [
    lambda q: rbo("rank_a", "rank_b", p=0.8, query=q),
    lambda q: rbo("rank_a", "rank_b", p=0.8, kind="res", query=q),
    lambda q: average_overlap("rank_a", "rank_b", query=q),
    lambda q: kendall_tau("rank_a", "rank_b", query=q),
    lambda q: spearman_rho("rank_a", "rank_b", query=q),
    lambda q: tau_ap("rank_a", "rank_b", query=q),
    lambda q: jaccard("rank_a", "rank_b", 3, query=q),
    lambda q: overlap("rank_a", "rank_b", 3, query=q),
]


@pytest.mark.parametrize("make", ALL)
def test_every_context_and_row_order(make: object) -> None:
    run_a, run_b = _two_runs(7)
    joined = join_rankings(run_a, run_b)  # at least two documents in common
    build = make  # type: ignore[assignment]
    per_query = joined.group_by("qid").agg(build(None)).sort("qid")  # type: ignore[operator]
    values = per_query.to_series(1).to_list()
    finite = [v for v in values if not math.isnan(v)]
    assert len(finite) == len(values)  # join_rankings' positions never tie
    alone = [joined.filter(pl.col("qid") == q).select(build(None)).item()  # type: ignore[operator]
             for q in per_query.get_column("qid")]
    assert values == pytest.approx(alone, abs=TOL)  # a group is read as the query alone
    mean = sum(values) / len(values)
    selected = joined.select(build("qid")).item()  # type: ignore[operator]
    assert abs(selected - mean) < TOL
    arms = pl.concat([joined.with_columns(arm=pl.lit(a)) for a in ("x", "y")])
    by_arm = arms.sample(fraction=1.0, shuffle=True, seed=3).group_by("arm").agg(
        build("qid")).sort("arm")  # type: ignore[operator]
    assert all(abs(v - mean) < TOL for v in by_arm.to_series(1).to_list())
    over = joined.with_columns(build(None).over("qid").alias("v"))  # type: ignore[operator]
    back = over.group_by("qid").agg(pl.col("v").first()).sort("qid").get_column("v").to_list()
    assert back == pytest.approx(values, abs=TOL)
    shuffled = joined.sample(fraction=1.0, shuffle=True, seed=11).lazy()
    assert shuffled.select(build("qid")).collect().item() == selected  # type: ignore[operator]


def test_join_rankings_positions_and_cutoff() -> None:
    a = pl.DataFrame({"qid": ["q"] * 4, "docid": ["w", "x", "y", "z"],
                      "score": [1.0, 3.0, 3.0, 0.5]})
    b = pl.DataFrame({"qid": ["q"] * 2, "docid": ["z", "x"], "score": [2.0, 1.0]})
    out = join_rankings(a, b, k=3)
    # equal scores: document id descending (trec_eval's order), so y before x
    assert out.rows() == [("q", "w", 3, None), ("q", "x", 2, 2), ("q", "y", 1, None),
                          ("q", "z", None, 1)]
    lazy = join_rankings(a.lazy(), b.lazy())
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().height == 4


def test_join_rankings_bad_input() -> None:
    a = pl.DataFrame({"qid": [1, 1, 2], "docid": ["x", "y", "x"], "score": [1.0, 2.0, 1.0]})
    with pytest.raises(InvalidDataError, match=r"query 2 \(column 'qid'\) is in run_a but not"):
        join_rankings(a, a.filter(pl.col("qid") == 1))
    with pytest.raises(InvalidDataError, match=r"query 2 \(column 'qid'\) is in run_b but not"):
        join_rankings(a.filter(pl.col("qid") == 1), a)
    with pytest.raises(InvalidDataError, match=r"run_b has two rows for document 'x' of query 1"):
        join_rankings(a, pl.concat([a, a.head(1)]))
    with pytest.raises(InvalidDataError, match="run_a has no column 'rank'"):
        join_rankings(a, a, by="rank")
    with pytest.raises(ValueError, match="names must be two different"):
        join_rankings(a, a, names=("r", "r"))


def test_parameter_errors() -> None:
    with pytest.raises(ValueError, match=r"p must be a persistence in \(0, 1\), got 1"):
        rbo("a", "b", p=1)
    with pytest.raises(ValueError, match="kind must be one of"):
        rbo("a", "b", kind="avg")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="k must be a positive int"):
        jaccard("a", "b", 0)
    with pytest.raises(ValueError, match="overlap needs k"):
        overlap("a", "b", None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="descending must be True or False"):
        tau_ap("a", "b", descending="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(6))
def test_a_query_without_common_items_moves_no_other_querys_value(seed: int) -> None:
    """Each query's value in a group_by equals the value of its rows alone, with queries
    whose lists share no item (or one) among them: on Polars 1.36 an empty list's
    aggregate in list.eval shifted the next lists' values (-1.0 came out NaN)."""
    rng = random.Random(seed)
    rows = []
    for q in range(8):
        n = rng.randint(1, 6)
        pool = list(range(n + 3))
        a, b = rng.sample(pool, n), rng.sample(pool, rng.randint(1, n + 2))
        if q % 2 == 0:  # every other query: the two lists share no item
            b = [d + 100 for d in b]
        rows += [(q, d, a.index(d) + 1 if d in a else None, b.index(d) + 1 if d in b else None)
                 for d in sorted(set(a) | set(b))]
    frame = pl.DataFrame(rows, schema=["qid", "doc", "rank_a", "rank_b"], orient="row")
    measures = {"tau_ap": tau_ap("rank_a", "rank_b"),
                "tau_ap_sym": tau_ap("rank_a", "rank_b", symmetric=True),
                "kendall_tau": kendall_tau("rank_a", "rank_b"),
                "rbo": rbo("rank_a", "rank_b", p=0.8)}
    grouped = frame.group_by("qid").agg(e.alias(n) for n, e in measures.items()).sort("qid")
    for q, *values in grouped.iter_rows():
        alone = frame.filter(pl.col("qid") == q).select(
            e.alias(n) for n, e in measures.items()).row(0)
        for got, want in zip(values, alone, strict=True):
            assert got is not None
            # the same to the last bits: a select of one query computes on scalars,
            # where Polars divides by a literal exactly (columns: by its reciprocal)
            assert (math.isnan(got) and math.isnan(want)) or abs(got - want) < 1e-15, (
                q, values, alone)
    assert math.isnan(grouped.filter(pl.col("qid") == 0)["tau_ap"].item())
    assert grouped.filter(pl.col("qid") == 0)["rbo"].item() == 0.0


@pytest.mark.parametrize("descending", [False, True])
def test_integer_keys_past_two_to_the_53(descending: bool) -> None:
    """Keys read as Float64 collapsed past 2^53 (nanosecond timestamps): every list was a
    tie nobody flagged, and rbo, tau_ap, jaccard, overlap gave 1.0 for reversed lists."""
    big = 2**60
    keys = pl.DataFrame({"doc": list("abcd"), "a": [big, big + 1, big + 2, None],
                         "b": [big + 1, big, big + 2, big + 3]})
    ranks = keys.with_columns(pl.col("a", "b").rank(descending=descending).cast(pl.Int64))
    exprs = [rbo("a", "b", p=0.9, descending=descending),
             tau_ap("a", "b", descending=descending),
             jaccard("a", "b", 2, descending=descending),
             overlap("a", "b", 1, descending=descending),
             average_overlap("a", "b", descending=descending)]
    want = ranks.select(rbo("a", "b", p=0.9), tau_ap("a", "b"), jaccard("a", "b", 2),
                        overlap("a", "b", 1), average_overlap("a", "b")).row(0)
    assert keys.select(exprs).row(0) == pytest.approx(want, abs=1e-15)
    s = [d for _, d in sorted((v, d) for d, v in zip("abcd", keys["a"], strict=True)
                              if v is not None)]
    t = [d for _, d in sorted((v, d) for d, v in zip("abcd", keys["b"], strict=True))]
    if descending:
        s, t = s[::-1], t[::-1]
    assert want[0] == pytest.approx(rboref.RankingSimilarity(s, t).rbo_ext(0.9), abs=TOL)
    assert want[0] < 1.0
