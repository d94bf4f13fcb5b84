"""The callable ``rank`` namespace on ``pl.Expr``.

Polars already has ``Expr.rank(method=..., descending=..., seed=...)`` and
``pl.api.register_expr_namespace("rank")`` refuses to override it, so the namespace
is installed as a descriptor of our own:

* ``pl.Expr.rank`` (on the class) is still Polars' own function;
* ``pl.col("x").rank`` is a :class:`RankNameSpace` that, *called*, is Polars'
  ``Expr.rank`` (same signature, docstring and result), and whose attributes build
  metrics: ``pl.col("rel").rank.ndcg(k=10, by="score")``.

Installing twice (a second import, ``importlib.reload``) keeps the original method.
"""

from __future__ import annotations

import difflib
import functools
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank import metrics

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from polars_rank._params import By, Gain, IntoExpr, Query, Ties

_ORIGINAL = "_polars_rank_original"


class RankNameSpace:
    """Ranking metrics on a relevance expression; calling it is Polars' ``Expr.rank``.

    Every method is a one-line delegation to the top-level function of the same name
    in :mod:`polars_rank`, with the relevance set to the expression the namespace was
    called on, and the same docstring.
    """

    def __init__(self, expr: pl.Expr, original: Callable[..., pl.Expr]) -> None:
        self._expr = expr
        bound = original.__get__(expr, pl.Expr)
        self._rank = bound
        functools.update_wrapper(self, bound)  # __doc__, __name__, __wrapped__ -> signature

    def __call__(self, *args: Any, **kwargs: Any) -> pl.Expr:
        return self._rank(*args, **kwargs)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        close = difflib.get_close_matches(name, metrics.__all__, n=3, cutoff=0.5)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "."
        msg = f"`rank` has no metric {name!r}{hint} Available: {', '.join(metrics.__all__)}"
        raise AttributeError(msg)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(metrics.__all__))

    # -- metrics: one-line delegations (docstrings copied below) ------------------------
    def dcg(self, k: int | None = None, *, by: By = None,
            descending: bool | Sequence[bool] = True, gain: Gain = "exponential",
            query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.dcg(self._expr, k, by=by, descending=descending, gain=gain,
                           query=query, ties=ties)

    def ndcg(self, k: int | None = None, *, by: By = None,
             descending: bool | Sequence[bool] = True, gain: Gain = "exponential",
             query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.ndcg(self._expr, k, by=by, descending=descending, gain=gain,
                            query=query, ties=ties)

    def err(self, k: int | None = None, *, max_grade: float = 4, by: By = None,
            descending: bool | Sequence[bool] = True, query: Query = None,
            ties: Ties = "first") -> pl.Expr:
        return metrics.err(self._expr, k, max_grade=max_grade, by=by, descending=descending,
                           query=query, ties=ties)

    def precision(self, k: int | None = None, *, by: By = None,
                  descending: bool | Sequence[bool] = True, threshold: float = 1,
                  query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.precision(self._expr, k, by=by, descending=descending,
                                 threshold=threshold, query=query, ties=ties)

    def recall(self, k: int | None = None, *, by: By = None,
               descending: bool | Sequence[bool] = True, threshold: float = 1,
               query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.recall(self._expr, k, by=by, descending=descending,
                              threshold=threshold, query=query, ties=ties)

    def f1(self, k: int | None = None, *, by: By = None,
           descending: bool | Sequence[bool] = True, threshold: float = 1,
           query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.f1(self._expr, k, by=by, descending=descending,
                          threshold=threshold, query=query, ties=ties)

    def average_precision(self, k: int | None = None, *, by: By = None,
                          descending: bool | Sequence[bool] = True, threshold: float = 1,
                          query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.average_precision(self._expr, k, by=by, descending=descending,
                                         threshold=threshold, query=query, ties=ties)

    def map(self, k: int | None = None, *, by: By = None,
            descending: bool | Sequence[bool] = True, threshold: float = 1,
            query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.average_precision(self._expr, k, by=by, descending=descending,
                                         threshold=threshold, query=query, ties=ties)

    def reciprocal_rank(self, k: int | None = None, *, by: By = None,
                        descending: bool | Sequence[bool] = True, threshold: float = 1,
                        query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.reciprocal_rank(self._expr, k, by=by, descending=descending,
                                       threshold=threshold, query=query, ties=ties)

    def mrr(self, k: int | None = None, *, by: By = None,
            descending: bool | Sequence[bool] = True, threshold: float = 1,
            query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.reciprocal_rank(self._expr, k, by=by, descending=descending,
                                       threshold=threshold, query=query, ties=ties)

    def hit_rate(self, k: int | None = None, *, by: By = None,
                 descending: bool | Sequence[bool] = True, threshold: float = 1,
                 query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.hit_rate(self._expr, k, by=by, descending=descending,
                                threshold=threshold, query=query, ties=ties)

    def r_precision(self, *, by: By = None, descending: bool | Sequence[bool] = True,
                    threshold: float = 1, query: Query = None,
                    ties: Ties = "first") -> pl.Expr:
        return metrics.r_precision(self._expr, by=by, descending=descending,
                                   threshold=threshold, query=query, ties=ties)

    def rbp(self, p: float = 0.8, *, k: int | None = None, by: By = None,
            descending: bool | Sequence[bool] = True, threshold: float = 1,
            query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.rbp(self._expr, p, k=k, by=by, descending=descending,
                           threshold=threshold, query=query, ties=ties)

    def bpref(self, *, by: By = None, descending: bool | Sequence[bool] = True,
              threshold: float = 1, query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.bpref(self._expr, by=by, descending=descending,
                             threshold=threshold, query=query, ties=ties)

    def rank_correlation(self, *, by: By = None, descending: bool | Sequence[bool] = True,
                         query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.rank_correlation(self._expr, by=by, descending=descending,
                                        query=query, ties=ties)

    def auc(self, *, by: By = None, descending: bool | Sequence[bool] = True,
            threshold: float = 1, query: Query = None) -> pl.Expr:
        return metrics.auc(self._expr, by=by, descending=descending, threshold=threshold,
                           query=query)

    def ctr(self, k: int | None = None, *, by: By = None,
            descending: bool | Sequence[bool] = True, query: Query = None,
            ties: Ties = "first") -> pl.Expr:
        return metrics.ctr(self._expr, k, by=by, descending=descending, query=query,
                           ties=ties)

    def abandonment(self, k: int | None = None, *, by: By = None,
                    descending: bool | Sequence[bool] = True, query: Query = None,
                    ties: Ties = "first") -> pl.Expr:
        return metrics.abandonment(self._expr, k, by=by, descending=descending, query=query,
                                   ties=ties)

    def first_click_rr(self, k: int | None = None, *, by: By = None,
                       descending: bool | Sequence[bool] = True, query: Query = None,
                       ties: Ties = "first") -> pl.Expr:
        return metrics.first_click_rr(self._expr, k, by=by, descending=descending,
                                      query=query, ties=ties)

    def clicks_per_query(self, k: int | None = None, *, by: By = None,
                         descending: bool | Sequence[bool] = True, query: Query = None,
                         ties: Ties = "first") -> pl.Expr:
        return metrics.clicks_per_query(self._expr, k, by=by, descending=descending,
                                        query=query, ties=ties)

    def mean_dwell(self, k: int | None = None, *, clicks: IntoExpr | None = None,
                   by: By = None, descending: bool | Sequence[bool] = True,
                   query: Query = None, ties: Ties = "first") -> pl.Expr:
        return metrics.mean_dwell(self._expr, k, clicks=clicks, by=by, descending=descending,
                                  query=query, ties=ties)


for _name in metrics.__all__:
    getattr(RankNameSpace, _name).__doc__ = getattr(metrics, _name).__doc__


class _RankDescriptor:
    """``Expr.rank``: Polars' function on the class, a callable namespace on instances."""

    def __init__(self, original: Callable[..., pl.Expr]) -> None:
        setattr(self, _ORIGINAL, original)
        self.__doc__ = original.__doc__

    def __get__(self, instance: pl.Expr | None, owner: type | None = None) -> Any:
        original = getattr(self, _ORIGINAL)
        if instance is None:
            return original
        return RankNameSpace(instance, original)


def install() -> None:
    """Install the ``rank`` descriptor on ``pl.Expr`` (idempotent)."""
    current = pl.Expr.__dict__["rank"]
    original = getattr(current, _ORIGINAL, current)
    pl.Expr.rank = _RankDescriptor(original)  # type: ignore[assignment, method-assign]
