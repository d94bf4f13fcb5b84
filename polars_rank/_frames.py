"""The frames users already have, as Polars frames: pandas, Arrow, dicts of columns.

Every entry point that takes data (``evaluate``, ``ranked``, ``validate``, ``compare``)
passes it through :func:`as_polars`; a Polars frame is returned as it is (lazy stays
lazy), anything else becomes an eager DataFrame, so the result is eager too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

__all__ = ["as_polars"]

ACCEPTED = ("a Polars DataFrame or LazyFrame, a pandas DataFrame, a pyarrow Table or "
            "RecordBatch, or a dict of columns")


def as_polars(frame: Any, what: str) -> Any:
    """``frame`` as a Polars DataFrame or LazyFrame; TypeError naming ``what`` otherwise."""
    if isinstance(frame, (pl.DataFrame, pl.LazyFrame)):
        return frame
    if isinstance(frame, Mapping):
        return pl.DataFrame(dict(frame))
    library = type(frame).__module__.split(".")[0]
    try:
        if library == "pandas":
            return pl.from_pandas(frame)
        if library == "pyarrow":
            return pl.from_arrow(frame)
        if hasattr(frame, "__arrow_c_stream__"):  # any Arrow PyCapsule producer
            return pl.DataFrame(frame)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        msg = f"{what}: could not read the {type(frame).__name__} as a frame ({exc})"
        raise TypeError(msg) from None
    msg = f"{what} must be {ACCEPTED}; got {type(frame).__name__}"
    raise TypeError(msg)
