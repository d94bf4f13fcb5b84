"""ranking_similarity's sort-free path (rank columns that are positions 1..n) against the rest.

Integer positions 1..n per query take the path of ``_rankings/strict.py``; the same
positions as floats take the sorting path. Both must give the same bits, equal the
``rbo`` package's ``rbo_ext`` (transcribed), the paper's RBO_min and residual and
tau_AP as the paper writes it, on lists of equal and unequal lengths with documents
in one list only. A column that is not positions 1..n (a repeat, a gap, a 0, a start
at 2, a negative) must go to the sorting path and give what it gave before.
"""

from __future__ import annotations

import itertools
import math
import random

import polars as pl
import pytest
import rbo_reference as rboref
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_agreement_rankings import tau_ap_reference
from test_agreement_rankings_frame import joined

from polars_rank.agreement import ranking_similarity, rbo, tau_ap
from polars_rank.agreement._rankings.strict import MOST, WORD, strict_sums

TOL = 1e-12
ALL = ["rbo", "rbo_min", "rbo_res", "rbo_max", "tau_ap"]


TABLE = pl.Series([0.0, *itertools.accumulate(0.9**d / d for d in range(1, 2 * 4096 + 1))])


def takes_fast_path(frame: pl.DataFrame) -> bool:
    """True if ranking_similarity reads the rank columns as positions (no sort)."""
    if not (frame.schema["rank_a"].is_integer() and frame.schema["rank_b"].is_integer()):
        return False  # ranking_similarity does not try
    base = frame.lazy().select("qid", pl.col("rank_a").alias("_a"), pl.col("rank_b").alias("_b"))
    return strict_sums(base, ["qid"], TABLE, long=4096, tau=False) is not None


def same(x: float, y: float, tol: float = 0.0) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= tol


query_lists = st.lists(
    st.tuples(st.lists(st.integers(0, 40), max_size=30, unique=True),
              st.lists(st.integers(0, 40), max_size=30, unique=True)),
    min_size=1, max_size=6)


@settings(max_examples=examples(25), deadline=None)
@given(query_lists, st.sampled_from([0.5, 0.9, 0.98]), st.booleans())
def test_positions_path_equals_the_sorting_path_and_the_references(
        cases: list[tuple[list[int], list[int]]], p: float, symmetric: bool) -> None:
    a = [[f"d{i:02d}" for i in x] for x, _ in cases]
    b = [[f"d{i:02d}" for i in y] for _, y in cases]
    frame = joined(a, b)
    if frame.height == 0:
        return
    assert takes_fast_path(frame)
    fast = ranking_similarity(frame, measures=ALL, p=p, symmetric=symmetric)
    floats = frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64))
    slow = ranking_similarity(floats, measures=ALL, p=p, symmetric=symmetric)
    # the same integer sums and the same tables of p^n on both paths; the float
    # arithmetic after them runs in other plans, whose last bit may differ: 1e-15
    assert fast["qid"].equals(slow["qid"])
    for m in ALL:
        assert all(same(u, v, 1e-15) for u, v in zip(fast[m], slow[m], strict=True)), m
    for q, (x, y) in enumerate(zip(a, b, strict=True)):
        if not x and not y:
            continue
        row = fast.row(fast["qid"].to_list().index(q), named=True)
        assert same(row["rbo"], rboref.RankingSimilarity(x, y).rbo_ext(p), TOL)
        if x and y:
            assert same(row["rbo_min"], rboref.rbo_min(x, y, p), TOL)
            assert same(row["rbo_res"], rboref.rbo_res(x, y, p), TOL)
        if len([d for d in y if d in x]) >= 2 and not symmetric:
            assert same(row["tau_ap"], tau_ap_reference(x, y), TOL)
    # and the expressions, each query alone (in a group_by, Polars 1.36 gives tau_ap
    # symmetric=True wrong values where a query has fewer than two common documents)
    for q, want in zip(fast["qid"], fast.iter_rows(named=True), strict=True):
        got = frame.filter(pl.col("qid") == q).select(
            rbo("rank_a", "rank_b", p=p), tau_ap("rank_a", "rank_b", symmetric=symmetric)).row(0)
        assert same(got[0], want["rbo"], TOL)
        assert same(got[1], want["tau_ap"], TOL)


BASE = pl.DataFrame({"qid": [1, 1, 1, 1, 2, 2, 2], "docid": list("abcdxyz"),
                     "rank_a": [1, 2, 3, 4, 1, 2, None], "rank_b": [2, 1, 4, 3, None, 1, 2]})


@pytest.mark.parametrize("change", [
    {"rank_a": [1, 2, 2, 4, 1, 2, None]},  # a repeat
    {"rank_a": [1, 1, 3, 4, 1, 2, None]},  # a repeat and a gap: count = max = 4, min 1
    {"rank_a": [1, 3, 3, 4, 1, 2, None]},  # sum and count of 1..4 but a repeat (1+3+3+4=11)
    {"rank_a": [1, 2, 3, 5, 1, 2, None]},  # a gap
    {"rank_a": [0, 1, 2, 3, 1, 2, None]},  # from 0
    {"rank_a": [2, 3, 4, 5, 1, 2, None]},  # from 2
    {"rank_b": [2, 1, 4, 3, None, -1, 2]},  # negative
    {"rank_b": [2, 1, 4, 3, None, 1, MOST + 1]},  # too long for the check
])
def test_other_integers_take_the_sorting_path(change: dict[str, list[int | None]]) -> None:
    frame = BASE.with_columns(pl.Series(k, v, dtype=pl.Int64) for k, v in change.items())
    assert takes_fast_path(BASE)
    assert not takes_fast_path(frame)
    got = ranking_similarity(frame, measures=ALL)
    want = ranking_similarity(frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64)),
                              measures=ALL)
    assert got.equals(want)
    # the expressions read the keys the same way (ties broken by doc)
    exp = frame.group_by("qid").agg(rbo("rank_a", "rank_b", doc="docid"),
                                    tau_ap("rank_a", "rank_b", doc="docid")).sort("qid")
    for m in ("rbo", "tau_ap"):
        assert all(same(u, v, TOL) for u, v in zip(got[m], exp[m], strict=True))
    # without doc a repeated position is a tie: NaN, as before
    no_doc = ranking_similarity(frame, doc=None, measures=["rbo"])
    exp = frame.group_by("qid").agg(rbo("rank_a", "rank_b")).sort("qid")
    assert all(same(u, v, TOL) for u, v in zip(no_doc["rbo"], exp["rbo"], strict=True))


def test_a_repeat_in_one_query_of_many() -> None:
    """Every query but one is positions: the whole frame takes the sorting path."""
    frames = [BASE.with_columns(pl.col("qid") + 10 * i) for i in range(5)]
    frame = pl.concat([*frames, BASE.with_columns(pl.lit(99, pl.Int64).alias("qid"),
                                                  pl.Series("rank_b", [2, 2, 4, 3, None, 1, 2]))])
    assert not takes_fast_path(frame)
    got = ranking_similarity(frame, doc=None, measures=ALL)
    assert all(math.isnan(v) for v in got.filter(pl.col("qid") == 99).drop("qid").row(0))
    assert not any(math.isnan(v) for v in got.filter(pl.col("qid") == 1).drop("qid").row(0))
    assert got.filter(pl.col("qid") < 99).drop("qid").n_unique() == 2  # two kinds of query


def test_many_repeats_of_the_last_bit_do_not_pass_for_positions() -> None:
    """120 values 1..120 and 512 repeats of 120: 2^119 x 513 wraps an Int128 word back to
    its mask. More values than the words' bits are repeats: the sorting path, which sees
    the tie (NaN without doc) or ranks the repeats by doc, as with float ranks."""
    n, extra = WORD, 1 << (128 - (WORD - 1))
    assert ((1 << n) - 1 + extra * (1 << (n - 1))) % (1 << 128) == (1 << n) - 1
    frame = pl.DataFrame({
        "qid": [1] * (n + extra), "docid": [f"d{i:03d}" for i in range(n + extra)],
        "rank_a": list(range(1, n + 1)) + [n] * extra,
        "rank_b": list(range(n, 0, -1)) + [n] * extra})
    assert not takes_fast_path(frame)
    floats = frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64))
    for doc in (None, "docid"):
        got = ranking_similarity(frame, doc=doc, measures=ALL)
        want = ranking_similarity(floats, doc=doc, measures=ALL)
        assert all(same(u, v, 1e-15) for u, v in zip(got.row(0), want.row(0), strict=True))
    assert math.isnan(ranking_similarity(frame, doc=None, measures=["rbo"])["rbo"].item())


def test_null_query_and_row_order_on_the_positions_path() -> None:
    one = BASE.filter(pl.col("qid") == 1)
    frame = pl.concat([BASE, one.with_columns(pl.lit(None, pl.Int64).alias("qid"))])
    assert takes_fast_path(frame)
    got = ranking_similarity(frame, measures=ALL)
    assert got["qid"].to_list() == [1, 2, None]
    assert got.row(0)[1:] == got.row(2)[1:]
    shuffled = frame.sample(fraction=1.0, shuffle=True, seed=5)
    assert ranking_similarity(shuffled, measures=ALL).equals(got)
    assert ranking_similarity(shuffled.lazy(), measures=ALL).collect().equals(got)


@pytest.mark.parametrize(("length", "pool", "queries"), [(150, 200, 3), (600, 605, 3),
                                                         (600, 1000, 3), (60, 64, 150)])
def test_long_lists_several_words_and_beyond(length: int, pool: int, queries: int) -> None:
    """150: two 120-bit words per column in the check (three 57-bit words in tau_AP's
    bitsets); 600: past MOST, the sorting path and tau_AP
    by dyadic blocks (600 of 605: more than MOST common documents) or bitsets of the
    common documents' ranks (600 of 1000); 150 queries of 60: the running sums over the
    whole column wrap (2^56 each)."""
    rng = random.Random(length)
    docs = [f"d{i:03d}" for i in range(pool)]
    a = [rng.sample(docs, length - 7 * (q % 3)) for q in range(queries)]
    b = [rng.sample(docs, length - 5 * (2 - q % 3)) for q in range(queries)]
    frame = joined(a, b)
    assert takes_fast_path(frame) == (length <= MOST)
    fast = ranking_similarity(frame, measures=ALL, p=0.98)
    slow = ranking_similarity(frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64)),
                              measures=ALL, p=0.98)
    for m in ALL:
        assert all(same(u, v, 1e-15) for u, v in zip(fast[m], slow[m], strict=True)), m
    for q, (x, y) in enumerate(zip(a, b, strict=True)):
        row = fast.row(q, named=True)
        assert same(row["rbo"], rboref.RankingSimilarity(x, y).rbo_ext(0.98), TOL)
        assert same(row["tau_ap"], tau_ap_reference(x, y), TOL)
    sym = ranking_similarity(frame, measures=["tau_ap"], symmetric=True)
    for q, (x, y) in enumerate(zip(a[:5], b[:5], strict=True)):
        want = (tau_ap_reference(x, y) + tau_ap_reference(y, x)) / 2
        assert same(sym["tau_ap"][q], want, TOL)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.lists(st.tuples(st.one_of(st.none(), st.integers(-1, 7)),
                                   st.one_of(st.none(), st.integers(1, 7))),
                         min_size=1, max_size=7), min_size=1, max_size=4),
       st.booleans())
def test_the_check_is_exact_on_any_integers(queries: list[list[tuple[int | None, int | None]]],
                                            permute: bool) -> None:
    """Random small integers (repeats, gaps, 0, -1) or a permutation: the positions path
    is taken exactly when every query's values of each column are 1..n, and gives the
    sorting path's values either way."""
    rows = []
    for q, pairs in enumerate(queries):
        if permute:  # positions: a in the order of the rows, b in the order of its draws
            ia = iter(range(1, len(pairs) + 1))
            order = sorted((y, i) for i, (_, y) in enumerate(pairs) if y is not None)
            rank_b = {i: r + 1 for r, (_, i) in enumerate(order)}
            pairs = [(next(ia) if x is not None else None, rank_b.get(i))
                     for i, (x, _) in enumerate(pairs)]
        rows += [(q, f"d{i}", x, y) for i, (x, y) in enumerate(pairs)]
    frame = pl.DataFrame(rows, schema={"qid": pl.Int64, "docid": pl.String,
                                       "rank_a": pl.Int64, "rank_b": pl.Int64}, orient="row")

    def positions(values: list[int | None]) -> bool:
        v = sorted(x for x in values if x is not None)
        return v == list(range(1, len(v) + 1))

    want = all(positions(part[c].to_list()) for part in frame.partition_by("qid")
               for c in ("rank_a", "rank_b"))
    assert want or not permute
    assert takes_fast_path(frame) == want
    got = ranking_similarity(frame, measures=ALL)
    slow = ranking_similarity(frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64)),
                              measures=ALL)
    for m in ALL:
        assert all(same(u, v, 1e-15) for u, v in zip(got[m], slow[m], strict=True)), m


def test_a_query_past_the_longest_list_is_nan_not_an_error() -> None:
    """A query of 9,000 rows (over MAX_ITEMS, and over the tables' 2 x 4,096 + 1
    entries) is NaN on every path; it raised OutOfBoundsError for the whole frame."""
    n = 9_000
    big = pl.DataFrame({"qid": [1] * n, "docid": [f"d{i}" for i in range(n)],
                        "rank_a": list(range(1, n + 1)), "rank_b": list(range(n, 0, -1))})
    small = pl.DataFrame({"qid": [2] * 3, "docid": ["a", "b", "c"], "rank_a": [1, 2, 3],
                          "rank_b": [1, 3, 2]})
    frame = pl.concat([big, small])
    for f in (frame, frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64))):
        got = ranking_similarity(f, measures=ALL)
        assert all(math.isnan(v) for v in got.row(0)[1:])
        assert not any(math.isnan(v) for v in got.row(1)[1:])
    exprs = frame.group_by("qid").agg(rbo("rank_a", "rank_b"), tau_ap("rank_a", "rank_b"),
                                      rbo("rank_a", "rank_b", kind="res").alias("res")
                                      ).sort("qid")
    assert all(math.isnan(v) for v in exprs.row(0)[1:])
    assert exprs.row(1)[1:] == pytest.approx(got.select("rbo", "tau_ap", "rbo_res").row(1))


@pytest.mark.parametrize("ids", [[-5, 7, None, 3], [0, 1, 2, 3], [2**63 + 5, 1, 2**63, 9],
                                 ["q", "a", None, "b"]])
def test_tau_ap_sorted_by_one_code_or_by_the_keys(ids: list[object]) -> None:
    """tau_AP's common rows sorted by one integer code (negative ids, a null query) or,
    where no code fits (ids past 2^62, text), by the keys: the same values as the
    sorting path's, for any row order."""
    rng = random.Random(3)
    rows = []
    for q in ids:
        a, b = rng.sample(range(12), 9), rng.sample(range(12), 8)
        rows += [(q, f"d{d}", a.index(d) + 1 if d in a else None,
                  b.index(d) + 1 if d in b else None) for d in set(a) | set(b)]
    dtype = pl.UInt64 if any(isinstance(q, int) and q > 2**62 for q in ids) else None
    frame = pl.DataFrame(rows, schema={"qid": dtype or (pl.String if isinstance(ids[0], str)
                                                        else pl.Int64),
                                       "docid": pl.String, "rank_a": pl.Int64,
                                       "rank_b": pl.Int64}, orient="row")
    assert takes_fast_path(frame)
    fast = ranking_similarity(frame.sample(fraction=1.0, shuffle=True, seed=1),
                              measures=["tau_ap"], symmetric=True)
    slow = ranking_similarity(frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64)),
                              measures=["tau_ap"], symmetric=True)
    assert fast["qid"].equals(slow["qid"])
    assert all(same(u, v, 1e-15) for u, v in zip(fast["tau_ap"], slow["tau_ap"], strict=True))
    assert fast["tau_ap"].null_count() == 0


@pytest.mark.parametrize("length", [WORD, WORD + 1, 300])
def test_rows_in_neither_ranking_and_both_row_tables(length: int) -> None:
    """Up to WORD the row's sums come from a table indexed by (a, b); past it, from one
    indexed by the row's case (a alone, b alone, both, neither). Rows in neither ranking
    (both ranks null, other ranks and integer types) change nothing, on both tables."""
    rng = random.Random(length)
    docs = [f"d{i:03d}" for i in range(length + 40)]
    a = [rng.sample(docs, length - 9 * q) for q in range(3)]
    b = [rng.sample(docs, length - 4 * (2 - q)) for q in range(3)]
    frame = joined(a, b)
    extra = pl.DataFrame({"qid": [0, 2, 2], "docid": ["zz0", "zz1", "zz2"],
                          "rank_a": [None, None, None], "rank_b": [None, None, None]},
                         schema=frame.schema)
    padded = pl.concat([extra, frame]).with_columns(pl.col("rank_a").cast(pl.UInt16),
                                                     pl.col("rank_b").cast(pl.Int32))
    assert takes_fast_path(frame)
    assert takes_fast_path(padded)
    want = ranking_similarity(frame.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64)),
                              measures=ALL, p=0.95)
    for f in (frame, padded):
        got = ranking_similarity(f, measures=ALL, p=0.95)
        for m in ALL:
            assert all(same(u, v, 1e-15) for u, v in zip(got[m], want[m], strict=True)), m
    for q, (x, y) in enumerate(zip(a, b, strict=True)):
        assert same(want["rbo"][q], rboref.RankingSimilarity(x, y).rbo_ext(0.95), TOL)
