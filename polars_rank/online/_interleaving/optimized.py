"""Optimized interleaving (Radlinski & Craswell, WSDM 2013; multileaving: Schuth et al., CIKM 2014).

:func:`optimized_lists` enumerates, for every query at once, the lists the prefix
constraint allows (each position holds some ranker's highest document not yet
shown: a loop over the k positions), gives each document a credit per ranker
(1 / its rank, 1 / (length + 1) where absent: mpkato's ``credit_func="inverse"``), and
finds the distribution over the lists that makes the credit unbiased under random
clicks with the least variance, as mpkato/interleaving's ``Optimized`` does: one
linear programme (SciPy's HiGHS), block-diagonal over the queries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._stats.common import require
from polars_rank.errors import InvalidDataError
from polars_rank.online._interleaving.runs import Rankings, check_k, where

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["optimized_lists", "optimized_pick", "optimized_scores"]


def _candidates(r: Rankings, limits: pl.DataFrame) -> pl.DataFrame:
    """Every prefix-constrained list: ``q..., _path`` (distinct lists of each query)."""
    q = r.query
    docs = r.frame.select(*q, "_i", "_d", "_r")
    states = limits.select(*q, "_limit", _sid=pl.lit(0, pl.Int64),
                           _path=pl.lit([], pl.List(docs.schema["_d"])))
    done: list[pl.DataFrame] = []
    while states.height:
        finished = pl.col("_path").list.len() >= pl.col("_limit")
        done.append(states.filter(finished).select(*q, "_path"))
        states = states.filter(~finished)
        shown = states.select(*q, "_sid", _d=pl.col("_path")).explode("_d").drop_nulls("_d")
        heads = (states.select(*q, "_sid", "_path", "_limit").join(docs, on=q)
                 .join(shown, on=[*q, "_sid", "_d"], how="anti"))
        heads = heads.filter(pl.col("_r") == pl.col("_r").min().over([*q, "_sid", "_i"]))
        stuck = states.join(heads.select(*q, "_sid").unique(), on=[*q, "_sid"], how="anti")
        done.append(stuck.select(*q, "_path"))
        states = (heads.select(*q, "_sid", "_d", "_path", "_limit").unique([*q, "_sid", "_d"])
                  .sort([*q, "_sid", "_d"])
                  .select(*q, "_limit", _path=pl.concat_list("_path", "_d"),
                          _sid=pl.struct("_sid", "_d").rank("ordinal").over(q)
                          .cast(pl.Int64)))
    return pl.concat(done).unique().sort([*q, "_path"])


def optimized_lists(
    runs: FrameLike,
    *,
    k: int | None = None,
    query: str | Sequence[str] = "qid",
    system: str = "system",
    doc: str = "docid",
    score: str = "score",
    rank: str | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """Optimized interleaving's lists and their probabilities (Radlinski & Craswell, 2013).

    The candidates are the lists the prefix constraint allows; each document earns
    ranker j the credit 1 / rank_j (1 / (length_j + 1) where j did not rank it). The
    probabilities p solve mpkato/interleaving's linear programme: sum p = 1, and for
    every prefix length and pair of consecutive rankers the expected cumulative credit
    is equal (random clicks favour no ranker); among those, the least sum of
    p_L x var_L, var_L the spread of the rankers' credits under clicks with
    probability 1 / position. Several solutions can be optimal; HiGHS picks one.
    Needs SciPy (the ``stats`` extra).

    Parameters
    ----------
    runs, k, query, system, doc, score, rank
        As :func:`interleave`'s.

    Returns
    -------
    DataFrame or LazyFrame
        One row per (query, candidate list): the query columns, the list (named as
        the ``doc`` column) and ``probability`` (0 for lists the solution leaves out).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import optimized_lists
    >>> runs = pl.DataFrame({"qid": "q", "system": ["A", "A", "B", "B"],
    ...                      "docid": [1, 2, 2, 3], "rank": [1, 2, 1, 2]})
    >>> d = optimized_lists(runs, rank="rank")
    >>> d["docid"].to_list(), round(d["probability"].sum(), 12)
    ([[1, 2], [2, 1], [2, 3]], 1.0)
    """
    check_k(k)
    require("scipy.optimize", "optimized interleaving")
    r = Rankings(runs, query=query, system=system, doc=doc, score=score, rank=rank)
    q = r.query
    limits = r.lengths().select(*q, _limit=pl.col("_len") if k is None
                                else pl.min_horizontal(pl.lit(k), pl.col("_docs")))
    lists = _candidates(r, limits).with_columns(_col=pl.int_range(pl.len()))
    p = _solve(r, lists, limits)
    out = lists.select(*q, pl.col("_path").alias(doc), probability=pl.Series(p))
    return r.out(out)


def optimized_pick(r: Rankings, limits: pl.DataFrame, u: pl.Expr) -> pl.DataFrame:
    """Each query's list drawn from the distribution with the coin ``u``.

    Rows ``q..., position, _d, _i`` (``_i`` null: optimized interleaving has no teams).
    """
    require("scipy.optimize", "optimized interleaving")
    q = r.query
    lists = _candidates(r, limits).with_columns(_col=pl.int_range(pl.len()))
    lists = lists.with_columns(_p=pl.Series(_solve(r, lists, limits)))
    chosen = (lists.with_columns(_cum=pl.col("_p").cum_sum().over(q), _u=u)
              .filter(pl.col("_p") > 0)
              .filter((pl.col("_cum") > pl.col("_u"))
                      | (pl.col("_col") == pl.col("_col").max().over(q)))
              .filter(pl.col("_col") == pl.col("_col").min().over(q)))
    return (chosen.select(*q, _d="_path").with_columns(position=pl.int_ranges(
        1, pl.col("_d").list.len() + 1)).explode("_d", "position")
        .with_columns(_i=pl.lit(None, pl.Int64)))


def optimized_scores(shown: pl.DataFrame, r: Rankings) -> pl.DataFrame:
    """Wide credits ``_m, _s0, _s1, ...``, mpkato's ``compute_scores``.

    Each ranker's 1 / rank of the clicked docs (1 / (length + 1) where it did not
    rank them).
    """
    q = r.query
    n = len(r.names)
    inverse = 1.0 / pl.col("_r").cast(pl.Float64)
    per_doc = (r.frame.select(*q, "_d", *(pl.when(pl.col("_i") == j).then(inverse)
                                          .alias(f"_x{j}") for j in range(n)))
               .group_by([*q, "_d"]).agg(pl.col(f"_x{j}").max() for j in range(n)))
    absent = (r.frame.select(*q, *((pl.col("_i") == j).cast(pl.Float64).alias(f"_a{j}")
                                   for j in range(n)))
              .group_by(q).agg((1.0 / (pl.col(f"_a{j}").sum() + 1.0)).alias(f"_a{j}")
                               for j in range(n)))
    return (shown.filter(pl.col("_c") == 1).select("_m", *q, "_pos", "_d")
            .join(per_doc, on=[*q, "_d"], how="left").join(absent, on=q, how="left")
            .sort("_m", "_pos")
            .select("_m", *(pl.col(f"_x{j}").fill_null(pl.col(f"_a{j}")).alias(f"_s{j}")
                            for j in range(n)))
            .group_by("_m").agg(group_sum(pl.col(f"_s{j}")).alias(f"_s{j}") for j in range(n)))


def _solve(r: Rankings, lists: pl.DataFrame, limits: pl.DataFrame) -> Any:
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    q = r.query
    # a query's rankers are those with a row for it; _li numbers them 0, 1, ...
    lengths = (r.frame.group_by([*q, "_i"]).agg(_len=pl.len())
               .with_columns(_li=pl.col("_i").rank("dense").over(q).cast(pl.Int64) - 1,
                             _nq=pl.len().over(q).cast(pl.Int64)))
    # one row per (list, position, ranker): the doc's credit and its running sum
    cells = (lists.select(*q, "_col", _d="_path").with_columns(_pos=pl.int_ranges(
        pl.col("_d").list.len())).explode("_d", "_pos")
        .join(lengths, on=q)
        .join(r.frame.select(*q, "_i", "_d", "_r"), on=[*q, "_i", "_d"], how="left")
        .with_columns(_credit=1.0 / pl.col("_r").fill_null(pl.col("_len").fill_null(0) + 1)
                      .cast(pl.Float64))
        .sort("_col", "_i", "_pos")
        .with_columns(_cum=pl.col("_credit").cum_sum().over("_col", "_i")))
    # the sensitivity: sum over rankers of (sum_pos credit / (pos + 1) - mu)^2
    per = (cells.with_columns(_w=pl.col("_credit") / (pl.col("_pos") + 1).cast(pl.Float64))
           .group_by("_col", "_i").agg(_v=group_sum(pl.col("_w"))))
    per = per.with_columns(_mu=group_sum(pl.col("_v")).over("_col")
                           / pl.len().over("_col").cast(pl.Float64))
    var = (per.sort("_col", "_i").group_by("_col")
           .agg(_var=group_sum((pl.col("_v") - pl.col("_mu")) ** 2)).sort("_col"))
    # constraints: per query, sum p = 1 (row 0) and, per prefix length and pair of
    # consecutive rankers, sum p x (cum credit of i - of i + 1) = 0
    nq = lengths.group_by(q).agg(_nq=pl.col("_nq").first())
    block = pl.col("_limit").cast(pl.Int64) * (pl.col("_nq") - 1) + 1
    qrow = (limits.join(nq, on=q).sort(q)
            .select(*q, "_limit", _size=block, _base=block.cum_sum() - block))
    diffs = (cells.join(cells.select("_col", "_pos", _lj="_li", _next="_cum"),
                        on=["_col", "_pos"])
             .filter(pl.col("_lj") == pl.col("_li") + 1)
             .join(qrow, on=q)
             .select(_row=pl.col("_base") + 1 + pl.col("_li") * pl.col("_limit")
                     + pl.col("_pos"),
                     _col="_col", _val=pl.col("_cum") - pl.col("_next")))
    ones = lists.join(qrow, on=q).select(_row="_base", _col="_col",
                                           _val=pl.lit(1.0))
    entries = pl.concat([ones, diffs.with_columns(pl.col("_row").cast(ones.schema["_row"]))])
    rows = int(qrow.select((pl.col("_base") + pl.col("_size")).max()).item())
    a_eq = coo_matrix((entries["_val"].to_numpy(), (entries["_row"].to_numpy(),
                                                    entries["_col"].to_numpy())),
                      shape=(rows, lists.height)).tocsr()
    b_eq = np.zeros(rows)
    b_eq[qrow["_base"].to_numpy()] = 1.0
    res = linprog(var["_var"].to_numpy(), A_eq=a_eq, b_eq=b_eq, bounds=(0, 1),
                  method="highs")
    if not res.success:
        # only to name the query: the blocks solved one by one, until one fails
        for start, size in zip(qrow["_base"].to_list(), qrow["_size"].to_list(), strict=True):
            cols = np.unique(a_eq[start:start + size].indices)
            one = linprog(var["_var"].to_numpy()[cols], A_eq=a_eq[start:start + size][:, cols],
                          b_eq=b_eq[start:start + size], bounds=(0, 1), method="highs")
            if not one.success:
                at = qrow.filter(pl.col("_base") == start)
                msg = ("optimized interleaving: no distribution over the prefix-constrained "
                       "lists makes the credit unbiased (an infeasible programme, as in "
                       f"mpkato/interleaving) at {where(at, q)}")
                raise InvalidDataError(msg)
        msg = f"optimized interleaving: the programme failed ({res.message})"
        raise InvalidDataError(msg)
    return np.clip(res.x, 0.0, 1.0)

