r"""The AllPairs extremum estimator (Agarwal et al., WSDM 2019): Newton's method.

Given, for each ordered pair of positions (k, k'), the harvested clicks
:math:`\hat c_k^{k,k'}` and non-clicks :math:`\neg\hat c_k^{k,k'}` of the
interventional set :math:`S_{k,k'}` at position k, it maximises

.. math::

    \sum_{k \ne k'} \hat c_k^{k,k'} \log(p_k r_{k,k'})
        + \neg\hat c_k^{k,k'} \log(1 - p_k r_{k,k'}),
    \qquad r_{k,k'} = r_{k',k},\; p_1 = 1,

over :math:`a_k = \log p_k` and :math:`b_{k,k'} = \log r_{k,k'}`, where the objective
is concave (each term is concave in :math:`s = a_k + b_{k,k'}`): full Newton steps,
halved until the objective does not decrease and every :math:`p_k r_{k,k'} < 1`.
A pair without any click carries no information on the propensities (its
:math:`r` is 0 at the optimum) and is left out.
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


def _objective(s: Matrix, clicks: Matrix, misses: Matrix) -> float:
    import numpy as np

    mu = np.exp(s)
    if np.any((mu >= 1) & (misses > 0)):
        return -np.inf
    with np.errstate(divide="ignore"):
        miss_term = np.where(misses > 0, misses * np.log1p(-np.minimum(mu, 1.0)), 0.0)
    return float(np.sum(clicks * s + miss_term))


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
    seen = c.reshape(2, -1).sum(axis=0) + n.reshape(2, -1).sum(axis=0)
    theta = np.concatenate([np.zeros(len(free)),
                            np.log(c.reshape(2, -1).sum(axis=0) / seen)])
    value = _objective(design @ theta, c, n)
    for _ in range(MAX_STEPS):
        s = design @ theta
        mu = np.exp(s)
        odds = mu / (1.0 - mu)
        grad = design.T @ (c - n * odds)
        hess = design.T @ (design * (-n * odds / (1.0 - mu))[:, None])
        try:
            step = np.linalg.solve(hess, -grad)
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(hess, -grad, rcond=None)[0]
        t = 1.0
        while t > 1e-12:
            trial = _objective(design @ (theta + t * step), c, n)
            if trial >= value - 1e-12 * abs(value):
                break
            t /= 2
        theta = theta + t * step
        value = _objective(design @ theta, c, n)
        if float(np.max(np.abs(t * step), initial=0.0)) < TOLERANCE:
            break
    out = np.full(size - 1, np.nan)
    for k in free:
        out[k - 1] = np.exp(theta[index[k]])
    return out
