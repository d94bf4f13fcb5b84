"""The click logs pyClickModels' DBN was run on, drawn from seeds in plain Python.

Shared by ``tests/record_pyclickmodels.py`` (which runs pyClickModels on them, in a
scratch environment with neither Polars nor polars-rank) and
``tests/test_pyclickmodels_fixtures.py`` (which checks the recorded answers). The
clicks are drawn here with ``random.Random(seed)`` from a DBN (Chuklin et al. 2015,
sec. 2.8: a satisfied user stops, an unsatisfied one goes on with gamma), not with
``simulate_clicks``, whose draws are a Polars hash: stable within a Polars version only,
and CI runs two. So the same seed gives the same log on any Python and Polars, and
:func:`case_hash` checks that the logs are still those pyClickModels answered.

A case is a list of sessions ``(impression, query, [(doc, click, purchase), ...])``;
its pyClickModels input (:func:`judgments`) is one JSON line per query (in sorted
order), ``{"search_keys": {"search_term": q}, "judgment_keys": [{"session": [{"click":
c, "purchase": p, "doc": d}, ...]}, ...]}``, the sessions in impression order (the
format of pyClickModels' README and tests). Only the case ``purchases`` has purchases
(pyClickModels' extension of DBN: a click converts with a rate per document and the
user stops); it checks the transcription's purchase branches, not our DBN, which has
no purchases.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "pyclickmodels_dbn.json"
ITERATIONS = (1, 30)  # one EM step, and pyClickModels' default (DBNModel.fit's iters=30)

Session = tuple[int, str, list[tuple[str, int, int]]]

# name: (seed, queries, docs per query, sessions, list lengths, attractiveness range, gamma,
# largest conversion rate)
SPECS: dict[str, tuple[int, int, int, int, tuple[int, int], tuple[float, float], float,
                       float]] = {
    "one_query": (1, 1, 8, 200, (6, 6), (0.05, 0.9), 0.8, 0.0),
    "three_queries": (2, 3, 10, 240, (4, 8), (0.05, 0.9), 0.7, 0.0),
    "few_clicks": (3, 2, 8, 200, (5, 5), (0.02, 0.3), 0.9, 0.0),
    "purchases": (4, 2, 8, 200, (6, 6), (0.05, 0.9), 0.8, 0.5),
}
OURS = ("one_query", "three_queries", "few_clicks")  # the cases without purchases


def simulate(seed: int, queries: int, docs: int, n_sessions: int, lengths: tuple[int, int],
             attr_range: tuple[float, float], gamma: float,
             conversion: float = 0.0) -> list[Session]:
    """Sessions drawn from a DBN with random attractiveness and satisfaction per pair
    (and, if ``conversion``, a click converts with a rate up to it, and the user stops)."""
    rng = random.Random(seed)
    attr = {(q, d): rng.uniform(*attr_range) for q in range(queries) for d in range(docs)}
    sat = {(q, d): rng.uniform(0.1, 0.8) for q in range(queries) for d in range(docs)}
    out = []
    for i in range(n_sessions):
        q = rng.randrange(queries)
        shown = rng.sample(range(docs), rng.randint(*lengths))
        examined, rows = True, []
        for d in shown:
            click = purchase = 0
            if examined:
                click = int(rng.random() < attr[(q, d)])
                if conversion and click:
                    purchase = int(rng.random() < conversion * sat[(q, d)])
                satisfied = purchase or (bool(click) and rng.random() < sat[(q, d)])
                examined = not satisfied and rng.random() < gamma
            rows.append((f"d{d}", click, purchase))
        out.append((i, f"q{q}", rows))
    return out


def cases() -> dict[str, list[Session]]:
    return {name: simulate(*spec) for name, spec in SPECS.items()}


def case_hash(sessions: list[Session]) -> str:
    """sha256 of the sessions as canonical JSON (ids, queries, docs, clicks)."""
    text = json.dumps([[i, q, [list(r) for r in rows]] for i, q, rows in sessions])
    return hashlib.sha256(text.encode()).hexdigest()


def by_query(sessions: list[Session]) -> list[tuple[str, list[list[tuple[str, int, int]]]]]:
    """The sessions grouped by query (queries sorted, sessions in impression order):
    the order pyClickModels reads them in (one input line per query)."""
    grouped: dict[str, list[list[tuple[str, int, int]]]] = {}
    for _, q, rows in sorted(sessions):
        grouped.setdefault(q, []).append(rows)
    return sorted(grouped.items())


def judgments(sessions: list[Session]) -> str:
    """pyClickModels' input: one JSON line per query (to be gzipped as judgments*.gz)."""
    lines = [json.dumps({"search_keys": {"search_term": q},
                         "judgment_keys": [{"session": [
                             {"click": c, "purchase": p, "doc": d} for d, c, p in rows]}
                             for rows in group]})
             for q, group in by_query(sessions)]
    return "\n".join(lines) + "\n"


def recorded() -> dict[str, Any]:
    with FIXTURE.open() as f:
        document: dict[str, Any] = json.load(f)
    return document
