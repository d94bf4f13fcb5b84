"""The TREC line formats (run, qrels and their variants) and trec_eval's rules for bytes.

What a line of each format holds and what trec_eval does with the rest of a file
(``Layout``), which layout a qrels file has (from its first data line), and the checks
every reader makes before Polars sees a byte: the encoding, NUL bytes, byte-order marks,
an empty file. The readers are in ``reader.py``; the public functions in
``polars_rank.io``.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl

from polars_rank.errors import TrecFormatError

PathLike = str | os.PathLike[str]
Encoding = Literal["utf-8", "latin-1"]
Kind = Literal["id", "skip", "float", "level", "int", "rank"]
"""A field: an id (kept as a string), a field that must be there but is dropped (the
run's ``Q0``, the qrels' iteration), a number, a number that is not NaN (a preference
level: trec_eval sorts by it), an integer, or the run's rank (kept as an integer where
it is one, ignored otherwise, as trec_eval ignores it)."""

UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
EXTRA = "__extra"  # a field after the last one, where the format has none
_WIDE = 200  # characters of a line shown in an error
NOT_UTF8 = ("not UTF-8; read it with encoding='latin-1' to compare ids byte for byte, "
             "as trec_eval does")
NUL = "a NUL byte: a binary or UTF-16 file? save it as UTF-8"
BOM = ("starts with a byte-order mark, U+FEFF, which trec_eval reads as part of the first "
        "query id: save the file without it")
_BEIR_HEADER = ("query-id", "corpus-id", "score")  # the first line of BEIR's qrels TSV


@dataclass(frozen=True)
class Layout:
    """One line format, and what trec_eval does with the rest of a file."""

    what: str  # "run" or "qrels", in messages
    expected: str  # the line as the documentation writes it, in messages
    fields: tuple[tuple[str, Kind], ...]  # names and kinds, in file order
    extra: bool  # fields after the last are ignored (run); else an error (qrels)
    blank: bool  # blank lines are skipped (run); else an error (qrels)
    # qrels: a comment line is skipped only when its "#" starts the line, the line
    # before is no comment and it is not the last line (get_qrels.c reads the others
    # as data, or reads past the end of the file)
    lone_comments: bool = False

    @property
    def names(self) -> list[str]:
        """The fields' names, in file order."""
        return [name for name, _ in self.fields]

    @property
    def schema(self) -> pl.Schema:
        """The frame read: the fields that are kept, typed."""
        dtypes: dict[Kind, pl.DataType] = {"id": pl.String(), "float": pl.Float64(),
                                            "level": pl.Float64(), "int": pl.Int64(),
                                            "rank": pl.Int64()}
        return pl.Schema({name: dtypes[kind] for name, kind in self.fields if kind != "skip"})

    def csv_schema(self, *, quick: bool) -> dict[str, pl.DataType]:
        """What Polars' CSV reader parses: numbers typed, the rest as text.

        ``quick``: the rank too (a file whose ranks are not all integers is read again).
        """
        dtypes: dict[Kind, pl.DataType] = {"float": pl.Float64(), "level": pl.Float64(),
                                            "int": pl.Int64()}
        if quick:
            dtypes["rank"] = pl.Int64()
        out = {name: dtypes.get(kind, pl.String()) for name, kind in self.fields}
        return out if self.extra else out | {EXTRA: pl.String()}

    def typed(self) -> list[pl.Expr]:
        """The kept fields from the text ones (a rank that is not an integer: null)."""
        return [pl.col(name).cast(pl.Int64, strict=False) if kind == "rank" else pl.col(name)
                for name, kind in self.fields if kind != "skip"]


RUN = Layout("run", "qid Q0 docid rank score tag",
               (("qid", "id"), ("q0", "skip"), ("docid", "id"), ("rank", "rank"),
                ("score", "float"), ("tag", "id")), extra=True, blank=True)
QRELS = Layout("qrels", "qid iter docid rel",
                 (("qid", "id"), ("iter", "skip"), ("docid", "id"), ("rel", "int")),
                 extra=False, blank=False, lone_comments=True)
SUBTOPICS = Layout("qrels", "qid subtopic docid rel",
                     (("qid", "id"), ("subtopic", "id"), ("docid", "id"), ("rel", "int")),
                     extra=False, blank=False, lone_comments=True)
QRELS3 = Layout("qrels", "qid docid rel", (("qid", "id"), ("docid", "id"), ("rel", "int")),
                  extra=False, blank=False, lone_comments=True)
# trec_eval's -R prefs and -R qrels_prefs (get_prefs.c, get_qrels_prefs.c): the level is
# read as a double, compared, never rounded; comments and blank lines as in qrels
PREFS = Layout("prefs", "qid jg jsg docid rel",
                 (("qid", "id"), ("jg", "id"), ("jsg", "id"), ("docid", "id"), ("rel", "level")),
                 extra=False, blank=False, lone_comments=True)
QRELS_PREFS = Layout("qrels_prefs", "qid jg docid rel",
                       (("qid", "id"), ("jg", "id"), ("docid", "id"), ("rel", "level")),
                       extra=False, blank=False, lone_comments=True)

# trec_eval's -R qrels_jg (get_qrels_jg.c): TREC qrels whose second field is kept, the
# judgment group (a user), read as get_qrels.c reads qrels otherwise
QRELS_JG = Layout("qrels", "qid jg docid rel",
                    (("qid", "id"), ("jg", "id"), ("docid", "id"), ("rel", "int")),
                    extra=False, blank=False, lone_comments=True)
QrelsFormat = Literal["qrels", "qrels_jg", "prefs", "qrels_prefs"]
"""The judgment formats the qrels readers take: trec_eval's ``-R`` values."""
QRELS_FORMATS = ("qrels", "qrels_jg")


def checked_encoding(encoding: str) -> Encoding:
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


def shown_line(raw: bytes) -> str:
    """A line as an error message shows it (stripped, at most ``_WIDE`` characters)."""
    text = raw.strip().decode("utf-8", "backslashreplace")
    return text if len(text) <= _WIDE else text[:_WIDE] + "..."


def _byte_problem(path: Path, number: int, raw: bytes) -> str | None:
    """What makes a line unreadable as text: a NUL byte or a byte-order mark."""
    if number == 1 and raw.startswith(_UTF16_BOMS):
        return (f"{os.fspath(path)}: a UTF-16 file (it starts with a UTF-16 byte-order mark); "
                "TREC files are read as bytes, as trec_eval reads them: save it as UTF-8")
    if b"\0" in raw:
        return f"{os.fspath(path)}: line {number}: {shown_line(raw)!r} ({NUL})"
    if number == 1 and raw.startswith(UTF8_BOM):
        return f"{os.fspath(path)}: line 1: {shown_line(raw)!r} ({BOM})"
    return None


def check_bytes(path: Path, number: int, raw: bytes) -> None:
    """TrecFormatError when the line is not text (see ``_byte_problem``)."""
    problem = _byte_problem(path, number, raw)
    if problem is not None:
        raise TrecFormatError(problem)


def opened(path: PathLike, what: str) -> tuple[Path, int, list[bytes]]:
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
            check_bytes(file, number, raw)
            fields = raw.split()  # bytes.split(): on C's isspace() characters, as trec_eval
            if fields and not fields[0].startswith(b"#"):
                return file, number, fields
    msg = f"{os.fspath(file)}: no {what} line (only blank lines and comments)"
    raise TrecFormatError(msg)


def qrels_layout(path: PathLike, subtopics: bool,
                  format: str = "qrels") -> tuple[Path, Layout, int]:
    """The file, its layout (from its first data line) and the header line to skip."""
    if format not in QRELS_FORMATS:
        msg = (f"format={format!r}: 'qrels' (TREC, 3-column or BEIR), 'qrels_jg' "
               "(trec_eval's judgment groups, 'qid jg docid rel'), 'prefs' or "
               "'qrels_prefs' (trec_eval's -R)")
        raise ValueError(msg)
    if format == "qrels_jg" and subtopics:
        msg = "subtopics=True reads diversity qrels; format='qrels_jg' reads judgment groups"
        raise ValueError(msg)
    file, number, words = opened(path, "qrels")
    if format == "qrels_jg":
        if len(words) != len(QRELS_JG.fields):
            msg = (f"{os.fspath(file)}: line {number} has {len(words)} fields; trec_eval's "
                   "judgment groups (qrels_jg) are 'qid jg docid rel'")
            raise TrecFormatError(msg)
        return file, QRELS_JG, 0
    header = [word.decode("utf-8", "replace") for word in words] == list(_BEIR_HEADER)
    if len(words) == len(_BEIR_HEADER):  # qid docid rel, after BEIR's header if any
        if subtopics:
            msg = (f"{os.fspath(file)}: subtopics=True reads TREC's diversity qrels, "
                   "'qid subtopic docid rel'; this file has 3 fields a line")
            raise TrecFormatError(msg)
        return file, QRELS3, number if header else 0
    return file, SUBTOPICS if subtopics else QRELS, 0

