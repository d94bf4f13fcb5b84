"""``compare()``: the frame plumbing around ``polars_rank.stats``.

Every row is checked against SciPy on the values it should have used (the pairs,
or each arm's units, of its slice and metric); corrections against a plain-Python
Holm / Bonferroni within each slice; edge cases raise or report as documented. A
slow simulation checks that the tests reject at about alpha under no difference and
detect a real lift.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from scipy import stats as sps

import polars_rank as pr
from polars_rank.errors import InvalidDataError

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ["metric", "arm", "baseline", "n", "mean", "baseline_mean", "delta", "delta_ci_low",
           "delta_ci_high", "lift", "lift_ci_low", "lift_ci_high", "effect_size", "wins",
           "ties", "losses", "test", "alternative", "alpha", "correction", "p_value",
           "p_adjusted", "significant", "n_resamples", "p_floor"]


def per_query_frame(seed: int = 0, n_queries: int = 60, arms: tuple[str, ...] = ("A", "B", "C"),
                    lifts: tuple[float, ...] = (0.0, 0.05, -0.02)) -> pl.DataFrame:
    """Arms x queries x two metrics, queries split into two devices."""
    rng = np.random.default_rng(seed)
    base_ndcg = rng.beta(3, 2, n_queries)
    base_rr = rng.choice([0.0, 0.25, 0.5, 1.0], n_queries)
    frames = []
    for arm, lift in zip(arms, lifts, strict=True):
        frames.append(pl.DataFrame({
            "arm": arm,
            "qid": [f"q{i:03d}" for i in range(n_queries)],
            "device": ["mobile" if i % 3 else "desktop" for i in range(n_queries)],
            "ndcg": np.clip(base_ndcg + lift + rng.normal(0, 0.1, n_queries), 0, 1),
            "mrr": np.clip(base_rr + rng.choice([-0.25, 0, 0, 0.25], n_queries) + lift, 0, 1),
        }))
    return pl.concat(frames)


def values(df: pl.DataFrame, arm: str, metric: str, **where: object) -> dict[str, float]:
    rows = df.filter(pl.col("arm") == arm, *(pl.col(k) == v for k, v in where.items()))
    return dict(zip(rows["qid"], rows[metric], strict=True))


def holm_reference(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out, running = [0.0] * m, 0.0
    for j, i in enumerate(order):
        running = max(running, min(1.0, (m - j) * p[i]))
        out[i] = running
    return out


# ---------------------------------------------------------------------------- t-tests
@pytest.mark.parametrize("correction", ["holm", "bonferroni", None])
def test_paired_t_rows_equal_scipy(correction: str | None) -> None:
    df = per_query_frame()
    out = pr.compare(df, baseline="A", group_by="device", correction=correction)  # type: ignore[arg-type]
    assert out.columns == ["device", *COLUMNS]
    assert out.height == 2 * 2 * 2  # devices x metrics x arms
    for device in ("desktop", "mobile"):
        rows = out.filter(pl.col("device") == device)
        for row in rows.iter_rows(named=True):
            arm = values(df, row["arm"], row["metric"], device=device)
            base = values(df, "A", row["metric"], device=device)
            a = np.array([arm[q] for q in sorted(arm)])
            b = np.array([base[q] for q in sorted(arm)])
            ref = sps.ttest_rel(a, b)
            ci = ref.confidence_interval(0.95)
            assert row["n"] == a.size
            assert row["mean"] == pytest.approx(a.mean(), abs=1e-12)
            assert row["baseline_mean"] == pytest.approx(b.mean(), abs=1e-12)
            assert row["delta"] == pytest.approx(a.mean() - b.mean(), abs=1e-12)
            assert row["lift"] == pytest.approx(a.mean() / b.mean() - 1, abs=1e-12)
            assert row["p_value"] == pytest.approx(ref.pvalue, abs=1e-10, rel=1e-10)
            assert row["delta_ci_low"] == pytest.approx(ci.low, abs=1e-10)
            assert row["delta_ci_high"] == pytest.approx(ci.high, abs=1e-10)
            assert row["lift_ci_low"] < row["lift"] < row["lift_ci_high"]
        # the family: metrics x arms within the slice
        p = rows["p_value"].to_list()
        expected = {"holm": holm_reference(p),
                    "bonferroni": [min(1.0, len(p) * x) for x in p],
                    None: p}[correction]
        assert rows["p_adjusted"].to_list() == pytest.approx(expected, abs=1e-15)
        assert rows["significant"].to_list() == [x <= 0.05 for x in expected]


def test_unpaired_welch_rows_equal_scipy() -> None:
    rng = np.random.default_rng(3)
    sessions = pl.DataFrame({
        "arm": ["control"] * 80 + ["new"] * 50,
        "session": range(130),
        "ctr": np.concatenate([rng.beta(1, 4, 80), rng.beta(1.3, 4, 50)]),
        "clicks": rng.poisson(1.2, 130).astype(float),
    })
    for query, metrics in (("session", None), (None, ["ctr", "clicks"])):
        # without query=, the numeric session column would be taken for a metric
        out = pr.compare(sessions, baseline="control", paired=False, query=query,
                         metrics=metrics)
        assert out["metric"].to_list() == ["ctr", "clicks"]
        for row in out.iter_rows(named=True):
            a = sessions.filter(arm="new")[row["metric"]].to_numpy()
            b = sessions.filter(arm="control")[row["metric"]].to_numpy()
            ref = sps.ttest_ind(a, b, equal_var=False)
            ci = ref.confidence_interval(0.95)
            assert row["n"] == 50
            assert row["p_value"] == pytest.approx(ref.pvalue, abs=1e-10, rel=1e-10)
            assert row["delta_ci_low"] == pytest.approx(ci.low, abs=1e-10)
            assert row["delta_ci_high"] == pytest.approx(ci.high, abs=1e-10)


def test_unpaired_arms_with_different_units_and_nulls() -> None:
    df = pl.DataFrame({
        "arm": ["a", "a", "a", "b", "b", "b", "b"],
        "user": [1, 2, 3, 4, 5, 6, 7],
        "auc": [0.5, None, 0.7, 0.9, 0.8, None, 0.6],
    })
    out = pr.compare(df, baseline="a", paired=False, query="user")  # no warning: nulls skip
    row = out.row(0, named=True)
    ref = sps.ttest_ind([0.9, 0.8, 0.6], [0.5, 0.7], equal_var=False)
    assert row["n"] == 3
    assert row["p_value"] == pytest.approx(ref.pvalue, abs=1e-12)


# ---------------------------------------------------------------------------- resampling
@pytest.mark.parametrize("paired", [True, False])
def test_randomization_and_bootstrap_rows_are_the_stats_functions(paired: bool) -> None:
    df = per_query_frame(1, n_queries=40, arms=("A", "B"), lifts=(0.0, 0.04))
    for test, function in [("randomization", pr.stats.randomization_test),
                           ("bootstrap", pr.stats.bootstrap_test)]:
        out = pr.compare(df, baseline="A", test=test, paired=paired, n_resamples=2000,  # type: ignore[arg-type]
                         seed=3)
        for row in out.iter_rows(named=True):
            a = df.filter(arm="B")[row["metric"]].to_numpy()
            b = df.filter(arm="A")[row["metric"]].to_numpy()
            # the same test with another seed: equal up to Monte-Carlo error
            other = function(a, b, paired=paired, n_resamples=2000, seed=99)  # type: ignore[operator]
            q = min(max(other.p_value / 2, 1e-3), 0.5)
            assert abs(row["p_value"] - other.p_value) <= 10 * 2 * math.sqrt(q * (1 - q) / 2000)
            assert row["delta"] == pytest.approx(other.delta, abs=1e-12)
            width = other.ci_high - other.ci_low
            assert row["delta_ci_low"] == pytest.approx(other.ci_low, abs=0.15 * width)
            assert row["delta_ci_high"] == pytest.approx(other.ci_high, abs=0.15 * width)


@pytest.mark.parametrize("test", ["randomization", "bootstrap"])
def test_seeded_reproducible_and_independent_of_the_other_comparisons(test: str) -> None:
    df = per_query_frame(2)
    kwargs = {"baseline": "A", "test": test, "n_resamples": 1000, "group_by": "device"}
    first = pr.compare(df, seed=7, **kwargs)  # type: ignore[arg-type]
    assert_frame_equal(first, pr.compare(df, seed=7, **kwargs))  # type: ignore[arg-type]
    assert not first.equals(pr.compare(df, seed=8, **kwargs))  # type: ignore[arg-type]
    # one metric and one arm alone: the same resamples, the same statistics
    alone = pr.compare(df.filter(pl.col("arm") != "C"), seed=7, metrics="mrr", **kwargs)  # type: ignore[arg-type]
    together = first.filter(metric="mrr", arm="B").drop("p_adjusted", "significant")
    assert_frame_equal(alone.drop("p_adjusted", "significant"), together)


@pytest.mark.parametrize("paired", [True, False])
def test_results_do_not_depend_on_row_order_or_query_ids(paired: bool) -> None:
    df = per_query_frame(3)
    kwargs = {"baseline": "A", "test": "bootstrap", "n_resamples": 500, "paired": paired}
    first = pr.compare(df, **kwargs)  # type: ignore[arg-type]
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=1)
    assert_frame_equal(pr.compare(shuffled, **kwargs), first)  # type: ignore[arg-type]
    renamed = df.with_columns(("x" + pl.col("qid").str.reverse()).alias("qid"))
    assert_frame_equal(pr.compare(renamed, **kwargs), first)  # type: ignore[arg-type]


def test_interval_option_is_for_the_bootstrap() -> None:
    df = per_query_frame(4, arms=("A", "B"), lifts=(0.0, 0.1))
    bca = pr.compare(df, baseline="A", test="bootstrap", n_resamples=2000)
    pct = pr.compare(df, baseline="A", test="bootstrap", n_resamples=2000, interval="percentile")
    assert not bca["delta_ci_low"].equals(pct["delta_ci_low"])
    assert bca["delta"].equals(pct["delta"])
    with pytest.raises(ValueError, match="interval='percentile' applies to test='bootstrap'"):
        pr.compare(df, baseline="A", interval="percentile")


# ---------------------------------------------------------------------------- pairing
def test_paired_drops_queries_missing_from_one_side_and_says_so() -> None:
    df = per_query_frame(5, n_queries=30, arms=("A", "B"), lifts=(0.0, 0.05))
    dropped_b = ["q003", "q007"]
    df = df.filter(~((pl.col("arm") == "B") & pl.col("qid").is_in(dropped_b)))
    df = df.filter(~((pl.col("arm") == "A") & (pl.col("qid") == "q011")))
    with pytest.warns(UserWarning, match=r"left out") as caught:
        out = pr.compare(df, baseline="A")
    message = str(caught[0].message)
    assert "3 of 30 queries" in message
    assert "2 without a value for 'B'" in message
    assert "'q003', 'q007'" in message
    assert "1 without a value for the baseline 'A'" in message
    assert "'q011'" in message
    keep = sorted(set(values(df, "A", "ndcg")) & set(values(df, "B", "ndcg")))
    assert out["n"].to_list() == [27, 27]
    a = np.array([values(df, "B", "ndcg")[q] for q in keep])
    b = np.array([values(df, "A", "ndcg")[q] for q in keep])
    row = out.filter(metric="ndcg").row(0, named=True)
    assert row["p_value"] == pytest.approx(sps.ttest_rel(a, b).pvalue, abs=1e-10)
    assert row["baseline_mean"] == pytest.approx(b.mean(), abs=1e-12)  # on the pairs


def test_paired_null_values_are_dropped_per_metric() -> None:
    df = per_query_frame(6, n_queries=20, arms=("A", "B"), lifts=(0.0, 0.05))
    df = df.with_columns(
        pl.when((pl.col("arm") == "B") & (pl.col("qid") == "q004")).then(None)
        .otherwise(pl.col("mrr")).alias("mrr"),
        # null in both arms (a metric undefined for the query): left out silently
        pl.when(pl.col("qid") == "q009").then(None).otherwise(pl.col("ndcg")).alias("ndcg"),
    )
    with pytest.warns(UserWarning, match=r"1 of 20 queries, 1 without a value for 'B'"):
        out = pr.compare(df, baseline="A")
    assert dict(zip(out["metric"], out["n"], strict=True)) == {"ndcg": 19, "mrr": 19}


def test_arm_sharing_no_query_with_the_baseline() -> None:
    df = pl.DataFrame({"arm": ["A", "A", "B", "B"], "qid": [1, 2, 3, 4],
                       "m": [0.1, 0.2, 0.3, 0.4]})
    with pytest.warns(UserWarning, match="compare") as caught:
        out = pr.compare(df, baseline="A")
    messages = " ".join(str(w.message) for w in caught)
    assert "no query with a value in both" in messages
    assert "4 of 4 queries" in messages
    assert out.row(0, named=True)["n"] == 0
    assert out.row(0, named=True)["p_value"] is None


# ---------------------------------------------------------------------------- edge cases
def test_baseline_not_present() -> None:
    df = per_query_frame(arms=("A", "B"), lifts=(0.0, 0.0))
    with pytest.raises(ValueError, match=r"baseline 'control' is not a value of column 'arm'; "
                                         r"its values are \['A', 'B'\]"):
        pr.compare(df, baseline="control")


def test_only_the_baseline() -> None:
    df = per_query_frame(arms=("A",), lifts=(0.0,))
    with pytest.raises(ValueError, match="only the baseline 'A': nothing to compare"):
        pr.compare(df, baseline="A")


def test_arm_missing_from_a_slice() -> None:
    df = per_query_frame(7)
    df = df.filter(~((pl.col("arm") == "C") & (pl.col("device") == "desktop")))
    with pytest.warns(UserWarning, match=r"nothing to compare") as caught:
        out = pr.compare(df, baseline="A", group_by="device")
    assert len(caught) == 1  # the empty comparisons, not dropped queries
    message = str(caught[0].message)
    assert "[device='desktop'] metric 'ndcg', arm 'C'" in message
    assert "[device='desktop'] metric 'mrr', arm 'C'" in message
    missing = out.filter(device="desktop", arm="C")
    assert missing.height == 2
    assert missing["n"].to_list() == [0, 0]
    for column in ["mean", "delta", "lift", "delta_ci_low", "p_value", "p_adjusted", "significant"]:
        assert missing[column].null_count() == 2, column
    # the others in the slice form a family of 2 tests, not 4
    tested = out.filter(device="desktop", arm="B")
    p = tested["p_value"].to_list()
    assert tested["p_adjusted"].to_list() == pytest.approx(holm_reference(p))


def test_baseline_missing_from_a_slice_unpaired() -> None:
    df = pl.DataFrame({"arm": ["A", "A", "B", "B", "B", "B"],
                       "segment": ["x", "x", "x", "x", "y", "y"],
                       "m": [0.1, 0.3, 0.2, 0.6, 0.5, 0.7]})
    missing = r"\[segment='y'\] metric 'm', arm 'B' vs 'A': no baseline"
    with pytest.warns(UserWarning, match=missing):
        out = pr.compare(df, baseline="A", paired=False, query=None, group_by="segment")
    y = out.filter(segment="y").row(0, named=True)
    assert (y["n"], y["mean"], y["baseline_mean"], y["p_value"]) == (2, 0.6, None, None)


def test_single_query() -> None:
    df = pl.DataFrame({"arm": ["A", "B"], "qid": ["q1", "q1"], "m": [0.5, 0.75]})
    for test in ("t", "randomization", "bootstrap"):
        with pytest.warns(UserWarning, match=r"fewer than 2 pairs.*arm 'B' vs 'A': n = 1"):
            out = pr.compare(df, baseline="A", test=test)  # type: ignore[arg-type]
        row = out.row(0, named=True)
        assert (row["n"], row["mean"], row["baseline_mean"]) == (1, 0.75, 0.5)
        assert row["delta"] == 0.25
        assert row["lift"] == 0.5
        for column in ["delta_ci_low", "delta_ci_high", "lift_ci_low", "lift_ci_high",
                       "p_value", "p_adjusted", "significant"]:
            assert row[column] is None, column


def test_zero_variance() -> None:
    df = pl.DataFrame({
        "arm": ["A"] * 4 + ["B"] * 4 + ["C"] * 4,
        "qid": [1, 2, 3, 4] * 3,
        "m": [0.2, 0.4, 0.6, 0.8, 0.2, 0.4, 0.6, 0.8, 0.3, 0.5, 0.7, 0.9],
    })
    out = pr.compare(df, baseline="A", correction=None)
    same, shifted = out.rows(named=True)
    assert (same["p_value"], same["delta_ci_low"], same["delta_ci_high"], same["significant"]) == (
        1.0, 0.0, 0.0, False)
    assert shifted["p_value"] == 0.0
    assert shifted["delta_ci_low"] == pytest.approx(0.1)
    assert shifted["significant"] is True


def test_zero_baseline_mean_has_no_lift() -> None:
    df = pl.DataFrame({"arm": ["A"] * 3 + ["B"] * 3, "qid": [1, 2, 3] * 2,
                       "clicks": [0.0, 0.0, 0.0, 1.0, 0.0, 2.0]})
    row = pr.compare(df, baseline="A").row(0, named=True)
    assert row["delta"] == 1.0
    assert (row["lift"], row["lift_ci_low"], row["lift_ci_high"]) == (None, None, None)


# ---------------------------------------------------------------------------- output, input
def test_output_order_and_types() -> None:
    df = per_query_frame(8).with_columns(pl.col("device").replace({"mobile": "zz-mobile"}))
    out = pr.compare(df.lazy(), baseline="B", metrics=["mrr", "ndcg"],
                     group_by=["device"], correction="bonferroni")
    assert out["device"].to_list() == ["desktop"] * 4 + ["zz-mobile"] * 4
    assert out["metric"].to_list() == ["mrr", "mrr", "ndcg", "ndcg"] * 2  # as given
    assert out["arm"].to_list() == ["A", "C"] * 4  # sorted, without the baseline
    assert out.schema["n"] == pl.Int64
    assert out.schema["significant"] == pl.Boolean
    floats = ["mean", "baseline_mean", "delta", "delta_ci_low", "delta_ci_high", "lift",
              "lift_ci_low", "lift_ci_high", "effect_size", "alpha", "p_value",
              "p_adjusted", "p_floor"]
    assert all(out.schema[c] == pl.Float64 for c in floats)
    assert all(out.schema[c] == pl.Int64 for c in ["wins", "ties", "losses", "n_resamples"])
    assert all(out.schema[c] == pl.String for c in ["test", "alternative", "correction"])
    assert out.schema["baseline"] == out.schema["arm"]
    assert set(out.columns) == {"device", *COLUMNS}


def test_integer_arms_slices_with_nulls_and_default_metrics() -> None:
    df = per_query_frame(9).with_columns(
        pl.col("arm").replace_strict({"A": 0, "B": 1, "C": 2}, return_dtype=pl.Int32),
        pl.when(pl.col("device") == "desktop").then(None).otherwise(pl.col("device"))
        .alias("device"),
        pl.lit(True).alias("flag"),  # a boolean metric: 0/1
        pl.lit("x").alias("note"),  # not numeric: not a metric
    )
    out = pr.compare(df, baseline=0, group_by="device")
    assert out.schema["arm"] == pl.Int32
    assert out["device"].to_list()[:6] == ["mobile"] * 6
    assert out["device"].to_list()[6:] == [None] * 6  # nulls last
    assert out["metric"].unique(maintain_order=True).to_list() == ["ndcg", "mrr", "flag"]


def test_evaluate_per_query_into_compare() -> None:
    df = pr.datasets.synthetic_experiment(300, seed=2)
    per = pr.evaluate(df, metrics=["ndcg@10", "map"], group_by=["device", "arm"],
                      per_query=True, doc="docid")
    out = pr.compare(per, baseline="control", group_by="device")
    assert out.columns == ["device", *COLUMNS]
    assert out.filter(metric="ndcg@10")["delta"].to_list() == pytest.approx(
        [float(v) for v in out.filter(metric="ndcg@10")["mean"]
         - out.filter(metric="ndcg@10")["baseline_mean"]])
    assert out.filter(metric="ndcg@10")["significant"].all()  # treatment ranks better


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"test": "anova"}, ValueError,
     "test must be one of 't', 'randomization', 'bootstrap', 'wilcoxon', 'sign', 'tukey'"),
    ({"correction": "fdr"}, ValueError,
     "correction must be one of 'holm', 'bonferroni', 'holm-sidak', 'bh', None"),
    ({"alpha": 0}, ValueError, "alpha must be a number strictly between 0 and 1, got 0"),
    ({"alpha": 1.5}, ValueError, "alpha must be"),
    ({"n_resamples": 0}, ValueError, "n_resamples must be a positive int, got 0"),
    ({"seed": -1}, ValueError, "seed must be a non-negative int or None"),
    ({"paired": "yes"}, TypeError, "paired must be True or False"),
    ({"arm": "variant"}, ValueError, r"no column 'variant' \(named by arm=\)"),
    ({"query": "user"}, ValueError, r"no column 'user' \(named by query=\)"),
    ({"group_by": ["device", "os"]}, ValueError, r"no column 'os' \(named by group_by=\)"),
    ({"query": None}, ValueError, "paired=True needs query="),
    ({"metrics": "recall"}, ValueError, "no metric column 'recall'"),
    ({"metrics": "device"}, TypeError, "metric column 'device' must be numeric"),
    ({"metrics": ["ndcg", "ndcg"]}, ValueError, "duplicate"),
    ({"metrics": "qid"}, ValueError, "'qid' is also the arm, a query or a group_by column"),
    ({"group_by": "qid"}, ValueError, "must name different columns"),
    ({"group_by": 3}, TypeError, "group_by must be a column name"),
])
def test_bad_options(kwargs: dict[str, object], error: type[Exception], match: str) -> None:
    df = per_query_frame()
    with pytest.raises(error, match=match):
        pr.compare(df, **{"baseline": "A", **kwargs})  # type: ignore[arg-type]


def test_bad_data() -> None:
    df = per_query_frame(arms=("A", "B"), lifts=(0.0, 0.0))
    with pytest.raises(InvalidDataError, match=r"not unique, first \{'arm': 'B', 'qid': 'q001'"):
        pr.compare(pl.concat([df, df.filter(arm="B", qid="q001")]), baseline="A")
    nan = df.with_columns(pl.when(pl.col("qid") == "q005").then(float("nan"))
                          .otherwise(pl.col("ndcg")).alias("ndcg"))
    with pytest.raises(InvalidDataError, match=r"metric 'ndcg' has 2 non-finite values.*"
                                               r"arm='A', qid='q005'.*validate"):
        pr.compare(nan, baseline="A")
    with pytest.raises(InvalidDataError, match="arm column 'arm' has null values"):
        pr.compare(df.with_columns(pl.when(pl.col("qid") == "q001").then(None)
                                   .otherwise(pl.col("arm")).alias("arm")), baseline="A")
    with pytest.raises(InvalidDataError, match="query column 'qid' has null values"):
        pr.compare(df.with_columns(pl.when(pl.col("qid") == "q001").then(None)
                                   .otherwise(pl.col("qid")).alias("qid")), baseline="A")
    with pytest.raises(TypeError, match="per_query must be a Polars DataFrame or LazyFrame"):
        pr.compare(df.to_dicts(), baseline="A")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="may not be named like result columns"):
        pr.compare(df.rename({"arm": "metric"}), arm="metric", baseline="A")


# ---------------------------------------------------------------------------- optional deps
def run_without(modules: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where ``modules`` cannot be imported."""
    hide = "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-W", "error", "-c", f"import sys\n{hide}{code}"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)


WITHOUT_EXTRAS = """
import polars as pl
import polars_rank as pr
df = pr.datasets.synthetic_experiment(30, seed=1)
means = pr.evaluate(df, metrics=["ndcg@10", "map"], group_by="arm", doc="docid")
assert means.height == 2, means
clicks = df.group_by("arm").agg(pr.abandonment("clicked", by="position", descending=False,
                                               query="qid"))
assert clicks.height == 2
per = pr.evaluate(df, metrics=["ndcg@10"], group_by="arm", per_query=True, doc="docid")
for test in ("t", "randomization", "bootstrap"):
    try:
        pr.compare(per, baseline="control", test=test)
        print(test, "ok")
    except ImportError as exc:
        print(test, "ImportError:", exc)
"""


def test_imports_and_evaluates_without_scipy() -> None:
    result = run_without(["scipy"], WITHOUT_EXTRAS)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["t"] == ("ImportError: compare(test='t') needs scipy, which is not installed; "
                          'install the statistics extra: pip install "polars-rank[stats]"')
    assert lines["randomization"] == "ok"  # NumPy only
    assert lines["bootstrap"] == "ok"


def test_imports_and_evaluates_without_numpy_and_scipy() -> None:
    result = run_without(["numpy", "scipy"], WITHOUT_EXTRAS)
    assert result.returncode == 0, result.stderr
    for line in result.stdout.splitlines():
        assert "needs numpy, which is not installed" in line
        assert 'pip install "polars-rank[stats]"' in line


def test_stats_functions_say_what_to_install() -> None:
    code = ("from polars_rank import stats\n"
            "for f in (stats.t_test, stats.randomization_test, stats.bootstrap_test):\n"
            "    try:\n"
            "        f([0.1, 0.2], [0.3, 0.4])\n"
            "    except ImportError as exc:\n"
            "        print(exc)\n")
    result = run_without(["numpy", "scipy"], code)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    for line, what in zip(lines, ["the t-test", "the randomization test", "the bootstrap"],
                          strict=True):
        assert line.startswith(f"{what} needs numpy, which is not installed"), line


def test_stats_extra_is_declared() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'stats = ["numpy>=1.24", "scipy>=1.10"]' in text
    assert 'dependencies = ["polars>=1.36", "pyarrow>=14"]' in text  # no new runtime deps


# ---------------------------------------------------------------------------- simulation
def simulated(n_sims: int, n: int, *, lift: float, paired: bool, seed: int,
              arms: tuple[str, ...] = ("control", "treatment")) -> pl.DataFrame:
    """``n_sims`` experiments (the ``sim`` slice) of ``n`` queries or units per arm.

    Paired: each query has a difficulty shared by the arms, plus each arm's noise.
    Unpaired: independent units. Every arm after the first adds ``lift`` to its mean.
    """
    rng = np.random.default_rng(seed)
    shape = (n_sims, n)
    difficulty = rng.beta(2, 2, shape)

    def values(i: int) -> np.ndarray:
        shift = lift if i else 0.0
        if paired:
            return difficulty + shift + rng.normal(0, 0.1, shape)
        return rng.beta(2, 3, shape) + shift

    sim = np.repeat(np.arange(n_sims), n)
    qid = np.tile(np.arange(n), n_sims)
    return pl.concat([
        pl.DataFrame({"sim": sim, "arm": arm, "qid": qid, "m": values(i).ravel()})
        for i, arm in enumerate(arms)
    ])


TESTS = [("t", True), ("t", False), ("randomization", True), ("randomization", False),
         ("bootstrap", True), ("bootstrap", False)]


@pytest.mark.slow
@pytest.mark.parametrize(("test", "paired"), TESTS)
def test_null_experiments_reject_at_about_alpha(test: str, paired: bool) -> None:
    """No true difference: the rejection rate is alpha within 4 binomial standard errors."""
    n_sims, alpha = 600, 0.1
    df = simulated(n_sims, 40, lift=0.0, paired=paired, seed=TESTS.index((test, paired)))
    out = pr.compare(df, baseline="control", group_by="sim", paired=paired, test=test,  # type: ignore[arg-type]
                     alpha=alpha, n_resamples=1000, seed=1)
    rate = out["significant"].mean()
    se = math.sqrt(alpha * (1 - alpha) / n_sims)
    assert abs(rate - alpha) <= 4 * se, rate  # type: ignore[operator]
    # the intervals cover the true delta (0) as often as the tests do not reject
    covered = ((out["delta_ci_low"] <= 0) & (out["delta_ci_high"] >= 0)).mean()
    assert abs(covered - (1 - alpha)) <= 4 * se, covered  # type: ignore[operator]


@pytest.mark.slow
@pytest.mark.parametrize(("test", "paired"), TESTS)
def test_real_lift_is_detected(test: str, paired: bool) -> None:
    n_sims, alpha = 100, 0.05
    lift = 0.05 if paired else 0.08  # a power of about 0.99 for a t-test
    df = simulated(n_sims, 200, lift=lift, paired=paired, seed=11)
    out = pr.compare(df, baseline="control", group_by="sim", paired=paired, test=test,  # type: ignore[arg-type]
                     alpha=alpha, n_resamples=1000, seed=2)
    assert out["significant"].mean() >= 0.9  # type: ignore[operator]
    assert (out["delta"] > 0).all()
    covered = ((out["delta_ci_low"] <= lift) & (out["delta_ci_high"] >= lift)).mean()
    assert covered >= 0.88  # type: ignore[operator]  # 95% expected; 100 experiments
    true_lift = lift / (0.5 if paired else 0.4)  # over the baseline mean
    lift_covered = ((out["lift_ci_low"] <= true_lift) & (out["lift_ci_high"] >= true_lift)).mean()
    assert lift_covered >= 0.88  # type: ignore[operator]


def test_warnings_point_at_the_caller() -> None:
    df = pl.DataFrame({"arm": ["A", "B"], "qid": [1, 1], "m": [0.1, 0.2]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pr.compare(df, baseline="A")
    assert caught[0].filename == __file__


# ---------------------------------------------------------------- issue 36: robust, few
def test_robust_band_is_over_the_pairs_the_delta_compares() -> None:
    """Issue 36, 7: arm A answers q1, q2 (0.5, 0.5), arm B q1-q4 (0.4, 0.4, 1.0, 1.0),
    bounds equal to the values. The delta compares the pairs q1, q2: -0.1; the band
    over B's four queries was [+0.2, +0.2], "robust" with the wrong sign."""
    df = pl.DataFrame({"arm": ["A", "A", "B", "B", "B", "B"], "qid": [1, 2, 1, 2, 3, 4],
                       "m": [0.5, 0.5, 0.4, 0.4, 1.0, 1.0]})
    df = df.with_columns(m_low=pl.col("m"), m_high=pl.col("m"))
    with pytest.warns(UserWarning, match="left out queries"):
        row = pr.compare(df, baseline="A", robust=True).row(0, named=True)
    assert row["delta"] == pytest.approx(-0.1)
    assert row["delta_low"] == pytest.approx(-0.1)
    assert row["delta_high"] == pytest.approx(-0.1)
    assert row["robust"] is True
    # unpaired, each arm's units: the delta and the band over all of them
    row = pr.compare(df, baseline="A", robust=True, paired=False, query=None,
                     metrics="m").row(0, named=True)
    assert (row["delta"], row["delta_low"], row["delta_high"]) == pytest.approx((0.2,) * 3)


@pytest.mark.parametrize(("paired", "test"), [(True, "t"), (False, "t"), (True, "tukey")])
def test_robust_band_holds_the_delta(paired: bool, test: str) -> None:
    """Bounds below and above each value, queries missing on either side, nulls: the
    band is computed from the very values of the delta, so it holds it."""
    rng = np.random.default_rng(36)
    rows = []
    for arm in ("A", "B", "C"):
        for q in rng.choice(40, 30, replace=False):
            value = float(rng.random())
            rows.append({"arm": arm, "qid": int(q), "m": value,
                         "m_low": value - float(rng.random()) * 0.1,
                         "m_high": value + float(rng.random()) * 0.1})
    df = pl.DataFrame(rows).with_columns(  # a value the metric could not score
        pl.when(pl.col("qid") == 3).then(None).otherwise(pl.col("m")).alias("m"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries left out
        out = pr.compare(df, baseline="A", robust=True, paired=paired, test=test,  # type: ignore[arg-type]
                         query="qid" if paired else None, metrics="m")
    assert out.height == 2
    for row in out.iter_rows(named=True):
        mine = df.filter(pl.col("arm") == row["arm"], pl.col("m").is_not_null())
        base = df.filter(pl.col("arm") == "A", pl.col("m").is_not_null())
        if paired and test != "tukey":
            shared = set(mine["qid"]) & set(base["qid"])
            mine = mine.filter(pl.col("qid").is_in(shared))
            base = base.filter(pl.col("qid").is_in(shared))
        assert row["n"] == mine.height
        assert row["delta"] == pytest.approx(mine["m"].mean() - base["m"].mean())  # type: ignore[operator]
        assert row["delta_low"] == pytest.approx(mine["m_low"].mean() - base["m_high"].mean())  # type: ignore[operator]
        assert row["delta_high"] == pytest.approx(mine["m_high"].mean() - base["m_low"].mean())  # type: ignore[operator]
        assert row["delta_low"] <= row["delta"] <= row["delta_high"]


def test_robust_refuses_missing_bounds_and_cuped() -> None:
    df = pl.DataFrame({"arm": ["A", "B"] * 3, "qid": [1, 1, 2, 2, 3, 3],
                       "m": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    bounded = df.with_columns(m_low=pl.col("m"), m_high=pl.col("m"))
    holes = bounded.with_columns(m_high=pl.when(pl.col("qid") == 2).then(None)
                                 .otherwise(pl.col("m_high")))
    with pytest.raises(InvalidDataError, match=r"robust=True: metric 'm' has 2 values whose "
                                               r"bounds \(m_low, m_high\) are null"):
        pr.compare(holes, baseline="A", robust=True)
    with pytest.raises(ValueError, match="covariate="):
        pr.compare(bounded.with_columns(pre=pl.lit(0.3)), baseline="A", robust=True,
                   paired=False, query=None, covariate="pre", metrics="m")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_bootstrap_on_few_queries_gives_no_p_value(n: int) -> None:
    """Issue 36, 10: 2-4 queries of one sign gave p = 1e-4, significant, no warning
    (t-test p = 0.20, randomization 0.5 on two). Below 10 pairs the bootstrap row
    has the means and no test, and a warning names the rule."""
    df = pl.DataFrame({"arm": ["A"] * n + ["B"] * n, "qid": list(range(n)) * 2,
                       "m": [0.5 + 0.1 * i for i in range(n)] + [0.4 + 0.05 * i for i in range(n)]})
    with pytest.warns(UserWarning, match=r"fewer than 10 pairs, too few for the bootstrap.*"
                                         r"test='t' or test='randomization'"):
        row = pr.compare(df, baseline="B", test="bootstrap").row(0, named=True)
    assert row["delta"] > 0
    assert row["p_value"] is None
    assert row["significant"] is None
    assert row["delta_ci_low"] is None
    exact = pr.compare(df, baseline="B", test="randomization").row(0, named=True)
    assert exact["p_value"] == pytest.approx(2 / 2**n)  # every sign flip enumerated
    t = pr.compare(df, baseline="B").row(0, named=True)
    a, b = df.filter(arm="A")["m"].to_numpy(), df.filter(arm="B")["m"].to_numpy()
    assert t["p_value"] == pytest.approx(sps.ttest_rel(a, b).pvalue)
    assert t["p_value"] > 0.01  # the bootstrap said 1 / n_resamples
    ten = pl.DataFrame({"arm": ["A"] * 10 + ["B"] * 10, "qid": list(range(10)) * 2,
                        "m": [0.5 + 0.01 * i for i in range(10)] * 2})
    assert pr.compare(ten, baseline="B", test="bootstrap", n_resamples=200)["p_value"].item() \
        is not None
    with pytest.warns(UserWarning, match="fewer than 10 values in an arm"):
        pr.compare(df, baseline="B", test="bootstrap", paired=False, query=None, metrics="m")
