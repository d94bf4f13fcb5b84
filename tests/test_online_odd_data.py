"""Odd data through every entry point of polars_rank.online (click models, propensities,
counterfactual estimators): each input either gives the number the plain input gives or
a clear error naming the rule and the column, never a Polars traceback.

Each test pins a fault found by feeding the entry points such data (2026-11-29).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank.online as pro
from polars_rank.errors import InvalidDataError

CLICKS = pl.DataFrame({"impression": [1, 1, 2, 2, 3, 3], "position": [1, 2] * 3,
                       "query": "q", "item": ["a", "b", "b", "a", "a", "b"],
                       "click": [1, 0, 0, 1, 1, 1]})
SLOT = pl.DataFrame({"impression": [1, 2, 3, 4], "position": [1, 1, 1, 1],
                     "reward": [1.0, 0.0, 1.0, 0.0], "pscore": [0.5, 0.5, 0.25, 0.8],
                     "target": [1.0, 0.0, 0.5, 0.4], "q_hat": 0.5, "q_hat_target": 0.4})
SLATE = pl.DataFrame({"impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
                      "reward": [1.0, 0.0, 0.0, 1.0], "pscore": 0.5, "pscore_slate": 0.25,
                      "pscore_cascade": [0.5, 0.25, 0.5, 0.25], "q_hat": 0.5,
                      "q_hat_target": 0.5, "target_rank": [1, 2, 2, 1]})
RANKED = pl.DataFrame({"impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
                       "click": [0, 1, 1, 0], "target_rank": [2, 1, 1, 2]})
SWAP = pl.DataFrame({"impression": [1, 1, 2, 2, 3, 3, 4, 4], "position": [1, 2] * 4,
                     "logged_position": [1, 2, 1, 2, 2, 1, 2, 1],
                     "click": [1, 0, 1, 1, 0, 1, 1, 0]})
RANKERS = pl.DataFrame({"impression": [1, 1, 2, 2, 3, 3, 4, 4],
                        "ranker": ["A"] * 4 + ["B"] * 4, "query": "q",
                        "item": ["x", "y", "x", "y", "y", "x", "y", "x"],
                        "position": [1, 2] * 4, "click": [1, 0, 1, 1, 1, 0, 0, 1]})
ESTIMATORS = ("ips", "snips", "dm", "dr", "switch-dr")


def _pbm() -> pro.ClickModel:
    attr = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "attractiveness": [0.8, 0.3]})
    return pro.ClickModel.from_parameters("pbm", attractiveness=attr,
                                          examination={1: 1.0, 2: 0.5})


# --- pandas in: what evaluate() and the propensities already read ------------------------

def test_pandas_frames_read_as_polars_ones() -> None:
    model = pro.fit_click_model(CLICKS, "dbn", iterations=3)
    from_pandas = pro.fit_click_model(CLICKS.to_pandas(), "dbn", iterations=3)
    for name, table in model.parameters.items():
        assert_frame_equal(from_pandas.parameters[name], table)
    assert model.log_likelihood(CLICKS.to_pandas()) == model.log_likelihood(CLICKS)
    ranking = CLICKS.drop("click")
    assert_frame_equal(pro.simulate_clicks(_pbm(), ranking.to_pandas(), seed=3),
                       pro.simulate_clicks(_pbm(), ranking, seed=3))
    assert_frame_equal(pro.off_policy_value(SLOT.to_pandas(), ESTIMATORS, n_resamples=20),
                       pro.off_policy_value(SLOT, ESTIMATORS, n_resamples=20))
    assert_frame_equal(
        pro.ips_click_metric(RANKED.to_pandas(), "dcg", examination=[1.0, 0.5], n_resamples=0),
        pro.ips_click_metric(RANKED, "dcg", examination=[1.0, 0.5], n_resamples=0))
    with pytest.raises(TypeError, match="log must be"):
        pro.fit_click_model([1, 2], "pbm")


# --- click models ----------------------------------------------------------------------------

@pytest.mark.parametrize("call", ["fit", "log_likelihood", "perplexity", "examination_ubm"])
def test_an_empty_click_log_is_an_error(call: str) -> None:
    empty = CLICKS.clear()
    if call == "fit":
        with pytest.raises(InvalidDataError, match="click log is empty"):
            pro.fit_click_model(empty, "pbm")
        return
    model = pro.fit_click_model(CLICKS, "ubm" if call == "examination_ubm" else "pbm",
                                iterations=2)
    # UBM's examination was a Polars ComputeError (concat_list of nothing)
    method = model.examination if call == "examination_ubm" else getattr(model, call)
    with pytest.raises(InvalidDataError, match="click log is empty"):
        method(empty)


def test_ids_of_another_kind_than_the_models_are_an_error() -> None:
    numbered = CLICKS.with_columns(pl.col("item").replace_strict({"a": 1, "b": 2},
                                                                 return_dtype=pl.Int64))
    with pytest.raises(InvalidDataError, match=r"column 'item': the model's ids are String"):
        pro.simulate_clicks(_pbm(), numbered.drop("click"))  # was a Polars cast error
    fitted_on_numbers = pro.fit_click_model(numbered, "pbm", iterations=3)
    # was every parameter at 0.5: 1 and 2 read as the text "1", "2"
    with pytest.raises(InvalidDataError, match=r"column 'item': the model's ids are Int64"):
        fitted_on_numbers.log_likelihood(CLICKS)
    # text of another type (categorical) and integers of another width are the same ids
    model = pro.fit_click_model(CLICKS, "pbm", iterations=3)
    as_cat = CLICKS.with_columns(pl.col("item").cast(pl.Categorical))
    assert model.log_likelihood(as_cat) == model.log_likelihood(CLICKS)
    narrow = numbered.with_columns(pl.col("item").cast(pl.UInt8))
    assert fitted_on_numbers.log_likelihood(narrow) == fitted_on_numbers.log_likelihood(numbered)


def test_click_and_position_types() -> None:
    with pytest.raises(InvalidDataError, match=r"column 'click' must hold clicks 0 or 1"):
        pro.fit_click_model(CLICKS.with_columns(pl.col("click").cast(pl.String)), "pbm")
    floats = CLICKS.with_columns(pl.col("position").cast(pl.Float64))  # pandas after a NaN
    assert_frame_equal(pro.fit_click_model(floats, "sdbn").attractiveness,
                       pro.fit_click_model(CLICKS, "sdbn").attractiveness)
    for bad in (1.5, float("nan")):
        odd = floats.with_columns(pl.when(pl.col("impression") == 2).then(bad)
                                  .otherwise(pl.col("position")).alias("position"))
        with pytest.raises(InvalidDataError, match=r"integer positions 1\.\.n: impression 2"):
            pro.fit_click_model(odd, "pbm")


def test_a_column_in_two_roles() -> None:
    # a log without queries: each impression its own query (was a KeyError)
    alone = CLICKS.drop("query")
    model = pro.fit_click_model(alone, "sdbn", query="impression")
    copied = pro.fit_click_model(alone.with_columns(query=pl.col("impression")), "sdbn")
    assert model.attractiveness.columns == ["impression", "item", "attractiveness"]
    assert model.attractiveness.rows() == copied.attractiveness.rows()
    with pytest.raises(ValueError, match="position and click must be columns of their own"):
        pro.fit_click_model(alone, "pbm", query="impression", click="position")


def test_categorical_impressions_draw_as_their_text() -> None:
    # Polars 1.36 hashed a categorical's code, which depends on the categories seen before
    keep = pl.Series(["zz", "3", "2", "1", "yy"], dtype=pl.Categorical)
    ranking = CLICKS.drop("click").with_columns(pl.col("impression").cast(pl.String))
    as_text = pro.simulate_clicks(_pbm(), ranking, seed=4)["click"]
    cat = ranking.with_columns(pl.col("impression").cast(pl.Categorical))
    assert pro.simulate_clicks(_pbm(), cat, seed=4)["click"].equals(as_text)
    model = pro.fit_click_model(ranking.with_columns(click=CLICKS["click"]), "pbm", iterations=3)
    text_ci = model.examination(ranking.with_columns(click=CLICKS["click"]), n_resamples=4)
    cat_ci = model.examination(cat.with_columns(click=CLICKS["click"]), n_resamples=4)
    assert_frame_equal(cat_ci, text_ci)
    assert keep.len() == 5


def test_simulate_replaces_a_click_column() -> None:
    out = pro.simulate_clicks(_pbm(), CLICKS, seed=1)  # was a DuplicateError
    assert out.columns == CLICKS.columns
    assert out["click"].equals(pro.simulate_clicks(_pbm(), CLICKS.drop("click"), seed=1)["click"])


def test_given_parameters_are_checked() -> None:
    attr = _pbm().attractiveness
    from_pandas = pro.ClickModel.from_parameters("pbm", attractiveness=attr.to_pandas(),
                                                 examination={1: 1.0, 2: 0.5})
    assert_frame_equal(from_pandas.attractiveness, attr)
    ranking = CLICKS.drop("click")
    for table, rule in (
            (attr.with_columns(attractiveness=pl.Series([None, 0.3])), "a null or a value"),
            (pl.concat([attr, attr]), r"two rows for one \('query', 'item'\)")):  # were 0.5
        with pytest.raises(ValueError, match=rule):  # and every row twice, a wrong number
            pro.ClickModel.from_parameters("pbm", attractiveness=table,
                                           examination={1: 1.0, 2: 0.5})
    with pytest.raises(ValueError, match="a position < 1"):
        pro.ClickModel.from_parameters("pbm", attractiveness=attr, examination={0: 1.0})
    with pytest.raises(ValueError, match="alpha must be in"):
        _pbm().examination(ranking, alpha="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be an int >= 0"):
        pro.swap_propensities(SWAP, seed=-1)  # was NumPy's "expected non-negative integer"


# --- counterfactual estimators ---------------------------------------------------------------

@pytest.mark.parametrize("column", ["position", "reward", "pscore", "target", "q_hat"])
def test_text_in_a_column_of_numbers_is_named(column: str) -> None:
    odd = SLOT.with_columns(pl.col(column).cast(pl.String))
    with pytest.raises(InvalidDataError, match=f"column '{column}' must hold numbers, got String"):
        pro.off_policy_value(odd, ESTIMATORS, n_resamples=0)


def test_odd_slices_and_null_impressions() -> None:
    with pytest.raises(ValueError, match="group_by must not hold the impression column"):
        pro.off_policy_value(SLOT, "ips", group_by="impression", n_resamples=0)
    with pytest.raises(ValueError, match="group_by must not hold the impression column"):
        pro.ips_click_metric(RANKED, examination=[1.0, 0.5], group_by="impression")
    no_id = SLOT.with_columns(pl.when(pl.col("impression") == 2).then(None)
                              .otherwise(pl.col("impression")).alias("impression"))
    with pytest.raises(InvalidDataError, match="'impression' must not be null; a shown row has no"):
        pro.off_policy_value(no_id, "ips", n_resamples=0)
    # a slice that is null everywhere is one slice, as a slice of its own
    sliced = pro.off_policy_value(SLOT.with_columns(g=pl.lit(None, pl.String)), ESTIMATORS,
                                  group_by="g", n_resamples=0)
    assert sliced.drop("g").equals(pro.off_policy_value(SLOT, ESTIMATORS, n_resamples=0))


def test_target_ranks_are_a_ranking() -> None:
    slate = ("sips", "iips", "rips")
    base = pro.off_policy_value(SLATE, slate, target_rank="target_rank", n_resamples=0)
    below = SLATE.with_columns(pl.Series("target_rank", [1, 2, 9, 9]))  # 9: not in the slate
    pro.off_policy_value(below, slate, target_rank="target_rank", n_resamples=0)
    for ranks, rule in (([1, 1, 2, 1], "must rank each item once within the list"),
                        ([0, 1, 2, 1], "must be a whole-number rank >= 1"),
                        ([1.5, 2, 2, 1], "must be a whole-number rank >= 1")):
        odd = SLATE.with_columns(pl.Series("target_rank", ranks))
        with pytest.raises(InvalidDataError, match=f"'target_rank' {rule}.*impression 1"):
            pro.off_policy_value(odd, slate, target_rank="target_rank", n_resamples=0)
    assert base["estimate"].to_list() == [2.0, 1.0, 1.0]  # by hand: SIPS 4 / 2, IIPS, RIPS 2 / 2
    for ranks, rule in (([2, 2, 1, 2], "must rank each item once"),
                        ([2.5, 1, 1, 2], "whole-number rank")):  # 2.5 was a plausible number
        with pytest.raises(InvalidDataError, match=rule):
            pro.ips_click_metric(RANKED.with_columns(pl.Series("target_rank", ranks)), "dcg",
                                 examination=[1.0, 0.5], n_resamples=0)
    with pytest.raises(InvalidDataError, match="'position' must hold numbers"):
        pro.ips_click_metric(RANKED.with_columns(pl.col("position").cast(pl.String)),
                             examination=[1.0, 0.5], n_resamples=0)


def test_ips_click_metric_needs_numpy_only_for_an_interval(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy fails
    out = pro.ips_click_metric(RANKED, ["clicks@1", "dcg"], examination=[1.0, 0.5],
                               n_resamples=0)
    assert out["estimate"].to_list() == [1.5, 1.5]


# --- propensities ----------------------------------------------------------------------------

def test_float_and_boolean_clicks() -> None:
    base = pro.swap_propensities(SWAP, n_resamples=0)
    for dtype in (pl.Float64, pl.Boolean):  # floats were a Polars 2 is_in error
        assert_frame_equal(pro.swap_propensities(SWAP.with_columns(pl.col("click").cast(dtype)),
                                                 n_resamples=0), base)
    nan = SWAP.with_columns(pl.col("click").cast(pl.Float64).replace(0.0, float("nan")))
    with pytest.raises(InvalidDataError, match="column 'click': a click is 0 or 1, got nan"):
        pro.swap_propensities(nan, n_resamples=0)
    with pytest.raises(InvalidDataError, match="'logged_position' must be numeric"):
        pro.swap_propensities(SWAP.with_columns(pl.col("logged_position").cast(pl.String)),
                              n_resamples=0)


def test_regression_em_features_and_names() -> None:
    log = RANKERS.with_columns(f=pl.col("impression") % 3 == 0)  # a boolean feature is read
    as_number = pro.regression_em_propensities(log.with_columns(pl.col("f").cast(pl.Float64)),
                                               features=["f"], n_resamples=0, iterations=5)
    assert_frame_equal(pro.regression_em_propensities(log, features=["f"], n_resamples=0,
                                                      iterations=5), as_number)
    with pytest.raises(InvalidDataError, match="column 'f' must hold finite numbers"):
        pro.regression_em_propensities(log.with_columns(f=pl.lit(float("nan"))),
                                       features=["f"], n_resamples=0)  # was NaN propensities
    with pytest.raises(ValueError, match="features must be other columns than"):
        pro.regression_em_propensities(log, features=["position"], n_resamples=0)
    for name in ("n", "rep"):  # were Polars DuplicateErrors
        with pytest.raises(ValueError, match=f"column '{name}' has the name of a column"):
            pro.regression_em_propensities(log.rename({"query": name}), query=name,
                                           n_resamples=0)
    with pytest.raises(ValueError, match="column 'row' has the name of a column"):
        pro.harvested_propensities(RANKERS.rename({"query": "row"}), query="row")
    one = pro.regression_em_propensities(RANKERS.filter(pl.col("position") == 1),
                                         n_resamples=0)  # was an IndexError
    assert one.rows() == [(1, 1.0, None, None)]


# --- one thread, the streaming engine, shuffled rows: the same bits --------------------------

SCRIPT = """
import hashlib
import numpy as np, polars as pl
import polars_rank.online as pro


def digest(order):
    rng = np.random.default_rng(5)
    n, k = 200, 4
    pos = np.tile(np.arange(1, k + 1), n)
    log = pl.DataFrame({
        "impression": np.repeat(np.arange(n), k), "position": pos,
        "query": rng.integers(0, 6, n).repeat(k).astype(str),
        "item": rng.permuted(np.tile(np.arange(k), (n, 1)), axis=1).ravel(),
        "click": (rng.random(n * k) < 0.5 / pos).astype(int)})
    item = pl.col("item")
    log = log.with_columns(
        ranker=pl.col("impression") % 2, reward=pl.col("click").cast(pl.Float64),
        pscore=0.3 + 0.1 * (item % 3), target=0.2 + 0.1 * (item % 4), q_hat=0.3,
        q_hat_target=0.25, target_rank=k + 1 - pl.col("position"))
    if order == "shuffled":
        log = log.sample(fraction=1.0, shuffle=True, seed=1)
    h = hashlib.sha256()
    for m in ("pbm", "ubm", "dbn", "ccm"):
        model = pro.fit_click_model(log.lazy(), m, iterations=3)
        h.update(repr(model.log_likelihood(log)).encode())
        frames = [*model.parameters.values(), model.examination(log, n_resamples=2)]
        h.update("".join(t.sort(t.columns).write_csv() for t in frames).encode())
    out = [pro.simulate_clicks(model, log.drop("click"), seed=2).sort("impression", "position"),
           pro.off_policy_value(log, ("ips", "snips", "dr", "iips"), group_by="ranker",
                                n_resamples=30),
           pro.ips_click_metric(log, ["dcg", "clicks@2"], examination=[1, .7, .5, .4],
                                n_resamples=30),
           pro.regression_em_propensities(log, n_resamples=2, iterations=5),
           pro.harvested_propensities(log, n_resamples=2)]
    h.update("".join(frame.write_csv() for frame in out).encode())
    return h.hexdigest()


if __name__ == "__main__":
    import sys
    if sys.argv[1] == "streaming":
        pl.Config.set_engine_affinity("streaming")
    print(digest(sys.argv[2]))
"""


def test_threads_engine_and_row_order_give_the_same_bits() -> None:
    namespace: dict[str, object] = {}
    exec(SCRIPT, namespace)  # here: the default threads and engine, rows in order
    digests = {namespace["digest"]("sorted")}  # type: ignore[operator]
    # there: one thread, the streaming engine, shuffled rows (one process: the budget)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
           "POLARS_MAX_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", SCRIPT, "streaming", "shuffled"], env=env,
                         capture_output=True, text=True, check=True, timeout=120)
    digests.add(out.stdout.strip())
    assert len(digests) == 1, digests


def test_lossy_ids_and_pandas_nullable_columns() -> None:
    big = SLOT.with_columns(pl.col("impression") + 2**53)  # 2**53 + 1 is no float
    assert_frame_equal(pro.off_policy_value(big, "ips", n_resamples=10),
                       pro.off_policy_value(SLOT, "ips", n_resamples=10))
    frame = SLOT.to_pandas().convert_dtypes()  # Int64, Float64: pandas' nullable columns
    frame.loc[1, "pscore"] = pd.NA
    with pytest.raises(InvalidDataError, match=r"'pscore' must be a propensity in \(0, 1\] "
                                               "on every shown row; impression 2 has None"):
        pro.off_policy_value(frame, "ips", n_resamples=0)
    frame.loc[1, "pscore"] = np.nan  # NaN in a float column: NaN, as evaluate() reads it
    with pytest.raises(InvalidDataError, match=r"impression 2 has (nan|None)"):
        pro.off_policy_value(frame, "ips", n_resamples=0)


def test_nan_ids_are_missing_ids() -> None:
    # a pandas integer column with a missing value is float with NaN: NaN was one more id
    nan = float("nan")
    clicks = CLICKS.to_pandas()
    clicks["item"] = [1.0, 2.0, nan, 1.0, 1.0, 2.0]
    with pytest.raises(InvalidDataError, match=r"column 'item' has a null \(or NaN\) value in "
                                               "impression 2"):
        pro.fit_click_model(clicks, "pbm")
    slot = SLOT.to_pandas()
    slot["impression"] = [1.0, 2.0, nan, 4.0]
    with pytest.raises(InvalidDataError, match="'impression' must not be null"):
        pro.off_policy_value(slot, "ips", n_resamples=0)
    rankers = RANKERS.to_pandas()
    rankers["item"] = [1.0, 2.0, 1.0, 2.0, 2.0, 1.0, 2.0, nan]
    with pytest.raises(InvalidDataError, match=r"null 'item' in the log \(impression 4\)"):
        pro.harvested_propensities(rankers, n_resamples=0)
