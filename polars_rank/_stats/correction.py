"""Corrections of a family of p-values for multiple comparisons."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank.stats import Correction


# ---------------------------------------------------------------------------- correction
def bonferroni(p_values: Sequence[float]) -> list[float]:
    """Bonferroni: each p-value times the number of tests, capped at 1.

    Parameters
    ----------
    p_values
        The family's p-values.

    Returns
    -------
    list[float]
        Adjusted p-values, in the input order.

    Examples
    --------
    >>> from polars_rank.stats import bonferroni
    >>> bonferroni([0.01, 0.04, 0.3])
    [0.03, 0.12, 0.8999999999999999]
    """
    m = len(p_values)
    return [min(1.0, m * p) for p in p_values]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (Holm 1979), monotone and capped at 1.

    The i-th smallest p-value (1-based) is multiplied by m - i + 1, then each adjusted
    value is raised to the largest one before it in that order. It controls the
    family-wise error rate as Bonferroni does and rejects at least as often.

    Parameters
    ----------
    p_values
        The family's p-values.

    Returns
    -------
    list[float]
        Adjusted p-values, in the input order.

    Examples
    --------
    >>> from polars_rank.stats import holm
    >>> holm([0.01, 0.04, 0.03, 0.005])
    [0.03, 0.06, 0.06, 0.02]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def adjust(p_values: Sequence[float], method: Correction | None) -> list[float]:
    """Adjust a family of p-values: ``"holm"``, ``"bonferroni"`` or ``None`` (unchanged).

    Parameters
    ----------
    p_values
        The family's p-values.
    method
        ``"holm"``, ``"bonferroni"`` or ``None``.

    Returns
    -------
    list[float]
        Adjusted p-values, in the input order.

    Examples
    --------
    >>> from polars_rank.stats import adjust
    >>> adjust([0.01, 0.04, 0.03], "holm"), adjust([0.01, 0.04, 0.03], None)
    ([0.03, 0.06, 0.06], [0.01, 0.04, 0.03])
    """
    if method is None:
        return [float(p) for p in p_values]
    if method == "holm":
        return holm(p_values)
    if method == "bonferroni":
        return bonferroni(p_values)
    msg = f"correction must be one of 'holm', 'bonferroni', None, got {method!r}"
    raise ValueError(msg)
