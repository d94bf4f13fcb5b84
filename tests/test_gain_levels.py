"""trec_eval's gain tables and gain-level measures against the C code's transcription.

``G``, ``binG``, ``ndcg_rel``, ``Rndcg`` and NDCG / DCG with a gain table
(``gains=``), on hypothesis-drawn lists: graded labels 0..4 and fractional ones,
unjudged rows, judged rows never retrieved, tied scores, empty lists, lists with
nothing relevant, and gain tables with 0 and negative gains. Each is compared with
``reference_gains`` (m_G.c, m_binG.c, m_ndcg_rel.c, m_Rndcg.c, m_ndcg.c, gain_init.c
as written) in every ranking mode: ``by=`` with each tie policy, ``rank=`` positions
(every row, or the judged rows only), the row order, and ``query=`` means. The
trec_eval spellings (``ndcg.1=3,2=9``, ``utility.2,-1,0,0``, ``11pt_avg..25,.5``)
and ir_measures' ``nDCG(gains={...})`` are checked here too; the real trec_eval
binary in ``test_gain_levels_binary.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import ir_measures_child
import polars as pl
import pytest
import reference_gains as ref
from budget import examples
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank._language import trec_measures as trec
from polars_rank.registry import parse_metric

TOL = 1e-12
Label = float | None
Row = tuple[Label, float | None]  # (label, score); score None = judged, not retrieved
Gains = dict[int, float] | None

labels_st: st.SearchStrategy[Label] = st.one_of(
    st.none(), st.integers(0, 4), st.integers(0, 4), st.sampled_from([0.5, 1.5, 2.5]))
scores_st = st.one_of(st.none(), st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0]))
rows_st = st.lists(st.tuples(labels_st, scores_st), max_size=12)
gains_st: st.SearchStrategy[Gains] = st.one_of(st.none(), st.dictionaries(
    st.integers(0, 5), st.sampled_from([-2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.5, 9.0]),
    max_size=4))
thresholds_st = st.sampled_from([1, 2, 0.5])

# name -> (expression, oracle over (ranked, unretrieved))
Build = Callable[[Gains, float, dict[str, object]], pl.Expr]
Oracle = Callable[[list[Label], list[Label], Gains, float], float]
METRICS: dict[str, tuple[Build, Oracle]] = {
    "G": (lambda g, t, by: pr.normalized_gain("rel", gains=g, **by),
          lambda r, u, g, t: ref.g_measure(r, u, g)),
    "binG": (lambda g, t, by: pr.binary_normalized_gain("rel", threshold=t, **by),
             lambda r, u, g, t: ref.bin_g(r, u, t)),
    "ndcg_rel": (lambda g, t, by: pr.ndcg_over_relevant("rel", gains=g, **by),
                 lambda r, u, g, t: ref.ndcg_rel(r, u, g)),
    "Rndcg": (lambda g, t, by: pr.r_ndcg("rel", gains=g, threshold=t, **by),
              lambda r, u, g, t: ref.r_ndcg(r, u, g, t)),
    "ndcg": (lambda g, t, by: pr.ndcg("rel", gain="linear", gains=g, **by),
             lambda r, u, g, t: ref.ndcg(r, u, g)),
    "dcg": (lambda g, t, by: pr.dcg("rel", gain="linear", gains=g, **by),
            lambda r, u, g, t: ref.ndcg(r, u, g, dcg=True)),
    "ideal_dcg": (lambda g, t, by: pr.ideal_dcg("rel", gain="linear", gains=g, **by),
                  lambda r, u, g, t: ref.ndcg(r, u, g, ideal=True)),
    "ndcg@3": (lambda g, t, by: pr.ndcg("rel", 3, gain="linear", gains=g, **by),
               lambda r, u, g, t: ref.ndcg_cut(r, u, 3, g)),
    "dcg@2": (lambda g, t, by: pr.dcg("rel", 2, gain="linear", gains=g, **by),
              lambda r, u, g, t: ref.ndcg_cut(r, u, 2, g, dcg=True)),
}


def same(got: float | None, expected: float | None) -> bool:
    if got is None or expected is None:
        return got is None and expected is None
    if math.isnan(expected):
        return math.isnan(got)
    return math.isclose(got, expected, rel_tol=TOL, abs_tol=TOL)


def frame(rows: list[Row]) -> pl.DataFrame:
    df = pl.DataFrame({"rel": [x for x, _ in rows], "score": [s for _, s in rows]},
                      schema={"rel": pl.Float64, "score": pl.Float64})
    return df.with_columns(pos=pl.col("score").rank("ordinal", descending=True).cast(pl.Int64))


def gain(label: Label, gains: Gains) -> float:
    """A row's gain: the table's for a listed label, else the label; unjudged 0."""
    return 0.0 if label is None else (gains or {}).get(label, label)  # type: ignore[call-overload]


def in_rank_order(rows: list[Row], ties: str = "first",
                  key: Callable[[Label], float] = lambda _: 0.0,
                  ) -> tuple[list[Label], list[Label]]:
    """(retrieved labels by score, ties as the policy says; labels never retrieved).

    ``optimistic`` / ``pessimistic``: tied rows by ``key`` (the metric's gain),
    largest first / last.
    """
    shown = [(x, s) for x, s in rows if s is not None]
    sign = {"first": 0, "optimistic": -1, "pessimistic": 1}[ties]
    shown.sort(key=lambda row: (-row[1], sign * key(row[0])))  # type: ignore[operator]
    return [x for x, _ in shown], [x for x, s in rows if s is None]


def expected_values(rows: list[Row], gains: Gains, t: float, ties: str) -> dict[str, float]:
    """Each metric of METRICS by the C code's transcription, ties as the policy says."""
    out = {}
    for name, (_, oracle) in METRICS.items():
        if name == "binG":  # a binary measure: relevance decides the label tie policies
            order = in_rank_order(rows, ties, lambda x: float(x is not None and x >= t))
        else:
            order = in_rank_order(rows, ties, lambda x: gain(x, gains))
        out[name] = oracle(*order, gains, t)
    return out


def check(rows: list[Row], gains: Gains, t: float, ranking: dict[str, object],
          df: pl.DataFrame, ties: str = "first") -> None:
    got = df.select(build(gains, t, ranking).alias(name)
                    for name, (build, _) in METRICS.items()).row(0, named=True)
    for name, expected in expected_values(rows, gains, t, ties).items():
        assert same(got[name], expected), (name, got[name], expected, ranking)


EDGES = [
    ([], None, 1),
    ([(1, None), (2, None), (None, None)], {2: 9.0}, 1),  # nothing retrieved
    ([(0, 1.0), (None, 0.5), (0, 0.0)], None, 1),  # nothing relevant
    ([(1, 2.0), (2, 1.0)], {1: 0.0, 2: 0.0}, 1),  # relevant, no positive gain: Rndcg NaN
    ([(3, 1.0), (0, 1.0), (1, 1.0), (2, None), (3, None)], {0: -1.0, 3: 4.5}, 2),
    ([(1, 4.0), (0, 3.0), (2, 2.0), (2, 1.0)], None, 1),  # n = P + 1: no tail in Rndcg
    ([(1, 5.0), (0, 4.0), (2, 3.0), (None, 2.0), (0, 1.0)], None, 1),  # n > P + 1
]


def edges(test: Callable[..., None]) -> Callable[..., None]:
    for rows, gains, t in reversed(EDGES):
        test = example(rows=rows, gains=gains, t=t)(test)
    return test


@settings(max_examples=examples(150), deadline=None)
@given(rows=rows_st, gains=gains_st, t=thresholds_st)
@edges
def test_keys_mode_matches_the_c_code(rows: list[Row], gains: Gains, t: float) -> None:
    check(rows, gains, t, {"by": "score", "ties": "first"}, frame(rows))


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
@settings(max_examples=examples(60), deadline=None)
@given(rows=rows_st, gains=gains_st, t=thresholds_st)
@example(rows=[(0, -1.0), (None, -1.0)], gains={0: -2.0}, t=1)  # a judged 0 below unjudged
@example(rows=[(2, 1.0), (1, 1.0), (0, 0.0)], gains={1: 5.0}, t=1)  # label 1 above label 2
def test_label_tie_policies(ties: str, rows: list[Row], gains: Gains, t: float) -> None:
    """Tied rows by the metric's gain (a gain table's), as the oracle orders them."""
    check(rows, gains, t, {"by": "score", "ties": ties}, frame(rows), ties)


TABLE_STRINGS = {"G": "g", "ndcg_rel": "ndcg_rel", "Rndcg": "rndcg", "ndcg": "ndcg",
                 "dcg": "dcg", "ideal_dcg": "ideal_dcg", "ndcg@3": "ndcg@3",
                 "dcg@2": "dcg@2"}  # METRICS with gains=


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
@settings(max_examples=examples(20), deadline=None)
@given(rows=rows_st, gains=gains_st, t=thresholds_st)
@example(rows=[(0, -1.0), (None, -1.0)], gains={0: -2.0}, t=1)
@example(rows=[(None, 0.0), (0, 0.5), (1, 0.0)], gains={1: -2.0, 0: 0.5}, t=1)  # list end
@example(rows=[(2, 1.0), (1, 1.0), (3, 1.0)], gains={1: 5.0, 3: 0.0}, t=2)
def test_evaluate_orders_ties_by_each_metrics_gain(ties: str, rows: list[Row], gains: Gains,
                                                   t: float) -> None:
    """evaluate() ranks once; a metric whose gain table reorders the labels apart."""
    table = ",".join(f"{k}:{v:g}" for k, v in (gains or {}).items())
    options = {name: ([f"gains={{{table}}}"] if table else [])
               + ([f"threshold={t:g}"] if s == "rndcg" else [])
               for name, s in TABLE_STRINGS.items()}
    strings = {name: s + (f"({','.join(options[name])})" if options[name] else "")
               for name, s in TABLE_STRINGS.items()}
    strings["binG"] = f"bing(threshold={t:g})"
    run = pl.DataFrame({"qid": "q", "docid": [f"d{i}" for i, (_, s) in enumerate(rows)
                                                if s is not None],
                        "score": [s for _, s in rows if s is not None]},
                       schema={"qid": pl.String, "docid": pl.String, "score": pl.Float64})
    qrels = pl.DataFrame({"qid": "q", "docid": [f"d{i}" for i, (x, _) in enumerate(rows)
                                                  if x is not None],
                          "rel": [x for x, _ in rows if x is not None]},
                         schema={"qid": pl.String, "docid": pl.String, "rel": pl.Float64})
    assume(run.height > 0 and qrels.height > 0)  # evaluate() scores judged, retrieved lists
    got = pr.evaluate(run, qrels, list(strings.values()), ties=ties).row(0, named=True)
    expected = expected_values(rows, gains, t, ties)
    for name, string in strings.items():
        assert same(got[string], expected[name]), (name, got[string], expected[name])


@pytest.mark.parametrize("ties", ["optimistic", "pessimistic"])
def test_evaluate_tells_long_gain_tables_apart(ties: str) -> None:
    """Two tables that differ in a middle entry each get their own ranking.

    Polars prints a long literal list shortened, so the tables' expressions print alike
    (evaluate() once read both from one ranking: 0.9502 for the first, 0.6199 alone).
    """
    run = pl.DataFrame({"qid": "q", "docid": ["a", "b", "c"], "score": [1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": "q", "docid": ["a", "b", "c"], "rel": [2, 0, 1]})
    tables = ["ndcg(gains={0:0,1:1,2:2,3:3})", "ndcg(gains={0:0,1:1,2:-50,3:3})"]
    together = pr.evaluate(run, qrels, tables, ties=ties).row(0)
    alone = tuple(pr.evaluate(run, qrels, [t], ties=ties).item() for t in tables)
    assert together == alone


@pytest.mark.parametrize("sparse", [False, True], ids=["every row", "judged rows"])
@settings(max_examples=examples(100), deadline=None)
@given(rows=rows_st, gains=gains_st, t=thresholds_st)
@edges
def test_positions_mode_matches_the_c_code(sparse: bool, rows: list[Row], gains: Gains,
                                           t: float) -> None:
    """``rank=`` positions; ``evaluate()`` hands over the judged rows and the last one."""
    df = frame(rows)
    if sparse:
        df = df.filter(pl.col("rel").is_not_null() | (pl.col("pos") == pl.col("pos").max()))
    check(rows, gains, t, {"rank": "pos"}, df)


@settings(max_examples=examples(60), deadline=None)
@given(rows=rows_st, gains=gains_st, t=thresholds_st)
def test_row_order_is_the_ranking(rows: list[Row], gains: Gains, t: float) -> None:
    ranked, _ = in_rank_order(rows)
    shown = [(x, 1.0) for x in ranked]
    df = pl.DataFrame({"rel": ranked}, schema={"rel": pl.Float64})
    check(shown, gains, t, {"by": None}, df)


@settings(max_examples=examples(60), deadline=None)
@given(queries=st.lists(st.lists(st.tuples(labels_st, scores_st), min_size=1, max_size=8),
                       min_size=1, max_size=4), gains=gains_st, t=thresholds_st)
def test_query_means(queries: list[list[Row]], gains: Gains, t: float) -> None:
    """``query=``: each query (a list of rows) once, in ``select`` and in a ``group_by``."""
    df = pl.concat([frame(rows).with_columns(qid=pl.lit(q)) for q, rows in enumerate(queries)])
    exprs = [build(gains, t, {"by": "score", "query": "qid", "ties": "first"}).alias(name)
             for name, (build, _) in METRICS.items()]
    means = df.select(exprs).row(0, named=True)
    grouped = df.group_by(pl.lit(1).alias("all")).agg(exprs).row(0, named=True)
    for name, (_, oracle) in METRICS.items():
        # a query without a judged row is left out of the mean, as trec_eval leaves it out
        values = [oracle(*in_rank_order(rows), gains, t) for rows in queries
                  if any(label is not None for label, _ in rows)]
        expected = math.fsum(values) / len(values) if values else None
        assert same(means[name], expected), (name, means[name], expected)
        assert same(grouped[name], expected), (name, grouped[name], expected)


@pytest.mark.parametrize("metric", [pr.normalized_gain, pr.binary_normalized_gain,
                                    pr.ndcg_over_relevant, pr.r_ndcg])
def test_expected_ties_have_no_closed_form(metric: Callable[..., pl.Expr]) -> None:
    with pytest.raises(NotImplementedError, match="no closed form under ties='expected'"):
        metric("rel", by="score", ties="expected")


def test_ndcg_with_a_table_under_expected_ties_is_the_mean_over_orders() -> None:
    """NDCG stays linear in the gains: the tie-order mean holds with a table too."""
    df = pl.DataFrame({"rel": [2, 0, 1, 2], "score": [1.0, 1.0, 1.0, 0.0]})
    table = {1: 5.0, 0: -1.0}
    expected = pr.ndcg("rel", by="score", gain="linear", gains=table, ties="expected")
    orders = [[2, 0, 1], [2, 1, 0], [0, 2, 1], [0, 1, 2], [1, 2, 0], [1, 0, 2]]
    values = [ref.ndcg([*order, 2], [], table) for order in orders]
    assert same(df.select(expected).item(), math.fsum(values) / 6)


# ---------------------------------------------------------------------------- parameters
def test_gains_are_checked_when_the_expression_is_built() -> None:
    with pytest.raises(ValueError, match="labels must be ints >= 0"):
        pr.ndcg("rel", by="score", gains={-1: 2.0})
    with pytest.raises(ValueError, match="labels must be ints >= 0"):
        pr.normalized_gain("rel", by="score", gains={1.5: 2.0})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="gains must be finite"):
        pr.r_ndcg("rel", by="score", gains={1: math.inf})
    with pytest.raises(TypeError, match="mapping from int labels"):
        pr.dcg("rel", by="score", gains=[(1, 2.0)])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="levels must be"):
        pr.eleven_point_average("rel", by="score", levels=[])


def test_unlisted_labels_keep_the_gain_function() -> None:
    """A table overrides listed labels; others keep ``gain`` (linear: the label)."""
    df = pl.DataFrame({"rel": [2, 1], "score": [2.0, 1.0]})
    linear = df.select(pr.dcg("rel", by="score", gain="linear", gains={1: 3.0})).item()
    exponential = df.select(pr.dcg("rel", by="score", gains={1: 3.0})).item()
    assert same(linear, 2 + 3 / math.log2(3))
    assert same(exponential, 3 + 3 / math.log2(3))


NAMES = {  # spelling -> canonical metric string
    "ndcg.1=3,2=9,4=4.5": "ndcg(gains={1:3,2:9,4:4.5})",
    "ndcg_1=3,2=9,4=4.5": "ndcg(gains={1:3,2:9,4:4.5})",  # the name trec_eval prints
    "nDCG(gains={0:0,1:1,2:3})@10": "ndcg@10(gains={0:0,1:1,2:3})",  # ir_measures
    "ndcg@10(gains={1:3},gain=exponential)": "ndcg@10(gain=exponential,gains={1:3})",
    "dcg.1=-2": "dcg(gains={1:-2})",
    "ideal_dcg.1=-2,2=9": "ideal_dcg(gains={1:-2,2:9})",
    "G": "g", "G.2=9": "g(gains={2:9})", "normalized_gain": "g",
    "binG": "bing", "binary_normalized_gain(rel=2)": "bing(threshold=2)",
    "ndcg_rel_0=1": "ndcg_rel(gains={0:1})", "Rndcg.1=0.5": "rndcg(gains={1:0.5})",
    "r_ndcg(rel=2)": "rndcg(threshold=2)",
    "utility.2,-1,0,0": "utility(weights=[2,-1,0,0])",
    "utility_2,-1,0,0": "utility(weights=[2,-1,0,0])",
    "utility(weights=[1,-1,0,0])": "utility(weights=[1,-1,0,0])",  # as given, = "utility"
    "11pt_avg..25,.5,.75": "11pt_avg(levels=[0.25,0.5,0.75])",
    "11pt_avg_0.2,0.5,0.8": "11pt_avg(levels=[0.2,0.5,0.8])",
}


@pytest.mark.parametrize("spelling", list(NAMES))
def test_spellings_parse_and_print_back(spelling: str) -> None:
    metric = parse_metric(spelling)
    assert str(metric) == NAMES[spelling]
    assert parse_metric(str(metric)) == metric
    assert metric.expr("rel", by="score").meta.output_name() == NAMES[spelling]


def test_default_parameters_are_the_plain_metric() -> None:
    assert parse_metric("utility(weights=[1,-1,0,0])") == parse_metric("utility")
    eleven = ",".join(str(i / 10) for i in range(11))
    assert parse_metric(f"11pt_avg(levels=[{eleven}])") == parse_metric("11pt_avg")
    assert parse_metric(f"11pt_avg.{eleven}") == parse_metric("11pt_avg")


@pytest.mark.parametrize(("spelling", "message"), [
    ("ndcg(gains=1:3)", "in braces"),
    ("ndcg(gains={1:3,1:4})", "given twice"),
    ("ndcg(gains={})", "empty table"),
    ("ndcg(gains={1=3})", "label:gain"),
    ("ndcg.1=x", "label=gain"),
    ("ndcg(gains={-1:3})", "ints >= 0"),
    ("utility.1,2", "four weights"),
    ("utility(weights=[1,x,0,0])", "numbers in brackets"),
    ("11pt_avg..5,.25", "increasing order"),
    ("g@10", "takes no cutoff"),
])
def test_bad_spellings(spelling: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_metric(spelling)


def test_function_names_are_metric_strings() -> None:
    assert pr.ndcg("rel", 5, by="s", gains={2: 9}).meta.output_name() == (
        "ndcg@5(gain=exponential,gains={2:9})")
    assert pr.utility("rel", [2, -1, 0, 0], by="s").meta.output_name() == (
        "utility(weights=[2,-1,0,0])")
    assert pr.eleven_point_average("rel", levels=(0.2, 0.5, 0.8), by="s").meta.output_name() == (
        "11pt_avg(levels=[0.2,0.5,0.8])")
    assert pr.r_ndcg("rel", by="s", gains={}).meta.output_name() == "rndcg"


def test_the_command_line_expands_trec_eval_parameters() -> None:
    def names(spec: str) -> list[str]:
        expanded = trec.expand(spec)
        assert expanded is not None
        return [name for name, _ in expanded.lines]

    assert names("ndcg.1=3,2=9,4=4.5") == ["ndcg_1=3,2=9,4=4.5"]
    assert names("G.1=3.5") == ["G_1=3.5"]
    assert names("utility.2,-1,0,0") == ["utility_2,-1,0,0"]
    assert names("11pt_avg..25,.5,.75") == ["11pt_avg_.25,.5,.75"]
    for printed_name, string in trec.expand("ndcg.1=3,2=9,4=4.5").lines:  # type: ignore[union-attr]
        assert parse_metric(string, "trec_eval") == parse_metric(printed_name, "trec_eval")
    assert trec.printed("Rndcg_1=3") == "Rndcg"
    ignored = trec.expand("binG.5")  # as trec_eval, which ignores them
    assert ignored is not None
    assert ignored.lines == [("binG", "binG")]
    assert "takes no parameters" in (ignored.note or "")
    assert not {"binG", "G", "ndcg_rel", "Rndcg"} & trec.UNSUPPORTED


# ---------------------------------------------------------------------------- 11pt_avg, utility
levels_st = st.lists(st.sampled_from([-0.5, 0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 1.0, 1.5]),
                     min_size=1, max_size=5).map(sorted)


@settings(max_examples=examples(100), deadline=None)
@given(rows=rows_st, levels=levels_st, t=thresholds_st)
def test_eleven_point_average_at_chosen_levels(rows: list[Row], levels: list[float],
                                               t: float) -> None:
    """Sorted levels, as trec_eval walks them (m_11pt_avg.c); an empty list scores 0."""
    ranked, unretrieved = in_rank_order(rows)
    got = frame(rows).select(pr.eleven_point_average("rel", levels=levels, threshold=t,
                                                     by="score", ties="first")).item()
    expected = ref.eleven_point_average(ranked, unretrieved, levels, t) if ranked else 0.0
    assert same(got, expected), (got, expected)


def test_utility_weights_through_evaluate() -> None:
    run = pl.DataFrame({"qid": ["1"] * 4, "docid": list("abcd"), "score": [4.0, 3, 2, 1]})
    qrels = pl.DataFrame({"qid": ["1"] * 3, "docid": ["a", "c", "e"], "rel": [1, 0, 1]})
    out = pr.evaluate(run, qrels, ["utility.2,-1,0,0", "utility(weights=[1,0,-1,0])"])
    assert out.row(0) == (2 * 1 - 3, 1 - 1)  # 1 relevant retrieved of 2, 3 others


# ---------------------------------------------------------------------------- ir_measures
def _ir_measures_case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    import random

    rnd = random.Random(seed)
    run, qrels = [], []
    for q in range(5):
        for d in range(rnd.randint(1, 9)):
            run.append((f"q{q}", f"d{d}", float(rnd.randint(0, 5))))
        for d in range(11):
            if rnd.random() < 0.6:
                qrels.append((f"q{q}", f"d{d}", rnd.randint(0, 3)))
    return (pl.DataFrame(run, schema=["qid", "docid", "score"], orient="row"),
            pl.DataFrame(qrels, schema=["qid", "docid", "rel"], orient="row"))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("table", [{1: 3, 2: 9}, {0: 1, 1: 0, 3: 2}, {2: 7}])
def test_ir_measures_gains(seed: int, table: Mapping[int, int]) -> None:
    """``nDCG(gains={...})`` is ir_measures' number (its pytrec_eval provider)."""
    ir_measures = pytest.importorskip("ir_measures")
    run, qrels = _ir_measures_case(seed)
    qrels = qrels.filter(pl.col("qid").is_in(run["qid"].implode()))
    spellings = [f"nDCG(gains={{{','.join(f'{k}:{v}' for k, v in table.items())}}}){cut}"
                 for cut in ("", "@5")]
    ours = pr.evaluate(run, qrels, spellings, per_query=True)
    values = ir_measures_child.iter_calc(spellings, qrels.iter_rows(), run.iter_rows())
    for row in ours.iter_rows(named=True):
        for s in spellings:
            key = (str(ir_measures.parse_measure(s)), row["qid"])
            assert same(row[s], values[key]), (s, row["qid"], row[s], values[key])
