"""A frame out of polars-rank: a TREC run file, or pytrec_eval's dict of dicts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank._engine.rules import id_rules
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from polars_rank._engine.frames import FrameLike
    from polars_rank._io.layouts import PathLike


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
