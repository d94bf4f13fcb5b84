"""The shapes recommender data comes in, as the run and qrels :func:`evaluate` reads.

polars-rank's data model is one row per (query, document). Recommender pipelines
often hold one row per user instead, with list columns: the recommended item ids
in rank order and the relevant (held-out) item ids, the only input Spark's
``RankingMetrics`` takes; or they have no labels at all, only a log of held-out
interactions. :func:`from_lists` and :func:`qrels_from_interactions` turn both into
the (run, qrels) pair every entry point reads, as lazy Polars plans (lazy in, lazy
out), so every metric of the registry gives the same number on either shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, TypeVar

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence


__all__ = ["RunQrels", "from_lists", "qrels_from_interactions"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


class RunQrels(NamedTuple):
    """A run and its qrels: ``pr.evaluate(*pair, metrics, query=...)`` unpacks them."""

    run: pl.DataFrame | pl.LazyFrame
    """One row per (user, recommended item): the user, the frame's other columns
    (slices, arms), the item id and its score (higher is better)."""
    qrels: pl.DataFrame | pl.LazyFrame
    """One row per (user, relevant item): the user, the item id and its label."""


def _column(frame: pl.LazyFrame, name: object, param: str) -> str:
    if not isinstance(name, str):
        msg = f"{param} must be a column name, got {name!r}"
        raise TypeError(msg)
    schema = frame.collect_schema()
    if name not in schema:
        msg = (f"the frame has no column {name!r} (named by {param}=); "
               f"its columns are {list(schema)}")
        raise InvalidDataError(msg)
    return name


def _users(frame: pl.LazyFrame, user: object) -> list[str]:
    """``user=``: one column name or a list of them, each in the frame."""
    if isinstance(user, str):
        return [_column(frame, user, "user")]
    if not isinstance(user, (list, tuple)) or not user:
        msg = f"user must be a column name or a list of column names, got {user!r}"
        raise TypeError(msg)
    return [_column(frame, u, "user") for u in user]


def _list_column(frame: pl.LazyFrame, name: object, param: str) -> str:
    column = _column(frame, name, param)
    dtype = frame.collect_schema()[column]
    if not isinstance(dtype, (pl.List, pl.Array)):
        msg = (f"{param}={column!r} must be a list column (one list per user), "
               f"got {dtype}")
        raise InvalidDataError(msg)
    return column


def _problems(user: list[str], recommended: str, relevant: str, relevance: str | None,
              scores: str | None) -> list[tuple[str, pl.Expr]]:
    """(problem, row mask) for the rows of a list-shaped frame."""

    def no_value(c: str) -> pl.Expr:
        return pl.col(c).list.drop_nulls().list.len() < pl.col(c).list.len()

    rules: list[tuple[str, pl.Expr]] = [
        ("null user id", pl.any_horizontal(pl.col(u).is_null() for u in user)),
    ]
    for column, what in ((recommended, "recommended"), (relevant, "relevant"),
                         (relevance, "relevance"), (scores, "scores")):
        if column is None:
            continue
        rules.append((f"null {what} list in column {column!r} (an empty list is valid)",
                      pl.col(column).is_null()))
        rules.append((f"null value in the {what} list {column!r}", no_value(column)))
    for column, what in ((recommended, "recommended"), (relevant, "relevant")):
        rules.append((f"an item id twice in the {what} list {column!r}",
                      pl.col(column).list.n_unique() < pl.col(column).list.len()))
    if relevance is not None:
        rules.append((f"relevance list {relevance!r} not as long as the relevant list "
                      f"{relevant!r}",
                      pl.col(relevance).list.len() != pl.col(relevant).list.len()))
    if scores is not None:
        rules.append((f"scores list {scores!r} not as long as the recommended list "
                      f"{recommended!r}",
                      pl.col(scores).list.len() != pl.col(recommended).list.len()))
    # one user on several rows (arms): each row must hold the same relevant ids (a
    # label that differs is a duplicate (user, item) qrels row, which evaluate() names)
    rules.append(("a user with different relevant lists on two rows",
                  pl.col(relevant).list.sort().hash().n_unique().over(user) > 1))
    return rules


def _check(frame: pl.LazyFrame, user: list[str], rules: list[tuple[str, pl.Expr]]) -> None:
    """Raise :class:`InvalidDataError` at the first row breaking a rule, naming the user."""
    found = frame.select(
        pl.struct(user).filter(mask.fill_null(False)).first().alias(f"{i}")
        for i, (_, mask) in enumerate(rules)
    ).collect()
    for i, (problem, _) in enumerate(rules):
        row = found[f"{i}"][0]
        if row is not None:
            where = ", ".join(f"{c}={v!r}" for c, v in row.items())
            msg = f"{problem}: first at {where}"
            raise InvalidDataError(msg)


def from_lists(
    frame: FrameT,
    *,
    user: str | Sequence[str] = "user",
    recommended: str = "recommended",
    relevant: str = "relevant",
    relevance: str | None = None,
    scores: str | None = None,
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    validate: bool = True,
) -> RunQrels:
    """A frame of one row per user with list columns, as a run and its qrels.

    Each row holds a user's ``recommended`` item ids in rank order (best first) and
    the ``relevant`` item ids (the held-out items; Spark ``RankingMetrics``' pair of
    arrays), optionally their graded labels (``relevance``, aligned with
    ``relevant``, Spark's third array) and the recommended items' scores
    (``scores``, aligned with ``recommended``). The run has one row per recommended
    item, the qrels one per relevant item, so that :func:`evaluate` and every metric
    give the numbers of the row shape:

    * a recommended item in the relevant list gets its label (1 without
      ``relevance``); one not in it is *unjudged* (no qrels row): non-relevant for
      every metric, and counted as unjudged by ``bpref``, ``infAP``, ``judged@k``;
      a relevant id with label 0 is judged non-relevant;
    * relevant items not recommended count for the ideal ranking and recall;
    * without ``scores``, the list order is the ranking (the first item scores the
      list's length, the last 1, so no two tie); with ``scores``, the scores rank
      the items, and equal scores follow :func:`evaluate`'s ``ties``;
    * the frame's other columns (arm, segment) are kept on every run row, for
      ``group_by``; a user on several rows (one per arm) must have the same
      relevant list on each, read once;
    * an empty list is valid (a user without recommendations, or without held-out
      items, whom :func:`evaluate` skips with a warning, as trec_eval does).

    Parameters
    ----------
    frame
        One row per user (and arm): a DataFrame, LazyFrame or any frame
        :func:`evaluate` reads.
    user
        The user (query) column(s); ``evaluate(..., query=user)``.
    recommended
        List column: the recommended item ids, best first.
    relevant
        List column: the relevant item ids (each once).
    relevance
        List column of labels (numbers >= 0) aligned with ``relevant``; ``None``:
        every relevant item has label 1.
    scores
        List column of the recommended items' scores; ``None``: the list order.
    doc, score, rel
        Names of the item id, score and label columns of the result (the defaults
        are :func:`evaluate`'s).
    validate
        Check the lists first and raise :class:`InvalidDataError` naming the
        problem and the user: a null list or a null inside one, an id twice in a
        list, ``relevance`` / ``scores`` not as long as their id list, a user with
        different relevant lists on two rows. On a LazyFrame the check reads the
        list columns when ``from_lists`` is called. Labels and scores are checked
        by :func:`evaluate` (negative, NaN).

    Returns
    -------
    RunQrels
        ``(run, qrels)``: lazy in, lazy out.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> df = pl.DataFrame({
    ...     "user": ["u1", "u2"],
    ...     "recommended": [["a", "b", "c"], ["d", "a"]],
    ...     "relevant": [["b", "z"], ["d"]],
    ... })
    >>> run, qrels = pr.from_lists(df)
    >>> run
    shape: (5, 3)
    ┌──────┬───────┬───────┐
    │ user ┆ docid ┆ score │
    │ ---  ┆ ---   ┆ ---   │
    │ str  ┆ str   ┆ i64   │
    ╞══════╪═══════╪═══════╡
    │ u1   ┆ a     ┆ 3     │
    │ u1   ┆ b     ┆ 2     │
    │ u1   ┆ c     ┆ 1     │
    │ u2   ┆ d     ┆ 2     │
    │ u2   ┆ a     ┆ 1     │
    └──────┴───────┴───────┘
    >>> pr.evaluate(run, qrels, ["ndcg@3", "recall@3", "mrr"], query="user", per_query=True)
    shape: (2, 4)
    ┌──────┬──────────┬──────────┬─────┐
    │ user ┆ ndcg@3   ┆ recall@3 ┆ mrr │
    │ ---  ┆ ---      ┆ ---      ┆ --- │
    │ str  ┆ f64      ┆ f64      ┆ f64 │
    ╞══════╪══════════╪══════════╪═════╡
    │ u1   ┆ 0.386853 ┆ 0.5      ┆ 0.5 │
    │ u2   ┆ 1.0      ┆ 1.0      ┆ 1.0 │
    └──────┴──────────┴──────────┴─────┘
    """
    lazy_in = isinstance(frame, pl.LazyFrame)
    lazy = as_polars(frame, "frame").lazy()
    users = _users(lazy, user)
    recommended = _list_column(lazy, recommended, "recommended")
    relevant = _list_column(lazy, relevant, "relevant")
    if relevance is not None:
        relevance = _list_column(lazy, relevance, "relevance")
    if scores is not None:
        scores = _list_column(lazy, scores, "scores")
    for name, param in ((doc, "doc"), (score, "score"), (rel, "rel")):
        if not isinstance(name, str):
            msg = f"{param} must be a column name, got {name!r}"
            raise TypeError(msg)
    if validate:
        _check(lazy, users, _problems(users, recommended, relevant, relevance, scores))
    lists = {recommended, relevant, relevance, scores} - {None}
    kept = [c for c in lazy.collect_schema() if c not in lists and c not in (doc, score)]
    ranking = (pl.col(scores) if scores is not None
               else pl.int_ranges(pl.col(recommended).list.len(), 0, -1))
    # an empty list would explode to a row of nulls: such users have no rows
    run = (lazy.filter(pl.col(recommended).list.len() > 0)
           .select(*kept, pl.col(recommended).alias(doc), ranking.alias(score))
           .explode(doc, score))
    labels = pl.col(relevance) if relevance is not None else pl.lit(1, pl.Int32).repeat_by(
        pl.col(relevant).list.len())
    qrels = (lazy.filter(pl.col(relevant).list.len() > 0)
             .select(*users, pl.col(relevant).alias(doc), labels.alias(rel))
             .explode(doc, rel)
             .unique(maintain_order=True))
    if lazy_in:
        return RunQrels(run, qrels)
    return RunQrels(run.collect(), qrels.collect())


def qrels_from_interactions(
    interactions: FrameT,
    *,
    user: str | Sequence[str] = "user",
    item: str = "item",
    doc: str = "docid",
    rel: str = "rel",
) -> FrameT:
    """Held-out interactions (clicks, purchases, plays) as qrels: each one relevance 1.

    A log without explicit labels (one row per interaction: user, item, maybe a
    timestamp or anything else) becomes one qrels row per distinct (user, item)
    with label 1: an item the user interacted with in the held-out period is
    relevant; **repeated interactions count once** (an item bought three times is
    one relevant item, as MS Recommenders' and Spark's relevant-item sets read
    it); every other column is dropped. Items the user did not interact with have
    no qrels row: recommended, they are unjudged, that is non-relevant.

    Parameters
    ----------
    interactions
        One row per interaction.
    user
        The user (query) column(s), kept as they are.
    item
        The item column, renamed ``doc``.
    doc, rel
        Names of the result's item and label columns (:func:`evaluate`'s defaults).

    Returns
    -------
    DataFrame or LazyFrame
        The user column(s), ``doc`` and ``rel`` (Int32, 1), one row per distinct
        (user, item), in order of first interaction. Lazy in, lazy out. A null user
        or item is kept, for :func:`evaluate` to name.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> log = pl.DataFrame({"user": ["u1", "u1", "u1", "u2"],
    ...                     "item": ["b", "z", "b", "d"], "ts": [5, 6, 9, 7]})
    >>> pr.qrels_from_interactions(log)
    shape: (3, 3)
    ┌──────┬───────┬─────┐
    │ user ┆ docid ┆ rel │
    │ ---  ┆ ---   ┆ --- │
    │ str  ┆ str   ┆ i32 │
    ╞══════╪═══════╪═════╡
    │ u1   ┆ b     ┆ 1   │
    │ u1   ┆ z     ┆ 1   │
    │ u2   ┆ d     ┆ 1   │
    └──────┴───────┴─────┘
    """
    lazy_in = isinstance(interactions, pl.LazyFrame)
    lazy = as_polars(interactions, "interactions").lazy()
    users = _users(lazy, user)
    item = _column(lazy, item, "item")
    for name, param in ((doc, "doc"), (rel, "rel")):
        if not isinstance(name, str):
            msg = f"{param} must be a column name, got {name!r}"
            raise TypeError(msg)
    out = (lazy.select(*users, pl.col(item).alias(doc))
           .unique(maintain_order=True)
           .with_columns(pl.lit(1, pl.Int32).alias(rel)))
    return out if lazy_in else out.collect()  # type: ignore[return-value]
