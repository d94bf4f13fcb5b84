"""Gain tables: the gain of each relevance label, as trec_eval's ``-m ndcg.1=3,2=9``.

A gain table maps integer labels to gains; a label it does not list keeps its own
value as gain (trec_eval 10.0, gain_init.c ``setup_gains``; ir_measures'
``nDCG(gains=...)`` maps the qrels the same way, ``gains.get(label, label)``).
Gains may be 0 or negative. Three spellings reach :class:`GainTable`:

* the functions' ``gains=`` mapping, ``{1: 3.0, 2: 9.0}``;
* metric strings, ``ndcg(gains={1:3,2:9})``: ir_measures' own spelling, braces
  keeping the table's commas out of the option list (:func:`parse_gain_table`);
* trec_eval's ``ndcg.1=3,2=9`` and its printed name ``ndcg_1=3,2=9``
  (:func:`parse_trec_pairs`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["GainTable", "check_gains", "parse_gain_table", "parse_trec_pairs", "gain_of"]

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"
_ENTRY = re.compile(rf"^(?P<label>[-+]?\d+)(?P<sep>[:=])(?P<gain>{_NUMBER})$", re.IGNORECASE)


class GainTable(Mapping[int, float]):
    """An immutable, hashable ``{label: gain}`` table, in label order.

    ``str()`` is the metric-string spelling, ``{1:3,2:9,4:4.5}``, which
    :func:`parse_gain_table` reads back.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[tuple[int, float]]) -> None:
        self._items = tuple(sorted((int(k), float(g)) for k, g in items))

    def __getitem__(self, label: int) -> float:
        for key, gain in self._items:
            if key == label:
                return gain
        raise KeyError(label)

    def __iter__(self) -> Iterator[int]:
        return (key for key, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._items) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"GainTable({dict(self._items)!r})"

    def __str__(self) -> str:
        def number(x: float) -> str:
            return str(int(x)) if x.is_integer() else repr(x)

        return "{" + ",".join(f"{k}:{number(g)}" for k, g in self._items) + "}"


def check_gains(gains: object, name: str = "gains") -> GainTable | None:
    """``gains`` as a :class:`GainTable` (None or empty: no table), or raise.

    Labels are non-negative ints (a label is >= 0; unjudged rows have no label to map),
    gains finite numbers.
    """
    if gains is None:
        return None
    if not isinstance(gains, Mapping):
        msg = f"{name} must be a mapping from int labels to gains ({{1: 3.0}}), got {gains!r}"
        raise TypeError(msg)
    items = []
    for label, gain in gains.items():
        if isinstance(label, bool) or not isinstance(label, int) or label < 0:
            msg = f"{name}: labels must be ints >= 0, got {label!r} in {gains!r}"
            raise ValueError(msg)
        if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not math.isfinite(gain):
            msg = f"{name}: gains must be finite numbers, got {gain!r} for label {label}"
            raise ValueError(msg)
        items.append((label, float(gain)))
    return GainTable(items) if items else None


def _entries(parts: list[str], sep: str, spelling: str, text: str) -> GainTable:
    if not parts:
        msg = f"gains {text!r}: an empty table changes nothing; leave the option out"
        raise ValueError(msg)
    table: dict[int, float] = {}
    for part in parts:
        match = _ENTRY.match(part.strip())
        if match is None or match["sep"] != sep:
            msg = f"gains {text!r}: each entry is label{sep}gain ({spelling}), got {part!r}"
            raise ValueError(msg)
        label = int(match["label"])
        if label in table:
            msg = f"gains {text!r}: label {label} is given twice"
            raise ValueError(msg)
        table[label] = float(match["gain"])
    check_gains(table)
    return GainTable(table.items())


def parse_gain_table(text: str) -> GainTable:
    """A metric string's table, ``{1:3,2:9,4:4.5}`` (ir_measures' spelling)."""
    body = text.strip()
    if not (body.startswith("{") and body.endswith("}")):
        msg = f"gains {text!r}: write the table in braces, such as {{1:3,2:9}}"
        raise ValueError(msg)
    inner = body[1:-1].strip()
    return _entries(inner.split(",") if inner else [], ":", "as {1:3,2:9}", text)


def parse_trec_pairs(text: str) -> GainTable:
    """trec_eval's parameter pairs, ``1=3,2=9,4=4.5`` (``-m ndcg.1=3,2=9,4=4.5``)."""
    return _entries(text.split(","), "=", "as ndcg.1=3,2=9", text)


def gain_of(labels: pl.Expr, base: pl.Expr, gains: GainTable | None) -> pl.Expr:
    """Each row's gain: the table's for a listed label, else ``base`` (the label's own)."""
    if not gains:
        return base
    return labels.replace_strict([float(k) for k in gains], list(gains.values()),
                                 default=base, return_dtype=pl.Float64)
