r"""MkDocs hook: formulas typeset to MathML when the site is built, so it loads no script.

``pymdownx.arithmatex`` (generic mode) leaves each formula as ``\\(...\\)`` or
``\\[...\\]`` text in a ``span``/``div`` of class ``arithmatex``, for a script to
typeset in the reader's browser. That script came from a CDN, so a site read offline
showed raw LaTeX. Here each formula becomes MathML (``latex2mathml``, from the docs
extra), which browsers render natively: nothing to download, nothing to run.

A formula the converter does not understand fails the build instead of reaching a
page as raw LaTeX: latex2mathml passes an unknown command through as text, so any
backslash left in its output is an error.
"""

from __future__ import annotations

import html as html_text
import re
from typing import Any

from latex2mathml.converter import convert

_ARITHMATEX = re.compile(
    r'<(?P<tag>div|span) class="arithmatex">(?P<tex>.*?)</(?P=tag)>', re.DOTALL
)
_DELIMITERS = {"div": (r"\[", r"\]"), "span": (r"\(", r"\)")}


def typeset(tex: str, *, display: bool, where: str = "") -> str:
    r"""One formula (without delimiters) as a MathML ``<math>`` element.

    >>> typeset(r"\frac{1}{2}", display=False)
    '<math ...><mrow><mfrac><mrow><mn>1</mn></mrow><mrow><mn>2</mn></mrow></mfrac></mrow></math>'
    """
    mathml = convert(tex.strip(), display="block" if display else "inline")
    if "\\" in re.sub(r"<[^>]*>", "", mathml):
        msg = f"{where}: latex2mathml left LaTeX untypeset in {tex.strip()!r}"
        raise ValueError(msg)
    return mathml


def typeset_page(page_html: str, where: str = "") -> str:
    """Every arithmatex formula of a page's HTML replaced by its MathML."""

    def replace(match: re.Match[str]) -> str:
        tag = match["tag"]
        opening, closing = _DELIMITERS[tag]
        tex = html_text.unescape(match["tex"]).strip()
        if not (tex.startswith(opening) and tex.endswith(closing)):
            msg = f"{where}: a formula without its {opening} {closing} delimiters: {tex!r}"
            raise ValueError(msg)
        mathml = typeset(tex[2:-2], display=tag == "div", where=where)
        return f'<{tag} class="arithmatex">{mathml}</{tag}>'

    return _ARITHMATEX.sub(replace, page_html)


def on_page_content(html: str, page: Any, **_: Any) -> str:
    """MkDocs hook: typeset the page's formulas (API pages included)."""
    return typeset_page(html, where=page.file.src_uri)
