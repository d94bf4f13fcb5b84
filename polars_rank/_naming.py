"""Metric expressions named after their metric, so several fit in one ``agg``.

``pr.map("rel", by="score")`` is named ``map`` and ``pr.ndcg("rel", k=10,
by="score")`` is named ``ndcg@10(gain=exponential)``: the metric string that computes
the same number (NDCG strings are linear gain, the functions exponential), so a
function's column and an ``evaluate()`` column of the same name always agree. An
``.alias()`` after the call still wins. The name is read from the registry
(:func:`polars_rank.registry.expression_name`), the one place metric strings are
defined.
"""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from collections.abc import Callable

    import polars as pl

F = TypeVar("F", bound="Callable[..., pl.Expr]")

__all__ = ["named_after_metric"]


def named_after_metric(function: F) -> F:
    """``function``'s expression, aliased to its metric string."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def named(*args: Any, **kwargs: Any) -> pl.Expr:
        out = function(*args, **kwargs)  # checks the parameters first
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        from polars_rank.registry import expression_name  # the registry imports metrics

        return out.alias(expression_name(function.__name__, bound.arguments))

    return cast("F", named)
