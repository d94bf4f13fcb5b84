"""``evaluate()`` on Spark DataFrames: the same numbers, computed by polars-rank on workers.

Every query's run rows and qrels rows are sent to the same partition
(``repartition`` by query), and each partition is evaluated by polars-rank itself
(``mapInArrow``), through the code path :func:`polars_rank.evaluate` uses in one
process, so local and distributed numbers cannot drift. Spark then averages the
per-query values per ``group_by`` group (each query weighted once). Works with
classic PySpark and with Spark Connect (the workers need ``polars-rank`` installed).

Needs the ``polars-rank[spark]`` extra; ``import polars_rank`` never imports PySpark.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa

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
from polars_rank._engine.summaries import GEOMETRIC_FLOOR
from polars_rank._evaluation.spec import JUDGMENT_GROUP, resolve

try:
    from pyspark.sql import functions as classic_functions
    from pyspark.sql.pandas.types import to_arrow_type
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType
except ImportError as error:  # pragma: no cover - depends on the environment
    msg = ("polars_rank.spark needs PySpark: pip install 'polars-rank[spark]' "
           f"({error})")
    raise ImportError(msg) from error

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from pyspark.sql import Column, DataFrame

    from polars_rank._engine.params import EvalTies
    from polars_rank._engine.unjudged import Unjudged
    from polars_rank._evaluation.spec import Missing
    from polars_rank._language.dialects import DialectName
    from polars_rank.registry import Metric

__all__ = ["evaluate"]


def evaluate(
    run: DataFrame,
    qrels: DataFrame | None = None,
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
) -> DataFrame:
    """Evaluate a Spark run against relevance judgments, as :func:`polars_rank.evaluate`.

    The arguments and the semantics are those of :func:`polars_rank.evaluate`
    (trec_eval's: judged documents the run never returned count for the ideal and
    for recall, the run's queries with judgments are evaluated, ``missing="zero"``
    adds the absent qrels queries, ``ties="trec_eval"`` orders equal scores by doc
    id), on Spark DataFrames in and out.

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
        queries (each query weighted once), computed by Spark from the per-query
        values.
    per_query
        ``True``: one row per (group..., query) instead of means.
    ties, missing
        As :func:`polars_rank.evaluate` (None: the dialect's). ``ties="first"`` (or a
        dialect's) follows the run DataFrame's row order
        (``monotonically_increasing_id``).
    dialect, subtopic, judged_only, unjudged, unjudged_grade, bounds, zscores, judgment_group
        As :func:`polars_rank.evaluate`, with the same numbers (tests/test_scale_out.py
        compares them). Not computed here yet, and refused on the driver with
        ``NotImplementedError``: the intent-aware metrics (the qrels pieces carry no
        subtopic column), the judgment-group metrics (nor a ``jg`` column) and
        ``zscores``.
    validate
        Check the data as :func:`polars_rank.evaluate` does. The per-query values are
        then computed when ``evaluate`` is called (and kept with ``persist``, so the
        result does not compute them again), a data error is raised here as
        :class:`~polars_rank.InvalidDataError` naming the query, and run queries
        without judgments are reported in a warning. ``False``: the result stays
        lazy, the data is not checked and nothing is reported.
    partitions
        Number of partitions of the shuffle by query (default: Spark's, that is
        ``spark.sql.shuffle.partitions``, coalesced by adaptive execution).

    Returns
    -------
    pyspark.sql.DataFrame
        The group columns (and the query column with ``per_query=True``), then one
        double column per metric, named as given; sorted by the group (and query)
        columns.

    Warns
    -----
    UserWarning
        When run queries have no judgments (with ``validate=True``).

    Notes
    -----
    Parameter and column errors are raised on the driver before any job starts, by
    :func:`polars_rank.evaluate`'s own checks run on empty frames with the same
    schemas. Each Python worker runs polars-rank on one partition with as many
    Polars threads as its ``POLARS_MAX_THREADS``: set
    ``spark.executorEnv.POLARS_MAX_THREADS`` to ``spark.task.cpus`` (1 by
    default), since Polars reads it once, when it is imported.

    Examples
    --------
    A Spark session is needed (tests/test_scale_out.py runs these against
    :func:`polars_rank.evaluate`)::

    >>> import polars_rank.spark as prs
    >>> run = spark.read.parquet("run.parquet")  # doctest: +SKIP
    >>> qrels = spark.read.parquet("qrels.parquet")  # doctest: +SKIP
    >>> prs.evaluate(run, qrels, ["ndcg@10", "map"], group_by="arm").show()  # doctest: +SKIP
    """
    F = _functions(run)  # PySpark's own spelling
    _col = functools.partial(_column, F)
    qrels_empty = None if qrels is None else _empty(qrels.schema)
    run_empty = _empty(run.schema)
    spec = resolve(metrics, query=query, doc=doc, score=score, rel=rel, group_by=group_by,
                   per_query=per_query, ties=ties, missing=missing, validate=validate,
                   dialect=dialect, subtopic=subtopic, judged_only=judged_only,
                   unjudged=unjudged, unjudged_grade=unjudged_grade, bounds=bounds,
                   judgment_group=judgment_group)
    plan = make_plan(run_empty, qrels_empty, spec, zscores=zscores)
    casts = key_casts(run_empty, qrels_empty, plan)

    combined = run.select(*(_col(c) for c in plan.run_columns))
    for key in casts:
        combined = combined.withColumn(key, _col(key).cast(StringType()))
    if plan.row_order:
        combined = combined.withColumn(ORDER, F.monotonically_increasing_id())
    if qrels is not None:
        judged = qrels.select(_col(query), _col(doc), _col(rel))
        for key in casts:
            judged = judged.withColumn(key, _col(key).cast(StringType()))
        if needs_all_groups(plan):
            retrieved = combined.where(_col(score).isNotNull())
            combinations = retrieved.select(*(_col(g) for g in plan.groups)).distinct()
            plan = replace(plan, all_groups=_to_polars(combinations))
        combined = combined.withColumn(SIDE, F.lit(False)).unionByName(
            judged.withColumn(SIDE, F.lit(True)), allowMissingColumns=True
        )
    if partitions is None:
        combined = combined.repartition(_col(query))
    else:
        combined = combined.repartition(partitions, _col(query))

    types = {f.name: f.dataType for f in combined.schema.fields}
    schema = StructType([
        *(StructField(k, types[k], True) for k in plan.keys),
        *(StructField(c, DoubleType(), True) for c in plan.columns),
        StructField(WITHOUT_JUDGMENTS, LongType(), True),
    ])
    per = combined.mapInArrow(functools.partial(_map_partition, plan=plan), schema)

    if validate:
        per = per.persist()
        try:
            flagged = per.where(F.col(WITHOUT_JUDGMENTS).isNotNull()).collect()
        except Exception as error:
            invalid = data_error(error)
            if invalid is None:
                raise
            raise invalid from error
        if flagged:
            warn_without_judgments([row.asDict() for row in flagged], plan)
    per = per.where(F.col(WITHOUT_JUDGMENTS).isNull()).drop(WITHOUT_JUDGMENTS)

    keys = [_col(k) for k in plan.keys]
    if per_query:
        return per.orderBy(*keys)
    means = [_summary(F, _col(c), how).alias(c)
             for c, how in zip(plan.columns, plan.summaries, strict=True)]
    if plan.groups:
        groups = keys[:-1]
        return per.groupBy(*groups).agg(*means).orderBy(*groups)
    return per.agg(*means)


def _functions(frame: DataFrame) -> Any:
    """``pyspark.sql.functions`` for the frame's kind: classic, or Spark Connect.

    PySpark picks by the process's mode (``SPARK_REMOTE``); a process may hold both
    kinds of session, so the frame decides.
    """
    if type(frame).__module__.startswith("pyspark.sql.connect"):
        from pyspark.sql.connect import functions as connect_functions

        return connect_functions
    return classic_functions


def _column(functions: Any, name: str) -> Column:
    """A column by its exact name (metric names hold dots and other characters)."""
    column: Column = functions.col("`" + name.replace("`", "``") + "`")
    return column


def _empty(schema: StructType) -> pl.DataFrame:
    """An empty Polars frame with the types Spark sends a Python worker through Arrow."""
    fields = []
    for field in schema.fields:
        try:
            arrow_type = to_arrow_type(field.dataType)
        except Exception:  # a type with no Arrow form: its column is never used here
            arrow_type = pa.null()
        fields.append(pa.field(field.name, arrow_type))
    return pl.DataFrame(pl.from_arrow(pa.schema(fields).empty_table()))


def _to_polars(frame: DataFrame) -> pl.DataFrame:
    """A small Spark DataFrame on the driver, as a Polars frame."""
    if hasattr(frame, "toArrow"):  # PySpark >= 4.0
        return pl.DataFrame(pl.from_arrow(frame.toArrow()))
    return pl.from_pandas(frame.toPandas())  # pragma: no cover - PySpark 3.5


def _map_partition(batches: Iterator[pa.RecordBatch], plan: Plan) -> Iterator[pa.RecordBatch]:
    """``mapInArrow``'s function: one partition (complete queries) in, per-query rows out."""
    received = list(batches)
    if not received:
        return
    table = pa.Table.from_batches(received)
    if not table.num_rows:
        return
    out = evaluate_piece(pl.DataFrame(pl.from_arrow(table)), plan)
    # Spark checks the declared types: Polars' large_string / string_view must become
    # the key types Spark sent (string, or large_string with useLargeVarTypes)
    schema = pa.schema([
        *(pa.field(k, table.schema.field(k).type) for k in plan.keys),
        *(pa.field(c, pa.float64()) for c in plan.columns),
        pa.field(WITHOUT_JUDGMENTS, pa.int64()),
    ])
    yield from out.to_arrow().cast(schema).to_batches()


def _summary(F: Any, column: Column, how: str) -> Column:
    """Spark's form of :func:`polars_rank._engine.summaries.summarize`."""
    if how == "sum":
        out: Column = F.sum(column)
    elif how == "geometric":
        out = F.exp(F.avg(F.log(F.greatest(column, F.lit(GEOMETRIC_FLOOR)))))
    else:
        out = F.avg(column)
    return out
