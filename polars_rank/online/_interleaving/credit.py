"""``credit()``: who won each impression of an interleaved list, from its clicks.

The log has a row per (impression, position shown): the document and, for
team-draft, its team. Each method's credit rule is mpkato/interleaving's
``compute_scores``, computed for every impression at once:

* team-draft (and multileaving): a ranker's credit is the clicks on its team's
  documents;
* balanced (Joachims, 2003): with the lowest click at document d, k the smaller of
  d's ranks in the two lists (1 first; a list's length + 1 where d is absent), each
  ranker's credit is the clicked documents within its top k;
* probabilistic (Hofmann et al., 2011): the assignments of the shown documents to
  rankers are marginalised. Given the list, the positions' assignments are
  independent: position i goes to ranker j with probability proportional to
  P_j(d_i), ranker j's softmax probability of d_i among the documents it had left.
  Two rankers: each one's credit is the probability that it has more clicks (the
  reference's sums over the 2^k assignments, divided by their total); more rankers:
  each one's credit is its expected number of clicks (Schuth et al., SIGIR 2015).
  The two-ranker probabilities come from the Fourier inversion of the
  Poisson-binomial distribution of a ranker's clicks (no loop over positions).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import group_sum, row_sum
from polars_rank._engine.frames import as_polars
from polars_rank._engine.params import check_result_names
from polars_rank.errors import InvalidDataError
from polars_rank.online._interleaving.blocks import team_draft_blocks
from polars_rank.online._interleaving.build import METHODS, Method
from polars_rank.online._interleaving.optimized import optimized_scores
from polars_rank.online._interleaving.runs import Rankings, query_columns, where
from polars_rank.online._interleaving.shown import (
    check_by,
    check_covered,
    check_key_types,
    check_nulls,
    check_per_impression,
    click_problem,
    join_clicks,
    per_impression,
    read,
    strictly_ordered,
    team_names,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["credit", "TIE_TOLERANCE"]

TIE_TOLERANCE = 1e-12
"""Probabilistic credits closer than this are a tie (both are probabilities)."""

RESULT_COLUMNS = ("system", "other", "credit", "other_credit", "win", "loss", "tie")
"""credit()'s columns besides the impression and the ``by`` columns."""

_ROUNDING = 1e-15  # a probability below this is the Fourier transform's rounding: 0


def credit(
    log: FrameLike,
    runs: FrameLike | None = None,
    *,
    method: Method = "team_draft",
    clicks: FrameLike | None = None,
    tau: float = 3.0,
    impression: str = "impression",
    query: str | Sequence[str] = "qid",
    position: str = "position",
    doc: str = "docid",
    system: str = "system",
    click: str = "click",
    score: str = "score",
    rank: str | None = None,
    by: Sequence[str] = (),
) -> pl.DataFrame | pl.LazyFrame:
    """Each impression's credit per ranker, and who won it against whom.

    Parameters
    ----------
    log
        One row per (impression, position shown): ``impression``, ``position``
        (1 first), ``doc``, and ``system`` (the team, for team-draft), ``click``
        (0/1, or booleans; absent when ``clicks`` is given) and the query columns
        (balanced and probabilistic: to find the rankers' lists in ``runs``).
    runs
        The rankers' runs the lists were interleaved from (balanced, probabilistic,
        optimized), as :func:`interleave` takes them: every impression's query must
        have them, and (balanced, probabilistic) each shown doc must be in a run.
    method
        The interleaving method the lists were built with.
    clicks
        Optional: the clicks apart, one row per (impression, ``position``) or
        (impression, ``doc``) clicked, with an optional 0/1 ``click`` column. A click
        on a position or document the impression did not show is an error, and so
        is a log with its own ``click`` column (two sources of clicks) or keys of
        another type than the log's.
    tau
        Probabilistic interleaving's softmax exponent (as the lists were built with).
    impression, query, position, doc, system, click, score, rank
        Column names (``score``/``rank``: the runs' ranking, as :func:`interleave`).
    by
        Columns of the log to keep (one value per impression: slices, segments).

    Returns
    -------
    DataFrame or LazyFrame
        One row per impression and pair of rankers (``system`` before ``other`` in
        the rankers' sorted order): ``impression``, the ``by`` columns, ``system``,
        ``other``, ``credit``, ``other_credit`` and ``win``, ``loss``, ``tie``
        (0/1, from ``system``'s side). Lazy if ``log`` was.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import credit
    >>> log = pl.DataFrame({"impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
    ...                     "docid": ["a", "b", "b", "a"], "system": ["A", "B", "B", "A"],
    ...                     "click": [0, 1, 0, 0]})
    >>> credit(log).select("impression", "system", "other", "win", "loss", "tie").rows()
    [(1, 'A', 'B', 0, 1, 0), (2, 'A', 'B', 0, 0, 1)]
    """
    if method not in METHODS:
        msg = f"method must be one of {', '.join(METHODS)}; got {method!r}"
        raise ValueError(msg)
    q = query_columns(query)
    check_result_names("impression and by", [impression, *by], RESULT_COLUMNS)
    frame = as_polars(log, "log")
    lazy = isinstance(frame, pl.LazyFrame)
    needed = [impression, position, doc, *by]
    if method == "team_draft":
        needed.append(system)
    if method != "team_draft":
        needed += [c for c in q if c not in needed]
    if clicks is None:
        needed.append(click)
    elif click in frame.collect_schema():
        msg = (f"credit: two sources of clicks, the log's column {click!r} and clicks=; "
               "drop one of them")
        raise InvalidDataError(msg)
    shown = read(frame, needed, "log").rename({impression: "_m", position: "_pos", doc: "_d"})
    check_nulls(shown, impression, position, doc)
    if clicks is None:
        problem = click_problem(shown, click, impression)
        if (method == "team_draft" and not by and problem is None
                and not shown[system].null_count()):
            fast = team_draft_blocks(shown, system, click)
            if fast is not None:  # a log in blocks that breaks no rule: one select
                out = _pairs(fast[0], by, fast[1], method).rename({"_m": impression})
                return out.lazy() if lazy else out
        # bad clicks are reported after the log's own rules: 0 until then
        shown = shown.with_columns(_c=pl.lit(0, pl.Int64) if problem is not None
                                   else pl.col(click).cast(pl.Int64))
    else:
        shown, problem = join_clicks(shown, clicks, impression, position, doc, click)
    ordered = strictly_ordered(shown)
    names: list[Any] = team_names(shown, system) if method == "team_draft" else []
    # one pass over the impressions answers the rules and (team-draft) the credit
    agg, twice = per_impression(shown, ordered=ordered, by=by, names=names,
                                system=system if method == "team_draft" else None)
    check_per_impression(shown, twice, impression=impression, position=position, doc=doc)
    if problem is not None:
        raise InvalidDataError(problem)
    check_by(agg, by, impression)
    if method == "team_draft":
        if shown[system].null_count():
            bad = shown.filter(pl.col(system).is_null()).rename({"_m": impression})
            msg = f"log: null team in column {system!r} at {where(bad, [impression])}"
            raise InvalidDataError(msg)
        wide = agg.select("_m", *by, *(f"_s{j}" for j in range(len(names))))
    else:
        if runs is None:
            msg = f"credit: method {method!r} needs the rankers' runs (runs=...)"
            raise ValueError(msg)
        r = Rankings(runs, query=q, system=system, doc=doc, score=score, rank=rank)
        names = r.names
        if impression in q:  # a list per impression: the impression is a query column too
            shown = shown.with_columns(pl.col("_m").alias(impression))
        check_key_types(shown, r.frame, {**{c: c for c in q}, "_d": doc}, "runs")
        check_covered(shown, r.frame, q, impression=impression, doc=doc,
                      docs=method != "optimized")
        if method == "optimized":
            scores = optimized_scores(shown, r)
        elif method == "balanced":
            if len(names) != 2:
                msg = f"balanced interleaving takes two rankers; got {len(names)}: {names}"
                raise ValueError(msg)
            scores = _balanced_scores(shown, r)
        else:
            scores = _probabilistic_scores(shown, r, float(tau))
        wide = agg.select("_m", *by).join(scores, on="_m", how="left").with_columns(
            pl.col(f"_s{j}").fill_null(0.0) for j in range(len(names)))
    out = _pairs(wide, by, names, method).rename({"_m": impression})
    if method != "team_draft" or len(names) > 2:  # team-draft's two: in agg's order
        out = out.sort(impression, "system", "other")
    return out.lazy() if lazy else out


def _balanced_scores(shown: pl.DataFrame, r: Rankings) -> pl.DataFrame:
    """Joachims' rule: clicks within each list's top k, k from the lowest click.

    Wide: each clicked doc's 0-based index in list a and in list b (``_x0``, ``_x1``,
    null when absent), k the smaller at the lowest click (a list's length when absent).
    """
    q = r.query
    index = [pl.when(pl.col("_i") == j).then(pl.col("_r") - 1).alias(f"_x{j}") for j in (0, 1)]
    per_doc = (r.frame.select(*q, "_d", *index)
               .group_by([*q, "_d"]).agg(pl.col("_x0").max(), pl.col("_x1").max()))
    lengths = (r.frame.select(*q, *((pl.col("_i") == j).cast(pl.Int64).alias(f"_n{j}")
                                    for j in (0, 1)))
               .group_by(q).agg(pl.col("_n0").sum(), pl.col("_n1").sum()))
    clicked = (shown.filter(pl.col("_c") == 1).select("_m", *q, "_pos", "_d")
               .join(per_doc, on=[*q, "_d"], how="left").join(lengths, on=q, how="left"))
    last = (clicked.filter(pl.col("_pos") == pl.col("_pos").max().over("_m"))
            .select("_m", _cut=pl.min_horizontal(pl.col("_x0").fill_null(pl.col("_n0")),
                                                 pl.col("_x1").fill_null(pl.col("_n1")))))
    return (clicked.join(last, on="_m")
            .select("_m", *((pl.col(f"_x{j}") <= pl.col("_cut")).fill_null(False)
                            .cast(pl.Float64).alias(f"_s{j}") for j in (0, 1)))
            .group_by("_m").agg(pl.col("_s0", "_s1").sum()))


def _probabilistic_scores(shown: pl.DataFrame, r: Rankings, tau: float) -> pl.DataFrame:
    """Wide: each ranker's softmax probability of each shown doc, ``_p0``, ``_p1``, ...

    P_j(d_i) = num_j(d_i) / (ranker j's numerators of the docs not shown above i):
    the denominators depend on the list only, not on who drew the docs above.
    """
    q = r.query
    n = len(r.names)
    num = 1.0 / pl.col("_r").cast(pl.Float64) ** tau
    of = [pl.when(pl.col("_i") == j).then(num).otherwise(0.0).alias(f"_n{j}") for j in range(n)]
    per_doc = (r.frame.select(*q, "_d", *of)
               .group_by([*q, "_d"]).agg(pl.col(f"_n{j}").sum() for j in range(n)))
    totals = (r.frame.select(*q, *of)  # sorted by query, ranker, rank: one order of addition
              .group_by(q).agg(group_sum(pl.col(f"_n{j}")).alias(f"_t{j}") for j in range(n)))
    x = (shown.select("_m", *q, "_pos", "_d", "_c")
         .join(per_doc, on=[*q, "_d"], how="left").join(totals, on=q, how="left")
         .sort("_m", "_pos")
         .with_columns(pl.col(f"_n{j}", f"_t{j}").fill_null(0.0) for j in range(n)))
    den = [pl.col(f"_t{j}") - pl.col(f"_n{j}").cum_sum().over("_m") + pl.col(f"_n{j}")
           for j in range(n)]
    x = x.with_columns(
        pl.when((pl.col(f"_n{j}") > 0) & (den[j] > 0)).then(pl.col(f"_n{j}") / den[j])
        .otherwise(0.0).alias(f"_p{j}") for j in range(n))
    x = x.with_columns(_z=row_sum(pl.col(f"_p{j}") for j in range(n)))
    if n == 2:
        return _two_rankers(x)
    # Schuth et al.: stop at the first position no ranker could have drawn, and after
    # the last click; each clicked position adds the posterior of its assignment
    last = pl.col("_pos").filter(pl.col("_c") == 1).max().over("_m")
    dead = pl.col("_pos").filter(pl.col("_z") == 0).min().over("_m")
    kept = x.filter((pl.col("_pos") <= last) & (dead.is_null() | (pl.col("_pos") < dead)))
    clicked = (pl.col("_c") == 1) & (pl.col("_z") > 0)
    return (kept.select("_m", *(pl.when(clicked).then(pl.col(f"_p{j}") / pl.col("_z"))
                                .otherwise(0.0).alias(f"_s{j}") for j in range(n)))
            .group_by("_m").agg(group_sum(pl.col(f"_s{j}")).alias(f"_s{j}") for j in range(n)))


def _two_rankers(x: pl.DataFrame) -> pl.DataFrame:
    """P(ranker 0 has more clicks), P(ranker 1 has more), over the assignments.

    Ranker 0's clicks S are a sum of independent Bernoulli(q_i) over the clicked
    positions (q_i = P_0 / (P_0 + P_1)): a Poisson-binomial variable, whose
    distribution is the inverse discrete Fourier transform of its characteristic
    function at N = (most clicks) + 1 points (Fernandez & Williams, 2010), a product
    over the clicks, which is a group sum of logarithms and angles: no loop.
    Ranker 0 wins when 2S > m (m clicks), loses when 2S < m.
    """
    clicks = int(x.select(pl.col("_c").sum().over("_m").max()).item() or 0)
    size = clicks + 1
    qq = pl.when(pl.col("_z") > 0).then(pl.col("_p0") / pl.col("_z")).otherwise(0.5)
    on = pl.col("_c") == 1
    parts = []
    for ell in range(size):
        theta = 2.0 * math.pi * ell / size
        re, im = 1.0 - qq + qq * math.cos(theta), qq * math.sin(theta)
        parts += [(0.5 * (re * re + im * im).log()).alias(f"_lr{ell}"),
                  pl.arctan2(im, re).alias(f"_an{ell}")]
    dead = x.group_by("_m").agg(_dead=(pl.col("_z") == 0).any())
    per = (x.filter(on).select("_m", *parts)
           .group_by("_m").agg([pl.len().alias("_k"),
                                *(group_sum(pl.col(f"_{w}{ell}")).alias(f"_{w}{ell}")
                                  for ell in range(size) for w in ("lr", "an"))])
           .join(dead, on="_m", how="right"))
    per = per.with_columns(pl.col("_k").fill_null(0),
                           *(pl.col(f"_{w}{ell}").fill_null(0.0)
                             for ell in range(size) for w in ("lr", "an")))
    per = per.with_columns(pl.col(f"_lr{ell}").exp() for ell in range(size))
    # one column per value s of S, then the sums over s (expressions of columns, not of
    # the whole transform: Polars would evaluate it once per use)
    per = per.with_columns(
        (row_sum(pl.col(f"_lr{ell}") * (pl.col(f"_an{ell}") - 2.0 * math.pi * ell * s / size)
                 .cos() for ell in range(size)) / size).alias(f"_pmf{s}")
        for s in range(size))
    ahead = row_sum([pl.when(2 * s > pl.col("_k")).then(pl.col(f"_pmf{s}")).otherwise(0.0)
                     for s in range(size)])
    behind = row_sum([pl.when(2 * s < pl.col("_k")).then(pl.col(f"_pmf{s}")).otherwise(0.0)
                      for s in range(size)])
    # the transform's rounding (about 1e-17) leaves a certain loss a little above 0
    def snapped(p: pl.Expr) -> pl.Expr:
        return (pl.when(pl.col("_dead") | (p < _ROUNDING)).then(0.0)
                .otherwise(p.clip(upper_bound=1.0)))

    return per.select("_m", _s0=snapped(ahead), _s1=snapped(behind))


def _pairs(wide: pl.DataFrame, by: Sequence[str], names: list[Any],
           method: str) -> pl.DataFrame:
    """One row per impression and pair (i < j) from the wide scores ``_s<j>``."""
    n = len(names)
    tol = TIE_TOLERANCE if method == "probabilistic" else 0.0
    diff = pl.col("credit") - pl.col("other_credit")
    dtype = pl.Series(names).dtype
    parts = [wide.select("_m", *by, system=pl.lit(names[i], dtype),
                         other=pl.lit(names[j], dtype), credit=f"_s{i}",
                         other_credit=f"_s{j}")
             for i in range(n) for j in range(i + 1, n)]
    if not parts:
        msg = f"credit needs at least two rankers; got {names}"
        raise InvalidDataError(msg)
    return pl.concat(parts).with_columns(
        win=(diff > tol).cast(pl.Int64), loss=(diff < -tol).cast(pl.Int64),
        tie=(diff.abs() <= tol).cast(pl.Int64))
