"""The frames users already have, as Polars frames.

Every entry point that takes data (``evaluate``, ``ranked``, ``validate``, ``compare``)
passes it through :func:`as_polars`:

* a Polars DataFrame or LazyFrame: returned as it is (lazy stays lazy);
* a pandas DataFrame, a pyarrow Table or RecordBatch, any Arrow PyCapsule producer
  (``__arrow_c_stream__``): an eager DataFrame, by Polars' own readers;
* a pyarrow Dataset: a lazy scan (``pl.scan_pyarrow_dataset``), read when the result
  is computed, with only the columns and rows the query needs;
* a dict of columns (``{"qid": [...], "docid": [...], ...}``): an eager DataFrame;
* a pytrec_eval dict of dicts (``{qid: {docid: value}}``), or a ranx ``Run`` or
  ``Qrels``: an eager DataFrame of three columns, the query and document ids as
  strings and the value (the run's score, the qrels' label), one row per pair.

The entry points return an eager result for anything but a LazyFrame.

Each input is read once, at the entry point, and every reader keeps a value as it is:
NaN stays NaN and a missing value (null, ``None``, ``pd.NA``) is null, so the same
data gives the same number, or the same error, in every format. In a pandas float
column NaN is therefore NaN (bad data: a NaN score or label is an error), not the
missing value pandas prints it as; :func:`polars.from_pandas` would make it null,
that is a judged document the run did not retrieve, or an unjudged one. A missing
value in pandas is ``None`` / ``pd.NA`` in a nullable or pyarrow column
(``df.convert_dtypes()`` turns a float column's NaN into ``pd.NA``). In any other
pandas column (text ids, ``object``) NaN is pandas' missing marker and becomes null.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast

import polars as pl

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FrameLike", "as_polars", "as_polars_like", "from_pandas"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

FrameLike: TypeAlias = "pl.DataFrame | pl.LazyFrame | Any"
"""What the entry points take as data: a Polars DataFrame or LazyFrame, or (typed
``Any``: their libraries are optional) any other input :func:`as_polars` reads: a
pandas DataFrame, a pyarrow Table, RecordBatch or Dataset, an Arrow PyCapsule
producer, a dict of columns, a pytrec_eval dict of dicts, a ranx Run or Qrels."""

ACCEPTED = ("a Polars DataFrame or LazyFrame, a pandas DataFrame, a pyarrow Table, "
            "RecordBatch or Dataset, an Arrow PyCapsule producer, a dict of columns, "
            "a pytrec_eval dict of dicts {qid: {docid: value}}, or a ranx Run or Qrels")


def as_polars(frame: Any, what: str, *, query: str = "qid", doc: str = "docid",
              value: str = "score") -> pl.DataFrame | pl.LazyFrame:
    """``frame`` as a Polars DataFrame or LazyFrame; TypeError naming ``what`` otherwise.

    ``query``, ``doc`` and ``value`` name the three columns of a dict of dicts (or a
    ranx Run or Qrels): the run's score or the qrels' label is ``value``.
    """
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        return frame
    if _is_ranx(frame):
        frame = frame.to_dict()
    library = _library(frame)
    try:
        if isinstance(frame, Mapping):
            return _from_mapping(frame, query=query, doc=doc, value=value)
        if library == "pandas":
            import pandas  # only for pandas input: it is loaded already

            if isinstance(frame, pandas.DataFrame):  # a pandas Series is no frame
                return from_pandas(frame)
        elif library == "pyarrow":
            import pyarrow.dataset  # only for pyarrow input

            if isinstance(frame, pyarrow.dataset.Dataset):
                return pl.scan_pyarrow_dataset(frame)
            arrow = pl.from_arrow(frame)
            if isinstance(arrow, pl.DataFrame):  # an Array is no frame
                return arrow
        elif hasattr(frame, "__arrow_c_stream__"):  # any Arrow PyCapsule producer
            return pl.DataFrame(frame)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        msg = f"{what}: could not read the {type(frame).__name__} as a frame ({exc})"
        raise TypeError(msg) from None
    msg = f"{what} must be {ACCEPTED}; got {type(frame).__name__}"
    raise TypeError(msg)


def as_polars_like(frame: FrameT, what: str) -> FrameT:
    """:func:`as_polars` for a function typed on Polars frames (lazy in, lazy out).

    Its other inputs come back as a DataFrame (a pyarrow Dataset as a LazyFrame).
    """
    return cast("FrameT", as_polars(frame, what))


def from_pandas(frame: pd.DataFrame) -> pl.DataFrame:
    """A pandas frame, each column as :func:`_from_pandas_column` reads it.

    The Dask front end reads its partitions with it, as :func:`as_polars` reads a
    pandas frame.
    """
    return pl.DataFrame([_from_pandas_column(frame.iloc[:, i], str(name))
                         for i, name in enumerate(frame.columns)])


def _from_pandas_column(column: pd.Series[Any], name: str) -> pl.Series:
    """A pandas column: NaN kept in a float column, pandas' missing marker elsewhere.

    A float column (NumPy, nullable or pyarrow) can hold NaN as a value beside its
    missing values; ``object`` and text columns hold NaN only as pandas' missing marker
    (a text id after a merge), and Arrow could not read them without making it null.
    """
    # pl.from_pandas, not pl.Series: the Series constructor makes NaN null in any case
    out = cast("pl.Series", pl.from_pandas(column, nan_to_null=column.dtype.kind != "f"))
    return out.alias(name)


def _library(value: Any) -> str:
    """The top-level package of ``value``'s class (``"pandas"``, ``"pyarrow"``)."""
    return type(value).__module__.split(".")[0]


def _is_ranx(frame: Any) -> bool:
    """A ranx ``Run`` or ``Qrels`` (told by its class: ranx is not imported)."""
    return any(cls.__module__.split(".")[0] == "ranx" and cls.__name__ in ("Run", "Qrels")
               for cls in type(frame).__mro__)


def _from_mapping(frame: Mapping[Any, Any], *, query: str, doc: str,
                  value: str) -> pl.DataFrame:
    """A dict of columns, or a dict of dicts ``{qid: {docid: value}}`` (ids as text)."""
    nested = [isinstance(inner, Mapping) for inner in frame.values()]
    if nested and not any(nested):  # columns; a pandas Series read as a pandas frame's
        return pl.DataFrame({name: _from_pandas_column(values, str(name))
                             if _library(values) == "pandas" else values
                             for name, values in frame.items()})
    if not all(nested):
        msg = ("a dict holds either columns (lists, Series, arrays) or, as pytrec_eval's, "
               "one dict {docid: value} per query; this one mixes both")
        raise TypeError(msg)
    queries = chain.from_iterable(repeat(str(q), len(inner)) for q, inner in frame.items())
    docs = [str(d) for inner in frame.values() for d in inner]
    values = [v for inner in frame.values() for v in inner.values()]
    return pl.DataFrame([
        pl.Series(query, list(queries), dtype=pl.String),
        pl.Series(doc, docs, dtype=pl.String),
        pl.Series(value, values, strict=False) if values
        else pl.Series(value, [], dtype=pl.Float64),
    ])
