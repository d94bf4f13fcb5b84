"""Team-draft credit of a log in blocks: one ``select``, no ``group_by``.

Logs are written in (impression, position) order, and most show every impression
the same positions (a page of ten results). Then impression ``b`` is the rows
``b*S .. b*S + S-1`` (``S`` = the positions' span), and ``reshape((-1, S))`` makes each
column an array per impression without moving a byte: the rules and the credit are
array reductions (``arr.n_unique``, ``arr.sum``) of one ``select``, whose
expressions Polars evaluates in parallel; the documents, as ``S`` columns (the k-th
of every impression, ``gather_every``) compared pair by pair.

:func:`team_draft_blocks` computes the credit that way *and* whether the log is so
laid out and breaks no rule (impressions in order with positions strictly
increasing, each exactly ``S`` rows, no document twice in one, two teams). When any
of these fails it returns None and :func:`credit` takes its general path, which finds
the rule broken and names the offender as before: the fast path only answers logs
the general path would have accepted, with the same numbers.
"""

from __future__ import annotations

from typing import Any

import polars as pl

__all__ = ["MAX_BLOCK", "team_draft_blocks"]

MAX_BLOCK = 64
"""The longest list (positions' span) the block layout is used for."""

_PAIRWISE = 16  # up to this length, the documents are compared pair by pair
_KEY_RANGE = 2**62  # |impression * S|, |position| below it: their sum fits an Int64


def team_draft_blocks(shown: pl.DataFrame, system: str,
                      click: str) -> tuple[pl.DataFrame, list[Any]] | None:
    """``(wide, names)``: ``_m`` and each team's clicks ``_s0``, ``_s1``, or None.

    ``shown`` has ``_m``, ``_pos``, ``_d``, the 0/1 clicks ``click`` and ``system``,
    with no nulls. None unless every impression is ``S`` consecutive rows in
    (impression, position) order, with no document twice, and there are two teams.

    >>> log = pl.DataFrame({"_m": [1, 1, 2, 2], "_pos": [1, 2, 1, 2], "_d": [5, 6, 6, 5],
    ...                     "c": [1, 0, 1, 1], "t": ["B", "A", "A", "B"]})
    >>> wide, names = team_draft_blocks(log, "t", "c")
    >>> names, wide.rows()
    (['A', 'B'], [(1, 0.0, 1.0), (2, 1.0, 1.0)])
    >>> team_draft_blocks(log.with_columns(_d=pl.lit(5)), "t", "c") is None
    True
    """
    m, p, t = shown["_m"], shown["_pos"], shown[system]
    n = shown.height
    if n < 2 or not (m.dtype.is_integer() and p.dtype.is_integer()):
        return None
    lo, hi = p.min(), p.max()
    assert isinstance(lo, int)  # integers, no nulls, rows
    assert isinstance(hi, int)
    span = hi - lo + 1
    first = t[0]
    at = (t != first).arg_max()
    second = t[at] if at is not None else first
    if span > MAX_BLOCK or n % span or max(-lo, hi) >= _KEY_RANGE or second == first:
        return None

    # m * S + position orders (impression, position) as a sort would (positions span
    # S values), in an Int64 when |m| < bound: strictly increasing when the
    # impressions come in order and none has a position twice; a block that starts
    # and ends in one impression is then all of it (an impression has <= S positions)
    bound = _KEY_RANGE // span
    key = pl.col("_m").cast(pl.Int64, strict=False) * span + pl.col("_pos").cast(pl.Int64)
    c = pl.col(click).cast(pl.Boolean)
    team = pl.col(system)
    # the documents: numbers as they are, others by their 64-bit hash (a collision can
    # only make the check fail, and credit() then takes its exact path)
    docs = pl.col("_d") if shown["_d"].dtype.is_numeric() else pl.col("_d").hash(11)
    pairwise = span <= _PAIRWISE
    out = shown.lazy().select(
        _fits=(pl.col("_m").min() > -bound) & (pl.col("_m").max() < bound),
        _ordered=(key.diff().slice(1) > 0).all(),
        _two=((team == first) | (team == second)).all(),
        _m=pl.col("_m").gather_every(span),
        _last=pl.col("_m").gather_every(span, offset=span - 1),
        _sa=c.and_(team == first).reshape((-1, span)).arr.sum(),
        _clicks=c.reshape((-1, span)).arr.sum(),
        # the k-th document of every impression (the comparisons come after: one
        # select evaluating each gather once), or their distinct count
        **({f"_k{k}": docs.gather_every(span, offset=k) for k in range(span)} if pairwise
           else {"_nd": docs.reshape((-1, span)).arr.n_unique()}),
    ).collect()
    if pairwise:
        same = [pl.col(f"_k{i}") == pl.col(f"_k{j}")
                for i in range(span) for j in range(i + 1, span)]
        distinct = not out.select(pl.any_horizontal(same or [pl.lit(False)]).any()).item()
    else:
        distinct = bool((out["_nd"] == span).all())
    flags = out.row(0, named=True)
    if not (flags["_fits"] and flags["_ordered"] and distinct and flags["_two"]
            and (out["_m"] == out["_last"]).all()):
        return None
    # sorted as the general path sorts the teams (shown.team_names): in the column's own
    # type, so an Enum's or Categorical's order, not the names' as text
    names = pl.Series([first, second], dtype=t.dtype).sort().to_list()
    a = pl.col("_sa").cast(pl.Float64)
    b = (pl.col("_clicks") - pl.col("_sa")).cast(pl.Float64)
    ab = names[0] == first
    return out.select("_m", _s0=a if ab else b, _s1=b if ab else a), names
