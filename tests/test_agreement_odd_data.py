"""Odd data at every entry point of polars_rank.agreement: a number that is right, or an
error naming the rule, the column and the row -- never a Polars traceback.

One regression test per problem found by trying the entry points as a demanding user.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from polars_rank._engine.column_types import PLAN_HOOK
from polars_rank.agreement import (
    cohen_kappa,
    compare_uncertain,
    confusion,
    discriminative_power,
    evaluate_uncertain,
    fleiss_kappa,
    join_rankings,
    krippendorff_alpha,
    label_distribution,
    label_draws,
    leaderboard_agreement,
    leaderboard_bootstrap,
    ranking_similarity,
    raw_agreement,
    rbo,
    swapped_pairs,
    tau_ap,
)
from polars_rank.errors import InvalidDataError

pd = pytest.importorskip("pandas")

JUDGED = pl.DataFrame({"qid": [1] * 4 + [2] * 4,
                       "docid": ["a", "a", "b", "b"] * 2,
                       "judge": ["x", "y"] * 4,
                       "rel": [1, 1, 0, 0, 1, 0, 1, 1]})
BOARD = pl.DataFrame({"system": ["a", "b", "c"] * 3, "qid": [1, 1, 1, 2, 2, 2, 3, 3, 3],
                      "x": [0.5, 0.4, 0.1, 0.3, 0.2, 0.9, 0.6, 0.1, 0.2],
                      "y": [0.1, 0.4, 0.5, 0.3, 0.2, 0.1, 0.2, 0.3, 0.1]})
RUN = pl.DataFrame({"qid": [1, 1, 1], "docid": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
LABELS = pl.DataFrame({"qid": [1, 1, 1], "docid": ["a", "a", "b"], "grade": [0, 1, 1],
                       "probability": [0.4, 0.6, 1.0]})
TWO_ARMS = pl.concat([RUN.with_columns(arm=pl.lit("A")),
                      RUN.with_columns(arm=pl.lit("B"), score=-pl.col("score"))])


# pandas input: evaluate() reads pandas, and so do the judges; the leaderboards,
# join_rankings and the uncertain labels refused it with a TypeError.
@pytest.mark.parametrize("call", [
    lambda f: leaderboard_agreement(f, value=["x", "y"], n_resamples=50),
    lambda f: swapped_pairs(f, value=["x", "y"]),
    lambda f: leaderboard_bootstrap(f, value="x", n_resamples=50),
    lambda f: discriminative_power(f, metrics=["x", "y"], n_resamples=50),
])
def test_leaderboards_read_pandas(call: object) -> None:
    assert callable(call)
    assert_frame_equal(call(BOARD.to_pandas()), call(BOARD))
    assert_frame_equal(call(BOARD.lazy()), call(BOARD))


def test_join_rankings_and_uncertain_read_pandas() -> None:
    assert_frame_equal(join_rankings(RUN.to_pandas(), RUN.to_pandas()),
                       join_rankings(RUN, RUN))
    assert_frame_equal(evaluate_uncertain(RUN.to_pandas(), LABELS.to_pandas(), "ndcg@10").mean,
                       evaluate_uncertain(RUN, LABELS, "ndcg@10").mean)
    assert_frame_equal(label_distribution(LABELS.to_pandas()), label_distribution(LABELS))
    draws = label_draws(TWO_ARMS, LABELS, "ndcg@10", samples=5, arm="arm")
    assert_frame_equal(compare_uncertain(draws.to_pandas(), baseline="A", n_resamples=50),
                       compare_uncertain(draws, baseline="A", n_resamples=50))


# join_rankings: a NaN score was ranked (silently, by document id), a null document
# was "two rows for document None", ids of two types were a Polars SchemaError.
def test_join_rankings_bad_runs() -> None:
    with pytest.raises(InvalidDataError, match=r"run_a: column 'score' \(by=\) holds NaN "
                                               r"for query 1, document 'a'"):
        join_rankings(RUN.with_columns(score=pl.lit(float("nan"))), RUN)
    with pytest.raises(InvalidDataError, match="run_b: column 'docid' has null values"):
        join_rankings(RUN, RUN.with_columns(docid=pl.lit(None, pl.String)))
    with pytest.raises(InvalidDataError, match="column 'qid' is String in run_a but Int64"):
        join_rankings(RUN.with_columns(pl.col("qid").cast(pl.String)), RUN)
    with pytest.raises(ValueError, match=r"names=\('qid', 'x'\) would overwrite"):
        join_rankings(RUN, RUN, names=("qid", "x"))  # was a Polars DuplicateError


# judges: fleiss_kappa of no labels was an OutOfBoundsError; a query or slice column
# named like a result column was a DuplicateError; null ids named no row.
def test_judges_empty_and_name_clashes() -> None:
    with pytest.raises(InvalidDataError, match="fleiss_kappa: no judgment with a label"):
        fleiss_kappa(JUDGED.clear(), n_resamples=0)
    with pytest.raises(InvalidDataError, match=r"judges: none \(no row with a label\)"):
        cohen_kappa(JUDGED.clear(), "x", "y", n_resamples=0)
    with pytest.raises(ValueError, match=r"column 'n_items' .* is a name the result"):
        cohen_kappa(JUDGED.rename({"qid": "n_items"}), "x", "y", query="n_items",
                    per_query=True)
    with pytest.raises(ValueError, match=r"column 'kappa' .* is a name the result"):
        fleiss_kappa(JUDGED.with_columns(kappa=1), group_by="kappa", n_resamples=0)
    nulls = JUDGED.with_columns(qid=pl.when(pl.col("docid") == "b").then(None)
                                .otherwise(pl.col("qid")))
    with pytest.raises(InvalidDataError, match=r"column 'qid' has null values \(4, e.g. at "
                                               r"docid='b', judge='x'\)"):
        raw_agreement(nulls, n_resamples=0)


def test_labels_not_of_the_label_type() -> None:
    # labels=[0.5, 1] on integer labels was read as [0, 1]: a plausible wrong kappa
    with pytest.raises(ValueError, match=r"labels=\[0.5, 1\] are not all values of column"):
        cohen_kappa(JUDGED, "x", "y", labels=[0.5, 1], n_resamples=0)
    ok = cohen_kappa(JUDGED, "x", "y", labels=[0, 1], n_resamples=0)
    assert_frame_equal(ok, cohen_kappa(JUDGED, "x", "y", n_resamples=0))
    # labels=["0", "1"] on integer labels was accepted silently (cast to the column's type)
    with pytest.raises(ValueError, match=r"labels=\['0', '1'\] do not match column 'rel' "
                                         r"\(Int64\): give them as numbers"):
        cohen_kappa(JUDGED, "x", "y", labels=["0", "1"], n_resamples=0)
    with pytest.raises(ValueError, match=r"labels=\[0, '1'\] do not match"):
        confusion(JUDGED, "x", "y", labels=[0, "1"])
    # numbers on text labels: the message says what to give (was "read as ['0', '1']")
    text = JUDGED.with_columns(pl.col("rel").cast(pl.String))
    with pytest.raises(ValueError, match=r"labels=\[0, 1\] do not match column 'rel' "
                                         r"\(String\): give them as text.*\['0', '1'\]"):
        cohen_kappa(text, "x", "y", labels=[0, 1], n_resamples=0)
    assert_frame_equal(cohen_kappa(text, "x", "y", labels=["0", "1"], n_resamples=0), ok)


def test_perfect_agreement_against_the_references() -> None:
    sklearn = pytest.importorskip("sklearn.metrics")
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    krippendorff = pytest.importorskip("krippendorff")
    same = JUDGED.with_columns(rel=pl.lit(1))  # one label: chance agreement is perfect
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a single label; 0/0
        assert np.isnan(sklearn.cohen_kappa_score([1] * 4, [1] * 4))
        assert np.isnan(inter_rater.fleiss_kappa(np.array([[2, 0]] * 4), method="fleiss"))
    with pytest.raises(ValueError, match="more than one value"):
        krippendorff.alpha(np.ones((2, 4)), level_of_measurement="nominal")
    # here: null (documented), the interval too, whatever the bootstrap draws
    assert cohen_kappa(same, "x", "y", n_resamples=20).row(0)[2:] == (None, None, None)
    assert fleiss_kappa(same, n_resamples=20)["kappa"].to_list() == [None]
    alpha = krippendorff_alpha(same, level_of_measurement="nominal", n_resamples=20)
    assert alpha["alpha"].to_list() == [None]
    assert raw_agreement(same, n_resamples=0)["agreement"].to_list() == [1.0]
    # two labels, every item agreed: 1 everywhere, as the references
    agreed = JUDGED.filter(pl.col("qid") == 1)
    assert sklearn.cohen_kappa_score([1, 0], [1, 0]) == 1.0
    assert cohen_kappa(agreed, "x", "y", n_resamples=0)["kappa"].item() == 1.0
    assert fleiss_kappa(agreed, n_resamples=0)["kappa"].item() == 1.0


def test_ids_lossy_as_floats_stay_apart() -> None:
    big = 2**53 + 1  # float64(big) == float64(big - 1)
    frame = pl.DataFrame({"qid": [big, big, big - 1, big - 1], "docid": ["a"] * 4,
                          "judge": ["x", "y"] * 2, "rel": [1, 1, 0, 1]})
    for data in (frame, frame.to_pandas()):
        out = cohen_kappa(data, "x", "y", per_query=True)
        assert out["qid"].to_list() == [big - 1, big]
        assert out["n_items"].to_list() == [1, 1]
        board = pl.DataFrame({"system": ["s", "t"] * 2, "qid": [big, big, big - 1, big - 1],
                              "value": [1.0, 0.0, 0.0, 0.5]})
        assert leaderboard_bootstrap(board, n_resamples=10)["mean"].to_list() == [0.5, 0.25]


# leaderboards: two systems tied exactly gave kendall_tau NaN and a NumPy "All-NaN
# slice" warning; null systems were "two rows for system None"; system == query was a
# Polars DuplicateError; a null condition was "needs two systems (condition=None)".
def test_leaderboard_ties_and_nulls() -> None:
    from scipy.stats import kendalltau

    tied = pl.DataFrame({"system": ["a", "b"] * 2, "qid": [1, 1, 2, 2],
                         "x": [0.5, 0.5, 0.3, 0.3], "y": [0.1, 0.2, 0.3, 0.4]})
    assert np.isnan(kendalltau([0.4, 0.4], [0.2, 0.3]).statistic)
    out = leaderboard_agreement(tied, value=["x", "y"], n_resamples=50)
    assert out.select("kendall_tau", "kendall_tau_low", "kendall_tau_high").row(0) == (
        None, None, None)
    # tau_AP orders tied systems by name (a before b), which y reverses
    assert out["tau_ap"].item() == -1.0
    assert out["n_swaps"].item() == 1  # a tie under one condition only is a change
    both = leaderboard_agreement(tied, value=["x", "x"], n_resamples=50)
    assert both.select("kendall_tau", "tau_ap", "n_swaps").row(0) == (None, 1.0, 0)
    with pytest.raises(InvalidDataError, match=r"column 'system' has null values \(3"):
        swapped_pairs(BOARD.with_columns(system=pl.when(pl.col("qid") == 1).then(None)
                                         .otherwise(pl.col("system"))), value=["x", "y"])
    with pytest.raises(ValueError, match="system= and query= name one column 'qid'"):
        swapped_pairs(BOARD, value=["x", "y"], system="qid")
    long = BOARD.unpivot(["x", "y"], index=["system", "qid"], variable_name="condition")
    with pytest.raises(InvalidDataError, match="column 'condition' has null values"):
        leaderboard_agreement(long.with_columns(condition=pl.when(pl.col("qid") == 2)
                                                .then(None).otherwise(pl.col("condition"))))


# uncertain labels: a null document in the run was "duplicate rows", run and labels ids
# of two types were a Polars SchemaError; compare_uncertain took NaN draws (NaN out) and
# called duplicate draws "missing rows".
def test_uncertain_bad_inputs() -> None:
    with pytest.raises(InvalidDataError, match="the run has a null in column 'docid'"):
        evaluate_uncertain(RUN.with_columns(docid=pl.lit(None, pl.String)), LABELS, "ndcg@10")
    with pytest.raises(InvalidDataError, match="column 'qid' is String in the run but Int64"):
        label_draws(RUN.with_columns(pl.col("qid").cast(pl.String)), LABELS, "ndcg@10")
    draws = label_draws(TWO_ARMS, LABELS, "ndcg@10", samples=5, arm="arm")
    with pytest.raises(InvalidDataError, match="column 'ndcg@10' holds a null or non-finite "
                                               "value, first at arm='A', qid=1, draw=0"):
        compare_uncertain(draws.with_columns(pl.lit(float("nan")).alias("ndcg@10")),
                          baseline="A", n_resamples=50)
    with pytest.raises(InvalidDataError, match="two rows for arm='A', qid=1, draw=0"):
        compare_uncertain(pl.concat([draws, draws]), baseline="A", n_resamples=50)


_SCRIPT = textwrap.dedent("""
    import polars as pl
    from polars_rank.agreement import cohen_kappa, krippendorff_alpha, leaderboard_agreement
    from polars_rank.agreement import label_draws

    def results(judged, board, run, labels):
        return [cohen_kappa(judged, "x", "y", n_resamples=200, seed=3),
                krippendorff_alpha(judged, level_of_measurement="interval",
                                   n_resamples=200, seed=3),
                leaderboard_agreement(board, value=["x", "y"], n_resamples=200, seed=3),
                label_draws(run, labels, "ndcg@10", samples=20, seed=3).sort("draw")]
""")


def _inputs() -> tuple[pl.DataFrame, ...]:
    rng = np.random.default_rng(0)
    judged = pl.DataFrame({"qid": np.repeat(np.arange(30), 6), "docid": np.tile(
        np.repeat(np.arange(3), 2), 30), "judge": ["x", "y"] * 90,
        "rel": rng.integers(0, 3, 180)})
    return judged, BOARD, RUN, LABELS


def test_threads_row_order_and_repetition_give_the_same_bits(tmp_path: Path) -> None:
    namespace: dict[str, object] = {}
    exec(_SCRIPT, namespace)  # the same code in and out of process
    results = namespace["results"]
    assert callable(results)
    inputs = _inputs()
    first = results(*inputs)
    again = results(*inputs)
    shuffled = results(*(f.sample(fraction=1.0, shuffle=True, seed=1) for f in inputs))
    for path, frame in zip(("j", "b", "r", "l"), inputs, strict=True):
        frame.write_ipc(tmp_path / f"{path}.arrow")
    code = _SCRIPT + textwrap.dedent(f"""
        import sys
        base = {str(tmp_path)!r}
        out = results(*(pl.read_ipc(base + "/" + p + ".arrow") for p in "jbrl"))
        for i, frame in enumerate(out):
            frame.write_ipc(base + f"/out{{i}}.arrow")
    """)
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "POLARS_MAX_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=root, timeout=120)
    for i, frame in enumerate(first):
        assert_frame_equal(again[i], frame, check_exact=True)
        assert_frame_equal(shuffled[i], frame, check_exact=True)
        assert_frame_equal(pl.read_ipc(tmp_path / f"out{i}.arrow"), frame, check_exact=True)


# leaderboard_bootstrap broke equal means by system name: of two identical systems,
# "a" led in every resample (p_first 1.0) and "b" never did; equal sums added in
# another order were told apart by rounding.
def test_bootstrap_ties_share_a_position() -> None:
    board = pl.DataFrame({"system": ["b", "a", "c"] * 3, "qid": [1, 1, 1, 2, 2, 2, 3, 3, 3],
                          "value": [0.1, 0.1, 0.3, 0.2, 0.2, 0.2, 0.3, 0.3, 0.1]})
    out = leaderboard_bootstrap(board, n_resamples=200)
    assert out["position"].to_list() == [1, 1, 1]  # every mean is 0.6 / 3
    shares = dict(out.select("system", "p_first").iter_rows())
    assert shares["a"] == shares["b"] < 1.0
    dist = leaderboard_bootstrap(board, n_resamples=200, distribution=True)
    a = dist.filter(pl.col("system") == "a").drop("system")
    assert_frame_equal(a, dist.filter(pl.col("system") == "b").drop("system"))
    assert set(dist["position"]) <= {1, 2, 3}
    totals = dist.group_by("system").agg(pl.col("share").sum())["share"].to_list()
    assert np.allclose(totals, 1.0)
    # a resample's positions by hand: 1 + the systems with a strictly higher mean
    from polars_rank.agreement._leaderboards.bootstrap import shared_positions

    means = np.array([[0.5, 0.2, 0.5, 0.1], [0.3, 0.3, 0.3, 0.3], [0.1, 0.2, 0.3, 0.4]])
    want = 1 + (means[:, None, :] > means[:, :, None]).sum(axis=-1)
    assert (shared_positions(means) == want).all()


def test_discriminative_power_without_metrics() -> None:
    # metrics=[] (or a frame with no numeric column) gave an empty frame, silently
    with pytest.raises(ValueError, match="discriminative_power: no metric column"):
        discriminative_power(BOARD, metrics=[])
    with pytest.raises(ValueError, match="no metric column"):
        discriminative_power(BOARD.select("system", "qid"))


def test_text_rank_columns_are_refused_not_ranked_alphabetically() -> None:
    """Ranks "1".."12" as text: sorted as text, "10" and "11" came before "2", and
    ranking_similarity gave RBO 0.635 where the numbers give 0.444. Refused by the rule
    the metrics' ranking keys follow (text ranks alphabetically), naming the column;
    numbers, booleans and dates rank by value, as there."""
    n = 12
    numbers = pl.DataFrame({"qid": [1] * n, "docid": [f"d{i:02d}" for i in range(n)],
                            "rank_a": list(range(1, n + 1)), "rank_b": list(range(n, 0, -1))})
    text = numbers.with_columns(pl.col("rank_b").cast(pl.String))
    with pytest.raises(InvalidDataError, match=r"alphabetically.*the ranking `b` is column "
                                               r"'rank_b', of type String"):
        ranking_similarity(text)
    with pytest.raises(InvalidDataError, match="the ranking `b`"):
        ranking_similarity(text.lazy(), measures=["rbo"])
    if PLAN_HOOK:  # Polars >= 2: the expressions refuse it when the plan is resolved
        for expr in (rbo("rank_a", "rank_b"), tau_ap("rank_a", "rank_b", query="qid")):
            with pytest.raises(InvalidDataError, match="the ranking `b` is column 'rank_b'"):
                text.select(expr)
    want = ranking_similarity(numbers, measures=["rbo"])["rbo"].item()
    assert want == pytest.approx(numbers.select(rbo("rank_a", "rank_b")).item(), abs=1e-15)
    for dtype in (pl.Float32, pl.Date, pl.Decimal(10, 2)):
        cast = numbers.with_columns(pl.col("rank_a", "rank_b").cast(dtype))
        assert ranking_similarity(cast, measures=["rbo"])["rbo"].item() == \
            pytest.approx(want, abs=1e-15)
