"""TREC run and qrels readers and the run writer (polars_rank.io).

Tolerated quirks read cleanly; every malformed line raises TrecFormatError naming the
file, the 1-based physical line number (comment and blank lines count) and the line;
write_run then read_run is an exact round trip in trec_eval's order.
"""

from __future__ import annotations

import re
import struct
from typing import TYPE_CHECKING

import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank.io import TrecFormatError

if TYPE_CHECKING:
    from pathlib import Path

RUN_SCHEMA = pl.Schema(
    {"qid": pl.String, "docid": pl.String, "score": pl.Float64, "rank": pl.Int64,
     "tag": pl.String}
)
QRELS_SCHEMA = pl.Schema({"qid": pl.String, "docid": pl.String, "rel": pl.Int64})


def write(path: Path, text: str) -> Path:
    """Write ``text`` byte for byte (no newline translation: CRLF stays CRLF)."""
    path.write_bytes(text.encode("utf-8"))
    return path


def run_frame(rows: list[tuple[str, str, float, int, str | None]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=RUN_SCHEMA, orient="row")


def qrels_frame(rows: list[tuple[str, str, int | None]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=QRELS_SCHEMA, orient="row")


# --------------------------------------------------------------------------- run quirks

RUN_EXPECTED = run_frame([
    ("q1", "d1", 2.5, 1, "bm25"),
    ("q1", "d2", 1.25, 2, "bm25"),
])

RUN_QUIRKS = {
    "single spaces": "q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.25 bm25\n",
    "tabs": "q1\tQ0\td1\t1\t2.5\tbm25\nq1\tQ0\td2\t2\t1.25\tbm25\n",
    "repeated spaces and tabs": "q1   Q0 \t d1  1\t\t2.5    bm25\nq1 Q0  d2 2  1.25 \tbm25\n",
    "leading and trailing whitespace": "   q1 Q0 d1 1 2.5 bm25   \n\tq1 Q0 d2 2 1.25 bm25\t \n",
    "CRLF": "q1 Q0 d1 1 2.5 bm25\r\nq1 Q0 d2 2 1.25 bm25\r\n",
    "CRLF with trailing blanks": "q1 Q0 d1 1 2.5 bm25 \r\nq1 Q0 d2 2 1.25 bm25\t\r\n",
    "comments": "# a run\nq1 Q0 d1 1 2.5 bm25\n# between\n#\nq1 Q0 d2 2 1.25 bm25\n# end\n",
    "blank lines": "\n\nq1 Q0 d1 1 2.5 bm25\n\n   \n\t\nq1 Q0 d2 2 1.25 bm25\n\n\n",
    "CRLF blank lines and comments":
        "# c\r\n\r\nq1 Q0 d1 1 2.5 bm25\r\n\r\n# c\r\nq1 Q0 d2 2 1.25 bm25\r\n",
    "no final newline": "q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.25 bm25",
}


@pytest.mark.parametrize("text", RUN_QUIRKS.values(), ids=RUN_QUIRKS.keys())
def test_run_quirks_are_tolerated(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "run.txt", text)
    assert_frame_equal(pr.read_run(path), RUN_EXPECTED)
    assert_frame_equal(pr.scan_run(path).collect(), RUN_EXPECTED)


def test_run_line_without_tag(tmp_path: Path) -> None:
    path = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5\nq1 Q0 d2 2 1.25 bm25\nq1 Q0 d3 3 1\n")
    expected = run_frame([
        ("q1", "d1", 2.5, 1, None),
        ("q1", "d2", 1.25, 2, "bm25"),
        ("q1", "d3", 1.0, 3, None),
    ])
    assert_frame_equal(pr.read_run(path), expected)


@pytest.mark.parametrize(("text", "value"), [
    ("1e3", 1e3), ("1E+10", 1e10), ("2.5e-8", 2.5e-8), ("-1.5e-3", -1.5e-3),
    ("-7", -7.0), ("-0.25", -0.25), ("+3.5", 3.5), ("0", 0.0), ("1.7976931348623157e308",
    1.7976931348623157e308), ("5e-324", 5e-324), (".5", 0.5), ("12", 12.0),
])
def test_run_scores_scientific_and_negative(tmp_path: Path, text: str, value: float) -> None:
    path = write(tmp_path / "run.txt", f"q1 Q0 d1 1 {text} tag\n")
    assert pr.read_run(path)["score"].to_list() == [value]


def test_run_integer_looking_ids_stay_strings(tmp_path: Path) -> None:
    path = write(tmp_path / "run.txt",
                 "001 Q0 0042 1 3 t\n001 Q0 7 2 2 t\n10 Q0 1e5 1 1 t\n0x1 Q0 -3 1 0 t\n")
    df = pr.read_run(path)
    assert df.schema == RUN_SCHEMA
    assert df["qid"].to_list() == ["001", "001", "10", "0x1"]
    assert df["docid"].to_list() == ["0042", "7", "1e5", "-3"]


def test_run_keeps_file_order_and_ranks(tmp_path: Path) -> None:
    # the rank column is informative: the reader keeps it as written, in file order
    path = write(tmp_path / "run.txt", "q2 Q0 b 5 0.1 t\nq1 Q0 a 9 0.9 t\nq2 Q0 c 1 0.7 t\n")
    df = pr.read_run(path)
    assert df.select("qid", "docid", "rank").rows() == [("q2", "b", 5), ("q1", "a", 9),
                                                         ("q2", "c", 1)]


@pytest.mark.parametrize("text", ["", "\n", "\n\n  \n", "# only a comment\n",
                                  "# c\r\n\r\n#\r\n"],
                         ids=["empty", "newline", "blank lines", "comment", "CRLF comments"])
def test_run_without_data_lines_is_empty_with_schema(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "run.txt", text)
    df = pr.read_run(path)
    assert df.height == 0
    assert df.schema == RUN_SCHEMA
    lf = pr.scan_run(path)
    assert lf.collect_schema() == RUN_SCHEMA
    assert lf.collect().height == 0


# ------------------------------------------------------------------------- qrels quirks

QRELS_EXPECTED = qrels_frame([("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d1", 1)])

QRELS_QUIRKS = {
    "single spaces": "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n",
    "tabs": "q1\t0\td1\t2\nq1\t0\td2\t0\nq2\t0\td1\t1\n",
    "repeated spaces and tabs": "q1  0\t\td1   2\nq1 \t0 d2  0\nq2 0    d1\t1\n",
    "leading and trailing whitespace": "  q1 0 d1 2  \n\tq1 0 d2 0\t\n q2 0 d1 1 \n",
    "CRLF": "q1 0 d1 2\r\nq1 0 d2 0\r\nq2 0 d1 1\r\n",
    "comments": "# qrels\nq1 0 d1 2\n#\nq1 0 d2 0\n# x y z w\nq2 0 d1 1\n",
    "blank lines": "\nq1 0 d1 2\n\n \nq1 0 d2 0\n\t\nq2 0 d1 1\n\n",
    "CRLF blank lines and comments": "#c\r\n\r\nq1 0 d1 2\r\nq1 0 d2 0\r\n\r\nq2 0 d1 1\r\n",
    "iter column ignored": "q1 Q0 d1 2\nq1 7 d2 0\nq2 iter d1 1\n",
    "no final newline": "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1",
}


@pytest.mark.parametrize("text", QRELS_QUIRKS.values(), ids=QRELS_QUIRKS.keys())
def test_qrels_quirks_are_tolerated(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "qrels.txt", text)
    assert_frame_equal(pr.read_qrels(path), QRELS_EXPECTED)
    assert_frame_equal(pr.scan_qrels(path).collect(), QRELS_EXPECTED)


def test_qrels_negative_labels_become_null(tmp_path: Path) -> None:
    path = write(tmp_path / "qrels.txt", "q1 0 d1 -1\nq1 0 d2 0\nq1 0 d3 3\nq1 0 d4 -2\n")
    expected = qrels_frame([("q1", "d1", None), ("q1", "d2", 0), ("q1", "d3", 3),
                            ("q1", "d4", None)])
    assert_frame_equal(pr.read_qrels(path), expected)


def test_qrels_integer_looking_ids_stay_strings(tmp_path: Path) -> None:
    path = write(tmp_path / "qrels.txt", "001 0 0042 1\n10 0 1e5 0\n")
    df = pr.read_qrels(path)
    assert df.schema == QRELS_SCHEMA
    assert df.rows() == [("001", "0042", 1), ("10", "1e5", 0)]


@pytest.mark.parametrize("text", ["", "\n", "# c\n\n", "\r\n#\r\n"],
                         ids=["empty", "newline", "comment", "CRLF"])
def test_qrels_without_data_lines_is_empty_with_schema(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "qrels.txt", text)
    df = pr.read_qrels(path)
    assert df.height == 0
    assert df.schema == QRELS_SCHEMA
    assert pr.scan_qrels(path).collect_schema() == QRELS_SCHEMA


# ------------------------------------------------------------------------ lazy / schema

def test_scan_is_lazy_read_is_eager(tmp_path: Path) -> None:
    run = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5 t\n")
    qrels = write(tmp_path / "qrels.txt", "q1 0 d1 1\n")
    assert isinstance(pr.scan_run(run), pl.LazyFrame)
    assert isinstance(pr.scan_qrels(qrels), pl.LazyFrame)
    assert isinstance(pr.read_run(run), pl.DataFrame)
    assert isinstance(pr.read_qrels(qrels), pl.DataFrame)
    assert pr.scan_run(run).collect_schema() == RUN_SCHEMA
    assert pr.scan_qrels(qrels).collect_schema() == QRELS_SCHEMA
    assert pr.read_run(run).schema == RUN_SCHEMA
    assert pr.read_qrels(qrels).schema == QRELS_SCHEMA


def test_readers_accept_str_paths(tmp_path: Path) -> None:
    run = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5 t\n")
    qrels = write(tmp_path / "qrels.txt", "q1 0 d1 1\n")
    assert pr.read_run(str(run)).height == 1
    assert pr.read_qrels(str(qrels)).height == 1


def test_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="nope"):
        pr.scan_run(tmp_path / "nope.txt")
    with pytest.raises(OSError, match="nope"):
        pr.read_qrels(tmp_path / "nope.txt")


# ------------------------------------------------------------------------ malformed lines

GOOD_RUN = "q1 Q0 d1 1 2.5 t"
GOOD_QRELS = "q1 0 d1 1"
# a prefix of comment, blank and data lines: the bad line is physical line 7
PREFIX_RUN = ["# header", GOOD_RUN, "", "# comment", "   ", "q1 Q0 d2 2 1.5 t"]
PREFIX_QRELS = ["# header", GOOD_QRELS, "", "# comment", "\t", "q1 0 d2 0"]

BAD_RUN = {
    "too few fields": "q1 Q0 d3 3",
    "one field": "garbage",
    "non-numeric score": "q1 Q0 d3 3 high tag",
    "non-numeric score, no tag": "q1 Q0 d3 3 high",
    "non-numeric rank": "q1 Q0 d3 third 1.0 tag",
}
BAD_QRELS = {
    "too few fields": "q1 0 d3",
    "one field": "garbage",
    "too many fields": "q1 0 d3 1 extra",
    "non-integer label 1.5": "q1 0 d3 1.5",
    "non-integer label x": "q1 0 d3 x",
}


def check_error(exc: pytest.ExceptionInfo[TrecFormatError], path: Path, line_no: int,
                line: str) -> None:
    message = str(exc.value)
    assert isinstance(exc.value, ValueError)
    assert path.name in message
    assert str(path) in message
    assert re.search(rf"\bline {line_no}\b", message), message
    assert line.strip() in message


@pytest.mark.parametrize("eol", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("bad", BAD_RUN.values(), ids=BAD_RUN.keys())
def test_malformed_run_line(tmp_path: Path, bad: str, eol: str) -> None:
    path = write(tmp_path / "my-run.txt", eol.join([*PREFIX_RUN, bad, GOOD_RUN]) + eol)
    with pytest.raises(TrecFormatError) as exc:
        pr.scan_run(path)  # checked when called, before collect
    check_error(exc, path, len(PREFIX_RUN) + 1, bad)
    with pytest.raises(TrecFormatError) as exc:
        pr.read_run(path)
    check_error(exc, path, len(PREFIX_RUN) + 1, bad)


@pytest.mark.parametrize("eol", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("bad", BAD_QRELS.values(), ids=BAD_QRELS.keys())
def test_malformed_qrels_line(tmp_path: Path, bad: str, eol: str) -> None:
    path = write(tmp_path / "my-qrels.txt", eol.join([*PREFIX_QRELS, bad, GOOD_QRELS]) + eol)
    with pytest.raises(TrecFormatError) as exc:
        pr.scan_qrels(path)
    check_error(exc, path, len(PREFIX_QRELS) + 1, bad)
    with pytest.raises(TrecFormatError) as exc:
        pr.read_qrels(path)
    check_error(exc, path, len(PREFIX_QRELS) + 1, bad)


def test_malformed_first_line(tmp_path: Path) -> None:
    path = write(tmp_path / "run.txt", "q1 Q0 d1 1\n" + GOOD_RUN + "\n")
    with pytest.raises(TrecFormatError) as exc:
        pr.read_run(path)
    check_error(exc, path, 1, "q1 Q0 d1 1")


def test_malformed_line_after_many_lines(tmp_path: Path) -> None:
    # line numbers stay physical in a file large enough to be read in several chunks
    lines: list[str] = []
    for i in range(60_000):
        lines.append(f"q{i % 13} Q0 d{i} {i} {i / 7} tag")
        if i % 997 == 0:
            lines.append("")
        if i % 1231 == 0:
            lines.append("# comment")
    lines.append("q1 Q0 dx 1 NOT_A_SCORE tag")
    lines.append(GOOD_RUN)
    path = write(tmp_path / "big.run", "\n".join(lines) + "\n")
    with pytest.raises(TrecFormatError) as exc:
        pr.scan_run(path)
    check_error(exc, path, len(lines) - 1, "q1 Q0 dx 1 NOT_A_SCORE tag")


def test_trec_format_error_is_value_error() -> None:
    assert issubclass(TrecFormatError, ValueError)
    assert pr.TrecFormatError is TrecFormatError


# ----------------------------------------------------------------------------- round trip

# no whitespace anywhere; '#' allowed except as the first character
SAFE = "abcxyzABCXYZ0123456789_-.:/,;+=|@%$!?()[]{}'\"~^&*#é"
ids = st.text(SAFE, min_size=1, max_size=8).filter(lambda s: not s.startswith("#"))
scores = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, -1e300, 5e-324, 1.7976931348623157e308]),
    st.none(),
)


def bits(x: float) -> bytes:
    return struct.pack(">d", x)


@st.composite
def run_rows(draw: st.DrawFn) -> list[tuple[str, str, float | None]]:
    qids = draw(st.lists(ids, min_size=0, max_size=4, unique=True))
    rows = []
    for q in qids:
        docs = draw(st.lists(ids, min_size=1, max_size=12, unique=True))
        rows += [(q, d, draw(scores)) for d in docs]
    return draw(st.permutations(rows))


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=run_rows(), tag=st.sampled_from(["polars-rank", "my_run"]))
def test_write_read_round_trip(tmp_path: Path, rows: list, tag: str) -> None:
    frame = pl.DataFrame(rows, schema={"qid": pl.String, "docid": pl.String,
                                       "score": pl.Float64}, orient="row")
    path = tmp_path / "round.run"
    pr.write_run(frame, path, tag=tag)
    back = pr.read_run(path)
    assert back.schema == RUN_SCHEMA

    kept = [(q, d, s) for q, d, s in rows if s is not None]
    assert back.height == len(kept)
    # same (qid, docid, score) set, scores bit-identical (-0.0, subnormals, extremes)
    assert sorted((q, d, bits(s)) for q, d, s in back.select("qid", "docid", "score").rows()) \
        == sorted((q, d, bits(s)) for q, d, s in kept)
    assert set(back["tag"]) <= {tag}

    # per query: ranks 1..n in file order, documents in trec_eval order
    for q in {q for q, _, _ in kept}:
        mine = back.filter(pl.col("qid") == q)
        assert mine["rank"].to_list() == list(range(1, mine.height + 1))
        expected = sorted(((s, d) for qq, d, s in kept if qq == q), reverse=True)
        assert mine["docid"].to_list() == [d for _, d in expected]


def test_write_run_lazy_input_custom_columns_and_nulls(tmp_path: Path) -> None:
    frame = pl.LazyFrame({
        "query": ["q1", "q1", "q1", "q2", "q2"],
        "doc": ["a", "b", "c", "a", "b"],
        "s": [1.0, None, 1.0, None, None],
    })
    path = tmp_path / "run.txt"
    pr.write_run(frame, path, query="query", doc="doc", score="s", tag="T")
    assert path.read_text() == "q1 Q0 c 1 1.0 T\nq1 Q0 a 2 1.0 T\n"


def test_write_run_integer_scores_and_ids(tmp_path: Path) -> None:
    frame = pl.DataFrame({"qid": [1, 1, 2], "docid": [10, 9, 3], "score": [5, 7, 1]})
    path = tmp_path / "run.txt"
    pr.write_run(frame, path)
    back = pr.read_run(path)
    assert back.select("qid", "docid", "score", "rank").rows() == [
        ("1", "9", 7.0, 1), ("1", "10", 5.0, 2), ("2", "3", 1.0, 1)]


def test_run_text_after_the_tag_is_ignored_as_trec_eval(tmp_path: Path) -> None:
    """trec_eval skips the rest of a run line after the tag (its test file results.trunc
    has such lines); so does the reader."""
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 bm25 more junk at\nq1 Q0 d2 2 1.5 bm25\n")
    run = pr.read_run(path)
    assert run.select("docid", "score", "tag").rows() == [("d1", 2.5, "bm25"), ("d2", 1.5, "bm25")]
