"""``credit()``: who won each impression of an interleaved list, from its clicks.

The log has a row per (impression, position shown): the document and, for
team-draft, its team. Each method's credit rule is mpkato/interleaving's
``compute_scores``, computed for every impression at once:

* team-draft (and multileaving): a ranker's credit is the clicks on its team's
  documents;
* balanced (Joachims, 2003): with the lowest click at document d, k the smaller of
  d's ranks in the two lists (the list's length when absent), each ranker's credit
  is the clicked documents within its top k;
* probabilistic (Hofmann et al., 2011): the assignments of the shown documents to
  rankers are marginalised. Given the list, the positions' assignments are
  independent: position i goes to ranker j with probability proportional to
  P_j(d_i), ranker j's softmax probability of d_i among the documents it had left.
  Two rankers: each one's credit is the probability that it has more clicks (the
  reference's sums over the 2^k assignments, divided by their total); more rankers:
  each one's credit is its expected number of clicks (Schuth et al., SIGIR 2015).
  The two-ranker distribution of the click difference is built one clicked
  position at a time (a loop over at most k positions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.frames import as_polars
from polars_rank._evaluation.checks import row_hash
from polars_rank.errors import InvalidDataError
from polars_rank.online._interleaving.build import METHODS, Method
from polars_rank.online._interleaving.runs import Rankings, query_columns, where

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["credit", "TIE_TOLERANCE"]

TIE_TOLERANCE = 1e-12
"""Probabilistic credits closer than this are a tie (both are probabilities)."""


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
        The rankers' runs the lists were interleaved from (balanced, probabilistic),
        as :func:`interleave` takes them.
    method
        The interleaving method the lists were built with.
    clicks
        Optional: the clicks apart, one row per (impression, ``position``) or
        (impression, ``doc``) clicked, with an optional 0/1 ``click`` column. A click
        on a position or document the impression did not show is an error.
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
    frame = as_polars(log, "log")
    lazy = isinstance(frame, pl.LazyFrame)
    needed = [impression, position, doc, *by]
    if method == "team_draft":
        needed.append(system)
    if method != "team_draft":
        needed += [c for c in q if c not in needed]
    if clicks is None:
        needed.append(click)
    shown = _read(frame, needed, "log")
    shown = shown.rename({impression: "_m", position: "_pos", doc: "_d"})
    _check_shown(shown, impression, position, doc)
    if clicks is None:
        shown = shown.with_columns(_c=_clicks(shown, click, impression).alias("_c"))
    else:
        shown = _join_clicks(shown, clicks, impression, position, doc, click)
    imps = shown.group_by("_m").agg(*(pl.col(c).first() for c in by))
    if by:
        varying = shown.group_by("_m").agg(pl.col(c).n_unique() for c in by)
        for c in by:
            bad = varying.filter(pl.col(c) > 1)
            if bad.height:
                msg = (f"log: column {c!r} (by=) takes two values in "
                       f"{where(bad.rename({'_m': impression}), [impression])}")
                raise InvalidDataError(msg)
    if method == "team_draft":
        if shown[system].null_count():
            bad = shown.filter(pl.col(system).is_null()).rename({"_m": impression})
            msg = f"log: null team in column {system!r} at {where(bad, [impression])}"
            raise InvalidDataError(msg)
        names = shown[system].unique().sort().to_list()
        shown = shown.with_columns(_i=pl.col(system).replace_strict(
            names, list(range(len(names))), return_dtype=pl.Int64))
        scores = _team_scores(shown, len(names))
    else:
        if runs is None:
            msg = f"credit: method {method!r} needs the rankers' runs (runs=...)"
            raise ValueError(msg)
        r = Rankings(runs, query=q, system=system, doc=doc, score=score, rank=rank)
        names = r.names
        if method == "balanced":
            if len(names) != 2:
                msg = f"balanced interleaving takes two rankers; got {len(names)}: {names}"
                raise ValueError(msg)
            scores = _balanced_scores(shown, r)
        else:
            scores = _probabilistic_scores(shown, r, float(tau))
    out = _pairs(imps, scores, names, method)
    out = out.rename({"_m": impression}).sort(impression, "system", "other")
    return out.lazy() if lazy else out


def _read(frame: pl.DataFrame | pl.LazyFrame, needed: list[str], what: str) -> pl.DataFrame:
    schema = frame.collect_schema()
    for column in needed:
        if column not in schema:
            msg = f"{what} has no column {column!r}; columns: {list(schema)}"
            raise ValueError(msg)
    return frame.lazy().select(list(dict.fromkeys(needed))).collect()


def _check_shown(shown: pl.DataFrame, impression: str, position: str, doc: str) -> None:
    for column, name in (("_m", impression), ("_pos", position), ("_d", doc)):
        bad = shown.filter(pl.col(column).is_null())
        if bad.height:
            msg = f"log: null in column {name!r} at {where(bad.rename({'_m': impression}), [impression])}"  # noqa: E501
            raise InvalidDataError(msg)
    for column, name, problem in (("_pos", position, "two rows at one position"),
                                  ("_d", doc, "duplicate doc in a ranking")):
        # distinct hashes first (cheap); the exact search only when fewer than rows
        if shown.select(row_hash(["_m", column]).n_unique()).item() == shown.height:
            continue
        twice = shown.filter(pl.struct("_m", column).is_duplicated())
        if twice.height:
            msg = (f"log: {problem} (column {name!r}) at "
                   f"{where(twice.rename({'_m': impression, column: name}), [impression, name])}")
            raise InvalidDataError(msg)


def _clicks(frame: pl.DataFrame, click: str, impression: str) -> pl.Series:
    values = frame[click]
    if values.dtype == pl.Boolean:
        values = values.cast(pl.Int64)
    bad = frame.filter(~values.is_in([0, 1]) | values.is_null())
    if bad.height or not (values.dtype.is_numeric()):
        if not bad.height:
            bad = frame
        shown = bad.rename({"_m": impression}) if "_m" in bad.columns else bad
        msg = (f"clicks not 0/1 in column {click!r}: {bad[click][0]!r} at "
               f"{where(shown, [impression])}")
        raise InvalidDataError(msg)
    out: pl.Series = values.cast(pl.Int64)
    return out


def _join_clicks(shown: pl.DataFrame, clicks: Any, impression: str, position: str,
                 doc: str, click: str) -> pl.DataFrame:
    frame = as_polars(clicks, "clicks").lazy()
    schema = frame.collect_schema()
    at = position if position in schema else doc
    got = _read(frame, [impression, at, *([click] if click in schema else [])], "clicks")
    got = got.rename({impression: "_m"})
    if click in got.columns:
        got = got.filter(_clicks(got, click, impression) == 1)
    key = "_pos" if at == position else "_d"
    got = got.select("_m", pl.col(at).alias(key)).unique()
    stray = got.join(shown, on=["_m", key], how="anti")
    if stray.height:
        msg = (f"clicks: a click on a {at} not shown (column {at!r}) at "
               f"{where(stray.rename({'_m': impression, key: at}), [impression, at])}")
        raise InvalidDataError(msg)
    return (shown.join(got.with_columns(_c=pl.lit(1, pl.Int64)), on=["_m", key], how="left")
            .with_columns(pl.col("_c").fill_null(0)))


def _team_scores(shown: pl.DataFrame, n: int) -> pl.DataFrame:
    """Wide: ``_m`` and ``_s0``, ``_s1``, ...: each ranker's clicks (one group_by key)."""
    # plain column sums in the group_by: Polars' fast path (an expression inside
    # agg() is evaluated group by group, ten times slower at 100k impressions)
    return (shown.select("_m", *((pl.col("_c") * (pl.col("_i") == j)).cast(pl.Float64)
                                 .alias(f"_s{j}") for j in range(n)))
            .group_by("_m").agg(group_sum(pl.col(f"_s{j}")).alias(f"_s{j}") for j in range(n)))


def _balanced_scores(shown: pl.DataFrame, r: Rankings) -> pl.DataFrame:
    """Joachims' rule: clicks within each list's top k, k from the lowest click."""
    q = r.query
    lengths = r.frame.group_by([*q, "_i"]).agg(_len=pl.len())
    rankers = pl.DataFrame({"_i": [0, 1]}, schema={"_i": pl.Int64})
    # each shown doc's 0-based index in each list (the list's length when absent)
    idx = (shown.select("_m", *q, "_pos", "_d", "_c").join(rankers, how="cross")
           .join(r.frame.select(*q, "_i", "_d", "_r"), on=[*q, "_i", "_d"], how="left")
           .join(lengths, on=[*q, "_i"], how="left")
           .with_columns(_k=(pl.col("_r") - 1).fill_null(pl.col("_len").fill_null(0))))
    clicked = idx.filter(pl.col("_c") == 1)
    last = clicked.filter(pl.col("_pos") == pl.col("_pos").max().over("_m"))
    k = last.group_by("_m").agg(_cut=pl.col("_k").min())
    within = (pl.col("_r") - 1) <= pl.col("_cut")
    return (clicked.join(k, on="_m")
            .select("_m", *((within & (pl.col("_i") == j)).cast(pl.Float64).alias(f"_s{j}")
                            for j in (0, 1)))
            .group_by("_m").agg(pl.col("_s0", "_s1").sum()))


def _probabilistic_scores(shown: pl.DataFrame, r: Rankings, tau: float) -> pl.DataFrame:
    q = r.query
    n = len(r.names)
    num = 1.0 / pl.col("_r").cast(pl.Float64) ** tau
    runs = r.frame.select(*q, "_i", "_d", _num=num)
    totals = runs.group_by([*q, "_i"]).agg(_tot=group_sum(pl.col("_num")))
    rankers = pl.DataFrame({"_i": list(range(n))}, schema={"_i": pl.Int64})
    p = (shown.select("_m", *q, "_pos", "_d", "_c").join(rankers, how="cross")
         .join(runs, on=[*q, "_i", "_d"], how="left")
         .join(totals, on=[*q, "_i"], how="left")
         .with_columns(pl.col("_num").fill_null(0.0), pl.col("_tot").fill_null(0.0))
         .sort("_m", "_i", "_pos")
         .with_columns(_den=pl.col("_tot") - pl.col("_num").cum_sum().over("_m", "_i")
                       + pl.col("_num"))
         .with_columns(_p=pl.when((pl.col("_num") > 0) & (pl.col("_den") > 0))
                       .then(pl.col("_num") / pl.col("_den")).otherwise(0.0))
         .with_columns(_z=pl.col("_p").sum().over("_m", "_pos")))
    if n == 2:
        return _two_rankers(p)
    # Schuth et al.: stop at the first position no ranker could have drawn, and after
    # the last click; each clicked position adds the posterior of its assignment
    last = pl.col("_pos").filter(pl.col("_c") == 1).max().over("_m")
    dead = pl.col("_pos").filter(pl.col("_z") == 0).min().over("_m")
    kept = p.filter((pl.col("_pos") <= last) & (dead.is_null() | (pl.col("_pos") < dead)))
    share = pl.when((pl.col("_c") == 1) & (pl.col("_z") > 0)).then(pl.col("_p") / pl.col("_z"))
    return (kept.select("_m", *(pl.when(pl.col("_i") == j).then(share).otherwise(0.0)
                                .alias(f"_s{j}") for j in range(n)))
            .group_by("_m").agg(group_sum(pl.col(f"_s{j}")).alias(f"_s{j}") for j in range(n)))


def _two_rankers(p: pl.DataFrame) -> pl.DataFrame:
    """P(ranker 0 has more clicks), P(ranker 1 has more), over the assignments."""
    rows = (p.filter(pl.col("_i") == 0)
            .with_columns(_q=pl.when(pl.col("_z") > 0).then(pl.col("_p") / pl.col("_z"))))
    per = rows.group_by("_m").agg(
        _dead=(pl.col("_z") == 0).any(),
        _qs=pl.col("_q").filter(pl.col("_c") == 1).sort_by(
            pl.col("_pos").filter(pl.col("_c") == 1)))
    m = int(per["_qs"].list.len().max() or 0)  # type: ignore[arg-type]
    # the distribution of (clicks of 0) - (clicks of 1), one clicked position at a time
    dist = {d: pl.lit(1.0 if d == 0 else 0.0) for d in range(-m, m + 1)}
    for t in range(m):
        qt = pl.col("_qs").list.get(t, null_on_oob=True)
        zero = pl.lit(0.0)
        dist = {d: pl.when(qt.is_null()).then(dist[d])
                .otherwise(qt * dist.get(d - 1, zero) + (1.0 - qt) * dist.get(d + 1, zero))
                for d in dist}
        per = per.with_columns(**{f"_d{k}": v for k, v in enumerate(dist.values())})
        dist = {d: pl.col(f"_d{k}") for k, d in enumerate(dist)}
    ahead = pl.sum_horizontal([dist[d] for d in dist if d > 0] or [pl.lit(0.0)])
    behind = pl.sum_horizontal([dist[d] for d in dist if d < 0] or [pl.lit(0.0)])
    per = per.select("_m", _w0=pl.when(pl.col("_dead")).then(0.0).otherwise(ahead),
                     _w1=pl.when(pl.col("_dead")).then(0.0).otherwise(behind))
    return per.rename({"_w0": "_s0", "_w1": "_s1"})


def _pairs(imps: pl.DataFrame, scores: pl.DataFrame, names: list[Any],
           method: str) -> pl.DataFrame:
    """One row per impression and pair (i < j) from the wide scores."""
    n = len(names)
    tol = TIE_TOLERANCE if method == "probabilistic" else 0.0
    wide = imps.join(scores, on="_m", how="left").with_columns(
        pl.col(f"_s{j}").fill_null(0.0) for j in range(n))
    diff = pl.col("credit") - pl.col("other_credit")
    dtype = pl.Series(names).dtype
    parts = [wide.select("_m", *imps.columns[1:], system=pl.lit(names[i], dtype),
                         other=pl.lit(names[j], dtype), credit=f"_s{i}",
                         other_credit=f"_s{j}")
             for i in range(n) for j in range(i + 1, n)]
    if not parts:
        msg = f"credit needs at least two rankers; got {names}"
        raise InvalidDataError(msg)
    return pl.concat(parts).with_columns(
        win=(diff > tol).cast(pl.Int64), loss=(diff < -tol).cast(pl.Int64),
        tie=(diff.abs() <= tol).cast(pl.Int64))
