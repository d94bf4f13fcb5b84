r"""Sampled-negative evaluation, corrected (Krichene & Rendle, KDD 2020).

Many recommender papers rank each user's held-out item against ``m`` sampled
negatives instead of the whole catalogue of ``n`` items, and report HR@k, NDCG@k
or MRR on that short list. Krichene & Rendle ("On Sampled Metrics for Item
Recommendation", KDD 2020, doi:10.1145/3394486.3403226; CACM 65(7), 2022,
doi:10.1145/3535335) show that such sampled metrics are "inconsistent with their
exact counterpart, in the sense that they do not persist relative statements, for
example, recommender A is better than B, not even in expectation", that "for very
small sample size, all metrics collapse to the AUC metric", and that "it is possible
to improve the quality of the sampled metrics by applying a correction, obtained by
minimizing different criteria" (their abstract). A corrected metric is a value
:math:`\widehat M(\tilde r)` for each sampled rank :math:`\tilde r \in \{1, \dots,
m + 1\}`, chosen so that, over the ranks :math:`r` the item may have among all n
items, its expectation is close to the exact metric :math:`M(r)`.

**The model** (the paper's): the m negatives are drawn uniformly *with replacement*
from the n - 1 other items, so the number of them above a positive of full rank r is
binomial, :math:`\tilde r - 1 \sim \mathrm{Bin}(m, (r - 1)/(n - 1))`, which gives
:math:`A_{r\tilde r} = P(\tilde r \mid r)`; the prior over the full ranks is the
paper's uniform :math:`p(r) = 1/n`. The corrections (``correction=``):

* ``"bias_variance"``: :math:`\arg\min_x \sum_r p(r) [(\mathrm{E}[x_{\tilde r} \mid r]
  - M(r))^2 + \gamma\, \mathrm{Var}[x_{\tilde r} \mid r]]`, in closed form
  :math:`((1 - \gamma) A^\top P A + \gamma\, \mathrm{diag}(c))^{-1} A^\top P M`,
  :math:`c = A^\top p`: the paper's bias-variance trade-off; :math:`\gamma = 1` is the
  posterior mean :math:`\mathrm{E}[M(r) \mid \tilde r]`, small :math:`\gamma` approaches
  the minimal-bias estimator;
* ``"minimal_bias"``: :math:`\arg\min_x \sum_r p(r) (\mathrm{E}[x_{\tilde r} \mid r]
  - M(r))^2` with every value within the metric's range, by bounded least squares
  (the constrained least-squares, "CLS", form of the paper's minimal-bias
  correction; unconstrained, the problem is numerically singular);
* ``"rank"``: the metric at the rank estimate :math:`\hat r = 1 + (\tilde r - 1)
  (n - 1)/m`, the full rank whose expected sampled rank is :math:`\tilde r`
  (:math:`(\tilde r - 1)/m` is the maximum-likelihood estimate of the binomial's
  :math:`(r - 1)/(n - 1)`);
* ``"none"``: the sampled metric as commonly reported, :math:`M(\tilde r)` on the
  list of m + 1 items.

Choices the paper leaves to us, and ours: negatives sampled *without* replacement
(as most evaluations draw them) make the count hypergeometric, which for m much
smaller than n is nearly the binomial; we keep the paper's binomial, so that the
tables need only (n, m) and sum exactly over the n full ranks. A uniform prior (the
paper's; a recommender's real rank distribution is unknown). ``gamma=0.01`` by
default, within the range the paper's experiments try (1 to 0.001) and RecSysFramework's
default. Ties between the positive and a negative (the paper's ranks have none) are
``ties=``'s; ``"expected"`` scores the mean of the table over the tied positions.
The rank estimate is not rounded to an integer.

Differences from Bernardis' transcription of the estimators (``BVCorrectedCumulativeMetric``,
``CLSCorrectedCumulativeMetric`` in RecSysFramework's evaluation code): it draws the
sampled rank from the hypergeometric law, clips the bias-variance table to [0, 1] and
zeroes every table beyond rank k; we keep the paper's binomial and the closed form
unclipped (clipping adds bias; only means over users are meaningful), and bound the
minimal-bias table to the metric's range ([0, 1/k] for precision, where it uses
[0, 1]).

The tables depend on the parameters only: each is computed once when the expression
is built, with NumPy (SciPy for ``"minimal_bias"``; ``polars-rank[stats]``), and the
expression looks each list's sampled rank up in it, in pure Polars
(``polars_rank._stats.sampled_table``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_rank._engine.column_types import checked_key, checked_label
from polars_rank._engine.params import (
    SampledTies,
    check_choice,
    check_k,
    check_real,
    to_expr,
    to_exprs,
)
from polars_rank._stats import sampled_table as _sampled_table
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["sampled_metric", "sampled_correction", "SAMPLED_METRICS", "CORRECTIONS"]

SampledMetric = Literal["recall", "hit_rate", "precision", "ndcg", "ap", "mrr", "auc"]
SAMPLED_METRICS: tuple[str, ...] = ("recall", "hit_rate", "precision", "ndcg", "ap", "mrr",
                                    "auc")
"""The metrics of one relevant item a sampled rank can estimate (the paper's): ``recall``
and ``hit_rate`` (1 within k), ``precision`` (1/k within k), ``ndcg`` (1 / log2(1 + r)
within k), ``ap`` and ``mrr`` (1/r within k; with one relevant item AP is RR), and
``auc`` ((n - r)/(n - 1), no cutoff; its sampled value is already unbiased)."""
Correction = Literal["bias_variance", "minimal_bias", "rank", "none"]
CORRECTIONS: tuple[str, ...] = ("bias_variance", "minimal_bias", "rank", "none")
"""The values of ``correction=``, in the order of the paper's preference."""


def _check(metric: object, k: object, n_items: object, n_sampled: object, gamma: object,
           correction: object) -> tuple[str, int | None, int, int, float, str]:
    name = check_choice(metric, "metric", SAMPLED_METRICS)
    how = check_choice(correction, "correction", CORRECTIONS)
    if isinstance(n_items, bool) or not isinstance(n_items, int) or n_items < 2:
        msg = f"n_items must be an int >= 2 (the catalogue size), got {n_items!r}"
        raise ValueError(msg)
    if (isinstance(n_sampled, bool) or not isinstance(n_sampled, int)
            or not 1 <= n_sampled < n_items):
        msg = (f"n_sampled must be an int from 1 to n_items - 1 = {n_items - 1} "
               f"(the negatives sampled per list), got {n_sampled!r}")
        raise ValueError(msg)
    cut = check_k(k)
    if name == "auc" and cut is not None:
        msg = f"metric 'auc' has no cutoff: k must be None, got {k!r}"
        raise ValueError(msg)
    g = check_real(gamma, "gamma", low=0, low_open=True, allowed="a number in (0, 1]")
    if g > 1:
        msg = f"gamma must be a number in (0, 1], got {gamma!r}"
        raise ValueError(msg)
    return name, cut, n_items, n_sampled, g, how


def sampled_correction(metric: SampledMetric, k: int | None = None, *, n_items: int,
                       n_sampled: int, correction: Correction = "bias_variance",
                       gamma: float = 0.01) -> list[float]:
    r"""The value a list scores at each sampled rank 1, ..., ``n_sampled`` + 1.

    The table :func:`sampled_metric` looks the positive's sampled rank up in
    (Krichene & Rendle, KDD 2020; the estimators and the model in
    :mod:`polars_rank.sampled`). ``"bias_variance"`` and ``"minimal_bias"`` sum
    exactly over the n full ranks: :math:`A^\top P A` depends on (i, j) through
    i + j only, so it costs 2m + 1 sums over the n ranks, once per parameter set (the
    table is cached; docs/performance.md, "Behind the code"). Needs NumPy (and SciPy for
    ``"minimal_bias"``; ``polars-rank[stats]``).

    Parameters
    ----------
    metric
        One of :data:`SAMPLED_METRICS`.
    k
        Cutoff on the full ranking; ``None``: no cutoff (``auc``: always).
    n_items
        n, the number of items the full ranking would rank (the catalogue, less the
        user's training items if they are excluded).
    n_sampled
        m, the negatives sampled per list (a list holds m + 1 items).
    correction
        ``"bias_variance"`` (default), ``"minimal_bias"``, ``"rank"`` or ``"none"``
        (:data:`CORRECTIONS`).
    gamma
        ``"bias_variance"``'s weight of the variance against the squared bias, in
        (0, 1]: small approaches the minimal-bias estimator, 1 is the posterior mean
        of the metric given the sampled rank.

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
    >>> pr.sampled_correction("recall", 10, n_items=1000, n_sampled=99,
    ...                       correction="minimal_bias")[:3]
    [1.0, 0.0, 0.0]
    """
    name, cut, n, m, g, how = _check(metric, k, n_items, n_sampled, gamma, correction)
    return list(_sampled_table.table(name, cut, n, m, how, g))


@shared_parameters
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
    correction table (:func:`sampled_correction`), so that the mean over users
    estimates the metric the full ranking of ``n_items`` items would give
    (Krichene & Rendle, KDD 2020; the estimators in :mod:`polars_rank.sampled`):

    * ``"bias_variance"`` (default): the paper's bias-variance trade-off, variance
      weight ``gamma``;
    * ``"minimal_bias"``: the paper's minimal-bias correction, bounded to the
      metric's range (constrained least squares);
    * ``"rank"``: the metric at the rank estimate
      :math:`\hat r = 1 + (\tilde r - 1)(n - 1)/m`; simple, but still biased for
      top-heavy metrics (they are not linear in the rank);
    * ``"none"``: the sampled metric as commonly reported, :math:`M(\tilde r)`.

    Parameters
    ----------
    metric
        ``"recall"``, ``"hit_rate"``, ``"precision"``, ``"ndcg"``, ``"ap"``,
        ``"mrr"`` or ``"auc"`` (:data:`SAMPLED_METRICS`).
    rel
        Relevance label: the one row >= ``threshold`` is the positive.
    k
        Cutoff on the full ranking (HR@10: 10); ``None``: none (``auc``: always).
    by
        The score (higher first with ``descending=True``) of every row.
    n_items
        n, the number of items the full ranking would rank.
    n_sampled
        m, the negatives per list; a list holds exactly m + 1 rows.
    correction
        ``"bias_variance"``, ``"minimal_bias"``, ``"rank"`` or ``"none"``.
    gamma
        ``"bias_variance"``'s variance weight, in (0, 1]: small approaches the
        minimal-bias estimator, 1 is the posterior mean.
    descending
        ``by`` is a score (True) or a rank (False).
    threshold
        ...
    ties
        A negative scoring as much as the positive: ``"first"`` (input order),
        ``"optimistic"`` (below it), ``"pessimistic"`` (above it) or ``"expected"``
        (the mean of the table over the positions the positive can take among
        them: the expectation under a random order of the tied rows).
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
    ...     auc=pr.sampled_metric("auc", "rel", by="score", n_items=100, n_sampled=3,
    ...                           query="user", correction="none"),
    ... )
    shape: (1, 3)
    ┌─────────┬──────┬──────────┐
    │ sampled ┆ rank ┆ auc      │
    │ ---     ┆ ---  ┆ ---      │
    │ f64     ┆ f64  ┆ f64      │
    ╞═════════╪══════╪══════════╡
    │ 0.5     ┆ 0.5  ┆ 0.666667 │
    └─────────┴──────┴──────────┘
    """
    name, cut, n, m, g, how = _check(metric, k, n_items, n_sampled, gamma, correction)
    check_choice(ties, "ties", ["first", "optimistic", "pessimistic", "expected"])
    t = check_real(threshold, "threshold", allowed="a finite number")
    if not isinstance(descending, bool):
        msg = f"descending must be True or False, got {descending!r}"
        raise TypeError(msg)
    # `* 1.0`, not a cast, and the checks: a text label is not parsed, a text score
    # would rank alphabetically (as in every metric: polars_rank._engine.column_types)
    label = (checked_label(to_expr(rel, "rel")) * 1.0).cast(pl.Float64)
    score = checked_key(to_expr(by, "by"))
    positive = label >= t
    values = _sampled_table.table(name, cut, n, m, how, g)

    def position(method: str) -> pl.Expr:
        """The positive's 1-based position among the list, ties per ``method``."""
        ranks = score.rank(method, descending=descending)  # type: ignore[arg-type]
        return ranks.filter(positive).first().cast(pl.Int64)

    if ties == "expected":
        # the mean of values[lo..hi] = (sum up to hi - sum up to lo - 1) / (hi - lo + 1)
        cumulative = [0.0]
        for v in values:
            cumulative.append(cumulative[-1] + v)
        keys = list(range(m + 2))
        lo, hi = position("min"), position("max")
        value = (hi.replace_strict(keys, cumulative, default=float("nan"),
                                   return_dtype=pl.Float64)
                 - (lo - 1).replace_strict(keys, cumulative, default=float("nan"),
                                           return_dtype=pl.Float64)) / (hi - lo + 1)
    else:
        method = {"first": "ordinal", "optimistic": "min", "pessimistic": "max"}[ties]
        value = position(method).replace_strict(list(range(1, m + 2)), list(values),
                                                default=float("nan"),
                                                return_dtype=pl.Float64)
    score_f = score.cast(pl.Float64, strict=False)
    bad = ((positive.sum() != 1) | (pl.len() != m + 1) | score.is_null().any()
           | score_f.is_nan().any() | (label < 0).any() | label.is_nan().any())
    out = pl.when(bad).then(pl.lit(float("nan"))).otherwise(value)
    if query is not None:
        out = out.over(list(to_exprs(query, "query")), mapping_strategy="explode").mean()
    at = "" if k is None else f"@{k}"
    return out.cast(pl.Float64).alias(f"sampled_{name}{at}({correction})")
