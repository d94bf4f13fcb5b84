"""Build-time validation of metric parameters.

Every check raises a real exception (``ValueError`` / ``TypeError``) that names the
parameter, the value it got and what is allowed, when the expression is *built*:
a bad ``k`` never reaches a query plan.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from typing import Literal, TypeAlias, get_args

import polars as pl

Gain: TypeAlias = Literal["exponential", "linear", "binary"]
# ---------------------------------------------------------------- tie policies
# How equal scores are ordered: one vocabulary (the glossary's "ties policy",
# docs/architecture.md), each entry point taking the subset it can compute. The
# meaning of each name is written once, in TIE_POLICIES; the aliases below list
# names of it only (tests/test_ties.py::test_one_tie_vocabulary).
TIE_POLICIES: dict[str, str] = {
    "trec_eval": "by document id, descending, among equal scores compared as doubles "
                 "(trec_eval 10)",
    "trec_eval9": "by document id, descending, among equal scores compared as floats "
                  "(trec_eval 9)",
    "doc_ascending": "by document id, ascending (ir_measures' providers, ranx's loaders)",
    "ndeval": "by document id, ascending (ndeval's intent-aware metrics)",
    "first": "the row order (or the ranking step's positions)",
    "optimistic": "the metric's row gain, largest first: its best value over tie orders",
    "pessimistic": "the metric's row gain, smallest first: its worst value over tie orders",
    "expected": "none: the exact mean over every order of the tied rows",
}
TiePolicy: TypeAlias = Literal["trec_eval", "trec_eval9", "doc_ascending", "ndeval", "first",
                               "optimistic", "pessimistic", "expected"]
"""Every tie policy (:data:`TIE_POLICIES` says what each orders by)."""
Ties: TypeAlias = Literal["first", "optimistic", "pessimistic", "expected", "trec_eval",
                          "trec_eval9"]
"""A metric expression's ``ties`` (``doc_ascending`` is ``by=[score, doc]``, ascending)."""
EvalTies: TypeAlias = Literal["trec_eval", "trec_eval9", "doc_ascending", "first",
                              "optimistic", "pessimistic", "expected"]
""":func:`polars_rank.evaluate`'s ``ties`` (and the front ends', the CLI's ``--ties``)."""
IntentTies: TypeAlias = Literal["ndeval", "trec_eval"]
"""The intent-aware metrics' ``ties``: by document id ascending (ndeval, as pyndeval and
ir_measures call it) or descending with 64-bit scores (trec_eval 10)."""
SampledTies: TypeAlias = Literal["first", "optimistic", "pessimistic", "expected"]
"""``polars_rank.sampled``'s ``ties``: over sampled ranks, no document ids."""
Denominator: TypeAlias = Literal["relevant", "capped", "retrieved"]
"""AP's denominator: R, min(R, k), or the relevant rows ranked within k."""
Empty: TypeAlias = Literal["zero", "one", "skip", "error"]
"""What a list without relevant rows scores (torchmetrics' ``empty_target_action``)."""

IntoExpr: TypeAlias = "str | pl.Expr"
"""A column name or an expression."""
By: TypeAlias = "str | pl.Expr | Sequence[str | pl.Expr] | None"
"""Ranking key(s): a score or rank column, optionally followed by tie-breaking keys."""
Query: TypeAlias = "str | pl.Expr | Sequence[str | pl.Expr] | None"
"""Column(s) identifying a query."""
Rank: TypeAlias = "str | pl.Expr | tuple[str | pl.Expr, str | pl.Expr] | None"
"""Positions given by a ranking step: a column of 1-based ranks, or (first, last) tie spans."""



class Unset(enum.Enum):
    """The type of :data:`UNSET`."""

    UNSET = "unset"

    def __repr__(self) -> str:
        return "<by= or rank=>"


UNSET = Unset.UNSET
"""``by``'s default: a metric needs ``by=`` (keys) or ``rank=`` (positions); the row
order is ``by=None``, said explicitly, never an accident of a forgotten argument."""

GAINS: tuple[str, ...] = get_args(Gain)
TIES: tuple[str, ...] = get_args(Ties)
EVAL_TIES: tuple[str, ...] = get_args(EvalTies)
INTENT_TIES: tuple[str, ...] = get_args(IntentTies)
EMPTY: tuple[str, ...] = get_args(Empty)
DENOMINATORS: tuple[str, ...] = get_args(Denominator)


def to_expr(value: str | pl.Expr, name: str) -> pl.Expr:
    """Turn a column name or expression into an expression, or raise ``TypeError``."""
    if isinstance(value, pl.Expr):
        return value
    if isinstance(value, str):
        return pl.col(value)
    msg = f"{name} must be a column name or a polars expression, got {value!r}"
    raise TypeError(msg)


def to_exprs(value: str | pl.Expr | Sequence[str | pl.Expr], name: str) -> tuple[pl.Expr, ...]:
    """Turn one or several column names / expressions into a tuple of expressions."""
    if isinstance(value, (str, pl.Expr)):
        return (to_expr(value, name),)
    if isinstance(value, Sequence) and len(value) > 0:
        return tuple(to_expr(v, name) for v in value)
    msg = f"{name} must be a column name, an expression or a non-empty list of them, got {value!r}"
    raise TypeError(msg)


def check_k(k: object, name: str = "k") -> int | None:
    """Return ``k`` if it is ``None`` or a positive int."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int):
        msg = f"{name} must be a positive int or None (the whole list), got {k!r}"
        raise TypeError(msg)
    if k < 1:
        msg = f"{name} must be a positive int or None (the whole list), got {k!r}"
        raise ValueError(msg)
    return k


def check_threshold(threshold: object) -> float:
    """A validated relevance threshold: labels >= it are relevant."""
    return check_real(threshold, "threshold", allowed="a finite number")


def check_real(value: object, name: str, *, low: float | None = None, low_open: bool = False,
               high: float | None = None, high_open: bool = False, allowed: str) -> float:
    """Return ``value`` as a float if it is a finite real number within the bounds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        msg = f"{name} must be {allowed}, got {value!r}"
        raise TypeError(msg)
    x = float(value)
    bad = not math.isfinite(x)
    bad |= low is not None and (x <= low if low_open else x < low)
    bad |= high is not None and (x >= high if high_open else x > high)
    if bad:
        msg = f"{name} must be {allowed}, got {value!r}"
        raise ValueError(msg)
    return x


def check_choice(value: object, name: str, allowed: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        msg = f"{name} must be one of {choices}, got {value!r}"
        raise ValueError(msg)
    return value


def check_descending(descending: bool | Sequence[bool], n_keys: int) -> tuple[bool, ...]:
    """Broadcast ``descending`` to one flag per ranking key."""
    if isinstance(descending, bool):
        return (descending,) * n_keys
    if isinstance(descending, Sequence) and all(isinstance(d, bool) for d in descending):
        if len(descending) == n_keys:
            return tuple(descending)
        msg = (f"descending must be a bool or one bool per `by` key ({n_keys}), "
               f"got {len(descending)} values: {descending!r}")
        raise ValueError(msg)
    msg = f"descending must be a bool or a list of bools, got {descending!r}"
    raise TypeError(msg)


def check_result_names(what: str, columns: Iterable[str], result: Iterable[str]) -> None:
    """ValueError when one of ``columns`` (``what``: their parameters) is a result column.

    A slice column named ``estimate`` would be overwritten by the estimate, or make
    Polars raise a DuplicateError: the entry points refuse such names up front.

    >>> check_result_names("group_by", ["day"], ["estimate"])
    >>> check_result_names("group_by", ["estimate"], ["estimate", "ci_low"])
    Traceback (most recent call last):
    ...
    ValueError: group_by columns may not be named like result columns: ['estimate']
    """
    clash = sorted(set(columns) & set(result))
    if clash:
        msg = f"{what} columns may not be named like result columns: {clash}"
        raise ValueError(msg)
