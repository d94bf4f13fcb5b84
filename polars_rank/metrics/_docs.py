"""Parameter descriptions shared by the metric functions, written once.

A numpydoc entry whose description is ``...`` takes the shared text of its parameter:
at import for ``help()`` (:func:`shared_parameters`), and in the API reference through
the docs' Griffe extension, which calls :func:`fill` on the source docstring.
"""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

F = TypeVar("F", bound="Callable[..., object]")

SHARED = {
    "by": """\
Ranking key(s): a score (``descending=True``) or a rank (``descending=False``),
optionally followed by tie-breaking keys; null = judged but not retrieved.
Required unless ``rank`` is given: ``by=None`` ranks the rows in their current
order (an impression log already in display order), said explicitly.""",
    "doc": """\
Document id column: a list holding a document twice is NaN, and equal scores
are ordered by doc id, descending, as trec_eval and :func:`polars_rank.evaluate`
do (``ties="trec_eval"``, the default with ``doc``).""",
    "rank": """\
Instead of ``by``: positions from a ranking step run once for every metric,
a column of 1-based ranks (null = not retrieved), or the pair (first, last)
of tie spans; see :func:`polars_rank.ranked`.""",
    "descending": "Sort direction, one bool or one per key of ``by``.",
    "pooled": """\
Whether each row's document is in the judgment pool (a qrels line, maybe with a
negative label: pooled but not judged), read where the label is null: true is
trec_eval's "in the pool, not judged", false "not in the pool". ``None``: every
unjudged row is not in the pool. :func:`polars_rank.evaluate` passes it from the
qrels; on :func:`polars_rank.ranked`'s rows it is ``pl.col("docid").is_not_null()``.""",
    "threshold": "Labels >= threshold are relevant.",
    "gains": """\
A gain table ``{label: gain}`` (trec_eval's ``-m ndcg.1=3,2=9``, ir_measures'
``gains=``): the gain of each listed label; every other label keeps its usual
gain (the label itself with linear gain, as in trec_eval and ir_measures).
Gains may be 0 or negative; the ideal ranking takes only the positive ones.""",
    "query": "Column(s) identifying a query: the mean over queries, each query once.",
    "max_rel": """\
The top label of the scale: labels are clipped to [min_rel, max_rel] and scaled
to gains in [0, 1] (ir_measures' ``max_rel``, required there too).""",
    "min_rel": "The label whose gain is 0 (ir_measures' ``min_rel``; lower labels clip to it).",
    "target": """\
T, the total gain the user wants before stopping (ir_measures' ``T``, on the
0-1 gain scale).""",
    "ties": """\
``None`` (the default): one value for any row order, ``"trec_eval"`` with ``doc``,
else ``"expected"`` (``"pessimistic"`` for a metric without its closed form);
``"first"`` (the input order, for logs already in display order: Polars gives no
row order after a join, a ``group_by`` or a shuffle), ``"trec_eval"`` (by
doc id, descending, scores as 64-bit floats as trec_eval 10), ``"trec_eval9"``
(the same with scores as 32-bit floats, as trec_eval 9 and pytrec_eval),
``"optimistic"`` / ``"pessimistic"`` (tied rows by the metric's gain, largest
first / last: relevant rows first / last for a binary metric, a gain table's gains
where one is given, so that a label with a negative gain ranks below unjudged rows;
the best and the worst order of the ties for a metric summing gains under a
non-increasing discount, such as DCG, precision, AP, RR, RBP and ERR, not always for
one whose terms depend on the rows ranked before, such as trec_eval's G or BPM) or
``"expected"`` (the exact mean over every order of the tied rows; McSherry &
Najork, ECIR 2008).""",
    "empty": """\
What a list without relevant rows scores: ``"zero"`` (the default, as
trec_eval, ranx and ir_measures), ``"one"``, ``"skip"`` (null: left out of a
mean over queries) or ``"error"`` (NaN; :func:`polars_rank.evaluate` raises,
naming the query): torchmetrics' ``empty_target_action`` ``"neg"``, ``"pos"``,
``"skip"``, ``"error"``.""",
    # the intent-aware metrics (one row per (document, subtopic)): ``... intents``
    "subtopic": "The row's subtopic id; null on the one row of a document without judgments.",
    "doc intents": """\
Document id: one row per (document, subtopic), every row of a document with
its score (or position).""",
    "by intents": """\
The score (higher first with ``descending=True``); null = judged but not
retrieved. Give ``by`` or ``rank``.""",
    "rank intents": """\
Instead of ``by``: the document's 1-based position on each of its rows (null =
not retrieved), from a ranking step such as :func:`polars_rank.evaluate`'s.""",
    "descending intents": "``by`` is a score (True) or a rank (False).",
    "ties intents": """\
Equal scores: ``"ndeval"`` (by document id, ascending, as ndeval orders the
runs ir_measures gives it) or ``"trec_eval"`` (descending, 64-bit scores, as trec_eval 10).""",
    # the beyond-accuracy metrics (polars_rank.recsys), one row per (user, item):
    # ``... recsys``; ``... slice`` for the cross-list metrics' query
    "item recsys": "Item id column.",
    "query recsys": """\
User (list) column(s): the mean over the lists, each once; ``None``: the
context is one list.""",
    "query slice": """\
User (list) column(s): ``k`` and ``by`` cut each user's list; ``None``: the
context is one list.""",
    "by recsys": """\
Score (``descending=True``) or rank (``descending=False``) ordering each list;
its top ``k`` rows are the recommendations (ties in row order; a row with a
null ``by`` is not recommended). ``None``: the rows are in rank order.""",
    "k recsys": "Cutoff per list; ``None``: every recommended row.",
    "descending recsys": "Direction of ``by``: True for a score (higher first), False for a rank.",
    "popularity recsys": """\
Popularity of each recommended item (interactions or distinct users:
:func:`polars_rank.item_popularity`'s ``count`` or ``users``); null: an item
the log never saw, left out.""",
    "features recsys": """\
Feature columns (one vector per row), or one embedding column (list or array)
with ``dim``.""",
    "category recsys": """\
Instead of ``features``: a category column (two items are similar, 1, when
they share their category, else 0).""",
    "dim recsys": "Length of the embedding in ``features`` (a list or array column).",
    # fusion (polars_rank.fusion): ``... fusion``; ``... ranked`` for the rank-based norms
    "runs fusion": """\
A frame of several runs (one row per system, query and document, the system
in the column ``system``), a list of runs (systems 0, 1, ...) or a dict
``{system: run}``; each run a frame with columns ``query``, ``doc`` and
``score`` (or anything :func:`polars_rank.evaluate` reads: pandas, Arrow,
dicts ``{qid: {docid: score}}``, a ranx ``Run``). Rows with a null score
are not retrieved. Checked as :func:`polars_rank.evaluate` checks a run
(:class:`~polars_rank.InvalidDataError` naming the run, the query and the
document): no NaN or infinite score, no null id, a (system, query, document)
once; ids of different types in different runs are compared as text. A frame's
systems (its ``system`` column) are read when the function is called.""",
    "qrels fusion": """\
Judgments: one row per (query, document) with columns ``query``, ``doc`` and
``rel`` (or anything :func:`polars_rank.evaluate` reads: a dict, a ranx
``Qrels``, ...).""",
    "score fusion": "The score column or expression.",
    "score ranked": "The score column or expression (higher is better).",
}
"""Parameter name (``name family`` for a family's own text) -> its description, unindented."""

_ENTRY = re.compile(r"^(?P<indent>[ \t]*)(?P<name>\w+)\n(?P=indent)[ \t]+\.\.\."
                    r"(?:[ \t]+(?P<family>\w+))?[ \t]*$", re.M)


def fill(doc: str) -> str:
    """``doc`` with each ``...`` (or ``... family``) description replaced by its shared text."""

    def entry(match: re.Match[str]) -> str:
        indent, name = match["indent"], match["name"]
        key = f"{name} {match['family']}" if match["family"] else name
        return f"{indent}{name}\n" + textwrap.indent(SHARED[key], indent + "    ")

    return _ENTRY.sub(entry, doc)


def shared_parameters(function: F) -> F:
    """Fill ``function``'s docstring with the shared parameter descriptions."""
    if function.__doc__:
        function.__doc__ = fill(function.__doc__)
    return function
