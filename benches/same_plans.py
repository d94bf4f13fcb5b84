"""Does a refactoring leave every metric expression as it was? Compare two checkouts.

    python benches/same_plans.py /path/to/other/checkout

builds every registered metric's expression (``Metric.expr``) in each of seven ways
(ranking keys with the ties ``first``, ``expected``, ``optimistic`` and ``trec_eval``;
the row order; positions; tie spans), with and without ``query=`` and a cutoff, in this
checkout and in the other one (each in its own process, the same Python), and compares
their serialised plans. Identical plans compute the same numbers at the same speed:
the check a benchmark cannot make to the last bit. It printed, for issue 38's ranked-
list protocol (3b28654 against its successor), 986 expressions (962 distinct) and 274
refusals, all the same.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import warnings
from pathlib import Path

WAYS: dict[str, dict[str, object]] = {
    "keys, first": {"by": "score", "ties": "first"},
    "keys, expected": {"by": "score", "ties": "expected"},
    "keys, optimistic": {"by": "score", "ties": "optimistic"},
    "keys, trec_eval": {"by": "score", "ties": "trec_eval", "doc": "doc"},
    "row order": {"by": None},
    "positions": {"rank": "r"},
    "tie spans": {"rank": ("lo", "hi")},
}


def fingerprints() -> list[str]:
    """One line per expression: its metric string, way, query and plan's hash."""
    from polars_rank.registry import METRICS, parse_metric

    lines = []
    for name in sorted(METRICS):
        for way, given in WAYS.items():
            for query in (None, "qid"):
                for spec in (name, f"{name}@5"):
                    try:
                        metric = parse_metric(spec)
                    except ValueError:
                        continue  # no cutoff
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            expr = metric.expr("rel", query=query, **given)  # type: ignore[arg-type]
                        plan = expr.meta.serialize(format="json")
                        mark = hashlib.sha1(plan.encode()).hexdigest()[:16]
                    except (ValueError, TypeError, NotImplementedError) as error:
                        mark = f"refused: {type(error).__name__}: {error}"
                    lines.append(f"{spec} | {way} | {query} | {mark}")
    return lines


def main() -> None:
    if len(sys.argv) == 2 and sys.argv[1] == "--print":
        print("\n".join(fingerprints()))
        return
    other = Path(sys.argv[1]).resolve()
    here = Path(__file__).resolve().parents[1]
    runs = {}
    for root in (here, other):
        runs[root] = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--print"], cwd=root,
            env={"PYTHONPATH": str(root), "PATH": ""}, capture_output=True, text=True,
            check=True).stdout.splitlines()
    mine, theirs = runs[here], runs[other]
    differ = [(a, b) for a, b in zip(mine, theirs, strict=False) if a != b]
    plans = [line for line in mine if "refused" not in line]
    print(f"{len(plans)} expressions ({len({p.rsplit('|', 1)[1] for p in plans})} distinct), "
          f"{len(mine) - len(plans)} refusals; {len(differ)} differ"
          + ("" if len(mine) == len(theirs) else f"; {len(mine)} lines against {len(theirs)}"))
    for a, b in differ[:20]:
        print(f"  {a}\n  {b}")
    sys.exit(1 if differ or len(mine) != len(theirs) else 0)


if __name__ == "__main__":
    main()
