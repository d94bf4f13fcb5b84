"""Read and write TREC run and qrels files.

Formats (whitespace separated: tabs, repeated spaces and trailing blanks are fine;
blank lines and lines starting with ``#`` are skipped):

* run: ``qid Q0 docid rank score [tag]`` -> columns ``qid, docid, score, rank, tag``
* qrels: ``qid iter docid rel`` (TREC), ``qid docid rel`` (three columns, no
  iteration), or BEIR's TSV with its header line ``query-id corpus-id score``
  -> columns ``qid, docid, rel``. The number of fields of the first line that is not
  blank, a comment or BEIR's header tells the layout; every line must then have it.

Ids are strings. A negative qrels label means "in the pool, not judged" to
trec_eval: the readers map it to null (unjudged), so it is not bad input, and keep
its row, so :func:`polars_rank.evaluate` still tells a pooled unjudged document from
one not in the pool (infAP, relstring, judged@k).

The ``scan_*`` functions check the file's format when called (one fast pass with
Polars), so a malformed line raises :class:`TrecFormatError` naming the file, the
line number and the line, then return a lazy scan.

:func:`to_dict` turns a run or qrels frame into pytrec_eval's dict of dicts
``{qid: {docid: value}}``; :func:`polars_rank.evaluate` reads those dicts back.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._frames import as_polars
from polars_rank._rules import id_rules
from polars_rank.errors import InvalidDataError, TrecFormatError

if TYPE_CHECKING:
    from polars_rank._frames import FrameLike

__all__ = ["TrecFormatError", "scan_run", "read_run", "scan_qrels", "read_qrels", "write_run",
           "to_dict"]

PathLike = str | os.PathLike[str]

_FIELD = r"(\S+)"
_SEP = r"\s+"
_RUN_LINE = (
    rf"^\s*{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}"
    rf"(?:{_SEP}{_FIELD}(?:{_SEP}.*)?)?\s*$"  # text after the tag: ignored, as trec_eval
)
_QRELS_LINE = rf"^\s*{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}\s*$"
_QRELS3_LINE = rf"^\s*{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}\s*$"
_BEIR_HEADER = ["query-id", "corpus-id", "score"]  # the first line of BEIR's qrels TSV


def _has_text(path: PathLike) -> bool:
    """Whether the file holds anything but white space (reads only until it does)."""
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 16):
            if chunk.strip():
                return True
    return False


def _lines(path: PathLike) -> pl.LazyFrame:
    """The file's lines with 1-based line numbers; blank and comment lines removed."""
    if not _has_text(path):  # the CSV reader of older Polars has no column then
        return pl.LazyFrame(schema={"line_no": pl.UInt32, "line": pl.String})
    return (
        pl.scan_csv(Path(path), has_header=False, separator="\x00", quote_char=None,
                    schema={"line": pl.String}, encoding="utf8-lossy",
                    raise_if_empty=False)
        .with_row_index("line_no", offset=1)
        .with_columns(pl.col("line").str.strip_chars())
        .filter(pl.col("line").is_not_null() & (pl.col("line") != "")
                & ~pl.col("line").str.starts_with("#"))
    )


def _parse(path: PathLike, pattern: str, fields: dict[str, pl.DataType | None],
           expected: str, *, header: int | None = None) -> pl.LazyFrame:
    """Parse each line with ``pattern``; fields typed as given (None: dropped).

    ``header``: the number of a header line, skipped.
    """
    names = list(fields)
    parts = pl.col("line").str.extract_groups(pattern).struct.rename_fields(names)
    typed = [
        parts.struct.field(name).cast(dtype, strict=False).alias(name)
        for name, dtype in fields.items() if dtype is not None
    ]
    raw = [parts.struct.field(name).alias(f"__raw_{name}") for name in names]
    lines = _lines(path)
    if header is not None:
        lines = lines.filter(pl.col("line_no") != header)
    parsed = lines.select("line_no", "line", *typed, *raw)
    ok = pl.all_horizontal(
        pl.col(f"__raw_{name}").is_not_null() for name in names
        if name != "tag"
    ) & pl.all_horizontal(
        pl.col(name).is_not_null() | pl.col(f"__raw_{name}").is_null()
        for name, dtype in fields.items() if dtype is not None
    )
    bad = parsed.filter(~ok).select("line_no", "line").head(3).collect()
    if bad.height:
        shown = "; ".join(f"line {n}: {line!r}" for n, line in bad.iter_rows())
        msg = f"{os.fspath(path)}: malformed line, expected {expected!r} -- {shown}"
        raise TrecFormatError(msg)
    return parsed.select([name for name, dtype in fields.items() if dtype is not None])


def scan_run(path: PathLike) -> pl.LazyFrame:
    r"""Lazily read a TREC run file: ``qid Q0 docid rank score [tag]``.

    Parameters
    ----------
    path
        The run file.

    Returns
    -------
    pl.LazyFrame
        Columns ``qid`` (str), ``docid`` (str), ``score`` (f64), ``rank`` (i64),
        ``tag`` (str, null when absent). The rank column is informative only:
        metrics rank by ``score``, as trec_eval does.

    Raises
    ------
    TrecFormatError
        A line with fewer than 5 fields, or a non-numeric rank or score; the message
        names the file, the line number and the line. Text after the tag is ignored,
        as trec_eval ignores it.

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
    """
    fields: dict[str, pl.DataType | None] = {
        "qid": pl.String(), "q0": None, "docid": pl.String(), "rank": pl.Int64(),
        "score": pl.Float64(), "tag": pl.String(),
    }
    lf = _parse(path, _RUN_LINE, fields, "qid Q0 docid rank score tag")
    return lf.select("qid", "docid", "score", "rank", "tag")


def read_run(path: PathLike) -> pl.DataFrame:
    r"""Read a TREC run file eagerly; see :func:`scan_run`.

    Parameters
    ----------
    path
        The run file.

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
    """
    return scan_run(path).collect()


def scan_qrels(path: PathLike, *, subtopics: bool = False) -> pl.LazyFrame:
    r"""Lazily read a qrels file: ``qid iter docid rel``, ``qid docid rel`` or BEIR's TSV.

    The first line that is not blank or a comment tells the layout: 4 fields, TREC's
    ``qid iter docid rel`` (the iteration is ignored, unless ``subtopics=True``: TREC's
    diversity qrels ``qid subtopic docid rel`` keep it as a ``subtopic`` column, one
    row per (query, subtopic, document), for the intent-aware metrics such as
    ``alpha_nDCG@20``); 3 fields, ``qid docid rel``;
    BEIR's header ``query-id corpus-id score`` (skipped), then ``qid docid rel``
    lines. Negative labels ("in the pool, not judged" to trec_eval) become null:
    unjudged.

    Parameters
    ----------
    path
        The qrels file.
    subtopics
        Keep the second field of 4-field qrels as a ``subtopic`` column (str), placed
        before ``docid``.

    Returns
    -------
    pl.LazyFrame
        Columns ``qid`` (str), ``docid`` (str), ``rel`` (i64, null = unjudged); with
        ``subtopics=True``, ``qid, subtopic, docid, rel``.

    Raises
    ------
    TrecFormatError
        A line without the first line's number of fields (4 or 3), or a non-integer
        label; the message names the file, the line number and the line; or
        ``subtopics=True`` for a file without a subtopic field.

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
    """
    first = _lines(path).head(1).collect()
    words = first["line"][0].split() if first.height else []
    if subtopics and len(words) == len(_BEIR_HEADER):
        msg = (f"{os.fspath(path)}: subtopics=True reads TREC's diversity qrels, "
               "'qid subtopic docid rel'; this file has 3 fields a line")
        raise TrecFormatError(msg)
    if len(words) == len(_BEIR_HEADER):  # qid docid rel, after BEIR's header if any
        number = first["line_no"][0]
        header = number if words == _BEIR_HEADER else None
        layout = "after BEIR's header" if header is not None else f"the 3 fields of line {number}"
        fields: dict[str, pl.DataType | None] = {
            "qid": pl.String(), "docid": pl.String(), "rel": pl.Int64(),
        }
        lf = _parse(path, _QRELS3_LINE, fields, f"qid docid rel ({layout})", header=header)
    else:
        fields = {"qid": pl.String(), "subtopic": pl.String() if subtopics else None,
                  "docid": pl.String(), "rel": pl.Int64()}
        lf = _parse(path, _QRELS_LINE, fields, "qid iter docid rel")
    return lf.with_columns(pl.when(pl.col("rel") >= 0).then(pl.col("rel")).alias("rel"))


def read_qrels(path: PathLike, *, subtopics: bool = False) -> pl.DataFrame:
    r"""Read a qrels file eagerly (TREC, ``qid docid rel`` or BEIR); see :func:`scan_qrels`.

    Parameters
    ----------
    path
        The qrels file.
    subtopics
        Keep TREC's second field as a ``subtopic`` column: diversity qrels,
        ``qid subtopic docid rel``, for the intent-aware metrics.

    Returns
    -------
    pl.DataFrame
        Columns ``qid, docid, rel`` (``qid, subtopic, docid, rel`` with ``subtopics``).

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
    """
    return scan_qrels(path, subtopics=subtopics).collect()


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
