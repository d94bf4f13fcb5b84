"""The log of shown lists that :func:`credit` reads, its checks and its one aggregation.

A log has a row per (impression, position shown). Its rules: no null impression,
position or document; no two rows at one position of an impression; no document
twice in an impression; clicks 0/1; the ``by`` columns constant within an
impression. They are answered with as few passes over the rows as possible:

* the null counts are free (Polars keeps them with each column);
* a log in (impression, position) order, as logs are written, has its positions
  distinct when the key ``(impression, position)`` strictly increases: one pass
  (:func:`strictly_ordered`); other logs count distinct positions per impression;
* the distinct documents, the ``by`` columns' distinct values and (team-draft) each
  ranker's clicks come from one ``group_by`` of the impressions
  (:func:`per_impression`), on the streaming engine (several times cheaper than the
  in-memory one over millions of rows);
* a broken rule then sends the exact search for its first offender (in the rows'
  order) down the slow path, as before: the error names the rule, the column and
  the impression (:func:`check_per_impression`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError
from polars_rank.online._interleaving.runs import where

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["read", "check_nulls", "strictly_ordered", "click_problem", "join_clicks",
           "team_names", "per_impression", "check_per_impression", "check_by",
           "check_key_types", "check_covered"]

_KEY_RANGE = 2**62  # the (impression, position) key's span must fit in an Int64


def read(frame: pl.DataFrame | pl.LazyFrame, needed: list[str], what: str) -> pl.DataFrame:
    """The ``needed`` columns of ``frame``, collected once (ValueError if one is missing)."""
    schema = frame.collect_schema()
    for column in needed:
        if column not in schema:
            msg = f"{what} has no column {column!r}; columns: {list(schema)}"
            raise ValueError(msg)
    return frame.lazy().select(list(dict.fromkeys(needed))).collect()


def check_nulls(shown: pl.DataFrame, impression: str, position: str, doc: str) -> None:
    """No null impression ``_m``, position ``_pos`` or document ``_d``."""
    for column, name in (("_m", impression), ("_pos", position), ("_d", doc)):
        if shown[column].null_count():
            bad = shown.filter(pl.col(column).is_null()).rename({"_m": impression})
            msg = f"log: null in column {name!r} at {where(bad, [impression])}"
            raise InvalidDataError(msg)


def strictly_ordered(shown: pl.DataFrame) -> bool:
    """Whether ``(_m, _pos)`` strictly increases row by row (so no position twice).

    >>> strictly_ordered(pl.DataFrame({"_m": [1, 1, 2], "_pos": [1, 2, 1]}))
    True
    >>> strictly_ordered(pl.DataFrame({"_m": [1, 1, 2], "_pos": [1, 1, 2]}))
    False
    >>> strictly_ordered(pl.DataFrame({"_m": ["b", "a"], "_pos": [1, 1]}))
    False
    """
    if shown.height < 2:
        return True
    m, p = shown["_m"], shown["_pos"]
    if m.dtype.is_integer() and p.dtype.is_integer():
        lo_m, hi_m, lo_p, hi_p = m.min(), m.max(), p.min(), p.max()
        assert isinstance(lo_m, int)  # integers, no nulls (check_nulls), two rows
        assert isinstance(hi_m, int)
        assert isinstance(lo_p, int)
        assert isinstance(hi_p, int)
        span = hi_p - lo_p + 1
        if (hi_m - lo_m + 1) * span < _KEY_RANGE:
            # one Int64 key, in the order of (_m, _pos): strictly increasing when it
            # is sorted (a flag-free pass) and has no two equal neighbours
            key = shown.select((pl.col("_m") - lo_m).cast(pl.Int64) * span
                               + (pl.col("_pos") - lo_p).cast(pl.Int64)).to_series()
            return key.is_sorted() and key.set_sorted().n_unique() == shown.height
    mc, pc = pl.col("_m"), pl.col("_pos")
    up = (mc > mc.shift(1)) | ((mc == mc.shift(1)) & (pc > pc.shift(1)))
    return bool(shown.select(up.slice(1).all()).item())


def click_problem(frame: pl.DataFrame, click: str, impression: str) -> str | None:
    """The message of the first click that is not 0/1 (or null), or None."""
    values = frame[click]
    if not values.null_count():
        if values.dtype == pl.Boolean:
            return None
        if values.dtype.is_integer() and values.min() in (0, 1, None) and values.max() in (
                0, 1, None):
            return None
    if not (values.dtype.is_numeric() or values.dtype in (pl.Boolean, pl.Null)):
        shown = frame.rename({"_m": impression}) if "_m" in frame.columns else frame
        return (f"clicks not 0/1 in column {click!r}: a column of {values.dtype}, not "
                f"numbers (e.g. {values[0]!r} at {where(shown, [impression])})")
    # as Float64: Polars 2 has no is_in of a float column in a list of integers; 0.0 and
    # 1.0 are clicks, 0.5 and NaN are not
    values = values.cast(pl.Float64)
    bad = frame.filter(~values.is_in([0.0, 1.0]) | values.is_null() | values.is_nan())
    if bad.height:
        shown = bad.rename({"_m": impression}) if "_m" in bad.columns else bad
        return (f"clicks not 0/1 in column {click!r}: {bad[click][0]!r} at "
                f"{where(shown, [impression])}")
    return None


def join_clicks(shown: pl.DataFrame, clicks: Any, impression: str, position: str,
                doc: str, click: str) -> tuple[pl.DataFrame, str | None]:
    """``shown`` with ``_c`` from the separate clicks, and the first problem (or None).

    The problem (a click not 0/1, a click on a row not shown) is returned, not raised,
    so that the log's own rules are reported first.
    """
    frame = as_polars(clicks, "clicks").lazy()
    schema = frame.collect_schema()
    at = position if position in schema else doc
    got = read(frame, [impression, at, *([click] if click in schema else [])], "clicks")
    got = got.rename({impression: "_m"})
    problem = None
    if click in got.columns:
        problem = click_problem(got, click, impression)
        if problem is None:
            got = got.filter(got[click].cast(pl.Int64) == 1)
    key = "_pos" if at == position else "_d"
    got = got.select("_m", pl.col(at).alias(key)).unique()
    # an empty frame's columns of no type (pl.DataFrame({"impression": []})): no clicks
    got = got.with_columns(pl.col(c).cast(shown.schema[c]) for c in ("_m", key)
                           if got.schema[c] == pl.Null)
    check_key_types(shown, got, {"_m": impression, key: at}, "clicks")
    stray = got.join(shown, on=["_m", key], how="anti")
    if problem is None and stray.height:
        problem = (f"clicks: a click on a {at} not shown (column {at!r}) at "
                   f"{where(stray.rename({'_m': impression, key: at}), [impression, at])}")
    out = (shown.join(got.with_columns(_c=pl.lit(1, pl.Int64)), on=["_m", key], how="left")
           .with_columns(pl.col("_c").fill_null(0)))
    return out, problem


def team_names(shown: pl.DataFrame, system: str) -> list[Any]:
    """The teams' distinct non-null names, sorted (two of them in two cheap passes).

    >>> team_names(pl.DataFrame({"s": ["B", None, "A", "B"]}), "s")
    ['A', 'B']
    >>> team_names(pl.DataFrame({"s": [3, 1, 2]}), "s")
    [1, 2, 3]
    """
    values = shown[system].drop_nulls() if shown[system].null_count() else shown[system]
    if values.len() and (values.dtype == pl.String or values.dtype.is_integer()):
        # Python orders str by code point and Polars by UTF-8 bytes: the same order
        first = values[0]
        other = values != first
        at = other.arg_max()
        if at is None or not other[at]:
            return [first]
        second = values[at]
        if ((values == first) | (values == second)).all():
            return sorted([first, second])
    out: list[Any] = values.unique().sort().to_list()
    return out


def per_impression(shown: pl.DataFrame, *, ordered: bool, by: Sequence[str],
                   system: str | None = None,
                   names: Sequence[Any] = ()) -> tuple[pl.DataFrame, list[str]]:
    """One row per impression ``_m`` (sorted), and the columns that may repeat in one.

    The frame: ``_u<i>`` (the number of distinct values, or 2 for "more than one") and
    the value of each ``by`` column; with ``system``, ``_s<j>``: the clicks ``_c`` on
    team ``names[j]``'s rows. The list: ``"_pos"`` and/or ``"_d"`` when an impression
    may hold a position or a document twice (:func:`check_per_impression` then looks).
    One ``group_by`` on the streaming engine (several times the in-memory one's speed
    over millions of rows); ``ordered``: the rows' ``(_m, _pos)`` strictly increase, so
    no position is counted.
    """
    aggs = [pl.len().alias("_n"), pl.col("_d").n_unique().alias("_nd")]
    if not ordered:
        aggs.append(pl.col("_pos").n_unique().alias("_np"))
    for i, c in enumerate(by):
        aggs += [pl.col(c).n_unique().alias(f"_u{i}"), pl.col(c).first()]
    if system is not None:
        # plain column sums: the group_by's fast path; integer counts, exact in any order
        aggs += [(pl.col("_c") * (pl.col(system) == name)).sum().cast(pl.Float64)
                 .alias(f"_s{j}") for j, name in enumerate(names)]
    agg = shown.lazy().group_by("_m").agg(*aggs).collect(engine="streaming").sort("_m")
    twice = [c for c, n in (("_pos", "_np"), ("_d", "_nd"))
             if n in agg.columns and not agg.select((pl.col(n) == pl.col("_n")).all()).item()]
    return agg.drop("_n", "_nd", *(["_np"] if not ordered else [])), twice


def check_per_impression(shown: pl.DataFrame, twice: list[str], *, impression: str,
                         position: str, doc: str) -> None:
    """No position twice, no document twice in an impression (InvalidDataError).

    ``twice``: the columns to search (from :func:`per_impression`); the exact search
    names the first offending row in the rows' order.
    """
    rules = {"_pos": (position, "two rows at one position"),
             "_d": (doc, "duplicate doc in a ranking")}
    for column in twice:
        name, problem = rules[column]
        found = shown.filter(pl.struct("_m", column).is_duplicated())
        if found.height:
            msg = (f"log: {problem} (column {name!r}) at "
                   f"{where(found.rename({'_m': impression, column: name}), [impression, name])}")
            raise InvalidDataError(msg)


def check_by(agg: pl.DataFrame, by: Sequence[str], impression: str) -> None:
    """Each ``by`` column takes one value per impression.

    The first impression (in the impressions' order) where one does not is named.
    """
    for i, c in enumerate(by):
        bad = agg.filter(pl.col(f"_u{i}") > 1)
        if bad.height:
            msg = (f"log: column {c!r} (by=) takes two values in "
                   f"{where(bad.rename({'_m': impression}), [impression])}")
            raise InvalidDataError(msg)


def check_key_types(shown: pl.DataFrame, other: pl.DataFrame, keys: dict[str, str],
                    what: str) -> None:
    """The join keys (internal name: the user's) have one type in the log and ``other``.

    Integers of different widths join; any other difference (text and numbers, floats
    and integers, Categorical and String) is an InvalidDataError naming both types.
    """
    for column, name in keys.items():
        ours, theirs = shown.schema[column], other.schema[column]
        if ours != theirs and not (ours.is_integer() and theirs.is_integer()):
            msg = (f"{what}: column {name!r} is {theirs} but the log's is {ours}; the keys "
                   "must have one type (cast one of them)")
            raise InvalidDataError(msg)


def check_covered(shown: pl.DataFrame, runs: pl.DataFrame, query: list[str], *,
                  impression: str, doc: str, docs: bool) -> None:
    """Every impression's query has runs and (``docs``) each shown doc is in one of them.

    The first offender in (impression, position) order is named (InvalidDataError):
    without them the impression would silently count as a tie. One anti-join of the
    log's rows when they are all covered.
    """
    on = [*query, "_d"] if docs else query
    stray = shown.join(runs.select(on).unique(), on=on, how="anti")
    if not stray.height:
        return
    lost = stray.join(runs.select(query).unique(), on=query, how="anti") if docs else stray
    if lost.height:
        first = lost.sort("_m", "_pos").rename({"_m": impression})
        msg = (f"log: the query of {where(first, [impression])} ({where(first, query)}) has "
               "no runs: its credit cannot be computed")
        raise InvalidDataError(msg)
    first = stray.sort("_m", "_pos").rename({"_m": impression, "_d": doc})
    msg = f"log: {where(first, [impression, doc])} is in no ranker's run for {where(first, query)}"
    raise InvalidDataError(msg)
