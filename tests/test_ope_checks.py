"""Bad input to the off-policy estimators: errors naming the rule, the column, the impression."""

from __future__ import annotations

import math
import re

import polars as pl
import pytest

from polars_rank.errors import InvalidDataError
from polars_rank.online import ips_click_metric, off_policy_value

LOG = pl.DataFrame({
    "impression": [1, 1, 2, 2, 3, 3], "position": [1, 2, 1, 2, 1, 2],
    "item": ["a", "b", "b", "c", "a", "c"],
    "reward": [1.0, 0.0, 0.0, 1.0, 1.0, 1.0],
    "pscore": [0.5, 0.4, 0.3, 0.2, 0.5, 0.4], "target": [0.6, 0.2, 0.1, 0.5, 0.6, 0.0],
    "q_hat": [0.5] * 6, "q_hat_target": [0.4] * 6,
})


def raises(frame: pl.DataFrame, column: str, impression: object, **kwargs: object) -> str:
    with pytest.raises(InvalidDataError) as info:
        off_policy_value(frame, **kwargs)  # type: ignore[arg-type]
    message = str(info.value)
    assert f"{column!r}" in message
    assert f"impression {impression!r}" in message
    return message


def change(column: str, row: int, value: object) -> pl.DataFrame:
    values = LOG[column].to_list()
    values[row] = value
    return LOG.with_columns(pl.Series(column, values, dtype=LOG.schema[column]))


@pytest.mark.parametrize(("value", "row"), [(0.0, 2), (1.5, 3), (-0.1, 0), (None, 4),
                                            (float("nan"), 1)])
def test_logging_propensity_outside_zero_one(value: float | None, row: int) -> None:
    message = raises(change("pscore", row, value), "pscore", LOG["impression"][row])
    assert "(0, 1]" in message


def test_target_propensity_outside_zero_one() -> None:
    assert "[0, 1]" in raises(change("target", 5, 1.2), "target", 3)


@pytest.mark.parametrize("positions", [[1, 3], [2, 3], [1, 1]])
def test_positions_not_one_to_n(positions: list[int]) -> None:
    frame = LOG.with_columns(pl.when(pl.col("impression") == 2)
                             .then(pl.Series(positions * 3)).otherwise(pl.col("position"))
                             .alias("position"))
    assert "1..n" in raises(frame, "position", 2)


def test_reward_not_finite() -> None:
    raises(change("reward", 3, float("inf")), "reward", 2)


def test_model_columns_checked_only_when_read() -> None:
    frame = change("q_hat", 0, None)
    off_policy_value(frame, "ips", n_resamples=0)
    raises(frame, "q_hat", 1, estimator="dr")


def test_slate_propensity_is_one_per_impression() -> None:
    frame = LOG.with_columns(pl.lit(0.5).alias("pscore_slate"), pl.lit(0.5).alias("target_slate"))
    off_policy_value(frame, "sips", n_resamples=0)
    raises(change_in(frame, "pscore_slate", 1, 0.25), "pscore_slate", 1, estimator="sips")


def change_in(frame: pl.DataFrame, column: str, row: int, value: float) -> pl.DataFrame:
    values = frame[column].to_list()
    values[row] = value
    return frame.with_columns(pl.Series(column, values))


def test_missing_column_is_named() -> None:
    with pytest.raises(InvalidDataError, match=re.escape("no column 'pscore_cascade'")):
        off_policy_value(LOG, "rips")
    with pytest.raises(InvalidDataError, match=re.escape("no column 'q_hat_target'")):
        off_policy_value(LOG.drop("q_hat_target"), "dm")
    with pytest.raises(InvalidDataError, match=re.escape("no column 'target_rank'")):
        off_policy_value(LOG, "ips", target_rank="target_rank")


def test_support_is_an_error_unless_ignored() -> None:
    candidate = pl.DataFrame({"impression": [2], "position": [None], "item": ["z"],
                              "pscore": [0.0], "target": [0.3]}, schema_overrides={
                                  "position": pl.Int64})
    frame = pl.concat([LOG, candidate], how="diagonal")
    message = raises(frame, "pscore", 2)
    assert "support" in message
    assert "'z'" in message
    shown_only = off_policy_value(LOG, ("ips", "dr"), n_resamples=0)
    ignored = off_policy_value(frame, ("ips", "dr"), support="ignore", n_resamples=0)
    assert ignored["unsupported"].to_list() == [1, 1]
    assert ignored.drop("unsupported").equals(shown_only.drop("unsupported"))
    supported = frame.with_columns(pl.col("pscore").replace(0.0, 0.1))
    assert off_policy_value(supported, "ips", n_resamples=0)["unsupported"].to_list() == [0]


@pytest.mark.parametrize(("column", "value"), [("pscore", float("nan")), ("pscore", 1.5),
                                               ("pscore", -0.1), ("target", float("nan"))])
def test_a_candidate_propensity_is_null_or_in_zero_one(column: str, value: float) -> None:
    """A NaN pscore on a candidate row (pandas' missing value) read as "not 0": the
    candidate passed the support check (unsupported 0, IPS 0.5 with no error)."""
    candidate = pl.DataFrame({"impression": [2], "position": [None], "item": ["z"],
                              "pscore": [0.0], "target": [0.3]}, schema_overrides={
                                  "position": pl.Int64})
    frame = pl.concat([LOG, candidate.with_columns(pl.lit(value).alias(column))],
                      how="diagonal")
    with pytest.raises(InvalidDataError, match=rf"column '{column}' must be null or a "
                                               r"propensity in \[0, 1\] on a candidate row"):
        off_policy_value(frame, "ips", n_resamples=0, support="ignore")
    pytest.importorskip("pandas")
    pandas_log = frame.to_pandas()  # NaN for the missing propensity, as pandas has it
    pandas_log["position"] = pandas_log["position"].astype("Int64")
    with pytest.raises(InvalidDataError, match="candidate row"):
        off_policy_value(pandas_log, "ips", n_resamples=0)


def test_support_with_a_target_ranking() -> None:
    ranked = LOG.with_columns(pl.col("position").alias("target_rank"))
    candidate = pl.DataFrame({"impression": [3], "position": [None], "item": ["q"],
                              "pscore": [0.0], "target_rank": [2]},
                             schema_overrides={"position": pl.Int64})
    frame = pl.concat([ranked, candidate], how="diagonal")
    raises(frame, "pscore", 3, estimator="iips", target_rank="target_rank")
    beyond = frame.with_columns(pl.when(pl.col("position").is_null()).then(5)
                              .otherwise(pl.col("target_rank")).alias("target_rank"))
    off_policy_value(beyond, "iips", target_rank="target_rank")  # ranked below the slate: fine


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"estimator": "ipw"}, "estimator must be among"),
    ({"estimator": ("ips", "ips")}, "twice"),
    ({"alpha": 1.0}, "alpha"),
    ({"n_resamples": -1}, "n_resamples"),
    ({"seed": -1}, "seed"),
    ({"clip": 0.0}, "clip"),
    ({"switch_threshold": -1.0}, "switch_threshold"),
    ({"support": "warn"}, "support"),
    ({"near_zero": 1.0}, "near_zero"),
])
def test_parameters(kwargs: dict[str, object], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        off_policy_value(LOG, **kwargs)  # type: ignore[arg-type]


def test_lazy_in_is_the_same() -> None:
    eager = off_policy_value(LOG, ("ips", "snips", "dr"), n_resamples=100)
    assert eager.equals(off_policy_value(LOG.lazy(), ("ips", "snips", "dr"), n_resamples=100))
    with pytest.raises(TypeError, match="DataFrame or LazyFrame"):
        off_policy_value([1, 2], "ips")


CLICKS = pl.DataFrame({"impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
                       "click": [0, 1, 1, 0], "target_rank": [2, 1, 1, None]})


def test_click_checks() -> None:
    with pytest.raises(InvalidDataError, match=r"'click' must be a click, 0 or 1; impression 2"):
        ips_click_metric(CLICKS.with_columns(pl.Series("click", [0, 1, 2, 0])),
                         examination=[1.0, 0.5])
    with pytest.raises(InvalidDataError, match=r"'position'.*impression 1"):
        ips_click_metric(CLICKS, examination=[1.0])
    with pytest.raises(InvalidDataError, match=r"'position' must be positions 1..n"):
        ips_click_metric(CLICKS.with_columns(pl.Series("position", [1, 2, 2, 3])),
                         examination=[1.0, 0.5, 0.2])
    for bad in ([], [0.0, 0.5], [1.0, 1.5]):
        with pytest.raises(ValueError, match="examination"):
            ips_click_metric(CLICKS, examination=bad)
    with pytest.raises(ValueError, match="metric"):
        ips_click_metric(CLICKS, "ndcg@10", examination=[1.0, 0.5])
    with pytest.raises(ValueError, match="k <= len"):
        ips_click_metric(CLICKS, "clicks@3", examination=[1.0, 0.5])


def test_click_metric_by_hand() -> None:
    out = ips_click_metric(CLICKS, ["clicks@1", "clicks@2", "dcg@1", "dcg"],
                           examination=[1.0, 0.5], n_resamples=0)
    # impression 1: the click at position 2 (1 / 0.5 = 2) on the target's rank 1;
    # impression 2: the click at position 1 on the target's rank 1. Means over 2.
    assert out["estimate"].to_list() == [1.5, 1.5, 1.5, 1.5]
    moved = CLICKS.with_columns(pl.Series("target_rank", [1, 2, 2, 1]))
    out = ips_click_metric(moved, ["clicks@1", "clicks@2", "dcg"], examination=[1.0, 0.5],
                           n_resamples=0)
    expected = [0.0, (0.5 * 2 + 0.5) / 2, (2 + 1) / math.log2(3) / 2]
    assert out["estimate"].to_list() == pytest.approx(expected, abs=1e-15)


def test_click_metric_row_order_and_slices() -> None:
    import numpy as np

    rng = np.random.default_rng(4)
    n, length = 300, 4
    frame = pl.DataFrame({
        "impression": np.repeat(np.arange(n), length),
        "position": np.tile(np.arange(1, length + 1), n),
        "click": rng.binomial(1, 0.3, size=n * length),
        "target_rank": rng.permuted(np.tile(np.arange(1, length + 1), (n, 1)), axis=1).ravel(),
    }).with_columns((pl.col("impression") % 2).alias("half"))
    theta = [1.0, 0.7, 0.4, 0.3]
    first = ips_click_metric(frame, ["clicks@3", "dcg"], examination=theta, group_by="half",
                             n_resamples=300, seed=2)
    shuffled = ips_click_metric(frame.sample(fraction=1.0, shuffle=True, seed=9),
                                ["clicks@3", "dcg"], examination=theta, group_by="half",
                                n_resamples=300, seed=2)
    assert first.equals(shuffled)
    alone = ips_click_metric(frame.filter(pl.col("half") == 1), ["clicks@3", "dcg"],
                             examination=theta, n_resamples=300, seed=2)
    assert first.filter(pl.col("half") == 1).drop("half").drop("ci_low", "ci_high").equals(
        alone.drop("ci_low", "ci_high"))


def test_unsupported_counts_per_slice_from_the_shown_rows() -> None:
    sliced = LOG.with_columns((pl.col("impression") >= 2).alias("late"))
    candidates = pl.DataFrame({"impression": [2, 3, 3], "position": [None, None, None],
                               "item": ["z", "y", "x"], "pscore": [0.0, 0.0, 0.0],
                               "target": [0.3, 0.2, 0.1]},
                              schema_overrides={"position": pl.Int64})  # no slice column
    frame = pl.concat([sliced, candidates], how="diagonal")
    out = off_policy_value(frame, "ips", group_by="late", support="ignore", n_resamples=0)
    assert dict(zip(out["late"], out["unsupported"], strict=True)) == {False: 0, True: 2}


@pytest.mark.parametrize("name", ["unsupported", "estimator", "estimate", "ess", "ci_low",
                                  "n_impressions"])
def test_off_policy_value_group_by_named_like_a_result_column(name: str) -> None:
    # unsupported lost the slice labels silently; the others raised Polars' DuplicateError
    with pytest.raises(ValueError, match=re.escape(
            f"group_by columns may not be named like result columns: ['{name}']")):
        off_policy_value(LOG.with_columns(pl.lit("x").alias(name)), "ips", group_by=name,
                         n_resamples=0)


@pytest.mark.parametrize("name", ["metric", "estimate", "max_weight", "dcg"])
def test_ips_click_metric_group_by_named_like_a_result_column(name: str) -> None:
    # metric and estimate lost the slice labels silently
    log = pl.DataFrame({"impression": [1, 2], "position": [1, 1], "click": [1, 0],
                        "target_rank": [1, 2], name: ["x", "y"]})
    with pytest.raises(ValueError, match=re.escape(
            f"group_by columns may not be named like result columns: ['{name}']")):
        ips_click_metric(log, "dcg", examination=[1.0, 0.5], group_by=name, n_resamples=0)


@pytest.mark.parametrize("name", ["__rows", "num0", "den1", "w0", "ww0", "sw0", "sww2", "mw0",
                                  "near0", "__bad", "__mw"])
def test_group_by_named_like_a_working_column(name: str) -> None:
    """These raised Polars' DuplicateError deep in the plan; a name that only looks alike
    (num, _bad) is a slice like any other."""
    with pytest.raises(ValueError, match=re.escape(f"working columns (num0, den0, w0, ww0, "
                                                   f"sw0, sww0, mw0, near0, ..., or __...): "
                                                   f"['{name}']")):
        off_policy_value(LOG.with_columns(pl.lit("x").alias(name)), ("ips", "snips"),
                         group_by=name, n_resamples=0)
    log = pl.DataFrame({"impression": [1, 2], "position": [1, 1], "click": [1, 0],
                        "target_rank": [1, 2], name: ["x", "y"]})
    with pytest.raises(ValueError, match="working columns"):
        ips_click_metric(log, "dcg", examination=[1.0, 0.5], group_by=name, n_resamples=0)
    want = off_policy_value(LOG, ("ips", "snips"), n_resamples=0)
    for fine in ("num", "_bad"):
        got = off_policy_value(LOG.with_columns(pl.lit("x").alias(fine)), ("ips", "snips"),
                               group_by=fine, n_resamples=0)
        assert got.drop(fine).equals(want)
