"""Exact expected values of the metrics whose algebra allows one, under independence.

With the documents' labels independent (across documents; each has its own
distribution), a metric that is a sum of one function of each label (DCG, precision,
RBP, hits, the number of relevant documents) has for expectation the same sum of each
function's expectation (linearity); and a metric that is a sum of products of
functions of *different* labels (reciprocal rank, success, ERR) has for expectation the
same sum of products of expectations (independence):

* ``E[RR@k] = sum_{i<=k} p_i prod_{j<i} (1 - p_j) / i``, ``p_i = P(l_i >= threshold)``;
* ``E[success@k] = 1 - prod_{i<=k} (1 - p_i)``;
* ``E[ERR@k] = sum_{i<=k} E[R_i] prod_{j<i} (1 - E[R_j]) / i``,
  ``R_i = (2^l_i - 1) / 2^max_grade``.

A metric is exact here only with the options whose definitions these formulas are
(:func:`exact_kernel` says None for the others, which are then estimated by Monte Carlo).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import group_sum

if TYPE_CHECKING:
    from polars_rank.registry import Metric

__all__ = ["EXACT", "MONOTONE", "Exact", "exact_kernel"]

DocValue = Callable[[pl.Expr, dict[str, Any]], pl.Expr]
ListValue = Callable[[pl.Expr, pl.Expr, pl.Expr, "int | None", dict[str, Any]], pl.Expr]


@dataclass(frozen=True)
class Exact:
    """How one metric's expectation is computed.

    ``doc``: the function of a label whose expectation each document contributes;
    ``per_list``: the query's value from those expectations ``x`` (in rank order,
    unretrieved documents last), their ranks and whether each is within the cutoff.
    """

    doc: DocValue
    per_list: ListValue


def _relevant(grade: pl.Expr, o: dict[str, Any]) -> pl.Expr:
    relevant: pl.Expr = (grade >= o["threshold"]).cast(pl.Float64)
    return relevant


def _gain(grade: pl.Expr, o: dict[str, Any]) -> pl.Expr:
    exponential: pl.Expr = 2.0 ** grade - 1.0
    return grade if o["gain"] == "linear" else exponential


def _err_gain(grade: pl.Expr, o: dict[str, Any]) -> pl.Expr:
    stop: pl.Expr = (2.0 ** grade - 1.0) / 2.0 ** float(o["max_grade"])
    return stop


def _first_hit(x: pl.Expr) -> pl.Expr:
    """Each item's probability of being the first hit: x_i prod_{j<i} (1 - x_j)."""
    return x * (1.0 - x).cum_prod().shift(1, fill_value=1.0)


def _dcg(x: pl.Expr, rank: pl.Expr, within: pl.Expr, k: int | None,
         o: dict[str, Any]) -> pl.Expr:
    base = float(o["log_base"])
    return group_sum((x / ((rank + 1).cast(pl.Float64).log(base))).filter(within))


def _precision(x: pl.Expr, rank: pl.Expr, within: pl.Expr, k: int | None,
               o: dict[str, Any]) -> pl.Expr:
    denominator = within.sum() if k is None else pl.lit(k)
    return pl.when(denominator > 0).then(group_sum(x.filter(within)) / denominator).otherwise(0.0)


def _count(x: pl.Expr, rank: pl.Expr, within: pl.Expr, k: int | None,
           o: dict[str, Any]) -> pl.Expr:
    return group_sum(x.filter(within))


def _num_rel(x: pl.Expr, rank: pl.Expr, within: pl.Expr, k: int | None,
             o: dict[str, Any]) -> pl.Expr:
    return group_sum(x)


def _rbp(x: pl.Expr, rank: pl.Expr, within: pl.Expr, k: int | None,
         o: dict[str, Any]) -> pl.Expr:
    p = float(o["p"])
    return (1.0 - p) * group_sum((x * pl.lit(p) ** (rank - 1).cast(pl.Float64)).filter(within))


def _reciprocal(x: pl.Expr, rank: pl.Expr, within: pl.Expr, k: int | None,
                o: dict[str, Any]) -> pl.Expr:
    return group_sum(_first_hit(x.filter(within)) / rank.filter(within))


def _success(x: pl.Expr, rank: pl.Expr, within: pl.Expr, k: int | None,
             o: dict[str, Any]) -> pl.Expr:
    return 1.0 - (1.0 - x.filter(within)).product()


# the metrics with an exact expectation, by registry name, with the only option values
# their formula is (another value, e.g. a gain table, is estimated by Monte Carlo)
EXACT: dict[str, tuple[Exact, dict[str, tuple[Any, ...]]]] = {
    "dcg": (Exact(_gain, _dcg), {"gain": ("linear", "exponential"), "threshold": (None,),
                                 "gains": (None,)}),
    "p": (Exact(_relevant, _precision), {"adaptive_k": (False,), "empty": ("zero",)}),
    "rbp": (Exact(_relevant, _rbp), {"gain": ("binary",), "gains": (None,)}),
    "hits": (Exact(_relevant, _count), {}),
    "num_rel_ret": (Exact(_relevant, _count), {}),
    "num_rel": (Exact(_relevant, _num_rel), {}),
    "mrr": (Exact(_relevant, _reciprocal), {"empty": ("zero",)}),
    "hit_rate": (Exact(_relevant, _success), {"empty": ("zero",)}),
    "err": (Exact(_err_gain, _reciprocal), {}),
}

# metrics that never decrease when a label within the cutoff rises and never increase
# when one outside it rises: their value with every label at its most (least)
# favourable grade is their best (worst) case over all labellings
MONOTONE = frozenset({"dcg", "p", "rbp", "hits", "num_rel_ret", "mrr", "hit_rate", "err",
                      "recall"})


def exact_kernel(metric: Metric) -> tuple[Exact, dict[str, Any]] | None:
    """The metric's exact expectation and its options, or None (Monte Carlo then)."""
    entry = EXACT.get(metric.definition.name)
    if entry is None:
        return None
    kernel, allowed = entry
    options = {o.name: metric.options.get(o.name, o.default) for o in metric.definition.options}
    for name, values in allowed.items():
        if options.get(name) not in values:
            return None
    threshold = options.get("threshold")
    if threshold is not None and not (isinstance(threshold, (int, float))
                                      and math.isfinite(threshold) and threshold > 0):
        return None  # an unjudged document (grade null) must count as grade 0, not relevant
    return kernel, options


def exact_values(docs: pl.LazyFrame, dist: pl.LazyFrame, metrics: dict[str, Metric],
                 query: str, doc: str) -> pl.LazyFrame:
    """Each query's exact expected value of each metric (columns named as given).

    ``docs``: query, doc, rank (null: judged, not retrieved); ``dist``: query, doc,
    grade, probability (the labels' support).
    """
    kernels = {name: found for name, m in metrics.items()
               if (found := exact_kernel(m)) is not None}
    grade, probability = pl.col("grade"), pl.col("probability")
    expected = dist.group_by(query, doc).agg(
        group_sum(probability * kernel.doc(grade, options)).alias(name)
        for name, (kernel, options) in kernels.items())
    # in rank order, the unretrieved documents last by doc: sums in one order (group_sum;
    # a group_by keeps the rows' order within a group)
    joined = docs.join(expected, on=[query, doc], how="left").with_columns(
        pl.col(name).fill_null(0.0) for name in kernels  # unjudged: grade 0, worth 0
    ).sort(query, "rank", doc, nulls_last=True)
    rank = pl.col("rank")
    aggs = []
    for name, (kernel, options) in kernels.items():
        k = metrics[name].k
        within = rank.is_not_null() if k is None else rank.is_not_null() & (rank <= k)
        x = pl.col(name)
        aggs.append(kernel.per_list(x, rank, within.fill_null(False), k, options)
                    .cast(pl.Float64).alias(name))
    return joined.group_by(query).agg(aggs)
