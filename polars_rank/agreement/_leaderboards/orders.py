"""Kendall's tau_b and tau_AP of system orderings, many resamples at once (NumPy).

Every ordering of systems by mean reads the means through :func:`tied_means`: means
within :data:`TIE_TOLERANCE` (relative) of the next higher one are equal, so that two
systems with the same values, or equal sums added in another order, tie instead of
being told apart by rounding (5.6e-17 is no swap).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Array = NDArray[np.float64]

__all__ = ["TIE_TOLERANCE", "order_taus", "positions", "shared_positions", "tied_means"]

TIE_TOLERANCE = 1e-12
"""Means closer than this, relative to the largest ``|mean|`` (at least 1), tie."""


def _runs(means: Array) -> tuple[Any, Any, Any]:
    """Per row: the order by mean (highest first), the means in that order, the runs.

    The runs: for each place, the first place of its run of tied means (each within
    the tolerance of the next).
    """
    import numpy as np

    order = np.argsort(-means, axis=-1, kind="stable")
    ranked = np.take_along_axis(means, order, axis=-1)
    tol = TIE_TOLERANCE * max(1.0, float(np.abs(means).max(initial=0.0)))
    index = np.broadcast_to(np.arange(means.shape[-1]), means.shape)
    starts = np.ones(means.shape, dtype=bool)
    starts[..., 1:] = (ranked[..., :-1] - ranked[..., 1:]) > tol
    first = np.maximum.accumulate(np.where(starts, index, 0), axis=-1)
    return order, ranked, first


def tied_means(means: Array) -> Array:
    """The means with each run of tied means (see the module) set to its highest mean."""
    import numpy as np

    order, ranked, first = _runs(means)
    out = np.empty(means.shape, dtype=np.float64)
    np.put_along_axis(out, order, np.take_along_axis(ranked, first, axis=-1), axis=-1)
    return out


def shared_positions(means: Array) -> Array:
    """Competition positions per row (1 = highest mean): tied systems share the best."""
    import numpy as np

    order, _, first = _runs(means)
    out = np.empty(means.shape, dtype=np.float64)
    np.put_along_axis(out, order, first + 1.0, axis=-1)
    return out


def positions(means: Array) -> Array:
    """Leaderboard position of each system per row (1 = highest mean; ties by system order)."""
    import numpy as np

    order = np.argsort(-means, axis=-1, kind="stable")
    out = np.empty_like(order)
    np.put_along_axis(out, order, np.arange(1, means.shape[-1] + 1), axis=-1)
    return out.astype(np.float64)


def order_taus(a: Array, b: Array) -> tuple[Any, Any]:
    """tau_b and tau_AP of the orderings by ``b`` against those by ``a`` (rows: resamples).

    tau_AP reads the positions (tied means ordered by system), tau_b the tied means.
    """
    import numpy as np

    a, b = tied_means(a), tied_means(b)

    sa = np.sign(a[..., :, None] - a[..., None, :])
    sb = np.sign(b[..., :, None] - b[..., None, :])
    num = (sa * sb).sum(axis=(-1, -2))
    den = np.sqrt((sa * sa).sum(axis=(-1, -2)) * (sb * sb).sum(axis=(-1, -2)))
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    pa, pb = positions(a), positions(b)
    n = a.shape[-1]
    # C(i): systems above i in b's order that a also puts above i
    above = (pb[..., None, :] < pb[..., :, None]) & (pa[..., None, :] < pa[..., :, None])
    correct = above.sum(axis=-1)
    terms = np.where(pb > 1, correct / np.maximum(pb - 1, 1), 0.0)
    tau_ap = 2.0 / (n - 1) * terms.sum(axis=-1) - 1.0
    return tau, tau_ap
