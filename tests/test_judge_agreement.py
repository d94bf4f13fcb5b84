"""Agreement between judges against scikit-learn, statsmodels and the krippendorff package.

Random long-format judgments with missing judgments; every statistic to 1e-12 of its
reference, per query, per slice and overall; the bootstrap reproduced by hand from
the same seed; row order irrelevant; bad input named.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import warnings
import zlib
from typing import TYPE_CHECKING, Any

import krippendorff
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score, confusion_matrix
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from polars_rank.agreement import (
    cohen_kappa,
    confusion,
    fleiss_kappa,
    krippendorff_alpha,
    raw_agreement,
)
from polars_rank.errors import InvalidDataError
from tests.budget import examples

if TYPE_CHECKING:
    from collections.abc import Iterator

TOL = 1e-12
JUDGES = ["ann", "bob", "llm", "zoe"]


@st.composite
def judgments(draw: st.DrawFn, *, complete: bool = False) -> pl.DataFrame:
    """qid, docid, judge, rel (0..3, some null or absent unless ``complete``), slice."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_queries = draw(st.integers(2, 6))
    n_judges = draw(st.integers(2, 4))
    n_labels = draw(st.integers(2, 4))
    rows = []
    for q in range(n_queries):
        for d in range(int(rng.integers(3, 9))):
            truth = int(rng.integers(0, n_labels))
            for j in JUDGES[:n_judges]:
                if not complete and rng.random() < 0.2:
                    continue  # an absent row
                noisy = truth if rng.random() < 0.6 else int(rng.integers(0, n_labels))
                label = None if not complete and rng.random() < 0.05 else noisy
                rows.append((q, f"d{d}", j, label, "head" if q % 2 else "tail"))
    return pl.DataFrame(rows, schema={"qid": pl.Int64, "docid": pl.String, "judge": pl.String,
                                      "rel": pl.Int64, "slice": pl.String}, orient="row")


def _pairs(df: pl.DataFrame, a: str, b: str) -> tuple[np.ndarray[Any, Any], ...]:
    wide = df.drop_nulls("rel").pivot(on="judge", index=["qid", "docid"], values="rel")
    both = wide.select("qid", a, b).drop_nulls().sort("qid")
    return both["qid"].to_numpy(), both[a].to_numpy(), both[b].to_numpy()


def _reliability(df: pl.DataFrame) -> np.ndarray[Any, Any]:
    wide = df.drop_nulls("rel").pivot(on="judge", index=["qid", "docid"], values="rel")
    judges = [c for c in wide.columns if c not in ("qid", "docid")]
    return wide.select(judges).to_numpy().astype(np.float64).T


def _kripp(df: pl.DataFrame, level: str) -> float:
    data = _reliability(df)
    pairable = (~np.isnan(data)).sum(axis=0) >= 2
    values = np.unique(data[:, pairable][~np.isnan(data[:, pairable])])
    if values.size < 2:
        return float("nan")
    with _quiet():
        return float(krippendorff.alpha(data, level_of_measurement=level))


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The references warn (and give NaN) where a statistic is undefined; we give null."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def _value(frame: pl.DataFrame, column: str) -> float:
    value = frame[column].item()
    return float("nan") if value is None else float(value)


def _close(ours: float, theirs: float) -> None:
    if np.isnan(theirs):
        assert np.isnan(ours), (ours, theirs)
    else:
        assert abs(ours - theirs) <= TOL, (ours, theirs)


@settings(max_examples=examples(25), deadline=None)
@given(df=judgments())
def test_cohen_kappa_is_sklearns(df: pl.DataFrame) -> None:
    qid, a, b = _pairs(df, "ann", "bob")
    if qid.size == 0:
        return
    labels = np.unique(np.concatenate([a, b]))
    for weights in (None, "linear", "quadratic"):
        with _quiet():
            expected = cohen_kappa_score(a, b, weights=weights)
        got = cohen_kappa(df, "ann", "bob", weights=weights, n_resamples=0)
        _close(_value(got, "kappa"), expected)
        assert got["n_items"].item() == qid.size
        per_query = cohen_kappa(df, "ann", "bob", weights=weights, per_query=True)
        for q, value in per_query.select("qid", "kappa").rows():
            mask = qid == q
            with _quiet():
                ref = cohen_kappa_score(a[mask], b[mask], weights=weights, labels=labels)
            _close(float("nan") if value is None else value, ref)
    with _quiet():  # one label only: sklearn warns about the matrix's shape
        matrix = confusion_matrix(a, b, labels=labels)
    table = confusion(df, "ann", "bob").pivot(on="label_b", index="label_a", values="count")
    assert np.array_equal(table.drop("label_a").to_numpy(), matrix)
    _close(_value(raw_agreement(df, "ann", "bob", n_resamples=0), "agreement"),
           float(np.mean(a == b)))


@settings(max_examples=examples(25), deadline=None)
@given(df=judgments())
def test_krippendorff_alpha_is_the_packages(df: pl.DataFrame) -> None:
    for level in ("nominal", "ordinal", "interval", "ratio"):
        expected = _kripp(df, level)
        got = krippendorff_alpha(df, level_of_measurement=level, n_resamples=0)
        _close(_value(got, "alpha"), expected)
        sliced = krippendorff_alpha(df, level_of_measurement=level, group_by="slice",
                                    n_resamples=0)
        for name, value in sliced.select("slice", "alpha").rows():
            _close(float("nan") if value is None else value,
                   _kripp(df.filter(pl.col("slice") == name), level))


@settings(max_examples=examples(20), deadline=None)
@given(df=judgments(complete=True))
def test_fleiss_kappa_is_statsmodels(df: pl.DataFrame) -> None:
    counts = (df.group_by("qid", "docid", "rel").len()
              .pivot(on="rel", index=["qid", "docid"], values="len").fill_null(0))
    table = counts.drop("qid", "docid").to_numpy()
    with _quiet():
        expected = float(sm_fleiss_kappa(table, method="fleiss"))
    got = fleiss_kappa(df, n_resamples=0)
    _close(_value(got, "kappa"), expected)
    # with every item judged by all, Fleiss' observed agreement is the raw agreement
    m = df.group_by("qid", "docid").len()["len"][0]
    shares = (table * (table - 1)).sum(axis=1) / (m * (m - 1))
    _close(_value(raw_agreement(df, n_resamples=0), "agreement"), float(shares.mean()))
    per_query = fleiss_kappa(df, per_query=True)
    for q, value in per_query.select("qid", "kappa").rows():
        rows = counts.with_row_index().filter(pl.col("qid") == q)["index"].to_numpy()
        with _quiet():
            ref = float(sm_fleiss_kappa(table[rows], method="fleiss"))
        _close(float("nan") if value is None else value, ref)


@settings(max_examples=examples(10), deadline=None)
@given(df=judgments(), seed=st.integers(0, 2**31))
def test_bootstrap_is_seeded_and_ignores_row_order(df: pl.DataFrame, seed: int) -> None:
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed % 1000)
    for run in (lambda f, s: krippendorff_alpha(f, level_of_measurement="ordinal",
                                                n_resamples=50, seed=s, group_by="slice"),
                lambda f, s: raw_agreement(f, n_resamples=50, seed=s)):
        first = run(df, seed)
        assert first.equals(run(df, seed))
        assert first.equals(run(shuffled, seed))


def test_the_bootstrap_resamples_queries() -> None:
    """The interval, rebuilt by hand: the same draws, each resample through sklearn."""
    rng = np.random.default_rng(3)
    n_queries, per_query = 8, 12
    truth = rng.integers(0, 3, size=(n_queries, per_query))
    noisy = np.where(rng.random(truth.shape) < 0.7, truth, rng.integers(0, 3, truth.shape))
    df = pl.DataFrame({
        "qid": np.repeat(np.arange(n_queries), per_query).tolist() * 2,
        "docid": np.tile(np.arange(per_query), n_queries).tolist() * 2,
        "judge": ["a"] * truth.size + ["b"] * truth.size,
        "rel": np.concatenate([truth.ravel(), noisy.ravel()]).tolist(),
    })
    got = cohen_kappa(df, "a", "b", weights="linear", n_resamples=40, confidence=0.9, seed=11)
    key = "cohen_kappa('a', 'b', weights='linear')"
    draws = np.random.default_rng(np.random.SeedSequence(
        11, spawn_key=(zlib.crc32(repr((key,)).encode()),)))
    weights = draws.multinomial(n_queries, np.full(n_queries, 1 / n_queries), size=40)
    values = []
    for w in weights:
        chosen = np.repeat(np.arange(n_queries), w)
        values.append(cohen_kappa_score(truth[chosen].ravel(), noisy[chosen].ravel(),
                                        weights="linear", labels=[0, 1, 2]))
    low, high = np.quantile(values, [0.05, 0.95])
    assert abs(got["ci_low"].item() - low) <= TOL
    assert abs(got["ci_high"].item() - high) <= TOL
    assert got["ci_low"].item() < got["kappa"].item() < got["ci_high"].item()
    other = cohen_kappa(df, "a", "b", weights="linear", n_resamples=40, seed=12)
    assert other["ci_low"].item() != got["ci_low"].item()


# ---------------------------------------------------------------------------- bad input
BASE = pl.DataFrame({"qid": [1, 1, 1, 1, 2, 2], "docid": ["a", "a", "b", "b", "c", "c"],
                     "judge": ["ann", "llm"] * 3, "rel": [1, 1, 0, 1, 2, 2]})


def test_a_missing_column_is_named() -> None:
    with pytest.raises(InvalidDataError, match=r"no column 'assessor'.*judge="):
        cohen_kappa(BASE, "ann", "llm", judge="assessor")
    with pytest.raises(InvalidDataError, match=r"no column 'grade'.*label="):
        krippendorff_alpha(BASE, level_of_measurement="nominal", label="grade")


def test_an_absent_judge_is_named() -> None:
    with pytest.raises(InvalidDataError, match="judge_b='gpt' is not a judge in column 'judge'"):
        cohen_kappa(BASE, "ann", "gpt")
    with pytest.raises(InvalidDataError, match="judge_a='gpt'"):
        confusion(BASE, "gpt", "ann")
    numbered = BASE.with_columns(pl.col("judge").replace_strict({"ann": 1, "llm": 2}))
    with pytest.raises(InvalidDataError, match="judge_a='1' is not a judge in column 'judge'"):
        cohen_kappa(numbered, "1", 2)
    assert cohen_kappa(numbered, 1, 2)["n_items"].item() == 3


def test_ordered_statistics_need_numeric_labels() -> None:
    words = BASE.with_columns(pl.col("rel").cast(pl.String))
    for level in ("ordinal", "interval", "ratio"):
        with pytest.raises(InvalidDataError, match=f"{level}.*column 'rel' is String"):
            krippendorff_alpha(words, level_of_measurement=level)
    with pytest.raises(InvalidDataError, match=r"weights='linear'.*column 'rel'"):
        cohen_kappa(words, "ann", "llm", weights="linear")
    nominal = krippendorff_alpha(words, level_of_measurement="nominal", n_resamples=0)
    numbers = krippendorff_alpha(BASE, level_of_measurement="nominal", n_resamples=0)
    assert nominal["alpha"].item() == numbers["alpha"].item()
    assert cohen_kappa(words, "ann", "llm")["kappa"].item() == cohen_kappa(
        BASE, "ann", "llm")["kappa"].item()


def test_fleiss_refuses_missing_judgments_and_names_krippendorff() -> None:
    missing = BASE.with_columns(pl.when(pl.int_range(pl.len()) == 0).then(None)
                                .otherwise(pl.col("rel")).alias("rel"))
    with pytest.raises(InvalidDataError, match=r"query 1, doc 'a' with 1.*krippendorff_alpha"):
        fleiss_kappa(missing)
    assert krippendorff_alpha(missing, level_of_measurement="nominal")["n_items"].item() == 2


def test_other_bad_data() -> None:
    twice = pl.concat([BASE, BASE.head(1)])
    with pytest.raises(InvalidDataError, match="judge 'ann' labels query 1, doc 'a' 2 times"):
        fleiss_kappa(twice)
    nan = BASE.with_columns(pl.col("rel").cast(pl.Float64).replace(2.0, float("nan")))
    with pytest.raises(InvalidDataError, match=r"non-finite labels.*query 2"):
        krippendorff_alpha(nan, level_of_measurement="interval")
    null_judge = BASE.with_columns(pl.col("judge").replace("llm", None))
    with pytest.raises(InvalidDataError, match="column 'judge' has null values"):
        raw_agreement(null_judge)
    apart = pl.DataFrame({"qid": [1, 1], "docid": ["a", "b"], "judge": ["ann", "llm"],
                          "rel": [1, 1]})
    with pytest.raises(InvalidDataError, match=r"no item .* in common"):
        cohen_kappa(apart, "ann", "llm")
    with pytest.raises(InvalidDataError, match="labels not in labels=: 2"):
        cohen_kappa(BASE, "ann", "llm", labels=[0, 1])


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="weights must be"):
        cohen_kappa(BASE, "ann", "llm", weights="cubic")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="level_of_measurement must be one of"):
        krippendorff_alpha(BASE, level_of_measurement="metric")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n_resamples"):
        fleiss_kappa(BASE, n_resamples=-1)
    with pytest.raises(ValueError, match="confidence"):
        fleiss_kappa(BASE, confidence=95)
    with pytest.raises(ValueError, match="two judges"):
        raw_agreement(BASE, "ann")


def test_lazy_and_dict_inputs_give_the_same() -> None:
    eager = cohen_kappa(BASE, "ann", "llm", n_resamples=20)
    assert eager.equals(cohen_kappa(BASE.lazy(), "ann", "llm", n_resamples=20))
    assert eager.equals(cohen_kappa(BASE.to_dict(as_series=False), "ann", "llm",
                                    n_resamples=20))


def test_many_labels() -> None:
    """Above 16 labels alpha joins each item's counts with themselves: the same values."""
    rng = np.random.default_rng(5)
    items, judges = 120, 4
    truth = rng.integers(0, 25, size=items)
    labels = np.where(rng.random((judges, items)) < 0.6, truth,
                      rng.integers(0, 25, (judges, items)))
    matrix = labels.astype(np.float64)
    matrix[rng.random(matrix.shape) < 0.15] = np.nan
    df = pl.DataFrame({"qid": np.tile(np.arange(items) // 6, judges),
                       "docid": np.tile(np.arange(items), judges),
                       "judge": np.repeat(np.arange(judges), items),
                       "rel": matrix.ravel()}).with_columns(pl.col("rel").fill_nan(None))
    assert df["rel"].drop_nulls().n_unique() > 16
    for level in ("nominal", "ordinal", "interval", "ratio"):
        got = krippendorff_alpha(df, level_of_measurement=level, n_resamples=0)["alpha"].item()
        with _quiet():
            expected = float(krippendorff.alpha(matrix, level_of_measurement=level))
        assert abs(got - expected) <= TOL, (level, got, expected)
    complete = df.with_columns(pl.col("rel").fill_null(pl.col("rel").max()))
    table = (complete.group_by("docid", "rel").len()
             .pivot(on="rel", index="docid", values="len").fill_null(0).drop("docid").to_numpy())
    got = fleiss_kappa(complete, n_resamples=0)["kappa"].item()
    assert abs(got - float(sm_fleiss_kappa(table, method="fleiss"))) <= TOL


# ------------------------------------------------------------------- without NumPy
_CALLS = """
import polars as pl
from polars_rank.agreement import (cohen_kappa, confusion, fleiss_kappa, krippendorff_alpha,
                                   raw_agreement)
df = pl.DataFrame({"qid": [1] * 9 + [2] * 9 + [3] * 9,
                   "docid": [d for d in "abcdefghi" for _ in range(3)],
                   "judge": ["x", "y", "z"] * 9,
                   "rel": [1, 1, 0, 2, 2, 2, 0, 1, 0, 0, 0, 0, 1, 2, 1, 2, 2, 1,
                           0, 0, 1, 1, 1, 1, 2, 2, 2],
                   "slice": ["s", "s", "s", "t", "t", "t", "s", "s", "s"] * 3})
frames = [cohen_kappa(df.lazy(), "x", "y", weights="quadratic", n_resamples=0),
          cohen_kappa(df, "x", "z", group_by="slice", per_query=True),
          fleiss_kappa(df, group_by="slice", n_resamples=0),
          krippendorff_alpha(df, level_of_measurement="ordinal", n_resamples=0),
          krippendorff_alpha(df, level_of_measurement="ratio", per_query=True),
          raw_agreement(df, n_resamples=0), raw_agreement(df, "y", "z", n_resamples=0),
          confusion(df, "x", "y", group_by="slice")]
"""


def test_the_point_estimates_need_no_numpy() -> None:
    """NumPy blocked (``sys.modules["numpy"] = None``): the same values; the bootstrap asks."""
    script = ("import sys\nsys.modules['numpy'] = None\n" + _CALLS
              + "print(repr([f.rows() for f in frames]))\n"
              + "try:\n    fleiss_kappa(df)\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    rows, message = out.stdout.strip().split("\n")
    scope: dict[str, Any] = {}
    exec(_CALLS, scope)  # the same calls, NumPy importable
    assert rows == repr([f.rows() for f in scope["frames"]])
    assert "fleiss_kappa needs numpy" in message
    assert 'pip install "polars-rank[stats]"' in message


@settings(max_examples=examples(10), deadline=None)
@given(df=judgments(complete=True), seed=st.integers(0, 1000))
def test_the_estimates_ignore_row_order(df: pl.DataFrame, seed: int) -> None:
    """Sums of fractions (chance agreement, coincidences) in a fixed order: bit for bit."""
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
    for run in (lambda f: cohen_kappa(f, "ann", "bob", per_query=True),
                lambda f: cohen_kappa(f, "ann", "bob", weights="linear", n_resamples=0,
                                      group_by="slice"),
                lambda f: fleiss_kappa(f, per_query=True),
                lambda f: raw_agreement(f, per_query=True),
                lambda f: krippendorff_alpha(f, level_of_measurement="ordinal",
                                             per_query=True),
                lambda f: krippendorff_alpha(f, level_of_measurement="interval",
                                             n_resamples=0)):
        assert run(df).equals(run(shuffled))


@settings(max_examples=examples(10), deadline=None)
@given(df=judgments())
def test_alpha_per_query_is_the_packages(df: pl.DataFrame) -> None:
    """Per query: each query's alpha is the package's on that query alone."""
    for level in ("ordinal", "ratio"):
        per_query = krippendorff_alpha(df, level_of_measurement=level, per_query=True)
        for q, value in per_query.select("qid", "alpha").rows():
            _close(float("nan") if value is None else value,
                   _kripp(df.filter(pl.col("qid") == q), level))


def test_a_slice_column_may_have_any_name() -> None:
    """``group_by`` named like a temporary of the estimates (o, e, s, d, cum, before...) or
    of the bootstrap's slices (start, n): the same results, not a DuplicateError."""
    df = pl.DataFrame({"qid": [1] * 9 + [2] * 9 + [3] * 9,
                       "docid": [d for d in "abcdefghi" for _ in range(3)],
                       "judge": ["x", "y", "z"] * 9,
                       "rel": [1, 1, 0, 2, 2, 2, 0, 1, 0, 0, 0, 0, 1, 2, 1, 2, 2, 1,
                               0, 0, 1, 1, 1, 1, 2, 2, 2],
                       "slice": ["s", "s", "s", "t", "t", "t", "s", "s", "s"] * 3})
    calls = [lambda f, g: cohen_kappa(f, "x", "y", group_by=g, n_resamples=0),
             lambda f, g: cohen_kappa(f, "x", "z", weights="linear", group_by=g,
                                      n_resamples=0),
             lambda f, g: fleiss_kappa(f, group_by=g, n_resamples=0),
             lambda f, g: raw_agreement(f, group_by=g, n_resamples=0),
             lambda f, g: krippendorff_alpha(f, level_of_measurement="ordinal", group_by=g,
                                             n_resamples=0),
             lambda f, g: cohen_kappa(f, "x", "y", group_by=g, n_resamples=20, seed=1),
             lambda f, g: fleiss_kappa(f, group_by=g, n_resamples=20, seed=1)]
    for call in calls:
        expected = call(df, "slice")
        for name in ("o", "e", "s", "d", "cum", "before", "cum_b", "before_b", "start", "n"):
            got = call(df.rename({"slice": name}), name)
            assert got.rename({name: "slice"}).equals(expected), name
