"""The run and the preference judgments as integer codes, and the checks trec_eval makes.

Each judged document becomes a code, each evaluated list and judgment group a number;
a judgment group with one subgroup (``ec``) is kept as its documents' levels, one with
several (``pa``) as its preferences, closed transitively. The problems trec_eval stops
or aborts on are collected here; ``polars_rank.preferences`` raises the first.
"""

from __future__ import annotations

import polars as pl

from polars_rank.errors import InvalidDataError

BOGUS_DOCUMENT = "ceci_nest_pas_un_docno"
"""The one document trec_eval -c gives a query the run lacks (trec_eval.c)."""

Problem = tuple[tuple[str, float], str, bool]
"""A problem found: (query, where: -1 the run, j a judgment group's levels, j + 0.5 its
closure), message, aborts."""

_NO_NUMBER = -3.0
"""form_prefs_counts.c starts each group's level at -3.0 ("illegal"): a group whose
highest level is -3.0 therefore counts one level too few and leaves its lowest out."""

# internal column names (the user's are renamed on the way in and out)
Q, D, S, JG, JSG, REL = "q", "d", "s", "jg", "jsg", "rel"


# ----------------------------------------------------------------------------- inputs
#
# Internally a judged document is a code ``c`` (its (query, id) pair, numbered), an
# evaluated list (a query, or a group's query) a number ``l``, a judgment group ``j``:
# the joins and aggregations below run on integers.


def inputs(run: pl.LazyFrame, prefs: pl.LazyFrame, names: dict[str, str],
            groups: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run (``g0.., q, d, s``) and the judgments (``q, jg, jsg, d, rel``), checked."""
    query, doc, score = names["query"], names["doc"], names["score"]
    have = prefs.collect_schema().names()
    p = prefs.select(
        pl.col(query).cast(pl.String).alias(Q),
        (pl.col("jg").cast(pl.String) if "jg" in have else pl.lit("0")).alias(JG),
        (pl.col("jsg").cast(pl.String) if "jsg" in have else pl.lit("0")).alias(JSG),
        pl.col(doc).cast(pl.String).alias(D),
        pl.when(pl.col("rel") == 0).then(0.0)  # -0.0 is 0.0, as C compares it
        .otherwise(pl.col("rel").cast(pl.Float64)).alias(REL),
    ).collect()
    r = run.select(
        *(pl.col(g).alias(f"g{i}") for i, g in enumerate(groups)),
        pl.col(query).cast(pl.String).alias(Q),
        pl.col(doc).cast(pl.String).alias(D),
        pl.col(score).cast(pl.Float64).alias(S),
    ).collect()
    shown = {Q: query, D: doc, S: score, REL: "rel"}
    for frame, what, columns in ((p, "prefs", [Q, JG, JSG, D, REL]),
                                 (r, "run", [Q, D, S])):
        nulls = frame.select(pl.col(columns).null_count()).row(0, named=True)
        for column in columns:
            if nulls[column]:
                msg = (f"{what}: {nulls[column]} null value(s) in {shown.get(column, column)!r}; "
                       "every row needs a query, a document and a "
                       + ("level" if what == "prefs" else "score"))
                raise InvalidDataError(msg)
    for frame, column, what in ((p, REL, "prefs: the level 'rel'"),
                                (r, S, f"run: the score {score!r}")):
        bad = frame.filter(pl.col(column).is_nan())
        if bad.height:
            msg = (f"{what} is NaN for query {bad[Q][0]!r}, document {bad[D][0]!r}: "
                   "trec_eval sorts by it, and NaN has no order")
            raise InvalidDataError(msg)
    return r, p


def lists(r: pl.DataFrame, codes: pl.DataFrame, keys: list[str], missing: str,
           max_ret: int | None,
           problems: list[Problem]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The evaluated lists and their judged documents (form_prefs_and_ranks).

    Returns ``lists`` (``l, keys.., njr``: ``njr`` judged documents retrieved) and
    ``docs`` (``l, c, r, njr``): ``r``, the docid rank, numbers the judged retrieved
    documents 0.. in the run's order (score descending, document id ascending, the first
    ``max_ret``), then the judged documents not retrieved, by document id.
    """
    groups = keys[:-1]
    judged = codes.select(Q).unique()
    if missing == "zero":  # trec_eval -c: a query the run lacks gets one made-up document
        every = r.select(groups).unique().join(judged, how="cross") if groups else judged
        absent = every.join(r.select(keys).unique(), on=keys, how="anti")
        r = pl.concat([r, absent.with_columns(pl.lit(BOGUS_DOCUMENT).alias(D),
                                              pl.lit(1.0).alias(S)).select(r.columns)])
    r = r.join(judged, on=Q, how="semi")
    lists = r.select(keys).unique().sort(keys).with_row_index("l")
    ranked = (r.join(lists, on=keys).sort("l", S, D, descending=[False, True, False])
              .with_columns(pl.int_range(pl.len()).over("l").alias("pos")))
    if max_ret is not None:  # -M 0 keeps a query, with nothing retrieved
        ranked = ranked.filter(pl.col("pos") < max_ret)
    twice = ranked.filter(pl.struct("l", D).is_duplicated()).sort(Q, D)
    if twice.height:
        msg = (f"run: document {twice[D][0]!r} is on more than one row of query "
               f"{twice[Q][0]!r} (trec_eval stops: duplicate docs)")
        problems.append(((twice[Q][0], -1), msg, False))
    retrieved = (ranked.join(codes, on=[Q, D]).sort("l", "pos")
                 .with_columns(pl.int_range(pl.len()).over("l").alias("r"))
                 .select("l", "c", "r"))
    lists = lists.join(retrieved.group_by("l").agg(pl.len().alias("njr")), on="l",
                       how="left").with_columns(pl.col("njr").fill_null(0))
    rest = (lists.join(codes, on=Q).join(retrieved, on=["l", "c"], how="anti")
            .sort("l", D)
            .with_columns((pl.col("njr") + pl.int_range(pl.len()).over("l")).alias("r"))
            .select("l", "c", "r"))
    docs = pl.concat([retrieved, rest]).join(lists.select("l", "njr"), on="l")
    return lists, docs


# ----------------------------------------------------------------------------- judgments


def structure(p: pl.DataFrame, codes: pl.DataFrame, problems: list[Problem]
               ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The judgments of each group, whatever the run.

    Returns ``groups`` (``j, q, jg, ec``: a judgment group, ``ec`` when it has one
    subgroup), ``entries`` (``j, c, rel, n, low``: a one-subgroup group's documents, the
    lines listing each, ``low`` at the group's lowest level), ``pa_docs`` (``j, c, rel``:
    a group with subgroups, each document's level as trec_eval keeps it) and
    ``pa_pairs`` (``j, hi, lo``: in such a group, ``hi`` preferred to ``lo``).
    """
    groups = (p.group_by(Q, JG).agg((pl.col(JSG).n_unique() == 1).alias("ec"))
              .sort(Q, JG).with_row_index("j"))
    lines = p.join(groups, on=[Q, JG]).select("j", "ec", JSG, "c", REL)
    entries = _ec(lines.filter(pl.col("ec")), groups, codes, problems)
    pa_docs, pa_pairs = _pa(lines.filter(~pl.col("ec")), groups, codes, problems)
    return groups, entries, pa_docs, pa_pairs


def _ec(lines: pl.DataFrame, groups: pl.DataFrame, codes: pl.DataFrame,
        problems: list[Problem]) -> pl.DataFrame:
    """Groups with one subgroup: levels as equivalence classes (form_jg_ec)."""
    lines = lines.filter(  # the -3.0 start (see _NO_NUMBER): the lowest level left out
        ~((pl.col(REL).max().over("j") == _NO_NUMBER)
          & (pl.col(REL) == pl.col(REL).min().over("j"))))
    entries = lines.group_by("j", "c", REL).agg(pl.len().alias("n"))
    two = entries.filter(pl.len().over("j", "c") > 1)
    if two.height:
        problems.append(_problem(two.sort("j", "c").row(0, named=True), groups, codes,
                                 "is at two levels of the group's only subgroup (trec_eval "
                                 "stops: different rel_level in same jsg)"))
    return entries.with_columns((pl.col(REL) == pl.col(REL).min().over("j")).alias("low"))


def _pa(lines: pl.DataFrame, groups: pl.DataFrame, codes: pl.DataFrame,
        problems: list[Problem]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Groups with subgroups: a preference relation, closed transitively (form_jg_pa)."""
    # each document's levels in trec_eval's order (subgroup, level descending): a level 0
    # right after one above 0, or the reverse, stops it; the last level is kept
    ordered = lines.sort("j", "c", JSG, REL, descending=[False, False, False, True])
    before = pl.col(REL).shift(1).over("j", "c")
    clash = ordered.filter(((before > 0) & (pl.col(REL) == 0))
                           | ((before == 0) & (pl.col(REL) > 0)))
    if clash.height:
        problems.append(_problem(clash.sort("j", "c").row(0, named=True), groups, codes,
                                 "is at level 0 in one subgroup and above 0 in another "
                                 "(trec_eval stops: both 0 and non-0 rel_level)"))
    docs = ordered.group_by("j", "c").agg(pl.col(REL).last())
    hi = lines.select("j", JSG, pl.col("c").alias("hi"), pl.col(REL).alias("rel_hi"))
    lo = lines.select("j", JSG, pl.col("c").alias("lo"), pl.col(REL).alias("rel_lo"))
    base = (hi.join(lo, on=["j", JSG])
            .filter((pl.col("rel_hi") > pl.col("rel_lo")) & (pl.col("hi") != pl.col("lo")))
            .select("j", "hi", "lo").unique())
    closed = _closure(base)
    both = closed.join(closed, left_on=["j", "hi", "lo"], right_on=["j", "lo", "hi"],
                       how="semi").sort("j", "hi", "lo")
    if both.height:
        row = both.row(0, named=True)
        other = codes.filter(pl.col("c") == row["lo"])[D].item()
        problems.append(_problem({"j": row["j"], "c": row["hi"]}, groups, codes,
                                 f"and document {other!r} are each preferred to the other, "
                                 "through the group's subgroups (trec_eval aborts: Pref "
                                 "inconsistency)", aborts=True))
    return docs, closed


def _closure(pairs: pl.DataFrame) -> pl.DataFrame:
    """The transitive closure of ``j, hi, lo`` within each ``j`` (add_transitives).

    Each round adds the pairs two known ones chain into, so paths double in length:
    the rounds grow as the logarithm of the longest chain.
    """
    while True:
        chained = pairs.join(pairs, left_on=["j", "lo"], right_on=["j", "hi"]).select(
            "j", "hi", pl.col("lo_right").alias("lo"))
        grown = pl.concat([pairs, chained]).filter(pl.col("hi") != pl.col("lo")).unique()
        if grown.height == pairs.height:
            return pairs
        pairs = grown


def _problem(row: dict[str, object], groups: pl.DataFrame, codes: pl.DataFrame,
             problem: str, *, aborts: bool = False) -> Problem:
    group = groups.filter(pl.col("j") == row["j"]).row(0, named=True)
    doc = codes.filter(pl.col("c") == row["c"])[D].item()
    msg = (f"prefs: query {group[Q]!r}, judgment group {group[JG]!r}: document "
           f"{doc!r} {problem}")
    return (group[Q], group["j"] + 0.5 * aborts), msg, aborts
