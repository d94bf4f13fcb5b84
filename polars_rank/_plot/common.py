"""What the charts share: Altair on demand, input frames, labels, sizes, intervals."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank._engine.frames import as_polars

if TYPE_CHECKING:
    from collections.abc import Sequence

# The charts' types, here rather than in polars_rank.plot (which re-exports them) so
# that the chart modules below it need not import it back (tests/test_imports.py).
Frame: TypeAlias = "pl.DataFrame | pl.LazyFrame"
Value = Literal["delta", "lift"]

INSTALL_HINT = 'pip install "polars-rank[plot]"'
"""How to install the optional plotting dependencies (Altair and vl-convert-python)."""

SEP = " / "
WIDTH = 300
HEIGHT = 200


def import_altair(purpose: str) -> Any:
    """Import Altair or raise an ``ImportError`` saying how to install it."""
    try:
        import altair
    except ImportError as exc:
        msg = (f"{purpose} needs altair, which is not installed; install the plotting "
               f"extra: {INSTALL_HINT}")
        raise ImportError(msg) from exc
    return altair


def collected(frame: Frame, param: str) -> pl.DataFrame:
    """``frame`` (any input :func:`polars_rank._engine.frames.as_polars` reads) as a DataFrame."""
    polars = as_polars(frame, param)
    return polars.collect() if isinstance(polars, pl.LazyFrame) else polars


def require_columns(frame: pl.DataFrame, columns: Sequence[str], param: str) -> None:
    for column in columns:
        if column not in frame.columns:
            msg = f"{param} has no column {column!r}; its columns are {frame.columns}"
            raise ValueError(msg)


def key_label(columns: list[str]) -> pl.Expr:
    """One text label from one or several key columns: ``"mobile / treatment"``."""
    if not columns:
        return pl.lit("all")
    return pl.concat_str([pl.col(c).cast(pl.String).fill_null("null") for c in columns],
                         separator=SEP)


def z_value(level: float) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        msg = f"level must be a number strictly between 0 and 1, got {level!r}"
        raise ValueError(msg)
    return statistics.NormalDist().inv_cdf(0.5 + level / 2)
