"""The ``polars-rank`` command line (also ``python -m polars_rank``).

``polars-rank eval QRELS RUN [RUN ...] -m ndcg@10 -m map`` prints trec_eval-shaped
results (metric, query or ``all``, value), several runs side by side;
``polars-rank demo`` evaluates the embedded synthetic A/B experiment and compares its
arms per segment (deltas, confidence intervals, significance);
``polars-rank compare QRELS RUN RUN ... -m ndcg@10`` tests which runs are better than
which and prints a ranx-style table; ``polars-rank fuse RUN RUN ... -m rrf -o OUT``
fuses runs into one; ``polars-rank metrics`` lists the metric strings.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings
from typing import TYPE_CHECKING

# the subcommands live in polars_rank/_cli/; this module parses and dispatches
from polars_rank._cli import compare as _cli_compare
from polars_rank._cli import fuse as _cli_fuse
from polars_rank._cli.eval_command import run_eval
from polars_rank._cli.eval_settings import Stop, readable
from polars_rank._cli.getopt import UsageError, spelled_out
from polars_rank._cli.info import demo, list_metrics
from polars_rank._cli.parser import EVAL_HELP as EVAL_HELP  # public here before the split
from polars_rank._cli.parser import build_parser, eval_long_options
from polars_rank._cli.status import exit_status
from polars_rank.errors import InvalidDataError, TrecFormatError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    trec = next((a for a in argv if not a.startswith("-")), None) == "eval"
    if trec:  # trec_eval's command line: its abbreviations, its usage errors' status 1
        try:
            argv = spelled_out(argv, eval_long_options(parser))
        except UsageError as exc:
            print(f"polars-rank eval: error: {exc}", file=sys.stderr)
            return 1
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        if trec and exc.code == 2:  # argparse's usage error; trec_eval exits 1 there
            raise SystemExit(1) from None
        raise
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "eval":
            run_eval(args)
        elif args.command == "compare":
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                _cli_compare.run(args)
            for w in caught:
                print(f"polars-rank: warning: {readable(str(w.message))}", file=sys.stderr)
        elif args.command == "fuse":
            _cli_fuse.run(args)
        elif args.command == "demo":
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                demo(args.queries, args.seed)
            for w in caught:
                print(f"polars-rank: warning: {w.message}", file=sys.stderr)
        else:
            list_metrics()
    except BrokenPipeError:  # the reader left (| head): entry_point ends quietly
        raise
    except Stop as stop:  # where trec_eval 10 stops, with its message and exit status
        print(f"polars-rank: {stop}", file=sys.stderr)
        if stop.hint:
            print(f"polars-rank: hint: {stop.hint}", file=sys.stderr)
        return stop.status
    except (OSError, TrecFormatError, InvalidDataError, ValueError, ImportError) as exc:
        print(f"polars-rank: error: {exc}", file=sys.stderr)
        return exit_status(exc)  # trec_eval's, for an error it has too
    return 0


def entry_point() -> None:
    """Console-script entry point.

    A reader that stops reading (``polars-rank eval ... | head``) ends the program as
    it ends trec_eval and other C programs: by SIGPIPE, with nothing on stderr.
    """
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's advice (docs: signal, "Note on SIGPIPE"): point stdout at devnull so
        # that the flush at exit cannot fail again, then die of the signal
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if hasattr(signal, "SIGPIPE"):
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGPIPE)
        sys.exit(1)  # Windows has no SIGPIPE
    sys.exit(code)


if __name__ == "__main__":
    entry_point()
