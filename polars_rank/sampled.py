r"""Sampled-negative evaluation, corrected (Krichene & Rendle, KDD 2020).

Many recommender papers rank each user's held-out item against ``m`` sampled
negatives instead of the whole catalogue of ``n`` items, and report HR@k, NDCG@k
or MRR on that short list. Krichene & Rendle ("On Sampled Metrics for Item
Recommendation", KDD 2020, doi:10.1145/3394486.3403226; CACM 65(7), 2022) show that
such sampled metrics are biased and can even order two recommenders wrongly, and
propose *corrected* metrics: a value :math:`\widehat M(\tilde r)` for each sampled
rank :math:`\tilde r \in \{1, \dots, m + 1\}`, chosen so that, over the ranks
:math:`r` the item may have among all :math:`n` items, the estimate is as close as
possible to the exact metric :math:`M(r)`.

With the negatives drawn uniformly (with replacement, as the paper models it), the
number of sampled negatives above an item of full rank :math:`r` is binomial:
:math:`\tilde r - 1 \sim \mathrm{Bin}(m, q_r)`, :math:`q_r = (r - 1) / (n - 1)`, so
:math:`A_{r\tilde r} = P(\tilde r \mid r)` is known. With a uniform prior over
:math:`r` (the paper's, :math:`p(r) = 1 / n`), the bias-variance correction

.. math::

    \widehat M = \arg\min_x \sum_r p(r) \Big[ \big(\mathrm{E}[x_{\tilde r} \mid r]
    - M(r)\big)^2 + \gamma\, \mathrm{Var}[x_{\tilde r} \mid r] \Big]
    = \big((1 - \gamma) A^\top P A + \gamma\, \mathrm{diag}(c)\big)^{-1} A^\top P M,

:math:`c = A^\top p`, tends to the paper's minimal-bias estimator as
:math:`\gamma \to 0` and is the posterior mean :math:`\mathrm{E}[M(r) \mid \tilde r]`
(least mean squared error) at :math:`\gamma = 1`. The same closed form is in
Bernardis' transcription of the paper's estimators (``BVCorrectedCumulativeMetric``,
``CLSCorrectedCumulativeMetric`` for the bounded least-squares minimal-bias one, in
the ``RecSysFramework`` evaluation code), which clips the table to [0, 1] and
zeroes it beyond rank k; this module does neither (both add bias; only means over
users are meaningful).

The correction table depends on the parameters only (metric, k, n, m, gamma): it is
computed once when the expression is built, with NumPy (``polars-rank[stats]``), and
the expression looks each list's sampled rank up in it, in pure Polars.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Literal

import polars as pl

from polars_rank._params import check_choice, check_k, check_real, to_expr, to_exprs
from polars_rank._stats.common import require

if TYPE_CHECKING:
    from polars_rank._params import IntoExpr, Query

__all__ = ["sampled_metric", "sampled_correction", "SAMPLED_METRICS"]

SampledMetric = Literal["recall", "hit_rate", "precision", "ndcg", "ap", "mrr"]
SAMPLED_METRICS: tuple[str, ...] = ("recall", "hit_rate", "precision", "ndcg", "ap", "mrr")
"""The metrics of one relevant item a sampled rank can estimate: ``recall`` and
``hit_rate`` (1 within k), ``precision`` (1/k within k), ``ndcg`` (1 / log2(1 + r)
within k), ``ap`` and ``mrr`` (1/r within k; with one relevant item AP is RR)."""
Correction = Literal["bias_variance", "rank", "none"]
SampledTies = Literal["first", "optimistic", "pessimistic"]


def _metric_at(metric: str, k: int, rank: float) -> float:
    """M(r): the metric of a list whose one relevant item is at (full) rank ``rank``."""
    if rank > k:
        return 0.0
    if metric in ("recall", "hit_rate"):
        return 1.0
    if metric == "precision":
        return 1.0 / k
    if metric == "ndcg":
        return 1.0 / math.log2(1.0 + rank)
    return 1.0 / rank  # ap, mrr


def _check(metric: object, k: object, n_items: object, n_sampled: object,
           gamma: object) -> tuple[str, int, int, int, float]:
    name = check_choice(metric, "metric", SAMPLED_METRICS)
    if isinstance(n_items, bool) or not isinstance(n_items, int) or n_items < 2:
        msg = f"n_items must be an int >= 2 (the catalogue size), got {n_items!r}"
        raise ValueError(msg)
    if (isinstance(n_sampled, bool) or not isinstance(n_sampled, int)
            or not 1 <= n_sampled < n_items):
        msg = (f"n_sampled must be an int from 1 to n_items - 1 = {n_items - 1} "
               f"(the negatives sampled per list), got {n_sampled!r}")
        raise ValueError(msg)
    cut = check_k(k)
    g = check_real(gamma, "gamma", low=0, low_open=True, allowed="a number in (0, 1]")
    if g > 1:
        msg = f"gamma must be a number in (0, 1], got {gamma!r}"
        raise ValueError(msg)
    return name, n_items if cut is None else min(cut, n_items), n_items, n_sampled, g


def sampled_correction(metric: SampledMetric, k: int | None = None, *, n_items: int,
                       n_sampled: int, gamma: float = 0.01) -> list[float]:
    r"""The corrected metric's value at each sampled rank 1, ..., ``n_sampled`` + 1.

    Krichene & Rendle's bias-variance correction (module docstring):
    :math:`\widehat M = ((1 - \gamma) A^\top P A + \gamma\,\mathrm{diag}(c))^{-1}
    A^\top P M`, A the binomial probabilities of the sampled rank given the full
    rank, under a uniform prior over the full rank, all summed exactly over the
    full ranks: :math:`A^\top P A` depends on (i, j) through i + j only, so it costs
    2m + 1 sums over the n ranks (n = 10^6, m = 100: about 10 s, once per
    parameter set: the table is cached). Needs NumPy (``polars-rank[stats]``).

    Parameters
    ----------
    metric
        One of :data:`SAMPLED_METRICS`.
    k
        Cutoff on the full ranking; ``None``: no cutoff.
    n_items
        n, the number of items the full ranking would rank (the catalogue, less the
        user's training items if they are excluded).
    n_sampled
        m, the negatives sampled per list (a list holds m + 1 items).
    gamma
        The weight of the variance against the squared bias, in (0, 1]: small is
        the minimal-bias estimator (the paper's experiments use 0.1 to 0.001), 1
        the posterior mean of the metric given the sampled rank.

    Returns
    -------
    list of float
        m + 1 values, the estimate for sampled rank 1, 2, ...

    Examples
    --------
    >>> import polars_rank as pr
    >>> table = pr.sampled_correction("recall", 10, n_items=1000, n_sampled=99)
    >>> [round(v, 3) for v in table[:3]]
    [1.22, 0.365, -0.883]
    """
    name, k_eff, n, m, g = _check(metric, k, n_items, n_sampled, gamma)
    return list(_table(name, k_eff, n, m, g))


@functools.lru_cache(maxsize=64)
def _table(metric: str, k: int, n: int, m: int, gamma: float) -> tuple[float, ...]:
    require("numpy", "sampled_metric's correction (correction='bias_variance')")
    import numpy as np

    i = np.arange(m + 1)
    log_comb = np.concatenate([[0.0], np.cumsum(np.log((m - i[:-1]) / (i[:-1] + 1.0)))])
    # A^T P A[i, j] = C(m, i) C(m, j) S(i + j), S(s) = sum_r q^s (1 - q)^(2m - s): 2m + 1
    # sums over the n full ranks instead of (m + 1)^2, in log space (they underflow)
    log_s = _log_power_sums(np, n, 2 * m, n)
    log_c = _log_power_sums(np, n, m, n)  # c = A^T p, the same sums with degree m
    ata = np.exp(log_comb[:, None] + log_comb[None, :] + log_s[i[:, None] + i[None, :]])
    c = np.exp(log_comb + log_c)
    q = (np.arange(1, k + 1, dtype=np.float64) - 1) / (n - 1)  # A^T P M: ranks within k
    values = np.array([_metric_at(metric, k, float(r)) for r in range(1, k + 1)])
    with np.errstate(divide="ignore"):
        log_q, log_1q = np.log(q), np.log1p(-q)
    atb = np.zeros(m + 1)
    for lo in range(0, k, _CHUNK // (m + 1) + 1):
        hi = min(k, lo + _CHUNK // (m + 1) + 1)
        terms = _xlogy(np, i[None, :], log_q[lo:hi, None]) + _xlogy(
            np, m - i[None, :], log_1q[lo:hi, None])
        atb += np.exp(log_comb[None, :] + terms).T @ values[lo:hi] / n
    system = (1.0 - gamma) * ata + gamma * np.diag(c)
    return tuple(float(v) for v in np.linalg.solve(system, atb))


_CHUNK = 1 << 22
"""Cells (ranks x degrees) per block of the sums over the full ranks."""



def _xlogy(np: Any, x: Any, log_y: Any) -> Any:
    """X * log(y), 0 where x is 0 (0 log 0 = 0)."""
    return np.where(x == 0, 0.0, x * np.where(x == 0, 0.0, log_y))


def _log_power_sums(np: Any, n: int, degree: int, norm: int) -> Any:
    """Log of the sums over the full ranks of p q^s (1 - q)^(degree - s), s = 0..degree.

    p = 1/``norm``, q = (r - 1)/(n - 1), r = 1..n: a streaming log-sum-exp over
    blocks of ranks.
    """
    s = np.arange(degree + 1, dtype=np.float64)
    total = np.full(degree + 1, -np.inf)
    total[0] = total[degree] = 0.0  # r = 1 (q = 0) and r = n (q = 1): one term each, 1
    step = max(1, _CHUNK // (degree + 1))
    for lo in range(1, n - 1, step):  # the inner ranks: 0 < q < 1
        q = np.arange(lo, min(n - 1, lo + step), dtype=np.float64) / (n - 1)
        terms = np.multiply.outer(np.log(q), s) + np.multiply.outer(np.log1p(-q), degree - s)
        top = terms.max(axis=0)
        block = top + np.log(np.exp(terms - top).sum(axis=0))
        total = np.logaddexp(total, block)
    return total - math.log(norm)


def sampled_metric(
    metric: SampledMetric,
    rel: IntoExpr,
    k: int | None = None,
    *,
    by: IntoExpr,
    n_items: int,
    n_sampled: int,
    correction: Correction = "bias_variance",
    gamma: float = 0.01,
    descending: bool = True,
    threshold: float = 1,
    ties: SampledTies = "first",
    query: Query = None,
) -> pl.Expr:
    r"""A metric of sampled-negative lists (1 positive + m negatives), corrected.

    Each list (a user's, or the context's) holds the held-out relevant item and
    ``n_sampled`` sampled negatives, all scored by ``by``. The positive's sampled
    rank :math:`\tilde r` (1 + the negatives ranked above it) is looked up in a
    correction table, so that the mean over users estimates the metric the full
    ranking of ``n_items`` items would give (Krichene & Rendle, KDD 2020; see
    :mod:`polars_rank.sampled`):

    * ``"bias_variance"`` (default): the paper's corrected metric,
      :func:`sampled_correction`, with variance weight ``gamma``;
    * ``"rank"``: the metric at the estimated full rank
      :math:`\hat r = 1 + (\tilde r - 1)(n - 1)/m` (the rank the sampled rank
      maps to in expectation); simple, but still biased for top-heavy metrics (the
      metric is not linear in the rank);
    * ``"none"``: the sampled metric as commonly reported, :math:`M(\tilde r)`.

    Parameters
    ----------
    metric
        ``"recall"``, ``"hit_rate"``, ``"precision"``, ``"ndcg"``, ``"ap"`` or
        ``"mrr"`` (:data:`SAMPLED_METRICS`).
    rel
        Relevance label: the one row >= ``threshold`` is the positive.
    k
        Cutoff on the full ranking (HR@10: 10); ``None``: none.
    by
        The score (higher first with ``descending=True``) of every row.
    n_items
        n, the number of items the full ranking would rank.
    n_sampled
        m, the negatives per list; a list holds exactly m + 1 rows.
    correction
        ``"bias_variance"``, ``"rank"`` or ``"none"``.
    gamma
        ``"bias_variance"``'s variance weight, in (0, 1]: small approaches the
        minimal-bias estimator, 1 is the posterior mean.
    descending
        ``by`` is a score (True) or a rank (False).
    threshold
        ...
    ties
        A negative scoring as much as the positive: ``"first"`` (input order),
        ``"optimistic"`` (below it) or ``"pessimistic"`` (above it).
    query
        ...

    Returns
    -------
    Expr
        Float64: one value per list, or with ``query=`` the mean over lists. NaN for
        a list without exactly one positive or of another length than m + 1, or
        with a null or NaN score or a negative or NaN label.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"user": [1] * 4 + [2] * 4, "rel": [1, 0, 0, 0, 0, 0, 1, 0],
    ...                    "score": [0.9, 0.5, 0.3, 0.1, 0.8, 0.7, 0.6, 0.1]})
    >>> df.select(
    ...     sampled=pr.sampled_metric("hit_rate", "rel", 1, by="score", n_items=100,
    ...                               n_sampled=3, query="user", correction="none"),
    ...     rank=pr.sampled_metric("hit_rate", "rel", 1, by="score", n_items=100,
    ...                            n_sampled=3, query="user", correction="rank"),
    ... )
    shape: (1, 2)
    ┌─────────┬──────┐
    │ sampled ┆ rank │
    │ ---     ┆ ---  │
    │ f64     ┆ f64  │
    ╞═════════╪══════╡
    │ 0.5     ┆ 0.5  │
    └─────────┴──────┘
    """
    name, k_eff, n, m, g = _check(metric, k, n_items, n_sampled, gamma)
    check_choice(correction, "correction", ["bias_variance", "rank", "none"])
    check_choice(ties, "ties", ["first", "optimistic", "pessimistic"])
    t = check_real(threshold, "threshold", allowed="a finite number")
    if not isinstance(descending, bool):
        msg = f"descending must be True or False, got {descending!r}"
        raise TypeError(msg)
    label = to_expr(rel, "rel").cast(pl.Float64)
    score = to_expr(by, "by")
    method = {"first": "ordinal", "optimistic": "min", "pessimistic": "max"}[ties]
    positive = label >= t
    # the positive's position among the list: ties against it as ``ties`` says
    ranks = score.rank(method, descending=descending)  # type: ignore[arg-type]
    sampled_rank = ranks.filter(positive).first().cast(pl.Int64)
    ranks_seen = list(range(1, m + 2))
    if correction == "bias_variance":
        values = list(_table(name, k_eff, n, m, g))
    elif correction == "rank":
        values = [_metric_at(name, k_eff, 1 + (s - 1) * (n - 1) / m) for s in ranks_seen]
    else:
        values = [_metric_at(name, k_eff, float(s)) for s in ranks_seen]
    value = sampled_rank.replace_strict(ranks_seen, values, default=float("nan"),
                                        return_dtype=pl.Float64)
    score_f = score.cast(pl.Float64, strict=False)
    bad = ((positive.sum() != 1) | (pl.len() != m + 1) | score.is_null().any()
           | score_f.is_nan().any() | (label < 0).any() | label.is_nan().any())
    out = pl.when(bad).then(pl.lit(float("nan"))).otherwise(value)
    if query is not None:
        out = out.over(list(to_exprs(query, "query")), mapping_strategy="explode").mean()
    cut = "" if k is None else f"@{k}"
    return out.cast(pl.Float64).alias(f"sampled_{name}{cut}({correction})")
