"""``memory="low"``: the run's queries in hash buckets, each evaluated on its own.

Every row of a query lands in the same bucket (run and qrels alike), so each bucket
is a complete evaluation, and only one bucket's rows are in memory at a time. The
run and the qrels are split in one streaming pass each, written to a temporary
folder of Parquet files, one per bucket: filtering the whole input again for every
bucket (as before) read a 100M-row run 25 times.
"""

from __future__ import annotations

import tempfile
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["buckets"]

_BUCKET = "__polars_rank_bucket"


def _partitioned_sink(folder: str, key: str) -> object | None:  # the type differs by version
    """The partitioned Parquet target of this Polars (its name changed in 2.0), or None."""
    if hasattr(pl, "PartitionBy"):  # Polars 2.x
        return pl.PartitionBy(folder, key=key, include_key=True)
    by_key = getattr(pl, "PartitionByKey", None)  # Polars 1.x (unstable API)
    return None if by_key is None else by_key(folder, by=key, include_key=True)


def buckets(run: pl.LazyFrame, qrels: pl.LazyFrame | None, query: str,
            rows_per_bucket: int) -> Iterator[tuple[pl.LazyFrame, pl.LazyFrame | None]]:
    """(run, qrels) of each bucket of about ``rows_per_bucket`` run rows."""
    rows = run.select(pl.len()).collect().item()
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
    target = _partitioned_sink(folder, _BUCKET)
    if target is None:  # no partitioned sink: each bucket filters the input again
        return frame.with_columns(bucket)
    schema = frame.collect_schema()
    frame.with_columns(bucket).sink_parquet(target, mkdir=True)  # type: ignore[call-overload, unused-ignore]
    # read back with the input's types (Parquet keeps no Enum, for one)
    return pl.scan_parquet(folder, hive_partitioning=True).cast(dict(schema.items()))
