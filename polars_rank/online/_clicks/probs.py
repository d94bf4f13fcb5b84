"""Each row's probabilities under a click model: examination, clicks, what follows.

The cascade family (cascade, DCM, SDBN, DBN) is one chain: a user examines rank 1,
and goes from an examined rank r to rank r + 1 with probability ``nc_r`` after not
clicking (gamma in DBN, tau_1 in CCM, 1 otherwise) and ``lam_r`` after clicking (0 in
the cascade model, lambda_r in DCM, 1 - sigma in SDBN, gamma (1 - sigma) in DBN,
tau_2 (1 - alpha) + tau_3 alpha in CCM). Its recursions
are closed forms over each impression (products and sums that run down the list), so
that every quantity is a window expression, not a loop over ranks (Chuklin et al. 2015,
chapters 2 and 3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import row_sum
from polars_rank.online._clicks.log import CLICK, IMP, POS

if TYPE_CHECKING:
    from polars_rank.online._clicks.params import Model

__all__ = ["chain", "conditional", "examined", "click_after", "ubm_full"]

A = pl.col("attractiveness")


def chain(model: Model) -> tuple[pl.Expr, pl.Expr]:
    """``(lam, nc)``: going on after a click, and after no click, at an examined rank."""
    one = pl.lit(1.0)
    if model == "cascade":
        return pl.lit(0.0), one
    if model == "dcm":
        return pl.col("continuation"), one
    if model == "sdbn":
        return 1 - pl.col("satisfaction"), one
    if model == "ccm":  # after a click: on with tau_2 if not relevant, tau_3 if relevant
        return pl.col("tau_2") * (1 - A) + pl.col("tau_3") * A, pl.col("tau_1")
    gamma = pl.col("continuation")
    return gamma * (1 - pl.col("satisfaction")), gamma


def conditional(frame: pl.LazyFrame, model: Model) -> pl.LazyFrame:
    """Adds ``_eps``, P(E_r = 1 | C_<r), and ``_q``, P(C_r = 1 | C_<r).

    For the chain models: after the last click above r (at l, examined), the user is at
    l + 1 with probability eps0 = lam_l (1 without a click above); down to r without a
    click, eps_r = eps0 w_r / (1 - eps0 sum_{j<r} w_j a_j) with w_r = prod_{l<j<r} nc_j
    (1 - a_j), the closed form of eps_{r+1} = eps_r nc_r (1 - a_r) / (1 - eps_r a_r).
    """
    if model in ("pbm", "ubm"):
        return frame.with_columns(pl.col("examination").alias("_eps")).with_columns(
            (A * pl.col("_eps")).alias("_q"))
    lam, nc = chain(model)
    seg = [IMP, "_seg"]
    frame = frame.with_columns(
        pl.when(pl.col(CLICK) == 1).then(lam).shift(1).forward_fill().over(IMP)
        .fill_null(1.0).alias("_eps0"),
        (nc * (1 - A)).cum_prod().shift(1, fill_value=1.0).over(seg).alias("_w"))
    frame = frame.with_columns(
        (pl.col("_w") * A).cum_sum().shift(1, fill_value=0.0).over(seg).alias("_s"))
    eps = pl.col("_eps0") * pl.col("_w") / (1 - pl.col("_eps0") * pl.col("_s"))
    return frame.with_columns(eps.alias("_eps")).with_columns((A * pl.col("_eps")).alias("_q"))


def examined(frame: pl.LazyFrame, model: Model) -> pl.LazyFrame:
    """Adds ``_exam``, P(E_r = 1) before any click is seen (PBM's theta_r; not UBM)."""
    if model == "pbm":
        return frame.with_columns(pl.col("examination").alias("_exam"))
    lam, nc = chain(model)
    step = (1 - A) * nc + A * lam
    return frame.with_columns(step.cum_prod().shift(1, fill_value=1.0).over(IMP).alias("_exam"))


def click_after(frame: pl.LazyFrame, nc: pl.Expr) -> pl.LazyFrame:
    """Adds ``_x``, P(C_>=r = 1 | E_r = 1), and ``_xnext`` (rank r + 1's, 0 at the end).

    X_r = a_r + (1 - a_r) nc_r X_{r+1}, in closed form sum_{j>=r} (W_j / W_r) a_j with
    W_r = prod_{j<r} nc_j (1 - a_j).
    """
    frame = frame.with_columns(
        (nc * (1 - A)).cum_prod().shift(1, fill_value=1.0).over(IMP).alias("_big_w"))
    x = (pl.col("_big_w") * A).cum_sum(reverse=True).over(IMP) / pl.col("_big_w")
    return frame.with_columns(x.alias("_x")).with_columns(
        pl.col("_x").shift(-1, fill_value=0.0).over(IMP).alias("_xnext"))


def ubm_full(frame: pl.LazyFrame, gamma: dict[tuple[int, int], float],
             default: float, longest: int) -> pl.LazyFrame:
    """P(C_r = 1) under UBM, summed over the position of the click before r.

    P(C_r) = sum_{r' < r} P(C_r') prod_{r' < k < r} (1 - a_k g_{k,r'}) a_r g_{r,r'} with
    P(C_0) = 1. A loop over the (few) ranks of the longest list, each step one
    expression over all impressions: ``q_r'`` carries P(C_r') times the product so far.
    """
    def g(r: int, prev: int) -> float:
        return gamma.get((r, prev), default)

    wide = frame.group_by(IMP).agg(A.sort_by(POS).alias("_a"))
    wide = wide.with_columns(pl.lit(1.0).alias("_q0"))
    for r in range(1, longest + 1):
        a_r = pl.col("_a").list.get(r - 1, null_on_oob=True)
        p_r = row_sum([pl.col(f"_q{prev}") * g(r, prev) for prev in range(r)]) * a_r
        wide = wide.with_columns(p_r.alias(f"_p{r}"))
        wide = wide.with_columns(
            *[(pl.col(f"_q{prev}") * (1 - a_r * g(r, prev))).alias(f"_q{prev}")
              for prev in range(r)], pl.col(f"_p{r}").alias(f"_q{r}"))
    long = wide.select(IMP, pl.concat_list([f"_p{r}" for r in range(1, longest + 1)])
                       .alias("_full")).with_columns(
        pl.int_ranges(1, longest + 1).alias(POS)).explode(["_full", POS])
    return frame.join(long, on=[IMP, POS], how="left", maintain_order="left")

