"""Every metric expression against the plain-Python oracle in ``reference.py``.

One ranked list per example: 0..12 rows, each with a label (None = unjudged, an int
0..4, sometimes a fractional grade) and a score drawn from a small set, so ties are
frequent (None = judged but not retrieved). The oracle's ranked list is Python's
stable ``sorted`` of the retrieved rows by decreasing score, which is exactly
``ties="first"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import polars as pl
import pytest
import reference as ref
import reference_gains as ref_gains
from budget import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

import polars_rank as pr
from polars_rank.registry import METRICS as REGISTRY

TOL = 1e-12

Label = float | None
Row = tuple[Label, float | None]  # (label, score); score None = not retrieved

# ---------------------------------------------------------------------------- strategies
labels_st: st.SearchStrategy[Label] = st.one_of(
    st.none(),
    st.integers(0, 4),
    st.integers(0, 4),  # weight integers over fractional grades
    st.sampled_from([0.5, 1.5, 2.5, 3.5]),
)
scores_st: st.SearchStrategy[float | None] = st.one_of(
    st.none(), st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0])
)
rows_st: st.SearchStrategy[list[Row]] = st.lists(st.tuples(labels_st, scores_st), max_size=12)


@dataclass(frozen=True)
class Params:
    """Every metric parameter at once; each metric reads the ones it has."""

    k: int | None = None
    gain: str = "exponential"
    threshold: float = 1
    p: float = 0.8
    int_labels: bool = False  # an Int64 label column when every label is integral


params_st = st.builds(
    Params,
    k=st.sampled_from([None, 1, 2, 3, 5, 20]),
    gain=st.sampled_from(["exponential", "linear"]),
    threshold=st.sampled_from([1, 2, 0.5]),
    p=st.sampled_from([0.5, 0.8, 0.95]),
    int_labels=st.booleans(),
)


# ---------------------------------------------------------------------------- the list
@dataclass(frozen=True)
class Case:
    """One ranked list, both as a frame and as the oracle's arguments."""

    rows: list[Row]

    @property
    def retrieved(self) -> list[Row]:
        """Retrieved rows in rank order (stable: ties keep input order)."""
        hits = [row for row in self.rows if row[1] is not None]
        return sorted(hits, key=lambda row: -row[1])

    @property
    def ranked(self) -> list[Label]:
        return [label for label, _ in self.retrieved]

    @property
    def unretrieved(self) -> list[Label]:
        return [label for label, score in self.rows if score is None]

    @property
    def scores(self) -> list[float]:
        return [score for _, score in self.retrieved]


def label_column(labels: list[Label], params: Params) -> pl.Series:
    """Float64 labels, or Int64 when asked for and every label is integral."""
    integral = all(label is None or float(label).is_integer() for label in labels)
    if params.int_labels and integral:
        return pl.Series("rel", [None if x is None else int(x) for x in labels], pl.Int64)
    return pl.Series("rel", [None if x is None else float(x) for x in labels], pl.Float64)


def rank_column(rows: list[Row]) -> list[int | None]:
    """Competition ranks (1 = best) of the scores, ties kept: ascending rank order."""
    return [
        None if score is None else 1 + sum(1 for _, s in rows if s is not None and s > score)
        for _, score in rows
    ]


def frame(rows: list[Row], params: Params) -> pl.DataFrame:
    return pl.DataFrame(
        [
            label_column([label for label, _ in rows], params),
            pl.Series("score", [score for _, score in rows], pl.Float64),
            pl.Series("rank", rank_column(rows), pl.Int64),
        ]
    )


def row_order_frame(case: Case, params: Params) -> pl.DataFrame:
    """Only the retrieved rows, already in rank order (for ``by=None``)."""
    return pl.DataFrame([label_column(case.ranked, params)])


def same(got: float | str | None, expected: float | str | None) -> bool:
    if expected is None:
        return got is None
    if isinstance(expected, str) or isinstance(got, str):  # relstring
        return got == expected
    if math.isnan(expected):  # trec_eval's 0 / 0 (Rndcg without a positive gain)
        return got is not None and math.isnan(got)
    return got is not None and math.isclose(got, expected, rel_tol=TOL, abs_tol=TOL)


# ---------------------------------------------------------------------------- the metrics
# name -> (expression from (params, ranking keyword arguments), oracle from (case, params))
Ranking = dict[str, object]
ExprFn = Callable[[Params, Ranking], pl.Expr]
OracleFn = Callable[[Case, Params], "float | None"]

def _codes(c: Case) -> list[float]:
    """trec_eval's codes of the ranked list: an unjudged row is not in the pool."""
    return ref.res_rels(c.ranked, [False] * len(c.ranked))
def _low(p: Params) -> float:
    """min_rel of the C/W/L metrics, drawn from the threshold: 0, or 1."""
    return 1.0 if p.threshold == 2 else 0.0


def _level(p: Params) -> float:
    """A recall level drawn from the parameters: 0, 0.1, 0.5, 0.7, ... (rounding cases)."""
    return {None: 0.0, 1: 0.1, 2: 0.5, 3: 0.7, 5: 0.3, 20: 1.0}[p.k] * (p.p > 0.6) or p.p / 2


def _table(p: Params) -> dict[int, float] | None:
    """A gain table drawn from the parameters: none, 0 and negative gains, 0.5 apart."""
    return {None: None, 1: {1: 3.0}, 2: {0: -1.0, 2: 9.0}, 3: {2: 0.5}, 5: {1: 0.0, 4: 4.5},
            20: None}[p.k]


METRICS: dict[str, tuple[ExprFn, OracleFn]] = {
    "dcg": (
        lambda p, by: pr.dcg("rel", p.k, gain=p.gain, **by),
        lambda c, p: ref.dcg(c.ranked, k=p.k, gain=p.gain),
    ),
    "ideal_dcg": (
        lambda p, by: pr.ideal_dcg("rel", p.k, gain=p.gain, **by),
        lambda c, p: ref.ideal_dcg([*c.ranked, *c.unretrieved], k=p.k, gain=p.gain),
    ),
    "ndcg": (
        lambda p, by: pr.ndcg("rel", p.k, gain=p.gain, **by),
        lambda c, p: ref.ndcg(c.ranked, c.unretrieved, k=p.k, gain=p.gain),
    ),
    "err": (
        lambda p, by: pr.err("rel", p.k, max_grade=4, **by),
        lambda c, p: ref.err(c.ranked, k=p.k, max_grade=4),
    ),
    "normalized_gain": (  # trec_eval's G; the gain table from k
        lambda p, by: pr.normalized_gain("rel", gains=_table(p), **by),
        lambda c, p: ref_gains.g_measure(c.ranked, c.unretrieved, _table(p)),
    ),
    "binary_normalized_gain": (
        lambda p, by: pr.binary_normalized_gain("rel", threshold=p.threshold, **by),
        lambda c, p: ref_gains.bin_g(c.ranked, c.unretrieved, p.threshold),
    ),
    "ndcg_over_relevant": (
        lambda p, by: pr.ndcg_over_relevant("rel", gains=_table(p), **by),
        lambda c, p: ref_gains.ndcg_rel(c.ranked, c.unretrieved, _table(p)),
    ),
    "r_ndcg": (
        lambda p, by: pr.r_ndcg("rel", gains=_table(p), threshold=p.threshold, **by),
        lambda c, p: ref_gains.r_ndcg(c.ranked, c.unretrieved, _table(p), p.threshold),
    ),
    "precision": (
        lambda p, by: pr.precision("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.precision(c.ranked, k=p.k, threshold=p.threshold),
    ),
    "recall": (
        lambda p, by: pr.recall("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.recall(c.ranked, c.unretrieved, k=p.k, threshold=p.threshold),
    ),
    "f1": (
        lambda p, by: pr.f1("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.f1(c.ranked, c.unretrieved, k=p.k, threshold=p.threshold),
    ),
    "average_precision": (
        lambda p, by: pr.average_precision("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.average_precision(c.ranked, c.unretrieved, k=p.k, threshold=p.threshold),
    ),
    "yaap": (
        lambda p, by: pr.yaap("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.yaap(c.ranked, c.unretrieved, k=p.k, threshold=p.threshold),
    ),
    "reciprocal_rank": (
        lambda p, by: pr.reciprocal_rank("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.reciprocal_rank(c.ranked, k=p.k, threshold=p.threshold),
    ),
    "hit_rate": (
        lambda p, by: pr.hit_rate("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.hit_rate(c.ranked, k=p.k, threshold=p.threshold),
    ),
    "r_precision": (
        lambda p, by: pr.r_precision("rel", threshold=p.threshold, **by),
        lambda c, p: ref.r_precision(c.ranked, c.unretrieved, threshold=p.threshold),
    ),
    "rbp": (
        lambda p, by: pr.rbp("rel", p.p, k=p.k, threshold=p.threshold, **by),
        lambda c, p: ref.rbp(c.ranked, p=p.p, k=p.k, threshold=p.threshold),
    ),
    "gm_map": (  # per list it is AP; the geometric mean is over queries
        lambda p, by: pr.gm_map("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.average_precision(c.ranked, c.unretrieved, k=p.k, threshold=p.threshold),
    ),
    "hits": (
        lambda p, by: pr.hits("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.hits(c.ranked, k=p.k, threshold=p.threshold),
    ),
    "num_ret": (
        lambda p, by: pr.num_ret("rel", **by),
        lambda c, p: float(len(c.ranked)),
    ),
    "num_rel": (
        lambda p, by: pr.num_rel("rel", threshold=p.threshold, **by),
        lambda c, p: ref.num_rel(c.ranked, c.unretrieved, threshold=p.threshold),
    ),
    "num_rel_ret": (
        lambda p, by: pr.num_rel_ret("rel", threshold=p.threshold, **by),
        lambda c, p: ref.hits(c.ranked, threshold=p.threshold),
    ),
    "num_nonrel_judged_ret": (
        lambda p, by: pr.num_nonrel_judged_ret("rel", threshold=p.threshold, **by),
        lambda c, p: ref.num_nonrel_judged_ret(c.ranked, threshold=p.threshold),
    ),
    "iprec_at_recall": (  # the recall level from p (0.5, 0.8, 0.95) and from k
        lambda p, by: pr.iprec_at_recall("rel", _level(p), threshold=p.threshold, **by),
        lambda c, p: ref.iprec_at_recall(c.ranked, c.unretrieved, _level(p), p.threshold),
    ),
    "eleven_point_average": (
        lambda p, by: pr.eleven_point_average("rel", threshold=p.threshold, **by),
        lambda c, p: ref.eleven_point_average(c.ranked, c.unretrieved, p.threshold),
    ),
    "gm_bpref": (  # per list it is bpref
        lambda p, by: pr.gm_bpref("rel", threshold=p.threshold, **by),
        lambda c, p: ref.bpref(c.ranked, c.unretrieved, threshold=p.threshold),
    ),
    "unjudged": (
        lambda p, by: pr.unjudged("rel", p.k or 10, **by),
        lambda c, p: ref.unjudged(c.ranked, p.k or 10),
    ),
    "rbp_residual": (
        lambda p, by: pr.rbp_residual("rel", p.p, **by),
        lambda c, p: ref.rbp_residual(c.ranked, p.p),
    ),
    # without pooled=: every unjudged row is out of the pool (test_judgments.py: in it)
    "infap": (
        lambda p, by: pr.infap("rel", threshold=p.threshold, **by),
        lambda c, p: ref.infap(_codes(c), int(ref.num_rel(c.ranked, c.unretrieved, p.threshold)),
                               p.threshold),
    ),
    "judged": (
        lambda p, by: pr.judged("rel", p.k, **by),
        lambda c, p: ref.judged(_codes(c), p.k),
    ),
    "relstring": (
        lambda p, by: pr.relstring("rel", p.k, **by),
        lambda c, p: ref.relstring(_codes(c), p.k),  # a string: same() compares it
    ),
    "relative_precision": (
        lambda p, by: pr.relative_precision("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.relative_precision(c.ranked, c.unretrieved, p.k, p.threshold),
    ),
    "r_precision_multiple": (  # x from p: 0.5, 0.8 or 0.95 times 2
        lambda p, by: pr.r_precision_multiple("rel", 2 * p.p, threshold=p.threshold, **by),
        lambda c, p: ref.r_precision_multiple(c.ranked, c.unretrieved, 2 * p.p, p.threshold),
    ),
    "utility": (
        lambda p, by: pr.utility("rel", (1, -2, 0.5, 0.25), num_docs=30, threshold=p.threshold,
                                 **by),
        lambda c, p: ref.utility(c.ranked, c.unretrieved, (1, -2, 0.5, 0.25), 30, p.threshold),
    ),
    "set_map": (
        lambda p, by: pr.set_map("rel", threshold=p.threshold, **by),
        lambda c, p: ref.set_map(c.ranked, c.unretrieved, p.threshold),
    ),
    "bpref": (
        lambda p, by: pr.bpref("rel", threshold=p.threshold, **by),
        lambda c, p: ref.bpref(c.ranked, c.unretrieved, threshold=p.threshold),
    ),
    "rank_correlation": (
        lambda p, by: pr.rank_correlation("rel", **by),
        lambda c, p: ref.rank_correlation(c.ranked),
    ),
    "auc": (
        # auc counts a tied pair as one half: no tie policy to pass
        lambda p, by: pr.auc("rel", threshold=p.threshold,
                             **{k: v for k, v in by.items() if k != "ties"}),
        lambda c, p: ref.auc(c.scores, c.ranked, threshold=p.threshold),
    ),
    "ctr": (
        lambda p, by: pr.ctr("rel", p.k, **by),
        lambda c, p: ref.ctr(c.ranked, k=p.k),
    ),
    # the label column plays the clicks (fractional grades are fractional counts)
    "abandonment": (
        lambda p, by: pr.abandonment("rel", p.k, **by),
        lambda c, p: ref.abandonment(c.ranked, k=p.k),
    ),
    "first_click_rr": (
        lambda p, by: pr.first_click_rr("rel", p.k, **by),
        lambda c, p: ref.first_click_rr(c.ranked, k=p.k),
    ),
    "clicks_per_query": (
        lambda p, by: pr.clicks_per_query("rel", p.k, **by),
        lambda c, p: ref.clicks_per_query(c.ranked, k=p.k),
    ),
    # ir_measures' measures (cwl_eval's C/W/L, compat, accuracy): labels 0..4 scaled by
    # min_rel (0, or 1 with threshold 2) and max_rel 4; T and p from p
    "sdcg": (
        lambda p, by: pr.sdcg("rel", p.k or 10, max_rel=4, min_rel=_low(p), **by),
        lambda c, p: ref.sdcg(c.ranked, p.k or 10, _low(p), 4),
    ),
    "inst": (
        lambda p, by: pr.inst("rel", max_rel=4, target=4 * p.p, min_rel=_low(p), **by),
        lambda c, p: ref.inst(c.ranked, 4 * p.p, _low(p), 4),
    ),
    "insq": (
        lambda p, by: pr.insq("rel", max_rel=4, target=4 * p.p, min_rel=_low(p), **by),
        lambda c, p: ref.insq(c.ranked, 4 * p.p, _low(p), 4),
    ),
    "bpm": (
        lambda p, by: pr.bpm("rel", p.k or 10, max_rel=4, target=2 * p.p, min_rel=_low(p),
                             **by),
        lambda c, p: ref.bpm(c.ranked, p.k or 10, 2 * p.p, _low(p), 4),
    ),
    "nerr8": (
        lambda p, by: pr.nerr8("rel", p.k or 10, max_rel=4, min_rel=_low(p), **by),
        lambda c, p: ref.nerr(c.ranked, 8, _low(p), 4, k=p.k or 10),
    ),
    "nerr9": (
        lambda p, by: pr.nerr9("rel", p.k or 10, max_rel=4, min_rel=_low(p), **by),
        lambda c, p: ref.nerr(c.ranked, 9, _low(p), 4, k=p.k or 10),
    ),
    "nerr10": (
        lambda p, by: pr.nerr10("rel", max_rel=4, p=p.p, min_rel=_low(p), **by),
        lambda c, p: ref.nerr(c.ranked, 10, _low(p), 4, p=p.p),
    ),
    "nerr11": (
        lambda p, by: pr.nerr11("rel", max_rel=4, target=4 * p.p, min_rel=_low(p), **by),
        lambda c, p: ref.nerr(c.ranked, 11, _low(p), 4, target=4 * p.p),
    ),
    "compat": (
        lambda p, by: pr.compat("rel", p=p.p, normalize=p.gain == "linear", **by),
        lambda c, p: ref.compat(c.ranked, c.unretrieved, p.p, p.gain == "linear"),
    ),
    "accuracy": (
        lambda p, by: pr.accuracy("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.accuracy(c.ranked, p.k, p.threshold),
    ),
    "num_q": (
        lambda p, by: pr.num_q("rel", **by),
        lambda c, p: 1.0,
    ),
    "mean_dwell": (  # here the label column plays the dwell time (null = no click)
        lambda p, by: pr.mean_dwell("rel", p.k, **by),
        lambda c, p: ref.mean_dwell(c.ranked, k=p.k),
    ),
}

# the options other tools' numbers need (issue 22): a value drawn from p
_LOG_BASE = {0.5: 2.0, 0.8: math.e, 0.95: 10.0}
_BETA = {0.5: 0.5, 0.8: 2.0, 0.95: 1.0}


def _binary_level(p: Params) -> float | None:
    return {0.5: p.threshold, 0.8: None, 0.95: 0.0}[p.p]


VARIANTS: dict[str, tuple[ExprFn, OracleFn]] = {
    "rbp_graded": (  # trec_eval 10's rbp
        lambda p, by: pr.rbp("rel", p.p, k=p.k, gain="graded", **by),
        lambda c, p: ref.rbp_graded(c.ranked, c.unretrieved, p=p.p, k=p.k),
    ),
    "rbp_gain_table": (  # trec_eval 10's -m rbp.p=x,1=3,2=9
        lambda p, by: pr.rbp("rel", p.p, k=p.k, gain="graded", gains=_table(p), **by),
        lambda c, p: ref.rbp_gain_table(c.ranked, c.unretrieved, p=p.p, k=p.k,
                                        gains=_table(p)),
    ),
    "rbp_raw": (  # ranx's rbp.95
        lambda p, by: pr.rbp("rel", p.p, k=p.k, threshold=p.threshold, gain="raw", **by),
        lambda c, p: ref.rbp(c.ranked, p=p.p, k=p.k, threshold=p.threshold, gain="raw"),
    ),
    "ndcg_threshold": (  # ranx's ndcg@k-l2
        lambda p, by: pr.ndcg("rel", p.k, gain=p.gain, threshold=p.threshold, **by),
        lambda c, p: ref.ndcg(c.ranked, c.unretrieved, k=p.k, gain=p.gain,  # type: ignore[arg-type]
                              threshold=p.threshold),
    ),
    "ndcg_binary": (  # MS Recommenders' score_type="binary" (threshold 0: every judged row)
        lambda p, by: pr.ndcg("rel", p.k, gain="binary", threshold=_binary_level(p), **by),
        lambda c, p: ref.ndcg(c.ranked, c.unretrieved, k=p.k, gain="binary",
                              threshold=_binary_level(p)),
    ),
    "dcg_log_base": (  # scikit-learn's dcg_score(log_base=)
        lambda p, by: pr.dcg("rel", p.k, gain=p.gain, log_base=_LOG_BASE[p.p], **by),
        lambda c, p: ref.dcg(c.ranked, k=p.k, gain=p.gain,  # type: ignore[arg-type]
                             log_base=_LOG_BASE[p.p]),
    ),
    "average_precision_capped": (  # MS Recommenders' map_at_k, Spark
        lambda p, by: pr.average_precision("rel", p.k, threshold=p.threshold,
                                           denominator="capped", **by),
        lambda c, p: ref.average_precision(c.ranked, c.unretrieved, k=p.k, threshold=p.threshold,
                                           denominator="capped"),
    ),
    "average_precision_retrieved": (  # torchmetrics' RetrievalMAP(top_k=)
        lambda p, by: pr.average_precision("rel", p.k, threshold=p.threshold,
                                           denominator="retrieved", **by),
        lambda c, p: ref.average_precision(c.ranked, c.unretrieved, k=p.k, threshold=p.threshold,
                                           denominator="retrieved"),
    ),
    "precision_adaptive": (  # torchmetrics' RetrievalPrecision(adaptive_k=True)
        lambda p, by: pr.precision("rel", p.k, threshold=p.threshold, adaptive_k=True, **by),
        lambda c, p: ref.precision(c.ranked, k=p.k, threshold=p.threshold, adaptive_k=True),
    ),
    "f_beta": (  # ir_measures' SetF(beta=)
        lambda p, by: pr.f1("rel", p.k, threshold=p.threshold, beta=_BETA[p.p], **by),
        lambda c, p: ref.f1(c.ranked, c.unretrieved, k=p.k, threshold=p.threshold,
                            beta=_BETA[p.p]),
    ),
    "r_precision_at_k": (  # MS Recommenders' r_precision_at_k
        lambda p, by: pr.r_precision("rel", p.k, threshold=p.threshold, **by),
        lambda c, p: ref.r_precision(c.ranked, c.unretrieved, threshold=p.threshold, k=p.k),
    ),
}
METRICS.update(VARIANTS)

# the references rank tied rows in row order: ties="first", asked for by name (the
# default is the expected value over tie orders: tests/test_ties.py)
BY_SCORE: Ranking = {"by": "score", "ties": "first"}
BY_RANK: Ranking = {"by": "rank", "descending": False, "ties": "first"}
BY_ROW_ORDER: Ranking = {"by": None}

# pinned edge cases, run for every metric
EMPTY: list[Row] = []
ALL_UNRETRIEVED: list[Row] = [(1, None), (0, None), (None, None), (3, None)]
SINGLE_RELEVANT: list[Row] = [(2, 1.0)]
SINGLE_UNJUDGED: list[Row] = [(None, 0.5)]
ALL_TIES: list[Row] = [(0, 1.0), (2, 1.0), (None, 1.0), (1.5, 1.0), (4, 1.0), (0, 1.0)]
TIES_AND_MISSES: list[Row] = [(0, 2.0), (3, 0.5), (1, 2.0), (2, None), (None, 0.5), (1, -1.0)]
SIGNED_ZERO: list[Row] = [(0, 0.0), (1, -0.0), (2, 0.0), (None, -0.0)]  # -0.0 == 0.0: a tie


def pinned(test: Callable[..., None]) -> Callable[..., None]:
    """Pin the edge cases with a few parameter combinations."""
    cases = [
        (EMPTY, Params()),
        (EMPTY, Params(k=3, threshold=2)),
        (ALL_UNRETRIEVED, Params()),
        (ALL_UNRETRIEVED, Params(k=1, gain="linear", threshold=0.5)),
        (SINGLE_RELEVANT, Params()),
        (SINGLE_RELEVANT, Params(k=20, threshold=2, p=0.5, int_labels=True)),
        (SINGLE_UNJUDGED, Params(k=1)),
        (ALL_TIES, Params()),
        (ALL_TIES, Params(k=2, gain="linear", threshold=2, p=0.95)),
        (TIES_AND_MISSES, Params(k=3)),
        (TIES_AND_MISSES, Params(threshold=0.5, int_labels=True)),
        (SIGNED_ZERO, Params(k=2)),
    ]
    for rows, params in reversed(cases):
        test = example(rows=rows, params=params)(test)
    return test


# ---------------------------------------------------------------------------- tests
@pytest.mark.parametrize("name", list(METRICS))
@settings(max_examples=examples(25), deadline=None)
@given(rows=rows_st, params=params_st)
@pinned
def test_metric_matches_reference(name: str, rows: list[Row], params: Params) -> None:
    build, oracle = METRICS[name]
    case = Case(rows)
    got = frame(rows, params).select(build(params, BY_SCORE)).item()
    expected = oracle(case, params)
    assert same(got, expected), f"{name}: got {got!r}, reference {expected!r} ({params})"


def test_every_public_metric_is_covered() -> None:
    aliases = {"map", "mrr"}
    # the intent-aware metrics read one row per (document, subtopic), not these lists:
    # tests/test_intents.py checks them against pyndeval and reference.ndeval
    intent_aware = {m.function.__name__ for m in REGISTRY.values() if m.subtopics}
    public = set(pr.metrics.__all__) - aliases - intent_aware
    assert public == set(METRICS) - set(VARIANTS)


@settings(max_examples=examples(12), deadline=None)
@given(rows=rows_st, params=params_st)
@pinned
def test_ascending_rank_column_equals_score(rows: list[Row], params: Params) -> None:
    """``by=rank, descending=False`` (competition ranks, ties kept) is the score ranking."""
    df = frame(rows, params)
    case = Case(rows)
    by_rank = df.select(
        build(params, BY_RANK).alias(name) for name, (build, _) in METRICS.items()
    ).row(0, named=True)
    by_score = df.select(
        build(params, BY_SCORE).alias(name) for name, (build, _) in METRICS.items()
    ).row(0, named=True)
    for name, (_, oracle) in METRICS.items():
        expected = oracle(case, params)
        assert same(by_rank[name], by_score[name]), (name, by_rank[name], by_score[name])
        assert same(by_rank[name], expected), (name, by_rank[name], expected)


@settings(max_examples=examples(12), deadline=None)
@given(rows=rows_st, params=params_st)
@pinned
def test_row_order_ranking(rows: list[Row], params: Params) -> None:
    """``by=None``: a frame of retrieved rows in rank order is the ranked list itself."""
    case = Case(rows)
    ranked_only = Case([(label, score) for label, score in case.retrieved])
    df = row_order_frame(case, params)
    got = df.select(
        build(params, BY_ROW_ORDER).alias(name) for name, (build, _) in METRICS.items()
    ).row(0, named=True)
    for name, (_, oracle) in METRICS.items():
        if name == "auc":
            # row order: the first row is best, every row a distinct position
            positions = [float(-i) for i in range(len(ranked_only.ranked))]
            expected = ref.auc(positions, ranked_only.ranked, threshold=params.threshold)
        else:
            expected = oracle(ranked_only, params)
        assert same(got[name], expected), (name, got[name], expected)


secondary_st: st.SearchStrategy[int | None] = st.one_of(st.none(), st.integers(0, 2))


def _key_order(values: list[float | int | None], descending: bool) -> list[int]:
    """Row indices sorted by one key, nulls last, ties in input order."""
    present = [i for i, v in enumerate(values) if v is not None]
    # stable both ways: reverse=True keeps equal keys in input order as well
    present.sort(key=lambda i: values[i], reverse=descending)  # type: ignore[arg-type, return-value]
    return present + [i for i, v in enumerate(values) if v is None]


@settings(max_examples=examples(12), deadline=None)
@given(
    rows=st.lists(st.tuples(labels_st, scores_st, secondary_st, secondary_st), max_size=12),
    params=params_st,
    direction=st.sampled_from(["descending", "ascending", "mixed"]),
)
def test_several_ranking_keys(
    rows: list[tuple[Label, float | None, int | None, int | None]],
    params: Params,
    direction: str,
) -> None:
    """``by=[score, a, b]``: lexicographic, every key nulls last, ties in input order.

    The oracle sorts the retrieved rows (score not null) by ``b``, then ``a``, then the
    score, each sort stable, which is the lexicographic order; in one ``select`` and
    in a ``group_by`` (where several keys in one direction sort as one struct key).
    """
    descending = {"descending": [True] * 3, "ascending": [False] * 3,
                  "mixed": [True, False, True]}[direction]
    order = list(range(len(rows)))
    for column in (3, 2, 1):
        values = [rows[i][column] for i in order]
        order = [order[i] for i in _key_order(values, descending[column - 1])]
    retrieved = [rows[i][0] for i in order if rows[i][1] is not None]
    unretrieved = [label for label, score, _, _ in rows if score is None]
    # the oracle's list: the order above, as distinct decreasing scores
    case = Case([(label, float(len(retrieved) - p)) for p, label in enumerate(retrieved)]
                + [(label, None) for label in unretrieved])
    df = pl.DataFrame(
        [
            label_column([row[0] for row in rows], params),
            pl.Series("score", [row[1] for row in rows], pl.Float64),
            pl.Series("a", [row[2] for row in rows], pl.Int64),
            pl.Series("b", [None if row[3] is None else f"d{row[3]}" for row in rows], pl.String),
        ]
    )
    ranking: Ranking = {"by": ["score", "a", "b"], "descending": descending, "ties": "first"}
    names = [name for name in METRICS if name != "auc"]  # auc reads the score alone
    exprs = [METRICS[name][0](params, ranking).alias(name) for name in names]
    in_select = df.select(exprs).row(0, named=True)
    # an empty frame has no group (Polars 1.x) or one (2.x): groups of non-empty frames
    in_group = df.group_by(pl.lit(0).alias("g")).agg(exprs).drop("g") if rows else None
    for name in names:
        expected = METRICS[name][1](case, params)
        assert same(in_select[name], expected), (name, in_select[name], expected)
        if in_group is not None:
            got = in_group.row(0, named=True)[name]
            assert same(got, expected), (name, got, expected)


# ---------------------------------------------------------------------------- namespace
FAMILIES = {
    "gain": ["dcg", "ndcg", "err"],
    "binary": [
        "precision",
        "recall",
        "f1",
        "average_precision",
        "map",
        "reciprocal_rank",
        "mrr",
        "hit_rate",
        "r_precision",
        "rbp",
        "bpref",
    ],
    "pairwise": ["rank_correlation", "auc"],
    "clicks": ["ctr", "abandonment", "first_click_rr", "clicks_per_query", "mean_dwell"],
}


def namespace_pair(name: str, params: Params) -> tuple[pl.Expr, pl.Expr]:
    """(function form, namespace form) of one metric with the same arguments."""
    ranking = {"by": "score", "query": "qid"}
    kwargs: dict[str, object] = {}
    args: tuple[object, ...] = ()
    if name in ("dcg", "ndcg"):
        args, kwargs = (params.k,), {"gain": params.gain}
    elif name == "err":
        args, kwargs = (params.k,), {"max_grade": 4}
    elif name in ("r_precision", "bpref"):
        kwargs = {"threshold": params.threshold}
    elif name == "rbp":
        args, kwargs = (params.p,), {"k": params.k, "threshold": params.threshold}
    elif name == "rank_correlation":
        pass
    elif name == "auc":
        kwargs = {"threshold": params.threshold}
    elif name in ("ctr", "abandonment", "first_click_rr", "clicks_per_query", "mean_dwell"):
        args = (params.k,)
    else:
        args, kwargs = (params.k,), {"threshold": params.threshold}
    function = getattr(pr, name)("rel", *args, **kwargs, **ranking)
    method = getattr(pl.col("rel").rank, name)(*args, **kwargs, **ranking)
    return function, method


queries_st = st.lists(st.tuples(st.integers(0, 3), labels_st, scores_st), max_size=20)


@pytest.mark.parametrize("family", list(FAMILIES))
@settings(max_examples=examples(15), deadline=None)
@given(rows=queries_st, params=params_st)
def test_namespace_equals_function(
    family: str, rows: list[tuple[int, Label, float | None]], params: Params
) -> None:
    df = pl.DataFrame(
        {
            "qid": [q for q, _, _ in rows],
            "rel": [label for _, label, _ in rows],
            "score": [score for _, _, score in rows],
        },
        schema={"qid": pl.Int64, "rel": pl.Float64, "score": pl.Float64},
    )
    for name in FAMILIES[family]:
        function, method = namespace_pair(name, params)
        via_function, via_method = df.select(function, method.alias("method")).row(0)
        assert same(via_method, via_function), (name, via_method, via_function)
        per_query = df.group_by("qid").agg(function, method.alias("method"))
        for _, a, b in per_query.iter_rows():
            assert same(b, a), (name, b, a)


# ---------------------------------------------------------------------------- positions mode
def positioned(rows: list[Row], params: Params, *, sparse: bool) -> pl.DataFrame:
    """``frame`` with each row's position (``ties="first"``) and its score's tie spans.

    ``sparse``: as :func:`polars_rank.ranked` keeps them, only the judged rows and the
    last retrieved row (positions mode reads a list's length as its largest rank).
    """
    df = frame(rows, params).with_columns(
        pos=pl.col("score").rank("ordinal", descending=True).cast(pl.Int64),
        first=pl.col("score").rank("min", descending=True).cast(pl.Int64),
        last=pl.col("score").rank("max", descending=True).cast(pl.Int64),
    )
    if sparse:
        df = df.filter(pl.col("rel").is_not_null() | (pl.col("pos") == pl.col("pos").max()))
    return df


@pytest.mark.parametrize("sparse", [False, True], ids=["every row", "judged rows"])
@pytest.mark.parametrize("name", list(METRICS))
@settings(max_examples=examples(25), deadline=None)
@given(rows=rows_st, params=params_st)
@pinned
def test_positions_mode_matches_reference(name: str, sparse: bool, rows: list[Row],
                                          params: Params) -> None:
    """``rank=`` (positions from a ranking step) gives the oracle's values, also from
    the judged rows alone; AUC reads tie spans (a tied pair counts one half)."""
    build, oracle = METRICS[name]
    ranking: Ranking = {"rank": ("first", "last") if name == "auc" else "pos"}
    got = positioned(rows, params, sparse=sparse).select(build(params, ranking)).item()
    expected = oracle(Case(rows), params)
    assert same(got, expected), f"{name}: got {got!r}, reference {expected!r} ({params})"


def test_positions_mode_flags_what_is_not_a_position() -> None:
    """A position below 1, a fraction, or repeated positions (dense ranks) give NaN."""
    base = {"rel": [1.0, 0.0, 1.0]}
    for ranks in ([0, 1, 2], [1.5, 2.0, 3.0], [1, 1, 2]):
        df = pl.DataFrame({**base, "pos": ranks})
        assert math.isnan(df.select(pr.ndcg("rel", rank="pos")).item()), ranks
    ok = pl.DataFrame({**base, "pos": [3, 1, None]})  # a judged row not retrieved: fine
    assert ok.select(pr.precision("rel", rank="pos")).item() == 1 / 3


def test_positions_mode_needs_one_ranking() -> None:
    with pytest.raises(ValueError, match=r"either by= .* or rank="):
        pr.ndcg("rel", by="score", rank="pos")
    with pytest.raises(ValueError, match="ranking step decides ties"):
        pr.ndcg("rel", rank="pos", ties="expected")
    with pytest.raises(TypeError, match="rank must be a column"):
        pr.ndcg("rel", rank=("a", "b", "c"))  # type: ignore[arg-type]
