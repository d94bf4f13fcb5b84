"""No plausible wrong number from any entry point (issue 23), and the frames users have.

Each rule of ``polars_rank._rules`` makes ``evaluate()`` raise naming the rule, the
column and the query, ``validate()`` list the row, and a metric expression NaN.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_rank as pr

RUN = {"qid": ["q1", "q1", "q1", "q2"], "docid": ["a", "b", "c", "a"],
       "score": [3.0, 2.0, 1.0, 1.0]}
QRELS = {"qid": ["q1", "q1", "q2"], "docid": ["a", "c", "a"], "rel": [1, 1, 0]}


# ----------------------------------------------------------------------------- null ids
@pytest.mark.parametrize("side", ["run", "qrels"])
def test_null_document_id_is_named(side: str) -> None:
    run, qrels = pl.DataFrame(RUN), pl.DataFrame(QRELS)
    if side == "run":
        run = run.with_columns(docid=pl.Series(["a", None, "c", "a"]))
    else:
        qrels = qrels.with_columns(docid=pl.Series(["a", None, "a"]))
    with pytest.raises(pr.InvalidDataError,
                       match=rf"null document id in {side} column 'docid': first at qid='q1'"):
        pr.evaluate(run, qrels, ["map", "recall@10"])


def test_two_null_document_ids_are_not_called_duplicates() -> None:
    run = pl.DataFrame(RUN).with_columns(docid=pl.Series(["a", None, None, "a"]))
    with pytest.raises(pr.InvalidDataError, match="null document id"):
        pr.evaluate(run, pl.DataFrame(QRELS), ["map"])


def test_validate_and_expressions_agree_with_evaluate_on_a_null_query() -> None:
    df = pl.DataFrame({"qid": ["a", None, "a"], "rel": [1, 0, 1], "score": [1.0, 2.0, 0.5]})
    found = pr.validate(df, by="score", query="qid")
    assert found["problem"].to_list() == ["null query id"]
    assert math.isnan(df.select(pr.map("rel", by="score", query="qid")).item())
    with pytest.raises(pr.InvalidDataError, match="null query id in run column 'qid'"):
        pr.evaluate(df.with_columns(docid=pl.Series(["x", "y", "z"])), metrics=["map"])


def test_validate_names_a_null_document_id() -> None:
    df = pl.DataFrame({"qid": ["a", "a"], "doc": ["x", None], "rel": [1, 0]})
    assert pr.validate(df, query="qid", doc="doc")["problem"].to_list() == ["null document id"]


# ----------------------------------------------------------------------------- text scores
def test_validate_names_a_text_score() -> None:
    """evaluate() refuses a text score; validate() names it (expressions do not check:
    the check would cost a one-line group_by 10-70%)."""
    df = pl.DataFrame({"score": ["10.0", "9.0", "2.0"], "rel": [1, 0, 0]})
    assert set(pr.validate(df, by="score")["problem"].str.slice(0, 10)) == {"text score"}
    with pytest.raises(pr.InvalidDataError, match="must be numeric"):
        pr.evaluate(df.with_columns(qid=pl.lit(1), docid=pl.Series(["a", "b", "c"])),
                    metrics=["mrr"])
    numbers = df.with_columns(pl.col("score").cast(pl.Float64))
    assert numbers.select(pr.mrr("rel", by="score")).item() == 1.0


def test_numeric_and_boolean_scores_are_not_text() -> None:
    for score in ([3, 2, 1], [3.0, 2.0, 1.0], [True, False, False], [None, 2.0, 1.0]):
        df = pl.DataFrame({"score": score, "rel": [1, 0, 0]})
        assert pr.validate(df, by="score").is_empty(), score


# ----------------------------------------------------------------------------- names
def test_metric_strings_build_expressions_named_after_them() -> None:
    df = pl.DataFrame({"q": [1, 1], "rel": [1, 0], "score": [2.0, 1.0]})
    exprs = [pr.parse_metric(s).expr("rel", by="score") for s in ("ndcg@10", "map", "P_5")]
    out = df.group_by("q").agg(exprs)
    assert out.columns == ["q", "ndcg@10", "map", "p@5"]


# ----------------------------------------------------------------------------- frames
def test_dicts_go_in_and_eager_frames_come_out() -> None:
    out = pr.evaluate(RUN, QRELS, ["map", "P_1"])
    want = pr.evaluate(pl.DataFrame(RUN), pl.DataFrame(QRELS), ["map", "P_1"])
    assert isinstance(out, pl.DataFrame)
    assert out.equals(want)
    assert pr.ranked(RUN, QRELS).equals(pr.ranked(pl.DataFrame(RUN), pl.DataFrame(QRELS)))


def test_arrow_tables_go_in() -> None:
    pa = pytest.importorskip("pyarrow")
    out = pr.evaluate(pa.table(RUN), pa.table(QRELS), ["map"])
    assert out.item() == pr.evaluate(RUN, QRELS, ["map"]).item()


def test_pandas_frames_go_in() -> None:
    pd = pytest.importorskip("pandas")
    out = pr.evaluate(pd.DataFrame(RUN), pd.DataFrame(QRELS), ["map"])
    assert out.item() == pr.evaluate(RUN, QRELS, ["map"]).item()
    per = pr.evaluate(RUN, QRELS, ["map"], per_query=True).with_columns(arm=pl.lit("A"))
    both = pl.concat([per, per.with_columns(arm=pl.lit("B"), map=pl.col("map") / 2)])
    assert pr.compare(both.to_pandas(), baseline="A").height == 1
    assert pr.validate(pd.DataFrame(QRELS)).is_empty()


def test_other_objects_are_refused_by_name() -> None:
    with pytest.raises(TypeError, match="run must be a Polars DataFrame or LazyFrame, a "
                                        "pandas DataFrame, a pyarrow Table"):
        pr.evaluate([1, 2, 3], QRELS)  # type: ignore[arg-type]
