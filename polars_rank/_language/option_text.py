"""Metric-string options with commas inside: gain tables, weights, recall levels.

A metric string's option list is comma-separated, so a structured value keeps its
commas in brackets: ``ndcg(gains={1:3,2:9},gain=linear)`` (ir_measures' spelling of a
gain table), ``utility(weights=[2,-1,0,0])``, ``11pt_avg(levels=[0.2,0.5,0.8])``.
trec_eval writes the same values after the measure's name: ``ndcg.1=3,2=9``,
``utility.2,-1,0,0``, ``11pt_avg.0.2,0.5,0.8`` (and prints ``ndcg_1=3,2=9``);
:func:`trec_parameters` reads those.
"""

from __future__ import annotations

import re
from typing import Any

from polars_rank._engine.gain_table import GainTable, parse_gain_table, parse_trec_pairs

__all__ = ["split_options", "parse_numbers", "parse_structured", "trec_parameters"]

_TREC_GAINS = re.compile(
    r"^(?P<name>ndcg|dcg|ideal_dcg|g|ndcg_rel|rndcg)[._](?P<pairs>[-+]?\d+=.*)$")
_TREC_NUMBERS = re.compile(r"^(?P<name>utility|11pt_avg)[._](?P<values>[-+.\d][-+.\de,]*)$")


def split_options(text: str) -> list[str]:
    """``text`` split at the commas outside brackets: ``gains={1:3,2:9},gain=linear``."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in "[{") - (char in "]}")
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def parse_numbers(text: str, shown: str) -> tuple[float, ...]:
    """Comma-separated numbers (``2,-1,0,0``, ``.25,.5``), as trec_eval reads parameters."""
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        msg = f"{shown!r} is not a list of comma-separated numbers"
        raise ValueError(msg) from None


def parse_structured(kind: type, name: str, raw: str,
                     metric: str) -> GainTable | tuple[float, ...]:
    """Option ``name``'s value: a gain table ``{1:3,2:9}`` or numbers ``[2,-1,0,0]``."""
    try:
        if kind is GainTable:
            return parse_gain_table(raw)
        return parse_numbers(raw.strip().removeprefix("[").removesuffix("]"), f"[{raw}]")
    except ValueError as exc:
        what = "a table such as {1:3,2:9}" if kind is GainTable else "numbers in brackets"
        msg = f"{metric}: option {name}={raw!r} must be {what} ({exc})"
        raise ValueError(msg) from None


def trec_parameters(spec: str, text: str) -> tuple[str, dict[str, Any]] | None:
    """trec_eval's parameters after a measure's name: (metric, options), or None.

    ``ndcg.1=3,2=9`` / ``ndcg_1=3,2=9`` (also ``G``, ``ndcg_rel``, ``Rndcg``, ``dcg``,
    ``ideal_dcg``),
    ``utility.2,-1,0,0`` and ``11pt_avg.0.2,0.5,0.8``: the ``-m`` argument or the
    name trec_eval prints for it; ``text`` is ``spec`` lower case, without spaces.
    """
    pairs = _TREC_GAINS.match(text)
    if pairs:
        try:
            return pairs["name"], {"gains": parse_trec_pairs(pairs["pairs"])}
        except ValueError as exc:
            msg = f"{spec!r}: {exc}"
            raise ValueError(msg) from None
    listed = _TREC_NUMBERS.match(text)
    if listed is None:
        return None
    values = parse_numbers(listed["values"], spec)
    if listed["name"] == "utility":
        if len(values) != 4:
            msg = f"{spec!r}: utility takes four weights a,b,c,d (trec_eval's -m utility.1,-1,0,0)"
            raise ValueError(msg)
        return "utility", {"weights": values}
    if list(values) != sorted(values):
        msg = (f"{spec!r}: give 11pt_avg's recall levels in increasing order; trec_eval "
               "walks them as sorted (m_11pt_avg.c) and averages other points otherwise")
        raise ValueError(msg)
    return "11pt_avg", {"levels": values}
