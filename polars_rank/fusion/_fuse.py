"""``fuse()`` and ``normalize()``: several runs in, one run (or normalised runs) out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank._docs import shared_parameters
from polars_rank._frames import as_polars
from polars_rank._sort_keys import sort_by
from polars_rank.fusion import _norms, _trained
from polars_rank.fusion._methods import METHODS, REQUIRED, Context, condorcet

if TYPE_CHECKING:
    from collections.abc import Callable

    from polars_rank._frames import FrameLike

__all__ = ["fuse", "normalize", "NORMS"]

Norm: TypeAlias = Literal["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank",
                          "borda"]
FusionMethod: TypeAlias = Literal[
    "sum", "mnz", "anz", "gmnz", "max", "min", "med", "wsum", "wmnz", "mixed", "rrf", "isr",
    "log_isr", "logn_isr", "rbc", "bordafuse", "w_bordafuse", "condorcet", "w_condorcet",
    "probfuse", "segfuse", "slidefuse", "posfuse", "bayesfuse", "mapfuse"]

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
"""The normalisations, by ranx's names (``min_max`` and ``min_max_inverted`` too)."""

def _inverted(score: pl.Expr) -> pl.Expr:
    return _norms.min_max_norm(score, invert=True)


_EXPRESSIONS: dict[str, Callable[[pl.Expr], pl.Expr]] = {
    "min-max": _norms.min_max_norm,
    "min-max-inverted": _inverted,
    "max": _norms.max_norm,
    "sum": _norms.sum_norm,
    "zmuv": _norms.zmuv_norm,
    "rank": _norms.rank_norm,
}


class _Runs:
    """The runs as one lazy frame ``q, d, s, sys`` (rows in input order), and facts."""

    def __init__(self, runs: Any, *, query: str, doc: str, score: str, system: str) -> None:
        self.names: list[Any] | None  # the systems, when the runs were given one by one
        if isinstance(runs, Mapping) and not isinstance(runs, (pl.DataFrame, pl.LazyFrame)):
            self.names, frames = list(runs), list(runs.values())
        elif isinstance(runs, Sequence) and not isinstance(runs, str):
            self.names, frames = list(range(len(runs))), list(runs)
        else:
            self.names, frames = None, [runs]
        if self.names is not None and len(frames) < 2:
            msg = f"fuse needs at least two runs; got {len(frames)}"
            raise ValueError(msg)
        polars = [as_polars(f, "runs", query=query, doc=doc, value=score) for f in frames]
        self.lazy = any(isinstance(f, pl.LazyFrame) for f in polars)
        columns = {"q": pl.col(query), "d": pl.col(doc),
                   "s": pl.col(score).cast(pl.Float64)}
        if self.names is None:
            self.frame = polars[0].lazy().select(**columns, sys=pl.col(system))
        else:
            names = pl.Series("sys", self.names)
            self.frame = pl.concat([f.lazy().select(**columns, sys=pl.lit(name, names.dtype))
                                    for name, f in zip(self.names, polars, strict=True)])
        self.frame = self.frame.filter(pl.col("s").is_not_null())
        self.query, self.doc, self.score, self.system = query, doc, score, system

    def systems(self) -> pl.LazyFrame:
        if self.names is None:
            return self.frame.select("sys").unique()
        return pl.LazyFrame(pl.Series("sys", self.names))

    def weights(self, weights: Any) -> tuple[pl.Expr, float]:
        """Each row's system weight, and the weights' sum."""
        if weights is None:
            return pl.lit(1.0), float("nan")  # the sum is filled in from the systems
        if isinstance(weights, Mapping):
            mapping = {k: float(v) for k, v in weights.items()}
        elif self.names is not None and len(weights) == len(self.names):
            mapping = {n: float(w) for n, w in zip(self.names, weights, strict=True)}
        else:
            msg = ("weights: give one weight per run, in the runs' order, or a dict "
                   f"{{system: weight}} (the only form for a frame with a {self.system!r} "
                   f"column); got {weights!r}")
            raise ValueError(msg)
        if self.names is not None and set(mapping) != set(self.names):
            msg = f"weights: the systems are {self.names}; got weights for {list(mapping)}"
            raise ValueError(msg)
        w = pl.col("sys").replace_strict(mapping, return_dtype=pl.Float64)
        return w, sum(mapping.values())

    def out(self, lf: pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
        return lf if self.lazy else lf.collect()


def _check_norm(norm: str | None) -> str | None:
    if norm is None:
        return None
    canonical = norm.replace("_", "-") if isinstance(norm, str) else norm
    if canonical not in NORMS:
        msg = f"norm must be one of {', '.join(NORMS)} or None; got {norm!r}"
        raise ValueError(msg)
    return canonical


def _normalized(runs: _Runs, norm: str | None) -> pl.LazyFrame:
    """Rows ``q, d, s, sys, v``: the raw and normalised scores.

    Borda: every candidate in every run, those the run did not return with a null ``s``.
    """
    lf = runs.frame
    if norm is None:
        return lf.with_columns(v=pl.col("s"))
    if norm != "borda":
        return lf.with_columns(v=_EXPRESSIONS[norm](pl.col("s")).over("sys", "q"))
    lf = lf.with_columns(n_cand=pl.col("d").n_unique().over("q"))
    present = lf.select("q", "d", "s", "sys",
                        v=_norms.borda_norm("s", candidates="n_cand").over("sys", "q"))
    lengths = lf.group_by("q", "sys").agg(n_ret=pl.len(), n_cand=pl.col("n_cand").first())
    cand = lf.group_by("q").agg(n_cand=pl.col("n_cand").first())
    missing = (lf.select("q", "d").unique(maintain_order=True)
               .join(runs.systems(), how="cross", maintain_order="left")
               .join(present, on=["q", "d", "sys"], how="anti", maintain_order="left")
               .join(cand, on="q", maintain_order="left")
               .join(lengths.drop("n_cand"), on=["q", "sys"], how="left",
                     maintain_order="left")
               .select("q", "d", pl.lit(None, pl.Float64).alias("s"), "sys",
                       v=0.5 - (pl.col("n_ret").fill_null(0) - 1.0)
                       / (2.0 * pl.col("n_cand").cast(pl.Float64))))
    return pl.concat([present, missing])


def _positions() -> pl.Expr:
    """1-based rank in the system's list: ranx's order of its normalised run.

    By normalised score, highest first; where normalisation made scores equal, by the
    raw score, highest first (ranx ranks its runs by raw score when it reads them, and
    only min-max-inverted sorts them again, stably for up to 15 documents), then in
    input order.
    """
    order = sort_by(pl.int_range(pl.len(), dtype=pl.Int64), [pl.col("v"), pl.col("s")],
                    [True, True])
    return order.arg_sort() + 1


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
        Columns ``system, query, doc, score`` (normalised), by system and query, each
        list in input order (Borda's added rows last); lazy if any input was.

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
    │ dense  ┆ q1  ┆ a     ┆ 0.375 │
    │ dense  ┆ q1  ┆ c     ┆ 0.375 │
    └────────┴─────┴───────┴───────┘
    """
    r = _Runs(runs, query=query, doc=doc, score=score, system=system)
    lf = _normalized(r, _check_norm(norm)).sort("sys", "q", maintain_order=True)
    lf = lf.select("sys", "q", "d", "v")
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
    r = _Runs(runs, query=query, doc=doc, score=score, system=system)
    w, total = r.weights(values.get("weights"))
    n_systems = (pl.lit(len(r.names)) if r.names is not None
                 else pl.col("sys").n_unique()).cast(pl.Float64)
    lf = (_normalized(r, _check_norm(norm))
          .with_columns(w=w, n_sys=n_systems)
          .with_columns(pos=_positions().over("sys", "q"),
                        n_ret=pl.len().over("sys", "q"),
                        n_cand=pl.col("d").n_unique().over("q"),
                        rows_q=pl.len().over("q"),
                        w_rows_q=pl.col("w").sum().over("q")))
    if spec.trained:
        name = _trained.TRAINED[method][0]
        tab = _trained.table(method, values[name], names=r.names, system=system,
                             dtype=r.frame.collect_schema()["sys"])
        lf = _trained.attach(method, lf, values, tab)
    if spec.agg is None:
        if spec.weighted:
            systems = r.systems().with_columns(w=w)
        else:
            systems = r.systems().with_columns(w=pl.lit(1.0))
        fused = condorcet(lf, systems)
    else:
        context = Context(pl.col("n_sys"), total, values)
        fused = lf.group_by("q", "d").agg(score=spec.agg(context).cast(pl.Float64))
    ranked = (fused.sort(["q", "score", "d"], descending=[False, True, True])
              .with_columns(rank=pl.col("score").rank("ordinal", descending=True)
                            .over("q").cast(pl.Int64)))
    return r.out(ranked.select(pl.col("q").alias(query), pl.col("d").alias(doc),
                               pl.col("score").alias(score), "rank"))
