"""Dialects and the options they need, against the lenders that are installed.

scikit-learn (``ndcg_score``, ``dcg_score``, ``average_precision_score``,
``label_ranking_average_precision_score``) and ranx are called directly on random
lists with ties and short lists; torchmetrics and MS Recommenders, not installed,
are compared with their transcriptions in tests/test_lenders_transcribed.py.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import polars as pl
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.__main__ import main
from polars_rank._params import TIES
from polars_rank.registry import DIALECTS, dialect_ties, parse_metric

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


def test_every_dialect_is_buildable() -> None:
    """Each dialect's defaults are options of its metrics, with allowed values."""
    for name, dialect in DIALECTS.items():
        assert dialect.ties is None or dialect.ties in TIES, name
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
    assert dialect_ties(None, "sklearn") == "expected"
    assert dialect_ties(None, "recommenders") == "first"
    assert dialect_ties(None, "ranx") == "trec_eval"
    assert dialect_ties("first", "sklearn") == "first"


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
