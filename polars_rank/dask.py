"""``evaluate()`` on Dask DataFrames: the same numbers, computed by polars-rank per partition.

The run's and the qrels' partitions are put in one layout, ``shuffle``d by query so
that every row of a query is in one partition, and each partition is evaluated by
polars-rank (``map_partitions``) through the code path :func:`polars_rank.evaluate`
uses in one process. Dask then averages the per-query values per ``group_by`` group
(each query weighted once).

Partitions are read as :func:`polars_rank.evaluate` reads a pandas frame: NaN in a
float column stays NaN (bad data, reported as :func:`polars_rank.evaluate` does),
and a missing value is ``None`` / ``pd.NA`` in a nullable or pyarrow column
(``dd.read_parquet(..., dtype_backend="pyarrow")``; a null label is unjudged, a null
score in a run without qrels a judged document the run did not retrieve). The result
has pyarrow dtypes.

Needs the ``polars-rank[dask]`` extra; ``import polars_rank`` never imports Dask.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._distributed import (
    ORDER,
    SIDE,
    WITHOUT_JUDGMENTS,
    Plan,
    data_error,
    evaluate_piece,
    key_casts,
    make_plan,
    needs_all_groups,
    warn_without_judgments,
)
from polars_rank._engine.frames import from_pandas
from polars_rank._engine.summaries import GEOMETRIC_FLOOR
from polars_rank._evaluation.spec import JUDGMENT_GROUP, resolve

try:
    import dask.dataframe as dd
    import numpy as np
except ImportError as error:  # pragma: no cover - depends on the environment
    msg = f"polars_rank.dask needs Dask: pip install 'polars-rank[dask]' ({error})"
    raise ImportError(msg) from error

if TYPE_CHECKING:
    from collections.abc import Sequence

    import pandas as pd

    from polars_rank._engine.params import EvalTies
    from polars_rank._engine.unjudged import Unjudged
    from polars_rank._evaluation.spec import Missing
    from polars_rank._language.dialects import DialectName
    from polars_rank.registry import Metric

__all__ = ["evaluate"]


def evaluate(
    run: dd.DataFrame,
    qrels: dd.DataFrame | None = None,
    metrics: str | Metric | Sequence[str | Metric] = ("ndcg@10", "map", "mrr@10"),
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    group_by: str | Sequence[str] | None = None,
    per_query: bool = False,
    ties: EvalTies | None = None,
    missing: Missing | None = None,
    validate: bool = True,
    dialect: DialectName = "polars-rank",
    subtopic: str = "subtopic",
    judged_only: bool = False,
    unjudged: Unjudged = "low",
    unjudged_grade: float | None = None,
    bounds: bool = False,
    zscores: pl.DataFrame | pl.LazyFrame | None = None,
    judgment_group: str = JUDGMENT_GROUP,
    partitions: int | None = None,
) -> dd.DataFrame:
    """Evaluate a Dask run against relevance judgments, as :func:`polars_rank.evaluate`.

    Parameters
    ----------
    run
        One row per (query, document) with a ``score``; with ``qrels=None`` it also
        holds ``rel``, and rows with a null score are judged documents the run did not
        retrieve.
    qrels
        Judgments (query, doc, rel), or ``None``.
    metrics
        Metric strings, as :func:`polars_rank.evaluate` takes them.
    query, doc, score, rel
        Column names.
    group_by
        Slice / arm columns of the run: one output row per group, the mean over its
        queries (each query weighted once), computed by Dask from the per-query values.
    per_query
        ``True``: one row per (group..., query) instead of means.
    ties, missing
        As :func:`polars_rank.evaluate` (None: the dialect's); ``ties="first"`` (or a
        dialect's) follows the run's row order.
    dialect, subtopic, judged_only, unjudged, unjudged_grade, bounds, zscores, judgment_group
        As :func:`polars_rank.evaluate`, with the same numbers (tests/test_scale_out.py
        compares them). Not computed here yet, and refused on the driver with
        ``NotImplementedError``: the intent-aware metrics (the qrels pieces carry no
        subtopic column), the judgment-group metrics (nor a ``jg`` column) and
        ``zscores``.
    validate
        Check the data as :func:`polars_rank.evaluate` does: the per-query values are
        then computed (``persist``) when ``evaluate`` is called, a data error raises
        :class:`~polars_rank.InvalidDataError` naming the query, and run queries
        without judgments are reported in a warning. ``False``: the result stays lazy
        and nothing is checked.
    partitions
        Number of partitions after the shuffle by query (default: Dask's).

    Returns
    -------
    dask.dataframe.DataFrame
        The group columns (and the query column with ``per_query=True``), then one
        ``double[pyarrow]`` column per metric, named as given; sorted by the group
        (and query) columns.

    Warns
    -----
    UserWarning
        When run queries have no judgments (with ``validate=True``).

    Notes
    -----
    Parameter and column errors are raised before any task runs, by
    :func:`polars_rank.evaluate`'s own checks on empty frames with the same schemas.
    Polars reads ``POLARS_MAX_THREADS`` when it is imported: give the workers
    ``env={"POLARS_MAX_THREADS": "<threads per worker>"}``.

    Examples
    --------
    With dask's dataframes (tests/test_scale_out.py runs these against
    :func:`polars_rank.evaluate`)::

    >>> import dask.dataframe as dd  # doctest: +SKIP
    >>> import polars_rank.dask as prd
    >>> run = dd.read_parquet("run/*.parquet")  # doctest: +SKIP
    >>> qrels = dd.read_parquet("qrels.parquet")  # doctest: +SKIP
    >>> prd.evaluate(run, qrels, ["ndcg@10", "map"], group_by="arm").compute()  # doctest: +SKIP
    """
    run_empty = from_pandas(run._meta)
    qrels_empty = None if qrels is None else from_pandas(qrels._meta)
    spec = resolve(metrics, query=query, doc=doc, score=score, rel=rel, group_by=group_by,
                   per_query=per_query, ties=ties, missing=missing, validate=validate,
                   dialect=dialect, subtopic=subtopic, judged_only=judged_only,
                   unjudged=unjudged, unjudged_grade=unjudged_grade, bounds=bounds,
                   judgment_group=judgment_group)
    plan = make_plan(run_empty, qrels_empty, spec, zscores=zscores)
    casts = key_casts(run_empty, qrels_empty, plan)

    run_columns = list(plan.run_columns)
    if plan.row_order:  # the run's row order survives the shuffle as a column
        run = run.assign(**{ORDER: 1})
        run = run.assign(**{ORDER: run[ORDER].cumsum()})
        run_columns.append(ORDER)
    run_rows = _piece_rows(run_empty.with_columns(pl.lit(0, pl.Int64).alias(ORDER)),
                           run_columns, casts, False)
    layout = run_rows.schema
    if qrels_empty is not None:
        qrels_rows = _piece_rows(qrels_empty, [query, doc, rel], casts, True)
        layout = pl.concat([run_rows, qrels_rows], how="diagonal_relaxed").schema
    pieces = run.map_partitions(_to_layout, columns=run_columns, casts=casts, side=False,
                                layout=layout, meta=_pandas(pl.DataFrame(schema=layout)))
    if qrels is not None:
        if needs_all_groups(plan):
            retrieved = pieces[pieces[score].notnull()][list(plan.groups)]
            plan = replace(plan, all_groups=from_pandas(retrieved.drop_duplicates().compute()))
        judged = qrels.map_partitions(_to_layout, columns=[query, doc, rel], casts=casts,
                                      side=True, layout=layout, meta=pieces._meta)
        pieces = dd.concat([pieces, judged])
    pieces = pieces.shuffle(on=query, npartitions=partitions)

    run_keys = run_rows.select(plan.keys)
    out_schema = {**run_keys.schema, **dict.fromkeys(plan.columns, pl.Float64()),
                  WITHOUT_JUDGMENTS: pl.Int64()}
    per = pieces.map_partitions(_evaluate_partition, plan=plan,
                                meta=_pandas(pl.DataFrame(schema=out_schema)))
    if validate:
        per = per.persist()
        try:
            flagged = per[per[WITHOUT_JUDGMENTS].notnull()].compute()
        except Exception as error:
            invalid = data_error(error)
            if invalid is None or type(error) is type(invalid):
                raise
            raise invalid from error
        if len(flagged):
            warn_without_judgments(flagged.to_dict("records"), plan)
    per = per[per[WITHOUT_JUDGMENTS].isnull()].drop(columns=WITHOUT_JUDGMENTS)

    keys = plan.keys
    if per_query:
        return per.sort_values(keys, na_position="first")
    columns = list(plan.columns)
    how = dict(zip(columns, plan.summaries, strict=True))
    geometric = [c for c in columns if how[c] == "geometric"]
    if geometric:  # the geometric mean is exp of the mean of logs (values floored)
        per = per.assign(**{c: np.log(per[c].clip(lower=GEOMETRIC_FLOOR)) for c in geometric})
    aggregations = {c: "sum" if how[c] == "sum" else "mean" for c in columns}
    if plan.groups:
        groups = list(plan.groups)
        means = per.groupby(groups, dropna=False).agg(aggregations).reset_index()
    else:
        means = per.assign(__polars_rank_all=0).groupby("__polars_rank_all").agg(aggregations)
        means = means.reset_index(drop=True)
        groups = []
    if geometric:
        means = means.assign(**{c: np.exp(means[c]) for c in geometric})
    means = means.repartition(npartitions=1)
    return means.map_partitions(_sorted, groups, meta=means._meta)


def _piece_rows(frame: pl.DataFrame, columns: list[str], casts: Sequence[str],
                side: bool) -> pl.DataFrame:
    """Rows of a run or qrels partition as rows of a piece."""
    return frame.select(columns).with_columns(
        *(pl.col(key).cast(pl.String) for key in casts),
        pl.lit(side).alias(SIDE),
    )


def _to_layout(partition: pd.DataFrame, *, columns: list[str], casts: Sequence[str],
               side: bool, layout: pl.Schema) -> pd.DataFrame:
    """A run or qrels partition in the layout shared by both (so they concatenate)."""
    rows = _piece_rows(from_pandas(partition), columns, casts, side)
    return _pandas(rows.select(
        pl.col(name).cast(dtype) if name in rows.columns else pl.lit(None, dtype).alias(name)
        for name, dtype in layout.items()
    ))


def _evaluate_partition(partition: pd.DataFrame, plan: Plan) -> pd.DataFrame:
    """``map_partitions``' function: complete queries in, per-query rows out."""
    return _pandas(evaluate_piece(from_pandas(partition), plan))


def _pandas(frame: pl.DataFrame) -> pd.DataFrame:
    """Polars to pandas with pyarrow dtypes: nulls stay nulls, NaN stays NaN."""
    return frame.to_pandas(use_pyarrow_extension_array=True)


def _sorted(partition: pd.DataFrame, by: list[str]) -> Any:
    return partition.sort_values(by, na_position="first") if by else partition
