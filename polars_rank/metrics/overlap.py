"""Compatibility: rank-biased overlap between the ranking and an ideal ranking.

Clarke, Vtyurina & Smucker, "Assessing Top-k Preferences", TOIS 2021; ir_measures
0.4.3's ``Compat`` (``providers/compat_provider.py``, the authors' code).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum, safe_div
from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_real
from polars_rank._language.metric_spec import NO_EXPECTED, MetricSpec, Option
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._engine.ranked import Ranked
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["compat"]


def compat_value(r: Ranked, p: float, normalize: bool) -> pl.Expr:
    """RBO of the ranking with the ideal one, over depths 1..D, D = max(n, |ideal|).

    RBO = sum_i w_i |A_i & B_i| / i over sum_i w_i, w_i = p^(i-1), A_i and B_i the
    top i of the ranking and of the ideal. A document in both lists, at ranks a and
    b, is in A_i & B_i for every i >= max(a, b), so it adds
    T(m) = sum_(i=m..D) p^(i-1) / i, read from prefix sums over 1..D.
    """
    label = r.ordered(r.gains())  # rank order: retrieved rows first, then the others
    shown = pl.when(r.retrieved()).then(r.positions())
    # the ideal: labels > 0, best first, ties in the ranking's order
    ideal = pl.when(label > 0).then(label.rank("ordinal", descending=True))
    both = shown.is_not_null() & ideal.is_not_null()
    deeper = pl.max_horizontal(shown, ideal.cast(pl.Int64)).filter(both)
    n_ideal = (r.gains() > 0).sum().cast(pl.Int64)  # before the sort (Ranked.ordered)
    depth = pl.max_horizontal(r.n_retrieved().cast(pl.Int64), n_ideal)
    ranks = pl.int_range(1, depth + 1, dtype=pl.Int64).cast(pl.Float64)
    weights = pl.lit(p).pow(ranks - 1.0)
    prefix = pl.lit(0.0).append((weights / ranks).cum_sum())  # [F(0), F(1), ..., F(D)]
    total = prefix.last()
    found = group_sum(total - prefix.gather(deeper - 1))
    if normalize:  # over the ideal's own overlap, sum_(j <= |ideal|) T(j)
        best = n_ideal.cast(pl.Float64) * total - group_sum(prefix.head(n_ideal))
        return safe_div(found, best)
    return safe_div(found, group_sum(weights))


COMPAT = MetricSpec(
    "compat",
    cutoff=False,
    options=(
        Option("p", float, 0.95, description="persistence"),
        Option("normalize", bool, True, description="over the ideal's own"),
    ),
    summary="rank-biased overlap with the ideal ranking",
    ties=NO_EXPECTED,
    ties_note="compat has no closed form under ties='expected' (an overlap of two rankings)",
    paper="Clarke, Vtyurina & Smucker, TOIS 2021",
)
"""``compat``'s spec: rank-biased overlap with the ideal, no cutoff."""


@shared_parameters
@metric(COMPAT)
def compat(
    rel: IntoExpr,
    *,
    p: float = 0.95,
    normalize: bool = True,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""Compatibility, ir_measures' ``Compat(p=...)``: overlap with an ideal ranking.

    .. math:: \mathrm{RBO}(A, B) = \frac{\sum_{i=1}^{D} p^{i-1} |A_{:i} \cap B_{:i}| / i}
        {\sum_{i=1}^{D} p^{i-1}}

    the rank-biased overlap of the ranking A with the ideal ranking B (the rows
    labelled above 0, highest label first, equal labels in A's order, the
    unretrieved last), to depth D = max(|A|, |B|); ``normalize=True`` divides by
    RBO(B, B), so a ranking that starts with B scores 1 (Clarke, Vtyurina &
    Smucker, TOIS 2021; ir_measures 0.4.3, ``compat_provider.py``). trec_eval has
    no compatibility measure.

    ir_measures breaks ties in B by the run's scores with 0.0 for the unretrieved
    rows, then by the qrels' order, so with scores at or below 0 an unretrieved row
    can come before a retrieved one there; polars-rank puts retrieved rows first
    whatever their score (equal for positive scores and qrels in the run's order).
    Its ranking A orders equal scores by document id ascending: ``ties="first"`` on
    a run sorted by document id.

    Parameters
    ----------
    rel
        Graded relevance label (null = unjudged, not in the ideal).
    p
        Persistence in (0, 1] (ir_measures' default 0.95).
    normalize
        Divide by the ideal ranking's own overlap.
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
    >>> df = pl.DataFrame({"rel": [2, 0, 3, 1], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.compat("rel", by="score"))
    shape: (1, 1)
    ┌─────────┐
    │ compat  │
    │ ---     │
    │ f64     │
    ╞═════════╡
    │ 0.49197 │
    └─────────┘
    """
    persistence = check_real(p, "p", low=0, low_open=True, high=1, allowed="in (0, 1]")
    if not isinstance(normalize, bool):
        msg = f"normalize must be True or False, got {normalize!r}"
        raise TypeError(msg)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(compat_value(r, persistence, normalize))
