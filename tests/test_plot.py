"""polars_rank.plot: the data behind each chart, the charts, and life without Altair."""

from __future__ import annotations

import math
import statistics
import struct
import subprocess
import sys
import textwrap
import warnings
from typing import TYPE_CHECKING

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank import plot

if TYPE_CHECKING:
    from pathlib import Path

KS = (1, 3, 5, 10)


@pytest.fixture(scope="module")
def experiment() -> pl.DataFrame:
    return pr.datasets.synthetic_experiment(150, arms=("control", "treatment", "other"), seed=3)


@pytest.fixture(scope="module")
def at_k(experiment: pl.DataFrame) -> pl.DataFrame:
    return pr.evaluate(experiment, metrics=[f"ndcg@{k}" for k in KS] + ["P_5", "P_10", "map"],
                       group_by="arm", per_query=True)


@pytest.fixture(scope="module")
def comparison(experiment: pl.DataFrame) -> pl.DataFrame:
    per_query = pr.evaluate(experiment, metrics=["ndcg@10", "mrr@10"],
                            group_by=["device", "arm"], per_query=True)
    return pr.compare(per_query, baseline="control", group_by="device")


# ---------------------------------------------------------------------------- metric@k
def test_at_k_means_are_evaluate_means(experiment: pl.DataFrame) -> None:
    means = pr.evaluate(experiment, metrics=[f"ndcg@{k}" for k in KS], group_by="arm")
    data = plot.metric_at_k_data(means)
    assert data.columns == ["arm", "series", "metric", "k", "value", "ci_low", "ci_high", "n"]
    assert data["metric"].unique().to_list() == ["ndcg"]
    for row in data.iter_rows(named=True):
        expected = means.filter(pl.col("arm") == row["arm"])[f"ndcg@{row['k']}"].item()
        assert row["value"] == expected
        assert row["ci_low"] is None
        assert row["n"] is None


def test_at_k_per_query_gives_the_mean_and_a_normal_interval(at_k: pl.DataFrame) -> None:
    data = plot.metric_at_k_data(at_k, query="qid", level=0.9)
    z = statistics.NormalDist().inv_cdf(0.95)
    assert sorted(data["metric"].unique()) == ["ndcg", "p"]  # map has no cutoff
    assert sorted(data.filter(pl.col("metric") == "p")["k"].unique()) == [5, 10]
    for row in data.iter_rows(named=True):
        column = f"ndcg@{row['k']}" if row["metric"] == "ndcg" else f"P_{row['k']}"
        values = at_k.filter(pl.col("arm") == row["arm"])[column].to_list()
        mean = statistics.fmean(values)
        half = z * statistics.stdev(values) / math.sqrt(len(values))
        assert row["n"] == len(values) == 150
        assert row["value"] == pytest.approx(mean, abs=1e-12)
        assert row["ci_low"] == pytest.approx(mean - half, abs=1e-12)
        assert row["ci_high"] == pytest.approx(mean + half, abs=1e-12)


def test_at_k_joins_several_series_columns(experiment: pl.DataFrame) -> None:
    means = pr.evaluate(experiment, metrics=["ndcg@1", "ndcg@5"], group_by=["device", "arm"])
    data = plot.metric_at_k_data(means.lazy())
    assert set(data["series"]) == {f"{d} / {a}" for d in ("desktop", "mobile")
                                   for a in ("control", "treatment", "other")}
    only = plot.metric_at_k_data(means.filter(pl.col("device") == "mobile"), series="arm",
                                 metrics=["ndcg@5"])
    assert only["k"].to_list() == [5, 5, 5]


def test_at_k_trec_eval_spellings_are_their_own_metric() -> None:
    """trec_eval's ndcg_cut is linear gain, as ndcg@k strings are; ndcg_burges is not."""
    results = pl.DataFrame({"run": ["a"], "ndcg_cut_5": [0.5], "ndcg_cut_10": [0.6],
                            "ndcg_burges@10": [0.7]})
    data = plot.metric_at_k_data(results)
    assert data.select("metric", "k", "value").rows() == [
        ("ndcg", 5, 0.5), ("ndcg", 10, 0.6), ("ndcg(gain=exponential)", 10, 0.7)]


def test_at_k_bad_input() -> None:
    results = pl.DataFrame({"arm": ["a", "a"], "ndcg@5": [0.5, 0.6], "map": [0.1, 0.2]})
    with pytest.raises(ValueError, match="no metric column with a cutoff"):
        plot.metric_at_k_data(results.select("arm", "map"))
    with pytest.raises(ValueError, match="has no cutoff"):
        plot.metric_at_k_data(results, metrics="map")
    with pytest.raises(ValueError, match="several rows per series"):
        plot.metric_at_k_data(results)
    with pytest.raises(ValueError, match="level"):
        plot.metric_at_k_data(results, query="arm", level=1.5)
    with pytest.raises(ValueError, match="no column 'qid'"):
        plot.metric_at_k_data(results, query="qid")
    with pytest.raises(TypeError, match="DataFrame or LazyFrame"):  # (a dict is a frame)
        plot.metric_at_k_data([{"ndcg@5": 1.0}])  # type: ignore[arg-type]
    one = results.head(1)
    assert_frame_equal(plot.metric_at_k_data(one.to_dict(as_series=False)),
                       plot.metric_at_k_data(one))


# ---------------------------------------------------------------------------- forest
def test_forest_data_follows_compare(comparison: pl.DataFrame) -> None:
    data = plot.forest_data(comparison)
    assert data.columns == ["device", "slice", "metric", "arm", "estimate", "low", "high",
                            "significant", "n", "mean", "baseline_mean", "p_adjusted"]
    assert data["slice"].to_list() == comparison["device"].to_list()
    assert_frame_equal(data.select(estimate="estimate", low="low", high="high"),
                       comparison.select(estimate="delta", low="delta_ci_low",
                                         high="delta_ci_high"))
    lift = plot.forest_data(comparison, value="lift")
    assert lift["estimate"].to_list() == comparison["lift"].to_list()
    assert lift["high"].to_list() == comparison["lift_ci_high"].to_list()


def test_forest_data_without_slices_and_with_open_intervals() -> None:
    comparison = pl.DataFrame({"metric": ["m"], "system": ["b"], "delta": [0.1],
                               "delta_ci_low": [-math.inf], "delta_ci_high": [math.inf]})
    data = plot.forest_data(comparison, arm="system")
    assert data.row(0, named=True) == {
        "slice": "all", "metric": "m", "arm": "b", "estimate": 0.1, "low": None, "high": None,
        "significant": None, "n": None, "mean": None, "baseline_mean": None,
        "p_adjusted": None}
    with pytest.raises(ValueError, match="value must be"):
        plot.forest_data(comparison, arm="system", value="ratio")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no column 'arm'"):
        plot.forest_data(comparison)


# ---------------------------------------------------------------------------- distribution
def test_distribution_of_values(at_k: pl.DataFrame) -> None:
    data = plot.distribution_data(at_k, "ndcg@10", bins=10)
    assert data["arm"].unique(maintain_order=True).to_list() == ["control", "other", "treatment"]
    assert data.height == 30
    per_arm = data.group_by("arm").agg(pl.col("queries").sum(), pl.col("share").sum(),
                                       pl.col("mean").first())
    for row in per_arm.iter_rows(named=True):
        values = at_k.filter(pl.col("arm") == row["arm"])["ndcg@10"]
        assert row["queries"] == values.len()
        assert row["share"] == pytest.approx(1.0)
        assert row["mean"] == pytest.approx(values.mean())
    edges = data.filter(pl.col("arm") == "control")
    assert edges["bin_start"][0] == at_k["ndcg@10"].min()
    assert edges["bin_end"][-1] == pytest.approx(at_k["ndcg@10"].max())


def test_distribution_of_differences(at_k: pl.DataFrame) -> None:
    data = plot.distribution_data(at_k, "ndcg@10", baseline="control", bins=21)
    assert set(data["arm"]) == {"other", "treatment"}
    wide = at_k.pivot(on="arm", index="qid", values="ndcg@10")
    for arm in ("other", "treatment"):
        diff = (wide[arm] - wide["control"]).to_list()
        better = sum(d > 0 for d in diff)
        worse = sum(d < 0 for d in diff)
        tied = sum(d == 0 for d in diff)
        rows = data.filter(pl.col("arm") == arm)
        assert rows["panel"].unique().to_list() == [
            f"{arm} - control: better {better}, worse {worse}, tied {tied}"]
        assert rows["queries"].sum() == len(diff)
        assert rows["mean"][0] == pytest.approx(statistics.fmean(diff))
        middle = rows.row(10, named=True)  # 21 bins, symmetric: the middle one holds 0
        assert middle["bin_start"] < 0 < middle["bin_end"]
        assert middle["bin_start"] == pytest.approx(-middle["bin_end"])
        assert middle["queries"] >= tied


def test_distribution_bad_input(at_k: pl.DataFrame) -> None:
    with pytest.raises(ValueError, match="not a value of column 'arm'"):
        plot.distribution_data(at_k, "ndcg@10", baseline="nope")
    with pytest.raises(ValueError, match="several rows per"):
        plot.distribution_data(pl.concat([at_k, at_k]), "ndcg@10")
    with pytest.raises(ValueError, match="bins"):
        plot.distribution_data(at_k, "ndcg@10", bins=0)
    with pytest.raises(ValueError, match="no column 'nope'"):
        plot.distribution_data(at_k, "nope")
    constant = pl.DataFrame({"arm": ["a", "a"], "qid": [1, 2], "m": [1.0, 1.0]})
    one = plot.distribution_data(constant, "m", bins=1)
    assert one.select("bin_start", "bin_end", "queries").row(0) == (0.5, 1.5, 2)


# ---------------------------------------------------------------------------- charts
def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.fixture(scope="module")
def charts(at_k: pl.DataFrame, comparison: pl.DataFrame) -> dict[str, object]:
    pytest.importorskip("altair")
    pytest.importorskip("vl_convert")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # third-party, at import
        import altair  # noqa: F401
    return {
        "metric_at_k": plot.metric_at_k(at_k, query="qid", title="NDCG@k"),
        "metric_at_k_one": plot.metric_at_k(at_k, query="qid", metrics=["P_5", "P_10"],
                                            k_axis="ordinal"),
        "forest": plot.forest(comparison, title="treatments vs control"),
        "forest_lift": plot.forest(comparison, value="lift"),
        "distribution": plot.distribution(at_k, "ndcg@10"),
        "distribution_delta": plot.distribution(at_k, "ndcg@10", baseline="control"),
    }


@pytest.mark.parametrize("name", ["metric_at_k", "metric_at_k_one", "forest", "forest_lift",
                                  "distribution", "distribution_delta"])
def test_charts_render_to_png_and_svg(charts: dict[str, object], name: str,
                                      tmp_path: Path) -> None:
    chart = charts[name]
    spec = chart.to_dict()  # type: ignore[attr-defined]  # validates against Vega-Lite
    assert spec["$schema"].startswith("https://vega.github.io/schema/vega-lite/")
    chart.save(tmp_path / "chart.png")  # type: ignore[attr-defined]
    chart.save(tmp_path / "chart.svg")  # type: ignore[attr-defined]
    width, height = _png_size(tmp_path / "chart.png")
    assert width > 200
    assert height > 150
    svg = (tmp_path / "chart.svg").read_text()
    assert svg.lstrip().startswith("<svg")
    titles = {
        "metric_at_k": ["cutoff k", "NDCG@k", "ndcg", "arm"],
        "metric_at_k_one": ["cutoff k", "p", "arm"],
        "forest": ["delta vs baseline", "ndcg@10", "mrr@10", "desktop", "mobile", "treatment",
                   "other", "filled: significant"],
        "forest_lift": ["lift vs baseline", "%"],
        "distribution": ["per-query ndcg@10", "share of queries", "control"],
        "distribution_delta": ["per-query difference in ndcg@10", "treatment - control: better"],
    }[name]
    for text in titles:
        assert text in svg, f"{text!r} is not drawn"


def test_charts_shape(charts: dict[str, object]) -> None:
    spec = charts["metric_at_k"].to_dict()  # type: ignore[attr-defined]
    assert spec["facet"]["column"]["field"] == "metric"
    assert spec["resolve"]["scale"]["y"] == "independent"
    single = charts["metric_at_k_one"].to_dict()  # type: ignore[attr-defined]
    assert "facet" not in single
    assert single["layer"][0]["mark"]["type"] == "area"
    # the cutoffs choose the axis: KS are uneven (log); P_5, P_10 asked ordinal
    assert spec["spec"]["layer"][0]["encoding"]["x"]["scale"]["type"] == "log"
    assert spec["spec"]["layer"][0]["encoding"]["x"]["axis"]["values"] == list(KS)
    assert single["layer"][0]["encoding"]["x"]["type"] == "ordinal"
    even = plot.metric_at_k(pl.DataFrame({"arm": ["a"], "p@5": [0.5], "p@10": [0.4],
                                          "p@15": [0.3]})).to_dict()
    assert even["layer"][0]["encoding"]["x"]["scale"]["type"] == "linear"
    forest = charts["forest"].to_dict()  # type: ignore[attr-defined]
    assert forest["facet"]["row"]["field"] == "metric"
    assert any("yOffset" in layer.get("encoding", {}) for layer in forest["spec"]["layer"])


# ---------------------------------------------------------------------------- no Altair
def test_package_works_without_the_plot_extra() -> None:
    """Altair and vl-convert hidden: the package imports, only drawing needs them."""
    code = textwrap.dedent("""
        import sys

        class Hide:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("altair", "vl_convert"):
                    raise ModuleNotFoundError(f"No module named {name!r}")
                return None

        sys.meta_path.insert(0, Hide())
        import polars as pl
        import polars_rank as pr

        assert "altair" not in sys.modules
        results = pl.DataFrame({"arm": ["a"], "ndcg@1": [0.5], "ndcg@5": [0.6]})
        assert pr.plot.metric_at_k_data(results).height == 2
        try:
            pr.plot.metric_at_k(results)
        except ImportError as exc:
            assert 'pip install "polars-rank[plot]"' in str(exc), exc
        else:
            raise AssertionError("no ImportError")
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
