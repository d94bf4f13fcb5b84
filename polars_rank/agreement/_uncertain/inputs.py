"""The run of :func:`evaluate_uncertain` and :func:`label_draws`, checked, and its columns.

Once checked, the user's id columns are renamed to ``QUERY, DOC, SCORE, ARM``: the
computation's own columns (``_qi``, ``_li``, ``_draw``, ``_grade``, ``rank``, ``draw``,
``metric``, ...) then never meet a user's column of that name; the results name them
back. A user's column named like a column of the result is refused (:func:`free`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ARM", "DOC", "QUERY", "SCORE", "free", "internal", "run_frame", "same_ids"]

QUERY, DOC, SCORE, ARM = "_query", "_doc", "_score", "_arm"


def run_frame(run: pl.DataFrame | pl.LazyFrame, columns: list[str]) -> pl.DataFrame:
    """The run's ``columns`` (query, doc, score[, arm]), checked; rows with a score."""
    for i, name in enumerate(columns):
        if name in columns[:i]:
            msg = (f"column {name!r} is given for two of query, doc, score, arm "
                   f"({columns}): they must be distinct columns")
            raise ValueError(msg)
    read = as_polars(run, "run", query=columns[0], doc=columns[1], value=columns[2])
    frame = read.collect() if isinstance(read, pl.LazyFrame) else read
    for name in columns:
        if name not in frame.columns:
            msg = f"the run has no column {name!r}: it needs {columns}, got {frame.columns}"
            raise InvalidDataError(msg)
    query, doc, score = columns[:3]
    frame = frame.select(columns)
    if not frame.schema[score].is_numeric():
        msg = f"column {score!r} of the run: expected numbers, got {frame.schema[score]}"
        raise InvalidDataError(msg)
    keys = [query, doc, *columns[3:]]
    for bad, rule in ((pl.col(query).is_null(), f"a null in column {query!r}"),
                      (pl.col(doc).is_null(), f"a null in column {doc!r}"),
                      *[(pl.col(a).is_null(), f"a null in column {a!r} (the arm)")
                        for a in columns[3:]],
                      (pl.col(score).cast(pl.Float64).is_nan(), f"a NaN in column {score!r}"),
                      (pl.struct(keys).is_duplicated(), f"duplicate {tuple(keys)} rows")):
        offenders = frame.filter(bad.fill_null(False))
        if offenders.height:
            first = offenders.sort(keys).row(0, named=True)
            msg = (f"the run has {rule}: first at {query}={first[query]!r}, "
                   f"{doc}={first[doc]!r}")
            raise InvalidDataError(msg)
    # a null score is a judged document the run did not retrieve (evaluate()'s rule)
    return frame.filter(pl.col(score).is_not_null())


def same_ids(run: pl.DataFrame, dist: pl.DataFrame, query: str, doc: str) -> None:
    """The run's and the labels' ids are of one type (else they would never match)."""
    for column in (query, doc):
        if dist.height and run.schema[column] != dist.schema[column]:
            msg = (f"column {column!r} is {run.schema[column]} in the run but "
                   f"{dist.schema[column]} in the labels: cast the ids to one type")
            raise InvalidDataError(msg)


def free(names: dict[str, str | None], taken: Sequence[str], where: str) -> None:
    """ValueError for a user column named like a column of the result."""
    for param, name in names.items():
        if name is not None and name in taken:
            msg = (f"{param}={name!r}: {where} has a column {name!r} of its own "
                   f"({list(taken)}); rename the {param} column")
            raise ValueError(msg)


def internal(run: pl.DataFrame, dist: pl.DataFrame, query: str, doc: str, score: str,
              arm: str | None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The checked run and labels with the user's columns renamed to ``QUERY, DOC, SCORE, ARM``."""
    names = {query: QUERY, doc: DOC, score: SCORE, **({arm: ARM} if arm is not None else {})}
    return run.rename(names), dist.rename({query: QUERY, doc: DOC})
