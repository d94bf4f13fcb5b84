"""Z-scores: per-query values against a reference mean and standard deviation per topic.

trec_eval's ``-Z Zmean_file`` (get_zscores.c, convert_zscores.c): each query's value
of each measure becomes ``(value - mean) / stddev``, the mean and standard deviation
of that measure on that topic over a reference set of runs (Webber, Moffat & Zobel,
"Score standardization for inter-collection comparison of retrieval systems",
SIGIR 2008). The means over queries are then means of z-scores.

:func:`read_zscores` reads trec_eval's file (``qid measure mean stddev`` a line, as
NIST's ``test/make_zscore_file.py`` writes it); :func:`polars_rank.evaluate`'s
``zscores=`` and ``polars-rank eval -Z`` standardize with it, both through
:func:`standardized`, so the numbers are the same.

Where trec_eval has no mean for a (query, measure), or a standard deviation of 0 and a
value off the mean, the value is trec_eval's ``MISSING_ZSCORE_VALUE``, -1000000
(trec_eval.h:218), and the mean over queries takes it in as trec_eval does.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import polars as pl

from polars_rank._engine.summaries import GEOMETRIC_FLOOR, Summary, summarize
from polars_rank.errors import InvalidDataError, TrecFormatError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["MISSING_ZSCORE", "read_zscores", "reads_past", "standardized", "zscore_summary"]

MISSING_ZSCORE = -1_000_000.0
"""trec_eval's MISSING_ZSCORE_VALUE (trec_eval.h:218): no mean in the file for the
query and measure, or a standard deviation of 0 and a value other than the mean."""

COLUMNS = ("qid", "measure", "mean", "stddev")
_BLANKS = r"[ \t\v\f\r]+"  # C's isspace(), trec_eval's separators (with the line end)
_IRREGULAR = ("\t", "\v", "\f", "\r", "  ", "\n ", " \n")
"""What a file whose fields are each separated by one space has none of."""
_SHOWN = 3  # malformed lines named in one error


def read_zscores(path: str | os.PathLike[str], *, encoding: str = "utf-8") -> pl.DataFrame:
    r"""Read trec_eval's z-score file: ``qid measure mean stddev`` a line.

    The file ``trec_eval -Z`` reads (get_zscores.c): per topic and measure (named as
    trec_eval prints it: ``map``, ``P_10``, ``ndcg_cut_10``), the mean and standard
    deviation of the measure over a reference set of runs, fields separated by white
    space. Give it to :func:`polars_rank.evaluate` as ``zscores=`` to get trec_eval's
    z-scores.

    Parameters
    ----------
    path
        The file.
    encoding
        ``"utf-8"``, or ``"latin-1"`` for ids that are not UTF-8 (each byte one
        character, as :func:`polars_rank.read_run` reads them).

    Returns
    -------
    pl.DataFrame
        Columns ``qid`` (str), ``measure`` (str), ``mean`` (f64), ``stddev`` (f64), in
        file order.

    Raises
    ------
    TrecFormatError
        An empty file; a line without exactly 4 fields (a blank line too: trec_eval
        stops on both); a mean or standard deviation that is not a finite decimal
        number (where trec_eval's ``atof`` reads ``x`` as 0); a NUL byte; a
        (qid, measure) given twice (trec_eval would use either); a line not in
        ``encoding``. The message names the file, the line number and the line.
    OSError
        The file cannot be read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import polars_rank as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "zscores_file"
    >>> _ = path.write_text("301 map 0.1212 0.1545\n301 P_10 0.4473 0.3524\n")
    >>> pr.read_zscores(path)
    shape: (2, 4)
    ┌─────┬─────────┬────────┬────────┐
    │ qid ┆ measure ┆ mean   ┆ stddev │
    │ --- ┆ ---     ┆ ---    ┆ ---    │
    │ str ┆ str     ┆ f64    ┆ f64    │
    ╞═════╪═════════╪════════╪════════╡
    │ 301 ┆ map     ┆ 0.1212 ┆ 0.1545 │
    │ 301 ┆ P_10    ┆ 0.4473 ┆ 0.3524 │
    └─────┴─────────┴────────┴────────┘

    trec_eval's ``-Z``, through :func:`polars_rank.evaluate` (metrics named as in the
    file; a query or measure the file lacks scores -1000000, as in trec_eval):

    >>> import polars as pl
    >>> run = pl.DataFrame({"qid": ["301", "301"], "docid": ["a", "b"], "score": [2.0, 1.0]})
    >>> qrels = pl.DataFrame({"qid": ["301"], "docid": ["b"], "rel": [1]})
    >>> pr.evaluate(run, qrels, ["map", "P_10", "P_5"], dialect="trec_eval",
    ...             zscores=pr.read_zscores(path))
    shape: (1, 3)
    ┌─────────┬───────────┬──────┐
    │ map     ┆ P_10      ┆ P_5  │
    │ ---     ┆ ---       ┆ ---  │
    │ f64     ┆ f64       ┆ f64  │
    ╞═════════╪═══════════╪══════╡
    │ 2.45178 ┆ -0.985528 ┆ -1e6 │
    └─────────┴───────────┴──────┘
    """
    from polars_rank.io import checked_encoding  # io imports nothing from here

    codec = checked_encoding(encoding)
    file = Path(path)
    data = file.read_bytes()
    if not data:
        msg = f"{os.fspath(file)}: empty file (trec_eval cannot read it either)"
        raise TrecFormatError(msg)
    nul = data.find(b"\0")
    if nul >= 0:
        _malformed(file, [(data.count(b"\n", 0, nul) + 1, _line_at(data, nul),
                           "a NUL byte: a binary or UTF-16 file? save it as UTF-8")])
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        _malformed(file, [(data.count(b"\n", 0, exc.start) + 1, _line_at(data, exc.start),
                           f"not {codec}; read it with encoding='latin-1' to compare ids "
                           "byte for byte, as trec_eval does")])
    lines = text.split("\n")
    if lines[-1] == "":  # after the last line end
        lines.pop()
    line, number = pl.col("__line"), pl.col("__number")
    if text.startswith(" ") or text.endswith(" ") or any(c in text for c in _IRREGULAR):
        line = line.str.replace_all(_BLANKS, " ").str.strip_chars(" ")
    parts = [f"__{i}" for i in range(len(COLUMNS) + 1)]  # a fifth: one field too many
    read = (
        pl.DataFrame({"__line": lines}).with_row_index("__number", offset=1)
        .with_columns(line.str.split_exact(" ", len(COLUMNS))
                      .struct.rename_fields(parts).alias("__parts"))
        .unnest("__parts")
        .with_columns(
            pl.col(parts[0]).replace("", None),  # a blank line: no field
            *(pl.col(parts[i]).cast(pl.Float64, strict=False).alias(f"__{name}")
              for i, name in enumerate(COLUMNS) if i >= 2),
            (~pl.struct(parts[:2]).is_first_distinct()).alias("__again"),
        )
    )
    count = pl.sum_horizontal(pl.col(parts).is_not_null())
    why = pl.when(count == 0).then(pl.lit("a blank line: trec_eval stops on one")).when(
        count != len(COLUMNS)).then(pl.format("{} fields", count))
    for i, name in enumerate(COLUMNS[2:], 2):
        why = why.when(~pl.col(f"__{name}").is_finite().fill_null(False)).then(
            pl.format("{} '{}' is not a finite number", pl.lit(name), pl.col(parts[i])))
    why = why.when(pl.col("__again")).then(pl.lit("again"))
    bad = read.filter(why.is_not_null()).head(_SHOWN).select(
        number, "__line", why.alias("__why"), *parts[:2])
    if bad.height:
        _malformed(file, [(n, text_line, _again(read, parts, q, m) if why == "again" else why)
                          for n, text_line, why, q, m in bad.iter_rows()])
    return read.select(*(pl.col(parts[i]).alias(name) for i, name in enumerate(COLUMNS[:2])),
                       pl.col("__mean").alias("mean"), pl.col("__stddev").alias("stddev"))


def _again(read: pl.DataFrame, parts: list[str], qid: str, measure: str) -> str:
    """Why a (qid, measure) given twice is refused: the line it was first on."""
    first = read.filter((pl.col(parts[0]) == qid) & (pl.col(parts[1]) == measure))
    return f"query {qid!r}, measure {measure!r} is on line {first['__number'][0]} too"


def _line_at(data: bytes, at: int) -> str:
    """The line of ``data`` holding byte ``at``, as text to show."""
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    return data[start:end if end >= 0 else len(data)].decode("utf-8", "backslashreplace")


def _malformed(file: Path, problems: list[tuple[int, str, str]]) -> NoReturn:
    """TrecFormatError naming the file and, for each problem, the line and why."""
    shown = "; ".join(f"line {number}: {line.strip()!r} ({why})"
                      for number, line, why in problems)
    msg = (f"{os.fspath(file)}: malformed z-score line, expected 'qid measure mean stddev' "
           f"-- {shown}")
    raise TrecFormatError(msg)


def checked_reference(zscores: pl.DataFrame | pl.LazyFrame, query: str) -> pl.DataFrame:
    """``zscores=``: a frame with ``query``, ``measure``, ``mean``, ``stddev``, checked.

    TypeError for anything but a Polars frame or a missing or mistyped column;
    InvalidDataError for a (query, measure) on two rows, a null, or a mean or standard
    deviation that is not finite (each naming the query and the measure).
    """
    if not isinstance(zscores, (pl.DataFrame, pl.LazyFrame)):
        msg = (f"zscores: a Polars DataFrame or LazyFrame of {query!r}, 'measure', 'mean', "
               f"'stddev' (polars_rank.read_zscores reads trec_eval's file), not "
               f"{type(zscores).__name__}")
        raise TypeError(msg)
    frame = zscores.lazy().collect()
    wanted = (query, *COLUMNS[1:])
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        msg = (f"zscores: no column {missing[0]!r}; the columns are {query!r} (the run's "
               "query column), 'measure', 'mean' and 'stddev'")
        raise TypeError(msg)
    if frame.schema["measure"] != pl.String or not all(
            frame.schema[c].is_numeric() for c in COLUMNS[2:]):
        msg = ("zscores: 'measure' is a string column and 'mean', 'stddev' numeric ones, "
               f"not {frame.schema['measure']}, {frame.schema['mean']}, "
               f"{frame.schema['stddev']}")
        raise TypeError(msg)
    frame = frame.select(pl.col(query).cast(pl.String), "measure",
                         pl.col("mean", "stddev").cast(pl.Float64))
    bad = frame.filter(pl.any_horizontal(pl.all().is_null())
                       | ~pl.col("mean").is_finite() | ~pl.col("stddev").is_finite()
                       | pl.struct(query, "measure").is_duplicated())
    if bad.height:
        q, measure, *_ = bad.row(0)
        twice = frame.filter((pl.col(query) == q) & (pl.col("measure") == measure)).height > 1
        why = ("is on more than one row" if twice
               else "has a null, or a mean or standard deviation that is not finite")
        msg = f"zscores: query {q!r}, measure {measure!r} {why}"
        raise InvalidDataError(msg)
    return frame


def standardized(per: pl.LazyFrame, reference: pl.DataFrame, columns: Mapping[str, Summary],
                 query: str) -> pl.LazyFrame:
    """``per``'s metric ``columns`` as z-scores against ``reference``, as trec_eval -Z.

    ``reference``: :func:`checked_reference`'s frame. ``columns``: each metric column
    and its summary over queries; a geometric one (``gm_map``) is standardized as
    trec_eval stores it per query, ``log(max(value, 1e-5))`` (m_gm_map.c), and a
    string one (``relstring``) is left as it is (trec_eval prints it so). A null
    value stays null.
    """
    numeric = {c: how for c, how in columns.items() if how != "none"}
    key = "__polars_rank_zscore_query"
    slots = {c: (f"__polars_rank_mean_{i}", f"__polars_rank_sd_{i}")
             for i, c in enumerate(numeric)}
    wanted = reference.filter(pl.col("measure").is_in(list(numeric)))
    wide = wanted.lazy().group_by(pl.col(query).alias(key)).agg(
        pl.col(stat).filter(pl.col("measure") == c).first().alias(slot)
        for c, pair in slots.items() for stat, slot in zip(("mean", "stddev"), pair,
                                                            strict=True))
    joined = per.with_columns(pl.col(query).cast(pl.String).alias(key)).join(
        wide, on=key, how="left", maintain_order="left")
    return joined.with_columns(
        _zscore(pl.col(c), numeric[c], pl.col(mean), pl.col(sd)).alias(c)
        for c, (mean, sd) in slots.items()
    ).drop(key, *(s for pair in slots.values() for s in pair))


def _zscore(value: pl.Expr, how: Summary, mean: pl.Expr, sd: pl.Expr) -> pl.Expr:
    """te_convert_to_zscore (convert_zscores.c) on one value."""
    v = value.cast(pl.Float64)
    if how == "geometric":
        v = v.clip(lower_bound=GEOMETRIC_FLOOR).log()
    return (pl.when(v.is_null()).then(None)
            .when(mean.is_null()).then(MISSING_ZSCORE)
            .when(sd != 0).then((v - mean) / sd)
            .when(v == mean).then(0.0)
            .otherwise(MISSING_ZSCORE))


def zscore_summary(values: pl.Expr, how: Summary, *, in_order: bool = False) -> pl.Expr:
    """The mean (or sum) over queries of z-scores, as trec_eval -Z averages them.

    trec_eval adds the z-scores as it adds values (meas_acc.c), then divides:
    ``"sum"`` measures (counts) print the sum, ``"geometric"`` ones exp(mean), their
    z-scores being of the logarithms already (meas_avg.c, te_calc_avg_meas_s_gm).
    """
    if how == "geometric":
        return summarize(values, "mean", in_order=in_order).exp()
    return summarize(values, how, in_order=in_order)


def reads_past(per_query: pl.DataFrame, reference: pl.DataFrame, names: list[str],
               query: str = "qid") -> tuple[str, str | None] | None:
    """The first (query, measure) trec_eval 10 looks up past the end of its table.

    convert_zscores.c's binary searches start with ``end`` one past the last entry:
    looking up a query id above every id of the file (the measure is then None), or
    a measure above every measure the file has for the query (in strcmp's order),
    reads the entry after the table: the next query's first measure, whose mean is
    used when the names are equal; after the last query, memory that is not the
    table, where trec_eval crashes. polars-rank gives MISSING_ZSCORE there, as
    trec_eval's help says. ``names``: every value trec_eval converts (the printed
    names, ``num_q`` and ``relstring`` too). None when no lookup reads past.
    """
    if not per_query.height or not names:
        return None
    found: list[tuple[str, str | None]] = []
    last_query = reference.select(pl.col(query).max()).item()
    beyond = per_query.filter(pl.col(query) > last_query) if last_query is not None \
        else per_query
    if beyond.height:
        found.append((beyond.select(pl.col(query).min()).item(), None))
    highest = reference.group_by(query).agg(pl.col("measure").max())
    short = (per_query.select(query).join(highest, on=query, how="inner")
             .filter(pl.col("measure") < max(names)).sort(query))
    if short.height:
        q, top = short.row(0)
        found.append((q, min(n for n in names if n > top)))
    return min(found, default=None, key=lambda f: f[0])
