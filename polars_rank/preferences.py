"""trec_eval's preference measures: runs judged by document preferences, not labels.

trec_eval 10 evaluates a run against *preference judgments* (``-R prefs``): lines
``qid jg jsg docid rel``. A judgment group ``jg`` is one information need of one user;
inside it, each judgment subgroup ``jsg`` prefers every document to the documents of the
same subgroup with a lower ``rel`` (only the order of the levels counts; 0 means
non-relevant). Within a group, preferences are transitive across its subgroups
(A > B in one, B > C in another give A > C); different groups may disagree. ``-R
qrels_prefs`` reads ordinary qrels that way: the iteration field is the group, with a
single subgroup. :func:`polars_rank.read_qrels` reads both (``format="prefs"``,
``format="qrels_prefs"``).

A preference A > B is *fulfilled* when the run ranks A above B; retrieved above not
retrieved counts (an *implied* preference); neither retrieved is a failure. The 14
measures (:data:`PREFS_MEASURES`, trec_eval's ``m_prefs_*.c``) count and average them
in different ways: over all preferences (``prefs_simp``), per document pair
(``prefs_pair``), per judgment group (``prefs_avgjg``), with as many non-relevant
documents as relevant ones (``prefs_avgjg_Rnonrel``); ``_ret`` variants count the
preferences between retrieved documents only, ``_imp`` variants skip the pairs
neither of which is retrieved.

Everything is computed as trec_eval's form_prefs_counts.c computes it, including its
corner cases: equal scores ranked by document id *ascending* (its other measures rank
them descending), a group with several subgroups closed transitively, a group with one
subgroup counting a document listed twice twice, and prefs_avgjg_Rnonrel's recount of
the lowest level. All queries at once, in joins and aggregations: a group with
subgroups as a relation of document pairs, joined with itself until it stops growing;
a group with one subgroup (every qrels read as preferences) without its pairs, from
its levels' counts and, for "ranked in order", a dominance count over the bits of each
level's place, so that its cost grows with its documents, not their pairs.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Literal, TypeVar

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError, user_stacklevel

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["PREFS_MEASURES", "PREFS_SETS", "PREFS_SUMMARIES", "PrefsDataError", "evaluate_prefs",
           "prefs_measures"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

PREFS_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
    "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
    "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret",
    "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
)
"""trec_eval 10's preference measures, in its printing order (measures.c)."""

PREFS_SUMMARIES: dict[str, str] = {
    "prefs_num_prefs_poss": "preferences (summed over queries)",
    "prefs_num_prefs_ful": "preferences fulfilled (summed)",
    "prefs_num_prefs_ful_ret": "preferences fulfilled, both documents retrieved (summed)",
    "prefs_simp": "preferences fulfilled / preferences",
    "prefs_pair": "per document pair, its preferences' share fulfilled; mean over pairs",
    "prefs_avgjg": "per judgment group, fulfilled / preferences; mean over groups",
    "prefs_avgjg_Rnonrel": "prefs_avgjg with as many non-relevant documents as relevant",
    "prefs_simp_ret": "prefs_simp over pairs of retrieved documents",
    "prefs_pair_ret": "prefs_pair over pairs of retrieved documents",
    "prefs_avgjg_ret": "prefs_avgjg over pairs of retrieved documents",
    "prefs_avgjg_Rnonrel_ret": "prefs_avgjg_Rnonrel over retrieved documents",
    "prefs_simp_imp": "prefs_simp without pairs neither of which is retrieved",
    "prefs_pair_imp": "prefs_pair without pairs neither of which is retrieved",
    "prefs_avgjg_imp": "prefs_avgjg without pairs neither of which is retrieved",
}
"""What each measure is, in a line (``polars-rank metrics`` lists them)."""

PREFS_COUNTS = PREFS_MEASURES[:3]
"""The measures that are counts: summed over queries, as trec_eval sums them."""

PREFS_SETS: dict[str, tuple[str, ...]] = {
    "prefs": PREFS_MEASURES[:6],
    "all_prefs": PREFS_MEASURES,
}
"""trec_eval's sets of preference measures (``-m prefs``, ``-m all_prefs``), without
its ``runid`` and ``num_q``."""

BOGUS_DOCUMENT = "ceci_nest_pas_un_docno"
"""The one document trec_eval -c gives a query the run lacks (trec_eval.c)."""

_LOWER = {m.lower(): m for m in PREFS_MEASURES}


class PrefsDataError(InvalidDataError):
    """Judgments or a run that trec_eval stops on (or aborts on) at one query.

    ``query`` is the first query (in trec_eval's order, query ids byte-wise) with a
    problem; ``aborts``: trec_eval aborts there (a crash) rather than stopping.
    """

    def __init__(self, message: str, query: str, *, aborts: bool = False) -> None:
        super().__init__(message)
        self.query = query
        self.aborts = aborts


_Problem = tuple[tuple[str, float], str, bool]
"""A problem found: (query, where: -1 the run, j a judgment group's levels, j + 0.5 its
closure), message, aborts."""

_NO_NUMBER = -3.0
"""form_prefs_counts.c starts each group's level at -3.0 ("illegal"): a group whose
highest level is -3.0 therefore counts one level too few and leaves its lowest out."""

# internal column names (the user's are renamed on the way in and out)
_Q, _D, _S, _JG, _JSG, _REL = "q", "d", "s", "jg", "jsg", "rel"


def prefs_measures(metrics: str | Sequence[str]) -> list[str]:
    """The trec_eval preference measures ``metrics`` names, in the order given.

    Names are case-insensitive; the set names ``"prefs"`` and ``"all_prefs"`` expand
    to their measures. ValueError for anything else.

    Examples
    --------
    >>> from polars_rank.preferences import prefs_measures
    >>> prefs_measures(["PREFS_SIMP", "prefs_pair"])
    ['prefs_simp', 'prefs_pair']
    >>> prefs_measures("prefs")[:2]
    ['prefs_num_prefs_poss', 'prefs_num_prefs_ful']
    """
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    out: list[str] = []
    for name in names:
        key = name.lower() if isinstance(name, str) else name
        if key in PREFS_SETS:
            out += [m for m in PREFS_SETS[key] if m not in out]
        elif key in _LOWER:
            if _LOWER[key] not in out:
                out.append(_LOWER[key])
        else:
            msg = (f"metrics: {name!r} is not a preference measure; trec_eval's are "
                   f"{', '.join(PREFS_MEASURES)} (sets: prefs, all_prefs)")
            raise ValueError(msg)
    if not out:
        msg = "metrics: give at least one preference measure"
        raise ValueError(msg)
    return out


def evaluate_prefs(
    run: FrameT,
    prefs: FrameLike,
    metrics: str | Sequence[str] = "prefs",
    *,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    group_by: str | Sequence[str] | None = None,
    per_query: bool = False,
    missing: Literal["skip", "zero"] = "skip",
    max_ret: int | None = None,
) -> FrameT:
    r"""Evaluate a run against preference judgments: trec_eval's ``-R prefs`` measures.

    Parameters
    ----------
    run
        One row per (query, document) with a ``score`` (higher is better). Equal
        scores are ranked by document id ascending, as trec_eval's form_prefs_counts.c
        ranks them. A document on two rows of a query is an error, as in trec_eval.
    prefs
        Preference judgments: the frame :func:`polars_rank.read_qrels` gives with
        ``format="prefs"`` or ``format="qrels_prefs"``, columns ``qid, jg, jsg, docid,
        rel``. Within a judgment group ``jg`` and one of its subgroups ``jsg``, a
        document is preferred to those with a lower ``rel`` (a number: only the order
        counts; ``rel > 0`` is relevant, 0 non-relevant). Without a ``jsg`` column
        each group is one subgroup; without ``jg``, each query is one group.
    metrics
        Measure names (case-insensitive): ``"prefs_simp"``, ``"prefs_pair"``,
        ``"prefs_avgjg"``, ``"prefs_avgjg_Rnonrel"``, their ``_ret`` and ``_imp``
        variants, the counts ``"prefs_num_prefs_poss"``, ``"prefs_num_prefs_ful"``,
        ``"prefs_num_prefs_ful_ret"`` (:data:`PREFS_MEASURES`), or trec_eval's sets
        ``"prefs"`` (the default: the first six) and ``"all_prefs"`` (all 14).
    query, doc, score
        Column names of the run (the judgments' query and document columns have the
        same names).
    group_by
        Slice / arm columns of the run: one output row per group, over its queries.
    per_query
        ``True``: one row per (group..., query) instead of the summary.
    missing
        Queries with judgments that the run lacks: ``"skip"`` (left out, the default)
        or ``"zero"`` (evaluated with nothing retrieved, as ``trec_eval -c``: ratios
        0, ``prefs_num_prefs_poss`` their preferences).
    max_ret
        Each query's first ``max_ret`` documents only (``trec_eval -M``).

    Returns
    -------
    DataFrame or LazyFrame
        The group columns (and the query column with ``per_query=True``), then one
        Float64 column per measure, named as trec_eval names it. Over queries the
        three counts are summed, the others averaged, as trec_eval does. Lazy in, lazy
        out (a LazyFrame result reads nothing until it is collected).

    Raises
    ------
    PrefsDataError
        (an :class:`~polars_rank.InvalidDataError`) Where trec_eval stops or crashes,
        naming the query, the judgment group and the document: judgments that
        contradict each other within a group (A > B and B > A; a document at two
        levels of a group's only subgroup; at level 0 and above 0 in two subgroups of
        a group), a document twice in a query of the run.
    InvalidDataError
        A null id, a NaN score or level.

    Warns
    -----
    UserWarning
        ``prefs_avgjg_Rnonrel`` (or ``_ret``) is NaN for a query where trec_eval would
        read past its data (a group whose non-relevant documents are at several levels,
        negative ones among them, with fewer at the lowest than the relevant ones it
        keeps): trec_eval's value is undefined there.

    Examples
    --------
    One user ranks three documents (``d1`` best); another judges ``d3`` better than
    ``d1``. The run retrieves ``d1`` then ``d3``, not ``d2``:

    >>> import polars as pl
    >>> import polars_rank as pr
    >>> prefs = pl.DataFrame({
    ...     "qid": ["q1"] * 5, "jg": ["u1", "u1", "u1", "u2", "u2"],
    ...     "jsg": ["s1"] * 5, "docid": ["d1", "d2", "d3", "d3", "d1"],
    ...     "rel": [2.0, 1.0, 0.0, 1.0, 0.0],
    ... })
    >>> run = pl.DataFrame({"qid": ["q1", "q1"], "docid": ["d1", "d3"],
    ...                     "score": [2.0, 1.0]})
    >>> pr.evaluate_prefs(run, prefs, ["prefs_num_prefs_poss", "prefs_simp",
    ...                                "prefs_avgjg", "prefs_simp_ret"])
    shape: (1, 4)
    ┌──────────────────────┬────────────┬─────────────┬────────────────┐
    │ prefs_num_prefs_poss ┆ prefs_simp ┆ prefs_avgjg ┆ prefs_simp_ret │
    │ ---                  ┆ ---        ┆ ---         ┆ ---            │
    │ f64                  ┆ f64        ┆ f64         ┆ f64            │
    ╞══════════════════════╪════════════╪═════════════╪════════════════╡
    │ 4.0                  ┆ 0.5        ┆ 0.333333    ┆ 0.5            │
    └──────────────────────┴────────────┴─────────────┴────────────────┘

    Of the four preferences, d1 > d3 (u1) is fulfilled, d3 > d1 (u2) is not, d1 > d2
    is fulfilled by implication (d1 retrieved, d2 not) and d2 > d3 fails: 2 of 4. Per
    group: u1 2 of 3, u2 0 of 1, a mean of 1/3.
    """
    measures = prefs_measures(metrics)
    if max_ret is not None and (not isinstance(max_ret, int) or max_ret < 0):
        msg = f"max_ret={max_ret!r}: the number of documents per query, an int >= 0"
        raise ValueError(msg)
    if missing not in ("skip", "zero"):
        msg = f"missing={missing!r}: 'skip' or 'zero'"
        raise ValueError(msg)
    groups: list[str] = [group_by] if isinstance(group_by, str) else list(group_by or [])
    run_frame = as_polars(run, "run", query=query, doc=doc, value=score)
    prefs_frame = as_polars(prefs, "prefs", query=query, doc=doc, value="rel")
    run_lazy, prefs_lazy = run_frame.lazy(), prefs_frame.lazy()
    _check_columns(run_lazy, "run", [*groups, query, doc, score])
    _check_columns(prefs_lazy, "prefs", [query, doc, "rel"])
    names = {"query": query, "doc": doc, "score": score}

    def compute(_: pl.DataFrame | None = None) -> pl.DataFrame:
        return _evaluate(run_lazy, prefs_lazy, measures, names, groups,
                         per_query=per_query, missing=missing, max_ret=max_ret)

    if isinstance(run, pl.LazyFrame):
        schema = {**{g: run_lazy.collect_schema()[g] for g in groups},
                  **({query: pl.String()} if per_query else {}),
                  **dict.fromkeys(measures, pl.Float64())}
        return pl.LazyFrame().map_batches(compute, schema=pl.Schema(schema),
                                          predicate_pushdown=False,
                                          projection_pushdown=False, slice_pushdown=False)
    return compute()


def _check_columns(frame: pl.LazyFrame, what: str, columns: list[str]) -> None:
    have = frame.collect_schema().names()
    absent = [c for c in columns if c not in have]
    if absent:
        msg = f"{what}: no column {absent[0]!r} (columns: {', '.join(have)})"
        raise ValueError(msg)


# ----------------------------------------------------------------------------- inputs
#
# Internally a judged document is a code ``c`` (its (query, id) pair, numbered), an
# evaluated list (a query, or a group's query) a number ``l``, a judgment group ``j``:
# the joins and aggregations below run on integers.


def _inputs(run: pl.LazyFrame, prefs: pl.LazyFrame, names: dict[str, str],
            groups: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run (``g0.., q, d, s``) and the judgments (``q, jg, jsg, d, rel``), checked."""
    query, doc, score = names["query"], names["doc"], names["score"]
    have = prefs.collect_schema().names()
    p = prefs.select(
        pl.col(query).cast(pl.String).alias(_Q),
        (pl.col("jg").cast(pl.String) if "jg" in have else pl.lit("0")).alias(_JG),
        (pl.col("jsg").cast(pl.String) if "jsg" in have else pl.lit("0")).alias(_JSG),
        pl.col(doc).cast(pl.String).alias(_D),
        pl.when(pl.col("rel") == 0).then(0.0)  # -0.0 is 0.0, as C compares it
        .otherwise(pl.col("rel").cast(pl.Float64)).alias(_REL),
    ).collect()
    r = run.select(
        *(pl.col(g).alias(f"g{i}") for i, g in enumerate(groups)),
        pl.col(query).cast(pl.String).alias(_Q),
        pl.col(doc).cast(pl.String).alias(_D),
        pl.col(score).cast(pl.Float64).alias(_S),
    ).collect()
    shown = {_Q: query, _D: doc, _S: score, _REL: "rel"}
    for frame, what, columns in ((p, "prefs", [_Q, _JG, _JSG, _D, _REL]),
                                 (r, "run", [_Q, _D, _S])):
        nulls = frame.select(pl.col(columns).null_count()).row(0, named=True)
        for column in columns:
            if nulls[column]:
                msg = (f"{what}: {nulls[column]} null value(s) in {shown.get(column, column)!r}; "
                       "every row needs a query, a document and a "
                       + ("level" if what == "prefs" else "score"))
                raise InvalidDataError(msg)
    for frame, column, what in ((p, _REL, "prefs: the level 'rel'"),
                                (r, _S, f"run: the score {score!r}")):
        bad = frame.filter(pl.col(column).is_nan())
        if bad.height:
            msg = (f"{what} is NaN for query {bad[_Q][0]!r}, document {bad[_D][0]!r}: "
                   "trec_eval sorts by it, and NaN has no order")
            raise InvalidDataError(msg)
    return r, p


def _lists(r: pl.DataFrame, codes: pl.DataFrame, keys: list[str], missing: str,
           max_ret: int | None,
           problems: list[_Problem]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The evaluated lists and their judged documents (form_prefs_and_ranks).

    Returns ``lists`` (``l, keys.., njr``: ``njr`` judged documents retrieved) and
    ``docs`` (``l, c, r, njr``): ``r``, the docid rank, numbers the judged retrieved
    documents 0.. in the run's order (score descending, document id ascending, the first
    ``max_ret``), then the judged documents not retrieved, by document id.
    """
    groups = keys[:-1]
    judged = codes.select(_Q).unique()
    if missing == "zero":  # trec_eval -c: a query the run lacks gets one made-up document
        every = r.select(groups).unique().join(judged, how="cross") if groups else judged
        absent = every.join(r.select(keys).unique(), on=keys, how="anti")
        r = pl.concat([r, absent.with_columns(pl.lit(BOGUS_DOCUMENT).alias(_D),
                                              pl.lit(1.0).alias(_S)).select(r.columns)])
    r = r.join(judged, on=_Q, how="semi")
    lists = r.select(keys).unique().sort(keys).with_row_index("l")
    ranked = (r.join(lists, on=keys).sort("l", _S, _D, descending=[False, True, False])
              .with_columns(pl.int_range(pl.len()).over("l").alias("pos")))
    if max_ret is not None:  # -M 0 keeps a query, with nothing retrieved
        ranked = ranked.filter(pl.col("pos") < max_ret)
    twice = ranked.filter(pl.struct("l", _D).is_duplicated()).sort(_Q, _D)
    if twice.height:
        msg = (f"run: document {twice[_D][0]!r} is on more than one row of query "
               f"{twice[_Q][0]!r} (trec_eval stops: duplicate docs)")
        problems.append(((twice[_Q][0], -1), msg, False))
    retrieved = (ranked.join(codes, on=[_Q, _D]).sort("l", "pos")
                 .with_columns(pl.int_range(pl.len()).over("l").alias("r"))
                 .select("l", "c", "r"))
    lists = lists.join(retrieved.group_by("l").agg(pl.len().alias("njr")), on="l",
                       how="left").with_columns(pl.col("njr").fill_null(0))
    rest = (lists.join(codes, on=_Q).join(retrieved, on=["l", "c"], how="anti")
            .sort("l", _D)
            .with_columns((pl.col("njr") + pl.int_range(pl.len()).over("l")).alias("r"))
            .select("l", "c", "r"))
    docs = pl.concat([retrieved, rest]).join(lists.select("l", "njr"), on="l")
    return lists, docs


# ----------------------------------------------------------------------------- judgments


def _structure(p: pl.DataFrame, codes: pl.DataFrame, problems: list[_Problem]
               ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """The judgments of each group, whatever the run.

    Returns ``groups`` (``j, q, jg, ec``: a judgment group, ``ec`` when it has one
    subgroup), ``entries`` (``j, c, rel, n, low``: a one-subgroup group's documents, the
    lines listing each, ``low`` at the group's lowest level), ``pa_docs`` (``j, c, rel``:
    a group with subgroups, each document's level as trec_eval keeps it) and
    ``pa_pairs`` (``j, hi, lo``: in such a group, ``hi`` preferred to ``lo``).
    """
    groups = (p.group_by(_Q, _JG).agg((pl.col(_JSG).n_unique() == 1).alias("ec"))
              .sort(_Q, _JG).with_row_index("j"))
    lines = p.join(groups, on=[_Q, _JG]).select("j", "ec", _JSG, "c", _REL)
    entries = _ec(lines.filter(pl.col("ec")), groups, codes, problems)
    pa_docs, pa_pairs = _pa(lines.filter(~pl.col("ec")), groups, codes, problems)
    return groups, entries, pa_docs, pa_pairs


def _ec(lines: pl.DataFrame, groups: pl.DataFrame, codes: pl.DataFrame,
        problems: list[_Problem]) -> pl.DataFrame:
    """Groups with one subgroup: levels as equivalence classes (form_jg_ec)."""
    lines = lines.filter(  # the -3.0 start (see _NO_NUMBER): the lowest level left out
        ~((pl.col(_REL).max().over("j") == _NO_NUMBER)
          & (pl.col(_REL) == pl.col(_REL).min().over("j"))))
    entries = lines.group_by("j", "c", _REL).agg(pl.len().alias("n"))
    two = entries.filter(pl.len().over("j", "c") > 1)
    if two.height:
        problems.append(_problem(two.sort("j", "c").row(0, named=True), groups, codes,
                                 "is at two levels of the group's only subgroup (trec_eval "
                                 "stops: different rel_level in same jsg)"))
    return entries.with_columns((pl.col(_REL) == pl.col(_REL).min().over("j")).alias("low"))


def _pa(lines: pl.DataFrame, groups: pl.DataFrame, codes: pl.DataFrame,
        problems: list[_Problem]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Groups with subgroups: a preference relation, closed transitively (form_jg_pa)."""
    # each document's levels in trec_eval's order (subgroup, level descending): a level 0
    # right after one above 0, or the reverse, stops it; the last level is kept
    ordered = lines.sort("j", "c", _JSG, _REL, descending=[False, False, False, True])
    before = pl.col(_REL).shift(1).over("j", "c")
    clash = ordered.filter(((before > 0) & (pl.col(_REL) == 0))
                           | ((before == 0) & (pl.col(_REL) > 0)))
    if clash.height:
        problems.append(_problem(clash.sort("j", "c").row(0, named=True), groups, codes,
                                 "is at level 0 in one subgroup and above 0 in another "
                                 "(trec_eval stops: both 0 and non-0 rel_level)"))
    docs = ordered.group_by("j", "c").agg(pl.col(_REL).last())
    hi = lines.select("j", _JSG, pl.col("c").alias("hi"), pl.col(_REL).alias("rel_hi"))
    lo = lines.select("j", _JSG, pl.col("c").alias("lo"), pl.col(_REL).alias("rel_lo"))
    base = (hi.join(lo, on=["j", _JSG])
            .filter((pl.col("rel_hi") > pl.col("rel_lo")) & (pl.col("hi") != pl.col("lo")))
            .select("j", "hi", "lo").unique())
    closed = _closure(base)
    both = closed.join(closed, left_on=["j", "hi", "lo"], right_on=["j", "lo", "hi"],
                       how="semi").sort("j", "hi", "lo")
    if both.height:
        row = both.row(0, named=True)
        other = codes.filter(pl.col("c") == row["lo"])[_D].item()
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
             problem: str, *, aborts: bool = False) -> _Problem:
    group = groups.filter(pl.col("j") == row["j"]).row(0, named=True)
    doc = codes.filter(pl.col("c") == row["c"])[_D].item()
    msg = (f"prefs: query {group[_Q]!r}, judgment group {group[_JG]!r}: document "
           f"{doc!r} {problem}")
    return (group[_Q], group["j"] + 0.5 * aborts), msg, aborts


def _raise_first(problems: list[_Problem]) -> None:
    """PrefsDataError for the problem trec_eval meets first.

    Its queries in order; in a query, the run before the judgment groups, the groups
    in order; in a group, the levels before the transitive closure.
    """
    if problems:
        (query, _), msg, aborts = min(problems)
        raise PrefsDataError(msg, query, aborts=aborts)


# ----------------------------------------------------------------------------- counting
#
# Per list (l) and judgment group (j): a group with one subgroup is counted from its
# documents and their docid ranks (_ec_counts), a group with subgroups from its pairs,
# its closed relation with the docid ranks of both documents (_pa_pairs, _counts). The
# pairs of one-subgroup groups are made only for prefs_pair, in the lists whose groups
# may share pairs (_ec_pairs).


def _evaluate(run: pl.LazyFrame, prefs: pl.LazyFrame, measures: list[str],
              names: dict[str, str], groups: list[str], *, per_query: bool, missing: str,
              max_ret: int | None) -> pl.DataFrame:
    r, p = _inputs(run, prefs, names, groups)
    keys = [*(f"g{i}" for i in range(len(groups))), _Q]
    if missing == "skip":  # the judgments of the queries the run has
        p = p.join(r.select(_Q).unique(), on=_Q, how="semi")
    codes = p.select(_Q, _D).unique().sort(_Q, _D).with_row_index("c")
    p = p.join(codes, on=[_Q, _D])
    problems: list[_Problem] = []
    lists, docs = _lists(r, codes, keys, missing, max_ret, problems)
    group_table, entries, pa_docs, pa_pairs = _structure(p, codes, problems)
    _raise_first(problems)
    listed = lists.select("l", _Q).join(group_table.select("j", _Q), on=_Q).drop(_Q)
    recount = any("Rnonrel" in m for m in measures)
    ec = entries.join(listed, on="j").join(docs, on=["l", "c"])
    pa = pa_docs.join(listed, on="j").join(docs, on=["l", "c"])
    relevant = _relevant(ec, pa)
    if recount:
        ec, pa, third = _recount_levels(ec, pa, relevant)
    pa_ranked = _pa_pairs(pa_pairs, listed, pa, recount)
    counts = pl.concat([_ec_counts(ec, recount), _counts(pa_ranked, recount)],
                       how="vertical_relaxed")
    per_group = (listed.join(relevant, on=["l", "j"], how="left")
                 .join(counts, on=["l", "j"], how="left"))
    if recount:
        per_group = per_group.join(third, on=["l", "j"], how="left")
    per_group = per_group.with_columns(pl.exclude("l", "j", "rn_past", "rnr_past").fill_null(0),
                                       pl.col("^rnr?_past$").fill_null(False))
    values = _undefined(_per_list(per_group, measures), lists, measures)
    if any(m.startswith("prefs_pair") for m in measures):
        # pairs judged in several groups of a list: its one-subgroup groups' pairs too
        several = per_group.group_by("l").agg(pl.len().alias("groups")).filter(
            pl.col("groups") > 1).select("l")
        ranked = pl.concat([_ec_pairs(ec.join(several, on="l", how="semi")),
                            pa_ranked.join(several, on="l", how="semi")],
                           how="diagonal_relaxed")
        values = values.join(_pair_values(ranked, per_group), on="l", how="left").with_columns(
            pl.col("prefs_pair", "prefs_pair_ret", "prefs_pair_imp").fill_null(0.0))  # no pair
    out = (lists.select("l", *keys).join(values, on="l", how="left")
           .select(*keys, *(pl.col(m).cast(pl.Float64) for m in measures)).sort(keys))
    if not per_query:  # over the queries in trec_eval's order, added one after another
        summary = [pl.col(m).cum_sum().last() if m in PREFS_COUNTS
                   else pl.col(m).cum_sum().last() / pl.len() for m in measures]
        out = (out.group_by(keys[:-1], maintain_order=True).agg(summary) if len(keys) > 1
               else out.select(summary))
    renamed = {f"g{i}": g for i, g in enumerate(groups)} | {_Q: names["query"]}
    return out.rename({k: v for k, v in renamed.items() if k in out.columns})


def _relevant(ec: pl.DataFrame, pa: pl.DataFrame) -> pl.DataFrame:
    """Per list and group: ``num_rel, num_rel_ret, num_nonrel, num_nonrel_ret``.

    A one-subgroup group counts its lines (a document listed twice counts twice),
    levels <= 0 non-relevant; a group with subgroups counts its documents, level 0
    non-relevant, a negative level neither.
    """
    ret = pl.col("r") < pl.col("njr")
    out = []
    for frame, non in ((ec.select("l", "j", _REL, "r", "njr", pl.col("n").cast(pl.Int64)),
                        pl.col(_REL) <= 0),
                       (pa.select("l", "j", _REL, "r", "njr", pl.lit(1, pl.Int64).alias("n")),
                        pl.col(_REL) == 0)):
        rel, n = pl.col(_REL) > 0, pl.col("n")
        out.append(frame.group_by("l", "j").agg(
            (n * rel).sum().alias("num_rel"),
            (n * (rel & ret)).sum().alias("num_rel_ret"),
            (n * non).sum().alias("num_nonrel"),
            (n * (non & ret)).sum().alias("num_nonrel_ret")))
    return pl.concat(out)


def _recount_levels(ec: pl.DataFrame, pa: pl.DataFrame, relevant: pl.DataFrame
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
    out = (pa.filter(pl.col(_REL) == 0).join(need, on=group).sort(*group, "r")
           .filter(pl.int_range(1, pl.len() + 1).over(group) > pl.col("num_rel"))
           .select(*group, "c", pl.lit(True).alias("out")))
    pa = pa.join(out, on=[*group, "c"], how="left").with_columns(pl.col("out").fill_null(False))
    return ec, pa, third


def _ec_pairs(ec: pl.DataFrame) -> pl.DataFrame:
    """A one-subgroup group's pairs (each document of a level with each of a lower level).

    Made for :func:`_pair_values` only, for lists whose groups may share pairs: the
    counts of these groups come from :func:`_ec_counts`, without pairs.
    """
    levels = ec.group_by("l", "j", _REL).agg("r", "n", pl.col("njr").first())
    hi = levels.select("l", "j", pl.col(_REL).alias("rel_hi"), pl.col("r").alias("r_hi"),
                       pl.col("n").alias("n_hi"))
    lo = levels.select("l", "j", pl.col(_REL).alias("rel_lo"), pl.col("r").alias("r_lo"),
                       pl.col("n").alias("n_lo"), "njr")
    return (hi.join(lo, on=["l", "j"]).filter(pl.col("rel_hi") > pl.col("rel_lo"))
            .explode("r_hi", "n_hi").explode("r_lo", "n_lo")
            .with_columns((pl.col("n_hi").cast(pl.Int64) * pl.col("n_lo")).alias("n"))
            .drop("rel_hi", "rel_lo", "n_lo"))


def _ec_counts(ec: pl.DataFrame, recount: bool) -> pl.DataFrame:
    """:func:`_counts` of the one-subgroup groups, without making their pairs.

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
        (pl.col(_REL).rank("dense", descending=True).over(group).cast(pl.Int64) - 1)
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


def _pa_pairs(pairs: pl.DataFrame, listed: pl.DataFrame, pa: pl.DataFrame,
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
_BEFORE = pl.col("r_hi") < pl.col("r_lo")
"""A pair's documents: ``hi`` (preferred) retrieved, ``lo`` retrieved, ``hi`` ranked first."""


def _counts(ranked: pl.DataFrame, recount: bool) -> pl.DataFrame:
    """Per list and judgment group with subgroups, trec_eval's JG counts (add_pa_pref_to_jg).

    Pairs both retrieved are fulfilled in order (``ful_ret``) or not; with one retrieved
    fulfilled when it is the preferred one (``ful_imp``); with neither, not fulfilled
    (``notoccur``). ``poss_*`` count the fulfilled ones too, as trec_eval's do. The
    recount's pairs (:func:`_recount_levels`) are ``ful12, poss12`` (and ``_ret``);
    ``pairs_*`` count the pairs themselves (for prefs_pair). :func:`_ec_counts` gives
    the same columns for the one-subgroup groups.
    """
    n = pl.col("n")
    both = _HI_RET & _LO_RET
    terms = [  # columns first, then plain sums: Polars' fast path for a group's sum
        (n * (both & _BEFORE)).alias("ful_ret"),
        (n * both).alias("poss_ret"),
        (n * (_HI_RET & ~_LO_RET)).alias("ful_imp"),
        (n * (_HI_RET ^ _LO_RET)).alias("poss_imp"),
        (n * (~_HI_RET & ~_LO_RET)).alias("notoccur"),
        (both & _BEFORE).cast(pl.Int64).alias("pairs_ful_ret"),
        both.cast(pl.Int64).alias("pairs_ret"),
        (_HI_RET & ~_LO_RET).cast(pl.Int64).alias("pairs_ful_one"),
        (_HI_RET ^ _LO_RET).cast(pl.Int64).alias("pairs_one"),
        pl.lit(1, pl.Int64).alias("pairs"),
    ]
    if recount:  # the pairs of documents neither of which it leaves out
        kept = (~pl.col("out_hi") & ~pl.col("out_lo")).cast(pl.Int64)
        terms += [(kept * (_BEFORE & _HI_RET)).alias("ful12"), kept.alias("poss12"),
                  (kept * (_BEFORE & both)).alias("ful12_ret"),
                  (kept * both).alias("poss12_ret")]
    names = [t.meta.output_name() for t in terms]
    return ranked.select("l", "j", *terms).group_by("l", "j").agg(pl.col(names).sum())


def _ratio(ful: pl.Expr, poss: pl.Expr) -> pl.Expr:
    """``(double) ful / (double) poss``, 0 / 0 NaN as in C."""
    return ful.cast(pl.Float64) / poss.cast(pl.Float64)


def _per_list(frame: pl.DataFrame, measures: list[str]) -> pl.DataFrame:
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


def _undefined(values: pl.DataFrame, lists: pl.DataFrame, measures: list[str]) -> pl.DataFrame:
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
            queries = (values.filter(flag).join(lists, on="l")[_Q].unique().sort().to_list())
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


def _pair_values(ranked: pl.DataFrame, per_group: pl.DataFrame) -> pl.DataFrame:
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
                  (n * _BEFORE).sum().alias("agree"), n.sum().alias("total"))
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
