"""A label or ranking key of the wrong type, refused by name when a plan is resolved.

A metric expression cannot see the frame it will run on, so it cannot check a
column's type when it is built, and it cannot stop a running plan. Polars 2.0 added
``pl.pipe_with_dtype``: a function called when the plan is resolved, with the input's
type, before any row is read. Through it a text label or ranking key raises
:class:`~polars_rank.InvalidDataError` naming the rule, the column and its type (the
rule: :func:`polars_rank._engine.rules.label_type_problem` and ``key_type_problem``, which
:func:`polars_rank.evaluate` and :func:`polars_rank.validate` apply too). The check
runs once per plan, not per row: nothing at run time (docs/performance.md).

Polars 1.x has no such hook (a ``map_batches`` runs per batch and its errors come out
as Polars' own): there the same plans still fail, in Polars' words ("arithmetic on
dtypes str and dyn float"), because :class:`~polars_rank._engine.ranked.Ranked` reads the
label as ``label * 1.0`` and probes the score's first value.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.rules import key_type_problem, label_type_problem
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["PLAN_HOOK", "checked_key", "checked_keys", "checked_label", "checked_ranking",
           "refuse_text_key"]

PLAN_HOOK = hasattr(pl, "pipe_with_dtype")
"""Whether this Polars calls back when a plan is resolved (Polars >= 2.0)."""


def checked_label(label: pl.Expr) -> pl.Expr:
    """``label``, refused at plan time unless it is a number (or boolean) column."""
    return _checked(label, _check_label)


def checked_key(key: pl.Expr) -> pl.Expr:
    """A ranking key, refused at plan time if it is text (it would rank alphabetically)."""
    return _checked(key, _check_key)


def checked_ranking(key: pl.Expr, which: str) -> pl.Expr:
    """Ranking ``which`` ("a" or "b") of two compared, refused at plan time if it is text."""
    return _checked(key, _check_a if which == "a" else _check_b)


def checked_keys(keys: tuple[pl.Expr, ...]) -> tuple[pl.Expr, ...]:
    """The ranking keys, the first (the score) checked by :func:`checked_key`.

    The others break its ties, and a text key does that as intended:
    ``by=["score", "docid"]`` orders equal scores by document id.
    """
    return (checked_key(keys[0]), *keys[1:]) if keys else keys


def _checked(expr: pl.Expr,
             check: Callable[[list[tuple[pl.Expr, pl.DataType]]], pl.Expr]) -> pl.Expr:
    if not PLAN_HOOK:
        return expr
    # a module-level callback, not a closure: the same check on the same column builds
    # the same expression text, whatever metric builds it
    with warnings.catch_warnings():  # "unstable" (pl.Config.warn_unstable): ours to watch
        warnings.simplefilter("ignore", pl.exceptions.UnstableWarning)
        return pl.pipe_with_dtype([expr], check)


def _check_label(inputs: list[tuple[pl.Expr, pl.DataType]]) -> pl.Expr:
    ((expr, dtype),) = inputs
    _raise_if(label_type_problem(dtype), "the relevance", expr, dtype)
    return expr


def _check_key(inputs: list[tuple[pl.Expr, pl.DataType]]) -> pl.Expr:
    return _text_key(inputs, "the ranking key `by`")


def _check_a(inputs: list[tuple[pl.Expr, pl.DataType]]) -> pl.Expr:
    return _text_key(inputs, "the ranking `a`")


def _check_b(inputs: list[tuple[pl.Expr, pl.DataType]]) -> pl.Expr:
    return _text_key(inputs, "the ranking `b`")


def _text_key(inputs: list[tuple[pl.Expr, pl.DataType]], role: str) -> pl.Expr:
    ((expr, dtype),) = inputs
    refuse_text_key(dtype, role, expr)
    return expr


def refuse_text_key(dtype: pl.DataType, role: str, expr: pl.Expr) -> None:
    """InvalidDataError if a ranking key of type ``dtype`` is text (``key_type_problem``).

    For entry points that read the frame's schema themselves (``ranking_similarity``),
    with the message the expressions give.
    """
    _raise_if(key_type_problem(dtype), role, expr, dtype)


def _raise_if(problem: str | None, role: str, expr: pl.Expr, dtype: pl.DataType) -> None:
    if problem is None:
        return
    name = expr.meta.output_name(raise_if_undetermined=False)
    what = f"column {name!r}" if expr.meta.is_column() else f"expression {expr}"
    msg = f"{problem}: {role} is {what}, of type {dtype}"
    raise InvalidDataError(msg)
