"""ranx's trained fusion methods: ProbFuse, SegFuse, SlideFuse, PosFuse, BayesFuse, MAPFuse.

Each is ranx 0.3.21's (AmenRa/ranx commit 2cae52f, ``ranx/fusion/<method>.py``; the
training functions ``<method>_train`` there and ``ranx/fusion/common.py``'s
``estimate_probs``), in two halves written over long frames:

* training (:func:`train_plan`): from the rows ``sys, q, pos, n_ret, hit`` of the
  normalised training runs (``hit``: the document is judged ``rel >= 1``, ranx's
  ``get_hit_lists``), one table per method, a lazy plan;
* scoring (:func:`attach`): each row of the runs to fuse gets its trained value ``t``
  by a join on (system, position or segment); the method's aggregation sums it per
  (query, document) as ranx's CombSUM does (BayesFuse: ranx's ``sum_odds``).

The tables are frames with the system in ``system``: ``rank`` (1-based position) and
``prob`` (PosFuse, SlideFuse) or ``log_odds`` (BayesFuse, ranks 1 to 1000),
``segment`` (1-based) and ``prob`` (ProbFuse, SegFuse), or ``map`` (MAPFuse). ranx's
own form (a list of arrays, or of floats for MAPFuse, one per run in the runs'
order, or a dict ``{system: array}``) is read too.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_rank._engine.sums import ordered_sum

__all__ = ["TRAINED", "MIN_ODD", "attach", "train_plan", "table"]

MIN_ODD = math.log(0.001 / 0.999)
"""BayesFuse's log-odds of a document a system did not return (ranx's ``min_odd``)."""

SEGFUSE_BOUNDS = [0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)]
"""SegFuse's segments: 0-based positions [b_j, b_j+1) (segfuse.py: 5, 10, 20, ...)."""

BAYES_CUTS = [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
"""BayesFuse's segments (bayesfuse.py ``cut_offs``); ranks after 1000 have no estimate."""

TRAINED: dict[str, tuple[str, str | None, str]] = {
    # method: (the parameter train() returns, its key column, its value column)
    "probfuse": ("probs", "segment", "prob"),
    "segfuse": ("probs", "segment", "prob"),
    "slidefuse": ("probs", "rank", "prob"),
    "posfuse": ("probs", "rank", "prob"),
    "bayesfuse": ("log_odds", "rank", "log_odds"),
    "mapfuse": ("map_scores", None, "map"),
}
"""The trained methods: what :func:`polars_rank.fusion.train` returns for each."""


def _segment(pos0: pl.Expr, bounds: list[int]) -> pl.Expr:
    """The 0-based segment of a 0-based position; ``len(bounds) - 1`` past the last."""
    return pl.sum_horizontal([(pos0 >= b).cast(pl.Int64) for b in bounds[1:]])


def _sizes(bounds: list[int]) -> pl.LazyFrame:
    return pl.LazyFrame({"seg": list(range(len(bounds) - 1)),
                         "size": [float(b - a) for a, b in itertools.pairwise(bounds)]})


def _grid(systems: pl.LazyFrame, key: str, n: int) -> pl.LazyFrame:
    """Every (system, key) for key 1..n, to fill the keys no row reached with 0."""
    return systems.join(pl.LazyFrame({key: list(range(1, n + 1))},
                                     schema={key: pl.Int64}), how="cross")


def train_plan(method: str, rows: pl.LazyFrame, qrels: pl.LazyFrame, systems: pl.LazyFrame,
               params: Mapping[str, Any]) -> pl.LazyFrame:
    """The trained table of ``method`` (columns ``sys``, key, value), one lazy plan.

    ``rows``: ``sys, q, pos, n_ret, hit`` (every training list, normalised and
    ranked); ``qrels``: ``q, n_rel`` (relevant documents per query); ``systems``:
    ``sys``. Every training query counts for every system, an empty list where the
    system returned nothing (ranx's runs all have the qrels' queries).
    """
    n_q = rows.select(n_q=pl.col("q").n_unique().cast(pl.Float64))
    hit = pl.col("hit").cast(pl.Float64)  # sums of 0/1: exact in any order
    if method in ("posfuse", "slidefuse"):  # common.py _estimate_probs: mean hit by rank
        return rows.group_by("sys", rank="pos").agg(prob=hit.mean())
    if method == "probfuse":  # probfuse.py estimate_segment_probs
        n = int(params["n_segments"])
        size = (pl.col("n_ret") + (n - 1)) // n  # ceil(len / n_segments)
        per_list = (rows.with_columns(segment=(pl.col("pos") - 1) // size + 1)
                    .group_by("sys", "q", "segment").agg(p=hit.mean()))
        sums = per_list.group_by("sys", "segment").agg(p=ordered_sum(pl.col("p")))
        return (_grid(systems, "segment", n)
                .join(sums, on=["sys", "segment"], how="left").join(n_q, how="cross")
                .select("sys", "segment", prob=pl.col("p").fill_null(0.0) / pl.col("n_q")))
    if method in ("segfuse", "bayesfuse"):  # hits / segment size, averaged over queries
        bounds = SEGFUSE_BOUNDS if method == "segfuse" else BAYES_CUTS
        sums = (rows.with_columns(seg=_segment(pl.col("pos") - 1, bounds))
                .group_by("sys", "seg").agg(hits=hit.sum()))
        avg = (systems.join(_sizes(bounds), how="cross")
               .join(sums, on=["sys", "seg"], how="left").join(n_q, how="cross")
               .with_columns(p=pl.col("hits").fill_null(0.0) / pl.col("size")
                             / pl.col("n_q")))
        if method == "segfuse":
            return avg.select("sys", segment=pl.col("seg") + 1, prob="p")
        # bayesfuse.py _estimate_log_odds: 0 becomes 0.001, and so does 1 - 1
        p = pl.when(pl.col("p") == 0.0).then(0.001).otherwise(pl.col("p"))
        q = pl.when(p == 1.0).then(0.001).otherwise(1.0 - p)
        odds = avg.select("sys", "seg", log_odds=(p / q).log())
        ranks = pl.LazyFrame({"rank": list(range(1, BAYES_CUTS[-1] + 1))}).with_columns(
            seg=_segment(pl.col("rank") - 1, BAYES_CUTS))
        return (odds.join(ranks, on="seg").select("sys", pl.col("rank").cast(pl.Int64),
                                                    "log_odds"))
    # mapfuse.py mapfuse_train: ranx's MAP of each training run (AP 0 without relevant)
    precision = pl.col("hit").cast(pl.Float64).cum_sum().over(
        "sys", "q", order_by="pos") / pl.col("pos").cast(pl.Float64)
    ap = (rows.with_columns(prec=pl.when(pl.col("hit")).then(precision).otherwise(0.0))
          .group_by("sys", "q").agg(prec=ordered_sum(pl.col("prec")))
          .join(qrels, on="q", how="left")
          .select("sys", ap=pl.when(pl.col("n_rel") > 0)
                  .then(pl.col("prec") / pl.col("n_rel")).otherwise(0.0)))
    total = ap.group_by("sys").agg(ap=ordered_sum(pl.col("ap")))
    return (systems.join(total, on="sys", how="left").join(n_q, how="cross")
            .select("sys", map=pl.col("ap").fill_null(0.0) / pl.col("n_q")))


def table(method: str, value: Any, *, names: list[Any] | None, dtype: pl.DataType,
          system: str) -> pl.LazyFrame:
    """A trained parameter as a lazy frame ``sys, [key], val``.

    ``value``: the frame :func:`polars_rank.fusion.train` returns, or ranx's form (a
    list, one entry per run in the runs' order, or a dict ``{system: entry}``).
    """
    name, key, column = TRAINED[method]
    if isinstance(value, (pl.DataFrame, pl.LazyFrame)):
        wanted = [system, *([key] if key else []), column]
        missing = [c for c in wanted if c not in value.collect_schema().names()]
        if missing:
            msg = (f"params: {name!r} for {method!r} needs the columns {wanted} (as "
                   f"pr.fusion.train returns it); missing {missing}")
            raise ValueError(msg)
        out = value.lazy().select(pl.col(system).alias("sys"),
                                  *([pl.col(key).cast(pl.Int64)] if key else []),
                                  val=pl.col(column).cast(pl.Float64))
    else:
        if isinstance(value, Mapping):
            entries = dict(value)
        elif isinstance(value, Sequence) or hasattr(value, "__len__"):
            if names is None or len(value) != len(names):
                msg = (f"params: {name!r} as a list needs one entry per run, in the runs' "
                       f"order (or a dict {{system: ...}}, or pr.fusion.train's frame)")
                raise ValueError(msg)
            entries = dict(zip(names, list(value), strict=True))
        else:
            msg = f"params: {name!r} must be a frame, a list or a dict; got {value!r}"
            raise ValueError(msg)
        if names is not None and set(entries) != set(names):
            msg = f"params: {name!r}: the systems are {names}; got {list(entries)}"
            raise ValueError(msg)
        if key is None:
            data: dict[str, list[Any]] = {"sys": list(entries),
                                          "val": [float(v) for v in entries.values()]}
        else:
            data = {"sys": [], key: [], "val": []}
            for s, values in entries.items():
                floats = [float(v) for v in values]
                data["sys"] += [s] * len(floats)
                data[key] += list(range(1, len(floats) + 1))
                data["val"] += floats
        out = pl.LazyFrame(data, schema_overrides={"val": pl.Float64,
                                                   **({key: pl.Int64} if key else {})})
    return out.with_columns(pl.col("sys").cast(dtype))


def attach(method: str, lf: pl.LazyFrame, params: Mapping[str, Any], tab: pl.LazyFrame
           ) -> pl.LazyFrame:
    """Each row's trained value ``t`` (rows ``sys, q, d, v, pos, n_ret``).

    ``tab``: :func:`table`'s frame of the method's parameter.
    """
    lf = lf.with_columns(pl.col("pos").cast(pl.Int64))
    pos = pl.col("pos")
    if method == "posfuse":  # posfuse.py: probs[i], 0 past the trained ranks
        return (lf.join(tab.rename({"rank": "pos", "val": "t"}), on=["sys", "pos"],
                        how="left", maintain_order="left")
                .with_columns(pl.col("t").fill_null(0.0)))
    if method == "bayesfuse":  # bayesfuse.py: log_odds[i]; past 1000 as not returned
        return (lf.join(tab.rename({"rank": "pos", "val": "t"}), on=["sys", "pos"],
                        how="left", maintain_order="left")
                .with_columns(pl.col("t").fill_null(MIN_ODD)))
    if method == "mapfuse":  # mapfuse.py: map / (i + 1)
        return (lf.join(tab, on="sys", how="left", maintain_order="left")
                .with_columns(t=pl.col("val") / pl.col("pos").cast(pl.Float64)).drop("val"))
    if method == "segfuse":  # segfuse.py: probs[segment] * (score + 1), 0 past 5115
        seg = _segment(pos - 1, SEGFUSE_BOUNDS) + 1
        return (lf.with_columns(segment=seg)
                .join(tab, on=["sys", "segment"], how="left", maintain_order="left")
                .with_columns(t=pl.col("val").fill_null(0.0) * (pl.col("v") + 1.0))
                .drop("segment", "val"))
    if method == "probfuse":  # probfuse.py _prob_score: probs[k] / (k + 1)
        n_seg = tab.group_by("sys").agg(n_seg=pl.len())
        size = (pl.col("n_ret") + pl.col("n_seg") - 1) // pl.col("n_seg")
        return (lf.join(n_seg, on="sys", how="left", maintain_order="left")
                .with_columns(segment=((pos - 1) // size + 1).cast(pl.Int64))
                .join(tab, on=["sys", "segment"], how="left", maintain_order="left")
                .with_columns(t=pl.col("val").fill_null(0.0)
                              / pl.col("segment").cast(pl.Float64))
                .drop("segment", "val", "n_seg"))
    # slidefuse.py _slide_score: the mean of probs over [p - w, p + w] within the list;
    # probs past the trained ranks count 0, as NumPy's slice leaves them out.
    w = int(params["w"])
    cum = tab.sort("sys", "rank").with_columns(c=pl.col("val").cum_sum().over("sys"))
    cum = pl.concat([cum.select("sys", "rank", "c"),
                     tab.select("sys").unique().with_columns(rank=pl.lit(0, pl.Int64),
                                                             c=pl.lit(0.0))])
    length = tab.group_by("sys").agg(n_tab=pl.col("rank").max())
    a = pl.max_horizontal(pos - 1 - w, pl.lit(0))
    b = pl.min_horizontal(pos - 1 + w, pl.col("n_ret").cast(pl.Int64) - 1)
    hi, lo = pl.min_horizontal(b + 1, pl.col("n_tab")), pl.min_horizontal(a, pl.col("n_tab"))
    return (lf.join(length, on="sys", how="left", maintain_order="left")
            .with_columns(hi=hi, lo=lo, width=(b - a + 1).cast(pl.Float64))
            .join(cum.rename({"rank": "hi", "c": "c_hi"}), on=["sys", "hi"], how="left",
                  maintain_order="left")
            .join(cum.rename({"rank": "lo", "c": "c_lo"}), on=["sys", "lo"], how="left",
                  maintain_order="left")
            .with_columns(t=(pl.col("c_hi") - pl.col("c_lo")) / pl.col("width"))
            .drop("hi", "lo", "width", "c_hi", "c_lo", "n_tab"))
