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
import types
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, overload

import polars as pl

from polars_rank import metrics
from polars_rank._engine.params import to_expr
from polars_rank._language.metric_spec import FUNCTIONS

if TYPE_CHECKING:
    from collections.abc import Callable



_ORIGINAL = "_polars_rank_original"

P = ParamSpec("P")


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


class _Method(Generic[P]):
    """A metric function as a method of :class:`RankNameSpace`, typed as the function.

    ``pl.col("rel").rank.ndcg`` is invisible to type checkers (they see Polars'
    ``Expr.rank`` method), but ``pr.rank(pl.col("rel")).ndcg`` is this descriptor:
    mypy reads its ``__get__`` and checks the call against the function's
    own parameters, the relevance (its first) bound to the namespace's expression.
    """

    def __init__(self, function: Callable[Concatenate[pl.Expr, P], pl.Expr]) -> None:
        self._method = _delegation(function)

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type) -> Callable[..., pl.Expr]: ...
    @overload
    def __get__(self, instance: RankNameSpace, owner: type) -> Callable[P, pl.Expr]: ...
    def __get__(self, instance: RankNameSpace | None,
                owner: type) -> Callable[..., pl.Expr]:
        if instance is None:
            return self._method
        return types.MethodType(self._method, instance)  # its signature without self


class RankNameSpace:
    """Ranking metrics on a relevance expression; calling it is Polars' ``Expr.rank``.

    Every method is generated from the top-level function of the same name in
    :mod:`polars_rank` (its signature without the first parameter, its docstring),
    and calls it with the relevance set to the expression the namespace was called on.
    """

    # every metric function, one method each (tests/test_typing.py checks the list)
    dcg = _Method(metrics.dcg)
    ideal_dcg = _Method(metrics.ideal_dcg)
    ndcg = _Method(metrics.ndcg)
    err = _Method(metrics.err)
    normalized_gain = _Method(metrics.normalized_gain)
    binary_normalized_gain = _Method(metrics.binary_normalized_gain)
    ndcg_over_relevant = _Method(metrics.ndcg_over_relevant)
    r_ndcg = _Method(metrics.r_ndcg)
    precision = _Method(metrics.precision)
    recall = _Method(metrics.recall)
    f1 = _Method(metrics.f1)
    average_precision = _Method(metrics.average_precision)
    map = _Method(metrics.map)
    gm_map = _Method(metrics.gm_map)
    yaap = _Method(metrics.yaap)
    reciprocal_rank = _Method(metrics.reciprocal_rank)
    mrr = _Method(metrics.mrr)
    hit_rate = _Method(metrics.hit_rate)
    hits = _Method(metrics.hits)
    r_precision = _Method(metrics.r_precision)
    rbp = _Method(metrics.rbp)
    bpref = _Method(metrics.bpref)
    gm_bpref = _Method(metrics.gm_bpref)
    unjudged = _Method(metrics.unjudged)
    rbp_residual = _Method(metrics.rbp_residual)
    infap = _Method(metrics.infap)
    judged = _Method(metrics.judged)
    relstring = _Method(metrics.relstring)
    relative_precision = _Method(metrics.relative_precision)
    r_precision_multiple = _Method(metrics.r_precision_multiple)
    set_map = _Method(metrics.set_map)
    iprec_at_recall = _Method(metrics.iprec_at_recall)
    eleven_point_average = _Method(metrics.eleven_point_average)
    num_ret = _Method(metrics.num_ret)
    num_rel = _Method(metrics.num_rel)
    num_rel_ret = _Method(metrics.num_rel_ret)
    num_nonrel_judged_ret = _Method(metrics.num_nonrel_judged_ret)
    utility = _Method(metrics.utility)
    rank_correlation = _Method(metrics.rank_correlation)
    auc = _Method(metrics.auc)
    accuracy = _Method(metrics.accuracy)
    sdcg = _Method(metrics.sdcg)
    inst = _Method(metrics.inst)
    insq = _Method(metrics.insq)
    bpm = _Method(metrics.bpm)
    nerr8 = _Method(metrics.nerr8)
    nerr9 = _Method(metrics.nerr9)
    nerr10 = _Method(metrics.nerr10)
    nerr11 = _Method(metrics.nerr11)
    compat = _Method(metrics.compat)
    num_q = _Method(metrics.num_q)
    ctr = _Method(metrics.ctr)
    abandonment = _Method(metrics.abandonment)
    first_click_rr = _Method(metrics.first_click_rr)
    clicks_per_query = _Method(metrics.clicks_per_query)
    mean_dwell = _Method(metrics.mean_dwell)
    alpha_ndcg = _Method(metrics.alpha_ndcg)
    alpha_dcg = _Method(metrics.alpha_dcg)
    err_ia = _Method(metrics.err_ia)
    nerr_ia = _Method(metrics.nerr_ia)
    nrbp = _Method(metrics.nrbp)
    nnrbp = _Method(metrics.nnrbp)
    precision_ia = _Method(metrics.precision_ia)
    ap_ia = _Method(metrics.ap_ia)
    subtopic_recall = _Method(metrics.subtopic_recall)

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
        # a metric declared with its spec outside this class (a plugin, a test's toy):
        # a method as the others, untyped (the class lists the package's for mypy)
        if name in FUNCTIONS:
            return types.MethodType(_delegation(FUNCTIONS[name]), self)
        known = [*metrics.__all__, *(n for n in FUNCTIONS if n not in metrics.__all__)]
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "."
        msg = f"`rank` has no metric {name!r}{hint} Available: {', '.join(known)}"
        raise AttributeError(msg)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(metrics.__all__) | set(FUNCTIONS))


def rank(rel: str | pl.Expr) -> RankNameSpace:
    """The ``rank`` namespace of ``rel``, as type checkers can read it.

    ``pr.rank(pl.col("rel")).ndcg(k=10, by="score")`` is
    ``pl.col("rel").rank.ndcg(k=10, by="score")``. Type checkers type the second as
    Polars' ``Expr.rank`` method (the package cannot change Polars' types), and so
    they reject ``.ndcg``. mypy reads the first as the metric's own signature, and it
    flags a misspelt keyword or a wrong type (tests/test_typing.py). The functions
    (``pr.ndcg("rel", ...)``) are typed too. A string is a column name.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0], "score": [0.9, 0.1]})
    >>> df.select(pr.rank(pl.col("rel")).precision(k=1, by="score")).item()
    1.0
    """
    return RankNameSpace(to_expr(rel, "rel"), pl.Expr.rank)


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
