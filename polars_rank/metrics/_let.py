"""Binding values once in an expression: ``let``, for metrics that read them many times."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

__all__ = ["Get", "let"]

Get = Callable[[str], pl.Expr]
"""Reads a value bound by :func:`let` (as Float64)."""


def let(stage: Callable[[Get], pl.Expr], **values: pl.Expr) -> pl.Expr:
    """``stage``'s expression evaluated with ``values`` bound (read with its argument).

    A Python name used twice in an expression is two copies of its tree, evaluated
    twice in a ``group_by`` (Polars shares no sub-expression there): a metric whose
    stages read their inputs many times binds each stage's inputs once, which keeps
    the plan linear in the number of stages instead of exponential. The values
    are packed as one list of Float64 lists per context and read back inside
    ``list.eval`` (a struct would do, but in Polars 2.1 an eager ``select`` holding
    a struct expression and both the expected abandonment and first-click RR panics).

    Examples
    --------
    >>> df = pl.DataFrame({"x": [1.0, 2.0, 3.0]})
    >>> df.select(let(lambda get: (get("x") * get("total")).sum(),
    ...               x=pl.col("x"), total=pl.col("x").sum())).item()
    36.0
    """
    names = list(values)
    packed = pl.concat_list([v.cast(pl.Float64).implode().implode() for v in values.values()])

    def get(name: str) -> pl.Expr:
        return pl.element().get(names.index(name)).explode()

    return packed.list.eval(stage(get)).list.first()

