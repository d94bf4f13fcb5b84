"""``report()``: a comparison as a results table (Markdown, LaTeX, text) or a chart.

The tables are ranx's (``Report.to_table`` and ``Report.to_latex`` in
ranx/data_structures/report.py, AmenRa/ranx at commit 2cae52f0, v0.3.21): one row per
arm, lettered a, b, c..., one column per metric, each cell the arm's mean, the best
per column in bold, and as superscripts the letters of the arms it is significantly
better than.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, TypeAlias, overload

import polars as pl

from polars_rank._compare.options import OPTIONAL_COLUMNS, RESULT_COLUMNS
from polars_rank._compare.report_text import LETTERS, Table, latex, markdown, plain

if TYPE_CHECKING:
    from collections.abc import Sequence

    import altair as alt

    from polars_rank.plot import Frame

__all__ = ["report"]

TextFormat: TypeAlias = Literal["markdown", "latex", "table"]

_TESTS = {"t": "Student's t-test", "randomization": "Fisher's randomization test",
          "bootstrap": "bootstrap test", "wilcoxon": "Wilcoxon signed-rank test",
          "sign": "sign test", "tukey": "Tukey's HSD test"}
_UNPAIRED = {"t": "Welch's t-test", "wilcoxon": "Wilcoxon rank-sum test"}
_REQUIRED = ("metric", "baseline", "mean", "baseline_mean", "delta")
_MINUS = "\N{MINUS SIGN}"


def _one(frame: pl.DataFrame, column: str, default: Any) -> Any:
    if column not in frame.columns:
        return default
    values = frame[column].drop_nulls().unique(maintain_order=True).to_list()
    if len(values) > 1:
        msg = (f"report() renders one comparison: column {column!r} holds several values "
               f"{values}; filter the comparison first")
        raise ValueError(msg)
    return values[0] if values else default


def _table(frame: pl.DataFrame, arm: str, digits: int, alpha: float | None,
           lower_is_better: Sequence[str]) -> Table:
    missing = [c for c in (arm, *_REQUIRED) if c not in frame.columns]
    if missing:
        msg = (f"comparison has no column(s) {missing}: give compare()'s output (and its "
               f"arm column name as arm=); its columns are {frame.columns}")
        raise ValueError(msg)
    slices = [c for c in frame.columns
              if c not in RESULT_COLUMNS and c not in OPTIONAL_COLUMNS and c != arm]
    if slices and frame.select(slices).unique().height > 1:
        msg = (f"report() renders one slice at a time; the comparison has slices "
               f"{slices}: filter one first, e.g. comparison.filter(pl.col({slices[0]!r}) "
               f"== ...)")
        raise ValueError(msg)
    frame = frame.with_columns(pl.col(arm, "baseline").cast(pl.String))
    metrics = frame["metric"].unique(maintain_order=True).to_list()
    arms = list(dict.fromkeys(a for row in frame.select("baseline", arm).iter_rows()
                              for a in row))
    if len(arms) > len(LETTERS):
        msg = f"report() letters at most {len(LETTERS)} arms, got {len(arms)}"
        raise ValueError(msg)
    # an arm's mean: from its comparison over the most queries (paired comparisons
    # average over the queries both arms have; they agree when every arm has every query)
    n = pl.col("n") if "n" in frame.columns else pl.lit(0)
    sides = pl.concat([
        frame.select("metric", pl.col(arm).alias("who"), n.alias("n"), pl.col("mean")),
        frame.select("metric", pl.col("baseline").alias("who"), n.alias("n"),
                     pl.col("baseline_mean").alias("mean")),
    ], how="vertical_relaxed")
    best_rows = (sides.with_row_index().sort("n", "index", descending=[True, False])
                 .group_by("metric", "who", maintain_order=True).first())
    means: dict[tuple[str, str], float | None] = {
        (r["who"], r["metric"]): r["mean"] for r in best_rows.iter_rows(named=True)}
    if alpha is None:
        if "significant" not in frame.columns:
            msg = "comparison has no column 'significant': give alpha= to use p_adjusted"
            raise ValueError(msg)
        significant = pl.col("significant").fill_null(value=False)
    else:
        significant = (pl.col("p_adjusted") <= alpha).fill_null(value=False)
    beats: dict[tuple[str, str], list[int]] = {}
    for r in frame.filter(significant).iter_rows(named=True):
        delta = r["delta"]
        if delta is None or delta == 0:
            continue
        better = delta < 0 if r["metric"] in lower_is_better else delta > 0
        winner, loser = (r[arm], r["baseline"]) if better else (r["baseline"], r[arm])
        beats.setdefault((winner, r["metric"]), []).append(arms.index(loser))
    best: dict[str, set[str]] = {}
    for m in metrics:
        rounded = {a: round(v, digits) for a in arms
                   if (v := means.get((a, m))) is not None}
        if rounded:
            top = (min if m in lower_is_better else max)(rounded.values())
            best[m] = {a for a, v in rounded.items() if v == top}
    test = str(_one(frame, "test", "t"))
    paired = "wins" not in frame.columns or frame["wins"].null_count() < frame.height
    names = {**_TESTS, "t": "paired Student's t-test"} if paired else {**_TESTS, **_UNPAIRED}
    label = names.get(test, test)
    alternative = _one(frame, "alternative", "two-sided")
    if alternative != "two-sided":
        label = f"one-sided ({alternative}) {label}"
    level = float(alpha if alpha is not None else _one(frame, "alpha", 0.05))
    correction = _one(frame, "correction", None)
    return Table(arms, metrics, means, {k: sorted(v) for k, v in beats.items()}, best,
                  label, level, None if correction in (None, "tukey") else str(correction))


def _chart(frame: pl.DataFrame, arm: str, title: str | None) -> alt.FacetChart:
    """Each pair's delta and interval, a line per pair (:func:`polars_rank.plot.forest`'s look)."""
    from polars_rank._plot.common import WIDTH, import_altair
    from polars_rank._plot.forest import forest_data

    alt = import_altair("report(format='chart')")
    slices = [c for c in frame.columns
              if c not in RESULT_COLUMNS and c not in OPTIONAL_COLUMNS and c != arm]
    pair = pl.concat_str(pl.col(arm).cast(pl.String), pl.lit(f" {_MINUS} "),
                         pl.col("baseline").cast(pl.String)).alias("pair")
    # the pair is the only "slice" of forest_data: one line per pair
    data = forest_data(frame.select(pair, pl.exclude(*slices, *OPTIONAL_COLUMNS)), arm=arm)
    arms = data["arm"].unique(maintain_order=True).to_list()
    x = alt.X("estimate:Q", title=f"delta (arm {_MINUS} baseline)",
              axis=alt.Axis(format=".3f", tickCount=6), scale=alt.Scale(padding=12))
    y = alt.Y("pair:N", title=None, sort=data["pair"].unique(maintain_order=True).to_list())
    color = alt.Color("arm:N", title=arm, scale=alt.Scale(domain=arms))
    tooltip = ["pair:N", "metric:N", alt.Tooltip("estimate:Q", title="delta", format="+.4f"),
               alt.Tooltip("low:Q", title="CI low", format="+.4f"),
               alt.Tooltip("high:Q", title="CI high", format="+.4f"),
               alt.Tooltip("p_adjusted:Q", title="p (adjusted)", format=".4g"),
               "significant:N"]
    zero = alt.Chart().mark_rule(strokeDash=[4, 3], color="#555555").encode(x=alt.datum(0))
    bars = alt.Chart().mark_rule(strokeWidth=2.5).encode(
        alt.X("low:Q", title=f"delta (arm {_MINUS} baseline)"), alt.X2("high:Q"), y, color)
    hollow = alt.Chart().mark_point(size=90, strokeWidth=2, opacity=1, filled=False,
                                    fill="white").encode(x, y, color, tooltip=tooltip)
    filled = alt.Chart().transform_filter("datum.significant").mark_point(
        size=90, strokeWidth=2, opacity=1, filled=True).encode(x, y, color, tooltip=tooltip)
    chart = alt.layer(zero, bars, hollow, filled, data=data).properties(
        width=WIDTH + 100, height=alt.Step(22))
    chart = chart.facet(row=alt.Row(
        "metric:N", title=None, sort=data["metric"].unique(maintain_order=True).to_list(),
        header=alt.Header(labelAngle=0, labelAlign="left", labelFontSize=13,
                          labelFontWeight="bold")))
    subtitle = "filled: significant after correction; bars: confidence intervals"
    chart = chart.resolve_scale(x="independent").properties(title=alt.TitleParams(
        title or "each pair of arms", subtitle=subtitle, anchor="start"))
    return chart  # type: ignore[no-any-return]


@overload
def report(comparison: Frame, *, format: TextFormat = ..., arm: str = ..., digits: int = ...,
           alpha: float | None = ..., lower_is_better: Sequence[str] = ...,
           caption: str | None = ..., label: str = ...) -> str: ...


@overload
def report(comparison: Frame, *, format: Literal["chart"], arm: str = ..., digits: int = ...,
           alpha: float | None = ..., lower_is_better: Sequence[str] = ...,
           caption: str | None = ..., label: str = ...) -> alt.FacetChart: ...


def report(
    comparison: Frame,
    *,
    format: TextFormat | Literal["chart"] = "markdown",
    arm: str = "arm",
    digits: int = 4,
    alpha: float | None = None,
    lower_is_better: Sequence[str] = (),
    caption: str | None = None,
    label: str = "tab:results",
) -> str | alt.FacetChart:
    r"""A comparison as a results table (Markdown, LaTeX, text) or a chart, as ranx prints it.

    The table is ranx's report (``Report.to_table``, ``Report.to_latex`` in
    ranx/data_structures/report.py, AmenRa/ranx commit 2cae52f0): one row per arm,
    lettered a, b, c... in the order the arms first appear in the comparison (the
    baseline first), one column per metric, each cell the arm's mean rounded to
    ``digits``; the best mean of each column in bold; and, after a mean, the letters
    of the arms this arm is significantly better than (``significant``: its adjusted
    p-value at most ``alpha``, the delta in its favour). The caption says which test
    and which correction, in ranx's words. A pair ``compare()`` did not test (two
    arms against a baseline are not tested against each other) gives no letter.

    What differs from ranx: the metric names are printed as given (ranx relabels its
    own, ``ndcg@10`` as ``NDCG@10``); every arm with the best rounded mean is bold
    (ranx: the first); numbers keep their trailing zeros (ranx's text table, through
    tabulate, prints 0.320 as 0.32); a metric in ``lower_is_better`` is best at its
    minimum; the
    caption names the multiple-comparison correction (ranx corrects nothing); the
    LaTeX names and arms are escaped (ranx escapes ``_`` in the rows only), its
    preamble note is a LaTeX comment and empty superscripts and phantoms are left
    out; Markdown (``<sup>`` superscripts, ``**bold**``) is new.

    Parameters
    ----------
    comparison
        :func:`polars_rank.compare` output of one slice (filter a sliced one first):
        all pairs (``baseline=None``), one baseline or several.
    format
        ``"markdown"`` (the default), ``"latex"`` (booktabs), ``"table"`` (plain text
        with Unicode superscripts, ranx's ``print(report)``) or ``"chart"``: an Altair
        forest plot of each pair's delta and interval (:func:`polars_rank.plot.forest`,
        filled points significant; needs ``polars-rank[plot]``).
    arm
        The arm column, as named in :func:`polars_rank.compare`; the table's header.
    digits
        Decimals of the means.
    alpha
        ``None``: the comparison's ``significant`` column (its own alpha and
        correction); a number: ``p_adjusted <= alpha`` instead.
    lower_is_better
        Metrics whose best value is the smallest (abandonment, a loss).
    caption
        Replaces the caption (LaTeX: inside ``\caption{}``; LaTeX is not escaped).
    label
        The LaTeX ``\label``.

    Returns
    -------
    str | alt.FacetChart
        The table as text, ending with a newline, or the chart.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> per_query = pl.DataFrame({
    ...     "arm": ["bm25"] * 8 + ["dense"] * 8 + ["hybrid"] * 8,
    ...     "qid": list(range(8)) * 3,
    ...     "ndcg": [.3, .4, .2, .5, .3, .4, .1, .3, .5, .5, .4, .6, .4, .7, .3, .4,
    ...              .6, .7, .3, .8, .6, .6, .4, .5],
    ... })
    >>> print(pr.report(pr.compare(per_query), format="table"))  # doctest: +NORMALIZE_WHITESPACE
    #  arm     ndcg
    -  ------  -------
    a  bm25    0.3125
    b  dense   0.4750ᵃ
    c  hybrid  0.5625ᵃ
    <BLANKLINE>
    Overall effectiveness of the models.
    Superscripts denote significant differences in paired Student's t-test with p ≤ 0.05
    after Holm's correction.
    <BLANKLINE>
    """
    if format not in ("markdown", "latex", "table", "chart"):
        msg = f"format must be 'markdown', 'latex', 'table' or 'chart', got {format!r}"
        raise ValueError(msg)
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
        msg = f"digits must be a non-negative int, got {digits!r}"
        raise ValueError(msg)
    if alpha is not None and (isinstance(alpha, bool) or not isinstance(alpha, (int, float))
                              or not 0 < alpha < 1):
        msg = f"alpha must be None or a number strictly between 0 and 1, got {alpha!r}"
        raise ValueError(msg)
    if isinstance(lower_is_better, str):
        lower_is_better = [lower_is_better]
    frame = comparison.collect() if isinstance(comparison, pl.LazyFrame) else comparison
    if not isinstance(frame, pl.DataFrame):
        msg = f"comparison must be a polars DataFrame or LazyFrame, got {type(frame).__name__}"
        raise TypeError(msg)
    if format == "chart":
        if arm not in frame.columns or "baseline" not in frame.columns:
            msg = (f"comparison needs columns {arm!r} and 'baseline'; its columns are "
                   f"{frame.columns}")
            raise ValueError(msg)
        return _chart(frame, arm, caption)
    if frame.height == 0:
        msg = "comparison has no rows: nothing to report"
        raise ValueError(msg)
    table = _table(frame, arm, digits, alpha, lower_is_better)
    if format == "markdown":
        return markdown(table, arm, digits, caption)
    if format == "table":
        return plain(table, arm, digits, caption)
    return latex(table, arm, digits, caption, label)
