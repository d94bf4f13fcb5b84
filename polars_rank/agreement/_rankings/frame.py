"""RBO and tau_AP of every query of a joined frame at once: a few sorts and one group_by.

The expressions of :mod:`~polars_rank.agreement._rankings.rbo` and
:mod:`~polars_rank.agreement._rankings.correlation` read their context as one query, so
with ``query=`` Polars evaluates them once per query, a fixed cost of a few dozen
operations per list. Here every step runs once over the whole frame:

1. each ranking's positions: one sort by (query, key, doc) and the row index minus the
   index of the query's first row (found by comparing each row's query with the row
   above and carrying it down with ``forward_fill``);
2. RBO: a document at positions a and b is in every overlap from depth
   m = max(a, b) on, so the sums over depths are, per query, sums over documents of
   F(m - 1) (a lookup in one table of prefix sums) and counts; one ``group_by``;
3. tau_AP: the positions among the common documents (two more sorts), then for each
   document the documents above it in both rankings, counted in dyadic blocks of its
   position with binary searches in one sorted column of codes (query, block, position)
   for all queries at once (as :func:`~polars_rank.agreement._rankings.lists.dominated`,
   with the query in the high bits; as many blocks as the longest list needs), or, for
   lists up to 570 common documents, with bitsets (:func:`~polars_rank.agreement.
   _rankings.strict.earlier_below`).

When both rank columns are integer positions 1..n in every query, step 1 is skipped
(:mod:`~polars_rank.agreement._rankings.strict`: one ``group_by`` gives RBO's sums and
checks that they are positions). Sums over a query are in fixed point (one Int128 in
units of 2^-70): the same for any row order without sorting the values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import polars as pl

from polars_rank._engine.column_types import refuse_text_key
from polars_rank._engine.params import check_real
from polars_rank.agreement._rankings.lists import MAX_ITEMS, check_bool
from polars_rank.agreement._rankings.rbo import prefix_series, rbo_kinds
from polars_rank.agreement._rankings.strict import (
    MOST,
    at_depth,
    earlier_below,
    fixed,
    shared,
    strict_sums,
    tau_bits,
    unfixed,
)
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["MEASURES", "ranking_similarity"]

Frame = TypeVar("Frame", pl.DataFrame, pl.LazyFrame)

MEASURES: tuple[str, ...] = ("rbo", "rbo_min", "rbo_res", "rbo_max", "tau_ap")
_F = pl.Float64
_NAN = float("nan")


def _positions(frame: pl.LazyFrame, keys: list[str], key: str, doc: str | None,
               desc: bool, out: str, *, presorted: bool = False) -> pl.LazyFrame:
    """Sort by (query, key, doc) and add the positions ``out`` (1 first, null if absent).

    Also ``out_n`` (the ranking's length) and ``out_bad`` (a tie without ``doc``, a NaN key).
    """
    by = [*keys, key] + ([doc] if doc is not None else [])
    if not presorted:
        frame = frame.sort(by, descending=[False] * len(keys) + [desc] + [False] * (len(by) - 1
                                                                                     - len(keys)),
                           nulls_last=True)
    idx = pl.int_range(pl.len(), dtype=pl.Int64)
    new = pl.any_horizontal([pl.col(c).ne_missing(pl.col(c).shift(1)) for c in keys]) \
        | (idx == 0)
    k = pl.col(key)
    frame = frame.with_columns(new.alias("_new"), idx.alias("_idx"),
                               k.is_not_null().cast(pl.Int64).cum_sum().alias("_cp"))
    start = pl.when("_new").then(pl.col("_idx")).forward_fill()
    end = pl.col("_new").shift(-1).fill_null(True)
    before = pl.when("_new").then(pl.col("_cp") - k.is_not_null().cast(pl.Int64)).forward_fill()
    n = pl.when(end).then(pl.col("_cp")).backward_fill() - before
    bad = k.cast(_F).is_nan().fill_null(False)
    if doc is None:
        bad = bad | (k.is_not_null() & k.eq(k.shift(1)).fill_null(False) & ~pl.col("_new"))
    return frame.with_columns(
        pl.when(k.is_not_null()).then(pl.col("_idx") - start + 1).alias(out),
        n.alias(f"{out}_n"), bad.alias(f"{out}_bad"),
    ).drop("_new", "_idx", "_cp")


def _rbo(p: float) -> dict[str, pl.Expr]:
    """RBO's kinds from the per-query columns na, nb, x_l, x_s, shared (rbo_kinds)."""
    # lengths clipped to the tables (2 * MAX_ITEMS + 1 entries): a longer query's value is
    # NaN anyway (its _bad), but an index past the table would raise for the whole frame
    top = 2 * MAX_ITEMS
    na, nb = pl.col("_na").clip(0, top), pl.col("_nb").clip(0, top)
    s, ln = pl.min_horizontal(na, nb), pl.max_horizontal(na, nb)
    return rbo_kinds(p, s, ln, pl.col("_xl"), pl.col("_xs").cast(_F), pl.col("_shared"),
                     one_value=False)


def _dominated(qi: pl.Expr, x: pl.Expr, y: pl.Expr, levels: int) -> pl.Expr:
    """Per row: the rows of its query with smaller ``x`` and smaller ``y``.

    As :func:`~polars_rank.agreement._rankings.lists.dominated`, reading ``levels`` bits.
    """
    width = MAX_ITEMS + 1
    total = pl.lit(0, dtype=pl.Int64)
    for level in range(levels):
        high = qi * (MAX_ITEMS >> level) + x // (1 << level)
        codes = (high * width + y).sort()
        block = (high - 1) * width
        found = (codes.search_sorted(block + y, side="left").cast(pl.Int64)
                 - codes.search_sorted(block, side="left").cast(pl.Int64))
        total = total + pl.when((x // (1 << level)) % 2 == 1).then(found).otherwise(0)
    return total.cast(_F)


def _tau_ap(common: pl.LazyFrame, keys: list[str], symmetric: bool) -> pl.LazyFrame:
    """tau_AP per query (``keys``, index ``_qi``) over the rows held by both rankings.

    ``common`` comes sorted by (``_qi``, ``_pb``): the positions among the common rows
    in ``b`` need no sort, those in ``a`` one.
    """
    ranked = _positions(common, ["_qi"], "_pb", None, False, "_rb", presorted=True)
    # one Int64 code to sort by (the query index, then the position in a)
    ranked = ranked.sort(pl.col("_qi") * (1 << 31) + pl.col("_pa"))
    ranked = _positions(ranked, ["_qi"], "_pa", None, False, "_ra", presorted=True)
    ranked = ranked.with_columns(pl.col("_ra").clip(upper_bound=MAX_ITEMS),
                                 pl.col("_rb").clip(upper_bound=MAX_ITEMS)).collect().lazy()
    ra, rb = pl.col("_ra"), pl.col("_rb")
    longest = ranked.select(pl.col("_ra_n").max()).collect().item() or 1
    # documents above in both rankings, the query in the bits above the position's: only
    # the bits the longest list needs (one sort each), hence the collect above
    if longest <= MOST:  # sorted by (_qi, _ra): the rows above in a with a smaller _rb
        correct = earlier_below(pl.col("_qi"), rb, longest).cast(_F)
    else:
        correct = _dominated(pl.col("_qi"), ra - 1, rb, max(1, (longest - 1).bit_length()))

    def term(pos: pl.Expr) -> pl.Expr:  # C(i) / (i - 1), computed once for all queries
        return pl.when(pos > 1).then(pl.col("_c") / (pos - 1).cast(_F)).otherwise(0.0)

    # the sums over a query in fixed point: integer sums, any row order, no sort
    sides = ("b", "a") if symmetric else ("b",)
    ranked = ranked.with_columns(correct.alias("_c")).with_columns(
        *[fixed(term(rb if w == "b" else ra)).alias(f"_t{w}") for w in sides])
    n = pl.col("_ra_n").first().cast(_F)

    def one_way(w: str) -> pl.Expr:
        total = unfixed(pl.col(f"_t{w}").sum())
        return 2.0 / (n - 1.0) * total - 1.0

    value = (one_way("b") + one_way("a")) / 2.0 if symmetric else one_way("b")
    return ranked.group_by("_qi").agg(
        *[pl.col(k).first() for k in keys],
        pl.when(n >= 2).then(value).otherwise(pl.lit(_NAN)).alias("tau_ap"))


def _sorted_sums(base: pl.LazyFrame, keys: list[str], doc: str | None, desc: bool,
                 table: pl.Series, tau: bool) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """RBO's per-query sums (and tau_AP's common rows) from two sorts for the positions."""
    base = _positions(base, keys, "_a", doc, desc, "_pa")
    first = pl.int_range(pl.len(), dtype=pl.Int64) == 0
    new = pl.any_horizontal([pl.col(c).ne_missing(pl.col(c).shift(1)) for c in keys]) | first
    base = base.with_columns((new.cast(pl.Int64).cum_sum() - 1).alias("_qi"))  # sorted: query
    base = _positions(base, keys, "_b", doc, desc, "_pb")
    pa, pb = pl.col("_pa"), pl.col("_pb")
    both = pa.is_not_null() & pb.is_not_null()
    m = pl.when(both).then(pl.max_horizontal(pa, pb))
    s = pl.min_horizontal(pl.col("_pa_n"), pl.col("_pb_n"))
    rows = base.with_columns(
        both.alias("_both"), (both & (m <= s)).alias("_ins"), at_depth(m, table).alias("_f"),
        (pl.col("_pa_bad") | pl.col("_pb_bad")).alias("_rowbad"))
    if tau:  # read twice: computed once (tau_AP collects anyway)
        rows = rows.collect().lazy()
    per_query = rows.group_by(keys).agg(
        pl.col("_qi").first(), pl.col("_pa_n").first().alias("_na"),
        pl.col("_pb_n").first().alias("_nb"),
        pl.col("_both").sum().alias("_xl"), pl.col("_ins").sum().alias("_xs"),
        pl.col("_f").sum(),
        (pl.col("_rowbad").any() | (pl.len() > MAX_ITEMS)).alias("_bad"),
    ).with_columns(shared(pl.col("_f"), table).alias("_shared"))
    common = rows.filter(pl.col("_both")).select(*keys, "_qi", "_pa", "_pb") if tau else None
    return per_query, common


def ranking_similarity(
    joined: Frame,
    *,
    a: str = "rank_a",
    b: str = "rank_b",
    query: str | Sequence[str] = "qid",
    doc: str | None = "docid",
    measures: Sequence[str] = ("rbo", "tau_ap"),
    p: float = 0.9,
    descending: bool = False,
    symmetric: bool = False,
) -> Frame:
    """RBO and tau_AP of every query of two joined rankings, one row per query, fast.

    The frame form of :func:`rbo` (``kind`` ext, min, res, max) and :func:`tau_ap`
    for the common case of many queries, e.g. :func:`join_rankings`' output: the same
    values (to about 1e-15), computed with a few sorts of the whole frame and one
    ``group_by`` instead of an evaluation per query (docs/performance.md); no sort for
    RBO when ``a`` and ``b`` are integer positions 1..n in every query (checked
    exactly; anything else takes the sorting path). The expressions stay for any other
    context (``group_by().agg()``, ``over()``, other measures).

    Parameters
    ----------
    joined
        One row per (query, document) of either ranking, as :func:`join_rankings`
        writes it (and checks). Not checked here, for speed (a hash of every row took
        3-5x RBO's whole time at 13M rows): a document on two rows of a query counts
        twice.
    a, b
        The two rankings' columns: positions (1 first), or scores with
        ``descending=True``; null = not in that ranking. tau_AP is of ``b`` against
        the reference ``a``.
    query
        The query column(s).
    doc
        The document column ordering equal keys (ascending), as the expressions'
        ``doc=``; ``None``: a ranking with equal keys gives NaN.
    measures
        Any of ``"rbo"``, ``"rbo_min"``, ``"rbo_res"``, ``"rbo_max"``, ``"tau_ap"``.
    p
        RBO's persistence in (0, 1).
    descending
        ``True`` when ``a`` and ``b`` are scores, highest first.
    symmetric
        tau_AP as the mean of both directions.

    Returns
    -------
    DataFrame or LazyFrame
        The query column(s) and one Float64 column per measure, sorted by query;
        NaN for a query with NaN keys, ties without ``doc``, more than 4,096 rows, or
        (tau_AP) fewer than two common documents. Their ``mean()`` is the
        expressions' ``query=`` value. A LazyFrame is partly read at the call (the
        positions check of integer rank columns, tau_AP's common rows).

    Raises
    ------
    InvalidDataError
        A missing column; a text rank column (it would rank alphabetically: "10"
        before "9").
    ValueError
        A query column named like a measure, or named twice.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import ranking_similarity
    >>> joined = pl.DataFrame({"qid": [1, 1, 1, 1, 2, 2], "docid": list("wxyzab"),
    ...                        "rank_a": [None, 1, 2, 3, 1, 2], "rank_b": [3, 2, 1, None, 1, 2]})
    >>> ranking_similarity(joined, measures=["rbo", "rbo_min", "tau_ap"])
    shape: (2, 4)
    ┌─────┬──────┬──────────┬────────┐
    │ qid ┆ rbo  ┆ rbo_min  ┆ tau_ap │
    │ --- ┆ ---  ┆ ---      ┆ ---    │
    │ i64 ┆ f64  ┆ f64      ┆ f64    │
    ╞═════╪══════╪══════════╪════════╡
    │ 1   ┆ 0.63 ┆ 0.311686 ┆ -1.0   │
    │ 2   ┆ 1.0  ┆ 0.411686 ┆ 1.0    │
    └─────┴──────┴──────────┴────────┘
    """
    if not isinstance(joined, (pl.DataFrame, pl.LazyFrame)):
        msg = f"joined must be a polars DataFrame or LazyFrame, got {type(joined).__name__}"
        raise TypeError(msg)
    keys: list[str] = [query] if isinstance(query, str) else list(query)
    if not keys or not all(isinstance(q, str) for q in keys):
        msg = f"query must be a column name or a list of them, got {query!r}"
        raise TypeError(msg)
    for name, value in (("a", a), ("b", b), ("doc", doc)):
        if not isinstance(value, str) and not (name == "doc" and value is None):
            msg = f"{name} must be a column name, got {value!r}"
            raise TypeError(msg)
    wanted = [measures] if isinstance(measures, str) else list(measures)
    unknown = [m for m in wanted if m not in MEASURES]
    if unknown or not wanted or len(set(wanted)) != len(wanted):
        msg = f"measures must be different names among {MEASURES}, got {measures!r}"
        raise ValueError(msg)
    pp = check_real(p, "p", low=0, low_open=True, high=1, high_open=True,
                    allowed="a persistence in (0, 1)")
    desc = check_bool(descending, "descending")
    sym = check_bool(symmetric, "symmetric")
    lazy = joined.lazy()
    schema = lazy.collect_schema()
    names = schema.names()
    extra: list[str] = [doc] if doc is not None else []
    for column in (*keys, a, b, *extra):
        if column not in names:
            msg = f"joined has no column {column!r} (columns: {names})"
            raise InvalidDataError(msg)
    for name, column in (("a", a), ("b", b)):  # the expressions' rule and message
        refuse_text_key(schema[column], f"the ranking `{name}`", pl.col(column))
    clash = sorted(set(keys) & set(wanted))
    if clash or len(set(keys)) != len(keys):
        msg = (f"query must be different columns, not named like the measures; got {keys!r} "
               f"with measures {wanted!r}")
        raise ValueError(msg)
    # the user's columns under names of ours: a query column named like one of the
    # temporaries below (_pa, _both, _qi, ...) was read as that temporary
    user_keys, keys = keys, [f"__q{i}" for i in range(len(keys))]
    base = lazy.select(*[pl.col(k).alias(q) for k, q in zip(user_keys, keys, strict=True)],
                       *[pl.col(d).alias("__doc") for d in extra],
                       pl.col(a).alias("_a"), pl.col(b).alias("_b"))
    doc = "__doc" if doc is not None else None
    table = prefix_series(pp)
    fast = None
    if not desc and schema[a].is_integer() and schema[b].is_integer():
        fast = strict_sums(base.select(*keys, "_a", "_b"), keys, table, long=MAX_ITEMS,
                           tau="tau_ap" in wanted)
    if fast is not None:  # the rank columns are positions 1..n: no sort
        per_query, common = fast[0].lazy(), fast[1]
    else:
        per_query, common = _sorted_sums(base, keys, doc, desc, table, "tau_ap" in wanted)
    kinds = _rbo(pp) if any(w.startswith("rbo") for w in wanted) else {}
    safe = pl.col("_bad") | (pl.col("_na") > MAX_ITEMS) | (pl.col("_nb") > MAX_ITEMS)
    per_query = per_query.with_columns(
        pl.when(safe).then(pl.lit(_NAN)).otherwise(kinds[w].cast(_F)).alias(w)
        for w in wanted if w != "tau_ap")
    if common is not None:
        on = keys
        if fast is not None:
            tau = tau_bits(common, keys, fast[2], sym)
        else:
            longest = common.select(pl.col("_pb").max()).collect().item() or 1
            if longest <= MOST:  # bitsets over the positions in b: one sort, by a code
                on = ["_qi"]
                tau = tau_bits(common.sort(pl.col("_qi") * (1 << 31) + pl.col("_pa")), on,
                               longest, sym)
            else:
                tau = _tau_ap(common, keys, sym).drop("_qi")
        per_query = per_query.join(tau, on=on, how="left", nulls_equal=True)
        per_query = per_query.with_columns(
            pl.when(pl.col("_bad")).then(pl.lit(_NAN))
            .otherwise(pl.col("tau_ap").fill_null(_NAN)).alias("tau_ap"))
    out = per_query.select(*[pl.col(q).alias(k) for q, k in zip(keys, user_keys, strict=True)],
                           *wanted).sort(user_keys, nulls_last=True)
    return out if isinstance(joined, pl.LazyFrame) else out.collect()
