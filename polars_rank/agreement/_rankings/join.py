"""Two runs of the same queries side by side: the outer join of their top-k lists per query."""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

import polars as pl

from polars_rank._engine.frames import FrameLike, as_polars
from polars_rank._engine.params import check_k
from polars_rank.agreement._rankings.lists import check_bool
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["join_rankings"]

def _checked(run: pl.LazyFrame, name: str, query: str, doc: str, by: str) -> None:
    for column in (query, doc, by):
        if column not in run.collect_schema():
            msg = f"{name} has no column {column!r} (columns: {run.collect_schema().names()})"
            raise InvalidDataError(msg)
    if not run.collect_schema()[by].is_numeric():
        msg = f"{name}: column {by!r} (by=) must be numeric, got {run.collect_schema()[by]}"
        raise InvalidDataError(msg)
    for column in (query, doc):
        nulls = run.filter(pl.col(column).is_null()).head(1).collect()
        if nulls.height:
            msg = (f"{name}: column {column!r} has null values (e.g. {query}="
                   f"{nulls[query][0]!r}, {doc}={nulls[doc][0]!r}); every row needs ids")
            raise InvalidDataError(msg)
    if run.collect_schema()[by].is_float():
        bad = run.filter(pl.col(by).is_nan()).sort(query, doc).head(1).collect()
        if bad.height:
            msg = (f"{name}: column {by!r} (by=) holds NaN for query {bad[query][0]!r}, "
                   f"document {bad[doc][0]!r}; a document without a score is a null")
            raise InvalidDataError(msg)
    dup = (run.group_by(query, doc).len().filter(pl.col("len") > 1)
           .sort(query, doc).head(1).collect())
    if dup.height:
        q, d = dup.row(0)[:2]
        msg = (f"{name} has two rows for document {d!r} of query {q!r} (columns "
               f"{query!r}, {doc!r}): a ranking holds each document once")
        raise InvalidDataError(msg)


@overload
def join_rankings(  # type: ignore[overload-overlap]  # FrameLike admits Any
    run_a: pl.LazyFrame,
    run_b: FrameLike,
    *,
    query: str = "qid",
    doc: str = "docid",
    by: str = "score",
    descending: bool = True,
    k: int | None = None,
    names: Sequence[str] = ("rank_a", "rank_b"),
) -> pl.LazyFrame: ...


@overload
def join_rankings(
    run_a: FrameLike,
    run_b: FrameLike,
    *,
    query: str = "qid",
    doc: str = "docid",
    by: str = "score",
    descending: bool = True,
    k: int | None = None,
    names: Sequence[str] = ("rank_a", "rank_b"),
) -> pl.DataFrame: ...


def join_rankings(
    run_a: FrameLike,
    run_b: FrameLike,
    *,
    query: str = "qid",
    doc: str = "docid",
    by: str = "score",
    descending: bool = True,
    k: int | None = None,
    names: Sequence[str] = ("rank_a", "rank_b"),
) -> pl.DataFrame | pl.LazyFrame:
    """The two rankings of each query on one frame: one row per document of either top k.

    Each run is ranked within its queries by ``by`` (equal scores by document id
    descending, trec_eval's order; a null ``by`` is not retrieved) and cut at
    ``k``; the outer join on (query, document) gives each document its position in
    each ranking, null where a ranking does not hold it, ready for :func:`rbo`,
    :func:`tau_ap` and the others with ``query=``.

    Parameters
    ----------
    run_a, run_b
        Runs with a query, a document and a score (or rank) column, ids of one type
        in both. A pandas DataFrame (or Arrow data) is read as ``evaluate()`` reads
        it and gives a DataFrame; a LazyFrame ``run_a`` gives a LazyFrame.
    query, doc, by
        Their column names.
    descending
        ``True``: higher ``by`` first (scores); ``False`` for rank positions.
    k
        Keep each ranking's top k (``None``: all of it).
    names
        The names of the two position columns.

    Returns
    -------
    DataFrame or LazyFrame
        query, doc, and the two positions (Int64, 1 first), sorted by query and document.

    Raises
    ------
    InvalidDataError
        A missing column, a document twice in one query of a run, a null id, a NaN
        or non-numeric ``by``, ids of different types in the two runs, or a query in
        one run only (two rankings of different queries joined by mistake).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import join_rankings, rbo
    >>> a = pl.DataFrame({"qid": [1, 1, 1], "docid": ["x", "y", "z"], "score": [3.0, 2, 1]})
    >>> b = pl.DataFrame({"qid": [1, 1, 1], "docid": ["y", "x", "w"], "score": [3.0, 2, 1]})
    >>> joined = join_rankings(a, b)
    >>> joined
    shape: (4, 4)
    ┌─────┬───────┬────────┬────────┐
    │ qid ┆ docid ┆ rank_a ┆ rank_b │
    │ --- ┆ ---   ┆ ---    ┆ ---    │
    │ i64 ┆ str   ┆ i64    ┆ i64    │
    ╞═════╪═══════╪════════╪════════╡
    │ 1   ┆ w     ┆ null   ┆ 3      │
    │ 1   ┆ x     ┆ 1      ┆ 2      │
    │ 1   ┆ y     ┆ 2      ┆ 1      │
    │ 1   ┆ z     ┆ 3      ┆ null   │
    └─────┴───────┴────────┴────────┘
    >>> round(joined.select(rbo("rank_a", "rank_b", p=0.9, query="qid")).item(), 6)
    0.63
    """
    desc = check_bool(descending, "descending")
    depth = check_k(k)
    if (isinstance(names, str) or len(names) != 2
            or not all(isinstance(n, str) for n in names) or names[0] == names[1]):
        msg = f"names must be two different column names, got {names!r}"
        raise ValueError(msg)
    if set(names) & {query, doc}:
        msg = (f"names={tuple(names)!r} would overwrite the query or document column "
               f"({query!r}, {doc!r}): choose other names")
        raise ValueError(msg)
    lazy = isinstance(run_a, pl.LazyFrame)
    runs = []
    for name, run in (("run_a", run_a), ("run_b", run_b)):
        frame = as_polars(run, name, query=query, doc=doc, value=by).lazy()
        _checked(frame, name, query, doc, by)
        runs.append(frame)
    for column in (query, doc):
        kinds = [r.collect_schema()[column] for r in runs]
        if kinds[0] != kinds[1]:
            msg = (f"column {column!r} is {kinds[0]} in run_a but {kinds[1]} in run_b: "
                   f"cast the ids to one type (ids of different types never match)")
            raise InvalidDataError(msg)
    queries = [r.select(pl.col(query).unique()) for r in runs]
    only = [queries[0].join(queries[1], on=query, how="anti").sort(query).head(1).collect(),
            queries[1].join(queries[0], on=query, how="anti").sort(query).head(1).collect()]
    for side, (this, other) in enumerate((("run_a", "run_b"), ("run_b", "run_a"))):
        if only[side].height:
            msg = (f"query {only[side].item()!r} (column {query!r}) is in {this} but not "
                   f"in {other}: two rankings of different queries joined by mistake?")
            raise InvalidDataError(msg)
    ranked = []
    for frame, name in zip(runs, names, strict=True):
        # sorted first, then counted: a sort by several keys inside a window was wrong
        # on Polars 1.36 (tests/test_workarounds.py)
        out = (frame.select(query, doc, by).filter(pl.col(by).is_not_null())
               .sort([pl.col(query), pl.col(by), pl.col(doc)], descending=[False, desc, True])
               .select(pl.col(query), pl.col(doc),
                       (pl.int_range(pl.len(), dtype=pl.Int64) + 1).over(query).alias(name)))
        if depth is not None:
            out = out.filter(pl.col(name) <= depth)
        ranked.append(out)
    joined = (ranked[0].join(ranked[1], on=[query, doc], how="full", coalesce=True)
              .select(query, doc, *names).sort(query, doc))
    return joined if lazy else joined.collect()
