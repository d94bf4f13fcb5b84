"""RBO's per-query sums without a sort, when the rank columns are already positions 1..n.

``ranking_similarity`` sorts each ranking by (query, key, document) to find positions.
When both columns are integers and every query's non-null values of each are exactly
1..n (a permutation: no gap, no repeat, nothing below 1), they are the positions: the
sums RBO needs (per query: the lengths, the common documents and the sum over them of
F(max(a, b) - 1)) are one ``group_by`` of plain columns, no sort. The same ``group_by``
checks that the columns are positions, exactly and cheaply:

- all values in [1, :data:`MOST`] (one pass over the frame before: else the sorting
  path);
- n, the count of a query's values, is at most the words' bits (count x WORD: more
  values than that are repeats, and could wrap a word's sum to its mask);
- the values' bits 2^(v-1), in Int128 words of :data:`WORD` bits (one column per word:
  one for rankings up to 120), add up to the mask of positions 1..n in every word. A
  sum of c powers of two has at most c set bits, exactly c when they are different.
  If a word held fewer values than its mask's bits (fewer than WORD: their sum cannot
  wrap, it is below WORD * 2^(WORD-1) < 2^127), its sum could not have all of them; as
  the counts add up to n, the masks' bits (n is at most the words' bits), every word
  holds exactly as many values as bits, different ones (no wrap either): the values
  are 1..n, each once (so min 1 and max n need no check of their own).

A query that is not positions sends the whole frame to the sorting path (the check's
cost is then lost: one pass). The float sum over the common documents is added in
fixed point (F / F_max in units of 2^-70): an integer sum, the same for any row order,
without sorting the values. It shares one Int128 per row with the three counts, read
from a table by one gather; with one Int128 word per ranking for the check, a query of
two 100-document rankings costs three Int128 sums (they were seven Int64 sums: 13M
rows, 0.40 s -> 0.24 s, about the floor's time; docs/performance.md).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import polars as pl

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["BITS", "MOST", "WORD", "at_depth", "earlier_below", "fixed", "shared", "strict_sums",
           "tau_bits", "unfixed"]

BITS = 57
"""Bits per Int64 word of tau_AP's bitsets (:func:`earlier_below`, :func:`tau_bits`)."""

MOST = 10 * BITS
"""The longest ranking the sort-free path takes (570): ten words of tau_AP's bitsets, five
of the positions check."""

WORD = 120
"""Bits per Int128 word of the positions check: up to 120 values below 2^120 add up to less
than 2^127."""

_FRAC = 70
_SCALE = float(1 << _FRAC)


@functools.lru_cache(maxsize=32)
def _fixed_table(table: tuple[float, ...]) -> tuple[pl.Series, float]:
    """F / F_max in units of 2^-70 (Int128), and F_max."""
    top = max(table) or 1.0
    return pl.Series([round(value / top * _SCALE) for value in table], dtype=pl.Int128), top


def at_depth(m: pl.Expr, table: pl.Series, *, clip: bool = True) -> pl.Expr:
    """F(m - 1) per row in fixed point (0 where ``m`` is null: F(0)), to add exactly.

    ``clip=False`` when ``m`` is known to be in [1, len(table)].
    """
    at = (m.cast(pl.Int64) - 1).fill_null(0)  # no null: a sum over nulls is slower
    if clip:
        at = at.clip(0, len(table) - 1)
    return pl.lit(_fixed_table(tuple(table.to_list()))[0]).gather(at)


def shared(total: pl.Expr, table: pl.Series) -> pl.Expr:
    """The sum of F(m - 1) from the sum of :func:`at_depth`: one rounding, any row order."""
    return total.cast(pl.Float64) / _SCALE * _fixed_table(tuple(table.to_list()))[1]


def fixed(value: pl.Expr) -> pl.Expr:
    """A float in [0, 1] in fixed point (Int128, units of 2^-70), to add exactly."""
    return (value * _SCALE).round().cast(pl.Int128)


def unfixed(total: pl.Expr) -> pl.Expr:
    """The sum of the values given to :func:`fixed`, from their sum."""
    return total.cast(pl.Float64) / _SCALE


_MASK = pl.Series([(1 << i) - 1 for i in range(BITS + 1)], dtype=pl.Int64)


@functools.lru_cache(maxsize=16)
def _word_table(j: int) -> pl.Series:
    """Indexed by a value v in [0, MOST] (0: null): 2^(v-1) if in Int64 word j, else 0."""
    return pl.Series([0] + [1 << (v - 1 - j * BITS) if (v - 1) // BITS == j else 0
                            for v in range(1, MOST + 1)], dtype=pl.Int64)


@functools.lru_cache(maxsize=32)
def _check_table(j: int, longest: int) -> pl.Series:
    """Indexed by a value v in [0, longest] (0: null): 2^(v-1) if in Int128 word j, else 0.

    As long as the longest ranking, not MOST: a smaller table, read faster.
    """
    return pl.Series([0] + [1 << (v - 1 - j * WORD) if (v - 1) // WORD == j else 0
                            for v in range(1, longest + 1)], dtype=pl.Int128)


_CHECK_MASK = pl.Series([(1 << i) - 1 for i in range(WORD + 1)], dtype=pl.Int128)


def _words(value: pl.Expr, count: int, longest: int, name: str) -> list[pl.Expr]:
    """Per row: 2^(v-1) in the column of its word, 0 in the others (one gather each)."""
    at = value.fill_null(0)
    return [pl.lit(_check_table(j, longest)).gather(at).alias(f"{name}{j}")
            for j in range(count)]


def _positions(n: pl.Expr, name: str, count: int) -> pl.Expr:
    """True if a query's values are 1..n: n of them, every word's sum its mask."""
    ok = n <= count * WORD  # more values than bits: repeats (a word's sum could wrap)
    for j in range(count):
        want = pl.lit(_CHECK_MASK).gather((n - j * WORD).clip(0, WORD))
        ok = ok & (pl.col(f"{name}{j}") == want)
    return ok


# One Int128 per row carries everything RBO adds up besides the check: F(m - 1) / F_max
# in units of 2^-_FRAC (a query's sum below 2^(_FRAC + 13) for fewer than 2^13 rows),
# then three 14-bit counts: common documents, a's, b's (at most 2^125).
_X, _NA, _NB = _FRAC + 13, _FRAC + 27, _FRAC + 41

_GRID = WORD
"""Rankings up to this long read their row's Int128 from a table indexed by (a, b) (14,641
entries at 120): no branch per row, 1.3x faster than choosing among the four cases."""


@functools.lru_cache(maxsize=16)
def _row_table(table: tuple[float, ...], longest: int) -> pl.Series:
    """Each row's Int128, indexed as :func:`_row_index` says.

    Its counts in their fields and, for a common document (at depth m = max(a, b)),
    F(m - 1) in fixed point.
    """
    frac = _fixed_table(table)[0].to_list()

    def entry(x: int, y: int) -> int:  # positions in a and b, 0 = absent
        both = (1 << _X) + frac[max(x, y) - 1] if x and y else 0
        return ((1 << _NA) if x else 0) + ((1 << _NB) if y else 0) + both

    w = longest + 1
    if longest <= _GRID:
        cells = [(x, y) for y in range(w) for x in range(w)]
    else:  # a alone, b alone, both (at depth m)
        cells = ([(x, 0) for x in range(w)] + [(0, y) for y in range(w)]
                 + [(m, m) for m in range(w)])
    return pl.Series([entry(x, y) for x, y in cells], dtype=pl.Int128)


def _row_index(a: pl.Expr, b: pl.Expr, longest: int) -> pl.Expr:
    """The index in :func:`_row_table` of each row (values in [1, ``longest``] or null)."""
    w = longest + 1
    if longest <= _GRID:
        return a.fill_null(0) + w * b.fill_null(0)
    both = a.is_not_null() & b.is_not_null()
    return (pl.when(both).then(2 * w + pl.max_horizontal(a, b)).when(a.is_not_null()).then(a)
            .otherwise(w + b.fill_null(0)))


def _field(total: pl.Expr, low: int, bits: int) -> pl.Expr:
    """The Int64 value of bits [low, low + bits) of an Int128."""
    return (total // pl.lit(1 << low, dtype=pl.Int128) % (1 << bits)).cast(pl.Int64)


def strict_sums(base: pl.LazyFrame, keys: Sequence[str], table: pl.Series, *, long: int,
                tau: bool) -> tuple[pl.DataFrame, pl.LazyFrame | None, int] | None:
    """The per-query sums of ``ranking_similarity``, or ``None`` if not all positions.

    ``base`` holds the query ``keys`` and the integer rank columns ``_a``, ``_b``.
    Returns one row per query with ``_na``, ``_nb``, ``_xl``, ``_xs``, ``_shared`` (the
    sum of F(m - 1) over the common documents, F = ``table``) and ``_bad`` (more than
    ``long`` rows, ``long`` < 2^13); with ``tau``, also the common documents (``keys``,
    ``_pa``, ``_pb``) sorted by (``keys``, ``_pa``), for :func:`tau_bits`; and the
    longest ranking's length.
    """
    a, b = pl.col("_a"), pl.col("_b")
    # one pass: the ranks' range and, for tau_AP's sort by one code, the query's
    coded = tau and len(keys) == 1 and base.collect_schema()[keys[0]].is_integer()
    q = pl.col(keys[0])
    extent = base.select(a.min().alias("la"), a.max().alias("ha"), b.min().alias("lb"),
                         b.max().alias("hb"),
                         *([q.min().alias("lq"), q.max().alias("hq")] if coded else [])
                         ).collect().row(0)
    top, queries = extent[:4], (extent[4:] if coded else None)
    if any(x is not None and (x < 1 or x > MOST) for x in top):
        return None  # not positions, or too long for the check
    longest = max(x or 0 for x in top)
    count = max(1, -(-longest // WORD))
    both = a.is_not_null() & b.is_not_null()
    m = pl.max_horizontal(a, b).cast(pl.Int64)
    a64, b64 = a.cast(pl.Int64), b.cast(pl.Int64)
    rows = base.with_columns(
        both.alias("_both"), m.alias("_m"),
        pl.lit(_row_table(tuple(table.to_list()), longest)).gather(_row_index(a64, b64, longest))
        .alias("_f"), *_words(a64, count, longest, "_wa"), *_words(b64, count, longest, "_wb"))
    assert long < 1 << 13  # the fields' widths
    agg = rows.group_by(keys).agg(
        pl.col("_f").sum(), *[pl.col(f"_w{s}{j}").sum() for s in "ab" for j in range(count)],
        (pl.len() > long).alias("_bad"),
    ).collect()
    f = pl.col("_f")
    agg = agg.with_columns(_field(f, _NA, 14).alias("_na"), _field(f, _NB, 14).alias("_nb"),
                           _field(f, _X, 14).alias("_xl"))
    na, nb = pl.col("_na"), pl.col("_nb")
    ok = _positions(na, "_wa", count) & _positions(nb, "_wb", count)
    if not agg.select((ok | pl.col("_bad")).all()).item():
        return None
    total = shared(f % pl.lit(1 << _X, dtype=pl.Int128), table)
    agg = agg.select(*keys, na, nb, pl.col("_xl"), total.alias("_shared"), pl.col("_bad"))
    # X_s, the common documents within the shorter length: only lists of unequal lengths
    # need a second look at their rows (equal lengths: X_s = X_l)
    uneven = agg.filter(na != nb).select(*keys, pl.min_horizontal(na, nb).alias("_s"))
    xs = pl.col("_xl")
    if uneven.height:
        found = (rows.filter(pl.col("_both")).select(*keys, "_m")
                 .join(uneven.lazy(), on=list(keys), how="inner", nulls_equal=True)
                 .group_by(keys).agg((pl.col("_m") <= pl.col("_s")).sum().cast(pl.Int64)
                                     .alias("_xs2")).collect())
        agg = agg.join(found, on=list(keys), how="left", nulls_equal=True)
        xs = pl.coalesce(pl.col("_xs2"), pl.col("_xl"))
    agg = agg.with_columns(xs.alias("_xs"))
    if not tau:
        return agg, None, longest
    common = rows.filter(pl.col("_both")).select(
        *keys, a.cast(pl.Int64).alias("_pa"), b.cast(pl.Int64).alias("_pb"))
    return agg, _by_query_and_a(common, keys, queries, longest), longest


def _by_query_and_a(common: pl.LazyFrame, keys: Sequence[str],
                    queries: tuple[Any, ...] | None, longest: int) -> pl.LazyFrame:
    """``common`` sorted by (``keys``, ``_pa``), nulls last.

    ``queries``: the (min, max) of one integer query column, else None. Then by one
    code, (query - its min) x (longest + 1) + _pa (a null query after the largest),
    unique per row: 2.3x faster than the sort by two keys (6.7M rows: 0.40 s against
    0.91 s). Other keys, or codes past 2^62: by the keys.
    """
    by_keys = common.sort([*keys, "_pa"], nulls_last=True)
    if queries is None:
        return by_keys
    low, high = queries
    if low is None or max(-low, high) >= 1 << 62 or (high - low + 2) * (longest + 1) >= 1 << 62:
        return by_keys
    q = pl.col(keys[0])
    width = longest + 1
    block = pl.when(q.is_null()).then(high - low + 1).otherwise(q.cast(pl.Int64) - low)
    return common.sort(block * width + pl.col("_pa"))


def earlier_below(query: pl.Expr, y: pl.Expr, longest: int) -> pl.Expr:
    """Per row: the earlier rows of its query with a smaller ``y``, counted with bitsets.

    The rows come sorted by query (and by the order that "earlier" means); ``y`` holds
    integers in [1, ``longest``], ``longest`` <= :data:`MOST`. Each row sets bit y - 1
    of one of ceil(longest / BITS) words; a word's running sum over the query's earlier
    rows (different ``y`` values: their bits never carry) is the set of the ``y`` seen
    so far, and the set bits below y - 1 are the count. A running sum over the whole
    column, less its value at the query's first row: Int64 sums wrap, their
    differences do not (a query's sum stays below 2^BITS).
    """
    v = y.cast(pl.Int64) - 1
    start = query.ne_missing(query.shift(1)) | (pl.int_range(pl.len()) == 0)
    total = pl.lit(0, dtype=pl.Int64)
    for j in range(max(1, -(-longest // BITS))):
        bit = pl.lit(_word_table(j)).gather(v + 1)
        before = bit.cum_sum() - bit  # the rows above, over the whole column
        seen = before - pl.when(start).then(before).forward_fill()
        below = pl.lit(_MASK).gather((v - j * BITS).clip(0, BITS))  # bits under y - 1
        total = total + (seen & below).bitwise_count_ones().cast(pl.Int64)
    return total


def tau_bits(common: pl.LazyFrame, keys: Sequence[str], longest: int,
             symmetric: bool) -> pl.LazyFrame:
    """tau_AP per query from its common documents sorted by (``keys``, ``_pa``): no other sort.

    ``_pa``, ``_pb`` are the positions in the whole rankings, ``_pb`` <= ``longest`` <=
    :data:`MOST`. In a's order, a running sum per word of 2^(_pb - 1) is the set of the
    positions in b seen so far: its bits below a document's ``_pb`` count the documents
    above it in both (C); the query's whole set, its bits below ``_pb`` the position
    among the common documents in b (the rows' index in the query gives it in a). As
    :func:`earlier_below`, sums over the whole column whose differences do not wrap.
    """
    i = pl.int_range(pl.len(), dtype=pl.Int64)
    new = pl.any_horizontal([pl.col(c).ne_missing(pl.col(c).shift(1)) for c in keys]) \
        | (i == 0)
    rows = common.with_columns(i.alias("_i"), new.alias("_new")).with_columns(
        pl.col("_new").shift(-1).fill_null(True).alias("_end"),
        (pl.col("_i") - pl.when("_new").then(pl.col("_i")).forward_fill() + 1).alias("_ra"))
    pb = pl.col("_pb").cast(pl.Int64)
    words = max(1, -(-longest // BITS))
    for j in range(words):  # the running sums, computed once
        bit = pl.lit(_word_table(j)).gather(pb)
        rows = rows.with_columns((bit.cum_sum() - bit).alias(f"_s{j}"))
    seen, above_b = pl.lit(0, pl.Int64), pl.lit(0, pl.Int64)
    for j in range(words):
        bit = pl.lit(_word_table(j)).gather(pb)
        s = pl.col(f"_s{j}")
        first = pl.when("_new").then(s).forward_fill()
        whole = pl.when("_end").then(s + bit).backward_fill() - first
        below = pl.lit(_MASK).gather((pb - 1 - j * BITS).clip(0, BITS))
        seen = seen + ((s - first) & below).bitwise_count_ones().cast(pl.Int64)
        above_b = above_b + (whole & below).bitwise_count_ones().cast(pl.Int64)
    rows = rows.with_columns(seen.cast(pl.Float64).alias("_c"), (above_b + 1).alias("_rb"))

    def term(pos: pl.Expr) -> pl.Expr:  # C(i) / (i - 1)
        return pl.when(pos > 1).then(pl.col("_c") / (pos - 1).cast(pl.Float64)).otherwise(0.0)

    sides = ("b", "a") if symmetric else ("b",)
    rows = rows.with_columns(*[fixed(term(pl.col(f"_r{w}"))).alias(f"_t{w}") for w in sides])
    n = pl.len().cast(pl.Float64)

    def one_way(w: str) -> pl.Expr:
        return 2.0 / (n - 1.0) * unfixed(pl.col(f"_t{w}").sum()) - 1.0

    value = (one_way("b") + one_way("a")) / 2.0 if symmetric else one_way("b")
    return rows.group_by(keys).agg(
        pl.when(n >= 2).then(value).otherwise(pl.lit(float("nan"))).alias("tau_ap"))
