"""Gain tables, ``G``, ``binG``, ``ndcg_rel``, ``Rndcg``, utility weights and 11pt_avg
levels: ``polars-rank eval`` against the real trec_eval 10.0 binary, digit for digit.

trec_eval is built from its source (``TREC_EVAL_SRC``, default ``../shared/trec_eval-10.0``
beside the repository) or taken from ``TREC_EVAL`` (a binary); without either the tests
skip. Random TREC files: ties and near-equal scores (two of them one 32-bit float),
documents judged but never retrieved, negative labels (pooled, not judged), a query with
nothing relevant, a run query without judgments and, for ``-c``, a judged query the run does
not answer.

trec_eval's gain table sorts with a comparator that truncates gain differences to an
int (gain_init.c); polars-rank sorts by gain. The two agree when the gains in play are
equal or at least 1 apart, which the drawn tables are; the last tests pin the case
where they are not: the C code transcribed with glibc's merge sort gives trec_eval's
numbers, and polars-rank the sorted table's.
"""

from __future__ import annotations

import math
import random
import shlex
import subprocess
from typing import TYPE_CHECKING

import pytest
import reference_gains as ref

from polars_rank.__main__ import main

if TYPE_CHECKING:
    from pathlib import Path

LABELS = [-1, 0, 0, 0, 1, 1, 2, 3, 4]
# near-equal scores: trec_eval 10 compares doubles (its TEXT_RESULTS.sim), as
# polars-rank's ties="trec_eval" does; the last two are one 32-bit float
SCORES = [1.0, 2.0, 2.0, 3.5, 0.25, 1.0000001, 1.0000002, 1.348, 1.3479999999999999]


Judgments = dict[str, dict[str, int]]
Run = dict[str, list[tuple[str, float]]]


def draw_files(rng: random.Random) -> tuple[Judgments, Run]:
    qrels: Judgments = {}
    run: Run = {}
    for q in range(1, 7):
        pool = [f"d{j}" for j in range(rng.randint(2, 14))]
        nothing_relevant = q == 6
        qrels[str(q)] = {d: 0 if nothing_relevant else rng.choice(LABELS)
                         for d in pool if rng.random() < 0.7}
        qrels[str(q)][pool[0]] = 0  # every judged query has a judged document
        unpooled = ["x1", "x22", "x3"][:rng.randint(0, 3)]  # retrieved, never judged
        shown = rng.sample(pool, rng.randint(1, len(pool))) + unpooled
        run[str(q)] = [(d, rng.choice(SCORES)) for d in shown]
    run["9"] = [("d1", 1.0), ("d2", 0.5)]  # no judgments: left out
    return qrels, run


def consistent(gains: dict[int, float]) -> bool:
    """Every two gains in play (the table's, levels 0..4's own) equal or >= 1 apart."""
    values = [*gains.values(), *(float(x) for x in range(5) if x not in gains)]
    return all(a == b or abs(a - b) >= 1 for a in values for b in values)


def draw_table(rng: random.Random, *, sorted_as_meant: bool) -> dict[int, float]:
    while True:
        labels = rng.sample(range(6), rng.randint(1, 3))
        gains = {x: rng.choice([-2.0, -1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.5, 9.0])
                 for x in labels}
        if consistent(gains) == sorted_as_meant:
            return gains


def spell(gains: dict[int, float]) -> str:
    return ",".join(f"{k}={v:g}" for k, v in gains.items())


def write(path: Path, qrels: Judgments, run: Run, extra_query: bool = False) -> tuple[str, str]:
    q_lines = [f"{q} 0 {d} {x}" for q, docs in qrels.items() for d, x in docs.items()]
    if extra_query:  # every grade: a table of three entries leaves one a positive gain
        q_lines += [f"8 0 d{x} {x}" for x in range(5)]
    r_lines = [f"{q} Q0 {d} {i} {s!r} tag" for q, docs in run.items()
               for i, (d, s) in enumerate(docs)]
    (path / "qrels").write_text("\n".join(q_lines) + "\n")
    (path / "run").write_text("\n".join(r_lines) + "\n")
    return str(path / "qrels"), str(path / "run")


def lines(text: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in text.splitlines():
        measure, qid, value = line.split()
        out[measure, qid] = value
    return out


def binary(trec_eval: Path, args: list[str]) -> dict[tuple[str, str], str]:
    done = subprocess.run([str(trec_eval), *args], capture_output=True, text=True, check=False)
    assert done.returncode == 0, (args, done.stderr)
    return lines(done.stdout)


def ours(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[tuple[str, str], str]:
    capsys.readouterr()
    code = main(["eval", *args])
    out, err = capsys.readouterr()
    assert code == 0, (args, err)
    return lines(out)


@pytest.mark.parametrize("seed", range(12))
def test_command_line_prints_trec_eval_lines(seed: int, trec_eval: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(seed)
    qrels, run = draw_files(rng)
    files = write(tmp_path, qrels, run)
    (tmp_path / "c").mkdir()
    with_missing = write(tmp_path / "c", qrels, run, extra_query=True)
    table = spell(draw_table(rng, sorted_as_meant=True))
    weights = ",".join(rng.choice(["2", "-1", "0.5", "0", "1"]) for _ in range(4))
    levels = ",".join(f"{x:g}" for x in sorted(rng.sample([0, .1, .2, .25, .5, .75, 1], 3)))
    calls = [
        ["-q", "-m", "binG", "-m", "G", "-m", "ndcg", "-m", "ndcg_rel", "-m", "Rndcg",
         "-m", f"utility.{weights}", "-m", f"11pt_avg.{levels}", *files],
        ["-q", *(f"-m{m}.{table}" for m in ("ndcg", "G", "ndcg_rel", "Rndcg")), *files],
        ["-q", "-l2", "-m", "binG", "-m", "Rndcg", "-m", "11pt_avg", *files],
        ["-q", "-l2", "-m", f"Rndcg.{table}", *files],
        ["-q", "-c", "-m", "binG", "-m", f"G.{table}", "-m", "ndcg_rel", *with_missing],
        ["-q", "-c", "-m", f"Rndcg.{table}", "-m", f"utility.{weights}", *with_missing],
    ]
    for args in calls:
        theirs = binary(trec_eval, args)
        assert theirs, args
        mine = ours(args, capsys)
        differ = {key: (mine.get(key), value) for key, value in theirs.items()
                  if mine.get(key) != value}
        assert not differ, (shlex.join(args), differ)
        assert set(mine) == set(theirs), shlex.join(args)


def reference_values(qrels: Judgments, run: Run, gains: dict[int, float],
                     order: ref.Order) -> dict[str, dict[str, str]]:
    """Per query, the C code's values (ndcg, G, ndcg_rel, Rndcg), printed as trec_eval."""
    out: dict[str, dict[str, str]] = {}
    for q, judged in qrels.items():
        shown = sorted(run[q], key=lambda row: row[0], reverse=True)  # docno, descending
        shown.sort(key=lambda row: row[1], reverse=True)  # then score, a double (stable)
        ranked = [None if judged.get(d, -1) < 0 else judged[d] for d, _ in shown]
        unretrieved = [x for d, x in judged.items() if x >= 0 and d not in dict(shown)]
        values = {"ndcg": ref.ndcg(ranked, unretrieved, gains, order),
                  "G": ref.g_measure(ranked, unretrieved, gains, order),
                  "ndcg_rel": ref.ndcg_rel(ranked, unretrieved, gains, order),
                  "Rndcg": ref.r_ndcg(ranked, unretrieved, gains, 1, order)}
        out[q] = {m: "-nan" if math.isnan(v) else f"{v:6.4f}".strip()  # C prints 0 / 0 so
                  for m, v in values.items()}
    return out


@pytest.mark.parametrize("seed", range(8))
def test_trec_eval_sorts_close_gains_as_its_comparator_says(
        seed: int, trec_eval: Path, tmp_path: Path) -> None:
    """Tables with gains less than 1 apart: the C code with glibc's merge sort and
    trec_eval's comparator is trec_eval; with the table sorted by gain it is not always
    (polars-rank computes the sorted table's numbers, tested against it elsewhere)."""
    rng = random.Random(100 + seed)
    qrels, run = draw_files(rng)
    files = write(tmp_path, qrels, run)
    gains = draw_table(rng, sorted_as_meant=False)
    table = spell(gains)
    theirs = binary(trec_eval, ["-q", *(f"-m{m}.{table}" for m in
                                        ("ndcg", "G", "ndcg_rel", "Rndcg")), *files])
    emulated = reference_values(qrels, run, gains, "trec_eval")
    for q, values in emulated.items():
        for measure, value in values.items():
            assert theirs[f"{measure}_{table}", q] == value, (measure, q, table)


def test_a_close_gain_table_differs_from_trec_eval_as_documented(
        trec_eval: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-m ndcg.1=0.5`` on labels 0-2: trec_eval's ideal stops after the label-2 row
    (0.7500); the sorted table's ideal also takes the label-1 row (0.6478)."""
    qrels = {"1": {"a": 1, "b": 0, "c": 2}}
    run = {"1": [("a", 3.0), ("b", 2.0), ("c", 1.0)]}
    files = write(tmp_path, qrels, run)
    args = ["-q", "-m", "ndcg.1=0.5", *files]
    assert binary(trec_eval, args)["ndcg_1=0.5", "1"] == "0.7500"
    assert ours(args, capsys)["ndcg_1=0.5", "1"] == "0.6478"
    assert reference_values(qrels, run, {1: 0.5}, "trec_eval")["1"]["ndcg"] == "0.7500"
    assert reference_values(qrels, run, {1: 0.5}, "gain")["1"]["ndcg"] == "0.6478"
