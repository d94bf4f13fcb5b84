"""evaluate(): trec_eval's numbers from frames and files, slices, bad input."""

from __future__ import annotations

import importlib
import math
import warnings
from typing import TYPE_CHECKING

import polars as pl
import pytest
import pytrec_eval
from budget import examples
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from test_trec_parity import SINGLE_DIVISION, trec_case

import polars_rank as pr

if TYPE_CHECKING:
    from pathlib import Path

# our metric string -> pytrec_eval measure key
TREC_METRICS = {
    "ndcg_cut_10": "ndcg_cut_10",
    "ndcg_cut.5": "ndcg_cut_5",
    "ndcg(gain=linear)": "ndcg",
    "map": "map",
    "map_cut_10": "map_cut_10",
    "recip_rank": "recip_rank",
    "P_5": "P_5",
    "P.10": "P_10",
    "recall_10": "recall_10",
    "Rprec": "Rprec",
    "bpref": "bpref",
    "success_1": "success_1",
}
MEASURES = {
    "ndcg_cut.5,10",
    "ndcg",
    "map",
    "map_cut.10",
    "recip_rank",
    "P.5,10",
    "recall.10",
    "Rprec",
    "bpref",
    "success.1",
}
SETTINGS = settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def pipeline_module():
    """The module holding evaluate()'s steps (its bucket size is patched in tests)."""
    import importlib

    return importlib.import_module("polars_rank._evaluation.pipeline")


def frames(run: dict, qrels: dict) -> tuple[pl.DataFrame, pl.DataFrame]:
    run_df = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema={"qid": pl.String, "docid": pl.String, "score": pl.Float64},
        orient="row",
    )
    qrels_df = pl.DataFrame(
        [(q, d, r) for q, docs in qrels.items() for d, r in docs.items()],
        schema={"qid": pl.String, "docid": pl.String, "rel": pl.Int64},
        orient="row",
    )
    return run_df, qrels_df


def assert_matches(per: pl.DataFrame, expected: dict, zero_queries: set[str] = frozenset()) -> None:
    got = per.rows_by_key("qid", named=True, unique=True)
    assert set(got) == set(expected) | zero_queries
    for qid in zero_queries:
        assert all(got[qid][m] == 0.0 for m in TREC_METRICS)
    for qid, values in expected.items():
        for ours, theirs in TREC_METRICS.items():
            assert math.isclose(got[qid][ours], values[theirs], abs_tol=1e-9), (qid, ours)
            if theirs in SINGLE_DIVISION:  # to the last digit
                assert got[qid][ours] == values[theirs], (qid, ours)


def quiet_evaluate(*args: object, **kwargs: object) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # run queries without judgments
        return pr.evaluate(*args, **kwargs)  # type: ignore[arg-type]


@SETTINGS
@given(trec_case(), st.booleans())
def test_per_query_equals_trec_eval_from_frames(case: tuple[dict, dict], lazy: bool) -> None:
    run, qrels = case
    expected = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    run_df, qrels_df = frames(run, qrels)
    source = run_df.lazy() if lazy else run_df
    out = quiet_evaluate(source, qrels_df, list(TREC_METRICS), per_query=True)
    assert isinstance(out, pl.LazyFrame) == lazy
    per = out.collect() if isinstance(out, pl.LazyFrame) else out
    assert_matches(per, expected)
    means = quiet_evaluate(run_df, qrels_df, list(TREC_METRICS))
    for ours, theirs in TREC_METRICS.items():
        values = [v[theirs] for v in expected.values()]
        want = sum(values) / len(values) if values else None
        got = means[ours].item()
        assert (got is None and want is None) or math.isclose(got, want, abs_tol=1e-9)


@SETTINGS
@given(trec_case())
def test_missing_zero_is_trec_eval_dash_c(case: tuple[dict, dict]) -> None:
    run, qrels = case
    expected = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    run_df, qrels_df = frames(run, qrels)
    per = quiet_evaluate(run_df, qrels_df, list(TREC_METRICS), per_query=True, missing="zero")
    assert_matches(per, expected, zero_queries=set(qrels) - set(run))


def write_trec(
    path: Path, run: dict, qrels: dict, negative: dict[str, set[str]]
) -> tuple[Path, Path]:
    run_path, qrels_path = path / "run.txt", path / "qrels.txt"
    lines = [
        f"{q}\tQ0  {d} {i + 1} {s!r}  tag"
        for q, docs in run.items()
        for i, (d, s) in enumerate(docs.items())
    ]
    run_path.write_text("# a run\n" + "\n".join(lines) + "\n")
    rels = [
        f"{q} 0 {d} {-1 if d in negative.get(q, ()) else r}"
        for q, docs in qrels.items()
        for d, r in docs.items()
    ]
    qrels_path.write_text("\n".join(rels) + "\n")  # trec_eval stops on a blank line
    return run_path, qrels_path


@SETTINGS
@given(trec_case(), st.data())
def test_files_with_negative_labels_equal_trec_eval(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[dict, dict], data: st.DataObject
) -> None:
    run, qrels = case
    # an empty file is refused (TrecFormatError), as trec_eval refuses it
    assume(any(run.values()) and any(qrels.values()))
    negative = {q: {d for d in docs if data.draw(st.booleans())} for q, docs in qrels.items()}
    trec_qrels = {
        q: {d: (-1 if d in negative[q] else r) for d, r in docs.items()}
        for q, docs in qrels.items()
    }
    # pytrec_eval-terrier 0.5.x can crash (segfault or hang) on negative labels; to
    # trec_eval a negative label means "in the pool, unjudged", which for these
    # measures is the same as absent from the qrels, so the oracle gets them dropped.
    oracle_qrels = {q: {d: r for d, r in docs.items() if r >= 0} for q, docs in trec_qrels.items()}
    expected = pytrec_eval.RelevanceEvaluator(oracle_qrels, MEASURES).evaluate(run)
    # a run query whose every label is negative is in the qrels (evaluated, all 0) for
    # trec_eval, but pytrec_eval drops a query with an empty judgment dict
    all_negative = {q for q, docs in oracle_qrels.items() if not docs and q in run}
    run_path, qrels_path = write_trec(tmp_path_factory.mktemp("trec"), run, qrels, negative)
    per = quiet_evaluate(
        pr.scan_run(run_path), pr.scan_qrels(qrels_path), list(TREC_METRICS), per_query=True
    ).collect()
    assert_matches(per, expected, zero_queries=all_negative)


def two_systems() -> tuple[pl.DataFrame, pl.DataFrame]:
    qrels = pl.DataFrame(
        {
            "qid": ["1", "1", "1", "2", "2", "3"],
            "docid": ["a", "b", "c", "a", "d", "e"],
            "rel": [2, 0, 1, 1, 3, 1],
        }
    )
    run = pl.DataFrame(
        {
            "arm": ["A"] * 5 + ["B"] * 5,
            "qid": ["1", "1", "1", "2", "2"] * 2,
            "docid": ["a", "b", "x", "a", "d", "c", "a", "b", "d", "y"],
            "score": [3.0, 2.0, 1.0, 1.0, 0.5, 3.0, 2.0, 2.0, 1.0, 1.0],
        }
    )
    return run, qrels


def test_group_by_arm_equals_evaluating_each_arm_alone() -> None:
    run, qrels = two_systems()
    metrics = ["ndcg@10", "map", "mrr", "recall@2", "bpref"]
    both = pr.evaluate(run, qrels, metrics, group_by="arm")
    assert both["arm"].to_list() == ["A", "B"]
    for arm in ("A", "B"):
        alone = pr.evaluate(run.filter(arm=arm).drop("arm"), qrels, metrics)
        row = both.filter(arm=arm).drop("arm")
        assert row.equals(alone)
    per = pr.evaluate(run, qrels, metrics, group_by="arm", per_query=True)
    assert per.columns == ["arm", "qid", *metrics]
    assert per.height == 4
    assert per.group_by("arm").agg(pl.col(metrics).mean()).sort("arm").equals(both)


def test_group_by_missing_zero_counts_absent_queries_per_arm() -> None:
    run, qrels = two_systems()
    per = pr.evaluate(run, qrels, ["map"], group_by="arm", per_query=True, missing="zero")
    assert per.filter(qid="3")["map"].to_list() == [0.0, 0.0]
    assert per.height == 6


def test_ties_policies() -> None:
    run = pl.DataFrame({"qid": ["q"] * 3, "docid": ["a", "b", "c"], "score": [1.0] * 3})
    qrels = pl.DataFrame({"qid": ["q"], "docid": ["a"], "rel": [1]})
    trec = pr.evaluate(run, qrels, ["mrr"])  # docid descending: c, b, a
    first = pr.evaluate(run, qrels, ["mrr"], ties="first")  # file order: a, b, c
    optimistic = pr.evaluate(run.reverse(), qrels, ["mrr"], ties="optimistic")
    pessimistic = pr.evaluate(run, qrels, ["mrr"], ties="pessimistic")
    assert trec.item() == pytest.approx(1 / 3)
    assert first.item() == 1.0
    assert optimistic.item() == 1.0
    assert pessimistic.item() == pytest.approx(1 / 3)


def test_run_with_labels_and_no_qrels() -> None:
    run, qrels = two_systems()
    one = run.filter(arm="A").drop("arm")
    expected = pr.evaluate(one, qrels, ["ndcg@5", "recall@10"], missing="zero")
    # the same data as one frame: a full join with null scores for unretrieved docs
    full = one.join(qrels, on=["qid", "docid"], how="full", coalesce=True)
    got = pr.evaluate(full, None, ["ndcg@5", "recall@10"], missing="zero")
    assert got.equals(expected)


def test_output_columns_are_named_as_given() -> None:
    run, qrels = two_systems()
    out = pr.evaluate(run, qrels, ["nDCG@10", "AP", "P_10", "err@5(max_grade=3)"], group_by="arm")
    assert out.columns == ["arm", "nDCG@10", "AP", "P_10", "err@5(max_grade=3)"]
    assert all(dtype == pl.Float64 for dtype in out.dtypes[1:])


def test_query_without_judgments_warns_with_count() -> None:
    run, qrels = two_systems()
    extra = pl.DataFrame(
        {"arm": ["A", "A"], "qid": ["9", "8"], "docid": ["a", "a"], "score": [1.0, 1.0]}
    )
    with pytest.warns(UserWarning, match=r"2 run queries have no judgments .*qid='8'.*qid='9'"):
        pr.evaluate(pl.concat([run, extra]), qrels, ["map"], group_by="arm")


# --- bad input: an error naming the problem and the query, before any metric ----------


def bad(run_changes: dict | None = None, qrels_changes: dict | None = None):
    run, qrels = two_systems()
    run = run.filter(arm="A").drop("arm")
    if run_changes:
        run = run.with_columns(**run_changes)
    if qrels_changes:
        qrels = qrels.with_columns(**qrels_changes)
    return run, qrels


@pytest.mark.parametrize(
    ("run_changes", "qrels_changes", "match"),
    [
        (
            None,
            {"rel": pl.when(pl.col("docid") == "d").then(-1).otherwise(pl.col("rel"))},
            r"negative relevance in qrels column 'rel': first at qid='2'",
        ),
        (
            None,
            {"rel": pl.when(pl.col("docid") == "e").then(float("nan")).otherwise(pl.col("rel"))},
            r"non-finite relevance .*qid='3'",
        ),
        (
            {
                "score": pl.when(pl.col("docid") == "d")
                .then(float("nan"))
                .otherwise(pl.col("score"))
            },
            None,
            r"NaN score in run column 'score': first at qid='2'",
        ),
        (
            {"docid": pl.when(pl.col("docid") == "x").then(pl.lit("a")).otherwise(pl.col("docid"))},
            None,
            r"duplicate \(query, doc\) rows in the run: first at qid='1', docid='a'",
        ),
    ],
)
def test_bad_data_raises_naming_the_query(run_changes, qrels_changes, match) -> None:
    run, qrels = bad(run_changes, qrels_changes)
    with pytest.raises(pr.InvalidDataError, match=match):
        pr.evaluate(run, qrels, ["ndcg@10"])
    with pytest.raises(pr.InvalidDataError, match=match):  # lazy: raised at the call
        pr.evaluate(run.lazy(), qrels.lazy(), ["ndcg@10"])


@pytest.mark.parametrize("where", ["run", "qrels"])
def test_null_query_id_raises(where: str) -> None:
    run, qrels = bad()
    null_qid = {"qid": pl.when(pl.col("docid") == "d").then(None).otherwise(pl.col("qid"))}
    if where == "run":
        run = run.with_columns(**null_qid)
    else:
        qrels = qrels.with_columns(**null_qid)
    match = rf"null query id in {where} column 'qid': first at docid='d'"
    for ties in ("trec_eval", "first"):
        with pytest.raises(pr.InvalidDataError, match=match):
            pr.evaluate(run, qrels, ["ndcg@10"], ties=ties)


def test_null_query_rows_without_validation_leave_the_other_queries_alone() -> None:
    # validate=False skips the null-id check; the lists of the other queries (numbered
    # by the codes of a categorical, the null id apart) keep their own values
    run = pl.DataFrame({
        "qid": ["a", None, "b", "a", None, "b", "a"],
        "docid": ["x", "y", "x", "y", "z", "q", "z"],
        "score": [1.0, 5.0, 2.0, 3.0, 1.0, 1.0, 2.0],
    })
    qrels = pl.DataFrame({"qid": ["a", "a", "b", "b"], "docid": ["x", "w", "q", "r"],
                          "rel": [1, 2, 1, 1]})
    metrics = ["map", "P_2", "recall@5", "ndcg_cut_3"]
    clean = pr.evaluate(run.filter(pl.col("qid").is_not_null()), qrels, metrics,
                        per_query=True)
    kept = pr.evaluate(run, qrels, metrics, per_query=True, validate=False)
    assert_frame_equal(kept, clean)
    assert clean["map"].to_list() == [pytest.approx(1 / 6), pytest.approx(1 / 4)]


def test_duplicate_qrels_rows() -> None:
    run, qrels = bad()
    with pytest.raises(pr.InvalidDataError, match=r"duplicate .* in the qrels: first at qid='3'"):
        pr.evaluate(run, pl.concat([qrels, qrels.tail(1)]), ["map"])


def test_label_above_max_grade_for_err() -> None:
    run, qrels = bad()
    with pytest.raises(pr.InvalidDataError, match=r"above max_grade=2 .*qid='2'"):
        pr.evaluate(run, qrels, ["ndcg@10", "err@10(max_grade=2)"])
    pr.evaluate(run, qrels, ["ndcg@10", "err@10(max_grade=3)"])  # fine


def test_missing_columns_and_wrong_dtypes() -> None:
    run, qrels = bad()
    with pytest.raises(pr.InvalidDataError, match=r"run has no column 'score' \(named by score=\)"):
        pr.evaluate(run.drop("score"), qrels)
    with pytest.raises(pr.InvalidDataError, match=r"qrels has no column 'rel'"):
        pr.evaluate(run, qrels.rename({"rel": "label"}))
    with pytest.raises(
        pr.InvalidDataError, match=r"run column 'score' must be numeric, got String"
    ):
        pr.evaluate(run.with_columns(pl.col("score").cast(pl.String)), qrels)
    with pytest.raises(pr.InvalidDataError, match=r"qrels column 'rel' must be numeric"):
        pr.evaluate(run, qrels.with_columns(pl.col("rel").cast(pl.String)))


def test_bad_parameters() -> None:
    run, qrels = bad()
    with pytest.raises(ValueError, match="did you mean ndcg"):
        pr.evaluate(run, qrels, ["ndgc@10"])
    with pytest.raises(ValueError, match="missing must be one of 'skip', 'zero'"):
        pr.evaluate(run, qrels, missing="all")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="ties must be one of"):
        pr.evaluate(run, qrels, ties="random")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="duplicate names"):
        pr.evaluate(run, qrels, ["map", "map"])
    with pytest.raises(ValueError, match="at least one metric"):
        pr.evaluate(run, qrels, [])


def test_integer_ids_join_string_ids() -> None:
    run, qrels = bad()
    as_int = run.with_columns(pl.col("qid").cast(pl.Int64))
    assert pr.evaluate(as_int, qrels, ["map"]).equals(pr.evaluate(run, qrels, ["map"]))


@pytest.mark.parametrize("ties", ["trec_eval", "first", "optimistic"])
def test_query_whose_retrieved_docs_are_all_unjudged_is_evaluated(ties: str) -> None:
    """Fast (sparse) and full paths agree when nothing retrieved is judged."""
    frame = pl.DataFrame({
        "qid": ["a", "a", "a", "b", "b"],
        "docid": ["x", "y", "z", "x", "y"],
        "score": [2.0, 1.0, None, 1.0, 0.5],
        "rel": [None, None, 1, 1, 0],
    })
    metrics = ["ndcg@10", "map", "p@1"]
    per = pr.evaluate(frame, None, metrics, per_query=True, ties=ties)  # type: ignore[arg-type]
    assert per["qid"].to_list() == ["a", "b"]
    assert per.row(0) == ("a", 0.0, 0.0, 0.0)
    full = pr.evaluate(frame, None, [*metrics, "auc"], per_query=True, ties=ties)  # type: ignore[arg-type]
    assert full.drop("auc").equals(per)


def test_scores_equal_in_float32_tie_as_in_trec_eval_9() -> None:
    """trec_eval 9 (pytrec_eval) kept scores as 32-bit floats: these two tie, broken by
    docno desc; trec_eval 10 (the default) compares the doubles: 1.348 is above."""
    run = {"q": {"D21898": 1.348, "D241728": 1.3479999999999999, "D1": 2.0}}
    qrels = {"q": {"D241728": 1, "D21898": 0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"P.2", "recip_rank"}).evaluate(run)
    run_df, qrels_df = frames(run, qrels)
    got = pr.evaluate(run_df, qrels_df, ["P_2", "recip_rank"], per_query=True,
                      ties="trec_eval9")
    assert got.row(0) == ("q", expected["q"]["P_2"], expected["q"]["recip_rank"])
    assert expected["q"]["recip_rank"] == 0.5  # D241728 > D21898 byte-wise
    dense = pr.evaluate(run_df, qrels_df, ["P_2", "recip_rank", "auc"], per_query=True,
                        ties="trec_eval9")
    assert dense.drop("auc").equals(got)
    ten = pr.evaluate(run_df, qrels_df, ["P_2", "recip_rank"], per_query=True)
    assert ten.row(0) == ("q", 0.0, 1 / 3)  # D21898 (1.348) at rank 2


@SETTINGS
@given(trec_case(), st.sampled_from(["skip", "zero"]), st.integers(1, 7))
def test_memory_low_equals_one_pass(
    monkeypatch: pytest.MonkeyPatch, case: tuple[dict, dict], missing: str, bucket_rows: int
) -> None:
    """Hash buckets of queries give the one-pass result (several buckets here)."""

    run, qrels = case
    run_df, qrels_df = frames(run, qrels)
    metrics = [*TREC_METRICS, "auc"]  # auc: the dense path, bucketed too
    one = quiet_evaluate(run_df, qrels_df, metrics, per_query=True, missing=missing)
    monkeypatch.setattr(pipeline_module(), "_BUCKET_ROWS",
                        bucket_rows)
    low = quiet_evaluate(run_df.lazy(), qrels_df.lazy(), metrics, per_query=True,
                         missing=missing, memory="low")
    assert isinstance(low, pl.LazyFrame)
    # the same numbers; summation order may differ in the last bit
    assert_frame_equal(low.collect(), one, check_exact=False, rel_tol=0, abs_tol=1e-12)


def test_memory_low_warns_once_with_the_total_count(monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.setattr(pipeline_module(), "_BUCKET_ROWS", 2)
    run = pl.DataFrame({"qid": [f"q{i}" for i in range(8)], "docid": "d", "score": 1.0})
    qrels = pl.DataFrame({"qid": ["q0"], "docid": ["d"], "rel": [1]})
    with pytest.warns(UserWarning, match=r"^7 run queries have no judgments") as record:
        out = pr.evaluate(run, qrels, ["map"], memory="low")
    assert len(record) == 1
    assert out["map"].item() == 1.0


def test_memory_is_checked() -> None:
    run, qrels = two_systems()
    with pytest.raises(ValueError, match="memory"):
        pr.evaluate(run, qrels, memory="medium")  # type: ignore[arg-type]


def test_memory_low_warning_names_the_same_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    """Integer ids: the examples are the smallest by value (9 before 10), in both modes."""

    run = pl.DataFrame({"qid": [1, 9, 10, 11, 100], "docid": "d", "score": 1.0})
    qrels = pl.DataFrame({"qid": [1], "docid": ["d"], "rel": [1]})
    with pytest.warns(UserWarning, match="^4 run queries have no judgments") as one:
        pr.evaluate(run, qrels, ["map"])
    monkeypatch.setattr(pipeline_module(), "_BUCKET_ROWS", 1)
    with pytest.warns(UserWarning, match="^4 run queries have no judgments") as low:
        pr.evaluate(run, qrels, ["map"], memory="low")
    assert str(one[0].message) == str(low[0].message)
    assert "(e.g. 9, 10, 11)" in str(low[0].message)


# scores trec_eval orders in every way: signs, -0.0 (equal to 0.0), float32 ties that
# are distinct doubles (trec_eval 9 and 10 differ), extremes beyond float32's range,
# and arbitrary float32 values
ANY_SCORES = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, -2.5, 1e-30, -1e-30, 3.4e38, -3.4e38, 1.348,
                     1.3479999999999999, 1.0000000001, -1.0000000001, 1e39, 2e39, 1e-50]),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32),
)


def as_doubles_rank(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The run with each score replaced by its place among the run's doubles (-0.0 as
    0.0): integers, exact as 32-bit floats, so trec_eval 9 orders them as trec_eval 10
    orders the raw scores."""
    places = {s: float(i) for i, s in enumerate(sorted({s + 0.0 for docs in run.values()
                                                        for s in docs.values()}))}
    return {q: {d: places[s + 0.0] for d, s in docs.items()} for q, docs in run.items()}


@SETTINGS
@given(trec_case(), st.data())
def test_any_float_scores_rank_as_in_trec_eval(case: tuple[dict, dict], data: st.DataObject
                                               ) -> None:
    """The sorted-key ranking: negative, -0.0, tied, near-equal and extreme scores, as
    trec_eval 9 (pytrec_eval, ``ties="trec_eval9"``) and as trec_eval 10 (pytrec_eval on
    :func:`as_doubles_rank`, the default)."""
    run, qrels = case
    run = {q: {d: data.draw(ANY_SCORES) for d in docs} for q, docs in run.items()}
    nine = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    ten = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(as_doubles_rank(run))
    run_df, qrels_df = frames(run, qrels)
    assert_matches(quiet_evaluate(run_df, qrels_df, list(TREC_METRICS), per_query=True,
                                  ties="trec_eval9"), nine)
    assert_matches(quiet_evaluate(run_df, qrels_df, list(TREC_METRICS), per_query=True), ten)


@pytest.mark.parametrize("ties", ["trec_eval", "trec_eval9"])
@SETTINGS
@given(case=trec_case(), data=st.data())
def test_window_ranking_equals_the_sorted_key(case: tuple[dict, dict], data: st.DataObject,
                                              ties: str) -> None:
    """Polars 1.x ranks trec_eval's order with a window per list: the same ranks, and
    the same tie spans (AUC), as the sorted key, under both score widths."""
    run, qrels = case
    run = {q: {d: data.draw(ANY_SCORES) for d in docs} for q, docs in run.items()}
    run_df, qrels_df = frames(run, qrels)
    metrics = [*TREC_METRICS, "auc"]
    keyed = quiet_evaluate(run_df, qrels_df, metrics, per_query=True, ties=ties)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(importlib.import_module("polars_rank._evaluation.judged"),
                      "HAS_BIT_CAST", False)
        window = quiet_evaluate(run_df, qrels_df, metrics, per_query=True, ties=ties)
    assert_frame_equal(window.sort("qid"), keyed.sort("qid"), check_exact=False, rel_tol=0,
                       abs_tol=1e-12)


@pytest.mark.parametrize("ties", ["trec_eval", "trec_eval9"])
def test_negative_zero_ties_with_zero_as_in_trec_eval(ties: str) -> None:
    run = {"q": {"a": 0.0, "b": -0.0, "c": 1.0}}
    qrels = {"q": {"a": 1, "b": 0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert expected["q"]["recip_rank"] == pytest.approx(1 / 3)  # a after b: doc id desc
    got = pr.evaluate(*frames(run, qrels), ["recip_rank", "auc"], per_query=True,
                      ties=ties)  # type: ignore[arg-type]
    assert got["recip_rank"].item() == pytest.approx(1 / 3)
    assert got["auc"].item() == 0.25  # a ties b (one half), below c


@SETTINGS
@given(trec_case(), st.sampled_from([0, 10**15, -(10**12)]))
def test_integer_query_ids_equal_string_ones(case: tuple[dict, dict], offset: int) -> None:
    """Integer query ids (both sides) rank like the same queries with string ids."""
    run_df, qrels_df = frames(*case)
    as_int = pl.col("qid").str.slice(1).cast(pl.Int64) * 7 + offset
    metrics = list(TREC_METRICS)
    want = quiet_evaluate(run_df, qrels_df, metrics, per_query=True).sort("qid")
    got = quiet_evaluate(run_df.with_columns(as_int), qrels_df.with_columns(as_int), metrics,
                         per_query=True).sort("qid")
    assert got.schema["qid"] == pl.Int64
    assert_frame_equal(got.drop("qid"), want.drop("qid"))


@SETTINGS
@given(trec_case(), trec_case(), st.sampled_from([["arm"], ["arm", "day"], ["day", "arm"]]))
def test_group_by_lists_rank_as_each_alone(first: tuple[dict, dict], second: tuple[dict, dict],
                                           groups: list[str]) -> None:
    """The sorted key numbers (group..., query) lists: each slice as if evaluated alone."""
    (run_a, _), (run_b, qrels) = first, second
    arms = [("A", 1, frames(run_a, qrels)[0]), ("B", 1, frames(run_b, qrels)[0]),
            ("C", 2, frames(run_b, qrels)[0])]
    qrels_df = frames(run_b, qrels)[1]
    both = pl.concat(r.with_columns(arm=pl.lit(a), day=pl.lit(d)) for a, d, r in arms)
    metrics = list(TREC_METRICS)
    got = quiet_evaluate(both, qrels_df, metrics, group_by=groups, per_query=True)
    for arm, day, run in arms:
        alone = quiet_evaluate(run, qrels_df, metrics, per_query=True).sort("qid")
        mine = got.filter(arm=arm).sort("qid").select(alone.columns)
        if "day" in groups:
            assert mine.height == 0 or got.filter(arm=arm)["day"].unique().to_list() == [day]
        assert_frame_equal(mine, alone)


@SETTINGS
@given(trec_case(), st.sampled_from([None, ["arm"]]))
def test_hash_collisions_do_not_match_run_and_qrels(
    case: tuple[dict, dict], groups: list[str] | None
) -> None:
    """The run meets the qrels on a 64-bit hash of (query, doc), then compares the ids:
    with every hash equal (all rows collide) the values must not change."""
    run_df, qrels_df = frames(*case)
    run_df = run_df.with_columns(arm=pl.lit("A"))
    metrics = list(TREC_METRICS)
    want = quiet_evaluate(run_df, qrels_df, metrics, group_by=groups, per_query=True)
    collide = pytest.MonkeyPatch()
    for name in ("checks", "judged", "sorted_key"):  # every module hashing (query, doc)
        module = importlib.import_module(f"polars_rank._evaluation.{name}")
        collide.setattr(module, "row_hash", lambda *_, **__: pl.lit(7, pl.UInt64))
    try:
        got = quiet_evaluate(run_df, qrels_df, metrics, group_by=groups, per_query=True)
    finally:
        collide.undo()
    assert_frame_equal(got, want)


def _blocked_run(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two arms x 6 queries x 8 docs (tied scores), a block of rows per (arm, query)."""
    import random

    rnd = random.Random(seed)
    rows, judged = [], []
    for q in range(6):
        docs = [f"d{i}" for i in rnd.sample(range(30), 12)]
        judged += [(f"q{q}", d, rnd.choice([0, 1, 2])) for d in docs[:9]]
        for arm in ("A", "B"):
            rows += [(arm, f"q{q}", d, float(rnd.randint(0, 4))) for d in docs[arm == "B":][:8]]
    run = pl.DataFrame(rows, schema=["arm", "qid", "docid", "score"], orient="row")
    qrels = pl.DataFrame(judged, schema=["qid", "docid", "rel"], orient="row")
    return run, qrels


@pytest.mark.parametrize("order", ["blocks", "split blocks", "shuffled"])
def test_row_order_of_the_run_does_not_change_values(order: str) -> None:
    """Rows in one block per list are numbered by block (the fast path); a list in two
    blocks, or shuffled rows, must not be taken for two lists."""
    run, qrels = _blocked_run(7)
    if order == "split blocks":  # q0 of arm A comes back after q1
        first = run.filter(arm="A", qid="q0")
        run = pl.concat([first.head(4), run.filter(arm="A", qid="q1"), first.tail(4),
                         run.filter(~((pl.col("arm") == "A") & pl.col("qid").is_in(["q0", "q1"])))])
    elif order == "shuffled":
        run = run.sample(fraction=1.0, shuffle=True, seed=3)
    metrics = ["ndcg_cut_10", "map", "recip_rank", "P_5", "bpref"]
    per = pr.evaluate(run, qrels, metrics, group_by="arm", per_query=True)
    assert per.height == 12
    measures = {"ndcg_cut.10", "map", "recip_rank", "P.5", "bpref"}
    qrels_d: dict[str, dict[str, int]] = {}
    for q, d, r in qrels.iter_rows():
        qrels_d.setdefault(q, {})[d] = r
    for arm in ("A", "B"):
        arm_run: dict[str, dict[str, float]] = {}
        for _, q, d, s in run.filter(arm=arm).iter_rows():
            arm_run.setdefault(q, {})[d] = s
        expected = pytrec_eval.RelevanceEvaluator(qrels_d, measures).evaluate(arm_run)
        got = per.filter(arm=arm).drop("arm").rows_by_key("qid", named=True, unique=True)
        assert set(got) == set(expected)
        for qid, values in expected.items():
            for ours in metrics:
                assert math.isclose(got[qid][ours], values[ours], abs_tol=1e-12), (qid, ours)
        alone = pr.evaluate(run.filter(arm=arm).drop("arm"), qrels, metrics, per_query=True)
        assert alone.equals(per.filter(arm=arm).drop("arm"))


@pytest.mark.skipif(not importlib.import_module("polars_rank._engine.compat").HAS_BIT_CAST,
                    reason="Polars 1.x ranks with a window, without list numbers")
def test_list_names_outlive_the_numbering_expression() -> None:
    """Polars frees a categorical's names with the last Series or expression of its
    type (the ``Categories`` object does not hold them): the lists must still name
    every number once the expression that numbered the rows is gone."""
    import gc

    from polars_rank._evaluation.lists import list_code
    from polars_rank._evaluation.options import LIST

    run = pl.LazyFrame({"qid": ["q9", "q2", "q9", None, "q5", "q2"]})
    code = list_code(run, ["qid"])
    assert code is not None
    numbered = run.with_columns(code.code.alias(LIST)).collect()
    # the categorical's codes, not row blocks: one number per id, null last (which
    # number an id gets depends on the categories other tests of the process made)
    codes = numbered[LIST].to_list()
    assert codes[3] == 2**32 - 1
    assert codes[0] == codes[2]
    assert codes[1] == codes[5]
    assert len({codes[0], codes[1], codes[4], codes[3]}) == 4
    lists = code.lists
    del code
    gc.collect()
    named = numbered.join(lists(numbered), on=LIST, how="left", suffix="_named")
    assert named["qid_named"].to_list() == named["qid"].to_list()
    assert named["qid_named"].null_count() == 1  # the null list, and only it
