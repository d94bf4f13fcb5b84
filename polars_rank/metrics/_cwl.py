"""C/W/L metrics as cwl_eval computes them (ir_measures' SDCG, INST, INSQ, BPM, NERR).

The C/W/L framework (Moffat, Bailey, Scholer & Thomas, TOIS 2017; Azzopardi,
Thomas & Moffat, SIGIR 2019) describes a metric by the probability C_i that a user
who looked at rank i goes on to rank i + 1. The user looks at rank i with weight
W_i = P_(i-1) / sum_j P_(j-1), P_i = C_1 ... C_i, and the metric is the expected
gain per document, sum_i W_i g_i. cwl_eval 1.0.12 (``cwl/ruler/measures/*.py``,
``cwl/ruler/ranking.py``), which ir_measures 0.4.3 calls for these measures:

* pads every ranking with zero gains, or cuts it, to 1000 items
  (:data:`CWL_DEPTH`, ``max_n``), so the weights of the unbounded metrics (INST,
  INSQ, NERR10, NERR11) are normalised over ranks 1..1000;
* scales each label to a gain in [0, 1], ``(clip(l, min_rel, max_rel) - min_rel) /
  (max_rel - min_rel)`` (ir_measures' ``IrmQrelHandler``), an unjudged row gaining 0.

The weights of a run of ranks without gain have closed forms (geometric, harmonic,
or 1 / (x + c)^2 sums: :mod:`polars_rank._engine.special`), so a metric reads only its list's
judged rows and their ranks, and works from ``rank=`` positions as from ``by=``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import nonempty, times_reciprocal
from polars_rank._engine.params import check_k, check_real
from polars_rank._engine.special import digamma, trigamma
from polars_rank._language.metric_spec import Option

if TYPE_CHECKING:
    from collections.abc import Callable

    from polars_rank._engine.ranked import Ranked

__all__ = ["CWL_DEPTH", "MAX_REL", "MIN_REL", "TARGET", "GainRows", "cwl_gains", "check_target",
           "check_scale", "required_cutoff", "sdcg_value", "insq_value", "inst_value", "bpm_value",
           "nerr8_value", "nerr9_value", "nerr10_value", "nerr11_value"]

CWL_DEPTH = 1000
"""cwl_eval's ``max_n``: the ranks a C/W/L user can reach (ir_measures' default)."""

# the C/W/L metrics' gain scale and goal (ir_measures' min_rel, max_rel, T), the
# options of user_models.py's and nerr.py's specs
MAX_REL = Option("max_rel", float, None, description="top label, gain 1 (required)")
MIN_REL = Option("min_rel", float, 0, description="label of gain 0")
TARGET = Option("target", float, 1.0, description="T, the total gain wanted")
CWL_NOTE = ("the C/W/L metrics have no closed form under ties='expected' (their "
            "continuation depends on the gain seen so far)")
"""Why the C/W/L metrics' specs leave out ``ties="expected"``."""


def check_scale(min_rel: object, max_rel: object) -> tuple[float, float]:
    """``min_rel < max_rel``, both finite: the label range scaled to gains 0..1."""
    if max_rel is None:
        msg = ("max_rel is required: the top label of the scale, whose gain is 1 "
               "(ir_measures' max_rel), e.g. max_rel=3")
        raise ValueError(msg)
    low = check_real(min_rel, "min_rel", allowed="a finite number")
    high = check_real(max_rel, "max_rel", allowed=f"a finite number above min_rel={low:g}",
                      low=low, low_open=True)
    return low, high


def required_cutoff(k: object) -> int:
    """A cutoff the metric cannot do without (ir_measures requires its ``@k``)."""
    checked = check_k(k)
    if checked is None:
        msg = "k is required: the rank the user reads up to (ir_measures' @k)"
        raise ValueError(msg)
    return checked


def check_target(target: object) -> float:
    """T, the total gain the user wants: a positive number."""
    return check_real(target, "target", low=0, low_open=True, allowed="a positive number")


def cwl_gains(r: Ranked, min_rel: float, max_rel: float) -> pl.Expr:
    """Each row's gain in [0, 1]: the label clipped to [min_rel, max_rel] and scaled."""
    clipped = r.labels.clip(lower_bound=min_rel, upper_bound=max_rel)
    # divided as cwl_eval divides: by a column, not times the reciprocal of a literal
    # as Polars divides by one, so that BPM's gain so far reaches T where cwl_eval's
    # does (2.5 / 3 + 0.5 / 3 is 1.0; 2.5 * (1/3) + 0.5 * (1/3) is 0.9999999999999999)
    span = clipped * 0.0 + (max_rel - min_rel)
    return ((clipped - min_rel) / span).fill_null(0.0)


class GainRows:
    """A list's retrieved rows within a depth, in rank order: their ranks and gains.

    ``field("rank")`` (Float64) and ``field("gain")`` are aligned; rows without gain
    may be missing (positions mode keeps only judged rows), which is why every
    metric here sums the weights of the ranks between two rows in closed form;
    ``field("before")`` (the rank of the previous row, 0 for the first) and
    :attr:`last_rank` (0 for an empty list) delimit those runs.

    The rows are sorted once, into one list per list: :meth:`derive` adds fields
    computed from the others, :meth:`value` computes one aggregate of them
    (``list.eval``, where every name is a cheap slice of ``pl.element()``). Spelled
    out as one expression, INST named the sorted gains some hundred times, and a
    ``group_by`` (where Polars does not share sub-expressions) sorted the list each
    time (docs/performance.md, "Behind the code"). The fields are
    concatenated in one Float64 list, not a list of structs: Polars 2.1 panics
    ("assertion left == right failed") on a struct imploded beside another metric of
    the same ``select`` that shares a cutoff's ranks, when it eliminates their common
    sub-expressions (tests/test_against_reference.py, every metric in one ``select``;
    the canary: tests/test_workarounds.py).
    """

    def __init__(self, r: Ranked, gains: pl.Expr, depth: int) -> None:
        inside = r.retrieved(depth)
        rank = r.positions(depth).filter(inside).cast(pl.Float64)
        ordered = r.by_gain(gains).ordered(gains, depth)
        self._rows = rank.append(ordered.filter(inside)).implode()
        self._fields: tuple[str, ...] = ("rank", "gain")
        self.derive(before=self.field("rank").shift(1, fill_value=0.0))
        self.depth = float(depth)

    def field(self, name: str) -> pl.Expr:
        """A field of the rows (in :meth:`derive` and :meth:`value`)."""
        n = pl.len() // len(self._fields)
        return pl.element().slice(self._fields.index(name) * n, n)

    def derive(self, **fields: pl.Expr) -> None:
        """Add per-row fields, expressions of the fields there already."""
        every = [self.field(name) for name in self._fields] + list(fields.values())
        concatenated = every[0]
        for more in every[1:]:
            concatenated = concatenated.append(more)
        self._rows = self._rows.list.eval(concatenated)
        self._fields = (*self._fields, *fields)

    def value(self, aggregate: pl.Expr) -> pl.Expr:
        """``aggregate`` (one value per list, an expression of the fields).

        A list without rows within the depth has no gain: 0 (Polars 1.36 gives an
        aggregate of an empty list no value at all, 2.x evaluates it).
        """
        # an empty list becomes [0.0] (every field of it empty: n = 1 // the number of
        # fields is 0), for Polars 1.36's empty-list aggregates (compat.nonempty)
        rows = nonempty(self._rows, pl.lit([0.0], pl.List(pl.Float64)))
        return rows.list.eval(aggregate).list.first().fill_null(0.0)

    @property
    def last_rank(self) -> pl.Expr:
        """The rank of the last row, 0 for a list without rows."""
        return self.field("rank").last().fill_null(0.0)

    def stop_ratio(self, weight_sum: Callable[[pl.Expr, pl.Expr], pl.Expr],
                   weight: Callable[[float], float]) -> pl.Expr:
        """NERR: sum_m g_m W(r_m) Q_(m-1) / sum_x W(x) Q(x) over the ranks 1..depth.

        ``weight_sum(a, b)`` is the sum of the gain-free weights w(i) over the ranks
        a+1..b, whose last term w(b) also weighs the gain at rank b. Q, the product
        of 1 - g over the rows so far, stays constant between rows, so the
        denominator is a sum over the runs of ranks before each row and after the
        last. The weights are fields, each computed once per row; ``weight(i)`` is
        w(i) in Python, whose sum over 1..depth is the denominator of an empty list.
        """
        f, depth = self.field, pl.lit(self.depth)
        self.derive(kept=(1.0 - f("gain")).cum_prod(),
                    at_row=weight_sum(f("rank") - 1.0, f("rank")),
                    run=weight_sum(f("before"), f("rank")),
                    after=weight_sum(f("rank"), depth))
        kept_before = f("kept").shift(1, fill_value=1.0)
        num = (f("gain") * kept_before * f("at_row")).sum()
        runs = (kept_before * f("run")).sum()
        alone = math.fsum(weight(i) for i in range(1, int(self.depth) + 1))
        tail = (f("kept") * f("after")).last().fill_null(alone)
        return self.value(num / (runs + tail))


def sdcg_value(r: Ranked, k: int, min_rel: float, max_rel: float) -> pl.Expr:
    """SDCG@k: DCG@k of the scaled gains over the DCG of k fully relevant rows."""
    depth = min(k, CWL_DEPTH)
    rows = GainRows(r, cwl_gains(r, min_rel, max_rel), depth)
    f = rows.field
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, depth + 1))
    return rows.value(times_reciprocal((f("gain") / (f("rank") + 1.0).log(2)).sum(), ideal))


def insq_value(r: Ranked, target: float, min_rel: float, max_rel: float) -> pl.Expr:
    """INSQ: C_i = ((i + 2T - 1) / (i + 2T))^2, whatever the gains.

    The weight of rank i is (2T / (i - 1 + 2T))^2 over the sum of those of 1..1000.
    """
    rows = GainRows(r, cwl_gains(r, min_rel, max_rel), CWL_DEPTH)
    f = rows.field
    twice = 2.0 * target
    total = math.fsum((twice / (i - 1 + twice)) ** 2 for i in range(1, CWL_DEPTH + 1))
    weight = (twice / (f("rank") - 1.0 + twice)) ** 2
    return rows.value(times_reciprocal((f("gain") * weight).sum(), total))


def inst_value(r: Ranked, target: float, min_rel: float, max_rel: float) -> pl.Expr:
    """INST: C_i = ((i + b_i - 1) / (i + b_i))^2 with b_i = 2T - (gain up to rank i).

    Between two rows b is constant and the product of the C telescopes: from rank a
    (where P = P_a) to rank x, P_x = P_a ((a + b) / (x + b))^2, whose sum over a run
    of ranks is a trigamma difference. P at each row multiplies those of the runs
    before it and its own C. (A field is read after the last :meth:`GainRows.derive`
    before its use: ``f`` is called anew in each step.)
    """
    rows = GainRows(r, cwl_gains(r, min_rel, max_rel), CWL_DEPTH)
    f = rows.field
    twice = 2.0 * target
    rows.derive(b=twice - f("gain").cum_sum())  # b after each row
    rows.derive(b_before=f("b").shift(1, fill_value=twice))
    rows.derive(start=f("before") + f("b_before"),  # a + b of the run to the row
                end=f("rank") + f("b_before"))  # and x + b at the row
    rows.derive(reach=(f("start") / (f("end") - 1.0)) ** 2,  # P(rank - 1) / P(a)
                own=((f("rank") + f("b") - 1.0) / (f("rank") + f("b"))) ** 2)  # row's C
    rows.derive(at_row=(f("reach") * f("own")).cum_prod())  # P at each row's rank
    rows.derive(at_before=f("at_row").shift(1, fill_value=1.0),
                run=f("start") ** 2 * (trigamma(f("start")) - trigamma(f("end"))),
                after=(f("rank") + f("b")) ** 2 * (  # the run from the row to rank 1000
                    trigamma(f("rank") + f("b")) - trigamma(f("b") + float(CWL_DEPTH))))
    num = (f("gain") * f("at_before") * f("reach")).sum()
    runs = (f("at_before") * f("run")).sum()
    alone = twice**2 * math.fsum(1.0 / (x + twice) ** 2 for x in range(CWL_DEPTH))
    tail = (f("at_row") * f("after")).last().fill_null(alone)  # alone: no row
    return rows.value(num / (runs + tail))


def bpm_value(r: Ranked, k: int, target: float, min_rel: float, max_rel: float) -> pl.Expr:
    """Static BPM: the user stops at the first rank whose gain so far reaches T, or at k.

    C_i = 1 while the gain up to rank i is below T and i < k, so the user reads
    ranks 1..s with s = min(k, 1000, the first rank reaching T), each with weight
    1/s: BPM is the gain within the top s over s (Zhang et al., SIGIR 2017).
    """
    depth = min(k, CWL_DEPTH)
    rows = GainRows(r, cwl_gains(r, min_rel, max_rel), depth)
    f = rows.field
    reached = f("rank").filter(f("gain").cum_sum() >= target).first()
    stop = pl.min_horizontal(reached.fill_null(float(depth)), pl.lit(float(depth)))
    return rows.value(f("gain").filter(f("rank") <= stop).sum() / stop)


def nerr8_value(r: Ranked, k: int, min_rel: float, max_rel: float) -> pl.Expr:
    """NERR, eq. 8: C_i = 1 - g_i for i < k, 0 at k (ERR's cascade, cut at k)."""
    rows = GainRows(r, cwl_gains(r, min_rel, max_rel), min(k, CWL_DEPTH))
    return rows.stop_ratio(lambda a, b: b - a, lambda i: 1.0)


def nerr9_value(r: Ranked, k: int, min_rel: float, max_rel: float) -> pl.Expr:
    """NERR, eq. 9: C_i = i / (i + 1) (1 - g_i) for i < k: weights Q_(i-1) / i."""
    rows = GainRows(r, cwl_gains(r, min_rel, max_rel), min(k, CWL_DEPTH))
    return rows.stop_ratio(lambda a, b: digamma(b + 1.0) - digamma(a + 1.0), lambda i: 1.0 / i)


def nerr10_value(r: Ranked, p: float, min_rel: float, max_rel: float) -> pl.Expr:
    """NERR, eq. 10: C_i = p (1 - g_i): weights p^(i-1) Q_(i-1), ranks 1..1000."""
    rows = GainRows(r, cwl_gains(r, min_rel, max_rel), CWL_DEPTH)
    if p == 1.0:
        return rows.stop_ratio(lambda a, b: b - a, lambda i: 1.0)
    return rows.stop_ratio(lambda a, b: (pl.lit(p).pow(a) - pl.lit(p).pow(b)) / (1.0 - p),
                           lambda i: p ** (i - 1))


def nerr11_value(r: Ranked, target: float, min_rel: float, max_rel: float) -> pl.Expr:
    """NERR, eq. 11: C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i), ranks 1..1000."""
    rows = GainRows(r, cwl_gains(r, min_rel, max_rel), CWL_DEPTH)
    twice = 2.0 * target
    return rows.stop_ratio(
        lambda a, b: twice**2 * (trigamma(a + twice) - trigamma(b + twice)),
        lambda i: (twice / (i - 1 + twice)) ** 2)
