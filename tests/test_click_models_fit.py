"""Click models: recovery of known parameters, row order, seeds, bad input."""

from __future__ import annotations

import polars as pl
import pytest

from polars_rank.errors import InvalidDataError
from polars_rank.online import ClickModel, fit_click_model, simulate_clicks
from tests.test_click_models import ranking, truth


def test_pbm_recovers_its_examination_within_the_bootstrap_interval() -> None:
    true = truth("pbm", queries=2, items=12)
    log = simulate_clicks(true, ranking(2000, seed=11, queries=2, items=12), seed=3)
    fit = fit_click_model(log, "pbm", iterations=30)
    exam = fit.examination(log, n_resamples=12, seed=1, alpha=0.01)
    want = true.parameters["examination"].rename({"examination": "true"})
    both = exam.join(want, on="position")
    assert both.height == 10
    # PBM's scale: theta_1 = 0.95 and the estimate is only identified up to a factor;
    # compare the shape, theta_r / theta_1, with a stated tolerance, and the interval
    ratio = both.with_columns(pl.col("examination") / pl.col("examination").first(),
                              pl.col("true") / pl.col("true").first())
    assert (ratio["examination"] - ratio["true"]).abs().max() < 0.12  # type: ignore[operator]
    assert (both["ci_low"] <= both["examination"]).all()
    assert (both["examination"] <= both["ci_high"]).all()
    assert (both["ci_high"] - both["ci_low"]).max() < 0.25  # type: ignore[operator]


@pytest.mark.parametrize(("model", "tol"), [("cascade", 0.04), ("dcm", 0.03), ("dbn", 0.035),
                                            ("ubm", 0.08), ("ccm", 0.06)])
def test_fit_recovers_attractiveness(model: str, tol: float) -> None:
    """At 1,500 impressions over 2 x 12 (query, item) pairs, within ``tol`` (mean abs)."""
    true = truth(model, queries=2, items=12)
    log = simulate_clicks(true, ranking(1500, seed=7, queries=2, items=12), seed=9)
    fit = fit_click_model(log, model, iterations=15)  # type: ignore[arg-type]
    both = fit.attractiveness.join(true.attractiveness, on=["query", "item"], suffix="_t")
    gap = (both["attractiveness"] - both["attractiveness_t"]).abs()
    assert gap.mean() < tol  # type: ignore[operator]
    if model == "dbn":
        assert abs(fit.parameters["continuation"].item() - 0.85) < 0.05
    if model == "ccm":
        taus = [fit.parameters[f"tau_{k}"].item() for k in (1, 2, 3)]
        # tau_2 and tau_3 are told apart only by the clicks after a click: slow EM, wide
        assert abs(taus[0] - 0.8) < 0.03
        assert max(abs(taus[1] - 0.6), abs(taus[2] - 0.2)) < 0.12
    if model == "dcm":
        cont = fit.parameters["continuation"].filter(pl.col("position") <= 5)
        assert (cont["continuation"] - (0.7 - 0.03 * cont["position"])).abs().max() < 0.1  # type: ignore[operator]


def test_the_true_model_has_the_better_likelihood_on_held_out_impressions() -> None:
    true = truth("dbn")
    train = simulate_clicks(true, ranking(600, seed=1), seed=1)
    test = simulate_clicks(true, ranking(300, seed=2), seed=2)
    fits = {m: fit_click_model(train, m, iterations=10) for m in ("dbn", "pbm", "cascade")}
    ll = {m: f.log_likelihood(test) for m, f in fits.items()}
    assert ll["dbn"] > ll["pbm"]
    assert ll["dbn"] > ll["cascade"]
    assert fits["dbn"].perplexity(test) < fits["cascade"].perplexity(test)


def test_row_order_and_lazy_input_do_not_change_the_fit() -> None:
    log = simulate_clicks(truth("ubm"), ranking(80, seed=4), seed=4)
    a = fit_click_model(log, "ubm", iterations=3)
    b = fit_click_model(log.sample(fraction=1.0, shuffle=True, seed=8).lazy(), "ubm",
                        iterations=3)
    for name, frame in a.parameters.items():
        keys = [c for c in frame.columns if c != name]
        left, right = frame.sort(keys), b.parameters[name].sort(keys)
        assert left.equals(right)  # bit for bit
    assert a.log_likelihood(log) == b.log_likelihood(log.reverse())
    assert a.perplexity(log) == b.perplexity(log.reverse())


@pytest.mark.parametrize("model", ["pbm", "ubm", "dbn"])
def test_simulation_is_seeded_and_row_order_free(model: str) -> None:
    true, shown = truth(model), ranking(60, seed=2)
    one = simulate_clicks(true, shown, seed=4)
    again = simulate_clicks(true, shown.reverse().lazy(), seed=4)
    assert one.sort("impression", "position").equals(again.sort("impression", "position"))
    other = simulate_clicks(true, shown, seed=5)
    assert not one["click"].equals(other["click"])


def test_simulated_click_rates_follow_the_model() -> None:
    attr = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "attractiveness": [0.6, 0.3]})
    pbm = ClickModel.from_parameters("pbm", attractiveness=attr, examination={1: 1.0, 2: 0.5})
    shown = pl.DataFrame({"impression": [i for i in range(20000) for _ in range(2)],
                          "position": [1, 2] * 20000, "query": "q", "item": ["a", "b"] * 20000})
    rate = simulate_clicks(pbm, shown, seed=1).group_by("position").agg(pl.col("click").mean())
    got = dict(rate.iter_rows())
    assert abs(got[1] - 0.6) < 0.015
    assert abs(got[2] - 0.15) < 0.015


def _log(**changes: list[object]) -> pl.DataFrame:
    base: dict[str, list[object]] = {"impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
                                     "query": ["q"] * 4, "item": ["a", "b", "a", "b"],
                                     "click": [1, 0, 0, 1]}
    return pl.DataFrame({**base, **changes})


@pytest.mark.parametrize(("changes", "words"), [
    ({"click": [1, 0, 2, 1]}, ["'click'", "0 or 1", "impression 2"]),
    ({"click": [1, 0, None, 1]}, ["'click'", "null", "impression 2"]),
    ({"position": [1, 2, 1, 1]}, ["'position'", "duplicate position 1", "impression 2"]),
    ({"position": [1, 2, 2, 3]}, ["'position'", "1..n", "impression 2"]),
    ({"position": [0, 1, 1, 2]}, ["'position'", "1..n", "impression 1"]),
    ({"query": ["q", "q", "q", "r"]}, ["'query'", "one query", "impression 2"]),
])
def test_bad_input_names_the_column_and_the_impression(changes: dict[str, list[object]],
                                                        words: list[str]) -> None:
    with pytest.raises(InvalidDataError) as info:
        fit_click_model(_log(**changes), "pbm")
    for word in words:
        assert word in str(info.value), str(info.value)


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="model must be one of"):
        fit_click_model(_log(), "xyz")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="iterations"):
        fit_click_model(_log(), "pbm", iterations=0)
    with pytest.raises(InvalidDataError, match="no column 'clicks'"):
        fit_click_model(_log(), "pbm", click="clicks")
    attr = pl.DataFrame({"query": ["q"], "item": ["a"], "attractiveness": [1.5]})
    with pytest.raises(ValueError, match="outside"):
        ClickModel.from_parameters("cascade", attractiveness=attr)
    given = ClickModel.from_parameters("cascade", attractiveness=attr.with_columns(
        pl.lit(0.5).alias("attractiveness")))
    with pytest.raises(ValueError, match="needs a model from fit_click_model"):
        given.examination(_log(), n_resamples=3)
    with pytest.raises(ValueError, match="needs the log"):
        given.examination()
    with pytest.raises(ValueError, match="needs the 'examination' table"):
        ClickModel.from_parameters("pbm", attractiveness=attr.with_columns(
            pl.lit(0.5).alias("attractiveness")))
