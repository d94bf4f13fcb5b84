"""dialect="torchmetrics" and dialect="recommenders" against the lenders' own code.

Neither is installed (torch is too heavy for CI; MS Recommenders pulls a stack), so
the references are transcriptions (tests/reference_lenders.py, with the files and
commits they were read from), checked here first against the lenders' own
documented examples and unit-test expectations, then compared with polars-rank on
random data.
"""

from __future__ import annotations

import contextlib
import functools
import math
from typing import TYPE_CHECKING

import polars as pl
import pytest
import reference_lenders as lend
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rank as pr

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

TOL = 1e-12
Query = tuple[list[float], list[float]]  # (preds, target)


def torch_frames(queries: Sequence[Query]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(run, qrels): each query's documents, all judged (target) and scored (preds)."""
    rows = [(q, d, float(p), float(t)) for q, (preds, target) in enumerate(queries)
            for d, (p, t) in enumerate(zip(preds, target, strict=True))]
    frame = pl.DataFrame(rows, schema={"qid": pl.Int64, "docid": pl.Int64, "score": pl.Float64,
                                       "rel": pl.Float64}, orient="row")
    return frame.select("qid", "docid", "score"), frame.select("qid", "docid", "rel")


# ------------------------------------------------------------------------- torchmetrics
# the examples of src/torchmetrics/retrieval/*.py (module classes, two queries)
INDEXES = [0, 0, 0, 1, 1, 1, 1]
PREDS = [0.2, 0.3, 0.5, 0.1, 0.3, 0.5, 0.2]
TARGET = [0, 0, 1, 0, 1, 0, 1]
HIT_TARGET = [1, 0, 0, 0, 1, 0, 1]  # RetrievalHitRate's example


def _split(indexes: list[int], preds: list[float], target: list[int]) -> list[Query]:
    return [([p for i, p in zip(indexes, preds, strict=True) if i == q],
             [float(t) for i, t in zip(indexes, target, strict=True) if i == q])
            for q in sorted(set(indexes))]


@pytest.mark.parametrize(("spec", "function", "target", "printed"), [
    ("map", lend.tm_average_precision, TARGET, 0.7917),
    ("ndcg", lend.tm_normalized_dcg, TARGET, 0.8467),
    ("p@2", functools.partial(lend.tm_precision, top_k=2), TARGET, 0.5),
    ("rprec", lend.tm_r_precision, TARGET, 0.75),
    ("mrr", lend.tm_reciprocal_rank, TARGET, 0.75),
    ("recall@2", functools.partial(lend.tm_recall, top_k=2), TARGET, 0.75),
    ("hit_rate@2", functools.partial(lend.tm_hit_rate, top_k=2), HIT_TARGET, 0.5),
])
def test_torchmetrics_documented_examples(spec: str, function: Callable[..., float],
                                          target: list[int], printed: float) -> None:
    """The value each class's docstring prints, from the transcription and from us."""
    queries = _split(INDEXES, PREDS, target)
    assert lend.tm_mean(queries, function) == pytest.approx(printed, abs=5e-5)
    run, qrels = torch_frames(queries)
    got = pr.evaluate(run, qrels, [spec], dialect="torchmetrics").item()
    assert got == pytest.approx(printed, abs=5e-5)
    assert got == pytest.approx(lend.tm_mean(queries, function), abs=TOL)


def test_torchmetrics_functional_examples() -> None:
    """The examples of src/torchmetrics/functional/retrieval/*.py (one query each)."""
    three = ([0.2, 0.3, 0.5], [1.0, 0.0, 1.0])
    cases = [
        ("map", lend.tm_average_precision, three, 0.8333),
        ("ndcg", lend.tm_normalized_dcg, ([0.1, 0.2, 0.3, 4, 70], [10.0, 0, 0, 1, 5]), 0.6957),
        ("p@2", functools.partial(lend.tm_precision, top_k=2), three, 0.5),
        ("recall@2", functools.partial(lend.tm_recall, top_k=2), three, 0.5),
        ("rprec", lend.tm_r_precision, three, 0.5),
        ("mrr", lend.tm_reciprocal_rank, ([0.2, 0.3, 0.5], [0.0, 1.0, 0.0]), 0.5),
        ("hit_rate@2", functools.partial(lend.tm_hit_rate, top_k=2), three, 1.0),
    ]
    for spec, function, (preds, target), printed in cases:
        assert function(preds, target) == pytest.approx(printed, abs=5e-5), spec
        run, qrels = torch_frames([(preds, target)])
        got = pr.evaluate(run, qrels, [spec], dialect="torchmetrics").item()
        assert got == pytest.approx(printed, abs=5e-5), spec


def test_torchmetrics_ndcg_transcription_is_sklearns() -> None:
    """torchmetrics' NDCG is "a translated version" of scikit-learn's: same numbers."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    preds = [1.0, 1.0, 0.5, 2.0, 0.5, 1.0]
    target = [2.0, 0.0, 1.0, 0.0, 3.0, 1.0]
    for k in (None, 1, 2, 4):
        want = sklearn_metrics.ndcg_score([target], [preds], k=k)
        assert lend.tm_normalized_dcg(preds, target, k) == pytest.approx(want, abs=TOL)


# torchmetrics' functions: (metric string, transcription, graded targets?)
TORCH: dict[str, tuple[str, Callable[..., float], bool]] = {
    "ndcg": ("ndcg{at}", lend.tm_normalized_dcg, True),
    "map": ("map{at}", lend.tm_average_precision, False),
    "p": ("p{at}", lend.tm_precision, False),
    "p_adaptive": ("p{at}(adaptive_k=true)",
                   functools.partial(lend.tm_precision, adaptive_k=True), False),
    "recall": ("recall{at}", lend.tm_recall, False),
    "rprec": ("rprec", lambda preds, target, top_k: lend.tm_r_precision(preds, target), False),
    "mrr": ("mrr{at}", lend.tm_reciprocal_rank, False),
    "hit_rate": ("hit_rate{at}", lend.tm_hit_rate, False),
}
ACTIONS = {"neg": "", "pos": "empty_target_action=pos", "skip": "empty_target_action=skip"}


@st.composite
def torch_queries(draw: st.DrawFn, graded: bool, ties: bool) -> list[Query]:
    """Queries of 1..8 documents, positive scores (distinct unless ``ties``)."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 8))
        if ties:
            preds = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))
        else:
            preds = [float(p + 1) for p in draw(st.permutations(range(n)))]
        labels = st.sampled_from([0, 0, 1, 2, 3]) if graded else st.sampled_from([0, 0, 1])
        out.append((preds, [float(t) for t in draw(st.lists(labels, min_size=n, max_size=n))]))
    return out


def _spec(template: str, k: int | None, action: str) -> str:
    spec = template.format(at="" if k is None else f"@{k}")
    option = ACTIONS[action]
    if not option:
        return spec
    return spec[:-1] + f",{option})" if spec.endswith(")") else f"{spec}({option})"


@pytest.mark.parametrize("name", list(TORCH))
@settings(max_examples=examples(40), deadline=None)
@given(data=st.data(), k=st.sampled_from([None, 1, 2, 3, 5]),
       action=st.sampled_from(list(ACTIONS)))
def test_torchmetrics_means(name: str, data: st.DataObject, k: int | None, action: str) -> None:
    """Each metric's mean over queries, with empty_target_action, as torchmetrics.

    Scores are distinct but for NDCG (which averages over tied orders, as
    ties="expected": the dialect's policy); torchmetrics leaves the order of equal
    scores to torch.topk. When every query is skipped torchmetrics returns 0.0 and
    polars-rank null (no query to average).
    """
    template, function, graded = TORCH[name]
    queries = data.draw(torch_queries(graded=graded, ties=name == "ndcg"))
    want = lend.tm_mean(queries, functools.partial(function, top_k=k), action)
    run, qrels = torch_frames(queries)
    spec = _spec(template, k, action)
    got = pr.evaluate(run, qrels, [spec], dialect="torchmetrics").item()
    if got is None:
        assert action == "skip"
        assert want == 0.0
        assert all(not sum(t) for _, t in queries)
        return
    assert math.isclose(got, want, rel_tol=TOL, abs_tol=TOL), (spec, got, want, queries)


@settings(max_examples=examples(40), deadline=None)
@given(queries=torch_queries(graded=False, ties=False).map(
    lambda qs: [([p - 3.0 for p in preds], target) for preds, target in qs]),
    k=st.sampled_from([None, 1, 2, 3]))
def test_torchmetrics_scores_at_or_below_zero(queries: list[Query], k: int | None) -> None:
    """torchmetrics' AP, RR, P and R take a document scored <= 0 as not relevant
    (``torch.where(preds > 0, target, 0)``): left out of the run (not retrieved) says so."""
    run, qrels = torch_frames(queries)
    run = run.filter(pl.col("score") > 0)  # not retrieved (a run's null score is refused)
    at = "" if k is None else f"@{k}"
    specs = {f"map{at}": lend.tm_average_precision, f"mrr{at}": lend.tm_reciprocal_rank,
             f"recall{at}": lend.tm_recall}
    if k is not None:
        specs[f"p{at}"] = lend.tm_precision  # (without k, P divides by every document)
    got = pr.evaluate(run, qrels, list(specs), dialect="torchmetrics", missing="zero")
    for spec, function in specs.items():
        want = lend.tm_mean(queries, functools.partial(function, top_k=k))
        assert math.isclose(got[spec].item(), want, rel_tol=TOL, abs_tol=TOL), spec


# ---------------------------------------------------------------------- MS Recommenders
# tests/unit/recommenders/evaluation/conftest.py (users, items, ratings / predictions)
TRUE = list(zip([1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1],
                [3, 1, 4, 5, 6, 7, 2, 5, 6, 8, 9, 10, 11, 12, 13, 14, 1, 2],
                [3.0, 5, 5, 3, 3, 1, 5, 5, 5, 4, 4, 3, 3, 3, 2, 1, 5, 4], strict=True))
PRED = list(zip([1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1],
                [12, 10, 3, 5, 11, 13, 4, 10, 7, 13, 1, 3, 5, 2, 11, 14, 3, 10],
                [12.0, 14, 13, 12, 11, 10, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 14, 13],
                strict=True))
# rating_nohit recommends item 100 to each user many times; evaluate() refuses a
# document twice in a list, so here each is another item absent from rating_true
NOHIT = [(user, 100 + i, prediction) for i, (user, _, prediction) in enumerate(PRED)]


def rec_evaluate(rating_true: Sequence[lend.Rating], rating_pred: Sequence[lend.Rating],
                 specs: list[str], **options: object) -> pl.DataFrame:
    """evaluate(dialect="recommenders") of rating_pred (the run) against rating_true."""
    schema = {"qid": pl.Int64, "docid": pl.Int64}
    qrels = pl.DataFrame(rating_true, schema={**schema, "rel": pl.Float64}, orient="row")
    run = pl.DataFrame(rating_pred, schema={**schema, "score": pl.Float64}, orient="row")
    return pr.evaluate(run, qrels, specs, dialect="recommenders", **options)  # type: ignore[arg-type]


def r_precision_as_recommenders(per_query: pl.Series) -> float:
    """Recommenders' r_precision_at_k mean: over the users whose value is above 0."""
    counted = per_query.filter(per_query > 0)
    return float(counted.mean()) if counted.len() else math.nan  # type: ignore[arg-type]


def test_recommenders_unit_test_values() -> None:
    """tests/unit/recommenders/evaluation/test_python_evaluation.py's expectations."""
    tol = 1e-4  # its TOL
    got = rec_evaluate(TRUE, PRED, ["p@10", "recall@10", "map@10(denominator=relevant)",
                                    "map@10", "ndcg@10"]).row(0, named=True)
    assert got["p@10"] == pytest.approx(0.26666, abs=tol)
    assert got["recall@10"] == pytest.approx(0.37777, abs=tol)
    assert got["map@10(denominator=relevant)"] == pytest.approx(0.23613, abs=tol)  # map
    assert got["map@10"] == pytest.approx(0.23613, abs=tol)  # map_at_k
    assert got["ndcg@10"] == pytest.approx(0.38172, abs=tol)
    for k, printed in ((3, 0.21111), (5, 0.24444), (10, 0.37777)):
        per = rec_evaluate(TRUE, PRED, [f"rprec@{k}"], per_query=True)[f"rprec@{k}"]
        assert r_precision_as_recommenders(per) == pytest.approx(printed, abs=tol)
        assert lend.rec_r_precision_at_k(TRUE, PRED, k) == pytest.approx(printed, abs=tol)
    same = rec_evaluate(TRUE, TRUE, ["ndcg@10", "map@10", "p@10", "recall@10", "rprec@10"])
    assert same.row(0) == pytest.approx((1.0, 1.0, 0.6, 1.0, 1.0))
    nohit = rec_evaluate(TRUE, NOHIT, ["ndcg@10", "map@10", "p@10", "recall@10", "rprec@5"])
    assert nohit.row(0) == (0.0, 0.0, 0.0, 0.0, 0.0)
    # raw relevance and log2 discount, Wikipedia's example (the base does not matter)
    wiki_true = [(0, item, float(r)) for item, r in enumerate([3, 2, 3, 0, 1, 2, 3, 2])]
    wiki_pred = [(0, item, float(6 - item)) for item in range(6)]
    wiki = rec_evaluate(wiki_true, wiki_pred, ["ndcg@6(gain=linear)"]).item()
    assert wiki == pytest.approx(0.785, abs=tol)
    assert lend.rec_ndcg_at_k(wiki_true, wiki_pred, 6, "raw", "log2") == pytest.approx(wiki)
    # precision divides by k, even with fewer items than k
    single = [(1, 1, 5.0), (1, 2, 4.0), (1, 3, 3.0)]
    items = [*single, (2, 1, 5.0), (2, 2, 5.0), (2, 3, 3.0)]
    assert rec_evaluate(single, single, ["p@3"]).item() == 1
    assert rec_evaluate(items, items, ["p@3", "p@5"]).row(0) == pytest.approx((1.0, 0.6))


@st.composite
def ratings(draw: st.DrawFn) -> tuple[list[lend.Rating], list[lend.Rating]]:
    """(rating_true, rating_pred): up to 4 users, tied predictions, users in one only."""
    true, pred = [], []
    for user in range(draw(st.integers(1, 4))):
        if draw(st.integers(0, 9)):  # a user may have no true items
            for item in draw(st.lists(st.integers(0, 11), max_size=7, unique=True)):
                true.append((user, item, float(draw(st.sampled_from([1, 2, 3, 5])))))
        if draw(st.integers(0, 9)):
            for item in draw(st.lists(st.integers(0, 11), max_size=8, unique=True)):
                pred.append((user, item, float(draw(st.sampled_from([1, 2, 2, 3, 4])))))
    return true, pred


@settings(max_examples=examples(80), deadline=None)
@given(case=ratings(), k=st.sampled_from([1, 2, 3, 5, 10]))
def test_recommenders_random(case: tuple[list[lend.Rating], list[lend.Rating]], k: int) -> None:
    """Each ranking function of python_evaluation.py, ties in row order (as pandas')."""
    true, pred = case
    users_true, users_pred = {u for u, _, _ in true}, {u for u, _, _ in pred}
    if not users_true & users_pred:
        return  # nothing to evaluate (evaluate() warns; Recommenders' means divide by 0)
    specs = {f"p@{k}": lend.rec_precision_at_k, f"recall@{k}": lend.rec_recall_at_k,
             f"map@{k}": lend.rec_map_at_k, f"map@{k}(denominator=relevant)": lend.rec_map}
    unjudged = users_pred - users_true  # run queries without judgments: evaluate() warns
    with (pytest.warns(UserWarning, match="no judgments") if unjudged
          else contextlib.nullcontext()):
        per = rec_evaluate(true, pred, [f"rprec@{k}"], per_query=True)[f"rprec@{k}"]
        # one call: ndcg_at_k averages over every user of rating_true (the dialect's
        # missing="zero" for ndcg), the others over the users of both
        ndcgs = [f"ndcg@{k}", f"ndcg@{k}(gain=linear)", f"ndcg@{k}(gain=exponential)"]
        got = rec_evaluate(true, pred, [*specs, *ndcgs]).row(0, named=True)
        ndcg = [got[spec] for spec in ndcgs]
    for spec, function in specs.items():
        want = function(true, pred, k)
        assert math.isclose(got[spec], want, rel_tol=TOL, abs_tol=TOL), (spec, got[spec], want)
    want_rprec = lend.rec_r_precision_at_k(true, pred, k)
    got_rprec = r_precision_as_recommenders(per)
    if math.isnan(got_rprec):  # no user with a hit in its top min(R, k)
        assert want_rprec == 0.0 or math.isnan(want_rprec)
    else:
        assert math.isclose(got_rprec, want_rprec, rel_tol=TOL, abs_tol=TOL)
    for value, score_type in zip(ndcg, ("binary", "raw", "exp"), strict=True):
        want = lend.rec_ndcg_at_k(true, pred, k, score_type)
        assert math.isclose(value, want, rel_tol=1e-9, abs_tol=TOL), (score_type, value, want)
