"""pr.report(): golden files, ranx's own Report on the same numbers, options and errors.

``python tests/test_report.py`` rewrites the golden files (then read the diff).
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import polars_rank as pr

DATA = Path(__file__).parent / "data"
GOLDEN = {"markdown": "report.md", "latex": "report.tex", "table": "report.txt"}


def example() -> pl.DataFrame:
    """The fixed example of the golden files and docs/compare.md: all pairs, t-test."""
    df = pr.datasets.synthetic_experiment(
        100, arms={"bm25": 1.0, "bm25_rm3": 1.05, "dense": 1.2, "hybrid": 1.3}, seed=3)
    per_query = pr.evaluate(df, metrics=["ndcg@10", "map@100", "mrr@10"], group_by="arm",
                            per_query=True, doc="docid")
    return pr.compare(per_query)


@pytest.fixture(scope="module")
def comparison() -> pl.DataFrame:
    return example()


@pytest.mark.parametrize("fmt", list(GOLDEN))
def test_golden_files(comparison: pl.DataFrame, fmt: Any) -> None:
    assert pr.report(comparison, format=fmt) == (DATA / GOLDEN[fmt]).read_text()


def test_docs_show_the_golden_tables() -> None:
    page = (Path(__file__).parent.parent / "docs" / "compare.md").read_text()
    for name in GOLDEN.values():
        assert (DATA / name).read_text().strip() in page, name


# ---------------------------------------------------------------------------- ranx itself
def _random_comparison(seed: int, test: str = "t") -> pl.DataFrame:
    rnd = random.Random(seed)
    arms = rnd.sample(["bm25", "bm25_rm3", "dense", "hybrid", "splade", "colbert"],
                      rnd.randint(2, 6))
    metrics = ["ndcg@10", "map@100", "mrr", "precision@5"][: rnd.randint(1, 4)]
    rows = []
    for i, arm in enumerate(arms):
        shift = rnd.uniform(-0.1, 0.15) * i
        for q in range(25):
            base = rnd.random() * 0.6
            rows.append({"arm": arm, "qid": q, **{
                m: min(1.0, max(0.0, base + shift + rnd.gauss(0, 0.2))) for m in metrics}})
    return pr.compare(pl.DataFrame(rows), test=test, seed=seed)  # type: ignore[arg-type]


def _ranx_report(comparison: pl.DataFrame, digits: int) -> Any:
    """ranx's Report fed the same means and significance flags."""
    from ranx.data_structures.frozenset_dict import FrozensetDict
    from ranx.data_structures.report import Report

    metrics = comparison["metric"].unique(maintain_order=True).to_list()
    models = list(dict.fromkeys(a for row in comparison.select("baseline", "arm").iter_rows()
                                for a in row))
    results: dict[str, dict[str, float]] = {m: {} for m in models}
    pairs = FrozensetDict()
    for r in comparison.iter_rows(named=True):
        results[r["arm"]][r["metric"]] = r["mean"]
        results[r["baseline"]][r["metric"]] = r["baseline_mean"]
        pairs.setdefault((r["arm"], r["baseline"]), {})[r["metric"]] = {
            "p_value": r["p_adjusted"], "significant": bool(r["significant"])}
    results = {m: {k: results[m][k] for k in metrics} for m in models}
    return Report(models, results, pairs, metrics, max_p=0.05, win_tie_loss={},
                  rounding_digits=digits, stat_test="student")


def _rows(table: str, start: int) -> list[list[str]]:
    # tabulate prints a cell without superscript as a number, "0.320" as "0.32": compare
    # the numbers without their trailing zeros
    return [[re.sub(r"(\.\d*?)0+(?=\D|$)", r"\1", cell)
             for cell in re.split(r"\s{2,}", line.strip())]
            for line in table.splitlines()[start:] if line.strip()]


@pytest.mark.parametrize("seed", range(12))
def test_table_cells_equal_ranx(seed: int) -> None:
    pytest.importorskip("ranx")
    comparison = _random_comparison(seed, test="t" if seed % 2 else "wilcoxon")
    digits = 3 + seed % 3
    ours = pr.report(comparison, format="table", digits=digits).split("\n\n")[0]
    theirs = _ranx_report(comparison, digits).to_table()
    assert _rows(ours, 2) == _rows(theirs, 2)


def test_the_random_comparisons_have_letters() -> None:
    significant = [_random_comparison(seed)["significant"].sum() for seed in range(12)]
    assert sum(s > 0 for s in significant) >= 8, significant


def _latex_body(tex: str) -> str:
    body = tex.split("\\midrule")[1].split("\\bottomrule")[0]
    body = body.replace("\\hphantom{}", "").replace("\\textbf", "")
    return re.sub(r"\s+", "", body)


@pytest.mark.parametrize("seed", range(12))
def test_latex_rows_equal_ranx(seed: int) -> None:
    pytest.importorskip("ranx")
    comparison = _random_comparison(seed)
    ours = pr.report(comparison, format="latex")
    theirs = _ranx_report(comparison, 4).to_latex()
    # the bold cell aside (ranx bolds the first best above 0, we every best), the
    # rows, superscripts, phantoms and escaping are ranx's
    assert _latex_body(ours) == _latex_body(theirs)
    for piece in ("\\begin{table*}[ht]", "\\centering", "\\toprule", "\\midrule",
                  "\\bottomrule", "\\resizebox{0.8\\textwidth}{!}{", "\\label{tab:results}",
                  "\\textbf{\\#}", "The best results are highlighted in boldface."):
        assert piece in ours
        assert piece in theirs
    head = ours.split("\\toprule")[0]
    assert "\\begin{tabular}{c|l" + "|c" * comparison["metric"].n_unique() + "}" in head


def test_bold_is_the_best_per_column(comparison: pl.DataFrame) -> None:
    tex = pr.report(comparison, format="latex")
    means = pr.report(comparison, format="markdown")
    summary = comparison.group_by("metric").agg(pl.col("mean").max())
    assert tex.count("\\textbf{0.") == summary.height == means.count("**0.")
    for metric, best in summary.iter_rows():
        assert f"**{best:.4f}**" in means, metric


# ---------------------------------------------------------------------------- options
def _per_query() -> pl.DataFrame:
    return pl.DataFrame({
        "arm": ["ctl"] * 6 + ["good"] * 6 + ["same"] * 6,
        "qid": list(range(6)) * 3,
        "loss": [.5, .6, .7, .5, .6, .7, .1, .2, .1, .2, .15, .1, .5, .6, .7, .5, .6, .71],
    })


def test_baseline_mode_letters_only_tested_pairs() -> None:
    out = pr.compare(_per_query(), baseline="same", correction=None)
    assert out["significant"].to_list() == [False, True]  # ctl ~ same, good < same
    lines = pr.report(out, format="table").splitlines()
    # the baseline first; it beats good (c); ctl beats good too, but that pair is untested
    assert lines[2:5] == ["a  same  0.6017ᶜ", "b  ctl   0.6000", "c  good  0.1417"]


def test_lower_is_better_and_alpha() -> None:
    out = pr.compare(_per_query(), baseline="ctl", correction=None)
    higher = pr.report(out, format="markdown")
    lower = pr.report(out, format="markdown", lower_is_better=["loss"])
    assert "| a | ctl | 0.6000<sup>b</sup> |" in higher
    assert "| b | good | 0.1417 |" in higher
    assert "| a | ctl | 0.6000 |" in lower
    assert "| b | good | **0.1417**<sup>a</sup> |" in lower
    assert "| c | same | **0.6017** |" in higher
    assert "| c | same | 0.6017 |" in lower
    strict = pr.report(out, format="markdown", alpha=1e-12)
    assert "<sup>" not in strict
    assert "p ≤ 1e-12" in strict


def test_lazy_and_one_slice_and_caption() -> None:
    per_query = _per_query().with_columns(device=pl.lit("mobile"))
    out = pr.compare(per_query, baseline="ctl", group_by="device")
    text = pr.report(out.lazy(), format="latex", caption="Mine.", label="tab:x")
    assert "\\caption{\nMine.\n}" in text
    assert "\\label{tab:x}" in text


def test_errors() -> None:
    per_query = pl.concat([_per_query().with_columns(device=pl.lit(d)) for d in "xy"])
    sliced = pr.compare(per_query, baseline="ctl", group_by="device")
    with pytest.raises(ValueError, match="one slice at a time"):
        pr.report(sliced)
    with pytest.raises(ValueError, match="format must be"):
        pr.report(sliced, format="html")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="no column"):
        pr.report(sliced.drop("baseline"))
    with pytest.raises(ValueError, match="digits"):
        pr.report(sliced, digits=-1)
    with pytest.raises(ValueError, match="alpha"):
        pr.report(sliced, alpha=2.0)
    with pytest.raises(ValueError, match="several values"):
        pr.report(pl.concat([pr.compare(_per_query(), baseline="ctl"),
                             pr.compare(_per_query(), baseline="ctl", test="sign")]))
    with pytest.raises(TypeError, match="polars DataFrame"):
        pr.report({"metric": []})  # type: ignore[call-overload]


def test_captions_name_test_and_correction() -> None:
    per_query = _per_query()
    cases = {("t", True, "bh"): "paired Student's t-test with p ≤ 0.05 after "
                                "Benjamini-Hochberg correction",
             ("t", False, "holm"): "Welch's t-test with p ≤ 0.05 after Holm's correction",
             ("wilcoxon", False, None): "Wilcoxon rank-sum test with p ≤ 0.05.",
             ("sign", True, "holm-sidak"): "sign test with p ≤ 0.05 after Holm-Šidák",
             ("tukey", False, "unset"): "Tukey's HSD test with p ≤ 0.05."}
    for (test, paired, correction), expected in cases.items():
        kwargs: dict[str, Any] = {} if correction == "unset" else {"correction": correction}
        out = pr.compare(per_query, test=test, paired=paired, **kwargs)  # type: ignore[arg-type]
        assert expected in pr.report(out, format="table").replace("\n", " ")
    latex = pr.report(pr.compare(per_query, correction="holm-sidak"), format="latex")
    assert "Holm-\\v{S}id\\'ak correction" in latex


def test_chart() -> None:
    pytest.importorskip("altair")
    out = pr.compare(_per_query())
    chart = pr.report(out, format="chart")
    spec = chart.to_dict()
    assert spec["facet"]["row"]["field"] == "metric"
    values = next(iter(spec["datasets"].values()))
    minus = " \N{MINUS SIGN} "
    assert [v["pair"] for v in values] == [f"good{minus}ctl", f"same{minus}ctl",
                                           f"same{minus}good"]
    assert [v["significant"] for v in values] == out["significant"].to_list()


if __name__ == "__main__":
    frame = example()
    for fmt, name in GOLDEN.items():
        (DATA / name).write_text(pr.report(frame, format=fmt))  # type: ignore[call-overload]
