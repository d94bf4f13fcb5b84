"""``report()``'s text: a comparison's table printed as Markdown, LaTeX or plain text.

:func:`polars_rank._compare.report.report` reads the comparison into a :class:`Table`;
each function here prints it as ranx prints its ``Report`` (the module
:mod:`polars_rank._compare.report` says which ranx and what differs).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LETTERS", "Table", "latex", "markdown", "plain"]

LETTERS = "abcdefghijklmnopqrstuvwxyz"
_SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"  # ranx's super_chars (no superscript q)
_CORRECTIONS = {"holm": ("Holm's", "Holm's"), "bonferroni": ("Bonferroni's", "Bonferroni's"),
                "holm-sidak": ("Holm-Šidák", "Holm-\\v{S}id\\'ak"),
                "bh": ("Benjamini-Hochberg", "Benjamini-Hochberg")}
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}
_EMPTY = "\N{EN DASH}"  # a mean that is missing


@dataclass(frozen=True)
class Table:
    """What the three table formats print: arms, metrics, cells, and the test used."""

    arms: list[str]
    metrics: list[str]
    means: dict[tuple[str, str], float | None]
    beats: dict[tuple[str, str], list[int]]  # (arm, metric) -> indices of arms it beats
    best: dict[str, set[str]]  # metric -> arms in bold
    test: str  # e.g. "paired Student's t-test"
    alpha: float
    correction: str | None


def _caption(t: Table, *, latex: bool, bold: bool = True) -> str:
    p = rf"$p \le {t.alpha:g}$" if latex else f"p ≤ {t.alpha:g}"
    corrected = ""
    if t.correction is not None:
        name = _CORRECTIONS.get(t.correction, (t.correction, t.correction))[1 if latex else 0]
        corrected = f" after {name} correction"
    return ("Overall effectiveness of the models.\n"
            + ("The best results are highlighted in boldface.\n" if bold else "")
            + f"Superscripts denote significant differences in {t.test} with {p}{corrected}.")


def _number(value: float | None, digits: int, empty: str) -> str:
    return empty if value is None else f"{value:.{digits}f}"


def markdown(t: Table, arm: str, digits: int, caption: str | None) -> str:
    """The table as ranx's, in Markdown: ``<sup>`` superscripts, ``**bold**`` best means."""
    def cell(text: str) -> str:
        return text.replace("|", r"\|")

    lines = ["| # | " + " | ".join(cell(c) for c in [arm, *t.metrics]) + " |",
             "|:-:|:--|" + "--:|" * len(t.metrics)]
    for i, a in enumerate(t.arms):
        cells = [LETTERS[i], cell(a)]
        for m in t.metrics:
            text = _number(t.means.get((a, m)), digits, _EMPTY)
            if a in t.best.get(m, ()):
                text = f"**{text}**"
            letters = "".join(LETTERS[j] for j in t.beats.get((a, m), []))
            cells.append(text + (f"<sup>{letters}</sup>" if letters else ""))
        lines.append("| " + " | ".join(cells) + " |")
    text = caption if caption is not None else _caption(t, latex=False).replace("\n", " ")
    return "\n".join(lines) + "\n\n" + text + "\n"


def plain(t: Table, arm: str, digits: int, caption: str | None) -> str:
    """As ranx's ``to_table`` (tabulate's "simple" format, Unicode superscripts)."""
    rows = [["#", arm, *t.metrics]]
    for i, a in enumerate(t.arms):
        row = [LETTERS[i], a]
        for m in t.metrics:
            letters = "".join(_SUPERSCRIPTS[j] for j in t.beats.get((a, m), []))
            row.append(_number(t.means.get((a, m)), digits, _EMPTY) + letters)
        rows.append(row)
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]

    def line(cells: list[str]) -> str:
        return "  ".join(f"{c:<{w}}" for c, w in zip(cells, widths, strict=True)).rstrip()

    lines = [line(rows[0]), line(["-" * w for w in widths]), *(line(r) for r in rows[1:])]
    text = caption if caption is not None else _caption(t, latex=False, bold=False)
    return "\n".join(lines) + "\n\n" + text + "\n"


def _escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def latex(t: Table, arm: str, digits: int, caption: str | None, label: str) -> str:
    """As ranx's ``to_latex``: booktabs, a resizebox, phantoms that align the superscripts."""
    head = [
        r"% Add in preamble: \usepackage{graphicx} and \usepackage{booktabs}",
        r"% To change the table size, act on the resizebox argument `0.8`.",
        r"\begin{table*}[ht]",
        r"\centering",
        r"\caption{",
        caption if caption is not None else _caption(t, latex=True),
        "}",
        r"\resizebox{0.8\textwidth}{!}{",
        r"\begin{tabular}{c|l" + "|c" * len(t.metrics) + "}",
        r"\toprule",
        r"\textbf{\#}",
        rf"& \textbf{{{_escape(arm.capitalize())}}}",
        *(rf"& \textbf{{{_escape(m)}}}" for m in t.metrics[:-1]),
        rf"& \textbf{{{_escape(t.metrics[-1])}}} \\",
        r"\midrule",
    ]
    body = []
    for i, a in enumerate(t.arms):
        body += [f"{LETTERS[i]} &", f"{_escape(a)} &"]
        cells = []
        for m in t.metrics:
            text = _number(t.means.get((a, m)), digits, "--")
            if a in t.best.get(m, ()):
                text = rf"\textbf{{{text}}}"
            won = t.beats.get((a, m), [])
            letters = "".join(LETTERS[j] for j in won)
            phantoms = "".join(LETTERS[j] for j in range(len(t.arms)) if j != i and j not in won)
            if letters:
                text += f"$^{{{letters}}}$"
            if phantoms:
                text += rf"\hphantom{{$^{{{phantoms}}}$}}"
            cells.append(text)
        body.append(" &\n".join(cells) + r"\\")
    tail = [r"\bottomrule", r"\end{tabular}", "}", rf"\label{{{label}}}", r"\end{table*}"]
    return "\n".join([*head, *body, *tail]) + "\n"
