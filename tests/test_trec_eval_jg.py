"""trec_eval's judgment groups (``-R qrels_jg``) and ``yaap``, against the binary.

Judgment groups: qrels whose second field is a judgment group (a user), each query
judged by several. trec_eval 10 computes ``runid``, ``num_q`` and its three
judgment-group measures (``-m qrels_jg``: ``map_avgjg``, ``P_avgjg``,
``Rprec_mult_avgjg``) from them, and stops on any other measure (exit status 4);
``polars-rank eval -R qrels_jg`` prints the same bytes and stops alike. Checked on
NIST's own test files (``tests/data/trec_eval``: ``qrels.123``, ``qrels.comments.123``,
``out.test.qrels_jg``; see its NOTICE.md) and on random collections (hypothesis: ties,
graded and negative labels, groups without a judged document, judged queries absent
from the run and run queries absent from the qrels), byte for byte and, below the
printed digits, bit for bit (a build printing ``%.17g``). The Python API
(``read_qrels(format="qrels_jg")``, the measures in :func:`polars_rank.evaluate`) is
checked against the same files and against a plain-Python reference written from the
definitions (each group's AP, P@k, precision at x R, averaged over the groups).

yaap (Robertson's smoothed AP, m_yaap.c): the command line against the binary on
random collections and trec_eval's test collection, ``-c`` included (trec_eval scores
an absent query on a stand-in ranking: ln(1 / (1 + R)), not 0). Its expression is
checked against the plain-Python reference in tests/test_against_reference.py.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import shlex
import warnings
from typing import TYPE_CHECKING

import polars as pl
import pytest
import reference as ref
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_trec_eval_binary import DATA, byte_differences, files, ours_all, run_binary
from trec_files import trec_files

import polars_rank as pr
from polars_rank.errors import InvalidDataError, TrecFormatError

if TYPE_CHECKING:
    from pathlib import Path


QRELS_JG = DATA / "qrels.123"
QRELS_JG_COMMENTS = DATA / "qrels.comments.123"
EXPECTED = DATA / "out.test.qrels_jg"
RUN = DATA / "results.test"

# the measures of -m qrels_jg, as metric strings (trec_eval's printed names)
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
MULTIPLES = tuple(i / 10 for i in range(2, 21, 2))
GROUP_MEASURES = ["map_avgjg", *(f"P_avgjg_{k}" for k in CUTOFFS),
                  *(f"Rprec_mult_avgjg_{x:.2f}" for x in MULTIPLES)]


def _cli(flags: list[str], qrels: Path, run: Path,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return ours_all(flags, qrels, run, capsys)


# ----------------------------------------------------------------------------- NIST's files


@pytest.mark.parametrize("qrels", [QRELS_JG, QRELS_JG_COMMENTS], ids=["plain", "comments"])
def test_nist_quicktest(qrels: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """trec_eval's ``make quicktest`` lines 71-72: the expected file, byte for byte."""
    code, out, err = _cli(["-m", "qrels_jg", "-q", "-R", "qrels_jg"], qrels, RUN, capsys)
    assert code == 0, err
    assert out == EXPECTED.read_text()


@pytest.mark.parametrize("command", [
    "-m qrels_jg", "-q -m qrels_jg", "-n -q -m qrels_jg", "-q -c -m qrels_jg",
    "-q -J -m qrels_jg", "-q -M50 -m qrels_jg", "-q -l2 -m qrels_jg", "-q -l0 -m qrels_jg",
    "-q -c -M0 -m qrels_jg", "-q -m P_avgjg.3,7 -m Rprec_mult_avgjg.0.5,1.5 -m map_avgjg",
    "-q -m runid -m num_q", "--Rel_info_format=qrels_jg -q -m P_avgjg -D 0.302",
    "-q -m P_avgjg.10 -m qrels_jg",  # the first -m with parameters wins, as for any measure
])
def test_nist_files_with_every_flag(command: str, trec_eval: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["-R", "qrels_jg", *shlex.split(command)]
    run = DATA / ("results.trunc" if "-c" in flags else "results.test")
    theirs = run_binary(trec_eval, flags, QRELS_JG, run)
    assert theirs.returncode == 0, theirs.stderr
    code, out, err = _cli(flags, QRELS_JG, run, capsys)
    assert code == 0, err
    assert not byte_differences(out, theirs.stdout)


@pytest.mark.parametrize(("command", "qrels", "measure"), [
    ("-R qrels_jg", QRELS_JG, "num_ret"),  # the default, official: runid, num_q, then num_ret
    ("-R qrels_jg -q -m all_trec", QRELS_JG, "num_ret"),
    ("-R qrels_jg -q -m map_avgjg -m map", QRELS_JG, "map"),
    ("-R qrels_jg -m yaap", QRELS_JG, "yaap"),
    ("-m qrels_jg", DATA / "qrels.test", "map_avgjg"),  # -R qrels: no judgment groups
    ("-q -m P_avgjg.5", DATA / "qrels.test", "P_avgjg"),
])
def test_where_trec_eval_stops(command: str, qrels: Path, measure: str, trec_eval: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """A measure the qrels format cannot give: exit 4, nothing printed, as trec_eval."""
    flags = shlex.split(command)
    theirs = run_binary(trec_eval, flags, qrels, RUN)
    assert (theirs.returncode, theirs.stdout) == (4, "")
    assert f"Can't calculate measure '{measure}'" in theirs.stderr
    _stops(flags, qrels, measure, capsys)


@pytest.mark.parametrize("qrels", ["malformed", "missing"])
@pytest.mark.parametrize("command", ["-R qrels_jg -m map", "-m map_avgjg"])
def test_a_file_it_cannot_read_stops_it_first(command: str, qrels: str, trec_eval: Path,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """trec_eval reads the files before it finds a measure the format cannot give: a
    qrels file it cannot read is exit status 2, not the measure's 4."""
    path = tmp_path / "qrels"
    if qrels == "malformed":
        path.write_text("1 0 d1\n")
    flags = shlex.split(command)
    theirs = run_binary(trec_eval, flags, path, RUN)
    code, out, _ = _cli(flags, path, RUN, capsys)
    assert (code, out) == (theirs.returncode, theirs.stdout) == (2, "")


def _stops(flags: list[str], qrels: Path, measure: str,
           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(flags, qrels, RUN, capsys)
    assert (code, out) == (4, "")
    message, hint = err.splitlines()[-2:]
    assert message == f"polars-rank: Can't calculate measure '{measure}'"
    assert hint.startswith("polars-rank: hint: ")
    assert "-R qrels_jg" in hint


def test_metric_strings_read_one_judgment(capsys: pytest.CaptureFixture[str]) -> None:
    """A polars-rank metric string under -R qrels_jg stops as trec_eval's measures do."""
    _stops(["-R", "qrels_jg", "-m", "qrels_jg", "-m", "ndcg@10"], QRELS_JG, "ndcg@10", capsys)
    code, out, err = _cli(["-R", "qrels_jg", "-m", "P_avgjg@3(threshold=2)"], QRELS_JG, RUN,
                          capsys)
    assert code == 0, err
    assert out.startswith("P_avgjg@3(threshold=2)\tall\t0.")


def test_evaluate_matches_nist() -> None:
    """``read_qrels(format="qrels_jg")`` and ``evaluate``: out.test.qrels_jg's numbers."""
    expected = {(m, q): v for m, q, v in (line.split() for line in EXPECTED.read_text()
                                          .splitlines())}
    run = pr.read_run(RUN)
    for path in (QRELS_JG, QRELS_JG_COMMENTS):
        qrels = pr.read_qrels(path, format="qrels_jg")
        assert qrels.columns == ["qid", "jg", "docid", "rel"]
        assert qrels.group_by("qid").agg(pl.col("jg").n_unique())["jg"].to_list() == [3] * 3
        per = pr.evaluate(run, qrels, GROUP_MEASURES, per_query=True)
        means = pr.evaluate(run, qrels, GROUP_MEASURES)
        got = {(m, str(row["qid"])): f"{row[m]:6.4f}".strip()
               for row in per.iter_rows(named=True) for m in GROUP_MEASURES}
        got |= {(m, "all"): f"{means[m].item():6.4f}".strip() for m in GROUP_MEASURES}
        expected_values = {key: v for key, v in expected.items()
                           if key[0] not in ("runid", "num_q")}
        assert got == expected_values


# ----------------------------------------------------------------------------- random files

QUERIES = ("1", "10", "2", "q7", "Q7", "301")
GROUPS = ("0", "1", "10", "2", "a", "B")
DOCUMENTS = ("9", "10", "0010", "d1", "d10", "d2", "D2", "x", "LA01-7",
             *(f"z{i}" for i in range(8)))
LABELS = (-2, -1, 0, 0, 0, 1, 1, 2, 3, 4)
SCORES = ("1", "2", "0.5", "5e-1", "-0", "0", "3.25", "1.348", "1.3479999999999999", "7")


@st.composite
def collections(draw: st.DrawFn) -> tuple[str, str]:
    """qrels_jg and run text: 1-4 queries, each judged, retrieved or both.

    Each judged query has 1-3 judgment groups, each judging some documents (labels
    -2..4, so some groups judge none); the run's scores tie often.
    """
    queries = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=4, unique=True))
    kinds = draw(st.lists(st.sampled_from(["both", "both", "both", "judged", "retrieved"]),
                          min_size=len(queries), max_size=len(queries)))
    kinds[0] = "both"
    qrels, run = [], []
    for qid, kind in zip(queries, kinds, strict=True):
        if kind != "retrieved":
            groups = draw(st.lists(st.sampled_from(GROUPS), min_size=1, max_size=3,
                                   unique=True))
            for group in groups:
                docs = draw(st.lists(st.sampled_from(DOCUMENTS), min_size=1, max_size=8,
                                     unique=True))
                qrels += [f"{qid} {group} {d} {draw(st.sampled_from(LABELS))}" for d in docs]
        if kind != "judged":
            docs = draw(st.lists(st.sampled_from(DOCUMENTS), min_size=1, max_size=12,
                                 unique=True))
            run += [f"{qid}\tQ0 {d} {i} {draw(st.sampled_from(SCORES))} tag{i % 2}"
                    for i, d in enumerate(docs, 1)]
    qrels = draw(st.permutations(qrels))
    run = draw(st.permutations(run))
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


COMMANDS = (
    "-q -m qrels_jg",
    "-q -c -m qrels_jg",
    "-q -J -m qrels_jg",
    "-q -c -J -l2 -m qrels_jg",
    "-q -M3 -m qrels_jg",
    "-q -l2 -m qrels_jg",
    "-q -l0 -m qrels_jg",
    "-q -c -M0 -m qrels_jg",
    "-n -q -m P_avgjg.1,2,3 -m Rprec_mult_avgjg.0.5,1.5,3 -m map_avgjg",
    "-m qrels_jg",
)


def _write(folder: Path, qrels: str, run: str) -> tuple[Path, Path]:
    paths = folder / "qrels_jg", folder / "run"
    paths[0].write_text(qrels)
    paths[1].write_text(run)
    return paths


@pytest.mark.parametrize("command", COMMANDS)
def test_random_collections(command: str, trec_eval: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """The same bytes and exit status as trec_eval, where it stops (a judged query the
    run lacks, without -c: exit 4 after the queries before it) too."""
    flags = ["-R", "qrels_jg", *shlex.split(command)]

    @settings(max_examples=examples(15), deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(collection=collections())
    def check(collection: tuple[str, str]) -> None:
        qrels, run = _write(tmp_path, *collection)
        theirs = run_binary(trec_eval, flags, qrels, run)
        code, out, err = _cli(flags, qrels, run, capsys)
        assert code == theirs.returncode, (err, theirs.stderr)
        left = byte_differences(out, theirs.stdout)
        assert not left, "\n".join([*left[:20], "qrels:", collection[0], "run:", collection[1]])

    check()


@pytest.mark.parametrize("command", ["-q -c -m qrels_jg", "-q -J -l2 -m qrels_jg"])
def test_unrounded_values(command: str, trec_eval_17: Path, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    """Below the printed digits: every value is trec_eval's double, bit for bit (the
    groups' values added in their byte order, then divided, as m_P_avgjg.c does)."""
    flags = ["-R", "qrels_jg", *shlex.split(command)]

    @settings(max_examples=examples(15), deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(collection=collections())
    def check(collection: tuple[str, str]) -> None:
        qrels, run = _write(tmp_path, *collection)
        theirs = run_binary(trec_eval_17, flags, qrels, run)
        if theirs.returncode:  # where trec_eval stops: test_random_collections
            return
        code, out, err = _cli(["--format", "csv", *flags], qrels, run, capsys)
        assert code == 0, err
        values = {(m, q): v for m, q, v in (line.split() for line in theirs.stdout.splitlines())}
        rows = list(csv.reader(io.StringIO(out)))[1:]
        assert rows
        for m, q, v in rows:
            assert float(v) == float(values[m, q]), (m, q, v, values[m, q])

    check()


# ----------------------------------------------------------------------------- Python API


def _reference(qrels: list[tuple[str, str, str, int]], run: list[tuple[str, str, float]],
               metric: str, threshold: int = 1) -> dict[str, float]:
    """Each query of both files: the metric against each group, averaged (plain Python).

    The run ranked as trec_eval ranks it (score descending, then document id
    descending), each group's labels read, negative ones as unjudged.
    """
    out: dict[str, float] = {}
    for qid in sorted({q for q, *_ in qrels} & {q for q, *_ in run}):
        ranked = [d for _, d, _ in sorted((r for r in run if r[0] == qid),
                                          key=lambda r: (r[2], r[1]), reverse=True)]
        groups = sorted({g for q, g, *_ in qrels if q == qid})
        values = []
        for group in groups:
            labels = {d: (None if rel < 0 else float(rel)) for q, g, d, rel in qrels
                      if (q, g) == (qid, group)}
            shown = [labels.get(d) for d in ranked]
            missed = [label for d, label in labels.items() if d not in ranked]
            if metric == "map":
                values.append(ref.average_precision(shown, missed, threshold=threshold))
            elif metric.startswith("p@"):
                values.append(ref.precision(shown, int(metric[2:]), threshold=threshold))
            else:  # rprec_mult@x
                values.append(ref.r_precision_multiple(shown, missed, float(metric[11:]),
                                                       threshold=threshold))
        out[qid] = math.fsum(values) / len(groups)
    return out


def _parsed(text: str, fields: int) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if len(line.split()) == fields]


@settings(max_examples=examples(40), deadline=None)
@given(collection=collections(), threshold=st.sampled_from([1, 2]))
def test_evaluate_matches_the_definition(collection: tuple[str, str], threshold: int) -> None:
    """Per query: each group's AP, P@k and precision at x R, averaged over its groups."""
    qrels_text, run_text = collection
    qrels_rows = [(q, g, d, int(rel)) for q, g, d, rel in _parsed(qrels_text, 4)]
    run_rows = [(q, d, float(s)) for q, _, d, _, s, _ in _parsed(run_text, 6)]
    qrels = pl.DataFrame(qrels_rows, schema=["qid", "jg", "docid", "rel"], orient="row")
    qrels = qrels.with_columns(pl.when(pl.col("rel") >= 0).then(pl.col("rel")).alias("rel"))
    run = pl.DataFrame(run_rows, schema=["qid", "docid", "score"], orient="row")
    specs = {"map_avgjg": "map", "P_avgjg@3": "p@3", "P_avgjg@1": "p@1",
             "Rprec_mult_avgjg@1.5": "rprec_mult@1.5", "Rprec_mult_avgjg@0.2": "rprec_mult@0.2"}
    strings = [f"{s}(threshold={threshold})" for s in specs]
    with warnings.catch_warnings():  # run queries without judgments: not evaluated
        warnings.filterwarnings("ignore", "1 run query|.* run queries", UserWarning)
        per = pr.evaluate(run, qrels, strings, per_query=True)
    for string, (_, metric) in zip(strings, specs.items(), strict=True):
        expected = _reference(qrels_rows, run_rows, metric, threshold)
        got = dict(zip(per["qid"].to_list(), per[string].to_list(), strict=True))
        assert got.keys() == expected.keys()
        for qid, value in expected.items():
            assert math.isclose(got[qid], value, rel_tol=1e-12, abs_tol=1e-12), (string, qid)


def test_metric_strings() -> None:
    """trec_eval's printed names and the metric-string spellings are one metric."""
    for trec, ours in (("P_avgjg_10", "P_avgjg@10"), ("P_avgjg.10", "p_avgjg@10"),
                       ("Rprec_mult_avgjg_0.20", "rprec_mult_avgjg@0.2"),
                       ("MAP_AVGJG", "map_avgjg")):
        assert pr.parse_metric(trec) == pr.parse_metric(ours)
    assert str(pr.parse_metric("Rprec_mult_avgjg_1.00")) == "rprec_mult_avgjg@1"
    # one list judged once is one group: the expression is the plain metric's
    assert pr.parse_metric("map_avgjg").definition.function is pr.average_precision
    assert pr.average_precision("rel", by="score").meta.output_name() == "map"


def test_evaluate_options() -> None:
    """group_by, lazy frames, missing="zero", one group and the errors."""
    run = pl.DataFrame({"qid": ["q1", "q1", "q2", "q3"], "docid": ["a", "b", "a", "a"],
                        "score": [2.0, 1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q1", "q1", "q2", "q4"],
                          "jg": ["u", "u", "v", "u", "u"],
                          "docid": ["a", "b", "b", "a", "a"], "rel": [1, 0, 1, 1, 1]})
    # q1: u: AP 1, v: AP 1/2; q2: 1; q3 has no judgments (a warning), q4 no run lines
    with pytest.warns(UserWarning, match=r"1 run query has no judgments .*'q3'"):
        per = pr.evaluate(run, qrels, ["map_avgjg"], per_query=True)
    assert per.rows() == [("q1", 0.75), ("q2", 1.0)]
    with pytest.warns(UserWarning, match="no judgments"):
        zero = pr.evaluate(run, qrels, ["map_avgjg"], per_query=True, missing="zero")
    assert zero.rows() == [("q1", 0.75), ("q2", 1.0), ("q4", 0.0)]
    with pytest.warns(UserWarning, match="no judgments"):
        lazy = pr.evaluate(run.lazy(), qrels.lazy(), "map_avgjg")
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().item() == 0.875

    both = pl.concat([run.with_columns(system=pl.lit("x")),
                      run.filter(pl.col("docid") != "a").with_columns(system=pl.lit("y"))])
    with pytest.warns(UserWarning, match="no judgments"):
        by_system = pr.evaluate(both, qrels, ["map_avgjg", "P_avgjg@1"], group_by="system")
    assert by_system.rows() == [("x", 0.875, 0.75), ("y", 0.5, 0.5)]

    one_group = qrels.filter(pl.col("jg") == "u").drop("jg")
    with pytest.warns(UserWarning, match="no 'jg' column"):
        plain = pr.evaluate(run.filter(pl.col("qid") != "q3"), one_group, ["map_avgjg", "map"],
                            per_query=True)
    assert plain["map_avgjg"].to_list() == plain["map"].to_list()

    with pytest.raises(ValueError, match="ndcg@10: the qrels have judgment groups"):
        pr.evaluate(run, qrels, ["map_avgjg", "ndcg@10"])
    with pytest.raises(ValueError, match="map: the qrels have judgment groups"):
        pr.evaluate(run, qrels, ["map"])
    with pytest.raises(ValueError, match="map: the qrels have judgment groups"):
        pr.evaluate(run.to_pandas(), qrels.to_pandas(), ["map"])  # pandas: the same error
    renamed = qrels.rename({"jg": "user"})
    with pytest.raises(ValueError, match="ndcg: the qrels have judgment groups"):
        pr.evaluate(run, renamed, ["ndcg"], judgment_group="user")
    with pytest.raises(InvalidDataError, match=r"duplicate .* first at qid='q1', jg='u', "
                                               "docid='a'"):
        pr.evaluate(run, pl.concat([qrels, qrels.head(1)]), ["map_avgjg"])
    no_group = qrels.with_columns(pl.when(pl.col("qid") == "q2").then(pl.col("jg")))
    with pytest.raises(InvalidDataError, match="null judgment group in qrels column 'jg': "
                                               "first at qid='q1'"):
        pr.evaluate(run, no_group, ["map_avgjg"])
    with pytest.raises(InvalidDataError, match="negative relevance in qrels column 'rel': "
                                               "first at qid='q1', jg='u'"):
        pr.evaluate(run, qrels.with_columns(rel=pl.lit(-3)), ["map_avgjg"])


def test_read_qrels_format(tmp_path: Path) -> None:
    path = tmp_path / "qrels"
    path.write_text("q1 d1 1\n")
    with pytest.raises(TrecFormatError, match=r"line 1 has 3 fields; trec_eval's judgment groups"):
        pr.read_qrels(path, format="qrels_jg")
    with pytest.raises(ValueError, match="format='nope': 'qrels'"):
        pr.read_qrels(path, format="nope")  # type: ignore[arg-type]
    path.write_text("q1 u d1 1\nq1 u d2 x\n")
    lazy = pr.scan_qrels(path, format="qrels_jg")
    with pytest.raises(TrecFormatError, match=r"expected 'qid jg docid rel' -- line 2"):
        lazy.collect()
    with pytest.raises(ValueError, match="subtopics=True reads diversity qrels"):
        pr.read_qrels(path, format="qrels_jg", subtopics=True)


# ----------------------------------------------------------------------------- yaap

YAAP_COMMANDS = (
    "-q -m yaap",
    "-q -c -m yaap -m map",
    "-q -J -l2 -m yaap",
    "-q -M5 -m yaap",
    "-q -l0 -m yaap",
    "-q -c -M0 -m yaap",
)


@pytest.mark.parametrize("command", YAAP_COMMANDS)
def test_yaap_random_collections(command: str, trec_eval: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    """yaap through the command line: trec_eval's bytes (``-c``: ln(1 / (1 + R)) for a
    judged query the run lacks, as trec_eval's stand-in ranking gives)."""
    flags = shlex.split(command)
    for seed in range(5100, 5106):
        case = trec_files(seed, qrels_only="-c" in flags)
        qrels, run, their_run = files(case, tmp_path)
        theirs = run_binary(trec_eval, flags, qrels, their_run)
        assert theirs.returncode == 0, theirs.stderr
        code, out, err = _cli(flags, qrels, run, capsys)
        assert code == 0, err
        left = byte_differences(out, theirs.stdout)
        assert not left, f"seed {seed}:\n  " + "\n  ".join(left[:20])


def test_yaap_unrounded(trec_eval_17: Path, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    """yaap's doubles: trec_eval's, bit for bit (its sum in rank order, then the log)."""
    flags = ["-q", "-c", "-m", "yaap"]
    checked = 0
    for seed in range(5200, 5210):
        case = trec_files(seed, qrels_only=True)
        qrels, run, their_run = files(case, tmp_path)
        theirs = run_binary(trec_eval_17, flags, qrels, their_run)
        values = {(m, q): v for m, q, v in (line.split() for line in theirs.stdout.splitlines())}
        code, out, _ = _cli(["--format", "csv", *flags], qrels, run, capsys)
        assert code == 0
        for m, q, v in list(csv.reader(io.StringIO(out)))[1:]:
            assert float(v) == float(values[m, q]), (seed, q, v, values[m, q])
            checked += 1
    assert checked > 50


def test_yaap_on_the_test_collection(trec_eval: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for flags, run in ((["-q", "-m", "yaap", "-m", "official"], RUN),
                       (["-q", "-c", "-m", "yaap"], DATA / "results.trunc")):
        theirs = run_binary(trec_eval, flags, DATA / "qrels.test", run)
        code, out, _ = _cli(flags, DATA / "qrels.test", run, capsys)
        assert (code, out) == (0, theirs.stdout)
        assert "yaap                  \tall\t" in out


def test_yaap_in_evaluate() -> None:
    """The metric string, its -c value, and monotone in AP on one query."""
    run = pl.DataFrame({"qid": "q", "docid": ["a", "b", "c", "d"],
                        "score": [4.0, 3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q", "q", "q", "r"], "docid": ["a", "c", "z", "a"],
                          "rel": [1, 2, 1, 1]})
    out = pr.evaluate(run, qrels, ["yaap", "map", "yaap(threshold=2)"], per_query=True,
                      missing="zero")
    s, s2 = 1 + 2 / 3, 1 / 3  # R = 3; at threshold 2, R = 1 (c, at rank 3)
    q, r = out.rows()
    assert q[0] == "q"
    assert math.isclose(q[1], math.log((1 + s) / (1 + 3 - s)), rel_tol=1e-15)
    assert math.isclose(q[2], s / 3, rel_tol=1e-15)
    assert math.isclose(q[3], math.log((1 + s2) / (1 + 1 - s2)), rel_tol=1e-15)
    assert r == ("r", math.log(1 / 2), 0.0, 0.0)  # absent from the run: -c's ln(1 / (1 + R))
    # yaap grows with AP on one query: every order of a list of 2 relevant in 5
    labels = [1, 1, 0, 0, 0]
    orders = {tuple(labels[i] for i in perm) for perm in itertools.permutations(range(5))}
    frame = pl.DataFrame({"order": [i for i, _ in enumerate(orders) for _ in labels],
                          "rel": [x for o in orders for x in o]})
    values = frame.group_by("order").agg(pr.yaap("rel", by=None), pr.map("rel", by=None))
    ranked = values.sort("map")
    assert ranked["yaap"].is_sorted()
    assert ranked["yaap"].n_unique() == ranked["map"].n_unique()
