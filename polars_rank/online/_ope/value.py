"""``off_policy_value``: a target policy's value estimated from a logging policy's log."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_rank._engine.frames import FrameLike, as_polars
from polars_rank.errors import InvalidDataError
from polars_rank.online._ope.checks import (
    BAD,
    FIRST,
    Rule,
    check_group_by,
    check_numeric,
    constant_rule,
    finite_rule,
    missing_columns,
    missing_id,
    position_rules,
    raise_flagged,
    range_rule,
    rank_rules,
    row_flags,
)
from polars_rank.online._ope.options import Options, check_options
from polars_rank.online._ope.resample import slice_intervals
from polars_rank.online._ope.spec import ESTIMATORS, Estimator, Terms
from polars_rank.online._ope.support import unsupported_impressions
from polars_rank.online._order import sorted_by

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["off_policy_value"]

CALLER = "off_policy_value"
RESULT_COLUMNS = ("estimator", "estimate", "ci_low", "ci_high", "n_impressions", "n_rounds",
                  "ess", "max_weight", "near_zero", "unsupported")
DERIVED = ("__ope_target", "__ope_target_cascade", "__ope_target_slate")


def off_policy_value(
    log: FrameLike,
    estimator: str | Sequence[str] = ("ips", "snips"),
    *,
    impression: str = "impression",
    position: str = "position",
    item: str = "item",
    reward: str = "reward",
    pscore: str = "pscore",
    target: str = "target",
    target_rank: str | None = None,
    pscore_slate: str = "pscore_slate",
    target_slate: str = "target_slate",
    pscore_cascade: str = "pscore_cascade",
    target_cascade: str = "target_cascade",
    q_hat: str = "q_hat",
    q_hat_target: str = "q_hat_target",
    group_by: str | Sequence[str] | None = None,
    clip: float | None = None,
    switch_threshold: float | None = None,
    support: Literal["error", "ignore"] = "error",
    near_zero: float = 0.01,
    alpha: float = 0.05,
    n_resamples: int = 1000,
    seed: int | None = 0,
) -> pl.DataFrame:
    r"""Estimate a target policy's value from a log of the logging policy, with diagnostics.

    The log is long: one row per shown (impression, position), positions 1..n within an
    impression, with the reward, the logging policy's propensity and the target
    policy's propensity of that row (or ``target_rank``, the target's ranking, from
    which they follow). Rows whose position is null are *candidates* the logger did not
    show; they are read only by the support check. The estimators (``estimator=``, one
    name or several; formulas on the [Counterfactual evaluation](../counterfactual.md)
    page; OBP's class names in brackets):

    - single slot, each shown row a round, value = the mean over rounds:
      ``"ips"`` (InverseProbabilityWeighting), ``"snips"``
      (SelfNormalizedInverseProbabilityWeighting), ``"dm"`` (DirectMethod),
      ``"dr"`` (DoublyRobust), ``"switch-dr"`` (SwitchDoublyRobust);
    - slates, value = the mean over impressions of the summed rewards: ``"sips"``
      (SlateStandardIPS, joint slate propensities), ``"iips"`` (SlateIndependentIPS,
      item-position propensities), ``"rips"`` (SlateRewardInteractionIPS, cascade
      propensities of the top-k prefix) and ``"cascade-dr"`` (SlateCascadeDoublyRobust).

    Parameters
    ----------
    log
        The log, eager or lazy (or a pandas frame, an Arrow table: what
        :func:`polars_rank.evaluate` reads).
    estimator
        One estimator name or several; one result row each.
    impression, position, item, reward
        Column names. ``item`` is read only to name an unsupported item in an error.
    pscore, target
        The logging and target propensity of the row's item at its position
        (single slot: of the action; ``"iips"``: the item-position marginal).
    target_rank
        A column with the rank the target policy (a deterministic ranking) gives the
        row's item; the target propensities are then 1 where it equals the position
        (cascade: for every position up to this one; slate: for all) and 0 elsewhere.
    pscore_slate, target_slate
        The whole slate's propensity (``"sips"``), one value per impression.
    pscore_cascade, target_cascade
        The propensity of the slate's prefix 1..k at position k (``"rips"``, ``"cascade-dr"``).
    q_hat, q_hat_target
        The reward model's estimate for the logged row, and its expectation under the
        target policy at that round (``sum_a pi_e(a) q_hat(a)``; cascade: given the
        logged prefix). Read by ``"dm"``, ``"dr"``, ``"switch-dr"``, ``"cascade-dr"``.
    group_by
        Slice columns: one result row per slice and estimator.
    clip
        OBP's ``lambda_`` of IPS and DR: weights above it are clipped (None: no clipping).
    switch_threshold
        Switch-DR's tau: rows with a weight above it use the model only (None: infinity,
        which is DR).
    support
        ``"error"`` (default): a candidate row (null position) that the target policy
        gives probability to (``target`` > 0, or ranked within the slate by
        ``target_rank``) but the logger never shows (``pscore`` 0 or null) raises
        :class:`~polars_rank.errors.InvalidDataError`, because no estimator here can
        see its reward; ``"ignore"`` estimates anyway and counts such impressions in
        the ``unsupported`` column.
    near_zero
        A logging propensity below this counts in the ``near_zero`` share.
    alpha, n_resamples, seed
        The bootstrap over impressions: percentile interval at level ``1 - alpha``
        from ``n_resamples`` resamples (0: no interval), seeded per slice.

    Returns
    -------
    DataFrame
        ``[group_by...], estimator, estimate, ci_low, ci_high, n_impressions, n_rounds,
        ess, max_weight, near_zero, unsupported``: ``ess`` is Kish's effective sample
        size of the estimator's weights over its ``n_rounds`` rounds (rows; impressions
        for ``"sips"``), ``max_weight`` the largest weight, ``near_zero`` the share of
        rounds whose logging propensity is below ``near_zero`` (all three null for
        ``"dm"``), ``unsupported`` the number of impressions with an unsupported
        candidate.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank.online as pro
    >>> log = pl.DataFrame({
    ...     "impression": [1, 2, 3, 4], "position": [1, 1, 1, 1],
    ...     "reward": [1.0, 0.0, 1.0, 0.0], "pscore": [0.5, 0.5, 0.25, 0.8],
    ...     "target": [1.0, 0.0, 0.5, 0.4],
    ... })
    >>> pro.off_policy_value(log, ["ips", "snips"], n_resamples=0).select(
    ...     "estimator", "estimate", "ess", "max_weight")
    shape: (2, 4)
    ┌───────────┬──────────┬──────────┬────────────┐
    │ estimator ┆ estimate ┆ ess      ┆ max_weight │
    │ ---       ┆ ---      ┆ ---      ┆ ---        │
    │ str       ┆ f64      ┆ f64      ┆ f64        │
    ╞═══════════╪══════════╪══════════╪════════════╡
    │ ips       ┆ 1.0      ┆ 2.454545 ┆ 2.0        │
    │ snips     ┆ 0.888889 ┆ 2.454545 ┆ 2.0        │
    └───────────┴──────────┴──────────┴────────────┘
    """
    opts = check_options(estimator, group_by=group_by, clip=clip,
                         switch_threshold=switch_threshold, support=support,
                         near_zero=near_zero, alpha=alpha, n_resamples=n_resamples, seed=seed)
    check_group_by(opts.group_by, impression=impression, position=position,
                   result=RESULT_COLUMNS)
    lf = as_polars(log, "log").lazy()
    types = lf.collect_schema()
    schema = types.names()
    terms = Terms(reward=reward, pscore=pscore, target=target, pscore_slate=pscore_slate,
                  target_slate=target_slate, pscore_cascade=pscore_cascade,
                  target_cascade=target_cascade, q_hat=q_hat, q_hat_target=q_hat_target,
                  impression=impression, position=position, clip=opts.clip,
                  switch_threshold=opts.switch)
    estimators = [ESTIMATORS[name] for name in opts.estimators]
    needed = _check_columns(schema, estimators, terms, opts, position=position,
                            target_rank=target_rank)
    check_numeric(types, [c for c in needed if c not in (impression, *opts.group_by)],
                  caller=CALLER, positions=[position, *([target_rank] if target_rank else [])])
    if target_rank is not None:
        terms = Terms(**{**terms.__dict__, "target": DERIVED[0], "target_cascade": DERIVED[1],
                         "target_slate": DERIVED[2]})
    shown, candidates = _shown(lf.select(needed), opts.group_by, impression, position,
                               target_rank)
    rules = _rules(estimators, terms, impression, position, target_rank, types[impression])
    plan, per_rule, copies = _per_impression(shown, estimators, terms, opts, impression, rules)
    per_impression = plan.collect()
    if per_impression.height == 0:
        msg = f"{CALLER}: the log has no shown rows (rows with a non-null {position!r})"
        raise InvalidDataError(msg)
    if per_impression[BAD].any():
        raise_flagged(per_rule.collect(), shown, rules, impression=impression, caller=CALLER)
    # without candidate rows (null positions) there is nothing to support: no second read
    unsupported = unsupported_impressions(
        lf, per_impression.lazy(), schema, opts, impression=impression, position=position,
        item=item, pscore=pscore, target=target, target_rank=target_rank) if candidates else None
    return _results(per_impression, estimators, opts, unsupported, copies)


def _check_columns(schema: list[str], estimators: list[Estimator], t: Terms, opts: Options,
                   *, position: str, target_rank: str | None) -> list[str]:
    """The columns the estimators read, or an error naming the first missing one."""
    why = {t.impression: "the impression id", position: "the position, 1..n",
           t.reward: "the reward"}
    needed = [t.impression, position, t.reward, *opts.group_by]
    for e in estimators:
        logging, target = e.columns(t)
        why.setdefault(logging, f"the logging propensity {e.name!r} divides by")
        needed.append(logging)
        if target_rank is None:
            why.setdefault(target, f"the target propensity {e.name!r} reads")
            needed.append(target)
        if e.model:
            why.setdefault(t.q_hat, f"the reward model's estimate {e.name!r} reads")
            why.setdefault(t.q_hat_target,
                           f"the model's expectation under the target, {e.name!r}")
            needed += [t.q_hat, t.q_hat_target]
    if target_rank is not None:
        why[target_rank] = "the target policy's ranking"
        needed.append(target_rank)
    needed = list(dict.fromkeys(needed))
    missing_columns(schema, needed, caller=CALLER, why=why)
    return needed


def _shown(lf: pl.LazyFrame, group_by: tuple[str, ...], impression: str, position: str,
           target_rank: str | None) -> tuple[pl.LazyFrame, bool]:
    """The shown rows, sorted, with derived target columns; whether there are candidates.

    The rows in (slice, impression, position) order; candidates: rows with a null
    position (only then does the support check read the log again). Read once (only
    the columns the estimators need), sorted in memory, not in the plan (Polars 2.1's
    lazy sort of a scanned file took 4x the read), and only when out of order.
    """
    order = [*group_by, impression, position]
    rows = lf.collect()
    candidates = bool(rows[position].null_count())
    if candidates:
        rows = rows.filter(pl.col(position).is_not_null())
    shown = sorted_by(rows, order).lazy()
    if target_rank is None:
        return shown, candidates
    hit = (pl.col(target_rank) == pl.col(position)).fill_null(False).cast(pl.Float64)
    return shown.with_columns(hit.alias(DERIVED[0])).with_columns(
        pl.col(DERIVED[0]).cum_prod().over(impression, order_by=position).alias(DERIVED[1]),
        pl.col(DERIVED[0]).min().over(impression).alias(DERIVED[2])), candidates


def _rules(estimators: list[Estimator], t: Terms, impression: str, position: str,
           target_rank: str | None, id_type: pl.DataType) -> list[Rule]:
    rules = [missing_id(impression, id_type),
             *position_rules(position, impression), finite_rule(t.reward)]
    for e in estimators:
        logging, target = e.columns(t)
        rules.append(range_rule(logging, low_open=True,
                                rule="must be a propensity in (0, 1] on every shown row"))
        if target_rank is None:
            rules.append(range_rule(target, low_open=False,
                                    rule="must be a propensity in [0, 1] on every shown row"))
        if e.logging == "slate":
            rules += [constant_rule(logging, impression)]
            if target_rank is None:
                rules.append(constant_rule(target, impression))
        if e.model:
            rules += [finite_rule(t.q_hat), finite_rule(t.q_hat_target)]
    if target_rank is not None:
        rules += rank_rules(target_rank, within_list=True, impression=impression)
    return list({(r.column, r.rule): r for r in rules}.values())


def _per_impression(shown: pl.LazyFrame, estimators: list[Estimator], t: Terms, opts: Options,
                    impression: str,
                    rules: list[Rule]) -> tuple[pl.LazyFrame, pl.LazyFrame, dict[str, str]]:
    """Per (slice, impression): each estimator's numerator, denominator and weight sums.

    And whether it breaks a rule; with the plan of each rule's flag per impression
    (``raise_flagged``'s input, to name the offence). The rows are sorted by (slice,
    impression, position) and the ``group_by`` keeps the order; each sum adds its terms
    in position order as one list (Polars 2.1's ``sum()`` in a ``group_by`` depends on
    where the group sits): the same bits for any row order.
    Every term and rule test is a column before the ``group_by``, which aggregates
    plain columns (an expression in an aggregation runs group by group: 8x the time).
    """
    keys = [*opts.group_by, impression]
    rows: list[pl.Expr] = []
    squares: list[pl.Expr] = []
    aggs: list[pl.Expr] = [pl.len().alias("__rows")]
    # estimators share terms (SNIPS and DR: the same weights): each distinct sum is
    # computed once, the others are copies of it (the same values, the same bits)
    made: dict[tuple[str, str], str] = {}
    copies: dict[str, str] = {}
    # group_sum's sums as one list each; its -0.0 -> 0.0 after the group_by (inside the
    # aggregation, its when/then summed each list twice)
    summed: list[str] = []

    def agg(name: str, kind: str, term: pl.Expr, expr: pl.Expr) -> None:
        key = (kind, str(term))
        if key in made:
            copies[name] = made[key]
        else:
            made[key] = name
            aggs.append(expr.alias(name))
            if "sum" in kind:
                summed.append(name)

    for n, e in enumerate(estimators):
        logging, _ = e.columns(t)
        near_term = (pl.col(logging) < opts.near_zero).cast(pl.Float64)
        rows += [e.numerator(t).alias(f"num{n}"), e.denominator_term(t).alias(f"den{n}"),
                 e.weight(t).alias(f"w{n}"), near_term.alias(f"near{n}")]
        per_slate = e.logging == "slate"
        # a slate's weight is one per impression; a row's max and 0/1 count as one list
        # (exact either way: a plain max() or sum() per group took 10x the time)
        w = pl.col(f"w{n}").first() if per_slate else pl.col(f"w{n}")
        near = pl.col(f"near{n}").first() if per_slate else pl.col(f"near{n}")
        ww = pl.col(f"ww{n}").first() if per_slate else pl.col(f"ww{n}")
        squares.append((pl.col(f"w{n}") * pl.col(f"w{n}")).alias(f"ww{n}"))
        one = "first " if per_slate else ""
        agg(f"num{n}", "sum", e.numerator(t), pl.col(f"num{n}").implode().list.sum())
        if e.denominator == "impressions":
            aggs.append(pl.lit(1.0).alias(f"den{n}"))
        else:
            agg(f"den{n}", "sum", e.denominator_term(t), pl.col(f"den{n}").implode().list.sum())
        agg(f"sw{n}", one + "sum", e.weight(t), w.implode().list.sum())
        agg(f"sww{n}", one + "sum of squares", e.weight(t), ww.implode().list.sum())
        agg(f"mw{n}", one + "max", e.weight(t), w if per_slate else w.implode().list.max())
        agg(f"near{n}", one + "count", near_term,
            near if per_slate else near.implode().list.sum())
    frame, flagged = row_flags(shown.with_columns(rows).with_columns(squares), rules, keys)
    # the rows are sorted: an impression is a run of rows, numbered by a running count
    # Polars knows is sorted, whose group_by slices the runs rather than hashing the keys
    runs = frame.with_columns(pl.col(FIRST).cum_sum().alias("__run")).set_sorted("__run")
    first = [pl.col(k).first() for k in keys]
    per_impression = runs.group_by("__run", maintain_order=True).agg(
        *first, *aggs, pl.col(BAD).implode().list.any()).drop("__run").with_columns(
        pl.when(pl.col(c) == 0.0).then(0.0).otherwise(pl.col(c)).alias(c) for c in summed
    ).with_columns(pl.col(source).alias(name) for name, source in copies.items())
    # each rule's flag per impression, read only when an impression breaks one
    per_rule = runs.group_by("__run", maintain_order=True).agg(*first, *flagged).drop("__run")
    return per_impression, per_rule, copies


def _results(per_impression: pl.DataFrame, estimators: list[Estimator], opts: Options,
             unsupported: pl.DataFrame | None, copies: dict[str, str]) -> pl.DataFrame:
    """Per slice: each estimator's estimate, interval and diagnostics, one row each.

    ``copies``: columns of ``per_impression`` that are copies of another (summed once).
    The impressions' sums are added in impression order (the rows were sorted), as one
    list: the same bits for any row order, and no sort of the values (0.24 s at 10M rows).
    """
    keys = list(opts.group_by)
    by: list[str] | list[pl.Expr] = keys or [pl.lit(0).alias("__all")]
    sums = per_impression.group_by(by, maintain_order=True).agg(
        pl.len().alias("n_impressions"), pl.col("__rows").sum().cast(pl.Int64),
        *(pl.col(f"{part}{n}").implode().list.sum() for n in range(len(estimators))
          for part in ("num", "den", "sw", "sww", "near") if f"{part}{n}" not in copies),
        *(pl.col(f"mw{n}").max() for n in range(len(estimators)))).with_columns(
        pl.col(source).alias(name) for name, source in copies.items() if name[:2] != "mw")
    intervals = slice_intervals(per_impression, len(estimators), opts)
    frames = []
    for n, e in enumerate(estimators):
        rounds = pl.col("n_impressions") if e.logging == "slate" else pl.col("__rows")
        weighted = e.name != "dm"
        nothing = pl.lit(None, dtype=pl.Float64)
        frames.append(sums.select(
            *keys, pl.lit(e.name).alias("estimator"),
            (pl.col(f"num{n}") / pl.col(f"den{n}")).alias("estimate"),
            pl.lit(pl.Series([iv[n][0] for iv in intervals], dtype=pl.Float64)).alias("ci_low"),
            pl.lit(pl.Series([iv[n][1] for iv in intervals], dtype=pl.Float64)).alias("ci_high"),
            pl.col("n_impressions").cast(pl.Int64), rounds.cast(pl.Int64).alias("n_rounds"),
            (pl.col(f"sw{n}") ** 2 / pl.col(f"sww{n}")).fill_nan(0.0).alias("ess")
            if weighted else nothing.alias("ess"),
            pl.col(f"mw{n}").alias("max_weight") if weighted else nothing.alias("max_weight"),
            (pl.col(f"near{n}") / rounds).alias("near_zero") if weighted
            else nothing.alias("near_zero")).with_row_index("__slice"))
    out = pl.concat(frames).sort("__slice", maintain_order=True).drop("__slice")
    if unsupported is None or unsupported.height == 0:
        return out.with_columns(pl.lit(0, dtype=pl.Int64).alias("unsupported"))
    if not keys:
        return out.with_columns(pl.lit(unsupported["unsupported"][0], dtype=pl.Int64)
                                .alias("unsupported"))
    return out.join(unsupported.with_columns(pl.col("unsupported").cast(pl.Int64)), on=keys,
                    how="left", nulls_equal=True, maintain_order="left").with_columns(
        pl.col("unsupported").fill_null(0))
