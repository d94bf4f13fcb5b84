"""The runs of a fusion: read once, checked as ``evaluate()`` checks a run, ranked.

Every fusion entry point (``fuse``, ``normalize``, ``train``, ``optimize_fusion``,
``compare_fusion``) reads its runs through :class:`Runs`: one long lazy frame with a
row per (system, query, document), whatever the runs came as.

* **The systems** are in the runs' order (a list's, a dict's); for one frame with a
  system column, its values sorted. Column ``i`` is each row's system index: sums
  over the systems add in that order, and equal values are decided by it.
* **Ids**: query (or doc) columns of different types in different runs are compared
  as text, as ``evaluate()`` compares a run's ids with its qrels'.
* **Checks** (``validate=True``): the rules of :mod:`polars_rank._engine.rules` that apply
  to a run (null query or document ids, NaN scores), an infinite score (fusion adds
  and normalises scores: inf - inf is NaN) and a (system, query, document) given
  twice raise :class:`~polars_rank.InvalidDataError` naming the rule, the run, the
  column and the query and document. A row with a null score is not retrieved.
* **Ranks** (:func:`positions`): each run's list by normalised score, then raw
  score, then document id descending (trec_eval's order, as ``evaluate()`` ranks
  equal scores), so that no result depends on the order of the rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank._engine.rules import id_rules, score_rules
from polars_rank._evaluation.checks import row_hash
from polars_rank.errors import InvalidDataError
from polars_rank.fusion import _norms

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["NORMS", "Norm", "Runs", "check_norm", "normalized", "positions", "of_system"]

Norm: TypeAlias = Literal["min-max", "min-max-inverted", "max", "sum", "zmuv", "rank",
                          "borda"]

NORMS = ("min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda")
"""The normalisations, by ranx's names (``min_max`` and ``min_max_inverted`` too)."""

def of_system(i: int) -> pl.Expr:
    """True on the rows of the ``i``-th system (column ``i``: 0, 1, ... in the runs' order)."""
    return pl.col("i") == i

_INFINITE = "infinite score (fusion adds and normalises scores; inf - inf is NaN)"


class Runs:
    """The runs as one lazy frame ``q, d, s, sys, i``, checked, and facts about them.

    ``names``: the systems in their order (``i`` is the index in it); ``from_frame``:
    the runs came as one frame with a system column (weights then by name only).
    """

    def __init__(self, runs: Any, *, query: str, doc: str, score: str, system: str,
                 validate: bool = True) -> None:
        for column, param in ((query, "query"), (doc, "doc"), (score, "score"),
                              (system, "system")):
            if not isinstance(column, str):
                msg = f"{param} must be a column name, got {column!r}"
                raise TypeError(msg)
        if isinstance(runs, Mapping) and not isinstance(runs, (pl.DataFrame, pl.LazyFrame)):
            names, frames = list(runs), list(runs.values())
        elif isinstance(runs, Sequence) and not isinstance(runs, str):
            names, frames = list(range(len(runs))), list(runs)
        else:
            names, frames = [], [runs]
        self.from_frame = not names
        if not self.from_frame and len(frames) < 2:
            msg = f"fuse needs at least two runs; got {len(frames)}"
            raise ValueError(msg)
        polars = [as_polars(f, "runs", query=query, doc=doc, value=score) for f in frames]
        self.lazy = any(isinstance(f, pl.LazyFrame) for f in polars)
        self.query, self.doc, self.score, self.system = query, doc, score, system
        labels = [f"run {n!r}" for n in names] if names else ["runs"]
        needed = [query, doc, score, *([system] if self.from_frame else [])]
        schemas = [f.collect_schema() for f in polars]
        for label, schema in zip(labels, schemas, strict=True):
            missing = [c for c in needed if c not in schema]
            if missing:
                msg = (f"{label} has no column {missing[0]!r} (the {_role(missing[0], needed)}"
                       f" column); columns: {list(schema)}")
                raise ValueError(msg)
            dtype = schema[score]
            if not (dtype.is_numeric() or dtype == pl.Boolean or dtype == pl.Null):
                msg = (f"{label}: score column {score!r} is {dtype}, not a number (text would "
                       "rank alphabetically: cast it to a number)")
                raise TypeError(msg)
        # ids of different types in different runs: compared as text, as evaluate()
        # compares a run's ids with its qrels'
        as_text = {c for c in (query, doc) if len({s[c] for s in schemas}) > 1}
        columns = {"q": pl.col(query), "d": pl.col(doc)}
        columns = {k: v.cast(pl.String) if v.meta.output_name() in as_text else v
                   for k, v in columns.items()}
        score_expr = pl.col(score).cast(pl.Float64)
        if self.from_frame:
            frame = polars[0].lazy()
            self.names = _system_values(frame, system)
            index = pl.col(system).replace_strict(self.names, list(range(len(self.names))),
                                                  return_dtype=pl.Int64)
            self.frame = frame.select(**columns, s=score_expr, sys=pl.col(system), i=index)
        else:
            self.names = names
            dtype = pl.Series("sys", names).dtype
            self.frame = pl.concat([
                f.lazy().select(**columns, s=score_expr, sys=pl.lit(name, dtype),
                                i=pl.lit(k, pl.Int64))
                for k, (name, f) in enumerate(zip(names, polars, strict=True))])
        if validate:
            self._check()
        self.frame = self.frame.filter(pl.col("s").is_not_null())

    def _check(self) -> None:
        """Raise :class:`InvalidDataError` for the first row breaking a rule, by rule.

        One pass tells which rules have offending rows, and counts the rows and their
        distinct (system, query, doc) hashes (fewer hashes: a duplicate, or a collision,
        which the exact search then does not confirm); the first offender is searched
        only for a rule that has one (a few times cheaper than searching every rule).
        """
        q, d, s = pl.col("q"), pl.col("d"), pl.col("s")
        rules: list[tuple[str, str, pl.Expr]] = [
            (problem, self.query if "query" in problem else self.doc, mask)
            for problem, mask in id_rules([q], d)]
        rules += [(problem, self.score, mask) for problem, mask in score_rules(s)]
        rules.append((_INFINITE, self.score, s.is_infinite()))
        masks = [mask.fill_null(False) for _, _, mask in rules]
        counts = self.frame.select(*(m.any().alias(f"_{k}") for k, m in enumerate(masks)),
                                   rows=pl.len(), pairs=row_hash(["i", "q", "d"]).n_unique())
        # the hash count is about twice as fast on the in-memory engine (as evaluate's)
        found = counts.collect(engine="in-memory")
        where = pl.struct("sys", "q", "d")
        for k, (problem, column, _) in enumerate(rules):
            if found[f"_{k}"].item():
                row = self.frame.filter(masks[k]).select(where).head(1).collect().item()
                self._raise(f"{problem} in column {column!r}", row)
        if found["pairs"].item() < found["rows"].item():
            twice = (self.frame.filter(pl.struct("i", "q", "d").is_duplicated())
                     .select(where).head(1).collect())
            if twice.height:
                self._raise("duplicate (query, doc) rows (fusion would count the document "
                            "twice)", twice.item())

    def _raise(self, problem: str, row: dict[str, Any]) -> None:
        run = (f"{self.system}={row['sys']!r}" if self.from_frame
               else f"run {row['sys']!r}")
        msg = (f"{problem}: first in {run} at {self.query}={row['q']!r}, "
               f"{self.doc}={row['d']!r}")
        raise InvalidDataError(msg)

    def systems(self) -> pl.LazyFrame:
        """The systems: ``sys`` and ``i``, in order."""
        return pl.LazyFrame([pl.Series("sys", self.names),
                             pl.Series("i", range(len(self.names)), pl.Int64)])

    def weight_list(self, weights: Any) -> list[float]:
        """The weights in the systems' order, from a list (runs' order) or a dict."""
        if isinstance(weights, Mapping):
            mapping = {k: float(v) for k, v in weights.items()}
            if set(mapping) != set(self.names):
                msg = f"weights: the systems are {self.names}; got weights for {list(mapping)}"
                raise ValueError(msg)
            return [mapping[n] for n in self.names]
        if not self.from_frame and isinstance(weights, Sequence) \
                and len(weights) == len(self.names):
            return [float(w) for w in weights]
        msg = ("weights: give one weight per run, in the runs' order, or a dict "
               f"{{system: weight}} (the only form for a frame with a {self.system!r} "
               f"column); got {weights!r}")
        raise ValueError(msg)

    def out(self, lf: pl.LazyFrame) -> pl.DataFrame | pl.LazyFrame:
        return lf if self.lazy else lf.collect()


def _role(column: str, needed: list[str]) -> str:
    return ("query", "doc", "score", "system")[needed.index(column)]


def _system_values(frame: pl.LazyFrame, system: str) -> list[Any]:
    """The system column's values, sorted (read now: the plan needs one column each)."""
    values = frame.select(pl.col(system).unique().sort()).collect()[system]
    if values.null_count():
        msg = f"runs: system column {system!r} has null values"
        raise InvalidDataError(msg)
    return values.to_list()


def check_norm(norm: str | None) -> str | None:
    if norm is None:
        return None
    canonical = norm.replace("_", "-") if isinstance(norm, str) else norm
    if canonical not in NORMS:
        msg = f"norm must be one of {', '.join(NORMS)} or None; got {norm!r}"
        raise ValueError(msg)
    return canonical


def _inverted(score: pl.Expr) -> pl.Expr:
    return _norms.min_max_norm(score, invert=True)


def _rank(score: pl.Expr) -> pl.Expr:
    return _norms.rank_norm(score, doc="d")


_EXPRESSIONS: dict[str, Callable[[pl.Expr], pl.Expr]] = {
    "min-max": _norms.min_max_norm,
    "min-max-inverted": _inverted,
    "max": _norms.max_norm,
    "sum": _norms.sum_norm,
    "zmuv": _norms.zmuv_norm,
    "rank": _rank,
}


def normalized(runs: Runs, norm: str | None) -> pl.LazyFrame:
    """Rows ``q, d, s, sys, i, v``: the raw and normalised scores.

    Borda: every candidate in every run, those the run did not return with a null ``s``.
    """
    lf = runs.frame
    if norm is None:
        return lf.with_columns(v=pl.col("s"))
    if norm != "borda":
        return lf.with_columns(v=_EXPRESSIONS[norm](pl.col("s")).over("i", "q"))
    lf = lf.with_columns(n_cand=pl.col("d").n_unique().over("q"))
    present = lf.select("q", "d", "s", "sys", "i",
                        v=_norms.borda_norm("s", candidates="n_cand", doc="d").over("i", "q"))
    lengths = lf.group_by("q", "i").agg(n_ret=pl.len())
    cand = lf.group_by("q").agg(n_cand=pl.col("n_cand").first())
    missing = (lf.select("q", "d").unique()
               .join(runs.systems(), how="cross")
               .join(present, on=["q", "d", "i"], how="anti")
               .join(cand, on="q")
               .join(lengths, on=["q", "i"], how="left")
               .select("q", "d", pl.lit(None, pl.Float64).alias("s"), "sys", "i",
                       v=0.5 - (pl.col("n_ret").fill_null(0) - 1.0)
                       / (2.0 * pl.col("n_cand").cast(pl.Float64))))
    return pl.concat([present, missing])


def positions() -> pl.Expr:
    """1-based rank in the system's list, by normalised score, raw score, doc id.

    Highest first; where normalisation made scores equal, by the raw score, highest
    first (ranx ranks its runs by raw score when it reads them); equal raw scores by
    document id, descending, as ``evaluate()`` orders them (ranx keeps them in input
    order, for lists of up to 15 documents: a run's row order is no input here).
    """
    # one struct key, all descending (a null raw score, Borda's added rows, last); the
    # key is unique within a list, so ordinal ranks need no tie rule
    return pl.struct("v", "s", "d").rank("ordinal", descending=True).cast(pl.Int64)
