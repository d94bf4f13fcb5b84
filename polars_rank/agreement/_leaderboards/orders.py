"""Kendall's tau_b and tau_AP of system orderings, many resamples at once (NumPy)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Array = NDArray[np.float64]

__all__ = ["order_taus", "positions"]


def positions(means: Array) -> Array:
    """Leaderboard position of each system per row (1 = highest mean; ties by system order)."""
    import numpy as np

    order = np.argsort(-means, axis=-1, kind="stable")
    out = np.empty_like(order)
    np.put_along_axis(out, order, np.arange(1, means.shape[-1] + 1), axis=-1)
    return out.astype(np.float64)


def order_taus(a: Array, b: Array) -> tuple[Any, Any]:
    """tau_b and tau_AP of the orderings by ``b`` against those by ``a`` (rows: resamples).

    tau_AP reads the positions (equal means ordered by system), tau_b the means.
    """
    import numpy as np

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
