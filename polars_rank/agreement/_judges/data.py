"""Judgments in long format: checked, labels as category indices, counted per query.

Every count here is an integer computed by Polars; the statistics are computed from the
count tables by Polars too (:mod:`.estimates`), and by NumPy only for the bootstrap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._engine.frames import as_polars
from polars_rank.errors import InvalidDataError

if TYPE_CHECKING:
    from collections.abc import Sequence

C = "__polars_rank_c"  # a label's category index (its position among the sorted labels)
C_A = "__polars_rank_ca"
C_B = "__polars_rank_cb"
LABEL_A = "__polars_rank_label_a"  # the two judges' labels of an item
LABEL_B = "__polars_rank_label_b"
KEY = "__polars_rank_key"  # a component of a query's table
COUNT = "__polars_rank_count"
M = "__polars_rank_m"  # judgments of a unit
J = "__polars_rank_j"  # the position of M among the numbers of judgments of the items
ITEMS = "n_items"
ONE = pl.col(M).is_not_null().cast(pl.Int64)  # 1 on each item: its sum counts them

_SHOWN = 5
RESULT_COLUMNS = frozenset({"n_queries", ITEMS, "kappa", "alpha", "agreement", "ci_low",
                            "ci_high", "count", "label_a", "label_b"})


@dataclass(frozen=True)
class Judgments:
    """Checked judgments: one row per (slice..., query, doc, judge) with a label.

    ``frame`` holds the columns ``groups + [query, doc, judge, label]``, missing
    judgments (null labels) left out.
    """

    frame: pl.DataFrame
    groups: list[str]
    query: str
    doc: str
    judge: str
    label: str

    @property
    def keys(self) -> list[str]:
        """The columns of a query: its slice and the query itself."""
        return [*self.groups, self.query]

    @property
    def unit(self) -> list[str]:
        """The columns of an item (a unit, in Krippendorff's words): slice, query, doc."""
        return [*self.groups, self.query, self.doc]


def _names(value: str | Sequence[str] | None, param: str) -> list[str]:
    if value is None:
        return []
    names = [value] if isinstance(value, str) else list(value)
    if not all(isinstance(n, str) for n in names):
        msg = f"{param} must be a column name or a list of them, got {value!r}"
        raise TypeError(msg)
    return names


def _shown(values: Sequence[Any]) -> str:
    more = ", ..." if len(values) > _SHOWN else ""
    return ", ".join(repr(v) for v in values[:_SHOWN]) + more


def prepare(judgments: Any, *, query: str, doc: str, judge: str, label: str,
            group_by: str | Sequence[str] | None, numeric: str | None = None) -> Judgments:
    """Check the judgments and keep the rows that carry a label.

    ``numeric``: the purpose that needs numeric labels (``"level_of_measurement=
    'ordinal'"``), or None when any labels with equality will do.
    """
    frame = as_polars(judgments, "judgments", query=query, doc=doc, value=label)
    groups = _names(group_by, "group_by")
    named = [(query, "query"), (doc, "doc"), (judge, "judge"), (label, "label"),
             *((g, "group_by") for g in groups)]
    for column, param in named:
        if not isinstance(column, str):
            msg = f"{param} must be a column name, got {column!r}"
            raise TypeError(msg)
    schema = frame.collect_schema()
    for column, param in named:
        if column not in schema:
            msg = (f"judgments has no column {column!r} (named by {param}=); "
                   f"columns: {list(schema)}")
            raise InvalidDataError(msg)
    taken = [c for c in [*groups, query] if c in RESULT_COLUMNS or c.startswith("__polars_rank")]
    if taken:
        msg = (f"column {taken[0]!r} (query= or group_by=) is a name the result or the "
               f"computation uses ({sorted(RESULT_COLUMNS)}, __polars_rank*); rename it")
        raise ValueError(msg)
    columns = [c for c, _ in named]
    if len(set(columns)) != len(columns):
        msg = f"query, doc, judge, label and group_by must name different columns, got {columns}"
        raise ValueError(msg)
    dtype = schema[label]
    if numeric is not None and not dtype.is_numeric():
        msg = (f"{numeric} needs numeric labels: column {label!r} is {dtype} (its order or "
               f"distances would be those of the spelling); map the labels to numbers, or "
               f"use a nominal statistic")
        raise InvalidDataError(msg)
    data = frame.lazy().select(*groups, query, doc, judge, label).collect()
    for column in [*groups, query, doc, judge]:
        if data[column].null_count():
            row = data.filter(pl.col(column).is_null()).row(0, named=True)
            where = ", ".join(f"{c}={row[c]!r}" for c in (query, doc, judge) if c != column)
            msg = (f"column {column!r} has null values ({data[column].null_count()}, e.g. at "
                   f"{where}); a missing judgment is a null label or an absent row")
            raise InvalidDataError(msg)
    if dtype.is_float():
        bad = data.filter(~pl.col(label).is_finite())
        if bad.height:
            msg = (f"column {label!r} has non-finite labels (NaN or infinite), e.g. in query "
                   f"{bad[query][0]!r}, doc {bad[doc][0]!r}; a missing judgment is a null")
            raise InvalidDataError(msg)
    data = data.filter(pl.col(label).is_not_null())
    unit = [*groups, query, doc]
    # a judge labelling an item twice: distinct hashes of (item, judge) are a cheap pass;
    # fewer of them than rows (a repeat, or a collision) calls for the exact count
    if data.select(pl.struct(*unit, judge).hash().n_unique()).item() == data.height:
        return Judgments(data, groups, query, doc, judge, label)
    twice = (data.group_by([*unit, judge]).len().filter(pl.col("len") > 1)
             .sort([*unit, judge]))
    if twice.height:
        first = twice.row(0, named=True)
        msg = (f"judge {first[judge]!r} labels query {first[query]!r}, doc {first[doc]!r} "
               f"{first['len']} times ({twice.height} such (query, doc, judge) triples); "
               f"each judge gives an item one label")
        raise InvalidDataError(msg)
    return Judgments(data, groups, query, doc, judge, label)


def check_judge(data: Judgments, name: Any, param: str) -> None:
    """The judge ``name`` has at least one label, or an error naming the column."""
    try:
        found = data.frame.filter(pl.col(data.judge) == name).height
    except (pl.exceptions.PolarsError, TypeError, ValueError):  # "1" in an integer column
        found = 0
    if not found:
        judges = data.frame[data.judge].unique().sort().to_list()
        msg = (f"{param}={name!r} is not a judge in column {data.judge!r} (or has no label); "
               f"judges: {_shown(judges) if judges else 'none (no row with a label)'}")
        raise InvalidDataError(msg)


def categories(labels: pl.Series, given: Sequence[Any] | None, label: str) -> pl.Series:
    """The sorted labels (``given``: those, in the order given), each label's index."""
    if given is None:
        found: pl.Series = labels.unique().sort().rename(label)
        return found
    dtype = labels.dtype
    text = dtype == pl.String or dtype == pl.Categorical or isinstance(dtype, pl.Enum)
    strings = [isinstance(g, str) for g in given]
    if text != all(strings) or any(strings) != all(strings):
        shown = [str(g) for g in given] if text else None
        msg = (f"labels={list(given)!r} do not match column {label!r} ({dtype}): give them "
               + (f"as text, as the column holds them: {shown!r}" if text
                  else "as numbers, as the column holds them, not as text"))
        raise ValueError(msg)
    out = pl.Series(label, list(given), dtype=dtype, strict=False)
    if out.to_list() != list(given):
        msg = (f"labels={list(given)!r} are not all values of column {label!r} "
               f"({labels.dtype}): read as {out.to_list()!r}")
        raise ValueError(msg)
    if out.null_count() or out.n_unique() != out.len():
        msg = f"labels must be distinct non-null values, got {list(given)!r}"
        raise ValueError(msg)
    extra = labels.unique().filter(~labels.unique().is_in(out.implode())).sort()
    if extra.len():
        msg = f"column {label!r} has labels not in labels=: {_shown(extra.to_list())}"
        raise InvalidDataError(msg)
    return out


def with_index(frame: pl.DataFrame, label: str, cats: pl.Series, name: str = C) -> pl.DataFrame:
    """``frame`` with each label's category index in column ``name``."""
    index = pl.DataFrame({label: cats, name: pl.int_range(cats.len(), eager=True,
                                                          dtype=pl.Int64)})
    return frame.join(index, on=label, how="left")


def pairs(data: Judgments, judge_a: Any, judge_b: Any) -> pl.DataFrame:
    """The items both judges labelled: slice, query, doc and the two labels (a, b)."""
    check_judge(data, judge_a, "judge_a")
    check_judge(data, judge_b, "judge_b")
    if judge_a == judge_b:
        msg = f"judge_a and judge_b must be two judges, got {judge_a!r} twice"
        raise ValueError(msg)
    def labels_of(judge: Any, name: str) -> pl.LazyFrame:
        return (data.frame.lazy().filter(pl.col(data.judge) == judge).drop(data.judge)
                .rename({data.label: name}))

    a, b = labels_of(judge_a, LABEL_A), labels_of(judge_b, LABEL_B)
    joined = a.join(b, on=data.unit, how="inner").collect()
    if not joined.height:
        msg = (f"judges {judge_a!r} and {judge_b!r} (column {data.judge!r}) have no item "
               f"(query, doc) in common")
        raise InvalidDataError(msg)
    return joined


def pair_table(data: Judgments, joined: pl.DataFrame,
               cats: pl.Series) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per query, the count of each (label of a, label of b) at key ``a * C + b``; items."""
    size = cats.len()
    indexed = with_index(with_index(joined.rename({LABEL_A: data.label}), data.label, cats, C_A)
                         .drop(data.label).rename({LABEL_B: data.label}), data.label, cats, C_B)
    table = (indexed.group_by([*data.keys, C_A, C_B]).len(COUNT)
             .select(*data.keys, (pl.col(C_A) * size + pl.col(C_B)).alias(KEY), COUNT))
    return table, indexed.group_by(data.keys).agg(pl.len().alias(ITEMS))


def unit_counts(data: Judgments, cats: pl.Series) -> pl.DataFrame:
    """Per item: how many judges gave each label (``COUNT``) and judged it (``M``)."""
    counted = (with_index(data.frame, data.label, cats).group_by([*data.unit, C])
               .len(COUNT))
    return counted.with_columns(pl.col(COUNT).sum().over(data.unit).alias(M))


def unit_wide(data: Judgments, cats: pl.Series) -> pl.DataFrame:
    """Per item: its judgments (``M``) and how many gave each label, a column per label.

    The columns are :func:`label_columns`; one ``group_by`` over the judgments.
    """
    return (data.frame.lazy().group_by(data.unit)
            .agg(pl.len().cast(pl.Int64).alias(M),
                 *(pl.col(data.label).eq(pl.lit(value, dtype=cats.dtype)).sum().cast(pl.Int64)
                   .alias(name)
                   for value, name in zip(cats, label_columns(cats.len()), strict=True)))
            .collect())


def label_columns(size: int) -> list[str]:
    """The columns of :func:`unit_wide`: judgments of an item with each label."""
    return [f"__polars_rank_n{c}" for c in range(size)]


def component_sums(units: pl.DataFrame, by: list[str], parts: Sequence[pl.Expr]) -> pl.DataFrame:
    """``[*by, KEY, COUNT]``: per group of items, the sum of each part at key = its index."""
    names = [f"__polars_rank_part{i}" for i in range(len(parts))]
    aggregations = [part.sum().cast(pl.Int64).alias(name)
                    for part, name in zip(parts, names, strict=True)]
    sums = units.group_by(by).agg(*aggregations) if by else units.select(*aggregations)
    return (sums.unpivot(names, index=by, variable_name=KEY, value_name=COUNT)
            .with_columns(pl.col(KEY).str.strip_prefix("__polars_rank_part").cast(pl.Int64)))


def positions(units: pl.DataFrame) -> tuple[pl.DataFrame, list[int]]:
    """The items' numbers of judgments, sorted, and a frame of each one's position ``J``."""
    sizes: list[int] = units[M].unique().sort().to_list()
    return pl.DataFrame({M: sizes, J: range(len(sizes))},
                        schema={M: pl.Int64, J: pl.Int64}), sizes

