"""``polars-rank eval -Z``: the z-score file, and the per-query values as z-scores."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from polars_rank._cli.eval_settings import IDS, Asked, Settings, Stop, shown
from polars_rank._evaluation import zscores as zscores
from polars_rank.errors import TrecFormatError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    import polars as pl

    from polars_rank._engine.summaries import Summary


def zscore_reference(s: Settings) -> pl.DataFrame | None:
    """``-Z``: the z-score file, read as trec_eval reads it after the qrels and the run.

    A file trec_eval cannot read, or a malformed one, stops as trec_eval stops
    (get_zscores.c; exit status 255, its ``return UNDEF`` from main).
    """
    if s.zscores is None:
        return None
    try:
        return zscores.read_zscores(s.zscores, encoding=IDS)
    except (OSError, TrecFormatError) as exc:
        msg = f"-Z: cannot read the z-score file: {exc}"
        hint = ("trec_eval stops on a file it cannot read or a line without 4 fields "
                "(get_zscores.c), with exit status 255; polars-rank also refuses a mean "
                "or standard deviation that is not a finite number, which trec_eval's "
                "atof reads as 0 (x) or uses as it is (nan)")
        raise Stop(msg, 255, hint) from exc


def standardized_values(per: pl.DataFrame, reference: pl.DataFrame, a: Asked,
                  s: Settings) -> pl.DataFrame:
    """``-Z``: the per-query values of ``a``'s metrics as z-scores (:func:`zscored`)."""
    columns = {n: m.definition.over_queries for n, m in a.metrics.items()}
    return zscored(per, reference, columns, a.names, s)


def zscored(per: pl.DataFrame, reference: pl.DataFrame, columns: Mapping[str, Summary],
            names: Sequence[str], s: Settings) -> pl.DataFrame:
    """``-Z``: the per-query ``columns`` as z-scores, with a note where trec_eval misreads.

    ``columns``: each measure and how its values are summarised over queries;
    ``names``: the measures asked (trec_eval converts each but runid, num_q too).
    :func:`polars_rank._evaluation.zscores.reads_past`: where trec_eval 10 looks a value up past
    the end of its table (a crash, or another query's mean), polars-rank gives
    -1000000 as trec_eval's help says, and a note says so.
    """
    names = [n for n in names if n != "runid"]  # every value trec_eval converts
    past = zscores.reads_past(per, reference, names)
    if past is not None:
        q, measure = past
        what = f"query '{shown(q)}'" + ("" if measure is None else f", measure '{measure}',")
        print(f"polars-rank: note: -Z {s.zscores}: trec_eval 10 looks {what} up past the "
              "end of its table (convert_zscores.c's binary search): it then crashes or "
              "uses the next query's mean; polars-rank gives -1000000, as trec_eval's help "
              "says for a measure and query not in the file", file=sys.stderr)
    return zscores.standardized(per.lazy(), reference, columns, "qid").collect()
