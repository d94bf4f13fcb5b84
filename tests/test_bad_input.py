"""Bad parameters raise when the expression is built; bad data gives NaN, never a number."""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import polars as pl
import pytest

import polars_rank as pr
from polars_rank import metrics
from polars_rank._engine.column_types import PLAN_HOOK
from polars_rank.registry import METRICS as REGISTRY

WITH_K = ["dcg", "ndcg", "err", "precision", "recall", "f1", "average_precision",
          "reciprocal_rank", "hit_rate", "ctr"]


@pytest.mark.parametrize("name", WITH_K)
@pytest.mark.parametrize("k", [0, -3])
def test_non_positive_k_raises_value_error(name: str, k: int) -> None:
    with pytest.raises(ValueError, match=rf"k must be a positive int or None.*got {k}"):
        getattr(pr, name)("rel", k, by="score")


@pytest.mark.parametrize("k", [2.5, "10", True])
def test_non_int_k_raises_type_error(k: object) -> None:
    with pytest.raises(TypeError, match="k must be a positive int"):
        pr.ndcg("rel", k, by="score")  # type: ignore[arg-type]


def test_rbp_keyword_k_is_validated() -> None:
    with pytest.raises(ValueError, match="k must be"):
        pr.rbp("rel", 0.8, k=0, by="score")


def test_unknown_gain() -> None:
    allowed = "'exponential', 'linear', 'binary'"
    with pytest.raises(ValueError, match=rf"gain must be one of {allowed}, got 'exp'"):
        pr.ndcg("rel", 10, gain="exp", by="score")  # type: ignore[arg-type]


@pytest.mark.parametrize("max_grade", [0, 0.5, -1, math.inf])
def test_max_grade_below_one(max_grade: float) -> None:
    with pytest.raises(ValueError, match=r"max_grade must be a finite number >= 1"):
        pr.err("rel", max_grade=max_grade, by="score")


@pytest.mark.parametrize("p", [0, 1, 1.5, -0.1, math.nan])
def test_rbp_p_outside_unit_interval(p: float) -> None:
    with pytest.raises(ValueError, match=r"p must be a number strictly between 0 and 1"):
        pr.rbp("rel", p, by="score")


def test_unknown_ties_policy() -> None:
    with pytest.raises(ValueError, match=r"ties must be one of 'first', .*got 'random'"):
        pr.ndcg("rel", ties="random", by="score")  # type: ignore[arg-type]


def test_threshold_must_be_a_number() -> None:
    with pytest.raises(TypeError, match="threshold must be a finite number"):
        pr.precision("rel", 5, threshold="1", by="score")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="threshold must be a finite number"):
        pr.precision("rel", 5, threshold=math.nan, by="score")


def test_descending_length_must_match_by() -> None:
    with pytest.raises(ValueError, match="one bool per `by` key"):
        pr.ndcg("rel", by=["score", "doc"], descending=[True])


def test_by_and_query_types() -> None:
    with pytest.raises(TypeError, match="by must be"):
        pr.ndcg("rel", by=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="query must be"):
        pr.ndcg("rel", by="score", query=[])


# --- bad data: NaN for the affected list, never a plausible number, never null --------

BAD_DATA = {
    "negative relevance": {"rel": [1.0, -1.0, 0.0], "score": [3.0, 2.0, 1.0]},
    "NaN relevance": {"rel": [1.0, math.nan, 0.0], "score": [3.0, 2.0, 1.0]},
    "infinite relevance": {"rel": [1.0, math.inf, 0.0], "score": [3.0, 2.0, 1.0]},
    "NaN score": {"rel": [1.0, 0.0, 1.0], "score": [3.0, math.nan, 1.0]},
}


# the arguments a metric cannot do without (ir_measures requires them too)
REQUIRED: dict[str, dict[str, int | str]] = {
    **{name: {"k": 3, "max_rel": 3} for name in ["sdcg", "bpm", "nerr8", "nerr9"]},
    **{name: {"max_rel": 3} for name in ["inst", "insq", "nerr10", "nerr11"]},
    # one order of the list, which the default (the mean over tie orders) does not choose
    "relstring": {"ties": "first"},
}


def _metric(name: str, **kwargs: Any) -> pl.Expr:
    """``name`` by the score; an intent-aware one with a subtopic and a doc id per row."""
    function = getattr(pr, name)
    kwargs = {**REQUIRED.get(name, {}), **kwargs}
    definition = next((m for m in REGISTRY.values()
                       if m.function.__name__ == function.__name__), None)
    if definition is not None and definition.subtopics:  # one subtopic; each row its own document
        kwargs |= {"subtopic": pl.lit("s"), "doc": pl.int_range(pl.len())}
        if definition.cutoff:
            return function("rel", 3, by="score", **kwargs)  # type: ignore[no-any-return]
    return function("rel", by="score", **kwargs)  # type: ignore[no-any-return]


TEXT = {"relstring"}
"""A string per list: null where the list cannot be scored (no NaN string), and no
mean over queries (``query=`` raises)."""


@pytest.mark.parametrize("problem", sorted(BAD_DATA))
@pytest.mark.parametrize("name", metrics.__all__)
def test_bad_data_gives_nan(problem: str, name: str) -> None:
    df = pl.DataFrame(BAD_DATA[problem])
    value = df.select(_metric(name)).item()
    if name in TEXT:
        assert value is None
        return
    assert value is not None
    assert math.isnan(value)


@pytest.mark.parametrize("name", metrics.__all__)
def test_one_bad_query_makes_the_mean_nan(name: str) -> None:
    df = pl.DataFrame({
        "qid": [1, 1, 2, 2],
        "rel": [1.0, 0.0, -2.0, 1.0],
        "score": [2.0, 1.0, 2.0, 1.0],
    })
    per = dict(df.group_by("qid").agg(_metric(name)).iter_rows())
    if name in TEXT:
        assert per == {1: "10", 2: None}
        with pytest.raises(ValueError, match="no mean over queries"):
            getattr(pr, name)("rel", by="score", query="qid")
        return
    assert per[1] is None or not math.isnan(per[1])  # the clean query is scored
    assert math.isnan(per[2])
    mean = df.select(_metric(name, query="qid")).item()
    assert math.isnan(mean)


def test_label_above_max_grade_gives_nan_for_err_only() -> None:
    df = pl.DataFrame({"rel": [5, 1, 0]})
    assert math.isnan(df.select(pr.err("rel", max_grade=4, by=None)).item())
    assert not math.isnan(df.select(pr.err("rel", max_grade=5, by=None)).item())
    assert not math.isnan(df.select(pr.ndcg("rel", by=None)).item())


def test_validate_lists_every_offending_row() -> None:
    df = pl.DataFrame({
        "qid": ["a", "a", "b", "b", "c"],
        "doc": ["x", "y", "x", "x", "z"],
        "rel": [1.0, -1.0, math.inf, 7.0, None],
        "score": [0.5, 0.4, math.nan, 0.2, None],
    })
    out = pr.validate(df, "rel", by="score", query="qid", doc="doc", max_grade=4)
    got = sorted(zip(out["qid"], out["problem"], strict=True))
    assert got == [
        ("a", "negative relevance"),
        ("b", "NaN score in `by`"),
        ("b", "duplicate (query, doc) row"),
        ("b", "duplicate (query, doc) row"),
        ("b", "non-finite relevance (NaN or inf)"),
        ("b", "relevance above max_grade=4"),
        ("b", "relevance above max_grade=4"),
    ]
    lazy = pr.validate(df.lazy(), "rel", by="score")
    assert isinstance(lazy, pl.LazyFrame)
    clean = pr.validate(df.filter(pl.col("qid") == "c"), "rel", by="score")
    assert clean.is_empty()


# --- issue 36: the input boundary ------------------------------------------------------
# One reader per format (polars_rank._engine.frames), one rule per problem
# (polars_rank._engine.rules):
# the same data gives the same number or the same error through every format.

NAN_ERROR = ("NaN is a value, not a missing one: a missing score or label is null (in "
             "pandas, None or pd.NA in a nullable column")


def test_pandas_nan_score_is_nan_not_unretrieved() -> None:
    """Issue 36, case 3: evaluate(pandas_run, qrels, ["P_1"]) gave 0.0 (its NaN read as
    null: not retrieved) where the same Polars frame raised "NaN score"; validate()
    reported nothing."""
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "b"], "score": [math.nan, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1"], "docid": ["a"], "rel": [1]})
    message = ("NaN score in run column 'score': first at qid='q1', docid='a'. "
               + NAN_ERROR)
    for frame in (run, pl.from_pandas(run, nan_to_null=False)):
        with pytest.raises(pr.InvalidDataError) as raised:
            pr.evaluate(frame, qrels, ["P_1"])
        assert str(raised.value).startswith(message)
    found = pr.validate(run, None, by="score", query="qid", doc="docid")
    assert found.select("docid", "problem").rows() == [("a", "NaN score in `by`")]
    # pandas' missing value is pd.NA in a nullable column: with qrels, still no score
    with pytest.raises(pr.InvalidDataError, match="null score in run column 'score'"):
        pr.evaluate(run.convert_dtypes(), qrels, ["P_1"])
    assert pr.evaluate(run.dropna(), qrels, ["P_1"]).item() == 0.0  # b first, unjudged


def test_pandas_nan_label_is_nan_not_unjudged() -> None:
    """Issue 36, case 3: a pandas NaN label silently became null (unjudged)."""
    pd = pytest.importorskip("pandas")
    run = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "b"], "rel": [math.nan, 1.0]})
    with pytest.raises(pr.InvalidDataError) as raised:
        pr.evaluate(run, qrels, ["P_1", "recall@2"])
    assert str(raised.value).startswith(
        "non-finite relevance (NaN or inf) in qrels column 'rel': first at qid='q1'. "
        + NAN_ERROR)
    assert pr.validate(qrels, "rel")["problem"].to_list() == [
        "non-finite relevance (NaN or inf)"]
    # as a missing value (pd.NA), the label is unjudged: the Polars null's numbers
    unjudged = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "b"], "rel": [None, 1]})
    want = pr.evaluate(run, unjudged, ["P_1", "recall@2"])
    assert want.row(0) == (0.0, 1.0)
    assert pr.evaluate(run, qrels.convert_dtypes(), ["P_1", "recall@2"]).equals(want)


def test_pandas_text_ids_with_nan_are_null_ids() -> None:
    """In a text or object column pandas' NaN is its missing marker: a null id, named."""
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"qid": pd.Series(["q1", "q1"], dtype=object),
                        "docid": pd.Series(["a", math.nan], dtype=object), "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1"], "docid": ["a"], "rel": [1]})
    with pytest.raises(pr.InvalidDataError, match="null document id in run column 'docid'"):
        pr.evaluate(run, qrels, ["P_1"])


def test_a_null_score_in_a_run_given_with_qrels_is_an_error() -> None:
    """Issue 36, case 4: it was silently "not retrieved". A run's rows are the documents
    it retrieved; the judged documents it did not retrieve come from the qrels."""
    run = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["a", "b", "c"],
                        "score": [2.0, None, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["a", "b", "c"],
                          "rel": [0, 1, 1]})
    message = ("null score in run column 'score': first at qid='q1', docid='b'. A run given "
               "with qrels is the documents it retrieved, each ranked by its score; the "
               "judged documents it did not retrieve come from the qrels. Drop the row, or "
               "evaluate one frame holding the labels too (qrels=None), where a null score "
               "means judged but not retrieved")
    for call in (lambda: pr.evaluate(run, qrels, ["P_1", "recall@10"]),
                 lambda: pr.evaluate(run.lazy(), qrels, ["P_1"], memory="low"),
                 lambda: pr.evaluate(run, qrels, ["P_1"], unjudged="high"),
                 lambda: pr.ranked(run, qrels)):
        with pytest.raises(pr.InvalidDataError) as raised:
            call()
        assert str(raised.value) == message
    # validate(): the same rule, for a run without labels (rel=None)
    found = pr.validate(run, None, by="score", query="qid", doc="docid")
    assert found.select("docid", "problem").rows() == [("b", "null score in `by`")]
    # with its labels in one frame, a null score keeps its meaning (the data model):
    # judged but not retrieved, the numbers of the run without the row and the qrels
    joined = run.join(qrels, on=["qid", "docid"], how="full", coalesce=True)
    assert pr.validate(joined, "rel", by="score", query="qid", doc="docid").is_empty()
    want = pr.evaluate(run.drop_nulls("score"), qrels, ["P_1", "recall@10"], per_query=True)
    got = pr.evaluate(joined, None, ["P_1", "recall@10"], per_query=True)
    assert got.sort("qid").equals(want.sort("qid"))
    assert got.sort("qid")["recall@10"].to_list() == [0.0, 1.0]  # b counts for R


@pytest.mark.parametrize("column", ["rel", "score"])
@pytest.mark.parametrize("name", metrics.__all__)
def test_text_in_an_expression_is_a_polars_rank_error_naming_it(column: str,
                                                                name: str) -> None:
    """Issue 36, case 5: a text score or label gave a raw Polars InvalidOperationError
    naming internal expressions ("col("score").first().to_physical()"). Polars >= 2.0
    calls back when a plan is resolved (pl.pipe_with_dtype): every metric names the
    rule and the column, in every context; Polars 1.x gives its own error."""
    df = pl.DataFrame({"qid": [1, 1, 2], "rel": [1, 0, 2], "score": [0.3, 0.2, 0.1]})
    df = df.with_columns(pl.col(column).cast(pl.String))
    if not PLAN_HOOK:
        pytest.skip("Polars < 2.0 has no plan-time callback")
    rule = ("text relevance (cast it to a number): the relevance is column 'rel', of type "
            "String" if column == "rel" else "text score (it would rank alphabetically; "
            "cast it to a number): the ranking key `by` is column 'score', of type String")
    per_query = _metric(name, query="qid") if name not in TEXT else None
    plans = [df.lazy().select(_metric(name)),
             df.lazy().group_by("qid").agg(_metric(name)),
             df.lazy().select(_metric(name).over("qid"))]
    if per_query is not None:
        plans.append(df.lazy().select(per_query))
    for plan in plans:
        with pytest.raises(pr.InvalidDataError) as raised:
            plan.collect()
        assert str(raised.value).startswith(rule), name


def test_text_in_an_expression_on_every_engine_and_kind_of_text() -> None:
    if not PLAN_HOOK:  # Polars 1.x: its own error, where the plan has arithmetic on text
        df = pl.DataFrame({"rel": ["1", "0"], "score": [2.0, 1.0]})
        with pytest.raises(pl.exceptions.InvalidOperationError, match="str"):
            df.select(pr.ndcg("rel", by="score"))
        return
    df = pl.DataFrame({"qid": [1, 1], "rel": [1, 0], "score": ["10.0", "9.0"]})
    for dtype in (pl.String, pl.Categorical, pl.Binary):
        frame = df.with_columns(pl.col("score").cast(dtype))
        named = f"`by` is column 'score', of type {dtype}"
        for engine in ("in-memory", "streaming"):
            with pytest.raises(pr.InvalidDataError, match=named):
                frame.lazy().group_by("qid").agg(pr.ndcg("rel", 10, by="score")).collect(
                    engine=engine)
    # an expression rather than a column is named by its text
    with pytest.raises(pr.InvalidDataError, match=r"`by` is expression .*str\.to_lowercase"):
        df.select(pr.mrr("rel", by=pl.col("score").str.to_lowercase()))
    # numbers, booleans, dates and times rank; an Enum ranks in its declared order
    dates = pl.DataFrame({"rel": [1, 0], "when": [date(2024, 1, 2), date(2024, 1, 1)]})
    assert dates.select(pr.mrr("rel", by="when")).item() == 1.0
    # the check is in the expressions that read labels without Ranked too
    text = pl.DataFrame({"rel": ["1", "0"], "score": [2.0, 1.0]})
    for expr in (pr.sampled_metric("recall", "rel", 1, by="score", n_items=10, n_sampled=1),
                 pr.ndcg("rel", by="score", unjudged="high")):
        with pytest.raises(pr.InvalidDataError, match="text relevance"):
            text.select(expr)


def test_the_type_check_leaves_no_trace_in_the_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check runs when the plan is resolved, once per plan: the resolved plan is the
    one without it, so it costs nothing per row (docs/performance.md)."""
    import polars_rank._engine.column_types as column_types

    df = pl.LazyFrame({"qid": [1, 1], "docid": ["a", "b"], "rel": [1, 0], "score": [2.0, 1.0]})

    def plans() -> list[str]:
        forms = [[pl.col("rel").rank.ndcg(k=10, by="score")],
                 [pr.map("rel", by="score", doc="docid"), pr.mrr("rel", by="score", query="qid")]]
        return [df.group_by("qid").agg(f).explain(optimized=o) for f in forms
                for o in (True, False)]

    checked = plans()
    monkeypatch.setattr(column_types, "PLAN_HOOK", False)
    assert plans() == checked


def test_a_text_tie_breaker_key_is_no_text_score() -> None:
    """Only the first key is a score; the others break its ties, text ones too (the
    cookbook's by=["score", "docid"])."""
    df = pl.DataFrame({"rel": [0, 1], "score": [1.0, 1.0], "docid": ["a", "b"]})
    assert df.select(pr.mrr("rel", by=["score", "docid"])).item() == 1.0  # b before a
    assert pr.validate(df, by=["score", "docid"]).is_empty()
