"""Read and write TREC run and qrels files.

Formats (whitespace separated: tabs, repeated spaces and trailing blanks are fine;
blank lines and lines starting with ``#`` are skipped):

* run: ``qid Q0 docid rank score [tag]`` -> columns ``qid, docid, score, rank, tag``
* qrels: ``qid iter docid rel`` -> columns ``qid, docid, rel``

Ids are strings. A negative qrels label means "in the pool, not judged" to
trec_eval: the readers map it to null (unjudged), so it is not bad input.

The ``scan_*`` functions check the file's format when called (one fast pass with
Polars), so a malformed line raises :class:`TrecFormatError` naming the file, the
line number and the line, then return a lazy scan.
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from polars_rank.errors import TrecFormatError

__all__ = ["TrecFormatError", "scan_run", "read_run", "scan_qrels", "read_qrels", "write_run"]

PathLike = str | os.PathLike[str]

_FIELD = r"(\S+)"
_SEP = r"\s+"
_RUN_LINE = (
    rf"^\s*{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}"
    rf"(?:{_SEP}{_FIELD}(?:{_SEP}.*)?)?\s*$"  # text after the tag: ignored, as trec_eval
)
_QRELS_LINE = rf"^\s*{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}{_SEP}{_FIELD}\s*$"


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
           expected: str) -> pl.LazyFrame:
    """Parse each line with ``pattern``; fields typed as given (None: dropped)."""
    names = list(fields)
    parts = pl.col("line").str.extract_groups(pattern).struct.rename_fields(names)
    typed = [
        parts.struct.field(name).cast(dtype, strict=False).alias(name)
        for name, dtype in fields.items() if dtype is not None
    ]
    raw = [parts.struct.field(name).alias(f"__raw_{name}") for name in names]
    parsed = _lines(path).select("line_no", "line", *typed, *raw)
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


def scan_qrels(path: PathLike) -> pl.LazyFrame:
    r"""Lazily read a TREC qrels file: ``qid iter docid rel``.

    Negative labels ("in the pool, not judged" to trec_eval) become null: unjudged.

    Parameters
    ----------
    path
        The qrels file.

    Returns
    -------
    pl.LazyFrame
        Columns ``qid`` (str), ``docid`` (str), ``rel`` (i64, null = unjudged).

    Raises
    ------
    TrecFormatError
        A line without 4 fields or a non-integer label.

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
    """
    fields: dict[str, pl.DataType | None] = {
        "qid": pl.String(), "iter": None, "docid": pl.String(), "rel": pl.Int64(),
    }
    lf = _parse(path, _QRELS_LINE, fields, "qid iter docid rel")
    return lf.with_columns(pl.when(pl.col("rel") >= 0).then(pl.col("rel")).alias("rel"))


def read_qrels(path: PathLike) -> pl.DataFrame:
    r"""Read a TREC qrels file eagerly; see :func:`scan_qrels`.

    Parameters
    ----------
    path
        The qrels file.

    Returns
    -------
    pl.DataFrame
        Columns ``qid, docid, rel``.

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
    """
    return scan_qrels(path).collect()


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

