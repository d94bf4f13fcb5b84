"""The intent-aware (diversity) metrics against ndeval, through every entry point.

References: pyndeval (ndeval 4.5 itself, compiled; ir_measures' provider for these
measures), ir_measures' own ``iter_calc``, and the plain-Python transcription of
ndeval.c in ``reference.ndeval`` for what pyndeval cannot compute (cutoffs past 20,
the whole list). Data: random diversity qrels with several subtopics, documents
relevant to several, graded and negative ("pooled, unjudged") labels, queries with
nothing relevant, judged documents the run never retrieved, unjudged retrieved
documents and tied scores (ndeval, as ir_measures calls it, orders them by document
id, ascending).
"""

from __future__ import annotations

import math
import random
import warnings
from typing import TYPE_CHECKING, Any

import polars as pl
import pytest
import reference as ref
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank.errors import InvalidDataError
from polars_rank.registry import METRICS, parse_metric

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

pyndeval = pytest.importorskip("pyndeval")
ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")

Qrel = tuple[str, str, str, int]  # qid, subtopic, docid, label (negative: pooled, unjudged)
Scored = tuple[str, str, float]
KW: dict[str, Any] = {"subtopic": "subtopic", "doc": "docid", "by": "score"}

# our function, and ndeval's name for it (None: no cutoff there)
FUNCTIONS: dict[str, tuple[Callable[..., pl.Expr], str, bool]] = {
    # name: (function, ndeval's name, takes alpha)
    "alpha_ndcg": (pr.alpha_ndcg, "alpha-nDCG@{k}", True),
    "alpha_dcg": (pr.alpha_dcg, "alpha-DCG@{k}", True),
    "err_ia": (pr.err_ia, "ERR-IA@{k}", True),
    "nerr_ia": (pr.nerr_ia, "nERR-IA@{k}", True),
    "p_ia": (pr.precision_ia, "P-IA@{k}", False),
    "strecall": (pr.subtopic_recall, "strec@{k}", False),
    "nrbp": (pr.nrbp, "NRBP", True),
    "nnrbp": (pr.nnrbp, "nNRBP", True),
    "ap_ia": (pr.ap_ia, "MAP-IA", False),
}


def diversity_case(seed: int, n_queries: int = 6) -> tuple[list[Qrel], list[Scored]]:
    """Random diversity qrels and a run: ties, unretrieved and unjudged documents."""
    rng = random.Random(seed)
    qrels: dict[tuple[str, str, str], Qrel] = {}
    run: dict[tuple[str, str], Scored] = {}
    for q in range(n_queries):
        n_docs, n_subs = rng.randint(0, 12), rng.randint(1, 4)
        names = [f"d{d:02d}" if rng.random() < 0.5 else f"D{d}" for d in range(n_docs + 3)]
        for d, name in enumerate(names):
            for s in range(n_subs):
                if rng.random() < 0.6:
                    label = rng.choice([0, 0, 1, 2, -1])
                    qrels[(f"q{q}", f"s{s}", name)] = (f"q{q}", f"s{s}", name, label)
            if d < n_docs:  # the last three: judged, never retrieved
                run[(f"q{q}", name)] = (f"q{q}", name, float(rng.choice([1, 2, 2, 3, 4.5])))
    return list(qrels.values()), list(run.values())


def frames(qrels: list[Qrel], run: list[Scored]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The qrels as the readers give them (negative labels null) and the run."""
    q = pl.DataFrame(qrels, schema=["qid", "subtopic", "docid", "rel"], orient="row")
    q = q.with_columns(pl.when(pl.col("rel") >= 0).then("rel").alias("rel"))
    r = pl.DataFrame(run, schema=["qid", "docid", "score"], orient="row")
    return q, r


def joined(qrels: pl.DataFrame, run: pl.DataFrame) -> pl.DataFrame:
    """One row per (document, subtopic); the full join keeps unretrieved judgments."""
    return run.join(qrels, on=["qid", "docid"], how="full", coalesce=True)


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def ndeval_values(qrels: list[Qrel], run: list[Scored], names: list[str], level: int,
                  alpha: float, beta: float) -> dict[str, dict[str, float]]:
    """pyndeval per query (NaN, its nNRBP of a query with nothing relevant: 0 here)."""
    evaluator = pyndeval.RelevanceEvaluator(qrels, names, relevance_level=level,
                                            alpha=alpha, beta=beta)
    out = evaluator.evaluate(run)
    for values in out.values():
        for name, value in values.items():
            if math.isnan(value):
                assert name == "nNRBP"
                values[name] = 0.0
    return out


@pytest.mark.parametrize("seed", range(10))
def test_every_measure_equals_pyndeval(seed: int) -> None:
    rng = random.Random(1000 + seed)
    level, alpha = rng.choice([1, 1, 2]), rng.choice([0.5, 0.5, 0.3, 0.9, 0.0, 1.0])
    beta = rng.choice([0.5, 0.2])
    qrels, run = diversity_case(seed)
    cutoffs = [1, 2, 5, 20]
    wanted = {name: [c.format(k=k) for k in cutoffs] if "{k}" in c else [c]
              for name, (_, c, _) in FUNCTIONS.items()}
    theirs = ndeval_values(qrels, run, [n for v in wanted.values() for n in v], level,
                           alpha, beta)
    q, r = frames(qrels, run)
    exprs = []
    for name, (function, spelling, takes_alpha) in FUNCTIONS.items():
        options: dict[str, Any] = {**KW, "threshold": level}
        if takes_alpha:
            options["alpha"] = alpha
        if name in ("nrbp", "nnrbp"):
            options["beta"] = beta
        for k in cutoffs if "{k}" in spelling else [None]:
            column = spelling.format(k=k)
            call = function("rel", k, **options) if k else function("rel", **options)
            exprs.append(call.alias(column))
    ours = joined(q, r).filter(pl.col("qid").is_in(list(theirs))).group_by("qid").agg(exprs)
    assert ours.height == len(theirs)
    for row in ours.iter_rows(named=True):
        for column in ours.columns[1:]:
            assert close(row[column], theirs[row["qid"]][column]), (row["qid"], column)


def _judged(qrels: list[Qrel], qid: str, level: int) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for q, s, d, label in qrels:
        if q == qid:
            out.setdefault(d, set())
            if label >= level:
                out[d].add(s)
    return out


def _ranked(run: list[Scored], qid: str) -> list[str]:
    rows = sorted((r for r in run if r[0] == qid), key=lambda r: (-r[2], r[1]))
    return [d for _, d, _ in rows]


def test_the_transcription_equals_pyndeval() -> None:
    """reference.ndeval (the oracle past pyndeval's cutoff 20) is ndeval."""
    for seed in range(5):
        qrels, run = diversity_case(seed)
        names = [c.format(k=k) for _, c, _ in FUNCTIONS.values() for k in (3, 20)]
        theirs = ndeval_values(qrels, run, list(dict.fromkeys(names)), 1, 0.5, 0.5)
        for qid, values in theirs.items():
            for k in (3, 20):
                mine = ref.ndeval(_judged(qrels, qid, 1), _ranked(run, qid), k)
                for name, (_, spelling, _) in FUNCTIONS.items():
                    if "{k}" in spelling:
                        assert close(mine[name], values[spelling.format(k=k)]), (qid, name)
            whole = ref.ndeval(_judged(qrels, qid, 1), _ranked(run, qid), None)
            for name in ("nrbp", "nnrbp", "ap_ia"):
                assert close(whole[name], values[FUNCTIONS[name][1]]), (qid, name)


@pytest.mark.parametrize("k", [None, 25])
def test_cutoffs_past_ndevals_depth_equal_the_transcription(k: int | None) -> None:
    for seed in range(4):
        qrels, run = diversity_case(seed, n_queries=4)
        qrels = [(qid, s, d, label) for qid, s, d, label in qrels]
        run = run + [(qid, f"x{i}", 0.5) for qid, _, _ in run[:3] for i in range(25)]
        run = list({(a, b): (a, b, c) for a, b, c in run}.values())
        q, r = frames(qrels, run)
        names = ["alpha_dcg", "err_ia", "p_ia", "strecall", "ap_ia"]
        names += ["alpha_ndcg", "nerr_ia"] if k else []
        exprs = [FUNCTIONS[n][0]("rel", k, **KW).alias(n) for n in names]
        ours = joined(q, r).filter(pl.col("score").is_not_null().any().over("qid"))
        for row in ours.group_by("qid").agg(exprs).iter_rows(named=True):
            want = ref.ndeval(_judged(qrels, row["qid"], 1), _ranked(run, row["qid"]), k)
            for name in names:
                assert close(row[name], want[name]), (seed, row["qid"], name)


SPELLINGS = ["alpha_nDCG@20", "alpha_nDCG@5", "alpha_nDCG(alpha=0.3)@10", "\u03b1_nDCG@3",
             "alpha_DCG@10", "\u03b1_DCG@5", "ERR_IA@20", "ERR_IA@1", "nERR_IA@20", "P_IA@10",
             "P_IA(rel=2)@5", "StRecall@20", "NRBP", "nNRBP", "NRBP(beta=0.2)", "AP_IA",
             "MAP_IA"]


@pytest.mark.parametrize("seed", range(4))
def test_evaluate_equals_ir_measures(seed: int) -> None:
    qrels, run = diversity_case(100 + seed)
    q, r = frames(qrels, run)
    r = r.sample(fraction=1.0, shuffle=True, seed=seed)  # ties: by doc id, not row order
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run queries without judgments
        ours = pr.evaluate(r, q, [*SPELLINGS, "ndcg@10"], per_query=True)
    qd = pd.DataFrame(qrels, columns=["query_id", "iteration", "doc_id", "relevance"])
    rd = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    theirs: dict[tuple[str, str], float] = {}
    for spelling in SPELLINGS:
        # one measure a call: ir_measures 0.4.3 gives pyndeval an exhausted run for a
        # second parameter set (alpha, beta, rel) of one call, and reports 0.0
        for m in ir_measures.iter_calc([ir_measures.parse_measure(spelling)], qd, rd):
            theirs[(m.query_id, spelling)] = 0.0 if math.isnan(m.value) else m.value
    assert ours.height > 0
    for row in ours.iter_rows(named=True):
        for spelling in SPELLINGS:
            assert close(row[spelling], theirs[(row["qid"], spelling)]), (row["qid"], spelling)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_positions_equal_scores(name: str) -> None:
    """rank= (a ranking step's positions, as evaluate passes them) equals by=."""
    qrels, run = diversity_case(7)
    q, r = frames(qrels, run)
    function = FUNCTIONS[name][0]
    ranks = r.with_columns(pl.struct(-pl.col("score"), "docid").rank("dense").over("qid")
                           .alias("position"))
    rows = joined(q, ranks)
    k = 3 if "{k}" in FUNCTIONS[name][1] else None
    args = ("rel", k) if k else ("rel",)
    by_score = rows.group_by("qid").agg(function(*args, **KW).alias("m")).sort("qid")
    by_rank = rows.group_by("qid").agg(
        function(*args, subtopic="subtopic", doc="docid", rank="position").alias("m"))
    assert_frame_equal(by_score, by_rank.sort("qid"), check_exact=False, rel_tol=1e-12,
                       abs_tol=1e-12)
    namespace = getattr(pl.col("rel").rank, function.__name__)
    via = rows.group_by("qid").agg(namespace(*args[1:], **KW).alias("m")).sort("qid")
    assert_frame_equal(via, by_score, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


def test_unscorable_lists_are_nan() -> None:
    base = pl.DataFrame({"docid": ["a", "a", "b"], "subtopic": ["1", "2", "1"],
                         "rel": [1, 1, 1], "score": [2.0, 2.0, 1.0]})
    bad = {
        "a (document, subtopic) pair twice": base.with_columns(subtopic=pl.lit("1")),
        "a negative label": base.with_columns(rel=pl.Series([1, -1, 1])),
        "a document with two scores": base.with_columns(score=pl.Series([2.0, 3.0, 1.0])),
        "a NaN score": base.with_columns(score=pl.Series([2.0, 2.0, float("nan")])),
    }
    for what, frame in bad.items():
        for function, _, _ in FUNCTIONS.values():
            value = frame.select(function("rel", **KW)).item() if function in (
                pr.nrbp, pr.nnrbp) else frame.select(function("rel", 2, **KW)).item()
            assert math.isnan(value), (what, function.__name__)
    shared = base.with_columns(position=pl.Series([1, 1, 1]))  # a and b both first
    for function, spelling, _ in FUNCTIONS.values():
        args = ("rel", 2) if "{k}" in spelling else ("rel",)
        value = shared.select(function(*args, subtopic="subtopic", doc="docid",
                                       rank="position")).item()
        assert math.isnan(value), function.__name__
        fine = shared.with_columns(position=pl.Series([1, 1, 2]))
        assert not math.isnan(fine.select(function(*args, subtopic="subtopic", doc="docid",
                                                   rank="position")).item())


def test_parameters_are_checked_when_built() -> None:
    with pytest.raises(ValueError, match="needs a cutoff k"):
        pr.alpha_ndcg("rel", **KW)
    with pytest.raises(ValueError, match="alpha must be a number in"):
        pr.err_ia("rel", 5, alpha=1.5, **KW)
    with pytest.raises(ValueError, match="beta=1"):
        pr.nnrbp("rel", beta=1.0, **KW)
    with pytest.raises(TypeError, match=r"by= .* or rank="):
        pr.precision_ia("rel", 5, subtopic="s", doc="d")
    with pytest.raises(ValueError, match="ties must be one of"):
        pr.subtopic_recall("rel", 5, ties="expected", **KW)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a cutoff"):
        parse_metric("alpha_nDCG")
    with pytest.raises(ValueError, match="takes no cutoff"):
        parse_metric("NRBP@10")


def test_spellings_parse_to_the_registry() -> None:
    expected = {
        "alpha_nDCG@20": "alpha_ndcg@20", "\u03b1_nDCG@20": "alpha_ndcg@20",
        "\u03b1_DCG@5": "alpha_dcg@5", "alpha_nDCG(alpha=0.3)@20": "alpha_ndcg@20(alpha=0.3)",
        "ERR_IA@20": "err_ia@20", "nERR_IA@20": "nerr_ia@20", "P_IA@10": "p_ia@10",
        "P_IA(rel=2)@10": "p_ia@10(threshold=2)", "StRecall@20": "strecall@20",
        "NRBP": "nrbp", "nNRBP(beta=0.8)": "nnrbp(beta=0.8)", "AP_IA": "ap_ia",
        "MAP_IA": "ap_ia", "AP_IA@10": "ap_ia@10",
    }
    for spelling, canonical in expected.items():
        metric = parse_metric(spelling)
        assert str(metric) == canonical
        assert metric.definition.subtopics
        assert parse_metric(canonical) == metric
    assert {m.name for m in METRICS.values() if m.subtopics} == set(FUNCTIONS)


def test_other_metrics_read_the_largest_label() -> None:
    """Diversity qrels: one row per (query, doc) with its largest label for ndcg, map."""
    qrels, run = diversity_case(3)
    q, r = frames(qrels, run)
    plain = ["ndcg@10", "map", "P@5", "recip_rank"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixed = pr.evaluate(r, q, ["alpha_nDCG@10", *plain], per_query=True)
        flat = q.group_by("qid", "docid").agg(pl.col("rel").max())
        alone = pr.evaluate(r, flat, plain, per_query=True)
    assert_frame_equal(mixed.select("qid", *plain), alone, check_exact=False, rel_tol=1e-12,
                       abs_tol=1e-12)


def test_every_evaluate_path_agrees() -> None:
    """group_by arms, missing="zero", memory="low", lazy in and out, ties="first"."""
    qrels, run = diversity_case(11)
    q, r = frames(qrels, run)
    specs = ["alpha_nDCG@5", "nERR_IA@5", "StRecall@5", "AP_IA"]
    arms = pl.concat([r.with_columns(arm=pl.lit("A")),
                      r.with_columns(arm=pl.lit("B"), score=-pl.col("score"))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        per = pr.evaluate(arms, q, specs, group_by="arm", per_query=True)
        a = pr.evaluate(r, q, specs, per_query=True)
        low = pr.evaluate(arms, q, specs, group_by="arm", per_query=True, memory="low")
        lazy = pr.evaluate(arms.lazy(), q.lazy(), specs, group_by="arm", per_query=True)
        zero = pr.evaluate(r, q, specs, per_query=True, missing="zero")
        means = pr.evaluate(arms, q, specs, group_by="arm")
        ordered = r.sort(["qid", "score", "docid"], descending=[False, True, False])
        first = pr.evaluate(ordered, q, specs, per_query=True, ties="first")
        shuffled = pr.evaluate(ordered.reverse(), q, specs, per_query=True, ties="first")
    same = {"check_exact": False, "rel_tol": 1e-12, "abs_tol": 1e-12}
    assert_frame_equal(per.filter(arm="A").drop("arm"), a, **same)  # sums in another order
    assert_frame_equal(low, per, **same)
    assert_frame_equal(lazy.collect(), per, **same)
    judged = set(q["qid"])
    assert set(zero["qid"]) == judged  # ndeval -c: every judged query, 0 if not run
    assert zero.join(a, on="qid", how="anti").select(specs).sum_horizontal().sum() == 0
    for arm, *values in means.iter_rows():
        expected = per.filter(arm=arm).select(pl.col(specs).mean()).row(0)
        assert all(close(x, y) for x, y in zip(values, expected, strict=True))
    # ties="first" reads the run's row order: ndeval's order gives ndeval's numbers,
    # the reverse order (equal scores by doc id, descending) others
    assert_frame_equal(first, a, **same)
    assert r.select(pl.struct("qid", "score").is_duplicated().any()).item()  # ties
    assert not shuffled.equals(first)


def test_evaluate_checks_its_input() -> None:
    qrels, run = diversity_case(2)
    q, r = frames(qrels, run)
    with pytest.raises(NotImplementedError, match="no closed form over tie orders"):
        pr.evaluate(r, q, ["alpha_nDCG@5"], ties="expected")
    with pytest.raises(ValueError, match="pass qrels= with a 'subtopic' column"):
        pr.evaluate(r.with_columns(rel=pl.lit(1)), None, ["ERR_IA@5"])
    with pytest.raises(InvalidDataError, match=r"duplicate \(query, subtopic, doc\)"):
        pr.evaluate(r, pl.concat([q, q.head(1)]), ["P_IA@5"])
    with pytest.raises(InvalidDataError, match="negative relevance"):
        pr.evaluate(r, q.with_columns(rel=pl.col("rel") - 5), ["P_IA@5"])


def test_qrels_without_subtopics_are_one_subtopic() -> None:
    """As ir_measures reads them: one subtopic per query, with a warning."""
    qrels, run = diversity_case(5)
    q, r = frames(qrels, run)
    flat = q.group_by("qid", "docid").agg(pl.col("rel").max())
    with pytest.warns(UserWarning, match="no 'subtopic' column"):
        one = pr.evaluate(r, flat, ["alpha_nDCG@5", "P_IA@5"], per_query=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = pr.evaluate(r, flat.with_columns(subtopic=pl.lit("0")),
                           ["alpha_nDCG@5", "P_IA@5"], per_query=True)
    assert_frame_equal(one, same, check_exact=False, rel_tol=1e-12, abs_tol=1e-12)


def test_read_qrels_keeps_the_subtopic(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("1 1 d1 1\n1 2 d1 0\n1 2 d2 2\n1 3 d3 -1\n")
    qrels = pr.read_qrels(path, subtopics=True)
    assert qrels.columns == ["qid", "subtopic", "docid", "rel"]
    assert qrels["subtopic"].to_list() == ["1", "2", "2", "3"]
    assert qrels["rel"].to_list() == [1, 0, 2, None]
    assert pr.read_qrels(path).columns == ["qid", "docid", "rel"]
    run = pl.DataFrame({"qid": ["1"] * 3, "docid": ["d2", "d1", "d3"],
                        "score": [3.0, 2.0, 1.0]})
    out = pr.evaluate(run, pr.scan_qrels(path, subtopics=True), ["StRecall@1", "P_IA@2"])
    assert out.row(0) == (0.5, 0.5)  # S = 2 (subtopics 1 and 2); d2 covers 2
    three = tmp_path / "three.txt"
    three.write_text("1 d1 1\n")
    with pytest.raises(pr.TrecFormatError, match="subtopics=True"):
        pr.read_qrels(three, subtopics=True)


def test_the_command_line_reads_the_subtopics(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``polars-rank eval`` with intent-aware measures reads TREC diversity qrels."""
    from polars_rank.__main__ import main

    qrels, run = diversity_case(21)
    qrels_path, run_path = tmp_path / "qrels", tmp_path / "run"
    qrels_path.write_text("".join(f"{q} {s} {d} {label}\n" for q, s, d, label in qrels))
    run_path.write_text("".join(f"{q} Q0 {d} 0 {score} x\n" for q, d, score in run))
    spellings = {"alpha_nDCG@20": "alpha-nDCG@20", "ERR_IA@5": "ERR-IA@5",
                 "StRecall@10": "strec@10"}
    args = [a for s in spellings for a in ("-m", s)]
    assert main(["eval", str(qrels_path), str(run_path), "-q", *args]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    theirs = ndeval_values(qrels, run, list(spellings.values()), 1, 0.5, 0.5)
    checked = 0
    for name, qid, value in lines:
        if qid.strip() != "all":
            want = theirs[qid.strip()][spellings[name.strip()]]
            assert value == f"{want:6.4f}", (name, qid)
            checked += 1
    assert checked == len(theirs) * len(spellings)


def test_spark_and_dask_say_they_cannot() -> None:
    """The distributed front ends check their arguments on the driver (make_plan)."""
    from polars_rank._distributed import make_plan
    from polars_rank._evaluation.spec import resolve

    q, r = frames(*diversity_case(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(NotImplementedError, match="not computed on Spark or Dask"):
            make_plan(r.clear(), q.clear(), resolve(["alpha_nDCG@5"], ties="trec_eval"))


def test_empty_inputs() -> None:
    """No rows: no queries to average (evaluate), 0 for an empty list, no group."""
    q, r = frames([], [])
    q = q.cast({"qid": pl.String, "subtopic": pl.String, "docid": pl.String, "rel": pl.Int64})
    r = r.cast({"qid": pl.String, "docid": pl.String, "score": pl.Float64})
    out = pr.evaluate(r, q, SPELLINGS)
    assert out.row(0) == (None,) * len(SPELLINGS)
    rows = joined(q, r)
    for name, (function, spelling, _) in FUNCTIONS.items():
        call = function("rel", 3, **KW) if "{k}" in spelling else function("rel", **KW)
        assert rows.select(call).item() == 0.0, name
        assert rows.group_by("qid").agg(call).height == 0, name
