"""Counting each list's preferences: fulfilled, possible, retrieved, per judgment group.

A judgment group with one subgroup (``ec``) counts by level, without listing its
pairs; a group with several (``pa``) counts its ranked pairs (``BEFORE``: the preferred
document ranked first).
"""

from __future__ import annotations

import polars as pl

from polars_rank._prefs.judgments import REL


def relevant(ec: pl.DataFrame, pa: pl.DataFrame) -> pl.DataFrame:
    """Per list and group: ``num_rel, num_rel_ret, num_nonrel, num_nonrel_ret``.

    A one-subgroup group counts its lines (a document listed twice counts twice),
    levels <= 0 non-relevant; a group with subgroups counts its documents, level 0
    non-relevant, a negative level neither.
    """
    ret = pl.col("r") < pl.col("njr")
    out = []
    for frame, non in ((ec.select("l", "j", REL, "r", "njr", pl.col("n").cast(pl.Int64)),
                        pl.col(REL) <= 0),
                       (pa.select("l", "j", REL, "r", "njr", pl.lit(1, pl.Int64).alias("n")),
                        pl.col(REL) == 0)):
        rel, n = pl.col(REL) > 0, pl.col("n")
        out.append(frame.group_by("l", "j").agg(
            (n * rel).sum().alias("num_rel"),
            (n * (rel & ret)).sum().alias("num_rel_ret"),
            (n * non).sum().alias("num_nonrel"),
            (n * (non & ret)).sum().alias("num_nonrel_ret")))
    return pl.concat(out)


def recount_levels(ec: pl.DataFrame, pa: pl.DataFrame, relevant: pl.DataFrame
                    ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """What prefs_avgjg_Rnonrel's recount keeps of each group.

    ``recalculate`` in m_prefs_avgjg_Rnonrel.c and its _ret twin, for groups with fewer
    relevant documents (R) than non-relevant ones.

    A one-subgroup group keeps the first R lines of its lowest level (``k``: how many
    of a document's lines; ``k_ret``: of the retrieved ones, R = num_rel_ret) and, as
    the C code does, also pairs every line of that level with the R kept: each such
    (x, y) is one more pair, fulfilled when x is retrieved and ranked above y (``third``:
    ``ful3, poss3`` and their _ret twins). ``rn_past``, ``rnr_past``: trec_eval would
    read past the group's data. A group with subgroups leaves out its non-relevant
    documents after the first num_rel (in docid rank order; num_rel in both variants,
    as the C code has it): ``out``.
    """
    group = ["l", "j"]
    need = relevant.select(*group, "num_rel", "num_rel_ret")
    n = pl.col("n").cast(pl.Int64)
    retrieved = pl.col("r") < pl.col("njr")
    low = (ec.filter("low").join(need, on=group).sort(*group, "r")
           .with_columns((n.cum_sum().over(group) - n).alias("before"),
                         n.sum().over(group).alias("size"),
                         (n * retrieved).sum().over(group).alias("size_ret")))
    take_ret = pl.min_horizontal("num_rel_ret", "size_ret")
    low = low.with_columns(
        (pl.col("num_rel") - pl.col("before")).clip(0, n).alias("k"),
        (take_ret - pl.col("before")).clip(0, n).alias("k_ret"),
        take_ret.alias("take_ret"))
    first = pl.Expr.first
    third = low.group_by(group).agg(
        (pl.col("k") * pl.min_horizontal("before", "size_ret")).sum().alias("ful3"),
        (first(pl.col("size")) * first(pl.col("num_rel"))).alias("poss3"),
        (pl.col("k_ret") * pl.col("before")).sum().alias("ful3_ret"),
        (first(pl.col("size_ret")) * first(pl.col("take_ret"))).alias("poss3_ret"),
        (first(pl.col("num_rel")) > first(pl.col("size"))).alias("rn_past"),
        ((first(pl.col("num_rel_ret")) > first(pl.col("size")))
         & (first(pl.col("size_ret")) == first(pl.col("size")))).alias("rnr_past"))
    ec = ec.join(low.select(*group, "c", "k", "k_ret"), on=[*group, "c"], how="left")
    out = (pa.filter(pl.col(REL) == 0).join(need, on=group).sort(*group, "r")
           .filter(pl.int_range(1, pl.len() + 1).over(group) > pl.col("num_rel"))
           .select(*group, "c", pl.lit(True).alias("out")))
    pa = pa.join(out, on=[*group, "c"], how="left").with_columns(pl.col("out").fill_null(False))
    return ec, pa, third


def ec_pairs(ec: pl.DataFrame) -> pl.DataFrame:
    """A one-subgroup group's pairs (each document of a level with each of a lower level).

    Made for :func:`_pair_values` only, for lists whose groups may share pairs: the
    counts of these groups come from :func:`ec_counts`, without pairs.
    """
    levels = ec.group_by("l", "j", REL).agg("r", "n", pl.col("njr").first())
    hi = levels.select("l", "j", pl.col(REL).alias("rel_hi"), pl.col("r").alias("r_hi"),
                       pl.col("n").alias("n_hi"))
    lo = levels.select("l", "j", pl.col(REL).alias("rel_lo"), pl.col("r").alias("r_lo"),
                       pl.col("n").alias("n_lo"), "njr")
    return (hi.join(lo, on=["l", "j"]).filter(pl.col("rel_hi") > pl.col("rel_lo"))
            .explode("r_hi", "n_hi").explode("r_lo", "n_lo")
            .with_columns((pl.col("n_hi").cast(pl.Int64) * pl.col("n_lo")).alias("n"))
            .drop("rel_hi", "rel_lo", "n_lo"))


def ec_counts(ec: pl.DataFrame, recount: bool) -> pl.DataFrame:
    """:func:`counts` of the one-subgroup groups, without making their pairs.

    Their pairs are every line of a level with every line of a lower level: a count
    over pairs whose documents are both, or one, or neither retrieved is a product of
    the levels' counts, summed over the levels above. Only "ranked in order" needs the
    ranks: for each document y, the weight of the documents x ranked above it at a
    higher level (a dominance count, :func:`_dominance`), weighted by y.
    """
    group = ["l", "j"]
    n = pl.col("n").cast(pl.Int64)
    ret = pl.col("r") < pl.col("njr")
    e = ec.with_columns(
        (pl.col(REL).rank("dense", descending=True).over(group).cast(pl.Int64) - 1)
        .alias("t"),  # the level's place, 0 the highest
        (n * ret).alias("xa"), ret.cast(pl.Int64).alias("xb"))
    w = []
    if recount:  # the recount's weight of y: its kept lines at the lowest level
        w = [pl.when(pl.col("low")).then(pl.col("k").fill_null(0)).otherwise(n).alias("w"),
             (pl.when(pl.col("low")).then(pl.col("k_ret").fill_null(0)).otherwise(n) * ret)
             .alias("w_ret")]
    e = e.with_columns(*w).sort(*group, "r")
    below = _dominance(e, ["xa", "xb"])
    c = pl.col
    levels = below.group_by(*group, "t").agg(
        (n * ret).sum().alias("n_ret"), (n * ~ret).sum().alias("n_out"),
        ret.sum().cast(pl.Int64).alias("c_ret"), (~ret).sum().cast(pl.Int64).alias("c_out"),
        (n * ret * c("xa_above")).sum().alias("ful_ret"),
        (ret * c("xb_above")).sum().alias("pairs_ful_ret"),
        *([(c("w") * c("xa_above")).sum().alias("ful12"), c("w").sum(),
           (c("w_ret") * c("xa_above")).sum().alias("ful12_ret"), c("w_ret").sum()]
          if recount else []),
    ).sort(*group, "t")
    sums = ["n_ret", "n_out", "c_ret", "c_out"]
    levels = levels.with_columns(  # the levels above each (their sums, exclusive)
        *((c(x).cum_sum().over(group) - c(x)).alias(f"{x}_up") for x in sums))
    per_level = [
        c("ful_ret"), (c("n_ret") * c("n_ret_up")).alias("poss_ret"),
        (c("n_out") * c("n_ret_up")).alias("ful_imp"),
        (c("n_out") * c("n_ret_up") + c("n_ret") * c("n_out_up")).alias("poss_imp"),
        (c("n_out") * c("n_out_up")).alias("notoccur"),
        c("pairs_ful_ret"), (c("c_ret") * c("c_ret_up")).alias("pairs_ret"),
        (c("c_out") * c("c_ret_up")).alias("pairs_ful_one"),
        (c("c_out") * c("c_ret_up") + c("c_ret") * c("c_out_up")).alias("pairs_one"),
        ((c("c_ret") + c("c_out")) * (c("c_ret_up") + c("c_out_up"))).alias("pairs"),
    ]
    if recount:
        per_level += [c("ful12"), (c("w") * (c("n_ret_up") + c("n_out_up"))).alias("poss12"),
                      c("ful12_ret"), (c("w_ret") * c("n_ret_up")).alias("poss12_ret")]
    names = [x.meta.output_name() for x in per_level]
    return levels.select(*group, *per_level).group_by(group).agg(c(names).sum())


def _dominance(entries: pl.DataFrame, weights: list[str]) -> pl.DataFrame:
    """``<weight>_above``: the sum of ``weight`` over the rows above, at a higher level.

    Above: before the row, the frame being sorted by rank within each ``l, j``; a
    higher level: a smaller ``t``.

    Each pair of rows at levels t_x < t_y is counted once, at the highest bit where the
    two levels differ (x's bit 0, y's 1, the bits above equal): per bit, a cumulative
    sum within the rows sharing the bits above. log2(levels) window sums, not pairs.
    """
    bits = int(entries.select(pl.col("t").max()).item() or 0).bit_length()
    out = entries.with_columns(pl.lit(0, pl.Int64).alias(f"{w}_above") for w in weights)
    for k in reversed(range(bits)):
        prefix, bit = pl.col("t") // (1 << (k + 1)), (pl.col("t") // (1 << k)) % 2
        window = ["l", "j", prefix.alias("__prefix")]
        out = out.with_columns(
            (pl.col(f"{w}_above") + pl.when(bit == 1).then(
                (pl.col(w) * (bit == 0)).cum_sum().over(window) - pl.col(w) * (bit == 0))
             .otherwise(0)).alias(f"{w}_above")
            for w in weights)
    return out


def pa_pairs(pairs: pl.DataFrame, listed: pl.DataFrame, pa: pl.DataFrame,
              recount: bool) -> pl.DataFrame:
    """A group with subgroups' pairs, each once, with both documents' ranks."""
    extra = ["out"] if recount else []
    ranks = pa.select("l", "j", "c", "r", "njr", *extra)
    one = pl.lit(1, pl.Int64)
    return (pairs.join(listed, on="j")
            .join(ranks.rename({"c": "hi", "r": "r_hi", **{e: f"{e}_hi" for e in extra}})
                  .drop("njr"), on=["l", "j", "hi"])
            .join(ranks.rename({"c": "lo", "r": "r_lo", **{e: f"{e}_lo" for e in extra}}),
                  on=["l", "j", "lo"])
            .drop("hi", "lo")
            .with_columns(one.alias("n"), one.alias("n_hi"), pl.lit(False).alias("low")))


_HI_RET = pl.col("r_hi") < pl.col("njr")
_LO_RET = pl.col("r_lo") < pl.col("njr")
BEFORE = pl.col("r_hi") < pl.col("r_lo")
"""A pair's documents: ``hi`` (preferred) retrieved, ``lo`` retrieved, ``hi`` ranked first."""


def counts(ranked: pl.DataFrame, recount: bool) -> pl.DataFrame:
    """Per list and judgment group with subgroups, trec_eval's JG counts (add_pa_pref_to_jg).

    Pairs both retrieved are fulfilled in order (``ful_ret``) or not; with one retrieved
    fulfilled when it is the preferred one (``ful_imp``); with neither, not fulfilled
    (``notoccur``). ``poss_*`` count the fulfilled ones too, as trec_eval's do. The
    recount's pairs (:func:`recount_levels`) are ``ful12, poss12`` (and ``_ret``);
    ``pairs_*`` count the pairs themselves (for prefs_pair). :func:`ec_counts` gives
    the same columns for the one-subgroup groups.
    """
    n = pl.col("n")
    both = _HI_RET & _LO_RET
    terms = [  # columns first, then plain sums: Polars' fast path for a group's sum
        (n * (both & BEFORE)).alias("ful_ret"),
        (n * both).alias("poss_ret"),
        (n * (_HI_RET & ~_LO_RET)).alias("ful_imp"),
        (n * (_HI_RET ^ _LO_RET)).alias("poss_imp"),
        (n * (~_HI_RET & ~_LO_RET)).alias("notoccur"),
        (both & BEFORE).cast(pl.Int64).alias("pairs_ful_ret"),
        both.cast(pl.Int64).alias("pairs_ret"),
        (_HI_RET & ~_LO_RET).cast(pl.Int64).alias("pairs_ful_one"),
        (_HI_RET ^ _LO_RET).cast(pl.Int64).alias("pairs_one"),
        pl.lit(1, pl.Int64).alias("pairs"),
    ]
    if recount:  # the pairs of documents neither of which it leaves out
        kept = (~pl.col("out_hi") & ~pl.col("out_lo")).cast(pl.Int64)
        terms += [(kept * (BEFORE & _HI_RET)).alias("ful12"), kept.alias("poss12"),
                  (kept * (BEFORE & both)).alias("ful12_ret"),
                  (kept * both).alias("poss12_ret")]
    names = [t.meta.output_name() for t in terms]
    return ranked.select("l", "j", *terms).group_by("l", "j").agg(pl.col(names).sum())
