"""``train()``: the parameters of ranx's trained fusion methods, from runs and qrels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.fusion import _trained
from polars_rank.fusion._runs import Norm, Runs, check_norm, normalized, positions
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Mapping

    from polars_rank._engine.frames import FrameLike

__all__ = ["train"]

TrainedMethod: TypeAlias = Literal["probfuse", "segfuse", "slidefuse", "posfuse",
                                   "bayesfuse", "mapfuse"]

_TRAIN_PARAMS: dict[str, tuple[str, ...]] = {"probfuse": ("n_segments",),
                                             "slidefuse": ("w",)}


@shared_parameters
def train(
    runs: FrameLike,
    qrels: FrameLike,
    method: TrainedMethod,
    *,
    norm: Norm | None = "min-max",
    params: Mapping[str, Any] | None = None,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    rel: str = "rel",
    system: str = "system",
) -> dict[str, Any]:
    r"""Train a fusion method on runs and judgments: the ``params`` of :func:`polars_rank.fuse`.

    ranx 0.3.21's training (``<method>_train`` in ``ranx/fusion/<method>.py`` and
    ``ranx/fusion/common.py``, AmenRa/ranx commit 2cae52f), as one lazy plan over the
    training runs after normalisation (``norm``, as ``fuse`` will use it; ranx's
    ``optimize_fusion`` normalises before it trains). A document is relevant when
    its label is at least 1 (ranx's hit lists). Each training query counts for every
    system, as an empty list where the system returned nothing for it (ranx's runs
    all have the qrels' queries); queries of the qrels no run has are not used.

    * ``"posfuse"``: for each system and rank, the share of training lists with a
      relevant document there (among the lists that long);
    * ``"slidefuse"``: the same (PosFuse's probabilities); ``params={"w": ...}``,
      the window, is passed through to ``fuse``;
    * ``"probfuse"`` (``params={"n_segments": ...}``, required): each list cut into
      ``n_segments`` segments of ``ceil(length / n_segments)`` documents; per system
      and segment, the share of relevant documents in it, averaged over the queries;
    * ``"segfuse"``: segments of 5, 10, 20, ... 5,120 documents (ranks 1-5, 6-15,
      ...); relevant documents over the segment's size, averaged over the queries;
    * ``"bayesfuse"``: the same over ranks 1-5, 6-10, 11-15, 16-20, 21-30, 31-100,
      101-200, 201-500, 501-1000, as log-odds log(p / (1 - p)) (0.001 for a p or
      1 - p of 0), given for each rank 1 to 1000;
    * ``"mapfuse"``: each system's MAP over the training queries (ranx's AP: 0 for a
      query without relevant documents).

    Parameters
    ----------
    runs
        The training runs (the systems' results on the training queries), in any
        form :func:`polars_rank.fuse` takes, with the systems named as in the runs
        to fuse (a list: 0, 1, ...).
    qrels
        ... fusion
    method
        ``"probfuse"``, ``"segfuse"``, ``"slidefuse"``, ``"posfuse"``, ``"bayesfuse"``
        or ``"mapfuse"``.
    norm
        The normalisation applied to each run first (see :func:`polars_rank.fuse`);
        it changes only ties in the ranking here, and SegFuse's scores in ``fuse``.
    params
        ``{"n_segments": n}`` for ProbFuse; ``{"w": w}`` for SlideFuse (optional).
    query, doc, score, rel, system
        Column names.

    Returns
    -------
    dict
        ``fuse``'s ``params``: ``{"probs": frame}`` (ProbFuse, SegFuse, PosFuse;
        SlideFuse with ``"w"`` when given), ``{"log_odds": frame}`` (BayesFuse) or
        ``{"map_scores": frame}`` (MAPFuse); each frame has the column ``system``,
        then ``rank`` or ``segment`` (from 1) and ``prob`` or ``log_odds``, or
        ``map``; lazy if an input was (the training and the fusion are then one
        plan).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> train_runs = {
    ...     "bm25": pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["a", "b", "a", "c"],
    ...                           "score": [2.0, 1.0, 3.0, 1.0]}),
    ...     "dense": pl.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["b", "a", "c"],
    ...                            "score": [0.9, 0.5, 0.7]})}
    >>> qrels = pl.DataFrame({"qid": ["q1", "q2"], "docid": ["a", "c"], "rel": [1, 1]})
    >>> trained = pr.fusion.train(train_runs, qrels, "posfuse")
    >>> trained["probs"].sort("system", "rank")
    shape: (4, 3)
    ┌────────┬──────┬──────┐
    │ system ┆ rank ┆ prob │
    │ ---    ┆ ---  ┆ ---  │
    │ str    ┆ i64  ┆ f64  │
    ╞════════╪══════╪══════╡
    │ bm25   ┆ 1    ┆ 0.5  │
    │ bm25   ┆ 2    ┆ 0.5  │
    │ dense  ┆ 1    ┆ 0.5  │
    │ dense  ┆ 2    ┆ 1.0  │
    └────────┴──────┴──────┘
    >>> test_runs = {
    ...     "bm25": pl.DataFrame({"qid": ["q3"] * 2, "docid": ["x", "y"], "score": [5.0, 4.0]}),
    ...     "dense": pl.DataFrame({"qid": ["q3"] * 2, "docid": ["y", "z"], "score": [0.8, 0.1]})}
    >>> pr.fuse(test_runs, "posfuse", params=trained)["docid"].to_list()
    ['z', 'y', 'x']
    """
    if method not in _trained.TRAINED:
        msg = f"train: method must be one of {', '.join(_trained.TRAINED)}; got {method!r}"
        raise ValueError(msg)
    given = dict(params or {})
    allowed = _TRAIN_PARAMS.get(method, ())
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        msg = (f"params: training {method!r} takes {', '.join(allowed) or 'none'}; "
               f"got {', '.join(unknown)}")
        raise ValueError(msg)
    if method == "probfuse":
        n = given.get("n_segments")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            msg = ("params: training 'probfuse' needs n_segments, an integer >= 1 (ranx "
                   f"has no default), e.g. params={{'n_segments': 10}}; got {n!r}")
            raise ValueError(msg)
    r = Runs(runs, query=query, doc=doc, score=score, system=system)
    judged = as_polars(qrels, "qrels", query=query, doc=doc, value=rel)
    lazy = r.lazy or isinstance(judged, pl.LazyFrame)
    schema = r.frame.collect_schema()
    relevant = (judged.lazy().filter(pl.col(rel) >= 1)
                .select(q=pl.col(query).cast(schema["q"]), d=pl.col(doc).cast(schema["d"]))
                .unique())
    rows = (normalized(r, check_norm(norm))
            .with_columns(pos=positions().over("i", "q").cast(pl.Int64),
                          n_ret=pl.len().over("i", "q"))
            .join(relevant.with_columns(hit=pl.lit(True)), on=["q", "d"], how="left")
            .select("sys", "q", "pos", "n_ret", hit=pl.col("hit").fill_null(False)))
    n_rel = relevant.group_by("q").agg(n_rel=pl.len().cast(pl.Float64))
    plan = _trained.train_plan(method, rows, n_rel, r.systems().select("sys"), given)
    name, key, column = _trained.TRAINED[method]
    plan = plan.select(pl.col("sys").alias(system), *([key] if key else []),
                       column)
    if key:
        plan = plan.sort(system, key)
    out: dict[str, Any] = {name: plan if lazy else plan.collect()}
    if "w" in given:
        out["w"] = given["w"]
    return out
