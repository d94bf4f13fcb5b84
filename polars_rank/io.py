"""Read and write TREC run and qrels files.

Formats, read as trec_eval 10 reads them (get_trec_results.c, get_qrels.c): fields
separated by white space (spaces, tabs, repeated or trailing; CRLF line ends), lines
starting with ``#`` skipped (in qrels, where trec_eval skips them: ``#`` first on the
line, not right after another comment, not the last line):

* run: ``qid Q0 docid rank score tag`` -> columns ``qid, docid, score, rank, tag``.
  Six fields at least (trec_eval stops on a line without the tag); text after the tag
  is ignored; the rank field is ignored too (``rank`` is null where it is not an
  integer; metrics rank by ``score``); blank lines are skipped.
* qrels: ``qid iter docid rel`` (TREC), ``qid docid rel`` (three columns, no
  iteration), or BEIR's TSV with its header line ``query-id corpus-id score``
  -> columns ``qid, docid, rel``. The number of fields of the first line that is not
  blank, a comment or BEIR's header tells the layout; every line must then have it
  exactly, and a blank line is an error, as in trec_eval.

Ids are strings, compared byte for byte, as trec_eval compares them: a file that is
not UTF-8 raises (naming the line) unless it is read with ``encoding="latin-1"``,
which keeps every byte a distinct character, so that no two ids merge. A score must be
a number and a label an integer: where trec_eval's ``atof``/``atol`` would read
``high`` as 0 or ``1.5`` as 1, the readers raise. NUL bytes (binary or UTF-16 files), a
byte-order mark, an empty file or one without a data line raise too.

A negative qrels label means "in the pool, not judged" to trec_eval: the readers map it
to null (unjudged), so it is not bad input, and keep its row, so
:func:`polars_rank.evaluate` still tells a pooled unjudged document from one not in the
pool (infAP, relstring, judged@k).

The ``scan_*`` functions are lazy: called, they check only that the file exists, is
not empty and starts like a text file of the format (its first data line); the file is
read, with Polars' multithreaded CSV reader, when the frame is collected, and a
malformed line then raises :class:`TrecFormatError` from ``collect()`` (or from
:func:`polars_rank.evaluate`), naming the file, the line number and the line.

:func:`to_dict` turns a run or qrels frame into pytrec_eval's dict of dicts
``{qid: {docid: value}}``; :func:`polars_rank.evaluate` reads those dicts back.
"""

from __future__ import annotations

import codecs
import inspect
import math
import mmap
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank._engine.rules import id_rules
from polars_rank.errors import InvalidDataError, TrecFormatError

if TYPE_CHECKING:
    from polars_rank._engine.frames import FrameLike

__all__ = ["TrecFormatError", "scan_run", "read_run", "scan_qrels", "read_qrels", "write_run",
           "to_dict"]

PathLike = str | os.PathLike[str]
Encoding = Literal["utf-8", "latin-1"]
_Kind = Literal["id", "skip", "float", "level", "int", "rank"]
"""A field: an id (kept as a string), a field that must be there but is dropped (the
run's ``Q0``, the qrels' iteration), a number, a number that is not NaN (a preference
level: trec_eval sorts by it), an integer, or the run's rank (kept as an integer where
it is one, ignored otherwise, as trec_eval ignores it)."""

_BLANKS = b"\t\v\f\r"  # with the space and the newline: C's isspace(), trec_eval's separators
_TO_SPACE = bytes.maketrans(_BLANKS, b" " * len(_BLANKS))
_REPEATED_SPACES = re.compile(rb"  +")
_COMMENT = re.compile(rb"^[ \t\v\f\r]*#[^\n]*(?:\n|\Z)", re.MULTILINE)
_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_EXTRA = "__extra"  # a field after the last one, where the format has none
_BAD = "__bad"  # a row that is not as it should be
_SHOWN = 3  # malformed lines named in one error
_WIDE = 200  # characters of a line shown in an error
_NOT_UTF8 = ("not UTF-8; read it with encoding='latin-1' to compare ids byte for byte, "
             "as trec_eval does")
_NUL = "a NUL byte: a binary or UTF-16 file? save it as UTF-8"
_BOM = ("starts with a byte-order mark, U+FEFF, which trec_eval reads as part of the first "
        "query id: save the file without it")
_BEIR_HEADER = ("query-id", "corpus-id", "score")  # the first line of BEIR's qrels TSV
# Polars 2 refuses a line with more or fewer fields than the schema unless told to take
# it (trec_eval ignores a run's fields after the tag; a missing field is reported here)
_RAGGED: dict[str, Any] = (
    {"extra_columns": "ignore", "missing_columns": "insert"}
    if "extra_columns" in inspect.signature(pl.read_csv).parameters else {}
)


@dataclass(frozen=True)
class _Layout:
    """One line format, and what trec_eval does with the rest of a file."""

    what: str  # "run" or "qrels", in messages
    expected: str  # the line as the documentation writes it, in messages
    fields: tuple[tuple[str, _Kind], ...]  # names and kinds, in file order
    extra: bool  # fields after the last are ignored (run); else an error (qrels)
    blank: bool  # blank lines are skipped (run); else an error (qrels)
    # qrels: a comment line is skipped only when its "#" starts the line, the line
    # before is no comment and it is not the last line (get_qrels.c reads the others
    # as data, or reads past the end of the file)
    lone_comments: bool = False

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.fields]

    @property
    def schema(self) -> pl.Schema:
        """The frame read: the fields that are kept, typed."""
        dtypes: dict[_Kind, pl.DataType] = {"id": pl.String(), "float": pl.Float64(),
                                            "level": pl.Float64(), "int": pl.Int64(),
                                            "rank": pl.Int64()}
        return pl.Schema({name: dtypes[kind] for name, kind in self.fields if kind != "skip"})

    def csv_schema(self, *, quick: bool) -> dict[str, pl.DataType]:
        """What Polars' CSV reader parses: numbers typed, the rest as text.

        ``quick``: the rank too (a file whose ranks are not all integers is read again).
        """
        dtypes: dict[_Kind, pl.DataType] = {"float": pl.Float64(), "level": pl.Float64(),
                                            "int": pl.Int64()}
        if quick:
            dtypes["rank"] = pl.Int64()
        out = {name: dtypes.get(kind, pl.String()) for name, kind in self.fields}
        return out if self.extra else out | {_EXTRA: pl.String()}

    def typed(self) -> list[pl.Expr]:
        """The kept fields from the text ones (a rank that is not an integer: null)."""
        return [pl.col(name).cast(pl.Int64, strict=False) if kind == "rank" else pl.col(name)
                for name, kind in self.fields if kind != "skip"]


_RUN = _Layout("run", "qid Q0 docid rank score tag",
               (("qid", "id"), ("q0", "skip"), ("docid", "id"), ("rank", "rank"),
                ("score", "float"), ("tag", "id")), extra=True, blank=True)
_QRELS = _Layout("qrels", "qid iter docid rel",
                 (("qid", "id"), ("iter", "skip"), ("docid", "id"), ("rel", "int")),
                 extra=False, blank=False, lone_comments=True)
_SUBTOPICS = _Layout("qrels", "qid subtopic docid rel",
                     (("qid", "id"), ("subtopic", "id"), ("docid", "id"), ("rel", "int")),
                     extra=False, blank=False, lone_comments=True)
_QRELS3 = _Layout("qrels", "qid docid rel", (("qid", "id"), ("docid", "id"), ("rel", "int")),
                  extra=False, blank=False, lone_comments=True)
# trec_eval's -R prefs and -R qrels_prefs (get_prefs.c, get_qrels_prefs.c): the level is
# read as a double, compared, never rounded; comments and blank lines as in qrels
_PREFS = _Layout("prefs", "qid jg jsg docid rel",
                 (("qid", "id"), ("jg", "id"), ("jsg", "id"), ("docid", "id"), ("rel", "level")),
                 extra=False, blank=False, lone_comments=True)
_QRELS_PREFS = _Layout("qrels_prefs", "qid jg docid rel",
                       (("qid", "id"), ("jg", "id"), ("docid", "id"), ("rel", "level")),
                       extra=False, blank=False, lone_comments=True)

# trec_eval's -R qrels_jg (get_qrels_jg.c): TREC qrels whose second field is kept, the
# judgment group (a user), read as get_qrels.c reads qrels otherwise
_QRELS_JG = _Layout("qrels", "qid jg docid rel",
                    (("qid", "id"), ("jg", "id"), ("docid", "id"), ("rel", "int")),
                    extra=False, blank=False, lone_comments=True)
QrelsFormat = Literal["qrels", "qrels_jg", "prefs", "qrels_prefs"]
"""The judgment formats the qrels readers take: trec_eval's ``-R`` values."""
_QRELS_FORMATS = ("qrels", "qrels_jg")


def _encoding(encoding: str) -> Encoding:
    """``encoding`` checked: UTF-8 or Latin-1, under any of Python's names for them."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        name = ""
    if name == "utf-8":
        return "utf-8"
    if name == "iso8859-1":
        return "latin-1"
    msg = (f"encoding={encoding!r}: 'utf-8' (the default), or 'latin-1' to read any bytes, "
           "each byte one character (ids compared byte for byte, as trec_eval does)")
    raise ValueError(msg)


def _shown(raw: bytes) -> str:
    """A line as an error message shows it (stripped, at most ``_WIDE`` characters)."""
    text = raw.strip().decode("utf-8", "backslashreplace")
    return text if len(text) <= _WIDE else text[:_WIDE] + "..."


def _byte_problem(path: Path, number: int, raw: bytes) -> str | None:
    """What makes a line unreadable as text: a NUL byte or a byte-order mark."""
    if number == 1 and raw.startswith(_UTF16_BOMS):
        return (f"{os.fspath(path)}: a UTF-16 file (it starts with a UTF-16 byte-order mark); "
                "TREC files are read as bytes, as trec_eval reads them: save it as UTF-8")
    if b"\0" in raw:
        return f"{os.fspath(path)}: line {number}: {_shown(raw)!r} ({_NUL})"
    if number == 1 and raw.startswith(_UTF8_BOM):
        return f"{os.fspath(path)}: line 1: {_shown(raw)!r} ({_BOM})"
    return None


def _check_bytes(path: Path, number: int, raw: bytes) -> None:
    """TrecFormatError when the line is not text (see ``_byte_problem``)."""
    problem = _byte_problem(path, number, raw)
    if problem is not None:
        raise TrecFormatError(problem)


def _opened(path: PathLike, what: str) -> tuple[Path, int, list[bytes]]:
    """The file, its first data line's number and fields, checked when a scan is built.

    OSError when the file cannot be opened; TrecFormatError when it is empty, holds no
    data line, or its first lines are not text (a NUL byte, a byte-order mark).
    """
    file = Path(path)
    with open(file, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:
            msg = f"{os.fspath(file)}: empty file (trec_eval cannot read it either)"
            raise TrecFormatError(msg)
        for number, raw in enumerate(handle, 1):
            _check_bytes(file, number, raw)
            fields = raw.split()  # bytes.split(): on C's isspace() characters, as trec_eval
            if fields and not fields[0].startswith(b"#"):
                return file, number, fields
    msg = f"{os.fspath(file)}: no {what} line (only blank lines and comments)"
    raise TrecFormatError(msg)


def _read(path: Path, layout: _Layout, encoding: Encoding, skip: int) -> pl.DataFrame:
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
    if comments and not data.startswith(_UTF8_BOM) and b"\0" not in data:
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


def _read_file(path: Path, layout: _Layout, skip: int, *,
               ascii_ids: bool = False) -> pl.DataFrame | None:
    """The file read in place (memory-mapped), when one space or one tab separates fields.

    ``ascii_ids``: only when its ids are ASCII (read as Latin-1, the others differ).
    """
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size == 0:  # mmap cannot map it
            return None
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as text:
            if text[:3] == _UTF8_BOM or any(text.find(c) >= 0 for c in (b"\0", b"\v", b"\f")):
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


def _single_spaced(data: bytes, layout: _Layout) -> bytes | None:
    """The text, each run of white space in a line one space, none at a line's ends.

    None when the text has a blank line and the layout allows none.
    """
    single = _REPEATED_SPACES.sub(b" ", data.translate(_TO_SPACE))
    single = single.replace(b"\n ", b"\n").replace(b" \n", b"\n").strip(b" ")
    last_blank = single.endswith(b"\n") and not data.endswith(b"\n")  # "...\n  " at the end
    if not layout.blank and (single.startswith(b"\n") or b"\n\n" in single or last_blank):
        return None
    return single


def _parse(source: str | bytes, layout: _Layout, separator: str, skip: int, *,
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
        bad.append(pl.col(_EXTRA).is_not_null())
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


def _read_lines(path: Path, data: bytes, layout: _Layout, skip: int) -> pl.DataFrame:
    """The file read line by line, as trec_eval reads it.

    The frame, or TrecFormatError naming the malformed lines (the first ``_SHOWN``).
    """
    _check_bytes(path, 1, data[:2])  # a UTF-16 byte-order mark
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
            problems.append((number, raw, _NUL))
            continue
        if number == 1 and raw.startswith(_UTF8_BOM):
            problems.append((number, raw, _BOM))
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
            problems.append((number, raw, _NOT_UTF8))
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
        shown = "; ".join(f"line {number}: {_shown(raw)!r} ({why})"
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


def _scan(path: Path, layout: _Layout, encoding: Encoding, skip: int = 0) -> pl.LazyFrame:
    """A lazy frame that reads the file when collected.

    The read is a Python step of the plan (``LazyFrame.map_batches``): its errors reach
    ``collect()`` as they are raised (an I/O plugin's are wrapped in a ComputeError by
    Polars 1.x), and one plan reading the frame twice reads the file once.
    """
    def read(_: pl.DataFrame) -> pl.DataFrame:
        return _read(path, layout, encoding, skip)

    return pl.LazyFrame().map_batches(read, schema=layout.schema, predicate_pushdown=False,
                                      projection_pushdown=False, slice_pushdown=False)


def scan_run(path: PathLike, *, encoding: str = "utf-8") -> pl.LazyFrame:
    r"""Lazily read a TREC run file: ``qid Q0 docid rank score tag``.

    Parameters
    ----------
    path
        The run file.
    encoding
        ``"utf-8"`` (the default): a line that is not UTF-8 raises. ``"latin-1"``: any
        bytes, each byte one character, so ids compare byte for byte as in trec_eval.

    Returns
    -------
    pl.LazyFrame
        Columns ``qid`` (str), ``docid`` (str), ``score`` (f64), ``rank`` (i64),
        ``tag`` (str). The rank field is ignored, as trec_eval ignores it (null where
        it is not an integer): metrics rank by ``score``.

    Raises
    ------
    TrecFormatError
        When called: an empty file, one without a data line, or one that is not text
        (a NUL byte: binary or UTF-16; a byte-order mark). When collected: a line with
        fewer than 6 fields (trec_eval needs the tag), a score that is not a number, a
        line that is not UTF-8; the message names the file, the line number and the
        line. Text after the tag is ignored, as trec_eval ignores it.
    OSError
        When called: the file cannot be opened.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rank as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("# my run\nq1 Q0 d1 1 2.5 bm25\nq1\tQ0  d7 2 1.25 bm25  \n")
    >>> pr.scan_run(path).collect()
    shape: (2, 5)
    ┌─────┬───────┬───────┬──────┬──────┐
    │ qid ┆ docid ┆ score ┆ rank ┆ tag  │
    │ --- ┆ ---   ┆ ---   ┆ ---  ┆ ---  │
    │ str ┆ str   ┆ f64   ┆ i64  ┆ str  │
    ╞═════╪═══════╪═══════╪══════╪══════╡
    │ q1  ┆ d1    ┆ 2.5   ┆ 1    ┆ bm25 │
    │ q1  ┆ d7    ┆ 1.25  ┆ 2    ┆ bm25 │
    └─────┴───────┴───────┴──────┴──────┘

    Lines are checked when the frame is collected:

    >>> _ = path.write_text("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d7 2 high bm25\n")
    >>> lazy = pr.scan_run(path)  # reads nothing yet
    >>> try:
    ...     lazy.collect()
    ... except pr.TrecFormatError as error:
    ...     print(str(error).split(" -- ")[1])
    line 2: 'q1 Q0 d7 2 high bm25' (score 'high' is not a number)
    """
    checked = _encoding(encoding)
    file, _, _ = _opened(path, "run")
    return _scan(file, _RUN, checked).select("qid", "docid", "score", "rank", "tag")


def read_run(path: PathLike, *, encoding: str = "utf-8") -> pl.DataFrame:
    r"""Read a TREC run file eagerly; see :func:`scan_run`.

    Parameters
    ----------
    path
        The run file.
    encoding
        ``"utf-8"`` or ``"latin-1"``; see :func:`scan_run`.

    Returns
    -------
    pl.DataFrame
        Columns ``qid, docid, score, rank, tag``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rank as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> _ = path.write_text("q1 Q0 d1 1 2.5 bm25\nq1 Q0 d7 2 1.25 bm25\n")
    >>> pr.read_run(path).select("qid", "docid", "score")
    shape: (2, 3)
    ┌─────┬───────┬───────┐
    │ qid ┆ docid ┆ score │
    │ --- ┆ ---   ┆ ---   │
    │ str ┆ str   ┆ f64   │
    ╞═════╪═══════╪═══════╡
    │ q1  ┆ d1    ┆ 2.5   │
    │ q1  ┆ d7    ┆ 1.25  │
    └─────┴───────┴───────┘

    Ids that are not UTF-8 (here Latin-1's ``café``, ``caf\xe9``) are read byte for byte
    with ``encoding="latin-1"``:

    >>> _ = path.write_bytes(b"q1 Q0 caf\xe9 1 2.5 bm25\nq1 Q0 caf\xe8 2 1.5 bm25\n")
    >>> pr.read_run(path, encoding="latin-1")["docid"].to_list()
    ['café', 'cafè']
    """
    return scan_run(path, encoding=encoding).collect()


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
    checked = _encoding(encoding)
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
            why = f"{len(fields)} fields" if len(fields) < len(_RUN.fields) else ""
            if not why:
                try:
                    return fields[len(_RUN.fields) - 1].decode(checked)
                except UnicodeDecodeError:
                    why = _NOT_UTF8
            handle.seek(0)  # the line's number: the line ends before the chunk's, plus
            number = handle.read(start + cut).count(b"\n") + index + 1
            msg = (f"{os.fspath(path)}: malformed run line, expected {_RUN.expected!r} "
                   f"-- line {number}: {_shown(raw)!r} ({why})")
            raise TrecFormatError(msg)


def _qrels_layout(path: PathLike, subtopics: bool,
                  format: str = "qrels") -> tuple[Path, _Layout, int]:
    """The file, its layout (from its first data line) and the header line to skip."""
    if format not in _QRELS_FORMATS:
        msg = (f"format={format!r}: 'qrels' (TREC, 3-column or BEIR), 'qrels_jg' "
               "(trec_eval's judgment groups, 'qid jg docid rel'), 'prefs' or "
               "'qrels_prefs' (trec_eval's -R)")
        raise ValueError(msg)
    if format == "qrels_jg" and subtopics:
        msg = "subtopics=True reads diversity qrels; format='qrels_jg' reads judgment groups"
        raise ValueError(msg)
    file, number, words = _opened(path, "qrels")
    if format == "qrels_jg":
        if len(words) != len(_QRELS_JG.fields):
            msg = (f"{os.fspath(file)}: line {number} has {len(words)} fields; trec_eval's "
                   "judgment groups (qrels_jg) are 'qid jg docid rel'")
            raise TrecFormatError(msg)
        return file, _QRELS_JG, 0
    header = [word.decode("utf-8", "replace") for word in words] == list(_BEIR_HEADER)
    if len(words) == len(_BEIR_HEADER):  # qid docid rel, after BEIR's header if any
        if subtopics:
            msg = (f"{os.fspath(file)}: subtopics=True reads TREC's diversity qrels, "
                   "'qid subtopic docid rel'; this file has 3 fields a line")
            raise TrecFormatError(msg)
        return file, _QRELS3, number if header else 0
    return file, _SUBTOPICS if subtopics else _QRELS, 0


def scan_qrels(path: PathLike, *, subtopics: bool = False, encoding: str = "utf-8",
               format: QrelsFormat = "qrels") -> pl.LazyFrame:
    r"""Lazily read a qrels file: ``qid iter docid rel``, ``qid docid rel`` or BEIR's TSV.

    The first line that is not blank or a comment tells the layout: 4 fields, TREC's
    ``qid iter docid rel`` (the iteration is ignored, unless ``subtopics=True``: TREC's
    diversity qrels ``qid subtopic docid rel`` keep it as a ``subtopic`` column, one
    row per (query, subtopic, document), for the intent-aware metrics such as
    ``alpha_nDCG@20``); 3 fields, ``qid docid rel``;
    BEIR's header ``query-id corpus-id score`` (skipped), then ``qid docid rel``
    lines. Negative labels ("in the pool, not judged" to trec_eval) become null:
    unjudged. ``format="qrels_jg"`` reads trec_eval's judgment groups (its
    ``-R qrels_jg``): ``qid jg docid rel``, the second field the judgment group (a
    user, whose judgments may differ from another's), kept as a ``jg`` column, one row
    per (query, group, document), for the judgment-group measures of
    :func:`polars_rank.evaluate` (``map_avgjg``, ``P_avgjg@k``, ``Rprec_mult_avgjg@x``).

    ``format="prefs"`` reads trec_eval's preference judgments (``-R prefs``), lines
    ``qid jg jsg docid rel``: within a judgment group ``jg`` (one user's information
    need), each judgment subgroup ``jsg`` prefers every document to those of its
    subgroup with a lower ``rel`` (a number, read as trec_eval's double: only its order
    counts, and 0 means non-relevant); ``format="qrels_prefs"`` reads an ordinary qrels
    file as preferences (``-R qrels_prefs``): its second field is the judgment group,
    with one subgroup ``"0"``. Either gives the frame :func:`polars_rank.evaluate_prefs`
    reads; labels are kept as written, negative ones too (trec_eval compares them).

    Parameters
    ----------
    path
        The qrels file.
    subtopics
        Keep the second field of 4-field qrels as a ``subtopic`` column (str), placed
        before ``docid``.
    format
        ``"qrels"`` (the default: TREC, 3-column or BEIR, as above) or ``"qrels_jg"``
        (trec_eval's judgment groups: 4 fields, the second kept as ``jg``).
    encoding
        ``"utf-8"`` or ``"latin-1"``; see :func:`scan_run`.
    format
        ``"qrels"`` (the default), ``"prefs"`` or ``"qrels_prefs"``: trec_eval's ``-R``.

    Returns
    -------
    pl.LazyFrame
        Columns ``qid`` (str), ``docid`` (str), ``rel`` (i64, null = unjudged); with
        ``subtopics=True``, ``qid, subtopic, docid, rel``. With ``format="prefs"`` or
        ``"qrels_prefs"``: ``qid, jg, jsg, docid`` (str) and ``rel`` (f64); with
        ``format="qrels_jg"``, ``qid, jg, docid, rel`` (``jg`` a str).

    Raises
    ------
    TrecFormatError
        When called: an empty file, one without a data line or one that is not text;
        ``subtopics=True`` for a file without a subtopic field, ``format="qrels_jg"``
        for one whose first line has not 4 fields. When collected: a line without the
        first line's number of fields (4 or 3; prefs: 5, qrels_prefs: 4), a blank line
        (trec_eval stops on both), a label that is not an integer (prefs: not a number,
        or NaN), a line that is not UTF-8; the message names the file, the line number
        and the line.
    OSError
        When called: the file cannot be opened.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rank as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 2\nq1 0 d2 0\nq1 0 d3 -1\n")
    >>> pr.read_qrels(path)
    shape: (3, 3)
    ┌─────┬───────┬──────┐
    │ qid ┆ docid ┆ rel  │
    │ --- ┆ ---   ┆ ---  │
    │ str ┆ str   ┆ i64  │
    ╞═════╪═══════╪══════╡
    │ q1  ┆ d1    ┆ 2    │
    │ q1  ┆ d2    ┆ 0    │
    │ q1  ┆ d3    ┆ null │
    └─────┴───────┴──────┘

    BEIR's qrels (``qrels/test.tsv``), or any ``qid docid rel`` file, read the same:

    >>> _ = path.write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n")
    >>> pr.read_qrels(path)
    shape: (2, 3)
    ┌─────┬───────┬─────┐
    │ qid ┆ docid ┆ rel │
    │ --- ┆ ---   ┆ --- │
    │ str ┆ str   ┆ i64 │
    ╞═════╪═══════╪═════╡
    │ q1  ┆ d1    ┆ 2   │
    │ q1  ┆ d2    ┆ 0   │
    └─────┴───────┴─────┘

    Preference judgments: one user (``u1``) ranks three documents, another prefers
    ``d3`` to ``d1``:

    >>> _ = path.write_text("q1 u1 s1 d1 2\nq1 u1 s1 d2 1\nq1 u1 s1 d3 0\n"
    ...                     "q1 u2 s1 d3 1\nq1 u2 s1 d1 0\n")
    >>> pr.read_qrels(path, format="prefs")
    shape: (5, 5)
    ┌─────┬─────┬─────┬───────┬─────┐
    │ qid ┆ jg  ┆ jsg ┆ docid ┆ rel │
    │ --- ┆ --- ┆ --- ┆ ---   ┆ --- │
    │ str ┆ str ┆ str ┆ str   ┆ f64 │
    ╞═════╪═════╪═════╪═══════╪═════╡
    │ q1  ┆ u1  ┆ s1  ┆ d1    ┆ 2.0 │
    │ q1  ┆ u1  ┆ s1  ┆ d2    ┆ 1.0 │
    │ q1  ┆ u1  ┆ s1  ┆ d3    ┆ 0.0 │
    │ q1  ┆ u2  ┆ s1  ┆ d3    ┆ 1.0 │
    │ q1  ┆ u2  ┆ s1  ┆ d1    ┆ 0.0 │
    └─────┴─────┴─────┴───────┴─────┘
    """
    checked = _encoding(encoding)
    if format in ("prefs", "qrels_prefs"):
        return _scan_prefs(path, format, subtopics=subtopics, encoding=checked)
    file, layout, header = _qrels_layout(path, subtopics, format)
    lazy = _scan(file, layout, checked, header)
    return lazy.with_columns(pl.when(pl.col("rel") >= 0).then(pl.col("rel")).alias("rel"))


def _scan_prefs(path: PathLike, format: str, *, subtopics: bool,
                encoding: Encoding) -> pl.LazyFrame:
    """``scan_qrels`` of trec_eval's preference formats: ``qid, jg, jsg, docid, rel``."""
    if format not in ("prefs", "qrels_prefs"):
        msg = (f"format={format!r}: 'qrels' (the default), 'qrels_jg', 'prefs' or "
               "'qrels_prefs' (trec_eval's -R)")
        raise ValueError(msg)
    if subtopics:
        msg = f"subtopics=True reads TREC's diversity qrels, not format={format!r}"
        raise ValueError(msg)
    layout = _PREFS if format == "prefs" else _QRELS_PREFS
    file, _, _ = _opened(path, layout.what)
    zero = pl.col("rel") == 0  # -0.0 read as 0.0 (x + 0.0 would do, but Polars drops it)
    lazy = _scan(file, layout, encoding).with_columns(
        pl.when(zero).then(0.0).otherwise(pl.col("rel")).alias("rel"))
    if format == "qrels_prefs":  # get_qrels_prefs.c: every line in subgroup "0"
        lazy = lazy.with_columns(pl.lit("0").alias("jsg"))
    return lazy.select("qid", "jg", "jsg", "docid", "rel")


def read_qrels(path: PathLike, *, subtopics: bool = False, encoding: str = "utf-8",
               format: QrelsFormat = "qrels") -> pl.DataFrame:
    r"""Read a qrels file eagerly (TREC, ``qid docid rel`` or BEIR); see :func:`scan_qrels`.

    Parameters
    ----------
    path
        The qrels file.
    subtopics
        Keep TREC's second field as a ``subtopic`` column: diversity qrels,
        ``qid subtopic docid rel``, for the intent-aware metrics.
    format
        ``"qrels"`` (the default) or ``"qrels_jg"``: trec_eval's judgment groups,
        ``qid jg docid rel``, for the judgment-group measures (``map_avgjg``, ...).
    encoding
        ``"utf-8"`` or ``"latin-1"``; see :func:`scan_run`.
    format
        ``"qrels"`` (the default), or trec_eval's preference formats ``"prefs"`` and
        ``"qrels_prefs"`` (``-R prefs``, ``-R qrels_prefs``); see :func:`scan_qrels`.

    Returns
    -------
    pl.DataFrame
        Columns ``qid, docid, rel`` (``qid, subtopic, docid, rel`` with ``subtopics``;
        ``qid, jg, jsg, docid, rel`` in the preference formats, ``qid, jg, docid, rel``
        with ``format="qrels_jg"``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rank as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels.txt"
    >>> _ = path.write_text("q1 0 d1 1\nq2 0 d4 -2\n")
    >>> pr.read_qrels(path)  # -2: in the pool, not judged
    shape: (2, 3)
    ┌─────┬───────┬──────┐
    │ qid ┆ docid ┆ rel  │
    │ --- ┆ ---   ┆ ---  │
    │ str ┆ str   ┆ i64  │
    ╞═════╪═══════╪══════╡
    │ q1  ┆ d1    ┆ 1    │
    │ q2  ┆ d4    ┆ null │
    └─────┴───────┴──────┘

    Diversity qrels (TREC Web track: the subtopic in the second field):

    >>> _ = path.write_text("q1 1 d1 1\nq1 2 d1 0\nq1 2 d2 1\n")
    >>> pr.read_qrels(path, subtopics=True)
    shape: (3, 4)
    ┌─────┬──────────┬───────┬─────┐
    │ qid ┆ subtopic ┆ docid ┆ rel │
    │ --- ┆ ---      ┆ ---   ┆ --- │
    │ str ┆ str      ┆ str   ┆ i64 │
    ╞═════╪══════════╪═══════╪═════╡
    │ q1  ┆ 1        ┆ d1    ┆ 1   │
    │ q1  ┆ 2        ┆ d1    ┆ 0   │
    │ q1  ┆ 2        ┆ d2    ┆ 1   │
    └─────┴──────────┴───────┴─────┘

    trec_eval's judgment groups (``-R qrels_jg``): two users judged q1, and disagree
    on d1:

    >>> _ = path.write_text("q1 alice d1 1\nq1 alice d2 0\nq1 bob d1 0\nq1 bob d3 2\n")
    >>> qrels = pr.read_qrels(path, format="qrels_jg")
    >>> qrels
    shape: (4, 4)
    ┌─────┬───────┬───────┬─────┐
    │ qid ┆ jg    ┆ docid ┆ rel │
    │ --- ┆ ---   ┆ ---   ┆ --- │
    │ str ┆ str   ┆ str   ┆ i64 │
    ╞═════╪═══════╪═══════╪═════╡
    │ q1  ┆ alice ┆ d1    ┆ 1   │
    │ q1  ┆ alice ┆ d2    ┆ 0   │
    │ q1  ┆ bob   ┆ d1    ┆ 0   │
    │ q1  ┆ bob   ┆ d3    ┆ 2   │
    └─────┴───────┴───────┴─────┘
    >>> run = pl.DataFrame({"qid": "q1", "docid": ["d1", "d3"], "score": [2.0, 1.0]})
    >>> pr.evaluate(run, qrels, ["map_avgjg", "P_avgjg@1"])  # alice: 1 and 1; bob: 0.5 and 0
    shape: (1, 2)
    ┌───────────┬───────────┐
    │ map_avgjg ┆ P_avgjg@1 │
    │ ---       ┆ ---       │
    │ f64       ┆ f64       │
    ╞═══════════╪═══════════╡
    │ 0.75      ┆ 0.5       │
    └───────────┴───────────┘
    """
    return scan_qrels(path, subtopics=subtopics, encoding=encoding, format=format).collect()


def write_run(
    frame: pl.DataFrame | pl.LazyFrame,
    path: PathLike,
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    tag: str = "polars-rank",
) -> None:
    """Write a frame of (query, doc, score) as a TREC run file.

    Rows are written per query in trec_eval's order (score descending, then doc id
    descending) with ranks 1..n; rows with a null score are not written. Scores are
    written with the shortest representation that reads back to the same float.

    Parameters
    ----------
    frame
        One row per (query, document).
    path
        Where to write.
    query, doc, score
        Column names.
    tag
        The run tag (last field).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.txt"
    >>> df = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["a", "b"], "score": [0.5, 1.5]})
    >>> pr.write_run(df, path)
    >>> print(path.read_text(), end="")
    q1 Q0 b 1 1.5 polars-rank
    q1 Q0 a 2 0.5 polars-rank
    """
    out = (
        frame.lazy()
        .filter(pl.col(score).is_not_null())
        .select(pl.col(query).cast(pl.String), pl.col(doc).cast(pl.String),
                pl.col(score).cast(pl.Float64))
        .sort([query, score, doc], descending=[False, True, True])
        .select(
            pl.col(query),
            pl.lit("Q0"),
            pl.col(doc),
            pl.int_range(1, pl.len() + 1).over(query).alias("rank"),
            pl.col(score).cast(pl.String),  # shortest text that reads back exactly
            pl.lit(tag).alias("tag"),
        )
        .collect()
    )
    out.write_csv(Path(path), separator=" ", include_header=False, quote_style="never")



def to_dict(
    frame: FrameLike,
    *,
    query: str = "qid",
    doc: str = "docid",
    value: str = "score",
) -> dict[str, dict[str, float | int]]:
    """A run or qrels frame as pytrec_eval's dict of dicts ``{qid: {docid: value}}``.

    The shape ``pytrec_eval.RelevanceEvaluator`` takes (qrels) and evaluates (runs),
    and that ranx's ``Run`` and ``Qrels`` are built from; :func:`polars_rank.evaluate`
    reads it back. Ids become strings; queries and documents keep the frame's order.

    Parameters
    ----------
    frame
        One row per (query, document): a Polars DataFrame or LazyFrame, or any input
        :func:`polars_rank.evaluate` takes.
    query, doc
        The id columns.
    value
        The value column: the run's score (``"score"``), or the qrels' label
        (``value="rel"``). Floats, or ints when the column is an integer column (as
        pytrec_eval wants qrels). Rows with a null value (not retrieved, unjudged)
        are left out.

    Returns
    -------
    dict
        ``{qid: {docid: value}}``.

    Raises
    ------
    TypeError
        A value column that is not numeric.
    InvalidDataError
        A null query or document id, or a (query, document) pair on two rows (a dict
        holds one value per pair).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> run = pl.DataFrame({"qid": [1, 1, 2], "docid": ["a", "b", "a"],
    ...                     "score": [2.0, 1.5, 0.25]})
    >>> pr.to_dict(run)
    {'1': {'a': 2.0, 'b': 1.5}, '2': {'a': 0.25}}
    >>> qrels = pl.DataFrame({"qid": ["1", "1", "2"], "docid": ["a", "c", "b"],
    ...                       "rel": [1, None, 1]})
    >>> pr.to_dict(qrels, value="rel")  # None: unjudged, left out
    {'1': {'a': 1}, '2': {'b': 1}}
    >>> pr.evaluate(pr.to_dict(run), pr.to_dict(qrels, value="rel"), ["P@1"])["P@1"][0]
    0.5
    """
    lazy = as_polars(frame, "frame", query=query, doc=doc, value=value).lazy()
    dtype = lazy.collect_schema()[value]
    if not dtype.is_numeric() and dtype != pl.Boolean:
        msg = f"to_dict: the value column {value!r} must be numeric, not {dtype}"
        raise TypeError(msg)
    cast = pl.Int64 if dtype.is_integer() or dtype == pl.Boolean else pl.Float64
    rows = (
        lazy.select(pl.col(query).cast(pl.String), pl.col(doc).cast(pl.String),
                    pl.col(value).cast(cast))
        .filter(pl.col(value).is_not_null())
        .collect()
    )
    null_ids = pl.any_horizontal(mask for _, mask in id_rules([pl.col(query)], pl.col(doc)))
    if rows.select(null_ids.any()).item():
        msg = f"to_dict: a null {query!r} or {doc!r} (a dict key must be an id)"
        raise InvalidDataError(msg)
    repeated = rows.filter(pl.struct(query, doc).is_duplicated())
    if repeated.height:
        q, d = repeated.row(0)[:2]
        msg = (f"to_dict: query {q!r}, document {d!r} is on more than one row; a dict "
               "holds one value per (query, document)")
        raise InvalidDataError(msg)
    out: dict[str, dict[str, float | int]] = {}
    for q, d, v in rows.iter_rows():
        out.setdefault(q, {})[d] = v
    return out


checked_encoding = _encoding
"""``encoding=`` checked, for the package's other readers (``read_zscores``)."""
