"""Step 4 of an evaluation: which queries count, and their means.

trec_eval evaluates the run's queries that have judgments and something retrieved;
``missing="zero"`` (``trec_eval -c``) adds, with every metric 0, the judged queries a
list did not retrieve anything for and the qrels queries absent from the run (a
dialect may give them other values: :attr:`Options.absent`; a metric's spec may say
otherwise, ``MetricSpec.absent`` and ``empty_value``: yaap scores trec_eval's value on
an empty list, ln(1 / (1 + R)), ideal_dcg the ideal of the qrels' labels, and
num_rel the qrels' R).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.summaries import summarize
from polars_rank._evaluation.options import JUDGED, RETRIEVED, Options
from polars_rank._evaluation.zscores import zscore_summary
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from polars_rank.registry import Metric

__all__ = ["counted_queries", "means", "raise_empty", "warn_without_judgments"]

def counted_queries(per: pl.LazyFrame, run: pl.LazyFrame, qrels: pl.LazyFrame | None,
                    o: Options) -> pl.LazyFrame:
    """The per-list values of the queries that count: keys, then the metric columns."""
    columns = o.columns
    if o.missing == "skip":
        per = per.filter(pl.col(JUDGED) & pl.col(RETRIEVED))
    else:
        per = per.filter(pl.col(JUDGED)).with_columns(
            pl.when(pl.col(RETRIEVED)).then(pl.col(name)).otherwise(_zero(m, o, name))
            .alias(name)
            for name, m in o.named
        )
        if qrels is not None:
            retrieved = run.filter(pl.col(o.score).is_not_null())
            per = pl.concat([per, _absent(retrieved, qrels, o, per.collect_schema())],
                            how="vertical")
    return per.select(*o.keys, *columns)


def _absent(run: pl.LazyFrame, qrels: pl.LazyFrame, o: Options,
            schema: pl.Schema) -> pl.LazyFrame:
    """Zero rows for qrels queries absent from (each group of) the run: trec_eval -c."""
    query, groups = o.query, o.groups
    queries = qrels.select(query).unique()
    all_groups = run.select(groups).unique() if o.all_groups is None else o.all_groups
    keys = all_groups.join(queries, how="cross") if groups else queries
    absent = keys.join(run.select(*groups, query).unique(), on=[*groups, query], how="anti")
    # every metric 0, but where its spec says (MetricSpec.absent): R is what the qrels
    # say (trec_eval -c prints num_rel so), a utility with weights given and yaap are
    # scored on trec_eval's stand-in ranking of one unjudged document (trec_eval.c
    # zeroes only the measure printed as "utility"; yaap's value there is not 0), and
    # ideal_dcg is computed from the judgments (an empty ranking)
    stand_ins = {name: value for name, m in o.named if name not in o.absent
                 and callable(m.definition.absent)
                 and (value := m.definition.absent(pl.col(name), m.options)) is not None}
    counts = {name: m.options.get("threshold", 1) for name, m in o.named if name in stand_ins}
    ideals = [(name, m) for name, m in o.named
              if name not in o.absent and m.definition.absent == "judgments"]
    if ideals:  # the list empty: no row ranked (rank null), the judged rows all there
        nothing = pl.lit(None, pl.Int64)
        values = qrels.group_by(query).agg(m.expr(o.rel, rank=nothing).alias(name)
                                           for name, m in ideals)
        absent = absent.join(values, on=query, how="left")
    if counts:
        relevant = qrels.group_by(query).agg(
            (pl.col(o.rel) >= t).sum().cast(pl.Float64).alias(name)
            for name, t in counts.items())
        absent = absent.join(relevant, on=query, how="left").with_columns(
            value.alias(name) for name, value in stand_ins.items())
    computed = set(counts) | {name for name, _ in ideals}
    return absent.with_columns(
        *(_zero(m, o, name).alias(name) for name, m in o.named if name not in computed),
        pl.lit(True).alias(JUDGED),
        pl.lit(False).alias(RETRIEVED),
    ).select(pl.col(name).cast(dtype) for name, dtype in schema.items())


def raise_empty(per: pl.LazyFrame, o: Options) -> pl.LazyFrame:
    """``empty="error"``: raise for the first query without relevant rows (a NaN value).

    The data were validated, so a metric asked with ``empty="error"`` is NaN only on a
    list without relevant rows (torchmetrics raises there too). Computed now.
    """
    strict = [name for name, m in o.named if m.options.get("empty") == "error"]
    if not strict:
        return per
    frame = per.collect()
    found = frame.filter(pl.any_horizontal(pl.col(strict).is_nan())).sort(o.keys).head(1)
    if found.height:
        row = found.row(0, named=True)
        where = ", ".join(f"{key}={row[key]!r}" for key in o.keys)
        name = next(n for n in strict if row[n] is not None and row[n] != row[n])
        msg = f"{name}: a query without relevant rows ({where}) with empty='error'"
        raise InvalidDataError(msg)
    return frame.lazy()


def _zero(metric: Metric, o: Options, name: str) -> pl.Expr:
    """A query's value when the run retrieved nothing for it: 0, or the dialect's.

    An empty string for relstring, which trec_eval -c prints as ''. A dialect may
    say otherwise (:attr:`Options.absent`): ir_measures gives Accuracy no value there.
    """
    if name in o.absent:
        value = o.absent[name]
        return pl.lit(None, pl.Float64) if value is None else pl.lit(float(value))
    if metric.definition.empty_value:  # yaap's ln(1 / (1 + R)), ideal_dcg's: not 0
        return pl.col(name)
    return pl.lit("") if metric.definition.over_queries == "none" else pl.lit(0.0)


def means(per: pl.LazyFrame, o: Options, *, per_query: bool,
          zscores: bool = False) -> pl.LazyFrame:
    """The output: per query (sorted by the keys), or each group's summary of its queries.

    The mean, or what the metric's registry entry says (trec_eval sums its counts).
    ``zscores``: the values are z-scores (``evaluate(zscores=)``), summarized as
    trec_eval -Z summarizes them.
    """
    if per_query:
        return per.sort(o.keys)
    how = zscore_summary if zscores else summarize
    summaries = [how(pl.col(name), m.definition.over_queries) for name, m in o.named]
    if o.groups:
        return per.group_by(o.groups).agg(summaries).sort(o.groups)
    return per.select(summaries)


def warn_without_judgments(summaries: list[pl.DataFrame], query: str, groups: list[str]) -> None:
    """One warning for all run queries without judgments (summaries: count, examples)."""
    count = sum(int(s.item(0, 0)) for s in summaries)
    if not count:
        return
    # the same order as one pass's ``pl.struct(keys).sort()``: values, not their text
    examples = sorted((e for s in summaries for e in s.item(0, 1)),
                      key=lambda e: tuple((v is None, v) for v in e.values()))[:3]
    shown = ", ".join(
        repr(e[query]) if not groups else f"({', '.join(f'{k}={v!r}' for k, v in e.items())})"
        for e in examples
    )
    warnings.warn(
        f"{count} run quer{'y has' if count == 1 else 'ies have'} no judgments and "
        f"{'is' if count == 1 else 'are'} not evaluated (e.g. {shown})",
        UserWarning,
        stacklevel=3,
    )
