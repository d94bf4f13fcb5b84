"""``memory="auto"``, the default: the bucketed path above a row count, chosen from the
input's size; and ``in_buckets``, the ETL form of the same buckets.

The thresholds are patched small, so that a few hundred rows make many buckets.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr

if TYPE_CHECKING:
    from pathlib import Path

METRICS = ["ndcg@10", "map", "mrr@10", "P_5", "recall@20", "auc"]
BUCKETS = importlib.import_module("polars_rank._evaluation.buckets")
PIPELINE = importlib.import_module("polars_rank._evaluation.pipeline")


def data(n_queries: int = 60, depth: int = 12, seed: int = 3) -> tuple[pl.DataFrame,
                                                                        pl.DataFrame]:
    """A run with tied scores (one decimal) and graded qrels, some judged documents
    not retrieved, one run query without judgments."""
    rng = np.random.default_rng(seed)
    n = n_queries * depth
    run = pl.DataFrame({
        "qid": [f"q{i // depth}" for i in range(n)],
        "docid": [f"d{i % depth}" for i in range(n)],
        "score": np.round(rng.random(n), 1),
    })
    judged = run.filter(pl.Series(rng.random(n) < 0.4), pl.col("qid") != "q0")
    qrels = pl.concat([
        judged.select("qid", "docid", rel=pl.Series(rng.integers(0, 4, judged.height))),
        pl.DataFrame({"qid": ["q1", "q2"], "docid": ["x", "y"], "rel": [2, 1]}),
    ])
    return run, qrels


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """AUTO_ROWS at 100 rows, buckets of 90; records each bucketed evaluation's rows."""
    monkeypatch.setattr(BUCKETS, "AUTO_ROWS", 100)
    monkeypatch.setattr(PIPELINE, "_BUCKET_ROWS", 90)
    calls: list[int] = []
    split = PIPELINE.buckets

    def recorded(run: pl.LazyFrame, *args: Any) -> Any:
        calls.append(run.select(pl.len()).collect().item())
        return split(run, *args)

    monkeypatch.setattr(PIPELINE, "buckets", recorded)
    return calls


def quiet(*args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # q0 has no judgments
        out = pr.evaluate(*args, **kwargs)
    return out.collect() if isinstance(out, pl.LazyFrame) else out


@pytest.mark.parametrize("per_query", [True, False])
def test_the_default_buckets_a_frame_above_the_threshold(
        small_thresholds: list[int], per_query: bool) -> None:
    run, qrels = data()
    high = quiet(run, qrels, METRICS, per_query=per_query, memory="high")
    assert small_thresholds == []
    auto = quiet(run, qrels, METRICS, per_query=per_query)
    assert small_thresholds == [run.height]  # the bucketed path, with every run row
    assert run.height > 7 * 90  # eight buckets or more
    if per_query:  # each query's value to the bit
        assert_frame_equal(auto.sort("qid"), high.sort("qid"))
    # a mean's summation order may differ in the last bit
    assert_frame_equal(auto, high, check_exact=False, rel_tol=0, abs_tol=1e-12)


def test_the_default_keeps_a_frame_at_the_threshold_in_memory(
        monkeypatch: pytest.MonkeyPatch, small_thresholds: list[int]) -> None:
    run, qrels = data()
    monkeypatch.setattr(BUCKETS, "AUTO_ROWS", run.height)
    quiet(run, qrels, METRICS)
    assert small_thresholds == []
    monkeypatch.setattr(BUCKETS, "AUTO_ROWS", run.height - 1)
    quiet(run, qrels, METRICS)
    assert small_thresholds == [run.height]


def test_the_default_counts_a_parquet_scan_from_its_metadata(
        tmp_path: Path, small_thresholds: list[int]) -> None:
    run, qrels = data()
    run.write_parquet(tmp_path / "run.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    scans = pl.scan_parquet(tmp_path / "run.parquet"), pl.scan_parquet(tmp_path / "qrels.parquet")
    auto = quiet(*scans, METRICS, per_query=True)
    assert small_thresholds == [run.height]
    high = quiet(run, qrels, METRICS, per_query=True, memory="high")
    assert_frame_equal(auto, high, check_exact=False, rel_tol=0, abs_tol=1e-12)
    assert BUCKETS.chosen_memory(scans[0], "auto") == "low"
    assert BUCKETS.chosen_memory(scans[0], "high") == "high"


def test_a_plan_that_must_run_to_be_counted_is_read_once_in_memory(
        small_thresholds: list[int]) -> None:
    """A join or a Python function under the run: counting it would read it twice."""
    run, qrels = data()
    reads = []

    def source(frame: pl.DataFrame) -> pl.DataFrame:
        reads.append(frame.height)
        return frame

    lazy = run.lazy().map_batches(source, schema=run.schema)
    assert BUCKETS.chosen_memory(lazy, "auto") == "high"
    joined = run.lazy().join(qrels.lazy().select("qid").unique(), on="qid", how="semi")
    assert BUCKETS.chosen_memory(joined, "auto") == "high"
    assert BUCKETS.chosen_memory(run.lazy().filter(pl.col("score") > 0), "auto") == "high"
    assert reads == []
    assert_frame_equal(quiet(lazy, qrels, METRICS), quiet(run, qrels, METRICS, memory="high"))
    assert len(reads) == 1
    assert small_thresholds == []


def test_the_bucketed_default_is_deterministic(small_thresholds: list[int]) -> None:
    """Repetition and the run's row order change no number, to the bit (per query)."""
    run, qrels = data()
    first = quiet(run, qrels, METRICS, per_query=True).sort("qid")
    again = quiet(run, qrels, METRICS, per_query=True).sort("qid")
    shuffled = quiet(run.sample(fraction=1.0, shuffle=True, seed=1), qrels, METRICS,
                     per_query=True).sort("qid")
    assert len(small_thresholds) == 3
    assert_frame_equal(first, again)
    assert_frame_equal(first, shuffled)


def test_the_command_line_takes_auto() -> None:
    spec = PIPELINE.resolve(["map"])
    assert spec.memory == "auto"
    with pytest.raises(ValueError, match="memory"):
        PIPELINE.resolve(["map"], memory="medium")


# ---------------------------------------------------------------- in_buckets


def test_in_buckets_gives_the_whole_frame_values() -> None:
    """The card's ETL form, bucketed: the values of the whole frame's group_by."""
    run, qrels = data()
    joined = run.lazy().join(qrels.lazy(), on=["qid", "docid"], how="left")

    def plan(part: pl.LazyFrame) -> pl.LazyFrame:
        return part.group_by("qid").agg(
            pr.ndcg("rel", 10, by=["score", "docid"], gain="linear").alias("ndcg@10"),
            pr.map("rel", by=["score", "docid"]).alias("map"))

    whole = plan(joined).collect(engine="streaming").sort("qid")
    for rows in (50, 90, 10_000):  # many buckets, some, one (not written)
        got = pr.in_buckets(joined, plan, rows_per_bucket=rows)
        assert_frame_equal(got.sort("qid"), whole)
    eager = pr.in_buckets(joined.collect(), lambda part: plan(part).collect(),
                          rows_per_bucket=90, engine="in-memory")
    assert_frame_equal(eager.sort("qid"), whole)


def test_in_buckets_checks_the_bucket_size() -> None:
    run, _ = data()
    with pytest.raises(ValueError, match="rows_per_bucket must be a positive integer"):
        pr.in_buckets(run, lambda part: part, rows_per_bucket=0)
