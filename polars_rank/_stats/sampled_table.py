r"""The correction tables of :mod:`polars_rank.sampled` (Krichene & Rendle, KDD 2020).

A table holds one value per sampled rank :math:`\tilde r = 1, \dots, m + 1`; it
depends on the parameters only (metric, k, n, m, correction, gamma), so it is
computed once, with NumPy (SciPy for ``minimal_bias``), and cached.

The sampling model is the paper's: m negatives drawn uniformly *with replacement*
from the n - 1 items other than the positive, so the number of them ranked above a
positive of full rank r is :math:`\mathrm{Bin}(m, q_r)`, :math:`q_r = (r - 1)/(n - 1)`,
and :math:`A_{r\tilde r} = P(\tilde r \mid r) = \binom{m}{\tilde r - 1}
q_r^{\tilde r - 1} (1 - q_r)^{m - \tilde r + 1}`. The prior over the full ranks is
the paper's uniform one, :math:`p(r) = 1/n`. Every sum over the n full ranks is
exact: :math:`A^\top P A` depends on (i, j) through i + j only, so it is 2m + 1
power sums :math:`S_s = \sum_r p(r)\, q_r^s (1 - q_r)^{2m - s}`, taken in log space
(they underflow).
"""

from __future__ import annotations

import functools
import math
from typing import Any

from polars_rank._stats.common import require

_CHUNK = 1 << 22
"""Cells (ranks x degrees) per block of the sums over the full ranks."""


def metric_at(metric: str, k: int, n: int, rank: float) -> float:
    """M(r): the metric of a list of ``n`` items whose one relevant item is at ``rank``.

    Krichene & Rendle's metrics of one relevant item (their Section 2): AUC
    (n - r)/(n - 1), Recall@k (hit rate) 1 within k, Precision@k 1/k within k,
    NDCG 1/log2(1 + r), AP = RR 1/r; the cutoff ``k`` (at most ``n``) zeroes all but
    AUC beyond it. The sampled metric is the same function on the list of m + 1
    items: M evaluated at the sampled rank with n = m + 1.
    """
    if metric == "auc":
        return (n - rank) / (n - 1)
    if rank > k:
        return 0.0
    if metric in ("recall", "hit_rate"):
        return 1.0
    if metric == "precision":
        return 1.0 / k
    if metric == "ndcg":
        return 1.0 / math.log2(1.0 + rank)
    return 1.0 / rank  # ap, mrr


def table(metric: str, k: int | None, n: int, m: int, correction: str,
          gamma: float) -> tuple[float, ...]:
    """The value a list scores at each sampled rank 1..m+1 under ``correction``.

    ``k`` is the cutoff on the full ranking (``None``: none; at most ``n``); the
    plain sampled metric (``"none"``) cuts its list of m + 1 items at the same ``k``.
    """
    ranks = range(1, m + 2)
    cut = n if k is None else min(k, n)
    if correction == "none":
        return tuple(metric_at(metric, m + 1 if k is None else k, m + 1, float(s))
                     for s in ranks)
    if correction == "rank":
        return tuple(metric_at(metric, cut, n, 1 + (s - 1) * (n - 1) / m) for s in ranks)
    if correction == "minimal_bias":
        return _minimal_bias(metric, cut, n, m)
    return _bias_variance(metric, cut, n, m, gamma)


@functools.lru_cache(maxsize=64)
def _bias_variance(metric: str, k: int, n: int, m: int, gamma: float) -> tuple[float, ...]:
    r"""argmin_x sum_r p(r) [(E[x | r] - M(r))^2 + gamma Var[x | r]], in closed form.

    Setting the gradient to zero: :math:`((1 - \gamma) A^\top P A + \gamma
    \mathrm{diag}(c))\, x = A^\top P M`, :math:`c = A^\top p` (the marginal of the
    sampled rank).
    """
    import numpy as np

    ata, c, atb = _moments(metric, k, n, m)
    system = (1.0 - gamma) * ata + gamma * np.diag(c)
    return tuple(float(v) for v in np.linalg.solve(system, atb))


@functools.lru_cache(maxsize=64)
def _minimal_bias(metric: str, k: int, n: int, m: int) -> tuple[float, ...]:
    r"""argmin_x sum_r p(r) (E[x | r] - M(r))^2 with x within the metric's range.

    The unconstrained least-squares problem is numerically singular (the Gram matrix
    :math:`A^\top P A` of the m + 1 binomial weights is as ill-conditioned as a
    Bernstein basis: beyond 1e16 for m of a few dozen), so its minimisers form a
    whole flat valley; bounding every value to [min M, max M] (a value a list of
    the full ranking can score) picks a bounded one. Solved as bounded least
    squares on :math:`\|L x - t\|^2`, :math:`L^\top L = A^\top P A`,
    :math:`L^\top t = A^\top P M` (its eigen-decomposition; directions with an
    eigenvalue below 1e-14 of the largest change the squared bias by less than that
    and are left to the bounds).
    """
    require("scipy", "sampled_metric's correction='minimal_bias'")
    import numpy as np
    from scipy.optimize import lsq_linear

    ata, _, atb = _moments(metric, k, n, m)
    values = [metric_at(metric, k, n, float(r)) for r in (1, min(k + 1, n), n)]
    low, high = min(values), max(values)
    eigen, vectors = np.linalg.eigh(ata)
    keep = eigen > eigen.max() * 1e-14
    root = np.sqrt(eigen[keep])
    lhs = (vectors[:, keep] * root).T
    rhs = (vectors[:, keep].T @ atb) / root
    fit = lsq_linear(lhs, rhs, bounds=(low, high), method="bvls", tol=1e-15)
    snap = 1e-12 * (high - low)  # the solver's round-off at an active bound
    x = np.where(fit.x < low + snap, low, np.where(fit.x > high - snap, high, fit.x))
    return tuple(float(v) for v in x)


@functools.lru_cache(maxsize=64)
def _moments(metric: str, k: int, n: int, m: int) -> tuple[Any, Any, Any]:
    """A^T P A, c = A^T p and A^T P M, summed exactly over the n full ranks."""
    require("numpy", "sampled_metric's correction table")
    import numpy as np

    i = np.arange(m + 1)
    log_comb = np.concatenate([[0.0], np.cumsum(np.log((m - i[:-1]) / (i[:-1] + 1.0)))])
    log_s = _log_power_sums(np, n, 2 * m)
    ata = np.exp(log_comb[:, None] + log_comb[None, :] + log_s[i[:, None] + i[None, :]])
    c = np.exp(log_comb + _log_power_sums(np, n, m))
    top = n if metric == "auc" else k  # M(r) = 0 beyond k
    atb = np.zeros(m + 1)
    step = _CHUNK // (m + 1) + 1
    for lo in range(1, top + 1, step):
        r = np.arange(lo, min(top, lo + step - 1) + 1, dtype=np.float64)
        q = (r - 1) / (n - 1)
        with np.errstate(divide="ignore"):
            log_q, log_1q = np.log(q), np.log1p(-q)
        terms = _xlogy(np, i[None, :], log_q[:, None]) + _xlogy(np, m - i[None, :],
                                                               log_1q[:, None])
        values = _metric_values(np, metric, k, n, r)
        atb += np.exp(log_comb[None, :] + terms).T @ values / n
    for array in (ata, c, atb):
        array.setflags(write=False)
    return ata, c, atb


def _metric_values(np: Any, metric: str, k: int, n: int, r: Any) -> Any:
    """:func:`metric_at` at every full rank of the array ``r``."""
    if metric == "auc":
        return (n - r) / (n - 1)
    if metric in ("recall", "hit_rate"):
        values = np.ones_like(r)
    elif metric == "precision":
        values = np.full_like(r, 1.0 / k)
    elif metric == "ndcg":
        values = 1.0 / np.log2(1.0 + r)
    else:
        values = 1.0 / r
    return np.where(r > k, 0.0, values)


def _xlogy(np: Any, x: Any, log_y: Any) -> Any:
    """X * log(y), 0 where x is 0 (0 log 0 = 0)."""
    return np.where(x == 0, 0.0, x * np.where(x == 0, 0.0, log_y))


def _log_power_sums(np: Any, n: int, degree: int) -> Any:
    """Log of sum_r q^s (1 - q)^(degree - s) / n, s = 0..degree, q = (r - 1)/(n - 1).

    A streaming log-sum-exp over blocks of ranks.
    """
    s = np.arange(degree + 1, dtype=np.float64)
    total = np.full(degree + 1, -np.inf)
    total[0] = total[degree] = 0.0  # r = 1 (q = 0) and r = n (q = 1): one term each, 1
    step = max(1, _CHUNK // (degree + 1))
    for lo in range(1, n - 1, step):  # the inner ranks: 0 < q < 1
        q = np.arange(lo, min(n - 1, lo + step), dtype=np.float64) / (n - 1)
        terms = np.multiply.outer(np.log(q), s) + np.multiply.outer(np.log1p(-q), degree - s)
        peak = terms.max(axis=0)
        block = peak + np.log(np.exp(terms - peak).sum(axis=0))
        total = np.logaddexp(total, block)
    return total - math.log(n)
