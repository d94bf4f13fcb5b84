"""The fusion methods: one aggregation per (query, document) over the runs' rows.

Every method is ranx 0.3.21's (``ranx/fusion/<method>.py``, AmenRa/ranx commit
2cae52f), written over a long frame with one row per (system, query, document) that
the system returned, after normalisation:

* ``v``: the normalised score; ``pos``: the 1-based rank of the row in its system's
  list for the query (fusion/_runs.py ``positions``), ranx's position in its sorted run;
* ``w``: the system's weight (1 without weights); ``i``: the system's index;
* ``n_cand``: the query's candidates, the documents any system returned for it;
* ``n_ret``: the length of the row's system's list for the query.

A document a system did not return has no row: each method's treatment of it is
ranx's (``res.get(doc_id, 0.0)`` in CombSUM, the -1e9 and 1e9 stand-ins of CombMAX
and CombMIN, Borda's shared points for the unranked, Condorcet's rank 1e6).

**Sums in one order.** A float sum depends on the order of its terms, and Polars
adds a group's rows in an order that changes with the engine, the thread count and
the call. :meth:`Context.total` therefore takes each system's term as a column of its
own (a group holds at most one row per system: the runs were checked for duplicate
rows) and adds the columns in the systems' order, as ranx's
``sum([res.get(doc_id, 0.0) for res in results])`` adds them: the same bits on every
call and for every order of the rows.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from polars_rank.fusion._runs import of_system
from polars_rank.fusion._trained import MIN_ODD

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = ["METHODS", "Context", "Method", "condorcet", "in_order"]

REQUIRED = object()
"""Marks a parameter ranx requires (no default)."""

def in_order(terms: Sequence[pl.Expr]) -> pl.Expr:
    """The terms added left to right: ``((t0 + t1) + t2) + ...``."""
    return functools.reduce(operator.add, terms)


@dataclass
class Context:
    """What a method's aggregation may read besides the row columns.

    A method builds its score from :meth:`total` (a sum over the systems) and
    :meth:`group` (any other aggregation); both register the aggregations to run per
    (query, document) and return expressions over their results, which the score
    combines after the ``group_by``. ``params``, ``weight``, ``total_weight`` and
    ``n_ret`` are read there too (and ``params`` inside a ``total``, row by row).
    """

    n_systems: int  # the number of fused systems, also those without this query
    params: Mapping[str, float | pl.Expr]  # an expression: a grid's (optimize_fusion)
    total_weight: float | pl.Expr = float("nan")  # the sum of the systems' weights
    weight: Callable[[int], pl.Expr] | None = None  # system i's weight
    n_ret: Callable[[int], pl.Expr] | None = None  # system i's list length for the query
    aggregations: list[pl.Expr] = field(default_factory=list)

    def total(self, term: pl.Expr, absent: float | pl.Expr | Callable[[int], pl.Expr] = 0.0,
              ) -> pl.Expr:
        """Sum over the systems of ``term`` (``absent`` where a system missed the doc)."""
        names = [f"_t{len(self.aggregations)}_{i}" for i in range(self.n_systems)]
        # the group's one row of system i (max() of one value, null without a row)
        self.aggregations += [pl.when(of_system(i)).then(term).max().alias(name)
                              for i, name in enumerate(names)]
        return in_order([pl.col(name).fill_null(absent(i) if callable(absent) else absent)
                         for i, name in enumerate(names)])

    def group(self, aggregation: pl.Expr) -> pl.Expr:
        """An aggregation whose value does not depend on the order of the rows."""
        name = f"_g{len(self.aggregations)}"
        self.aggregations.append(aggregation.alias(name))
        return pl.col(name)

    @property
    def hits(self) -> pl.Expr:
        """The number of systems that returned the document."""
        return self.group(pl.len().cast(pl.Float64))


@dataclass(frozen=True)
class Method:
    """A fusion method: its parameters (name -> default or REQUIRED) and aggregation."""

    name: str
    params: Mapping[str, object]
    agg: Callable[[Context], pl.Expr] | None  # None: pairwise (Condorcet)
    weighted: bool = False
    rank_based: bool = False
    trained: bool = False  # its parameters come from pr.fusion.train (column "t")


V, POS, W = pl.col("v"), pl.col("pos").cast(pl.Float64), pl.col("w")


def _extreme(c: Context, *, largest: bool) -> pl.Expr:
    # ranx: max(res.get(doc_id, -1e9) for res in results), min(... 1e9 ...)
    best = c.group(V.max() if largest else V.min())
    stand_in = pl.lit(-1e9 if largest else 1e9)
    both = pl.max_horizontal(best, stand_in) if largest else pl.min_horizontal(best, stand_in)
    return pl.when(c.hits < c.n_systems).then(both).otherwise(best)


def _borda(c: Context, *, weighted: bool) -> pl.Expr:
    # ranx: each system's Borda points (|C| - pos + 1 for its documents, (|C| - n_ret
    # + 1) / 2 for the candidates it did not return; times its weight), CombSUM'd
    n_cand = c.group(pl.col("n_cand").first().cast(pl.Float64))
    if c.n_ret is None:
        msg = "Borda needs each system's list lengths"
        raise AssertionError(msg)
    n_ret = c.n_ret

    def unranked(i: int) -> pl.Expr:
        points = (n_cand - n_ret(i).cast(pl.Float64) + 1.0) / 2.0
        if weighted and c.weight is not None:
            return c.weight(i) * points
        return points

    ranked = pl.col("n_cand").cast(pl.Float64) - POS + 1.0
    return c.total(W * ranked if weighted else ranked, unranked)


def _expr(value: float | pl.Expr) -> pl.Expr:
    return value if isinstance(value, pl.Expr) else pl.lit(value)


T = pl.col("t")  # a trained method's value of the row (fusion/_trained.py)


def _isr(c: Context) -> pl.Expr:
    return c.total(1.0 / (POS * POS))


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("sum", {}, lambda c: c.total(V)),
    Method("mnz", {}, lambda c: c.total(V) * c.hits),
    Method("anz", {}, lambda c: c.total(V) / c.hits),
    Method("gmnz", {"gamma": REQUIRED},
           lambda c: c.total(V) * c.hits.pow(c.params["gamma"])),
    Method("max", {}, lambda c: _extreme(c, largest=True)),
    Method("min", {}, lambda c: _extreme(c, largest=False)),
    Method("med", {}, lambda c: c.group(V.median())),
    Method("wsum", {"weights": REQUIRED}, lambda c: c.total(W * V), weighted=True),
    Method("wmnz", {"weights": REQUIRED}, lambda c: c.total(V) * c.total(W), weighted=True),
    Method("mixed", {"weights": REQUIRED}, lambda c: c.total(V * W) * c.hits.sqrt(),
           weighted=True),
    Method("rrf", {"k": 60}, lambda c: c.total(1.0 / (c.params["k"] + POS)), rank_based=True),
    Method("isr", {}, lambda c: _isr(c) * c.hits, rank_based=True),
    Method("log_isr", {}, lambda c: _isr(c) * c.hits.log(), rank_based=True),
    Method("logn_isr", {"sigma": 0.01},
           lambda c: _isr(c) * (c.hits + c.params["sigma"]).log(), rank_based=True),
    Method("rbc", {"phi": REQUIRED},
           lambda c: c.total((1.0 - c.params["phi"]) * _expr(c.params["phi"]).pow(POS - 1.0)),
           rank_based=True),
    Method("bordafuse", {}, lambda c: _borda(c, weighted=False), rank_based=True),
    Method("w_bordafuse", {"weights": REQUIRED}, lambda c: _borda(c, weighted=True),
           weighted=True, rank_based=True),
    Method("condorcet", {}, None, rank_based=True),
    Method("w_condorcet", {"weights": REQUIRED}, None, weighted=True, rank_based=True),
    # trained (fusion/_trained.py): the trained value of each row, summed (CombSUM);
    # BayesFuse's sum_odds: a system that did not return the document gives min_odd
    Method("probfuse", {"probs": REQUIRED}, lambda c: c.total(T), rank_based=True,
           trained=True),
    Method("segfuse", {"probs": REQUIRED}, lambda c: c.total(T), rank_based=True,
           trained=True),
    Method("slidefuse", {"probs": REQUIRED, "w": REQUIRED}, lambda c: c.total(T),
           rank_based=True, trained=True),
    Method("posfuse", {"probs": REQUIRED}, lambda c: c.total(T), rank_based=True,
           trained=True),
    Method("bayesfuse", {"log_odds": REQUIRED}, lambda c: c.total(T, MIN_ODD),
           rank_based=True, trained=True),
    Method("mapfuse", {"map_scores": REQUIRED}, lambda c: c.total(T), rank_based=True,
           trained=True),
)}
"""ranx's method names (``fusion_switch`` in ``ranx/fusion/__init__.py``)."""

UNRANKED = 1e6
"""Condorcet's position of a document a system did not return (ranx: 1000000)."""


def condorcet(lf: pl.LazyFrame, systems: pl.LazyFrame, n_systems: int,
              by: Sequence[str] = ()) -> pl.LazyFrame:
    """Condorcet's (weighted) majority order, as ranx's ``condorcet.py``.

    ranx sorts the candidates with a comparison: a before b when the weights of the
    systems ranking a above b (a document a system did not return at 1e6) are at
    least those of the others. Where that relation is an order, a document's place is
    the number of candidates before it, and its score |C| minus that; this plan counts
    them with one join of the candidates with each other per query (|C|^2 pairs).
    ``by``: columns of ``systems`` keying sets of weights (``optimize_fusion``'s
    combinations), each fused on its own. ``systems``: ``sys, i, w`` (and ``by``).
    The weights for and against are added in the systems' order (:class:`Context`).
    """
    keys = [*by, "q"]
    candidates = lf.select("q", "d").unique()
    grid = (candidates.join(systems, how="cross")
            .join(lf.select("q", "d", "i", "pos"), on=["q", "d", "i"], how="left")
            .select(*keys, "d", "i", "w",
                    idx=(pl.col("pos").cast(pl.Float64) - 1.0).fill_null(UNRANKED)))
    pairs = (grid.join(grid.select(*keys, "i", b="d", idx_b="idx"), on=[*keys, "i"])
             .filter(pl.col("d") != pl.col("b")))
    above = pl.col("idx") < pl.col("idx_b")
    # each (d, b) pair has one row per system: its weight for or against
    votes = pairs.group_by(*keys, "d", "b").agg(
        *(pl.when(of_system(i)).then(pl.when(above).then(W).otherwise(0.0)).max()
          .alias(f"_for{i}") for i in range(n_systems)),
        *(pl.when(of_system(i)).then(pl.when(above).then(0.0).otherwise(W)).max()
          .alias(f"_against{i}") for i in range(n_systems)))
    for_ = in_order([pl.col(f"_for{i}") for i in range(n_systems)])
    against = in_order([pl.col(f"_against{i}") for i in range(n_systems)])
    before = (votes.filter(for_ >= against)
              .group_by(*keys, d="b").agg(n_before=pl.len()))
    if by:
        candidates = candidates.join(systems.select(by).unique(), how="cross")
    return (candidates.join(before, on=[*keys, "d"], how="left")
            .with_columns(n_cand=pl.len().over(keys))
            .select(*keys, "d", score=(pl.col("n_cand") - pl.col("n_before").fill_null(0))
                    .cast(pl.Float64)))
