"""``optimize_fusion()``: every parameter combination of a fusion, fused and evaluated at once.

ranx's ``optimize_fusion`` (``ranx/meta/optimize_fusion.py`` and
``ranx/fusion_optimization/*.py``, AmenRa/ranx commit 2cae52f) fuses the runs once
per combination of its grid and evaluates each fused run in turn. Here the grid is
a frame joined to the runs' rows (a cross join for one parameter; a join on the
system for weights), so that one ``group_by`` over (combination, query, document)
fuses every combination, and :func:`polars_rank.evaluate` with
``group_by="combination"`` ranks and scores all of them in one call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import polars as pl

from polars_rank._evaluation import evaluate
from polars_rank.fusion._fuse import lengths
from polars_rank.fusion._grid import OPTIMIZABLE, SCALAR, WEIGHTED, check_grid
from polars_rank.fusion._methods import METHODS, Context, condorcet
from polars_rank.fusion._runs import Runs, check_norm, normalized, positions
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from polars_rank._engine.frames import FrameLike
    from polars_rank._engine.params import EvalTies
    from polars_rank._language.dialects import DialectName
    from polars_rank.fusion._runs import Norm

__all__ = ["optimize_fusion", "OptimizedFusion"]

COMBO = "combination"
TIE = 1e-12
"""Scores within this (relative) of the best tie: the last combination of them wins."""


class OptimizedFusion(NamedTuple):
    """:func:`optimize_fusion`'s result."""

    params: dict[str, Any]
    """The chosen parameters, as :func:`polars_rank.fuse` takes them (``params=``)."""
    best: pl.DataFrame
    """The chosen combination's row of :attr:`scores`."""
    scores: pl.DataFrame
    """Every combination, in the grid's order: ``combination`` (its index), the
    parameter (``k``, ``phi``, ``gamma``, ``sigma`` or ``weights``, a list in the
    runs' order), ``train`` (the metric's mean over the training queries) and
    ``test`` (over the others; null without a split)."""


def _fused(r: Runs, method: str, norm: str | None, grid: list[Any],
           ) -> tuple[pl.LazyFrame, pl.DataFrame]:
    """Every combination's fused run, and the grid as a frame.

    The rows are ``combination, q, d, score``; the grid ``combination, <parameter>``.
    Each combination's scores are summed in the systems' order, as :func:`fuse` sums
    them (:class:`~polars_rank.fusion._methods.Context`): the same bits as ``fuse``
    with the combination's parameters.
    """
    spec = METHODS[method]
    n = len(r.names)
    index = pl.Series(COMBO, range(len(grid)), pl.Int64)
    base = (normalized(r, norm)
            .with_columns(pos=positions().over("i", "q"),
                          n_ret=pl.len().over("i", "q"),
                          n_cand=pl.col("d").n_unique().over("q")))
    if method in WEIGHTED:
        table = pl.DataFrame([index, pl.Series("weights", [list(map(float, c)) for c in grid],
                                               pl.List(pl.Float64))])
        weights = pl.DataFrame([
            pl.Series(COMBO, [i for i in range(len(grid)) for _ in range(n)], pl.Int64),
            pl.Series("i", list(range(n)) * len(grid), pl.Int64),
            pl.Series("w", [float(w) for c in grid for w in c], pl.Float64)])
        if spec.agg is None:  # weighted Condorcet
            systems = r.systems().join(weights.lazy(), on="i")
            return condorcet(base, systems, n, by=[COMBO]), table
        # each combination's weights side by side, and their sum (ranx: sum(weights))
        wide = pl.DataFrame([index, *(pl.Series(f"_w{i}", [float(c[i]) for c in grid],
                                                pl.Float64) for i in range(n)),
                             pl.Series("w_total", [sum(map(float, c)) for c in grid],
                                       pl.Float64)])
        rows = base.join(weights.lazy(), on="i")
        after = wide
        context = Context(n, {}, total_weight=pl.col("w_total"),
                          weight=lambda i: pl.col(f"_w{i}"),
                          n_ret=lambda i: pl.col(f"_n_ret{i}"))
    elif spec.agg is not None:  # every method with one parameter aggregates
        name = SCALAR[method][0]
        whole = method == "rrf" and all(isinstance(v, int) for v in grid)
        dtype = pl.Int64 if whole else pl.Float64
        table = pl.DataFrame([index, pl.Series(name, grid, dtype)])
        rows = base.join(table.lazy(), how="cross").with_columns(w=pl.lit(1.0))
        after = table
        # the parameter row by row inside a sum (RRF, RBC), and after the group_by
        context = Context(n, {name: pl.col(name)}, n_ret=lambda i: pl.col(f"_n_ret{i}"))
    else:
        msg = f"{method!r} has no aggregation"
        raise AssertionError(msg)
    score = spec.agg(context)
    fused = (rows.group_by(COMBO, "q", "d").agg(*context.aggregations)
             .join(after.lazy(), on=COMBO, how="left"))
    if any(c.startswith("_n_ret") for c in score.meta.root_names()):  # Borda
        fused = fused.join(lengths(base, n), on="q", how="left")
    return fused.select(COMBO, "q", "d", score=score.cast(pl.Float64)), table


def _mean(values: pl.Expr) -> pl.Expr:
    """The mean, adding the values one after another in their order.

    ``mean()`` adds in an order of Polars' choosing, which may change between calls.
    """
    return values.cum_sum().last() / values.count()


def _split(queries: pl.Series, train_queries: Any, train_fraction: float | None,
           seed: int) -> pl.Series:
    """The training queries among the evaluated ``queries``."""
    if train_queries is not None and train_fraction is not None:
        msg = "give train_queries or train_fraction, not both"
        raise ValueError(msg)
    if train_queries is not None:
        given: pl.Series = (train_queries if isinstance(train_queries, pl.Series)
                            else pl.Series(list(train_queries)))
        train: pl.Series = queries.filter(queries.is_in(given.cast(queries.dtype,
                                                                   strict=False)))
    elif train_fraction is not None:
        if not 0.0 < train_fraction <= 1.0:
            msg = f"train_fraction must be in (0, 1]; got {train_fraction!r}"
            raise ValueError(msg)
        n = min(max(round(train_fraction * len(queries)), 1), len(queries))
        train = queries.sort().sample(n, seed=seed)
    else:
        train = queries
    if train.is_empty():
        msg = "train_queries: none of them was evaluated (queries of the runs with qrels)"
        raise ValueError(msg)
    return train


@shared_parameters
def optimize_fusion(
    runs: FrameLike,
    qrels: FrameLike,
    method: str = "wsum",
    *,
    metric: str = "ndcg@10",
    norm: Norm | None = "min-max",
    grid: Sequence[Any] | Mapping[str, float] | None = None,
    train_queries: Any = None,
    train_fraction: float | None = None,
    seed: int = 0,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    system: str = "system",
    ties: EvalTies | None = None,
    dialect: DialectName = "polars-rank",
) -> OptimizedFusion:
    """Tune a fusion's weights or parameter against qrels, as ranx's ``optimize_fusion``.

    Every combination of the grid is fused and evaluated in one call: the grid is a
    frame joined to the runs' rows, one ``group_by`` over (combination, query,
    document) fuses all combinations, and :func:`polars_rank.evaluate` with
    ``group_by="combination"`` ranks and scores them. The grids and the choice are
    ranx 0.3.21's (``ranx/fusion_optimization/*.py``, AmenRa/ranx commit 2cae52f):
    the runs are normalised once (``norm``); the best combination is the one with
    the largest mean of ``metric`` over the training queries, and of equal ones the
    last in the grid's order (ranx keeps a combination whose score is ``>=`` the best
    so far; here scores within 1e-12 of each other count as equal: two combinations
    whose fused runs rank alike have means that differ only in the last bits). Each
    combination is fused as :func:`polars_rank.fuse` fuses it (sums over the runs in
    their order), and the means add the queries in id order: identical calls, and
    any order of the rows, give bit-identical scores.

    Parameters
    ----------
    runs
        The runs to fuse, as :func:`polars_rank.fuse` takes them: a frame with a
        ``system`` column, a list of runs (systems 0, 1, ...) or a dict
        ``{system: run}``.
    qrels
        ... fusion
    method
        ``"wsum"`` (ranx's default), ``"wmnz"``, ``"mixed"``, ``"w_bordafuse"`` or
        ``"w_condorcet"`` (the runs' weights), ``"rrf"`` (k), ``"rbc"`` (phi),
        ``"gmnz"`` (gamma) or ``"logn_isr"`` (sigma).
    metric
        One metric string, as :func:`polars_rank.evaluate` reads it (ranx's default is
        ``"ndcg"``, the whole list).
    norm
        The normalisation of each run (see :func:`polars_rank.fuse`).
    grid
        ``None``: ranx's grid (:func:`polars_rank.fusion.optimization_grid`: weights
        in steps of 0.1 adding up to 1; k 10, 20, ..., 100; phi, gamma and sigma
        0.01, 0.02, ..., 1.0); a dict of ranx's options for it (``{"step": 0.05}``,
        ``{"min_k": 1, "max_k": 200, "step": 1}``); or the combinations themselves: a
        list of values (``[20, 60]`` for k) or of weights (each a list in the runs'
        order, or a dict ``{system: weight}``).
    train_queries
        The queries to choose on (ids, a list or Series); the others are the test
        queries. Default: all queries (no test score).
    train_fraction
        Instead of ``train_queries``: this fraction of the evaluated queries, drawn
        at random (``Series.sample`` with ``seed`` over the sorted query ids, so
        reproducible for a Polars version).
    seed
        The seed of that draw.
    query, doc, score, rel, system
        Column names.
    ties, dialect
        As :func:`polars_rank.evaluate` (equal fused scores by doc id, descending,
        as trec_eval).

    Returns
    -------
    OptimizedFusion
        ``params`` (the chosen parameters, for ``pr.fuse(runs, method, params=...)``;
        weights a dict ``{system: weight}`` for a frame of runs, else a list), ``best``
        (its row) and ``scores`` (every combination: ``combination``, the parameter,
        ``train``, ``test``), eager frames.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> bm25 = pl.DataFrame({"qid": ["q1"] * 3 + ["q2"] * 3,
    ...                      "docid": ["a", "b", "c", "d", "e", "f"],
    ...                      "score": [12.0, 9.0, 3.0, 7.0, 6.0, 1.0]})
    >>> dense = pl.DataFrame({"qid": ["q1"] * 3 + ["q2"] * 3,
    ...                       "docid": ["c", "b", "a", "f", "e", "d"],
    ...                       "score": [0.9, 0.6, 0.5, 0.8, 0.7, 0.2]})
    >>> qrels = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["b", "c", "e"],
    ...                       "rel": [2, 1, 1]})
    >>> tuned = pr.optimize_fusion({"bm25": bm25, "dense": dense}, qrels, "wsum",
    ...                            metric="ndcg@2", grid={"step": 0.25})
    >>> tuned.params
    {'weights': [0.25, 0.75]}
    >>> tuned.scores
    shape: (5, 4)
    ┌─────────────┬──────────────┬──────────┬──────┐
    │ combination ┆ weights      ┆ train    ┆ test │
    │ ---         ┆ ---          ┆ ---      ┆ ---  │
    │ i64         ┆ list[f64]    ┆ f64      ┆ f64  │
    ╞═════════════╪══════════════╪══════════╪══════╡
    │ 0           ┆ [0.0, 1.0]   ┆ 0.745324 ┆ null │
    │ 1           ┆ [0.25, 0.75] ┆ 0.929859 ┆ null │
    │ 2           ┆ [0.5, 0.5]   ┆ 0.690047 ┆ null │
    │ 3           ┆ [0.75, 0.25] ┆ 0.739812 ┆ null │
    │ 4           ┆ [1.0, 0.0]   ┆ 0.555277 ┆ null │
    └─────────────┴──────────────┴──────────┴──────┘
    >>> fused = pr.fuse({"bm25": bm25, "dense": dense}, "wsum", params=tuned.params)
    >>> pr.evaluate(fused, qrels, ["ndcg@2"]).item() == tuned.best["train"].item()
    True
    """
    if method not in OPTIMIZABLE:
        msg = (f"method {method!r} has no parameter to optimise; ranx optimises "
               f"{', '.join(OPTIMIZABLE)}")
        raise ValueError(msg)
    if not isinstance(metric, str):
        msg = f"metric: give one metric string, as ranx; got {metric!r}"
        raise TypeError(msg)
    r = Runs(runs, query=query, doc=doc, score=score, system=system)
    combos = check_grid(method, grid, len(r.names), r.names)
    fused, table = _fused(r, method, check_norm(norm), combos)
    run = fused.select(COMBO, pl.col("q").alias(query), pl.col("d").alias(doc),
                       pl.col("score").alias(score))
    per = evaluate(run, qrels, [metric], query=query, doc=doc, score=score, rel=rel,
                   group_by=COMBO, per_query=True, ties=ties, dialect=dialect)
    per_df = per.collect() if isinstance(per, pl.LazyFrame) else per
    train = _split(per_df[query].unique(), train_queries, train_fraction, seed)
    is_train = pl.col(query).is_in(train.implode())
    value = pl.col(metric).sort_by(query)  # one summation order for every combination
    scores = (per_df.group_by(COMBO).agg(train=_mean(value.filter(is_train.sort_by(query))),
                                         test=_mean(value.filter(~is_train.sort_by(query))))
              .join(table, on=COMBO, how="right").sort(COMBO)
              .select(*table.columns, "train", "test"))
    best_score = scores["train"].max()
    if not isinstance(best_score, (int, float)):
        msg = f"no combination has a {metric} score"
        raise ValueError(msg)
    near = pl.col("train") >= best_score - TIE * max(1.0, abs(best_score))
    best = scores.filter(pl.col(COMBO) == scores.filter(near)[COMBO].max())
    name = "weights" if method in WEIGHTED else SCALAR[method][0]
    chosen = best[name][0]
    if method in WEIGHTED:
        chosen = chosen.to_list()
        if r.from_frame:
            chosen = dict(zip(r.names, chosen, strict=True))
    return OptimizedFusion({name: chosen}, best, scores)
