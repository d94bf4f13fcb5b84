"""``python -m polars_rank`` / ``polars-rank``: a tiny worked example (the CLI grows here)."""

from __future__ import annotations

import polars as pl

import polars_rank as pr


def main() -> None:
    """Evaluate a tiny two-arm example and print per-arm means."""
    df = pl.DataFrame({
        "arm": ["A"] * 6 + ["B"] * 6,
        "qid": ["q1", "q1", "q1", "q2", "q2", "q2"] * 2,
        "rel": [3, 0, 1, 0, 2, 1] * 2,
        "score": [0.9, 0.8, 0.1, 0.7, 0.6, None, 0.2, 0.8, 0.5, 0.3, 0.9, None],
    })
    print(
        df.group_by("arm", maintain_order=True).agg(
            ndcg_10=pr.ndcg("rel", 10, by="score", query="qid"),
            map=pr.map("rel", by="score", query="qid"),
            mrr_10=pr.mrr("rel", 10, by="score", query="qid"),
        )
    )


if __name__ == "__main__":
    main()
