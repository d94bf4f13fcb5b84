"""Corrections of a family of p-values for multiple comparisons."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from polars_rank._stats.common import Correction


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


def _step_down(p_values: Sequence[float], scale: Callable[[float, int], float]) -> list[float]:
    """Holm's step-down, capped at 1.

    The i-th smallest p is scaled for the m - i + 1 tests left, then raised to the
    largest adjusted value before it (monotone).
    """
    m = len(p_values)
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, scale(p_values[i], m - rank)))
        out[i] = running
    return out


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
    return _step_down(p_values, lambda p, tests: tests * p)


def holm_sidak(p_values: Sequence[float]) -> list[float]:
    """Holm-Šidák step-down adjustment (Šidák 1967, stepped down as Holm's), capped at 1.

    The i-th smallest p-value (1-based) becomes ``1 - (1 - p)^(m - i + 1)``, then each
    adjusted value is raised to the largest one before it in that order (statsmodels'
    ``multipletests(method="holm-sidak")``). Slightly more powerful than Holm's; it
    controls the family-wise error rate for independent or positively dependent tests.

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
    >>> from polars_rank.stats import holm_sidak
    >>> [round(p, 6) for p in holm_sidak([0.01, 0.04, 0.03, 0.005])]
    [0.029701, 0.0591, 0.0591, 0.01985]
    """
    return _step_down(p_values, lambda p, tests: 1.0 - (1.0 - p) ** tests)


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjustment (BH 1995): false discovery rate, not family-wise.

    The i-th smallest p-value (1-based) becomes ``m / i * p``, then each adjusted
    value is lowered to the smallest one after it in that order, capped at 1
    (``scipy.stats.false_discovery_control``, statsmodels' ``"fdr_bh"``).
    Significant at ``alpha`` means the expected share of false discoveries among the
    significant rows is at most alpha, for independent or positively dependent tests.

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
    >>> from polars_rank.stats import benjamini_hochberg
    >>> [round(p, 6) for p in benjamini_hochberg([0.01, 0.04, 0.03, 0.005])]
    [0.02, 0.04, 0.04, 0.02]
    """
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i], reverse=True)
    out = [0.0] * m
    running = 1.0
    for rank, i in enumerate(order):
        running = min(running, m / (m - rank) * p_values[i])
        out[i] = running
    return out


_METHODS = {"holm": holm, "bonferroni": bonferroni, "holm-sidak": holm_sidak,
            "bh": benjamini_hochberg}


def adjust(p_values: Sequence[float], method: Correction | None) -> list[float]:
    """Adjust a family of p-values by one of :data:`CORRECTIONS`, or not (``None``).

    ``"holm"``, ``"bonferroni"``, ``"holm-sidak"``, ``"bh"`` (Benjamini-Hochberg).

    Parameters
    ----------
    p_values
        The family's p-values.
    method
        A correction of :data:`CORRECTIONS`, or ``None``.

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
    if method not in _METHODS:
        msg = f"correction must be one of {', '.join(map(repr, CORRECTIONS))}, got {method!r}"
        raise ValueError(msg)
    return _METHODS[method](p_values)


CORRECTIONS: tuple[str | None, ...] = (*_METHODS, None)
"""The corrections :func:`adjust` and ``compare(correction=...)`` know."""
