"""Random TREC qrels and run files with everything that trips up a trec_eval clone.

:func:`trec_files` writes one seeded case (plain :mod:`random`, no test framework), so
the same files can be given to the real trec_eval binary, to ``polars-rank eval`` and
to pytrec_eval. Each case has:

* query ids and document ids that sort differently as text and as numbers
  (``9``, ``10``, ``007``; ``d9``, ``d10``, ``0010``, ``1e2``) and in upper/lower case;
* graded labels 0..4, negative labels (``-1``/``-2``: in the pool, not judged),
  judged documents the run never retrieved, retrieved documents never judged;
* a query without relevant documents, a query whose judgments are all ``-1``, a query
  retrieving one document, a query whose retrieved documents are all unjudged, a query
  only in the run and (``qrels_only=True``) a query only in the qrels;
* tied scores, the same number spelled differently (``0.5``, ``5e-1``, ``0.50``,
  ``-0``/``0``), near-equal scores (``1.348`` and ``1.3479999999999999``: equal as
  32-bit floats, different as 64-bit ones), exponent notation, negative scores;
* rank fields that disagree with the scores, tabs and repeated blanks, a comment line
  (trec_eval 10 skips ``#`` lines), and long tags that vary, the last line's being the
  run id.

trec_eval 10.0 itself stops on two inputs, so no case has them: a qrels query the run
does not have when ``-c`` is not given (trec_eval.c:389, "result qid ... not found";
9.x skipped it), and a query whose judgments are all negative when it is the first
query or has a ``-2`` (form_res_rels.c:139-157 sizes a buffer by the largest label).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Case", "trec_files", "float32_scores"]

QUERIES = ("1", "2", "9", "10", "007", "301", "q3", "Q3", "a.b")
"""Query ids: text order (``007 1 10 2 301 9 Q3 a.b q3``) is not numeric order."""
POOLED_ONLY = "zz_pooled"  # sorts after every other query id (see the module docstring)
DOCUMENTS = ("9", "10", "0010", "100", "1e2", "d9", "d10", "d08", "d8", "D2", "Z", "x",
             "LA010189-0001", "FT911-3", *(f"d{i:03d}" for i in range(30)))
NEAR_EQUAL = ("1.348", "1.3479999999999999", "1.34800001", "1.3480001")
"""Equal as 32-bit floats (trec_eval 9, pytrec_eval), four different 64-bit ones."""
SAME_NUMBER = ("0.5", "5e-1", "0.50", "5.0E-01", "-0", "0", "0.0", "-0.0", "2", "2.0", "2e0")
EXPONENTS = ("1.5e-3", "2E+02", "-2.5e-1", "3.0e1", "7e-5")
GRID = ("1", "2", "3.25", "-1", "0.25")
LONG_TAG = "run." + "long_tag-" * 8


@dataclass(frozen=True)
class Case:
    """One generated case: the two files' text and what each query is."""

    seed: int
    qrels: str
    run: str
    kinds: dict[str, str]

    def write(self, folder: Path) -> tuple[Path, Path]:
        """Write ``qrels.<seed>`` and ``run.<seed>`` into ``folder``."""
        qrels, run = folder / f"qrels.{self.seed}", folder / f"run.{self.seed}"
        qrels.write_text(self.qrels)
        run.write_text(self.run)
        return qrels, run


def _score(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.25:
        return rng.choice(GRID)
    if kind < 0.40:
        return rng.choice(NEAR_EQUAL)
    if kind < 0.55:
        return rng.choice(SAME_NUMBER)
    if kind < 0.65:
        return rng.choice(EXPONENTS)
    return repr(round(rng.uniform(-3.0, 6.0), rng.choice((1, 2, 7))))


def _label(rng: random.Random, kind: str) -> int:
    if kind == "norel":
        return rng.choice((0, 0, -1, -2))
    if kind == "pooled":
        return -1
    return rng.choice((0, 0, 0, 1, 1, 2, 3, 4, -1, -2))


def trec_files(seed: int, *, qrels_only: bool = False, pooled_only: bool = True) -> Case:
    """A random qrels and run file (see the module docstring for what is in them).

    ``qrels_only``: also a query the run does not have (give trec_eval ``-c``).
    ``pooled_only``: maybe a query whose judgments are all ``-1`` (pytrec_eval crashes
    on it with some measures of ``all_trec``).
    """
    rng = random.Random(seed)
    kinds = ["graded", "graded", "norel", "single", "unjudged", "run_only",
             *(["qrels_only"] if qrels_only else [])]
    kinds += ["graded"] * rng.randint(0, len(QUERIES) - len(kinds))
    queries = dict(zip(rng.sample(QUERIES, len(kinds)), kinds, strict=True))
    if rng.random() < 0.7 and pooled_only:
        queries[POOLED_ONLY] = "pooled"
    qrels: list[tuple[str, str, int]] = []
    run: list[tuple[str, str, str]] = []
    for qid, kind in queries.items():
        size = 1 if kind == "single" else rng.randint(4, 25)
        retrieved = rng.sample(DOCUMENTS, size)
        unretrieved = [f"u{qid}.{j}" for j in range(rng.randint(0, 4))]
        if kind == "unjudged":  # judged documents (one relevant), none of them retrieved
            judged = [*unretrieved, f"u{qid}.rel"]
        else:
            judged = [d for d in retrieved if rng.random() < 0.65] + unretrieved
        labels = [rng.randint(1, 4) if d.endswith(".rel") else _label(rng, kind) for d in judged]
        if kind != "pooled" and labels and max(labels) < 0:  # trec_eval 10 would stop
            judged, labels = [*judged, f"u{qid}.nonrel"], [*labels, 0]
        if kind != "run_only":
            qrels += list(zip([qid] * len(judged), judged, labels, strict=True))
        if kind != "qrels_only":
            run += [(qid, d, _score(rng)) for d in retrieved]
    rng.shuffle(qrels)
    rng.shuffle(run)
    blank = (" ", "\t", "  ", " \t ")
    qrels_text = "# qid iter docno rel\n" + "".join(
        f"{q}{rng.choice(blank)}{rng.choice(('0', 'Q0', '1'))} {d}{rng.choice(blank)}{rel}\n"
        for q, d, rel in qrels)
    tags = (LONG_TAG, "tag", f"r{seed}")
    run_text = "# qid Q0 docno rank score tag\n" + "".join(
        f"{q} Q0{rng.choice(blank)}{d} {rng.randint(0, 50)}{rng.choice(blank)}{s} "
        f"{rng.choice(tags)}{rng.choice(('', ' ', ' extra field'))}\n"
        for q, d, s in run)
    return Case(seed, qrels_text, run_text, queries)


def float32_scores(run: str) -> str:
    """The run with every score rounded to a 32-bit float (and printed exactly).

    trec_eval 9 stored scores as 32-bit floats, trec_eval 10 as doubles: on this run,
    both order the documents the same way.
    """
    lines = []
    for line in run.splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            lines.append(line)
            continue
        score = float(np.float32(float(fields[4])))
        lines.append(" ".join([*fields[:4], repr(score), *fields[5:]]))
    return "\n".join(lines) + "\n"
