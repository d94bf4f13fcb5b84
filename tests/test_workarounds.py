"""Canaries: each fails when Polars no longer needs the workaround it names.

When one fails, simplify the code it points to and delete the canary.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

import polars as pl
import pytest

from polars_rank._engine.compat import counted_cheaply, partitioned_sink

if TYPE_CHECKING:
    from pathlib import Path

POLARS_2 = int(pl.__version__.split(".")[0]) >= 2


def _prefix_table_precision_sum() -> pl.Expr:
    """Expected AP's sum of 1/p over each tie group, gathered from a prefix table.

    The form ``polars_rank/metrics/binary.py`` (``_expected_precision_sum``) had
    before it summed ``int_ranges`` per group instead.
    """
    lo, hi = pl.col("rank"), pl.col("rank_last")
    mask = (pl.col("rel") >= 1).fill_null(False) & lo.is_not_null()
    lo_h, hi_h = lo.filter(mask), hi.filter(mask)
    c = (lo_h.rank("min") - 1).cast(pl.Float64)
    m = (lo_h.rank("max") - lo_h.rank("min") + 1).cast(pl.Float64)
    n = (hi_h - lo_h + 1).cast(pl.Float64)
    n_ret = hi.max().cast(pl.Int64).fill_null(0)
    ranks = pl.int_range(1, n_ret + 1, dtype=pl.Int64)
    inverse = pl.when(ranks <= n_ret).then(1.0 / ranks.cast(pl.Float64)).otherwise(0.0)
    table = pl.lit(0.0).append(inverse.cum_sum())
    harmonic = table.gather(hi_h) - table.gather(lo_h - 1)
    slots = (pl.min_horizontal(hi_h, n_ret) - lo_h + 1).clip(lower_bound=0).cast(pl.Float64)
    a = m / n * (c + 1.0)
    b = m * (m - 1.0) / (n * (n - 1.0)).clip(lower_bound=1.0)
    return (((a - b * lo_h.cast(pl.Float64)) * harmonic + b * slots) / m).sum()


@pytest.mark.skipif(not POLARS_2, reason="Polars 1.x evaluates it (the panic came with 2.x)")
def test_prefix_table_in_a_group_by_of_no_rows_still_panics() -> None:
    """Polars 2.1 panics ("cannot get ref Float64 from Null") on that expression in a
    ``group_by`` of an empty frame; the same expression on rows is fine."""
    empty = pl.DataFrame(schema={"q": pl.Int64, "rel": pl.Float64, "rank": pl.Int64,
                                 "rank_last": pl.Int64})
    # when this stops raising, _expected_precision_sum in polars_rank/metrics/binary.py
    # can gather from a prefix table again (a Rust panic is a BaseException)
    with pytest.raises(BaseException, match="cannot get ref"):
        empty.group_by("q").agg(_prefix_table_precision_sum())


def test_division_by_a_literal_is_still_a_multiplication() -> None:
    """``polars_rank._engine.compat.per_list``: Polars divides a column by a literal by
    multiplying with its reciprocal, an ulp off trec_eval's 3 / 10 = 0.3."""
    assert (pl.Series([3.0, 3.0]) / 10).to_list() == [0.30000000000000004] * 2


def test_agg_still_recomputes_a_repeated_sub_expression() -> None:
    """``polars_rank._engine.compat.safe_div`` and ``polars_rank._engine.terms.by_parts_weights``
    name a ranked list once: common sub-expressions are shared in a ``select`` but not
    inside ``group_by().agg``."""
    frame = pl.LazyFrame({"g": [1, 1, 2], "x": [3.0, 1.0, 2.0]})
    ranked = pl.col("x").sort()
    shared = frame.select(a=ranked.sum(), b=ranked.cum_sum().sum()).explain()
    grouped = frame.group_by("g").agg(a=ranked.sum(), b=ranked.cum_sum().sum()).explain()
    assert "CSER" in shared
    assert "CSER" not in grouped


def test_categorical_names_still_die_with_their_last_series() -> None:
    """``polars_rank._evaluation.lists.list_code`` keeps an empty Series of each
    categorical type alive: the ``Categories`` object alone does not keep the names."""
    dtype = pl.Categorical(pl.Categories.random()) if POLARS_2 else None
    if dtype is None:
        pytest.skip("Polars 1.x has one global string cache; list_code is 2.x-specific")
    first = pl.Series(["a", "b"]).cast(dtype)
    assert first.to_physical().to_list() == [0, 1]
    del first
    gc.collect()
    assert pl.Series(["b"]).cast(dtype).to_physical().to_list() == [0]  # "a" was forgotten


def test_streaming_still_runs_each_query_mean_in_a_node_of_its_own() -> None:
    """``Ranked.finish`` ends a ``query=`` metric with ``.median()`` of its one mean: then
    the streaming engine computes every such metric of a ``select`` in one in-memory
    node (sharing the query groups); a plain ``.mean()`` makes one node per metric."""
    frame = pl.LazyFrame({"q": [1, 1, 2], "x": [3.0, 1.0, 2.0]})
    per_query = pl.col("x").sum().over("q", mapping_strategy="explode")

    def nodes(*exprs: pl.Expr) -> int:
        try:
            dot = frame.select(*exprs).show_graph(engine="streaming", plan_stage="physical",
                                                  raw_output=True, show=False)
        except (TypeError, pl.exceptions.PolarsError) as exc:  # older Polars
            pytest.skip(f"no physical streaming graph here: {exc}")
        return str(dot).count("in-memory-map")

    assert nodes(per_query.mean().median().alias("a"),
                 (per_query * 2).mean().median().alias("b")) == 1
    assert nodes(per_query.mean().alias("a"), (per_query * 2).mean().alias("b")) == 2


@pytest.mark.skipif(not POLARS_2, reason="Polars 1.x evaluates it (the panic came with 2.x)")
def test_an_imploded_struct_beside_a_shared_cutoff_still_panics() -> None:
    """Polars 2.1 panics ("assertion left == right failed") on a struct of a cutoff's
    ranks imploded beside another expression of the same ``select`` that reads those
    ranks, when it eliminates their common sub-expressions."""
    df = pl.DataFrame({"rank": [1] * 6})
    ranks = pl.lit(pl.Series([1, 2], dtype=pl.Int64)).head(
        pl.min_horizontal(pl.len(), pl.lit(2, pl.UInt32)))
    rows = pl.struct(ranks.filter(ranks <= pl.col("rank").count()).alias("r"))
    a = rows.implode().list.eval(pl.element().struct.field("r").sum()).list.first()
    last = pl.min_horizontal(pl.col("rank").count().cast(pl.Int64), pl.lit(2, pl.Int64))
    b = pl.when(ranks < last).then(1.0 / ranks.cast(pl.Float64)).otherwise(0.0).sum()
    # when this stops raising, GainRows in polars_rank/metrics/_cwl.py can keep its
    # fields in a list of structs instead of one concatenated Float64 list
    with pytest.raises(BaseException, match="left == right"):
        df.select(a.alias("a"), b.alias("b"))


@pytest.mark.skipif(not POLARS_2, reason="Polars 1.x keeps the sort (the defect came with 2.x)")
def test_a_shared_count_of_a_sorted_list_still_unsorts_it_in_memory() -> None:
    """``polars_rank._engine.keys.SortKeys.ordered``: Polars 2.1's in-memory engine drops the
    sort from ``len()`` of a sorted list that occurs twice, and common-subexpression
    elimination then gives the other uses of that list the unsorted values (G and
    compat read their ideal gains unsorted in a ``select``)."""
    frame = pl.LazyFrame({"x": [1.0, 3.0, 2.0]})
    ranked = pl.col("x").sort(descending=True)
    plan = frame.select(ranked.gather(ranked.len() - 1).alias("last"), ranked.len().alias("n"))
    without_cse = pl.QueryOptFlags(comm_subexpr_elim=False)
    assert plan.collect(engine="in-memory", optimizations=without_cse)["last"].item() == 1.0
    assert plan.collect()["last"].item() == 1.0  # the streaming engine
    # when this gives 1.0, G and compat may count and sum their ordered values again
    assert plan.collect(engine="in-memory")["last"].item() == 2.0


@pytest.mark.skipif(not POLARS_2, reason="Polars 1.x sorts it right (the defect came with 2.x)")
def test_a_limited_sort_by_a_rank_in_a_group_by_still_goes_wrong() -> None:
    """``polars_rank._engine.keys.SortKeys.ordered`` cuts a list sorted by a per-list key at
    ``head(min(n, k))``: Polars 2.1 pushes a literal ``head(k)`` into the ``sort_by`` as
    a limit, which in a ``group_by`` (or window) panics ("range start index 5 out of
    range") on the list itself, and sums the wrong rows when summed (here 0.0)."""
    frame = pl.DataFrame({"g": [1, 1, 1, 2, 2, 2], "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                          "s": [3, 1, 2, 1, 2, 3]})
    top = pl.col("x").sort_by(pl.col("s").rank(), descending=True)
    depth = pl.min_horizontal(pl.len(), pl.lit(2, pl.UInt32))
    right = frame.group_by("g", maintain_order=True).agg(top.head(depth).sum())
    assert right["x"].to_list() == [4.0, 11.0]
    wrong = frame.group_by("g", maintain_order=True).agg(top.head(2).sum())
    # when this gives [4.0, 11.0], Ranked.ordered can always take head(k)
    assert wrong["x"].to_list() != [4.0, 11.0]


@pytest.mark.skipif(POLARS_2, reason="Polars 2.x counts a rank() result's non-null values")
def test_count_of_a_rank_in_a_group_by_still_counts_nulls() -> None:
    """``polars_rank._engine.ranked.Ranked.bad`` counts positions, and ``n_retrieved`` the rows
    of a key (``by=pl.col("s").rank()``), with ``is_not_null().sum()``:
    Polars 1.36's ``count()`` of a ``rank()`` in a ``group_by`` counts its nulls too (the
    condensed ranking of ``judged_only=True`` has some), in a ``select`` it does not."""
    frame = pl.DataFrame({"g": [0, 0, 0], "x": [1, None, 3]})
    ranks = pl.col("x").rank("ordinal")
    assert frame.select(ranks.count()).item() == 2
    assert frame.group_by("g").agg(ranks.count())["x"].item() == 3


@pytest.mark.skipif(POLARS_2, reason="Polars 2.x aggregates an empty list in list.eval")
def test_an_aggregate_of_an_empty_list_still_shifts_the_next_lists() -> None:
    """``polars_rank._engine.compat.nonempty`` fills empty lists before ``list.eval``
    (``metrics._cwl.GainRows.value``, ``agreement._rankings.lists.on_codes``): on
    Polars 1.36 an aggregate in ``list.eval`` gives an empty list no value and the
    values of the lists after it move up (a group of [1.0, 0.25] summed to 0.0)."""
    frame = pl.DataFrame({"g": [0, 1, 1], "x": [None, 1.0, 0.25]})
    total = pl.col("x").drop_nulls().implode().list.eval(
        pl.element().slice(pl.len() // 2, pl.len() // 2).sum())
    out = frame.group_by("g", maintain_order=True).agg(total)
    assert out["x"].to_list()[1] == [0.0, 0.25]  # 0.25 alone when fixed


@pytest.mark.skipif(POLARS_2, reason="Polars 2.x sorts by several keys in a group_by")
def test_a_sort_by_several_keys_in_a_group_by_is_still_wrong() -> None:
    """``polars_rank._engine.sort_keys.sort_by`` sorts a row counter by one struct key, not a
    list of keys (and ``polars_rank.fusion._runs.positions`` ranks one struct key): on
    Polars 1.36, sorting
    ``int_range(len())`` by a list of keys in a ``group_by`` (or a window) whose groups
    are not contiguous rows gives wrong orders."""
    frame = pl.DataFrame({"q": [1, 1, 1, 2, 2, 1, 1, 2, 2],
                          "v": [1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 2.0, 1.0, 3.0]})
    order = pl.int_range(pl.len(), dtype=pl.Int64)
    one_key = frame.group_by("q", maintain_order=True).agg(
        order.sort_by(pl.struct("v", pl.col("v").alias("w")), descending=True,
                      maintain_order=True))
    assert one_key["literal"].to_list()[0] == [2, 3, 1, 4, 0]
    two_keys = frame.group_by("q", maintain_order=True).agg(
        order.sort_by(["v", "v"], descending=True, maintain_order=True))
    assert two_keys["literal"].to_list()[0] != [2, 3, 1, 4, 0]  # equal when fixed


@pytest.mark.skipif(POLARS_2, reason="Polars 2.x slices one list at many offsets")
def test_a_list_is_still_sliced_at_one_offset_on_polars_1() -> None:
    """``polars_rank.metrics._expected_err.SLICES_BY_MANY_OFFSETS``: ERR under
    ``ties="expected"`` cuts one list into runs with ``list.slice`` at many offsets,
    which Polars 1.36 refuses; it raises NotImplementedError there."""
    frame = pl.DataFrame({"x": [[1.0, 2.0, 3.0]]})
    starts, lengths = pl.lit(pl.Series([0, 1])), pl.lit(pl.Series([1, 2]))
    cut = pl.element().implode().list.slice(starts, lengths)
    with pytest.raises(pl.exceptions.ComputeError, match="does not match"):
        frame.select(pl.col("x").list.eval(cut.list.sum()))


@pytest.mark.skipif(POLARS_2, reason="Polars 2.x sorts filtered groups by several keys")
def test_a_sort_by_several_filtered_keys_still_fails_on_an_emptied_group() -> None:
    """``polars_rank.metrics.pairwise._by_rank_then_label`` sorts twice by one key: on
    Polars 1.36, a sort by a list of keys filtered in a ``group_by`` (or a window)
    raises when the filter leaves a group no row (a list of unretrieved rows only)."""
    frame = pl.DataFrame({"q": [0, 0, 1], "lo": [1, 2, None], "g": [1.0, 2.0, 3.0]})
    kept = pl.col("lo").is_not_null()
    lo, g = pl.col("lo").filter(kept), pl.col("g").filter(kept)
    one_key = frame.group_by("q", maintain_order=True).agg(g.sort_by(lo))
    assert one_key["g"].to_list() == [[1.0, 2.0], []]
    with pytest.raises(pl.exceptions.ComputeError, match="matching group lengths"):
        frame.group_by("q", maintain_order=True).agg(g.sort_by([lo, g]))


@pytest.mark.skipif(POLARS_2, reason="Polars 2.x builds a struct of filtered fields per group")
def test_a_struct_of_filtered_fields_in_a_group_by_still_sorts_other_rows() -> None:
    """``polars_rank.metrics.pairwise._by_rank_then_label`` does not fold its two keys
    into one struct (``polars_rank._engine.sort_keys.sort_by``): on Polars 1.36 a struct of
    fields filtered in a ``group_by`` takes, in the groups after one the filter
    shortened, rows of other groups (a struct with a ``rank()`` field too). With such
    a key, ``evaluate()``'s rank_correlation varied between runs: the lists' order
    comes from a ``group_by``."""
    frame = pl.DataFrame({"q": [0, 0, 1, 1], "lo": [1, None, 1, 2], "g": [0.0, 0.0, 2.0, 0.0]})
    kept = pl.col("lo").is_not_null()
    lo, g = pl.col("lo").filter(kept), pl.col("g").filter(kept)
    key = pl.struct(lo.alias("lo"), (-g).alias("g"))
    out = frame.group_by("q", maintain_order=True).agg(g.sort_by(key, maintain_order=True))
    assert out["g"].to_list()[1] == [0.0, 2.0]  # [2.0, 0.0] when fixed


@pytest.mark.skipif(POLARS_2, reason="Polars 2.x maps a window's any() back to the rows")
def test_any_of_a_rank_in_a_window_still_stays_in_list_order() -> None:
    """``polars_rank._engine.ranked.Ranked.bad`` (and ``metrics._subtopics.Intents.bad``) test
    their masks with ``sum() > 0``: on Polars 1.36, in a window whose lists are not
    contiguous rows, ``when(mask.any())`` of a mask from a ``rank()`` (the condensed
    positions of ``unjudged="condensed"`` with ``rank=``) leaves the values in list
    order, not the rows'."""
    frame = pl.DataFrame({"q": [2, 3, 2], "rel": [None, 0, 1], "rank": [4, 3, 1]})
    ranks = pl.when(pl.col("rel").is_not_null()).then(pl.col("rank")).rank("ordinal")
    mask = ranks.cast(pl.Float64) < 1
    total = pl.col("rel").sum().cast(pl.Float64)

    def per_row(flag: pl.Expr) -> list[float]:
        return frame.select(pl.when(flag).then(-1.0).otherwise(total).over("q")).to_series(
            ).to_list()

    assert per_row(mask.sum() > 0) == [1.0, 0.0, 1.0]
    assert per_row(mask.any()) == [1.0, 1.0, 0.0]  # [1.0, 0.0, 1.0] when fixed



@pytest.mark.skipif(not POLARS_2, reason="Polars 1.x's in-memory engine evaluates it")
def test_a_chained_when_of_a_short_mask_still_panics_in_memory() -> None:
    """``polars_rank._engine.terms.by_parts_weights`` adds masked values instead of chaining
    ``when/then``: on Polars 2.1's in-memory engine, a chained ``when`` whose masks are
    shorter than the frame (the first min(n, k) ranks) panics in a ``select``."""
    frame = pl.DataFrame({"x": [1.0, 2.0, 3.0]})
    last = pl.min_horizontal(pl.len(), pl.lit(2, pl.UInt32))
    ranks = pl.lit(pl.Series([1, 2])).head(last)
    chained = pl.when(ranks < last).then(1.0).when(ranks == last).then(2.0).otherwise(0.0)
    assert frame.lazy().select(chained).collect(engine="streaming").to_series().to_list() == [
        1.0, 2.0]
    with pytest.raises(BaseException, match="left == right"):  # a PanicException
        frame.lazy().select(chained).collect(engine="in-memory")


def test_a_cheap_count_is_told_from_the_explained_plan(tmp_path: Path) -> None:
    """``counted_cheaply`` reads ``explain()``'s text (Polars has no API for whether a
    count reads data): a Parquet scan and a frame count from metadata, a join does not.
    If Polars changes the text, this fails, before ``memory="auto"`` silently stops
    bucketing large LazyFrames."""
    frame = pl.DataFrame({"qid": [1, 1, 2], "score": [0.1, 0.2, 0.3]})
    frame.write_parquet(tmp_path / "run.parquet")
    scan = pl.scan_parquet(tmp_path / "run.parquet")
    assert counted_cheaply(scan) == 3
    assert counted_cheaply(frame.lazy()) == 3
    assert counted_cheaply(scan.join(frame.lazy(), on="qid")) is None
    assert counted_cheaply(scan.filter(pl.col("score") > 0.15)) is None


def test_a_partitioned_sink_exists_on_every_supported_polars() -> None:
    """``partitioned_sink``: ``pl.PartitionBy`` (2.x) or ``pl.PartitionByKey`` (1.x)."""
    assert partitioned_sink("folder", "key") is not None
