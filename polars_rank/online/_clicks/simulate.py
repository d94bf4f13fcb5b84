"""Clicks drawn from a click model on a ranking: seeded, the same for any row order."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.draws import uniform
from polars_rank._engine.frames import FrameLike, as_polars
from polars_rank.online._clicks.log import CLICK, IMP, POS, Columns, hashable, prepare
from polars_rank.online._clicks.params import DEFAULT, attach
from polars_rank.online._clicks.probs import chain

if TYPE_CHECKING:
    from polars_rank.online._clicks.model import ClickModel

__all__ = ["simulate_clicks"]

_POS_KEY = "__polars_rank_position"


def _uniform(seed: int, stream: int, imp: pl.Expr) -> pl.Expr:
    """A uniform in [0, 1) per (impression, position) from a hash: no row order in it."""
    return uniform(pl.struct(imp, POS), seed * 64 + stream)


def simulate_clicks(model: ClickModel, ranking: FrameLike, *,
                    seed: int = 0, impression: str = "impression",
                    position: str = "position", query: str = "query", item: str = "item",
                    click: str = "click") -> pl.DataFrame:
    """The ranking with a ``click`` column drawn from ``model`` (replacing one it has).

    ``ranking`` (a Polars or pandas frame, eager or lazy; the result is eager) has one
    row per (impression, position), positions 1..n. Each row's random draws come from
    a hash of its (impression, position) and ``seed``, so the same seed gives the same
    clicks whatever the order of the rows, the thread count or the session (a
    categorical impression id is hashed as its text; the id 7 and the text "7" draw
    differently). Users follow the
    model's generative story (Chuklin et al. 2015, ch. 2): PBM examines rank r with
    theta_r; the chain models (cascade, DCM, SDBN, DBN, CCM) walk down the list and stop
    after a click with 1 - lambda_r, after no click with 1 - gamma; UBM examines rank r
    with gamma_{r, r'} given the previous click r'.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import ClickModel, simulate_clicks
    >>> attr = pl.DataFrame({"query": ["q"], "item": ["a"], "attractiveness": [1.0]})
    >>> model = ClickModel.from_parameters("cascade", attractiveness=attr)
    >>> ranking = pl.DataFrame({"impression": [7, 7], "position": [1, 2],
    ...                         "query": "q", "item": ["a", "a"]})
    >>> simulate_clicks(model, ranking, seed=1)["click"].to_list()
    [1, 0]
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        msg = f"seed must be an int >= 0, got {seed!r}"
        raise ValueError(msg)
    columns = Columns(impression, position, query, item, click)
    ranking = as_polars(ranking, "ranking")
    frame = prepare(ranking, columns, clicks=False, what="ranking")
    tables = model.tables_for(frame)
    imp = hashable(frame.schema[IMP])
    lazy = frame.lazy().with_columns(_uniform(seed, 0, imp).alias("_ua"),
                                     _uniform(seed, 1, imp).alias("_ue"))
    if model.model == "ubm":
        attrs = {k: v for k, v in tables.items() if k == "attractiveness"}
        rows = _ubm(attach("cascade", attrs, lazy), tables["examination"])
    else:
        rows = attach(model.model, tables, lazy)
        attractive = pl.col("_ua") < pl.col("attractiveness")
        if model.model == "pbm":
            clicked = attractive & (pl.col("_ue") < pl.col("examination"))
        else:
            lam, nc = chain(model.model)
            goes_on = pl.when(attractive).then(pl.col("_ue") < lam).otherwise(
                pl.col("_ue") < nc)
            stopped = (~goes_on).cast(pl.Int64).cum_sum().shift(1, fill_value=0).over(IMP)
            clicked = attractive & (stopped == 0)
        rows = rows.with_columns(clicked.alias(CLICK))
    out = rows.select(IMP, POS, pl.col(CLICK).cast(pl.Int64))
    original = ranking.lazy().drop(click, strict=False).collect()  # a click already there: replaced
    keyed = original.with_columns(pl.col(position).cast(pl.Int64).alias(_POS_KEY))
    joined = keyed.join(out.collect().rename({IMP: impression, POS: _POS_KEY}),
                        on=[impression, _POS_KEY], how="left", maintain_order="left")
    return joined.drop(_POS_KEY).rename({CLICK: click})


def _ubm(rows: pl.LazyFrame, exam: pl.DataFrame) -> pl.LazyFrame:
    """UBM's clicks, rank by rank (a loop over the positions of the longest list)."""
    gamma: dict[int, dict[int, float]] = {}
    for r, prev, value in exam.iter_rows():
        gamma.setdefault(int(r), {})[int(prev)] = float(value)
    longest = int(rows.select(pl.col(POS).max()).collect().item() or 0)
    wide = rows.group_by(IMP).agg(
        (pl.col("_ua") < pl.col("attractiveness")).sort_by(POS).alias("_att"),
        pl.col("_ue").sort_by(POS).alias("_u")).with_columns(pl.lit(0).alias("_last"))
    for r in range(1, longest + 1):
        g = pl.col("_last").replace_strict(gamma.get(r, {}), default=DEFAULT,
                                           return_dtype=pl.Float64)
        c = (pl.col("_att").list.get(r - 1, null_on_oob=True)
             & (pl.col("_u").list.get(r - 1, null_on_oob=True) < g))
        wide = wide.with_columns(c.alias(f"_c{r}")).with_columns(
            pl.when(pl.col(f"_c{r}")).then(pl.lit(r)).otherwise(pl.col("_last")).alias("_last"))
    long = wide.select(IMP, pl.concat_list([f"_c{r}" for r in range(1, longest + 1)])
                       .alias(CLICK)).with_columns(
        pl.int_ranges(1, longest + 1).alias(POS)).explode([CLICK, POS])
    return rows.join(long, on=[IMP, POS], how="left", maintain_order="left")
