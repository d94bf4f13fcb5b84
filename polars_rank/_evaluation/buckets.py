"""``memory="low"``: the run's queries in hash buckets, each evaluated on its own.

``memory="auto"`` (the default) takes this path for a run of more than
:data:`AUTO_ROWS` rows, and the one-pass path in memory below (see
:func:`chosen_memory`).

Every row of a query lands in the same bucket (run and qrels alike), so each bucket
is a complete evaluation, and only one bucket's rows are in memory at a time. The
run and the qrels are split in one streaming pass each, written to a temporary
folder of Parquet files, one per bucket: filtering the whole input again for every
bucket (as before) read a 100M-row run 25 times.
"""

from __future__ import annotations

import tempfile
from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_rank._engine.compat import counted_cheaply, partitioned_sink

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from polars_rank._evaluation.spec import Memory

__all__ = ["AUTO_ROWS", "buckets", "chosen_memory", "in_buckets"]

_BUCKET = "__polars_rank_bucket"

AUTO_ROWS = 12_000_000
"""``memory="auto"`` buckets a run of more rows than this. In memory, 10M rows peak
at about 1.2 GB and 50M at 5.3 GB; the buckets hold the peak near 0.6 GB at every
size, in about the one pass's time at 50M rows. Up to 12M rows the default keeps
the one pass it had (docs/performance.md, "Streaming, windows and memory")."""


def chosen_memory(run: pl.DataFrame | pl.LazyFrame, memory: Memory) -> Memory:
    """The path ``memory`` takes for ``run``: ``"high"`` or ``"low"``.

    ``"auto"`` is ``"low"`` for a run of more than :data:`AUTO_ROWS` rows whose size
    is known without reading it, else ``"high"``.
    """
    if memory != "auto":
        return memory
    rows = run.height if isinstance(run, pl.DataFrame) else counted_cheaply(run)
    return "low" if rows is not None and rows > AUTO_ROWS else "high"


def buckets(run: pl.LazyFrame, qrels: pl.LazyFrame | None, query: str,
            rows_per_bucket: int) -> Iterator[tuple[pl.LazyFrame, pl.LazyFrame | None]]:
    """(run, qrels) of each bucket of about ``rows_per_bucket`` run rows."""
    # streaming: counting a plan (a join) must not hold its rows
    rows = run.select(pl.len()).collect(engine="streaming").item()
    n = max(1, -(-rows // rows_per_bucket))
    if n == 1:
        yield run, qrels
        return
    bucket = (pl.col(query).hash() % n).cast(pl.Int64).alias(_BUCKET)
    with tempfile.TemporaryDirectory(prefix="polars_rank_") as folder:
        parts = {"run": _split(run, bucket, f"{folder}/run")}
        if qrels is not None:
            empty = qrels.select(pl.len()).collect().item() == 0  # a sink writes no file
            parts["qrels"] = qrels.with_columns(bucket) if empty else _split(
                qrels, bucket, f"{folder}/qrels")
        for i in range(n):
            part_run = parts["run"].filter(pl.col(_BUCKET) == i).drop(_BUCKET)
            part_qrels = None if qrels is None else parts["qrels"].filter(
                pl.col(_BUCKET) == i).drop(_BUCKET)
            yield part_run, part_qrels


def _split(frame: pl.LazyFrame, bucket: pl.Expr, folder: str) -> pl.LazyFrame:
    """``frame`` with the ``bucket`` column, one Parquet file per bucket.

    Written in one streaming pass and scanned back; without a partitioned sink
    (an older Polars), the frame as it is, each bucket filtering it again.
    """
    target = partitioned_sink(folder, _BUCKET)
    if target is None:  # no partitioned sink: each bucket filters the input again
        return frame.with_columns(bucket)
    schema = frame.collect_schema()
    # uncompressed: the files live for one evaluation, and zstd's encoding was most
    # of the split's time (docs/performance.md, "Behind the code")
    frame.with_columns(bucket).sink_parquet(  # type: ignore[call-overload, unused-ignore]
        target, mkdir=True, compression="uncompressed")
    # read back with the input's types (Parquet keeps no Enum, for one)
    return pl.scan_parquet(folder, hive_partitioning=True).cast(dict(schema.items()))


def in_buckets(frame: pl.LazyFrame | pl.DataFrame,
               plan: Callable[[pl.LazyFrame], pl.LazyFrame | pl.DataFrame], *,
               query: str = "qid", rows_per_bucket: int = 4_000_000,
               engine: Literal["auto", "in-memory", "streaming"] = "auto") -> pl.DataFrame:
    """``plan`` run on each hash bucket of ``frame``'s queries, the results concatenated.

    The metric expressions rank each list in memory: on the streaming engine a
    ``group_by(query).agg(...)`` of them is an in-memory node, which holds every row
    of ``frame`` at once (a scan joined to the qrels: a 5 GB peak at 50M rows).
    Here ``frame`` is written once, in one streaming pass, to a temporary folder of
    Parquet files, one per bucket of queries (every row of a query in the same
    bucket, about ``rows_per_bucket`` rows each), and ``plan`` runs on one bucket at
    a time, so the peak follows the bucket (1.2 GB at 50M rows). A per-query
    ``plan`` (a ``group_by`` on the query) gives each query the value of the whole
    frame; a mean is taken over the concatenated per-query rows, not per bucket.
    The rows come bucket after bucket: sort them for a fixed order.

    Parameters
    ----------
    frame
        The rows, every row of a query with its query id in ``query``: a LazyFrame
        (a scan, a join of scans) or a DataFrame.
    plan
        A function from one bucket (a LazyFrame) to its result.
    query
        The query column: the buckets are hash buckets of it.
    rows_per_bucket
        About how many rows a bucket holds (``evaluate(memory="low")``'s 4M by
        default); a frame of fewer rows is one bucket, not written.
    engine
        The engine each bucket's plan is collected on.

    Returns
    -------
    DataFrame
        The buckets' results, concatenated.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> frame = pl.LazyFrame({"qid": ["q1", "q1", "q2", "q2", "q3"],
    ...                       "score": [2.0, 1.0, 2.0, 1.0, 1.0],
    ...                       "rel": [0, 1, 1, 0, None]})
    >>> per_query = pr.in_buckets(
    ...     frame, lambda part: part.group_by("qid").agg(pr.mrr("rel", by="score")),
    ...     rows_per_bucket=2)
    >>> per_query.sort("qid")
    shape: (3, 2)
    ┌─────┬─────┐
    │ qid ┆ mrr │
    │ --- ┆ --- │
    │ str ┆ f64 │
    ╞═════╪═════╡
    │ q1  ┆ 0.5 │
    │ q2  ┆ 1.0 │
    │ q3  ┆ 0.0 │
    └─────┴─────┘
    """
    if not isinstance(rows_per_bucket, int) or rows_per_bucket < 1:
        msg = f"rows_per_bucket must be a positive integer, got {rows_per_bucket!r}"
        raise ValueError(msg)
    parts = []
    for part, _ in buckets(frame.lazy(), None, query, rows_per_bucket):
        out = plan(part)
        parts.append(out.collect(engine=engine) if isinstance(out, pl.LazyFrame) else out)
    return pl.concat(parts, how="vertical")
