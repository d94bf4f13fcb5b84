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
import inspect
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank import metrics

if TYPE_CHECKING:
    from collections.abc import Callable


_ORIGINAL = "_polars_rank_original"


class RankNameSpace:
    """Ranking metrics on a relevance expression; calling it is Polars' ``Expr.rank``.

    Every method is generated from the top-level function of the same name in
    :mod:`polars_rank` (its signature without the first parameter, its docstring),
    and calls it with the relevance set to the expression the namespace was called on.
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


def _delegation(function: Callable[..., pl.Expr]) -> Callable[..., pl.Expr]:
    """``function`` as a method: the namespace's expression is its first argument."""

    @functools.wraps(function)
    def method(self: RankNameSpace, *args: Any, **kwargs: Any) -> pl.Expr:
        return function(self._expr, *args, **kwargs)

    signature = inspect.signature(function)
    params = list(signature.parameters.values())
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    method.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[this, *params[1:]])
    return method


# every metric function of the package, one method each, with its signature and docstring
for _name in metrics.__all__:
    setattr(RankNameSpace, _name, _delegation(getattr(metrics, _name)))


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
