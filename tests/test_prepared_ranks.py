"""evaluate()'s own rank column (``RankColumn``) gives the public expressions' numbers.

evaluate() hands every metric its judged rows sorted by list, then rank, with a
marked rank column and columns computed once for every metric (the relevant rows so
far, average precision's running sums, the ideal labels, the longest list's length):
the metrics then read values in rank order without sorting them, read those columns,
and skip their own data checks (evaluate() ran them). Reading the same frame with a
plain ``rank="rank"`` (which sorts, computes and checks) must give the same bits, for
every measure of ``-m all_trec`` (at trec_eval's ``-l`` 1 and 2) and the other metric
strings below.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from polars_rank._cli.eval_settings import asked
from polars_rank._engine.positions import RankColumn
from polars_rank._evaluation.options import LIST
from polars_rank._evaluation.scoring import prepared_ranks
from polars_rank.registry import Metric, parse_metric

OTHERS = ["ndcg@10", "ndcg_burges@5", "err@10", "rbp(p=0.8)", "AP@5", "RR@3", "R@5",
          "hit_rate@3", "f1@5", "dcg@10", "ndcg@10(gain=binary)", "map(denominator=capped)@5",
          "P@5(adaptive_k=True)", "G(gains={1:3,2:1})", "ndcg(gains={1:2,2:1})"]


def _metrics() -> list[str]:
    return list(dict.fromkeys([*(str(m) for m in asked(["all_trec"]).unique()), *OTHERS]))


def _lists(seed: int, n_lists: int = 60) -> pl.DataFrame:
    """Judged rows as evaluate() builds them: each list's ranks 1..n (some rows unjudged,
    among them the last), and judged rows not retrieved; sorted by list, then rank,
    the rows without a rank last."""
    rng = np.random.default_rng(seed)
    parts = []
    for q in range(n_lists):
        n = int(rng.integers(0, 25))
        ranks = np.sort(rng.choice(np.arange(1, 40), size=n, replace=False))
        labels = rng.choice([0.0, 1.0, 2.0, 3.0, np.nan], size=n, p=[.4, .25, .15, .05, .15])
        missed = int(rng.integers(0, 4))
        parts.append(pl.DataFrame({
            LIST: [q] * (n + missed),
            "rank": [*ranks.tolist(), *([None] * missed)],
            "rel": [*labels.tolist(), *rng.choice([0.0, 1.0, 2.0], size=missed).tolist()],
        }, schema={LIST: pl.Int64, "rank": pl.Int64, "rel": pl.Float64}))
    out = pl.concat(parts).with_columns(pl.col("rel").fill_nan(None))
    return out.sort(pl.col(LIST) * 2**32 + pl.col("rank").fill_null(2**32 - 1))


def _with_level(m: Metric, level: int) -> Metric:
    option = m.definition.option("threshold")
    if option is None or option.default is None:
        return m
    return Metric(m.definition, m.k, {**m.options, "threshold": float(level)})


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", [1, 2])
def test_marked_ranks_give_the_same_bits(seed: int, level: int) -> None:
    rows = _lists(seed)
    metrics = list(dict.fromkeys(_with_level(parse_metric(s, "trec_eval"), level)
                                 for s in _metrics()))
    plain = rows.group_by(LIST, maintain_order=True).agg(
        m.expr("rel", rank="rank").alias(str(m)) for m in metrics)
    for checked in (True, False):
        for thresholds in ([float(level)], None):
            longest = None if thresholds is None else int(rows["rank"].max())  # type: ignore[arg-type]
            rank, columns = prepared_ranks("rel", thresholds, checked=checked, longest=longest)
            marked = rows.with_columns(columns).group_by(LIST, maintain_order=True).agg(
                m.expr("rel", rank=rank).alias(str(m)) for m in metrics)
            for column in plain.columns[1:]:
                a, b = plain[column], marked[column]
                if a.dtype == pl.Float64:
                    same = a.to_numpy().view("u8") == b.to_numpy().view("u8")
                    assert same.all(), (column, checked, thresholds)
                else:
                    assert a.equals(b), column


def test_an_unchecked_marked_rank_still_flags_bad_lists() -> None:
    rows = pl.DataFrame({"q": [1, 1, 2], "rank": [1, 2, 1], "rel": [1.0, -1.0, 1.0]})
    out = rows.group_by("q", maintain_order=True).agg(
        parse_metric("P_1").expr("rel", rank=RankColumn("rank", checked=False)).alias("p"))
    assert np.isnan(out["p"][0])
    assert out["p"][1] == 1.0
