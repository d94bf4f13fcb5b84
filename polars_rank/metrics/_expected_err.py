r"""ERR under ``ties="expected"``: the exact mean over every order of the tied rows.

The approach is McSherry & Najork's ("Computing Information Retrieval Performance
Measures Efficiently in the Presence of Tied Scores", ECIR 2008): average each tie
group's contribution over its orders in closed form instead of enumerating them.

**The derivation.** With q_p = 1 - R_p (the chance the cascade user goes on past
rank p) and C_p = q_1 ... q_p (C_0 = 1), R_r prod_(i<r) q_i = C_(r-1) - C_r, so

.. math:: \mathrm{ERR@k} = \sum_{p=1}^{K} \frac{C_{p-1} - C_p}{p},
          \qquad E[\mathrm{ERR@k}] = \sum_{p=1}^{K} \frac{E[C_{p-1}] - E[C_p]}{p}

(K = min(n, k)): linear in C, so only the mean of each C_p is needed. Orders of
different groups are independent. A group of n rows at ranks b+1..b+n is entered
with the product P of q over every row above it, whatever their order; its first j
slots hold a uniformly random j-subset of its rows, so at rank p = b + j,
E[C_p] = P f_j with f_j = e_j(q) / C(n, j), the mean of the product of q over the
j-subsets of the group (e_j the elementary symmetric polynomial: the coefficient of
z^j in prod (1 + q_x z)). Collecting the terms of each f_j (by parts, f_0 = 1), the
group's expected contribution is

.. math:: P \Big(\frac{1}{b+1} - \sum_{j=1}^{J} w_j f_j\Big),\quad
          w_j = \frac{1}{(b+j)(b+j+1)}\ (j < J),\quad w_J = \frac{1}{b+J}

with J = min(n, K - b) the group's slots within the cutoff. (Equivalently, slot j
of the group holds row x with probability 1/n and the j-1 rows above it are a random
subset of the others: E[R_x prod] = (1/n) sum_x R_x e_(j-1)(others) / C(n-1, j-1),
which the identities sum_x e_(j-1)(others) = (n-j+1) e_(j-1) and
sum_x q_x e_(j-1)(others) = j e_j turn into f_(j-1) - f_j.)

**Computing f_j without a recurrence over the rows.** The coefficients of
prod (1 + q_x z) are read off its values on a circle (a discrete Fourier transform):
with N > n points z_s = rho e^(i theta_s), theta_s = pi (2s + 1) / N,

.. math:: e_j \rho^j = \frac{1}{N} \sum_s \prod_x (1 + q_x z_s) e^{-i j \theta_s}

exactly (the other coefficients cancel), and the product over the rows is a sum of
their logarithms (modulus and argument): a sum per (group, j, s) over the group's
rows, pure Polars (no recurrence, no loop), J x N/2 x m terms for a group of n rows
with m gaining ones (O(n^2 m) while N = n + 1, O(n^1.5 m sqrt(log n)) above; the
recurrence e_j += q e_(j-1), O(n m), has no vectorised form): docs/performance.md,
"Behind the code", for its cost on a long tie group.
Only the gaining rows (R > 0) are summed one by one; the
others (q = 1, including the rows a ``rank=`` list leaves out) are one factor
(1 + z)^(n - m). The radius rho = (j + 1/2) / (n - j + 1/2) puts the mode of
Binomial(n, rho / (1 + rho)) at j: as q <= 1, every term is then at most
1 / P(Binomial = j) <= n + 1 times f_j's scale, so f_j is exact to a few ulps times n
(no cancellation of terms of the size of 2^n, as on the unit circle). The points are
placed off the real axis (no factor vanishes) and come in conjugate pairs (half of
them are summed). For n above ~22 the transform uses fewer points than n + 1: the
coefficients j +- N it then also picks up weigh at most
(n + 1) 2 exp(-2 (N - 1)^2 / n) <= 1e-17 (Hoeffding's bound on the binomial).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import SLICES_BY_MANY_OFFSETS
from polars_rank.metrics._let import Get, let

if TYPE_CHECKING:
    from polars_rank._engine.expected import Expected

__all__ = ["expected_err"]

_ALIAS_LOG = 41.0  # ln(2e17): the aliased coefficients weigh at most 1e-17


def _expand(values: pl.Expr, counts: pl.Expr) -> pl.Expr:
    """Each value repeated ``counts`` times (a count <= 0: none)."""
    return values.repeat_by(counts.clip(lower_bound=0)).explode()


def _segment_sums(values: pl.Expr, lengths: pl.Expr) -> pl.Expr:
    """Sums of consecutive runs of ``values`` of the given lengths (one per length).

    A window (``over``) needs keys of the frame's length; slicing the imploded
    column is exact (a sum per run, not differences of a running sum).
    """
    return _runs(values, lengths).list.sum().head(lengths.len())


def _segment_cum_sums(values: pl.Expr, lengths: pl.Expr) -> pl.Expr:
    """Running sums within consecutive runs of ``values``, aligned with them."""
    return _runs(values, lengths).list.eval(pl.element().cum_sum()).explode()


def _runs(values: pl.Expr, lengths: pl.Expr) -> pl.Expr:
    """The runs as lists, and an empty one more (slicing needs at least one run)."""
    ends = lengths.append(pl.lit(0, pl.Int64))
    return values.implode().list.slice(ends.cum_sum() - ends, ends)


def _points(n: pl.Expr) -> pl.Expr:
    """N, even: n + 1 or more (exact), or the Hoeffding bound when that is smaller."""
    nf = n.cast(pl.Float64)
    bound = 2.0 + (0.5 * nf * ((nf + 1.0).log() + _ALIAS_LOG)).sqrt()
    count = pl.min_horizontal(nf + 1.0, bound.ceil())
    return (2.0 * (count / 2.0).ceil()).cast(pl.Int64)


def _log_modulus_and_argument(a: pl.Expr, theta: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """The log of |1 + a e^(i theta)| and its argument, a >= 0 (theta is never pi)."""
    re = 1.0 + a * theta.cos()
    im = a * theta.sin()
    return 0.5 * (re * re + im * im).log(), pl.arctan2(im, re)


POLARS_1_ERR = (f"err under ties='expected' needs Polars 2 or later (installed: Polars "
                f"{pl.__version__}, whose list.slice cuts a list at one offset only); "
                "upgrade Polars, or use ties='first', 'optimistic' or 'pessimistic'")
"""Why ERR's spec leaves out ``ties="expected"`` on Polars 1.x."""


def _int(value: pl.Expr) -> pl.Expr:
    return value.cast(pl.Int64)


def expected_err(r: Expected, k: int | None, max_grade: float) -> pl.Expr:
    """E[ERR@k] over the orders of every tie group (see the module docstring)."""
    if not SLICES_BY_MANY_OFFSETS:
        raise NotImplementedError(POLARS_1_ERR)
    lo, hi = r.bounds()
    n_ret = r.n_retrieved().cast(pl.Int64)
    limit = n_ret if k is None else pl.min_horizontal(n_ret, pl.lit(k, pl.Int64))
    stop = (pl.lit(2.0).pow(r.gains()) - 1.0) / 2.0 ** float(max_grade)
    gaining = (stop > 0) & lo.is_not_null() & (lo <= limit)
    return let(_by_group, lo=lo.filter(gaining), hi=hi.filter(gaining),
                q=(1.0 - stop).filter(gaining), limit=limit)


def _by_group(get: Get) -> pl.Expr:
    """The gaining rows within the cutoff (R > 0), by tie group (first rank)."""
    lo = get("lo")
    groups = lo.sort()
    return let(_groups, first=groups.unique(maintain_order=True),
                m=groups.unique_counts(),  # gaining rows per group
                # by q within a group too: its product is then taken in one order,
                # whatever the rows' (the same bits for any row order)
                q=get("q").sort_by([lo, get("q")]), hi=get("hi").sort_by(lo),
                limit=get("limit"))


def _groups(get: Get) -> pl.Expr:
    """One row per group: m gaining rows from ``start`` in q, n rows, b ranks above."""
    m, first, q = get("m"), get("first"), get("q")
    start = _int(m.cum_sum() - m)
    b = first - 1.0
    above = q.cum_prod().shift(1, fill_value=1.0).gather(start)  # P
    n = get("hi").gather(start) - b
    return let(_slots, m=m, start=start, n=n, b=b, above=above, q=q,
                slots=pl.min_horizontal(n, get("limit") - b))  # J: slots within k


def _slots(get: Get) -> pl.Expr:
    """One row per (group, slot j)."""
    slots, above, b = _int(get("slots")), get("above"), get("b")
    group = _expand(pl.int_range(0, slots.len(), dtype=pl.Int64), slots)
    return let(_slot_terms, group=group, slots=slots, q=get("q"),
                entered=(above / (b + 1.0)).sum(),
                j=pl.int_ranges(1, slots.clip(lower_bound=0) + 1, dtype=pl.Int64).explode(),
                n=get("n").gather(group), m=get("m").gather(group),
                start=get("start").gather(group), b=b.gather(group),
                last=slots.gather(group), above=above.gather(group))


def _slot_terms(get: Get) -> pl.Expr:
    """The weight of f_j, the radius and scale of its transform, its point count N."""
    j, n, b = get("j"), get("n"), get("b")
    # w_j = 1/((b+j)(b+j+1)), plus 1/(b+J+1) at j = J (arithmetic: a when/then on
    # exploded columns panics in Polars 2.1)
    at_last = (j == get("last")).cast(pl.Float64)
    weight = get("above") * (1.0 + at_last * (b + j)) / ((b + j) * (b + j + 1.0))
    rho = (j + 0.5) / (n - j + 0.5)
    log_choose = _segment_cum_sums(((n - j + 1.0) / j).log(), _int(get("slots")))
    return let(_points_terms, weight=weight, rho=rho, points=_points(n), j=j,
                scale=log_choose + j * rho.log(),  # log (C(n, j) rho^j)
                bulk=n - get("m"),  # rows with q = 1
                m=get("m"), start=get("start"), q=get("q"), entered=get("entered"))


def _points_terms(get: Get) -> pl.Expr:
    """One row per (group, slot j, point s): the factors with q = 1."""
    points = _int(get("points"))
    half = points // 2
    pair = _expand(pl.int_range(0, half.len(), dtype=pl.Int64), half)
    s = pl.int_ranges(0, half, dtype=pl.Int64).explode().cast(pl.Float64)
    theta = math.pi * (2.0 * s + 1.0) / points.gather(pair).cast(pl.Float64)
    rho = get("rho").gather(pair)
    bulk_mod, bulk_arg = _log_modulus_and_argument(rho, theta)
    bulk = get("bulk").gather(pair)
    return let(_rows_terms, theta=theta, rho=rho, q=get("q"), half=half,
                base_mod=bulk * bulk_mod - get("scale").gather(pair),
                base_arg=bulk * bulk_arg - get("j").gather(pair) * theta,
                m=get("m").gather(pair), start=get("start").gather(pair),
                weight=get("weight"), points=points, entered=get("entered"))


def _rows_terms(get: Get) -> pl.Expr:
    """One row per (group, slot j, point s, gaining row): the log of prod (1 + q z_s)."""
    m, start = _int(get("m")), _int(get("start"))
    row = pl.int_ranges(start, start + m, dtype=pl.Int64).explode()
    mod, arg = _log_modulus_and_argument(get("q").gather(row) * _expand(get("rho"), m),
                                         _expand(get("theta"), m))
    log_mod = _segment_sums(mod, m) + get("base_mod")
    angle = _segment_sums(arg, m) + get("base_arg")
    term = log_mod.exp() * angle.cos()
    f = 2.0 * _segment_sums(term, _int(get("half"))) / get("points")  # f_j
    return get("entered").first() - (get("weight") * f).sum()
