"""NERR, the C/W/L metrics nearest to ERR (Azzopardi, Mackenzie & Moffat, ICTIR 2021).

ERR's cascade user stops at rank i, satisfied, with probability g_i; ERR is not a
C/W/L metric, but these four are, each continuing with probability C_i built on
1 - g_i (the paper's equations 8 to 11, cwl_eval 1.0.12 ``cwl/ruler/measures/
cwl_nerr.py``; ir_measures 0.4.3's ``NERR8`` .. ``NERR11``). Gains are labels
scaled to [0, 1] by ``min_rel`` / ``max_rel``; the user reads at most 1000 ranks
(:mod:`polars_rank.metrics._cwl`). Each value is sum_i W_i g_i, the expected gain
per document read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties, check_real
from polars_rank._language.metric_spec import NO_EXPECTED, MetricSpec, Option
from polars_rank._language.naming import metric
from polars_rank.metrics._cwl import (
    CWL_NOTE,
    MAX_REL,
    MIN_REL,
    TARGET,
    check_scale,
    check_target,
    nerr8_value,
    nerr9_value,
    nerr10_value,
    nerr11_value,
    required_cutoff,
)
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["nerr8", "nerr9", "nerr10", "nerr11"]


NERR8 = MetricSpec(
    "nerr8",
    ties=NO_EXPECTED,
    ties_note=CWL_NOTE,
    options=(MAX_REL, MIN_REL),
    summary="C/W/L cascade, C_i = 1 - g_i, cut at k",
    paper="Azzopardi, Mackenzie & Moffat, ICTIR 2021",
)
"""``nerr8``'s spec: a C/W/L cascade on a gain scale from min_rel to max_rel."""


@shared_parameters
@metric(NERR8)
def nerr8(
    rel: IntoExpr,
    k: int,
    *,
    max_rel: float,
    min_rel: float = 0,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""NERR, eq. 8, ir_measures' ``NERR8(max_rel=...)@k``: ERR's cascade cut at k.

    .. math:: C_i = 1 - g_i \ (i < k),\quad C_k = 0

    The user goes on past rank i unless satisfied there, and stops at k; the
    weights are renormalised over ranks 1..k, so a list of fewer than k rows is
    read as padded with zero gains (Azzopardi, Mackenzie & Moffat, ICTIR 2021;
    trec_eval has no NERR).

    Parameters
    ----------
    rel
        Graded relevance label (null = unjudged, gain 0).
    k
        Cutoff: the user reads at most k ranks (required, as in ir_measures).
    max_rel
        ...
    min_rel
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
    >>> df = pl.DataFrame({"rel": [2, 0, 3, 1], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.nerr8("rel", 3, max_rel=3, by="score"))
    shape: (1, 1)
    ┌────────────────────┐
    │ nerr8@3(max_rel=3) │
    │ ---                │
    │ f64                │
    ╞════════════════════╡
    │ 0.6                │
    └────────────────────┘
    """
    depth = required_cutoff(k)
    low, high = check_scale(min_rel, max_rel)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(nerr8_value(r, depth, low, high))


NERR9 = MetricSpec(
    "nerr9",
    ties=NO_EXPECTED,
    ties_note=CWL_NOTE,
    options=(MAX_REL, MIN_REL),
    summary="C/W/L cascade, C_i = i/(i+1) (1 - g_i), cut at k",
    paper="Azzopardi, Mackenzie & Moffat, ICTIR 2021",
)
"""``nerr9``'s spec: a C/W/L cascade on a gain scale from min_rel to max_rel."""


@shared_parameters
@metric(NERR9)
def nerr9(
    rel: IntoExpr,
    k: int,
    *,
    max_rel: float,
    min_rel: float = 0,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""NERR, eq. 9, ir_measures' ``NERR9(max_rel=...)@k``: the cascade with a 1/i discount.

    .. math:: C_i = \frac{i}{i + 1} (1 - g_i) \ (i < k),\quad C_k = 0

    Eq. 8 with the discount of reciprocal rank: the weight of rank i is
    proportional to prod_(j<i) (1 - g_j) / i (Azzopardi, Mackenzie & Moffat, ICTIR
    2021; trec_eval has no NERR).

    Parameters
    ----------
    rel
        Graded relevance label (null = unjudged, gain 0).
    k
        Cutoff: the user reads at most k ranks (required, as in ir_measures).
    max_rel
        ...
    min_rel
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
    >>> df = pl.DataFrame({"rel": [2, 0, 3, 1], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.nerr9("rel", 3, max_rel=3, by="score"))
    shape: (1, 1)
    ┌────────────────────┐
    │ nerr9@3(max_rel=3) │
    │ ---                │
    │ f64                │
    ╞════════════════════╡
    │ 0.608696           │
    └────────────────────┘
    """
    depth = required_cutoff(k)
    low, high = check_scale(min_rel, max_rel)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(nerr9_value(r, depth, low, high))


NERR10 = MetricSpec(
    "nerr10",
    ties=NO_EXPECTED,
    ties_note=CWL_NOTE,
    cutoff=False,
    options=(MAX_REL, Option("p", float, 0.9, description="persistence"), MIN_REL),
    summary="C/W/L cascade, C_i = p (1 - g_i)",
    paper="Azzopardi, Mackenzie & Moffat, ICTIR 2021",
)
"""``nerr10``'s spec: a C/W/L cascade on a gain scale from min_rel to max_rel."""


@shared_parameters
@metric(NERR10)
def nerr10(
    rel: IntoExpr,
    *,
    max_rel: float,
    p: float = 0.9,
    min_rel: float = 0,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""NERR, eq. 10, ir_measures' ``NERR10(p=..., max_rel=...)``: the cascade with RBP's patience.

    .. math:: C_i = p\,(1 - g_i)

    The user goes on with probability p unless satisfied; over ranks 1..1000.
    (Azzopardi, Mackenzie & Moffat, ICTIR 2021; trec_eval has no NERR.)

    Parameters
    ----------
    rel
        Graded relevance label (null = unjudged, gain 0).
    max_rel
        ...
    p
        Persistence in (0, 1], as RBP's (ir_measures' default 0.9).
    min_rel
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
    >>> df = pl.DataFrame({"rel": [2, 0, 3, 1], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.nerr10("rel", max_rel=3, by="score"))
    shape: (1, 1)
    ┌───────────────────┐
    │ nerr10(max_rel=3) │
    │ ---               │
    │ f64               │
    ╞═══════════════════╡
    │ 0.596603          │
    └───────────────────┘
    """
    p_checked = check_real(p, "p", low=0, low_open=True, high=1, allowed="in (0, 1]")
    low, high = check_scale(min_rel, max_rel)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(nerr10_value(r, p_checked, low, high))


NERR11 = MetricSpec(
    "nerr11",
    ties=NO_EXPECTED,
    ties_note=CWL_NOTE,
    cutoff=False,
    options=(MAX_REL, TARGET, MIN_REL),
    summary="C/W/L cascade with INSQ's goal T",
    paper="Azzopardi, Mackenzie & Moffat, ICTIR 2021",
)
"""``nerr11``'s spec: a C/W/L cascade on a gain scale from min_rel to max_rel."""


@shared_parameters
@metric(NERR11)
def nerr11(
    rel: IntoExpr,
    *,
    max_rel: float,
    target: float = 1.0,
    min_rel: float = 0,
    by: By | Unset = UNSET,
    rank: Rank = None,
    doc: IntoExpr | None = None,
    descending: bool | Sequence[bool] = True,
    query: Query = None,
    ties: Ties | None = None,
    **unjudged: Unpack[UnjudgedOptions],
) -> pl.Expr:
    r"""NERR, eq. 11, ir_measures' ``NERR11(T=..., max_rel=...)``: the cascade with INSQ's goal.

    .. math:: C_i = \left(\frac{i + 2T - 1}{i + 2T}\right)^2 (1 - g_i)

    INSQ's continuation (goal T) times the chance of not being satisfied yet;
    over ranks 1..1000 (Azzopardi, Mackenzie & Moffat, ICTIR 2021; trec_eval has
    no NERR).

    Parameters
    ----------
    rel
        Graded relevance label (null = unjudged, gain 0).
    max_rel
        ...
    target
        ...
    min_rel
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
    >>> df = pl.DataFrame({"rel": [2, 0, 3, 1], "score": [4.0, 3.0, 2.0, 1.0]})
    >>> df.select(pr.nerr11("rel", max_rel=3, by="score"))
    shape: (1, 1)
    ┌───────────────────┐
    │ nerr11(max_rel=3) │
    │ ---               │
    │ f64               │
    ╞═══════════════════╡
    │ 0.609023          │
    └───────────────────┘
    """
    target_checked = check_target(target)
    low, high = check_scale(min_rel, max_rel)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(nerr11_value(r, target_checked, low, high))
