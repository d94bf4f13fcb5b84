"""Each preference measure per list, from its judgment groups' counts, as trec_eval computes it."""

from __future__ import annotations

import warnings

import polars as pl

from polars_rank._prefs.judgments import Q
from polars_rank._prefs.pair_counts import BEFORE
from polars_rank.errors import user_stacklevel


def _ratio(ful: pl.Expr, poss: pl.Expr) -> pl.Expr:
    """``(double) ful / (double) poss``, 0 / 0 NaN as in C."""
    return ful.cast(pl.Float64) / poss.cast(pl.Float64)


def per_list(frame: pl.DataFrame, measures: list[str]) -> pl.DataFrame:
    """Every measure but the pair ones, per list, from its groups' counts.

    Sums over groups (prefs_avgjg's) are added in trec_eval's order of groups.
    """
    c = pl.col
    ful, poss = c("ful_ret") + c("ful_imp"), c("poss_ret") + c("poss_imp") + c("notoccur")
    imp = c("poss_ret") + c("poss_imp")
    terms = {
        "prefs_avgjg": pl.when(poss > 0).then(_ratio(ful, poss)).otherwise(0.0),
        "prefs_avgjg_ret": pl.when(c("poss_ret") > 0).then(_ratio(c("ful_ret"), c("poss_ret")))
        .otherwise(0.0),
        "prefs_avgjg_imp": pl.when(imp > 0).then(_ratio(ful, imp)).otherwise(0.0),
    }
    undefined = []
    if any("Rnonrel" in m for m in measures):
        more = c("num_rel") - c("num_nonrel")
        more_ret = c("num_rel_ret") - c("num_nonrel_ret")
        terms["prefs_avgjg_Rnonrel"] = (
            pl.when(more >= 0)
            .then(_ratio(ful + c("num_rel_ret") * more, poss + c("num_rel") * more))
            .otherwise(_ratio(c("ful12") + c("ful3"), c("poss12") + c("poss3"))))
        terms["prefs_avgjg_Rnonrel_ret"] = (
            pl.when(more_ret >= 0)
            .then(_ratio(c("ful_ret") + c("num_rel_ret") * more_ret,
                         c("poss_ret") + c("num_rel") * more_ret))
            .otherwise(_ratio(c("ful12_ret") + c("ful3_ret"),
                              c("poss12_ret") + c("poss3_ret"))))
        # a recount that would read past trec_eval's data (see _recount_levels)
        undefined = [((more < 0) & c("rn_past")).any().alias("past_Rnonrel"),
                     ((more_ret < 0) & c("rnr_past")).any().alias("past_Rnonrel_ret")]
    sums = frame.sort("l", "j").group_by("l", maintain_order=True).agg(
        ful.sum().alias("ful"), poss.sum().alias("poss"), c("ful_ret").sum(),
        c("poss_ret").sum(), imp.sum().alias("imp"), pl.len().alias("num_jgs"),
        *(t.cum_sum().last().alias(m) for m, t in terms.items()), *undefined)

    def mean_over_groups(name: str) -> pl.Expr:  # "if (sum > 0.0)": NaN is not
        total = c(name)
        return (pl.when(total.is_not_nan() & (total > 0)).then(total / c("num_jgs"))
                .otherwise(0.0).alias(name))

    def simple(f: pl.Expr, p: pl.Expr, name: str) -> pl.Expr:
        return pl.when(p > 0).then(_ratio(f, p)).otherwise(0.0).alias(name)

    return sums.select(
        "l",
        c("poss").cast(pl.Float64).alias("prefs_num_prefs_poss"),
        c("ful").cast(pl.Float64).alias("prefs_num_prefs_ful"),
        c("ful_ret").cast(pl.Float64).alias("prefs_num_prefs_ful_ret"),
        simple(c("ful"), c("poss"), "prefs_simp"),
        simple(c("ful_ret"), c("poss_ret"), "prefs_simp_ret"),
        simple(c("ful"), c("imp"), "prefs_simp_imp"),
        *(mean_over_groups(m) for m in terms),
        *(c(f"past_{m}") for m in ("Rnonrel", "Rnonrel_ret") if undefined),
    )


def undefined(values: pl.DataFrame, lists: pl.DataFrame, measures: list[str]) -> pl.DataFrame:
    """NaN, with a warning, where prefs_avgjg_Rnonrel's recount reads past trec_eval's data.

    A group whose non-relevant documents sit at several levels (0 and below), with
    fewer lines at the lowest than the R it keeps: trec_eval reads the rest past that
    level's end (the next group's ranks, or memory it never wrote), so its value is
    undefined. Only negative levels lead there.
    """
    for measure in ("prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret"):
        flag = f"past_{measure.removeprefix('prefs_avgjg_')}"
        if flag not in values.columns:
            continue
        if measure in measures and values[flag].any():
            queries = (values.filter(flag).join(lists, on="l")[Q].unique().sort().to_list())
            shown = ", ".join(repr(q) for q in queries[:5]) + (" ..." if len(queries) > 5
                                                                else "")
            warnings.warn(
                f"{measure} is NaN for {len(queries)} quer{'y' if len(queries) == 1 else 'ies'} "
                f"({shown}): a judgment group has non-relevant documents at several levels, "
                "fewer at the lowest than the relevant ones it keeps, and trec_eval reads past "
                "its data there (its value is undefined)", UserWarning,
                stacklevel=user_stacklevel())
            values = values.with_columns(
                pl.when(flag).then(float("nan")).otherwise(pl.col(measure)).alias(measure))
        values = values.drop(flag)
    return values


def pair_values(ranked: pl.DataFrame, per_group: pl.DataFrame) -> pl.DataFrame:
    """prefs_pair, _ret and _imp: the share of each document pair's preferences fulfilled.

    A pair's share counts the preferences of every group; the shares are averaged over
    the pairs, added in trec_eval's order: both retrieved (by docid rank), then one
    retrieved; pairs neither of which is retrieved count 0 in prefs_pair's mean. In a
    list with one judgment group each share is 0 or 1 (a pair is preferred one way
    there), so their sum is a count, exact in any order.
    """
    c = pl.col
    one_group = per_group.group_by("l").agg(
        pl.len().alias("groups"), c("pairs_ful_ret").sum(), c("pairs_ret").sum(),
        c("pairs_ful_one").sum(), c("pairs_one").sum(), c("pairs").sum())

    def mean(total: pl.Expr, count: pl.Expr, name: str) -> pl.Expr:
        return pl.when(count > 0).then(total / count).otherwise(0.0).alias(name)

    imp_sum = (c("pairs_ful_ret") + c("pairs_ful_one")).cast(pl.Float64)
    imp = c("pairs_ret") + c("pairs_one")
    simple = one_group.filter(c("groups") == 1).select(
        "l", mean(imp_sum, c("pairs"), "prefs_pair"),
        mean(c("pairs_ful_ret").cast(pl.Float64), c("pairs_ret"), "prefs_pair_ret"),
        mean(imp_sum, imp, "prefs_pair_imp"))
    several = ranked.join(one_group.filter(c("groups") > 1).select("l"), on="l", how="semi")
    n = c("n").cast(pl.Int64)
    # one integer key per (list, block, first rank, second rank), in trec_eval's order:
    # sorting and grouping on one column is several times faster than on four
    size = int(several.select(pl.max_horizontal(c("r_hi").max(), c("r_lo").max())).item()
               or 0) + 1
    first, second = pl.min_horizontal("r_hi", "r_lo"), pl.max_horizontal("r_hi", "r_lo")
    block = (first >= c("njr")).cast(pl.Int64) + (second >= c("njr")).cast(pl.Int64)
    key = ((c("l").cast(pl.Int64) * 3 + block) * size + first) * size + second
    pairs = (several.group_by(key.alias("key"))
             .agg(c("l").first(), block.first().alias("block"),
                  (n * BEFORE).sum().alias("agree"), n.sum().alias("total"))
             .with_columns(_ratio(c("agree"), c("total")).alias("share"))
             .sort("key"))
    ret, imp_block = c("block") == 0, c("block") <= 1

    def ordered(kept: pl.Expr, count: pl.Expr, name: str) -> pl.Expr:
        return (pl.when(count > 0).then(c("share").filter(kept).cum_sum().last() / count)
                .otherwise(0.0).alias(name))

    shared = pairs.group_by("l", maintain_order=True).agg(
        ordered(imp_block, pl.len(), "prefs_pair"),
        ordered(ret, ret.sum(), "prefs_pair_ret"),
        ordered(imp_block, imp_block.sum(), "prefs_pair_imp"),
    )
    return pl.concat([simple, shared], how="vertical_relaxed")
