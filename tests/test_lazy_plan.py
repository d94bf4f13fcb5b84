"""``evaluate(LazyFrame)``: the inputs are read once, when ``evaluate`` is called.

The data checks and the ranking need every row before any metric, so an evaluation
reads each LazyFrame input once, at call time (the columns it needs, both inputs in
one ``collect_all``); every later step, and the collect of the result, reads memory.
A counting ``map_batches`` stands in for the source: it runs each time a plan reads
it. ``memory="low"`` reads the inputs once per bucket, by design (not tested here).
"""

from __future__ import annotations

import warnings
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank._language.trec_measures import SETS, expand

RUN = pl.DataFrame({
    "arm": ["a", "a", "a", "a", "a", "b", "b", "b"],
    "qid": ["q1", "q1", "q1", "q2", "q3", "q1", "q1", "q2"],
    "docid": ["d1", "d2", "d3", "d1", "d9", "d1", "d4", "d2"],
    "score": [3.0, 2.0, 2.0, 1.0, 1.0, 5.0, 4.0, 1.0],
})
QRELS = pl.DataFrame({
    "qid": ["q1", "q1", "q1", "q2", "q2", "q4"],
    "docid": ["d1", "d3", "d5", "d2", "d1", "d1"],
    "rel": [2, 1, 1, 1, 0, 1],
})

CASES: dict[str, dict[str, Any]] = {
    "default": {},
    "per query": {"per_query": True},
    "ties first": {"ties": "first"},
    "ties expected": {"ties": "expected"},
    "ties optimistic": {"ties": "optimistic", "metrics": ["ndcg@10(gains={1:3,2:9})", "auc"]},
    "missing zero": {"missing": "zero"},
    "bounds": {"bounds": True},
    "unjudged high": {"unjudged": "high"},
    "condensed": {"unjudged": "condensed"},
    "two passes (ir_measures)": {"dialect": "ir_measures", "metrics": ["nDCG@10", "RR", "AP"]},
    "not validated": {"validate": False},
    "every trec_eval measure": {"metrics": [
        m for spec in SETS["all_trec"] if (e := expand(spec)) is not None
        for _, m in e.lines if m not in ("runid", "relstring")]},
}


class Source:
    """A frame as a LazyFrame that counts the plans reading it."""

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame, self.reads = frame, 0

    def _read(self, frame: pl.DataFrame) -> pl.DataFrame:
        self.reads += 1
        return frame

    def lazy(self) -> pl.LazyFrame:
        return self.frame.lazy().map_batches(self._read, schema=self.frame.schema)


@pytest.mark.parametrize("case", CASES)
def test_each_input_is_read_once_when_evaluate_is_called(case: str) -> None:
    kwargs = {"metrics": ["ndcg@10", "map", "P_5", "recall@10"], "group_by": "arm",
              **CASES[case]}
    run, qrels = Source(RUN), Source(QRELS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unjudged queries q3 and q4
        want = pr.evaluate(RUN, QRELS, **kwargs)
        out = pr.evaluate(run.lazy(), qrels.lazy(), **kwargs)
    assert isinstance(out, pl.LazyFrame)
    assert (run.reads, qrels.reads) == (1, 1)
    got = out.collect()
    assert (run.reads, qrels.reads) == (1, 1), "the collect read the inputs again"
    assert_frame_equal(got, want)
    assert "AGGREGATE" in out.explain() or "SELECT" in out.explain()


def test_a_run_with_its_labels_is_read_once() -> None:
    labelled = RUN.join(QRELS, on=["qid", "docid"], how="left")
    run = Source(labelled)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pr.evaluate(labelled, None, ["ndcg@10", "map"], group_by="arm", bounds=True)
        out = pr.evaluate(run.lazy(), None, ["ndcg@10", "map"], group_by="arm", bounds=True)
    assert run.reads == 1
    assert_frame_equal(out.collect(), want)
    assert run.reads == 1


def test_only_the_columns_read_leave_the_source() -> None:
    """The one read projects: a Parquet scan reads the columns evaluate() needs."""
    wide = RUN.with_columns(pl.lit("x" * 100).alias("payload"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = pr.evaluate(wide.lazy(), QRELS.lazy(), ["map"], group_by="arm")
        want = pr.evaluate(RUN, QRELS, ["map"], group_by="arm")
    assert_frame_equal(plan.collect(), want)


@pytest.mark.parametrize("validate", [True, False])
def test_judgment_group_qrels_are_read_once(validate: bool) -> None:
    grouped = pl.concat([QRELS.with_columns(pl.lit("1").alias("jg")),
                         QRELS.with_columns(pl.lit("2").alias("jg"), pl.col("rel") * 0)])
    run, qrels = Source(RUN), Source(grouped)
    kwargs: dict[str, Any] = {"group_by": "arm", "validate": validate}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pr.evaluate(RUN, grouped, ["map_avgjg", "P_avgjg@5"], **kwargs)
        out = pr.evaluate(run.lazy(), qrels.lazy(), ["map_avgjg", "P_avgjg@5"], **kwargs)
    assert (run.reads, qrels.reads) == (1, 1)
    assert_frame_equal(out.collect(), want)
    assert (run.reads, qrels.reads) == (1, 1)


@pytest.mark.parametrize("side", ["run", "qrels"])
def test_a_missing_column_is_named_with_the_inputs_columns(side: str) -> None:
    """The error lists the input's columns, not those of the one read's projection."""
    run = RUN.rename({"score": "scores"}) if side == "run" else RUN
    qrels = QRELS.rename({"rel": "label"}) if side == "qrels" else QRELS
    messages = []
    for r, q in ((run, qrels), (run.lazy(), qrels.lazy())):
        with pytest.raises(pr.InvalidDataError) as error:
            pr.evaluate(r, q, ["map"], group_by="arm")
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    assert ("scores" if side == "run" else "label") in messages[1]
