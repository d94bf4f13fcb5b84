"""ir_measures' spellings that the metric-string parser reads before the registry.

ir_measures (MacAvaney, Macdonald & Ounis, ECIR 2022) writes some metrics as a
parameter of another: ``SetP(relative=True)`` is ``SetRelP`` (trec_eval's
``set_relative_P``), ``NumRet(rel=2)`` counts the relevant rows retrieved
(``num_rel_ret``), and ``SDCG(dcg='log2')`` names SDCG's only discount.
"""

from __future__ import annotations

from polars_rank._option_text import split_options

__all__ = ["chosen_metric"]

# ir_measures parameters that choose another metric: (name, option, value; None: any
# value) -> (the metric's name, whether the option stays)
CHOOSING_OPTIONS: dict[tuple[str, str, str | None], tuple[str, bool]] = {
    ("setp", "relative", "true"): ("setrelp", False),
    ("setp", "relative", "false"): ("setp", False),
    ("numret", "rel", None): ("num_rel_ret", True),
    ("sdcg", "dcg", "log2"): ("sdcg", False),
}


def chosen_metric(name: str, *texts: str | None) -> tuple[str, str | None, str | None]:
    """``name`` and its option texts after the options that choose the metric.

    ir_measures spells some metrics as another's parameter: ``SetP(relative=True)``
    is ``SetRelP``, ``NumRet(rel=2)`` counts relevant rows (``num_rel_ret``).
    """
    kept: list[str | None] = []
    for text in texts:
        if not text:
            kept.append(text)
            continue
        parts = []
        for part in split_options(text):
            key, _, raw = part.partition("=")
            value = raw.strip().strip("'\"")
            choice = (CHOOSING_OPTIONS.get((name, key.strip(), value))
                      or CHOOSING_OPTIONS.get((name, key.strip(), None)))
            if choice is None or choice[1]:
                parts.append(part)
            if choice is not None:
                name = choice[0]
        kept.append(",".join(parts))
    return name, kept[0], kept[1]
