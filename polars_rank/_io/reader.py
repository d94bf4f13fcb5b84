"""Reading a TREC file into a frame: Polars' CSV reader where it can, line by line where not.

The fast path parses the file in place (one space or one tab between fields), the
next a single-spaced copy; a file either refuses is read line by line, as trec_eval
reads it, to name its malformed lines. ``scan`` wraps the read in a lazy frame;
``last_tag`` reads only a run file's end.
"""

from __future__ import annotations

import inspect
import math
import mmap
import os
import re
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._io.layouts import (
    BOM,
    EXTRA,
    NOT_UTF8,
    NUL,
    PREFS,
    QRELS_PREFS,
    RUN,
    UTF8_BOM,
    Encoding,
    Layout,
    PathLike,
    check_bytes,
    checked_encoding,
    opened,
    shown_line,
)
from polars_rank.errors import TrecFormatError

if TYPE_CHECKING:
    from pathlib import Path

_BLANKS = b"\t\v\f\r"  # with the space and the newline: C's isspace(), trec_eval's separators
_TO_SPACE = bytes.maketrans(_BLANKS, b" " * len(_BLANKS))
_REPEATED_SPACES = re.compile(rb"  +")
_COMMENT = re.compile(rb"^[ \t\v\f\r]*#[^\n]*(?:\n|\Z)", re.MULTILINE)
_BAD = "__bad"  # a row that is not as it should be
_SHOWN = 3  # malformed lines named in one error
# Polars 2 refuses a line with more or fewer fields than the schema unless told to take
# it (trec_eval ignores a run's fields after the tag; a missing field is reported here)
_RAGGED: dict[str, Any] = (
    {"extra_columns": "ignore", "missing_columns": "insert"}
    if "extra_columns" in inspect.signature(pl.read_csv).parameters else {}
)


def read_frame(path: Path, layout: Layout, encoding: Encoding, skip: int) -> pl.DataFrame:
    """Every data line of the file, as ``layout.schema``; ``skip``: lines not read (a header).

    Polars' CSV reader parses the file itself when its fields are separated by one
    space or one tab each (trec_eval's own output, and most tools'); otherwise on a copy
    with the white space made single spaces. When either finds a line that is not as it
    should be, the file is read again line by line, to name the lines in the error.
    """
    latin1 = encoding == "latin-1"
    frame = _read_file(path, layout, skip, ascii_ids=latin1)  # ASCII reads alike in both
    if frame is not None:
        return frame
    data = path.read_bytes()
    if latin1 and not data.isascii():  # each byte one character: ids as distinct as bytes
        data = data.decode("latin-1").encode()
    comments = not layout.lone_comments or b"#" not in data or _lone_comments(data)
    if comments and not data.startswith(UTF8_BOM) and b"\0" not in data:
        single = _single_spaced(data, layout)
        if single is not None:
            frame = _parse(single, layout, " ", skip, cr=False)
            if frame is not None:
                return frame
    return _read_lines(path, data, layout, skip)


def _lone_comments(text: bytes | mmap.mmap) -> bool:
    """Whether every comment line of qrels is one trec_eval skips (``lone_comments``)."""
    end = -1
    for comment in _COMMENT.finditer(text):
        start = comment.start()
        if text[start:start + 1] != b"#" or start == end or comment.end() == len(text):
            return False
        end = comment.end()
    return True


def _read_file(path: Path, layout: Layout, skip: int, *,
               ascii_ids: bool = False) -> pl.DataFrame | None:
    """The file read in place (memory-mapped), when one space or one tab separates fields.

    ``ascii_ids``: only when its ids are ASCII (read as Latin-1, the others differ).
    """
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:  # mmap cannot map it
            return None
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as text:
            if text[:3] == UTF8_BOM or any(text.find(c) >= 0 for c in (b"\0", b"\v", b"\f")):
                return None
            tab, space, cr = (text.find(c) >= 0 for c in (b"\t", b" ", b"\r"))
            # Polars 1.x takes a blank line at the start of a file for no line at all
            blank = not layout.blank and (text[:1] == b"\n" or text.find(b"\n\n") >= 0)
            comments = not layout.lone_comments or text.find(b"#") < 0 or _lone_comments(text)
    if (tab and space) or blank or (cr and not layout.blank) or not comments:
        return None
    source, separator = os.fspath(path), "\t" if tab else " "
    frame = _parse(source, layout, separator, skip, cr=cr, quick=True, ascii_ids=ascii_ids)
    if frame is None:
        frame = _parse(source, layout, separator, skip, cr=cr, ascii_ids=ascii_ids)
    return frame


def _single_spaced(data: bytes, layout: Layout) -> bytes | None:
    """The text, each run of white space in a line one space, none at a line's ends.

    None when the text has a blank line and the layout allows none.
    """
    single = _REPEATED_SPACES.sub(b" ", data.translate(_TO_SPACE))
    single = single.replace(b"\n ", b"\n").replace(b" \n", b"\n").strip(b" ")
    last_blank = single.endswith(b"\n") and not data.endswith(b"\n")  # "...\n  " at the end
    if not layout.blank and (single.startswith(b"\n") or b"\n\n" in single or last_blank):
        return None
    return single


def _parse(source: str | bytes, layout: Layout, separator: str, skip: int, *,
           cr: bool, quick: bool = False, ascii_ids: bool = False) -> pl.DataFrame | None:
    """Polars' CSV reader on a text whose fields are separated by one ``separator`` each.

    None when a line is not as it should be, or Polars cannot read it (not UTF-8).
    ``cr``: the text holds carriage returns; Polars takes CR LF for a line end, and any
    other carriage return (a separator to trec_eval) sends the file to the slower readers.
    ``quick``: the reader's fastest form, which a file of plain data lines passes: ranks
    parsed as integers, comment lines not looked for (Polars' ``comment_prefix`` costs
    a sixth of the read), so that a comment line fails it. ``ascii_ids``: an id that is
    not ASCII fails it.
    """
    schema = layout.csv_schema(quick=quick)
    rows = pl.scan_csv(source, separator=separator, has_header=False, quote_char=None,
                       comment_prefix=None if quick else "#", schema=schema, skip_lines=skip,
                       truncate_ragged_lines=True, raise_if_empty=False, glob=False, **_RAGGED)
    missing = [pl.col(name).is_null() for name in layout.names]  # a field not there
    if layout.blank:  # a blank line: a row of nulls
        rows = rows.filter(~pl.all_horizontal(missing))
    bad = [pl.any_horizontal(missing)]
    if not layout.extra:
        bad.append(pl.col(EXTRA).is_not_null())
    if quick:  # a comment line read as data
        bad.append(pl.col(layout.names[0]).str.starts_with("#"))
    if cr:
        texts = [name for name in layout.names if schema[name] == pl.String]
        bad.append(pl.any_horizontal(pl.col(texts).str.contains("\r", literal=True)))
    levels = [name for name, kind in layout.fields if kind == "level"]
    if levels:
        bad.append(pl.any_horizontal(pl.col(levels).is_nan()))
    if ascii_ids:
        ids = pl.col([name for name, kind in layout.fields if kind == "id"])
        bad.append(pl.any_horizontal(ids.str.len_bytes() != ids.str.len_chars()))
    try:  # streaming: the dropped fields are never all in memory at once
        frame = rows.select(*layout.typed(), pl.any_horizontal(bad).alias(_BAD)).collect(
            engine="streaming")
    except pl.exceptions.PolarsError:  # a number that is not one, not UTF-8, ...
        return None
    if frame.height == 0 or frame[_BAD].any():
        return None
    return frame.drop(_BAD)


def _read_lines(path: Path, data: bytes, layout: Layout, skip: int) -> pl.DataFrame:
    """The file read line by line, as trec_eval reads it.

    The frame, or TrecFormatError naming the malformed lines (the first ``_SHOWN``).
    """
    check_bytes(path, 1, data[:2])  # a UTF-16 byte-order mark
    problems: list[tuple[int, bytes, str]] = []
    numbers: list[int] = []
    columns: list[list[str]] = [[] for _ in layout.fields]
    n = len(layout.fields)
    lines = data.split(b"\n")
    if lines[-1] == b"":  # after the last line end
        lines.pop()
    comment = False  # the line before is a comment
    for number, raw in enumerate(lines[skip:], skip + 1):
        if len(problems) == _SHOWN:
            break
        after_comment, comment = comment, False
        if b"\0" in raw:
            problems.append((number, raw, NUL))
            continue
        if number == 1 and raw.startswith(UTF8_BOM):
            problems.append((number, raw, BOM))
            continue
        fields = raw.split()
        if not fields:
            if not layout.blank:
                problems.append((number, raw, "a blank line: trec_eval stops on one in qrels"))
            continue
        if fields[0].startswith(b"#"):
            comment = True
            why = _comment_problem(raw, after_comment, number == len(lines)) \
                if layout.lone_comments else None
            if why is not None:
                problems.append((number, raw, why))
            continue
        if len(fields) < n or (len(fields) > n and not layout.extra):
            problems.append((number, raw, f"{len(fields)} field{'s' * (len(fields) > 1)}"))
            continue
        try:
            texts = [field.decode() for field in fields[:n]]
        except UnicodeDecodeError:
            problems.append((number, raw, NOT_UTF8))
            continue
        numbers.append(number)
        for column, text in zip(columns, texts, strict=True):
            column.append(text)
    text_frame = pl.DataFrame(dict(zip(layout.names, columns, strict=True)),
                              schema=dict.fromkeys(layout.names, pl.String))
    casts = {name: pl.Int64 if kind == "int" else pl.Float64
             for name, kind in layout.fields if kind in ("float", "level", "int")}
    frame = text_frame.with_columns(pl.col(name).cast(dtype, strict=False)
                                    for name, dtype in casts.items())
    levels = {name for name, kind in layout.fields if kind == "level"}

    def not_number(name: str) -> pl.Expr:  # NaN is no level (trec_eval sorts by it)
        column = pl.col(name)
        return column.is_null() | column.is_nan() if name in levels else column.is_null()

    not_numbers = frame.with_row_index().filter(
        pl.any_horizontal(not_number(name) for name in casts))
    for index, *_ in not_numbers.head(_SHOWN).iter_rows():
        name = next(name for name in casts if frame[name][index] is None
                    or (name in levels and math.isnan(frame[name][index])))
        kind = "a number" if casts[name] == pl.Float64 else "an integer"
        problems.append((numbers[index], lines[numbers[index] - 1],
                         f"{name} {text_frame[name][index]!r} is not {kind}"))
    if problems:
        shown = "; ".join(f"line {number}: {shown_line(raw)!r} ({why})"
                          for number, raw, why in sorted(problems)[:_SHOWN])
        msg = (f"{os.fspath(path)}: malformed {layout.what} line, expected "
               f"{layout.expected!r} -- {shown}")
        raise TrecFormatError(msg)
    if not frame.height:
        msg = f"{os.fspath(path)}: no {layout.what} line (only blank lines and comments)"
        raise TrecFormatError(msg)
    return frame.select(layout.typed())


def _comment_problem(raw: bytes, after_comment: bool, last: bool) -> str | None:
    """Why trec_eval would not skip this comment line of qrels (None: it does)."""
    if not raw.startswith(b"#"):
        return "a comment after white space: trec_eval reads it as data in qrels"
    if after_comment:
        return "a comment line right after another: trec_eval reads it as data in qrels"
    if last:
        return "a comment as the last line: trec_eval reads past the end of the qrels"
    return None


def scan(path: Path, layout: Layout, encoding: Encoding, skip: int = 0) -> pl.LazyFrame:
    """A lazy frame that reads the file when collected.

    The read is a Python step of the plan (``LazyFrame.map_batches``): its errors reach
    ``collect()`` as they are raised (an I/O plugin's are wrapped in a ComputeError by
    Polars 1.x), and one plan reading the frame twice reads the file once.
    """
    def read(_: pl.DataFrame) -> pl.DataFrame:
        return read_frame(path, layout, encoding, skip)

    return pl.LazyFrame().map_batches(read, schema=layout.schema, predicate_pushdown=False,
                                      projection_pushdown=False, slice_pushdown=False)


def scan_prefs(path: PathLike, format: str, *, subtopics: bool,
                encoding: Encoding) -> pl.LazyFrame:
    """``scan_qrels`` of trec_eval's preference formats: ``qid, jg, jsg, docid, rel``."""
    if format not in ("prefs", "qrels_prefs"):
        msg = (f"format={format!r}: 'qrels' (the default), 'qrels_jg', 'prefs' or "
               "'qrels_prefs' (trec_eval's -R)")
        raise ValueError(msg)
    if subtopics:
        msg = f"subtopics=True reads TREC's diversity qrels, not format={format!r}"
        raise ValueError(msg)
    layout = PREFS if format == "prefs" else QRELS_PREFS
    file, _, _ = opened(path, layout.what)
    zero = pl.col("rel") == 0  # -0.0 read as 0.0 (x + 0.0 would do, but Polars drops it)
    lazy = scan(file, layout, encoding).with_columns(
        pl.when(zero).then(0.0).otherwise(pl.col("rel")).alias("rel"))
    if format == "qrels_prefs":  # get_qrels_prefs.c: every line in subgroup "0"
        lazy = lazy.with_columns(pl.lit("0").alias("jsg"))
    return lazy.select("qid", "jg", "jsg", "docid", "rel")


def last_tag(path: PathLike, *, encoding: str = "utf-8") -> str:
    r"""The tag of a run file's last line: trec_eval's ``runid``.

    trec_eval keeps the tag of the last line that is not blank or a comment, and checks
    no other. Only the end of the file is read.

    Parameters
    ----------
    path
        The run file.
    encoding
        ``"utf-8"`` or ``"latin-1"``; see :func:`scan_run`.

    Returns
    -------
    str
        The sixth field of the last data line.

    Raises
    ------
    TrecFormatError
        The file has no run line, or its last one has fewer than 6 fields or is not in
        ``encoding``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rank as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 2.5 first\nq1 Q0 d7 2 1.25 last x\n# end\n\n")
    >>> pr.io.last_tag(path)
    'last'
    """
    checked = checked_encoding(encoding)
    with open(path, "rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        span = 1 << 16
        while True:
            start = max(0, end - span)
            handle.seek(start)
            chunk = handle.read(end - start)
            cut = chunk.find(b"\n") + 1 if start else 0  # the first line may be partial
            lines = chunk[cut:].split(b"\n")
            for index in range(len(lines) - 1, -1, -1):
                raw, fields = lines[index], lines[index].split()
                if fields and not fields[0].startswith(b"#"):
                    break
            else:
                if not start:
                    msg = f"{os.fspath(path)}: no run line (only blank lines and comments)"
                    raise TrecFormatError(msg)
                span *= 4
                continue
            why = f"{len(fields)} fields" if len(fields) < len(RUN.fields) else ""
            if not why:
                try:
                    return fields[len(RUN.fields) - 1].decode(checked)
                except UnicodeDecodeError:
                    why = NOT_UTF8
            handle.seek(0)  # the line's number: the line ends before the chunk's, plus
            number = handle.read(start + cut).count(b"\n") + index + 1
            msg = (f"{os.fspath(path)}: malformed run line, expected {RUN.expected!r} "
                   f"-- line {number}: {shown_line(raw)!r} ({why})")
            raise TrecFormatError(msg)

