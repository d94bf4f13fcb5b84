"""trec_eval's measure names, parameters and sets, as the command line reads them.

``-m P.5,10`` asks for ``P_5`` and ``P_10``; ``-m P`` for P at trec_eval's default
cutoffs; ``-m official`` (the default) and ``-m all_trec`` for trec_eval's sets
(measures.c:183-235, trec_eval 10.0). Each name trec_eval prints is a metric string
(``P_5``, ``iprec_at_recall_0.10``) parsed in trec_eval's dialect. Output order is
trec_eval's own table (measures.c:120-178), whatever the order asked. As in trec_eval,
a measure is computed once, with the parameters of the first ``-m`` that gives it
some (``-m all_trec -m relstring.20`` prints ``relstring_20`` only).
"""

from __future__ import annotations

__all__ = ["ORDER", "SETS", "UNSUPPORTED", "chosen", "expand", "printed"]

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RECALLS = tuple(i / 10 for i in range(11))

# name -> default parameters (cutoffs or recall levels); () = no parameter
_PARAMETERS: dict[str, tuple[float, ...]] = {
    "runid": (), "num_q": (), "num_ret": (), "num_rel": (), "num_rel_ret": (), "map": (),
    "gm_map": (), "Rprec": (), "bpref": (), "recip_rank": (), "iprec_at_recall": _RECALLS,
    "P": _CUTOFFS, "relstring": (), "recall": _CUTOFFS, "infAP": (), "gm_bpref": (),
    "Rprec_mult": tuple(i / 10 for i in range(2, 21, 2)), "utility": (), "11pt_avg": (),
    "binG": (), "G": (), "ndcg": (), "ndcg_rel": (), "Rndcg": (), "ndcg_cut": _CUTOFFS,
    "map_cut": _CUTOFFS, "relative_P": _CUTOFFS, "success": (1, 5, 10), "set_P": (),
    "set_relative_P": (), "set_recall": (), "set_map": (), "set_F": (),
    "num_nonrel_judged_ret": (), "rbp": (), "rbp_resid": (), "unj": (5, 10, 20),
}
ORDER = tuple(_PARAMETERS)
"""trec_eval's printing order."""

SETS: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
}
SETS["all_trec"] = (*SETS["official"], "relstring", "recall", "unj", "rbp", "rbp_resid",
                    "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
                    "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg",
                    "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                    "set_F", "num_nonrel_judged_ret")

UNSUPPORTED = frozenset({"binG", "G", "ndcg_rel", "Rndcg"})
"""trec_eval measures polars-rank does not compute yet (issue 22)."""


def _name(measure: str, value: float) -> str:
    """The printed name of a measure at one parameter: ``P_10``, ``iprec_at_recall_0.10``."""
    if measure in ("iprec_at_recall", "Rprec_mult"):
        return f"{measure}_{value:3.2f}"
    return f"{measure}_{int(value)}"


_RAW_PARAMETERS = frozenset({"relstring"})
"""Measures of one value whose printed name appends their parameters as given
(meas_init.c:203): ``relstring.20`` prints ``relstring_20``, ``relstring`` its default."""


def chosen(specs: Sequence[str]) -> dict[str, str]:
    """The first ``-m measure.params`` given for each measure: its parameters everywhere.

    trec_eval computes each measure once, with the first parameters the command line
    gives it (meas_init.c: the first matching ``meas_arg``), whatever else names it.
    """
    out: dict[str, str] = {}
    for spec in specs:
        measure, dot, _ = spec.partition(".")
        if dot and measure in _PARAMETERS:
            out.setdefault(measure, spec)
    return out


def expand(spec: str, given: Mapping[str, str] | None = None) -> list[str] | None:
    """The printed names one ``-m`` asks for, or None when it is not trec_eval's syntax.

    ``P.5,10`` -> ``P_5``, ``P_10``; ``P`` -> P at its default cutoffs; a set -> its
    measures. Cutoffs are parsed as trec_eval does: integers truncated (``23.4`` is 23),
    recall levels as numbers; both sorted, duplicates dropped. ``given``
    (:func:`chosen`): a measure's parameters, used wherever it is named.
    """
    given = given or {}
    if spec in SETS:  # a member given parameters we do not take: its own -m says so
        return [n for m in SETS[spec] for n in _member(m, given)]
    measure, _, params = given.get(spec, spec).partition(".")
    if measure not in _PARAMETERS:
        return None
    defaults = _PARAMETERS[measure]
    if params and measure in _RAW_PARAMETERS:
        return [f"{measure}_{params}"]
    if not params:
        return [measure] if not defaults else [_name(measure, v) for v in defaults]
    if not defaults:
        msg = (f"-m {spec}: polars-rank does not take trec_eval's parameters for {measure} "
               "(gain tables, utility weights); use a metric string such as "
               "'ndcg(gain=linear)'")
        raise ValueError(msg)
    fractional = measure in ("iprec_at_recall", "Rprec_mult")
    try:
        values = sorted({float(p) if fractional else float(int(float(p)))
                         for p in params.split(",") if p})
    except ValueError:
        msg = f"-m {spec}: {measure}'s parameters are comma-separated numbers"
        raise ValueError(msg) from None
    return [_name(measure, v) for v in values]


def _member(measure: str, given: Mapping[str, str]) -> list[str]:
    try:
        return expand(measure, given) or []
    except ValueError:
        return []


def printed(name: str) -> str:
    """The trec_eval measure a printed name belongs to (``P_10`` -> ``P``)."""
    if name in _PARAMETERS:
        return name
    base = name.rsplit("_", 1)[0]
    return base if base in _PARAMETERS else name
