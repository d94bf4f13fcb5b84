"""C/W/L user models with a goal or a budget: SDCG, INST, INSQ and BPM.

ir_measures 0.4.3 computes these with cwl_eval 1.0.12 (its ``cwl_eval`` provider);
so do these functions: gains scaled to [0, 1] by ``min_rel`` / ``max_rel``, a user
who reads at most 1000 ranks (:mod:`polars_rank.metrics._cwl`). Each is the expected
gain per document read, sum_i W_i g_i, for its continuation probabilities C_i.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._engine.lists import ranked_list
from polars_rank._engine.params import UNSET, Ties
from polars_rank._language.metric_spec import NO_EXPECTED, MetricSpec
from polars_rank._language.naming import metric
from polars_rank.metrics._cwl import (
    CWL_NOTE,
    MAX_REL,
    MIN_REL,
    TARGET,
    bpm_value,
    check_scale,
    check_target,
    insq_value,
    inst_value,
    required_cutoff,
    sdcg_value,
)
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Sequence

    import polars as pl
    from typing_extensions import Unpack

    from polars_rank._engine.params import By, IntoExpr, Query, Rank, Unset
    from polars_rank._language.naming import UnjudgedOptions

__all__ = ["sdcg", "inst", "insq", "bpm"]


SDCG = MetricSpec(
    "sdcg",
    ties=NO_EXPECTED,
    ties_note=CWL_NOTE,
    options=(MAX_REL, MIN_REL),
    summary="DCG@k over the DCG of k top-grade rows",
    paper="Järvelin & Kekäläinen, TOIS 2002; Moffat et al., TOIS 2017",
)
"""``sdcg``'s spec: a C/W/L user model on a gain scale from min_rel to max_rel."""


@shared_parameters
@metric(SDCG)
def sdcg(
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
    r"""Scaled DCG at k, ir_measures' ``SDCG(max_rel=...)@k`` (cwl_eval's NDCG-k).

    .. math:: \mathrm{SDCG@k} = \frac{\sum_{r=1}^{k} g_r / \log_2(1 + r)}
        {\sum_{r=1}^{k} 1 / \log_2(1 + r)}

    NDCG whose ideal list holds k documents of the top grade, as if more fully
    relevant documents existed than were judged; g_r is the label scaled to [0, 1].
    The C/W/L form of DCG (C_i = log(i + 1) / log(i + 2) for i < k; cwl_eval
    1.0.12, ``cwl/ruler/measures/cwl_dcg.py``; Järvelin & Kekäläinen, TOIS 2002).
    trec_eval has no SDCG.

    Parameters
    ----------
    rel
        Graded relevance label (null = unjudged, gain 0).
    k
        Cutoff (required, as in ir_measures).
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
    >>> df.select(pr.sdcg("rel", 3, max_rel=3, by="score"))
    shape: (1, 1)
    ┌───────────────────┐
    │ sdcg@3(max_rel=3) │
    │ ---               │
    │ f64               │
    ╞═══════════════════╡
    │ 0.547492          │
    └───────────────────┘
    """
    depth = required_cutoff(k)
    low, high = check_scale(min_rel, max_rel)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(sdcg_value(r, depth, low, high))


INST = MetricSpec(
    "inst",
    ties=NO_EXPECTED,
    ties_note=CWL_NOTE,
    cutoff=False,
    options=(MAX_REL, TARGET, MIN_REL),
    summary="C/W/L user with a shrinking goal T",
    paper="Moffat, Bailey, Scholer & Thomas, ADCS 2015",
)
"""``inst``'s spec: a C/W/L user model on a gain scale from min_rel to max_rel."""


@shared_parameters
@metric(INST)
def inst(
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
    r"""INST, ir_measures' ``INST(T=..., max_rel=...)``: an adaptive, goal-driven user.

    .. math:: C_i = \left(\frac{i + T + T_i - 1}{i + T + T_i}\right)^2,
        \quad T_i = T - \sum_{j \le i} g_j

    The user wants a total gain of T and is the more likely to stop the more of it
    they have: INSQ whose goal shrinks as gain is found (Moffat, Bailey, Scholer &
    Thomas, ADCS 2015; cwl_eval 1.0.12, ``cwl_inst.py``), over ranks 1..1000.
    trec_eval has no INST.

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
    >>> df.select(pr.inst("rel", max_rel=3, by="score"))
    shape: (1, 1)
    ┌─────────────────┐
    │ inst(max_rel=3) │
    │ ---             │
    │ f64             │
    ╞═════════════════╡
    │ 0.483312        │
    └─────────────────┘
    """
    goal = check_target(target)
    low, high = check_scale(min_rel, max_rel)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(inst_value(r, goal, low, high))


INSQ = MetricSpec(
    "insq",
    ties=NO_EXPECTED,
    ties_note=CWL_NOTE,
    cutoff=False,
    options=(MAX_REL, TARGET, MIN_REL),
    summary="C/W/L user with a goal T",
    paper="Moffat, Scholer & Thomas, ADCS 2012",
)
"""``insq``'s spec: a C/W/L user model on a gain scale from min_rel to max_rel."""


@shared_parameters
@metric(INSQ)
def insq(
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
    r"""INSQ, ir_measures' ``INSQ(T=..., max_rel=...)``: a patient user with a goal T.

    .. math:: C_i = \left(\frac{i + 2T - 1}{i + 2T}\right)^2

    A weighted precision whose weights fall as 1 / (i + 2T - 1)^2, whatever the
    gains (Moffat, Scholer & Thomas, ADCS 2012; cwl_eval 1.0.12, ``cwl_insq.py``),
    over ranks 1..1000. trec_eval has no INSQ.

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
    >>> df.select(pr.insq("rel", max_rel=3, by="score"))
    shape: (1, 1)
    ┌─────────────────┐
    │ insq(max_rel=3) │
    │ ---             │
    │ f64             │
    ╞═════════════════╡
    │ 0.37659         │
    └─────────────────┘
    """
    goal = check_target(target)
    low, high = check_scale(min_rel, max_rel)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(insq_value(r, goal, low, high))


BPM = MetricSpec(
    "bpm",
    ties=NO_EXPECTED,
    ties_note=CWL_NOTE,
    options=(MAX_REL, TARGET, MIN_REL),
    summary="gain per row read until the gain reaches T or k rows",
    paper="Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017",
)
"""``bpm``'s spec: a C/W/L user model on a gain scale from min_rel to max_rel."""


@shared_parameters
@metric(BPM)
def bpm(
    rel: IntoExpr,
    k: int,
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
    r"""Bejeweled Player Model, ir_measures' ``BPM(T=..., max_rel=...)@k`` (static BPM).

    .. math:: \mathrm{BPM} = \frac{1}{s} \sum_{r=1}^{s} g_r,\quad
        s = \min\left(k, \min\{r : \textstyle\sum_{j \le r} g_j \ge T\}\right)

    The user reads until the gain found reaches T or k documents were read,
    whichever comes first (Zhang, Liu, Li, Zhang, Xu & Ma, SIGIR 2017; cwl_eval
    1.0.12, ``cwl_bpm.py``, with unit costs and k as the cost budget). trec_eval has
    no BPM.

    Parameters
    ----------
    rel
        Graded relevance label (null = unjudged, gain 0).
    k
        The budget: the user reads at most k ranks (required, as in ir_measures).
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
    >>> df.select(pr.bpm("rel", 3, max_rel=3, by="score"))
    shape: (1, 1)
    ┌──────────────────┐
    │ bpm@3(max_rel=3) │
    │ ---              │
    │ f64              │
    ╞══════════════════╡
    │ 0.555556         │
    └──────────────────┘
    """
    depth = required_cutoff(k)
    goal = check_target(target)
    low, high = check_scale(min_rel, max_rel)
    r = ranked_list(rel, by=by, descending=descending, ties=ties, query=query, rank=rank,
                    doc=doc)
    return r.finish(bpm_value(r, depth, goal, low, high))
