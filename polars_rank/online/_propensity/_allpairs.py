r"""The AllPairs extremum estimator (Agarwal et al., WSDM 2019): Newton's method.

Given, for each ordered pair of positions (k, k'), the harvested clicks
:math:`\hat c_k^{k,k'}` and non-clicks :math:`\neg\hat c_k^{k,k'}` of the
interventional set :math:`S_{k,k'}` at position k, it maximises

.. math::

    \sum_{k \ne k'} \hat c_k^{k,k'} \log(p_k r_{k,k'})
        + \neg\hat c_k^{k,k'} \log(1 - p_k r_{k,k'}),
    \qquad r_{k,k'} = r_{k',k},\; p_1 = 1,

over :math:`a_k = \log p_k` and :math:`b_{k,k'} = \log r_{k,k'}` subject to
:math:`p_k r_{k,k'} \le 1` (they are click probabilities), where the objective
is concave (each term is concave in :math:`s = a_k + b_{k,k'}`): full Newton steps,
shortened to keep every :math:`p_k r_{k,k'} < 1` and halved until the objective
does not decrease.
A cell with non-clicks keeps :math:`s < 0` by itself (its term falls to
:math:`-\infty` at :math:`s = 0`); a cell without any (clicked every time it
was seen, or never seen) does not, and its maximum may lie on the boundary
:math:`s = 0`. Those cells get a logarithmic barrier :math:`w \log(-s)` and
the barrier weight follows the central path :math:`w = 1, 10^{-3}, \dots,
10^{-12}`, each Newton solve started from the last (an interior-point method:
the objective is within :math:`m w` of the constrained maximum for :math:`m`
barred cells). A pair without any click carries no information on the
propensities (its :math:`r` is 0 at the optimum) and is left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float64]

__all__ = ["MAX_STEPS", "TOLERANCE", "all_pairs", "connected_to_first", "used_pairs"]

TOLERANCE = 1e-12
"""Newton stops when no parameter moves more than this (log scale)."""

MAX_STEPS = 200


def used_pairs(clicks: Matrix) -> list[tuple[int, int]]:
    """The pairs (k < k', 0-based) with a click at either position."""
    size = clicks.shape[0]
    return [(k, j) for k in range(size) for j in range(k + 1, size)
            if clicks[k, j] + clicks[j, k] > 0]


def connected_to_first(size: int, pairs: list[tuple[int, int]]) -> list[bool]:
    """Which positions the used pairs connect to position 1 (index 0)."""
    seen = [False] * size
    seen[0] = True
    changed = True
    while changed:
        changed = False
        for k, j in pairs:
            if seen[k] != seen[j]:
                seen[k] = seen[j] = True
                changed = True
    return seen


BARRIER = tuple(10.0 ** -e for e in range(0, 13, 3))
"""The barrier weights followed (when some cell has no non-clicks)."""


def _objective(s: Matrix, clicks: Matrix, misses: Matrix, weight: float) -> float:
    import numpy as np

    barred = misses <= 0
    if np.any((s >= 0) & ~barred) or (weight > 0 and np.any(s[barred] >= 0)):
        return -np.inf
    mu = np.exp(np.minimum(s, 0.0))
    with np.errstate(divide="ignore"):
        miss_term = np.where(barred, 0.0, misses * np.log1p(-np.minimum(mu, 1.0)))
        bar = weight * np.log(-s[barred]) if weight > 0 else np.zeros(0)
    return float(np.sum(clicks * s + miss_term) + np.sum(bar))


def _newton(theta: Matrix, design: Matrix, c: Matrix, n: Matrix, weight: float) -> Matrix:
    import numpy as np

    barred = n <= 0
    value = _objective(design @ theta, c, n, weight)
    for _ in range(MAX_STEPS):
        s = design @ theta
        mu = np.where(barred, 0.0, np.exp(np.minimum(s, 0.0)))
        odds = mu / (1.0 - mu)
        safe = np.where(barred, s, -1.0)
        grad_s = c - n * odds + np.where(barred, weight / safe, 0.0)
        curve = -n * odds / (1.0 - mu) - np.where(barred, weight / safe**2, 0.0)
        grad = design.T @ grad_s
        hess = design.T @ (design * curve[:, None])
        try:
            step = np.linalg.solve(hess, -grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, -grad, rcond=None)[0]
        rise = design @ step  # every s stays < 0: start below the first to reach 0
        ahead = rise > 0
        t = min(1.0, 0.99 * float(np.min(-s[ahead] / rise[ahead], initial=np.inf)))
        while t > 1e-12:
            trial = _objective(design @ (theta + t * step), c, n, weight)
            if trial >= value - 1e-12 * abs(value):
                break
            t /= 2
        if t <= 1e-12:
            break
        theta = theta + t * step
        value = _objective(design @ theta, c, n, weight)
        if float(np.max(np.abs(t * step), initial=0.0)) < TOLERANCE:
            break
    return theta


def all_pairs(clicks: Matrix, misses: Matrix) -> Matrix:
    """Propensities relative to position 1 (NaN where not connected to position 1)."""
    import numpy as np

    size = clicks.shape[0]
    pairs = used_pairs(clicks)
    reach = connected_to_first(size, pairs)
    pairs = [(k, j) for k, j in pairs if reach[k]]
    free = [k for k in range(1, size) if reach[k]]
    index = {k: i for i, k in enumerate(free)}
    rows = np.array([k for k, j in pairs] + [j for k, j in pairs], dtype=np.int64)
    cols = np.array([j for k, j in pairs] + [k for k, j in pairs], dtype=np.int64)
    pair_of = np.tile(np.arange(len(pairs)), 2)
    c, n = clicks[rows, cols], misses[rows, cols]
    a_of = np.array([index.get(int(k), -1) for k in rows], dtype=np.int64)
    width = len(free) + len(pairs)
    # the design: s = A theta, theta = (a_free..., b_pairs...)
    design = np.zeros((len(rows), width))
    has_a = a_of >= 0
    design[np.nonzero(has_a)[0], a_of[has_a]] = 1.0
    design[np.arange(len(rows)), len(free) + pair_of] = 1.0
    hits = c.reshape(2, -1).sum(axis=0)
    seen = hits + n.reshape(2, -1).sum(axis=0)
    weights: tuple[float, ...] = (0.0,)
    if np.any(n <= 0):  # the barrier needs a strictly feasible start: every s < 0
        weights, seen = BARRIER, seen + 1.0
    theta = np.concatenate([np.zeros(len(free)), np.log(hits / seen)])
    for weight in weights:
        theta = _newton(theta, design, c, n, weight)
    out = np.full(size - 1, np.nan)
    for k in free:
        out[k - 1] = np.exp(theta[index[k]])
    return out
