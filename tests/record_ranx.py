"""Record ranx's answers to the fusion tests' cases: ``python tests/record_ranx.py``.

Builds the cases of tests/ranx_cases.py (ranx's fixtures and seeded random draws),
calls ranx on them through the fusion tests' own helpers (those the live tests,
``make test-ranx``, call), and writes ``tests/fixtures/ranx_{fuse,optimize,trained,
cli_fuse}.json`` with the versions of ranx, Numba and NumPy that answered. Run it after
upgrading ranx or changing the cases, then ``make test-ranx``; a few minutes (ranx
compiles its Numba code, then computes the optimisation grids).

``python tests/record_ranx.py fuse cli`` records only those files (keys of
``ranx_cases.FILES``). Scores are written to 12 significant digits (the tests compare
to 1e-9); where ranx's answer is not defined by the runs (``norm="borda"`` before a
method on ranks: ranx's runs are then in a set's order; ``zmuv`` with an empty list)
nothing is recorded, as the tests skip those. The script runs itself with
``PYTHONHASHSEED=0``, so that a second run writes the same files.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import ranx_cases as rc  # noqa: E402

DIGITS = 12


def _r(x: Any) -> Any:
    """A number to :data:`DIGITS` significant digits (integers as they are)."""
    if isinstance(x, bool | int | np.integer):
        return int(x)
    return float(f"{float(x):.{DIGITS}g}")


def _run(fused: dict[tuple[str, str], float]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for (q, d), s in sorted(fused.items()):
        out.setdefault(q, {})[d] = _r(s)
    return out


def record_fuse() -> dict[str, Any]:
    import test_fusion as t
    out = {}
    for name, case in rc.fuse_cases().items():
        frame, systems, weights = case["frame"], case["systems"], case["weights"]
        fused = {}
        for method in case.get("methods", t.UNTRAINED):
            for norm in case["norms"]:
                if t._ranx_defined(frame, systems, method, norm):
                    fused[f"{method}|{rc.norm_key(norm)}"] = _run(t._ranx_fuse(
                        frame, systems, method, norm, t._params_for(method, weights)))
        out[name] = {"inputs": rc.case_hash(case), "fused": fused}
    return out


def record_optimize() -> dict[str, Any]:
    import test_fusion_optimize as t

    from polars_rank.fusion._grid import WEIGHTED
    out = {}
    for name, case in rc.optimize_cases().items():
        best, configs, results = t._ranx_optimize(
            case["frame"], case["qrels"], case["systems"], case["method"], case["norm"],
            case["metric"], case["grid"])
        out[name] = {
            "inputs": rc.case_hash(case),
            "best": {k: [_r(w) for w in v] if k == "weights" else _r(v)
                     for k, v in best.items()},
            # the weights' configurations are only counted (len(results))
            "configs": None if case["method"] in WEIGHTED else list(configs),
            "results": [_r(v) for v in results]}
    return out


def record_trained() -> dict[str, Any]:
    import test_fusion_trained as t
    out = {}
    for name, case in rc.trained_cases().items():
        methods = {}
        for method in t.TRAINED:
            theirs, fused = t._ranx_answers(case["train"], case["test"], case["qrels"],
                                            case["systems"], method, case["norm"], case["n"])
            trained = {k: int(v) if k == "w" else
                       [rc.pack([_r(x) for x in np.asarray(a).ravel().tolist()])
                        for a in v] if np.ndim(v[0]) else [_r(x) for x in v]
                       for k, v in theirs.items()}
            methods[method] = {"trained": trained, "fused": _run(fused)}
        out[name] = {"inputs": rc.case_hash(case), "methods": methods}
    return out


def record_cli() -> dict[str, Any]:
    import test_cli_fuse as t

    import polars_rank as pr
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, case in rc.cli_cases().items():
            paths = []
            for system, run in enumerate(case["runs"]):
                path = Path(folder) / f"sys{system}.run"
                pr.write_run(run, path, tag=f"sys{system}")
                paths.append(path)
            fused = t._ranx_fused_files(paths, case["method"], case["norm"], case["params"])
            out[name] = {"inputs": rc.case_hash(case), "fused": _run(fused)}
    return out


def dump(document: dict[str, Any]) -> str:
    """The file's text: the header's fields, then one case a line (readable diffs)."""
    head = {k: v for k, v in document.items() if k != "cases"}
    lines = [f"  {json.dumps(name)}: {json.dumps(case, separators=(',', ':'))}"
             for name, case in document["cases"].items()]
    return (json.dumps(head, indent=1)[:-2] + ',\n "cases": {\n' + ",\n".join(lines)
            + "\n }\n}\n")


RECORD = {"fuse": record_fuse, "optimize": record_optimize, "trained": record_trained,
          "cli": record_cli}


def main(kinds: list[str]) -> None:
    rc.FIXTURES.mkdir(exist_ok=True)
    for kind in kinds or list(RECORD):
        start = time.perf_counter()
        cases = RECORD[kind]()
        document = {
            "generated_by": "python tests/record_ranx.py (cases: tests/ranx_cases.py)",
            "ranx": version("ranx"), "numba": version("numba"), "numpy": np.__version__,
            "polars": pl.__version__, "digits": DIGITS, "cases": cases}
        path = rc.FIXTURES / rc.FILES[kind]
        path.write_text(dump(document))
        print(f"{path.relative_to(HERE.parent)}: {len(cases)} cases, "
              f"{path.stat().st_size / 1024:.0f} KiB, {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":  # the same bytes from a second run
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  {**os.environ, "PYTHONHASHSEED": "0"})
    unknown = set(sys.argv[1:]) - set(RECORD)
    if unknown:
        sys.exit(f"unknown: {sorted(unknown)}; choose among {sorted(RECORD)}")
    main(sys.argv[1:])
