"""ranx's parameter grids for ``optimize_fusion``, value for value.

Transcribed from ranx 0.3.21 (AmenRa/ranx commit 2cae52f),
``ranx/fusion_optimization/``: ``optimize_weights.py`` (``get_possible_weights``,
``get_trial_configs``: wsum, wmnz, mixed, w_bordafuse, w_condorcet),
``optimize_rrf.py`` (k), ``optimize_rbc.py`` (phi), ``optimize_comb_gmnz.py``
(gamma) and ``optimize_logn_isr.py`` (sigma). ranx builds them with NumPy
(``np.arange``, then ``round`` of NumPy floats, NumPy's rounding) and keeps the
weight combinations whose plain left-to-right sum is exactly 1.0; these functions do
the same arithmetic in Python, so that the grids (and their quirks: with
``step=0.05`` RBC's phi reaches 1.01; with ``step=0.1`` and ``min_phi=0.01`` the
first phi rounds to 0.0; some weight combinations that add up to 1 in decimal do not
in binary and are left out) are ranx's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

__all__ = ["SCALAR", "WEIGHTED", "OPTIMIZABLE", "optimization_grid"]

SCALAR: dict[str, tuple[str, dict[str, float]]] = {
    "rrf": ("k", {"min_k": 10, "max_k": 100, "step": 10}),
    "rbc": ("phi", {"min_phi": 0.01, "max_phi": 1.0, "step": 0.01}),
    "gmnz": ("gamma", {"min_gamma": 0.01, "max_gamma": 1.0, "step": 0.01}),
    "logn_isr": ("sigma", {"min_sigma": 0.01, "max_sigma": 1.0, "step": 0.01}),
}
"""The methods tuned over one parameter: its name and ranx's grid options."""

WEIGHTED: dict[str, dict[str, float]] = {
    name: {"step": 0.1} for name in ("wsum", "wmnz", "mixed", "w_bordafuse", "w_condorcet")}
"""The methods tuned over the runs' weights, and ranx's grid option."""

OPTIMIZABLE = (*WEIGHTED, *SCALAR)


def _arange(start: float, stop: float, step: float) -> list[float]:
    """``np.arange(start, stop, step)`` for floats: start + i * (start + step - start)."""
    n = max(math.ceil((stop - start) / step), 0)
    delta = (start + step) - start
    return [start if i == 0 else start + step if i == 1 else start + i * delta
            for i in range(n)]


def _np_round(x: float, digits: int) -> float:
    """``round(np.float64(x), digits)``: NumPy's scale, round half to even, unscale."""
    if digits >= 0:
        scale = 10.0**digits
        return round(x * scale) / scale
    scale = 10.0 ** -digits
    return round(x / scale) * scale


def _digits(step: float) -> int:
    return str(step)[::-1].find(".")  # ranx's rounding digits (-1 for 1e-05)


def _exact_sum(values: tuple[float, ...]) -> float:
    total = 0.0  # left to right, as ranx's sum of NumPy floats (not Python 3.12's fsum-like)
    for v in values:
        total += v
    return total


def optimization_grid(method: str, n_runs: int, **options: float) -> list[Any]:
    """The grid of ``method``'s parameter that ranx's ``optimize_fusion`` runs, in order.

    Parameters
    ----------
    method
        ``"wsum"``, ``"wmnz"``, ``"mixed"``, ``"w_bordafuse"``, ``"w_condorcet"``
        (weights; option ``step=0.1``), ``"rrf"`` (k; ``min_k=10, max_k=100,
        step=10``), ``"rbc"`` (phi; ``min_phi=0.01, max_phi=1.0, step=0.01``),
        ``"gmnz"`` (gamma; ``min_gamma``, ``max_gamma``, ``step``, likewise) or
        ``"logn_isr"`` (sigma; ``min_sigma``, ``max_sigma``, ``step``).
    n_runs
        The number of runs (the weights' length).
    **options
        ranx's keyword arguments of the method's ``optimize_*`` function.

    Returns
    -------
    list
        The values (k: ints; phi, gamma, sigma: floats) or the weight tuples, one per
        run, whose left-to-right sum is exactly 1.0, in ``itertools.product`` order.

    Examples
    --------
    >>> from polars_rank.fusion import optimization_grid
    >>> optimization_grid("rrf", 2, max_k=40)
    [10, 20, 30, 40]
    >>> optimization_grid("wsum", 2, step=0.25)
    [(0.0, 1.0), (0.25, 0.75), (0.5, 0.5), (0.75, 0.25), (1.0, 0.0)]
    >>> len(optimization_grid("wsum", 3))  # 66 add up to 1 in decimal
    62
    """
    if method in WEIGHTED:
        allowed = WEIGHTED[method]
    elif method in SCALAR:
        allowed = SCALAR[method][1]
    else:
        msg = (f"method {method!r} has no parameter to optimise; ranx optimises "
               f"{', '.join(OPTIMIZABLE)}")
        raise ValueError(msg)
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        msg = (f"grid: {method!r} takes {', '.join(allowed)} (ranx's options); got "
               f"{', '.join(unknown)}")
        raise ValueError(msg)
    o = {**allowed, **options}
    if not o["step"] > 0:
        msg = f"grid: step must be positive; got {o['step']!r}"
        raise ValueError(msg)
    if method in WEIGHTED:
        step = float(o["step"])
        weights = [_np_round(x, _digits(step)) for x in _arange(0.0, 1.0 + step, step)]
        return [seq for seq in itertools.product(weights, repeat=n_runs)
                if _exact_sum(seq) == 1.0]
    name = SCALAR[method][0]
    low, high = o[f"min_{name}"], o[f"max_{name}"]
    if method == "rrf":
        return list(range(int(low), int(high) + 1, int(o["step"])))
    step = float(o["step"])
    return [_np_round(x, _digits(step)) for x in _arange(float(low), high + step, step)]


def check_grid(method: str, grid: Any, n_runs: int,
               systems: list[Any] | None) -> list[Any]:
    """The grid ``optimize_fusion`` runs: ranx's, or the values given.

    ``None`` or a dict of ranx's options: ranx's grid; else the values (weights: a
    sequence per combination in the runs' order, or a dict ``{system: weight}``).
    """
    if grid is None:
        return optimization_grid(method, n_runs)
    if isinstance(grid, Mapping):
        return optimization_grid(method, n_runs, **grid)
    values = list(grid)
    if not values:
        msg = "grid: give at least one combination"
        raise ValueError(msg)
    if method not in WEIGHTED:
        optimization_grid(method, n_runs)  # refuses a method without parameters
        return [_number(v, SCALAR[method][0]) for v in values]
    out = []
    for combination in values:
        if isinstance(combination, Mapping):
            if systems is None or set(combination) != set(systems):
                msg = f"grid: the systems are {systems}; got weights for {list(combination)}"
                raise ValueError(msg)
            combination = [combination[s] for s in systems]
        row = tuple(_number(w, "weights") for w in combination)
        if len(row) != n_runs:
            msg = f"grid: each combination needs {n_runs} weights; got {combination!r}"
            raise ValueError(msg)
        out.append(row)
    return out


def _number(value: Any, name: str) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        msg = f"grid: {name} values must be numbers; got {value!r}"
        raise ValueError(msg)
    if name in ("phi", "sigma") and not 0.0 <= value <= 1.0:
        msg = f"grid: {name} must be in [0, 1]; got {value!r}"
        raise ValueError(msg)
    return value
