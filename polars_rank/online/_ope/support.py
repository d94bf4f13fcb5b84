"""The support check of ``off_policy_value``: candidates the target wants, never shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.rules import NAN_IS_NO_MISSING_VALUE
from polars_rank.errors import InvalidDataError
from polars_rank.online._ope.checks import range_rule

if TYPE_CHECKING:
    from polars_rank.online._ope.options import Options

__all__ = ["unsupported_impressions"]

CALLER = "off_policy_value"


def _check_candidates(lf: pl.LazyFrame, *, impression: str, position: str,
                      columns: list[str]) -> None:
    """A candidate row's propensities: null or in [0, 1], never NaN.

    Null or 0 is "never shown" (the logger) or "never chosen" (the target). A NaN is
    no missing value (pandas' NaN, read as null, would have counted as "never"): it
    raised on a shown row and was read as "not 0" on a candidate row, so that a
    candidate the logger never shows passed the support check. The range is the shown
    rows' (checks.range_rule), nulls allowed.
    """
    odd = {c: (range_rule(c, low_open=False, rule="").bad & pl.col(c).is_not_null())
           .alias(f"__odd_{c}") for c in columns}
    if not odd:
        return
    first = (lf.filter(pl.col(position).is_null())
             .select(impression, *columns, *odd.values())
             .filter(pl.any_horizontal(pl.col(f"__odd_{c}") for c in columns))
             .sort(impression, nulls_last=True).head(1).collect())
    if first.height:
        column = next(c for c in columns if first[f"__odd_{c}"][0])
        value = first[column][0]
        msg = (f"{CALLER}: column {column!r} must be null or a propensity in [0, 1] on a "
               f"candidate row (position null), got {value!r}; impression "
               f"{first[impression][0]!r}"
               + (f". {NAN_IS_NO_MISSING_VALUE}" if value != value else ""))
        raise InvalidDataError(msg)


def unsupported_impressions(lf: pl.LazyFrame, shown: pl.LazyFrame, schema: list[str],
                            opts: Options, *, impression: str, position: str, item: str,
                            pscore: str, target: str,
                            target_rank: str | None) -> pl.DataFrame | None:
    """Impressions with a candidate the target may choose but the logger never shows."""
    if target_rank is None and target not in schema:
        return None
    # the target's propensity is read only without a target ranking
    read = [pscore, *([target] if target_rank is None else [])]
    _check_candidates(lf, impression=impression, position=position,
                      columns=[c for c in read if c in schema])
    shown_count = pl.col(position).count().over(impression)
    wanted = ((pl.col(target_rank) <= shown_count) if target_rank is not None
              else pl.col(target).cast(pl.Float64) > 0).fill_null(False)
    never = ((pl.col(pscore).cast(pl.Float64).fill_null(0.0) <= 0) if pscore in schema
             else pl.lit(True))
    bad = lf.with_columns((wanted & never & pl.col(position).is_null()).alias("__bad"))
    bad = bad.filter(pl.col("__bad"))
    if opts.support == "error":
        names = [impression, *([item] if item in schema else [])]
        first = bad.select(names).sort(names).head(1).collect()
        if first.height:
            what = f"item {first[item][0]!r}" if item in schema else "a candidate row"
            msg = (f"{CALLER}: support: the target policy may choose {what} that the logger "
                   f"never shows (column {pscore!r} is 0 or null on the candidate row, "
                   f"position null); impression {first[impression][0]!r}. No estimator can "
                   "see its reward; pass support='ignore' to estimate anyway")
            raise InvalidDataError(msg)
        return None
    # the slice of an impression is its shown rows' (candidate rows need not carry it)
    impressions = bad.select(impression).unique()
    slices = shown.select(*opts.group_by, impression).join(impressions, on=impression,
                                                           how="semi")
    if opts.group_by:
        return slices.group_by(opts.group_by).agg(pl.len().alias("unsupported")).collect()
    return slices.select(pl.len().alias("unsupported")).collect()
