"""``polars-rank compare``: the runs evaluated as ``eval`` does, compared, reported.

The reference is ``polars-rank eval -q --format csv`` (itself checked against
trec_eval in test_cli.py) reshaped into per-query values, then ``compare()`` and
``report()``, and SciPy's tests on the per-query differences.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank.__main__ import main

ARMS = {"bm25": 1.0, "dense": 1.15, "hybrid": 1.3}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str]]:
    folder = tmp_path_factory.mktemp("compare")
    df = pr.datasets.synthetic_experiment(60, arms=ARMS, seed=11)
    runs = []
    for arm in ARMS:
        path = folder / f"{arm}.run"
        pr.write_run(df.filter(pl.col("arm") == arm), path, tag=f"tag-{arm}")
        runs.append(str(path))
    # a query the hybrid run lacks: paired comparisons leave it out, with a warning
    lines = Path(runs[2]).read_text().splitlines()
    Path(runs[2]).write_text("\n".join(x for x in lines if not x.startswith("q00000 ")) + "\n")
    judged = df.filter(pl.col("arm") == "bm25", pl.col("rel").is_not_null())
    qrels = folder / "qrels.txt"
    judged.select("qid", pl.lit(0).alias("iter"), "docid", "rel").write_csv(
        qrels, separator=" ", include_header=False)
    return str(qrels), runs


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def per_query_from_eval(capsys: pytest.CaptureFixture[str], qrels: str, runs: list[str],
                        metrics: list[str], *flags: str) -> pl.DataFrame:
    """``eval -q --format csv`` reshaped: run, qid, one column per measure.

    ``--missing skip``: as compare, which leaves out the query the hybrid run lacks
    (eval, as trec_eval 10, stops on it by default).
    """
    argv = ["eval", qrels, *runs, "-q", "--format", "csv", "--missing", "skip", *flags]
    for m in metrics:
        argv += ["-m", m]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0
    long = pl.read_csv(io.StringIO(out), schema_overrides={"qid": pl.String})
    names = [Path(r).name for r in runs]
    return (long.filter(pl.col("qid") != "all")
            .unpivot(index=["metric", "qid"], on=names, variable_name="run")
            .with_columns(pl.col("run").str.replace(r"\.run$", ""))
            .pivot("metric", index=["run", "qid"], values="value")
            .select("run", "qid", *metrics))


def read_csv(out: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(out), infer_schema_length=None)


@pytest.mark.parametrize(("test", "extra"), [
    ("t", []), ("wilcoxon", ["--baseline", "bm25", "--correction", "holm"]),
    ("sign", ["--baseline", "dense", "--correction", "bh"]),
    ("randomization", ["--n-resamples", "500", "--seed", "3", "--correction", "none"]),
    ("tukey", ["--alpha", "0.1"]),
])
def test_csv_equals_compare_of_eval(capsys: pytest.CaptureFixture[str],
                                    files: tuple[str, list[str]], test: str,
                                    extra: list[str]) -> None:
    qrels, runs = files
    metrics = ["ndcg_cut_10", "map", "P_5"]
    argv = ["compare", qrels, *runs, "--test", test, "--format", "csv", *extra]
    for m in metrics:
        argv += ["-m", m]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    if test != "tukey":
        assert "left out queries" in err
        assert "q00000" in err
    ours = read_csv(out)
    per_query = per_query_from_eval(capsys, qrels, runs, metrics)
    baseline = extra[extra.index("--baseline") + 1] if "--baseline" in extra else None
    correction = extra[extra.index("--correction") + 1] if "--correction" in extra else None
    options = {} if correction is None else {
        "correction": None if correction == "none" else correction}
    left_out = pytest.warns(UserWarning, match="left out queries")
    with left_out if test != "tukey" else contextlib.nullcontext():
        expected = pr.compare(per_query, arm="run", baseline=baseline, test=test,  # type: ignore[arg-type]
                              alpha=float(extra[extra.index("--alpha") + 1])
                              if "--alpha" in extra else 0.05,
                              n_resamples=500 if test == "randomization" else 10_000,
                              seed=3 if test == "randomization" else 0, **options)
    assert_frame_equal(ours, expected, check_dtypes=False)


def test_wilcoxon_p_values_equal_scipy(capsys: pytest.CaptureFixture[str],
                                       files: tuple[str, list[str]]) -> None:
    from scipy import stats

    qrels, runs = files
    code, out, _ = run_cli(capsys, "compare", qrels, *runs, "-m", "ndcg@10", "--baseline",
                           "bm25", "--test", "wilcoxon", "--format", "csv")
    assert code == 0
    ours = read_csv(out)
    per_query = per_query_from_eval(capsys, qrels, runs, ["ndcg@10"])
    wide = per_query.pivot("run", index="qid", values="ndcg@10").drop_nulls()
    for other in ("dense", "hybrid"):
        both = per_query.pivot("run", index="qid", values="ndcg@10").select(
            "bm25", other).drop_nulls()
        expected = stats.wilcoxon(both[other], both["bm25"]).pvalue
        got = ours.filter(pl.col("run") == other)["p_value"].item()
        assert got == pytest.approx(expected, rel=1e-12)
    assert wide.height == 59


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_report_formats(capsys: pytest.CaptureFixture[str], files: tuple[str, list[str]],
                        fmt: str) -> None:
    qrels, runs = files
    code, out, _ = run_cli(capsys, "compare", qrels, *runs, "-m", "ndcg@10", "-m", "map",
                           "--format", fmt, "--digits", "3")
    assert code == 0
    code, csv, _ = run_cli(capsys, "compare", qrels, *runs, "-m", "ndcg@10", "-m", "map",
                           "--format", "csv")
    comparison = read_csv(csv)
    assert out == pr.report(comparison, format=fmt, arm="run", digits=3)  # type: ignore[call-overload]
    assert "hybrid" in out
    assert "bm25" in out


def test_names_by_tag(capsys: pytest.CaptureFixture[str], files: tuple[str, list[str]]) -> None:
    qrels, runs = files
    code, out, _ = run_cli(capsys, "compare", qrels, *runs, "-m", "map", "--names", "tag",
                           "--baseline", "tag-bm25")
    assert code == 0
    assert "tag-hybrid" in out
    assert "tag-bm25" in out


def test_errors(capsys: pytest.CaptureFixture[str], files: tuple[str, list[str]],
                tmp_path: Path) -> None:
    qrels, runs = files
    code, _, err = run_cli(capsys, "compare", qrels, runs[0], "-m", "map")
    assert code == 2
    assert "at least two runs" in err
    code, _, err = run_cli(capsys, "compare", qrels, *runs, "-m", "map", "--baseline", "x")
    assert code == 2
    assert "baseline 'x' is not a value" in err
    copy = tmp_path / "bm25.run"
    copy.write_text(Path(runs[0]).read_text())
    code, _, err = run_cli(capsys, "compare", qrels, runs[0], str(copy), "-m", "map")
    assert code == 2
    assert "same name ['bm25', 'bm25']" in err
    with pytest.raises(SystemExit):
        main(["compare", qrels, *runs])  # -m is required
    capsys.readouterr()
