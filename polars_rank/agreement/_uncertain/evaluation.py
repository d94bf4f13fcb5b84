"""Expected metric values under uncertain labels: exact where the algebra allows, else Monte Carlo.

:func:`evaluate_uncertain` is :func:`polars_rank.evaluate` for labels that are
distributions: each metric's expected value per query and over queries, exact for the
metrics of :data:`~polars_rank.agreement._uncertain.exact.EXACT` (linearity and
independence), a seeded Monte Carlo estimate with its standard error for the others,
and with ``bounds=True`` the worst and best case. :func:`label_draws` gives the
per-query values under each of S label draws, for :func:`compare_uncertain`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.sort_keys import trec_score
from polars_rank._evaluation import evaluate
from polars_rank.agreement._uncertain.exact import MONOTONE, exact_kernel, exact_values
from polars_rank.agreement._uncertain.inputs import (
    ARM,
    DOC,
    QUERY,
    SCORE,
    free,
    internal,
    run_frame,
    same_ids,
)
from polars_rank.agreement._uncertain.labels import (
    TOLERANCE,
    LabelForm,
    label_distribution,
)
from polars_rank.agreement._uncertain.sampling import per_draw_values
from polars_rank.errors import InvalidDataError
from polars_rank.registry import Metric, parse_metric

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["UncertainResult", "evaluate_uncertain", "label_draws"]

Method = Literal["auto", "monte_carlo"]
_PER_QUERY = ("metric", "value", "se", "method", "low", "high")  # evaluate_uncertain's
_ROWS_PER_BLOCK = 8_000_000  # (draw x (run + label)) rows in one plan: about 2 GB


@dataclass(frozen=True)
class UncertainResult:
    """What :func:`evaluate_uncertain` returns: the values per query and their means.

    ``per_query``: query, metric, value, se, method (``"exact"`` or
    ``"monte_carlo"``; se is 0 for an exact value), and with ``bounds=True`` low and
    high. ``mean``: metric, queries, value (the mean over queries), se (its Monte Carlo
    standard error, ``sqrt(sum se_q^2) / n``), method, and low and high (the means of
    the per-query bounds: the labels of different queries are independent, so these
    are the bounds of the mean).
    """

    per_query: pl.DataFrame
    mean: pl.DataFrame


def _metrics(metrics: str | Sequence[str]) -> dict[str, Metric]:
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        msg = "metrics: expected at least one metric string"
        raise ValueError(msg)
    return {name: parse_metric(name) for name in names}


def _check_max_grade(dist: pl.DataFrame, metrics: dict[str, Metric]) -> None:
    """ERR's rule (as evaluate()'s): no grade above the metric's ``max_grade``."""
    for name, metric in metrics.items():
        top = metric.max_grade
        if top is not None and dist.height and float(dist["grade"].max()) > top:  # type: ignore[arg-type]
            first = dist.filter(pl.col("grade") > top).row(0)
            msg = (f"{name}: a grade above max_grade={top:g} in the labels: first at "
                   f"{first[0]!r}, {first[1]!r} (grade {first[2]:g})")
            raise InvalidDataError(msg)


def _check(samples: int, seed: int, block: int | None) -> None:
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 2:
        msg = f"samples={samples!r}: expected an int >= 2"
        raise ValueError(msg)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        msg = f"seed={seed!r}: expected an int >= 0"
        raise ValueError(msg)
    if block is not None and (not isinstance(block, int) or block < 1):
        msg = f"block={block!r}: expected a positive int or None"
        raise ValueError(msg)


def label_draws(
    run: FrameLike,
    labels: FrameLike,
    metrics: str | Sequence[str] = ("ndcg@10", "map", "mrr@10"),
    *,
    form: LabelForm = "distribution",
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    grade: str = "grade",
    probability: str = "probability",
    judge: str = "judge",
    arm: str | None = None,
    samples: int = 100,
    seed: int = 0,
    tolerance: float = TOLERANCE,
    block: int | None = None,
) -> pl.DataFrame:
    """Each query's metric values under ``samples`` labellings drawn from the labels.

    The labels of each (query, doc) are drawn independently, draw ``s`` from a hash
    of (query, doc, s) and ``seed``: the same labels for every arm and whatever the
    row order. With ``arm=``, the run holds several arms (one ranked list per arm and
    query) and draw ``s`` gives each the same labels: the input of
    :func:`compare_uncertain`. Arguments as :func:`evaluate_uncertain`'s.

    Returns
    -------
    DataFrame
        ``draw``, [``arm``], ``query``, one Float64 column per metric (named as given).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import label_draws
    >>> run = pl.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"], "score": [2.0, 1.0]})
    >>> labels = pl.DataFrame({"qid": ["q", "q"], "docid": ["a", "b"],
    ...                        "probability": [0.5, 1.0]})
    >>> draws = label_draws(run, labels, ["mrr"], form="probability", samples=1000)
    >>> draws.columns, draws.height, sorted(draws["mrr"].unique())
    (['draw', 'qid', 'mrr'], 1000, [0.5, 1.0])
    """
    _check(samples, seed, block)
    names = list(_metrics(metrics))
    free({"query": query, "arm": arm}, ["draw", *names], "label_draws' result")
    dist = label_distribution(labels, form=form, query=query, doc=doc, grade=grade,
                              probability=probability, judge=judge, tolerance=tolerance)
    _check_max_grade(dist, _metrics(metrics))
    frame = run_frame(run, [query, doc, score] + ([arm] if arm is not None else []))
    same_ids(frame, dist, query, doc)
    if block is None:
        block = max(1, _ROWS_PER_BLOCK // max(frame.height + dist.height, 1))
    frame, dist = internal(frame, dist, query, doc, score, arm)
    out = per_draw_values(frame.lazy(), dist.lazy(), names, range(samples), query=QUERY,
                          doc=DOC, score=SCORE, arm=None if arm is None else ARM, seed=seed,
                          block=block)
    return out.rename({QUERY: query, **({ARM: arm} if arm is not None else {})})


def evaluate_uncertain(
    run: FrameLike,
    labels: FrameLike,
    metrics: str | Sequence[str] = ("ndcg@10", "map", "mrr@10"),
    *,
    form: LabelForm = "distribution",
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    grade: str = "grade",
    probability: str = "probability",
    judge: str = "judge",
    method: Method = "auto",
    samples: int = 1000,
    seed: int = 0,
    bounds: bool = False,
    tolerance: float = TOLERANCE,
    block: int | None = None,
) -> UncertainResult:
    """Expected metric values when the labels are distributions, per query and on average.

    Assumption: the labels of different documents are independent.
    ``dcg``, ``p``, ``rbp``, ``hits``, ``num_rel_ret``, ``num_rel`` (linear in the
    gains: the expected gain of each document plugged in), ``mrr`` / ``rr``,
    ``hit_rate`` / ``success`` and ``err`` (a sum of products of distinct documents'
    terms: the product of their expectations) are **exact**; every other metric
    (``ndcg``, ``map``, ``recall``, ``rprec``, ...) is a **Monte Carlo** estimate over
    ``samples`` label draws (:func:`label_draws`, computed by
    :func:`polars_rank.evaluate`) with its standard error ``std / sqrt(samples)``.
    Documents of the run without labels are unjudged (grade 0); labelled documents the
    run did not retrieve count for the ideal and for recall; the queries evaluated are
    the run's queries with labels. The ranking is evaluate()'s (``ties="trec_eval"``).

    Parameters
    ----------
    run
        One row per (query, doc) with ``score`` (higher is better). DataFrame or
        LazyFrame; pandas, Arrow and dicts of columns are read as ``evaluate()`` reads them.
    labels
        The uncertain labels, in the ``form`` given: ``"probability"`` (``query``,
        ``doc``, ``probability`` of relevance: grade 1 or 0), ``"distribution"`` (long:
        ``query``, ``doc``, ``grade``, ``probability``; a document's probabilities sum
        to 1 within ``tolerance``) or ``"judges"`` (``query``, ``doc``, ``judge``,
        ``grade``: the judges' empirical distribution). See :func:`label_distribution`.
    metrics
        Metric strings, as :func:`polars_rank.evaluate` reads them.
    method
        ``"auto"``: exact where possible; ``"monte_carlo"``: every metric by Monte Carlo
        (to see the estimator's error where the exact value is known).
    samples, seed
        Monte Carlo: the number of label draws (>= 2) and the hash seed; the same seed
        gives the same result whatever the row order.
    bounds
        Add ``low`` and ``high``: the metric with each label at its least / most
        favourable grade of its support (the highest within the metric's cutoff, the
        lowest outside it, and the reverse). For the metrics monotone in their labels
        (all the exact ones and ``recall``) these are the worst and best case over all
        labellings; for the others (nDCG, AP, R-precision) they are the values of those
        two labellings, each a value the metric can take.
    block
        Draws evaluated per plan (default: about eight million rows per plan).

    Raises
    ------
    ValueError
        ``query`` named like a column of ``per_query`` (metric, value, se, method, low,
        high) or of the labels' distribution (grade, probability); two of query, doc,
        score naming one column.
    InvalidDataError
        As :func:`label_distribution`; and a run's null id, NaN score, duplicate row
        or text score, ids of different types in the run and the labels.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import evaluate_uncertain
    >>> run = pl.DataFrame({"qid": ["q"] * 3, "docid": ["a", "b", "c"],
    ...                     "score": [3.0, 2.0, 1.0]})
    >>> labels = pl.DataFrame({"qid": ["q"] * 3, "docid": ["a", "b", "c"],
    ...                        "probability": [0.5, 0.5, 1.0]})
    >>> result = evaluate_uncertain(run, labels, ["mrr", "p@2", "map"],
    ...                             form="probability", samples=200, bounds=True)
    >>> result.mean.select("metric", "value", "method", "low", "high")
    shape: (3, 5)
    ┌────────┬──────────┬─────────────┬──────────┬──────┐
    │ metric ┆ value    ┆ method      ┆ low      ┆ high │
    │ ---    ┆ ---      ┆ ---         ┆ ---      ┆ ---  │
    │ str    ┆ f64      ┆ str         ┆ f64      ┆ f64  │
    ╞════════╪══════════╪═════════════╪══════════╪══════╡
    │ mrr    ┆ 0.708333 ┆ exact       ┆ 0.333333 ┆ 1.0  │
    │ p@2    ┆ 0.5      ┆ exact       ┆ 0.0      ┆ 1.0  │
    │ map    ┆ 0.6...   ┆ monte_carlo ┆ 0.333333 ┆ 1.0  │
    └────────┴──────────┴─────────────┴──────────┴──────┘
    """
    if method not in get_args(Method):
        msg = f"method={method!r}: expected one of {get_args(Method)}"
        raise ValueError(msg)
    _check(samples, seed, block)
    parsed = _metrics(metrics)
    free({"query": query}, _PER_QUERY, "evaluate_uncertain's per_query")
    dist = label_distribution(labels, form=form, query=query, doc=doc, grade=grade,
                              probability=probability, judge=judge, tolerance=tolerance)
    _check_max_grade(dist, parsed)
    frame = run_frame(run, [query, doc, score])
    same_ids(frame, dist, query, doc)
    per_query, mean = _expected(*internal(frame, dist, query, doc, score, None), parsed,
                                method=method, samples=samples, seed=seed, bounds=bounds,
                                block=block)
    return UncertainResult(per_query=per_query.rename({QUERY: query}), mean=mean)


def _expected(frame: pl.DataFrame, dist: pl.DataFrame, parsed: dict[str, Metric], *,
              method: Method, samples: int, seed: int, bounds: bool,
              block: int | None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """:func:`evaluate_uncertain`'s per_query and mean, on the renamed columns."""
    query, doc, score = QUERY, DOC, SCORE
    docs = _ranked_docs(frame, dist, query, doc, score)
    exact = {n: m for n, m in parsed.items()
             if method == "auto" and exact_kernel(m) is not None}
    estimated = [n for n in parsed if n not in exact]
    parts = []
    if exact:
        values = exact_values(docs.lazy(), dist.lazy(), exact, query, doc).collect()
        parts.append(_long(values, query, list(exact), "exact"))
    if estimated:
        if block is None:
            block = max(1, _ROWS_PER_BLOCK // max(frame.height + dist.height, 1))
        draws = per_draw_values(frame.lazy(), dist.lazy(), estimated, range(samples),
                                query=query, doc=doc, score=score, arm=None, seed=seed,
                                block=block)
        long = draws.unpivot(index=["draw", query], on=estimated, variable_name="metric")
        draw_mean = group_sum(pl.col("value")) / samples
        deviation = group_sum((pl.col("value") - draw_mean) ** 2)
        parts.append(long.sort(query, "metric", "draw").group_by(query, "metric").agg(
            draw_mean.alias("value"), ((deviation / (samples - 1)) ** 0.5 / samples ** 0.5)
            .alias("se"), pl.lit("monte_carlo").alias("method")))
    order = pl.DataFrame({"metric": list(parsed), "_order": range(len(parsed))})
    per_query = pl.concat(parts, how="vertical_relaxed")
    if bounds:
        per_query = per_query.join(_bounds(frame, docs, dist, parsed, query, doc, score),
                                   on=[query, "metric"], how="left")
    per_query = per_query.join(order, on="metric").sort("_order", query).drop("_order")
    n = pl.len()
    mean = per_query.group_by("metric", maintain_order=True).agg(
        n.alias("queries"), (group_sum(pl.col("value")) / n).alias("value"),
        (group_sum(pl.col("se") ** 2).sqrt() / n).alias("se"), pl.col("method").first(),
        *([(group_sum(pl.col(c)) / n).alias(c) for c in ("low", "high")] if bounds else []))
    return per_query, mean


def _ranked_docs(run: pl.DataFrame, dist: pl.DataFrame, query: str, doc: str,
                 score: str) -> pl.DataFrame:
    """query, doc, rank (evaluate()'s order; null: labelled, not retrieved) of each document.

    Only the queries with labels; every labelled document of them.
    """
    queries = dist.select(query).unique()
    ranked = (run.join(queries, on=query, how="semi")
              # trec_eval's order, as evaluate(): equal scores by doc id as text
              # (byte-wise: 9 before 10), descending; -0.0 equal to 0.0
              .sort(pl.col(query), trec_score(pl.col(score), "trec_eval"),
                    pl.col(doc).cast(pl.String), descending=[False, True, True])
              .with_columns(pl.int_range(1, pl.len() + 1).over(query).alias("rank"))
              .select(query, doc, "rank"))
    labelled = dist.select(query, doc).unique().join(run.select(query).unique(), on=query,
                                                     how="semi")
    return ranked.join(labelled, on=[query, doc], how="full", coalesce=True)


def _long(values: pl.DataFrame, query: str, names: list[str], method: str) -> pl.DataFrame:
    return values.unpivot(index=query, on=names, variable_name="metric").with_columns(
        pl.col("value").cast(pl.Float64), pl.lit(0.0).alias("se"),
        pl.lit(method).alias("method"))


def _bounds(run: pl.DataFrame, docs: pl.DataFrame, dist: pl.DataFrame,
            metrics: dict[str, Metric], query: str, doc: str, score: str) -> pl.DataFrame:
    """query, metric, low, high: each metric under its least and most favourable labels."""
    support = dist.group_by(query, doc).agg(pl.col("grade").min().alias("_min"),
                                            pl.col("grade").max().alias("_max"))
    labelled = docs.join(support, on=[query, doc])
    parts = []
    for k in sorted({m.k for m in metrics.values()}, key=lambda k: -1 if k is None else k):
        names = [name for name, m in metrics.items() if m.k == k]
        inside = pl.col("rank").is_not_null() & (True if k is None else pl.col("rank") <= k)
        ends = []
        for side, favourable, other in (("low", "_min", "_max"), ("high", "_max", "_min")):
            qrels = labelled.select(query, doc, pl.when(inside).then(pl.col(favourable))
                                    .otherwise(pl.col(other)).alias("grade"))
            values = evaluate(run, qrels, names, query=query, doc=doc, score=score,
                              rel="grade", per_query=True)
            ends.append(values.unpivot(index=query, on=names, variable_name="metric",
                                       value_name=side))
        parts.append(ends[0].join(ends[1], on=[query, "metric"]))
    out = pl.concat(parts).with_columns(pl.col("low", "high").cast(pl.Float64))
    # a metric that is not monotone in its labels may be lower at its "favourable"
    # labelling than at its "unfavourable" one (R-precision): the two values, in order
    return out.with_columns(pl.min_horizontal("low", "high").alias("low"),
                            pl.max_horizontal("low", "high").alias("high"))


def is_monotone(metric: Metric) -> bool:
    """Whether ``bounds=True`` gives this metric's true worst and best case."""
    return metric.definition.name in MONOTONE
