"""No plausible wrong number from any entry point (issue 23), and the frames users have.

Each rule of ``polars_rank._engine.rules`` makes ``evaluate()`` raise naming the rule, the
column and the query, ``validate()`` list the row, and a metric expression NaN.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest

import polars_rank as pr
from polars_rank._engine.column_types import PLAN_HOOK

# a text label or score: polars-rank's error naming the column on Polars >= 2.0, whose
# pl.pipe_with_dtype calls back when a plan is resolved; Polars' own error before
PLAN_ERROR = pr.InvalidDataError if PLAN_HOOK else pl.exceptions.InvalidOperationError
TEXT_SCORE = (r"text score \(it would rank alphabetically; cast it to a number\): the "
              r"ranking key `by` is column 'score', of type String" if PLAN_HOOK else "str")
TEXT_LABEL = (r"text relevance \(cast it to a number\): the relevance is column 'rel', "
              r"of type String" if PLAN_HOOK else "str")

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
def test_a_text_score_or_label_is_never_parsed() -> None:
    """Issue 23, case 3: score ["10.0", "9.0", "2.0"] ranked alphabetically gave MRR
    0.333 instead of 1.0; now the expression fails when its plan is resolved (issue 36:
    naming the rule and the column on Polars >= 2.0), evaluate() names the column and
    validate() lists the rows."""
    df = pl.DataFrame({"score": ["10.0", "9.0", "2.0"], "rel": [1, 0, 0]})
    assert set(pr.validate(df, by="score")["problem"].str.slice(0, 10)) == {"text score"}
    with pytest.raises(PLAN_ERROR, match=TEXT_SCORE):
        df.select(pr.mrr("rel", by="score"))
    with pytest.raises(pr.InvalidDataError, match="must be numeric"):
        pr.evaluate(df.with_columns(qid=pl.lit(1), docid=pl.Series(["a", "b", "c"])),
                    metrics=["mrr"])
    numbers = df.with_columns(pl.col("score").cast(pl.Float64))
    assert numbers.select(pr.mrr("rel", by="score")).item() == 1.0
    labels = numbers.with_columns(pl.col("rel").cast(pl.String))  # "a text rel is cast"
    with pytest.raises(PLAN_ERROR, match=TEXT_LABEL):
        labels.select(pr.mrr("rel", by="score"))
    assert set(pr.validate(labels, by="score")["problem"]) == {
        "text relevance (cast it to a number)"}


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


def test_two_metric_functions_fit_in_one_agg_without_alias() -> None:
    """Issue 23, case 6: every expression was named 'rel' (DuplicateError)."""
    df = pl.DataFrame({"q": [1, 1, 2], "rel": [1, 0, 1], "score": [2.0, 1.0, 1.0]})
    out = df.group_by("q", maintain_order=True).agg(
        pr.map("rel", by="score"), pr.ndcg("rel", k=10, by="score"),
        pr.ndcg("rel", k=10, by="score", gain="linear"), pl.col("rel").rank.precision(
            k=1, by="score"), pr.mrr("rel", by="score").alias("mine"))
    assert out.columns == ["q", "map", "ndcg@10(gain=exponential)", "ndcg@10", "p@1", "mine"]


def test_a_function_name_parses_back_to_the_same_number() -> None:
    df = pl.DataFrame({"qid": [1, 1, 1, 2, 2], "docid": ["a", "b", "c", "a", "b"],
                       "rel": [2, 0, 1, 0, 3], "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    for expr in (pr.ndcg("rel", k=2, by="score"), pr.rbp("rel", 0.9, by="score"),
                 pr.iprec_at_recall("rel", 0.5, by="score"), pr.err("rel", 3, by="score")):
        name = expr.meta.output_name()
        again = pr.parse_metric(name).expr("rel", by="score")
        assert df.group_by("qid").agg(expr).sort("qid").equals(
            df.group_by("qid").agg(again).sort("qid")), name


# ----------------------------------------------------------------------------- by= and doc=
def test_a_forgotten_by_is_an_error_and_row_order_is_said() -> None:
    """Issue 23, case 5: no by= ranked by row order, silently."""
    df = pl.DataFrame({"rel": [0, 1], "score": [1.0, 2.0]})
    with pytest.raises(TypeError, match="needs by="):
        df.select(pr.ndcg("rel", k=10))
    with pytest.raises(TypeError, match="needs by="):
        df.select(pl.col("rel").rank.mrr())
    assert df.select(pr.mrr("rel", by=None)).item() == 0.5  # the rows' order, explicitly
    assert df.select(pr.mrr("rel", by="score")).item() == 1.0
    assert df.with_columns(pos=pl.Series([2, 1])).select(pr.mrr("rel", rank="pos")).item() == 1.0


def test_doc_breaks_ties_as_evaluate_does() -> None:
    """Issue 23, case 5: expressions ("first") and evaluate() ("trec_eval") disagreed on
    tied scores by default; with doc= the expressions break ties as trec_eval."""
    df = pl.DataFrame({"qid": ["q"] * 4, "docid": ["d1", "d3", "d2", "d4"],
                       "rel": [1, 0, 1, 0], "score": [1.0, 1.0, 1.0, 0.5]})
    # trec_eval: score descending, then doc id descending: d3, d2, d1, d4
    assert df.select(pr.mrr("rel", by="score", doc="docid")).item() == 0.5
    # input order (d1 first), asked for by name: the default is the mean over tie orders
    assert df.select(pr.mrr("rel", by="score", ties="first")).item() == 1.0
    evaluated = pr.evaluate(df, None, ["mrr", "map", "ndcg@3"])
    exprs = df.select(pr.mrr("rel", by="score", doc="docid"),
                      pr.map("rel", by="score", doc="docid"),
                      pr.ndcg("rel", k=3, by="score", doc="docid", gain="linear"))
    assert exprs.rows() == evaluated.rows()
    # trec_eval 10 compares the doubles (a first); 9 the 32-bit floats: a tie, b first
    near = pl.DataFrame({"docid": ["a", "b"], "rel": [0, 1],
                         "score": [1.348, 1.3479999999999999]})
    assert near.select(pr.mrr("rel", by="score", doc="docid")).item() == 0.5
    assert near.select(pr.mrr("rel", by="score", doc="docid", ties="trec_eval9")).item() == 1
    with pytest.raises(ValueError, match=r"needs by= .* and doc="):
        df.select(pr.mrr("rel", by="score", ties="trec_eval"))


def test_doc_finds_duplicates_and_a_query_that_forgot_the_arm() -> None:
    """Issue 23, case 5: duplicate rows counted twice; a query= without the arm merged
    two arms' lists. With doc= both make the list NaN."""
    arm = pl.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"], "rel": [0, 1],
                        "score": [2.0, 1.0]})
    arms = pl.concat([arm.with_columns(arm=pl.lit("A")), arm.with_columns(arm=pl.lit("B"))])
    merged = arms.select(pr.mrr("rel", by="score", query="qid", doc="docid")).item()
    assert math.isnan(merged)
    right = arms.group_by("arm").agg(pr.mrr("rel", by="score", query="qid", doc="docid"))
    assert right["mrr"].to_list() == [0.5, 0.5]
    twice = pl.concat([arm, arm.head(1)])
    assert math.isnan(twice.select(pr.map("rel", by="score", doc="docid")).item())


# ----------------------------------------------------------------------------- slices
SPLIT = pl.DataFrame({"qid": ["q"] * 6, "docid": list("abcdef"), "seg": ["x", "y"] * 3,
                      "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0], "rel": [0, 0, 1, 0, 0, 0]})


def test_a_slice_that_varies_within_a_query_is_named() -> None:
    """Issue 23, case 4: rows alternating between segments gave MRR 0.5 and 0.0 (the
    issue's 0.5 and 0.5 on its data); the query's MRR is 0.333."""
    assert pr.evaluate(SPLIT, None, ["mrr"]).item() == pytest.approx(1 / 3)
    with pytest.warns(UserWarning, match=r"1 query has rows in several groups of "
                                         r"group_by='seg', and no query's groups share"):
        pr.evaluate(SPLIT, None, ["mrr"], group_by="seg")
    found = pr.validate(SPLIT, by="score", query="qid", group_by="seg")
    assert found.height == 6
    assert set(found["problem"]) == {"slice column 'seg' varies within the query"}
    per_query = pl.DataFrame({"arm": ["A", "A", "B", "B"], "qid": ["1", "2", "1", "2"],
                              "seg": ["x", "y", "y", "y"], "mrr": [0.1, 0.2, 0.3, 0.4]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pr.compare(per_query, baseline="A", group_by="seg", test="t")
    assert any("left out queries" in str(w.message) and "(e.g. '1')" in str(w.message)
               for w in caught)


def test_arms_that_share_documents_are_not_a_split() -> None:
    """Arms rank the same query's documents: once one query's arms share a document,
    a query whose arms share none (short lists, different systems) is not a split."""
    arms = pl.concat([SPLIT.with_columns(seg=pl.lit(a)) for a in ("A", "B")])
    out = pr.evaluate(arms, None, ["mrr"], group_by="seg")  # warnings are errors here
    assert out["mrr"].to_list() == pytest.approx([1 / 3, 1 / 3])
    disjoint = SPLIT.with_columns(qid=pl.lit("other"), seg=pl.lit("A")).vstack(
        SPLIT.with_columns(qid=pl.lit("other"), seg=pl.lit("B"), docid=pl.col("docid") + "2"))
    pr.evaluate(pl.concat([arms, disjoint]), None, ["mrr"], group_by="seg")
