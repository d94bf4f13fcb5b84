"""trec_eval's measure names, parameters and sets, as the command line reads them.

``-m P.5,10`` asks for ``P_5`` and ``P_10``; ``-m P`` for P at trec_eval's default
cutoffs; ``-m official`` (the default), ``-m set``, ``-m all_trec`` and ``-m qrels_jg``
for trec_eval's sets (measures.c:183-235, trec_eval 10.0). Each line trec_eval prints becomes a
(printed name, metric string) pair: ``P_5`` and ``P_5``, ``set_F_2`` and
``set_F(beta=2.0)``, ``rbp_p=0.5,1=2`` and ``rbp(p=0.5,gains={1:2})``. Output order is
trec_eval's own table (measures.c:120-178), whatever the order asked. As in trec_eval,
a measure is computed once, with the parameters of the first ``-m`` that gives it
some (``-m all_trec -m relstring.20`` prints ``relstring_20`` only).

Parameters are read as trec_eval's meas_init.c reads them, by kind of measure:

* cutoffs (``P``, ``recall``, ``ndcg_cut``, ...): C's ``atol`` of each, sorted; a
  cutoff <= 0 or given twice stops trec_eval, and the command line;
* levels (``iprec_at_recall``, ``Rprec_mult``): C's ``atof`` of each, sorted, printed
  ``%3.2f``; a level given twice stops both;
* values (``set_F``, ``utility``, ``11pt_avg``, ``relstring``): ``atof`` of each, in
  the order given, and the text as given in the printed name;
* pairs (``ndcg``, ``G``, ``rbp``, ...): ``name=value`` (``p=0.5`` for rbp, a label
  ``1=2`` for a gain), the text as given in the printed name;
* none (``map``, ``set_P``, ...): parameters given are ignored, as trec_eval ignores
  them (with a note on stderr).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from polars_rank.preferences import PREFS_MEASURES, PREFS_SETS

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["ORDER", "SETS", "UNSUPPORTED", "Expanded", "MeasureError", "atof", "atol",
           "expand", "first_parameters", "printed"]


class MeasureError(ValueError):
    """A ``-m`` argument trec_eval refuses too; the message says why, in its words.

    ``status``: trec_eval 10's exit status for it (:mod:`polars_rank._cli.status`): 1
    where it reads the options (``-m P.``), 2 where it initialises the measures
    (``-m P.0``), 4 where it calculates them (utility without its four weights).
    """

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALLS = tuple(i / 10 for i in range(11))


@dataclass(frozen=True)
class _Measure:
    kind: str
    """none, cutoffs, levels, values or pairs (see the module docstring)."""
    defaults: tuple[float, ...] = ()
    metric: str = ""
    """The polars-rank metric its parameters are given to (pairs and levels)."""


_NONE = _Measure("none")
# trec_eval 10's table of measures, in its printing order (measures.c:120-178); the
# preference measures are read by polars_rank.preferences, the judgment-group ones by
# _evaluation/judgment_groups.py
MEASURES: dict[str, _Measure] = {
    "runid": _NONE, "num_q": _NONE, "num_ret": _NONE, "num_rel": _NONE,
    "num_rel_ret": _NONE, "map": _NONE, "gm_map": _NONE, "Rprec": _NONE, "bpref": _NONE,
    "recip_rank": _NONE,
    "iprec_at_recall": _Measure("levels", _RECALLS, "iprec_at_recall(recall={})"),
    "P": _Measure("cutoffs", _CUTOFFS),
    "relstring": _Measure("values", (10,)),
    "recall": _Measure("cutoffs", _CUTOFFS),
    "infAP": _NONE, "gm_bpref": _NONE,
    "Rprec_mult": _Measure("levels", tuple(i / 10 for i in range(2, 21, 2)),
                           "rprec_mult(multiple={})"),
    "utility": _Measure("values", (1, -1, 0, 0)),
    "11pt_avg": _Measure("values", _RECALLS),
    "binG": _NONE,
    "G": _Measure("pairs", metric="g"),
    "dcg": _Measure("pairs", metric="dcg"),
    "ideal_dcg": _Measure("pairs", metric="ideal_dcg"),
    "ndcg": _Measure("pairs", metric="ndcg"),
    "ndcg_rel": _Measure("pairs", metric="ndcg_rel"),
    "Rndcg": _Measure("pairs", metric="rndcg"),
    "ndcg_cut": _Measure("cutoffs", _CUTOFFS),
    "map_cut": _Measure("cutoffs", _CUTOFFS),
    "relative_P": _Measure("cutoffs", _CUTOFFS),
    "success": _Measure("cutoffs", (1, 5, 10)),
    "set_P": _NONE, "set_relative_P": _NONE, "set_recall": _NONE, "set_map": _NONE,
    "set_F": _Measure("values", (1.0,)),
    "num_nonrel_judged_ret": _NONE,
    **dict.fromkeys(PREFS_MEASURES, _NONE),  # -R prefs (polars_rank.preferences)
    # the judgment-group measures, which read -R qrels_jg (and no other measure does)
    "map_avgjg": _NONE,
    "P_avgjg": _Measure("cutoffs", _CUTOFFS),
    "Rprec_mult_avgjg": _Measure("levels", tuple(i / 10 for i in range(2, 21, 2)),
                                 "rprec_mult_avgjg(multiple={})"),
    "yaap": _NONE,
    "rbp": _Measure("pairs", metric="rbp"),
    "rbp_resid": _Measure("pairs", metric="rbp_resid"),
    "unj": _Measure("cutoffs", (5, 10, 20)),
}
ORDER = tuple(MEASURES)
"""trec_eval's printing order."""

SETS: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
}
SETS["qrels_jg"] = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
SETS["all_trec"] = (*SETS["official"], "relstring", "recall", "unj", "rbp", "rbp_resid",
                    "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
                    "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg",
                    "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                    "set_F", "num_nonrel_judged_ret")
SETS.update({name: ("runid", "num_q", *measures) for name, measures in PREFS_SETS.items()})

UNSUPPORTED: frozenset[str] = frozenset()
"""trec_eval measures polars-rank does not compute: left out with a note (none now)."""


class Expanded(NamedTuple):
    """What one ``-m`` asks for: (printed name, metric string) pairs, and a note."""

    lines: list[tuple[str, str]]
    note: str | None = None


# C's atol and atof: the longest numeric prefix after white space, 0 when there is none
_LONG = re.compile(r"\s*([-+]?\d+)")
_DOUBLE = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


def atol(text: str) -> int:
    """C's ``atol``: ``"23.4"`` is 23, ``"5x"`` 5, ``"x"`` 0."""
    match = _LONG.match(text)
    return int(match[1]) if match else 0


def atof(text: str) -> float:
    """C's ``atof`` (decimal forms): ``".25"`` is 0.25, ``"1e-1x"`` 0.1, ``"x"`` 0.0."""
    match = _DOUBLE.match(text)
    return float(match[1]) if match else 0.0


def first_parameters(specs: Sequence[str]) -> dict[str, str]:
    """Each measure's parameters as trec_eval takes them: from the first ``-m name.params``.

    trec_eval computes a measure once, with the parameters of the first ``-m`` that
    gives it some (trec_eval.c, add_meas_arg_info; meas_init.c stops at the first
    match), wherever the measure is asked: ``-m official -m P.5`` prints ``P_5`` only,
    ``-m P.3 -m P.7`` ``P_3`` only.
    """
    given: dict[str, str] = {}
    for spec in specs:
        measure, dot, params = spec.partition(".")
        if dot and measure in MEASURES:
            given.setdefault(measure, params)
    return given


def expand(spec: str, given: Mapping[str, str] | None = None) -> Expanded | None:
    """The lines one ``-m`` asks for, or None when it is not trec_eval's syntax.

    ``P.5,10`` -> ``P_5``, ``P_10``; ``P`` -> P at its default cutoffs; a set (with
    any parameters, which trec_eval ignores) -> its measures. ``given``
    (:func:`first_parameters` of all the ``-m``) overrides a measure's parameters.
    Raises :class:`MeasureError` where trec_eval stops.
    """
    measure, dot, params = spec.partition(".")
    if dot and not params:  # trec_eval.c, add_meas_arg_info
        msg = (f"-m {spec}: nothing after the '.' (trec_eval: improper measure in "
               f"parameter '{measure}'); give the parameters or leave the '.' out")
        raise MeasureError(msg, status=1)
    if measure in SETS:
        out = Expanded([])
        for m in SETS[measure]:
            expanded = expand(m, given)
            out.lines.extend(expanded.lines if expanded else [])
        return out
    if measure not in MEASURES:
        return None
    params = (given or {}).get(measure, params)
    kind = MEASURES[measure]
    if not params:
        return Expanded(_defaults(measure))
    if kind.kind == "none":
        return Expanded([(measure, measure)],
                        f"-m {spec}: trec_eval's {measure} takes no parameters; they are "
                        "ignored, as trec_eval ignores them")
    if kind.kind == "cutoffs":
        return Expanded([(f"{measure}_{c}", f"{measure}_{c}") for c in _cutoffs(spec, params)])
    if kind.kind == "levels":
        return Expanded([(f"{measure}_{x:3.2f}", kind.metric.format(repr(x)))
                         for x in _levels(spec, params)])
    name = f"{measure}_{params}"  # trec_eval prints the parameters as given
    if kind.kind == "values":
        return Expanded([(name, _values_metric(spec, measure, params))])
    return Expanded([(name, _pairs_metric(spec, measure, params))])


def _defaults(measure: str) -> list[tuple[str, str]]:
    kind = MEASURES[measure]
    if kind.kind == "cutoffs":
        return [(f"{measure}_{int(c)}", f"{measure}_{int(c)}") for c in kind.defaults]
    if kind.kind == "levels":
        return [(f"{measure}_{x:3.2f}", kind.metric.format(repr(x))) for x in kind.defaults]
    return [(measure, kind.metric or measure)]


def _cutoffs(spec: str, params: str) -> list[int]:
    """meas_init.c, get_long_cutoffs: atol of each, sorted, positive, distinct."""
    values = sorted(atol(p) for p in params.split(","))
    if values[0] <= 0:
        msg = (f"-m {spec}: cutoffs are positive integers (trec_eval: Negative cutoff "
               "detected)")
        raise MeasureError(msg)
    _distinct(spec, values)
    return values


def _levels(spec: str, params: str) -> list[float]:
    """meas_init.c, get_double_cutoffs: atof of each, sorted, distinct."""
    values = sorted(atof(p) for p in params.split(","))
    _distinct(spec, values)
    return values


def _distinct(spec: str, values: Sequence[float]) -> None:
    if len(set(values)) < len(values):
        msg = f"-m {spec}: a cutoff is given twice (trec_eval: duplicate cutoffs detected)"
        raise MeasureError(msg)


def _values_metric(spec: str, measure: str, params: str) -> str:
    """The metric string of set_F, utility, 11pt_avg or relstring with parameters."""
    values = [atof(p) for p in params.split(",")]
    if measure == "set_F":  # m_set_F.c reads the first
        return f"set_F(beta={values[0]!r})"
    if measure == "relstring":  # m_relstring.c: (long) of the first
        if int(values[0]) <= 0:
            msg = f"-m {spec}: relstring's length is a positive integer"
            raise MeasureError(msg)
        return f"relstring@{int(values[0])}"
    listed = ",".join(repr(v) for v in values)
    if measure == "utility":
        if len(values) != 4:
            msg = (f"-m {spec}: utility takes four weights a,b,c,d (trec_eval: improper "
                   "number of coefficients)")
            raise MeasureError(msg, status=4)  # m_utility.c checks when it calculates
        return f"utility(weights=[{listed}])"
    if values != sorted(values):
        msg = (f"-m {spec}: give 11pt_avg's recall levels in increasing order; trec_eval "
               "walks them as sorted (m_11pt_avg.c) and averages other points otherwise")
        raise MeasureError(msg)
    return f"11pt_avg(levels=[{listed}])"


_INT = re.compile(r"[-+]?\d+")


def _pairs(spec: str, params: str) -> list[tuple[str, float]]:
    """meas_init.c, get_param_pairs: ``name=value`` pairs, refused as trec_eval refuses them.

    Malformed when two separators follow each other (``1=2,,3=4``, ``1==2``) or the
    text does not end with a ``name=value`` (``1=3,2``).
    """
    last, malformed = ",", False
    for char in params:
        if char in ",=":
            if char == last:
                malformed = True
                break
            last = char
    if malformed or last != "=":
        msg = (f"-m {spec}: parameters are name=value pairs separated by commas, such "
               f"as 1=3,2=9 (trec_eval: malformed pair parameters in '{params}')")
        raise MeasureError(msg)
    pairs = []
    for part in params.split(","):
        name, _, value = part.partition("=")
        pairs.append((name, atof(value)))
    return pairs


def _pairs_metric(spec: str, measure: str, params: str) -> str:
    """The metric string of a measure with ``name=value`` parameters (gain_init.c).

    A pair whose name is an integer gives that label a gain (the first pair for a
    label wins, as get_gain finds it first); rbp and rbp_resid read ``p``; other names
    are ignored, as trec_eval ignores them.
    """
    kind = MEASURES[measure]
    pairs = _pairs(spec, params)
    options = []
    if measure in ("rbp", "rbp_resid"):
        persistence = [value for name, value in pairs if name == "p"]
        if persistence:  # m_rbp.c: the last p given
            options.append(f"p={persistence[-1]!r}")
    gains: dict[int, float] = {}
    for name, value in pairs:
        if _INT.fullmatch(name):
            if int(name) < 0:
                msg = (f"-m {spec}: gains are given to labels >= 0 (polars-rank reads "
                       "negative labels as unjudged)")
                raise MeasureError(msg)
            gains.setdefault(int(name), value)
    if gains and measure != "rbp_resid":  # rbp_resid reads no gains (m_rbp_resid.c)
        table = ",".join(f"{label}:{gain!r}" for label, gain in sorted(gains.items()))
        options.append(f"gains={{{table}}}")
    return f"{kind.metric}({','.join(options)})" if options else kind.metric


def printed(name: str) -> str:
    """The trec_eval measure a printed name belongs to (``P_10`` -> ``P``).

    A measure name may hold an underscore (``ndcg_cut_10``, ``rbp_resid_p=0.5``): the
    longest known measure the name starts with wins.
    """
    if name in MEASURES:
        return name
    known = [m for m in MEASURES if name.startswith(f"{m}_")]
    return max(known, key=len) if known else name
