"""A parsed metric string: a registered metric, its cutoff and its options.

:func:`polars_rank.registry.parse_metric` makes one; its expression is the metric's
function called with every option (:meth:`Metric.expr`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from polars_rank._engine.condensed import judged_only_ranking
from polars_rank._engine.unjudged import check_unjudged, with_unjudged
from polars_rank._language.metric_spec import (
    GAIN_TABLE,
    JUDGED_ONLY,
    UNJUDGED_GRADE,
    UNJUDGED_POLICY,
    MetricSpec,
    check_rewritable,
    metric_string,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    import polars as pl

__all__ = ["Metric"]


@dataclass(frozen=True)
class Metric:
    """A parsed metric string: a registered metric, a cutoff and options.

    ``str(metric)`` is the canonical spelling: lower case, ``name@k``, then the options
    that were given, in the registry's order. It parses back to an equal metric;
    metrics are equal when they compute the same thing (defaults filled in).
    """

    definition: MetricSpec
    k: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return metric_string(self.definition, self.k, self.options)

    def _key(self) -> tuple[str, int | None, tuple[Any, ...]]:
        values = tuple(self.options.get(o.name, o.default)
                       for o in self.definition.string_options)
        return self.definition.name, self.k, values

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Metric) and self._key() == other._key()

    @property
    def max_grade(self) -> float | None:
        """The highest label this metric takes (ERR's ``max_grade`` option), if any."""
        option = self.definition.option("max_grade")
        if option is None:
            return None
        return float(self.options.get(option.name, option.default))

    def tie_gain(self, labels: pl.Expr) -> pl.Expr | None:
        """The gain ``ties="optimistic"`` / ``"pessimistic"`` order its tied rows by.

        None where that is the label's order (:func:`polars_rank._engine.ranked.tie_key`):
        only a gain table reorders labels. :func:`polars_rank.evaluate` ranks once for
        every metric, so a metric with one is ranked apart; its expression orders by
        its gain itself (:meth:`polars_rank._engine.ranked.Ranked.by_gain`).
        """
        if self.definition.row_gain is None or not self.options.get(GAIN_TABLE.name):
            return None
        params = {o.name: self.options.get(o.name, o.default) for o in self.definition.options}
        return self.definition.row_gain(labels, params)

    def expr(self, rel: str | pl.Expr, **kwargs: Any) -> pl.Expr:
        """The metric's expression, ``kwargs`` being by/rank/descending/query/ties.

        Every option is passed, given or not: a metric string's defaults are the
        registry's (``ndcg@10`` is linear gain; the function's default is exponential).
        ``judged_only=True`` ranks the judged rows only (:mod:`polars_rank._engine.condensed`);
        ``unjudged`` / ``unjudged_grade`` rewrite the unjudged rows first
        (:mod:`polars_rank._engine.unjudged`). ``bounds=True`` (not an option of the string):
        the struct ``{low, high}`` of the metric under ``unjudged="low"`` and ``"high"``.
        """
        bounds = kwargs.pop("bounds", False)
        params = {o.name: self.options.get(o.name, o.default) for o in self.definition.options}
        if self.k is not None:
            params["k"] = self.k
        if self.definition.reads_tie_spans:
            kwargs.pop("ties", None)
        unjudged = self.options.get(UNJUDGED_POLICY.name, "low")
        grade = check_unjudged(unjudged, self.options.get(UNJUDGED_GRADE.name), bounds)
        check_rewritable(self.definition, unjudged, bounds=bounds)
        condensed = bool(self.options.get(JUDGED_ONLY.name))
        function = self.definition.function

        def call(labels: str | pl.Expr, arguments: dict[str, Any]) -> pl.Expr:
            if condensed:  # after "high" relabels: the data's rule first, as evaluate()
                arguments = judged_only_ranking(labels, arguments)
            assert function is not None  # a registered spec has its function
            return function(labels, **params, **arguments)

        # named after the metric, so several metrics fit in one select or agg
        return with_unjudged(call, rel, kwargs, unjudged, grade, bounds=bounds,
                             name=str(self)).alias(str(self))

