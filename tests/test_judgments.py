"""Judgments with three states: infAP, judged@k, relstring and condensed lists (-J).

A retrieved document is judged (a label), in the pool but not judged (a qrels line
with a negative label: a null label with ``pooled`` true) or not in the pool. Checked:

* the expressions against plain-Python transcriptions of trec_eval's C source and of
  ir_measures' Judged (``reference.py``), on random lists with all three states, tied
  scores, unretrieved rows and empty lists, by ``by=`` and by ``rank=`` with the
  unpooled rows left out (the gaps ``evaluate()`` leaves);
* condensed lists: every metric with ``judged_only=True`` equals the metric on the
  judged rows alone, and ``evaluate(judged_only=True)`` equals ``evaluate()`` on the
  run cut down to its judged documents;
* the lenders: ir_measures' ``infAP``, ``Judged@k`` and ``judged_only`` measures and
  pytrec_eval's ``judged_docs_only_flag`` on random data; the trec_eval 10.0 binary
  (built from ``../shared/trec_eval-10.0``) with ``-J``, ``-N``, ``-M``, ``-l`` and
  ``-c``, printed digits equal, on generated TREC files;
* the command line's relstring lines, ``-J`` and ``-N``, and the errors.
"""

from __future__ import annotations

import contextlib
import io
import random
import subprocess
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import ir_measures
import polars as pl
import pytest
import pytrec_eval
import reference as ref
from budget import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_trec_eval_collection import differences, parse

import polars_rank as pr
from polars_rank.__main__ import main
from polars_rank.registry import METRICS, parse_metric

if TYPE_CHECKING:
    from pathlib import Path

TOL = 1e-12

# ---------------------------------------------------------------------------- one list
JUDGED, POOLED, NONPOOL = "judged", "pooled", "nonpool"
Row = tuple[str, float | None, float | None]  # (state, label, score); score None: not retrieved

labels_st = st.one_of(st.integers(0, 4), st.sampled_from([0.5, 2.5, 12.0]))
rows_st: st.SearchStrategy[list[Row]] = st.lists(
    st.tuples(
        st.sampled_from([JUDGED, JUDGED, POOLED, NONPOOL]),
        labels_st,
        st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0, 2.0])),  # ties
    ).map(lambda r: (r[0], r[1] if r[0] == JUDGED else None, r[2])),
    max_size=12,
)


@dataclass(frozen=True)
class Case:
    """One ranked list as a frame (rel, pooled, score) and as trec_eval's codes."""

    rows: list[Row]

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(
            {"rel": [label for _, label, _ in self.rows],
             "pooled": [state != NONPOOL for state, _, _ in self.rows],
             "score": [score for _, _, score in self.rows]},
            schema={"rel": pl.Float64, "pooled": pl.Boolean, "score": pl.Float64})

    @property
    def retrieved(self) -> list[Row]:
        """Rank order: a stable sort by decreasing score (``ties="first"``)."""
        return sorted((r for r in self.rows if r[2] is not None), key=lambda r: -(r[2] or 0))

    @property
    def codes(self) -> list[float]:
        return ref.res_rels([label for _, label, _ in self.retrieved],
                            [state != NONPOOL for state, _, _ in self.retrieved])

    def num_rel(self, threshold: float) -> int:
        return sum(1 for _, label, _ in self.rows if label is not None and label >= threshold)


def close(a: float | str | None, b: float | str | None) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOL * max(1.0, abs(b))


def positions(frame: pl.DataFrame) -> pl.DataFrame:
    """The retrieved rows' ranks (``ties="first"``), unpooled unjudged rows left out.

    As ``evaluate()`` hands its lists to the metrics: only rows with a qrels line, and
    the list's last row (its rank is the list's length) when it has none.
    """
    key = pl.struct(pl.col("score"), -pl.col("__row").cast(pl.Int64))  # ties: row order
    ranked = frame.with_row_index("__row").with_columns(
        pl.when(pl.col("score").is_not_null()).then(key).rank("ordinal", descending=True)
        .alias("rank"))
    last = pl.col("rank") == pl.col("rank").max()
    return ranked.filter(pl.col("pooled") | last)


def reference_values(case: Case, k: int | None, threshold: float) -> dict[str, float | str]:
    codes = case.codes
    return {
        "infap": ref.infap(codes, case.num_rel(threshold), threshold),
        "judged": ref.judged(codes, k),
        "relstring": ref.relstring(codes, k),
    }


def expressions(k: int | None, threshold: float, **ranking: object) -> list[pl.Expr]:
    return [
        pr.infap("rel", pooled="pooled", threshold=threshold, **ranking).alias("infap"),  # type: ignore[arg-type]
        pr.judged("rel", k, pooled="pooled", **ranking).alias("judged"),  # type: ignore[arg-type]
        pr.relstring("rel", k, pooled="pooled", **ranking).alias("relstring"),  # type: ignore[arg-type]
    ]


@settings(max_examples=examples(150), deadline=None)
@given(rows=rows_st, k=st.sampled_from([None, 1, 3, 5, 20]),
       threshold=st.sampled_from([1, 2, 0.5]))
@example(rows=[], k=10, threshold=1)  # an empty list: 0, and the empty string
@example(rows=[(NONPOOL, None, 1.0), (POOLED, None, 1.0), (JUDGED, 12.0, 0.5),
               (JUDGED, 1.0, None), (JUDGED, 0.0, 0.0)], k=None, threshold=1)
def test_pool_metrics_equal_the_c_source(rows: list[Row], k: int | None,
                                         threshold: float) -> None:
    case = Case(rows)
    want = reference_values(case, k, threshold)
    frame = case.frame()
    # the reference sorts stably: the row order among ties ("first")
    by_keys = frame.select(expressions(k, threshold, by="score", ties="first")).row(0, named=True)
    by_rank = positions(frame).select(expressions(k, threshold, rank="rank")).row(0, named=True)
    for name, value in want.items():
        assert close(by_keys[name], value), (name, by_keys[name], value)
        assert close(by_rank[name], value), (name, by_rank[name], value)


@settings(max_examples=examples(60), deadline=None)
@given(rows=rows_st)
def test_without_pool_information_every_unjudged_row_is_unpooled(rows: list[Row]) -> None:
    """``pooled=None``: infAP is AP (no pooled unjudged row), relstring shows '-'."""
    case = Case([(NONPOOL if state == POOLED else state, label, score)
                 for state, label, score in rows])
    frame = case.frame()
    first = {"by": "score", "ties": "first"}  # the reference's stable sort
    out = frame.select(pr.infap("rel", **first), pr.map("rel", **first),
                       pr.judged("rel", 5, **first), pr.relstring("rel", 5, **first))
    want = reference_values(case, 5, 1)
    assert close(out["infap"].item(), want["infap"])
    assert close(out["judged@5"].item(), want["judged"])
    assert out["relstring@5"].item() == want["relstring"]
    assert abs(out["infap"].item() - out["map"].item()) < 1e-4  # AP, but for epsilon


def test_relstring_characters() -> None:
    frame = pl.DataFrame({"rel": [0.0, 9.0, 10.0, 3.7, None, None], "pooled": [True] * 5 + [False],
                          "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0]})
    first = {"by": "score", "ties": "first"}  # relstring shows one order: named
    assert frame.select(pr.relstring("rel", pooled="pooled", **first)).item() == "09>3.-"
    assert frame.select(pr.relstring("rel", 2, **first)).item() == "09"
    bad = frame.with_columns(pl.lit(-1.0).alias("rel"))  # a negative label: no string
    assert bad.select(pr.relstring("rel", **first)).item() is None


# ---------------------------------------------------------------------------- condensed lists
SPECS = ["ndcg@3", "ndcg", "map", "map@2", "mrr", "p@2", "recall@3", "rprec", "bpref",
         "num_ret", "num_rel_ret", "unj@3", "rbp_resid(p=0.7)", "infap", "judged@2",
         "relstring@4", "iprec_at_recall@0.5", "relative_p@2", "utility", "auc",
         "rank_correlation", "err@3(max_grade=12)", "set_map", "gm_map", "yaap"]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=rows_st, spec=st.sampled_from(SPECS))
def test_judged_only_is_the_metric_on_the_judged_rows(rows: list[Row], spec: str) -> None:
    """trec_eval -J: the unjudged rows removed before anything is computed."""
    metric = parse_metric(spec)
    condensed = parse_metric(f"{spec}(judged_only=True)" if "(" not in spec
                             else spec.replace(")", ",judged_only=True)"))
    assert condensed.options["judged_only"] is True
    frame = Case(rows).frame()
    judged_rows = frame.filter(pl.col("rel").is_not_null())
    pool = {"pooled": "pooled"} if metric.definition.reads_pool else {}
    ties = {"ties": "first"} if metric.definition.name == "relstring" else {}  # one order
    got = frame.select(condensed.expr("rel", by="score", **pool, **ties)).item()
    want = judged_rows.select(metric.expr("rel", by="score", **pool, **ties)).item()
    assert close(got, want), (spec, got, want)
    # positions: the full list's ranks, condensed, against the judged rows ranked alone
    if metric.definition.name != "auc":  # AUC reads tie spans, not positions
        got = positions(frame).select(condensed.expr("rel", rank="rank", **pool)).item()
        want = positions(judged_rows).select(metric.expr("rel", rank="rank", **pool)).item()
        assert close(got, want), (spec, got, want)


@st.composite
def trec_files(draw: st.DrawFn) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(run, qrels) with the three states, ties, unretrieved judgments, empty queries."""
    run_rows, qrels_rows = [], []
    for q in range(draw(st.integers(1, 4))):
        n = draw(st.integers(0, 7))
        for d in range(n + 2):  # the last two are never retrieved
            if d < n:
                run_rows.append((f"q{q}", f"d{d}", draw(st.sampled_from([0.5, 1.0, 2.0]))))
            line = draw(st.sampled_from([None, "unjudged", 0, 1, 2]))
            if line is not None:
                qrels_rows.append((f"q{q}", f"d{d}", None if line == "unjudged" else line))
    run = pl.DataFrame(run_rows, schema={"qid": pl.String, "docid": pl.String,
                                         "score": pl.Float64}, orient="row")
    qrels = pl.DataFrame(qrels_rows, schema={"qid": pl.String, "docid": pl.String,
                                             "rel": pl.Int64}, orient="row")
    return run, qrels


@pytest.mark.parametrize("ties", ["trec_eval", "first", "expected"])
@settings(max_examples=examples(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=trec_files())
def test_evaluate_judged_only_is_evaluate_on_the_judged_documents(
        ties: str, files: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    run, qrels = files
    specs = ["ndcg@3", "map", "mrr", "p@2", "num_ret", "num_rel", "recall@2", "unj@2"]
    if ties != "expected":
        specs += ["infap", "relstring@3", "judged@2", "bpref"]
    labelled = qrels.filter(pl.col("rel").is_not_null())
    kept = run.join(labelled, on=["qid", "docid"], how="semi")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run queries without judgments
        got = pr.evaluate(run, qrels, specs, per_query=True, ties=ties,  # type: ignore[arg-type]
                          judged_only=True, missing="zero")
        want = pr.evaluate(kept, qrels, specs, per_query=True, ties=ties,  # type: ignore[arg-type]
                           missing="zero")
        plain = pr.evaluate(run, qrels, ["map"], per_query=True, ties=ties)  # type: ignore[arg-type]
        condensed = pr.evaluate(run, qrels, ["map"], per_query=True, ties=ties,  # type: ignore[arg-type]
                                judged_only=True)
    assert got["qid"].to_list() == want["qid"].to_list()
    for a, b in zip(got.iter_rows(named=True), want.iter_rows(named=True), strict=True):
        for name in specs:
            assert close(a[name], b[name]), (a["qid"], name, a[name], b[name])
    # the queries: those of the run with judgments, even with nothing judged retrieved
    assert condensed["qid"].to_list() == plain["qid"].to_list()


def test_judged_only_keeps_a_query_with_nothing_judged_retrieved() -> None:
    run = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["a", "b", "c"],
                        "score": [2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["b", "z", "c", "y"],
                          "rel": [1, 1, None, 2]})
    out = pr.evaluate(run, qrels, ["num_ret", "num_rel", "map", "relstring", "P_1"],
                      per_query=True, judged_only=True)
    # q1's condensed list is b alone (at rank 1); q2's is empty, its R still 1
    assert out.rows() == [("q1", 1.0, 2.0, 0.5, "1", 1.0), ("q2", 0.0, 1.0, 0.0, "", 0.0)]
    summary = pr.evaluate(run, qrels, ["map", "relstring"], judged_only=True)
    assert summary.schema == pl.Schema({"map": pl.Float64, "relstring": pl.String})
    assert summary.row(0) == (0.25, None)  # a string has no mean


def test_rank_correlation_of_a_condensed_list_left_empty() -> None:
    """q2 retrieved nothing judged: its list has an unretrieved row only. Polars 1.36
    raised there (a sort by a list of filtered keys in a ``group_by``; canary in
    tests/test_workarounds.py); the lists come in either order."""
    run = pl.DataFrame({"qid": ["q1", "q1", "q1", "q2"], "docid": ["a", "b", "x", "c"],
                        "score": [3.0, 2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q1", "q1", "q2", "q2"],
                          "docid": ["a", "b", "x", "c", "y"], "rel": [0, 2, None, None, 2]})
    for ties in ("first", "trec_eval", "expected"):
        for frame in (run, run.reverse()):
            out = pr.evaluate(frame, qrels, ["rank_correlation", "map"], per_query=True,
                              judged_only=True, ties=ties).sort("qid")
            # q1's condensed list is a (0) above b (2): its one pair discordant
            assert out.rows() == [("q1", 0.0, 0.5), ("q2", 1.0, 0.0)], ties


def test_judged_only_option_parses_and_prints_back() -> None:
    metric = parse_metric("nDCG(judged_only=True)@10")
    assert str(metric) == "ndcg@10(judged_only=True)"
    assert parse_metric(str(metric)) == metric != parse_metric("ndcg@10")
    assert parse_metric("ndcg@10(judged_only=false)") == parse_metric("ndcg@10")
    assert parse_metric("P(rel=2,judged_only=1)@5").options == {"threshold": 2,
                                                                 "judged_only": True}
    with pytest.raises(ValueError, match="judged_only='maybe' must be True or False"):
        parse_metric("map(judged_only=maybe)")
    with pytest.raises(TypeError, match="judged_only must be True or False"):
        pr.evaluate(pl.DataFrame({"qid": ["q"], "docid": ["d"], "score": [1.0],
                                  "rel": [1]}), metrics=["map"], judged_only="yes")  # type: ignore[arg-type]


def test_metric_errors() -> None:
    frame = Case([(JUDGED, 1.0, 1.0)]).frame()
    with pytest.raises(NotImplementedError, match="infap has no closed form"):
        pr.infap("rel", by="score", ties="expected")
    with pytest.raises(NotImplementedError, match="relstring shows one order"):
        pr.relstring("rel", by="score", ties="expected")
    for metric in (pr.relstring, pr.judged):
        with pytest.raises(ValueError, match="leaves open"):
            metric("rel", by="score", ties="optimistic")
    with pytest.raises(ValueError, match="no mean over queries"):
        pr.relstring("rel", by="score", query="qid")
    assert frame.select(pr.infap("rel", by="score", ties="pessimistic")).item() == 1.0
    with pytest.raises(NotImplementedError, match="infap"):
        pr.evaluate(frame.with_columns(qid=pl.lit("q"), docid=pl.lit("d")), metrics=["infAP"],
                    ties="expected")


# ---------------------------------------------------------------------------- the lenders
@st.composite
def lender_case(draw: st.DrawFn) -> tuple[list, list]:
    """ir_measures' qrels and run: negative labels, distinct scores per query.

    Each qrels query holds a label >= 0: trec_eval (and pytrec_eval) cannot evaluate
    a query whose labels are all negative (form_res_rels.c sizes its table by the
    largest label).
    """
    qrels, run = [], []
    for q in range(draw(st.integers(1, 4))):
        qid = f"q{q}"
        docs = draw(st.lists(st.integers(0, 20), max_size=12, unique=True))
        scores = draw(st.lists(st.integers(0, 50), min_size=len(docs), max_size=len(docs),
                               unique=True))
        run += [ir_measures.ScoredDoc(qid, f"d{d}", float(s)) for d, s in
                zip(docs, scores, strict=True)]
        pool = draw(st.lists(st.integers(0, 25), max_size=14, unique=True))
        labels = [draw(st.sampled_from([-1, 0, 1, 2, 3])) for _ in pool]
        if pool and max(labels) < 0:
            labels[0] = 0
        qrels += [ir_measures.Qrel(qid, f"d{d}", label) for d, label in
                  zip(pool, labels, strict=True)]
    if not qrels:
        qrels.append(ir_measures.Qrel("q0", "d0", 1))
    return qrels, run


def as_frames(qrels: list, run: list) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The lender's data as polars-rank reads it: a negative label is a null one."""
    q = pl.DataFrame([(r.query_id, r.doc_id, r.relevance) for r in qrels],
                     schema={"qid": pl.String, "docid": pl.String, "rel": pl.Int64},
                     orient="row")
    r = pl.DataFrame([(r.query_id, r.doc_id, r.score) for r in run],
                     schema={"qid": pl.String, "docid": pl.String, "score": pl.Float64},
                     orient="row")
    return r, q.with_columns(pl.when(pl.col("rel") >= 0).then("rel").alias("rel"))


IR_MEASURES = ["infAP", "infAP(rel=2)", "nDCG(judged_only=True)@5", "nDCG(judged_only=True)",
               "AP(judged_only=True)", "P(judged_only=True)@3", "RR(judged_only=True)",
               "R(judged_only=True)@5", "Rprec(judged_only=True)", "Judged@3", "Judged"]


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=lender_case())
def test_ir_measures_values(case: tuple[list, list]) -> None:
    qrels, run = case
    measures = [ir_measures.parse_measure(m) for m in IR_MEASURES]
    want = {(m.query_id, str(m.measure)): m.value
            for m in ir_measures.iter_calc(measures, qrels, run)}
    frame_run, frame_qrels = as_frames(qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run queries without judgments
        got = pr.evaluate(frame_run, frame_qrels, IR_MEASURES, per_query=True,
                          missing="zero")  # ir_measures scores absent queries 0
    assert len(got) == len({q for q, _ in want})
    for row in got.iter_rows(named=True):
        for spec, measure in zip(IR_MEASURES, measures, strict=True):
            assert close(row[spec], want[row["qid"], str(measure)]), (row["qid"], spec)


PYTREC = {"map": "map", "P_5": "P_5", "ndcg_cut_5": "ndcg_cut_5", "recip_rank": "recip_rank",
          "bpref": "bpref", "num_ret": "num_ret", "num_rel_ret": "num_rel_ret",
          "Rprec": "Rprec", "infAP": "infAP", "recall_5": "recall_5", "success_1": "success_1"}


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=lender_case())
def test_pytrec_eval_judged_docs_only(case: tuple[list, list]) -> None:
    """trec_eval 9's -J, through pytrec_eval, for the measures 10.0 did not change."""
    qrels, run = case
    qrels_dict: dict[str, dict[str, int]] = {}
    for r in qrels:
        qrels_dict.setdefault(r.query_id, {})[r.doc_id] = r.relevance
    run_dict: dict[str, dict[str, float]] = {}
    for r in run:
        if r.query_id in qrels_dict:  # pytrec_eval evaluates the judged queries of the run
            run_dict.setdefault(r.query_id, {})[r.doc_id] = r.score
    evaluator = pytrec_eval.RelevanceEvaluator(qrels_dict, set(PYTREC.values()),
                                               judged_docs_only_flag=1)
    want = evaluator.evaluate(run_dict)
    frame_run, frame_qrels = as_frames(qrels, run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pr.evaluate(frame_run, frame_qrels, list(PYTREC), per_query=True,
                          judged_only=True)
    assert sorted(got["qid"]) == sorted(want)
    for row in got.iter_rows(named=True):
        for ours, theirs in PYTREC.items():
            assert close(row[ours], want[row["qid"]][theirs]), (row["qid"], ours)


# ---------------------------------------------------------------------------- trec_eval 10.0


def write_trec_files(seed: int, folder: Path) -> tuple[Path, Path]:
    """A qrels and a run: negative labels, labels above 9, ties (scores exact in 32 bits),
    judged documents never retrieved, queries with nothing judged retrieved; every
    qrels query in the run (trec_eval 10 stops on one that is not, without -c) and
    holding a label >= 0 (it stops on one that does not)."""
    rnd = random.Random(seed)
    qrels, run = [], []
    for q in range(1, rnd.randint(2, 6)):
        docs = list(dict.fromkeys(f"d{rnd.randint(0, 30)}" for _ in range(rnd.randint(1, 14))))
        run += [f"{q} Q0 {d} 0 {rnd.choice([0.5, 1.0, 1.25, 2.0, 3.0])} sys" for d in docs]
        pool = list(dict.fromkeys([*docs, *(f"u{rnd.randint(0, 5)}" for _ in range(3))]))
        lines = [(d, rnd.choice([-1, -2, 0, 0, 1, 2, 3, 12])) for d in pool if rnd.random() < 0.6]
        if not lines or max(label for _, label in lines) < 0:
            lines.append(("u9", 0))
        qrels += [f"{q} 0 {d} {label}" for d, label in lines]
    run.append("99 Q0 x 0 1.0 sys")  # a run query without judgments: not evaluated
    paths = folder / f"{seed}.qrels", folder / f"{seed}.run"
    paths[0].write_text("\n".join(qrels) + "\n")
    paths[1].write_text("\n".join(run) + "\n")
    return paths


FLAGS = [
    "-q -J -m all_trec",
    "-q -c -J -M 3 -m all_trec -m relstring.4",
    "-q -l 2 -J -m all_trec",
    "-q -N 50 -m all_trec",
    "-q -m infAP -m relstring.6 -m unj.3 -m P.2",
]
SEEDS = [1, 2, 3, 5, 8]


def run_cli(argv: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["eval", *argv])
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("flags", FLAGS)
def test_cli_equals_the_trec_eval_binary(flags: str, seed: int, trec_eval: Path,
                                         tmp_path: Path) -> None:
    qrels, run = write_trec_files(seed, tmp_path)
    argv = [*flags.split(), str(qrels), str(run)]
    done = subprocess.run([str(trec_eval), *argv], capture_output=True, text=True, check=True)
    theirs, bad = parse(done.stdout)
    assert not bad
    ours, malformed = parse(run_cli(argv))
    assert not malformed
    # trec_eval -J prints -nan for iprec_at_recall and 11pt_avg where a condensed list
    # is empty (0 / 0, m_iprec_at_recall.c:81), and so does the command line
    mismatches, lacking, extra = differences(ours, theirs)
    assert not mismatches
    assert not extra
    assert not lacking
    if "relstring" in flags or "all_trec" in flags:
        assert any(key[0].startswith("relstring") for key in ours)


def test_the_generated_files_hold_what_the_cli_test_needs(tmp_path: Path) -> None:
    """The trec_eval comparison is only as good as its data: the three states, labels
    above 9, ties, judged documents never retrieved, lists -J leaves empty."""
    seen: set[str] = set()
    empty_condensed = ties = unretrieved = 0
    for seed in SEEDS:
        qrels_path, run_path = write_trec_files(seed, tmp_path)
        judged = {(q, d): int(label) for q, _, d, label in
                  (line.split() for line in qrels_path.read_text().splitlines())}
        per_query: dict[str, list[tuple[int | None, str]]] = {}
        for q, _, d, _, score, _ in (line.split() for line in run_path.read_text().splitlines()):
            per_query.setdefault(q, []).append((judged.get((q, d)), score))
        for q, rows in per_query.items():
            labels = [label for label, _ in rows]
            seen |= {"-" if x is None else "." if x < 0 else ">" if x > 9 else "0-9"
                     for x in labels}
            empty_condensed += all(x is None or x < 0 for x in labels)
            ties += len({score for _, score in rows}) < len(rows)
            unretrieved += sum(1 for query, _ in judged if query == q) > sum(
                1 for x in labels if x is not None)
    assert seen == {"-", ".", ">", "0-9"}
    assert empty_condensed
    assert ties
    assert unretrieved


# ---------------------------------------------------------------------------- command line
def test_cli_relstring_is_printed_per_query_and_quoted(tmp_path: Path) -> None:
    qrels, run = write_trec_files(3, tmp_path)
    lines = run_cli(["-q", "-m", "relstring", "-m", "map", str(qrels), str(run)]).splitlines()
    strings = [line for line in lines if line.startswith("relstring")]
    assert strings
    assert all(line.split("\t")[2].startswith("'") for line in strings)
    assert not any(line.split("\t")[1] == "all" for line in strings)
    assert any(line.startswith("map") and "\tall\t" in line for line in lines)
    summary = run_cli(["-m", "relstring", "-m", "map", str(qrels), str(run)])
    assert "relstring" not in summary


def test_cli_table_leaves_strings_out_with_a_note(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    qrels, run = write_trec_files(3, tmp_path)
    code = main(["eval", "-q", "--format", "csv", "-m", "relstring", "-m", "infAP",
                 str(qrels), str(run)])
    out, err = capsys.readouterr()
    assert code == 0
    assert "relstring left out" in err
    assert "infAP" in out
    assert "relstring" not in out


def test_cli_judged_only_and_num_docs(tmp_path: Path) -> None:
    qrels, run = write_trec_files(5, tmp_path)
    args = ["-m", "num_ret", "-m", "map", str(qrels), str(run)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # query 99 has no judgments
        condensed = pr.evaluate(pr.read_run(run), pr.read_qrels(qrels), ["num_ret", "map"],
                                judged_only=True)
    text = run_cli(["-J", *args])
    assert f"num_ret               \tall\t{round(condensed['num_ret'].item())}" in text
    assert f"map                   \tall\t{condensed['map'].item():6.4f}" in text
    assert run_cli(["--judged-only", *args]) == text != run_cli(args)
    # -N reaches utility's collection size (only its fourth weight reads it)
    metric = parse_metric("utility")
    from polars_rank._cli.eval_settings import asked

    assert asked(["utility"], num_docs=50).metrics["utility"].options["num_docs"] == 50
    assert metric.definition.option("num_docs") is not None
    assert asked(["map"], num_docs=50).metrics["map"] == parse_metric("map", "trec_eval")
    assert run_cli(["-N", "1000", "-m", "utility", str(qrels), str(run)]) == run_cli(
        ["-m", "utility", str(qrels), str(run)])


def test_a_measure_takes_the_parameters_of_its_first_m() -> None:
    from polars_rank._cli.eval_settings import asked

    a = asked(["all_trec", "relstring.20"])
    assert "relstring_20" in a.names
    assert "relstring" not in a.names
    assert a.metrics["relstring_20"] == parse_metric("relstring@20")
    assert asked(["P.5", "P", "official"]).names.count("P_5") == 1
    assert "P_10" not in asked(["P.5", "official"]).names


def test_registry_entries() -> None:
    assert parse_metric("infAP") == parse_metric("infap")
    assert str(parse_metric("infAP(rel=2)")) == "infap(threshold=2)"
    assert parse_metric("Judged@10") == parse_metric("judged@10")
    assert parse_metric("relstring_20") == parse_metric("relstring.20") == parse_metric(
        "relstring@20")
    for name in ("infap", "judged", "relstring"):
        assert METRICS[name].reads_pool
    assert METRICS["relstring"].over_queries == "none"


def test_pieces_of_the_distributed_front_ends() -> None:
    """Spark and Dask evaluate pieces through evaluate()'s own path: infAP reads the
    pool there too; a string per query is refused on the driver."""
    from polars_rank._distributed import SIDE, WITHOUT_JUDGMENTS, evaluate_piece, make_plan
    from polars_rank._evaluation.spec import resolve

    run = pl.DataFrame({"qid": ["q1"] * 4, "docid": ["a", "b", "c", "d"],
                        "score": [4.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1"] * 3, "docid": ["a", "b", "d"], "rel": [1, None, 1]})
    with pytest.raises(ValueError, match="relstring: a string per query"):
        make_plan(run.clear(), qrels.clear(), resolve(["infAP", "relstring"], missing="skip"))
    plan = make_plan(run.clear(), qrels.clear(), resolve(["infAP"], missing="skip"))
    piece = pl.concat([run.with_columns(pl.lit(False).alias(SIDE)),
                       qrels.with_columns(pl.lit(True).alias(SIDE))], how="diagonal")
    out = evaluate_piece(piece, plan).filter(pl.col(WITHOUT_JUDGMENTS).is_null())
    want = pr.evaluate(run, qrels, ["infAP"], per_query=True)
    assert out["infAP"].to_list() == want["infAP"].to_list() != [0.75]  # AP: 0.75
