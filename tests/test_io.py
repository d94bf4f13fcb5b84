"""TREC run and qrels readers and the run writer (polars_rank.io).

The readers accept what trec_eval 10 accepts and refuse what it refuses
(get_trec_results.c, get_qrels.c), except where trec_eval would read a plausible wrong
number (a score that is not one, a label that is not an integer, a byte-order mark, a
NUL byte): those raise too. Every malformed line raises TrecFormatError naming the
file, the 1-based physical line number (comment and blank lines count) and the line;
``scan_*`` raise it when the frame is collected, never when called. Ids compare byte
for byte, as in trec_eval: a file that is not UTF-8 raises unless read with
``encoding="latin-1"``.

``reference`` below reads a file from trec_eval's rules in plain Python; every reader
path (the file read in place, the white space normalised, line by line) must give its
rows or fail on its first bad line, on random files of every shape. The trec_eval 10.0
binary itself (built from ``../shared``) must accept and refuse the same random files
and count the same lines per query.
write_run then read_run is an exact round trip in trec_eval's order.
"""

from __future__ import annotations

import re
import struct
import subprocess
from contextlib import ExitStack
from typing import TYPE_CHECKING
from unittest import mock

import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from trec_files import trec_files

import polars_rank as pr
from polars_rank import io
from polars_rank.__main__ import main
from polars_rank._io import reader as io_reader
from polars_rank.io import TrecFormatError

if TYPE_CHECKING:
    from pathlib import Path

RUN_SCHEMA = pl.Schema(
    {"qid": pl.String, "docid": pl.String, "score": pl.Float64, "rank": pl.Int64,
     "tag": pl.String}
)
QRELS_SCHEMA = pl.Schema({"qid": pl.String, "docid": pl.String, "rel": pl.Int64})


def write(path: Path, text: str | bytes) -> Path:
    """Write ``text`` byte for byte (no newline translation: CRLF stays CRLF)."""
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def run_frame(rows: list[tuple[str, str, float, int | None, str]]) -> pl.DataFrame:
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
    "indented comments": "  # a run\nq1 Q0 d1 1 2.5 bm25\n\t# x y z\nq1 Q0 d2 2 1.25 bm25\n",
    "blank lines": "\n\nq1 Q0 d1 1 2.5 bm25\n\n   \n\t\nq1 Q0 d2 2 1.25 bm25\n\n\n",
    "CRLF blank lines and comments":
        "# c\r\n\r\nq1 Q0 d1 1 2.5 bm25\r\n\r\n# c\r\nq1 Q0 d2 2 1.25 bm25\r\n",
    "no final newline": "q1 Q0 d1 1 2.5 bm25\nq1 Q0 d2 2 1.25 bm25",
    "vertical tab, form feed, carriage return": "q1\vQ0\fd1\r1 2.5 bm25\nq1 Q0 d2 2 1.25 bm25\n",
    "carriage return after the tag": "q1 Q0 d1 1 2.5 bm25\r\nq1 Q0 d2 2 1.25 bm25\rx\r\n",
    "fields after the tag": "q1 Q0 d1 1 2.5 bm25 x y\nq1 Q0 d2 2 1.25 bm25 \"z\n",
}


@pytest.mark.parametrize("text", RUN_QUIRKS.values(), ids=RUN_QUIRKS.keys())
def test_run_quirks_are_tolerated(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "run.txt", text)
    assert_frame_equal(pr.read_run(path), RUN_EXPECTED)
    assert_frame_equal(pr.scan_run(path).collect(), RUN_EXPECTED)


def test_run_line_without_tag_is_malformed_as_in_trec_eval(tmp_path: Path) -> None:
    # get_trec_results.c needs the sixth field ("Malformed line"): so does the reader
    path = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.25\n")
    with pytest.raises(TrecFormatError, match=r"line 2: 'q1 Q0 d2 2 1.25' \(5 fields\)"):
        pr.read_run(path)


def test_run_rank_field_is_ignored_as_in_trec_eval(tmp_path: Path) -> None:
    # trec_eval never reads the rank field: one that is not an integer is null here
    path = write(tmp_path / "run.txt", "q1 Q0 d1 first 2.5 t\nq1 Q0 d2 2.0 1 t\nq1 Q0 d3 -3 0 t\n")
    assert pr.read_run(path).select("docid", "rank").rows() == [
        ("d1", None), ("d2", None), ("d3", -3)]


def test_run_carriage_return_is_a_separator_as_in_trec_eval(tmp_path: Path) -> None:
    # C's isspace('\r'): trec_eval reads q1, x, Q0, d1, 1, 2.5 (and ignores bm25)
    path = write(tmp_path / "run.txt", "q1\rx Q0 d1 1 2.5 bm25\r\n")
    assert pr.read_run(path).rows() == [("q1", "Q0", 1.0, None, "2.5")]


@pytest.mark.parametrize(("text", "value"), [
    ("1e3", 1e3), ("1E+10", 1e10), ("2.5e-8", 2.5e-8), ("-1.5e-3", -1.5e-3),
    ("-7", -7.0), ("-0.25", -0.25), ("+3.5", 3.5), ("0", 0.0), ("1.7976931348623157e308",
    1.7976931348623157e308), ("5e-324", 5e-324), (".5", 0.5), ("12", 12.0), ("5.", 5.0),
    ("1e400", float("inf")), ("-inf", float("-inf")), ("Infinity", float("inf")),
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


# ------------------------------------------------------------------------- qrels quirks

QRELS_EXPECTED = qrels_frame([("q1", "d1", 2), ("q1", "d2", 0), ("q2", "d1", 1)])

QRELS_QUIRKS = {
    "single spaces": "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n",
    "tabs": "q1\t0\td1\t2\nq1\t0\td2\t0\nq2\t0\td1\t1\n",
    "repeated spaces and tabs": "q1  0\t\td1   2\nq1 \t0 d2  0\nq2 0    d1\t1\n",
    "leading and trailing whitespace": "  q1 0 d1 2  \n\tq1 0 d2 0\t\n q2 0 d1 1 \n",
    "CRLF": "q1 0 d1 2\r\nq1 0 d2 0\r\nq2 0 d1 1\r\n",
    "comments": "# qrels\nq1 0 d1 2\n#\nq1 0 d2 0\n# x y z w\nq2 0 d1 1\n",
    "CRLF and comments": "#c\r\nq1 0 d1 2\r\nq1 0 d2 0\r\n# c\r\nq2 0 d1 1\r\n",
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


# ------------------------------------------------------------- files that are not TREC text

NOT_READABLE = {
    "empty": (b"", "empty file"),
    "a newline": (b"\n", "no {what} line"),
    "blank lines": (b"\n\n  \n\t\r\n", "no {what} line"),
    "comments": (b"# only a comment\n#\r\n", "no {what} line"),
    "UTF-16 (PowerShell's default)": ("q1 Q0 d1 1 2.5 t\n".encode("utf-16"), "UTF-16"),
    "UTF-16 without a byte-order mark": ("q1 Q0 d1 1 2.5 t\n".encode("utf-16-le"), "NUL byte"),
    "binary": (bytes(range(256)) * 4, "NUL byte"),
    "UTF-8 byte-order mark": ("\ufeffq1 Q0 d1 1 2.5 t\n".encode(), "byte-order mark"),
}


@pytest.mark.parametrize("what", ["run", "qrels"])
@pytest.mark.parametrize(("data", "why"), NOT_READABLE.values(), ids=NOT_READABLE.keys())
def test_unreadable_files_raise_when_scanned(tmp_path: Path, data: bytes, why: str,
                                             what: str) -> None:
    # trec_eval cannot read an empty file either, and reads nothing from the others
    path = write(tmp_path / f"my-{what}.txt", data)
    scan = pr.scan_run if what == "run" else pr.scan_qrels
    with pytest.raises(TrecFormatError, match=re.escape(why.format(what=what))) as exc:
        scan(path)
    assert str(path) in str(exc.value)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("what", ["run", "qrels"])
def test_nul_byte_after_the_first_line_raises_when_collected(tmp_path: Path,
                                                             what: str) -> None:
    good = "q1 Q0 d1 1 2.5 t\n" if what == "run" else "q1 0 d1 1\n"
    path = write(tmp_path / "file.txt", good * 3 + good.replace("d1", "d\0") + good)
    lazy = pr.scan_run(path) if what == "run" else pr.scan_qrels(path)
    with pytest.raises(TrecFormatError, match=r"file\.txt: .*line 4: .* \(a NUL byte"):
        lazy.collect()


# ------------------------------------------------------------------------- ids as bytes

def test_ids_that_are_not_utf8_raise_naming_the_line_and_the_encoding(tmp_path: Path) -> None:
    run = write(tmp_path / "run.txt", b"q1 Q0 d1 1 2.5 t\nq1 Q0 caf\xe8 2 0.9 r\n")
    qrels = write(tmp_path / "qrels.txt", b"q1 0 caf\xe9 1\n")
    with pytest.raises(TrecFormatError, match=r"run\.txt.*line 2: 'q1 Q0 caf\\\\xe8 2 0\.9 r' "
                                              r"\(not UTF-8; read it with encoding='latin-1'"):
        pr.read_run(run)
    with pytest.raises(TrecFormatError, match=r"qrels\.txt.*line 1: .*encoding='latin-1'"):
        pr.scan_qrels(qrels).collect()


def test_latin1_keeps_every_byte_distinct_as_trec_eval(tmp_path: Path) -> None:
    # the case: trec_eval compares bytes and prints P_1 0.0000; utf8-lossy
    # decoding made both ids U+FFFD and gave 1.0
    run = write(tmp_path / "run.txt", b"q1 Q0 caf\xe8 1 0.9 r\n")
    qrels = write(tmp_path / "qrels.txt", b"q1 0 caf\xe9 1\n")
    read_run, read_qrels = (pr.read_run(run, encoding="latin-1"),
                            pr.read_qrels(qrels, encoding="latin-1"))
    assert read_run["docid"].to_list() == ["cafè"]
    assert read_qrels["docid"].to_list() == ["café"]
    assert pr.evaluate(read_run, read_qrels, ["P@1"])["P@1"].item() == 0.0
    # the same bytes on both sides still match
    write(qrels, b"q1 0 caf\xe8 1\n")
    assert pr.evaluate(read_run, pr.read_qrels(qrels, encoding="latin-1"),
                       ["P@1"])["P@1"].item() == 1.0


def test_utf8_ids_compare_as_bytes_and_no_space_but_c_whitespace_separates(
        tmp_path: Path) -> None:
    # U+00A0 and U+2003 are white space to Python and Polars' regex, not to C's isspace
    text = "q1 Q0 café 1 2 t\nq1 Q0 d\u00a01 2 1 t\nq1 Q0 d\u2003x 3 0 t\n"
    run = write(tmp_path / "run.txt", text)
    assert pr.read_run(run)["docid"].to_list() == ["café", "d\u00a01", "d\u2003x"]
    # latin-1 on UTF-8 text: different characters, the same comparisons
    both = pr.read_run(run, encoding="latin-1")["docid"].to_list()
    assert [d.encode("latin-1") for d in both] == [d.encode() for d in ("café", "d\u00a01",
                                                                         "d\u2003x")]


@pytest.mark.parametrize("encoding", ["utf8", "UTF-8", "latin1", "ISO-8859-1", "l1"])
def test_encoding_spellings(tmp_path: Path, encoding: str) -> None:
    path = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5 t\n")
    assert pr.read_run(path, encoding=encoding).height == 1


@pytest.mark.parametrize("encoding", ["cp1252", "utf-16", "ascii", "nope"])
def test_other_encodings_are_refused(tmp_path: Path, encoding: str) -> None:
    path = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5 t\n")
    with pytest.raises(ValueError, match=rf"encoding='{encoding}': 'utf-8' .* or 'latin-1'"):
        pr.scan_run(path, encoding=encoding)


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


def test_scan_reads_the_file_when_collected(tmp_path: Path) -> None:
    run = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5 t\n")
    lazy = pr.scan_run(run)
    write(run, "q1 Q0 d1 1 2.5 t\nq2 Q0 d2 1 0.5 t\n")  # after the scan was built
    assert lazy.collect().height == 2
    write(run, "q1 Q0 d1 1 2.5 t\nq2 Q0 d2 1 high t\n")
    with pytest.raises(TrecFormatError, match="line 2"):
        lazy.collect()


def test_one_plan_reads_a_scan_once(tmp_path: Path) -> None:
    run = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n")
    lazy = pr.scan_run(run)
    with mock.patch.object(io_reader, "read_frame", wraps=io_reader.read_frame) as read:
        twice = lazy.join(lazy.select("docid", pl.col("score").alias("s")), on="docid")
        assert twice.collect().height == 2
        assert read.call_count == 1


def test_scan_plans_push_nothing_into_the_file_read(tmp_path: Path) -> None:
    # filters, projections and slices apply to the rows read, on either engine
    run = write(tmp_path / "run.txt", "q1 Q0 a 1 3 t\nq2 Q0 b 1 2 t\nq2 Q0 c 2 1 t\n")
    plan = pr.scan_run(run).filter(pl.col("qid") == "q2").select("docid").head(1)
    assert plan.collect()["docid"].to_list() == ["b"]
    assert plan.collect(engine="streaming")["docid"].to_list() == ["b"]


def test_readers_accept_str_paths(tmp_path: Path) -> None:
    run = write(tmp_path / "run.txt", "q1 Q0 d1 1 2.5 t\n")
    qrels = write(tmp_path / "qrels.txt", "q1 0 d1 1\n")
    assert pr.read_run(str(run)).height == 1
    assert pr.read_qrels(str(qrels)).height == 1


def test_paths_are_not_glob_patterns(tmp_path: Path) -> None:
    write(tmp_path / "run1.txt", "q1 Q0 d1 1 2.5 t\n")
    run = write(tmp_path / "run[1].txt", "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n")
    assert pr.read_run(run).height == 2


def test_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="nope"):
        pr.scan_run(tmp_path / "nope.txt")
    with pytest.raises(OSError, match="nope"):
        pr.read_qrels(tmp_path / "nope.txt")


# ------------------------------------------------------------------------ malformed lines

GOOD_RUN = "q1 Q0 d1 1 2.5 t"
GOOD_QRELS = "q1 0 d1 1"
# a prefix of comment (and, in the run, blank) lines: the bad line is physical line 7
PREFIX_RUN = ["# header", GOOD_RUN, "", "# comment", "   ", "q1 Q0 d2 2 1.5 t"]
PREFIX_QRELS = ["# header", GOOD_QRELS, "#", "q1 0 d5 0", "# comment", "q1 0 d2 0"]

BAD_RUN = {
    "too few fields": "q1 Q0 d3 3",
    "one field": "garbage",
    "no tag": "q1 Q0 d3 3 1.0",
    "non-numeric score": "q1 Q0 d3 3 high tag",
    "score with a comma": "q1 Q0 d3 3 1,5 tag",
    "non-numeric score, no tag": "q1 Q0 d3 3 high",
}
BAD_QRELS = {
    "too few fields": "q1 0 d3",
    "one field": "garbage",
    "too many fields": "q1 0 d3 1 extra",
    "non-integer label 1.5": "q1 0 d3 1.5",
    "non-integer label x": "q1 0 d3 x",
    "blank line": "",
    "white space only": " \t ",
}


def check_error(exc: pytest.ExceptionInfo[TrecFormatError], path: Path, line_no: int,
                line: str) -> None:
    message = str(exc.value)
    assert isinstance(exc.value, ValueError)
    assert str(path) in message
    assert re.search(rf"\bline {line_no}\b", message), message
    assert f"'{line.strip()}'" in message, message
    assert "\n" not in message


@pytest.mark.parametrize("eol", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("bad", BAD_RUN.values(), ids=BAD_RUN.keys())
def test_malformed_run_line(tmp_path: Path, bad: str, eol: str) -> None:
    path = write(tmp_path / "my-run.txt", eol.join([*PREFIX_RUN, bad, GOOD_RUN]) + eol)
    lazy = pr.scan_run(path)  # lazy: nothing read past the first data line
    with pytest.raises(TrecFormatError) as exc:
        lazy.collect()
    check_error(exc, path, len(PREFIX_RUN) + 1, bad)
    with pytest.raises(TrecFormatError) as exc:
        pr.read_run(path)
    check_error(exc, path, len(PREFIX_RUN) + 1, bad)


@pytest.mark.parametrize("eol", ["\n", "\r\n"], ids=["LF", "CRLF"])
@pytest.mark.parametrize("bad", BAD_QRELS.values(), ids=BAD_QRELS.keys())
def test_malformed_qrels_line(tmp_path: Path, bad: str, eol: str) -> None:
    path = write(tmp_path / "my-qrels.txt", eol.join([*PREFIX_QRELS, bad, GOOD_QRELS]) + eol)
    lazy = pr.scan_qrels(path)
    with pytest.raises(TrecFormatError) as exc:
        lazy.collect()
    check_error(exc, path, len(PREFIX_QRELS) + 1, bad)
    with pytest.raises(TrecFormatError) as exc:
        pr.read_qrels(path)
    check_error(exc, path, len(PREFIX_QRELS) + 1, bad)


def test_qrels_blank_last_line_is_malformed_as_in_trec_eval(tmp_path: Path) -> None:
    # trec_eval: "get_qrels: Malformed line 3" on a qrels file ending with a blank line
    for text, line in (("q1 0 d1 1\nq1 0 d2 0\n\n", 3), ("q1 0 d1 1\nq1 0 d2 0\n  ", 3),
                       ("q1 0 d1 1\r\n\r\n", 2)):
        path = write(tmp_path / "qrels.txt", text)
        with pytest.raises(TrecFormatError, match=rf"line {line}: '' \(a blank line"):
            pr.read_qrels(path)


@pytest.mark.parametrize(("text", "line", "why"), [
    ("# a\n# b\nq1 0 d1 1\n", 2, "right after another"),
    ("q1 0 d1 1\n  # a\nq1 0 d2 1\n", 2, "after white space"),
    ("q1 0 d1 1\n# end\n", 2, "the last line"),
])
def test_qrels_comments_trec_eval_does_not_skip(tmp_path: Path, text: str, line: int,
                                                why: str) -> None:
    # get_qrels.c skips a "#" line only at the start of a line and not twice in a row;
    # it reads the others as data ("Malformed line") and crashes on a comment at the end
    path = write(tmp_path / "qrels.txt", text)
    with pytest.raises(TrecFormatError, match=rf"line {line}: .*\(.*{why}"):
        pr.read_qrels(path)
    # a run's comments are skipped anywhere, as get_trec_results.c skips them
    run = text.replace("0 d", "Q0 d").replace(" 1\n", " 1 1 t\n")
    data = [line for line in run.splitlines() if not line.strip().startswith("#")]
    assert pr.read_run(write(tmp_path / "run.txt", run)).height == len(data)


def test_malformed_lines_are_named_in_order_three_at_most(tmp_path: Path) -> None:
    lines = [GOOD_RUN, "q1 Q0 a 1 x t", "q1 Q0 b", GOOD_RUN, "q1 Q0 c 1 y t", "q1 Q0 d", "z"]
    path = write(tmp_path / "run.txt", "\n".join(lines) + "\n")
    with pytest.raises(TrecFormatError) as exc:
        pr.read_run(path)
    assert re.findall(r"line (\d+):", str(exc.value)) == ["2", "3", "5"]


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
        pr.scan_run(path).collect()
    check_error(exc, path, len(lines) - 1, "q1 Q0 dx 1 NOT_A_SCORE tag")


def test_malformed_lines_surface_through_evaluate(tmp_path: Path) -> None:
    run = write(tmp_path / "run.txt", f"{GOOD_RUN}\nq1 Q0 d2 2 high t\n")
    qrels = write(tmp_path / "qrels.txt", GOOD_QRELS + "\n")
    with pytest.raises(TrecFormatError) as exc:
        pr.evaluate(pr.scan_run(run), pr.scan_qrels(qrels), ["map"]).collect()
    check_error(exc, run, 2, "q1 Q0 d2 2 high t")


def test_trec_format_error_is_value_error() -> None:
    assert issubclass(TrecFormatError, ValueError)
    assert pr.TrecFormatError is TrecFormatError


# --------------------------------------------------------------- against trec_eval's rules

C_SPACE = re.compile(rb"[ \t\n\v\f\r]+")  # isspace() in the C locale
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|infinity|nan)", re.I)
INTEGER = re.compile(r"[+-]?\d{1,18}")


def reference(data: bytes, what: str, encoding: str = "utf-8") -> pl.DataFrame | int:
    """The file's rows as trec_eval 10 reads them, or the number of its first bad line.

    get_trec_results.c / get_qrels.c: lines split on ``\\n``; fields on C white space; a
    line whose first field starts with ``#`` skipped (in qrels only where get_qrels.c
    skips it: ``#`` first on the line, not after another comment, not the last line);
    blank lines skipped in a run, an error in qrels; a run line needs 6 fields (more
    are ignored), a qrels line exactly the first data line's 4 (or 3: ``qid docid
    rel``, polars-rank's). The readers' stricter rules: scores are numbers in full,
    labels integers, ids text in ``encoding`` (no NUL byte, no byte-order mark).
    """
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    rows, width, comment = [], 0, False
    for number, raw in enumerate(lines, 1):
        fields = [f for f in C_SPACE.split(raw) if f]
        if b"\0" in raw or raw.startswith(b"\xef\xbb\xbf"):
            return number
        if not fields:
            if what == "qrels":
                return number
            continue
        after_comment, comment = comment, fields[0].startswith(b"#")
        if comment:  # qrels: only at the line's start, not twice in a row, not last
            if what == "qrels" and (raw[:1] != b"#" or after_comment or number == len(lines)):
                return number
            continue
        width = width or (6 if what == "run" else len(fields) if len(fields) == 3 else 4)
        if len(fields) < width or (what == "qrels" and len(fields) > width):
            return number
        try:
            text = [f.decode(encoding) for f in fields[:width]]
        except UnicodeDecodeError:
            return number
        if what == "run":
            qid, _, docid, rank, score, tag = text
            if not NUMBER.fullmatch(score):
                return number
            rows.append((qid, docid, float(score),
                         int(rank) if INTEGER.fullmatch(rank) else None, tag))
        else:
            qid, docid, rel = text[0], text[-2], text[-1]
            if not INTEGER.fullmatch(rel):
                return number
            rows.append((qid, docid, int(rel) if int(rel) >= 0 else None))
    assert rows, "the generated files have a data line"
    return run_frame(rows) if what == "run" else qrels_frame(rows)


PATHS = {
    "auto": {},
    "normalised": {"_read_file": None},  # white space made single spaces, then Polars
    "line by line": {"_read_file": None, "_single_spaced": None},
}


def read_by(path_kind: str, reader: str, path: Path, encoding: str) -> pl.DataFrame:
    """``reader`` on ``path``, the faster reading paths turned off as ``path_kind`` says."""
    with ExitStack() as stack:
        for name, value in PATHS[path_kind].items():
            stack.enter_context(mock.patch.object(io_reader, name, lambda *_, v=value, **__: v))
        if reader == "run":
            return pr.read_run(path, encoding=encoding)
        return pr.read_qrels(path, encoding=encoding)


def check_against_reference(path: Path, what: str, encoding: str = "utf-8") -> None:
    expected = reference(path.read_bytes(), what, encoding)
    for kind in PATHS:
        if isinstance(expected, int):
            with pytest.raises(TrecFormatError) as exc:
                read_by(kind, what, path, encoding)
            first = re.search(r"\bline (\d+)\b", str(exc.value))
            assert first is not None, str(exc.value)
            assert int(first.group(1)) == expected, (kind, str(exc.value))
        else:
            assert_frame_equal(read_by(kind, what, path, encoding), expected)


ID_TEXT = st.text(st.sampled_from([*"abcXYZ019_-.:/'\",é#", "\u00a0", "€"]), min_size=1,
                  max_size=6)
SCORES = st.one_of(
    st.floats(allow_nan=False, width=64).map(repr),
    st.sampled_from(["0", "-0", "1e3", "2.5E-3", ".5", "5.", "+1", "inf", "-Infinity", "07",
                     "nan", "-NaN", "1e400"]),
)
RANKS = st.sampled_from(["1", "2", "10", "-1", "+3", "007", "1.0", "x", "99999999999999999999"])
SEPARATORS = st.sampled_from([" ", " ", " ", "\t", "  ", " \t ", "\v", "\f", "\r"])


@st.composite
def trec_text(draw: st.DrawFn, what: str) -> bytes:
    """A run or qrels file: one separator style or a mix, comments, blank lines, CRLF,
    extra or missing fields, now and then a bad value or a byte that is not UTF-8."""
    style = draw(st.sampled_from(["space", "tab", "carriage return", "mixed"]))
    separator = {"space": st.just(" "), "tab": st.just("\t"), "mixed": SEPARATORS,
                 "carriage return": st.sampled_from([" ", " ", "\r"])}[style]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    clean = style != "mixed"
    width = 6 if what == "run" else draw(st.sampled_from([4, 4, 3]))
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["data"] * 8 + ["comment", "blank", "bad"]))
        if kind == "comment":
            lines.append(("" if clean else draw(st.sampled_from(["", "  "]))) + "# x y")
            continue
        if kind == "blank":
            lines.append("" if clean else draw(st.sampled_from(["", " ", "\t "])))
            continue
        qid, docid = draw(ID_TEXT), draw(ID_TEXT)
        if what == "run":
            fields = [qid, "Q0", docid, draw(RANKS), draw(SCORES), draw(ID_TEXT)]
            fields += draw(st.lists(ID_TEXT, max_size=2))  # ignored after the tag
        else:
            rel = str(draw(st.integers(-2, 4)))
            fields = [qid, "0", docid, rel] if width == 4 else [qid, docid, rel]
        if kind == "bad":
            fields = draw(st.sampled_from([fields[:-1], [*fields[:-1], "1,5"], [*fields, "x"]]))
        parts = [fields[0]]
        for field in fields[1:]:
            parts += [draw(separator), field]
        line = "".join(parts)
        if not clean:
            line = draw(st.sampled_from(["", " ", "\t"])) + line + draw(st.sampled_from(["", " "]))
        lines.append(line)
    text = eol.join(lines) + draw(st.sampled_from([eol, ""]))
    data = text.encode()
    if draw(st.integers(0, 9)) == 0:  # a Latin-1 byte: not UTF-8
        data = data.replace("é".encode(), b"\xe9")
    return data


@settings(max_examples=examples(300), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), what=st.sampled_from(["run", "qrels"]))
def test_every_reading_path_reads_as_trec_eval(tmp_path: Path, data: st.DataObject,
                                               what: str) -> None:
    text = data.draw(trec_text(what))
    path = write(tmp_path / "file.txt", text)
    data_lines = [line for line in text.split(b"\n")
                  if (fields := C_SPACE.split(line.strip())) != [b""] and b"#" not in fields[0][:1]]
    if not data_lines:  # refused when scanned
        with pytest.raises(TrecFormatError, match=f"empty file|no {what} line"):
            pr.scan_run(path) if what == "run" else pr.scan_qrels(path)
        return
    check_against_reference(path, what)
    check_against_reference(path, what, "latin-1")


@pytest.mark.parametrize("seed", range(6))
def test_trec_files_cases_read_as_trec_eval(tmp_path: Path, seed: int) -> None:
    # the random collections test_trec_eval_binary.py gives trec_eval (tabs, repeated
    # blanks, comments, long tags); and the same lines single-spaced (the in-place path)
    qrels, run = trec_files(seed, qrels_only=True).write(tmp_path)
    check_against_reference(run, "run")
    check_against_reference(qrels, "qrels")
    for path in (run, qrels):
        lines = [b" ".join(line.split()) for line in path.read_bytes().splitlines()]
        write(path, b"\n".join(lines) + b"\n")
    check_against_reference(run, "run")
    check_against_reference(qrels, "qrels")


# ----------------------------------------------------------------- against trec_eval itself


QIDS = ("1", "10", "q3")
BLANK = st.sampled_from([" ", " ", " ", "\t", "  ", " \t", "\v", "\f", "\r"])


@st.composite
def oracle_text(draw: st.DrawFn, what: str) -> bytes:
    """A run or qrels file of data lines (unique documents, numbers trec_eval and the
    readers both read), comments where trec_eval does and does not skip them, blank
    lines, lines a field short or long, any white space, CRLF, Latin-1 bytes."""
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    for i in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["data"] * 6 + ["comment", "blank", "short", "long"]))
        lead, trail = draw(st.sampled_from(["", "", " ", "\t"])), draw(st.sampled_from(["", " "]))
        if kind == "comment":
            lines.append(lead + "# x")
            continue
        if kind == "blank":
            lines.append(lead + trail)
            continue
        doc = f"d{i}" + draw(st.sampled_from(["", "é", "\u00a0x", "#", '"']))
        qid = draw(st.sampled_from(QIDS))
        if what == "run":
            score = draw(st.sampled_from(["1", "-2.5", ".5", "1e3"]))
            fields = [qid, "Q0", doc, draw(RANKS), score, draw(ID_TEXT)]
        else:
            fields = [qid, "0", doc, draw(st.sampled_from(["0", "1", "2"]))]
        if kind == "short":
            fields.pop()
        if kind == "long":
            fields.append("x")
        line = fields[0]
        for field in fields[1:]:
            line += draw(BLANK) + field
        lines.append(lead + line + trail)
    text = (eol.join(lines) + draw(st.sampled_from([eol, ""]))).encode()
    return text.replace("é".encode(), b"\xe9") if draw(st.booleans()) else text


def binary_counts(binary: Path, qrels: Path, run: Path, measure: str) -> dict[str, int] | None:
    """trec_eval -c -q -m ``measure``: the value per query, or None when it fails."""
    done = subprocess.run([str(binary), "-c", "-q", "-m", measure, str(qrels), str(run)],
                          capture_output=True, check=False)
    if done.returncode != 0:
        return None
    rows = [line.split(b"\t") for line in done.stdout.splitlines()]
    return {q.decode().strip(): int(v) for _, q, v in rows if q.strip() != b"all"}


@settings(max_examples=examples(120), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), what=st.sampled_from(["run", "qrels"]))
def test_readers_accept_and_read_what_the_trec_eval_binary_does(
        trec_eval: Path, tmp_path: Path, data: st.DataObject, what: str) -> None:
    # the other file is plain: one line per query, a judged document none of them has
    text = data.draw(oracle_text(what))
    run = write(tmp_path / "run", text if what == "run" else
                "".join(f"{q} Q0 zz 1 1 t\n" for q in QIDS))
    qrels = write(tmp_path / "qrels", text if what == "qrels" else
                  "".join(f"{q} 0 zz 1\n" for q in QIDS))
    theirs = binary_counts(trec_eval, qrels, run, "num_ret" if what == "run" else "num_rel")
    ours = read_latin1(what, run if what == "run" else qrels)
    if isinstance(ours, str):  # refused: so is it by trec_eval, or it has no data line
        assert theirs is None or re.search("empty file|no (run|qrels) line", ours), ours
        return
    assert theirs is not None, f"trec_eval refuses what polars-rank reads: {text!r}"
    counts = dict(ours.group_by("qid").len().iter_rows())
    assert {q: counts.get(q, 0) for q in theirs} == theirs


def read_latin1(what: str, path: Path) -> pl.DataFrame | str:
    """The run, or the qrels' relevant rows, read as any bytes; or the error message."""
    try:
        if what == "run":
            return pr.read_run(path, encoding="latin-1")
        return pr.read_qrels(path, encoding="latin-1").filter(pl.col("rel") > 0)
    except TrecFormatError as exc:
        return str(exc)


# --------------------------------------------------------------------------- the run tag

def test_last_tag_is_the_tag_of_the_last_data_line(tmp_path: Path) -> None:
    body = "".join(f"q1 Q0 d{i} {i} 1 tag{i}\n" for i in range(5000))
    path = write(tmp_path / "run.txt", body + "# end\n" * 20_000 + "\n \n")  # > 64 KiB after
    assert io.last_tag(path) == "tag4999"
    assert io.last_tag(path) == pr.read_run(path)["tag"][-1]
    write(path, body + "q2 Q0 x 1 1\n# end\n#q2 Q0 x 1 1\n" + "\n" * 70_000)
    with pytest.raises(TrecFormatError, match=r"line 5001: 'q2 Q0 x 1 1' \(5 fields\)"):
        io.last_tag(path)
    write(path, b"q1 Q0 d 1 1 caf\xe9\n")
    assert io.last_tag(path, encoding="latin-1") == "café"
    with pytest.raises(TrecFormatError, match="not UTF-8"):
        io.last_tag(path)


# ------------------------------------------------------------------------ the command line

@pytest.mark.parametrize(("run", "qrels", "why"), [  # (ids not UTF-8 are read as bytes:
    (b"", b"q1 0 d1 1\n", "empty file"),            # test_trec_eval_command_line.py)
    (b"q1 Q0 d1 1 0.9 r\n", b"", "empty file"),
    ("q1 Q0 d1 1 0.9 r\n".encode("utf-16"), b"q1 0 d1 1\n", "UTF-16"),
    (b"q1 Q0 d1 1 0.9 r\n", b"q1 0 d1 1\n\n", "a blank line"),
    (b"q1 Q0 d1 1 high r\n", b"q1 0 d1 1\n", "is not a number"),
])
def test_cli_says_what_is_wrong_in_one_line(tmp_path: Path, run: bytes, qrels: bytes, why: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    run_path, qrels_path = write(tmp_path / "run", run), write(tmp_path / "qrels", qrels)
    assert main(["eval", "-m", "P.1", str(qrels_path), str(run_path)]) != 0
    out, err = capsys.readouterr()
    assert out == ""
    assert why in err
    assert err.count("\n") == 1, err
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
    kept = [(q, d, s) for q, d, s in rows if s is not None]
    if not kept:  # an empty file, which trec_eval cannot read either
        with pytest.raises(TrecFormatError, match="empty file"):
            pr.read_run(path)
        return
    back = pr.read_run(path)
    assert back.schema == RUN_SCHEMA

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
