"""trec_eval's judgment groups (``-R qrels_jg``): each metric against every group, averaged.

Qrels in trec_eval's ``qrels_jg`` format hold a row per (query, judgment group,
document): each group is one user's judgments of the query, and users disagree.
trec_eval 10 ranks the run once per query (form_res_rels_jg.c), scores the ranking
against each group of the query as its plain measure would (m_map_avgjg.c,
m_P_avgjg.c and m_Rprec_mult_avgjg.c are m_map.c, m_P.c and m_Rprec_mult.c in a loop
over the groups), adds the groups' values in the groups' byte order and divides by
their number. The mean over the queries is then any measure's.

Here the run is repeated for each group of its query, under a key naming both (the
query id, NUL, the group), so that each (query, group) is one ranked list of
:func:`polars_rank.evaluate`'s own pipeline, with its validation, tie policies,
``judged_only`` (trec_eval's ``-J`` removes the documents the group did not judge)
and unjudged policies; then each query's values are averaged over its groups. A group
whose lines are all negative labels (pooled, none judged) is no list there and
scores 0, as in trec_eval. The queries averaged are the run's that have judgments;
``missing="zero"`` adds every other query of the qrels with 0 (``trec_eval -c``
scores them on a stand-in ranking of one unjudged document: 0 for these measures).
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.summaries import summarize
from polars_rank._engine.unjudged import HIGH, LOW
from polars_rank._evaluation.options import read_once
from polars_rank._evaluation.spec import JUDGMENT_GROUP
from polars_rank.errors import InvalidDataError, user_stacklevel
from polars_rank.registry import METRICS, Metric

if TYPE_CHECKING:
    from collections.abc import Callable

    from polars_rank._evaluation.options import Frame, PerQuery
    from polars_rank._evaluation.spec import EvaluationSpec

__all__ = ["JUDGMENT_GROUP", "evaluate_groups"]

_COUNT = "__polars_rank_judgment_groups"
_LIST = "__polars_rank_query_and_group"
"""A list's key: the query id, NUL and the judgment group (no TREC id holds a NUL)."""
_NUL = "\x00"


def _wanted(named: list[tuple[str, Metric]]) -> list[str]:
    return [name for name, m in named if m.definition.per_judgment_group is not None]


def _base(metric: Metric) -> Metric:
    """The metric a judgment-group measure computes for each group (map for map_avgjg)."""
    name = metric.definition.per_judgment_group
    assert name is not None  # only judgment-group measures get here
    return Metric(METRICS[name], metric.k, metric.options)


def evaluate_groups(
    evaluate: Callable[..., PerQuery],
    run: Frame,
    qrels: Frame | None,
    spec: EvaluationSpec,
) -> pl.LazyFrame | None:
    """:func:`polars_rank.evaluate` of the judgment-group measures, or None for the others.

    ``evaluate``: :func:`~polars_rank._evaluation.pipeline.per_query_values`, the
    per-list values of the (group, query) lists.

    None when no measure asked is one (``map_avgjg``, ``P_avgjg@k``,
    ``Rprec_mult_avgjg@x``) and the qrels have no judgment-group column: the
    usual evaluation then runs. With the column, every measure must be one (the
    others read one judgment per document: ValueError); without it, they see one
    group per query, with a warning, and the usual evaluation computes them (one
    group is the plain metric).
    """
    named = list(spec.asked)
    query, doc, score, judgment_group = spec.query, spec.doc, spec.score, spec.judgment_group
    wanted = _wanted(named)
    if not wanted:
        if qrels is not None and judgment_group in qrels.collect_schema():
            _refuse_plain(named, judgment_group)
        return None
    if qrels is None:
        msg = (f"{wanted[0]}: a judgment-group measure reads qrels with judgment groups: "
               f"pass qrels= with a {judgment_group!r} column (read_qrels(path, "
               "format='qrels_jg'))")
        raise ValueError(msg)
    if judgment_group not in qrels.collect_schema():
        warnings.warn(
            f"{wanted[0]}: the qrels have no {judgment_group!r} column, so each query has "
            "one judgment group (the measure is then its plain metric); read trec_eval's "
            "qrels_jg files with read_qrels(path, format='qrels_jg')",
            UserWarning, stacklevel=user_stacklevel())
        return None
    _refuse_plain(named, judgment_group)
    groups = list(spec.groups)
    run_read, qrels_read = read_once(run, qrels, spec)  # as evaluate()'s one pass
    assert qrels_read is not None
    run_lazy, qrels_lazy = _same_query_type(run_read.lazy(), qrels_read.lazy(), query)
    if spec.validate:
        _check_groups(qrels_lazy, query, judgment_group)
    pairs = qrels_lazy.select(query, pl.col(judgment_group).cast(pl.String)).unique()
    pairs = pairs.with_columns(
        pl.concat_str([pl.col(query).cast(pl.String), pl.lit(_NUL), pl.col(judgment_group)])
        .alias(_LIST)).collect().lazy()
    # each (query, group) one list: the run repeated for each group of its query, the
    # qrels under the same key
    lists = run_lazy.join(pairs.select(query, _LIST), on=query, how="inner")
    judged = qrels_lazy.select(pl.concat_str([pl.col(query).cast(pl.String), pl.lit(_NUL),
                                              pl.col(judgment_group).cast(pl.String)])
                               .alias(_LIST), doc, spec.rel)
    bases = list(dict.fromkeys(_base(m) for _, m in named))
    # the bases' values per list, their absent queries scoring 0 below
    base_spec = spec.with_metrics([(str(m), m) for m in bases], query=_LIST,
                                  convention=replace(spec.convention, given_missing="skip"))
    try:
        per = evaluate(lists, judged, base_spec)
    except InvalidDataError as exc:  # the list's key named as its query and group
        text = str(exc).replace(_LIST, query)
        raise InvalidDataError(text.replace("\\x00", f"', {judgment_group}='")) from None
    ends = ["", f"_{LOW}", f"_{HIGH}"] if spec.bounds else [""]
    columns = {f"{name}{end}": f"{_base(m)}{end}" for name, m in named for end in ends}
    values = per.frame.join(pairs, on=_LIST, how="inner").drop(_LIST)
    averaged = _averaged(values, qrels_lazy, list(dict.fromkeys(columns.values())),
                         keys=[*groups, query], judgment_group=judgment_group)
    counted = _queries(run_lazy, qrels_lazy, score=score, query=query, groups=groups,
                       every=spec.convention.missing == "zero")
    _warn_without_judgments(run_lazy, qrels_lazy, query=query, score=score)
    keys = [*groups, query]
    out = counted.join(averaged, on=keys, how="left", nulls_equal=True).select(
        *keys, *(pl.col(base).fill_null(0.0).alias(name) for name, base in columns.items()))
    if spec.per_query:
        return out.sort(keys, nulls_last=False)
    means = [summarize(pl.col(name), "mean") for name in columns]
    if groups:
        return out.group_by(groups).agg(means).sort(groups, nulls_last=False)
    return out.select(means)


def _refuse_plain(named: list[tuple[str, Metric]], judgment_group: str) -> None:
    """ValueError for a metric that is not a judgment-group measure, against such qrels."""
    plain = [name for name, m in named if m.definition.per_judgment_group is None]
    if plain:
        msg = (f"{plain[0]}: the qrels have judgment groups (column {judgment_group!r}: "
               "several judgments of one document), which only the judgment-group "
               "measures read (map_avgjg, P_avgjg@k, Rprec_mult_avgjg@x, as trec_eval "
               "-R qrels_jg); evaluate the others against one group's qrels")
        raise ValueError(msg)


def _check_groups(qrels: pl.LazyFrame, query: str, judgment_group: str) -> None:
    """InvalidDataError for a qrels row without a judgment group (a null), naming its query."""
    where = qrels.filter(pl.col(judgment_group).is_null()).select(query).head(1).collect()
    if where.height:
        msg = (f"null judgment group in qrels column {judgment_group!r}: first at "
               f"{query}={where.item()!r}")
        raise InvalidDataError(msg)


def _same_query_type(run: pl.LazyFrame, qrels: pl.LazyFrame,
                     query: str) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """The run and the qrels, their query ids as text where their types differ.

    As :func:`polars_rank.evaluate` joins them.
    """
    run_type = run.collect_schema().get(query)
    qrels_type = qrels.collect_schema().get(query)
    if run_type is None or qrels_type is None or run_type == qrels_type:
        return run, qrels
    return (run.with_columns(pl.col(query).cast(pl.String)),
            qrels.with_columns(pl.col(query).cast(pl.String)))


def _averaged(per: pl.LazyFrame, qrels: pl.LazyFrame, columns: list[str], *,
              keys: list[str], judgment_group: str) -> pl.LazyFrame:
    """Each (group..., query)'s values averaged over the judgment groups of its query.

    trec_eval's sum (m_P_avgjg.c and the others): the groups' values added in the
    groups' byte order, then divided by their number, the qrels' groups of the query
    (one without a list scoring 0).
    """
    query = keys[-1]
    counts = qrels.group_by(query).agg(
        pl.col(judgment_group).n_unique().cast(pl.Float64).alias(_COUNT))
    summed = per.group_by(keys).agg(
        pl.col(c).sort_by(judgment_group).cum_sum().last() for c in columns)
    return summed.join(counts, on=query, how="left").select(
        *keys, *((pl.col(c) / pl.col(_COUNT)).alias(c) for c in columns))


def _queries(run: pl.LazyFrame, qrels: pl.LazyFrame, *, score: str, query: str,
             groups: list[str], every: bool) -> pl.LazyFrame:
    """The (group..., query) evaluated: the run's judged ones, or every judged one."""
    retrieved = run.filter(pl.col(score).is_not_null())
    judged = qrels.select(query).unique()
    if every:
        if not groups:
            return judged
        return retrieved.select(groups).unique().join(judged, how="cross")
    return retrieved.select(*groups, query).unique().join(judged, on=query, how="semi")


def _warn_without_judgments(run: pl.LazyFrame, qrels: pl.LazyFrame, *, query: str,
                   score: str) -> None:
    """One warning for the run queries the qrels do not name, as evaluate() warns."""
    asked = run.filter(pl.col(score).is_not_null()).select(query).unique()
    judged = qrels.select(query).unique()
    alone = asked.join(judged, on=query, how="anti").sort(query).collect()
    if not alone.height:
        return
    count = alone.height
    shown = ", ".join(repr(q) for q in alone[query].head(3).to_list())
    warnings.warn(
        f"{count} run quer{'y has' if count == 1 else 'ies have'} no judgments and "
        f"{'is' if count == 1 else 'are'} not evaluated (e.g. {shown})",
        UserWarning, stacklevel=user_stacklevel())
