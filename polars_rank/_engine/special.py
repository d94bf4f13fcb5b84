"""Digamma and trigamma as Polars expressions, for sums over runs of ranks.

Some C/W/L weights are rational in the rank (INST, INSQ, NERR: ``1/(x + b)^2``,
``1/x``); summing them over a run of ranks with no gain between two judged rows is a
difference of polygamma values, so a metric reads only the judged rows:

    sum_(x=a)^(b-1) 1 / (x + c)^2 = trigamma(a + c) - trigamma(b + c)
    sum_(i=a+1)^(b) 1 / i = digamma(b + 1) - digamma(a + 1)

Both use the recurrence ``f(x) = f(x + n) + (terms)`` to move the argument to
x + 10 >= 10, then the asymptotic series (Abramowitz & Stegun 6.3.18, 6.4.12),
whose first omitted term is below 3e-14 there. They name x some twenty times: give
them an x that is cheap to compute again, such as a field of ``pl.element()`` in a
``list.eval`` (a Polars ``group_by`` does not share repeated sub-expressions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.compat import row_sum

if TYPE_CHECKING:
    import polars as pl

__all__ = ["digamma", "trigamma"]

_SHIFT = 10


def trigamma(x: pl.Expr) -> pl.Expr:
    """psi_1(x) = sum_(j>=0) 1 / (x + j)^2, for x > 0 (Float64)."""
    near = row_sum(1.0 / (x + float(j)) ** 2 for j in range(_SHIFT))
    y = x + float(_SHIFT)
    inv = 1.0 / y
    inv2 = inv * inv
    # 1/y + 1/(2y^2) + 1/(6y^3) - 1/(30y^5) + 1/(42y^7) - 1/(30y^9) + 5/(66y^11)
    series = inv + inv2 / 2.0 + inv * inv2 * (
        1.0 / 6.0 + inv2 * (-1.0 / 30.0 + inv2 * (1.0 / 42.0 + inv2 * (
            -1.0 / 30.0 + inv2 * 5.0 / 66.0))))
    return near + series


def digamma(x: pl.Expr) -> pl.Expr:
    """psi(x), the logarithmic derivative of the gamma function, for x > 0 (Float64)."""
    near = row_sum(1.0 / (x + float(j)) for j in range(_SHIFT))
    y = x + float(_SHIFT)
    inv2 = 1.0 / (y * y)
    # ln y - 1/(2y) - 1/(12y^2) + 1/(120y^4) - 1/(252y^6) + 1/(240y^8) - 1/(132y^10)
    series = y.log() - 0.5 / y - inv2 * (
        1.0 / 12.0 + inv2 * (-1.0 / 120.0 + inv2 * (1.0 / 252.0 + inv2 * (
            -1.0 / 240.0 + inv2 / 132.0))))
    return series - near
