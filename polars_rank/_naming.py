"""Metric expressions named after their metric, so several fit in one ``agg``.

``pr.map("rel", by="score")`` is named ``map`` and ``pr.ndcg("rel", k=10,
by="score")`` is named ``ndcg@10(gain=exponential)``: the metric string that computes
the same number (NDCG strings are linear gain, the functions exponential), so a
function's column and an ``evaluate()`` column of the same name always agree. An
``.alias()`` after the call still wins. The name is read from the registry
(:func:`polars_rank.registry.expression_name`), the one place metric strings are
defined.

The same wrapper gives every metric function the keywords of
:mod:`polars_rank._unjudged` (``unjudged``, ``unjudged_grade``, ``bounds``): one rule
about the data, applied before the metric, written once for all of them.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import TYPE_CHECKING, Any, TypeVar, cast

from polars_rank._unjudged import check_unjudged, with_unjudged

if TYPE_CHECKING:
    from collections.abc import Callable

    import polars as pl

F = TypeVar("F", bound="Callable[..., pl.Expr]")

__all__ = ["named_after_metric", "UNJUDGED_PARAMETERS"]

UNJUDGED_PARAMETERS = (
    inspect.Parameter("unjudged", inspect.Parameter.KEYWORD_ONLY, default="low",
                      annotation="Unjudged"),
    inspect.Parameter("unjudged_grade", inspect.Parameter.KEYWORD_ONLY, default=None,
                      annotation="float | None"),
    inspect.Parameter("bounds", inspect.Parameter.KEYWORD_ONLY, default=False,
                      annotation="bool"),
)
"""The keywords every metric function takes (:mod:`polars_rank._unjudged`)."""

_DOC = """\
unjudged
    Unjudged retrieved rows (null labels): ``"low"`` (non-relevant, trec_eval's
    number; the default), ``"ignore"`` (the same number), ``"high"`` (judged at
    ``unjudged_grade``: R and the ideal ranking grow with them) or ``"condensed"``
    (removed from the ranking, as ``judged_only``).
unjudged_grade
    The label ``unjudged="high"`` gives them; ``None``: 1 (``evaluate()``: the
    largest label of the qrels).
bounds
    ``True``: the struct ``{low, high}`` of the metric under ``unjudged="low"`` and
    ``"high"``, named after the metric.
"""


def _with_parameters(doc: str | None) -> str | None:
    """``doc`` with the unjudged keywords listed at the end of its Parameters section."""
    if not doc:
        return doc
    match = re.search(r"\n(?P<indent>[ \t]*)Returns\n[ \t]*-------", doc)
    if match is None:
        return doc
    indent = match["indent"]
    entries = "".join(f"{indent}{line}\n" if line else "\n" for line in _DOC.splitlines())
    return doc[:match.start() + 1] + entries + "\n" + doc[match.start() + 1:]


def named_after_metric(function: F) -> F:
    """``function``'s expression, aliased to its metric string, with ``unjudged=``."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def named(*args: Any, unjudged: str = "low", unjudged_grade: float | None = None,
              bounds: bool = False, **kwargs: Any) -> pl.Expr:
        from polars_rank.registry import (  # the registry imports metrics
            check_rewritable,
            expression_name,
            function_unjudged,
        )

        grade = check_unjudged(unjudged, unjudged_grade, bounds)
        check_rewritable(function_unjudged(function.__name__), unjudged, bounds=bounds)
        out = function(*args, **kwargs)  # checks the parameters first
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        rel = arguments.pop(next(iter(signature.parameters)))

        def call(labels: Any, rest: dict[str, Any]) -> pl.Expr:
            return function(labels, **rest)

        shown = {**arguments}
        if unjudged != "low" and not bounds:
            shown["unjudged"] = unjudged
            if unjudged == "high" and grade is not None:
                shown["unjudged_grade"] = unjudged_grade
        name = expression_name(function.__name__, shown)
        if bounds or unjudged not in ("low", "ignore"):
            out = with_unjudged(call, rel, arguments, unjudged, grade, bounds=bounds,
                                name=name)
        return out.alias(name)

    named.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), *UNJUDGED_PARAMETERS])
    named.__doc__ = _with_parameters(function.__doc__)
    return cast("F", named)
