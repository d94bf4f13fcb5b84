"""A Griffe extension: the reST bits of numpydoc docstrings, rendered as Markdown.

The docstrings follow numpydoc, as Polars' do, so ``help()`` and Sphinx read them;
mkdocstrings renders docstring text as Markdown. This extension rewrites, before
the docstrings are parsed:

* ``.. math:: formula`` blocks (with indented continuation lines) into ``$$`` blocks,
  and ``:math:`x``` into ``$x$`` (``pymdownx.arithmatex``, typeset
  to MathML by ``mathml.py``);
* ``:func:`name```, ``:class:``, ``:mod:``, ``:meth:``, ``:exc:``, ``:data:`` roles
  into cross-references to the documented object when the name is public API
  (found in a public module's ``__all__``), into inline code otherwise;
* `` `text <url>`_ `` links into Markdown links.

and it expands a metric function's ``**unjudged: Unpack[UnjudgedOptions]`` (the
keywords every metric takes, :mod:`polars_rank._language.naming`) into the three keyword-only
parameters it stands for, in the signature and the Parameters section, as the
functions present them at run time (:func:`expand_unjudged`).

Loaded from ``mkdocs.yml`` (``extensions: [docs/_ext/rst_docstrings.py]``); the
tests import :func:`rst_to_markdown` to check the rewriting.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from polars_rank._language.naming import (
    OPTIONS_ANNOTATION,
    UNJUDGED_PARAMETERS,
    with_unjudged_parameters,
)
from polars_rank.metrics._docs import fill

try:
    from griffe import Extension
except ImportError:  # the tests import rst_to_markdown without the docs extra
    Extension = object

if TYPE_CHECKING:
    from griffe import Function, Object

PUBLIC_MODULES = (
    "polars_rank",
    "polars_rank.metrics",
    "polars_rank.metrics.gain",
    "polars_rank.metrics.err",
    "polars_rank.metrics.gain_levels",
    "polars_rank.metrics.ndcg_levels",
    "polars_rank.metrics.binary",
    "polars_rank.metrics.yaap",
    "polars_rank.metrics.first_hit",
    "polars_rank.metrics.sets",
    "polars_rank.metrics.r_precision",
    "polars_rank.metrics.incomplete",
    "polars_rank.metrics.pool",
    "polars_rank.metrics.rbp",
    "polars_rank.metrics.interpolated",
    "polars_rank.metrics.counts",
    "polars_rank.metrics.averaged_counts",
    "polars_rank.metrics.relative",
    "polars_rank.metrics.pairwise",
    "polars_rank.metrics.clicks",
    "polars_rank.metrics.dwell",
    "polars_rank.metrics.novelty",
    "polars_rank.metrics.novelty_err",
    "polars_rank.metrics.novelty_rbp",
    "polars_rank.metrics.intents",
    "polars_rank.metrics.user_models",
    "polars_rank.metrics.nerr",
    "polars_rank.metrics.overlap",
    "polars_rank.metrics.queries",
    "polars_rank.recsys",
    "polars_rank.recsys.coverage",
    "polars_rank.recsys.popularity",
    "polars_rank.recsys.diversity",
    "polars_rank.recsys.similarity",
    "polars_rank.recsys.exposure",
    "polars_rank.errors",
    "polars_rank.compare",
    "polars_rank.fusion",
    "polars_rank.online",
    "polars_rank.agreement",
    "polars_rank.stats",
    "polars_rank.io",
    "polars_rank.preferences",
    "polars_rank.registry",
    "polars_rank.validate",
    "polars_rank.datasets",
    "polars_rank.shapes",
    "polars_rank.sampled",
    "polars_rank.plot",
    "polars_rank.spark",
    "polars_rank.dask",
)
"""Modules whose ``__all__`` is documented in docs/reference."""
UNRENDERED = ("polars_rank", "polars_rank.metrics")
"""Modules re-exporting others' names: they have no page of their own."""

_MATH_BLOCK = re.compile(r"^(?P<indent>[ \t]*)\.\. math::[ \t]*(?P<first>.*)$")
_ROLE = re.compile(r":(?P<role>func|class|mod|meth|exc|data|attr|obj):`(?P<target>[^`]+)`")
_INLINE_MATH = re.compile(r":math:`(?P<tex>[^`]+)`")
_LINK = re.compile(r"`(?P<text>[^`<]+?)\s*<(?P<url>https?://[^>]+)>`_{1,2}")


def public_names(module_name: str) -> list[str]:
    """The ``__all__`` of a module, read from its source without importing it."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None:
        msg = f"no module {module_name}"
        raise ImportError(msg)
    for node in ast.parse(Path(spec.origin).read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            try:
                return list(ast.literal_eval(node.value))
            except ValueError:  # built from another module's (polars_rank: the metrics')
                return list(importlib.import_module(module_name).__all__)
    return []


def load(module_name: str) -> ModuleType | None:
    """The module, or None when importing it needs an extra that is not installed."""
    try:
        return importlib.import_module(module_name)
    except ImportError:
        return None


@cache
def public_identifiers() -> tuple[dict[str, str], dict[str, str]]:
    """(modules, objects): public names (short and dotted) -> the identifier documented.

    A name can be both (``polars_rank.validate`` is a module and a function): the
    role of the reference (``:mod:`` or not) decides. A name re-exported from
    elsewhere is documented where it is defined; the names of a module that cannot
    be imported here (an optional extra) are taken as its own.
    """
    modules: dict[str, str] = {}
    objects: dict[str, str] = {}
    for module_name in PUBLIC_MODULES:
        module = load(module_name)
        if module_name not in UNRENDERED:
            modules[module_name] = module_name
            modules[module_name.removeprefix("polars_rank.")] = module_name
        for name in public_names(module_name):
            obj = getattr(module, name, None)
            if isinstance(obj, ModuleType):
                continue  # a submodule: in ``modules`` already
            if hasattr(obj, "__qualname__") and hasattr(obj, "__module__"):
                target = f"{obj.__module__}.{obj.__qualname__}"
            else:  # a constant, or a module not importable here
                target = f"{module_name}.{name}"
            objects.setdefault(name, target)
            objects.setdefault(f"{module_name}.{name}", target)
    return modules, objects


def _reference(match: re.Match[str]) -> str:
    target = match["target"].strip()
    shown = target.lstrip("~")
    if target.startswith("~"):
        shown = shown.rsplit(".", 1)[-1]
    shown_code = f"`{shown}()`" if match["role"] in ("func", "meth") else f"`{shown}`"
    modules, objects = public_identifiers()
    first, second = (modules, objects) if match["role"] == "mod" else (objects, modules)
    name = target.lstrip("~")
    identifier = first.get(name, second.get(name))
    if identifier is None:
        return shown_code
    return f"[{shown_code}][{identifier}]"


def _math_blocks(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        match = _MATH_BLOCK.match(lines[i])
        if match is None:
            out.append(lines[i])
            i += 1
            continue
        indent = match["indent"]
        parts = [match["first"].strip()] if match["first"].strip() else []
        i += 1
        while i < len(lines) and lines[i].strip() and (
                len(lines[i]) - len(lines[i].lstrip()) > len(indent)):
            parts.append(lines[i].strip())
            i += 1
        out += ["", f"{indent}$$", f"{indent}{' '.join(parts)}", f"{indent}$$", ""]
    return "\n".join(out)


def rst_to_markdown(text: str) -> str:
    """Rewrite the reST constructs of a docstring as Markdown (see the module docstring)."""
    text = _math_blocks(text)
    text = _INLINE_MATH.sub(lambda m: f"${m['tex']}$", text)
    text = _ROLE.sub(_reference, text)
    return _LINK.sub(lambda m: f"[{m['text']}]({m['url']})", text)


def expand_unjudged(function: Function) -> bool:
    """Spell out a trailing ``**unjudged: Unpack[UnjudgedOptions]`` (False: none).

    The parameters become :data:`polars_rank._language.naming.UNJUDGED_PARAMETERS` (keyword-only,
    with their defaults and annotations) and the docstring gets their entries, the
    same text ``help()`` shows (:func:`polars_rank._language.naming.with_unjudged_parameters`).
    """
    from griffe import Parameter, ParameterKind, Parameters

    *own, last = function.parameters or [None]
    if (last is None or last.kind is not ParameterKind.var_keyword
            or str(last.annotation) != OPTIONS_ANNOTATION):
        return False
    options = [Parameter(p.name, annotation=str(p.annotation), kind=ParameterKind.keyword_only,
                         default=repr(p.default)) for p in UNJUDGED_PARAMETERS]
    function.parameters = Parameters(*own, *options)
    for parameter in options:
        parameter.function = function
    if function.docstring is not None:
        function.docstring.value = with_unjudged_parameters(function.docstring.value) or ""
    return True


class RstDocstrings(Extension):  # type: ignore[misc,valid-type]
    """Rewrite every docstring with :func:`rst_to_markdown` before it is parsed."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        """Rewrite the docstring of ``obj`` (a module, class, function or attribute)."""
        if obj.is_function:
            expand_unjudged(obj)  # type: ignore[arg-type]
        if obj.docstring is not None:
            obj.docstring.value = rst_to_markdown(fill(obj.docstring.value))
