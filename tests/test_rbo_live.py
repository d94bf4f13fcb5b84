"""RBO against the ``rbo`` package itself (PyPI, 0.1.3), run live.

The other tests compare with ``rbo_reference.py``, a transcription of changyaochen/rbo's
``rbo/rbo.py`` at a GitHub commit. The release on PyPI pins ``numpy<2`` but its code
runs on NumPy 2 once installed without its pins::

    pip install -e ".[rbo-reference]"
    pip install --no-deps rbo==0.1.3

CI does that in a step of its own (``.ci/run``, with ``POLARS_RANK_RBO=1``: a missing
``rbo`` fails there); elsewhere this file is skipped. Checked here: the transcription
equals the release (so the other tests' reference is the package users install), and
``rbo``, ``average_overlap`` and ``ranking_similarity`` equal the release's
``rbo_ext`` and ``rbo`` on its own test cases and on random lists that need not hold
the same items, with scores that tie (broken by document id, as the lists are read).
"""

from __future__ import annotations

import os
import random

import polars as pl
import pytest
import rbo_reference as rboref
from test_agreement_rankings import package_case
from test_agreement_rankings_frame import joined

from polars_rank.agreement import ranking_similarity, rbo

if os.environ.get("POLARS_RANK_RBO") == "1":  # CI's rbo step: a missing rbo fails
    import rbo as package
else:
    package = pytest.importorskip("rbo")

TOL = 1e-12
PS = (0.5, 0.8, 0.9, 0.95, 0.98)


def random_lists(seed: int, n: int = 60) -> list[tuple[list[str], list[str]]]:
    """Pairs of lists of 0-40 items drawn from pools of 10-60: partly conjoint, some empty."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pool = [f"d{i:02d}" for i in range(rng.randint(10, 60))]
        out.append((rng.sample(pool, rng.randint(0, min(40, len(pool)))),
                    rng.sample(pool, rng.randint(0, min(40, len(pool))))))
    return out


def test_the_release_is_the_transcribed_code() -> None:
    assert package.__name__ == "rbo"
    for s, t in [(list(a), list(b)) for a, b, _ in rboref.PACKAGE_TESTS] + random_lists(1):
        ours, theirs = rboref.RankingSimilarity(s, t), package.RankingSimilarity(s, t)
        for p in PS:
            assert ours.rbo_ext(p) == pytest.approx(theirs.rbo_ext(p), abs=1e-15)
            assert ours.rbo(p=p) == pytest.approx(theirs.rbo(p=p), abs=1e-15)
            if s and t:
                assert ours.rbo(k=3, p=p, ext=True) == pytest.approx(
                    theirs.rbo(k=3, p=p, ext=True), abs=1e-15)
        assert ours.rbo(p=1.0) == pytest.approx(theirs.rbo(p=1.0), abs=1e-15)


@pytest.mark.parametrize(("S", "T", "expected"), rboref.PACKAGE_TESTS)
def test_the_package_cases_against_the_release(S: str, T: str, expected: float) -> None:
    package_case(S, T, expected, package.RankingSimilarity)


@pytest.mark.parametrize("p", PS)
def test_random_lists_every_form_against_the_release(p: float) -> None:
    pairs = random_lists(int(p * 100))
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    want = [package.RankingSimilarity(x, y).rbo_ext(p) for x, y in pairs]
    both = joined(a, b)
    fast = ranking_similarity(both, measures=["rbo"], p=p)  # positions: no sort
    slow = ranking_similarity(both.with_columns(pl.col("rank_a", "rank_b").cast(pl.Float64)),
                              measures=["rbo"], p=p)
    exprs = both.group_by("qid").agg(rbo("rank_a", "rank_b", p=p)).sort("qid")
    queries = fast["qid"].to_list()
    for got in (fast["rbo"], slow["rbo"], exprs["rbo"]):
        assert [abs(g - want[q]) < TOL for q, g in zip(queries, got, strict=True)] \
            == [True] * len(queries)
    # the mean over queries, as one expression (lists empty in both rankings have no rows)
    kept = [w for (x, y), w in zip(pairs, want, strict=True) if x or y]
    mean = both.select(rbo("rank_a", "rank_b", p=p, query="qid")).item()
    assert abs(mean - sum(kept) / len(kept)) < TOL


def test_scores_with_ties_read_in_document_order() -> None:
    """Scores, highest first, ties broken by document id: the lists the package reads."""
    rng = random.Random(7)
    for _ in range(30):
        docs = [f"d{i:02d}" for i in range(rng.randint(2, 30))]
        sa = {d: rng.randint(0, 4) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        sb = {d: rng.randint(0, 4) for d in rng.sample(docs, rng.randint(1, len(docs)))}
        items = sorted(set(sa) | set(sb))
        df = pl.DataFrame({"doc": items, "sa": [sa.get(d) for d in items],
                           "sb": [sb.get(d) for d in items]},
                          schema={"doc": pl.String, "sa": pl.Int64, "sb": pl.Int64})
        s = sorted(sa, key=lambda d: (-sa[d], d))
        t = sorted(sb, key=lambda d: (-sb[d], d))
        got = df.select(rbo("sa", "sb", p=0.9, descending=True, doc="doc")).item()
        assert abs(got - package.RankingSimilarity(s, t).rbo_ext(0.9)) < TOL
