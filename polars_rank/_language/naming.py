"""Metric expressions named after their metric, so several fit in one ``agg``.

``pr.map("rel", by="score")`` is named ``map`` and ``pr.ndcg("rel", k=10,
by="score")`` is named ``ndcg@10(gain=exponential)``: the metric string that computes
the same number (NDCG strings are linear gain, the functions exponential), so a
function's column and an ``evaluate()`` column of the same name always agree. An
``.alias()`` after the call still wins. A function decorated with its spec
(:func:`metric`) computes the name from it
(:func:`polars_rank._language.metric_spec.expression_name`); a function without a metric
string (:func:`named_after_metric`: ``mean_dwell``) is named after itself.

The same wrapper gives every metric function the keywords of
:mod:`polars_rank._engine.unjudged` (``unjudged``, ``unjudged_grade``, ``bounds``): one rule
about the data, applied before the metric, written once for all of them. They are
declared here once, as :class:`UnjudgedOptions`; a metric function ends its signature
with ``**unjudged: Unpack[UnjudgedOptions]``, so type checkers know them (PEP 692),
and the wrapper presents them as three keyword-only parameters (its
``__signature__``, ``help()``, the ``rank.`` methods) and lists them in the
docstring. The API reference, read from the source, expands them the same way
(``docs/_ext/rst_docstrings.py``).
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
from typing import TYPE_CHECKING, Any, ForwardRef, TypedDict, TypeVar, cast

from polars_rank._engine.params import TIES, UNSET
from polars_rank._engine.ranked import default_ties
from polars_rank._engine.unjudged import Unjudged, check_unjudged, with_unjudged
from polars_rank._language.metric_spec import (
    MetricSpec,
    check_rewritable,
    check_signature,
    expression_name,
    with_function,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import polars as pl

F = TypeVar("F", bound="Callable[..., pl.Expr]")

__all__ = ["named_after_metric", "metric", "UnjudgedOptions", "UNJUDGED_PARAMETERS", "UNJUDGED_DOC",
           "OPTIONS_ANNOTATION", "with_unjudged_parameters"]


class UnjudgedOptions(TypedDict, total=False):
    """The keywords every metric function takes (:mod:`polars_rank._engine.unjudged`)."""

    unjudged: Unjudged
    unjudged_grade: float | None
    bounds: bool


_DEFAULTS: dict[str, object] = {"unjudged": "low", "unjudged_grade": None, "bounds": False}

OPTIONS_ANNOTATION = "Unpack[UnjudgedOptions]"
"""How a metric function's ``**unjudged`` is annotated (the source text)."""


def _annotation(name: str) -> str:
    """The annotation of a key of :class:`UnjudgedOptions`, as source text."""
    annotation = UnjudgedOptions.__annotations__[name]
    return annotation.__forward_arg__ if isinstance(annotation, ForwardRef) else str(annotation)


UNJUDGED_PARAMETERS = tuple(
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=_DEFAULTS[name],
                      annotation=_annotation(name))
    for name in UnjudgedOptions.__annotations__)
""":class:`UnjudgedOptions` as keyword-only parameters, with their defaults."""

UNJUDGED_DOC = """\
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
"""The numpydoc entries of :data:`UNJUDGED_PARAMETERS` (docstrings, API reference)."""


def with_unjudged_parameters(doc: str | None) -> str | None:
    """``doc`` with :data:`UNJUDGED_DOC` at the end of its Parameters section."""
    if not doc:
        return doc
    match = re.search(r"\n(?P<indent>[ \t]*)Returns\n[ \t]*-------", doc)
    if match is None:
        return doc
    indent = match["indent"]
    entries = "".join(f"{indent}{line}\n" if line else "\n"
                      for line in UNJUDGED_DOC.splitlines())
    return doc[:match.start() + 1] + entries + "\n" + doc[match.start() + 1:]


def _own_signature(function: Callable[..., Any]) -> inspect.Signature:
    """``function``'s signature without its ``**unjudged`` (which must be there)."""
    signature = inspect.signature(function)
    *own, last = signature.parameters.values()
    if (last.kind is not last.VAR_KEYWORD or last.name != "unjudged"
            or last.annotation != OPTIONS_ANNOTATION):
        msg = (f"{function.__qualname__} must end its signature with "
               f"**unjudged: {OPTIONS_ANNOTATION} (polars_rank._language.naming)")
        raise TypeError(msg)
    return signature.replace(parameters=own)


def _bind(name: str, signature: inspect.Signature, args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> inspect.BoundArguments:
    """``signature.bind``, its error worded as Python's own (and a near miss suggested)."""
    unknown = [k for k in kwargs if k not in signature.parameters]
    if unknown:
        known = [*signature.parameters, *(p.name for p in UNJUDGED_PARAMETERS)]
        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        msg = f"{name}() got an unexpected keyword argument {unknown[0]!r}{hint}"
        raise TypeError(msg)
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as exc:
        msg = f"{name}() {exc}"
        raise TypeError(msg) from None


def _named_after_function(function: str, arguments: dict[str, Any]) -> str:
    """The name of a function without a metric string: its own, ``@k`` (``mean_dwell@10``)."""
    k = arguments.get("k")
    return function + (f"@{k}" if k is not None else "")


def named_after_metric(function: F) -> F:
    """``function``'s expression, named after the function, with ``unjudged=``.

    For a function without a :class:`~polars_rank._language.metric_spec.MetricSpec` (no metric
    string: ``mean_dwell``): named ``function@k``; nothing is looked up.
    ``function`` ends its signature with ``**unjudged: Unpack[UnjudgedOptions]``
    (a ``TypeError`` here otherwise) and never receives them: a keyword that is none
    of its parameters nor of :class:`UnjudgedOptions` is a ``TypeError``.
    """
    return _named(function, None)


def metric(spec: MetricSpec) -> Callable[[F], F]:
    """Decorate a metric function with its spec: named after it, registered, checked.

    As :func:`named_after_metric`, but the function is handed its spec: nothing is
    looked up when it is called. The spec's options are checked against the
    function's signature now (:func:`polars_rank._language.metric_spec.check_signature`), a
    tie policy the spec does not list is refused, and the spec, with the function,
    is registered: metric strings, ``evaluate()``, the ``rank`` namespace, the CLI's
    list and the docs table find it (:mod:`polars_rank._language.metric_spec`).
    """

    def decorate(function: F) -> F:
        check_signature(spec, function)
        named = _named(function, spec)
        with_function(spec, named)
        return named

    return decorate


def _chosen_ties(spec: MetricSpec, arguments: Mapping[str, Any],
                 checked: Callable[[], object]) -> object:
    """The call's tie policy as the spec allows it: the one place a policy is refused.

    ``rank=(first, last)`` (tie spans, as ``evaluate(ties="expected")`` passes them)
    is ``ties="expected"``. Without ``ties``, the order-free default
    (:func:`~polars_rank._engine.ranked.default_ties`); where the spec has no
    ``"expected"``, ``"pessimistic"`` (ties never help), except for a metric of the
    unjudged rows, which that order leaves undefined: refused, after ``checked()``
    (the function called with ``ties="first"``) has checked the other parameters, as
    before the default was refused here. A value that is no tie policy at all is left
    to the function's own check, whose ``ValueError`` lists the policies it takes.
    """
    ties = arguments.get("ties")
    rank = arguments.get("rank")
    by = arguments.get("by", UNSET)
    supported = spec.ties
    if ties is None and isinstance(rank, tuple):
        ties = "expected"
    elif ties is None and "ties" in arguments and (by is not UNSET or rank is not None):
        default = default_ties(by=by, rank=rank, doc=arguments.get("doc"))
        if default in supported:
            return None
        if "pessimistic" in supported and not spec.of_unjudged:
            return "pessimistic"
        checked()
        ties = default
    if ties is not None and ties in TIES and ties not in supported:
        allowed = ", ".join(repr(t) for t in supported)
        why = f": {spec.ties_note}" if spec.ties_note else ""
        msg = f"{spec.name}: ties={ties!r} is not supported{why} (supported: {allowed})"
        raise NotImplementedError(msg)
    return arguments.get("ties")


def _named(function: F, spec: MetricSpec | None) -> F:
    signature = _own_signature(function)
    # the parameters' defaults, for the spec's choice of a tie policy (_chosen_ties)
    defaults = {name: p.default for name, p in signature.parameters.items()
                if p.default is not inspect.Parameter.empty}

    def lookup() -> tuple[MetricSpec | None, Callable[[str, dict[str, Any]], str]]:
        if spec is not None:
            return spec, lambda _, shown: expression_name(spec, shown)
        return None, _named_after_function

    @functools.wraps(function)
    def named(*args: Any, **kwargs: Any) -> pl.Expr:
        definition, name_of = lookup()
        # the keywords of UnjudgedOptions, their defaults written once (_DEFAULTS)
        unjudged, unjudged_grade, bounds = (kwargs.pop(k, d) for k, d in _DEFAULTS.items())

        bound = _bind(function.__name__, signature, args, kwargs)
        if spec is not None:
            ties = _chosen_ties(spec, {**defaults, **bound.arguments},
                                lambda: function(*args, **{**kwargs, "ties": "first"}))
            if ties is not None:
                bound.arguments["ties"] = kwargs["ties"] = ties
        grade = check_unjudged(unjudged, unjudged_grade, bounds)
        check_rewritable(definition, unjudged, bounds=bounds)
        out = function(*args, **kwargs)  # checks the parameters first
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
        name = name_of(function.__name__, shown)
        if bounds or unjudged not in ("low", "ignore"):
            out = with_unjudged(call, rel, arguments, unjudged, grade, bounds=bounds,
                                name=name)
        return out.alias(name)

    named.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), *UNJUDGED_PARAMETERS])
    named.__doc__ = with_unjudged_parameters(function.__doc__)
    return cast("F", named)
