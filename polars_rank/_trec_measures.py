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

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["ORDER", "SETS", "UNSUPPORTED", "expand", "first_parameters", "metric_string",
           "printed"]

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
_VERBATIM = frozenset({"ndcg", "G", "ndcg_rel", "Rndcg", "utility", "11pt_avg", "relstring"})
"""Measures whose parameters trec_eval prints as given: gain tables (``ndcg_1=3,2=9``),
utility's weights (``utility_2,-1,0,0``), 11pt_avg's levels (``11pt_avg_.25,.5``)."""

SETS: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
}
SETS["all_trec"] = (*SETS["official"], "relstring", "recall", "unj", "rbp", "rbp_resid",
                    "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
                    "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg",
                    "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                    "set_F", "num_nonrel_judged_ret")

UNSUPPORTED: frozenset[str] = frozenset()
"""trec_eval measures polars-rank does not compute yet (issue 22)."""


def _name(measure: str, value: float) -> str:
    """The printed name of a measure at one parameter: ``P_10``, ``iprec_at_recall_0.10``."""
    if measure in ("iprec_at_recall", "Rprec_mult"):
        return f"{measure}_{value:3.2f}"
    return f"{measure}_{int(value)}"


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
        if dot and measure in _PARAMETERS:
            given.setdefault(measure, params)
    return given


def expand(spec: str, given: Mapping[str, str] | None = None) -> list[str] | None:
    """The printed names one ``-m`` asks for, or None when it is not trec_eval's syntax.

    ``P.5,10`` -> ``P_5``, ``P_10``; ``P`` -> P at its default cutoffs; a set -> its
    measures. ``given`` (:func:`first_parameters` of all the ``-m``) overrides a
    measure's parameters. Cutoffs are parsed as trec_eval does: integers truncated
    (``23.4`` is 23), recall levels as numbers; both sorted, duplicates dropped.
    """
    if spec in SETS:
        return [n for m in SETS[spec] for n in expand(m, given) or []]
    measure, _, params = spec.partition(".")
    if measure not in _PARAMETERS:
        return None
    params = (given or {}).get(measure, params)
    defaults = _PARAMETERS[measure]
    if not params:
        return [measure] if not defaults else [_name(measure, v) for v in defaults]
    if measure in _PERSISTENCE:
        return [f"{measure}_{_persistence(spec, params)}"]
    if measure in _VERBATIM:
        return [f"{measure}_{params}"]
    if not defaults:
        msg = f"-m {spec}: trec_eval's {measure} takes no parameters"
        raise ValueError(msg)
    fractional = measure in ("iprec_at_recall", "Rprec_mult")
    try:
        values = sorted({float(p) if fractional else float(int(float(p)))
                         for p in params.split(",") if p})
    except ValueError:
        msg = f"-m {spec}: {measure}'s parameters are comma-separated numbers"
        raise ValueError(msg) from None
    return [_name(measure, v) for v in values]


_PERSISTENCE = ("rbp", "rbp_resid")
"""Measures whose parameter is ``p=value`` (meas_init.c, te_init_meas_s_double_p_pair)."""


def _persistence(spec: str, params: str) -> str:
    """``p=0.95`` as trec_eval prints it (the text given), after checking it."""
    name, _, value = params.partition("=")
    try:
        ok = name == "p" and 0 < float(value) < 1
    except ValueError:
        ok = False
    if not ok:
        msg = f"-m {spec}: the parameter is the persistence p=x, 0 < x < 1 (rbp.p=0.95)"
        raise ValueError(msg)
    return params


def metric_string(name: str) -> str:
    """The metric string of a printed name: ``rbp_p=0.95`` -> ``rbp(p=0.95)``."""
    base = printed(name)
    if base in _PERSISTENCE and name.startswith(f"{base}_p="):
        return f"{base}(p={name[len(base) + 3:]})"
    return name


def printed(name: str) -> str:
    """The trec_eval measure a printed name belongs to (``P_10`` -> ``P``)."""
    if name in _PARAMETERS:
        return name
    base = name.rsplit("_", 1)[0]
    return base if base in _PARAMETERS else name
