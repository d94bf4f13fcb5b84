"""``polars-rank eval -R qrels_jg``: which measures read judgment groups, as in trec_eval.

Under ``-R qrels_jg`` trec_eval 10 computes ``runid``, ``num_q`` and its
judgment-group measures (``-m qrels_jg``: ``map_avgjg``, ``P_avgjg``,
``Rprec_mult_avgjg``; measures.c:228-232) and stops on any other (its
form_res_rels.c refuses qrels_jg judgments: "Can't calculate measure", exit status
4, nothing printed); under ``-R qrels`` it stops on a judgment-group measure the same
way (form_res_rels_jg.c). The command line stops where it stops, before reading the
files, with trec_eval's message and a hint. The measures themselves are
:func:`polars_rank.evaluate`'s (:mod:`polars_rank._evaluation.judgment_groups`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rank._cli.eval_settings import Stop
from polars_rank._language import trec_measures as trec

if TYPE_CHECKING:
    from polars_rank._cli.eval_settings import Asked

__all__ = ["check_measures"]

GROUP_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")


def check_measures(a: Asked, rel_info_format: str) -> None:
    """Stop, as trec_eval stops, on the first measure (in its order) the format cannot give.

    ``-R qrels_jg`` gives the judgment-group measures (and ``runid``, ``num_q``);
    every other format, the others.
    """
    groups = rel_info_format == "qrels_jg"
    for name in a.names:  # trec_eval's order: it stops on the first
        metric = a.metrics.get(name)
        if metric is None or (metric.definition.per_judgment_group is not None) == groups:
            continue  # runid, num_q: any format
        measure = trec.printed(name)
        if groups:
            hint = (f"-R qrels_jg: judgment groups are read by trec_eval's judgment-group "
                    f"measures only, {', '.join(GROUP_MEASURES)} (-m qrels_jg, with runid "
                    f"and num_q); {measure} reads one judgment per document (-R qrels)")
        else:
            hint = (f"{measure} averages over judgment groups: give trec_eval's qrels_jg "
                    "judgments ('qid jg docid rel') with -R qrels_jg")
        msg = f"Can't calculate measure '{measure}'"
        raise Stop(msg, 4, hint)
