"""The command line: ``polars-rank eval`` against pytrec_eval, formats, errors, demo.

``main(argv)`` is called in-process (output captured with capsys); ``--help`` also
runs as ``python -m polars_rank`` in a subprocess.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
import pytrec_eval

import polars_rank
from polars_rank.__main__ import main

METRICS = ["ndcg_cut_10", "map", "P_5"]  # trec_eval's spellings: named as pytrec_eval's keys
METRICS_ARGS = [arg for m in METRICS for arg in ("-m", m)]
TREC_MEASURES = {"ndcg_cut.10", "map", "P.5"}
SEEDS = range(6)

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


def pipeline_module():
    """The module holding evaluate()'s steps (its bucket size is patched in tests)."""
    import importlib

    return importlib.import_module("polars_rank._evaluation.pipeline")


def make_case(seed: int) -> tuple[Run, Qrels]:
    """A small TREC case with every awkward feature trec_eval handles.

    Tied scores, unjudged retrieved documents, judged documents the run never
    retrieved, a query only in the qrels, a query only in the run, an id that looks
    like a number ("007") and a query with no relevant document.
    """
    rng = random.Random(seed)
    run: Run = {}
    qrels: Qrels = {}
    for q in ["q1", "q2", "q3", "007", "q10", "q_norel"]:
        docs = [f"d{i}" for i in rng.sample(range(40), rng.randint(6, 18))]
        run[q] = {d: rng.choice([0.5, 1.0, 1.0, 2.0, 2.0, 3.25, -1.0]) for d in docs[:-3]}
        judged = rng.sample(docs, k=len(docs) // 2) + docs[-3:]  # last 3: unretrieved
        labels = [0] if q == "q_norel" else [0, 0, 1, 2, 3]
        qrels[q] = {d: rng.choice(labels) for d in judged}
        qrels[q].setdefault(docs[-1], 0)
        qrels[q][docs[-2]] = 2 if q != "q_norel" else 0  # a relevant unretrieved doc
    qrels["q_qrels_only"] = {"d1": 1, "d2": 0, "d3": 2}
    run["q_run_only"] = {"d1": 1.0, "d2": 0.5}

    # the features the case promises
    retrieved_unjudged = [(q, d) for q in run if q in qrels for d in run[q] if d not in qrels[q]]
    judged_unretrieved = [(q, d) for q in qrels if q in run for d in qrels[q] if d not in run[q]]
    assert retrieved_unjudged
    assert judged_unretrieved
    assert any(len(set(docs.values())) < len(docs) for docs in run.values())  # ties
    return run, qrels


def write_case(tmp_path: Path, run: Run, qrels: Qrels, name: str = "run_a.txt") -> tuple[str, str]:
    qrels_path = tmp_path / "qrels.txt"
    run_path = tmp_path / name
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items()
                                  for d, r in docs.items()))
    # ranks deliberately not in score order: trec_eval ranks by score only
    run_path.write_text("".join(f"{q} Q0 {d} {i + 1} {s!r} tag\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(docs.items())))
    return str(qrels_path), str(run_path)


def trec_eval(run: Run, qrels: Qrels) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values (queries in both the run and the qrels)."""
    return pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES).evaluate(run)


def read_csv(text: str) -> pl.DataFrame:
    return pl.read_csv(io.StringIO(text), infer_schema=False)


def values(frame: pl.DataFrame, column: str) -> dict[tuple[str, str], float]:
    return {(m, q): float(v) for m, q, v in frame.select("metric", "qid", column).rows()}


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``main(argv)``: exit code, stdout, stderr.

    make_case's qrels judge a query its runs lack (q_qrels_only), on which trec_eval 10
    (and ``polars-rank eval`` by default) stops; these tests compare with pytrec_eval
    (trec_eval 9), which skips it, so ``eval`` runs with ``--missing skip`` unless the
    arguments say how to treat it (test_trec_eval_binary.py tests the default).
    """
    args = list(argv)
    if args[:1] == ["eval"] and not {"-c", "--missing"} & set(args):
        args[1:1] = ["--missing", "skip"]
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------- against trec_eval

@pytest.mark.parametrize("seed", SEEDS)
def test_eval_means_equal_trec_eval(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    seed: int) -> None:
    run, qrels = make_case(seed)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path,
                           "-m", "ndcg_cut_10", "-m", "map", "-m", "P_5", "--format", "csv")
    assert code == 0
    frame = read_csv(out)
    assert frame.columns == ["metric", "qid", "run_a.txt"]
    assert frame["metric"].to_list() == METRICS  # in the order asked, means only
    assert set(frame["qid"]) == {"all"}

    reference = trec_eval(run, qrels)
    assert set(reference) == (set(run) & set(qrels))
    got = values(frame, "run_a.txt")
    for metric in METRICS:
        mean = sum(r[metric] for r in reference.values()) / len(reference)
        assert got[metric, "all"] == pytest.approx(mean, abs=1e-9), metric


@pytest.mark.parametrize("memory", ["auto", "high", "low"])
@pytest.mark.parametrize("seed", SEEDS)
def test_eval_per_query_equals_trec_eval(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         seed: int, memory: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:

    # --memory low: several buckets even on this small case (auto: above 20 run rows)
    monkeypatch.setattr(pipeline_module(), "_BUCKET_ROWS", 5)
    monkeypatch.setattr(importlib.import_module("polars_rank._evaluation.buckets"),
                        "AUTO_ROWS", 20)
    run, qrels = make_case(seed)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path, "-m", "ndcg_cut_10",
                           "-m", "map", "-m", "P_5", "--format", "csv", "--per-query",
                           "--memory", memory)
    assert code == 0
    frame = read_csv(out)
    reference = trec_eval(run, qrels)
    got = values(frame, "run_a.txt")
    expected_keys = {(m, q) for m in METRICS for q in [*reference, "all"]}
    assert set(got) == expected_keys  # no qrels-only, no run-only query
    assert "007" in frame["qid"]  # ids stay strings end to end
    for q, per_query in reference.items():
        for metric in METRICS:
            assert got[metric, q] == pytest.approx(per_query[metric], abs=1e-9), (metric, q)
    for metric in METRICS:
        mean = sum(r[metric] for r in reference.values()) / len(reference)
        assert got[metric, "all"] == pytest.approx(mean, abs=1e-9)
    # per metric: the queries, then "all" last
    for metric in METRICS:
        assert frame.filter(pl.col("metric") == metric)["qid"].to_list()[-1] == "all"


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_eval_negative_qrels_labels_as_trec_eval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int,
) -> None:
    # -1 / -2 ("in the pool, not judged") read as null: same values as trec_eval
    run, qrels = make_case(seed)
    rng = random.Random(seed)
    for docs in qrels.values():
        for d in docs:
            if rng.random() < 0.3:
                docs[d] = rng.choice([-1, -2])
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path, "-m", "ndcg_cut_10",
                           "-m", "map", "-m", "P_5", "--format", "csv", "--per-query")
    assert code == 0
    got = values(read_csv(out), "run_a.txt")
    # pytrec_eval-terrier can crash on negative labels; for these measures trec_eval
    # treats them as absent from the qrels, so the oracle gets them dropped
    reference = trec_eval(run, {q: {d: r for d, r in docs.items() if r >= 0}
                                for q, docs in qrels.items()})
    assert {q for _, q in got} == {*reference, "all"}
    for q, per_query in reference.items():
        for metric in METRICS:
            assert got[metric, q] == pytest.approx(per_query[metric], abs=1e-9), (metric, q)


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_eval_missing_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                           seed: int) -> None:
    run, qrels = make_case(seed)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path, "-m", "ndcg_cut_10",
                           "-m", "map", "-m", "P_5", "--format", "csv", "--per-query",
                           "--missing", "zero")
    assert code == 0
    got = values(read_csv(out), "run_a.txt")
    reference = trec_eval(run, qrels)
    reference["q_qrels_only"] = dict.fromkeys(METRICS, 0.0)  # trec_eval -c
    assert {q for _, q in got} == {*reference, "all"}
    for metric in METRICS:
        assert got[metric, "q_qrels_only"] == 0.0
        for q, per_query in reference.items():
            assert got[metric, q] == pytest.approx(per_query[metric], abs=1e-9)
        mean = sum(r[metric] for r in reference.values()) / len(reference)
        assert got[metric, "all"] == pytest.approx(mean, abs=1e-9)

    # means only: the zero query is in the mean too
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path, "-m", "map",
                           "--format", "csv", "--missing", "zero")
    assert code == 0
    mean = sum(r["map"] for r in reference.values()) / len(reference)
    assert values(read_csv(out), "run_a.txt")["map", "all"] == pytest.approx(mean, abs=1e-9)


def test_two_runs_side_by_side(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_a, qrels = make_case(0)
    run_b, _ = make_case(1)  # same query ids, other documents and scores
    qrels_path, path_a = write_case(tmp_path, run_a, qrels, "bm25.run")
    _, path_b = write_case(tmp_path, run_b, qrels, "dense.run")
    code, out, _ = run_cli(capsys, "eval", qrels_path, path_a, path_b, "-m", "ndcg_cut_10",
                           "-m", "map", "-m", "P_5", "--format", "csv", "--per-query")
    assert code == 0
    frame = read_csv(out)
    assert frame.columns == ["metric", "qid", "bm25.run", "dense.run"]
    for name, run in [("bm25.run", run_a), ("dense.run", run_b)]:
        got = values(frame, name)
        reference = trec_eval(run, qrels)
        for q, per_query in reference.items():
            for metric in METRICS:
                assert got[metric, q] == pytest.approx(per_query[metric], abs=1e-9)
        for metric in METRICS:
            mean = sum(r[metric] for r in reference.values()) / len(reference)
            assert got[metric, "all"] == pytest.approx(mean, abs=1e-9)


def test_two_runs_with_different_queries(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 0, "b": 2}}
    qrels_path, path_a = write_case(tmp_path, {"q1": {"a": 2.0, "b": 1.0}}, qrels, "one.run")
    _, path_b = write_case(tmp_path, {"q2": {"a": 1.0, "b": 2.0}, "q1": {"b": 1.0}}, qrels,
                           "two.run")
    code, out, _ = run_cli(capsys, "eval", qrels_path, path_a, path_b, "-m", "P_1",
                           "--format", "csv", "--per-query")
    assert code == 0
    frame = read_csv(out)
    assert frame.columns == ["metric", "qid", "one.run", "two.run"]
    rows = {q: (a, b) for _, q, a, b in frame.rows()}
    assert rows["q2"][0] is None  # q2 not in run one: empty cell, not 0
    assert float(rows["q2"][1]) == 1.0
    assert float(rows["all"][0]) == 1.0  # mean over run one's own queries
    assert float(rows["all"][1]) == 0.5


# -------------------------------------------------------------------------------- formats

def test_format_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run, qrels = make_case(2)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path, "-m", "ndcg_cut_10",
                           "-m", "map", "-m", "P_5", "--format", "json", "--per-query")
    assert code == 0
    records = json.loads(out)
    reference = trec_eval(run, qrels)
    assert len(records) == len(METRICS) * (len(reference) + 1)
    for record in records:
        assert set(record) == {"metric", "qid", "run_a.txt"}
        if record["qid"] != "all":
            expected = reference[record["qid"]][record["metric"]]
            assert record["run_a.txt"] == pytest.approx(expected, abs=1e-9)


def test_format_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run, qrels = make_case(3)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path, "-m", "ndcg_cut_10",
                           "-m", "map", "-m", "P_5", "--format", "table")
    assert code == 0
    header, *lines = out.splitlines()
    assert "metric" in header
    assert "run_a.txt" in header
    assert len(lines) == len(METRICS)
    reference = trec_eval(run, qrels)
    for metric, line in zip(METRICS, lines, strict=True):
        cells = line.split()
        assert cells[:2] == [metric, "all"]
        assert re.fullmatch(r"-?\d+\.\d{4}", cells[2]), line
        mean = sum(r[metric] for r in reference.values()) / len(reference)
        assert float(cells[2]) == pytest.approx(mean, abs=5e-5)


def test_one_run_prints_trec_eval_official_set_by_default(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run, qrels = make_case(4)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path)  # no -m: trec_eval's official
    assert code == 0
    lines = out.splitlines()
    names = [line.split("\t")[0].strip() for line in lines]
    assert names[:7] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map"]
    assert "iprec_at_recall_0.50" in names
    assert "P_1000" in names
    assert all(re.fullmatch(r"\S+ *\tall\t\S+", line) for line in lines)
    assert all(re.search(r"\t\d\.\d{4}$", line) for line in lines[5:])


def test_two_runs_print_a_table_by_default(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    run, qrels = make_case(4)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", "-m", "map", "-m", "P.5,10", qrels_path, run_path,
                           run_path)
    assert code == 0
    header, *lines = out.splitlines()
    assert "metric" in header
    assert [line.split()[0] for line in lines] == ["map", "P_5", "P_10"]


# --------------------------------------------------------------------------------- errors

def test_unknown_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run, qrels = make_case(0)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, err = run_cli(capsys, "eval", qrels_path, run_path, "-m", "ndgc@10")
    assert code == 1  # trec_eval's status for an unknown measure ("illegal measure")
    assert "did you mean" in err
    assert "ndgc@10" in err
    assert out == ""


def test_malformed_run_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("q1 0 d1 1\n")
    run_path = tmp_path / "broken.run"
    run_path.write_text("# my run\n\nq1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 two t\n")
    code, out, err = run_cli(capsys, "eval", str(qrels_path), str(run_path), "-m", "map")
    assert code == 2
    assert re.search(r"\bline 4\b", err), err
    assert "broken.run" in err
    assert "q1 Q0 d2 2 two t" in err
    assert out == ""


def test_malformed_qrels_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels_path = tmp_path / "broken.qrels"
    qrels_path.write_text("q1 0 d1 1\n\nq1 0 d2 1.5\n")
    run_path = tmp_path / "run.txt"
    run_path.write_text("q1 Q0 d1 1 2.0 t\n")
    code, _, err = run_cli(capsys, "eval", str(qrels_path), str(run_path), "-m", "map")
    assert code == 2
    assert re.search(r"\bline 3\b", err), err
    assert "broken.qrels" in err


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str) -> None:
    run, qrels = make_case(0)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    missing = str(tmp_path / "does_not_exist.txt")
    argv = [missing, run_path] if which == "qrels" else [qrels_path, missing]
    code, out, err = run_cli(capsys, "eval", *argv, "-m", "map")
    assert code == 2
    assert "does_not_exist.txt" in err
    assert out == ""


def test_unjudged_run_queries_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run, qrels = make_case(0)
    run["q_run_only_2"] = {"d5": 1.0}  # two run queries without judgments
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, err = run_cli(capsys, "eval", qrels_path, run_path, "-m", "map",
                             "--format", "csv")
    assert code == 0
    assert "warning" in err
    assert re.search(r"\b2\b", err), err
    assert "judgment" in err
    reference = trec_eval(run, qrels)  # the warned queries are not in the mean
    mean = sum(r["map"] for r in reference.values()) / len(reference)
    assert values(read_csv(out), "run_a.txt")["map", "all"] == pytest.approx(mean, abs=1e-9)


@pytest.mark.parametrize(("grade", "given"), [(3, []), (1, ["--unjudged-grade", "1"])])
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_bounds_are_trec_eval_on_the_qrels_and_on_them_completed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, grade: int,
        given: list[str]) -> None:
    """``--bounds``: ``<m>_low`` is trec_eval's number, ``<m>_high`` trec_eval's on the
    qrels where every unjudged document the run retrieved for a judged query is judged
    at the grade (default: the qrels' largest label, 3 here)."""
    run, qrels = make_case(seed)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, err = run_cli(capsys, "eval", qrels_path, run_path, *METRICS_ARGS, "--bounds",
                             *given, "-q", "--format", "csv")
    assert code == 0, err
    frame = read_csv(out)
    names = frame["metric"].unique(maintain_order=True).to_list()
    measures = [n for n in names if not n.endswith(("_low", "_high"))]  # trec_eval's order
    assert sorted(measures) == sorted(METRICS)
    assert names == [f"{m}{end}" for m in measures for end in ("", "_low", "_high")]
    got = values(frame, "run_a.txt")
    completed = {q: dict(docs) for q, docs in qrels.items()}
    for q in set(run) & set(qrels):
        for d in run[q]:
            completed[q].setdefault(d, grade)
    low, high = trec_eval(run, qrels), trec_eval(run, completed)
    assert any(high[q]["P_5"] > low[q]["P_5"] for q in low)  # the check can fail
    for metric in METRICS:
        for end, reference in (("", low), ("_low", low), ("_high", high)):
            for q, row in reference.items():
                assert got[f"{metric}{end}", q] == pytest.approx(row[metric], abs=1e-9)
            mean = sum(r[metric] for r in reference.values()) / len(reference)
            assert got[f"{metric}{end}", "all"] == pytest.approx(mean, abs=1e-9)


def test_bounds_in_trec_eval_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run, qrels = make_case(0)
    qrels_path, run_path = write_case(tmp_path, run, qrels)
    code, out, _ = run_cli(capsys, "eval", qrels_path, run_path, "-m", "P.5",
                           "-m", "relstring@3", "-m", "num_rel_ret", "--bounds")
    assert code == 0
    names = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert names == ["num_rel_ret", "num_rel_ret_low", "num_rel_ret_high", "P_5", "P_5_low",
                     "P_5_high"]  # relstring has no summary line, and no bounds
    high = out.splitlines()[2].split("\t")[2]
    assert re.fullmatch(r"\d+", high), high  # a count, printed as one


def test_no_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "eval" in capsys.readouterr().out


# ---------------------------------------------------------------------- demo and metrics

def test_demo(capsys: pytest.CaptureFixture[str]) -> None:
    with pl.Config():  # the demo sets display options: keep them out of later tests
        code, out, _ = run_cli(capsys, "demo", "--queries", "50")
    assert code == 0
    assert "Per arm" in out
    assert "50 queries" in out


def test_demo_compares_arms_per_segment(capsys: pytest.CaptureFixture[str]) -> None:
    with pl.Config():
        code, out, err = run_cli(capsys, "demo")  # 2000 queries, as in the README
    assert code == 0
    assert err == ""
    comparisons = out.split("Treatment vs control per device")[1]
    for heading in ("per locale", "Clicks, treatment vs control"):
        assert heading in comparisons
    for column in ("control", "treatment", "delta", "95% CI", "lift", "p (adj.)"):
        assert column in comparisons
    # the device table: one row per (device, metric), each with an interval and a p-value
    rows = [line for line in comparisons.split("per locale")[0].splitlines()
            if line.startswith("│ desktop") or line.startswith("│ mobile")]
    assert len(rows) == 6
    for row in rows:
        assert re.search(r"\[[+-]\d\.\d{4}, [+-]\d\.\d{4}\]", row), row
        assert re.search(r"(<0\.0001|\d\.\d{4})", row), row
    # treatment is better on ndcg@10 in both devices, and says so
    assert all(row.rstrip("│ ").endswith("*") for row in rows if "ndcg@10" in row)


def test_demo_without_scipy_skips_the_tests() -> None:
    root = Path(polars_rank.__file__).resolve().parent.parent
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    code = ("import sys; sys.modules['scipy'] = None\n"
            "from polars_rank.__main__ import main\n"
            "sys.exit(main(['demo', '--queries', '40']))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "Per arm" in result.stdout
    assert "Clicks per arm" in result.stdout
    assert "Significance tests skipped" in result.stdout
    assert 'pip install "polars-rank[stats]"' in result.stdout


def test_demo_warnings_go_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    with pl.Config():
        code, out, err = run_cli(capsys, "demo", "--queries", "4")
    assert code == 0
    assert "Per arm" in out
    assert err.startswith("polars-rank: warning: compare(): fewer than 2 pairs")


def test_demo_leaves_polars_config_alone(capsys: pytest.CaptureFixture[str]) -> None:
    # main() is public and returns an exit code, so it can run inside a process
    # (a notebook, a test session): it must not change polars' global display options
    before = pl.Config.state(if_set=True)
    with pl.Config():
        assert main(["demo", "--queries", "50"]) == 0
        after = pl.Config.state(if_set=True)
    capsys.readouterr()
    assert after == before


def test_metrics_lists_ndcg(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "metrics")
    assert code == 0
    assert "ndcg" in out
    assert "map" in out


def test_module_help() -> None:
    root = Path(polars_rank.__file__).resolve().parent.parent
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-m", "polars_rank", "eval", "--help"],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "trec_eval" in result.stdout
