"""Examination propensities (``polars_rank.online``): against plain-Python references.

Every estimator's point estimate equals the reference written from its paper
(tests/propensity_reference.py) to 1e-9 on simulated logs; results do not depend on
the order of the rows or on the number of threads; lazy and eager logs give the same
frame; bad logs raise ``InvalidDataError`` naming the column and the impression, or
the positions that cannot be estimated.
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rank.errors import InvalidDataError
from polars_rank.online import (
    harvested_propensities,
    regression_em_propensities,
    swap_propensities,
)
from tests import propensity_reference as ref
from tests.propensity_logs import simulate

TOL = 1e-9


def _close(ours: pl.DataFrame, theirs: dict[int, float]) -> float:
    """The largest absolute difference; the positions must be the same."""
    got = dict(zip(ours["position"].to_list()[1:], ours["propensity"].to_list()[1:],
                   strict=True))
    assert sorted(got) == sorted(theirs)
    assert ours["propensity"][0] == 1.0
    return max(abs(got[k] - theirs[k]) for k in theirs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_swap_equals_the_reference(seed: int) -> None:
    log = simulate("swap", impressions=400, depth=5, seed=seed)
    ours = swap_propensities(log, n_resamples=0)
    assert _close(ours, ref.swap_reference(log.to_dicts())) <= TOL


@pytest.mark.parametrize(("seed", "top_n"), [(0, None), (1, 3), (2, 5)])
def test_randtop_equals_the_reference(seed: int, top_n: int | None) -> None:
    log = simulate("randtop", impressions=300, depth=5, seed=seed)
    ours = swap_propensities(log, design="randtop", top_n=top_n, n_resamples=0)
    assert _close(ours, ref.randtop_reference(log.to_dicts(), top_n or 5)) <= TOL


@pytest.mark.parametrize(("seed", "ranker"), [(0, "ranker"), (1, "ranker"), (2, None)])
def test_harvesting_equals_the_reference(seed: int, ranker: str | None) -> None:
    log = simulate("rankers", impressions=300, depth=4, seed=seed, queries=12)
    ours = harvested_propensities(log, ranker=ranker, n_resamples=0)
    assert _close(ours, ref.harvest_reference(log.to_dicts(), ranker)) <= TOL


@pytest.mark.parametrize("seed", [5, 7])
def test_harvesting_on_the_boundary_equals_the_reference(seed: int) -> None:
    # small logs with near-certain examination: some harvested cells have clicks and
    # no non-clicks, so the constraint p_k r_kk' <= 1 binds there
    log = simulate("rankers", impressions=60, depth=3, seed=seed, queries=12,
                   theta=[1.0, 0.95, 0.9])
    c_hat, not_c, last = ref.harvest_counts(log.to_dicts(), "ranker")
    assert any(not_c.get((k, j), 0.0) <= 0 < c_hat.get((k, j), 0.0)
               for k in range(1, last + 1) for j in range(1, last + 1) if k != j)
    ours = harvested_propensities(log, n_resamples=0)
    assert _close(ours, ref.harvest_reference(log.to_dicts(), "ranker")) <= TOL
    boot = harvested_propensities(log, n_resamples=50, seed=58)
    assert boot["ci_low"].drop_nulls().is_finite().all()
    assert (boot["ci_low"] <= boot["propensity"]).all()
    assert (boot["propensity"] <= boot["ci_high"]).all()


def test_harvesting_counts_only_different_rankers() -> None:
    # one ranker that puts x at 1 and at 2 in different impressions: no intervention
    log = simulate("rankers", impressions=200, depth=3, seed=4, queries=6, rankers=2)
    mixed = log.with_columns(pl.lit(0).alias("ranker"))
    with pytest.raises(InvalidDataError, match=r"position\(s\) 2, 3"):
        harvested_propensities(mixed, n_resamples=0)
    ours = harvested_propensities(mixed, ranker=None, n_resamples=0)
    assert _close(ours, ref.harvest_reference(mixed.to_dicts(), None)) <= TOL


@pytest.mark.parametrize("seed", [0, 1])
def test_em_equals_the_reference(seed: int) -> None:
    log = simulate("rankers", impressions=300, depth=4, seed=seed, queries=12)
    ours = regression_em_propensities(log, iterations=15, n_resamples=0)
    assert _close(ours, ref.em_reference(log.to_dicts(), 15)) <= TOL


@pytest.mark.parametrize("seed", [0, 1])
def test_regression_em_equals_the_reference(seed: int) -> None:
    log = simulate("rankers", impressions=300, depth=4, seed=seed, queries=12,
                   features=True)
    ours = regression_em_propensities(log, features=["f1", "f2"], iterations=10,
                                      newton_steps=2, n_resamples=0)
    theirs = ref.em_reference(log.to_dicts(), 10, ["f1", "f2"], newton_steps=2)
    assert _close(ours, theirs) <= TOL


# ----------------------------------------------------------------- invariance, shapes
CALLS = {
    "swap": lambda log: swap_propensities(log, n_resamples=50, seed=3),
    "swap-query": lambda log: swap_propensities(log, n_resamples=50, seed=3,
                                                resample="query"),
    "randtop": lambda log: swap_propensities(log, design="randtop", n_resamples=50),
    "harvest": lambda log: harvested_propensities(log, n_resamples=50, seed=3),
    "em": lambda log: regression_em_propensities(log, iterations=5, n_resamples=5, seed=3),
    "regression-em": lambda log: regression_em_propensities(
        log, features=["f1"], iterations=5, n_resamples=5, seed=3),
}
DESIGN = {"swap": "swap", "swap-query": "swap", "randtop": "randtop", "harvest": "rankers",
          "em": "rankers", "regression-em": "rankers"}


@pytest.mark.parametrize("name", list(CALLS))
def test_row_order_and_laziness_change_nothing(name: str) -> None:
    log = simulate(DESIGN[name], impressions=300, depth=4, seed=5, queries=12,
                   features=True)
    first = CALLS[name](log)
    assert first.columns == ["position", "propensity", "ci_low", "ci_high"]
    assert first["position"].to_list() == [1, 2, 3, 4]
    assert first["ci_low"].null_count() == 0
    assert (first["ci_low"] <= first["propensity"]).all()
    assert (first["propensity"] <= first["ci_high"]).all()
    shuffled = log.sample(fraction=1.0, shuffle=True, seed=9)
    assert_frame_equal(CALLS[name](shuffled.lazy()), first, check_exact=True)
    assert_frame_equal(CALLS[name](log), first, check_exact=True)


def test_the_seed_moves_the_interval_only() -> None:
    log = simulate("swap", impressions=300, depth=3, seed=6)
    a = swap_propensities(log, n_resamples=50, seed=1)
    b = swap_propensities(log, n_resamples=50, seed=2)
    assert a["propensity"].to_list() == b["propensity"].to_list()
    assert a["ci_low"].to_list() != b["ci_low"].to_list()


# --------------------------------------------------------------------------- bad input
def _swap_log() -> pl.DataFrame:
    return simulate("swap", impressions=60, depth=3, seed=7)


@pytest.mark.parametrize("call", [
    lambda log: swap_propensities(log, n_resamples=0),
    lambda log: harvested_propensities(log, n_resamples=0),
    lambda log: regression_em_propensities(log, n_resamples=0),
])
def test_bad_clicks_and_positions_name_the_impression(call: object) -> None:
    log = _swap_log()
    bad = log.with_columns(pl.when((pl.col("impression") == 17) & (pl.col("position") == 2))
                           .then(2).otherwise(pl.col("click")).alias("click"))
    with pytest.raises(InvalidDataError, match=r"'click'.* 0 or 1, got 2 in impression 17"):
        call(bad)  # type: ignore[operator]
    gap = log.filter(~((pl.col("impression") == 23) & (pl.col("position") == 2)))
    with pytest.raises(InvalidDataError, match=r"'position'.*impression 23 has 2 rows"):
        call(gap)  # type: ignore[operator]
    twice = log.with_columns(pl.when(pl.col("impression") == 31).then(1)
                             .otherwise(pl.col("position")).alias("position"))
    with pytest.raises(InvalidDataError, match="impression 31"):
        call(twice)  # type: ignore[operator]
    with pytest.raises(InvalidDataError, match="no column 'item'"):
        harvested_propensities(log.drop("item"))
    nulls = log.with_columns(pl.when(pl.col("impression") == 5).then(None)
                             .otherwise(pl.col("click")).alias("click"))
    with pytest.raises(InvalidDataError, match=r"null .click..*impression 5"):
        call(nulls)  # type: ignore[operator]


def test_a_swap_that_is_not_one_names_the_impression() -> None:
    log = _swap_log()
    three = log.with_columns(
        pl.when(pl.col("impression") == 11).then(pl.col("position") % 3 + 1)
        .otherwise(pl.col("logged_position")).alias("logged_position"))
    with pytest.raises(InvalidDataError, match="'logged_position': impression 11"):
        swap_propensities(three, n_resamples=0)


def test_positions_without_interventions_are_named() -> None:
    log = _swap_log()
    never3 = log.filter(pl.col("impression").is_in(
        log.filter((pl.col("logged_position") == 1) & (pl.col("position") == 3))
        ["impression"].implode()).not_())
    with pytest.raises(InvalidDataError, match=r"position\(s\) 3: .*cannot be estimated"):
        swap_propensities(never3, n_resamples=0)
    controls = log.filter(pl.col("impression").is_in(
        log.filter((pl.col("logged_position") == 1) & (pl.col("position") == 1))
        ["impression"].implode()).not_())
    with pytest.raises(InvalidDataError, match=r"position\(s\) 2, 3: no control"):
        swap_propensities(controls, n_resamples=0)
    one = simulate("rankers", impressions=100, depth=3, seed=8, queries=5, rankers=1)
    with pytest.raises(InvalidDataError, match=r"position\(s\) 2, 3"):
        harvested_propensities(one, n_resamples=0)
    fixed = one.with_columns((pl.col("position") * 100 + pl.col("item")).alias("item"))
    with pytest.raises(InvalidDataError, match=r"position\(s\) 2, 3: no \(query, item\)"):
        regression_em_propensities(fixed, n_resamples=0)


def test_swap_without_clicks_at_position_1_raises_as_randtop() -> None:
    # the swap design returned NaN propensities (null bounds) where randtop raised
    log = _swap_log()
    for design in ("swap", "randtop"):
        for frame in (log.with_columns(pl.lit(0).alias("click")),
                      log.with_columns(pl.when(pl.col("position") == 1).then(0)
                                       .otherwise(pl.col("click")).alias("click"))):
            with pytest.raises(InvalidDataError,
                               match=r"position\(s\) 2, 3: no click at position 1"):
                swap_propensities(frame, design=design, n_resamples=0)


def test_parameters_are_checked() -> None:
    log = _swap_log()
    with pytest.raises(ValueError, match="design must be"):
        swap_propensities(log, design="pairs")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_resamples"):
        swap_propensities(log, n_resamples=-1)
    with pytest.raises(ValueError, match="alpha"):
        harvested_propensities(log, alpha=1.5)
    with pytest.raises(ValueError, match="iterations"):
        regression_em_propensities(log, iterations=0)
    constant = log.with_columns(pl.lit(3.0).alias("f"))
    with pytest.raises(InvalidDataError, match=r"features \['f'\] cannot be fitted"):
        regression_em_propensities(constant, features=["f"], n_resamples=0)
    with pytest.raises(InvalidDataError, match=r"column .text. must be numeric"):
        regression_em_propensities(log.with_columns(pl.col("item").cast(pl.String).alias("text")),
                                   features=["text"], n_resamples=0)
    with pytest.raises(ValueError, match=r"features must be other columns than the log's"):
        regression_em_propensities(log, features=["item"], n_resamples=0)


def test_the_interval_leaves_the_estimate_alone() -> None:
    # the resamples' EM runs in the same frames as the estimate's: no sum may notice
    log = simulate("rankers", impressions=300, depth=4, seed=10, queries=12, features=True)
    for features in (None, ["f1", "f2"]):
        alone = regression_em_propensities(log, features=features, iterations=8,
                                           n_resamples=0)
        beside = regression_em_propensities(log, features=features, iterations=8,
                                            n_resamples=7)
        assert alone["propensity"].to_list() == beside["propensity"].to_list()
    alone = harvested_propensities(log, n_resamples=0)
    beside = harvested_propensities(log, n_resamples=30)
    assert alone["propensity"].to_list() == beside["propensity"].to_list()


def test_a_query_or_ranker_changing_within_an_impression_is_named() -> None:
    log = simulate("rankers", impressions=60, depth=3, seed=9, queries=5)
    moved = log.with_columns(pl.when((pl.col("impression") == 14) & (pl.col("position") == 2))
                             .then(pl.col("ranker") + 1).otherwise(pl.col("ranker"))
                             .alias("ranker"))
    with pytest.raises(InvalidDataError, match="'ranker' has several values in impression 14"):
        harvested_propensities(moved, n_resamples=0)


_THREADS_SCRIPT = """
import sys
from tests.propensity_logs import simulate
from polars_rank.online import harvested_propensities, regression_em_propensities
log = simulate("rankers", impressions=2000, depth=4, seed=2, queries=30, features=True)
out = [harvested_propensities(log, n_resamples=10),
       regression_em_propensities(log, features=["f1"], n_resamples=2, iterations=5)]
print(repr([o.rows() for o in out]))
"""


def test_one_thread_gives_the_same_bits() -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "POLARS_MAX_THREADS": "1", "PYTHONPATH": str(root)}
    one = subprocess.run([sys.executable, "-c", _THREADS_SCRIPT], env=env, cwd=root,
                         capture_output=True, text=True, check=True).stdout
    log = simulate("rankers", impressions=2000, depth=4, seed=2, queries=30, features=True)
    here = [harvested_propensities(log, n_resamples=10),
            regression_em_propensities(log, features=["f1"], n_resamples=2, iterations=5)]
    assert one.strip() == repr([o.rows() for o in here])
