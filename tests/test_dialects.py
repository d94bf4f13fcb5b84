"""Dialects and the options they need, against the lenders that are installed.

scikit-learn (``ndcg_score``, ``dcg_score``, ``average_precision_score``,
``label_ranking_average_precision_score``) and ranx are called directly on random
lists with ties and short lists; torchmetrics and MS Recommenders, not installed,
are compared with their transcriptions in tests/test_lenders_transcribed.py.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, get_args

import polars as pl
import pytest
from budget import examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.__main__ import main
from polars_rank._engine.params import EvalTies
from polars_rank._language.dialects import DialectName
from polars_rank.registry import DIALECTS, convention, parse_metric

if TYPE_CHECKING:
    from pathlib import Path

sklearn_metrics = pytest.importorskip("sklearn.metrics")

TOL = 1e-12


def frames(queries: list[list[tuple[float, float]]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(run, qrels) of lists of (label, score): every document judged and retrieved."""
    rows = [(f"q{q}", f"d{d}", label, score)
            for q, rows in enumerate(queries) for d, (label, score) in enumerate(rows)]
    frame = pl.DataFrame(rows, schema={"qid": pl.String, "docid": pl.String,
                                       "rel": pl.Float64, "score": pl.Float64}, orient="row")
    return frame.select("qid", "docid", "score"), frame.select("qid", "docid", "rel")


# ------------------------------------------------------------------------------- parsing
@pytest.mark.parametrize(("spec", "same_as"), [
    ("map@10-l2", "map@10(threshold=2)"),           # ranx's relevance level
    ("ndcg@10-l2", "ndcg@10(threshold=2)"),
    ("hits@5-l3", "hits@5(threshold=3)"),
    ("rbp.95", "rbp(p=0.95,gain=raw)"),              # ranx's RBP: the raw label
    ("rbp.95-l2", "rbp(p=0.95,gain=raw,threshold=2)"),
    ("r-precision", "rprec"),
    ("map@5(empty_target_action=skip)", "map@5(empty=skip)"),  # torchmetrics' spelling
    ("ndcg(empty_target_action=pos)", "ndcg(empty=one)"),
    ("ndcg(empty_target_action=neg)", "ndcg"),
    ("p@3(adaptive_k=True)", "p@3(adaptive_k=true)"),
])
def test_borrowed_spellings(spec: str, same_as: str) -> None:
    assert parse_metric(spec) == parse_metric(same_as)
    assert parse_metric(str(parse_metric(spec))) == parse_metric(spec)  # prints back


def test_relevance_level_needs_a_threshold_option() -> None:
    with pytest.raises(ValueError, match="no relevance level"):
        parse_metric("num_ret-l2")
    with pytest.raises(ValueError, match="must be True or False"):
        parse_metric("p@3(adaptive_k=maybe)")
    with pytest.raises(ValueError, match="empty"):
        parse_metric("map(empty=never)")


def test_the_dialect_type_names_the_table() -> None:
    """``DialectName``, the type of every ``dialect=``, is the dialect table's keys."""
    assert get_args(DialectName) == tuple(DIALECTS)
    assert all(dialect.name == name for name, dialect in DIALECTS.items())


def test_every_dialect_is_buildable() -> None:
    """Each dialect's defaults are options of its metrics, with allowed values."""
    for name, dialect in DIALECTS.items():
        assert callable(dialect.ties) or dialect.ties in get_args(EvalTies), name
        missing = [dialect.missing] if isinstance(dialect.missing, str) else [
            *dialect.missing.values()]
        assert set(missing) <= {"skip", "zero"}, name
        assert isinstance(dialect.missing, str) or "*" in dialect.missing, name
        assert not dialect.absent or "zero" in missing, name  # read under "zero" only
        assert dialect.source, name
        assert dialect.summary, name
        for metric in dialect.options:
            specs = ["ndcg", "map", "p@3", "rprec", "rbp", "mrr"] if metric == "*" else [metric]
            for spec in specs:
                parsed = parse_metric(spec, dialect=name)  # builds the expression
                for option, value in dialect.defaults(parsed.definition).items():
                    assert parsed.options[option] == value, (name, spec, option)


def test_options_in_the_string_win_over_the_dialect() -> None:
    assert parse_metric("map@5", "torchmetrics").options["denominator"] == "retrieved"
    given = parse_metric("map@5(denominator=relevant)", "torchmetrics")
    assert given.options["denominator"] == "relevant"
    ndcg = parse_metric("ndcg")
    assert convention("sklearn").ties_of(ndcg) == "expected"
    assert convention("recommenders").ties_of(ndcg) == "first"
    assert convention("ranx").ties_of(ndcg) == "trec_eval"
    assert convention("sklearn", ties="first").ties_of(ndcg) == "first"
    assert [convention(d).missing for d in DIALECTS] == [
        "skip", "skip", "zero", "zero", "skip", "skip", "skip"]
    assert convention("ranx", missing="skip").missing == "skip"
    with pytest.raises(ValueError, match="dialect must be one of"):
        convention("trec-eval")


def test_ir_measures_ties_follow_the_provider() -> None:
    """Each ir_measures provider's order among equal scores (polars_rank._language.ir_measures)."""
    ties = convention("ir_measures").ties_of
    by_spec = {"AP": "trec_eval9", "P@5": "trec_eval9", "RR": "trec_eval9",
               "nDCG@10": "trec_eval9", "RR@10": "doc_ascending",
               "Judged@10": "doc_ascending", "Compat": "doc_ascending",
               "RBP(rel=1)": "trec_eval", "SDCG(max_rel=3)@5": "trec_eval",
               "Accuracy@5": "trec_eval", "ERR@10": "trec_eval",
               "nDCG(dcg='exp-log2')@10": "trec_eval", "alpha_nDCG@10": "trec_eval"}
    assert {spec: ties(parse_metric(spec, "ir_measures")) for spec in by_spec} == by_spec


@pytest.mark.parametrize("ties", ["doc_ascending", "trec_eval", "trec_eval9"])
def test_doc_tie_policies_ignore_row_order(ties: str) -> None:
    """The policies by document id give one ranking for any row order and id type."""
    run = pl.DataFrame({"qid": [1] * 5, "docid": [30, 4, 200, 4000, 1],
                        "score": [1.0, 1.0, 2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": [1] * 5, "docid": ["30", "4", "200", "4000", "1"],
                          "rel": [0, 0, 0, 1, 0]})
    # 200 (score 2), then as text ascending 1, 30, 4, 4000; descending 4000, 4, 30, 1
    want = {"doc_ascending": 1 / 5, "trec_eval": 1 / 2, "trec_eval9": 1 / 2}[ties]
    for seed in range(4):
        shuffled = run.sample(fraction=1.0, shuffle=True, seed=seed)
        got = pr.evaluate(shuffled, qrels, ["mrr"], ties=ties).item()  # type: ignore[arg-type]
        assert got == pytest.approx(want)
        ranks = pr.ranked(shuffled, qrels, ties=ties)  # type: ignore[arg-type]
        assert ranks.filter(pl.col("rel") == 1)["rank"].item() == round(1 / want)


# --------------------------------------------------------------------------- empty lists
def test_empty_policies() -> None:
    """A query without relevant rows: 0, 1, left out of the mean, or an error."""
    df = pl.DataFrame({"qid": [1, 1, 2, 2], "rel": [0, 1, 0, 0], "score": [2.0, 1.0, 2.0, 1.0]})
    by = {"by": "score", "query": "qid"}
    got = df.select(
        pr.map("rel", **by).alias("zero"),
        pr.map("rel", empty="one", **by).alias("one"),
        pr.map("rel", empty="skip", **by).alias("skip"),
        pr.map("rel", empty="error", **by).alias("error"),
        pr.ndcg("rel", empty="skip", **by).alias("ndcg"),
    ).row(0, named=True)
    assert got["zero"] == 0.25
    assert got["one"] == 0.75
    assert got["skip"] == 0.5
    assert math.isnan(got["error"])
    assert got["ndcg"] == pytest.approx(1 / math.log2(3))
    per_query = df.group_by("qid").agg(pr.mrr("rel", by="score", empty="skip")).sort("qid")
    assert per_query["mrr(empty=skip)"].to_list() == [0.5, None]
    joined = df.with_columns(docid=pl.Series(["a", "b", "c", "d"]))  # run and labels in one
    assert pr.evaluate(joined, None, ["map(empty=skip)"]).item() == 0.5
    with pytest.raises(pr.InvalidDataError, match=r"qid=2.*empty='error'"):
        pr.evaluate(joined, None, ["ndcg", "map(empty=error)"])


# ------------------------------------------------------------------------------- sklearn
labels_st = st.sampled_from([0, 0, 1, 2, 3, 0.5])
scores_st = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 1.0, 2.0])  # few values: ties
lists_st = st.lists(st.tuples(labels_st, scores_st), min_size=2, max_size=9)


@settings(max_examples=examples(25), deadline=None)
@given(queries=st.lists(lists_st, min_size=1, max_size=4),
       k=st.sampled_from([None, 1, 2, 3, 5]), log_base=st.sampled_from([2.0, math.e, 10.0]))
def test_sklearn_ndcg_and_dcg(queries: list[list[tuple[float, float]]], k: int | None,
                              log_base: float) -> None:
    """ndcg_score / dcg_score (ties averaged, linear gain) per list: dialect="sklearn"."""
    run, qrels = frames(queries)
    at = "" if k is None else f"@{k}"
    specs = [f"ndcg{at}", f"dcg{at}(log_base={log_base})"]
    got = pr.evaluate(run, qrels, specs, dialect="sklearn", per_query=True).sort("qid")
    for q, rows in enumerate(queries):
        y, s = [[label for label, _ in rows]], [[score for _, score in rows]]
        want_ndcg = sklearn_metrics.ndcg_score(y, s, k=k)
        want_dcg = sklearn_metrics.dcg_score(y, s, k=k, log_base=log_base)
        row = got.row(q, named=True)
        assert math.isclose(row[specs[0]], want_ndcg, rel_tol=TOL, abs_tol=TOL), (q, row)
        assert math.isclose(row[specs[1]], want_dcg, rel_tol=TOL, abs_tol=TOL), (q, row)
    mean = pr.evaluate(run, qrels, specs[:1], dialect="sklearn").item()
    assert math.isclose(mean, got[specs[0]].mean(), rel_tol=TOL, abs_tol=TOL)  # type: ignore[arg-type]


distinct_lists_st = st.integers(1, 9).flatmap(lambda n: st.tuples(
    st.lists(st.integers(0, 1), min_size=n, max_size=n),
    st.permutations([float(i) for i in range(n)])))


@settings(max_examples=examples(30), deadline=None)
@given(lists=st.lists(distinct_lists_st, min_size=1, max_size=4))
def test_sklearn_average_precision_without_ties(lists: list[tuple[list[int], list[float]]]) -> None:
    """average_precision_score is map over the whole list; label_ranking_average_
    precision_score is map(empty=one) (a list with nothing relevant scores 1)."""
    queries = [list(zip(y, s, strict=True)) for y, s in lists]
    run, qrels = frames(queries)  # type: ignore[arg-type]
    got = pr.evaluate(run, qrels, ["map", "map(empty=one)"], dialect="sklearn",
                      per_query=True).sort("qid")
    for q, (y, s) in enumerate(lists):
        row = got.row(q, named=True)
        lrap = sklearn_metrics.label_ranking_average_precision_score([y], [s])
        assert math.isclose(row["map(empty=one)"], lrap, rel_tol=TOL, abs_tol=TOL), (y, s)
        if sum(y):
            ap = sklearn_metrics.average_precision_score(y, s)
            assert math.isclose(row["map"], ap, rel_tol=TOL, abs_tol=TOL), (y, s)


def test_sklearn_average_precision_with_ties_is_no_tie_order() -> None:
    """sklearn counts a tie group at its last rank for each of its relevant documents
    (a threshold per distinct score): here 1/3, where every order gives 4/15."""
    y, s = [1, 1, 0, 0, 0, 0], [0.0, 0.0, 3.0, 2.0, 1.0, 1.0]
    assert sklearn_metrics.average_precision_score(y, s) == pytest.approx(1 / 3)
    df = pl.DataFrame({"rel": y, "score": s})
    for ties in ("optimistic", "pessimistic", "expected"):
        value = df.select(pr.map("rel", by="score", ties=ties)).item()  # type: ignore[arg-type]
        assert value == pytest.approx(4 / 15)


# ---------------------------------------------------------------------------------- ranx
ranx_lists_st = st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([None, 0, 1, 2, 3]), min_size=n, max_size=n),  # None: unjudged
    st.permutations([float(i) for i in range(n)]),
    st.lists(st.sampled_from([0, 1, 2, 3]), max_size=3)))  # judged, not retrieved

RANX_METRICS = ["ndcg@5-l2", "ndcg@3", "dcg@4", "ndcg_burges@5", "map@5-l2", "map", "rbp.8",
                "rbp.95-l2", "r-precision", "hits@3-l2", "precision@3", "recall@5", "mrr@3-l2",
                "hit_rate@2", "f1@3"]


@pytest.mark.ranx
@settings(max_examples=examples(15), deadline=None)
@given(lists=st.lists(ranx_lists_st, min_size=1, max_size=4))
def test_ranx_spellings_give_ranx_numbers(
    lists: list[tuple[list[int | None], list[float], list[int]]],
) -> None:
    """ranx.evaluate per query equals evaluate(dialect="ranx") (scores without ties)."""
    ranx = pytest.importorskip("ranx")
    run_dict: dict[str, dict[str, float]] = {}
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, (labels, scores, missed) in enumerate(lists):
        qid = f"q{q}"
        run_dict[qid] = {f"d{d}": s for d, s in enumerate(scores)}
        qrels_dict[qid] = {f"d{d}": label for d, label in enumerate(labels) if label is not None}
        qrels_dict[qid].update({f"m{j}": label for j, label in enumerate(missed)})
        qrels_dict[qid].setdefault("never", 0)  # ranx wants a judged document per query
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ranx.evaluate(ranx.Qrels(qrels_dict), ranx.Run(run_dict), RANX_METRICS,
                             return_mean=False)
    got = pr.evaluate(run_dict, qrels_dict, RANX_METRICS, dialect="ranx",
                      per_query=True).sort("qid")
    for i, qid in enumerate(sorted(qrels_dict)):  # ranx sorts its queries
        row = got.row(i, named=True)
        assert row["qid"] == qid
        for metric in RANX_METRICS:
            assert math.isclose(row[metric], float(want[metric][i]), rel_tol=1e-9,
                                abs_tol=1e-12), (qid, metric, row[metric], want[metric][i])


ranx_tied_st = st.integers(1, 15).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([None, 0, 1, 2, 3]), min_size=n, max_size=n),
    st.lists(st.sampled_from([0.5, 1.0, 1.0, 2.0]), min_size=n, max_size=n),  # ties
    st.lists(st.sampled_from([0, 1, 2, 3]), max_size=3),
    st.sampled_from(["both", "both", "run", "qrels"])))  # the side a query is on


@pytest.mark.ranx
@settings(max_examples=examples(15), deadline=None)
@given(lists=st.lists(ranx_tied_st, min_size=1, max_size=5))
def test_ranx_dialect_with_ties_and_missing_queries(
    lists: list[tuple[list[int | None], list[float], list[int], str]],
) -> None:
    """evaluate(dialect="ranx") alone equals ranx.evaluate(make_comparable=True), per
    query and in the mean: over the qrels' queries, 0 for those the run lacks, run
    queries without judgments left out; equal scores in the order the run comes in
    (lists of up to 15 documents, where Numba's argsort is an insertion sort), here
    trec_eval's, as pr.write_run writes a run and ranx reads it."""
    ranx = pytest.importorskip("ranx")
    run_dict: dict[str, dict[str, float]] = {}
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, (labels, scores, missed, side) in enumerate(lists):
        qid = f"q{q}"
        if side != "qrels":
            rows = sorted(((f"d{d}", s) for d, s in enumerate(scores)), reverse=True)
            run_dict[qid] = dict(sorted(rows, key=lambda row: -row[1]))  # trec_eval's order
        if side != "run":
            qrels_dict[qid] = {f"d{d}": label for d, label in enumerate(labels)
                               if label is not None}
            qrels_dict[qid].update({f"m{j}": label for j, label in enumerate(missed)})
            qrels_dict[qid].setdefault("never", 0)  # ranx wants a judged document per query
    assume(run_dict and set(run_dict) & set(qrels_dict))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's, and our run queries without judgments
        per_query = ranx.evaluate(ranx.Qrels(qrels_dict), ranx.Run(run_dict), RANX_METRICS,
                                  return_mean=False, make_comparable=True)
        means = ranx.evaluate(ranx.Qrels(qrels_dict), ranx.Run(run_dict), RANX_METRICS,
                              make_comparable=True)
        got = pr.evaluate(run_dict, qrels_dict, RANX_METRICS, dialect="ranx",
                          per_query=True).sort("qid")
        got_means = pr.evaluate(run_dict, qrels_dict, RANX_METRICS, dialect="ranx")
    assert got["qid"].to_list() == sorted(qrels_dict)  # ranx sorts its queries
    for metric in RANX_METRICS:
        for i, qid in enumerate(got["qid"]):
            assert math.isclose(got[metric][i], float(per_query[metric][i]), rel_tol=1e-9,
                                abs_tol=1e-12), (qid, metric, got[metric][i], per_query[metric])
        assert math.isclose(got_means[metric].item(), float(means[metric]), rel_tol=1e-9,
                            abs_tol=1e-12), (metric, got_means[metric].item(), means[metric])


# --------------------------------------------------------------------------- torchmetrics
# metric string template -> torchmetrics.retrieval class, its extra arguments
TORCHMETRICS = {
    "ndcg{at}": ("RetrievalNormalizedDCG", {}),
    "map{at}": ("RetrievalMAP", {}),
    "p{at}": ("RetrievalPrecision", {}),
    "p{at}(adaptive_k=true)": ("RetrievalPrecision", {"adaptive_k": True}),
    "recall{at}": ("RetrievalRecall", {}),
    "rprec": ("RetrievalRPrecision", {}),
    "mrr{at}": ("RetrievalMRR", {}),
    "hit_rate{at}": ("RetrievalHitRate", {}),
}
torch_query_st = st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.permutations([float(i + 1) for i in range(n)]),  # distinct positive scores
    st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n),  # ties (NDCG)
    st.lists(st.sampled_from([0, 0, 1, 2, 3]), min_size=n, max_size=n)))


@pytest.mark.slow
@pytest.mark.parametrize("template", list(TORCHMETRICS))
@settings(max_examples=examples(15), deadline=None)
@given(queries=st.lists(torch_query_st, min_size=1, max_size=5),
       k=st.sampled_from([None, 1, 2, 3, 5]),
       action=st.sampled_from(["neg", "pos", "skip"]))
def test_torchmetrics_dialect(template: str, queries: list[tuple[list[float], list[float],
                                                                  list[int]]],
                              k: int | None, action: str) -> None:
    """evaluate(dialect="torchmetrics") equals the installed torchmetrics' retrieval
    metric over queries (``indexes``), with its ``top_k`` and ``empty_target_action``:
    NDCG on tied scores (both average over the orders of tied documents; graded
    labels), the others on distinct scores (torch.topk orders equal scores by no
    stated rule; binary labels). torchmetrics computes in 32-bit floats."""
    torch = pytest.importorskip("torch")
    retrieval = pytest.importorskip("torchmetrics.retrieval")
    name, extra = TORCHMETRICS[template]
    graded = name == "RetrievalNormalizedDCG"
    rows = [(q, d, tied if graded else distinct, label if graded else min(label, 1))
            for q, (scores, ties, labels) in enumerate(queries)
            for d, (distinct, tied, label) in enumerate(zip(scores, ties, labels, strict=True))]
    frame = pl.DataFrame(rows, schema={"qid": pl.Int64, "docid": pl.Int64,
                                       "score": pl.Float64, "rel": pl.Int64}, orient="row")
    at = "" if k is None else f"@{k}"
    spec = template.format(at=at)
    if action != "neg":
        option = f"empty_target_action={action}"
        spec = spec[:-1] + f",{option})" if spec.endswith(")") else f"{spec}({option})"
    arguments = {**extra, "empty_target_action": action}
    if name != "RetrievalRPrecision":
        arguments["top_k"] = k
    metric = getattr(retrieval, name)(**arguments)
    target = torch.tensor(frame["rel"].to_list())
    want = float(metric(torch.tensor(frame["score"].to_list(), dtype=torch.float64),
                        target if graded else target.bool(),
                        indexes=torch.tensor(frame["qid"].to_list())))
    got = pr.evaluate(frame, None, [spec], dialect="torchmetrics").item()
    if got is None:  # every query skipped: torchmetrics returns 0.0, polars-rank no mean
        assert action == "skip"
        assert want == 0.0
        assert frame["rel"].sum() == 0
        return
    assert math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-6), (spec, got, want, rows)


# ----------------------------------------------------------------------------------- CLI
def test_cli_dialect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--dialect reads shared spellings as that tool does, and takes its tie policy."""
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b 1\nq1 0 c 0\nq2 0 a 0\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 1.0 s\nq1 Q0 b 2 1.0 s\nq1 Q0 c 3 1.0 s\n"
                                  "q2 Q0 a 1 1.0 s\n")
    args = ["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "map@2",
            "-m", "mrr(empty_target_action=skip)"]
    assert main([*args, "--dialect", "torchmetrics"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # q1: three tied documents, two relevant (ties averaged); q2 left out of mrr
    run = pr.read_run(tmp_path / "run")
    qrels = pr.read_qrels(tmp_path / "qrels")
    want = pr.evaluate(run, qrels, ["map@2", "mrr(empty=skip)"], dialect="torchmetrics")
    assert lines == [f"{'map@2':<22}\tall\t{want.item(0, 0):6.4f}",
                     f"{'mrr(empty_target_action=skip)':<22}\tall\t{want.item(0, 1):6.4f}"]
    assert want.item(0, 1) == pytest.approx(2 / 3 + 1 / 2 * 1 / 3)  # E[RR] of q1 alone
    assert main([*args, "--dialect", "torchmetrics", "--ties", "trec_eval"]) == 0
    out = capsys.readouterr().out  # doc ids descending: c (not relevant), b, a
    assert out.splitlines()[0].endswith("\t0.2500")  # q1: P@2 at b over 1 hit; q2: 0


def test_cli_ir_measures_dialect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--dialect ir_measures: each measure its provider's tie order, means over the
    qrels' queries (a judged query the run lacks scores 0); -c / --missing win."""
    (tmp_path / "qrels").write_text("1 0 a 1\n2 0 a 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 1.0 s\n1 Q0 b 2 1.0 s\n1 Q0 c 3 1.0 s\n")
    args = ["eval", str(tmp_path / "qrels"), str(tmp_path / "run"), "-m", "RR@10", "-m", "RR",
            "-m", "NumRel", "--dialect", "ir_measures"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    # query 1: RR@10 puts a first (doc id ascending), RR last (descending); query 2: 0
    assert lines == [f"{'RR@10':<22}\tall\t0.5000", f"{'RR':<22}\tall\t0.1667",
                     f"{'NumRel':<22}\tall\t1"]
    assert main([*args, "--missing", "skip"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [
        f"{'RR@10':<22}\tall\t1.0000", f"{'RR':<22}\tall\t0.3333"]
    assert main([*args[:-2], "-c"]) == 0  # trec_eval's dialect: -c counts 2's R
    assert capsys.readouterr().out.splitlines() == [
        f"{'RR@10':<22}\tall\t0.1667", f"{'RR':<22}\tall\t0.1667",
        f"{'NumRel':<22}\tall\t2"]


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_relevance_orders_put_unjudged_rows_below_judged_zeros(ties: str) -> None:
    """With threshold=0 (MS Recommenders: every judged row relevant) a judged 0 is
    relevant and an unjudged row is not: the bounds order them so on every path."""
    run = pl.DataFrame({"qid": ["q"] * 3, "docid": ["a", "b", "c"], "score": [1.0] * 3})
    qrels = pl.DataFrame({"qid": ["q"], "docid": ["b"], "rel": [0]})
    specs = ["p@1(threshold=0)", "ndcg@1(gain=binary,threshold=0)"]
    got = pr.evaluate(run, qrels, specs, ties=ties).row(0)  # type: ignore[arg-type]
    joined = run.join(qrels, on=["qid", "docid"], how="left")
    one_line = joined.select(
        pr.precision("rel", 1, by="score", threshold=0, ties=ties),  # type: ignore[arg-type]
        pr.ndcg("rel", 1, by="score", gain="binary", threshold=0, ties=ties),  # type: ignore[arg-type]
    ).row(0)
    want = (1.0, 1.0) if ties == "optimistic" else (0.0, 0.0)
    assert got == want
    assert one_line == want


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0, 4.0])
def test_set_f_beta_is_ir_measures(beta: float) -> None:
    """ir_measures' SetF(beta=) (trec_eval's set_F.x): recall weighted beta, not beta²."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"q1": {"a": 1, "b": 0, "c": 2, "z": 1}, "q2": {"a": 1}, "q3": {"a": 0}}
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0, "x": 0.5}, "q2": {"b": 1.0, "a": 0.5},
           "q3": {"a": 1.0}}
    measure = ir_measures.SetF(beta=beta)
    want = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    got = pr.evaluate(run, qrels, [f"SetF(beta={beta})"], per_query=True)
    assert dict(got.iter_rows()) == pytest.approx(want, abs=1e-12)
    assert want["q1"] != pytest.approx(  # not the textbook F_beta
        (1 + beta**2) * 0.5 * (2 / 3) / (beta**2 * 0.5 + 2 / 3)) or beta == 1


def test_every_dialect_is_in_the_conventions_table() -> None:
    from pathlib import Path

    page = (Path(__file__).parents[1] / "docs" / "conventions.md").read_text()
    section = page.split("## Dialects: other tools' numbers", 1)[1].split("\n## ", 1)[0]
    for name in DIALECTS:
        assert f'| `"{name}"`' in section, name
