"""Metrics of a judgment pool: inferred AP, judged@k and trec_eval's relstring.

trec_eval tells three states of a retrieved document apart (form_res_rels.c,
trec_eval 10.0): *judged* (a label >= 0), *in the pool but not judged* (a qrels line
with a negative label: a pool sampled for judging, as for infAP) and *not in the
pool* (no qrels line). A null label is unjudged; ``pooled=`` says which unjudged rows
are in the pool (:func:`polars_rank.evaluate` passes it from the qrels, which keep a
negative label's line as a row with a null label). Without ``pooled``, every unjudged
row is taken as not pooled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum, safe_div
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_threshold, to_expr
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._engine.terms import count
from polars_rank._language.metric_spec import NO_EXPECTED, THRESHOLD, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters
from polars_rank.metrics.incomplete import check_unjudged_order

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["infap", "judged", "relstring"]

INFAP_EPSILON = 0.00001
"""trec_eval.h:239: keeps infAP's estimate of the precision above a rank defined."""


def in_pool(r: Ranked, pooled: IntoExpr | None) -> pl.Expr:
    """True on unjudged rows in the pool (null label, ``pooled`` true)."""
    flag = pl.lit(False) if pooled is None else to_expr(pooled, "pooled")
    return r.labels.is_null() & flag.cast(pl.Boolean).fill_null(False)


def infap_value(r: Ranked, pooled: IntoExpr | None = None, threshold: float = 1) -> pl.Expr:
    """The infAP of a ranked list, term for term as m_infap.c (validated parameters)."""
    relevant = r.relevant(threshold)
    non_relevant = (r.labels < threshold).fill_null(False).cast(pl.Float64)  # judged only
    unjudged = in_pool(r, pooled).cast(pl.Float64)
    ranked = [r.ordered(values) for values in (relevant, non_relevant, unjudged)]
    rel_above, non_above, unj_above = (values.cum_sum() - values for values in ranked)
    j = r.positions().cast(pl.Float64) - 1.0  # trec_eval's 0-based rank
    # m_infap.c:78: 1/(j+1) + j/(j+1) * (pooled above / j) * (relevant among judged above)
    term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_above + non_above + unj_above) / j)
            * ((rel_above + INFAP_EPSILON) / (rel_above + non_above + 2 * INFAP_EPSILON)))
    hit = r.retrieved() & (ranked[0] > 0)
    contrib = pl.when(hit & (j == 0)).then(1.0).when(hit).then(term).otherwise(0.0)
    return safe_div(group_sum(contrib), r.n_relevant(threshold))


def judged_value(r: Ranked, k: int | None = None, pooled: IntoExpr | None = None) -> pl.Expr:
    """Rows of the top k with a qrels line (judged or pooled), over min(k, retrieved)."""
    check_unjudged_order(r.ties, "judged")
    with_line = (r.labels.is_not_null() | in_pool(r, pooled)).cast(pl.Float64)
    found = r.rank_sum(with_line, k, term_sum=count)
    shown = r.n_retrieved() if k is None else pl.min_horizontal(r.n_retrieved(), pl.lit(k))
    return safe_div(found, shown.cast(pl.Float64))


def relstring_value(r: Ranked, k: int | None = 10, pooled: IntoExpr | None = None) -> pl.Expr:
    """The labels of the top k as one character each, as m_relstring.c prints them.

    A rank no row holds (positions mode: an unjudged row left out) is not in the pool.
    """
    check_unjudged_order(r.ties, "relstring")
    grade = r.labels.floor()  # trec_eval reads labels as integers
    char = (
        pl.when(in_pool(r, pooled)).then(pl.lit("."))
        .when(r.labels.is_null()).then(pl.lit("-"))
        .when(grade > 9).then(pl.lit(">"))
        # not strict: Polars 1.36 casts every row before choosing, NaN and inf too (such
        # a list is unscorable and comes out null)
        .otherwise(grade.cast(pl.Int64, strict=False).cast(pl.String))
    )
    position = r.positions(k)
    gap = position - position.shift(1, fill_value=0)  # 1 + the ranks skipped before
    piece = pl.when(r.retrieved(k)).then(r.ordered(char, k).str.pad_start(gap, "-"))
    n = r.n_retrieved() if k is None else pl.min_horizontal(r.n_retrieved(), pl.lit(k))
    return piece.str.join("").str.pad_end(n, "-")


INFAP = MetricSpec(
    "infap",
    aliases=("inferred_ap",),
    cutoff=False,
    options=(THRESHOLD,),
    trec_eval="infAP",
    reads_pool=True,
    ties=NO_EXPECTED,
    ties_note="infap has no closed form under ties='expected' (each relevant row's term "
              "multiplies counts of the rows above it, so it is not linear in the ranks)",
    summary="AP estimated from a sampled pool (pooled unjudged rows skipped)",
    paper="Yilmaz & Aslam, CIKM 2006",
)
"""infAP's spec: it reads the pool (``pooled=``), as trec_eval's ``infAP``."""


@shared_parameters
@metric(INFAP)
def infap(
    rel: IntoExpr,
    *,
    pooled: IntoExpr | None = None,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    threshold: float = 1,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Inferred average precision (Yilmaz & Aslam, CIKM 2006), trec_eval's ``infAP``.

    .. math:: \frac{1}{R} \sum_{\text{relevant retrieved at } j + 1}
              \Big(\frac{1}{j + 1} + \frac{j}{j + 1} \cdot \frac{p_j}{j} \cdot
              \frac{r_j + \epsilon}{r_j + n_j + 2 \epsilon}\Big)

    AP for a judgment pool of which only a random sample was judged: at a relevant
    row at 0-based rank j (the term is 1 at j = 0), :math:`p_j` rows above it are in
    the pool (judged, or pooled but not judged), :math:`r_j` of the judged ones are
    relevant and :math:`n_j` not; :math:`\epsilon = 10^{-5}`. Rows not in the pool
    count as non-relevant; pooled unjudged rows count as relevant in the share the
    judged ones are. Without pooled unjudged rows it is AP (trec_eval 10.0,
    m_infap.c; ir_measures' ``infAP``). 0 when R = 0.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged).
    pooled
        ...
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
        ``"first"``, ``"trec_eval"``, ``"optimistic"`` or ``"pessimistic"``;
        ``"expected"`` raises NotImplementedError: infAP has no closed form for it.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 1, None, 0, 1], "pooled": True,
    ...                    "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> df.select(  # the pooled row at rank 3 counts as relevant in 2 of 3 (AP: 13/15)
    ...     pr.infap("rel", pooled="pooled", by="score"),
    ...     pr.map("rel", by="score"),
    ... )
    shape: (1, 2)
    ┌──────────┬──────────┐
    │ infap    ┆ map      │
    │ ---      ┆ ---      │
    │ f64      ┆ f64      │
    ╞══════════╪══════════╡
    │ 0.911109 ┆ 0.866667 │
    └──────────┴──────────┘
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(infap_value(r, pooled, check_threshold(threshold)))


JUDGED = MetricSpec(
    "judged",
    of_unjudged=True,
    reads_pool=True,
    summary="rows of the top k with a qrels line / min(k, retrieved)",
    paper="Sakai, SIGIR 2007 (ir_measures' Judged@k)",
)
"""``judged``'s spec: a metric of the unjudged rows, reading the pool (``pooled=``)."""


@shared_parameters
@metric(JUDGED)
def judged(
    rel: IntoExpr,
    k: int | None = None,
    *,
    pooled: IntoExpr | None = None,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Judgment rate at k: the share of the top k that has a qrels line, ir_measures' ``Judged@k``.

    .. math:: \frac{|\{r \le \min(k, n) : d_r \text{ judged or pooled}\}|}{\min(k, n)}

    with n the rows retrieved. A row counts when it is judged (a label) or in the pool
    (``pooled``: a qrels line with a negative label counts, as in ir_measures, whose
    qrels hold it). Unlike trec_eval's ``unj.k`` (:func:`unjudged`), a list shorter
    than k is not filled up: its denominator is its length. 0 for an empty list
    (ir_measures 0.4, judged_provider.py; Sakai, SIGIR 2007).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged).
    k
        Cutoff. ``None`` = the whole ranked list.
    pooled
        ...
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
    >>> df.select(pr.judged("rel", 10, by="score"))  # 2 of the 4 retrieved
    shape: (1, 1)
    ┌───────────┐
    │ judged@10 │
    │ ---       │
    │ f64       │
    ╞═══════════╡
    │ 0.5       │
    └───────────┘
    """
    depth = cutoff(k)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(judged_value(r, depth, pooled))


RELSTRING = MetricSpec(
    "relstring",
    trec_eval="relstring.k (per query)",
    of_unjudged=True,
    ties=NO_EXPECTED,
    ties_note="relstring shows one order of the list, which ties='expected' (the default "
              "without doc=) does not choose; give doc= (trec_eval's order) or "
              "ties='first' (the row order)",
    reads_pool=True,
    over_queries="none",
    summary="the labels of the top k as a string (. pooled, - not)",
    paper="trec_eval (NIST, 2006)",
    trec_cut=("relstring",),
)
"""``relstring``'s spec: a string per query, no mean (over_queries="none"); trec_eval's
``relstring_k``."""


@shared_parameters
@metric(RELSTRING)
def relstring(
    rel: IntoExpr,
    k: int | None = 10,
    *,
    pooled: IntoExpr | None = None,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""The labels of the top k as a string, trec_eval's ``relstring.k``.

    .. math:: c(l_1)\,c(l_2) \cdots c(l_{\min(k, n)}),\quad c(l) = \lfloor l \rfloor
              \ (0 \le l < 10),\ \texttt{>}\ (l \ge 10),\ \texttt{.}\ (\text{pooled}),
              \ \texttt{-}\ (\text{not pooled})

    One character per retrieved rank within k (n rows retrieved): the label when it
    is 0 to 9 (labels are read as integers, as trec_eval does), ``>`` above 9, ``.``
    for a row in the pool but not judged and ``-`` for one not in the pool (a null
    label without ``pooled``). A list shorter than k gives a shorter string
    (Buckley, trec_eval, NIST, 2008; trec_eval 10.0, m_relstring.c). A string is not
    averaged: there is no ``query=``, and :func:`polars_rank.evaluate` gives it per
    query only (null over queries).

    Parameters
    ----------
    rel
        Relevance label (null = unjudged).
    k
        Cutoff (trec_eval's default 10). ``None`` = the whole ranked list.
    pooled
        ...
    by
        ...
    rank
        ...
    doc
        ...
    descending
        ...
    query
        Not allowed: a string has no mean over queries (compute it per query, in a
        ``group_by`` or ``over``); given, it raises ValueError.
    ties
        ``"first"`` or ``"trec_eval"`` (the default with ``doc``): one order of the
        list. ``"expected"`` (the default without ``doc``) raises NotImplementedError
        and ``"optimistic"`` / ``"pessimistic"`` ValueError: they leave the order of
        the unjudged rows among ties open.

    Returns
    -------
    pl.Expr
        String; null for a list that cannot be scored.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [2, None, 0, None, 12], "pooled": [True, True, True,
    ...                    False, True], "score": [5.0, 4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.relstring("rel", pooled="pooled", by="score", ties="first"))
    shape: (1, 1)
    ┌──────────────┐
    │ relstring@10 │
    │ ---          │
    │ str          │
    ╞══════════════╡
    │ 2.0->        │
    └──────────────┘
    """
    if query is not None:
        msg = ("relstring is a string per list and has no mean over queries: compute it "
               "per query (group_by(query).agg(...) or .over(query)), without query=")
        raise ValueError(msg)
    depth = cutoff(k)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=None, rank=rank,
                    doc=doc)
    value = relstring_value(r, depth, pooled)
    return pl.when(r.bad()).then(pl.lit(None, pl.String)).otherwise(value)
