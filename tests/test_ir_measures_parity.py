"""Every ir_measures measure parses in polars-rank and gives ir_measures' number.

For each name in ir_measures' registry (0.4.3) and a set of its parameters and
cutoffs, the string is parsed by :func:`polars_rank.registry.parse_metric`, and
``evaluate(..., dialect="ir_measures")``, with no other option, is compared with
``ir_measures.iter_calc`` query by query and with ``ir_measures.calc_aggregate``
(its default provider order: pytrec_eval, cwl_eval, compat, msmarco, gdeval,
accuracy, ...), on generated runs and qrels with graded labels, tied scores (some
equal only as 32-bit floats), negative ("pooled, not judged") labels, unjudged
retrieved documents, judged documents the run never retrieved, queries without
relevant documents, judged queries absent from the run and run queries absent from
the qrels.

The dialect carries ir_measures' whole convention (polars_rank._language.ir_measures): each
metric ranked as the provider computing it ranks equal scores (pytrec_eval: trec_eval
9's order, scores as 32-bit floats; msmarco, judged, compat: document id ascending;
cwl_eval, accuracy: the run's order, which here is the order pr.write_run writes and
ir_measures reads from a TREC file: trec_eval's; gdeval: trec_eval's), and each mean
over the qrels' queries, 0 for those the run lacks (measure.DEFAULT) but Accuracy's.

The intent-aware measures need qrels with subtopics: tests/test_intents.py compares
them with ir_measures (:data:`COMPARED_IN`). ``IPrec`` runs in the ``"ir_measures"``
dialect, which rounds recall levels as trec_eval 9 (its pytrec_eval provider) does.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any

import ir_measures_child
import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.registry import parse_metric

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")  # cwl_eval, ir_measures' provider of the C/W/L measures

# ir_measures name -> metric strings in its syntax (parameters and cutoffs)
SPECS: dict[str, list[str]] = {
    "AP": ["AP", "AP@5", "AP(rel=2)", "AP(rel=2)@10", "AP(judged_only=True)"],
    "MAP": ["MAP", "MAP@3"],
    "Accuracy": ["Accuracy", "Accuracy@5", "Accuracy(rel=2)@10"],
    "BPM": ["BPM(max_rel=3)@5", "BPM(T=2.0,min_rel=1,max_rel=3)@20", "BPM(T=0.5,max_rel=2)@10"],
    "Bpref": ["Bpref", "Bpref(rel=2)"],
    "BPref": ["BPref"],
    "Compat": ["Compat", "Compat(p=0.8)", "Compat(p=0.5,normalize=False)"],
    "ERR": ["ERR@1", "ERR@5", "ERR@20"],
    "INSQ": ["INSQ(max_rel=3)", "INSQ(T=2.0,min_rel=1,max_rel=3)"],
    "INST": ["INST(max_rel=3)", "INST(T=0.5,max_rel=2)", "INST(T=3.0,min_rel=1,max_rel=3)"],
    # trec_eval 9's rounding of x R (pytrec_eval), which dialect="ir_measures" gives
    "IPrec": ["IPrec@0.0", "IPrec@0.1", "IPrec@0.3", "IPrec@0.5", "IPrec@1.0",
              "IPrec(rel=2)@0.5", "IPrec(rel=2)@0.7", "IPrec(judged_only=True)@0.5"],
    "Judged": ["Judged@3", "Judged@10", "Judged"],
    "infAP": ["infAP", "infAP(rel=2)"],
    "MRR": ["MRR", "MRR@10"],
    "nDCG": ["nDCG", "nDCG@1", "nDCG@5", "nDCG(dcg='log2')@10", "nDCG(dcg='exp-log2')@10",
             "nDCG(gains={0:0,1:1,2:3,3:7})@10", "nDCG(judged_only=True)@10"],
    "NDCG": ["NDCG@10"],
    "NERR8": ["NERR8(max_rel=3)@5", "NERR8(min_rel=1,max_rel=3)@10"],
    "NERR9": ["NERR9(max_rel=3)@5", "NERR9(min_rel=1,max_rel=2)@20"],
    "NERR10": ["NERR10(max_rel=3)", "NERR10(p=0.5,min_rel=1,max_rel=2)",
               "NERR10(p=0.95,max_rel=3)"],
    "NERR11": ["NERR11(max_rel=3)", "NERR11(T=2.0,min_rel=1,max_rel=3)"],
    "NumQ": ["NumQ"],
    "NumRel": ["NumRel"],
    "NumRelRet": ["NumRelRet"],
    "NumRet": ["NumRet", "NumRet(rel=2)"],
    "P": ["P@1", "P@5", "P(rel=2)@10", "P(judged_only=True)@5"],
    "Precision": ["Precision@5"],
    "R": ["R@5", "R(rel=2)@10", "R(judged_only=True)@5"],
    "Recall": ["Recall@20"],
    # cwl_eval's RBP, normalised over ranks 1..1000: equal to 1e-9 for p <= 0.95
    # (test_rbp_renormalised_over_1000_ranks shows the factor beyond)
    "RBP": ["RBP(rel=1)", "RBP(rel=2,p=0.9)", "RBP(rel=1,p=0.5)"],
    "Rprec": ["Rprec", "Rprec(rel=2)", "Rprec(judged_only=True)"],
    "RPrec": ["RPrec"],
    "RR": ["RR", "RR(rel=2)", "RR@5", "RR(rel=2)@10", "RR(judged_only=True)"],
    "SDCG": ["SDCG(max_rel=3)@5", "SDCG(dcg='log2',min_rel=1,max_rel=3)@10"],
    "SetAP": ["SetAP", "SetAP(rel=2)", "SetAP(judged_only=True)"],
    "SetF": ["SetF", "SetF(beta=0.5)", "SetF(rel=2,beta=2.0)", "SetF(judged_only=True)"],
    "SetP": ["SetP", "SetP(rel=2)", "SetP(relative=True)", "SetP(judged_only=True)"],
    "SetR": ["SetR", "SetR(rel=2)"],
    "SetRelP": ["SetRelP", "SetRelP(rel=2)"],
    "Success": ["Success@1", "Success(rel=2)@5", "Success(judged_only=True)@5"],
}

# ir_measures names compared elsewhere: the intent-aware measures read qrels with
# subtopics (ir_measures' iteration field), which the generated collections lack
COMPARED_IN: dict[str, str] = dict.fromkeys([
    "alpha_nDCG", "\u03b1_nDCG", "alpha_DCG", "\u03b1_DCG", "ERR_IA", "nERR_IA", "P_IA",
    "AP_IA", "MAP_IA", "StRecall", "NRBP", "nNRBP"], "tests/test_intents.py")

# Spellings polars-rank parses that no installed ir_measures provider computes.
NO_IR_MEASURES_PROVIDER = ["ERR", "RBP", "RBP@10", "NumRel(rel=2)"]

ALL_SPECS = [spec for specs in SPECS.values() for spec in specs]
TOL = 1e-9
GDEVAL_TOL = 5e-6 + 1e-12  # gdeval prints 5 decimals


def provider(spec: str) -> str:
    """The provider ir_measures' default pipeline computes ``spec`` with."""
    measure = ir_measures.parse_measure(spec)
    for candidate in ir_measures.DefaultPipeline.providers:
        if candidate.is_available() and candidate.supports(measure):
            return str(candidate.NAME)
    msg = f"no ir_measures provider for {spec}"
    raise LookupError(msg)


Row = tuple[str, str, float]
Qrel = tuple[str, str, int]

# 1.348 and 1.3479999999999999 are one 32-bit float (pytrec_eval ties them) and two
# 64-bit ones (cwl_eval, msmarco, gdeval do not)
SCORES = [0.25, 0.5, 1.0, 1.348, 1.3479999999999999, 1.5, 2.0, 3.0]


@st.composite
def collections(draw: st.DrawFn, positive_scores: bool = False) -> tuple[list[Row], list[Qrel]]:
    """(run, qrels) rows, tied scores, with judged queries the run lacks and run
    queries without judgments."""
    run: list[Row] = []
    qrels: list[Qrel] = []
    scores = SCORES + ([] if positive_scores else [-1.0, 0.0])
    for q in range(draw(st.integers(1, 6))):
        qid = str(301 + q)  # gdeval reads numeric topics only
        docs = draw(st.lists(st.integers(0, 40), min_size=1, max_size=25, unique=True))
        graded = draw(st.booleans())
        side = draw(st.sampled_from(["both", "both", "both", "run", "qrels"]))
        for d in docs:
            if side != "qrels" and draw(st.integers(0, 4)) > 0:
                run.append((qid, f"d{d}", draw(st.sampled_from(scores))))
            if side != "run" and draw(st.booleans()):
                labels = [-1, 0, 0, 1, 2, 3] if graded else [0, 1]
                qrels.append((qid, f"d{d}", draw(st.sampled_from(labels))))
    return in_file_order(run), sorted(qrels)


def in_file_order(run: list[Row]) -> list[Row]:
    """The run as pr.write_run writes it and ir_measures reads it from the file:
    by query, then trec_eval's order (score descending, document id descending)."""
    by_doc = sorted(run, key=lambda row: row[1], reverse=True)
    return sorted(by_doc, key=lambda row: (row[0], -row[2]))


def theirs(spec: str, run: list[Row], qrels: list[Qrel]) -> dict[str, float]:
    """ir_measures' per-query values (an Accuracy query it cannot score: left out)."""
    measure = ir_measures.parse_measure(spec)
    if provider(spec) == "accuracy":  # it divides by zero on a query without non-relevant
        out: dict[str, float] = {}
        for qid in sorted({q for q, _, _ in run}):
            try:
                out |= theirs_all(measure, [r for r in run if r[0] == qid],
                                  [r for r in qrels if r[0] == qid])
            except ZeroDivisionError:
                continue
        return out
    return theirs_all(measure, run, qrels)


def in_child(measure: Any) -> bool:
    """Whether ir_measures computes ``measure`` in a child process: pytrec_eval's
    nDCG can loop forever in a process that ran other measures (ir_measures_child)."""
    return measure.NAME == "nDCG" and provider(str(measure)) == "pytrec_eval"


def theirs_all(measure: Any, run: list[Row], qrels: list[Qrel]) -> dict[str, float]:
    if in_child(measure):
        per_query, _ = ir_measures_child.calc([str(measure)], qrels, run)
        return {qid: value for (_, qid), value in per_query.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the providers' own deprecations
        metrics = ir_measures.iter_calc(
            [measure], [ir_measures.Qrel(*q) for q in qrels],
            [ir_measures.ScoredDoc(*r) for r in run])
        return {m.query_id: float(m.value) for m in metrics}


def theirs_aggregate(spec: str, run: list[Row], qrels: list[Qrel]) -> float | None:
    """``ir_measures.calc_aggregate``: None where it fails (Accuracy: a division by 0).

    pytrec_eval's nDCG in a child process (:func:`in_child`).
    """
    measure = ir_measures.parse_measure(spec)
    if in_child(measure):
        _, aggregate = ir_measures_child.calc([str(measure)], qrels, run)
        return aggregate[str(measure)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = ir_measures.calc_aggregate(
                [measure], [ir_measures.Qrel(*q) for q in qrels],
                [ir_measures.ScoredDoc(*r) for r in run])[measure]
        except ZeroDivisionError:
            assert provider(spec) == "accuracy"
            return None
    return float(value)


def frames(run: list[Row], qrels: list[Qrel]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The rows as frames; qrels' negative labels null, as read_qrels reads them."""
    run_df = pl.DataFrame(run, schema={"qid": pl.String, "docid": pl.String,
                                       "score": pl.Float64}, orient="row")
    qrels_df = pl.DataFrame(qrels, schema={"qid": pl.String, "docid": pl.String,
                                           "rel": pl.Int64}, orient="row")
    return run_df, qrels_df.with_columns(pl.when(pl.col("rel") >= 0).then(pl.col("rel")))


def ours(spec: str, run: list[Row], qrels: list[Qrel], **options: Any) -> dict[str, float]:
    """polars-rank's per-query values in the ir_measures dialect (null: no value)."""
    run_df, qrels_df = frames(run, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run queries without judgments
        out = pr.evaluate(run_df.sample(fraction=1.0, shuffle=True, seed=len(run)), qrels_df,
                          [spec], per_query=True, dialect="ir_measures", **options)
    return {q: v for q, v in zip(out["qid"], out[spec], strict=True) if v is not None}


def ours_aggregate(spec: str, run: list[Row], qrels: list[Qrel]) -> float | None:
    """polars-rank's mean (or sum) over the queries, in the ir_measures dialect."""
    run_df, qrels_df = frames(run, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = pr.evaluate(run_df, qrels_df, [spec], dialect="ir_measures").item()
    return None if value is None else float(value)


def check(spec: str, run: list[Row], qrels: list[Qrel]) -> None:
    """Per-query values and the aggregate of ``spec`` from both tools: the dialect alone."""
    source = provider(spec)
    tol = GDEVAL_TOL if source == "gdeval" else TOL
    want = theirs(spec, run, qrels)
    got = ours(spec, run, qrels)  # rows shuffled: the dialect decides every order
    assert set(got) == set(want), (spec, source, sorted(got), sorted(want))
    undefined = False
    for qid, value in want.items():
        if math.isnan(value) and "judged_only" in spec:
            # trec_eval's IPrec divides 0 by 0 where -J leaves a query nothing judged;
            # polars-rank gives 0 (docs/conventions.md, condensed lists)
            assert got[qid] == 0.0, (spec, qid, got[qid])
            undefined = True
            continue
        assert math.isclose(got[qid], value, rel_tol=0, abs_tol=tol), (
            spec, source, qid, got[qid], value)
    aggregate = theirs_aggregate(spec, run, qrels)
    mine = ours_aggregate(spec, run, qrels)
    if undefined:  # ir_measures' mean is NaN
        assert aggregate is not None
        assert math.isnan(aggregate)
    elif aggregate is None:  # calc_aggregate failed: the mean of what it could score
        assert mine == pytest.approx(sum(want.values()) / len(want) if want else None,
                                     abs=TOL)
    elif math.isnan(aggregate):  # nothing to average (Accuracy on no query)
        assert mine is None, (spec, mine)
    else:
        assert mine is not None, (spec, aggregate)
        assert math.isclose(mine, aggregate, rel_tol=0, abs_tol=tol), (
            spec, source, mine, aggregate)


def test_every_ir_measures_name_is_covered() -> None:
    names = set(ir_measures.measures.registry)
    assert set(SPECS) | set(COMPARED_IN) == names
    assert not set(SPECS) & set(COMPARED_IN)
    for name, path in COMPARED_IN.items():  # the other file compares them with ir_measures
        text = (Path(__file__).parent.parent / path).read_text(encoding="utf-8")
        assert '"' + name.encode("ascii", "backslashreplace").decode() in text, name


def test_every_parameter_is_covered() -> None:
    """Each supported parameter of each measure appears in a spec (or is owned elsewhere)."""
    specs = [*ALL_SPECS, *NO_IR_MEASURES_PROVIDER]
    seen = {(m.NAME, p) for s in specs for m in [ir_measures.parse_measure(s)] for p in m.params}
    missing = [(name, param) for name in SPECS
               for measure in [ir_measures.measures.registry[name]]
               for param in measure.SUPPORTED_PARAMS if (measure.NAME, param) not in seen]
    assert missing == []


@pytest.mark.parametrize("spec", [*ALL_SPECS, *NO_IR_MEASURES_PROVIDER])
def test_every_spec_parses_and_prints_back(spec: str) -> None:
    metric = parse_metric(spec)
    assert parse_metric(str(metric)) == metric


@pytest.mark.parametrize("spec", NO_IR_MEASURES_PROVIDER)
def test_specs_without_a_provider_are_refused_by_ir_measures(spec: str) -> None:
    with pytest.raises(LookupError):
        provider(spec)


IN_PROCESS = [s for s in ALL_SPECS if not in_child(ir_measures.parse_measure(s))]
IN_CHILD = [s for s in ALL_SPECS if in_child(ir_measures.parse_measure(s))]


@pytest.mark.slow
@pytest.mark.parametrize("spec", IN_PROCESS)
@settings(max_examples=examples(5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_per_query_values_equal_ir_measures(spec: str, data: st.DataObject) -> None:
    run, qrels = data.draw(collections(positive_scores=provider(spec) == "compat"))
    assume(run and qrels)
    check(spec, run, qrels)


@pytest.mark.slow
@pytest.mark.parametrize("spec", IN_CHILD)
@settings(max_examples=examples(3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_pytrec_eval_ndcg_equals_ir_measures(spec: str, data: st.DataObject) -> None:
    """pytrec_eval's nDCG, which ir_measures computes in a child process (a second
    or two each): fewer examples."""
    run, qrels = data.draw(collections())
    assume(run and qrels)
    check(spec, run, qrels)


@pytest.mark.parametrize("spec", ["INST(max_rel=3)", "NERR10(p=0.99,max_rel=3)",
                                  "NERR8(max_rel=3)@1100", "SDCG(max_rel=2)@1200",
                                  "INSQ(T=4.0,max_rel=3)", "BPM(T=500.0,max_rel=3)@1100"])
def test_cwl_reads_at_most_1000_ranks(spec: str) -> None:
    """A list longer than cwl_eval's 1000 items is cut there, a shorter one padded."""
    run = [("301", f"d{i:04d}", 2000.0 - i) for i in range(1100)]
    qrels = [("301", f"d{i:04d}", (i * 7) % 4) for i in range(0, 1100, 3)]
    qrels += [("302", "x", 1)] + [("302", f"d{i:04d}", 3) for i in range(5)]
    run += [("302", f"d{i:04d}", float(i)) for i in range(5)]
    check(spec, in_file_order(run), sorted(qrels))


def test_rbp_renormalised_over_1000_ranks() -> None:
    """ir_measures' RBP (cwl_eval) divides by sum_(i<=1000) p^(i-1), not 1/(1-p).

    Equal to Moffat & Zobel's RBP, polars-rank's, within 1e-9 for p <= 0.95; at
    p = 0.99 it is larger by the factor 1 / (1 - p^1000).
    """
    run = [("301", f"d{i}", float(100 - i)) for i in range(50)]
    qrels = [("301", f"d{i}", 1) for i in range(0, 50, 4)]
    want = theirs("RBP(rel=1,p=0.99)", run, qrels)["301"]
    got = ours("RBP(rel=1,p=0.99)", run, qrels)["301"]
    assert not math.isclose(got, want, abs_tol=TOL)
    assert math.isclose(got / (1 - 0.99**1000), want, rel_tol=1e-12)


def test_rr_at_k_orders_ties_by_document_id_ascending() -> None:
    """ir_measures' RR@k (msmarco) and RR (pytrec_eval) break ties in opposite orders:
    the dialect ranks each as its provider does, whatever the row order."""
    run = [("301", "a", 1.0), ("301", "b", 1.0), ("301", "c", 1.0)]
    qrels = [("301", "a", 1)]
    assert theirs("RR@10", run, qrels)["301"] == 1.0  # a first
    assert theirs("RR", run, qrels)["301"] == pytest.approx(1 / 3)  # c, b, a
    for rows in (run, run[::-1]):
        assert ours("RR", rows, qrels)["301"] == pytest.approx(1 / 3)
        assert ours("RR@10", rows, qrels)["301"] == 1.0
    # asked together, each keeps its provider's order
    run_df, qrels_df = frames(run, qrels)
    both = pr.evaluate(run_df, qrels_df, ["RR@10", "RR", "P@1"], dialect="ir_measures")
    assert both.row(0) == pytest.approx((1.0, 1 / 3, 0.0))
    # the caller's ties= wins for every metric
    first = pr.evaluate(run_df, qrels_df, ["RR@10", "RR"], dialect="ir_measures", ties="first")
    assert first.row(0) == (1.0, 1.0)


def test_means_over_the_qrels_queries() -> None:
    """calc_aggregate averages over the qrels' queries, measure.DEFAULT (0) for those
    the run lacks, NumRel too (trec_eval -c would count its R); run queries without
    judgments are left out. missing= given wins."""
    run = [("301", "a", 2.0), ("301", "b", 1.0), ("309", "a", 1.0)]
    qrels = [("301", "a", 1), ("301", "z", 1), ("302", "a", 1), ("302", "b", 2)]
    run_df, qrels_df = frames(run, qrels)
    specs = ["AP", "NumRel", "NumQ", "Judged@10", "Accuracy"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 309: no judgments
        got = pr.evaluate(run_df, qrels_df, specs, dialect="ir_measures")
        skipped = pr.evaluate(run_df, qrels_df, specs, dialect="ir_measures", missing="skip")
        trec = pr.evaluate(run_df, qrels_df, specs, missing="zero")
    for spec in specs:
        measure = ir_measures.parse_measure(spec)
        want = ir_measures.calc_aggregate([measure], [ir_measures.Qrel(*q) for q in qrels],
                                          [ir_measures.ScoredDoc(*r) for r in run])[measure]
        assert got[spec].item() == pytest.approx(want, abs=TOL), spec
    assert got.row(0, named=True) == pytest.approx(
        {"AP": 0.25, "NumRel": 2.0, "NumQ": 1.0, "Judged@10": 0.25, "Accuracy": 1.0})
    assert skipped.row(0, named=True) == pytest.approx(
        {"AP": 0.5, "NumRel": 2.0, "NumQ": 1.0, "Judged@10": 0.5, "Accuracy": 1.0})
    assert trec["NumRel"].item() == 4.0  # trec_eval -c: 302's R counts
