"""``probabilistic_lists()``: every list probabilistic interleaving shows, and its probability."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank.online._interleaving.runs import Rankings, check_k

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["probabilistic_lists"]


def probabilistic_lists(
    runs: FrameLike,
    *,
    k: int | None = None,
    tau: float = 3.0,
    query: str | Sequence[str] = "qid",
    system: str = "system",
    doc: str = "docid",
    score: str = "score",
    rank: str | None = None,
) -> pl.DataFrame | pl.LazyFrame:
    """The exact distribution of :func:`interleave`'s ``"probabilistic"`` lists.

    Each list's probability is the sum, over the paths that build it, of the product
    at each position of P(ranker) x P(doc | ranker): 1 / (rankers with documents
    left), times the ranker's softmax 1 / rank^tau over its documents not yet shown.
    The lists are enumerated a position at a time for every query at once (a loop
    over the k positions): there are up to n! / (n - k)! of them for n documents,
    so keep k small. Per-position marginals: group the exploded lists by position
    and document and sum the probabilities.

    Parameters
    ----------
    runs, k, tau, query, system, doc, score, rank
        As :func:`interleave`'s.

    Returns
    -------
    DataFrame or LazyFrame
        One row per (query, list): the query columns, the list (a list column named
        as the ``doc`` column) and ``probability``, most probable first (then by
        list). The probabilities of a query sum to 1.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import probabilistic_lists
    >>> runs = pl.DataFrame({"qid": "q", "system": ["A", "A", "B", "B"],
    ...                      "docid": [0, 1, 1, 2], "rank": [1, 2, 1, 2]})
    >>> d = probabilistic_lists(runs, rank="rank", k=1)
    >>> [(row["docid"], round(row["probability"], 5)) for row in d.iter_rows(named=True)]
    [([1], 0.5), ([0], 0.44444), ([2], 0.05556)]
    """
    check_k(k)
    r = Rankings(runs, query=query, system=system, doc=doc, score=score, rank=rank)
    q = r.query
    limits = r.lengths().select(*q, _limit=pl.col("_len") if k is None
                                else pl.min_horizontal(pl.lit(k), pl.col("_docs")))
    docs = r.frame.select(*q, "_i", "_d", _num=1.0 / pl.col("_r").cast(pl.Float64) ** tau)
    # a state: a prefix (its id _sid within the query, its docs in _path) and its probability
    states = limits.select(*q, "_limit", _sid=pl.lit(0, pl.Int64), _p=pl.lit(1.0),
                           _path=pl.lit([], pl.List(docs.schema["_d"])))
    done: list[pl.DataFrame] = []
    while states.height:
        finished = pl.col("_path").list.len() >= pl.col("_limit")
        done.append(states.filter(finished).select(*q, "_p", "_path"))
        states = states.filter(~finished)
        if not states.height:
            break
        shown = states.select(*q, "_sid", _d=pl.col("_path")).explode("_d").drop_nulls("_d")
        cand = (states.select(*q, "_sid", "_p", "_path", "_limit").join(docs, on=q)
                .join(shown, on=[*q, "_sid", "_d"], how="anti")
                .sort([*q, "_sid", "_i", "_d"])  # one order for every float sum below
                .with_columns(_den=pl.col("_num").sum().over([*q, "_sid", "_i"]),
                              _live=pl.col("_i").n_unique().over([*q, "_sid"])))
        stuck = states.join(cand.select(*q, "_sid").unique(), on=[*q, "_sid"], how="anti")
        done.append(stuck.select(*q, "_p", "_path"))
        states = (cand.with_columns(_p=pl.col("_p") * (pl.col("_num") / pl.col("_den"))
                                    / pl.col("_live").cast(pl.Float64))
                  .group_by([*q, "_sid", "_d"])
                  .agg(group_sum(pl.col("_p")).alias("_p"), pl.col("_path").first(),
                       pl.col("_limit").first())
                  .select(*q, "_limit", "_p",
                          _path=pl.concat_list("_path", "_d"),
                          _sid=pl.struct("_sid", "_d").rank("ordinal").over(q).cast(pl.Int64)))
    out = (pl.concat(done, how="vertical_relaxed")
           .select(*q, pl.col("_path").alias(doc), probability=pl.col("_p"))
           .sort([*q, "probability", doc], descending=[*([False] * len(q)), True, False]))
    return r.out(out)
