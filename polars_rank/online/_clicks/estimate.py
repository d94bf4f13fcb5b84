"""The estimation of each model: EM updates or counts, as a few group_by passes.

Every parameter is a ratio of sums over the log's rows (Chuklin, Markov & de Rijke
2015, ch. 3): ``(1 + sum of w * posterior) / (2 + sum of w * weight)``, PyClick's
start (numerator 1, denominator 2, so an unseen parameter is 0.5) and, for EM, its
ceiling 1 - 1e-6. ``w`` is the impression's weight (1; a bootstrap draw otherwise).
One EM iteration is one lazy plan: join the current parameters to the rows, compute
each row's posterior, group by each table's keys. With ``by`` (a resample number,
``REP``), every table is keyed by it too and all the resamples are fitted at once: the
rows of each resample are a copy of the log, their impressions numbered apart.
"""

from __future__ import annotations

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank.online._clicks.log import CLICK, ITEM, POS, QUERY
from polars_rank.online._clicks.params import (
    DEFAULT,
    PREV,
    PROB_MIN,
    TABLES,
    Model,
    keys_of,
)
from polars_rank.online._clicks.probs import click_after, conditional

__all__ = ["estimate", "empty_tables", "WEIGHT", "REP"]

WEIGHT = "_weight"
REP = "_rep"  # a bootstrap resample's number
QD = "_pair"  # a (query, item) pair's number inside EM
C = pl.col(CLICK)
A = pl.col("attractiveness")


def empty_tables(model: Model) -> dict[str, pl.DataFrame]:
    """Tables with no rows: every parameter at its start, 0.5."""
    dtypes = {QUERY: pl.String, ITEM: pl.String, POS: pl.Int64, PREV: pl.Int64}
    out = {}
    for table in TABLES[model]:
        keys = keys_of(model, table)
        if keys:
            out[table] = pl.DataFrame(schema={**{k: dtypes[k] for k in keys}, table: pl.Float64})
        else:  # a single parameter (DBN's gamma): one row, for the cross join
            out[table] = pl.DataFrame({table: [DEFAULT]})
    return out


def _ratio(rows: pl.LazyFrame, keys: list[str], name: str, num: pl.Expr, den: pl.Expr,
           *, em: bool) -> pl.DataFrame:
    w = pl.col(WEIGHT)
    # sums added in the rows' order (impression, position), whatever the group's place
    value = (1 + group_sum(w * num)) / (2 + group_sum(w * den))
    if em:
        value = pl.min_horizontal(value, pl.lit(1 - PROB_MIN))
    if keys:
        return rows.group_by(keys).agg(value.alias(name)).sort(keys).collect()
    return rows.select(value.alias(name)).collect()


def _counts(model: Model, log: pl.LazyFrame, by: list[str]) -> dict[str, pl.DataFrame]:
    """Cascade, DCM, SDBN: the maximum-likelihood counts (one pass, no iteration)."""
    attr_rows = log.filter(pl.col(POS) <= (pl.col("_first") if model == "cascade"
                                           else pl.col("_last")))
    one = pl.lit(1.0)
    out = {"attractiveness": _ratio(attr_rows, [*by, QUERY, ITEM], "attractiveness", C, one,
                                    em=False)}
    clicked = log.filter(C == 1)
    last = (pl.col(POS) == pl.col("_last")).cast(pl.Float64)
    if model == "dcm":
        out["continuation"] = _ratio(clicked, [*by, POS], "continuation", 1 - last, one, em=False)
    if model == "sdbn":
        out["satisfaction"] = _ratio(clicked, [*by, QUERY, ITEM], "satisfaction", last, one,
                                     em=False)
    return out


def _pbm_ubm(model: Model, rows: pl.LazyFrame, by: list[str]) -> dict[str, pl.DataFrame]:
    e = pl.col("examination")
    miss = 1 - e * A
    post_a = C + (1 - C) * (1 - e) * A / miss
    post_e = C + (1 - C) * (1 - A) * e / miss
    exam_keys = [*by, *keys_of(model, "examination")]
    rows = rows.select(QD, *exam_keys, WEIGHT, post_a.alias("_pa"),
                       post_e.alias("_pe")).collect().lazy()  # one pass, two group_bys
    one = pl.lit(1.0)
    return {"attractiveness": _ratio(rows, [QD], "attractiveness", pl.col("_pa"),
                                     one, em=True),
            "examination": _ratio(rows, exam_keys, "examination", pl.col("_pe"), one,
                                  em=True)}


def _dbn(rows: pl.LazyFrame, by: list[str]) -> dict[str, pl.DataFrame]:
    """One EM step of DBN, from the exact posteriors (not PyClick's: see the guide)."""
    s, gamma = pl.col("satisfaction"), pl.col("continuation")
    rows = click_after(conditional(rows, "dbn"), gamma)
    eps, x, xn = pl.col("_eps"), pl.col("_x"), pl.col("_xnext")
    pos, last, n = pl.col(POS), pl.col("_lastc"), pl.col("_n")
    after = (pos > last) & (C == 0)
    # P(A_r = 1 | C): the click; after the last click, not examined (1 - eps) and attractive
    post_a = pl.when(C == 1).then(1.0).when(after).then(
        (1 - eps) * A / (1 - eps * x)).otherwise(0.0)
    # P(S_r = 1 | C) on a clicked rank: only the last click can satisfy
    z = 1 - (1 - s) * gamma * xn
    post_s = pl.when(pos == last).then(s / z).otherwise(0.0)
    # gamma: P(E_r=1, S_r=0, E_r+1=1 | C) over P(E_r=1, S_r=0 | C), for r < n
    d_after = 1 - eps * x
    num = (pl.when(pos < last).then(1.0)
           .when((pos == last) & (C == 1)).then((1 - s) * gamma * (1 - xn) / z)
           .otherwise(eps * (1 - A) * gamma * (1 - xn) / d_after))
    den = (pl.when(pos < last).then(1.0)
           .when((pos == last) & (C == 1)).then((1 - s) * (1 - gamma * xn) / z)
           .otherwise(eps * (1 - x) / d_after))
    rows = rows.select(*by, QD, CLICK, WEIGHT, post_a.alias("_pa"), post_s.alias("_ps"),
                       pl.when(pos < n).then(num).otherwise(0.0).alias("_gn"),
                       pl.when(pos < n).then(den).otherwise(0.0).alias("_gd")).collect().lazy()
    one = pl.lit(1.0)
    return {"attractiveness": _ratio(rows, [QD], "attractiveness", pl.col("_pa"),
                                     one, em=True),
            "satisfaction": _ratio(rows.filter(C == 1), [QD], "satisfaction",
                                   pl.col("_ps"), one, em=True),
            "continuation": _ratio(rows, by, "continuation", pl.col("_gn"), pl.col("_gd"),
                                   em=True)}


def _ccm(rows: pl.LazyFrame, by: list[str]) -> dict[str, pl.DataFrame]:
    """One EM step of CCM, from the exact posteriors (not PyClick's: see the guide).

    A clicked result is relevant (S) with probability alpha, CCM's own attractiveness:
    alpha's statistics are the posteriors of A on every row and of S on the clicked
    rows. After a click the user goes on with tau_3 (relevant) or tau_2, after no click
    with tau_1.
    """
    t1, t2, t3 = pl.col("tau_1"), pl.col("tau_2"), pl.col("tau_3")
    rows = click_after(conditional(rows, "ccm"), t1)
    eps, x, xn = pl.col("_eps"), pl.col("_x"), pl.col("_xnext")
    pos, last, n = pl.col(POS), pl.col("_lastc"), pl.col("_n")
    post_a = pl.when(C == 1).then(1.0).when(pos > last).then(
        (1 - eps) * A / (1 - eps * x)).otherwise(0.0)
    # S on a clicked rank: above the last click the user went on (with tau_3 or tau_2);
    # at the last, the clicks below did not happen
    rho = A * t3 / (A * t3 + (1 - A) * t2)
    z = A * (1 - t3 * xn) + (1 - A) * (1 - t2 * xn)
    post_s = pl.when(pos < last).then(rho).otherwise(A * (1 - t3 * xn) / z)
    d = 1 - eps * x
    inside = pos < n  # transitions r -> r + 1 within the list
    rows = rows.select(
        *by, QD, CLICK, WEIGHT,
        (post_a + C * post_s).alias("_an"), (1 + C).alias("_ad"),
        *[pl.when(inside & cond).then(val).otherwise(0.0).alias(name) for name, cond, val in (
            ("_1n", (C == 0) & (pos < last), 1.0), ("_1d", (C == 0) & (pos < last), 1.0),
            ("_1n2", (C == 0) & (pos > last), eps * (1 - A) * t1 * (1 - xn) / d),
            ("_1d2", (C == 0) & (pos > last), eps * (1 - x) / d),
            ("_3n", (C == 1) & (pos < last), rho), ("_3d", (C == 1) & (pos < last), rho),
            ("_3n2", (C == 1) & (pos == last), A * t3 * (1 - xn) / z),
            ("_3d2", (C == 1) & (pos == last), A * (1 - t3 * xn) / z),
            ("_2n", (C == 1) & (pos < last), 1 - rho), ("_2d", (C == 1) & (pos < last), 1 - rho),
            ("_2n2", (C == 1) & (pos == last), (1 - A) * t2 * (1 - xn) / z),
            ("_2d2", (C == 1) & (pos == last), (1 - A) * (1 - t2 * xn) / z))],
    ).collect().lazy()
    out = {"attractiveness": _ratio(rows, [QD], "attractiveness", pl.col("_an"),
                                    pl.col("_ad"), em=True)}
    for k in "123":
        num = pl.col(f"_{k}n") + pl.col(f"_{k}n2")
        den = pl.col(f"_{k}d") + pl.col(f"_{k}d2")
        out[f"tau_{k}"] = _ratio(rows, by, f"tau_{k}", num, den, em=True)
    return out


def _keys(model: Model, table: str, by: list[str]) -> list[str]:
    """A table's keys inside EM: ``by`` and its own (a (query, item) pair: ``QD``)."""
    keys = keys_of(model, table)
    return [QD] if keys == [QUERY, ITEM] else [*by, *keys]


def _lookup(model: Model, frame: pl.DataFrame,
            by: list[str]) -> tuple[pl.DataFrame, dict[str, pl.DataFrame]]:
    """The rows with a number per key of each table, and each number's key.

    The (query, item) pair's number ``QD`` is already there; a table keyed otherwise
    (PBM's and UBM's examination; with ``by``, a single parameter too) gets
    ``_k_<table>``, its keys' place in their sorted distinct values: the tables of each
    EM step are then read by position (a gather) rather than joined to the rows, one
    join in all instead of one per step.
    """
    index: dict[str, pl.DataFrame] = {}
    for table in TABLES[model]:
        keys = _keys(model, table, by)
        if keys in ([], [QD]):
            continue
        numbers = frame.select(keys).unique().sort(keys).with_row_index(f"_k_{table}")
        frame = frame.join(numbers, on=keys, how="left", maintain_order="left")
        index[table] = numbers
    return frame, index


def _gathered(model: Model, tables: dict[str, pl.DataFrame], pairs: int,
              index: dict[str, pl.DataFrame], by: list[str]) -> list[pl.Expr]:
    """Each table's value on each row (``DEFAULT`` where it has none), as ``attach`` puts it."""
    out = []
    for table in TABLES[model]:
        keys = _keys(model, table, by)
        frame = tables[table]
        if not keys:
            out.append(pl.lit(frame[table][0], dtype=pl.Float64).alias(table))
            continue
        if keys == [QD]:
            numbers = pl.DataFrame({QD: pl.int_range(0, pairs, dtype=pl.UInt32, eager=True)})
            column = QD
        else:
            numbers, column = index[table], f"_k_{table}"
        dense = numbers.join(frame, on=keys, how="left").sort(column)[table].fill_null(DEFAULT)
        out.append(pl.lit(dense).gather(pl.col(column)).alias(table))
    return out


def _start(model: Model, index: dict[str, pl.DataFrame], by: list[str]) -> dict[str, pl.DataFrame]:
    """The tables before EM's first step: no rows (every parameter at 0.5)."""
    out = {}
    for name, frame in empty_tables(model).items():
        if QUERY in frame.columns:
            out[name] = frame.rename({QUERY: QD}).drop(ITEM).cast({QD: pl.UInt32})
        elif by:
            out[name] = index[name].clear().drop(f"_k_{name}").with_columns(
                pl.lit(DEFAULT).alias(name))
        else:
            out[name] = frame
    return out


def estimate(model: Model, log: pl.DataFrame, iterations: int,
             by: tuple[str, ...] = ()) -> dict[str, pl.DataFrame]:
    """The model's tables fitted on a prepared log with its history and ``WEIGHT``.

    EM models (PBM, UBM, DBN, CCM) take ``iterations`` steps from every parameter at 0.5;
    the others are counted once. Inside EM a (query, item) pair is a number (``QD``,
    its place in the sorted pairs): the joins and group_bys of each step are on it.
    ``by``: columns (the resample's number) that key every table; each impression id
    then appears under one value of them only (the windows run over the impression).
    """
    extra = list(by)
    if model in ("cascade", "dcm", "sdbn"):
        return _counts(model, log.lazy(), extra)
    pair = [*extra, QUERY, ITEM]
    pairs = log.select(pair).unique().sort(pair).with_row_index(QD)
    frame, index = _lookup(model, log.join(pairs, on=pair, how="left",
                                           maintain_order="left").drop(QUERY, ITEM), extra)
    tables = _start(model, index, extra)
    for _ in range(iterations):
        rows = frame.lazy().with_columns(_gathered(model, tables, pairs.height, index, extra))
        if model == "dbn":
            tables = _dbn(rows, extra)
        elif model == "ccm":
            tables = _ccm(rows, extra)
        else:
            tables = _pbm_ubm(model, rows, extra)
    return {name: (frame.join(pairs, on=QD, how="left").select(*pair, name)
                   .sort(pair) if QD in frame.columns else frame)
            for name, frame in tables.items()}
