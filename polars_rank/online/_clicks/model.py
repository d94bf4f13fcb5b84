"""A fitted (or given) click model: its parameter tables and what it predicts on a log."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError
from polars_rank.online._clicks.estimate import WEIGHT, estimate
from polars_rank.online._clicks.log import (
    CLICK,
    ITEM,
    POS,
    QUERY,
    Columns,
    prepare,
)
from polars_rank.online._clicks.params import (
    DEFAULT,
    FITTED_FROM,
    MODELS,
    PREV,
    PROB_MIN,
    TABLES,
    Model,
    attach,
    history,
    keys_of,
)
from polars_rank.online._clicks.probs import conditional, examined, ubm_full
from polars_rank.online._clicks.resample import REP, percentiles, propensities, refits

if TYPE_CHECKING:
    from polars_rank._engine.frames import FrameLike
    from polars_rank.online._clicks.params import Model as ModelName

__all__ = ["ClickModel", "fit_click_model", "check_model", "Table"]

Table = pl.DataFrame | Mapping[int, float] | float
"""A table given to :meth:`ClickModel.from_parameters`: a frame, ``{position: value}``
(examination, DCM's continuation) or a number (DBN's continuation)."""


def check_model(model: str) -> Model:
    """The model's name, lower case, or a ValueError naming the choices."""
    name = model.lower() if isinstance(model, str) else model
    if name not in MODELS:
        msg = f"model must be one of {list(MODELS)}, got {model!r}"
        raise ValueError(msg)
    return name


@dataclass(frozen=True)
class ClickModel:
    """A click model: its name, its parameter tables and the log's column names.

    Made by :func:`fit_click_model` or :meth:`from_parameters`. Each table is a frame
    (see :attr:`parameters`); a (query, item) or position without a row is 0.5.
    """

    model: Model
    tables: dict[str, pl.DataFrame] = field(repr=False)
    columns: Columns = field(default_factory=Columns)
    iterations: int = 0

    def _public(self, frame: pl.DataFrame) -> pl.DataFrame:
        names = {QUERY: self.columns.query, ITEM: self.columns.item,
                 POS: self.columns.position, PREV: "previous_click"}
        return frame.rename({k: v for k, v in names.items() if k in frame.columns})

    @property
    def parameters(self) -> dict[str, pl.DataFrame]:
        """The parameter tables by name, keyed by the log's column names.

        ``attractiveness``, ``examination``, ``satisfaction``, ``continuation`` (those of
        the model); UBM's ``previous_click`` is the position of the click before, 0 if
        none.
        """
        return {name: self._public(frame) for name, frame in self.tables.items()}

    @property
    def attractiveness(self) -> pl.DataFrame:
        """Alpha per (query, item)."""
        return self.parameters["attractiveness"]

    @classmethod
    def from_parameters(cls, model: ModelName, *, attractiveness: pl.DataFrame,
                        examination: Table | None = None, satisfaction: pl.DataFrame | None = None,
                        continuation: Table | None = None, tau_1: float | None = None,
                        tau_2: float | None = None, tau_3: float | None = None,
                        query: str = "query",
                        item: str = "item", position: str = "position") -> ClickModel:
        """A model with given parameters (to simulate clicks from, or to score a log).

        Frames carry the keys by the log's names and a column named as the table
        (``attractiveness``...); UBM's examination has ``position``, ``previous_click``
        (0: no click before) and ``examination``. DBN's continuation (gamma) and CCM's
        ``tau_1`` (after no click), ``tau_2`` (after a click on an irrelevant result),
        ``tau_3`` (relevant) are numbers.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_rank.online import ClickModel
        >>> attr = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"],
        ...                      "attractiveness": [0.8, 0.3]})
        >>> model = ClickModel.from_parameters("pbm", attractiveness=attr,
        ...                                    examination={1: 1.0, 2: 0.5})
        >>> model.parameters["examination"]
        shape: (2, 2)
        ┌──────────┬─────────────┐
        │ position ┆ examination │
        │ ---      ┆ ---         │
        │ i64      ┆ f64         │
        ╞══════════╪═════════════╡
        │ 1        ┆ 1.0         │
        │ 2        ┆ 0.5         │
        └──────────┴─────────────┘
        """
        name = check_model(model)
        columns = Columns(query=query, item=item, position=position)
        given = {"attractiveness": attractiveness, "examination": examination,
                 "satisfaction": satisfaction, "continuation": continuation,
                 "tau_1": tau_1, "tau_2": tau_2, "tau_3": tau_3}
        back = {query: QUERY, item: ITEM, position: POS, "previous_click": PREV}
        tables = {}
        for table in TABLES[name]:
            if given[table] is None:
                msg = f"model {name!r} needs the {table!r} table"
                raise ValueError(msg)
            tables[table] = _given_table(name, table, given[table], back)
        return cls(name, tables, columns)

    def _rows(self, log: FrameLike, columns: Columns | None = None) -> pl.LazyFrame:
        frame = history(prepare(log, columns or self.columns))
        return attach(self.model, self.tables_for(frame), frame.lazy())

    def tables_for(self, log: pl.DataFrame) -> dict[str, pl.DataFrame]:
        """The tables with their query and item ids in the log's types.

        Ids of one kind (text: string, categorical, enum; or numbers) are cast to the
        log's type, and a parameter whose id the log's type cannot hold is dropped (no
        row of the log can match it); ids of different kinds (a model fitted on text
        ids scoring integer ids) are an :class:`~polars_rank.errors.InvalidDataError`
        naming the column, rather than every parameter silently left at 0.5.
        """
        out = {}
        for name, frame in self.tables.items():
            keys = [c for c in (QUERY, ITEM) if c in frame.columns]
            for c in keys:
                mine, theirs = frame.schema[c], log.schema[c]
                if mine != theirs and _kind(mine) != _kind(theirs):
                    public = self.columns.query if c == QUERY else self.columns.item
                    msg = (f"column {public!r}: the model's ids are {mine}, the log's "
                           f"{theirs}; give the log the ids the model was fitted on (the "
                           "same kind: text or numbers)")
                    raise InvalidDataError(msg)
            if keys:
                frame = frame.with_columns(pl.col(c).cast(log.schema[c], strict=False)
                                           for c in keys).drop_nulls(keys)
            out[name] = frame
        return out

    def log_likelihood(self, log: FrameLike) -> float:
        """The log's log-likelihood, sum over impressions of log P(C_1..C_n).

        P(C_1..C_n) = prod_r P(C_r | C_<r) (Chuklin et al. 2015, sec. 4.1), each factor at
        least 1e-6 (PyClick's floor: the cascade model gives a second click probability
        0). PyClick's ``LogLikelihood`` is this divided by the number of impressions and
        by their length.
        """
        rows = conditional(self._rows(log), self.model)
        p = pl.when(pl.col(CLICK) == 1).then(pl.col("_q")).otherwise(1 - pl.col("_q"))
        total = rows.select(group_sum(pl.max_horizontal(p, pl.lit(PROB_MIN)).log())).collect()
        return float(total.item())

    def _full(self, log: FrameLike) -> pl.LazyFrame:
        """The rows with ``_full``, P(C_r = 1), and ``_exam``, P(E_r = 1)."""
        rows = self._rows(log)
        if self.model != "ubm":
            return examined(rows, self.model).with_columns(
                (pl.col("attractiveness") * pl.col("_exam")).alias("_full"))
        gamma = {(int(r), int(p)): float(v) for r, p, v in self.tables["examination"].iter_rows()}
        longest = int(rows.select(pl.col(POS).max()).collect().item() or 0)
        return ubm_full(rows, gamma, DEFAULT, longest).with_columns(
            (pl.col("_full") / pl.col("attractiveness")).alias("_exam"))

    def perplexity_by_rank(self, log: FrameLike) -> pl.DataFrame:
        """Perplexity at each position: 2 ** -(mean over impressions of log2 P(C_r = c_r)).

        P(C_r = 1) is the model's click probability before any click is seen (Dupret &
        Piwowarski 2008; Chuklin et al. 2015, sec. 4.2), PyClick's ``Perplexity``; the
        mean is over the impressions that show position r.
        """
        rows = self._full(log)
        p = pl.when(pl.col(CLICK) == 1).then(pl.col("_full")).otherwise(1 - pl.col("_full"))
        mean = group_sum(p.log(2)) / pl.len()
        out = rows.group_by(POS).agg((2.0 ** -mean).alias("perplexity"))
        return self._public(out.sort(POS).collect())

    def perplexity(self, log: FrameLike) -> float:
        """The mean over positions of :meth:`perplexity_by_rank` (1 is perfect, 2 a coin)."""
        return float(self.perplexity_by_rank(log)["perplexity"].mean())  # type: ignore[arg-type]

    def intervals(self, log: FrameLike, *, n_resamples: int = 200, alpha: float = 0.05,
                  seed: int = 0) -> dict[str, pl.DataFrame]:
        """The parameter tables with bootstrap intervals, ``ci_low`` and ``ci_high``.

        :attr:`parameters` with two more columns: the ``alpha / 2`` and ``1 - alpha /
        2`` percentiles of each parameter over ``n_resamples`` refits of the model (its
        iterations, from 0.5) on resamples of ``log``'s impressions, ``log`` being the
        log the model was fitted on. A resample weighs each impression by a Poisson(1)
        draw from a hash of its id and ``seed`` (the same draws for any row order, and
        the resamples of :meth:`examination` with the same seed); the resamples are
        fitted together, one plan per EM step. A parameter a resample does not see is
        0.5 there, as in a fit. Costs about 0.63 x ``n_resamples`` fits (the share of
        impressions a resample draws). See the guide's "Intervals" for what they cover.

        Examples
        --------
        >>> import polars as pl
        >>> from polars_rank.online import fit_click_model
        >>> log = pl.DataFrame({"impression": [1, 1, 2, 2, 3, 3],
        ...                     "position": [1, 2, 1, 2, 1, 2], "query": "q",
        ...                     "item": ["a", "b", "b", "a", "a", "b"],
        ...                     "click": [1, 0, 0, 1, 0, 0]})
        >>> model = fit_click_model(log, "cascade")
        >>> attr = model.intervals(log, n_resamples=100, seed=1)["attractiveness"]
        >>> attr.columns
        ['query', 'item', 'attractiveness', 'ci_low', 'ci_high']
        >>> attr.select((pl.col("ci_low") < pl.col("attractiveness"))
        ...             & (pl.col("attractiveness") < pl.col("ci_high"))).to_series().all()
        True

        (The bounds themselves depend on Polars' hash, which may change between
        Polars versions.)
        """
        _check_bootstrap(self, n_resamples, alpha, positive=True)
        draws = self._refits(log, n_resamples, seed)
        out = percentiles(self.model, self.tables, draws, n_resamples, alpha)
        return {name: self._public(frame) for name, frame in out.items()}

    def _refits(self, log: FrameLike, n_resamples: int, seed: int) -> dict[str, pl.DataFrame]:
        prepared = history(prepare(log, self.columns), FITTED_FROM[self.model])
        return refits(self.model, prepared, self.iterations, n_resamples, seed)

    def examination(self, log: FrameLike | None = None, *,
                    n_resamples: int = 0, alpha: float = 0.05, seed: int = 0) -> pl.DataFrame:
        """The examination propensity per position, with a bootstrap interval if asked.

        PBM: theta_r (``log`` is needed only for an interval). The other models: the mean
        over ``log``'s impressions of P(E_r = 1) before any click is seen. With
        ``n_resamples`` > 0 the model is refitted on that many resamples of ``log``'s
        impressions (Poisson(1) weights drawn from a hash of the impression and
        ``seed``: the same for any row order; those of :meth:`intervals`) and
        ``ci_low``/``ci_high`` are the percentiles of the refitted propensities at
        ``alpha / 2`` and ``1 - alpha / 2``.
        """
        _check_bootstrap(self, n_resamples, alpha, positive=False)
        if log is None and (self.model != "pbm" or n_resamples):
            raise ValueError(f"model {self.model!r} needs the log for its examination"
                             + (" interval" if self.model == "pbm" else ""))
        point = self._propensity(log)
        if not n_resamples:
            return self._public(point)
        assert log is not None
        draws = self._refits(log, n_resamples, seed)
        if self.model == "pbm":
            bounds = percentiles(self.model, {"examination": point}, draws, n_resamples,
                                 alpha)["examination"]
            return self._public(bounds.sort(POS))
        if self.model != "ubm":
            props = propensities(self.model, history(prepare(log, self.columns)), draws,
                                 n_resamples)
        else:  # UBM's P(E_r) loops over ranks with gamma in Python: one plan per resample
            props = pl.concat([ClickModel(self.model, {t: _one(f, b, t) for t, f in draws.items()},
                                          self.columns, self.iterations)._propensity(log)
                               for b in range(n_resamples)])
        bounds = props.group_by(POS).agg(
            pl.col("examination").quantile(alpha / 2, "linear").alias("ci_low"),
            pl.col("examination").quantile(1 - alpha / 2, "linear").alias("ci_high"))
        return self._public(point.join(bounds, on=POS, how="left").sort(POS))

    def _propensity(self, log: FrameLike | None) -> pl.DataFrame:
        if self.model == "pbm":
            return self.tables["examination"].sort(POS)
        assert log is not None
        return self._full(log).group_by(POS).agg((group_sum(pl.col("_exam")) / pl.len()).alias(
            "examination")).sort(POS).collect()


def _one(draws: pl.DataFrame, rep: int, table: str) -> pl.DataFrame:
    """Resample ``rep``'s table (a single parameter: 0.5 if the resample drew nothing)."""
    frame = draws.filter(pl.col(REP) == rep).drop(REP)
    return frame if frame.height or len(frame.columns) > 1 else pl.DataFrame({table: [DEFAULT]})


def _check_bootstrap(model: ClickModel, n_resamples: int, alpha: float, *,
                     positive: bool) -> None:
    """ValueError for a bad ``alpha`` or ``n_resamples``, or a model that was not fitted."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        msg = f"alpha must be in (0, 1), got {alpha!r}"
        raise ValueError(msg)
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, int)
            or n_resamples < int(positive)):
        msg = f"n_resamples must be >= {int(positive)}, got {n_resamples!r}"
        raise ValueError(msg)
    if n_resamples and not model.iterations:
        msg = "an interval refits the model: it needs a model from fit_click_model"
        raise ValueError(msg)


def _given_table(name: Model, table: str, value: object, back: dict[str, str]) -> pl.DataFrame:
    """A table given to ``from_parameters``, checked: its keys once, values in [0, 1]."""
    keys = keys_of(name, table)
    if isinstance(value, (int, float)):
        frame = pl.DataFrame({table: [float(value)]})
    elif isinstance(value, Mapping):
        frame = pl.DataFrame({POS: list(value), table: list(value.values())},
                             schema={POS: pl.Int64, table: pl.Float64})
    else:
        frame = as_polars(value, table).lazy().collect()
        frame = frame.rename({k: v for k, v in back.items() if k in frame.columns})
    public = {v: k for k, v in back.items()}
    missing = [public.get(k, k) for k in [*keys, table] if k not in frame.columns]
    if missing:
        msg = (f"the {table!r} table of {name!r} needs columns "
               f"{[public.get(k, k) for k in [*keys, table]]}; missing {missing}")
        raise ValueError(msg)
    frame = frame.select(*keys, pl.col(table).cast(pl.Float64))
    bad = frame.filter(~pl.col(table).is_between(0.0, 1.0).fill_null(False))
    if bad.height:
        msg = f"the {table!r} table has a null or a value outside [0, 1]: {bad[table][0]}"
        raise ValueError(msg)
    if keys and frame.select(keys).is_duplicated().any():
        msg = (f"the {table!r} table has two rows for one "
               f"{tuple(public.get(k, k) for k in keys)}")
        raise ValueError(msg)
    if POS in keys and frame.filter(pl.col(POS) < 1).height:
        msg = f"the {table!r} table has a position < 1 (positions are 1..n)"
        raise ValueError(msg)
    return frame.with_columns(pl.col(k).cast(pl.Int64) for k in keys if k in (POS, PREV))


def _kind(dtype: pl.DataType) -> str:
    """Text, number or the type itself: ids of one kind can be compared after a cast."""
    if dtype == pl.String or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return "text"
    return "number" if dtype.is_numeric() else str(dtype)


def fit_click_model(log: FrameLike, model: ModelName = "pbm", *,
                    iterations: int = 50, impression: str = "impression",
                    position: str = "position", query: str = "query", item: str = "item",
                    click: str = "click") -> ClickModel:
    """Fit a click model on a click log (one row per impression and position).

    ``model``: ``"pbm"``, ``"ubm"``, ``"dbn"``, ``"ccm"`` (EM, ``iterations`` steps from every
    parameter at 0.5, PyClick's start) or ``"cascade"``, ``"dcm"``, ``"sdbn"`` (maximum
    likelihood, counted once). Each EM step is one lazy plan over the log; the
    definitions and updates are on the guide's page (Chuklin, Markov & de Rijke 2015).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.online import fit_click_model
    >>> log = pl.DataFrame({"impression": [1, 1, 2, 2], "position": [1, 2, 1, 2],
    ...                     "query": "q", "item": ["a", "b", "b", "a"],
    ...                     "click": [1, 0, 0, 1]})
    >>> model = fit_click_model(log, "sdbn")
    >>> model.attractiveness.sort("item")
    shape: (2, 3)
    ┌───────┬──────┬────────────────┐
    │ query ┆ item ┆ attractiveness │
    │ ---   ┆ ---  ┆ ---            │
    │ str   ┆ str  ┆ f64            │
    ╞═══════╪══════╪════════════════╡
    │ q     ┆ a    ┆ 0.75           │
    │ q     ┆ b    ┆ 0.333333       │
    └───────┴──────┴────────────────┘
    """
    name = check_model(model)
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        msg = f"iterations must be a positive int, got {iterations!r}"
        raise ValueError(msg)
    columns = Columns(impression, position, query, item, click)
    prepared = history(prepare(log, columns), FITTED_FROM[name]).with_columns(
        pl.lit(1.0).alias(WEIGHT))
    return ClickModel(name, estimate(name, prepared, iterations), columns, iterations)
