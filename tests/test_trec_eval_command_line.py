"""trec_eval 10.0's ``-Z``, ``-o``, byte ids and long options, against the binary.

As ``test_trec_eval_binary.py`` (whose fixtures build the binary): the same random
files (``trec_files.py``) and trec_eval's own test collection are evaluated by the
binary and by ``polars-rank eval`` with the same arguments, and the standard outputs
must be the same bytes and the exit statuses equal.

* ``-Z FILE``: random z-score files (queries and measures missing, standard
  deviations of 0 with the value on and off the mean, negative ones, tabs, CRLF, lines
  in any order) and NIST's ``zscores_file`` (its ``out.test.aqZ``), with ``-q``, ``-c``,
  ``-n``, ``-J``, ``-M``, ``-l``, ``-D``; its errors (exit status 255); and
  :func:`polars_rank.evaluate`'s ``zscores=``, value for value against the binary's
  unrounded doubles. trec_eval 10 reads past the end of its table when a looked-up
  measure sorts after every measure the file has for the query, or a query id after
  every query id of the file (convert_zscores.c's binary searches): it crashes or uses
  the next query's mean; the random files keep clear of it (a last measure ``~`` in
  each query, a last query ``~``) and :func:`test_where_trec_eval_reads_past_its_table`
  pins what each program does there.
* ``-o`` (and ``--Output_old_results_format X``): obsolete, changes nothing.
* ids that are not UTF-8, compared and printed as bytes.
* trec_eval's long options abbreviated as getopt_long takes them, and its usage errors
  (exit status 1).
"""

from __future__ import annotations

import math
import random
import shlex
import signal
import subprocess
from typing import TYPE_CHECKING

import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_trec_eval_binary import (
    LOG2,
    _complete,
    _measure,
    binary,
    byte_differences,
    files,
    ours_all,
    run_binary,
)
from test_trec_eval_collection import DATA, parse
from trec_files import Case, trec_files

import polars_rank as pr
from polars_rank.__main__ import main
from polars_rank._evaluation.zscores import MISSING_ZSCORE, standardized, zscore_summary

if TYPE_CHECKING:
    from pathlib import Path

# the binary's fixtures, found by their names

SENTINEL = "~"
"""Sorts after every measure name and query id of the random files (0x7E): a last
measure in each query of a random z-score file, and a last query, so that trec_eval's
lookups never read past its table (see the module docstring)."""


# ------------------------------------------------------------------- random z-score files


def zscore_file(seed: int, values: dict[tuple[str, str], str], extra: tuple[str, ...] = (
        "num_q", "gm_map", "gm_bpref", "relstring")) -> str:
    """A z-score file for the per-query ``values`` trec_eval printed (``(measure, qid)``).

    Some queries and measures left out (trec_eval then prints -1000000), the printed
    value as the mean with a standard deviation of 0 (z-score 0) or another mean
    with one of 0 (-1000000), negative standard deviations, means from the printed
    values (``%6.4f``) and random ones, spelled in several ways; ``extra`` measures
    trec_eval converts without printing them per query.
    """
    rng = random.Random(seed)
    queries = sorted({q for _, q in values if q != "all"} | {"not_judged"})
    measures = sorted({m for m, q in values if q != "all"} | set(extra))
    lines = []
    for q in queries:
        if rng.random() < 0.15:
            continue  # the whole query missing
        for m in measures:
            if rng.random() < 0.12:
                continue  # this measure missing
            value = values.get((m, q), "0.5")
            value = "0" if value.startswith(("'", "-nan")) else value
            kind = rng.random()
            if kind < 0.12:
                mean, sd = value, rng.choice(("0", "0.0000", "-0"))  # on the mean: 0
            elif kind < 0.2:
                mean, sd = f"{float(value) + 0.25:.4f}", "0"  # off the mean: -1000000
            else:
                mean = rng.choice((value, f"{rng.uniform(-1, 3):6.4f}", repr(rng.random()),
                                   f"{rng.uniform(0, 50):.3e}"))
                sd = rng.choice((f"{rng.uniform(0.01, 2):6.4f}", repr(rng.uniform(0.1, 9)),
                                 f"-{rng.uniform(0.1, 1):.2f}", "1e-1"))
            lines.append((q, m, mean, sd))
        lines.append((q, SENTINEL, "0", "1"))
    lines.append((SENTINEL, SENTINEL, "0", "1"))
    rng.shuffle(lines)
    blanks, ends = (" ", "\t", "  ", " \t"), ("", " ", "\r")
    return "".join(f"{rng.choice(('', ' '))}{q}{rng.choice(blanks)}{m}{rng.choice(blanks)}"
                   f"{mean}{rng.choice(blanks)}{sd}{rng.choice(ends)}\n"
                   for q, m, mean, sd in lines)


def _with_zscores(case: Case, command: str, trec_eval: Path, folder: Path
                  ) -> tuple[list[str], Path, Path]:
    """The case's files, and the command's flags with ``ZFILE`` (added as ``-Z ZFILE``
    if not there) a z-score file for the case's values under the command."""
    qrels, run, _ = files(case, folder)
    if "ZFILE" not in command:
        command += " -Z ZFILE"
    plain = [f for f in shlex.split(command) if "ZFILE" not in f and f not in ("-n", "-Z")]
    values, _ = parse(binary(trec_eval, ["-q", *plain], qrels, run))
    path = folder / f"zscores.{case.seed}"
    path.write_text(zscore_file(case.seed, values))
    return shlex.split(command.replace("ZFILE", str(path))), qrels, run


ZSCORE_COMMANDS = (
    "",  # official
    "-q",
    "-n -q",
    "-q -m all_trec",
    "-q -c -m all_trec",
    "-q -l2 -m all_trec",
    "-q -c -M5 -m all_trec",
    "-q -J -m all_trec",
    "-q -c -M0 -J -m all_trec -m iprec_at_recall.0,.04",  # -nan, on the all line too
    "-q -m P.5,7 -m rbp.p=0.5,1=2 -m set_F.2 -m relstring.5 -m utility.2,-1,0,0",
    "-c -m all_trec",
    "--Zscore=ZFILE -q -o",
)


@pytest.mark.parametrize("command", ZSCORE_COMMANDS)
def test_zscores_print_what_trec_eval_prints(command: str, trec_eval: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """-Z on random files and random z-score files: the same bytes, exit 0."""
    flags = shlex.split(command)
    index = ZSCORE_COMMANDS.index(command)
    for i in range(3):
        case = trec_files(5000 + 10 * index + i, qrels_only=_complete(flags))
        z_flags, qrels, run = _with_zscores(case, command, trec_eval, tmp_path)
        theirs = run_binary(trec_eval, z_flags, qrels, run)
        assert theirs.returncode == 0, f"trec_eval {shlex.join(z_flags)}: {theirs.stderr}"
        code, out, err = ours_all(z_flags, qrels, run, capsys)
        assert code == 0, err
        assert "past the end" not in err  # the files keep clear of trec_eval's misreads
        left = byte_differences(out, theirs.stdout)
        assert not left, (f"seed {case.seed}: {len(left)} lines differ (files in {tmp_path}):"
                          "\n  " + "\n  ".join(left[:20]))
        assert "-1000000.0000" in out or "-q" not in flags  # a value the file lacks
        assert "\t0.0000\n" in out or "-q" not in flags  # on the mean, sd 0 (and others)


@pytest.mark.xfail(  # the open Polars 1.x defect of test_trec_eval_binary.py
    pl.__version__.startswith("1."), strict=False,
    reason="Polars 1.x: a one-query list's null-typed column reaches a cum_sum (open)")
def test_zscores_debug_query(trec_eval: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """-Z with -D level.qid, with and without -c: each query of a random case."""
    for command in ("-q -c -m all_trec", "-q -c -m official", "-q -m official"):
        case = trec_files(5900, qrels_only="-c" in command)
        z_flags, qrels, run = _with_zscores(case, command, trec_eval, tmp_path)
        for qid in sorted(q for q, kind in case.kinds.items()
                          if kind not in ("run_only", "pooled")):  # pooled: trec_eval stops
            debug = [*z_flags, "-D", f"0.{qid}"]
            theirs = run_binary(trec_eval, debug, qrels, run)
            code, out, _ = ours_all(debug, qrels, run, capsys)
            assert (code, out) == (theirs.returncode, theirs.stdout), (qid, command)


def test_nist_zscores_file(trec_eval: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """NIST's ``make quicktest`` -Z test: ``out.test.aqZ``, byte for byte (and -c, -n)."""
    z = str(DATA / "zscores_file")
    flags = ["-q", "-m", "all_trec", "-Z", z]
    code, out, err = ours_all(flags, DATA / "qrels.test", DATA / "results.test", capsys)
    assert code == 0, err
    assert out == (DATA / "out.test.aqZ").read_text()
    assert binary(trec_eval, flags, DATA / "qrels.test", DATA / "results.test") == out
    for more in (["-c"], ["-n"], ["-c", "-M0"], ["-J", "-l2"]):
        argv = [*more, *flags]
        run = DATA / ("results.trunc" if "-c" in more else "results.test")
        theirs = binary(trec_eval, argv, DATA / "qrels.test", run)
        code, out, err = ours_all(argv, DATA / "qrels.test", run, capsys)
        assert (code, out) == (0, theirs), (more, err)


@pytest.mark.filterwarnings("ignore:.*no judgments and is not evaluated:UserWarning")
@pytest.mark.parametrize("command", ["-q -m all_trec", "-q -J -m all_trec",
                                     "-q -m official -m ndcg_cut.5"])
def test_zscores_of_evaluate_are_trec_evals(command: str, trec_eval: Path,
                                            trec_eval_17: Path, tmp_path: Path) -> None:
    """``evaluate(zscores=pr.read_zscores(...))`` gives the binary's -Z doubles.

    Per query, the z-score of every measure of the command is the binary's (``%.17g``)
    bit for bit (``LOG2``'s: within 1e-9, their values being a few units in the last
    place apart); the summary, whose sum runs in another order, within 1e-12.
    """
    checked = 0
    for seed in range(5950, 5954):
        case = trec_files(seed)
        z_flags, qrels, run = _with_zscores(case, command, trec_eval, tmp_path)
        theirs, bad = parse(binary(trec_eval_17, z_flags, qrels, run))
        assert not bad
        # under -J trec_eval divides 0 by 0 for iprec_at_recall and 11pt_avg on empty
        # lists (-nan, or -1000000 from a standard deviation of 0): evaluate() gives 0
        nan = ("Ziprec_at_recall", "Z11pt_avg") if "-J" in command else ()
        names = sorted({m.removeprefix("Z") for m, _ in theirs
                        if m.startswith("Z") and m != "Znum_q" and not m.startswith(nan)})
        options = {"dialect": "trec_eval", "judged_only": "-J" in z_flags,
                   "zscores": pr.read_zscores(z_flags[-1])}
        run_df, qrels_df = pr.read_run(run), pr.read_qrels(qrels)
        per = pr.evaluate(run_df, qrels_df, names, per_query=True, **options)  # type: ignore[arg-type]
        means = pr.evaluate(run_df, qrels_df, names, **options)  # type: ignore[arg-type]
        for column, name in zip(per.columns[1:], names, strict=True):
            for qid, value in per.select("qid", column).iter_rows():
                if theirs.get((f"Z{name}", qid), "nan").endswith("nan"):
                    continue  # geometric means: not per query; -nan: evaluate() gives 0
                want = float(theirs[f"Z{name}", qid])
                tolerance = 1e-9 if _measure(name) in LOG2 else 0.0
                assert value == want or math.isclose(value, want, rel_tol=tolerance), \
                    (seed, name, qid, value, want)
                checked += 1
            want = float(theirs[f"Z{name}", "all"])
            if math.isnan(want):
                continue
            assert math.isclose(means[column].item(), want, rel_tol=1e-12, abs_tol=1e-12), \
                (seed, name, means[column].item(), want)
    assert checked > 100


def test_zscore_file_errors(trec_eval: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """A z-score file trec_eval cannot read stops both, exit status 255, nothing printed.

    A mean that is not a number: trec_eval's atof reads ``x`` as 0 and goes on;
    polars-rank refuses it, as it refuses such a score in a run.
    """
    qrels, run = DATA / "qrels.test", DATA / "results.test"
    cases = {
        "missing": None,
        "empty": "",
        "three fields": "301 map 0.1\n",
        "blank line": "301 map 0.1 0.2\n\n302 map 0.1 0.2\n",
        "five fields": "301 map 0.1 0.2 x\n",
    }
    for what, text in cases.items():
        path = tmp_path / what.replace(" ", "_")
        if text is not None:
            path.write_text(text)
        flags = ["-q", "-Z", str(path)]
        theirs = run_binary(trec_eval, flags, qrels, run)
        code, out, err = ours_all(flags, qrels, run, capsys)
        assert (theirs.returncode, theirs.stdout) == (255, ""), what
        assert (code, out) == (255, ""), what
        assert err.startswith("polars-rank: -Z: cannot read the z-score file: "), err
    path = tmp_path / "not_a_number"
    path.write_text("301 map x 0.2\n301 ~ 0 1\n~ ~ 0 1\n")  # no lookup past the table
    assert run_binary(trec_eval, ["-Z", str(path)], qrels, run).returncode == 0
    code, _, err = ours_all(["-Z", str(path)], qrels, run, capsys)
    assert code == 255
    assert "line 1: '301 map x 0.2' (mean 'x' is not a finite number)" in err


def test_where_trec_eval_reads_past_its_table(trec_eval: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """convert_zscores.c's binary searches end one past the table: what each program does.

    Query ``a`` has only ``P_5`` in the file, and ``map`` sorts after it: trec_eval
    reads the next entry, query ``b``'s first, ``map``, and standardizes ``a``'s map
    with ``b``'s mean; polars-rank prints -1000000 (the file has no mean for it, as
    trec_eval's help says) and a note. After the last query of the file, trec_eval
    reads memory that is not its table and crashes.
    """
    qrels, run, table = tmp_path / "qrels", tmp_path / "run", tmp_path / "zscores"
    qrels.write_text("a 0 d1 1\na 0 d2 0\nb 0 d1 1\n")
    run.write_text("a Q0 d1 1 3 t\na Q0 d2 2 2 t\nb Q0 d2 1 1 t\nb Q0 d1 2 0.5 t\n")
    table.write_text("a P_5 0.1 0.1\nb map 0.25 0.25\nb recip_rank 0 1\nzz ~ 0 1\n")
    flags = ["-q", "-m", "map", "-m", "P.5", "-Z", str(table)]
    theirs = binary(trec_eval, flags, qrels, run)
    assert "Zmap                   \ta\t3.0000\n" in theirs  # (1 - 0.25) / 0.25: b's
    code, out, err = ours_all(flags, qrels, run, capsys)
    assert code == 0
    assert "Zmap                   \ta\t-1000000.0000\n" in out
    assert byte_differences(out, theirs)[2:] == [  # after the --- and +++ lines
        "-Zmap                   \ta\t-1000000.0000",
        "+Zmap                   \ta\t3.0000",
        "-Zmap                   \tall\t-499999.5000",
        "+Zmap                   \tall\t2.0000",
    ]
    assert "trec_eval 10 looks query 'a', measure 'map', up past the end" in err

    table.write_text("a P_5 0.1 0.1\n")  # query b after the file's last query: a crash
    crashed = run_binary(trec_eval, flags, qrels, run)
    assert crashed.returncode == -signal.SIGSEGV
    code, out, err = ours_all(flags, qrels, run, capsys)
    assert code == 0
    assert out.count("-1000000.0000") == 4  # a's map, b's map and P_5, the all line of map
    assert "up past the end" in err


def test_zscores_in_other_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--format csv and table under -Z: the same z-scores, named Z<measure>."""
    z = str(DATA / "zscores_file")
    argv = ["-q", "-m", "map", "-m", "P.5", "-m", "gm_map", "-Z", z,
            str(DATA / "qrels.test"), str(DATA / "results.test")]
    code, out, _ = ours_all(argv[:-2], DATA / "qrels.test", DATA / "results.test", capsys)
    assert code == 0
    printed, _ = parse(out)
    assert main(["eval", "--format", "csv", *argv]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "metric,qid,results.test"
    values = {(m, q): float(v) for m, q, v in (row.split(",") for row in rows[1:])}
    assert printed.keys() <= values.keys()
    assert {key: f"{values[key]:6.4f}".strip() for key in printed} == printed
    assert values["Zgm_map", "all"] == 0.0  # -1000000 per query: exp(-1000000 / 3)


def test_missing_zscore_constant() -> None:
    assert MISSING_ZSCORE == -1_000_000.0  # trec_eval.h:218


def test_read_zscores_refuses(tmp_path: Path) -> None:
    """read_zscores names the file, the line and why; evaluate(zscores=) checks its frame."""
    path = tmp_path / "z"
    for text, why in (("301 map 0.1 0.2\n301 map 0.3 0.4\n", "is on line 1 too"),
                      ("301 map 1e999 0.2\n", "is not a finite number"),
                      ("301 map 0.1 nan\n", "stddev .nan. is not a finite number"),
                      ("301 map 0x10 0.2\n", "is not a finite number"),
                      ("301 map 1 2\n\0\n", "NUL byte"),
                      (b"3\xe901 map 1 2\n", "not utf-8")):
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        with pytest.raises(pr.TrecFormatError, match=why):
            pr.read_zscores(path)
    path.write_bytes(b"3\xe901 map 1 2\n")
    assert pr.read_zscores(path, encoding="latin-1")["qid"].to_list() == ["3\xe901"]
    run = pl.DataFrame({"qid": ["1"], "docid": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"qid": ["1"], "docid": ["a"], "rel": [1]})
    twice = pl.DataFrame({"qid": ["1", "1"], "measure": ["map", "map"], "mean": [0.0, 1.0],
                          "stddev": [1.0, 1.0]})
    with pytest.raises(pr.InvalidDataError, match="'1', measure 'map' is on more than one"):
        pr.evaluate(run, qrels, ["map"], zscores=twice)
    with pytest.raises(TypeError, match="no column 'stddev'"):
        pr.evaluate(run, qrels, ["map"], zscores=twice.drop("stddev"))
    with pytest.raises(TypeError, match="zscores: a Polars DataFrame"):
        pr.evaluate(run, qrels, ["map"], zscores={"qid": ["1"]})  # type: ignore[arg-type]
    one = twice.head(1).with_columns(pl.lit(0.5).alias("mean"), pl.lit(0.25).alias("stddev"))
    lazy = pr.evaluate(run.lazy(), qrels, ["map", "P_5"], zscores=one.lazy())
    assert isinstance(lazy, pl.LazyFrame)  # lazy in, lazy out
    assert lazy.collect().row(0) == (2.0, MISSING_ZSCORE)


# ------------------------------------------------------------------------------------- -o

@pytest.mark.parametrize("command", [
    "-o", "-o -q", "-q -o -c -m all_trec", "--Output_old_results_format x -q -m all_trec",
    "--Output_old_results_format=1 -n -q", "-oq -m P.5"])
def test_old_format_changes_nothing(command: str, trec_eval: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """trec_eval 10 reads -o (relation_flag) and never looks at it again: same output."""
    flags = shlex.split(command)
    for i in range(2):
        case = trec_files(6000 + i, qrels_only=_complete(flags))
        qrels, run, _ = files(case, tmp_path)
        theirs = binary(trec_eval, flags, qrels, run)
        assert theirs == binary(trec_eval, _without_o(flags), qrels, run)
        code, out, err = ours_all(flags, qrels, run, capsys)
        assert (code, out) == (0, theirs), err


def _without_o(flags: list[str]) -> list[str]:
    """The flags without trec_eval's -o (alone, clustered, or long with its value)."""
    out: list[str] = []
    for i, flag in enumerate(flags):
        if flag == "--Output_old_results_format" or (
                i and flags[i - 1] == "--Output_old_results_format"):
            continue
        if flag.startswith("--Output_old_results_format=") or flag == "-o":
            continue
        out.append(flag.replace("o", "") if flag.startswith("-o") else flag)
    return out


# ------------------------------------------------------------------------------ byte ids

def _bytes_case(seed: int, *, qrels_only: bool = False) -> tuple[bytes, bytes, bytes]:
    """A random case with ids that are not UTF-8, or UTF-8 that is not ASCII.

    One query id becomes Latin-1 ``caf\\xe9`` (its bytes sort after every ASCII id),
    one ``caf\\xc3\\xa9`` (UTF-8 café), documents ``\\xe8``, ``d\\xff9``, ``\\xc3\\xa9``.
    Returns the qrels, the run and the Latin-1 query id.
    """
    case = trec_files(seed, qrels_only=qrels_only)
    graded = sorted(q for q, kind in case.kinds.items() if kind == "graded")
    swaps = {graded[0]: "caf\xe9", graded[1]: "caf\xc3\xa9", "d9": "\xe8", "Z": "d\xff9",
             "x": "\xc3\xa9"}

    def swapped(text: str) -> bytes:
        lines = []
        for line in text.splitlines():
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                fields[0] = swaps.get(fields[0], fields[0])
                fields[2] = swaps.get(fields[2], fields[2])
            lines.append(" ".join(fields))
        return ("\n".join(lines) + "\n").encode("latin-1")

    return swapped(case.qrels), swapped(case.run), b"caf\xe9"


def test_ids_are_bytes(trec_eval: Path, tmp_path: Path,
                       capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """The issue's example: caf\\xe8 retrieved, caf\\xe9 judged: P.1 is 0, as trec_eval."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"q1 0 caf\xe9 1\n")
    run.write_bytes(b"q1 Q0 caf\xe8 1 0.9 r\n")
    theirs = subprocess.run([str(trec_eval), "-m", "P.1", str(qrels), str(run)],
                            capture_output=True, check=True).stdout
    assert theirs == b"P_1                   \tall\t0.0000\n"
    assert main(["eval", "-m", "P.1", str(qrels), str(run)]) == 0
    assert capsysbinary.readouterr().out == theirs
    with pytest.raises(pr.TrecFormatError, match="not UTF-8"):  # the API's default
        pr.read_run(run)
    assert pr.read_run(run, encoding="latin-1")["docid"].to_list() == ["caf\xe8"]


@pytest.mark.parametrize("command", [
    "-q -m all_trec", "-q -c -m all_trec", "-q -m official -D 0.QID", "-q -c -J -m all_trec",
    "-q -m P.5 -m runid -Z ZFILE"])
def test_ids_as_bytes_on_random_files(command: str, trec_eval: Path, tmp_path: Path,
                                      capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """Ids in Latin-1 and UTF-8 bytes: the binary's numbers, ids printed byte for byte."""
    flags = shlex.split(command)
    for i in range(3):
        qrels_text, run_text, qid = _bytes_case(6100 + i, qrels_only=_complete(flags))
        qrels, run = tmp_path / "qrels", tmp_path / "run"
        qrels.write_bytes(qrels_text)
        run.write_bytes(run_text)
        zfile = tmp_path / "z"
        zfile.write_bytes(b"caf\xe9 P_5 0.25 0.5\ncaf\xc3\xa9 P_5 0.5 0.25\n~ ~ 0 1\n")
        argv = [a.encode() for a in flags]
        argv = [b"0." + qid if a == b"0.QID" else bytes(zfile) if a == b"ZFILE" else a
                for a in argv]
        theirs = subprocess.run([str(trec_eval).encode(), *argv, bytes(qrels), bytes(run)],
                                capture_output=True, check=False)
        assert theirs.returncode == 0, theirs.stderr
        code = main(["eval", *(a.decode("utf-8", "surrogateescape") for a in argv),
                     str(qrels), str(run)])
        out = capsysbinary.readouterr().out
        assert code == 0
        assert out == theirs.stdout
        if "-q" in flags:
            assert b"\tcaf\xe9\t" in out


# ------------------------------------------------------------------------- long options

@pytest.mark.parametrize("command", [
    "--meas P.5 --q", "--m P.5 --n --q", "--me=map --quer", "--le 2 --q -m all_trec",
    "--lev=2 --q", "--com --q", "--Judged --q -m all_trec", "--Num 50 -q -m utility.1,-1,0,1",
    "--Max 3 --q", "--Max_r=3 --q", "--D 0 --q", "--Rel qrels --Res trec_results --q",
    "--c --J --M 5 --N 9 --l 2 --q", "--O x --q", "--Z ZFILE --q", "--Zs=ZFILE --q -c",
    "--measure P.5 --measure=map --query_eval_wanted", "-qc --nos", "--level_for_rel=2 -q",
])
def test_long_options_as_getopt_long_reads_them(command: str, trec_eval: Path,
                                                tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Abbreviated long options: what trec_eval's getopt_long takes, eval takes alike."""
    table = tmp_path / "zscores"  # query 301 (if any), then the last query and measure
    table.write_text("301 map 0.2 0.1\n301 P_5 0.3 0.2\n301 ~ 0 1\n~ ~ 0 1\n")
    flags = [f.replace("ZFILE", str(table)) for f in shlex.split(command)]
    complete = _complete(flags) or any(f in ("--com", "--c") for f in flags)
    for i in range(2):
        case = trec_files(6200 + i, qrels_only=complete)
        qrels, run, _ = files(case, tmp_path)
        theirs = run_binary(trec_eval, flags, qrels, run)
        assert theirs.returncode == 0, theirs.stderr
        code, out, err = ours_all(flags, qrels, run, capsys)
        assert (code, out) == (0, theirs.stdout), err


@pytest.mark.parametrize("command", [
    "--Re qrels", "--foo", "-x", "--query_eval_wanted=1", "--nosummary=yes",
    "--Output_old_results_format", "-m", "--measure", "--Zscore",
])
def test_usage_errors_exit_1(command: str, trec_eval: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """What trec_eval's getopt_long refuses: usage on stderr, exit status 1, for both."""
    flags = shlex.split(command)
    qrels, run = DATA / "qrels.test", DATA / "results.test"
    theirs = run_binary(trec_eval, flags, qrels, run)
    code, out, err = ours_all(flags, qrels, run, capsys)
    assert (theirs.returncode, theirs.stdout) == (1, "")
    assert (code, out) == (1, "")
    assert "error" in err


def test_ids_in_messages_are_shown_as_text(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Ids read byte for byte are shown as UTF-8 (``\\xe9`` where not) on stderr."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"q1 0 d 1\ncaf\xc3\xa9 0 d 1\n")
    run.write_bytes(b"caf\xe9 Q0 d 1 1 t\nq1 Q0 d 1 1 t\n")
    code, out, err = ours_all(["-m", "P.1"], qrels, run, capsys)
    assert (code, out) == (4, "")  # café (UTF-8) judged, not retrieved: trec_eval stops
    assert "(e.g. 'caf\\xe9')" in err
    assert "result qid 'café' not found in qrels" in err


# ---------------------------------------------------------- z-scores: a transcription of C


def convert_to_zscore(value: float, entry: tuple[float, float] | None) -> float:
    """te_convert_to_zscore (convert_zscores.c) for one value, transcribed."""
    if entry is None:
        return MISSING_ZSCORE
    mean, stddev = entry
    if stddev:
        return (value - mean) / stddev
    return 0.0 if value == mean else MISSING_ZSCORE


def c_exp(x: float) -> float:
    """C's ``exp``: HUGE_VAL (inf) where the result overflows (Python's raises)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


VALUES = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 3.0, float("nan")]),
                   st.floats(-5, 50, allow_nan=False))


@settings(max_examples=examples(100), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_standardized_is_trec_evals_conversion(data: st.DataObject) -> None:
    """Every value, summed or averaged or geometric, as convert_zscores.c and meas_avg.c."""
    queries = data.draw(st.lists(st.sampled_from(["1", "2", "10", "a", "b"]), min_size=1,
                                 max_size=5, unique=True))
    kinds = {"map": "mean", "num_ret": "sum", "gm_map": "geometric"}
    per = pl.DataFrame({"qid": queries, **{m: [data.draw(VALUES) for _ in queries]
                                           for m in kinds}})
    entries = {}
    for q in [*queries, "other"]:
        for m in kinds:
            if data.draw(st.booleans()):
                mean = data.draw(st.sampled_from([0.0, 1.0, 0.5, 2.25]))
                sd = data.draw(st.sampled_from([0.0, -0.0, 1.0, 0.25, -2.0, 1e-3]))
                entries[q, m] = (mean, sd)
    reference = pl.DataFrame(
        [(q, m, mean, sd) for (q, m), (mean, sd) in entries.items()],
        schema={"qid": pl.String, "measure": pl.String, "mean": pl.Float64,
                "stddev": pl.Float64}, orient="row")
    got = standardized(per.lazy(), reference, kinds, "qid").collect()  # type: ignore[arg-type]
    assert got["qid"].to_list() == queries  # the rows' order kept
    for m, how in kinds.items():
        want = []
        for q, value in per.select("qid", m).iter_rows():
            logged = math.log(max(value, 1e-5)) if how == "geometric" else value
            want.append(convert_to_zscore(logged, entries.get((q, m))))
        assert [str(v) for v in got[m]] == [str(v) for v in want], m
        total = 0.0
        for v in want:  # meas_acc.c: in the queries' order
            total += v
        summary = got.select(zscore_summary(pl.col(m), how, in_order=True)).item()  # type: ignore[arg-type]
        expected = total if how == "sum" else total / len(want)
        expected = c_exp(expected) if how == "geometric" else expected
        assert str(summary) == str(expected), m
