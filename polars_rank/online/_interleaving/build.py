"""``interleave()``: one interleaved list per query from two rankers' runs, or several.

Each method is a step of Polars passes over every query at once: balanced
interleaving is one pass; team-draft and probabilistic fill the lists one position
at a time (a Python loop over the k positions, never over queries), each position a
few ``group_by``/window passes over the documents not yet placed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeAlias

import polars as pl

from polars_rank._engine.params import check_result_names
from polars_rank.online._interleaving.optimized import optimized_pick
from polars_rank.online._interleaving.runs import (
    Rankings,
    check_k,
    priority,
    query_columns,
    uniform,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["interleave", "Method", "METHODS"]

Method: TypeAlias = Literal["team_draft", "balanced", "probabilistic", "optimized"]
METHODS = ("team_draft", "balanced", "probabilistic", "optimized")
"""The interleaving methods: team-draft (and multileaving), balanced, probabilistic, optimized."""

# the coins' streams: which random decision a hash is for
_FIRST, _TEAM, _RANKER, _DOC, _LIST = 0, 1, 2, 3, 4


def _check(method: str, tau: float, seed: int) -> None:
    if method not in METHODS:
        msg = f"method must be one of {', '.join(METHODS)}; got {method!r}"
        raise ValueError(msg)
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not tau >= 0:
        msg = f"tau must be a number >= 0; got {tau!r}"
        raise ValueError(msg)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        msg = f"seed must be an int in [0, 2**64); got {seed!r}"
        raise ValueError(msg)


def interleave(
    runs: FrameLike,
    method: Method = "team_draft",
    *,
    k: int | None = None,
    seed: int = 0,
    tau: float = 3.0,
    query: str | Sequence[str] = "qid",
    system: str = "system",
    doc: str = "docid",
    score: str = "score",
    rank: str | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Interleave the rankers' lists of each query: the list users are shown.

    Methods (as mpkato/interleaving's, which the tests drive with the same coins):

    * ``"team_draft"`` (Radlinski, Kurup & Joachims, CIKM 2008) and, with more than
      two rankers, team-draft multileaving (Schuth et al., CIKM 2014): at each
      position the team with the fewest documents so far (a random one among equal
      teams) adds its highest-ranked document not yet shown.
    * ``"balanced"`` (Joachims, 2003): two rankers; a coin decides who goes first,
      then the lists are merged alternately, skipping documents already shown,
      until one list runs out.
    * ``"probabilistic"`` (Hofmann, Whiteson & de Rijke, CIKM 2011; multileaving,
      Schuth et al., SIGIR 2015): at each position a ranker is drawn uniformly among
      those with documents left, and a document from its softmax over ranks,
      P(d) proportional to 1 / rank(d)^tau among the documents not yet shown.
    * ``"optimized"`` (Radlinski & Craswell, WSDM 2013): a list drawn from
      :func:`optimized_lists`' distribution (``system`` is then null: no teams).

    Every random decision is a coin keyed on (seed, query, position): the lists do
    not depend on row order or threads, and a query's list does not depend on the
    other queries. To draw a list per impression, give ``query`` the impression key
    too (e.g. ``query=["qid", "impression"]`` on runs joined to the impressions).

    Parameters
    ----------
    runs
        A long frame, one row per (query, ranker, document): a DataFrame or LazyFrame
        (or a dict ``{ranker: run}`` of runs without the ``system`` column).
    method
        ``"team_draft"``, ``"balanced"``, ``"probabilistic"`` or ``"optimized"``.
    k
        The interleaved list's length; ``None``: the shortest list's (the
        reference's default). Lists stop earlier when the documents run out.
    seed
        The seed of the coins.
    tau
        Probabilistic interleaving's softmax exponent (3, Hofmann et al.'s choice).
    query, system, doc
        Column names: the query (one name or several), the ranker, the document.
    score, rank
        The ranking: ``score`` (highest first; equal scores by doc id descending, as
        ``evaluate()``), or ``rank`` (a column of positions, 1 first) when given.

    Returns
    -------
    DataFrame or LazyFrame
        One row per (query, position): the query columns, ``position`` (1-based),
        the document and ``system``, the team the document was drawn for (balanced:
        the ranker whose turn placed it; probabilistic: the ranker drawn). Lazy if
        ``runs`` was.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import interleave
    >>> runs = pl.DataFrame({"qid": "q1", "system": ["A"] * 3 + ["B"] * 3,
    ...                      "docid": ["a", "b", "c", "b", "d", "a"],
    ...                      "rank": [1, 2, 3, 1, 2, 3]})
    >>> interleave(runs, "team_draft", rank="rank", seed=1).height
    3
    >>> interleave(runs, "balanced", rank="rank", seed=1)["docid"].sort().to_list()
    ['a', 'b', 'd']
    """
    _check(method, tau, seed)
    check_k(k)
    check_result_names("query, system and doc", [*query_columns(query), system, doc],
                       ["position"])
    r = Rankings(runs, query=query, system=system, doc=doc, score=score, rank=rank)
    if method == "balanced" and len(r.names) != 2:
        msg = f"balanced interleaving takes two rankers; got {len(r.names)}: {r.names}"
        raise ValueError(msg)
    limits = r.lengths().select(*r.query, _limit=pl.col("_len") if k is None
                                else pl.min_horizontal(pl.lit(k), pl.col("_docs")))
    if method == "balanced":
        picks = _balanced(r, limits, seed)
    elif method == "optimized":
        picks = optimized_pick(r, limits, uniform(r.query, seed, 0, _LIST))
    else:
        picks = _stepwise(r, limits, seed, method, float(tau))
    names = pl.Series(r.names)
    out = (picks.sort([*r.query, "position"])
           .select(*r.query, pl.col("position").cast(pl.Int64), pl.col("_d").alias(doc),
                   pl.col("_i").replace_strict(list(range(len(names))), names)
                   .alias(system)))
    return r.out(out)


def _balanced(r: Rankings, limits: pl.DataFrame, seed: int) -> pl.DataFrame:
    """Joachims' merge in one pass, by keys.

    Ranker a's i-th document has key 2i, b's 2i + 1 (the other way round when b goes
    first); the merge stops at the first key past either list's last; a document
    shown twice keeps its first key.
    """
    q = r.query
    a_first = uniform(q, seed, 0, _FIRST) < 0.5
    second = (pl.col("_i") == 0) != a_first
    keyed = r.frame.with_columns(_key=2 * (pl.col("_r") - 1) + second.cast(pl.Int64))
    return (keyed
            .filter(pl.col("_key") <= pl.col("_key").max().over([*q, "_i"]).min().over(q))
            .filter(pl.col("_key") == pl.col("_key").min().over([*q, "_d"]))
            .with_columns(position=pl.col("_key").rank("ordinal").over(q))
            .join(limits, on=q)
            .filter(pl.col("position") <= pl.col("_limit"))
            .select(*q, "position", "_d", "_i"))


def _stepwise(r: Rankings, limits: pl.DataFrame, seed: int, method: str,
              tau: float) -> pl.DataFrame:
    """Team-draft or probabilistic interleaving, one position of every list per pass."""
    q = r.query
    left = r.frame.select(*q, "_i", "_d", "_r",
                          _num=1.0 / pl.col("_r").cast(pl.Float64) ** tau)
    teams = left.select(*q, "_i").unique().with_columns(_n=pl.lit(0, pl.Int64))
    if method == "team_draft":
        # fewer than k documents are ever shown before a pick, so a team's next
        # document is always within its top k: the ones below are never reached
        left = (left.join(limits, on=q).filter(pl.col("_r") <= pl.col("_limit"))
                .drop("_limit"))
    picks: list[pl.DataFrame] = []
    steps = int(limits["_limit"].max() or 0)  # type: ignore[arg-type]
    for step in range(steps):
        live = limits.filter(pl.col("_limit") > step).select(q)
        if method == "team_draft":
            pick = _team_step(left.join(live, on=q), teams, q, seed, step)
            teams = (teams.join(pick.select(*q, "_i", _add=pl.lit(1, pl.Int64)),
                                on=[*q, "_i"], how="left")
                     .select(*q, "_i", _n=pl.col("_n") + pl.col("_add").fill_null(0)))
        else:
            pick = _probabilistic_step(left.join(live, on=q), q, seed, step)
        if pick.height == 0:
            break
        picks.append(pick.select(*q, "_d", "_i", position=pl.lit(step + 1, pl.Int64)))
        left = left.join(pick.select(*q, "_d"), on=[*q, "_d"], how="anti")
    if not picks:
        return r.frame.clear().select(*q, "_d", "_i", position=pl.lit(0, pl.Int64))
    return pl.concat(picks)


def _smallest(frame: pl.DataFrame, column: str, q: list[str]) -> pl.DataFrame:
    return frame.filter(pl.col(column) == pl.col(column).min().over(q))


def _team_step(left: pl.DataFrame, teams: pl.DataFrame, q: list[str], seed: int,
               step: int) -> pl.DataFrame:
    """Each live query's pick: the smallest team's (ties: the smallest priority) next doc."""
    heads = _smallest(left, "_r", [*q, "_i"]).join(teams, on=[*q, "_i"])
    heads = _smallest(heads, "_n", q).with_columns(
        _p=priority(q, seed, step, _TEAM, pl.col("_i")))
    return _smallest(_smallest(heads, "_p", q), "_i", q)


def _probabilistic_step(left: pl.DataFrame, q: list[str], seed: int,
                        step: int) -> pl.DataFrame:
    """A ranker drawn among those with documents left, then a doc by its softmax."""
    rankers = left.select(*q, "_i").unique().with_columns(
        _p=priority(q, seed, step, _RANKER, pl.col("_i")))
    chosen = _smallest(_smallest(rankers, "_p", q), "_i", q).select(*q, "_i")
    rows = (left.join(chosen, on=[*q, "_i"]).sort([*q, "_r"])
            .with_columns(_cum=pl.col("_num").cum_sum().over(q),
                          _u=uniform(q, seed, step, _DOC) * pl.col("_num").sum().over(q)))
    hit = pl.col("_cum") > pl.col("_u")
    first_hit = hit & (hit.cast(pl.Int64).cum_sum().over(q) == 1)
    # the reference's fallback when rounding leaves the draw above the last sum
    fallback = ~hit.any().over(q) & (pl.col("_r") == pl.col("_r").max().over(q))
    return rows.filter(first_hit | fallback)
