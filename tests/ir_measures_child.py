"""ir_measures' ``nDCG(gains=...)``, computed in a child process.

ir_measures hands nDCG's ``gains=`` to pytrec_eval (trec_eval 9.x) as a measure
parameter that outlives the call: a later plain ``nDCG`` in the same process can loop
forever in ``te_calc_ndcg`` on a query judged only negative (pytrec-eval-terrier 0.5.11;
found when pytest-xdist ran the parity tests in another order). It reads freed memory,
so whether it loops differs between processes: no canary can tell reliably when it is
fixed (``nDCG(gains={1:1,2:3})@10`` then ``nDCG`` on qrels ``1 a -1`` looped in one
environment here and not in another). So every
test that asks ir_measures for ``gains=`` asks through :func:`iter_calc`, and the test
process's pytrec_eval never sees the parameter.

A plain ``nDCG`` loops there too after other measures in one process: the parity
test (tests/test_ir_measures_parity.py) hung in ``te_calc_ndcg`` (m_ndcg.c:127, seen
with gdb) under pytest-xdist after AP, Bpref, IPrec, infAP and RR had run in its
worker. So every nDCG that pytrec_eval computes is asked here, through
:func:`calc`, in a fresh process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

_CHILD = """
import json, sys, warnings
import ir_measures
warnings.simplefilter("ignore")  # the providers' own deprecations
specs, qrels, run = json.load(sys.stdin)
out = ir_measures.iter_calc([ir_measures.parse_measure(s) for s in specs],
                            [ir_measures.Qrel(*q) for q in qrels],
                            [ir_measures.ScoredDoc(*r) for r in run])
json.dump([[str(m.measure), m.query_id, float(m.value)] for m in out], sys.stdout)
"""

_CHILD_CALC = """
import json, sys, warnings
import ir_measures
warnings.simplefilter("ignore")
specs, qrels, run = json.load(sys.stdin)
measures = [ir_measures.parse_measure(s) for s in specs]
qrels = [ir_measures.Qrel(*q) for q in qrels]
run = [ir_measures.ScoredDoc(*r) for r in run]
out = ir_measures.iter_calc(measures, qrels, run)
per = [[str(m.measure), m.query_id, float(m.value)] for m in out]
agg = {str(m): float(v) for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}
json.dump([per, agg], sys.stdout)
"""


def iter_calc(specs: list[str], qrels: Iterable[tuple[str, str, int]],
              run: Iterable[tuple[str, str, float]],
              *, timeout: float = 120) -> dict[tuple[str, str], float]:
    """ir_measures' values of ``specs``, ``{(str(measure), query id): value}``."""
    sent = json.dumps([specs, [list(q) for q in qrels], [list(r) for r in run]])
    done = subprocess.run([sys.executable, "-c", _CHILD], input=sent, capture_output=True,
                          text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return {(measure, qid): value for measure, qid, value in json.loads(done.stdout)}


def calc(specs: list[str], qrels: Iterable[tuple[str, str, int]],
         run: Iterable[tuple[str, str, float]], *, timeout: float = 120,
         ) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    """ir_measures' ``iter_calc`` and ``calc_aggregate`` of ``specs`` in a fresh process:
    ``{(str(measure), query id): value}`` and ``{str(measure): value}``."""
    sent = json.dumps([specs, [list(q) for q in qrels], [list(r) for r in run]])
    done = subprocess.run([sys.executable, "-c", _CHILD_CALC], input=sent, capture_output=True,
                          text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    per, aggregate = json.loads(done.stdout)
    return {(measure, qid): value for measure, qid, value in per}, aggregate
