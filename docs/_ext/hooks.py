"""MkDocs hooks: pages and images generated from the code when the site is built.

* ``metrics.md``: the metric reference table, from :mod:`polars_rank.registry` (name,
  aliases, parameters, formula, trec_eval equivalent, paper) and, for the metrics
  that are expressions only (clicks), from :mod:`polars_rank.metrics`;
* the method table of ``reference/namespace.md``, from the ``rank`` namespace's
  signatures (each method is generated from a function of :mod:`polars_rank.metrics`);
* ``img/*.svg``: the charts of the Plots and Comparing arms pages, saved by
  ``gallery.py`` (whose code the pages show).

Nothing generated is committed, so nothing can go stale. The tests call
:func:`metric_table` directly.
"""

from __future__ import annotations

import inspect
import os
import re
import runpy
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

_MATH = re.compile(r"^\s*\.\. math::\s*(?P<first>.*)$")
_NONE = "\N{EN DASH}"  # an empty table cell


def formula(function: Callable[..., Any]) -> str:
    """The first ``.. math::`` formula of a function's docstring, on one line ("" if none)."""
    lines = (inspect.getdoc(function) or "").splitlines()
    for i, line in enumerate(lines):
        match = _MATH.match(line)
        if match is None:
            continue
        indent = len(line) - len(line.lstrip())
        parts = [match["first"].strip()]
        for more in lines[i + 1:]:
            if not more.strip() or len(more) - len(more.lstrip()) <= indent:
                break
            parts.append(more.strip())
        return " ".join(p for p in parts if p)
    return ""


def summary(function: Callable[..., Any]) -> str:
    """The first line of a function's docstring."""
    return (inspect.getdoc(function) or "").splitlines()[0]


def _cell(text: str) -> str:
    return text.replace("|", r"\|") if text else _NONE


def _math_cell(tex: str) -> str:
    # a table cell cannot hold "|": LaTeX has \vert for it
    return "$" + tex.replace("|", r" \vert ") + "$" if tex else _NONE


def _anchor(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def metric_table() -> str:
    """The Markdown of the metric reference page."""
    from polars_rank import metrics
    from polars_rank._language.parser import trec_cut_spellings
    from polars_rank.registry import METRICS

    lines = [
        "# Metric reference",
        "",
        "Generated from the metric registry (`polars_rank.registry.METRICS`) when the",
        "documentation is built. A metric string is `name`, `name@k` or",
        "`name@k(option=value)`, case-insensitive, in any of the spellings below",
        "(see [`parse_metric`][polars_rank._language.parser.parse_metric]);",
        "`polars-rank metrics` prints the same list. Each name links to the function,",
        "whose page has the parameters, the conventions and an example.",
        "",
        "| metric string | aliases | parameters | formula | trec_eval | paper |",
        "|---|---|---|---|---|---|",
    ]
    for m in METRICS.values():
        spelling = f"`{m.name}@k`" if m.cutoff else f"`{m.name}`"
        aliases = ", ".join(f"`{a}`" for a in m.aliases)
        params = (["`k`: cutoff (none: the whole list)"] if m.cutoff else [])
        for o in m.options:
            choices = f" ({' or '.join(o.choices)})" if o.choices else ""
            params.append(f"`{o.name}={o.default}`{choices}: {o.description}")
        link = f"[{spelling}][{_anchor(m.function)}]"
        lines.append(
            f"| {link} | {_cell(aliases)} | {_cell('; '.join(params))} | "
            f"{_math_cell(formula(m.function))} | {_cell(m.trec_eval)} | {_cell(m.paper)} |"
        )
    lines += [
        "",
        "## trec_eval spellings",
        "",
        "trec_eval's own names, with the cutoff after `_` or `.`, mean exactly what",
        "trec_eval computes, whatever polars-rank's defaults are:",
        "",
        "| trec_eval | polars-rank |",
        "|---|---|",
    ]
    for name, (target, options) in trec_cut_spellings().items():
        shown = {"p": "P", "p_avgjg": "P_avgjg"}.get(name, name)
        opts = ",".join(f"{k}={v}" for k, v in options.items())
        lines.append(f"| `{shown}_10`, `{shown}.10` | `{target}@10{f'({opts})' if opts else ''}` |")
    registered = {m.function for m in METRICS.values()}
    extra = [name for name in metrics.__all__ if getattr(metrics, name) not in registered]
    lines += [
        "",
        "## Expression-only metrics",
        "",
        "These metrics read an impression log (clicks, dwell times) rather than",
        "judgments, so they are expressions and `rank` methods but not metric strings",
        "of `evaluate()`:",
        "",
        "| function | definition | formula |",
        "|---|---|---|",
    ]
    for name in extra:
        function = getattr(metrics, name)
        lines.append(f"| [`{name}`][{_anchor(function)}] | {_cell(summary(function))} | "
                     f"{_math_cell(formula(function))} |")
    lines += [
        "",
        "## Beyond-accuracy metrics",
        "",
        "Recommender metrics that read item ids, an item table or a log (see",
        "[Beyond accuracy](beyond_accuracy.md)); expressions and frame functions, not",
        "metric strings:",
        "",
        *beyond_accuracy_table().splitlines(),
    ]
    return "\n".join(lines) + "\n"


BEYOND_TABLE = "<!-- beyond-accuracy-table -->"


def beyond_accuracy_table() -> str:
    """The Markdown table of the beyond-accuracy functions (``polars_rank.recsys``)."""
    from polars_rank.recsys._table import TABLE, summary

    lines = ["| function | kind | reads | matches | definition |", "|---|---|---|---|---|"]
    for e in TABLE:
        lines.append(f"| [`{e.name}`][{_anchor(e.function)}] | {e.kind} | {_cell(e.reads)} | "
                     f"{_cell(e.matches)} | {_cell(summary(e.function))} |")
    return "\n".join(lines) + "\n"


NAMESPACE_TABLE = "<!-- namespace-table -->"


def namespace_table() -> str:
    """The Markdown table of the ``rank`` methods and the functions they call."""
    from polars_rank import RankNameSpace, metrics

    lines = ["| method | the function it calls |", "|---|---|"]
    for name in metrics.__all__:
        function = getattr(metrics, name)
        shown: list[str] = []
        for p in list(inspect.signature(getattr(RankNameSpace, name)).parameters.values())[1:]:
            if p.kind is p.KEYWORD_ONLY and "*" not in shown:
                shown.append("*")
            shown.append(p.name)
        note = {"map": " (MAP with `query=`)", "mrr": " (MRR with `query=`)"}.get(name, "")
        lines.append(f"| `rank.{name}({', '.join(shown)})` | "
                     f"[`polars_rank.{function.__name__}`][{_anchor(function)}]{note} |")
    return "\n".join(lines) + "\n"


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Fill the generated tables into the pages that hold their markers."""
    return (markdown.replace(NAMESPACE_TABLE, namespace_table())
            .replace(BEYOND_TABLE, beyond_accuracy_table()))


def charts(folder: Path) -> dict[str, Any]:
    """Run ``gallery.py`` (the Plots page's code) in ``folder``; its charts by name."""
    script = Path(__file__).with_name("gallery.py")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # compare() notes are not build warnings
            namespace = runpy.run_path(str(script), run_name="gallery")
    finally:
        os.chdir(cwd)
    return dict(namespace["CHARTS"])


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated metric page and chart images to the site."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, "metrics.md", content=metric_table()))
    with tempfile.TemporaryDirectory() as folder:
        for name in charts(Path(folder)):
            svg = (Path(folder) / f"{name}.svg").read_bytes()
            files.append(File.generated(config, f"img/{name}.svg", content=svg))
    return files
