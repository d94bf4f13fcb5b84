"""A simulated search click log whose truth is known (``synthetic_click_log``).

Every random number is a function of the seed, a stream name and the keys of the row
it belongs to (impression, query, item, position), computed by a counter-based
generator (SplitMix64) written as Polars integer arithmetic: the frames do not depend
on row order, thread count or engine, and a longer log starts with the shorter one.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal, NamedTuple

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ClickLog", "synthetic_click_log", "splitmix64", "uniform"]

Policy = Literal["logging", "production", "new", "uniform"]
POLICIES = ("logging", "production", "new", "uniform")
RANKERS = {"production": 1.5, "new": 0.7}  # ranker -> noise of its score around logit(attr)
_MASK = 2**64 - 1
_GAMMA, _MUL1, _MUL2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
# one stream of random numbers per use: the same seed, different draws
_STREAMS = {"query": 1, "explore": 2, "shuffle": 3, "click": 4, "attractiveness": 5,
            "production": 6, "production/2": 7, "new": 8, "new/2": 9}


class ClickLog(NamedTuple):
    """The frames of :func:`synthetic_click_log`: a log and the truth behind it."""

    log: pl.DataFrame
    """``impression, query, ranker, position, item, click, propensity``: one row per shown
    result; ``ranker`` is the ranking shown (``"uniform"``: a random one)."""
    attractiveness: pl.DataFrame
    """``query, item, attractiveness``: the true P(click | examined), per query and item."""
    examination: pl.DataFrame
    """``position, examination``: the true P(examined), per display position."""
    rankers: pl.DataFrame
    """``ranker, query, item, score, rank``: the ``production`` and ``new`` rankers."""
    values: pl.DataFrame
    """``policy, clicks_per_impression, ctr``: each policy's exact expected online value."""


def splitmix64(x: int) -> int:
    """SplitMix64's output for the state ``x`` (pure Python, the reference of the plan)."""
    z = (x + _GAMMA) & _MASK
    z = ((z ^ (z >> 30)) * _MUL1) & _MASK
    z = ((z ^ (z >> 27)) * _MUL2) & _MASK
    return z ^ (z >> 31)


def _mix(z: pl.Expr) -> pl.Expr:
    """:func:`splitmix64` as an expression: UInt64 arithmetic wraps, ``// 2^s`` is ``>> s``."""
    def u64(value: int) -> pl.Expr:
        return pl.lit(value, dtype=pl.UInt64)

    z = z + u64(_GAMMA)
    z = (z ^ (z // u64(2**30))) * u64(_MUL1)
    z = (z ^ (z // u64(2**27))) * u64(_MUL2)
    return z ^ (z // u64(2**31))


def uniform(seed: int, stream: str, *keys: pl.Expr) -> pl.Expr:
    """A uniform draw in (0, 1) for each row, a function of the seed, stream and keys only."""
    state = splitmix64(((seed & _MASK) * 0x100000001B3 + _STREAMS[stream]) & _MASK)
    z = pl.lit(state, dtype=pl.UInt64)
    for key in keys:
        z = _mix(z ^ key.cast(pl.UInt64))
    return ((z // pl.lit(2**11, dtype=pl.UInt64)).cast(pl.Float64) + 0.5) * 2.0**-53


def _normal(seed: int, stream: str, *keys: pl.Expr) -> pl.Expr:
    """A standard normal draw per row (Box-Muller on two of the row's uniforms)."""
    u1, u2 = uniform(seed, stream, *keys), uniform(seed, f"{stream}/2", *keys)
    return (-2.0 * u1.log()).sqrt() * (2.0 * math.pi * u2).cos()


def synthetic_click_log(
    n_impressions: int = 20_000,
    n_queries: int = 200,
    *,
    n_positions: int = 10,
    n_items: int = 20,
    examination: float | Sequence[float] = 1.0,
    epsilon: float = 0.2,
    policy: Policy = "logging",
    seed: int = 0,
) -> ClickLog:
    """Simulate a search engine's click log with a known click model and two rankers.

    Each query has ``n_items`` candidate items with a true attractiveness
    ``0.02 + 0.78 u^3`` (u uniform: most items are unattractive, a few very much so).
    Users follow the position-based model (PBM): they examine position k with
    probability ``examination[k]`` (by default ``1 / k``, a power law ``k^-eta`` for a
    number ``eta``) and click an examined item with its attractiveness, independently.

    Two rankers score every candidate: ``production`` with ``logit(attractiveness)``
    plus normal noise of standard deviation 1.5, ``new`` with noise 0.7 (it is the
    better one). Each impression draws a query uniformly and is shown the top
    ``n_positions`` items of a ``policy``:

    - ``"logging"``: production's ranking, except for an ``epsilon`` share of
      impressions which show a uniformly random ranking of the candidates (the
      stochastic logging policy, so that counterfactual estimators have support);
    - ``"production"``, ``"new"``: that ranker's ranking, on every impression;
    - ``"uniform"``: a uniformly random ranking, on every impression.

    The ``ranker`` column says which ranking an impression drew (``"uniform"`` for a
    random one). The ``propensity`` column is the probability that the policy puts
    that item at that position for that query: ``(1 - epsilon) [production rank =
    position] + epsilon / n_items`` for the logging policy (whichever ranking the
    impression drew), 1 for a ranker, ``1 / n_items`` for the uniform one. The
    queries and the users' random numbers depend on the impression only, so the logs
    of two policies with the same seed are the same users on the same queries (an
    online A/B test with common random numbers).

    Parameters
    ----------
    n_impressions
        Number of impressions (result pages shown).
    n_queries
        Number of distinct queries.
    n_positions
        Results shown per impression.
    n_items
        Candidate items per query (at least ``n_positions``).
    examination
        ``eta`` of the examination probabilities ``k^-eta`` (0: every position is
        examined), or the probabilities themselves, one per position, in (0, 1].
    epsilon
        Share of the logging policy's impressions with a uniformly random ranking.
    policy
        The policy that made the log: ``"logging"``, ``"production"``, ``"new"`` or
        ``"uniform"``.
    seed
        Random seed: the same seed gives the same frames, whatever the machine.

    Returns
    -------
    ClickLog
        ``log``, ``attractiveness``, ``examination``, ``rankers``, ``values``
        (DataFrames). ``values`` holds each policy's exact expected clicks per
        impression and click-through rate per shown result over the uniform query
        distribution: the online value a counterfactual estimate should find.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> data = pr.datasets.synthetic_click_log(2000, 50, n_positions=5, seed=1)
    >>> data.log.head(3)
    shape: (3, 7)
    ┌────────────┬───────┬────────────┬──────────┬─────────┬───────┬────────────┐
    │ impression ┆ query ┆ ranker     ┆ position ┆ item    ┆ click ┆ propensity │
    │ ---        ┆ ---   ┆ ---        ┆ ---      ┆ ---     ┆ ---   ┆ ---        │
    │ i64        ┆ str   ┆ str        ┆ i32      ┆ str     ┆ i8    ┆ f64        │
    ╞════════════╪═══════╪════════════╪══════════╪═════════╪═══════╪════════════╡
    │ 0          ┆ q25   ┆ production ┆ 1        ┆ q25-d10 ┆ 1     ┆ 0.81       │
    │ 0          ┆ q25   ┆ production ┆ 2        ┆ q25-d12 ┆ 0     ┆ 0.81       │
    │ 0          ┆ q25   ┆ production ┆ 3        ┆ q25-d16 ┆ 0     ┆ 0.81       │
    └────────────┴───────┴────────────┴──────────┴─────────┴───────┴────────────┘
    >>> data.values
    shape: (4, 3)
    ┌────────────┬───────────────────────┬──────────┐
    │ policy     ┆ clicks_per_impression ┆ ctr      │
    │ ---        ┆ ---                   ┆ ---      │
    │ str        ┆ f64                   ┆ f64      │
    ╞════════════╪═══════════════════════╪══════════╡
    │ logging    ┆ 0.952582              ┆ 0.190516 │
    │ production ┆ 1.073424              ┆ 0.214685 │
    │ new        ┆ 1.22515               ┆ 0.24503  │
    │ uniform    ┆ 0.469217              ┆ 0.093843 │
    └────────────┴───────────────────────┴──────────┘
    >>> data.log["click"].sum() / 2000  # the logging policy's clicks per impression
    0.9495
    """
    theta = _check_args(n_impressions, n_queries, n_positions, n_items, examination,
                        epsilon, policy)
    width_q, width_d = len(str(n_queries - 1)), len(str(n_items - 1))
    q, d = pl.col("q"), pl.col("d")
    pairs = pl.LazyFrame().select(pl.int_range(n_queries * n_items, dtype=pl.Int64)
                                  .alias("n")).select((pl.col("n") // n_items).alias("q"),
                                                      (pl.col("n") % n_items).alias("d"))
    attract = 0.02 + 0.78 * uniform(seed, "attractiveness", q, d) ** 3
    pairs = pairs.with_columns(attract.alias("attractiveness"))
    logit = (pl.col("attractiveness") / (1.0 - pl.col("attractiveness"))).log()
    rankers = pl.concat([
        pairs.select(pl.lit(name).alias("ranker"), "q", "d",
                     (logit + noise * _normal(seed, name, q, d)).round(4).alias("score"))
        for name, noise in RANKERS.items()])
    # rank by score, then item index (the ids' order), both descending as evaluate() does
    rankers = rankers.with_columns(pl.struct("score", "d").rank("ordinal", descending=True)
                                   .over("ranker", "q").cast(pl.Int32).alias("rank"))
    exam = pl.LazyFrame({"position": list(range(1, n_positions + 1)), "examination": theta},
                        schema={"position": pl.Int32, "examination": pl.Float64})
    impressions = pl.LazyFrame().select(pl.int_range(n_impressions, dtype=pl.Int64)
                                        .alias("impression"))
    i = pl.col("impression")
    impressions = impressions.with_columns(
        (uniform(seed, "query", i) * n_queries).floor().cast(pl.Int64).alias("q"),
        (uniform(seed, "explore", i) < (epsilon if policy == "logging" else
                                        1.0 if policy == "uniform" else 0.0))
        .alias("explore"))
    shown = _shown(impressions, rankers, policy if policy in RANKERS else "production",
                   n_items, n_positions, seed)
    production = rankers.filter(pl.col("ranker") == "production").select(
        "q", "d", pl.col("rank").alias("production_rank"))
    propensity = {
        "logging": (1.0 - epsilon) * (pl.col("production_rank") == pl.col("position"))
        + epsilon / n_items,
        "uniform": pl.lit(1.0 / n_items),
    }.get(policy, pl.lit(1.0))
    click = uniform(seed, "click", i, pl.col("position")) < (
        pl.col("examination") * pl.col("attractiveness"))
    log = (shown.join(pairs, on=["q", "d"]).join(exam, on="position")
           .join(production, on=["q", "d"])
           .select("impression", _qid(width_q).alias("query"), "ranker", "position",
                   _item(width_q, width_d).alias("item"), click.cast(pl.Int8).alias("click"),
                   propensity.cast(pl.Float64).alias("propensity"))
           .sort("impression", "position"))
    values = _values(pairs, rankers, exam, epsilon, n_queries, n_items, n_positions)
    frames = pl.collect_all([
        log,
        pairs.select(_qid(width_q).alias("query"), _item(width_q, width_d).alias("item"),
                     "attractiveness").sort("query", "item"),
        exam,
        rankers.select("ranker", _qid(width_q).alias("query"),
                       _item(width_q, width_d).alias("item"), "score", "rank")
        .sort("ranker", "query", "rank", descending=[True, False, False]),
        values,
    ])
    return ClickLog(*frames)


def _qid(width: int) -> pl.Expr:
    return pl.format("q{}", pl.col("q").cast(pl.String).str.zfill(width))


def _item(width_q: int, width_d: int) -> pl.Expr:
    return pl.format("{}-d{}", _qid(width_q), pl.col("d").cast(pl.String).str.zfill(width_d))


def _shown(impressions: pl.LazyFrame, rankers: pl.LazyFrame, ranker: str, n_items: int,
           n_positions: int, seed: int) -> pl.LazyFrame:
    """``impression, q, ranker, d, position``: the ranker's top, or a random ranking."""
    top = rankers.filter((pl.col("ranker") == ranker) & (pl.col("rank") <= n_positions))
    exploit = (impressions.filter(~pl.col("explore"))
               .join(top.select("q", "d", pl.col("rank").alias("position")), on="q"))
    items = pl.LazyFrame().select(pl.int_range(n_items, dtype=pl.Int64).alias("d"))
    key = uniform(seed, "shuffle", pl.col("impression"), pl.col("d"))
    explore = (impressions.filter(pl.col("explore")).join(items, how="cross")
               .with_columns(pl.struct(key.alias("key"), "d").rank("ordinal").over("impression")
                             .cast(pl.Int32).alias("position"))
               .filter(pl.col("position") <= n_positions))
    columns = ["impression", "q", "ranker", "d", "position"]
    return pl.concat([exploit.with_columns(pl.lit(ranker).alias("ranker")).select(columns),
                      explore.with_columns(pl.lit("uniform").alias("ranker")).select(columns)])


def _values(pairs: pl.LazyFrame, rankers: pl.LazyFrame, exam: pl.LazyFrame, epsilon: float,
            n_queries: int, n_items: int, n_positions: int) -> pl.LazyFrame:
    """Each policy's exact expected clicks per impression (queries drawn uniformly)."""
    per_ranker = (rankers.join(pairs, on=["q", "d"])
                  .join(exam, left_on="rank", right_on="position")
                  .group_by("ranker")
                  .agg((pl.col("examination") * pl.col("attractiveness")).sort().sum() / n_queries)
                  .rename({"ranker": "policy", "examination": "value"}))
    # sums of sorted terms: the same bits whatever the join's row order
    # a uniformly random ranking shows each candidate at each position with P = 1 / n_items
    total_exam = exam.select(pl.col("examination").sum()).collect().item()
    random = pairs.select(pl.lit("uniform").alias("policy"),
                          (pl.col("attractiveness").sort().sum() * total_exam
                           / (n_queries * n_items)).alias("value"))
    both = pl.concat([per_ranker, random])
    value = {row: pl.col("value").filter(pl.col("policy") == row).first()
             for row in ("production", "new", "uniform")}
    logging = both.select(pl.lit("logging").alias("policy"),
                          ((1.0 - epsilon) * value["production"]
                           + epsilon * value["uniform"]).alias("value"))
    order = pl.DataFrame({"policy": list(POLICIES)}).lazy()
    return (order.join(pl.concat([both, logging]), on="policy", how="left",
                       maintain_order="left")
            .select("policy", pl.col("value").alias("clicks_per_impression"),
                    (pl.col("value") / n_positions).alias("ctr")))


def _check_args(n_impressions: int, n_queries: int, n_positions: int, n_items: int,
                examination: float | Sequence[float], epsilon: float,
                policy: str) -> list[float]:
    """Validate the parameters; the examination probability of each position."""
    for name, value in (("n_impressions", n_impressions), ("n_queries", n_queries),
                        ("n_positions", n_positions), ("n_items", n_items)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            msg = f"{name} must be a positive int, got {value!r}"
            raise ValueError(msg)
    if n_items < n_positions:
        msg = f"n_items must be >= n_positions, got {n_items} < {n_positions}"
        raise ValueError(msg)
    if not 0.0 <= epsilon <= 1.0:
        msg = f"epsilon must be in [0, 1], got {epsilon!r}"
        raise ValueError(msg)
    if policy not in POLICIES:
        msg = f"policy must be one of {', '.join(map(repr, POLICIES))}, got {policy!r}"
        raise ValueError(msg)
    if isinstance(examination, bool):
        msg = f"examination must be a number or a sequence of probabilities, got {examination!r}"
        raise TypeError(msg)
    if isinstance(examination, (int, float)):
        if not 0.0 <= examination <= 10.0:
            msg = f"examination (the exponent eta) must be in [0, 10], got {examination!r}"
            raise ValueError(msg)
        return [k ** -float(examination) for k in range(1, n_positions + 1)]
    theta = [float(x) for x in examination]
    if len(theta) != n_positions or not all(0.0 < x <= 1.0 for x in theta):
        msg = (f"examination must be a number or {n_positions} probabilities in (0, 1] "
               f"(one per position), got {examination!r}")
        raise ValueError(msg)
    return theta
