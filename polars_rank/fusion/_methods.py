"""The fusion methods: one aggregation per (query, document) over the runs' rows.

Every method is ranx 0.3.21's (``ranx/fusion/<method>.py``, AmenRa/ranx commit
2cae52f), written over a long frame with one row per (system, query, document) that
the system returned, after normalisation:

* ``v``: the normalised score; ``pos``: the 1-based rank of the row in its system's
  list for the query (by ``v``, highest first, equal values in input order), ranx's
  position in its sorted run;
* ``w``: the system's weight (1 without weights);
* ``n_cand``: the query's candidates, the documents any system returned for it;
* ``n_ret``: the length of the row's system's list for the query;
* ``rows_q`` and ``w_rows_q``: the query's rows over every system, and their weights.

A document a system did not return has no row: each method's treatment of it is
ranx's (``res.get(doc_id, 0.0)`` in CombSUM, the -1e9 and 1e9 stand-ins of CombMAX
and CombMIN, Borda's shared points for the unranked, Condorcet's rank 1e6).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank.fusion._trained import MIN_ODD

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

__all__ = ["METHODS", "Context", "Method"]

REQUIRED = object()
"""Marks a parameter ranx requires (no default)."""


@dataclass(frozen=True)
class Context:
    """What a method's aggregation may read besides the row columns."""

    n_systems: pl.Expr  # the number of fused systems, also those without this query
    total_weight: float | pl.Expr  # the sum of the systems' weights
    params: Mapping[str, float | pl.Expr]  # an expression: a grid's (optimize_fusion)


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
HITS = pl.len().cast(pl.Float64)  # the systems that returned the document


def _extreme(c: Context, *, largest: bool) -> pl.Expr:
    # ranx: max(res.get(doc_id, -1e9) for res in results), min(... 1e9 ...)
    best = V.max() if largest else V.min()
    stand_in = pl.lit(-1e9 if largest else 1e9)
    both = pl.max_horizontal(best, stand_in) if largest else pl.min_horizontal(best, stand_in)
    return pl.when(pl.len() < c.n_systems.first()).then(both).otherwise(best)


def _borda(c: Context, *, weighted: bool) -> pl.Expr:
    # A system gives its documents |C| - pos + 1 points, and the candidates it did not
    # return (|C| - n_ret + 1) / 2 each. Summed over the systems the document missed:
    # all systems' unranked points minus those of the systems it is in.
    n_cand = pl.col("n_cand").cast(pl.Float64)
    ranked = n_cand - POS + 1.0
    unranked = (n_cand - pl.col("n_ret").cast(pl.Float64) + 1.0) / 2.0
    if weighted:  # sum_s w_s (|C| - n_ret,s + 1) / 2 = (W (|C| + 1) - sum_rows w) / 2
        everyone = (c.total_weight * (n_cand + 1.0) - pl.col("w_rows_q")) / 2.0
        return everyone.first() + (W * (ranked - unranked)).sum()
    everyone = (c.n_systems.cast(pl.Float64) * (n_cand + 1.0)
                - pl.col("rows_q").cast(pl.Float64)) / 2.0
    return everyone.first() + (ranked - unranked).sum()


def _expr(value: float | pl.Expr) -> pl.Expr:
    return value if isinstance(value, pl.Expr) else pl.lit(value)


T = pl.col("t")  # a trained method's value of the row (fusion/_trained.py)


def _bayes(c: Context) -> pl.Expr:
    # bayesfuse.py sum_odds: a system that did not return the document gives min_odd
    return T.sum() + (c.n_systems.first() - HITS) * MIN_ODD


def _isr() -> pl.Expr:
    return (1.0 / (POS * POS)).sum()


METHODS: dict[str, Method] = {m.name: m for m in (
    Method("sum", {}, lambda c: V.sum()),
    Method("mnz", {}, lambda c: V.sum() * HITS),
    Method("anz", {}, lambda c: V.sum() / HITS),
    Method("gmnz", {"gamma": REQUIRED}, lambda c: V.sum() * HITS.pow(c.params["gamma"])),
    Method("max", {}, lambda c: _extreme(c, largest=True)),
    Method("min", {}, lambda c: _extreme(c, largest=False)),
    Method("med", {}, lambda c: V.median()),
    Method("wsum", {"weights": REQUIRED}, lambda c: (W * V).sum(), weighted=True),
    Method("wmnz", {"weights": REQUIRED}, lambda c: V.sum() * W.sum(), weighted=True),
    Method("mixed", {"weights": REQUIRED}, lambda c: (V * W).sum() * HITS.sqrt(),
           weighted=True),
    Method("rrf", {"k": 60}, lambda c: (1.0 / (c.params["k"] + POS)).sum(), rank_based=True),
    Method("isr", {}, lambda c: _isr() * HITS, rank_based=True),
    Method("log_isr", {}, lambda c: _isr() * HITS.log(), rank_based=True),
    Method("logn_isr", {"sigma": 0.01},
           lambda c: _isr() * (HITS + c.params["sigma"]).log(), rank_based=True),
    Method("rbc", {"phi": REQUIRED},
           lambda c: ((1.0 - c.params["phi"]) * _expr(c.params["phi"]).pow(POS - 1.0)).sum(),
           rank_based=True),
    Method("bordafuse", {}, lambda c: _borda(c, weighted=False), rank_based=True),
    Method("w_bordafuse", {"weights": REQUIRED}, lambda c: _borda(c, weighted=True),
           weighted=True, rank_based=True),
    Method("condorcet", {}, None, rank_based=True),
    Method("w_condorcet", {"weights": REQUIRED}, None, weighted=True, rank_based=True),
    # trained (fusion/_trained.py): the trained value of each row, summed (CombSUM)
    Method("probfuse", {"probs": REQUIRED}, lambda c: T.sum(), rank_based=True,
           trained=True),
    Method("segfuse", {"probs": REQUIRED}, lambda c: T.sum(), rank_based=True,
           trained=True),
    Method("slidefuse", {"probs": REQUIRED, "w": REQUIRED}, lambda c: T.sum(),
           rank_based=True, trained=True),
    Method("posfuse", {"probs": REQUIRED}, lambda c: T.sum(), rank_based=True,
           trained=True),
    Method("bayesfuse", {"log_odds": REQUIRED}, _bayes, rank_based=True, trained=True),
    Method("mapfuse", {"map_scores": REQUIRED}, lambda c: T.sum(), rank_based=True,
           trained=True),
)}
"""ranx's method names (``fusion_switch`` in ``ranx/fusion/__init__.py``)."""

UNRANKED = 1e6
"""Condorcet's position of a document a system did not return (ranx: 1000000)."""


def condorcet(lf: pl.LazyFrame, systems: pl.LazyFrame,
              by: Sequence[str] = ()) -> pl.LazyFrame:
    """Condorcet's (weighted) majority order, as ranx's ``condorcet.py``.

    ranx sorts the candidates with a comparison: a before b when the weights of the
    systems ranking a above b (a document a system did not return at 1e6) are at
    least those of the others. Where that relation is an order, a document's place is
    the number of candidates before it, and its score |C| minus that; this plan counts
    them with one join of the candidates with each other per query (|C|^2 pairs).
    ``by``: columns of ``systems`` keying sets of weights (``optimize_fusion``'s
    combinations), each fused on its own.
    """
    keys = [*by, "q"]
    candidates = lf.select("q", "d").unique()
    grid = (candidates.join(systems, how="cross")
            .join(lf.select("q", "d", "sys", "pos"), on=["q", "d", "sys"], how="left")
            .select(*keys, "d", "sys", "w",
                    idx=(pl.col("pos").cast(pl.Float64) - 1.0).fill_null(UNRANKED)))
    pairs = (grid.join(grid.select(*keys, "sys", b="d", idx_b="idx"), on=[*keys, "sys"])
             .filter(pl.col("d") != pl.col("b")))
    above = pl.col("idx") < pl.col("idx_b")
    votes = pairs.group_by(*keys, "d", "b").agg(
        for_=pl.when(above).then(W).otherwise(0.0).sum(),
        against=pl.when(above).then(0.0).otherwise(W).sum())
    before = (votes.filter(pl.col("for_") >= pl.col("against"))
              .group_by(*keys, d="b").agg(n_before=pl.len()))
    if by:
        candidates = candidates.join(systems.select(by).unique(), how="cross")
    return (candidates.join(before, on=[*keys, "d"], how="left")
            .with_columns(n_cand=pl.len().over(keys))
            .select(*keys, "d", score=(pl.col("n_cand") - pl.col("n_before").fill_null(0))
                    .cast(pl.Float64)))
