"""Uncertain labels: bad input is refused by name; compare_uncertain's intervals."""

from __future__ import annotations

import polars as pl
import pytest

from polars_rank.agreement import (
    compare_uncertain,
    evaluate_uncertain,
    label_distribution,
    label_draws,
)
from polars_rank.errors import InvalidDataError

RUN = pl.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"], "score": [2.0, 1.0]})


def _probability(values: list[float | None]) -> pl.DataFrame:
    return pl.DataFrame({"qid": "q", "docid": ["a", "b"], "probability": values},
                        schema={"qid": pl.String, "docid": pl.String,
                                "probability": pl.Float64})


@pytest.mark.parametrize("value", [1.5, -0.1, float("nan"), None])
def test_a_probability_outside_0_1_is_refused(value: float | None) -> None:
    with pytest.raises(InvalidDataError, match=r"column 'probability'.*\[0, 1\].*docid='b'"):
        evaluate_uncertain(RUN, _probability([0.5, value]), "mrr", form="probability")


def test_a_distribution_must_sum_to_1_within_the_tolerance() -> None:
    labels = pl.DataFrame({"qid": "q", "docid": ["a", "a", "b"], "grade": [0, 1, 1],
                           "probability": [0.5, 0.4, 1.0]})
    with pytest.raises(InvalidDataError, match=r"'probability'.*sum to 1.*docid='a'"):
        evaluate_uncertain(RUN, labels, "mrr")
    close = labels.with_columns(pl.when(pl.col("grade") == 1).then(0.5 + 5e-7)
                                .otherwise(pl.col("probability")).alias("probability"))
    close = close.with_columns(pl.when(pl.col("docid") == "b").then(1.0)
                               .otherwise(pl.col("probability")).alias("probability"))
    out = label_distribution(close)  # within 1e-6: accepted, then normalised
    assert out.group_by("docid").agg(pl.col("probability").sum())["probability"].to_list() \
        == pytest.approx([1.0, 1.0], abs=1e-15)
    with pytest.raises(InvalidDataError, match="sum to 1"):
        label_distribution(close, tolerance=1e-9)


@pytest.mark.parametrize("grade", [-1.0, float("inf"), None])
def test_a_negative_or_missing_grade_is_refused(grade: float | None) -> None:
    labels = pl.DataFrame({"qid": "q", "docid": ["a", "b"], "grade": [1.0, grade],
                           "probability": [1.0, 1.0]})
    with pytest.raises(InvalidDataError, match=r"column 'grade'.*>= 0.*docid='b'"):
        evaluate_uncertain(RUN, labels, "mrr")
    judges = pl.DataFrame({"qid": "q", "docid": ["a", "b"], "judge": ["x", "y"],
                           "rel": [1.0, grade]})
    with pytest.raises(InvalidDataError, match=r"column 'rel'"):
        evaluate_uncertain(RUN, judges, "mrr", form="judges", grade="rel")


def test_a_missing_column_is_named() -> None:
    judges = pl.DataFrame({"qid": "q", "docid": ["a", "b"], "grade": [1, 0]})
    with pytest.raises(InvalidDataError, match="no column 'judge'"):
        evaluate_uncertain(RUN, judges, "mrr", form="judges")
    with pytest.raises(InvalidDataError, match="no column 'probability'"):
        evaluate_uncertain(RUN, judges, "mrr", form="distribution")
    with pytest.raises(InvalidDataError, match="run has no column 'score'"):
        evaluate_uncertain(RUN.drop("score"), _probability([0.5, 0.5]), "mrr",
                           form="probability")


def test_duplicates_are_refused() -> None:
    labels = pl.DataFrame({"qid": "q", "docid": ["a", "a"], "judge": ["x", "x"],
                           "grade": [1, 0]})
    with pytest.raises(InvalidDataError, match=r"duplicate \(query, doc, judge\)"):
        label_distribution(labels, form="judges")
    with pytest.raises(InvalidDataError, match=r"duplicate \(query, doc\)"):
        label_distribution(labels.rename({"grade": "probability"}), form="probability")


def test_parameters_are_checked() -> None:
    labels = _probability([0.5, 0.5])
    for kwargs, pattern in (({"samples": 1}, "samples=1"), ({"seed": -1}, "seed=-1"),
                            ({"method": "exact"}, "method='exact'"),
                            ({"form": "votes"}, "form='votes'"), ({"block": 0}, "block=0")):
        with pytest.raises(ValueError, match=pattern):
            evaluate_uncertain(RUN, labels, "mrr", **{"form": "probability", **kwargs})
    with pytest.raises(ValueError, match="metric"):
        evaluate_uncertain(RUN, labels, [], form="probability")


def _experiment() -> tuple[pl.DataFrame, pl.DataFrame]:
    queries = [f"q{i}" for i in range(30)]
    rows = []
    for _i, q in enumerate(queries):
        for d in range(5):
            rows.append(("A", q, f"d{d}", float(5 - d)))  # A ranks d0 first
            rows.append(("B", q, f"d{d}", float(d)))  # B ranks d4 first
    run = pl.DataFrame(rows, schema=["arm", "qid", "docid", "score"], orient="row")
    labels = pl.DataFrame({"qid": [q for q in queries for _ in range(5)],
                           "docid": [f"d{d}" for _ in queries for d in range(5)],
                           "probability": [0.3 + 0.1 * (d == 0) + 0.01 * (i % 7)
                                           for i, _ in enumerate(queries) for d in range(5)]})
    return run, labels


def test_compare_uncertain_widens_the_fixed_interval_and_is_deterministic() -> None:
    run, labels = _experiment()
    draws = label_draws(run, labels, ["mrr", "p@1"], form="probability", arm="arm",
                        samples=40, seed=5)
    out = compare_uncertain(draws, baseline="B", n_resamples=2000, seed=1)
    assert out["metric"].to_list() == ["mrr", "p@1"]
    for row in out.iter_rows(named=True):
        assert row["n"] == 30
        assert row["draws"] == 40
        assert row["delta"] == pytest.approx(row["mean"] - row["baseline_mean"])
        assert row["delta_ci_low"] < row["delta"] < row["delta_ci_high"]
        assert row["fixed_ci_low"] < row["delta"] < row["fixed_ci_high"]
        # the labels' uncertainty widens the interval
        width = row["delta_ci_high"] - row["delta_ci_low"]
        assert width > 1.5 * (row["fixed_ci_high"] - row["fixed_ci_low"])
    # the expected difference, exactly: A's top document is relevant with 0.1 more
    exact = evaluate_uncertain(run.filter(pl.col("arm") == "A"), labels, ["p@1"],
                               form="probability").mean["value"][0] - evaluate_uncertain(
        run.filter(pl.col("arm") == "B"), labels, ["p@1"], form="probability").mean["value"][0]
    assert exact == pytest.approx(0.1)
    p1 = out.filter(pl.col("metric") == "p@1").row(0, named=True)
    assert p1["delta_ci_low"] < exact < p1["delta_ci_high"]
    shuffled = draws.sample(fraction=1.0, shuffle=True, seed=3)
    assert compare_uncertain(shuffled, baseline="B", n_resamples=2000, seed=1).equals(out)


def test_compare_uncertain_refuses_unpaired_draws() -> None:
    run, labels = _experiment()
    draws = label_draws(run, labels, ["mrr"], form="probability", arm="arm", samples=5)
    with pytest.raises(InvalidDataError, match="arm 'A'"):
        compare_uncertain(draws.filter(~((pl.col("arm") == "A") & (pl.col("draw") == 0))),
                          baseline="B")
    with pytest.raises(ValueError, match="baseline='C'"):
        compare_uncertain(draws, baseline="C")
    with pytest.raises(InvalidDataError, match="no column 'arm'"):
        compare_uncertain(draws.drop("arm"), baseline="B")


def test_a_bad_run_or_a_grade_above_max_grade_is_refused() -> None:
    labels = _probability([0.5, 0.5])
    nan = RUN.with_columns(pl.Series("score", [1.0, float("nan")]))
    with pytest.raises(InvalidDataError, match=r"NaN in column 'score'.*docid='b'"):
        evaluate_uncertain(nan, labels, "mrr", form="probability")
    twice = pl.concat([RUN, RUN.head(1)])
    with pytest.raises(InvalidDataError, match=r"duplicate.*docid='a'"):
        evaluate_uncertain(twice, labels, "mrr", form="probability")
    graded = pl.DataFrame({"qid": "q", "docid": ["a", "b"], "grade": [5, 1],
                           "probability": [1.0, 1.0]})
    with pytest.raises(InvalidDataError, match=r"err@2: a grade above max_grade=4.*'a'"):
        evaluate_uncertain(RUN, graded, "err@2")
    assert evaluate_uncertain(RUN, graded, "err@2(max_grade=5)").mean["value"][0] > 0


_IDS = pl.DataFrame({"qid": [1, 1, 1, 2, 2], "docid": list("abcxy"),
                     "score": [3.0, 2, 1, 2, 1]})
_LABELS = pl.DataFrame({"qid": [1, 1, 1, 1, 2, 2], "docid": ["a", "a", "c", "b", "y", "y"],
                        "grade": [0, 2, 1, 3, 1, 0],
                        "probability": [0.5, 0.5, 1, 1, 0.3, 0.7]})
_METRICS = ["ndcg@3", "map", "p@2", "recall@2", "bpref"]  # exact, positions, evaluate()


def _named(column: str, name: str) -> dict[str, object]:
    """The inputs and arguments with the run's ``column`` (and the labels') named ``name``."""
    param = {"qid": "query", "docid": "doc", "score": "score"}[column]
    run = _IDS.with_columns(arm=pl.lit("A")).rename({column: name})
    labels = _LABELS.rename({column: name}) if column in _LABELS.columns else _LABELS
    return {"run": run, "labels": labels, param: name}


@pytest.mark.parametrize(("column", "name"), [
    *(("qid", n) for n in ("_qi", "_draw", "_li", "_list", "_grade", "rank", "draw",
                           "_query", "_doc", "docid2", "_lower", "_n", "queries")),
    *(("docid", n) for n in ("_grade", "rank", "_qi", "_li", "_draw", "draw", "_g0",
                             "metric", "_doc", "_min")),
    *(("score", n) for n in ("_grade", "rank", "_draw", "draw", "grade", "metric"))])
def test_any_id_column_name_gives_the_same_result(column: str, name: str) -> None:
    """Columns named like the computation's own (``_qi``: one query of two was dropped;
    ``_draw``, ``_li``, ``rank``, ``_grade``...: a DuplicateError or ColumnNotFoundError)."""
    kw = _named(column, name)
    want = evaluate_uncertain(_IDS, _LABELS, _METRICS, samples=200, seed=3, bounds=True)
    got = evaluate_uncertain(**kw, metrics=_METRICS, samples=200, seed=3, bounds=True)
    assert got.mean.equals(want.mean)
    assert got.per_query.rename({name: "qid"} if column == "qid" else {}).equals(
        want.per_query)
    assert want.mean["queries"].to_list() == [2] * len(_METRICS)
    if name == "draw" and column == "qid":
        return  # label_draws' own column: refused below
    draws = label_draws(**kw, metrics=_METRICS, samples=20, seed=3, arm="arm")
    base = label_draws(_IDS.with_columns(arm=pl.lit("A")), _LABELS, _METRICS, samples=20,
                       seed=3, arm="arm")
    assert draws.rename({name: "qid"} if column == "qid" else {}).equals(base)


def test_an_id_named_like_an_output_column_is_refused() -> None:
    for name in ("metric", "value", "se", "method", "low", "high"):
        kw = _named("qid", name)
        with pytest.raises(ValueError, match=f"query='{name}'.*per_query has a column"):
            evaluate_uncertain(**kw, metrics="mrr")
    with pytest.raises(ValueError, match=r"query='draw'.*label_draws' result"):
        label_draws(**_named("qid", "draw"), metrics="mrr")
    with pytest.raises(ValueError, match=r"query='mrr'.*label_draws' result"):
        label_draws(**_named("qid", "mrr"), metrics="mrr")
    with pytest.raises(ValueError, match=r"arm='draw'.*label_draws' result"):
        label_draws(RUN.with_columns(draw=pl.lit("A")), _probability([0.5, 1.0]), "mrr",
                    form="probability", arm="draw")
    with pytest.raises(ValueError, match=r"doc='grade'.*distribution has columns"):
        evaluate_uncertain(RUN.rename({"docid": "grade"}), _LABELS, "mrr", doc="grade",
                           grade="rel")
    with pytest.raises(ValueError, match="'qid' is given for two of query, doc"):
        label_draws(RUN, _probability([0.5, 1.0]), "mrr", form="probability", arm="qid")


@pytest.mark.parametrize(("form", "frame", "column"), [
    ("probability", {"qid": ["q"], "docid": ["d"], "probability": ["0.5"]}, "probability"),
    ("distribution", {"qid": ["q", "q"], "docid": ["d", "d"], "grade": ["0", "1"],
                      "probability": [0.5, 0.5]}, "grade"),
    ("distribution", {"qid": ["q", "q"], "docid": ["d", "d"], "grade": [0, 1],
                      "probability": ["0.5", "0.5"]}, "probability"),
    ("judges", {"qid": ["q", "q"], "docid": ["d", "d"], "judge": ["a", "b"],
                "grade": ["0", "1"]}, "grade"),
])
def test_text_grades_and_probabilities_are_refused(form: str, frame: dict[str, list[object]],
                                                   column: str) -> None:
    """Text ("0.5") was parsed as a number: a label is a number, as everywhere else."""
    with pytest.raises(InvalidDataError, match=rf"column '{column}': text relevance"):
        label_distribution(pl.DataFrame(frame), form=form)  # type: ignore[arg-type]
    judges = pl.DataFrame({"qid": ["q", "q"], "docid": ["d", "d"], "judge": ["a", "b"],
                           "grade": [0, 2]})  # a text judge column is fine
    assert label_distribution(judges, form="judges")["probability"].to_list() == [0.5, 0.5]


def test_compare_uncertain_needs_an_arm_besides_the_baseline() -> None:
    """The baseline's draws alone gave an empty frame, which reads as "no difference"."""
    run, labels = _experiment()
    draws = label_draws(run.filter(pl.col("arm") == "B"), labels, ["mrr"], form="probability",
                        arm="arm", samples=5)
    with pytest.raises(ValueError, match="holds the baseline 'B' only"):
        compare_uncertain(draws, baseline="B")


def test_a_null_judge_or_arm_is_refused() -> None:
    """A null judge counted as a judge (its grade in the distribution); a null arm came
    out as an arm called None."""
    judges = pl.DataFrame({"qid": ["q"] * 3, "docid": ["d"] * 3, "judge": ["a", None, "b"],
                           "grade": [0, 2, 2]})
    with pytest.raises(InvalidDataError, match="column 'judge': a null judge"):
        label_distribution(judges, form="judges")
    run = pl.DataFrame({"arm": ["A", None], "qid": ["q", "q"], "docid": ["d", "d"],
                        "score": [1.0, 1.0]})
    labels = pl.DataFrame({"qid": ["q"], "docid": ["d"], "probability": [0.5]})
    with pytest.raises(InvalidDataError, match="a null in column 'arm'"):
        label_draws(run, labels, ["p@1"], form="probability", arm="arm", samples=3)
