"""Every frame a user already has goes in, and gives the numbers the Polars frames give.

Each accepted input (pandas, pyarrow Table / RecordBatch / Dataset, a dict of columns,
pytrec_eval's dict of dicts, ranx's Run and Qrels) is evaluated against the same data
as Polars frames; validate() and compare() take them too. The qrels readers read the
3-column and BEIR layouts as the TREC one; to_dict() gives pytrec_eval's dicts, whose
evaluation by pytrec_eval equals evaluate()'s.
"""

from __future__ import annotations

import math
import random
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa
import pyarrow.dataset as pa_ds
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError, TrecFormatError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

METRICS = ["ndcg@10", "map", "mrr"]


def make_data(seed: int = 7) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A run and graded qrels with string ids; every run query is judged.

    Scores repeat (ties broken by trec_eval's order), some judged documents are not
    retrieved, some retrieved ones are not judged, one query has no relevant document.
    """
    rng = random.Random(seed)
    run_rows, qrels_rows = [], []
    for q in range(12):
        qid = f"q{q}"
        docs = [f"d{d}" for d in rng.sample(range(40), 25)]
        for doc in docs[:20]:  # retrieved
            run_rows.append((qid, doc, float(rng.randint(0, 8)) / 4))
        for doc in docs[10:]:  # judged: half retrieved, half not
            qrels_rows.append((qid, doc, 0 if q == 3 else rng.choice([0, 0, 1, 2, 3])))
    run = pl.DataFrame(run_rows, schema={"qid": pl.String, "docid": pl.String,
                                         "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"qid": pl.String, "docid": pl.String,
                                             "rel": pl.Int64}, orient="row")
    return run, qrels


RUN, QRELS = make_data()


def dict_of_dicts(frame: pl.DataFrame, value: str) -> dict[str, dict[str, Any]]:
    """pytrec_eval's shape, built by hand (not by pr.to_dict, tested below)."""
    out: dict[str, dict[str, Any]] = {}
    for qid, docid, v in frame.select("qid", "docid", value).iter_rows():
        out.setdefault(qid, {})[docid] = v
    return out


def to_pandas(frame: pl.DataFrame, value: str, tmp_path: Path) -> Any:
    pytest.importorskip("pandas")
    return frame.to_pandas()


def to_table(frame: pl.DataFrame, value: str, tmp_path: Path) -> Any:
    return frame.to_arrow()


def to_record_batch(frame: pl.DataFrame, value: str, tmp_path: Path) -> Any:
    batches = frame.to_arrow().combine_chunks().to_batches()
    assert len(batches) == 1
    return batches[0]


def to_dataset(frame: pl.DataFrame, value: str, tmp_path: Path) -> Any:
    """A Parquet dataset on disk, two files: scanned lazily."""
    folder = tmp_path / f"{value}_dataset"
    folder.mkdir()
    half = frame.height // 2
    frame[:half].write_parquet(folder / "part-0.parquet")
    frame[half:].write_parquet(folder / "part-1.parquet")
    return pa_ds.dataset(folder, format="parquet")


def to_in_memory_dataset(frame: pl.DataFrame, value: str, tmp_path: Path) -> Any:
    return pa_ds.dataset(frame.to_arrow())


def to_columns(frame: pl.DataFrame, value: str, tmp_path: Path) -> Any:
    return frame.to_dict(as_series=False)


def to_trec_dicts(frame: pl.DataFrame, value: str, tmp_path: Path) -> Any:
    return dict_of_dicts(frame, value)


def to_ranx(frame: pl.DataFrame, value: str, tmp_path: Path) -> Any:
    ranx = pytest.importorskip("ranx")
    kind = ranx.Run if value == "score" else ranx.Qrels
    return kind(dict_of_dicts(frame, value))


FRAMES: dict[str, Callable[[pl.DataFrame, str, Path], Any]] = {
    "pandas DataFrame": to_pandas,
    "pyarrow Table": to_table,
    "pyarrow RecordBatch": to_record_batch,
    "pyarrow Dataset (Parquet)": to_dataset,
    "pyarrow Dataset (in memory)": to_in_memory_dataset,
    "dict of columns": to_columns,
}
PAIRS: dict[str, Callable[[pl.DataFrame, str, Path], Any]] = {  # (qid, docid) -> value
    "pytrec_eval dict of dicts": to_trec_dicts,
    "ranx Run / Qrels": to_ranx,
}
EVERY = {**FRAMES, **PAIRS}


def by_qid(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    eager = frame.collect() if isinstance(frame, pl.LazyFrame) else frame
    return eager.sort("qid")


# ------------------------------------------------------------------------- evaluate


# ranx's Run and Qrels compile its Numba code (marked ranx: CI's oldest-Polars pass skips it)
KINDS = [pytest.param(k, marks=pytest.mark.ranx) if k.startswith("ranx") else k for k in EVERY]


@pytest.mark.parametrize("kind", KINDS)
def test_evaluate_gives_the_polars_numbers(kind: str, tmp_path: Path) -> None:
    convert = EVERY[kind]
    run, qrels = convert(RUN, "score", tmp_path), convert(QRELS, "rel", tmp_path)
    out = pr.evaluate(run, qrels, METRICS, per_query=True)
    assert isinstance(out, pl.DataFrame)  # anything but a LazyFrame: an eager result
    assert_frame_equal(by_qid(out), by_qid(pr.evaluate(RUN, QRELS, METRICS, per_query=True)))
    means = pr.evaluate(run, qrels, METRICS)
    assert_frame_equal(means, pr.evaluate(RUN, QRELS, METRICS))


@pytest.mark.parametrize("kind", KINDS)
def test_each_input_beside_a_polars_frame(kind: str, tmp_path: Path) -> None:
    """A converted run with Polars qrels, and the other way round."""
    want = by_qid(pr.evaluate(RUN, QRELS, METRICS, per_query=True))
    convert = EVERY[kind]
    got_run = pr.evaluate(convert(RUN, "score", tmp_path), QRELS.lazy(), METRICS,
                          per_query=True)
    got_qrels = pr.evaluate(RUN.lazy(), convert(QRELS, "rel", tmp_path), METRICS,
                            per_query=True)
    assert isinstance(got_qrels, pl.LazyFrame)  # the run decides: lazy in, lazy out
    assert_frame_equal(by_qid(got_run), want)
    assert_frame_equal(by_qid(got_qrels), want)


@pytest.mark.parametrize("kind", KINDS)
def test_ranked_takes_them_too(kind: str, tmp_path: Path) -> None:
    convert = EVERY[kind]
    got = pr.ranked(convert(RUN, "score", tmp_path), convert(QRELS, "rel", tmp_path))
    want = pr.ranked(RUN, QRELS)
    keys = ["qid", "docid"]
    assert_frame_equal(by_qid(got).sort(keys), by_qid(want).sort(keys))


def test_dicts_of_dicts_use_the_given_column_names() -> None:
    run = {"1": {"a": 2.0, "b": 1.0}, "2": {"a": 0.5}}
    qrels = {"1": {"b": 1}, "2": {"a": 2}}
    out = pr.evaluate(run, qrels, ["P@1"], query="topic", doc="passage", score="bm25",
                      rel="label", per_query=True)
    assert out.columns == ["topic", "P@1"]
    assert out.sort("topic")["P@1"].to_list() == [0.0, 1.0]


def test_dict_of_dicts_ids_become_strings() -> None:
    frame = as_polars({1: {10: 0.5, "d": 1}, "q2": {}}, "run")
    assert isinstance(frame, pl.DataFrame)
    assert frame.schema == pl.Schema({"qid": pl.String, "docid": pl.String,
                                      "score": pl.Float64})
    assert frame.rows() == [("1", "10", 0.5), ("1", "d", 1.0)]
    # ints stay ints (qrels), and these ids join with a frame of the same ids as text
    qrels = as_polars({"1": {"10": 1}}, "qrels", value="rel")
    assert qrels.schema == pl.Schema({"qid": pl.String, "docid": pl.String, "rel": pl.Int64})


def test_an_empty_dict_is_an_empty_frame_with_the_columns() -> None:
    frame = as_polars({}, "qrels", query="topic", doc="doc", value="label")
    assert isinstance(frame, pl.DataFrame)
    assert frame.is_empty()
    assert frame.schema == pl.Schema({"topic": pl.String, "doc": pl.String,
                                      "label": pl.Float64})


def test_a_pyarrow_dataset_is_scanned_lazily(tmp_path: Path) -> None:
    frame = as_polars(to_dataset(RUN, "score", tmp_path), "run")
    assert isinstance(frame, pl.LazyFrame)
    assert_frame_equal(frame.collect(), RUN)


def test_a_dict_mixing_columns_and_dicts_is_refused() -> None:
    with pytest.raises(TypeError, match=r"either columns .* or, as pytrec_eval's"):
        pr.evaluate({"qid": ["q1"], "docid": {"d1": 1.0}}, QRELS)  # type: ignore[type-var]


# ------------------------------------------------------------------ validate, compare


@pytest.mark.parametrize("kind", KINDS)
def test_validate_takes_them(kind: str, tmp_path: Path) -> None:
    bad = QRELS.with_columns(
        rel=pl.when(pl.int_range(pl.len()) == 5).then(-1).otherwise("rel"))
    got = pr.validate(EVERY[kind](bad, "rel", tmp_path), "rel", query="qid", doc="docid")
    want = pr.validate(bad, "rel", query="qid", doc="docid")
    assert want.height == 1
    assert_frame_equal(by_qid(got), want)


@pytest.mark.parametrize("kind", list(FRAMES))  # per-query values: a frame, not pairs
def test_compare_takes_them(kind: str, tmp_path: Path) -> None:
    pytest.importorskip("scipy")
    per = pr.evaluate(RUN, QRELS, METRICS, per_query=True)
    worse = per.with_columns(pl.col(m) * 0.9 for m in METRICS)
    both = pl.concat([per.with_columns(arm=pl.lit("A")), worse.with_columns(arm=pl.lit("B"))])
    got = pr.compare(FRAMES[kind](both, "arm", tmp_path), baseline="A", metrics=METRICS)
    assert_frame_equal(got, pr.compare(both, baseline="A", metrics=METRICS))


# ------------------------------------------- the same data, the same answer (issue 36)
# Each entry point on data holding a NaN, given in every format: the same frame or the
# same error as the Polars frame. pandas' NumPy float columns are where the NaN used to
# become null (a "not retrieved" score, an "unjudged" label) on the way in.


def _spoiled(frame: pl.DataFrame, column: str, row: int) -> pl.DataFrame:
    """``frame`` with NaN at ``row`` of ``column`` (no nulls: pandas' NumPy columns
    cannot hold one, and these frames must be the same data in every format)."""
    at = pl.int_range(pl.len()) == row
    return frame.with_columns(pl.when(at).then(float("nan"))
                              .otherwise(pl.col(column).cast(pl.Float64)).alias(column))


NAN_FORMATS: dict[str, Callable[[pl.DataFrame], Any]] = {
    "Polars": lambda f: f,
    "pandas (NumPy)": lambda f: f.to_pandas(),
    "pandas (pyarrow)": lambda f: f.to_pandas(use_pyarrow_extension_array=True),
    "pyarrow Table": lambda f: f.to_arrow(),
    "dict of lists": lambda f: f.to_dict(as_series=False),
    "dict of pandas Series": lambda f: {c: f[c].to_pandas() for c in f.columns},
}

_PER_QUERY = pr.evaluate(RUN, QRELS, METRICS, per_query=True)
_ARMS = pl.concat([_PER_QUERY.with_columns(arm=pl.lit("A")),
                   _PER_QUERY.with_columns(arm=pl.lit("B"), map=pl.col("map") * 0.9)])
_RECO = RUN.with_columns(owner=pl.col("docid").str.len_chars().cast(pl.Int64))
_FRAME_CALLS: dict[str, tuple[Callable[..., Any], tuple[pl.DataFrame, ...]]] = {
    # name: (call, its frames: each given in the format under test)
    "evaluate, NaN score": (lambda r, q: pr.evaluate(r, q, METRICS),
                            (_spoiled(RUN, "score", 7), QRELS)),
    "evaluate, NaN label": (lambda r, q: pr.evaluate(r, q, METRICS),
                            (RUN, _spoiled(QRELS, "rel", 3))),
    "evaluate, clean": (lambda r, q: pr.evaluate(r, q, METRICS, per_query=True),
                        (RUN, QRELS)),
    "evaluate one frame, NaN label": (
        lambda j: pr.evaluate(j, None, METRICS),
        (_spoiled(RUN.join(QRELS, on=["qid", "docid"], how="inner"), "rel", 2),)),
    "ranked, NaN score": (lambda r, q: pr.ranked(r, q), (_spoiled(RUN, "score", 0), QRELS)),
    "validate run, NaN score": (
        lambda r: pr.validate(r, None, by="score", query="qid", doc="docid"),
        (_spoiled(RUN, "score", 7),)),
    "validate qrels, NaN label": (lambda q: pr.validate(q, "rel", query="qid", doc="docid"),
                                  (_spoiled(QRELS, "rel", 3),)),
    "compare, NaN value": (lambda p: pr.compare(p, baseline="A", metrics=METRICS),
                           (_spoiled(_ARMS, "map", 5),)),
    "compare, clean": (lambda p: pr.compare(p, baseline="A", metrics=METRICS), (_ARMS,)),
    "summarize, NaN value": (lambda p: pr.summarize(p, metrics=METRICS),
                             (_spoiled(_ARMS, "map", 5),)),
    "fuse, NaN score": (lambda a, b: pr.fuse({"a": a, "b": b}, "wsum", norm="min-max"),
                        (_spoiled(RUN, "score", 4), RUN.with_columns(pl.col("score") / 2))),
    "fuse, clean": (lambda a, b: pr.fuse({"a": a, "b": b}, "rrf", norm=None),
                    (RUN, RUN.with_columns(pl.col("score") / 2))),
    "exposure_counts, NaN score": (
        lambda f: pr.exposure_counts(f, item="docid", query="qid", by="score", k=3),
        (_spoiled(RUN, "score", 1),)),
    "group_exposure, NaN score": (
        lambda f: pr.group_exposure(f, group="owner", query="qid", by="score", k=3),
        (_spoiled(_RECO, "score", 1),)),
    "item_popularity": (lambda f: pr.item_popularity(f, item="docid", user="qid"), (RUN,)),
    "item_similarity": (lambda f: pr.item_similarity(f, item="docid", user="qid"), (RUN,)),
}


def _outcome(call: Callable[..., Any], frames: list[Any]) -> tuple[str, Any]:
    """("raises", (type, message)) or ("returns", the frame in a fixed row order)."""
    try:
        out = call(*frames)
    except Exception as error:  # the error is the outcome compared
        return "raises", (type(error), str(error))
    if isinstance(out, pl.LazyFrame):
        out = out.collect()
    assert isinstance(out, pl.DataFrame)
    return "returns", out.sort(out.columns, nulls_last=True)


@pytest.mark.parametrize("kind", [k for k in NAN_FORMATS if k != "Polars"])
@pytest.mark.parametrize("case", list(_FRAME_CALLS))
def test_every_format_gives_the_polars_answer(case: str, kind: str) -> None:
    """Issue 36: pandas (NaN kept, not read as null), Arrow and dicts give the Polars
    frame's result, or its error word for word, from every entry point."""
    pytest.importorskip("pandas")
    if case.startswith(("compare", "summarize")):
        pytest.importorskip("scipy")
    call, frames = _FRAME_CALLS[case]
    want = _outcome(call, list(frames))
    got = _outcome(call, [NAN_FORMATS[kind](f) for f in frames])
    assert got[0] == want[0], (got, want)
    if want[0] == "raises":
        assert got[1] == want[1]
    else:
        assert_frame_equal(got[1], want[1])


def test_the_nan_cases_are_errors_where_the_rules_say() -> None:
    """The control for the test above: its NaN cases are the errors the rules name (so
    a format reading NaN as null would differ), its clean cases are frames."""
    expected = {"evaluate, NaN score": "NaN score in run column 'score'",
                "evaluate, NaN label": "non-finite relevance (NaN or inf) in qrels column",
                "evaluate one frame, NaN label": "non-finite relevance (NaN or inf) in run",
                "ranked, NaN score": "NaN score in run column 'score'"}
    for case, words in expected.items():
        call, frames = _FRAME_CALLS[case]
        kind, (error, message) = _outcome(call, list(frames))
        assert (kind, error) == ("raises", InvalidDataError), case
        assert message.startswith(words), (case, message)
    for case in ("validate run, NaN score", "validate qrels, NaN label"):
        call, frames = _FRAME_CALLS[case]
        kind, out = _outcome(call, list(frames))
        assert kind == "returns"
        assert out.height == 1, case
    for case in ("evaluate, clean", "item_popularity", "item_similarity"):
        assert _outcome(*_FRAME_CALLS[case][:1], list(_FRAME_CALLS[case][1]))[0] == "returns"


def test_pandas_missing_values_are_polars_nulls() -> None:
    """pandas' way to say "missing" (None / pd.NA in a nullable or pyarrow column) is
    Polars' null: a judged document not retrieved, an unjudged label."""
    pd = pytest.importorskip("pandas")
    joined = RUN.join(QRELS, on=["qid", "docid"], how="full", coalesce=True)
    assert joined["score"].null_count() > 0
    assert joined["rel"].null_count() > 0
    want = pr.evaluate(joined, None, METRICS, per_query=True)
    for frame in (joined.to_pandas(use_pyarrow_extension_array=True),
                  joined.to_pandas().convert_dtypes()):
        assert isinstance(frame, pd.DataFrame)
        got = pr.evaluate(frame, None, METRICS, per_query=True)
        assert_frame_equal(by_qid(got), by_qid(want))
    with pytest.raises(InvalidDataError, match="non-finite relevance"):  # NumPy: NaN
        pr.evaluate(joined.to_pandas(), None, METRICS)


# ---------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize("bad", [42, "run.txt", [("q1", "d1", 1.0)], pa.array([1.0])],
                         ids=["int", "path as text", "list of rows", "pyarrow Array"])
def test_other_inputs_are_refused_naming_what_goes_in(bad: object) -> None:
    with pytest.raises(TypeError) as info:
        pr.evaluate(bad, QRELS)  # type: ignore[type-var]
    message = str(info.value)
    assert message.startswith("run must be a Polars DataFrame or LazyFrame")
    for accepted in ["pandas DataFrame", "pyarrow Table", "RecordBatch", "Dataset",
                     "Arrow PyCapsule", "dict of columns", "pytrec_eval dict of dicts",
                     "ranx Run or Qrels"]:
        assert accepted in message
    assert f"got {type(bad).__name__}" in message
    with pytest.raises(TypeError, match="qrels must be a Polars DataFrame"):
        pr.evaluate(RUN, bad)
    with pytest.raises(TypeError, match="frame must be a Polars DataFrame"):
        pr.validate(bad)
    with pytest.raises(TypeError, match="per_query must be a Polars DataFrame"):
        pr.compare(bad, baseline="A")


# ----------------------------------------------------------------------- qrels files

TREC_QRELS = "# judged\nq1 0 d1 2\nq1 0 d2 0\n# more\nq1 0 d3 -1\nq2 0 d1 1\n"
THREE_COLUMNS = "# judged\nq1 d1 2\nq1 d2 0\n# more\nq1 d3 -1\nq2 d1 1\n"
BEIR_TSV = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq1\td3\t-1\nq2\td1\t1\n"


@pytest.mark.parametrize("text", [THREE_COLUMNS, BEIR_TSV, BEIR_TSV.replace("\n", "\r\n"),
                                  "  q1  d1\t2 \nq1 d2 0\nq1\td3 -1\nq2 d1 1"],
                         ids=["3 columns", "BEIR TSV", "BEIR TSV, CRLF", "3 columns, blanks"])
def test_three_column_and_beir_qrels_read_as_trec(text: str, tmp_path: Path) -> None:
    trec = tmp_path / "qrels.trec"
    trec.write_text(TREC_QRELS)
    other = tmp_path / "qrels.other"
    other.write_bytes(text.encode())
    want = pr.read_qrels(trec)
    assert want["rel"].to_list() == [2, 0, None, 1]  # -1: in the pool, not judged
    assert_frame_equal(pr.read_qrels(other), want)
    assert_frame_equal(pr.scan_qrels(other).collect(), want)


def test_a_beir_header_alone_is_no_judgment(tmp_path: Path) -> None:
    # qrels without a judgment are refused, as trec_eval refuses an empty qrels file
    path = tmp_path / "test.tsv"
    path.write_text("query-id\tcorpus-id\tscore\n")
    lazy = pr.scan_qrels(path)
    assert lazy.collect_schema() == pl.Schema({"qid": pl.String, "docid": pl.String,
                                               "rel": pl.Int64})
    with pytest.raises(TrecFormatError, match=r"test\.tsv: no qrels line"):
        lazy.collect()


@pytest.mark.parametrize(("text", "line"), [
    ("q1 d1 1\nq1 0 d2 1\n", "line 2: 'q1 0 d2 1'"),        # 4 fields in a 3-field file
    ("q1 d1 1\nq1 d2 high\n", "line 2: 'q1 d2 high'"),      # a label that is no integer
    ("query-id\tcorpus-id\tscore\nq1\td1\n", "line 2: 'q1\\td1'"),
    ("q1 0 d1 1\nq1 d2 1\n", "line 2: 'q1 d2 1'"),          # 3 fields in a TREC file
], ids=["4 fields after 3", "text label", "BEIR line short", "3 fields after 4"])
def test_malformed_lines_name_file_and_line(text: str, line: str, tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with pytest.raises(TrecFormatError) as info:
        pr.read_qrels(path)
    assert str(path) in str(info.value)
    assert line in str(info.value)


# ------------------------------------------------------------------------ to_dict


def test_to_dict_is_pytrec_evals_shape() -> None:
    run, qrels = pr.to_dict(RUN), pr.to_dict(QRELS, value="rel")
    assert run == dict_of_dicts(RUN, "score")
    assert qrels == dict_of_dicts(QRELS, "rel")
    assert all(type(v) is float for docs in run.values() for v in docs.values())
    assert all(type(v) is int for docs in qrels.values() for v in docs.values())


def test_to_dict_round_trips_through_evaluate() -> None:
    run, qrels = pr.to_dict(RUN), pr.to_dict(QRELS, value="rel")
    got = pr.evaluate(run, qrels, METRICS, per_query=True)
    assert_frame_equal(by_qid(got), by_qid(pr.evaluate(RUN, QRELS, METRICS, per_query=True)))
    assert pr.to_dict(as_polars(run, "run")) == run


def test_to_dict_equals_pytrec_evals_own_evaluation() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = pr.to_dict(RUN), pr.to_dict(QRELS, value="rel")
    measures = ["ndcg_cut_10", "map", "recip_rank"]
    expected = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    got = pr.evaluate(run, qrels, measures, per_query=True)
    assert sorted(got["qid"]) == sorted(expected)
    for row in got.iter_rows(named=True):
        for measure in measures:
            assert math.isclose(row[measure], expected[row["qid"]][measure], abs_tol=1e-12), (
                row["qid"], measure)


def test_to_dict_names_columns_and_leaves_nulls_out() -> None:
    frame = pl.LazyFrame({"topic": [1, 1, 2, 2], "doc": [7, 8, 7, 9],
                          "label": [1, None, 0, 3]}, schema_overrides={"label": pl.UInt8})
    assert pr.to_dict(frame, query="topic", doc="doc", value="label") == {
        "1": {"7": 1}, "2": {"7": 0, "9": 3}}


@pytest.mark.ranx
def test_to_dict_feeds_ranx() -> None:
    ranx = pytest.importorskip("ranx")
    run = ranx.Run(pr.to_dict(RUN))
    assert_frame_equal(by_qid(as_polars(run, "run")).sort("qid", "docid"),
                       RUN.sort("qid", "docid"))


def test_to_dict_refuses_what_a_dict_cannot_hold() -> None:
    twice = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(InvalidDataError, match="query 'q1', document 'a' is on more than"):
        pr.to_dict(twice)
    no_id = pl.DataFrame({"qid": [None, "q1"], "docid": ["a", "b"], "score": [1.0, 2.0]})
    with pytest.raises(InvalidDataError, match="null 'qid' or 'docid'"):
        pr.to_dict(no_id)
    text = pl.DataFrame({"qid": ["q1"], "docid": ["a"], "score": ["high"]})
    with pytest.raises(TypeError, match="'score' must be numeric"):
        pr.to_dict(text)
