"""trec_eval 10.0's own test collection: our command line against trec_eval's outputs.

``tests/data/trec_eval`` holds the inputs and expected outputs of trec_eval's
``make quicktest`` (NIST, commit f425365; see its NOTICE.md). For each ``out.*`` file,
``polars-rank eval`` runs with the arguments trec_eval got, and its output is compared
with trec_eval's line by line: each line is ``measure  qid  value``, values compared as
the printed strings.

* Every (measure, qid) trec_eval printed, for a measure our output has, has the same
  value string in ours.
* The measures trec_eval printed that ours does not are exactly ``NOT_YET[file]``:
  adding a measure to the command line means removing it there.
* Ours prints no (measure, qid) that trec_eval does not.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

import polars_rank as pr
from polars_rank.__main__ import main

DATA = Path(__file__).parent / "data" / "trec_eval"

# trec_eval's arguments for each expected output, as in the upstream Makefile's
# quicktest target (the last two words are the qrels and the run in DATA).
COMMANDS: dict[str, str] = {
    "out.test": "qrels.test results.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
        "qrels.test results.test"
    ),
    "out.test.prefs": "-m all_prefs -q -R prefs prefs.test prefs.results.test",
    "out.test.qrels_prefs": "-m all_prefs -q -R qrels_prefs qrels.test results.test",
    "out.test.qrels_jg": "-m qrels_jg -q -R qrels_jg qrels.123 results.test",
}

# Measures of all_trec that polars-rank has no metric for yet (the command line leaves
# them out with a note on stderr). runid and num_q are the command line's
# own lines, not metrics, so they are expected from it.
_ALL_TREC_NOT_YET: set[str] = set()

NOT_YET: dict[str, set[str]] = {
    "out.test": set(),
    "out.test.a": _ALL_TREC_NOT_YET,  # relstring is printed per query only
    "out.test.aq": _ALL_TREC_NOT_YET,
    "out.test.aqc": _ALL_TREC_NOT_YET,
    "out.test.aqcM": _ALL_TREC_NOT_YET,
    "out.test.aql": _ALL_TREC_NOT_YET,
    "out.test.meas_params": set(),
    "out.test.prefs": set(),
    "out.test.qrels_prefs": set(),
    "out.test.qrels_jg": set(),
}
"""Per expected file: the measure names trec_eval prints that our output lacks."""

SHOWN = 30  # mismatches listed in a failure message


def parse(text: str) -> tuple[dict[tuple[str, str], str], list[str]]:
    """``{(measure, qid): value}`` of trec_eval-shaped output, and the lines that are not.

    A line is three whitespace-separated fields (trec_eval prints
    ``"%-22s\\t%s\\t%6.4f"``); a repeated (measure, qid) also counts as malformed.
    """
    values: dict[tuple[str, str], str] = {}
    malformed: list[str] = []
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3 or (fields[0], fields[1]) in values:
            malformed.append(line)
            continue
        values[fields[0], fields[1]] = fields[2]
    return values, malformed


def differences(
    ours: dict[tuple[str, str], str], theirs: dict[tuple[str, str], str]
) -> tuple[list[str], set[str], list[str]]:
    """Value mismatches, measures trec_eval has and we lack, and lines only we print."""
    our_measures = {m for m, _ in ours}
    mismatches = [
        f"{m} {q}: ours {ours.get((m, q), '<missing>')}, trec_eval {v}"
        for (m, q), v in theirs.items()
        if m in our_measures and ours.get((m, q)) != v
    ]
    lacking = {m for m, _ in theirs} - our_measures
    extra = [f"{m} {q}: {v}" for (m, q), v in ours.items() if (m, q) not in theirs]
    return mismatches, lacking, extra


def _shown(lines: list[str]) -> str:
    more = f"\n  ... and {len(lines) - SHOWN} more" if len(lines) > SHOWN else ""
    return "\n  ".join(["", *lines[:SHOWN]]) + more


def _arguments(command: str) -> list[str]:
    *flags, qrels, run = shlex.split(command)
    return [*flags, str(DATA / qrels), str(DATA / run)]


def _run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """``polars-rank eval ARGV``'s standard output; fails on a non-zero exit."""
    capsys.readouterr()
    try:
        code = main(["eval", *argv])
    except SystemExit as exc:  # argparse rejects a flag
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 0, f"polars-rank eval {shlex.join(argv)} exited {code}: {err.strip()}"
    return out


@pytest.mark.parametrize("expected", list(COMMANDS))
def test_cli_matches_trec_eval(expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    theirs, bad = parse((DATA / expected).read_text())
    assert not bad, f"{expected} is not trec_eval output: {bad[:3]}"
    ours, malformed = parse(_run_cli(_arguments(COMMANDS[expected]), capsys))
    assert not malformed, f"lines not 'measure qid value':{_shown(malformed)}"

    mismatches, lacking, extra = differences(ours, theirs)
    assert not mismatches, (
        f"{len(mismatches)} values differ from {expected}:{_shown(mismatches)}"
    )
    assert not extra, f"{len(extra)} lines that {expected} does not have:{_shown(extra)}"
    pending = NOT_YET[expected]
    assert lacking == pending, (
        f"measures of {expected} we do not print: newly supported (remove from NOT_YET) "
        f"{sorted(pending - lacking)}, newly missing {sorted(lacking - pending)}"
    )


def test_prefs_comments_as_trec_eval(capsys: pytest.CaptureFixture[str]) -> None:
    """The preference file with comment lines gives out.test.prefs too (quicktest's)."""
    argv = _arguments("-m all_prefs -q -R prefs prefs.comment.test prefs.results.test")
    assert _run_cli(argv, capsys) == (DATA / "out.test.prefs").read_text()


@pytest.mark.parametrize("expected", list(COMMANDS))
def test_comparison_of_outputs(expected: str) -> None:
    """The comparison itself: trec_eval's lines minus NOT_YET pass, one changed value fails."""
    theirs, bad = parse((DATA / expected).read_text())
    assert not bad
    assert NOT_YET[expected] <= {m for m, _ in theirs}, "NOT_YET names a measure not printed"
    ours = {key: v for key, v in theirs.items() if key[0] not in NOT_YET[expected]}
    assert differences(ours, theirs) == ([], NOT_YET[expected], [])

    (measure, qid), value = next(iter(ours.items()))
    changed = {**ours, (measure, qid): value + "0", (measure, "999"): value}
    mismatches, _, extra = differences(changed, theirs)
    assert mismatches == [f"{measure} {qid}: ours {value}0, trec_eval {value}"]
    assert extra == [f"{measure} 999: {value}"]


# trec_eval's names for these are also polars-rank metric strings.
API_METRICS = ["map", "P_10", "ndcg_cut_10", "recip_rank", "Rprec", "bpref", "recall_100",
               "success_10", "map_cut_100"]


def test_evaluate_matches_out_test_aq() -> None:
    """``pr.evaluate`` per query and its mean, printed as trec_eval does, equal out.test.aq."""
    theirs, _ = parse((DATA / "out.test.aq").read_text())
    run = pr.read_run(DATA / "results.test")
    qrels = pr.read_qrels(DATA / "qrels.test")
    per = pr.evaluate(run, qrels, API_METRICS, per_query=True)

    queries = sorted({q for _, q in theirs} - {"all"})
    assert sorted(per["qid"].cast(str).to_list()) == queries
    ours: dict[tuple[str, str], str] = {}
    for row in per.iter_rows(named=True):
        for m in API_METRICS:
            ours[m, str(row["qid"])] = f"{row[m]:6.4f}".strip()
    for m in API_METRICS:
        ours[m, "all"] = f"{per[m].mean():6.4f}".strip()

    mismatches = [f"{m} {q}: ours {v}, trec_eval {theirs.get((m, q))}"
                  for (m, q), v in ours.items() if theirs.get((m, q)) != v]
    assert not mismatches, f"{len(mismatches)} values differ:{_shown(mismatches)}"
