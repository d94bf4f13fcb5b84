"""YAAP: average precision on a log-odds scale (Robertson's smoothed AP, trec_eval's ``yaap``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import (
    UNSET,
    Ties,
    check_threshold,
)
from polars_rank._engine.ranked import Ranked, cutoff
from polars_rank._language.metric_spec import (
    NO_EXPECTED,
    THRESHOLD,
    MetricSpec,
)
from polars_rank._language.naming import metric
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

from polars_rank.metrics._precision_sum import precision_sum

__all__ = ["yaap"]


def yaap_value(r: Ranked, k: int | None = None, threshold: float = 1) -> pl.Expr:
    """YAAP@k of a ranked list (validated parameters): ln((1 + S) / (1 + R - S)).

    S is :func:`precision_sum`; 1 + R - S >= 1, since each of its terms is at most 1
    and there are at most R of them, so the logarithm is always defined. m_yaap.c
    computes ``log((1.0 + sum) / (1.0 + (double) num_rel - sum))``, and so does this.
    """
    total = precision_sum(r, k, threshold)
    return ((1.0 + total) / (1.0 + r.n_relevant(threshold) - total)).log()


def _yaap_stand_in(relevant: pl.Expr, _: Mapping[str, Any]) -> pl.Expr:
    """Yaap of a query the run lacks, under ``missing="zero"``: trec_eval's, not 0."""
    # m_yaap.c: ln((1 + S) / (1 + R - S)), S = 0
    out: pl.Expr = ((1.0 + 0.0) / (1.0 + relevant - 0.0)).log()
    return out


YAAP = MetricSpec(
    "yaap",
    aliases=("yet_another_average_precision",),
    options=(THRESHOLD,),
    trec_eval="yaap",
    summary="ln((1 + S) / (1 + R - S)), S = R x AP: AP smoothed",
    paper="Robertson, ECIR 2012",
    ties=NO_EXPECTED,
    ties_note="yaap has no closed form under ties='expected' (the logarithm of a ratio of "
              "the precision sum, not a sum over ranks)",
    absent=_yaap_stand_in,
    empty_value=True,
)
"""``yaap``'s spec: its own value for an empty list and for a query the run lacks."""


@shared_parameters
@metric(YAAP)
def yaap(
    rel: IntoExpr,
    k: int | None = None,
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
    r"""Yet another average precision (YAAP): AP smoothed on a log-odds scale, trec_eval's ``yaap``.

    .. math:: \mathrm{YAAP@k} = \ln \frac{1 + S}{1 + R - S}, \qquad
              S = \sum_{r \le k,\ l_r \ge t} \mathrm{P@r} = R \cdot \mathrm{AP@k}

    S is the sum of the precisions at the relevant ranks (AP before its division by R,
    the number of relevant rows, retrieved or not). YAAP grows with AP on one query
    (R fixed) but spreads its extremes, so that a mean over queries is less dominated
    by the queries scoring near 0 or 1: Robertson's smoothed AP, "On Smoothing
    Average Precision", ECIR 2012 (LNCS 7224, pp. 158-169), as trec_eval 10 computes
    it (m_yaap.c). 0 for a list without relevant rows; ln(1 / (1 + R)) when none is
    retrieved, the value ``missing="zero"`` (``trec_eval -c``) gives a judged query
    the run lacks. Values are in [-ln(1 + R), ln(1 + R)], negative below AP = 1/2.

    Parameters
    ----------
    rel
        Relevance label (null = unjudged, non-relevant).
    k
        Cutoff of the sum S (R counts every relevant row). ``None`` = the whole ranked
        list, as trec_eval's ``yaap``.
    by
        Ranking key(s); null = judged but not retrieved; ``None`` = row order.
    rank
        ...
    doc
        ...
    descending
        ...
    threshold
        ...
    query
        Column(s) identifying a query: the mean over queries.
    ties
        ... The exact mean over tie orders (``"expected"``) has no closed form here:
        asked for by name it raises; as the default (no ``ties``, no ``doc``) it
        becomes ``"pessimistic"``.

    Returns
    -------
    pl.Expr
        Float64; NaN for a list that cannot be scored.

    Examples
    --------
    Relevant, non-relevant, relevant, and one relevant row never retrieved: S = 1 +
    2/3, R = 3.

    >>> import math
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({"rel": [1, 0, 1, 1], "score": [3.0, 2.0, 1.0, None]})
    >>> df.select(pr.yaap("rel", by="score", ties="first"))
    shape: (1, 1)
    ┌──────────┐
    │ yaap     │
    │ ---      │
    │ f64      │
    ╞══════════╡
    │ 0.133531 │
    └──────────┘
    >>> round(math.log((1 + 5 / 3) / (1 + 3 - 5 / 3)), 6)
    0.133531
    """
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(yaap_value(r, cutoff(k), check_threshold(threshold)))
