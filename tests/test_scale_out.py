"""polars_rank.spark and polars_rank.dask: the numbers of in-process evaluate(), exactly.

Generated data with several arms and slices, score ties (trec_eval order), judged
documents the run never returned, run queries without judgments and qrels queries
absent from the run. Per-query and per-group values must equal ``evaluate()``'s
within 1e-12, warnings and errors must be the same.

These tests need the ``spark`` and ``dask`` extras (and Java for Spark): without them
they are skipped, unless ``POLARS_RANK_SCALE_OUT=1`` (the dedicated CI step) turns a
missing dependency into a failure.
"""

from __future__ import annotations

import importlib
import inspect
import os
import shutil
import socket
import sys
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank._distributed import WITHOUT_JUDGMENTS
from polars_rank._engine.compat import SLICES_BY_MANY_OFFSETS

if TYPE_CHECKING:
    from collections.abc import Iterator

REQUIRED = os.environ.get("POLARS_RANK_SCALE_OUT") == "1"

SPARSE = ["ndcg@10", "map", "mrr@10", "P_10", "ndcg_cut.10", "recall@5", "rprec", "bpref",
          "err@10(max_grade=3)", "hit_rate@3", "rbp(p=0.8)", "f1@5", "num_rel_ret", "gm_map",
          "unj@5"]
# every SPARSE metric has an exact expected-ties form; ERR's needs Polars 2
EXPECTED_OK = [m for m in SPARSE if SLICES_BY_MANY_OFFSETS or not m.startswith("err")]
DENSE = ["ndcg@10", "map", "auc", "dcg@5", "P_5"]


def need(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        if REQUIRED:
            raise
        pytest.skip(f"{module} is not installed (pip install -e '.[spark,dask]')")


# --------------------------------------------------------------------------- data


def experiment(seed: int = 0, n_queries: int = 80) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run with arms and segments, and its qrels.

    Scores on a coarse grid (ties everywhere, broken by doc id in trec_eval order);
    ~8 judged documents per judged query, several of them never retrieved; every
    7th query has no judgments; 5 qrels queries no arm retrieved; each arm misses
    some queries (for missing="zero").
    """
    rng = np.random.default_rng(seed)
    rows = []
    for arm in ("control", "treatment_a", "treatment_b"):
        for q in range(n_queries):
            if rng.random() < 0.1:
                continue  # this arm did not answer this query
            depth = int(rng.integers(1, 16))
            docs = rng.choice(40, size=depth, replace=False)
            scores = rng.integers(0, 6, size=depth) / 2
            segment = ("mobile", "desktop", "tablet")[q % 3]
            rows += [(arm, segment, f"q{q:03d}", f"d{d:02d}", float(s))
                     for d, s in zip(docs, scores, strict=True)]
    run = pl.DataFrame(rows, schema={"arm": pl.String, "segment": pl.String, "qid": pl.String,
                                     "docid": pl.String, "score": pl.Float64}, orient="row")
    judged = []
    for q in range(n_queries + 5):
        if q % 7 == 0:
            continue  # no judgments
        for d in rng.choice(40, size=8, replace=False):
            judged.append((f"q{q:03d}", f"d{d:02d}", int(rng.choice(4, p=[0.4, 0.3, 0.2, 0.1]))))
    qrels = pl.DataFrame(judged, schema={"qid": pl.String, "docid": pl.String, "rel": pl.Int64},
                         orient="row")
    return run, qrels


def joined(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """The qrels=None form: labels on the run's rows, judged-unretrieved rows with a null score."""
    labelled = run.join(qrels, on=["qid", "docid"], how="left")
    keys = run.select("arm", "segment", "qid").unique()
    unretrieved = (keys.join(qrels, on="qid").join(run, on=["arm", "qid", "docid"], how="anti")
                   .with_columns(pl.lit(None, pl.Float64).alias("score")))
    return pl.concat([labelled, unretrieved.select(labelled.columns)])


RUN, QRELS = experiment()
JOINED = joined(RUN, QRELS)


def local(*args: Any, **kwargs: Any) -> tuple[pl.DataFrame, list[str]]:
    """In-process evaluate() and the messages of its warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = pr.evaluate(*args, **kwargs)
    return out, [str(w.message) for w in caught if w.category is UserWarning]


def assert_same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Same keys and columns; metric values within 1e-12 (NaN where NaN)."""
    assert got.columns == want.columns
    keys = [c for c, t in want.schema.items() if t != pl.Float64]
    if keys:
        got, want = got.sort(keys), want.sort(keys)
    assert_frame_equal(got.select(keys), want.select(keys))
    assert got.height == want.height
    for column in want.columns:
        if column in keys:
            continue
        a, b = got[column], want[column]
        assert (a.is_nan() == b.is_nan()).all(), column
        worst = (a - b).abs().filter(~b.is_nan()).max()
        assert worst is None or worst <= 1e-12, (column, worst)


# The cases every front end runs: (run, qrels, metrics, options).
CASES: dict[str, tuple[pl.DataFrame, pl.DataFrame | None, list[str], dict[str, Any]]] = {
    "per-query-slices": (RUN, QRELS, SPARSE, {"group_by": ["arm", "segment"],
                                              "per_query": True}),
    "means-slices": (RUN, QRELS, SPARSE, {"group_by": ["arm", "segment"]}),
    "means-overall": (RUN.filter(pl.col("arm") == "control"), QRELS, SPARSE, {}),
    "missing-zero": (RUN, QRELS, SPARSE, {"group_by": "arm", "per_query": True,
                                          "missing": "zero"}),
    "ties-first": (RUN, QRELS, SPARSE, {"group_by": "arm", "per_query": True,
                                        "ties": "first"}),
    "ties-expected": (RUN, QRELS, EXPECTED_OK, {"group_by": "arm", "ties": "expected",
                                                "per_query": True}),
    "dense-optimistic": (RUN, QRELS, DENSE, {"group_by": "arm", "per_query": True,
                                             "ties": "optimistic"}),
    "joined-per-query": (JOINED, None, SPARSE, {"group_by": ["arm", "segment"],
                                                "per_query": True, "missing": "zero"}),
    "joined-means": (JOINED, None, SPARSE, {"group_by": "arm"}),
    "int-ids": (RUN.with_columns(pl.col("qid").str.slice(1).cast(pl.Int32)),
                QRELS.with_columns(pl.col("qid").str.slice(1).cast(pl.Int64)),
                ["ndcg@10", "map"], {"group_by": "arm", "per_query": True}),
    # evaluate()'s other options (issue 38: the front ends take all of them)
    "dialect-ir_measures": (RUN, QRELS, ["nDCG@10", "AP", "RR@10", "P@5"],
                            {"group_by": "arm", "dialect": "ir_measures"}),
    "dialect-recommenders": (RUN, QRELS, ["ndcg@10", "map@10"],  # row order, two means
                             {"group_by": "arm", "per_query": True,
                              "dialect": "recommenders"}),
    "unjudged-high": (RUN, QRELS, ["ndcg@10", "map", "P@5"],
                      {"group_by": "arm", "per_query": True, "unjudged": "high"}),
    "bounds": (RUN, QRELS, ["ndcg@10", "map"], {"group_by": "arm", "bounds": True}),
    "judged-only": (RUN, QRELS, ["ndcg@10", "map", "P@5"],
                    {"group_by": "arm", "per_query": True, "judged_only": True}),
}


@pytest.mark.spark
@pytest.mark.dask
def test_the_front_ends_take_every_option_of_evaluate() -> None:
    """spark.evaluate and dask.evaluate take evaluate()'s parameters, with its defaults:
    ``memory`` aside (a cluster partitions by construction), ``partitions`` added."""
    need("pyspark")
    need("dask.dataframe")
    from polars_rank import dask as prd
    from polars_rank import spark as prs

    def parameters(function: Any) -> dict[str, object]:
        return {name: p.default for name, p in inspect.signature(function).parameters.items()}

    want = {k: v for k, v in parameters(pr.evaluate).items() if k != "memory"}
    for front in (prs.evaluate, prd.evaluate):
        got = parameters(front)
        assert got.pop("partitions") is None
        assert got == want, front.__module__


# --------------------------------------------------------------------------- Spark


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def spark_sessions() -> Iterator[dict[str, Any]]:
    """A classic local[2] session, and a Spark Connect session on the same JVM."""
    need("pyspark")
    if shutil.which("java") is None and "JAVA_HOME" not in os.environ:
        if REQUIRED:
            pytest.fail("Spark needs Java: apt-get install openjdk-17-jre-headless")
        pytest.skip("Spark needs Java")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    port = free_port()
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("polars-rank tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "1g")
        .config("spark.executorEnv.POLARS_MAX_THREADS", "1")
        .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
        .config("spark.connect.grpc.binding.address", "127.0.0.1")
        .config("spark.connect.grpc.binding.port", str(port))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    from pyspark.sql.connect.session import SparkSession as RemoteSession

    connect = RemoteSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
    yield {"classic": spark, "connect": connect}
    connect.stop()
    spark.stop()


@pytest.fixture(params=["classic"])
def spark(request: pytest.FixtureRequest, spark_sessions: dict[str, Any]) -> Any:
    return spark_sessions[request.param]


def to_spark(session: Any, frame: pl.DataFrame) -> Any:
    return session.createDataFrame(frame.to_arrow(compat_level=pl.CompatLevel.oldest()))


def from_spark(frame: Any) -> pl.DataFrame:
    return pl.DataFrame(pl.from_arrow(frame.toArrow()))


def run_spark(session: Any, run: pl.DataFrame, qrels: pl.DataFrame | None, metrics: list[str],
              **options: Any) -> tuple[pl.DataFrame, list[str]]:
    from polars_rank import spark as prs

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = prs.evaluate(to_spark(session, run),
                           None if qrels is None else to_spark(session, qrels), metrics,
                           **options)
    return from_spark(out), [str(w.message) for w in caught if w.category is UserWarning]


@pytest.mark.spark
@pytest.mark.parametrize("case", CASES)
def test_spark_equals_evaluate(spark: Any, case: str) -> None:
    run, qrels, metrics, options = CASES[case]
    got, got_warnings = run_spark(spark, run, qrels, metrics, **options)
    want, want_warnings = local(run, qrels, metrics, **options)
    assert_same(got, want)
    assert got_warnings == want_warnings


@pytest.mark.spark
@pytest.mark.parametrize("case", ["per-query-slices", "joined-means"])
def test_spark_connect_equals_evaluate(spark_sessions: dict[str, Any], case: str) -> None:
    run, qrels, metrics, options = CASES[case]
    got, got_warnings = run_spark(spark_sessions["connect"], run, qrels, metrics, **options)
    want, want_warnings = local(run, qrels, metrics, **options)
    assert_same(got, want)
    assert got_warnings == want_warnings


@pytest.mark.spark
def test_spark_unjudged_warning(spark: Any) -> None:
    _, messages = run_spark(spark, RUN, QRELS, ["map"], group_by="arm")
    assert len(messages) == 1
    assert "have no judgments and are not evaluated (e.g. (arm='control', qid='q000')" in (
        messages[0])


@pytest.mark.spark
def test_spark_partitions_and_lazy(spark: Any) -> None:
    from polars_rank import spark as prs

    want, _ = local(RUN, QRELS, SPARSE, group_by="arm")
    out = prs.evaluate(to_spark(spark, RUN), to_spark(spark, QRELS), SPARSE, group_by="arm",
                       validate=False, partitions=7)
    assert_same(from_spark(out), want)


def bad_inputs() -> dict[str, tuple[pl.DataFrame, pl.DataFrame | None, dict[str, Any]]]:
    qrels_negative = QRELS.with_columns(
        pl.when(pl.col("qid") == "q005").then(-1).otherwise(pl.col("rel")).alias("rel"))
    run_nan = RUN.with_columns(
        pl.when(pl.col("qid") == "q010").then(float("nan")).otherwise(pl.col("score"))
        .alias("score"))
    run_dup = pl.concat([RUN, RUN.filter(pl.col("qid") == "q011").head(1)])
    joined_inf = JOINED.with_columns(
        pl.when(pl.col("qid") == "q012").then(float("inf")).otherwise(pl.col("rel"))
        .alias("rel"))
    return {  # every case has one offending query, but above-max-grade (several)
        "negative": (RUN, qrels_negative, {}),
        "nan-score": (run_nan, QRELS, {}),
        "duplicate": (run_dup, QRELS, {}),
        "inf-label-joined": (joined_inf, None, {}),
        "above-max-grade": (RUN, QRELS, {"metrics": ["err@10(max_grade=2)"]}),
    }


def assert_same_error(got: str, want: str, case: str) -> None:
    """The same message; where several queries are bad, the worker may name another."""
    if case != "above-max-grade":
        assert got == want
        return
    problem = want.split(": first at")[0]
    assert got.startswith(problem + ": first at qid=")
    named = got.rsplit("qid=", 1)[1].strip("'")
    assert QRELS.filter(pl.col("qid") == named)["rel"].max() > 2


def expected_error(run: pl.DataFrame, qrels: pl.DataFrame | None,
                   options: dict[str, Any]) -> str:
    with pytest.raises(pr.InvalidDataError) as raised:
        local(run, qrels, **options)
    return str(raised.value)


@pytest.mark.spark
@pytest.mark.parametrize("case", list(bad_inputs()))
def test_spark_bad_data_same_error(spark: Any, case: str) -> None:
    run, qrels, options = bad_inputs()[case]
    options = {"metrics": ["ndcg@10", "map"], "group_by": "arm", **options}
    message = expected_error(run, qrels, options)
    with pytest.raises(pr.InvalidDataError) as raised:
        run_spark(spark, run, qrels, **options)
    assert_same_error(str(raised.value), message, case)


@pytest.mark.spark
@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"metrics": ["ndgc@10"]}, ValueError, "ndgc"),
        ({"ties": "random"}, ValueError, "ties"),
        ({"score": "points"}, pr.InvalidDataError, "run has no column 'points'"),
        ({"group_by": "device"}, pr.InvalidDataError, "named by group_by"),
        ({"group_by": 3}, TypeError, "group_by"),
        ({"metrics": ["alpha_ndcg@10"], "ties": "optimistic"}, NotImplementedError,
         "intent-aware"),
    ],
)
def test_spark_parameter_errors_on_driver(spark: Any, options: dict[str, Any],
                                          error: type[Exception], match: str) -> None:
    from polars_rank import spark as prs

    options = {"group_by": "arm", **options}
    with pytest.raises(error, match=match):
        prs.evaluate(to_spark(spark, RUN), to_spark(spark, QRELS), **options)
    with pytest.raises(error, match=match):
        pr.evaluate(RUN, QRELS, **options)


@pytest.mark.spark
def test_spark_connect_bad_data(spark_sessions: dict[str, Any]) -> None:
    run, qrels, _ = bad_inputs()["negative"]
    message = expected_error(run, qrels, {"metrics": ["map"], "group_by": "arm"})
    with pytest.raises(pr.InvalidDataError) as raised:
        run_spark(spark_sessions["connect"], run, qrels, ["map"], group_by="arm")
    assert str(raised.value) == message


# --------------------------------------------------------------------------- Dask


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    """A local Dask cluster: two worker processes of one thread."""
    need("dask.dataframe")
    distributed = need("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0",
                                       env={"POLARS_MAX_THREADS": "1"})
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def to_dask(frame: pl.DataFrame, partitions: int = 3) -> Any:
    import dask.dataframe as dd

    return dd.from_pandas(frame.to_pandas(use_pyarrow_extension_array=True),
                          npartitions=partitions)


def run_dask(run: pl.DataFrame, qrels: pl.DataFrame | None, metrics: list[str],
             **options: Any) -> tuple[pl.DataFrame, list[str]]:
    from polars_rank import dask as prd

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = prd.evaluate(to_dask(run), None if qrels is None else to_dask(qrels, 2), metrics,
                           **options)
        result = pl.from_pandas(out.compute())
    return result, [str(w.message) for w in caught if w.category is UserWarning]


@pytest.mark.dask
@pytest.mark.parametrize("case", CASES)
def test_dask_equals_evaluate(dask_client: Any, case: str) -> None:
    run, qrels, metrics, options = CASES[case]
    got, got_warnings = run_dask(run, qrels, metrics, **options)
    want, want_warnings = local(run, qrels, metrics, **options)
    assert_same(got, want)
    assert got_warnings == want_warnings


@pytest.mark.dask
@pytest.mark.parametrize("case", list(bad_inputs()))
def test_dask_bad_data_same_error(dask_client: Any, case: str) -> None:
    run, qrels, options = bad_inputs()[case]
    options = {"metrics": ["ndcg@10", "map"], "group_by": "arm", **options}
    message = expected_error(run, qrels, options)
    with pytest.raises(pr.InvalidDataError) as raised:
        run_dask(run, qrels, **options)
    assert_same_error(str(raised.value), message, case)


@pytest.mark.dask
def test_dask_parameter_errors_before_compute(dask_client: Any) -> None:
    from polars_rank import dask as prd

    with pytest.raises(ValueError, match="ndgc"):
        prd.evaluate(to_dask(RUN), to_dask(QRELS), ["ndgc@10"])
    with pytest.raises(pr.InvalidDataError, match="qrels has no column 'rel'"):
        prd.evaluate(to_dask(RUN), to_dask(QRELS.rename({"rel": "grade"})))
    grouped = QRELS.with_columns(jg=pl.col("docid").hash() % 2)  # evaluate() computes it
    with pytest.warns(UserWarning, match="no judgments"):  # the experiment's unjudged queries
        assert pr.evaluate(RUN, grouped, ["map_avgjg"], group_by="arm").height > 0
    with pytest.raises(NotImplementedError, match="judgment-group"):  # was 1.0 for 0.75
        prd.evaluate(to_dask(RUN), to_dask(grouped), ["map_avgjg"], group_by="arm")


@pytest.mark.dask
def test_dask_numpy_nan_is_nan_as_in_evaluate(dask_client: Any) -> None:
    """Issue 36: a NumPy float column's NaN is NaN in Dask as in evaluate() (one reader,
    polars_rank._engine.frames), bad data in both; a nullable column's pd.NA is the null."""
    import dask.dataframe as dd

    from polars_rank import dask as prd

    numpy_frame = JOINED.to_pandas()  # the null scores and labels become NaN
    assert numpy_frame["score"].isna().any()
    message = expected_error(numpy_frame, None, {"metrics": ["map"], "group_by": "arm"})
    assert message.startswith("non-finite relevance (NaN or inf) in run column 'rel'")
    with pytest.raises(pr.InvalidDataError) as raised:
        prd.evaluate(dd.from_pandas(numpy_frame, npartitions=2), None, ["map"],
                     group_by="arm").compute()
    got = str(raised.value)  # the same rule and column; a worker may name another query
    assert got.split(" first at ")[0] == message.split(" first at ")[0]
    assert got.split(". ", 1)[1] == message.split(". ", 1)[1]  # how to say "missing"
    nullable = numpy_frame.convert_dtypes()  # NaN -> pd.NA: the nulls again
    with pytest.warns(UserWarning, match="have no judgments"):
        out = prd.evaluate(dd.from_pandas(nullable, npartitions=2), None, ["map"],
                           group_by="arm")
    want, _ = local(JOINED, None, ["map"], group_by="arm")
    assert_same(pl.from_pandas(out.compute()), want)


# --------------------------------------------------------------------------- shared


def test_piece_flags_unjudged_queries() -> None:
    """Each piece names up to three unjudged queries, the count on the first."""
    from polars_rank._distributed import SIDE, evaluate_piece, make_plan
    from polars_rank._evaluation.spec import resolve

    combined = pl.concat([RUN.with_columns(pl.lit(False).alias(SIDE)),
                          QRELS.with_columns(pl.lit(True).alias(SIDE))], how="diagonal")
    spec = resolve(["map"], group_by="arm", ties="trec_eval", missing="skip")
    plan = make_plan(RUN.clear(), QRELS.clear(), spec)
    out = evaluate_piece(combined, plan)
    flagged = out.filter(pl.col(WITHOUT_JUDGMENTS).is_not_null())
    want, messages = local(RUN, QRELS, ["map"], group_by="arm", per_query=True)
    assert flagged.height == 3
    assert str(flagged[WITHOUT_JUDGMENTS].sum()) in messages[0]
    assert_same(out.filter(pl.col(WITHOUT_JUDGMENTS).is_null()).drop(WITHOUT_JUDGMENTS), want)


def test_import_does_not_import_spark_or_dask() -> None:
    code = ("import sys, polars_rank; "
            "assert not {'pyspark', 'dask'} & {m.split('.')[0] for m in sys.modules}")
    import subprocess

    subprocess.run([sys.executable, "-c", code], check=True)



def test_low_memory_missing_zero_keeps_every_group(monkeypatch: pytest.MonkeyPatch) -> None:
    """memory="low" buckets are pieces too: a bucket without a group's rows still zeroes it."""
    import sys

    module = sys.modules["polars_rank._evaluation.pipeline"]
    options: dict[str, Any] = {"group_by": "arm", "per_query": True, "missing": "zero"}
    want, _ = local(RUN, QRELS, ["map", "ndcg@10"], **options)
    monkeypatch.setattr(module, "_BUCKET_ROWS", 50)  # dozens of buckets, some without an arm
    got, _ = local(RUN, QRELS, ["map", "ndcg@10"], memory="low", **options)
    assert_same(got, want)
    assert want.height == 3 * QRELS["qid"].n_unique()
