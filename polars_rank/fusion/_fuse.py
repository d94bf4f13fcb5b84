"""``fuse()`` and ``normalize()``: several runs in, one run (or normalised runs) out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank.fusion import _trained
from polars_rank.fusion._methods import METHODS, REQUIRED, Context, condorcet
from polars_rank.fusion._runs import NORMS, Norm, Runs, check_norm, normalized, positions
from polars_rank.metrics._docs import shared_parameters

if TYPE_CHECKING:
    from collections.abc import Mapping

    from polars_rank._engine.frames import FrameLike

__all__ = ["fuse", "normalize", "lengths", "NORMS", "Norm", "FusionMethod"]

FusionMethod: TypeAlias = Literal[
    "sum", "mnz", "anz", "gmnz", "max", "min", "med", "wsum", "wmnz", "mixed", "rrf", "isr",
    "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet",
    "probfuse", "segfuse", "slidefuse", "posfuse", "bayesfuse", "mapfuse"]


@shared_parameters
def normalize(runs: FrameLike, norm: Norm = "min-max", *, query: str = "qid",
              doc: str = "docid", score: str = "score",
              system: str = "system") -> pl.DataFrame | pl.LazyFrame:
    """Normalise each run's scores per query, as ranx's ``normalize``.

    Parameters
    ----------
    runs
        ... fusion
    norm
        ``"min-max"``, ``"min-max-inverted"``, ``"max"``, ``"sum"``, ``"zmuv"``,
        ``"rank"`` or ``"borda"`` (see :func:`polars_rank.min_max_norm` and its
        siblings); ``"borda"`` adds a row for each candidate a run did not return.
    query, doc, score, system
        Column names.

    Returns
    -------
    DataFrame or LazyFrame
        Columns ``system, query, doc, score`` (normalised), by system (in the runs'
        order) and query, each list by normalised score, then raw score, highest
        first, then doc id, descending (:func:`fuse`'s ranks); lazy if any input was.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> bm25 = pl.DataFrame({"qid": ["q1"] * 3, "docid": ["a", "b", "c"],
    ...                      "score": [12.0, 9.0, 3.0]})
    >>> dense = pl.DataFrame({"qid": ["q1"] * 2, "docid": ["b", "d"], "score": [0.8, 0.6]})
    >>> pr.fusion.normalize({"bm25": bm25, "dense": dense}, "borda")
    shape: (8, 4)
    ┌────────┬─────┬───────┬───────┐
    │ system ┆ qid ┆ docid ┆ score │
    │ ---    ┆ --- ┆ ---   ┆ ---   │
    │ str    ┆ str ┆ str   ┆ f64   │
    ╞════════╪═════╪═══════╪═══════╡
    │ bm25   ┆ q1  ┆ a     ┆ 1.0   │
    │ bm25   ┆ q1  ┆ b     ┆ 0.75  │
    │ bm25   ┆ q1  ┆ c     ┆ 0.5   │
    │ bm25   ┆ q1  ┆ d     ┆ 0.25  │
    │ dense  ┆ q1  ┆ b     ┆ 1.0   │
    │ dense  ┆ q1  ┆ d     ┆ 0.75  │
    │ dense  ┆ q1  ┆ c     ┆ 0.375 │
    │ dense  ┆ q1  ┆ a     ┆ 0.375 │
    └────────┴─────┴───────┴───────┘
    """
    r = Runs(runs, query=query, doc=doc, score=score, system=system)
    lf = (normalized(r, check_norm(norm))
          .sort(["i", "q", "v", "s", "d"], descending=[False, False, True, True, True],
                nulls_last=True))
    return r.out(lf.select(pl.col("sys").alias(system), pl.col("q").alias(query),
                           pl.col("d").alias(doc), pl.col("v").alias(score)))


def _params(method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    if method not in METHODS:
        msg = f"method must be one of {', '.join(METHODS)}; got {method!r}"
        raise ValueError(msg)
    spec = METHODS[method].params
    given = dict(params or {})
    unknown = sorted(set(given) - set(spec))
    if unknown:
        allowed = ", ".join(spec) or "none"
        msg = f"params: {method!r} takes {allowed}; got {', '.join(unknown)}"
        raise ValueError(msg)
    out = {name: given.get(name, default) for name, default in spec.items()}
    missing = [name for name, value in out.items() if value is REQUIRED]
    if missing:
        msg = (f"params: {method!r} needs {', '.join(missing)} (ranx has no default), "
               f"e.g. params={{{missing[0]!r}: ...}}")
        raise ValueError(msg)
    for name in ("phi", "sigma"):
        if name in out and not 0.0 <= float(out[name]) <= 1.0:
            msg = f"params: {name} must be in [0, 1]; got {out[name]!r}"
            raise ValueError(msg)
    if "w" in out and (isinstance(out["w"], bool) or int(out["w"]) != out["w"]
                       or out["w"] < 0):
        msg = f"params: w (slidefuse's window) must be an integer >= 0; got {out['w']!r}"
        raise ValueError(msg)
    return out


@shared_parameters
def fuse(
    runs: FrameLike,
    method: FusionMethod = "rrf",
    *,
    norm: Norm | None = "min-max",
    params: Mapping[str, Any] | None = None,
    query: str = "qid",
    doc: str = "docid",
    score: str = "score",
    system: str = "system",
) -> pl.DataFrame | pl.LazyFrame:
    r"""Fuse several runs into one, as ranx's ``fuse``: one lazy plan, any number of runs.

    Each run's scores are normalised per query (``norm``), then combined per
    (query, document) by ``method``. The methods and their treatment of a document
    a run did not return are ranx 0.3.21's (``ranx/fusion/*.py``, AmenRa/ranx commit
    2cae52f); the Fusion page of the documentation lists their formulas:

    * on scores: ``"sum"`` (CombSUM), ``"mnz"`` (CombMNZ: the sum times the number
      of runs that returned the document), ``"anz"`` (CombANZ: the mean over those),
      ``"gmnz"`` (CombGMNZ, ``gamma``), ``"max"``, ``"min"``, ``"med"`` (CombMAX,
      CombMIN, CombMED), ``"wsum"`` (weighted sum, ``weights``), ``"wmnz"`` (the sum
      times the weights of the runs that returned it), ``"mixed"`` (the weighted sum
      times the square root of that number);
    * on ranks (r, from 1, in each run's list ordered by its normalised scores):
      ``"rrf"`` (reciprocal rank fusion, 1 / (k + r), ``k=60``), ``"isr"``
      (1 / r\ :sup:`2` summed, times the number of runs), ``"log_isr"`` (times its
      logarithm), ``"logn_isr"`` (times log(n + sigma), ``sigma=0.01``), ``"rbc"``
      (rank-biased centroids, (1 - phi) phi\ :sup:`r-1`, ``phi``), ``"bordafuse"``
      and ``"w_bordafuse"`` (Borda counts, ``weights``), ``"condorcet"`` and
      ``"w_condorcet"`` (the majority order, ``weights``);
    * trained on qrels (:func:`polars_rank.fusion.train` gives their ``params``):
      ``"probfuse"``, ``"segfuse"``, ``"slidefuse"``, ``"posfuse"``, ``"bayesfuse"``
      and ``"mapfuse"``, each document's trained value for its rank (or segment)
      in each run, summed.

    Parameters
    ----------
    runs
        ... fusion
    method
        The fusion method, by ranx's name. The default is RRF (ranx's is ``"wsum"``,
        which needs weights).
    norm
        The normalisation applied to each run first (ranx's default ``"min-max"``;
        ``None``: the raw scores); see :func:`normalize`.
    params
        The method's parameters, as ranx's: ``{"k": 60}`` (rrf), ``{"gamma": ...}``
        (gmnz), ``{"sigma": 0.01}`` (logn_isr), ``{"phi": ...}`` (rbc), ``{"weights":
        ...}`` (wsum, wmnz, mixed, w_bordafuse, w_condorcet: one per run in the runs'
        order, or a dict ``{system: weight}``); the trained methods' ``probs``,
        ``log_odds`` or ``map_scores`` (and SlideFuse's window ``w``) as
        :func:`polars_rank.fusion.train` returns them, or as ranx's ``optimize_fusion``
        does (one array per run, or a dict ``{system: array}``).
    query, doc, score, system
        Column names.

    Returns
    -------
    DataFrame or LazyFrame
        A run: ``query, doc, score, rank``, by query and rank (equal scores by doc
        id, descending, as :func:`polars_rank.evaluate` orders them); lazy if any
        input was.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> bm25 = pl.DataFrame({"qid": ["q1"] * 3, "docid": ["a", "b", "c"],
    ...                      "score": [12.0, 9.0, 3.0]})
    >>> dense = pl.DataFrame({"qid": ["q1"] * 2, "docid": ["b", "d"], "score": [0.8, 0.6]})
    >>> pr.fuse([bm25, dense], "rrf", params={"k": 1})
    shape: (4, 4)
    ┌─────┬───────┬──────────┬──────┐
    │ qid ┆ docid ┆ score    ┆ rank │
    │ --- ┆ ---   ┆ ---      ┆ ---  │
    │ str ┆ str   ┆ f64      ┆ i64  │
    ╞═════╪═══════╪══════════╪══════╡
    │ q1  ┆ b     ┆ 0.833333 ┆ 1    │
    │ q1  ┆ a     ┆ 0.5      ┆ 2    │
    │ q1  ┆ d     ┆ 0.333333 ┆ 3    │
    │ q1  ┆ c     ┆ 0.25     ┆ 4    │
    └─────┴───────┴──────────┴──────┘
    >>> pr.fuse({"bm25": bm25, "dense": dense}, "wsum",
    ...         params={"weights": {"bm25": 0.3, "dense": 0.7}})["docid"].to_list()
    ['b', 'a', 'd', 'c']
    """
    values = _params(method, params)
    spec = METHODS[method]
    r = Runs(runs, query=query, doc=doc, score=score, system=system)
    weights = r.weight_list(values["weights"]) if spec.weighted else None
    w = (pl.lit(1.0) if weights is None
         else pl.col("i").replace_strict(list(range(len(weights))), weights,
                                         return_dtype=pl.Float64))
    lf = (normalized(r, check_norm(norm))
          .with_columns(w=w)
          .with_columns(pos=positions().over("i", "q"),
                        n_ret=pl.len().over("i", "q"),
                        n_cand=pl.col("d").n_unique().over("q")))
    if spec.trained:
        name = _trained.TRAINED[method][0]
        tab = _trained.table(method, values[name], names=None if r.from_frame else r.names,
                             system=system, dtype=r.frame.collect_schema()["sys"])
        lf = _trained.attach(method, lf, values, tab)
    if spec.agg is None:
        systems = r.systems().with_columns(w=pl.lit(1.0) if weights is None
                                           else pl.Series(weights, dtype=pl.Float64))
        fused = condorcet(lf, systems, len(r.names))
    else:
        context = Context(len(r.names), values,
                          total_weight=float("nan") if weights is None else sum(weights),
                          weight=None if weights is None else (lambda i: pl.lit(weights[i])),
                          n_ret=lambda i: pl.col(f"_n_ret{i}"))
        score_expr = spec.agg(context)
        fused = lf.group_by("q", "d").agg(*context.aggregations)
        if any(n.startswith("_n_ret") for n in score_expr.meta.root_names()):  # Borda
            fused = fused.join(lengths(lf, len(r.names)), on="q", how="left")
        fused = fused.select("q", "d", score=score_expr.cast(pl.Float64))
    ranked = fused.sort(["q", "score", "d"], descending=[False, True, True]).with_columns(
        rank=pl.struct("score", "d").rank("ordinal", descending=True).over("q")
        .cast(pl.Int64))
    return r.out(ranked.select(pl.col("q").alias(query), pl.col("d").alias(doc),
                               pl.col("score").alias(score), "rank"))


def lengths(lf: pl.LazyFrame, n_systems: int) -> pl.LazyFrame:
    """Per query, each system's list length: ``_n_ret0``, ``_n_ret1``, ..."""
    return lf.group_by("q").agg(
        (pl.col("i") == i).sum().alias(f"_n_ret{i}") for i in range(n_systems))
