"""``polars-rank fuse``: TREC runs in, one fused TREC run out (:func:`polars_rank.fuse`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from polars_rank.fusion import METHODS, NORMS, fuse
from polars_rank.io import scan_run, write_run

__all__ = ["FUSE_HELP", "add_parser", "run", "parse_params"]

UNTRAINED = [m for m, spec in METHODS.items() if not spec.trained]

FUSE_HELP = f"""\
Fuse TREC runs into one (hybrid search: lexical + dense + reranker), as ranx's fuse:
each run's scores normalised per query (--norm, ranx's default min-max), then
combined per (query, document) by the method (-m, default rrf).

  polars-rank fuse bm25.run dense.run -m rrf -o hybrid.run
  polars-rank fuse bm25.run dense.run -m wsum --param weights=0.3,0.7 -o hybrid.run
  polars-rank fuse a.run b.run c.run -m rrf --norm none --param k=10 -o fused.run

Methods: {", ".join(UNTRAINED)}.
Parameters (--param NAME=VALUE, repeatable): k (rrf), gamma (gmnz), sigma
(logn_isr), phi (rbc), weights (one per run, in the runs' order, comma-separated).
The methods trained on qrels (probfuse, segfuse, slidefuse, posfuse, bayesfuse,
mapfuse) are in Python: pr.fusion.train, then pr.fuse.

The fused run is written with ranks 1..n per query by fused score (equal scores by
document id, descending, trec_eval's order).
"""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``fuse`` subcommand's arguments."""
    fu = sub.add_parser("fuse", help="fuse TREC runs into one (RRF, CombSUM, ...)",
                        description=FUSE_HELP,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    fu.add_argument("runs", type=Path, nargs="+", metavar="run",
                    help="TREC run files (at least two): qid Q0 docid rank score tag")
    fu.add_argument("-m", "--method", default="rrf", choices=UNTRAINED, metavar="METHOD",
                    help="fusion method, by ranx's name (default: rrf)")
    fu.add_argument("--norm", default="min-max", choices=[*NORMS, "none"],
                    help="normalisation of each run first (default: min-max; none: raw)")
    fu.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="a method parameter, repeatable: k=60, phi=0.8, weights=0.3,0.7")
    fu.add_argument("-o", "--output", type=Path, required=True, metavar="FILE",
                    help="the fused run file to write")
    fu.add_argument("--tag", default=None,
                    help="the run tag of the output (default: polars-rank-METHOD)")


def _number(text: str) -> float | int:
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_params(items: list[str]) -> dict[str, Any]:
    """``["k=60", "weights=0.3,0.7"]`` as ``{"k": 60, "weights": [0.3, 0.7]}``."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            msg = f"--param must be NAME=VALUE (e.g. k=60, weights=0.3,0.7); got {item!r}"
            raise ValueError(msg)
        try:
            out[name] = ([_number(v) for v in value.split(",")] if name == "weights"
                         else _number(value))
        except ValueError:
            msg = f"--param {name}: not a number: {value!r}"
            raise ValueError(msg) from None
    return out


def run(args: argparse.Namespace) -> None:
    """``polars-rank fuse``: read the runs, fuse them in one lazy plan, write the run."""
    if len(args.runs) < 2:
        msg = f"fuse needs at least two runs; got {len(args.runs)}"
        raise ValueError(msg)
    runs = [scan_run(p).select("qid", "docid", "score") for p in args.runs]
    fused = fuse(runs, args.method, norm=None if args.norm == "none" else args.norm,
                 params=parse_params(args.param))
    write_run(fused, args.output, tag=args.tag or f"polars-rank-{args.method}")
