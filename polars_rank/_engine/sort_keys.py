"""Sort keys for ranking a list: several keys as one, nulls (not retrieved) last.

A sort or ``rank()`` by one key is faster in Polars' group and window contexts than by
a list of keys (measured in :func:`sort_by`), so the ranking step folds the keys of
one direction into one struct key. trec_eval's score comparison is here too
(:func:`trec_score`), for every place that ranks as trec_eval does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Sequence

TREC_TIES = ("trec_eval", "trec_eval9")
"""The tie policies that order equal scores by document id, descending, as trec_eval."""


def trec_score(score: pl.Expr, ties: str) -> pl.Expr:
    """The score as trec_eval compares it under ``ties`` (one of :data:`TREC_TIES`).

    trec_eval 10.0 reads scores as 64-bit doubles (get_trec_results.c:210 ``atof``,
    form_res_rels.c ``double sim``, ``comp_sim_docno``): ``"trec_eval"``. trec_eval 9
    (and pytrec_eval, which ir_measures calls) stored ``float sim``: ``"trec_eval9"``,
    32-bit floats, so 1.348 and 1.3479999999999999 tie there and not in trec_eval 10.
    Either way -0.0 equals 0.0 (C's ``>`` and ``<``).
    """
    if ties == "trec_eval9":
        return score.cast(pl.Float32)
    return score.cast(pl.Float64) + 0.0  # -0.0 + 0.0 is 0.0


def rank_key(keys: list[pl.Expr], descending: list[bool]) -> tuple[pl.Expr, bool]:
    """The keys as one expression to ``rank()``, and its direction (nulls last).

    One key ranks as it is; several in one direction as one struct
    (:func:`_nulls_last_struct`); in mixed directions, each ascending key becomes minus
    its dense rank, so all descend.
    """
    if len(keys) == 1:
        return keys[0], descending[0]
    if len(set(descending)) > 1:
        keys = [k if d else -k.rank("dense").cast(pl.Int64) for k, d in zip(keys, descending,
                                                                              strict=True)]
        descending = [True] * len(keys)
    return _nulls_last_struct(keys, descending[0]), descending[0]


def sort_by(values: pl.Expr, keys: list[pl.Expr], descending: list[bool]) -> pl.Expr:
    """``values`` sorted by ``keys`` (nulls last, ties in input order).

    Several keys sorted in one direction become one struct key. In a ``group_by`` or
    window context, a sort by a list of keys slows down with the number of chunks the
    frame comes in (the streaming engine's morsels; a single key does not). A struct
    key is faster in the ``group_by`` and windows metrics mostly run in, slower in
    one ``select`` over one long list (docs/performance.md, "Behind the code";
    :func:`_nulls_last_struct`).
    """
    if len(keys) < 2 or len(set(descending)) > 1:
        return values.sort_by(keys, descending=descending, nulls_last=True,
                              maintain_order=True)
    down = descending[0]
    return values.sort_by(_nulls_last_struct(keys, down), descending=down, nulls_last=True,
                          maintain_order=True)


def _nulls_last_struct(keys: list[pl.Expr], descending: bool) -> pl.Expr:
    """Keys of one direction as one struct key that orders a null key last.

    A struct orders a null field below every value: last when sorting descending;
    ascending, each key is preceded by its null flag.
    """
    fields = keys if descending else [f for key in keys for f in (key.is_null(), key)]
    return key_struct(fields)


def key_struct(keys: Sequence[pl.Expr]) -> pl.Expr:
    """The keys as one struct, its fields named by position.

    Two keys may share a name (``by=["score", pl.col("score") * 2]``); two fields of
    a struct may not.
    """
    return pl.struct(*(key.alias(f"_{i}") for i, key in enumerate(keys)))
LABEL_TIES = ("optimistic", "pessimistic")
"""The tie policies ordering tied rows by gain (:func:`polars_rank._engine.ranked.tie_key`)."""
