"""The built documentation site, as a reader sees it: offline, in a real browser.

These tests read a site that ``mkdocs build`` wrote, at ``POLARS_RANK_SITE`` (the
docs step of ``.ci/run`` builds it and sets the variable). Without the variable they
are skipped; with it, a missing browser or Playwright fails them instead.

* The site loads nothing from outside: no ``src``/``href`` of a script, stylesheet,
  image, font or frame, and no CSS ``url()``/``@import``, points off the site (links a
  reader may follow, ``<a href>``, are not loads).
* Every page, opened in headless Chromium (Debian's package, driven by Playwright)
  from a server on localhost with every other request refused: no console error, no
  failed request, no formula left as raw LaTeX (``\\(`` or ``\\[`` in the text a
  reader sees, outside code), and every chart, image and formula has a non-zero size.
  Screenshots of the main pages go to ``POLARS_RANK_SCREENSHOTS`` (default
  ``screenshots/`` beside the site) for a person to look at.

Formulas are typeset to MathML when the site is built (``docs/_ext/mathml.py``); the
first test here checks that every formula in the package's docstrings converts, so a
new formula the converter cannot read fails the test suite, not only the docs build.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import inspect
import os
import re
import shutil
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import polars_rank as pr
from polars_rank import metrics

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SITE = os.environ.get("POLARS_RANK_SITE")
CHROMIUM = os.environ.get("POLARS_RANK_CHROMIUM", "/usr/bin/chromium")
# Chromium's own background connections, refused on a closed network, would log errors
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
MAIN_PAGES = ["index.html", "getting-started/index.html", "metrics/index.html",
              "reference/gain/index.html", "compare/index.html", "plots/index.html",
              "conventions/index.html"]
"""Pages photographed for a person to look at (the gain reference has DCG's formula)."""

needs_site = pytest.mark.skipif(SITE is None, reason="POLARS_RANK_SITE is not set "
                                "(the docs step of .ci/run builds the site and sets it)")


def _mathml() -> ModuleType:
    pytest.importorskip("latex2mathml")
    spec = importlib.util.spec_from_file_location("mathml", ROOT / "docs/_ext/mathml.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _docstring_formulas() -> Iterator[tuple[str, str]]:
    math = re.compile(r"\.\. math::\s*(.*?)(?:\n\s*\n|\Z)", re.DOTALL)
    inline = re.compile(r":math:`([^`]+)`")
    for name in sorted(set(metrics.__all__) | set(pr.__all__)):
        doc = inspect.getdoc(getattr(pr, name, None) or getattr(metrics, name)) or ""
        for found in (*math.findall(doc), *inline.findall(doc)):
            yield name, " ".join(found.split())


def test_every_docstring_formula_typesets() -> None:
    mathml = _mathml()
    formulas = list(_docstring_formulas())
    assert len(formulas) > 30  # the metrics' formulas were found
    for name, tex in formulas:
        assert "<math" in mathml.typeset(tex, display=True, where=name)


def test_raw_latex_is_an_error() -> None:
    mathml = _mathml()
    with pytest.raises(ValueError, match="untypeset"):
        mathml.typeset(r"\unknowncommand{x}", display=False, where="test")
    page = '<p>a <span class="arithmatex">\\(x^2\\)</span></p>'
    assert "<msup>" in mathml.typeset_page(page)


# ------------------------------------------------------------------ the built site

_LOADS = re.compile(
    r"<(?P<tag>script|link|img|iframe|source|video|audio|embed|object)\b[^>]*?"
    r"\b(?:src|href|data|srcset)=[\"'](?P<url>[^\"']+)[\"']", re.IGNORECASE
)
_CSS_LOADS = re.compile(r"(?:url\(\s*[\"']?|@import\s+[\"'])(?P<url>[^\"')\s]+)")


def _external(url: str) -> bool:
    return url.startswith(("http:", "https:", "//"))


@needs_site
def test_the_site_loads_nothing_from_outside() -> None:
    site = Path(str(SITE))
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 20
    outside = [f"{p.relative_to(site)}: <{m['tag']}> {m['url']}"
               for p in pages for m in _LOADS.finditer(p.read_text(encoding="utf-8"))
               if _external(m["url"])]
    outside += [f"{p.relative_to(site)}: {m['url']}"
                for p in sorted(site.rglob("*.css"))
                for m in _CSS_LOADS.finditer(p.read_text(encoding="utf-8"))
                if _external(m["url"])]
    assert not outside, "loaded from outside the site:\n" + "\n".join(outside)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


# The checks run inside the page once it has loaded: what a reader sees.
_IN_PAGE = """() => {
  const raw = [];
  const walker = document.createTreeWalker(document.querySelector("article") || document.body,
                                           NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement.closest("code, pre, script, style")) continue;
    if (/\\\\[(\\[]/.test(n.textContent)) raw.push(n.textContent.trim().slice(0, 80));
  }
  const empty = [];
  for (const el of document.querySelectorAll("article img, article svg, article math")) {
    if (el.closest("svg") !== el && el.tagName.toLowerCase() === "svg") continue;
    if (el.closest(".md-clipboard, button, .headerlink")) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) {
      empty.push(el.tagName + " " + (el.getAttribute("src") || el.getAttribute("alt") || ""));
    }
  }
  return {raw, empty, maths: document.querySelectorAll("article math").length};
}"""


@needs_site
def test_every_page_in_a_browser(served: str) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM} (Debian's chromium package; .ci/run "
                    "installs it)")
    site = Path(str(SITE))
    shots = Path(os.environ.get("POLARS_RANK_SCREENSHOTS", site.parent / "screenshots"))
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True)
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    problems: list[str] = []
    maths = 0
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        # nothing but the site: a request anywhere else fails the page
        page.route(re.compile(r"^(?!" + re.escape(served) + ")"), lambda r: r.abort())
        errors: list[str] = []  # of the page being read
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
        for name in pages:
            errors.clear()
            page.goto(served + name, wait_until="load")
            page.wait_for_load_state("networkidle")
            seen = page.evaluate(_IN_PAGE)
            maths += seen["maths"]
            problems += [f"{name}: {e}" for e in errors]
            problems += [f"{name}: raw LaTeX {r!r}" for r in seen["raw"]]
            problems += [f"{name}: zero size {e}" for e in seen["empty"]]
            if name in MAIN_PAGES:
                page.screenshot(path=shots / (name.replace("/", "_")[:-5] + ".png"),
                                full_page=True)
        browser.close()
    assert not problems, "\n".join(problems)
    assert maths > 50  # the formulas were typeset and looked at
    assert sorted(s.name for s in shots.iterdir()) == sorted(
        n.replace("/", "_")[:-5] + ".png" for n in MAIN_PAGES)
