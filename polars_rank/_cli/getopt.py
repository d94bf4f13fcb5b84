"""trec_eval's long options as GNU ``getopt_long`` reads them: abbreviated.

trec_eval 10 parses its command line with ``getopt_long`` (trec_eval.c:196-215), which
takes any unambiguous prefix of a long option for the option (``--meas P.5``,
``--q``, ``--Judged``), and stops with a usage error (exit status 1) on an ambiguous
one (``--Re``: ``--Rel_info_format`` or ``--Results_format``). ``polars-rank eval``
has more long options than trec_eval, so argparse alone would find ``--m`` ambiguous
(``--measure``, ``--metric``, ``--missing``, ...) where trec_eval reads ``--measure``:
:func:`spelled_out` writes trec_eval's abbreviations out before argparse reads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

__all__ = ["LONG_OPTIONS", "UsageError", "spelled_out"]

LONG_OPTIONS: dict[str, str] = {
    "help": "h", "version": "v", "query_eval_wanted": "q", "measure": "m",
    "complete_rel_info_wanted": "c", "level_for_rel": "l", "nosummary": "n",
    "Debug_level": "D", "Judged_docs_only": "J", "Number_docs_in_coll": "N",
    "Max_retrieved_per_topic": "M", "Rel_info_format": "R", "Results_format": "T",
    "Output_old_results_format": "o", "Zscore": "Z",
}
"""trec_eval 10's long options (trec_eval.c:196-212) and the short option each is."""


class UsageError(ValueError):
    """A command line trec_eval refuses as getopt_long does (its usage, exit status 1)."""


def spelled_out(argv: Sequence[str], known: Collection[str]) -> list[str]:
    """``argv`` with trec_eval's abbreviated long options written in full.

    ``known``: the long options (``--name``) the parser has; one given exactly is
    left as it is, as getopt_long takes an exact match before a prefix. Arguments
    after ``--`` are not options.

    Raises
    ------
    UsageError
        A prefix of two of trec_eval's long options, with getopt_long's message.

    Examples
    --------
    >>> spelled_out(["--meas", "P.5", "--q", "--Max=3", "qrels", "run"], {"--metric"})
    ['--measure', 'P.5', '--query_eval_wanted', '--Max_retrieved_per_topic=3', 'qrels', 'run']
    """
    out: list[str] = []
    for i, token in enumerate(argv):
        if token == "--":
            return [*out, *argv[i:]]
        name, equals, value = token[2:].partition("=")
        if token.startswith("--") and f"--{name}" not in known:
            matches = [option for option in LONG_OPTIONS if option.startswith(name)]
            if len(matches) > 1:
                possible = " ".join(f"'--{m}'" for m in matches)
                msg = f"option '--{name}' is ambiguous; possibilities: {possible}"
                raise UsageError(msg)
            if matches:
                token = f"--{matches[0]}{equals}{value}"
        out.append(token)
    return out
