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

from typing import TYPE_CHECKING, Literal, TypeVar

import polars as pl

from polars_rank._engine.frames import as_polars

# the measures' steps live in polars_rank/_prefs/ (judgments: the inputs read and
# checked; pair_counts: each group's preferences counted; list_values: the measures)
from polars_rank._prefs import judgments, list_values, pair_counts
from polars_rank._prefs.judgments import BOGUS_DOCUMENT as BOGUS_DOCUMENT
from polars_rank._prefs.judgments import D, Q
from polars_rank.errors import InvalidDataError

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

def _raise_first(problems: list[judgments.Problem]) -> None:
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
# documents and their docid ranks (pair_counts.ec_counts), a group with subgroups from
# its pairs, its closed relation with the docid ranks of both documents
# (pair_counts.pa_pairs, pair_counts.counts). The pairs of one-subgroup groups are made
# only for prefs_pair, in the lists whose groups may share pairs (pair_counts.ec_pairs).


def _evaluate(run: pl.LazyFrame, prefs: pl.LazyFrame, measures: list[str],
              names: dict[str, str], groups: list[str], *, per_query: bool, missing: str,
              max_ret: int | None) -> pl.DataFrame:
    r, p = judgments.inputs(run, prefs, names, groups)
    keys = [*(f"g{i}" for i in range(len(groups))), Q]
    if missing == "skip":  # the judgments of the queries the run has
        p = p.join(r.select(Q).unique(), on=Q, how="semi")
    codes = p.select(Q, D).unique().sort(Q, D).with_row_index("c")
    p = p.join(codes, on=[Q, D])
    problems: list[judgments.Problem] = []
    lists, docs = judgments.lists(r, codes, keys, missing, max_ret, problems)
    group_table, entries, pa_docs, pa_pairs = judgments.structure(p, codes, problems)
    _raise_first(problems)
    listed = lists.select("l", Q).join(group_table.select("j", Q), on=Q).drop(Q)
    recount = any("Rnonrel" in m for m in measures)
    ec = entries.join(listed, on="j").join(docs, on=["l", "c"])
    pa = pa_docs.join(listed, on="j").join(docs, on=["l", "c"])
    relevant = pair_counts.relevant(ec, pa)
    if recount:
        ec, pa, third = pair_counts.recount_levels(ec, pa, relevant)
    pa_ranked = pair_counts.pa_pairs(pa_pairs, listed, pa, recount)
    counts = pl.concat([pair_counts.ec_counts(ec, recount), pair_counts.counts(pa_ranked, recount)],
                       how="vertical_relaxed")
    per_group = (listed.join(relevant, on=["l", "j"], how="left")
                 .join(counts, on=["l", "j"], how="left"))
    if recount:
        per_group = per_group.join(third, on=["l", "j"], how="left")
    per_group = per_group.with_columns(pl.exclude("l", "j", "rn_past", "rnr_past").fill_null(0),
                                       pl.col("^rnr?_past$").fill_null(False))
    values = list_values.undefined(list_values.per_list(per_group, measures), lists, measures)
    if any(m.startswith("prefs_pair") for m in measures):
        # pairs judged in several groups of a list: its one-subgroup groups' pairs too
        several = per_group.group_by("l").agg(pl.len().alias("groups")).filter(
            pl.col("groups") > 1).select("l")
        ranked = pl.concat([pair_counts.ec_pairs(ec.join(several, on="l", how="semi")),
                            pa_ranked.join(several, on="l", how="semi")],
                           how="diagonal_relaxed")
        pair_values = list_values.pair_values(ranked, per_group)
        values = values.join(pair_values, on="l", how="left").with_columns(
            pl.col("prefs_pair", "prefs_pair_ret", "prefs_pair_imp").fill_null(0.0))  # no pair
    out = (lists.select("l", *keys).join(values, on="l", how="left")
           .select(*keys, *(pl.col(m).cast(pl.Float64) for m in measures)).sort(keys))
    if not per_query:  # over the queries in trec_eval's order, added one after another
        summary = [pl.col(m).cum_sum().last() if m in PREFS_COUNTS
                   else pl.col(m).cum_sum().last() / pl.len() for m in measures]
        out = (out.group_by(keys[:-1], maintain_order=True).agg(summary) if len(keys) > 1
               else out.select(summary))
    renamed = {f"g{i}": g for i, g in enumerate(groups)} | {Q: names["query"]}
    return out.rename({k: v for k, v in renamed.items() if k in out.columns})
