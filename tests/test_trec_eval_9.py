"""``polars-rank eval`` against pytrec_eval (trec_eval 9.x), flag by flag.

pytrec_eval takes trec_eval's measures and parameters (``-m``), the relevance level
(``-l``: ``relevance_level``) and ``-J`` (``judged_docs_only_flag``), and gives the
per-query values (``-q``); it has no ``-c``, ``-M``, ``-N`` or ``-n``. Here the same
random files (``trec_files.py``, raw scores with near-equal values) go to both, and
every value pytrec_eval returns must equal ours within 1e-9, except:

* trec_eval 10 changed ``iprec_at_recall`` and ``11pt_avg`` (recall x is round(x R)
  relevant rows, 9 took (long)(x R + 0.9)): the command line prints 10's numbers
  (``test_trec_eval_binary.py``); ``rounding=trec_eval9`` gives 9's, checked here;
* measures and flags polars-rank does not have yet (``PENDING`` of
  ``test_trec_eval_binary.py``): they must really be missing.

Scores: trec_eval 9 read them as 32-bit floats, trec_eval 10 (polars-rank's default)
as doubles; ``--ties trec_eval9`` (``ties="trec_eval9"``) reads them as 9 did, so the
near-equal scores of the files give pytrec_eval's numbers here.
The files have no query whose judgments are all ``-1``: pytrec_eval crashes on one.
"""

from __future__ import annotations

import csv
import io
import math
import shlex
from itertools import pairwise
from typing import TYPE_CHECKING

import polars as pl
import pytest
import pytrec_eval
from test_trec_eval_binary import PENDING
from trec_files import trec_files

import polars_rank as pr
from polars_rank.__main__ import main

if TYPE_CHECKING:
    from pathlib import Path

NINE_DIFFERS = ("iprec_at_recall", "11pt_avg")
"""Measures trec_eval 10 computes differently from 9 (CHANGELOG: "int truncation to round")."""

COMMANDS = (
    "-m official",
    "-m all_trec",
    "-l2 -m all_trec",
    "-l3 -m all_trec",  # pytrec_eval refuses -l0 (trec_eval takes it)
    "-m P.3,7 -m ndcg_cut.3 -m iprec_at_recall.0.35 -m Rprec_mult.0.5 -m success.2 -m recall.4",
    "-J -m all_trec",
)
CASES = 2


def _measure(name: str) -> str:
    """``P_10`` -> ``P``, ``iprec_at_recall_0.10`` -> ``iprec_at_recall``."""
    return name if name in pytrec_eval.supported_measures else name.rsplit("_", 1)[0]


def pytrec(qrels: Path, run: Path, flags: list[str]) -> dict[str, dict[str, float]]:
    """pytrec_eval's per-query values for the command line ``flags``."""
    measures = {b for a, b in pairwise(flags) if a == "-m"}
    level = next((int(f[2:]) for f in flags if f.startswith("-l")), 1)
    with qrels.open() as q, run.open() as r:
        judged = pytrec_eval.parse_qrel(line for line in q if not line.startswith("#"))
        scores = pytrec_eval.parse_run(" ".join(line.split()[:6]) for line in r
                                       if not line.startswith("#"))
    evaluator = pytrec_eval.RelevanceEvaluator(judged, measures, relevance_level=level,
                                               judged_docs_only_flag="-J" in flags)
    return evaluator.evaluate(scores)


def ours(flags: list[str], qrels: Path, run: Path,
         capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[tuple[str, str], float]]:
    """``polars-rank eval -q --format csv --ties trec_eval9``: exit code, values."""
    capsys.readouterr()
    try:
        code = main(["eval", "-q", "--format", "csv", "--ties", "trec_eval9", *flags,
                     str(qrels), str(run)])
    except SystemExit as exc:  # argparse refuses a flag
        code = int(exc.code or 0)
    out = capsys.readouterr().out
    if code != 0:
        return code, {}
    return code, {(m, q): float(v) for m, q, v in list(csv.reader(io.StringIO(out)))[1:]}


@pytest.mark.parametrize("command", COMMANDS)
def test_cli_equals_pytrec_eval(command: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    flags = shlex.split(command)
    lacking: set[str] = set()
    for i in range(CASES):
        case = trec_files(2000 + 10 * COMMANDS.index(command) + i, pooled_only=False)
        qrels, run = case.write(tmp_path)
        theirs = pytrec(qrels, run, flags)
        code, mine = ours(flags, qrels, run, capsys)
        if pending := {p for p in PENDING if p.startswith("-") and p in flags}:
            assert code != 0, f"{sorted(pending)} now work: remove them from PENDING"
            return
        assert code == 0
        assert {q for _, q in mine} == {*theirs, "all"}, "not the same queries"
        mismatches = []
        for qid, values in theirs.items():
            for name, value in values.items():
                # relstring is text (pytrec_eval gives it as a number): the binary test
                # compares it
                if name in ("runid", "num_q", "relstring") or _measure(name) in NINE_DIFFERS:
                    continue
                if (name, qid) not in mine:
                    lacking.add(_measure(name))
                    continue
                got = mine[name, qid]
                if name in ("gm_map", "gm_bpref"):  # pytrec_eval: the log of the floored value
                    got = math.log(max(got, 1e-5))
                if not math.isclose(got, value, rel_tol=0, abs_tol=1e-9):
                    mismatches.append(f"seed {case.seed} {name} {qid}: ours {got}, 9.x {value}")
        assert not mismatches, "\n".join(mismatches[:20])
    assert lacking == lacking & PENDING, f"newly missing: {sorted(lacking - PENDING)}"
    exercised = {_measure(m) for values in theirs.values() for m in values} & PENDING
    assert exercised <= lacking, f"now computed: remove {sorted(exercised - lacking)} from PENDING"


LEVELS = (0.0, 0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@pytest.mark.parametrize("level", [1, 2])
def test_nine_rounding_equals_pytrec_eval(tmp_path: Path, level: int) -> None:
    """``rounding="trec_eval9"`` gives pytrec_eval's iprec_at_recall and 11pt_avg."""
    nine = [f"iprec_at_recall@{x}(rounding=trec_eval9,threshold={level})" for x in LEVELS]
    nine.append(f"11pt_avg(rounding=trec_eval9,threshold={level})")
    ten = [m.replace("rounding=trec_eval9,", "") for m in nine]
    differ = 0
    for seed in range(4):
        qrels, run = trec_files(3000 + seed, pooled_only=False).write(tmp_path)
        theirs = pytrec(qrels, run, ["-l" + str(level), "-m", "11pt_avg", "-m",
                                     "iprec_at_recall." + ",".join(map(str, LEVELS))])
        with pytest.warns(UserWarning, match="no judgments"):  # the run-only query
            got = pr.evaluate(pr.read_run(run), pr.read_qrels(qrels), [*nine, *ten],
                              per_query=True, ties="trec_eval9")
        assert set(got["qid"]) == set(theirs)
        for row in got.iter_rows(named=True):
            expected = theirs[row["qid"]]
            for x, m9, m10 in zip(LEVELS, nine, ten, strict=False):
                assert row[m9] == pytest.approx(expected[f"iprec_at_recall_{x:.2f}"], abs=1e-12)
                differ += row[m10] != row[m9]
            assert row[nine[-1]] == pytest.approx(expected["11pt_avg"], abs=1e-12)
    assert differ, "the files never tell 10's rounding from 9's"


def test_rounding_is_checked() -> None:
    with pytest.raises(ValueError, match="rounding must be one of"):
        pr.iprec_at_recall("rel", 0.5, by="score", rounding="up")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rounding"):
        pr.evaluate(pl.DataFrame({"qid": ["q"], "docid": ["d"], "score": [1.0], "rel": [1]}),
                    metrics=["11pt_avg(rounding=floor)"])
