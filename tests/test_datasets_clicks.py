"""``pr.datasets.synthetic_click_log``: a click log whose truth is known.

The data of ``notebooks/04_from_clicks_to_decisions.ipynb``. The checks compare the
log with the truth frames it returns (click rates with examination x attractiveness,
propensities with how often the policy shows an item at a position, the exact values
with the logs of each policy), within a few standard errors of sampling, and check
that the random numbers depend on the seed and the row's keys only.
"""

from __future__ import annotations

import math
import random

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank._datasets_clicks import splitmix64, uniform

N, Q, K, M, EPSILON = 20_000, 100, 8, 16, 0.25
Z = 4.5  # standard errors allowed: about one false alarm in 150,000 per check


@pytest.fixture(scope="module")
def data() -> pr.datasets.ClickLog:
    return pr.datasets.synthetic_click_log(N, Q, n_positions=K, n_items=M, epsilon=EPSILON,
                                           seed=7)


def test_splitmix_expression_matches_the_pure_python_generator() -> None:
    # the plan relies on UInt64 arithmetic wrapping around (a canary for a Polars change)
    rnd = random.Random(0)
    states = [0, 1, 2**63, 2**64 - 1] + [rnd.getrandbits(64) for _ in range(200)]
    frame = pl.DataFrame({"key": states}, schema={"key": pl.UInt64})
    seed, stream = 11, "click"
    got = frame.select(uniform(seed, stream, pl.col("key")).alias("u"))["u"].to_list()
    state = splitmix64(((seed * 0x100000001B3) + 4) & (2**64 - 1))
    expected = [((splitmix64(state ^ key) >> 11) + 0.5) * 2.0**-53 for key in states]
    assert got == expected
    assert all(0.0 < u < 1.0 for u in got)


def test_schemas_and_shapes(data: pr.datasets.ClickLog) -> None:
    assert dict(data.log.schema) == {
        "impression": pl.Int64, "query": pl.String, "ranker": pl.String, "position": pl.Int32,
        "item": pl.String, "click": pl.Int8, "propensity": pl.Float64}
    assert data.log.height == N * K
    per_impression = data.log.group_by("impression").agg(
        pl.col("position").sort(), pl.col("item").n_unique(), pl.col("query").n_unique())
    assert per_impression.height == N
    assert (per_impression["position"].to_list()
            == [list(range(1, K + 1))] * N)
    assert set(per_impression["item"]) == {K}
    assert set(per_impression["query"]) == {1}
    assert set(data.log.group_by("impression").agg(pl.col("ranker").n_unique())["ranker"]) \
        == {1}
    assert data.log["item"].str.starts_with(data.log["query"] + "-d").all()
    assert data.attractiveness.height == Q * M
    assert data.examination["examination"].to_list() == [1 / k for k in range(1, K + 1)]
    assert data.rankers.group_by("ranker", "query").agg(pl.col("rank").sort()).height == 2 * Q
    assert set(data.rankers["ranker"]) == {"production", "new"}


def test_same_seed_same_frames_and_another_seed_another_log() -> None:
    a = pr.datasets.synthetic_click_log(500, 20, seed=3)
    b = pr.datasets.synthetic_click_log(500, 20, seed=3)
    c = pr.datasets.synthetic_click_log(500, 20, seed=4)
    for x, y in zip(a, b, strict=True):
        assert_frame_equal(x, y)
    assert not a.log.equals(c.log)
    assert not a.attractiveness.equals(c.attractiveness)


def test_draws_depend_on_the_keys_not_on_the_rows() -> None:
    # a longer log starts with the shorter one, on the same truth
    short = pr.datasets.synthetic_click_log(300, 20, seed=5)
    long = pr.datasets.synthetic_click_log(900, 20, seed=5)
    assert_frame_equal(short.log, long.log.filter(pl.col("impression") < 300))
    assert_frame_equal(short.attractiveness, long.attractiveness)
    assert_frame_equal(short.values, long.values)
    # the same keys in another order draw the same numbers
    keys = pl.DataFrame({"i": range(1000), "d": [i % 7 for i in range(1000)]})
    draw = uniform(2, "shuffle", pl.col("i"), pl.col("d")).alias("u")
    shuffled = keys.sample(fraction=1.0, shuffle=True, seed=1)
    assert_frame_equal(keys.with_columns(draw),
                       shuffled.with_columns(draw).sort("i"))


def _expected(data: pr.datasets.ClickLog) -> pl.DataFrame:
    """The log with each row's true click probability, from the truth frames."""
    return (data.log.join(data.attractiveness, on=["query", "item"])
            .join(data.examination, on="position")
            .with_columns((pl.col("examination") * pl.col("attractiveness")).alias("p")))


@pytest.mark.parametrize("by", ["position", "query"])
def test_click_rates_are_examination_times_attractiveness(
        data: pr.datasets.ClickLog, by: str) -> None:
    groups = _expected(data).group_by(by).agg(
        pl.col("click").sum().alias("clicks"), pl.col("p").sum().alias("mean"),
        (pl.col("p") * (1 - pl.col("p"))).sum().alias("variance"))
    z = (groups["clicks"] - groups["mean"]) / groups["variance"].sqrt()
    assert z.abs().max() < Z, groups.with_columns(z=z)


def test_the_logging_policy_shows_production_or_a_random_ranking(
        data: pr.datasets.ClickLog) -> None:
    production = data.rankers.filter(pl.col("ranker") == "production").select(
        "query", "item", "rank")
    log = data.log.join(production, on=["query", "item"])
    exploit = log.filter(pl.col("ranker") == "production")
    assert (exploit["rank"] == exploit["position"]).all()
    explored = log.filter(pl.col("ranker") == "uniform")
    share = explored["impression"].n_unique() / N
    assert abs(share - EPSILON) < Z * math.sqrt(EPSILON * (1 - EPSILON) / N)
    # a random ranking: every candidate as likely at the top
    top = explored.filter(pl.col("position") == 1).group_by("query").agg(
        pl.len().alias("n"), (pl.col("rank") <= M // 2).sum().alias("upper_half"))
    n, upper = top["n"].sum(), top["upper_half"].sum()
    assert abs(upper / n - 0.5) < Z * math.sqrt(0.25 / n)


def test_propensities_are_how_often_the_policy_shows_the_item_there(
        data: pr.datasets.ClickLog) -> None:
    production = data.rankers.filter(pl.col("ranker") == "production").select(
        "query", "item", "rank")
    log = data.log.join(production, on=["query", "item"])
    at_rank = (1 - EPSILON) + EPSILON / M
    assert log.filter(pl.col("rank") == pl.col("position"))["propensity"].to_list() == \
        pytest.approx([at_rank] * log.filter(pl.col("rank") == pl.col("position")).height)
    assert set(log.filter(pl.col("rank") != pl.col("position"))["propensity"]) == {EPSILON / M}
    # how often an impression shows an item at its production rank: K x that propensity
    count = log.group_by("impression").agg((pl.col("rank") == pl.col("position")).sum())
    c = count["rank"].cast(pl.Float64)
    assert abs(c.mean() - K * at_rank) < Z * c.std() / math.sqrt(N)


def test_ips_with_the_propensities_finds_each_rankers_value(
        data: pr.datasets.ClickLog) -> None:
    # item-position IPS (Li et al. 2018) is unbiased under the PBM with exact propensities
    values = dict(data.values.select("policy", "clicks_per_impression").iter_rows())
    for ranker in ("production", "new"):
        target = data.rankers.filter(pl.col("ranker") == ranker).select("query", "item", "rank")
        per_impression = (
            data.log.join(target, on=["query", "item"])
            .group_by("impression")
            .agg((pl.col("click") * (pl.col("rank") == pl.col("position"))
                  / pl.col("propensity")).sum().alias("ips")))["ips"]
        se = per_impression.std() / math.sqrt(N)
        assert abs(per_impression.mean() - values[ranker]) < Z * se, ranker


def _exact_values(data: pr.datasets.ClickLog) -> dict[str, float]:
    """Each policy's expected clicks per impression, in plain Python from the truth."""
    attract = {(q, d): a for q, d, a in data.attractiveness.iter_rows()}
    theta = dict(data.examination.iter_rows())
    out: dict[str, float] = {}
    for ranker, query, item, _, rank in data.rankers.iter_rows():
        if rank <= K:
            out[ranker] = out.get(ranker, 0.0) + theta[rank] * attract[query, item] / Q
    out["uniform"] = sum(theta.values()) * sum(attract.values()) / (Q * M)
    out["logging"] = (1 - EPSILON) * out["production"] + EPSILON * out["uniform"]
    return out


@pytest.mark.parametrize("policy", ["logging", "production", "new", "uniform"])
def test_each_policys_log_has_its_exact_value(data: pr.datasets.ClickLog, policy: str) -> None:
    exact = _exact_values(data)
    assert data.values["policy"].to_list() == ["logging", "production", "new", "uniform"]
    got = dict(data.values.select("policy", "clicks_per_impression").iter_rows())
    assert got == pytest.approx(exact, rel=1e-12)
    assert data.values["ctr"].to_list() == pytest.approx(
        [exact[p] / K for p in data.values["policy"]], rel=1e-12)
    online = pr.datasets.synthetic_click_log(N, Q, n_positions=K, n_items=M, epsilon=EPSILON,
                                             policy=policy, seed=7)
    assert_frame_equal(online.rankers, data.rankers)
    clicks = online.log.group_by("impression").agg(pl.col("click").sum())["click"]
    assert abs(clicks.mean() - exact[policy]) < Z * clicks.std() / math.sqrt(N)
    # the same users on the same queries whatever the policy
    assert_frame_equal(online.log.select("impression", "query").unique().sort("impression"),
                       data.log.select("impression", "query").unique().sort("impression"))


def test_the_new_ranker_is_better_and_production_better_than_random(
        data: pr.datasets.ClickLog) -> None:
    v = dict(data.values.select("policy", "clicks_per_impression").iter_rows())
    assert v["new"] > v["production"] > v["logging"] > v["uniform"]


def test_examination_as_probabilities() -> None:
    theta = [0.9, 0.7, 0.2]
    data = pr.datasets.synthetic_click_log(50, 5, n_positions=3, n_items=4,
                                           examination=theta, seed=1)
    assert data.examination["examination"].to_list() == theta
    flat = pr.datasets.synthetic_click_log(50, 5, n_positions=3, examination=0.0)
    assert set(flat.examination["examination"]) == {1.0}


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"n_impressions": 0}, ValueError, "n_impressions must be a positive int"),
    ({"n_queries": 2.5}, ValueError, "n_queries must be a positive int"),
    ({"n_positions": 12, "n_items": 10}, ValueError, "n_items must be >= n_positions"),
    ({"epsilon": 1.5}, ValueError, "epsilon must be in"),
    ({"policy": "best"}, ValueError, "policy must be one of"),
    ({"examination": -1.0}, ValueError, "exponent eta"),
    ({"examination": [0.5] * 3}, ValueError, "10 probabilities in"),
    ({"examination": True}, TypeError, "examination must be a number"),
])
def test_bad_parameters(kwargs: dict[str, object], error: type[Exception],
                        match: str) -> None:
    with pytest.raises(error, match=match):
        pr.datasets.synthetic_click_log(**kwargs)  # type: ignore[arg-type]
