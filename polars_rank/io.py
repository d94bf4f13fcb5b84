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

import polars as pl

# The readers' parts live in polars_rank/_io/ (layouts, reader, write); the names
# imported "as" themselves are public here too: the package's other modules and the
# docs reach them at this path
from polars_rank._io.layouts import RUN, opened, qrels_layout
from polars_rank._io.layouts import Encoding as Encoding
from polars_rank._io.layouts import PathLike as PathLike
from polars_rank._io.layouts import QrelsFormat as QrelsFormat
from polars_rank._io.layouts import checked_encoding as checked_encoding
from polars_rank._io.reader import last_tag as last_tag
from polars_rank._io.reader import scan, scan_prefs
from polars_rank._io.write import to_dict, write_run
from polars_rank.errors import TrecFormatError

__all__ = ["TrecFormatError", "scan_run", "read_run", "scan_qrels", "read_qrels", "write_run",
           "to_dict"]


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
    checked = checked_encoding(encoding)
    file, _, _ = opened(path, "run")
    return scan(file, RUN, checked).select("qid", "docid", "score", "rank", "tag")


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
    checked = checked_encoding(encoding)
    if format in ("prefs", "qrels_prefs"):
        return scan_prefs(path, format, subtopics=subtopics, encoding=checked)
    file, layout, header = qrels_layout(path, subtopics, format)
    lazy = scan(file, layout, checked, header)
    return lazy.with_columns(pl.when(pl.col("rel") >= 0).then(pl.col("rel")).alias("rel"))


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

