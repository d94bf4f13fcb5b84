"""trec_eval 10's preference judgments (``-R prefs``, ``-R qrels_prefs``), against the binary.

The binary is built from ``../shared/trec_eval-10.0`` by the ``trec_eval`` fixture of
test_trec_eval_binary.py. For each command line, ``polars-rank eval`` must print the
same bytes on stdout and exit with the same status: on NIST's own preference files
(tests/data/trec_eval: prefs.test, prefs.results.test; qrels.test read as
preferences), on random preference collections drawn by hypothesis (several judgment
groups and subgroups, documents listed twice, ties in scores, documents retrieved but
never judged and judged but never retrieved, queries only in the run or only in the
judgments, negative levels), and on the judgments trec_eval stops on.

One difference, by design: where trec_eval aborts (a preference cycle within a
judgment group: SIGABRT), polars-rank stops with exit status 4 and says why.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import random
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_trec_eval_binary import run_binary
from test_trec_eval_collection import DATA, parse
from test_trec_eval_command_line import zscore_file

import polars_rank as pr
from polars_rank.__main__ import main
from polars_rank.preferences import PREFS_MEASURES

PREFS = (DATA / "prefs.test", DATA / "prefs.results.test")
QRELS = (DATA / "qrels.test", DATA / "results.test")


def ours(argv: list[str]) -> tuple[int, str, str]:
    """``polars-rank eval ARGV``: exit status, stdout, stderr (in-process)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["eval", *argv])
        except SystemExit as exc:  # argparse
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def same(trec_eval: Path, flags: list[str], judgments: Path, run: Path) -> tuple[int, str]:
    """Both programs on the same files: the same stdout and exit status; returns them."""
    theirs = run_binary(trec_eval, flags, judgments, run)
    code, out, err = ours([*flags, str(judgments), str(run)])
    assert out == theirs.stdout, (f"{shlex.join(flags)}: stdout differs\nours:\n{out[:2000]}"
                                  f"\ntrec_eval:\n{theirs.stdout[:2000]}")
    assert code == theirs.returncode, f"{shlex.join(flags)}: {code} vs {theirs.returncode}: {err}"
    return code, out


# ----------------------------------------------------------------------------- NIST's files

PREFS_FLAGS = [
    "-m all_prefs", "-q -m all_prefs", "-q -m prefs", "-m prefs", "-n -q -m all_prefs",
    "-q -c -m all_prefs", "-q -M5 -m all_prefs", "-q -M1 -m all_prefs", "-q -M0 -m all_prefs",
    "-q -J -l2 -N 100 -m all_prefs",  # no preference measure reads -J, -l or -N
    "-q -m prefs_pair -m prefs_avgjg_Rnonrel_ret -m prefs_num_prefs_ful_ret -m runid",
    "-q -m prefs_simp.5 -m num_q",  # a parameter trec_eval ignores
    "-q -D 0.40.PA.tran -m all_prefs", "-q -D 0.nothere -m all_prefs",
    "--query_eval_wanted --measure all_prefs --Max_retrieved_per_topic=3",
    "-q --Rel_info_format=prefs -m all_prefs",  # (the -R below is given again)
]


@pytest.mark.parametrize("command", PREFS_FLAGS)
@pytest.mark.parametrize("fmt", ["prefs", "qrels_prefs"])
def test_nist_files(command: str, fmt: str, trec_eval: Path) -> None:
    judgments, run = PREFS if fmt == "prefs" else QRELS
    flags = [*shlex.split(command), "-R", fmt]
    code, out = same(trec_eval, flags, judgments, run)
    if "nothere" in command or (fmt == "qrels_prefs" and "-D" in command):  # no such query
        assert code == 7
    else:
        assert code == 0
        assert out


@pytest.mark.parametrize("command", ["-q -m all_prefs", "-q -c -m all_prefs",
                                     "-q -c -M100 -m all_prefs", "-c -D 0.302 -m prefs",
                                     "-q -D 0.302 -m prefs", "-m prefs"])
def test_query_the_run_lacks(command: str, trec_eval: Path) -> None:
    """results.trunc has no line for topic 302: -c evaluates it with nothing retrieved
    (trec_eval's made-up document), else trec_eval stops there (exit 4) after printing
    topic 301's lines."""
    flags = [*shlex.split(command), "-R", "qrels_prefs"]
    code, out = same(trec_eval, flags, DATA / "qrels.test", DATA / "results.trunc")
    assert code == (0 if "-c" in flags else 4)
    if "-c" in flags and "-q" in flags:
        assert "prefs_num_prefs_ful   \t302\t0\n" in out


def test_missing_skip(trec_eval: Path, tmp_path: Path) -> None:
    """--missing skip leaves topic 302 out (trec_eval 9's way): the binary's output on the
    judgments without it."""
    kept = tmp_path / "qrels"
    kept.write_text("".join(line + "\n" for line in (DATA / "qrels.test").read_text()
                            .splitlines() if not line.startswith("302 ")))
    flags = ["-q", "-m", "all_prefs", "-R", "qrels_prefs"]
    code, out, _ = ours(["--missing", "skip", *flags, str(DATA / "qrels.test"),
                         str(DATA / "results.trunc")])
    theirs = run_binary(trec_eval, flags, kept, DATA / "results.trunc")
    assert (code, out) == (theirs.returncode, theirs.stdout) == (0, theirs.stdout)
    assert "\t302\t" not in out


def test_out_test_prefs_is_what_the_binary_prints(trec_eval: Path) -> None:
    """The expected file and the binary agree (so the tests above test the same thing)."""
    done = run_binary(trec_eval, ["-m", "all_prefs", "-q", "-R", "prefs"], *PREFS)
    assert done.stdout == (DATA / "out.test.prefs").read_text()


# ----------------------------------------------------------------------------- where it stops


def test_measures_and_formats_that_do_not_meet(trec_eval: Path) -> None:
    """trec_eval computes qrels measures from qrels and preference measures from
    preferences; otherwise it stops at the first query, exit 4 (its default, official,
    under -R prefs too). The command line too, with its message and a hint."""
    cases = [(["-R", "prefs"], PREFS, "num_ret"),
             (["-R", "prefs", "-m", "map", "-m", "prefs"], PREFS, "map"),
             (["-R", "qrels_prefs", "-m", "prefs_simp", "-m", "rbp"], QRELS, "rbp"),
             (["-q", "-m", "prefs_simp", "-m", "P.5"], QRELS, "prefs_simp"),
             (["-m", "all_prefs"], QRELS, "prefs_num_prefs_poss")]
    for flags, (judgments, run), measure in cases:
        theirs = run_binary(trec_eval, flags, judgments, run)
        assert f"trec_eval: Can't calculate measure '{measure}'" in theirs.stderr
        code, out, err = ours([*flags, str(judgments), str(run)])
        assert (code, out) == (theirs.returncode, theirs.stdout) == (4, "")
        assert f"polars-rank: Can't calculate measure '{measure}'\n" in err
        assert "polars-rank: hint: " in err


def test_prefs_read_as_qrels(trec_eval: Path) -> None:
    """Without -R, a preference file is malformed qrels (5 fields): both stop, exit 2."""
    theirs = run_binary(trec_eval, ["-m", "all_prefs"], *PREFS)
    assert "Malformed line 1" in theirs.stderr
    code, out, err = ours(["-m", "all_prefs", *map(str, PREFS)])
    assert (code, out) == (theirs.returncode, theirs.stdout) == (2, "")
    assert "malformed qrels line" in err


def test_metric_strings_read_qrels() -> None:
    code, out, err = ours(["-R", "prefs", "-m", "ndcg@10", "-m", "prefs", *map(str, PREFS)])
    assert (code, out) == (2, "")
    assert err.startswith("polars-rank: error: -m ndcg@10: a polars-rank metric reads qrels")


@pytest.mark.parametrize("option", ["--bounds", "--unjudged=high", "--ties=first",
                                    "--dialect=ranx"])
def test_options_preferences_have_no_use_for(option: str) -> None:
    code, out, err = ours([option, "-R", "prefs", "-m", "prefs", *map(str, PREFS)])
    assert (code, out) == (2, "")
    assert err.startswith(f"polars-rank: error: {option.split('=')[0]}: not for preference")


# each stops trec_eval at query b, after printing a's lines (-q)
BROKEN = {
    "two levels in one subgroup": "a j s d1 2\na j s d2 1\nb j s d1 2\nb j s d2 1\nb j s d1 1\n",
    "0 and above 0": "a j s1 d1 2\na j s1 d2 1\nb j s1 d1 2\nb j s1 d2 0\nb j s2 d2 2\n"
                     "b j s2 d3 1\n",
}
CYCLE = "a j s1 d1 2\na j s1 d2 1\nb j s1 d1 2\nb j s1 d2 1\nb j s2 d2 2\nb j s2 d1 1\n"
RUN = "a Q0 d1 1 1 t\na Q0 d2 1 2 t\nb Q0 d1 1 1 t\nb Q0 d3 1 1 t\n"
RUN_TWICE = "a Q0 d1 1 1 t\na Q0 d2 1 2 t\nb Q0 d1 1 1 t\nb Q0 d1 1 3 t\n"


@pytest.mark.parametrize("flags", [["-q"], ["-q", "-c"], []])
@pytest.mark.parametrize("problem", [*BROKEN, "a document twice in the run"])
def test_data_trec_eval_stops_on(problem: str, flags: list[str], trec_eval: Path,
                                 tmp_path: Path) -> None:
    judgments, run = tmp_path / "prefs", tmp_path / "run"
    judgments.write_text(BROKEN.get(problem, CYCLE))
    run.write_text(RUN_TWICE if "twice" in problem else RUN)
    code, out = same(trec_eval, [*flags, "-m", "prefs", "-R", "prefs"], judgments, run)
    assert code == 4
    assert out.startswith("prefs_num_prefs_poss  \ta\t1\n") == ("-q" in flags)
    assert "\tb\t" not in out


def test_a_preference_cycle(trec_eval: Path, tmp_path: Path) -> None:
    """trec_eval aborts (SIGABRT, its buffered lines lost); polars-rank stops (exit 4)."""
    judgments, run = tmp_path / "prefs", tmp_path / "run"
    judgments.write_text(CYCLE)
    run.write_text(RUN)
    flags = ["-q", "-m", "prefs", "-R", "prefs"]
    theirs = run_binary(trec_eval, flags, judgments, run)
    assert (theirs.returncode, theirs.stdout) == (-signal.SIGABRT, "")
    assert "Pref inconsistency found" in theirs.stderr
    code, out, err = ours([*flags, str(judgments), str(run)])
    assert (code, out) == (4, "")
    assert ("polars-rank: prefs: query 'b', judgment group 'j': document 'd1' and document "
            "'d2' are each preferred to the other") in err


# ----------------------------------------------------------------------------- random files

DOCS = ("a", "b", "c", "d9", "d10", "D2", "0010", "Z")
QUERIES = ("1", "2", "10", "q3", "Q3")
LEVELS = ("0", "1", "2", "3", "0.5", "2.0", "1e0", "0.0")
NEGATIVE = ("-1", "-3", "-5", "-0")
SCORES = ("1", "2", "0.5", "5e-1", "2.0", "-1", "0", "3", "1.25")


@st.composite
def collections(draw: st.DrawFn, fmt: str = "prefs", negative: bool = False) -> tuple[str, str]:
    """A preference file (or qrels read as one) and a run, as text.

    Judgment groups with one subgroup take any levels (a document maybe listed twice);
    groups with subgroups judge documents by a hidden worth, each subgroup with its own
    increasing levels, so that they never contradict each other (trec_eval stops or
    aborts on contradictions: tested above). Some judged documents are not retrieved,
    some retrieved ones not judged; one query is only in the run, and the run may lack a
    judged one.
    """
    queries = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=3, unique=True))
    lines: list[tuple[str, str, str, str, str]] = []
    for q in queries:
        for jg in draw(st.lists(st.sampled_from(("u1", "u2", "0", "j10", "j9")), min_size=1,
                                max_size=3, unique=True)):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
            subgroups = 1 if fmt == "qrels_prefs" else draw(st.integers(1, 3))
            if subgroups == 1:
                levels = LEVELS + (NEGATIVE if negative else ())
                for d in docs:
                    level = draw(st.sampled_from(levels))
                    lines += [(q, jg, "0", d, level)] * draw(st.sampled_from((1, 1, 1, 2)))
                continue
            worth = {d: draw(st.integers(-1 if negative else 0, 3)) for d in docs}
            for i in range(subgroups):
                members = draw(st.lists(st.sampled_from(docs), min_size=1, unique=True))
                scale = sorted(draw(st.lists(st.sampled_from((1, 2, 3, 5)), min_size=3,
                                             max_size=3)))
                for d in members:
                    w = worth[d]
                    level = 0 if w == 0 else -scale[0] if w < 0 else scale[w - 1]
                    lines.append((q, jg, f"s{i}", d, str(level)))
    lines = draw(st.permutations(lines))
    if fmt == "qrels_prefs":
        judgments = "".join(f"{q} {jg} {d} {level}\n" for q, jg, _, d, level in lines)
    else:
        judgments = "".join(f"{q}\t{jg} {jsg}  {d} {level}\n" for q, jg, jsg, d, level in lines)
    in_run = [q for q in queries if draw(st.integers(0, 5))] + ["only_run"]
    run = []
    for q in in_run:
        retrieved = draw(st.lists(st.sampled_from((*DOCS, "u1", "u2")), min_size=1,
                                  max_size=8, unique=True))
        run += [f"{q} Q0 {d} 0 {draw(st.sampled_from(SCORES))} tag\n" for d in retrieved]
    return judgments, "".join(draw(st.permutations(run)))


RANDOM_FLAGS = ["-q -m all_prefs", "-q -c -m all_prefs", "-q -M3 -m all_prefs",
                "-q -c -M0 -m all_prefs", "-m prefs", "-c -m all_prefs",
                "-q -n -m prefs_pair -m prefs_avgjg_Rnonrel_ret"]


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), fmt=st.sampled_from(["prefs", "qrels_prefs"]),
       negative=st.booleans(), command=st.sampled_from(RANDOM_FLAGS))
def test_random_collections(data: st.DataObject, fmt: str, negative: bool, command: str,
                            trec_eval: Path, tmp_path: Path) -> None:
    judgments_text, run_text = data.draw(collections(fmt, negative))
    judgments, run = tmp_path / "judgments", tmp_path / "run"
    judgments.write_text(judgments_text)
    run.write_text(run_text)
    flags = [*shlex.split(command), "-R", fmt]
    code, out, err = ours([*flags, str(judgments), str(run)])
    # a group with non-relevant documents at several levels (negative ones), fewer at the
    # lowest than relevant ones: trec_eval's prefs_avgjg_Rnonrel reads past its data
    assume("trec_eval reads past its data" not in err)
    theirs = run_binary(trec_eval, flags, judgments, run)
    assert (code, out) == (theirs.returncode, theirs.stdout), err


@pytest.mark.parametrize("levels", [7, 100])
def test_many_levels_and_documents(levels: int, trec_eval: Path, tmp_path: Path) -> None:
    """Large groups with many levels (counted from the bits of their places), a query
    with two groups sharing pairs (prefs_pair's shares of 1/2), ties in scores."""
    rng = random.Random(levels)
    docs = [f"d{i}" for i in range(400)]
    lines = [f"q{q} {g} {d} {rng.randrange(levels)}\n" for q in (1, 2)
             for g in ((0, 1) if q == 2 else (0,)) for d in rng.sample(docs, 300)]
    run = [f"q{q} Q0 {d} 0 {rng.randrange(50)} t\n" for q in (1, 2)
           for d in rng.sample(docs, 250)]
    judgments, run_file = tmp_path / "judgments", tmp_path / "run"
    judgments.write_text("".join(lines))
    run_file.write_text("".join(run))
    for flags in (["-q", "-m", "all_prefs"], ["-q", "-M", "100", "-m", "all_prefs"]):
        code, out = same(trec_eval, [*flags, "-R", "qrels_prefs"], judgments, run_file)
        assert code == 0
        assert out.count("\n") == 2 * 14 + 16


def test_past_the_data_is_nan(trec_eval: Path, tmp_path: Path) -> None:
    """Non-relevant documents at 0 and -1, fewer at -1 than relevant ones: trec_eval's
    prefs_avgjg_Rnonrel reads the R documents it keeps past the lowest level's end (its
    value is undefined). polars-rank prints nan there, says why, and the rest as the
    binary does."""
    judgments, run = tmp_path / "judgments", tmp_path / "run"
    judgments.write_text("q u d1 2\nq u d2 1\nq u d3 0\nq u d4 0\nq u d5 0\nq u d6 -1\n")
    run.write_text("q Q0 d1 1 3 t\nq Q0 d3 1 2 t\n")
    flags = ["-q", "-m", "all_prefs", "-R", "qrels_prefs"]
    code, out, err = ours([*flags, str(judgments), str(run)])
    assert code == 0
    assert "prefs_avgjg_Rnonrel   \tq\t   nan\n" in out
    assert "prefs_avgjg_Rnonrel   \tall\t   nan\n" in out
    assert "prefs_num_prefs_poss  \tall\t12\n" in out  # 1x5 + 1x4 + 3x1
    assert err.startswith("polars-rank: warning: prefs_avgjg_Rnonrel is NaN for 1 query ('q')")
    assert "trec_eval reads past its data there" in err
    theirs = run_binary(trec_eval, flags, judgments, run)
    assert theirs.returncode == 0
    assert [line for line in out.splitlines() if "Rnonrel   " not in line] == [
        line for line in theirs.stdout.splitlines() if "Rnonrel   " not in line]
    with pytest.warns(UserWarning, match="prefs_avgjg_Rnonrel is NaN for 1 query"):
        value = pr.evaluate_prefs(pr.read_run(run), pr.read_qrels(judgments,
                                                                  format="qrels_prefs"),
                                  ["prefs_avgjg_Rnonrel", "prefs_simp"])
    assert math.isnan(value["prefs_avgjg_Rnonrel"].item())


# ----------------------------------------------------------------------------- more runs


def test_runs_side_by_side(trec_eval: Path, tmp_path: Path) -> None:
    """Several runs: a table (csv), each column the binary's numbers for that run."""
    other = tmp_path / "other"
    lines = PREFS[1].read_text().splitlines()
    other.write_text("".join(" ".join([*f.split()[:4], str(i % 7), f.split()[5]]) + "\n"
                             for i, f in enumerate(lines)))
    code, out, err = ours(["--format", "csv", "-q", "-R", "prefs", "-m", "all_prefs",
                           str(PREFS[0]), str(PREFS[1]), str(other)])
    assert code == 0, err
    table = pl.read_csv(io.StringIO(out), schema_overrides={"qid": pl.String})
    for column, run in (("prefs.results.test", PREFS[1]), ("other", other)):
        theirs, _ = parse(run_binary(trec_eval, ["-q", "-R", "prefs", "-m", "all_prefs"],
                                     PREFS[0], run).stdout)
        for m, q, v in table.select("metric", "qid", column).iter_rows():
            text = str(round(v)) if m.startswith("prefs_num") else f"{v:6.4f}".strip()
            assert theirs[m, q] == text, (column, m, q)
        assert {m for m, _ in theirs} - {"runid", "num_q"} == set(PREFS_MEASURES)


def test_run_from_standard_input(trec_eval: Path) -> None:
    flags = ["-q", "-R", "prefs", "-m", "all_prefs", str(PREFS[0]), "-"]
    stdin = PREFS[1].read_bytes()
    theirs = subprocess.run([str(trec_eval), *flags], input=stdin, capture_output=True,
                            check=False)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    mine = subprocess.run([sys.executable, "-m", "polars_rank", "eval", *flags], input=stdin,
                          capture_output=True, check=False, env=env)
    assert mine.returncode == theirs.returncode == 0, mine.stderr
    assert mine.stdout == theirs.stdout


def test_the_api_prints_the_same(trec_eval: Path) -> None:
    """``pr.evaluate_prefs`` per query and over queries, printed as trec_eval prints."""
    per = pr.evaluate_prefs(pr.read_run(QRELS[1]),
                            pr.read_qrels(QRELS[0], format="qrels_prefs"), "all_prefs",
                            per_query=True)
    mean = pr.evaluate_prefs(pr.read_run(QRELS[1]),
                             pr.read_qrels(QRELS[0], format="qrels_prefs"), "all_prefs")
    theirs, _ = parse((DATA / "out.test.qrels_prefs").read_text())
    rows = [*per.iter_rows(named=True), {"qid": "all", **mean.row(0, named=True)}]
    for row in rows:
        for m in PREFS_MEASURES:
            text = str(round(row[m])) if m.startswith("prefs_num") else f"{row[m]:6.4f}".strip()
            assert theirs[m, row["qid"]] == text, (m, row["qid"])


# ----------------------------------------------------------------------------- byte ids

# ids that are not UTF-8 (Latin-1 bytes), and UTF-8 that is not ASCII: trec_eval compares
# and prints bytes; so must polars-rank, under -R prefs as under -R qrels
BYTE_IDS = {"q3": b"caf\xe9", "Q3": b"caf\xc3\xa9", "d9": b"\xe8", "Z": b"d\xff9",
            "j9": b"j\xe9", "u2": b"\xc3\xa9", "tag": b"r\xe9"}


def _as_bytes(text: str) -> bytes:
    """A drawn file with some of its ids swapped for :data:`BYTE_IDS`."""
    lines = []
    for line in text.splitlines():
        lines.append(b" ".join(BYTE_IDS.get(f, f.encode()) for f in line.split()))
    return b"\n".join(lines) + b"\n"


def _both(trec_eval: Path, argv: list[bytes], capsysbinary: pytest.CaptureFixture[bytes]
          ) -> tuple[int, bytes, bytes]:
    """The binary's and polars-rank's runs on the same bytes: their exit status and stdout
    must be equal; returns them (and polars-rank's stderr)."""
    theirs = subprocess.run([bytes(trec_eval), *argv], capture_output=True, check=False)
    capsysbinary.readouterr()
    try:
        code = main(["eval", *(os.fsdecode(a) for a in argv)])
    except SystemExit as exc:  # pragma: no cover - argparse
        code = int(exc.code or 0)
    out, err = capsysbinary.readouterr()
    assert out == theirs.stdout, (argv, out[:1500], theirs.stdout[:1500])
    assert code == theirs.returncode, (argv, err, theirs.stderr)
    return code, out, err


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), fmt=st.sampled_from(["prefs", "qrels_prefs"]),
       command=st.sampled_from(["-q -m all_prefs", "-q -c -m all_prefs", "-m prefs -m runid",
                                "-q -M2 -m prefs", "-q -D 0.QID -m all_prefs",
                                "-q -c -D 0.QID -m prefs"]))
def test_ids_as_bytes(data: st.DataObject, fmt: str, command: str, trec_eval: Path,
                      tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Non-UTF-8 ids in the judgments, the run (its tag too) and -D: compared as bytes
    (caf\\xe9 and caf\\xc3\\xa9 are two queries, sorted as bytes) and printed as they are."""
    judgments_text, run_text = data.draw(collections(fmt))
    judgments, run = tmp_path / "judgments", tmp_path / "run"
    judgments.write_bytes(_as_bytes(judgments_text))
    run.write_bytes(_as_bytes(run_text))
    argv = [b"0." + BYTE_IDS["q3"] if a == "0.QID" else a.encode() for a in shlex.split(command)]
    _, out, err = _both(trec_eval, [*argv, b"-R", fmt.encode(), bytes(judgments), bytes(run)],
                        capsysbinary)
    if b"\tcaf\xe9\t" not in out:  # the query was not printed: why
        assert b"-q" not in argv or b"caf\xe9 " not in judgments.read_bytes() or err


def test_ids_as_bytes_in_messages_and_tables(trec_eval: Path, tmp_path: Path,
                                            capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A judged query the run lacks is named as text (\\xe9 where not UTF-8); a table of
    runs shows the ids as text, and its numbers are the binary's."""
    judgments, run = tmp_path / "judgments", tmp_path / "run"
    judgments.write_bytes(b"caf\xe9 j 0 \xe8 2\ncaf\xe9 j 0 d 1\nq j 0 a 1\nq j 0 b 0\n")
    run.write_bytes(b"q Q0 a 1 2 t\nq Q0 b 1 1 t\n")
    flags = [b"-q", b"-m", b"prefs", b"-R", b"prefs"]
    code, out, err = _both(trec_eval, [*flags, bytes(judgments), bytes(run)], capsysbinary)
    assert (code, out) == (4, b"")
    assert b"result qid 'caf\\xe9' not found in qrels" in err
    run.write_bytes(b"q Q0 a 1 2 t\nq Q0 b 1 1 t\ncaf\xe9 Q0 \xe8 1 1 t\ncaf\xe9 Q0 d 1 2 t\n")
    _, theirs, _ = _both(trec_eval, [*flags, bytes(judgments), bytes(run)], capsysbinary)
    other = tmp_path / "other"
    other.write_bytes(run.read_bytes())
    assert main(["eval", "--format", "csv", *(f.decode() for f in flags), str(judgments),
                 str(run), str(other)]) == 0
    table = pl.read_csv(io.BytesIO(capsysbinary.readouterr().out))
    assert table.filter(pl.col("metric") == "prefs_simp")["qid"].to_list() == [
        "caf\\xe9", "q", "all"]  # byte order: 0x63 < 0x71
    values, _ = parse(theirs.decode("latin-1"))
    for metric, qid, value in table.select("metric", "qid", "run").iter_rows():
        key = (metric, qid.replace("\\xe9", "\xe9"))
        assert values[key] == (str(round(value)) if "num" in metric else f"{value:6.4f}")


# ----------------------------------------------------------------------------- -Z and -o


def _zscores_for(flags: list[str], judgments: Path, run: Path, trec_eval: Path, seed: int,
                 folder: Path) -> Path:
    """A random z-score file (test_trec_eval_command_line's) for the values the binary
    prints per query under ``flags``, its queries and measures kept clear of the end of
    trec_eval's tables (a last query and measure ``~``, where it would read past them)."""
    plain = [f for f in flags if f != "-n"]
    values, _ = parse(run_binary(trec_eval, ["-q", *plain], judgments, run).stdout)
    path = folder / f"zscores.{seed}"
    path.write_text(zscore_file(seed, values, extra=("num_q",)))
    return path


@settings(max_examples=examples(30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), fmt=st.sampled_from(["prefs", "qrels_prefs"]),
       command=st.sampled_from([*RANDOM_FLAGS, "-q -c -D 0.1 -m all_prefs",
                                "-q -m all_prefs -o", "-m prefs --Output_old_results_format=x"]),
       seed=st.integers(0, 10**6))
def test_zscores_on_random_collections(data: st.DataObject, fmt: str, command: str,
                                       seed: int, trec_eval: Path, tmp_path: Path) -> None:
    """-Z under -R prefs and -R qrels_prefs: every preference measure converted as trec_eval
    converts it (counts summed as z-scores, printed Z...%6.4f, num_q too), on random
    judgments and random z-score files (queries and measures missing, standard deviations
    of 0 on and off the mean); -o changes nothing."""
    judgments_text, run_text = data.draw(collections(fmt))
    judgments, run = tmp_path / "judgments", tmp_path / "run"
    judgments.write_text(judgments_text)
    run.write_text(run_text)
    flags = [*shlex.split(command), "-R", fmt]
    zfile = _zscores_for(flags, judgments, run, trec_eval, seed, tmp_path)
    code, out, err = ours([*flags, "-Z", str(zfile), str(judgments), str(run)])
    assume("trec_eval reads past its data" not in err)  # prefs_avgjg_Rnonrel: see above
    theirs = run_binary(trec_eval, [*flags, "-Z", str(zfile)], judgments, run)
    assert (code, out) == (theirs.returncode, theirs.stdout), err
    if code == 0 and "-n" not in flags:
        assert "Znum_q                 \tall\t" in out or "num_q" not in command


def test_zscores_on_nist_files(trec_eval: Path, tmp_path: Path) -> None:
    """NIST's prefs files with a z-score file for them: the binary's bytes, -q and -c,
    the table format naming the measures Z<name>, as trec_eval prints them."""
    flags = ["-q", "-m", "all_prefs", "-R", "prefs"]
    zfile = _zscores_for(flags, *PREFS, trec_eval, 7, tmp_path)
    for more in ([], ["-c"], ["-n"], ["-o"], ["-c", "-D", "0.40.PA.tran"]):
        code, out = same(trec_eval, [*more, *flags, "-Z", str(zfile)], *PREFS)
        assert code == 0
        assert "-n" in more or "Zprefs_num_prefs_poss  \tall\t" in out
        assert "\tall\t" in out or "-n" in more
    code, out, err = ours(["--format", "csv", *flags, "-Z", str(zfile), *map(str, PREFS)])
    assert code == 0, err
    table = pl.read_csv(io.StringIO(out), schema_overrides={"qid": pl.String})
    theirs, _ = parse(run_binary(trec_eval, [*flags, "-Z", str(zfile)], *PREFS).stdout)
    assert set(table["metric"]) == {f"Z{m}" for m in PREFS_MEASURES}
    for metric, qid, value in table.select("metric", "qid", "prefs.results.test").iter_rows():
        assert theirs[metric, qid] == f"{value:6.4f}".strip(), (metric, qid)


def test_zscores_past_the_table(trec_eval: Path) -> None:
    """NIST's zscores_file has queries 301-303 only: trec_eval 10 looks query 31.PA.cb up
    past the end of its table and crashes; polars-rank prints -1000000 there, as for any
    query the file lacks, and a note says why."""
    flags = ["-q", "-m", "all_prefs", "-R", "prefs", "-Z", str(DATA / "zscores_file")]
    theirs = run_binary(trec_eval, flags, *PREFS)
    assert theirs.returncode == -signal.SIGSEGV
    code, out, err = ours([*flags, *map(str, PREFS)])
    assert code == 0
    assert "Zprefs_simp            \t31.PA.cb\t-1000000.0000\n" in out
    assert "Zprefs_simp            \tall\t-1000000.0000\n" in out
    assert "looks query '31.PA.cb' up past the end of its table" in err
    assert out.startswith(theirs.stdout[: theirs.stdout.rfind("\n") + 1])


@pytest.mark.parametrize("problem", ["/nonexistent", "blank"])
def test_zscore_file_it_cannot_read(problem: str, trec_eval: Path, tmp_path: Path) -> None:
    """A z-score file trec_eval cannot read stops both (exit status 255) under -R prefs,
    before the measures and the judgments meet (a qrels measure: exit 4 otherwise)."""
    zfile = tmp_path / "z"
    zfile.write_text("1.EC.AB prefs_simp 0 1\n\n")
    path = problem if problem.startswith("/") else str(zfile)
    for measure in ("prefs", "map"):
        code, out = same(trec_eval, ["-m", measure, "-R", "prefs", "-Z", path], *PREFS)
        assert (code, out) == (255, "")
