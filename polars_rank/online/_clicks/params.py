"""A click model's parameters as frames, and putting them beside the log's rows.

Each model keeps a few tables (Chuklin, Markov & de Rijke 2015, ch. 2):

=================  ====================================  ==========================
table              keys                                  models
=================  ====================================  ==========================
attractiveness     query, item                           all
satisfaction       query, item                           SDBN, DBN
examination        position                              PBM
examination        position, previous_click (0 = none)   UBM
continuation       position (lambda_r)                   DCM
continuation       none (one row: gamma)                 DBN
tau_1, 2, 3        none (one row each)                   CCM
=================  ====================================  ==========================

A (query, item) or position the model has no parameter for takes ``DEFAULT`` (0.5),
as PyClick's parameters start (numerator 1, denominator 2).
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from polars_rank.online._clicks.log import CLICK, IMP, ITEM, POS, QUERY

__all__ = ["MODELS", "Model", "TABLES", "keys_of", "DEFAULT", "PREV", "PROB_MIN", "attach",
           "history"]

Model = Literal["pbm", "cascade", "dcm", "ubm", "sdbn", "dbn", "ccm"]
MODELS: tuple[Model, ...] = ("pbm", "cascade", "dcm", "ubm", "sdbn", "dbn", "ccm")
DEFAULT = 0.5
PROB_MIN = 1e-6  # PyClick's floor of a probability (ParamEM.PROB_MIN, CM.PROB_MIN)
PREV = "_prev"  # the position of the previous click, 0 if none (UBM)

TABLES: dict[Model, tuple[str, ...]] = {
    "pbm": ("attractiveness", "examination"),
    "cascade": ("attractiveness",),
    "dcm": ("attractiveness", "continuation"),
    "ubm": ("attractiveness", "examination"),
    "sdbn": ("attractiveness", "satisfaction"),
    "dbn": ("attractiveness", "satisfaction", "continuation"),
    "ccm": ("attractiveness", "tau_1", "tau_2", "tau_3"),
}
"""The tables of each model."""


def keys_of(model: Model, table: str) -> list[str]:
    """The canonical key columns of a model's table."""
    if table in ("attractiveness", "satisfaction"):
        return [QUERY, ITEM]
    if table == "examination":
        return [POS, PREV] if model == "ubm" else [POS]
    return [POS] if model == "dcm" else []


def history(log: pl.DataFrame) -> pl.DataFrame:
    """The prepared log with each row's click history in its impression.

    ``_n`` the impression's length, ``_first``/``_last`` the positions of its first and
    last clicks (``_n + 1`` and ``_n`` without a click, as PyClick's
    ``get_last_click_rank``), ``_lastc`` the last click's (0 without), ``_prev`` the
    position of the click before the row (0 if none) and ``_seg`` the number of clicks
    before it.
    """
    clicked = pl.when(pl.col(CLICK) == 1).then(pl.col(POS))
    return log.with_columns(
        pl.len().over(IMP).cast(pl.Int64).alias("_n"),
        clicked.min().over(IMP).alias("_first"),
        clicked.max().over(IMP).alias("_last"),
        clicked.max().over(IMP).fill_null(0).alias("_lastc"),
        clicked.fill_null(0).cum_max().shift(1, fill_value=0).over(IMP).alias(PREV),
        pl.col(CLICK).cum_sum().shift(1, fill_value=0.0).over(IMP).alias("_seg"),
    ).with_columns(pl.col("_first").fill_null(pl.col("_n") + 1),
                   pl.col("_last").fill_null(pl.col("_n")))


def attach(model: Model, params: dict[str, pl.DataFrame], log: pl.LazyFrame,
           pair: list[str] | None = None) -> pl.LazyFrame:
    """The log's rows with the model's parameters for each (``DEFAULT`` where it has none).

    ``pair``: the key columns of a (query, item) pair's tables, if not (query, item).
    """
    for table in TABLES[model]:
        keys = keys_of(model, table)
        if pair is not None and keys == [QUERY, ITEM]:
            keys = pair
        frame = params[table].lazy()
        if keys:
            log = log.join(frame, on=keys, how="left", maintain_order="left")
        else:
            log = log.join(frame, how="cross", maintain_order="left")
        log = log.with_columns(pl.col(table).fill_null(DEFAULT))
    return log
