"""The estimators: what each needs from the log and what it sums per impression.

An estimator is a small declarative object: the propensity columns it divides by,
the model columns it reads, and the per-row terms whose sums over an impression give
the numerator and denominator of a ratio estimate (``sum num / sum den`` over the
impressions of a slice). The formulas are OBP's (st-tech/zr-obp, commit 8cbd5fa,
``obp/ope/estimators.py`` and ``obp/ope/estimators_slate.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

__all__ = ["ESTIMATORS", "Estimator", "Terms"]

Denominator = Literal["rows", "weights", "impressions"]


@dataclass(frozen=True)
class Terms:
    """The resolved column names and options the per-row terms read."""

    reward: str
    pscore: str
    target: str
    pscore_slate: str
    target_slate: str
    pscore_cascade: str
    target_cascade: str
    q_hat: str
    q_hat_target: str
    impression: str
    position: str
    clip: float
    switch_threshold: float


@dataclass(frozen=True)
class Estimator:
    """One estimator: its name, the family, what it reads and how it sums."""

    name: str
    slate: bool  # a slate estimator sums over an impression's positions; else each row is a round
    logging: str  # which logging propensity it divides by: "item", "slate" or "cascade"
    model: bool  # reads q_hat and q_hat_target
    denominator: Denominator

    def columns(self, t: Terms) -> tuple[str, str]:
        """(logging propensity column, target propensity column) this estimator divides."""
        return {"item": (t.pscore, t.target), "slate": (t.pscore_slate, t.target_slate),
                "cascade": (t.pscore_cascade, t.target_cascade)}[self.logging]

    def weight(self, t: Terms) -> pl.Expr:
        """The importance weight of a row (target / logging propensity), clipped where OBP clips."""
        logging, target = self.columns(t)
        w = pl.col(target) / pl.col(logging)
        if self.name in ("ips", "dr") and t.clip != float("inf"):
            w = pl.min_horizontal(w, pl.lit(t.clip))
        return w

    def numerator(self, t: Terms) -> pl.Expr:
        """The row's term of the numerator."""
        r, w = pl.col(t.reward), self.weight(t)
        q, q_target = pl.col(t.q_hat), pl.col(t.q_hat_target)
        if self.name == "dm":
            return q_target
        if self.name == "dr":
            return q_target + w * (r - q)
        if self.name == "switch-dr":
            switch = (w <= t.switch_threshold).cast(pl.Float64)
            return q_target + switch * w * (r - q)
        if self.name == "cascade-dr":
            previous = w.shift(1).over(t.impression, order_by=t.position).fill_null(1.0)
            return w * (r - q) + previous * q_target
        return r * w  # ips, snips, sips, iips, rips

    def denominator_term(self, t: Terms) -> pl.Expr:
        """The row's term of the denominator."""
        if self.denominator == "weights":
            return self.weight(t)
        return pl.lit(1.0)


ESTIMATORS: dict[str, Estimator] = {e.name: e for e in (
    Estimator("ips", slate=False, logging="item", model=False, denominator="rows"),
    Estimator("snips", slate=False, logging="item", model=False, denominator="weights"),
    Estimator("dm", slate=False, logging="item", model=True, denominator="rows"),
    Estimator("dr", slate=False, logging="item", model=True, denominator="rows"),
    Estimator("switch-dr", slate=False, logging="item", model=True, denominator="rows"),
    Estimator("sips", slate=True, logging="slate", model=False, denominator="impressions"),
    Estimator("iips", slate=True, logging="item", model=False, denominator="impressions"),
    Estimator("rips", slate=True, logging="cascade", model=False, denominator="impressions"),
    Estimator("cascade-dr", slate=True, logging="cascade", model=True,
              denominator="impressions"),
)}
