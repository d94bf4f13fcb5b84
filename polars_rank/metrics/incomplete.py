"""Metrics for incomplete judgments: bpref (and its geometric mean), unjudged@k.

bpref reads the judged non-relevant rows apart from the unjudged ones, so a ranking is
not penalised for retrieving documents nobody judged (Buckley & Voorhees, SIGIR 2004);
unjudged@k says how much of the top k nobody judged.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import per_list, safe_div
from polars_rank._engine.expected import Expected
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_threshold
from polars_rank._engine.ranked import Ranked, cutoff, order_free_sum
from polars_rank._engine.terms import count
from polars_rank._language.metric_spec import THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics._let import Get, let

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["bpref", "gm_bpref", "unjudged"]


@functools.singledispatch
def bpref_value(r: Ranked, threshold: float = 1) -> pl.Expr:
    """Bpref of a ranked list (validated parameters)."""
    non_relevant = (r.labels < threshold).fill_null(False).cast(pl.Float64)  # judged only
    n_rel, n_non = r.n_relevant(threshold), non_relevant.sum()
    ranked_rel = r.ordered(r.relevant(threshold))
    ranked_non = r.ordered(non_relevant)
    above = ranked_non.cum_sum() - ranked_non  # judged non-relevant ranked above
    # the whole as a column: Polars divides a column by a list's scalar through its
    # reciprocal, one bit off m_bpref.c's quotient at times
    whole = pl.min_horizontal(n_rel, n_non) + above * 0.0
    penalty = pl.when(above > 0).then(  # 0 without relevant rows (n_rel = 0)
        safe_div(pl.min_horizontal(above, n_rel), whole)
    ).otherwise(0.0)
    contrib = pl.when(r.retrieved()).then(ranked_rel * (1.0 - penalty)).otherwise(0.0)
    # added in rank order, as m_bpref.c adds them (a sum in another order can move the
    # last bit, and a printed digit at a half unit)
    return safe_div(contrib.cum_sum().last().fill_null(0.0), n_rel)


@bpref_value.register(Expected)
def _expected_bpref(r: Expected, threshold: float = 1) -> pl.Expr:
    r"""Bpref under ``ties="expected"``: the exact mean over the orders of the tied rows.

    The approach is McSherry & Najork's (ECIR 2008). Bpref sums a term per relevant
    retrieved row, linear in min(n_r, R) (trec_eval 10.0, m_bpref.c; n_r = 0 gives
    the same 1), so by linearity of expectation each relevant row needs
    E[min(n_r, R)]. n_r = a + W: a judged non-relevant rows rank in the groups above
    (the same in every order), and W of the z in its own tie group come before it.
    Every relative order of the row and those z being equally likely (unjudged and
    other relevant rows do not count), W is uniform on 0..z, so with
    S(x) = sum_(v=0..x) min(v, R) = m (m + 1) / 2 + (x - m) R, m = min(x, R):

    .. math:: E[\min(a + W, R)] = \frac{S(a + z) - S(a - 1)}{z + 1}

    which is not min(E[n_r], R) (the cap of the mean).
    """
    lo = r.bounds()[0]
    non_relevant = (r.labels < threshold).fill_null(False)  # judged only
    n_rel = r.n_relevant(threshold)
    n_non = non_relevant.cast(pl.Float64).sum()
    others = lo.filter(non_relevant & lo.is_not_null()).sort()
    group = lo.filter((r.relevant(threshold) > 0) & lo.is_not_null())
    # a - 1 and a + z, bound once (in a group_by every use of a name evaluates it)
    return let(_expected_bpref_terms, n_rel=n_rel, n_non=n_non,
               before=others.search_sorted(group, side="left").cast(pl.Float64) - 1.0,
               through=others.search_sorted(group, side="right"))


def _expected_bpref_terms(get: Get) -> pl.Expr:
    n_rel, before, through = get("n_rel"), get("before"), get("through")

    def capped_sum(x: pl.Expr) -> pl.Expr:  # S(x)
        m = x.clip(upper_bound=n_rel)
        return m * (m + 1.0) / 2.0 + (x - m) * n_rel

    capped = (capped_sum(through) - capped_sum(before)) / (through - before)
    penalty = safe_div(capped, pl.min_horizontal(n_rel, get("n_non")))
    return safe_div(order_free_sum(1.0 - penalty), n_rel)


BPREF = MetricSpec(
    "bpref",
    cutoff=False,
    options=(THRESHOLD,),
    trec_eval="bpref",
    summary="preference of judged relevant over non-relevant",
    paper="Buckley & Voorhees, SIGIR 2004",
)
"""bpref's spec: judged rows only (unjudged rows are skipped, not non-relevant)."""


@shared_parameters
@metric(BPREF)
def bpref(
    rel: IntoExpr,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Binary preference (Buckley & Voorhees, SIGIR 2004), exactly as trec_eval's ``bpref``.

    .. math:: \mathrm{bpref} = \frac{1}{R} \sum_{\text{relevant retrieved } r}
              \left(1 - \frac{\min(n_r, R)}{\min(R, N)}\right)

    where :math:`n_r` is the number of *judged* non-relevant rows ranked above r and
    N the number of judged non-relevant rows of the list (retrieved or not).
    Unjudged rows (null label) are ignored entirely. 0 when R = 0.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged: neither relevant nor judged non-relevant).
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        ...
    doc
        ...
    descending
        ...
    threshold
        Labels >= threshold are relevant; judged labels below it are non-relevant.
    query
        ...
    ties
        ``"first"`` (input order), ``"optimistic"`` or ``"pessimistic"`` (relevant rows
        first / last among ties), or ``"expected"``: the exact mean over every order
        of the tied rows (McSherry & Najork, ECIR 2008), E[min(n_r, R)] per relevant
        row in closed form.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [0, 1, None, 1, 0], "score": [5, 4, 3, 2, None]})
    >>> df.select(pr.bpref("rel", by="score"))  # (1 - 1/2 + 1 - 1/2) / 2
    shape: (1, 1)
    ┌───────┐
    │ bpref │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.5   │
    └───────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(bpref_value(r, check_threshold(threshold)))


UNJUDGED_ORDER = ("optimistic", "pessimistic")
"""Tie policies that order only relevant rows: where unjudged rows fall among tied
non-relevant ones is left open, so metrics of the unjudged rows are undefined there."""


def check_unjudged_order(ties: str, metric: str) -> None:
    """Raise for a metric of the unjudged rows under a tie policy that leaves them open."""
    if ties in UNJUDGED_ORDER:
        msg = (f"{metric} depends on where unjudged rows fall among ties, which "
               f"ties={ties!r} leaves open (it orders relevant rows only); use 'first', "
               "'trec_eval' or 'expected'")
        raise ValueError(msg)


def unjudged_value(r: Ranked, k: int) -> pl.Expr:
    """Retrieved rows within k without a label, over k."""
    check_unjudged_order(r.ties, "unjudged")
    judged = r.rank_sum(r.labels.is_not_null().cast(pl.Float64), k, term_sum=count)
    shown = pl.min_horizontal(r.n_retrieved(), pl.lit(k)).cast(pl.Float64)
    return safe_div(shown - judged, per_list(k))


GM_BPREF = MetricSpec(
    "gm_bpref",
    cutoff=False,
    options=(THRESHOLD,),
    trec_eval="gm_bpref",
    summary="bpref, geometric mean over queries",
    paper="Buckley & Voorhees, SIGIR 2004",
    over_queries="geometric",
)
"""``gm_bpref``'s spec: bpref's geometric mean over queries, declared once."""


@shared_parameters
@metric(GM_BPREF)
def gm_bpref(
    rel: IntoExpr,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Bpref with a geometric mean over queries, trec_eval's ``gm_bpref``.

    .. math:: \exp\Big(\frac{1}{|Q|} \sum_q \ln \max(\mathrm{bpref}_q, 10^{-5})\Big)

    Per list it is :func:`bpref`; with ``query=`` the values are floored at 1e-5 and
    averaged geometrically, as trec_eval does (Buckley & Voorhees, SIGIR 2004).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged).
    by
        ...
    rank
        ...
    doc
        ...
    descending
        ...
    threshold
        ...
    query
        ...
    ties
        ...

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"q": [1, 1, 2, 2], "rel": [1, 0, 0, 1], "score": [2.0, 1.0] * 2})
    >>> df.select(pr.gm_bpref("rel", by="score", query="q"))  # sqrt(1 x 1e-5)
    shape: (1, 1)
    ┌──────────┐
    │ gm_bpref │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.003162 │
    └──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(bpref_value(r, check_threshold(threshold)), summary=GM_BPREF.over_queries)


UNJ = MetricSpec(
    "unj",
    aliases=("unjudged",),
    trec_eval="unj.k",
    of_unjudged=True,
    summary="unjudged rows in the top k / k",
    paper="Sakai, SIGIR 2007",
    trec_cut=("unj",),
)
"""``unj``'s spec: a metric of the unjudged rows; trec_eval's ``unj_k``."""


@shared_parameters
@metric(UNJ)
def unjudged(
    rel: IntoExpr,
    k: int = 10,
    *,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Unjudged rows in the top k, over k: trec_eval's ``unj.k``.

    .. math:: \frac{|\{r \le k : l_r \text{ unjudged}\}|}{k}

    The share of the top k nobody judged (null label); missing ranks count as judged,
    the denominator is k. ir_measures' ``Judged@k`` is 1 minus this when k rows were
    retrieved (trec_eval 10.0, m_unjudged.c; Sakai, SIGIR 2007).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged).
    k
        Cutoff.
    by
        ...
    rank
        ...
    doc
        ...
    descending
        ...
    query
        ...
    ties
        ...

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, None, 0, None], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.unjudged("rel", 5, by="score"))  # 2 of 5
    shape: (1, 1)
    ┌───────┐
    │ unj@5 │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.4   │
    └───────┘
    """
    depth = cutoff(k)
    if depth is None:
        msg = "unjudged needs a cutoff k (a positive int)"
        raise ValueError(msg)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(unjudged_value(r, depth))
